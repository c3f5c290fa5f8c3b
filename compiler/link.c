/* link.c: glue bitcode -> libNVVM LTO-IR; glue + entry + component objects
 * -> nvJitLink (-lto) -> cubin (and linked PTX); several arches -> fatbin.
 * Several kernels (a select's variants) link into one cubin in one run,
 * each component object once; link_decide names each instance's object
 * and entry symbol first.
 *
 * A link can succeed and still be wrong: nvJitLink drops a kernel nothing
 * keeps alive (an empty link), an ABI call may fail to fold, and ptxas
 * ignores setmaxnreg without a register cap, saying so only in the info
 * log (C7508). Each of these is an error here. */
#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <nvJitLink.h>
#include <nvvm.h>
#include <nvrtc.h>
#include "plk.h"


static int nvvm_compile(Ctx *c, const Placement *p, const void *bc, size_t n, void **ir, size_t *irn)
{
	nvvmProgram prog = NULL;
	nvvmResult r;
	const char *what = "create";
	const char *arch = arena_printf(c->arena, "-arch=compute_%s", p->arch->name + 3);
	const char *opts[] = { arch, "-gen-lto" };
	*ir = NULL;
	if ((r = nvvmCreateProgram(&prog)) != NVVM_SUCCESS)
		goto fail;
	what = "add module";
	if ((r = nvvmAddModuleToProgram(prog, bc, n, "plk_glue")) != NVVM_SUCCESS)
		goto fail;
	what = "compile";
	double t0 = plk_clock();
	r = nvvmCompileProgram(prog, 2, opts);
	ctx_time(c, "libNVVM (glue)", t0);
	if (r != NVVM_SUCCESS)
		goto fail;
	what = "result";
	if ((r = nvvmGetCompiledResultSize(prog, irn)) != NVVM_SUCCESS)
		goto fail;
	*ir = malloc(*irn);
	if ((r = nvvmGetCompiledResult(prog, *ir)) != NVVM_SUCCESS)
		goto fail;
	nvvmDestroyProgram(&prog);
	return 0;
fail:;
	Diag *d = diag_new(c, DIAG_ERROR, "E0502", kernel_span(p->g), "libNVVM rejected the glue module: %s (%s)",
	                   nvvmGetErrorString(r), what);
	size_t ln = 0;
	if (prog && nvvmGetProgramLogSize(prog, &ln) == NVVM_SUCCESS && ln > 1) {
		char *log = arena_alloc(c->arena, ln + 1);
		if (nvvmGetProgramLog(prog, log) == NVVM_SUCCESS)
			diag_note(d, "libNVVM log:\n%s", log);
	}
	diag_help(d, "this is a bug in plkc; --emit=glue-ll shows the module");
	diag_end(c, d);
	free(*ir);
	*ir = NULL;
	if (prog)
		nvvmDestroyProgram(&prog);
	return -1;
}

static char *jit_log(nvJitLinkHandle h, int info)
{
	size_t n = 0;
	if ((info ? nvJitLinkGetInfoLogSize(h, &n) : nvJitLinkGetErrorLogSize(h, &n)) != NVJITLINK_SUCCESS)
		return NULL;
	char *s = calloc(1, n + 1);
	if (s && n && (info ? nvJitLinkGetInfoLog(h, s) : nvJitLinkGetErrorLog(h, s)) != NVJITLINK_SUCCESS)
		s[0] = 0;
	return s;
}

void link_jit_error(Ctx *c, const Placement *p, int r, const char *what, const char *log, int engines)
{
	Diag *d = diag_new(c, DIAG_ERROR, "E0504", kernel_span(p->g),
	                   "nvJitLink failed to link `%s` for %s (%s, error %d)",
	                   p->g->k->name, p->arch->name, what, r);
	if (log && *log)
		diag_note(d, "nvJitLink error log:\n%s", arena_strdup(c->arena, log));
	diag_help(d, "an undefined symbol is an `entry` the component's source does not define "
	             "as extern \"C\" __device__, or an ABI function this plkc does not provide");
	if (engines)
		diag_help(d, "an undefined engine function (`nvshmem...`) is one its headers do not inline: "
		             "link with --engine-lib, which adds the engine's device library");
	/* NVSHMEM's headers compile their IBGDA transport's device code in
	 * where they find rdma-core's mlx5dv.h; ptxas rejects it in our link
	 * (docs/comm.md, "Not done") */
	if (engines && log && strstr(log, "Arguments mismatch for instruction 'cvta'")) {
		diag_note(d, "with a comm stage this has been NVSHMEM's IBGDA transport: its headers compile that "
		             "device code in when they find infiniband/mlx5dv.h (rdma-core's libibverbs-dev)");
		diag_help(d, "link on a host without rdma-core's development headers");
	}
	diag_end(c, d);
}

