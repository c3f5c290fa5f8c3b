/* plkrt.c: the CUDA side of the runtime: module loading, checks of the
 * manifest against the loaded function and the device, tensor-map
 * encoding and the launch. The pure part is plan.c. */
#include "plkrt.h"
#include "plan.h"

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What one call supplies, resolved: bindings, the plan, the encoded
 * tensor maps and the kernel parameter pointers. A plk_args belongs to
 * one thread at a time; the kernel it launches is read-only after load,
 * so several threads launch one kernel at once, each with its own args. */
struct plk_args {
	const plk_kernel *k;
	plk_binding *b;
	plk_plan *p;
	CUtensorMap *tmaps;          /* per param, aligned as the type */
	plk_tmap_args *tmap_done;    /* what each tmaps[i] was encoded from */
	int *tmap_valid;
	void **kparams;
	int prepared;
	int var;                     /* the kernel prepared: index into plk_kernel.fns */
	int forced;                  /* the plk_kernel.forced it was prepared under */
	int counted;                 /* in its kernel's live count (all but its def) */
	/* the workspace of a split-K kernel (PK_WORKSPACE): this argument
	 * set's own, so that argument sets launch at once on their streams;
	 * zeroed on the stream before its first launch, after which the
	 * kernel leaves it zero */
	CUdeviceptr ws;
	size_t ws_size;
	int ws_fresh;                /* zero all of it before the next launch */
	int ws_var;                  /* the kernel and shape it was last launched for: */
	int64_t *ws_sym;             /* another one needs its counters zeroed first */
	CUdeviceptr *ws_old;         /* outgrown workspaces, freed with the args: a */
	int nws_old;                 /* captured CUDA graph may still point at one */
	char err[PLK_ERRLEN];
};

/* One kernel of the binary: the manifest's, or each variant of a select. */
typedef struct plk_fn {
	const plk_manifest *m;       /* its launch (a variant's: kvars[i].m) */
	CUfunction fn;
	int64_t capacity;            /* blocks resident at once (persistent) */
} plk_fn;

struct plk_kernel {
	plk_manifest *m;
	CUcontext ctx;
	int own_ctx;                 /* retained the primary context */
	CUdevice dev;
	CUmodule mod;
	plk_fn *fns;                 /* m->nkvars of them, or the one kernel */
	int nfns;
	int forced;                  /* fns index PLK_VARIANT or plk_force_variant chose; -1: by the rule */
	int cc_major, cc_minor;
	plk_device_vals dev_vals;    /* SMS and DRAM_GBPS: what a select's rule and a `require` read */
	plk_args *def;               /* the plk_bind_* / plk_launch arguments */
	plk_comm *comm;              /* the engine its module's state is in (plk_comm_attach), until
	                                plk_kernel_detach; NULL: none */
	int live;                    /* argument sets other than def, not yet freed */
	int unloaded;                /* plk_unload came first: the last set's free frees k */
	char err[PLK_ERRLEN];
};

static int efail(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, PLK_ERRLEN, fmt, ap);
	va_end(ap);
	return -1;
}

#define kfail(k, ...) efail((k)->err, __VA_ARGS__)

const char *plk_cuda_error_name(int code)
{
	const char *name = NULL;
	if (cuGetErrorName((CUresult)code, &name) == CUDA_SUCCESS && name)
		return name;
	return plk_cuda_error_table(code);
}

/* "what: CUDA_ERROR_X (description)" into err (PLK_ERRLEN bytes). */
static int cufail(char *err, CUresult r, const char *fmt, ...)
{
	const char *name = plk_cuda_error_name((int)r), *desc = NULL;
	if (cuGetErrorString(r, &desc) != CUDA_SUCCESS)
		desc = NULL;
	if (r == CUDA_ERROR_STUB_LIBRARY)
		desc = PLK_STUB_HINT;
	va_list ap;
	va_start(ap, fmt);
	int n = vsnprintf(err, PLK_ERRLEN, fmt, ap);
	va_end(ap);
	if (n >= 0 && n < PLK_ERRLEN) {
		if (name)
			snprintf(err + n, PLK_ERRLEN - n, ": %s (%s)", name, desc ? desc : "no description");
		else
			snprintf(err + n, PLK_ERRLEN - n, ": CUresult %d, unknown to this CUDA version", (int)r);
	}
	return -1;
}

#define CU(err, call, ...) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) return cufail(err, r_, __VA_ARGS__); } while (0)

static char *read_file(const char *path, size_t *len, char *err, size_t errlen)
{
	FILE *f = fopen(path, "rb");
	if (!f) {
		snprintf(err, errlen, "cannot open %s", path);
		return NULL;
	}
	char *buf = NULL;
	long n = -1;
	if (fseek(f, 0, SEEK_END) == 0 && (n = ftell(f)) >= 0 && fseek(f, 0, SEEK_SET) == 0
	    && (buf = malloc((size_t)n + 1)) && fread(buf, 1, (size_t)n, f) == (size_t)n) {
		buf[n] = 0;
		*len = (size_t)n;
	} else {
		snprintf(err, errlen, "cannot read %s", path);
		free(buf);
		buf = NULL;
	}
	fclose(f);
	return buf;
}

static int exists(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (f)
		fclose(f);
	return f != NULL;
}

/* gemm.cubin -> gemm.manifest.json, else gemm.cubin.manifest.json (what
 * `plkc -o gemm.cubin` writes) when only that one exists. */
