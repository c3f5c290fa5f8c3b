/*
 * comm.cc: the communication engine of kernels whose manifest names one
 * ("engines", docs/comm.md): NVSHMEM, initialised from a unique id that
 * rank 0 makes and the caller hands to every rank (torch.distributed, a
 * file, MPI), its symmetric buffers, and the module initialisation each
 * such kernel needs before it launches (plk_comm_attach, in plkrt.c).
 *
 * C++ only because NVSHMEM's host headers are: nothing of the C++
 * library is used (no exceptions, no new), so libplkrt stays a C library.
 * NVSHMEM is opened at run time (dlopen), never linked: a kernel without
 * an engine needs none. Its headers come at build time when the Makefile
 * finds them (PLK_NVSHMEM); without them every function says so.
 */
#include <dlfcn.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plkrt.h"
#include "plan.h"
#ifdef PLK_NVSHMEM
#include <nvshmem_host.h>          /* the host API only: the device headers need nvcc */
#include <host/nvshmemx_api.h>
#include <host/nvshmemx_coll_api.h>
#include <non_abi/nvshmemx_error.h>
#endif

extern "C" void plk_kernel_detach(plk_kernel *k);   /* plkrt.c: the module's state given back */

struct plk_comm {
	void *lib;
	int rank, nranks;
#ifdef PLK_NVSHMEM
	decltype(&nvshmemx_cumodule_init) cumodule_init;
	decltype(&nvshmemx_cumodule_finalize) cumodule_fini;
	plk_kernel **kernels;       /* attached, their modules' state to finalize before unload */
	int nkernels, cap;
	decltype(&nvshmemx_vendor_get_version_info) version;
	decltype(&nvshmem_malloc) malloc_;
	decltype(&nvshmem_free) free_;
	decltype(&nvshmemx_barrier_all_on_stream) barrier_on_stream;
	void (*finalize)(void);
#endif
	char err[PLK_ERRLEN];
};

static int cfail(char *err, size_t n, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, n, fmt, ap);
	va_end(ap);
	return -1;
}

#ifndef PLK_NVSHMEM
#define NO_ENGINE "this libplkrt was built without NVSHMEM's headers (pip install nvidia-nvshmem-cu13, " \
                  "or NVSHMEM_HOME=DIR, then rebuild runtime/)"
extern "C" {
PLK_API size_t plk_comm_unique_id_size(void) { return 0; }
PLK_API int plk_comm_unique_id(void *id, size_t n, char *err, size_t errlen) { return cfail(err, errlen, NO_ENGINE); }
PLK_API plk_comm *plk_comm_init(int rank, int nranks, const void *id, size_t n, char *err, size_t errlen)
{
	cfail(err, errlen, NO_ENGINE);
	return NULL;
}
PLK_API CUdeviceptr plk_comm_alloc(plk_comm *c, size_t bytes) { return 0; }
PLK_API void plk_comm_free(plk_comm *c, CUdeviceptr p) {}
PLK_API int plk_comm_barrier(plk_comm *c, CUstream stream) { return -1; }
PLK_API void plk_comm_fini(plk_comm *c) {}
PLK_API int plk_comm_rank(const plk_comm *c) { return -1; }
PLK_API int plk_comm_size(const plk_comm *c) { return 0; }
PLK_API const char *plk_comm_error(const plk_comm *c) { return NO_ENGINE; }
int plk_comm_module_init(plk_comm *c, plk_kernel *k, CUmodule mod, char *err)
{
	return cfail(err, PLK_ERRLEN, NO_ENGINE);
}
void plk_comm_module_fini(plk_comm *c, plk_kernel *k, CUmodule mod) {}
}
#else

/* "NVSHMEMX_ERROR_INTERNAL (7)". Our own table of enum nvshmemx_status:
 * nvshmemx_status_string() is in NVSHMEM 3.8's headers, not in every
 * release the GPU hosts carry (the values are the same in all of them). */
static const char *status_name(int st, char buf[64])
{
	static const char *const names[] = {
		"NVSHMEMX_SUCCESS", "NVSHMEMX_ERROR_INVALID_VALUE", "NVSHMEMX_ERROR_OUT_OF_MEMORY",
		"NVSHMEMX_ERROR_NOT_SUPPORTED", "NVSHMEMX_ERROR_SYMMETRY", "NVSHMEMX_ERROR_GPU_NOT_SELECTED",
		"NVSHMEMX_ERROR_COLLECTIVE_LAUNCH_FAILED", "NVSHMEMX_ERROR_INTERNAL",
	};
	const int n = (int)(sizeof names / sizeof names[0]);
	snprintf(buf, 64, "%s (%d)", st >= 0 && st < n ? names[st] : "NVSHMEMX_ERROR_<unknown>", st);
	return buf;
}

/* The host library: $NVSHMEM_HOME/lib, else the directory the build
 * found, else by soname (LD_LIBRARY_PATH). */