static void jit_error(Ctx *c, const Placement *p, nvJitLinkHandle h, nvJitLinkResult r, const char *what, int engines)
{
	char *log = h ? jit_log(h, 0) : NULL;
	link_jit_error(c, p, (int)r, what, log, engines);
	free(log);
}

typedef struct Inputs {
	const Placement *const *ps;   /* the kernels: one entry point each */
	int nps;
	const char *mega;             /* a megakernel's entry, the one entry point; NULL */
	const void *glue, *entry;
	size_t glue_n, entry_n;
	const char **objs;
	int nobjs;
	const char **libs;            /* the engines' device libraries: not LTO-IR, so cubin only */
	int nlibs;
	const void **states;          /* without --engine-lib: LTO objects of the engines' */
	size_t *state_n;              /* device state, in place of the libraries, */
	const Engine **state_of;      /* of these engines (each defines its state_var) */
	int nstates;
} Inputs;

/* One nvJitLink run; out is the cubin, or the PTX with `ptx`. */
static int jit_link(Ctx *c, const Placement *p, const Inputs *in, int ptx, char **out, size_t *outn,
                    char **info)
{
	const char **opts = arena_alloc(c->arena, (in->nps + in->nstates + 5) * sizeof *opts);
	int no = 0;
	opts[no++] = arena_printf(c->arena, "-arch=%s", p->arch->name);
	opts[no++] = "-lto";
	/* Only the kernels are entry points: LTO may drop every other
	 * definition (`used` entries and glue helpers, once inlined). */
	for (int i = 0; i < in->nps && !in->mega; i++)
		opts[no++] = arena_printf(c->arena, "-kernels-used=%s", in->ps[i]->g->k->name);
	if (in->mega)
		opts[no++] = arena_printf(c->arena, "-kernels-used=%s", in->mega);
	opts[no++] = ptx ? "-ptx" : "-verbose";   /* -verbose: ptxas's C7508 */
	/* ptxas on several threads: the same SASS (nvJitLink's own
	 * -split-compile splits LTO too, and changes the code: docs/toolchain.md) */
	if (c->split_compile > 1 && !ptx)
		opts[no++] = arena_printf(c->arena, "-Xptxas=--split-compile=%d", c->split_compile);
	/* the engines' state their hosts look up by name, which no kernel
	 * may use (NVSHMEM's library version) */
	for (int i = 0; i < in->nstates; i++)
		opts[no++] = arena_printf(c->arena, "-variables-used=%s", in->state_of[i]->state_var);
	nvJitLinkHandle h = NULL;
	nvJitLinkResult r = nvJitLinkCreate(&h, no, opts);
	const char *what = "create";
	*out = NULL;
	if (r != NVJITLINK_SUCCESS)
		goto fail;
	what = "glue";
	if ((r = nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, in->glue, in->glue_n, "plk_glue")) != NVJITLINK_SUCCESS)
		goto fail;
	what = "kernel entry";
	if ((r = nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, in->entry, in->entry_n, "plk_entry")) != NVJITLINK_SUCCESS)
		goto fail;
	for (int i = 0; i < in->nobjs; i++) {
		what = in->objs[i];
		if ((r = nvJitLinkAddFile(h, NVJITLINK_INPUT_ANY, in->objs[i])) != NVJITLINK_SUCCESS)
			goto fail;
	}
	for (int i = 0; i < in->nlibs && !ptx; i++) {
		what = in->libs[i];
		if ((r = nvJitLinkAddFile(h, NVJITLINK_INPUT_LIBRARY, in->libs[i])) != NVJITLINK_SUCCESS)
			goto fail;
	}
	for (int i = 0; i < in->nstates && !ptx; i++) {
		what = "an engine's device state";
		if ((r = nvJitLinkAddData(h, NVJITLINK_INPUT_OBJECT, in->states[i], in->state_n[i], "plk_engine_state")) !=
		    NVJITLINK_SUCCESS)
			goto fail;
	}
	what = "link";
	double t0 = plk_clock();
	r = nvJitLinkComplete(h);
	ctx_time(c, "nvJitLink (LTO + ptxas)", t0);
	if (r != NVJITLINK_SUCCESS)
		goto fail;
	what = "output";
	if (ptx) {
		if ((r = nvJitLinkGetLinkedPtxSize(h, outn)) != NVJITLINK_SUCCESS)
			goto fail;
		*out = calloc(1, *outn + 1);
		if ((r = nvJitLinkGetLinkedPtx(h, *out)) != NVJITLINK_SUCCESS)
			goto fail;
	} else {
		if ((r = nvJitLinkGetLinkedCubinSize(h, outn)) != NVJITLINK_SUCCESS)
			goto fail;
		*out = malloc(*outn + 1);
		if ((r = nvJitLinkGetLinkedCubin(h, *out)) != NVJITLINK_SUCCESS)
			goto fail;
	}
	if (info)
		*info = jit_log(h, 1);
	nvJitLinkDestroy(&h);
	return 0;