static char *manifest_beside(const char *bin)
{
	const char *slash = strrchr(bin, '/'), *dot = strrchr(bin, '.');
	size_t n = strlen(bin), stem = dot && (!slash || dot > slash) ? (size_t)(dot - bin) : n;
	char *s = malloc(n + sizeof ".manifest.json");
	if (!s)
		return NULL;
	memcpy(s, bin, stem);
	strcpy(s + stem, ".manifest.json");
	if (!exists(s)) {
		memcpy(s, bin, n);
		strcpy(s + n, ".manifest.json");
		if (!exists(s)) {   /* report the documented name */
			memcpy(s, bin, stem);
			strcpy(s + stem, ".manifest.json");
		}
	}
	return s;
}

static char *binary_beside(const char *manifest, const char *binary)
{
	const char *slash = strrchr(manifest, '/');
	size_t dir = binary[0] == '/' || !slash ? 0 : (size_t)(slash - manifest + 1);
	char *s = malloc(dir + strlen(binary) + 1);
	if (s) {
		memcpy(s, manifest, dir);
		strcpy(s + dir, binary);
	}
	return s;
}

/* gemm.manifest.json -> gemm.cubin, else gemm.fatbin; gemm.cubin.manifest.json
 * -> gemm.cubin: the first that exists. */
static char *binary_for_manifest(const char *manifest)
{
	size_t n = strlen(manifest), suf = strlen(".manifest.json");
	size_t stem = n > suf && !strcmp(manifest + n - suf, ".manifest.json") ? n - suf : n;
	char *s = malloc(stem + sizeof ".fatbin");
	if (!s)
		return NULL;
	static const char *const ext[] = { "", ".cubin", ".fatbin" };
	for (int i = 0; i < 3; i++) {
		memcpy(s, manifest, stem);
		strcpy(s + stem, ext[i]);
		const char *dot = strrchr(s, '.');
		int binext = dot && (!strcmp(dot, ".cubin") || !strcmp(dot, ".fatbin") || !strcmp(dot, ".ptx"));
		if ((i || binext) && exists(s))
			return s;
	}
	free(s);
	return NULL;
}

plk_kernel *plk_load(const char *binary, const char *manifest, char *err, size_t errlen)
{
	char *mpath = manifest ? NULL : binary ? manifest_beside(binary) : NULL;
	char *bpath = NULL, *json = NULL, *image = NULL;
	size_t jlen = 0, ilen = 0;
	plk_kernel *k = NULL;
	if (!manifest && !binary) {
		snprintf(err, errlen, "plk_load: neither a binary nor a manifest given");
		return NULL;
	}
	if (!manifest && !mpath)
		goto oom;
	const char *mp = manifest ? manifest : mpath;
	if (!(json = read_file(mp, &jlen, err, errlen)))
		goto out;
	if (!binary) {
		/* Only the "binary" key is needed here; the full parse follows. */
		char e[PLK_ERRLEN];
		plk_manifest *m = plk_manifest_parse(json, jlen, e);
		if (!m) {
			snprintf(err, errlen, "%s: %s", mp, e);
			goto out;
		}
		bpath = m->binary ? binary_beside(mp, m->binary) : binary_for_manifest(mp);
		plk_manifest_free(m);
		if (!bpath) {
			snprintf(err, errlen, "%s: no \"binary\" key and no %s beside it; give the binary's path", mp,
			         "K.cubin or K.fatbin");
			goto out;
		}
	}
	const char *bp = binary ? binary : bpath;
	if (!(image = read_file(bp, &ilen, err, errlen)))
		goto out;
	k = plk_load_data(image, ilen, json, jlen, err, errlen);
	if (!k) {
		/* Prefix the file names. */
		char tmp[PLK_ERRLEN];
		snprintf(tmp, sizeof tmp, "%s", err);
		snprintf(err, errlen, "%s (%s): %s", bp, mp, tmp);
	}
	goto out;
oom:
	snprintf(err, errlen, "out of memory");
out:
	free(mpath);
	free(bpath);
	free(json);
	free(image);
	return k;
}

static int setup_context(plk_kernel *k)
{
	CU(k->err, cuInit(0), "cuInit");
	CU(k->err, cuCtxGetCurrent(&k->ctx), "cuCtxGetCurrent");
	if (!k->ctx) {
		CU(k->err, cuDeviceGet(&k->dev, 0), "cuDeviceGet(0)");
		CU(k->err, cuDevicePrimaryCtxRetain(&k->ctx, k->dev), "cuDevicePrimaryCtxRetain(device 0)");
		k->own_ctx = 1;
		CU(k->err, cuCtxSetCurrent(k->ctx), "cuCtxSetCurrent(primary context)");
	}
	CU(k->err, cuCtxGetDevice(&k->dev), "cuCtxGetDevice");
	int sms, mem_khz, bus_bits;
	CU(k->err, cuDeviceGetAttribute(&sms, CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT, k->dev),
	   "cuDeviceGetAttribute(MULTIPROCESSOR_COUNT)");
	CU(k->err, cuDeviceGetAttribute(&mem_khz, CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE, k->dev),
	   "cuDeviceGetAttribute(MEMORY_CLOCK_RATE)");
	CU(k->err, cuDeviceGetAttribute(&bus_bits, CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH, k->dev),
	   "cuDeviceGetAttribute(GLOBAL_MEMORY_BUS_WIDTH)");
	/* two transfers a clock over the bus: kHz x 1e3 x 2 x bits / 8 bytes a second, in GB/s */
	k->dev_vals = (plk_device_vals){ sms, (int64_t)mem_khz * bus_bits / 4000000 };
	CU(k->err, cuDeviceGetAttribute(&k->cc_major, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR, k->dev),
	   "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MAJOR)");
	CU(k->err, cuDeviceGetAttribute(&k->cc_minor, CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR, k->dev),
	   "cuDeviceGetAttribute(COMPUTE_CAPABILITY_MINOR)");
	return 0;
}