static void *open_lib(char *err, size_t n)
{
	const char *home = getenv("NVSHMEM_HOME");
	char path[4096], why[1024] = "";
	const char *tries[3] = { NULL, NULL, "libnvshmem_host.so.3" };
	char a[4096];
	if (home && *home) {
		snprintf(a, sizeof a, "%s/lib/libnvshmem_host.so.3", home);
		tries[0] = a;
	}
#ifdef PLK_NVSHMEM_LIBDIR
	snprintf(path, sizeof path, "%s/libnvshmem_host.so.3", PLK_NVSHMEM_LIBDIR);
	tries[1] = path;
#endif
	for (int i = 0; i < 3; i++) {
		if (!tries[i])
			continue;
		void *h = dlopen(tries[i], RTLD_NOW | RTLD_GLOBAL);
		if (h)
			return h;
		const char *e = dlerror();
		snprintf(why + strlen(why), sizeof why - strlen(why), "%s%s", *why ? "; " : "", e ? e : tries[i]);
	}
	cfail(err, n, "cannot open NVSHMEM's host library: %s (pip install nvidia-nvshmem-cu13, or set NVSHMEM_HOME)", why);
	return NULL;
}

#define SYM(h, name, out) (*(void **)&(out) = dlsym(h, name))

extern "C" {

PLK_API size_t plk_comm_unique_id_size(void) { return sizeof(nvshmemx_uniqueid_t); }

PLK_API int plk_comm_unique_id(void *id, size_t n, char *err, size_t errlen)
{
	if (!id || n < sizeof(nvshmemx_uniqueid_t))
		return cfail(err, errlen, "plk_comm_unique_id: the id needs %zu bytes, got %zu",
		             sizeof(nvshmemx_uniqueid_t), n);
	void *h = open_lib(err, errlen);
	decltype(&nvshmemx_get_uniqueid) get = NULL;
	if (!h)
		return -1;
	if (!SYM(h, "nvshmemx_get_uniqueid", get))
		return cfail(err, errlen, "NVSHMEM's host library lacks nvshmemx_get_uniqueid");
	nvshmemx_uniqueid_t uid = NVSHMEMX_UNIQUEID_INITIALIZER;
	char b[64];
	int st = get(&uid);
	if (st)
		return cfail(err, errlen, "nvshmemx_get_uniqueid: %s", status_name(st, b));
	memcpy(id, &uid, sizeof uid);
	return 0;
}

PLK_API plk_comm *plk_comm_init(int rank, int nranks, const void *id, size_t n, char *err, size_t errlen)
{
	if (nranks < 1 || rank < 0 || rank >= nranks) {
		cfail(err, errlen, "plk_comm_init: rank %d of %d", rank, nranks);
		return NULL;
	}
	if (!id || n != sizeof(nvshmemx_uniqueid_t)) {
		cfail(err, errlen, "plk_comm_init: the unique id is %zu bytes (plk_comm_unique_id's), got %zu",
		      sizeof(nvshmemx_uniqueid_t), n);
		return NULL;
	}
	plk_comm *c = (plk_comm *)calloc(1, sizeof *c);
	if (!c) {
		cfail(err, errlen, "out of memory");
		return NULL;
	}
	decltype(&nvshmemx_set_attr_uniqueid_args) set_args = NULL;
	decltype(&nvshmemx_hostlib_init_attr) init_attr = NULL;
	decltype(&nvshmem_my_pe) my_pe = NULL;
	decltype(&nvshmem_n_pes) n_pes = NULL;
	if (!(c->lib = open_lib(err, errlen)))
		goto fail;
	if (!SYM(c->lib, "nvshmemx_set_attr_uniqueid_args", set_args) || !SYM(c->lib, "nvshmemx_hostlib_init_attr", init_attr) ||
	    !SYM(c->lib, "nvshmem_my_pe", my_pe) || !SYM(c->lib, "nvshmem_n_pes", n_pes) ||
	    !SYM(c->lib, "nvshmemx_cumodule_init", c->cumodule_init) ||
	    !SYM(c->lib, "nvshmemx_cumodule_finalize", c->cumodule_fini) ||
	    !SYM(c->lib, "nvshmemx_vendor_get_version_info", c->version) || !SYM(c->lib, "nvshmem_malloc", c->malloc_) ||
	    !SYM(c->lib, "nvshmem_free", c->free_) || !SYM(c->lib, "nvshmemx_barrier_all_on_stream", c->barrier_on_stream) ||
	    !SYM(c->lib, "nvshmemx_hostlib_finalize", c->finalize)) {
		cfail(err, errlen, "NVSHMEM's host library lacks a function plkrt calls: %s", dlerror());
		goto fail;
	}
	{
		nvshmemx_uniqueid_t uid;
		memcpy(&uid, id, sizeof uid);
		nvshmemx_init_attr_t attr = NVSHMEMX_INIT_ATTR_INITIALIZER;
		char b[64];
		int st = set_args(rank, nranks, &uid, &attr);
		if (st) {
			cfail(err, errlen, "nvshmemx_set_attr_uniqueid_args: %s", status_name(st, b));
			goto fail;
		}
		/* The host library's own init: nvshmemx_init_attr (a header
		 * inline) calls nvshmemi_init_thread, which lives in the static
		 * device library an nvcc-built program links, not in
		 * libnvshmem_host.so, and exits the process on an error. Our
		 * kernels get their device state from nvshmemx_cumodule_init. */
		if ((st = init_attr(NVSHMEMX_INIT_WITH_UNIQUEID, &attr))) {
			cfail(err, errlen, "NVSHMEM initialisation (rank %d of %d): %s", rank, nranks, status_name(st, b));
			goto fail;
		}
	}
	c->rank = my_pe();
	c->nranks = n_pes();
	if (c->rank != rank || c->nranks != nranks) {
		cfail(err, errlen, "NVSHMEM says PE %d of %d, asked for rank %d of %d", c->rank, c->nranks, rank, nranks);
		c->finalize();
		goto fail;
	}
	return c;
fail:
	free(c);   /* the library stays open: NVSHMEM may hold threads of its own */
	return NULL;
}

PLK_API CUdeviceptr plk_comm_alloc(plk_comm *c, size_t bytes)
{
	if (!c)
		return 0;
	void *p = c->malloc_(bytes);
	if (!p)
		cfail(c->err, sizeof c->err, "nvshmem_malloc(%zu): out of symmetric memory (NVSHMEM_SYMMETRIC_SIZE)", bytes);
	return (CUdeviceptr)(uintptr_t)p;
}

PLK_API void plk_comm_free(plk_comm *c, CUdeviceptr p)
{
	if (c && p)
		c->free_((void *)(uintptr_t)p);
}

PLK_API int plk_comm_barrier(plk_comm *c, CUstream stream)
{
	if (!c)
		return -1;
	c->barrier_on_stream((cudaStream_t)stream);
	return 0;
}

PLK_API void plk_comm_fini(plk_comm *c)
{
	if (!c)
		return;
	/* kernels still attached give their modules' state back first (each
	 * call takes its kernel off the list) */
	while (c->nkernels)
		plk_kernel_detach(c->kernels[c->nkernels - 1]);
	free(c->kernels);
	c->finalize();
	free(c);
}

PLK_API int plk_comm_rank(const plk_comm *c) { return c ? c->rank : -1; }
PLK_API int plk_comm_size(const plk_comm *c) { return c ? c->nranks : 0; }
PLK_API const char *plk_comm_error(const plk_comm *c) { return c ? c->err : "no engine (plk_comm_init failed)"; }

/* For plk_comm_attach (plkrt.c): NVSHMEM's device state in the module,
 * the kernel remembered for plk_comm_fini. */
int plk_comm_module_init(plk_comm *c, plk_kernel *k, CUmodule mod, char *err)
{
	char b[64];
	if (c->nkernels == c->cap) {
		int cap = c->cap ? 2 * c->cap : 8;
		plk_kernel **n = (plk_kernel **)realloc(c->kernels, (size_t)cap * sizeof *n);
		if (!n)
			return cfail(err, PLK_ERRLEN, "plk_comm_attach: out of memory");
		c->kernels = n;
		c->cap = cap;
	}
	int st = c->cumodule_init(mod);
	if (!st) {
		c->kernels[c->nkernels++] = k;
		return 0;
	}
	/* What failed on the H200 with a kernel linked against NVSHMEM
	 * 3.8.0's device library and a 3.4.5 host library: NVSHMEM prints
	 * "version ... does not match" to stderr and returns INTERNAL. */
	int major = 0, minor = 0, patch = 0;
	c->version(&major, &minor, &patch);
	return cfail(err, PLK_ERRLEN, "nvshmemx_cumodule_init: %s; the kernel's NVSHMEM device library (linked by "
	             "plkc) must come from the same NVSHMEM release as the host library, which is %d.%d.%d "
	             "(NVSHMEM_HOME chooses it)", status_name(st, b), major, minor, patch);
}

/* For plk_kernel_detach (plkrt.c), with the module's context current:
 * NVSHMEM forgets the module's device state before the module goes (a
 * module unloaded while NVSHMEM still holds it is a later kernel's
 * launch failure). */
void plk_comm_module_fini(plk_comm *c, plk_kernel *k, CUmodule mod)
{
	for (int i = 0; i < c->nkernels; i++)
		if (c->kernels[i] == k) {
			c->kernels[i] = c->kernels[--c->nkernels];
			break;
		}
	(void)c->cumodule_fini(mod);   /* teardown: no caller to tell */
}
}
#endif