fail:
	jit_error(c, p, h, r, what, in->nstates > 0);
	free(*out);
	*out = NULL;
	if (h)
		nvJitLinkDestroy(&h);
	return -1;
}

static int is_ident(int ch) { return isalnum(ch) || ch == '_' || ch == '$'; }

int link_check_ptx(Ctx *c, const Placement *p, const char *ptx)
{
	const char *name = p->g->k->name;
	size_t nl = strlen(name);
	int err = 0, found = 0;
	for (const char *s = ptx; (s = strstr(s, ".entry ")); s += 7) {
		const char *q = s + 7;
		while (*q == ' ')
			q++;
		if (!strncmp(q, name, nl) && !is_ident((unsigned char)q[nl]))
			found = 1;
	}
	if (!found) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0505", kernel_span(p->g), "the linked PTX for %s has no kernel `%s`",
		                   p->arch->name, name);
		diag_note(d, "nvJitLink's LTO dropped it: the link succeeded but is empty");
		diag_end(c, d);
		return -1;
	}
	/* A call whose callee is plk_* is an ABI function (or a plk.cuh
	 * helper) that did not fold. Entries may stay defined (they are
	 * `used`); only calls count. */
	for (const char *s = ptx; *s && !err; ) {
		const char *l = s;
		while (*l == ' ' || *l == '\t')
			l++;
		const char *e = strchr(s, '\n');
		s = e ? e + 1 : s + strlen(s);
		if (strncmp(l, "call", 4) || (is_ident((unsigned char)l[4]) && l[4] != '.'))
			continue;
		const char *end = strchr(l, ';');
		for (const char *q = l + 4; q && end && q < end; q++) {
			if (strncmp(q, "plk_", 4) || is_ident((unsigned char)q[-1]))
				continue;
			size_t n = 0;
			while (is_ident((unsigned char)q[n]))
				n++;
			Diag *d = diag_new(c, DIAG_ERROR, "E0506", kernel_span(p->g),
			                   "a call to `%.*s` survives in the linked PTX for %s", (int)n, q, p->arch->name);
			diag_note(d, "every plk_* ABI function must fold to a constant after LTO");
			diag_help(d, "pass `inst` and the ids a component received from the glue unchanged, "
			             "and keep plk.cuh helpers inline");
			diag_end(c, d);
			err = -1;
			break;
		}
	}
	if (!strstr(ptx, ".maxntid") || !strstr(ptx, ".minnctapersm")) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0509", kernel_span(p->g),
		                   "the linked kernel `%s` for %s has no .maxntid/.minnctapersm", name, p->arch->name);
		diag_note(d, "setmaxnreg needs the register cap that launch bounds give");
		diag_end(c, d);
		err = -1;
	}
	return err;
}

/* name: the entry to find, p's kernel's unless a megakernel's */
static int check_cubin(Ctx *c, const Placement *p, const char *name, const LinkResult *r)
{
	const char *sec = arena_printf(c->arena, ".text.%s", name);
	if (!memmem(r->cubin, r->cubin_size, sec, strlen(sec) + 1)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0505", kernel_span(p->g), "the linked cubin for %s has no kernel `%s`",
		                   p->arch->name, name);
		diag_note(d, "nvJitLink's LTO dropped it: the link succeeded but is empty");
		diag_end(c, d);
		return -1;
	}
	return link_check_log(c, p, r->info_log);
}

/* The line of ptxas's log with `code` about kernel `name` (it quotes the
 * function: "... in the function 'gemm_pp'"); a line naming no function
 * counts for every kernel. NULL: none. *n: its length. */
static const char *log_line(const char *log, const char *code, const char *name, int *n)
{
	char quoted[256];
	snprintf(quoted, sizeof quoted, "'%s'", name);
	for (const char *l = log ? strstr(log, code) : NULL; l; l = strstr(l + 1, code)) {
		const char *e = strchr(l, '\n');
		int len = e ? (int)(e - l) : (int)strlen(l);
		const char *q = memmem(l, (size_t)len, quoted, strlen(quoted));
		if (q || !memmem(l, (size_t)len, "function '", 10)) {
			*n = len;
			return l;
		}
	}
	return NULL;
}