static void arch_list(const plk_manifest *m, char *buf, size_t len)
{
	size_t n = 0;
	buf[0] = 0;
	for (int i = 0; i < m->narch && n < len; i++)
		n += (size_t)snprintf(buf + n, len - n, "%s%s", i ? ", " : "", m->arch[i]);
	if (!m->narch)
		snprintf(buf, len, "not given");
}

/* The manifest's parameter list must be the function's: a mismatch would
 * otherwise surface as garbage in the kernel. Only the manifest's
 * parameters are asked about: a query past the function's last one fails
 * (CUDA_ERROR_INVALID_VALUE), which compute-sanitizer reports as an API
 * error, so the function's own count comes from the cubin (cubin.c); a
 * fatbin or PTX image does not give it, and a binary with more
 * parameters than the manifest then goes unnoticed. */
static int check_params(plk_kernel *k, const plk_fn *f, const void *image, size_t size)
{
	const plk_manifest *m = f->m;
	int have = plk_cubin_param_count(image, size, m->entry);
	if (have >= 0 && have != m->nparams)
		return kfail(k, "kernel %s takes %d parameters; the manifest lists %d", m->entry, have, m->nparams);
	for (int i = 0; i < m->nparams; i++) {
		size_t off = 0, psize = 0;
		CUresult r = cuFuncGetParamInfo(f->fn, (size_t)i, &off, &psize);
		if (r == CUDA_ERROR_NOT_SUPPORTED)
			return 0;               /* an old driver: nothing to compare */
		if (r == CUDA_ERROR_INVALID_VALUE)
			return kfail(k, "kernel %s takes %d parameters; the manifest lists %d", m->entry, i, m->nparams);
		if (r != CUDA_SUCCESS)
			return cufail(k->err, r, "cuFuncGetParamInfo(%s, %d)", m->entry, i);
		int want = plk_param_bytes(m->params[i].kind);
		if ((size_t)want != psize)
			return kfail(k, "kernel %s: parameter %d (%s, %s) is %zu bytes in the binary, %d in the manifest",
			             m->entry, i, m->params[i].name, plk_pkind_name(m->params[i].kind), psize, want);
	}
	return 0;
}

static int setup_fn(plk_kernel *k, plk_fn *f, const void *image, size_t size);

static int setup_function(plk_kernel *k, const void *image, size_t size)
{
	const plk_manifest *m = k->m;
	char arches[128];
	arch_list(m, arches, sizeof arches);
	CUresult r = cuModuleLoadData(&k->mod, image);
	if (r == CUDA_ERROR_NO_BINARY_FOR_GPU || r == CUDA_ERROR_INVALID_IMAGE || r == CUDA_ERROR_UNSUPPORTED_PTX_VERSION) {
		k->mod = NULL;
		return cufail(k->err, r, "cuModuleLoadData: the device is sm_%d%d, the binary is for %s",
		              k->cc_major, k->cc_minor, arches);
	}
	if (r != CUDA_SUCCESS) {
		k->mod = NULL;
		return cufail(k->err, r, "cuModuleLoadData");
	}
	k->nfns = m->nkvars ? m->nkvars : 1;
	if (!(k->fns = calloc((size_t)k->nfns, sizeof *k->fns)))
		return kfail(k, "out of memory");
	for (int i = 0; i < k->nfns; i++) {
		k->fns[i].m = m->nkvars ? m->kvars[i].m : m;
		if (setup_fn(k, &k->fns[i], image, size))
			return -1;
	}
	return 0;
}

