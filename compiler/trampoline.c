/* trampoline.c: the __global__ entry of a linked kernel, as CUDA source
 * compiled by NVRTC to LTO-IR.
 *
 * The entry cannot be written as LLVM 14 bitcode: a CUtensorMap must stay
 * in parameter space (a __grid_constant__, whose address TMA takes), which
 * needs a byval parameter that libNVVM's LLVM 7.0.1 reader rejects. So the
 * entry is a few lines of CUDA that pass the parameters on to plk_main in
 * the glue; __launch_bounds__(T, 1) gives ptxas the register cap that
 * setmaxnreg needs (.maxntid, .minnctapersm). */
#include <stdlib.h>
#include <string.h>
#include <nvrtc.h>
#include "plk.h"

/* A kernel parameter's C type in the entry (and the monolith's kernel). */
const char *trampoline_param_ctype(KParamKind k)
{
	switch (k) {
	case KP_PTR: case KP_WORKSPACE: return "void *";
	case KP_TENSORMAP: return "const __grid_constant__ plk_tmap ";
	case KP_I64: return "long long ";
	case KP_F32: return "float ";
	default: return "int ";
	}
}

/* The helpers the glue calls, each once for the kernels of the unit. */
int trampoline_helpers(Ctx *c, FILE *o, const Placement *const *ps, int n)
{
	int sm90 = 0, waits = 0, clustered = 0, wait90 = 0;   /* waits: the glue's own mbarrier waits */
	for (int v = 0; v < n; v++) {
		const Placement *p = ps[v];
		sm90 |= p->arch->sm >= 90;
		wait90 |= p->arch->sm >= 90;
		clustered |= abi_clustered(p);
		waits |= p->g->dynamic;   /* its work items' ring */
		for (int i = 0; i < p->roles.n; i++)
			waits |= ((const PRole *)p->roles.v[i])->lane > 0;   /* the lanes' turns */
		waits |= abi_clustered(p) && p->rings.n;   /* the multicast producers' drain */
	}
	fprintf(o, "struct alignas(64) plk_tmap { unsigned long long opaque[16]; };  // CUtensorMap\n");
	/* Helpers the glue calls for what it cannot say in LLVM 14 bitcode
	 * that libNVVM reads: inline asm (see glue.c's helper_call). */
	fprintf(o, "#define PLK_GLUE extern \"C\" __device__ __attribute__((always_inline)) void\n");
	fprintf(o, "PLK_GLUE plk_glue_mbar_init(unsigned a, unsigned n)\n"
	           "{ asm volatile(\"mbarrier.init.shared.b64 [%%0], %%1;\" :: \"r\"(a), \"r\"(n) : \"memory\"); }\n");
	if (sm90)
		fprintf(o, "PLK_GLUE plk_glue_prefetch_tmap(const void *p)\n"
		           "{ asm volatile(\"prefetch.tensormap [%%0];\" :: \"l\"(p) : \"memory\"); }\n"
		           "PLK_GLUE plk_glue_fence_mbar_init(void)\n"
		           "{ asm volatile(\"fence.mbarrier_init.release.cluster;\" ::: \"memory\");\n"
		           "  asm volatile(\"fence.proxy.async.shared::cta;\" ::: \"memory\"); }\n");
	if (waits)   /* the pingpong lanes' turns, a dynamic grid's items (glue.c, role_body), the drain */
		fprintf(o, "PLK_GLUE plk_glue_mbar_arrive(unsigned a)\n"
		           "{ asm volatile(\"{\\n.reg .b64 st;\\nmbarrier.arrive.shared.b64 st, [%%0];\\n}\" :: \"r\"(a) : \"memory\"); }\n"
		           "PLK_GLUE plk_glue_mbar_wait(unsigned a, unsigned parity)\n"
		           "{ unsigned ok; do asm volatile(\"{\\n.reg .pred p;\\nmbarrier.%s.parity.%s.b64 p, [%%1], %%2;\\n\"\n"
		           "  \"selp.u32 %%0, 1, 0, p;\\n}\" : \"=r\"(ok) : \"r\"(a), \"r\"(parity) : \"memory\"); while (!ok); }\n",
		           /* plk.cuh's plk_mbar_wait, word for word (the monolith's) */
		           wait90 ? "try_wait" : "test_wait", wait90 ? "shared::cta" : "shared");
	/* The entry's cluster barrier orders only the mbarriers' initialisation,
	 * which fence.mbarrier_init already released: a relaxed arrive (no
	 * fence of every thread). A producer that multicasts leaves once its
	 * ring is empty again (glue.c, role_exit): plk.cuh's plk_ring_drain. */
	if (clustered)
		fprintf(o, "PLK_GLUE plk_glue_cluster_sync(void)\n"
		           "{ asm volatile(\"barrier.cluster.arrive.release;\" ::: \"memory\");\n"
		           "  asm volatile(\"barrier.cluster.wait.acquire;\" ::: \"memory\"); }\n"
		           "PLK_GLUE plk_glue_cluster_sync_init(void)\n"
		           "{ asm volatile(\"barrier.cluster.arrive.relaxed;\" ::: \"memory\");\n"
		           "  asm volatile(\"barrier.cluster.wait.acquire;\" ::: \"memory\"); }\n"
		           "PLK_GLUE plk_glue_ring_drain(unsigned empty, int stages, int stage, unsigned phase)\n"
		           "{ for (int i = 0; i < stages; i++) {\n"
		           "    plk_glue_mbar_wait(empty + 8 * stage, phase ^ 1u);\n"
		           "    if (++stage == stages) stage = 0, phase ^= 1u;\n"
		           "  } }\n");
	abi_splitk_sources(o, "PLK_GLUE", ps, n);   /* split K's reductions (glue.c, split_reduce) */
	abi_item_source(o, "extern \"C\" __device__ __attribute__((always_inline))", ps, n);   /* grid dynamic */
	/* setmaxnreg: one helper per (direction, count) of any kernel */
	int nseen = 0, cap_all = 0;
	for (int v = 0; v < n; v++)
		cap_all += (ps[v]->threads + 127) / 128;
	int *seen = arena_alloc(c->arena, (cap_all + 1) * sizeof *seen);
	for (int v = 0; v < n; v++) {
		const Placement *p = ps[v];
		int nwg = (p->threads + 127) / 128, cap = 0;
		int *regs = arena_alloc(c->arena, (nwg + 1) * sizeof *regs);
		if (abi_wg_regs(c, p, regs, &cap))
			return -1;
		for (int w = 0; w < nwg && cap; w++) {
			int key = regs[w] > cap ? regs[w] : -regs[w], dup = 0;
			for (int q = 0; q < nseen; q++)
				dup |= seen[q] == key;
			if (!regs[w] || regs[w] == cap || dup)
				continue;
			seen[nseen++] = key;
			const char *op = regs[w] > cap ? "inc" : "dec";
			fprintf(o, "PLK_GLUE plk_glue_setmaxnreg_%s_%d(void)\n"
			           "{ asm volatile(\"setmaxnreg.%s.sync.aligned.u32 %d;\" ::: \"memory\"); }\n",
			        op, regs[w], op, regs[w]);
		}
	}
	return 0;
}