int link_check_log(Ctx *c, const Placement *p, const char *info_log)
{
	/* C7508: no register cap at entry, so ptxas ignored every setmaxnreg:
	 * an error. C7507: some code needs more registers than its budget, so
	 * ptxas kept a higher count there: a warning (the monolith gets it too). */
	const char *codes[2] = { "C7508", "C7507" };
	int rc = 0, n = 0;
	for (int k = 0; k < 2 && info_log; k++) {
		const char *l = log_line(info_log, codes[k], p->g->k->name, &n);
		if (!l)
			continue;
		Diag *d = diag_new(c, k ? DIAG_WARNING : DIAG_ERROR, k ? NULL : "E0507", kernel_span(p->g),
		                   "ptxas ignored setmaxnreg in `%s` for %s", p->g->k->name, p->arch->name);
		diag_note(d, "ptxas: %.*s", n, l);
		diag_help(d, k ? "a warpgroup's code needs more registers than its `regs`; raise it"
		               : "the kernel needs a register cap at entry (.maxntid and .minnctapersm 1)");
		diag_end(c, d);
		rc |= !k;
	}
	/* C7515: ptxas serialized wgmmas because other instructions write
	 * their accumulator registers (an epilogue updating `acc` in place). */
	const char *l = log_line(info_log, "(C7515)", p->g->k->name, &n);
	if (l) {
		Diag *d = diag_new(c, DIAG_WARNING, NULL, kernel_span(p->g), "ptxas serialized the wgmmas of `%s` for %s",
		                   p->g->k->name, p->arch->name);
		diag_note(d, "ptxas: %.*s", n, l);
		diag_help(d, "an instance writes accumulator registers between wgmmas (an epilogue that "
		             "updates its `acc` in place): write its results to registers of its own");
		diag_end(c, d);
	}
	return rc ? -1 : 0;
}

/* --warn-spills: ptxas's report (nvJitLink's -verbose log) names each
 * function ("Function properties for F") and then its spills ("N bytes
 * stack frame, S bytes spill stores, L bytes spill loads"); one warning
 * for the link, a note per function that spills. */
static void warn_spills(Ctx *c, const Placement *p, Span at, const char *log)
{
	Diag *d = NULL;
	char fn[256] = "";
	for (const char *l = log; l && *l;) {
		const char *e = strchr(l, '\n');
		int len = e ? (int)(e - l) : (int)strlen(l);
		const char *f = memmem(l, (size_t)len, "Function properties for ", 24);
		long long st, ld;
		const char *sp = memmem(l, (size_t)len, "bytes spill stores", 18);
		if (f)
			snprintf(fn, sizeof fn, "%.*s", (int)(l + len - (f + 24)), f + 24);
		else if (sp) {
			const char *q = sp;   /* back to the number before "bytes spill stores" */
			while (q > l && q[-1] == ' ')
				q--;
			while (q > l && isdigit((unsigned char)q[-1]))
				q--;
			const char *lp = memmem(sp, (size_t)(l + len - sp), ", ", 2);
			if (sscanf(q, "%lld", &st) == 1 && lp && sscanf(lp + 2, "%lld", &ld) == 1 && (st || ld)) {
				if (!d) {
					d = diag_new(c, DIAG_WARNING, NULL, at, "ptxas spills registers for %s", p->arch->name);
					d->primary.msg = "in the link of this";
				}
				diag_note(d, "`%s`: %lld bytes stored and %lld loaded a thread (local memory: L1, then L2)",
				          fn[0] ? fn : "?", st, ld);
			}
		}
		l = e ? e + 1 : NULL;
	}
	if (d) {
		diag_help(d, "one block an SM gives a thread min(255, 65536 / threads) registers; keep fewer values "
		             "live at once (fewer loads in flight), or give the role a larger `regs` budget; "
		             "`plkc -v` prints ptxas's report");
		diag_end(c, d);
	}
}

int link_glue_ltoir(Ctx *c, const Placement *p, void **ir, size_t *n)
{
	void *bc = NULL;
	size_t bcn = 0;
	*ir = NULL, *n = 0;
	int rc = glue_bitcode(c, p, &bc, &bcn) || nvvm_compile(c, p, bc, bcn, ir, n) ? -1 : 0;
	free(bc);
	return rc;
}

/* -------------------------------------------------------- the objects */

/* The component whose cached build serves in: its own, or a shipped
 * object's declaration where the object was built for other constants;
 * NULL where the shipped object serves as it is, or none can (E0214). */
static const Component *cached_decl(const GInst *in)
{
	const Component *cp = in->comp;
	if (!cp->object)
		return cp;
	return object_serves(cp, in->cvals) ? NULL : cp->decl;
}

/* An instance's object: the `use object` itself when it was built for the
 * instance's constants; else the cached build of its declaration (E0214
 * when there is none: the checker reports it first), its entry renamed
 * when the cubin holds another specialization of it (link_decide). *sym:
 * the entry symbol the object defines. */