/* f's function in the loaded module, checked against its manifest. */
static int setup_fn(plk_kernel *k, plk_fn *f, const void *image, size_t size)
{
	const plk_manifest *m = f->m;
	CUresult r = cuModuleGetFunction(&f->fn, k->mod, m->entry);
	if (r == CUDA_ERROR_NOT_FOUND)
		return cufail(k->err, r, "cuModuleGetFunction: no kernel \"%s\" in the binary (the manifest's \"entry\"; "
		              "did the link drop it?)", m->entry);
	if (r != CUDA_SUCCESS)
		return cufail(k->err, r, "cuModuleGetFunction(\"%s\")", m->entry);
	if (check_params(k, f, image, size))
		return -1;

	int maxt = 0, static_smem = 0, optin = 0;
	CU(k->err, cuFuncGetAttribute(&maxt, CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK, f->fn),
	   "cuFuncGetAttribute(%s, MAX_THREADS_PER_BLOCK)", m->entry);
	unsigned threads = m->block[0] * m->block[1] * m->block[2];
	if (threads > (unsigned)maxt)
		return kfail(k, "kernel %s: block of %u threads, but the binary allows at most %d "
		             "(its launch bounds or register use)", m->entry, threads, maxt);
	CU(k->err, cuFuncGetAttribute(&static_smem, CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES, f->fn),
	   "cuFuncGetAttribute(%s, SHARED_SIZE_BYTES)", m->entry);
	CU(k->err, cuDeviceGetAttribute(&optin, CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN, k->dev),
	   "cuDeviceGetAttribute(MAX_SHARED_MEMORY_PER_BLOCK_OPTIN)");
	if ((uint64_t)m->dynamic_smem + (uint64_t)static_smem > (uint64_t)optin)
		return kfail(k, "kernel %s: %u bytes of dynamic + %d static shared memory; the device allows %d per block",
		             m->entry, m->dynamic_smem, static_smem, optin);
	CU(k->err, cuFuncSetAttribute(f->fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, (int)m->dynamic_smem),
	   "cuFuncSetAttribute(%s, MAX_DYNAMIC_SHARED_SIZE_BYTES, %u)", m->entry, m->dynamic_smem);

	unsigned cs = m->cluster[0] * m->cluster[1] * m->cluster[2];
	f->capacity = k->dev_vals.sms;
	if (cs > 1) {
		if (k->cc_major < 9)
			return kfail(k, "kernel %s: cluster %ux%ux%u needs sm_90 or newer; the device is sm_%d%d", m->entry,
			             m->cluster[0], m->cluster[1], m->cluster[2], k->cc_major, k->cc_minor);
		if (cs > 8)
			CU(k->err, cuFuncSetAttribute(f->fn, CU_FUNC_ATTRIBUTE_NON_PORTABLE_CLUSTER_SIZE_ALLOWED, 1),
			   "cuFuncSetAttribute(%s, NON_PORTABLE_CLUSTER_SIZE_ALLOWED)", m->entry);
		CUlaunchAttribute at = { .id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION };
		at.value.clusterDim.x = m->cluster[0];
		at.value.clusterDim.y = m->cluster[1];
		at.value.clusterDim.z = m->cluster[2];
		CUlaunchConfig cfg = {
			.gridDimX = m->cluster[0], .gridDimY = m->cluster[1], .gridDimZ = m->cluster[2],
			.blockDimX = m->block[0], .blockDimY = m->block[1], .blockDimZ = m->block[2],
			.sharedMemBytes = m->dynamic_smem, .attrs = &at, .numAttrs = 1,
		};
		int nclusters = 0;
		CU(k->err, cuOccupancyMaxActiveClusters(&nclusters, f->fn, &cfg),
		   "cuOccupancyMaxActiveClusters(%s, cluster %ux%ux%u)", m->entry, m->cluster[0], m->cluster[1],
		   m->cluster[2]);
		if (nclusters < 1)
			return kfail(k, "kernel %s: no cluster of %ux%ux%u blocks with %u bytes of shared memory fits the device",
			             m->entry, m->cluster[0], m->cluster[1], m->cluster[2], m->dynamic_smem);
		f->capacity = (int64_t)nclusters * cs;
	}
	/* A test aid: fewer persistent blocks, so that a small problem still
	 * gives each block several work items (docs/runtime.md). */
	const char *lim = getenv("PLK_MAX_BLOCKS");
	if (lim && atoll(lim) > 0 && atoll(lim) < f->capacity)
		f->capacity = atoll(lim) / cs * cs > 0 ? atoll(lim) / cs * cs : cs;
	return 0;
}