/* One kernel's __global__ entry, passing its parameters on to main. */
static void entry(FILE *o, const Placement *p, const char *main)
{
	const Graph *g = p->g;
	fprintf(o, "extern \"C\" __device__ void %s(", main);
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *k = g->kparams.v[i];
		fprintf(o, "%s%s", i ? ", " : "", k->kind == KP_TENSORMAP ? "const void *" : trampoline_param_ctype(k->kind));
	}
	fprintf(o, "%s);\n", g->kparams.n ? "" : "void");
	fprintf(o, "extern \"C\" __global__ void __launch_bounds__(%d, 1)", p->threads);
	if (abi_clustered(p))
		fprintf(o, " __cluster_dims__(%d, %d, 1)", g->cluster[0], g->cluster[1]);
	fprintf(o, "\n%s(", g->k->name);
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *k = g->kparams.v[i];
		fprintf(o, "%s%sp%d", i ? ", " : "", trampoline_param_ctype(k->kind), i);
	}
	fprintf(o, ")\n{\n\t%s(", main);
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *k = g->kparams.v[i];
		fprintf(o, "%s%sp%d", i ? ", " : "", k->kind == KP_TENSORMAP ? "&" : "", i);
	}
	fprintf(o, ");\n}\n");
}

const char *trampoline_source(Ctx *c, const Placement *p)
{
	return trampoline_source_multi(c, &p, 1);
}

const char *trampoline_source_multi(Ctx *c, const Placement *const *ps, int n)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	if (!o)
		return NULL;
	if (n == 1)
		fprintf(o, "// The kernel entry of `%s`, generated by plkc %s.\n", ps[0]->g->k->name, PLK_VERSION);
	else {
		fprintf(o, "// The kernel entries of");
		for (int v = 0; v < n; v++)
			fprintf(o, "%s `%s`", v ? "," : "", ps[v]->g->k->name);
		fprintf(o, ", generated by plkc %s.\n", PLK_VERSION);
	}
	int rc = trampoline_helpers(c, o, ps, n);
	/* a kernel's inputs are ready when it starts (a megakernel's op waits:
	 * mega_entry.c) */
	fputs("PLK_GLUE plk_wait_inputs(int inst) { (void)inst; }\n", o);
	for (int v = 0; v < n && !rc; v++)
		entry(o, ps[v], abi_main_name(c, ps, n, v));
	fclose(o);
	const char *s = rc ? NULL : arena_strdup(c->arena, buf);
	free(buf);
	return s;
}