static int inst_object(Ctx *c, const Placement *p, const GInst *in, int rename, LinkObj *lo, const char **sym)
{
	const Component *cp = in->comp;
	memset(lo, 0, sizeof *lo);
	*sym = cp->entry;
	if (cp->object && object_serves(cp, in->cvals)) {
		lo->path = cp->object;
		lo->from_object = 1;
		snprintf(lo->digest, sizeof lo->digest, "%s", cp->digest ? cp->digest : "");
		return 0;
	}
	const Component *decl = cached_decl(in);
	if (!decl) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0214", in->decl ? in->decl->sp : kernel_span(p->g),
		                   "object `%s` was not built for the constants of `%s`", cp->object, in->name);
		diag_help(d, "`plkc --check` says which constants it was built for");
		diag_end(c, d);
		return -1;
	}
	lo->path = object_for_sym(c, decl, in->cvals, p->arch, rename, sym, lo->digest);
	return lo->path ? 0 : -1;
}

int link_check_entry(Ctx *c, const Component *comp, const char *entry, const char *path, const ArchInfo *arch)
{
	void *ir = NULL;
	size_t n = 0;
	char *log = NULL, *ptx = NULL;
	Span at = comp->entry_sp.src >= 0 ? comp->entry_sp : comp->name_sp;
	if (!entry)
		return 0;            /* no entry to check: the checker's business */
	if (trampoline_probe_ltoir(entry, arch, &ir, &n, &log)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0216", at, "cannot check the entry `%s` of component `%s`",
		                   entry, comp->name);
		diag_label(d, at, "this entry");
		diag_note(d, "NVRTC rejected a probe that takes its address%s%s", log && *log ? ":\n" : "",
		          log && *log ? arena_strdup(c->arena, log) : "");
		diag_help(d, "an entry is a C identifier: the name of an extern \"C\" __device__ function");
		diag_end(c, d);
		free(log);
		return -1;
	}
	const char *opts[] = { arena_printf(c->arena, "-arch=%s", arch->name), "-lto", "-ptx", "-kernels-used=plk_probe" };
	nvJitLinkHandle h = NULL;
	size_t pn = 0;
	int ok = nvJitLinkCreate(&h, 4, opts) == NVJITLINK_SUCCESS &&
	         nvJitLinkAddData(h, NVJITLINK_INPUT_LTOIR, ir, n, "plk_probe") == NVJITLINK_SUCCESS &&
	         nvJitLinkAddFile(h, NVJITLINK_INPUT_ANY, path) == NVJITLINK_SUCCESS &&
	         nvJitLinkComplete(h) == NVJITLINK_SUCCESS && nvJitLinkGetLinkedPtxSize(h, &pn) == NVJITLINK_SUCCESS &&
	         (ptx = calloc(1, pn + 1)) && nvJitLinkGetLinkedPtx(h, ptx) == NVJITLINK_SUCCESS;
	char *jlog = !ok && h ? jit_log(h, 0) : NULL;
	if (h)
		nvJitLinkDestroy(&h);
	free(ir);
	/* defined: a .func line (not .extern) that names it before a `(` */
	int defined = 0;
	size_t el = strlen(entry);
	for (const char *s = ok ? ptx : ""; *s && !defined;) {
		const char *e = strchr(s, '\n');
		size_t ll = e ? (size_t)(e - s) : strlen(s);
		const char *f = memmem(s, ll, ".func", 5);
		if (f && strncmp(s, ".extern", 7)) {
			for (const char *q = f; q + el <= s + ll && !defined; q++) {
				if (strncmp(q, entry, el) || is_ident((unsigned char)q[-1]) || is_ident((unsigned char)q[el]))
					continue;
				const char *r = q + el;
				while (r < s + ll && *r == ' ')
					r++;
				defined = r < s + ll && *r == '(';
			}
		}
		s += ll + (e != NULL);
	}
	free(ptx);
	if (defined) {
		free(jlog);
		return 0;
	}
	Diag *d = diag_new(c, DIAG_ERROR, "E0216", at, "the object of component `%s` does not define its entry `%s`",
	                   comp->name, entry);
	diag_label(d, at, "named here");
	if (ok)
		diag_note(d, "nvcc compiled `%s` for %s: its LTO-IR has no function `%s`", comp->source ? comp->source : "its source",
		          arch->name, entry);
	else
		diag_note(d, "nvJitLink could not link a probe of it%s%s", jlog && *jlog ? ":\n" : "",
		          jlog && *jlog ? arena_strdup(c->arena, jlog) : "");
	diag_help(d, "define it in the source as `extern \"C\" __device__ void %s(...)` (its prototype is in %s.plk.h), "
	             "or name the function the source defines", entry, comp->name);
	diag_end(c, d);
	free(jlog);
	return -1;
}

void link_result_free(LinkResult *r)
{
	free(r->cubin);
	free(r->ptx);
	free(r->info_log);
	memset(r, 0, sizeof *r);
}

static void push_obj(const char **objs, int *n, const char *o)
{
	for (int j = 0; j < *n; j++)
		if (!strcmp(objs[j], o))
			return;
	objs[(*n)++] = o;
}

static int total_insts(const Placement *const *ps, int n)
{
	int total = 0;
	for (int v = 0; v < n; v++)
		total += ps[v]->g->insts.n;
	return total;
}