plk_kernel *plk_load_data(const void *image, size_t size, const char *json, size_t jlen, char *err, size_t errlen)
{
	char e[PLK_ERRLEN];
	plk_kernel *k = calloc(1, sizeof *k);
	if (!k) {
		snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (!image || !size) {
		snprintf(err, errlen, "empty binary image");
		free(k);
		return NULL;
	}
	if (!(k->m = plk_manifest_parse(json, jlen, e))) {
		snprintf(err, errlen, "%s", e);
		free(k);
		return NULL;
	}
	if (!(k->def = plk_args_new(k))) {
		snprintf(k->err, sizeof k->err, "out of memory");
		goto fail;
	}
	if (setup_context(k))
		goto fail;
	plk_manifest_select(k->m, k->cc_major, k->cc_minor);
	if (setup_function(k, image, size))
		goto fail;
	k->forced = -1;
	const char *force = getenv("PLK_VARIANT");   /* tests: one variant of a select, always */
	if (force && *force && k->m->nkvars && plk_force_variant(k, force))
		goto fail;
	return k;
fail:
	snprintf(err, errlen, "%s", k->err);
	plk_unload(k);
	return NULL;
}

static void kernel_free(plk_kernel *k);
void plk_kernel_detach(plk_kernel *k);   /* below; comm.cc calls it too, at plk_comm_fini */

/* With argument sets still alive (a garbage collector may free them after
 * their kernel), the kernel is freed with the last of them. The counts
 * are atomic; plk_unload and a set's plk_args_free still must not run
 * at once (plkrt.h). */
void plk_unload(plk_kernel *k)
{
	if (!k)
		return;
	__atomic_store_n(&k->unloaded, 1, __ATOMIC_SEQ_CST);
	if (__atomic_load_n(&k->live, __ATOMIC_SEQ_CST) == 0)
		kernel_free(k);
}

static void kernel_free(plk_kernel *k)
{
	/* Teardown has no caller to tell: a failure here (a context already
	 * destroyed at process exit) leaves nothing to undo. */
	plk_kernel_detach(k);   /* NVSHMEM lets go of the module before it goes */
	if (k->mod)
		(void)cuModuleUnload(k->mod);
	if (k->own_ctx)
		(void)cuDevicePrimaryCtxRelease(k->dev);
	plk_args_free(k->def);
	plk_manifest_free(k->m);
	free(k->fns);
	free(k);
}

int plk_force_variant(plk_kernel *k, const char *name)
{
	if (!name) {
		k->forced = -1;
		return 0;
	}
	int i = plk_manifest_variant(k->m, name);
	if (i >= 0) {
		k->forced = i;
		return 0;
	}
	char names[256] = "";
	size_t len = 0;
	for (int j = 0; j < k->m->nkvars && len < sizeof names; j++)
		len += (size_t)snprintf(names + len, sizeof names - len, "%s%s", j ? ", " : "", k->m->kvars[j].m->entry);
	if (!k->m->nkvars)
		return kfail(k, "cannot force variant \"%s\": %s is one kernel, not a select", name, k->m->kernel);
	return kfail(k, "%s has no variant \"%s\" (PLK_VARIANT or plk_force_variant); its variants: %s", k->m->kernel,
	             name, names);
}

int plk_num_variants(const plk_kernel *k) { return k->m->nkvars; }
const char *plk_args_variant(plk_args *a) { return plk_args_prepare(a) ? NULL : a->k->fns[a->var].m->entry; }
const char *plk_chosen_variant(plk_kernel *k)
{
	const char *n = plk_args_variant(k->def);
	if (!n)
		snprintf(k->err, sizeof k->err, "%s", k->def->err);
	return n;
}
const char *plk_variant_name(const plk_kernel *k, int i)
{
	return i >= 0 && i < k->m->nkvars ? k->m->kvars[i].m->entry : NULL;
}

const char *plk_error(const plk_kernel *k)
{
	return k ? k->err : "no kernel handle";
}

/* ------------------------------------------------------- argument sets */

plk_args *plk_args_new(const plk_kernel *k)
{
	plk_args *a = calloc(1, sizeof *a);
	if (!a)
		return NULL;
	a->k = k;
	int n = k->m->maxparams;   /* a select's variants may launch different lists */
	/* cuTensorMapEncodeTiled wants 64-byte alignment; CUDA 13 declares the
	 * type 128-byte aligned. */
	size_t align = _Alignof(CUtensorMap) > 64 ? _Alignof(CUtensorMap) : 64;
	size_t tbytes = ((size_t)n + 1) * sizeof(CUtensorMap);
	tbytes = (tbytes + align - 1) / align * align;
	if (!(a->b = plk_binding_new(k->m)) || !(a->p = plk_plan_new(k->m)) || !(a->tmaps = aligned_alloc(align, tbytes))
	    || !(a->tmap_done = calloc((size_t)n + 1, sizeof *a->tmap_done))
	    || !(a->tmap_valid = calloc((size_t)n + 1, sizeof *a->tmap_valid))
	    || !(a->kparams = calloc((size_t)n + 1, sizeof *a->kparams))) {
		plk_args_free(a);
		return NULL;
	}
	if (k->def)   /* a caller's set (def is made first, in plk_load) */
		__atomic_add_fetch(&((plk_kernel *)k)->live, 1, __ATOMIC_SEQ_CST);
	a->counted = k->def != NULL;
	return a;
}

void plk_args_free(plk_args *a)
{
	if (!a)
		return;
	if (a->ws || a->nws_old) {   /* in the kernel's context; a launch using one may still run: cuMemFree waits */
		CUcontext cur = NULL;
		int pushed = cuCtxGetCurrent(&cur) == CUDA_SUCCESS && cur != a->k->ctx &&
		             cuCtxPushCurrent(a->k->ctx) == CUDA_SUCCESS;
		if (a->ws)
			cuMemFree(a->ws);
		for (int i = 0; i < a->nws_old; i++)
			cuMemFree(a->ws_old[i]);
		if (pushed)
			cuCtxPopCurrent(&cur);
	}
	free(a->ws_old);
	plk_binding_free(a->b);
	plk_plan_free(a->p);
	free(a->tmaps);
	free(a->tmap_done);
	free(a->tmap_valid);
	free(a->kparams);
	free(a->ws_sym);
	plk_kernel *k = (plk_kernel *)a->k;
	int counted = a->counted;
	free(a);
	if (counted && __atomic_sub_fetch(&k->live, 1, __ATOMIC_SEQ_CST) == 0 && __atomic_load_n(&k->unloaded, __ATOMIC_SEQ_CST))
		kernel_free(k);
}

const char *plk_args_error(const plk_args *a)
{
	return a ? a->err : "no argument set";
}

#define ABIND(call) do { a->prepared = 0; return (call) ? -1 : 0; } while (0)

int plk_args_tensor(plk_args *a, const char *t, CUdeviceptr ptr, const int64_t *shape, int rank)
{
	ABIND(plk_binding_tensor(a->k->m, a->b, t, (uint64_t)ptr, shape, rank, a->err));
}
int plk_args_dim(plk_args *a, const char *s, int64_t v) { ABIND(plk_binding_dim(a->k->m, a->b, s, v, a->err)); }
int plk_args_ptr(plk_args *a, const char *p, CUdeviceptr v) { ABIND(plk_binding_ptr(a->k->m, a->b, p, (uint64_t)v, a->err)); }
int plk_args_int(plk_args *a, const char *p, int64_t v) { ABIND(plk_binding_int(a->k->m, a->b, p, v, a->err)); }
int plk_args_float(plk_args *a, const char *p, double v) { ABIND(plk_binding_float(a->k->m, a->b, p, v, a->err)); }

void plk_args_clear(plk_args *a)
{
	a->prepared = 0;
	plk_binding_clear(a->k->m, a->b);
}

static int encode(plk_args *a, const plk_manifest *m, int i)
{
	const plk_tmap_args *t = &a->p->tmap[i];
	if (a->tmap_valid[i] && !memcmp(t, &a->tmap_done[i], sizeof *t))
		return 0;
	a->tmap_valid[i] = 0;
	const plk_mparam *mp = &m->params[i];
	CU(a->err, cuTensorMapEncodeTiled(&a->tmaps[i], (CUtensorMapDataType)t->dtype, t->rank, (void *)(uintptr_t)t->addr,
	                                  t->dim, t->stride, t->box, t->estride, CU_TENSOR_MAP_INTERLEAVE_NONE,
	                                  (CUtensorMapSwizzle)t->swizzle, (CUtensorMapL2promotion)t->l2promo,
	                                  CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE),
	   "cuTensorMapEncodeTiled(parameter %s, tensor %s, rank %u, dims %llu x %llu, box %u x %u)", mp->name,
	   m->tensors[mp->tensor].name, t->rank, (unsigned long long)t->dim[t->rank > 1 ? 1 : 0],
	   (unsigned long long)t->dim[0], t->box[t->rank > 1 ? 1 : 0], t->box[0]);
	a->tmap_done[i] = *t;
	a->tmap_valid[i] = 1;
	return 0;
}

int plk_args_prepare(plk_args *a)
{
	const plk_kernel *k = a->k;
	if (a->prepared && a->forced == k->forced)
		return 0;
	a->prepared = 0;
	a->var = 0;
	a->forced = k->forced;
	if (k->m->nkvars) {   /* a select: its rule over the bound shapes and the SMs, unless forced */
		if (k->forced >= 0)
			a->var = k->forced;
		else if (plk_resolve_shapes(k->m, a->b, a->p, a->err) ||
		         plk_variant_pick(k->m, a->p->sym, &k->dev_vals, &a->var, a->err))
			return -1;
	}
	const plk_fn *f = &k->fns[a->var];
	a->p->sms = f->capacity;   /* SMS in a stream-K workspace's size */
	if (plk_resolve(f->m, a->b, a->p, a->err) || plk_requires_check(f->m, a->p->sym, &k->dev_vals, a->err) ||
	    plk_work_items(f->m, a->p->sym, &a->p->work, a->err)
	    || plk_grid(f->m, a->p->work, f->capacity, a->p->grid, a->err))
		return -1;
	/* the variant's parameter list: a tensor map, or a value of the plan */
	for (int i = 0; i < f->m->nparams; i++) {
		int map = f->m->params[i].kind == PK_TENSORMAP;
		a->kparams[i] = map ? (void *)&a->tmaps[i] : (void *)&a->p->pval[i];
		if (map && encode(a, f->m, i))
			return -1;
	}
	a->prepared = 1;
	return 0;
}

/* The plan's workspace (split K), grown to its size and zeroed on the
 * launch's stream when new (a CUDA graph captures the zeroing too).
 * Called with the kernel's context current. */
static CUresult workspace(plk_args *a, CUstream stream)
{
	plk_plan *p = a->p;
	if (p->ws_param < 0)
		return CUDA_SUCCESS;
	if (p->ws_bytes == 0) {   /* a select's variant that does not split: never read */
		p->pval[p->ws_param] = 0;
		return CUDA_SUCCESS;
	}
	size_t need = (size_t)p->ws_bytes;
	CUresult r = CUDA_SUCCESS;
	if (need > a->ws_size) {
		/* cuMemAlloc is not a stream operation: it cannot be captured */
		CUstreamCaptureStatus cs = CU_STREAM_CAPTURE_STATUS_NONE;
		if ((r = cuStreamIsCapturing(stream, &cs)) != CUDA_SUCCESS)
			return r;
		if (cs != CU_STREAM_CAPTURE_STATUS_NONE)
			return CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED;
		if (a->ws) {
			CUdeviceptr *o = realloc(a->ws_old, (size_t)(a->nws_old + 1) * sizeof *o);
			if (!o)
				return CUDA_ERROR_OUT_OF_MEMORY;
			a->ws_old = o;
			a->ws_old[a->nws_old++] = a->ws;
		}
		a->ws = 0, a->ws_size = 0;
		if ((r = cuMemAlloc(&a->ws, need)) != CUDA_SUCCESS) {
			a->ws = 0;
			return r;
		}
		a->ws_size = need;
		a->ws_fresh = 1;
	}
	/* The counters' place moves with the tile count: zero them where the
	 * kernel or the shape is not the last launch's. */
	const plk_manifest *m = a->k->m;
	size_t symb = (size_t)m->nsyms * sizeof *a->ws_sym;
	if (!a->ws_sym && !(a->ws_sym = calloc((size_t)m->nsyms + 1, sizeof *a->ws_sym)))
		return CUDA_ERROR_OUT_OF_MEMORY;
	int moved = a->ws_var != a->var || memcmp(a->ws_sym, p->sym, symb);
	size_t zero = a->ws_fresh ? a->ws_size : moved ? (size_t)p->ws_zero : 0;
	if (zero && (r = cuMemsetD8Async(a->ws, 0, zero, stream)) != CUDA_SUCCESS)
		return r;
	a->ws_fresh = 0;
	a->ws_var = a->var;
	memcpy(a->ws_sym, p->sym, symb);
	p->pval[p->ws_param] = (uint64_t)a->ws;
	return CUDA_SUCCESS;
}

int plk_args_launch(plk_args *a, CUstream stream)
{
	if (plk_args_prepare(a))
		return -1;
	const plk_kernel *k = a->k;
	if (k->m->nengines && !k->comm)
		return efail(a->err, "kernel `%s` calls %s (its manifest's \"engines\"): initialise the engine "
		             "(plk_comm_init) and attach the kernel (plk_comm_attach) before launching it",
		             k->m->kernel, k->m->engines[0]);
	const plk_fn *f = &k->fns[a->var];
	const plk_manifest *m = f->m;
	CUlaunchAttribute at[2] = { { .id = CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION } };
	int nat = 0;
	if (m->cluster[0] * m->cluster[1] * m->cluster[2] > 1) {
		at[nat].value.clusterDim.x = m->cluster[0];
		at[nat].value.clusterDim.y = m->cluster[1];
		at[nat++].value.clusterDim.z = m->cluster[2];
	}
	if (m->cooperative) {   /* the driver refuses a grid that cannot be resident at once */
		at[nat].id = CU_LAUNCH_ATTRIBUTE_COOPERATIVE;
		at[nat++].value.cooperative = 1;
	}
	CUlaunchConfig cfg = {
		.gridDimX = a->p->grid[0], .gridDimY = a->p->grid[1], .gridDimZ = a->p->grid[2],
		.blockDimX = m->block[0], .blockDimY = m->block[1], .blockDimZ = m->block[2],
		.sharedMemBytes = m->dynamic_smem, .hStream = stream,
		.attrs = nat ? at : NULL, .numAttrs = (unsigned)nat,
	};
	CUcontext cur = NULL;
	CU(a->err, cuCtxGetCurrent(&cur), "cuCtxGetCurrent");
	if (cur != k->ctx)
		CU(a->err, cuCtxPushCurrent(k->ctx), "cuCtxPushCurrent(the kernel's context)");
	CUresult r = workspace(a, stream);
	int ws_failed = r != CUDA_SUCCESS;
	if (!ws_failed)
		r = cuLaunchKernelEx(&cfg, f->fn, a->kparams, NULL);
	if (cur != k->ctx) {
		CUcontext popped;
		CUresult r2 = cuCtxPopCurrent(&popped);
		if (r == CUDA_SUCCESS && r2 != CUDA_SUCCESS)
			return cufail(a->err, r2, "cuCtxPopCurrent");
	}
	if (ws_failed && r == CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED)
		return cufail(a->err, r, "the split-K workspace of %s (%lld bytes) is allocated at the first launch of "
		              "a shape that needs it, which cannot be captured: launch once at this shape before the "
		              "capture (a warm-up)", m->entry, (long long)a->p->ws_bytes);
	if (ws_failed)
		return cufail(a->err, r, "the split-K workspace of %s (%lld bytes, allocated and zeroed once)", m->entry,
		              (long long)a->p->ws_bytes);
	if (r != CUDA_SUCCESS)
		return cufail(a->err, r, "cuLaunchKernelEx(%s, grid %ux%ux%u, block %ux%ux%u, cluster %ux%ux%u, smem %u%s)",
		              m->entry, cfg.gridDimX, cfg.gridDimY, cfg.gridDimZ, cfg.blockDimX, cfg.blockDimY,
		              cfg.blockDimZ, m->cluster[0], m->cluster[1], m->cluster[2], m->dynamic_smem,
		              m->cooperative ? ", cooperative: every block resident at once" : "");
	return 0;
}

int plk_args_launch_shape(plk_args *a, unsigned grid[3], unsigned block[3], unsigned cluster[3], unsigned *smem,
                          int64_t *work)
{
	if (plk_args_prepare(a))
		return -1;
	const plk_manifest *m = a->k->fns[a->var].m;
	for (int i = 0; i < 3; i++) {
		if (grid) grid[i] = a->p->grid[i];
		if (block) block[i] = m->block[i];
		if (cluster) cluster[i] = m->cluster[i];
	}
	if (smem) *smem = m->dynamic_smem;
	if (work) *work = a->p->work;
	return 0;
}

/* Symbols and tensor dims of the bindings (pointers need not be bound):
 * item i of n, or an error naming what. */
static int resolved_shapes(plk_args *a, int i, int n, const char *what)
{
	if (i < 0 || i >= n)
		return efail(a->err, "%s %d", what, i);
	return !a->prepared && plk_resolve_shapes(a->k->m, a->b, a->p, a->err) ? -1 : 0;
}

int plk_args_tensor_dims(plk_args *a, int i, int64_t *dims)
{
	const plk_manifest *m = a->k->m;
	if (resolved_shapes(a, i, m->ntensors, "plk_tensor_dims: no tensor"))
		return -1;
	memcpy(dims, a->p->tdims[i], (size_t)m->tensors[i].rank * sizeof *dims);
	return 0;
}

int plk_args_symbol_value(plk_args *a, int i, int64_t *v)
{
	if (resolved_shapes(a, i, a->k->m->nsyms, "plk_symbol_value: no symbol"))
		return -1;
	*v = a->p->sym[i];
	return 0;
}

/* -------------------------------------- the kernel's own argument set */

/* A call on k->def, its message copied to plk_error(k). */
static int on_def(plk_kernel *k, int rc)
{
	if (rc)
		snprintf(k->err, sizeof k->err, "%s", k->def->err);
	return rc;
}

int plk_bind_tensor(plk_kernel *k, const char *t, CUdeviceptr ptr, const int64_t *shape, int rank)
{
	return on_def(k, plk_args_tensor(k->def, t, ptr, shape, rank));
}
int plk_bind_dim(plk_kernel *k, const char *s, int64_t v) { return on_def(k, plk_args_dim(k->def, s, v)); }
int plk_bind_ptr(plk_kernel *k, const char *p, CUdeviceptr v) { return on_def(k, plk_args_ptr(k->def, p, v)); }
int plk_bind_int(plk_kernel *k, const char *p, int64_t v) { return on_def(k, plk_args_int(k->def, p, v)); }
int plk_bind_float(plk_kernel *k, const char *p, double v) { return on_def(k, plk_args_float(k->def, p, v)); }
void plk_unbind_all(plk_kernel *k) { plk_args_clear(k->def); }
int plk_prepare(plk_kernel *k) { return on_def(k, plk_args_prepare(k->def)); }
/* comm.cc: the engine's state in a module, made and given back */
int plk_comm_module_init(plk_comm *c, plk_kernel *k, CUmodule mod, char *err);
void plk_comm_module_fini(plk_comm *c, plk_kernel *k, CUmodule mod);

void plk_kernel_detach(plk_kernel *k)
{
	if (!k->comm)
		return;
	int pushed = cuCtxPushCurrent(k->ctx) == CUDA_SUCCESS;
	plk_comm_module_fini(k->comm, k, k->mod);
	if (pushed) {
		CUcontext old;
		cuCtxPopCurrent(&old);
	}
	k->comm = NULL;
}

int plk_comm_attach(plk_comm *c, plk_kernel *k)
{
	if (!c)
		return kfail(k, "plk_comm_attach: no engine (plk_comm_init failed?)");
	if (!k->m->nengines)
		return kfail(k, "plk_comm_attach: kernel `%s` calls no engine (its manifest names none)", k->m->kernel);
	for (int i = 0; i < k->m->nengines; i++)
		if (strcmp(k->m->engines[i], "nvshmem"))
			return kfail(k, "kernel `%s` calls engine `%s`, which this runtime does not know", k->m->kernel,
			             k->m->engines[i]);
	if (k->comm)   /* attached before: NVSHMEM's state in the module once */
		plk_kernel_detach(k);
	CU(k->err, cuCtxPushCurrent(k->ctx), "plk_comm_attach: cuCtxPushCurrent");
	int rc = plk_comm_module_init(c, k, k->mod, k->err);
	CUcontext old;
	cuCtxPopCurrent(&old);
	if (rc)
		return -1;
	k->comm = c;
	return 0;
}

int plk_launch(plk_kernel *k, CUstream stream) { return on_def(k, plk_args_launch(k->def, stream)); }

int plk_launch_shape(plk_kernel *k, unsigned grid[3], unsigned block[3], unsigned cluster[3],
                     unsigned *smem, int64_t *work)
{
	return on_def(k, plk_args_launch_shape(k->def, grid, block, cluster, smem, work));
}

int plk_tensor_dims(plk_kernel *k, int i, int64_t *dims) { return on_def(k, plk_args_tensor_dims(k->def, i, dims)); }
int plk_symbol_value(plk_kernel *k, int i, int64_t *v) { return on_def(k, plk_args_symbol_value(k->def, i, v)); }

/* ------------------------------------------------------ introspection */

const char *plk_kernel_name(const plk_kernel *k) { return k->m->kernel; }
CUcontext plk_context(const plk_kernel *k) { return k->ctx; }
int plk_sm_count(const plk_kernel *k) { return (int)k->dev_vals.sms; }
int plk_dram_gbps(const plk_kernel *k) { return (int)k->dev_vals.dram_gbps; }
int plk_num_tensors(const plk_kernel *k) { return k->m->ntensors; }

#define TENSOR(i, what, bad) ((i) >= 0 && (i) < k->m->ntensors ? k->m->tensors[i].what : (bad))
const char *plk_tensor_name(const plk_kernel *k, int i) { return TENSOR(i, name, NULL); }
const char *plk_tensor_dtype(const plk_kernel *k, int i) { return TENSOR(i, dtype, NULL); }
int plk_tensor_elem_bytes(const plk_kernel *k, int i) { return TENSOR(i, elem_bytes, -1); }
int plk_tensor_rank(const plk_kernel *k, int i) { return TENSOR(i, rank, -1); }

const char *plk_tensor_dim(const plk_kernel *k, int i, int d)
{
	if (i < 0 || i >= k->m->ntensors || d < 0 || d >= k->m->tensors[i].rank)
		return NULL;
	return k->m->tensors[i].dims[d];
}

int plk_num_symbols(const plk_kernel *k) { return k->m->nsyms; }
const char *plk_symbol_name(const plk_kernel *k, int i) { return i >= 0 && i < k->m->nsyms ? k->m->syms[i] : NULL; }

int plk_num_params(const plk_kernel *k) { return k->m->nparams; }
const char *plk_param_name(const plk_kernel *k, int i) { return i >= 0 && i < k->m->nparams ? k->m->params[i].name : NULL; }
const char *plk_param_kind(const plk_kernel *k, int i)
{
	return i >= 0 && i < k->m->nparams ? plk_pkind_name(k->m->params[i].kind) : NULL;
}
int plk_param_is_free(const plk_kernel *k, int i)
{
	return i >= 0 && i < k->m->nparams && plk_mparam_free(&k->m->params[i]);
}