static void nvrtc_error(Ctx *c, const Placement *p, nvrtcProgram prog, nvrtcResult r, const char *what)
{
	Diag *d = diag_new(c, DIAG_ERROR, "E0503", p->g->k->name_sp,
	                   "NVRTC failed to compile the kernel entry: %s (%s)", nvrtcGetErrorString(r), what);
	size_t n = 0;
	if (prog && nvrtcGetProgramLogSize(prog, &n) == NVRTC_SUCCESS && n > 1) {
		char *log = arena_alloc(c->arena, n + 1);
		if (nvrtcGetProgramLog(prog, log) == NVRTC_SUCCESS)
			diag_note(d, "NVRTC log:\n%s", log);
	}
	diag_help(d, "this is a bug in plkc; --emit=glue-ll shows the entry's source at its head");
	diag_end(c, d);
}

int trampoline_ltoir(Ctx *c, const Placement *p, void **ir, size_t *n)
{
	return trampoline_ltoir_multi(c, &p, 1, ir, n);
}

int trampoline_ltoir_multi(Ctx *c, const Placement *const *ps, int nps, void **ir, size_t *n)
{
	*ir = NULL, *n = 0;
	const char *src = trampoline_source_multi(c, ps, nps);
	return src ? trampoline_compile(c, ps[0], src, ir, n) : -1;
}

int trampoline_compile(Ctx *c, const Placement *p, const char *src, void **ir, size_t *n)
{
	*ir = NULL, *n = 0;
	nvrtcProgram prog = NULL;
	nvrtcResult r = nvrtcCreateProgram(&prog, src, "plk_entry.cu", 0, NULL, NULL);
	if (r != NVRTC_SUCCESS) {
		nvrtc_error(c, p, NULL, r, "create");
		return -1;
	}
	const char *arch = arena_printf(c->arena, "-arch=compute_%s", p->arch->name + 3);
	const char *opts[] = { arch, "-dlto", "-std=c++17" };
	int rc = -1;
	double t0 = plk_clock();
	r = nvrtcCompileProgram(prog, 3, opts);
	ctx_time(c, "NVRTC (entry)", t0);
	if (r != NVRTC_SUCCESS)
		nvrtc_error(c, p, prog, r, "compile");
	else if ((r = nvrtcGetLTOIRSize(prog, n)) != NVRTC_SUCCESS)
		nvrtc_error(c, p, prog, r, "LTO-IR size");
	else if (!(*ir = malloc(*n)) || (r = nvrtcGetLTOIR(prog, *ir)) != NVRTC_SUCCESS) {
		nvrtc_error(c, p, prog, r, "LTO-IR");
		free(*ir);
		*ir = NULL;
	} else
		rc = 0;
	nvrtcDestroyProgram(&prog);
	return rc;
}

int trampoline_probe_ltoir(const char *entry, const ArchInfo *arch, void **ir, size_t *n, char **log)
{
	*ir = NULL, *n = 0, *log = NULL;
	char src[512], opt[64];
	/* the address only: no call, so no prototype has to match */
	if (snprintf(src, sizeof src, "extern \"C\" __device__ void %s(void);\n"
	             "extern \"C\" __global__ void plk_probe(void **out) { *out = (void *)&%s; }\n",
	             entry, entry) >= (int)sizeof src)
		return -1;
	snprintf(opt, sizeof opt, "-arch=compute_%s", arch->name + 3);
	const char *opts[] = { opt, "-dlto" };
	nvrtcProgram prog = NULL;
	if (nvrtcCreateProgram(&prog, src, "plk_probe.cu", 0, NULL, NULL) != NVRTC_SUCCESS)
		return -1;
	int rc = -1;
	if (nvrtcCompileProgram(prog, 2, opts) != NVRTC_SUCCESS) {
		size_t ln = 0;
		if (nvrtcGetProgramLogSize(prog, &ln) == NVRTC_SUCCESS && (*log = calloc(1, ln + 1)))
			nvrtcGetProgramLog(prog, *log);
	} else if (nvrtcGetLTOIRSize(prog, n) == NVRTC_SUCCESS && (*ir = malloc(*n)) &&
	           nvrtcGetLTOIR(prog, *ir) == NVRTC_SUCCESS)
		rc = 0;
	if (rc) {
		free(*ir);
		*ir = NULL;
	}
	nvrtcDestroyProgram(&prog);
	return rc;
}