/* Once each, for every engine the n kernels' components call
 * (docs/comm.md), an LTO object of the device state its host looks up by
 * name (engine.c), the calls being all inlined; with --engine-lib its
 * device library instead, for calls the headers do not inline. A
 * relocatable library in the link, even a member with data alone, makes
 * ptxas drop setmaxnreg (C7504) and serialize wgmmas. -1 when one is
 * missing. */
static int engine_libs(Ctx *c, const Placement *const *ps, int n, Inputs *in)
{
	int m = 0, ns = 0;
	const char **all = arena_alloc(c->arena, (total_insts(ps, n) + 1) * sizeof *all);
	const void **states = arena_alloc(c->arena, (total_insts(ps, n) + 1) * sizeof *states);
	size_t *state_n = arena_alloc(c->arena, (total_insts(ps, n) + 1) * sizeof *state_n);
	const Engine **state_of = arena_alloc(c->arena, (total_insts(ps, n) + 1) * sizeof *state_of);
	for (int v = 0; v < n; v++)
		for (int i = 0; i < ps[v]->g->insts.n; i++) {
			const Component *cp = ((const GInst *)ps[v]->g->insts.v[i])->comp;
			if (!cp->eng)
				continue;
			const char *tried, *home = engine_home(c, cp->eng, &tried);
			const char *lib = home ? arena_printf(c->arena, "%s/%s", home, cp->eng->device_lib) : NULL;
			if (!lib || access(lib, R_OK)) {
				engine_missing(c, cp, lib ? arena_printf(c->arena, "%s (no %s there)", tried, cp->eng->device_lib) : tried);
				return -1;
			}
			if (c->engine_lib) {
				push_obj(all, &m, lib);
				continue;
			}
			int k = 0;
			while (k < ns && state_of[k] != cp->eng)
				k++;
			if (k < ns)
				continue;   /* its state is in already */
			const char *why;
			if (!(states[ns] = engine_state_object(c, cp->eng, home, ps[0]->arch->name, &state_n[ns], &why))) {
				engine_missing(c, cp, why);
				return -1;
			}
			state_of[ns++] = cp->eng;
		}
	in->libs = all, in->nlibs = m;
	in->states = states, in->state_n = state_n, in->state_of = state_of, in->nstates = ns;
	return 0;
}

/* Glue, entries and objs[nobjs] of the n kernels, linked: the cubin
 * checked for each kernel, and the PTX with want_ptx. */
static int link_all(Ctx *c, const Placement *const *ps, int n, const MegaPlan *mp, const char **objs, int nobjs,
                    int want_ptx, LinkResult *r)
{
	const Placement *p = ps[0];
	Inputs in = { ps, n, mp ? mp->m->name : NULL, NULL, NULL, 0, 0, objs, nobjs, NULL, 0, NULL, NULL, NULL, 0 };
	if (engine_libs(c, ps, n, &in))
		return -1;
	void *glue = NULL, *entry = NULL, *bc = NULL;
	size_t bcn = 0;
	int rc = -1;
	if (glue_bitcode_ops(c, ps, n, mp != NULL, &bc, &bcn) || nvvm_compile(c, p, bc, bcn, &glue, &in.glue_n) ||
	    (mp ? mega_entry_ltoir(c, mp, ps, n, &entry, &in.entry_n) : trampoline_ltoir_multi(c, ps, n, &entry, &in.entry_n)))
		goto out;
	in.glue = glue, in.entry = entry;
	char *cubin = NULL;
	if (jit_link(c, p, &in, 0, &cubin, &r->cubin_size, &r->info_log))
		goto out;
	if (c->verbose && r->info_log && *r->info_log)   /* ptxas's -v: registers, spills */
		fprintf(c->err, "nvJitLink info log of `%s` for %s:\n%s%s", p->g->k->name, p->arch->name,
		        r->info_log, r->info_log[strlen(r->info_log) - 1] == '\n' ? "" : "\n");
	if (c->warn_spills)
		warn_spills(c, p, mp ? mp->m->name_sp : kernel_span(p->g), r->info_log);
	r->cubin = cubin;
	int bad = 0;
	for (int i = 0; i < n; i++)
		bad |= check_cubin(c, ps[i], mp ? mp->m->name : ps[i]->g->k->name, r) != 0;
	if (bad)
		goto out;
	if (want_ptx) {
		size_t len;
		if (jit_link(c, p, &in, 1, &r->ptx, &len, NULL))
			goto out;
		for (int i = 0; i < n; i++)
			bad |= link_check_ptx(c, ps[i], r->ptx) != 0;
		if (bad)
			goto out;
	}
	rc = 0;
out:
	free(bc);
	free(glue);
	free(entry);
	if (rc)
		link_result_free(r);
	return rc;
}

int link_kernel_with(Ctx *c, const Placement *p, int want_ptx, ObjectFn object, void *ud, LinkResult *r)
{
	memset(r, 0, sizeof *r);
	if (!object)
		return link_kernels(c, &p, 1, want_ptx, r);
	const char **objs = arena_alloc(c->arena, (p->g->insts.n + 1) * sizeof *objs);
	r->objs = arena_alloc(c->arena, (p->g->insts.n + 1) * sizeof *r->objs);
	int nobjs = 0;
	for (int i = 0; i < p->g->insts.n; i++) {
		GInst *in = p->g->insts.v[i];
		if (!(r->objs[i].path = object(c, in, ud)))
			return -1;
		in->obj = r->objs[i].path, in->sym = in->comp->entry;
		push_obj(objs, &nobjs, in->obj);
	}
	return link_all(c, &p, 1, NULL, objs, nobjs, want_ptx, r);
}

int link_kernel(Ctx *c, const Placement *p, int want_ptx, LinkResult *r)
{
	return link_kernel_with(c, p, want_ptx, NULL, NULL, r);
}

int link_kernels(Ctx *c, const Placement *const *ps, int n, int want_ptx, LinkResult *r)
{
	return link_mega(c, ps, n, NULL, want_ptx, r);
}

int link_mega(Ctx *c, const Placement *const *ps, int n, const MegaPlan *mp, int want_ptx, LinkResult *r)
{
	memset(r, 0, sizeof *r);
	int total = total_insts(ps, n), nobjs = 0;
	r->objs = arena_alloc(c->arena, (total + 1) * sizeof *r->objs);
	if (link_decide(c, ps, n, r->objs))
		return -1;
	const char **objs = arena_alloc(c->arena, (total + 1) * sizeof *objs);
	for (int i = 0; i < total; i++)   /* one specialization used by two variants: linked once */
		push_obj(objs, &nobjs, r->objs[i].path);
	return link_all(c, ps, n, mp, objs, nobjs, want_ptx, r);
}

/* ------------------------------------------------------ entry symbols */

static int same_cvals(const GInst *a, const GInst *b)
{
	int n = a->comp->cparams.n;
	if (!a->cvals || !b->cvals)
		return a->cvals == b->cvals;
	return !memcmp(a->cvals, b->cvals, (size_t)n * sizeof *a->cvals);
}

/* Another instance of the n graphs that is in's component with other
 * constants (their objects would define one symbol twice); NULL: none. */
static const GInst *other_specialization(const Placement *const *ps, int n, const GInst *in)
{
	for (int v = 0; v < n; v++)
		for (int i = 0; i < ps[v]->g->insts.n; i++) {
			const GInst *o = ps[v]->g->insts.v[i];
			if (o->comp == in->comp && !same_cvals(o, in))
				return o;
		}
	return NULL;
}

int link_check_ids(Ctx *c, const Placement *const *ps, int n)
{
	int ids = 0;
	for (int v = 0; v < n; v++) {
		const Graph *g = ps[v]->g;
		ids = g->inst_base + graph_ids(g) > ids ? g->inst_base + graph_ids(g) : ids;
	}
	if (ids > 1023) {   /* the ABI tables pack each key in 10 bits (glue.c, define_abi) */
		Diag *d = diag_new(c, DIAG_ERROR, "E0515", kernel_span(ps[0]->g),
		                   "%d instances (lanes counted) in one cubin, over the 1023 the ABI tables key", ids);
		diag_help(d, "split the select in two");
		diag_end(c, d);
		return -1;
	}
	return 0;
}

/* The objects the cubins of ps need, built several at once: narch groups
 * of n placements (one cubin's variants), each group for its own arch.
 * Sets rename[] (n * narch groups' instances, in order) when asked: an
 * instance whose component the same cubin holds at other constants. */
static int prebuild(Ctx *c, const Placement *const *ps, int n, int narch, int *rename)
{
	int nreq = 0;
	ObjReq *reqs = arena_alloc(c->arena, (total_insts(ps, n * narch) + 1) * sizeof *reqs);
	for (int a = 0, k = 0; a < narch; a++)
		for (int v = 0; v < n; v++)
			for (int i = 0; i < ps[a * n + v]->g->insts.n; i++, k++) {
				const GInst *in = ps[a * n + v]->g->insts.v[i];
				const Component *decl = cached_decl(in);
				int r = other_specialization(ps + a * n, n, in) != NULL;
				if (rename)
					rename[k] = r;
				if (decl)
					reqs[nreq++] = (ObjReq){ decl, in->cvals, ps[a * n]->arch, r };
			}
	return object_prebuild(c, reqs, nreq);
}

int link_prebuild(Ctx *c, const Placement *const *ps, int n, int narch)
{
	return narch > 1 ? prebuild(c, ps, n, narch, NULL) : 0;
}

int link_decide(Ctx *c, const Placement *const *ps, int n, LinkObj *objs)
{
	int before = c->nerrors;
	if (link_check_ids(c, ps, n))
		return -1;
	/* another specialization in the cubin: an instance's symbols renamed
	 * (a shipped object serves only the constants it was built for,
	 * E0214 at check; the others are built from its declaration). The
	 * objects the cache lacks are built several at once first; then
	 * inst_object finds each current. */
	int *rename = arena_alloc(c->arena, (total_insts(ps, n) + 1) * sizeof *rename);
	if (prebuild(c, ps, n, 1, rename))
		return -1;
	for (int v = 0, k = 0; v < n; v++)
		for (int i = 0; i < ps[v]->g->insts.n; i++, k++) {
			GInst *in = ps[v]->g->insts.v[i];
			if (!inst_object(c, ps[v], in, rename[k], &objs[k], &in->sym))
				in->obj = objs[k].path;
		}
	return c->nerrors == before ? 0 : -1;
}

LinkObj *link_decide_arches(Ctx *c, const Placement *const *ps, int n, int narch)
{
	LinkObj *objs = arena_alloc(c->arena, (total_insts(ps, n * narch) + 1) * sizeof *objs);
	if (link_prebuild(c, ps, n, narch))
		return NULL;
	for (int a = 0, k = 0; a < narch; k += total_insts(ps + a * n, n), a++)
		if (link_decide(c, ps + a * n, n, objs + k))
			return NULL;
	return objs;
}


/* ------------------------------------------------------------- fatbin */

int link_fatbin(Ctx *c, const ArchInfo **arches, const LinkResult *rs, int n, void **fatbin, size_t *size)
{
	*fatbin = NULL, *size = 0;
	const char *tmp = getenv("TMPDIR");
	char dir[PATH_MAX];
	if (sys_tmp_dir(dir, sizeof dir, arena_printf(c->arena, "%s/plkc-fatbin-", tmp && *tmp ? tmp : "/tmp"))) {
		error_at(c, "E0508", span_none, "cannot create a temporary directory for fatbinary");
		return -1;
	}
	char **argv = arena_alloc(c->arena, (n + 5) * sizeof *argv);
	const char **files = arena_alloc(c->arena, (n + 1) * sizeof *files);
	int a = 0, rc = -1;
	argv[a++] = arena_printf(c->arena, "%s/bin/fatbinary", sys_cuda_home());
	argv[a++] = "-64";
	const char *out = arena_printf(c->arena, "%s/kernel.fatbin", dir);
	argv[a++] = arena_printf(c->arena, "--create=%s", out);
	for (int i = 0; i < n; i++) {
		files[i] = arena_printf(c->arena, "%s/%s.cubin", dir, arches[i]->name);
		if (sys_write_file(files[i], rs[i].cubin, rs[i].cubin_size)) {
			error_at(c, "E0508", span_none, "cannot write `%s`", files[i]);
			goto out;
		}
		argv[a++] = arena_printf(c->arena, "--image3=kind=elf,sm=%s,file=%s", arches[i]->name + 3, files[i]);
	}
	argv[a] = NULL;
	char *log = NULL;           /* never onto plkc's own output: with -o - that is the binary */
	int st = sys_run(argv, &log);
	if (st < 0)
		st = 127;   /* not started: what a shell says */
	if (st != 0) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0508", span_none, "fatbinary failed (status %d)", st);
		diag_note(d, "ran `%s`", argv[0]);
		if (log && *log)
			diag_note(d, "fatbinary said:\n%s", arena_strdup(c->arena, log));
		diag_end(c, d);
		free(log);
		goto out;
	}
	free(log);
	if (!(*fatbin = sys_read_file(out, PLK_MAX_OBJECT, size))) {
		error_at(c, "E0508", span_none, "cannot read the fatbin fatbinary wrote");
		goto out;
	}
	rc = 0;
out:
	for (int i = 0; i < n; i++)
		if (files[i])
			unlink(files[i]);
	unlink(out);
	rmdir(dir);
	return rc;
}

void link_print_versions(FILE *out)
{
	int a = 0, b = 0, ia = 0, ib = 0, da = 0, db = 0;
	unsigned ja = 0, jb = 0;
	if (nvvmVersion(&a, &b) == NVVM_SUCCESS && nvvmIRVersion(&ia, &ib, &da, &db) == NVVM_SUCCESS)
		fprintf(out, "libNVVM %d.%d (NVVM IR %d.%d)\n", a, b, ia, ib);
	if (nvrtcVersion(&a, &b) == NVRTC_SUCCESS)
		fprintf(out, "NVRTC %d.%d\n", a, b);
	if (nvJitLinkVersion(&ja, &jb) == NVJITLINK_SUCCESS)
		fprintf(out, "nvJitLink %u.%u\n", ja, jb);
}
