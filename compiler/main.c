/* main.c: plkc's driver. Takes the options (cli.c), then runs the pipeline
 * up to the stage that --emit asks for, writing through output.c:
 *
 *   parse -> resolve -> check -> place -> glue -> link -> cubin + manifest
 *
 * Exit status: 0 success, 1 errors in the input, 2 a bad command line. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "driver.h"

/* -arch values to ArchInfo. sm_90 and sm_100 name the plain feature set;
 * resolve_arch upgrades them to the `a` set when a component needs it. */
static int lookup_arches(Ctx *c, const Options *o, const ArchInfo **out, int *n)
{
	*n = 0;
	if (o->narches == 0) {
		out[(*n)++] = arch_lookup("sm_90a");
		return out[0] ? 0 : 1;
	}
	for (int i = 0; i < o->narches; i++) {
		const ArchInfo *a = arch_lookup(o->arches[i]);
		if (!a) {
			int na;
			const ArchInfo *all = arch_all(&na);
			Diag *d = diag_new(c, DIAG_ERROR, "E0602", span_none, "unknown arch `%s`", o->arches[i]);
			char list[256] = "";
			size_t len = 0;
			for (int k = 0; k < na; k++)
				len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "",
					all[k].name);
			diag_note(d, "known arches: %s", list);
			diag_end(c, d);
			return 1;
		}
		out[(*n)++] = a;
	}
	return 0;
}

/* A plain sm_90 / sm_100 request upgraded to its `a` feature set when a
 * component of the kernel needs an arch-specific feature; says so. */
static const ArchInfo *upgrade_arch(Ctx *c, const Program *p, const Kernel *k, const ArchInfo *a)
{
	if (a->arch_specific)
		return a;
	const ArchInfo *aa = arch_lookup(arena_printf(c->arena, "%sa", a->name));
	if (!aa)
		return a;
	unsigned extra = aa->features & ~a->features;
	for (int i = 0; i < k->insts.n; i++) {
		const Inst *in = k->insts.v[i];
		const Component *comp = program_component(p, in->comp);
		if (!comp)
			continue;
		for (int f = 0; f < comp->features.n; f++) {
			const Feature *ft = comp->features.v[f];
			if (feature_lookup(ft->name) & extra) {
				Diag *d = diag_new(c, DIAG_NOTE, NULL, ft->sp,
					"targeting %s for -arch %s: `%s` needs `%s`", aa->name, a->name,
					comp->name, ft->name);
				diag_end(c, d);
				return aa;
			}
		}
	}
	return a;
}

/* Check and place one kernel for one arch; write the stage --emit asks
 * for when it ends before linking. *pl is NULL when nothing is left to do. */
static int place_kernel(Ctx *c, Options *o, const Program *p, const Kernel *k,
                        const ArchInfo *arch, int inst_base, Placement **pl, int first)
{
	*pl = NULL;
	arch = upgrade_arch(c, p, k, arch);
	double t0 = plk_clock();
	Graph *g = check_kernel(c, p, k, arch);
	ctx_time(c, "check", t0);
	if (!g || c->nerrors)
		return 1;
	g->inst_base = inst_base;
	if (first)      /* once per kernel, not per arch, and not on top of errors */
		check_unused_consts(c, p, k);
	if (o->emit == EMIT_GRAPH || o->emit == EMIT_DOT) {
		FILE *f = out_open(c, o, o->out);
		if (f)
			(o->emit == EMIT_GRAPH ? graph_print : graph_dot)(f, g);
		return out_close(c, o, f, o->out);
	}
	t0 = plk_clock();
	Placement *x = place(c, g);
	ctx_time(c, "place", t0);
	if (!x || c->nerrors)
		return 1;
	if (o->emit == EMIT_PLACEMENT) {
		FILE *f = out_open(c, o, o->out);
		if (f)
			placement_print(f, x);
		return out_close(c, o, f, o->out);
	}
	if (o->check_only) {
		*pl = x;   /* placed, for a select's comparison of its variants */
		return 0;
	}
	if (o->emit == EMIT_GLUE_LL || o->emit == EMIT_MONOLITH) {
		FILE *f = out_open(c, o, o->out);
		int rc = !f || (o->emit == EMIT_GLUE_LL ? glue_emit_ll(c, x, f) : monolith_write(c, x, f));
		return out_close(c, o, f, o->out) || rc || c->nerrors;
	}
	*pl = x;
	return 0;
}

typedef struct Linked { const Placement *const *ps; const LinkResult *rs; int n; } Linked;
static int kernel_manifest(Ctx *c, const void *ud, const char *binary, FILE *f)
{
	const Linked *l = ud;
	return manifest_write_linked(c, l->ps, l->rs, l->n, binary, f);
}

/* A cubin for one arch, a fatbin of rs' cubins for several, named for
 * `name` unless -o says, with the manifest fn writes. */
static int write_arches(Ctx *c, Options *o, const char *name, const LinkResult *rs, const ArchInfo **as, int n,
                        ManifestFn fn, const void *ud)
{
	const char *out = out_binary_path(c, o, name, n);
	size_t len = strlen(out);
	if (n > 1 && len > 6 && !strcmp(out + len - 6, ".cubin")) {
		Diag *d = diag_new(c, DIAG_WARNING, NULL, span_none, "`%s` holds a fatbin of %d arches, not a cubin", out, n);
		diag_help(d, "name it `%s`", out_with_ext(c, out, ".fatbin"));
		diag_end(c, d);
	}
	void *bin = rs[0].cubin, *fb = NULL;
	size_t size = rs[0].cubin_size;
	if (n > 1 && link_fatbin(c, as, rs, n, &fb, &size))
		return 1;
	if (n > 1)
		bin = fb;
	int rc = out_linked(c, o, out, bin, size, fn, ud);
	free(fb);
	return rc;
}

static int write_binary(Ctx *c, Options *o, const Kernel *k, Placement **ps, LinkResult *rs,
                        const ArchInfo **as, int n)
{
	const Linked l = { (const Placement *const *)ps, rs, n };
	return write_arches(c, o, k->name, rs, as, n, kernel_manifest, &l);
}

/* A kernel no select or megakernel runs: built on its own (without
 * --kernel, run builds it beside each select and megakernel). */
static int built_alone(const Program *p, const Kernel *k)
{
	return !kernel_is_variant(p, k) && !kernel_is_op(p, k);
}

/* One -o for several results (each select, megakernel and kernel no
 * select or megakernel runs is built): each would overwrite the last.
 * Whether so; with `report`, E0612 too. */
static int several_outputs(Ctx *c, const Options *o, const Program *p, int report)
{
	Vec names = { 0 };
	for (int i = 0; i < p->megas.n; i++)
		vec_push(c->arena, &names, (void *)((const Mega *)p->megas.v[i])->name);
	for (int i = 0; i < p->selects.n && o->emit != EMIT_SCHEDULE; i++)
		vec_push(c->arena, &names, (void *)((const Select *)p->selects.v[i])->name);
	for (int i = 0; i < p->kernels.n && o->emit != EMIT_SCHEDULE; i++) {
		const Kernel *k = p->kernels.v[i];
		if (built_alone(p, k))
			vec_push(c->arena, &names, (void *)k->name);
	}
	if (names.n < 2 || !report)
		return names.n >= 2;
	char *list = arena_printf(c->arena, "`%s`", (const char *)names.v[0]);
	for (int i = 1; i < names.n; i++)
		list = arena_printf(c->arena, "%s, `%s`", list, (const char *)names.v[i]);
	Diag *d = diag_new(c, DIAG_ERROR, "E0612", span_none, "`-o %s` for %d results: `%s` builds %s", o->out,
	                   names.n, o->input, list);
	diag_note(d, "each would be written to the same file, the last over the others");
	diag_help(d, "name one with `--kernel %s`", (const char *)names.v[0]);
	if (o->emit == EMIT_DEFAULT)
		diag_help(d, "or leave out -o: each goes to its NAME.cubin");
	diag_end(c, d);
	return 1;
}

/* E0606 for any output of the kernel or select `name` (when it is built:
 * -k names it, or none is named) that is an input of this build. */
static int refuse_outputs(Ctx *c, Options *o, const Program *p, const char *name, int narches)
{
	if (o->kernel && strcmp(o->kernel, name))
		return 0;
	const char *bin = out_binary_path(c, o, name, narches);
	return out_refuse_input(c, o, p, o->out) || out_refuse_input(c, o, p, bin) || out_refuse_input(c, o, p, o->depfile) ||
	       out_refuse_input(c, o, p, bin ? (o->manifest ? o->manifest : out_with_ext(c, bin, ".manifest.json")) : NULL);
}

/* --emit=map of the n kernels one cubin links (a kernel, a select's
 * variants, a megakernel's op kernels), for each of narch arches (ps:
 * narch groups of n): each kernel's map, the objects decided as the link
 * decides them; nothing written unless all are decided. */
static int print_maps(Ctx *c, Options *o, const Placement *const *ps, int n, int narch)
{
	const LinkObj *objs = link_decide_arches(c, ps, n, narch);
	if (!objs || c->nerrors)
		return 1;
	FILE *f = out_open(c, o, o->out);
	for (int v = 0, k = 0; f && v < n * narch; k += ps[v]->g->insts.n, v++)
		map_print(f, ps[v], objs + k);
	return out_close(c, o, f, o->out) || !f;
}

/* One kernel, every requested arch: a cubin for one arch, a fatbin for
 * several, and the manifest beside it. */
static int build_kernel(Ctx *c, Options *o, const Program *p, const Kernel *k,
                        const ArchInfo **arches, int narches)
{
	Placement *ps[8];
	LinkResult rs[8];
	const ArchInfo *as[8];
	int n = 0, rc = 0;
	FILE *ptx = NULL;
	memset(rs, 0, sizeof rs);
	int np = 0;
	for (int a = 0; a < narches && !rc; a++) {
		rc = place_kernel(c, o, p, k, arches[a], 0, &ps[np], a == 0);
		np += !rc && ps[np];
	}
	if (rc || o->check_only || np < narches)
		return rc || c->nerrors;
	if (o->emit == EMIT_MAP)   /* the objects a link would take, not linked */
		return print_maps(c, o, (const Placement *const *)ps, 1, np);
	if (o->emit != EMIT_MANIFEST && link_prebuild(c, (const Placement *const *)ps, 1, np))
		return 1;
	for (int a = 0; a < np && !rc; a++) {
		if (o->emit == EMIT_MANIFEST) {
			n++;
			continue;
		}
		as[n] = ps[a]->arch;
		double t0 = plk_clock();
		rc = link_kernel(c, ps[a], o->emit == EMIT_PTX, &rs[n]) || c->nerrors;
		ctx_time(c, arena_printf(c->arena, "link %s (total)", as[n]->name), t0);
		n++;
		if (!rc && o->emit == EMIT_PTX) {
			if (!ptx && !(ptx = out_open(c, o, o->out)))
				rc = 1;
			else
				fputs(rs[n - 1].ptx ? rs[n - 1].ptx : "", ptx);
		}
	}
	if (ptx)
		rc |= out_close(c, o, ptx, o->out);
	if (!rc && n > 0 && o->emit == EMIT_MANIFEST) {
		FILE *f = out_open(c, o, o->out);
		rc = !f || manifest_write_multi(c, (const Placement *const *)ps, n, NULL, f) || c->nerrors;
		rc |= out_close(c, o, f, o->out);
	} else if (!rc && n > 0 && o->emit != EMIT_PTX)
		rc = write_binary(c, o, k, ps, rs, as, n);
	for (int i = 0; i < n; i++)
		link_result_free(&rs[i]);
	return rc || c->nerrors;
}

typedef struct Selected {
	const Select *s;
	const Variant *vs;
	const int *of;                /* the rule: each branch's variant */
	const Placement *const *ps;   /* [arch * n + variant] */
	int n, narch;
	const LinkResult *rs;         /* per arch; NULL: --emit=manifest */
} Selected;
static int select_manifest(Ctx *c, const void *ud, const char *binary, FILE *f)
{
	const Selected *sl = ud;
	return manifest_write_select(c, sl->s, sl->vs, sl->of, sl->ps, sl->n, sl->narch, sl->rs, binary, f);
}

/* A select: every variant checked and placed for each arch, their
 * launched parameters compared, then all linked into one cubin per arch
 * (a fatbin of them for several) with one manifest (docs/language.md,
 * "Variants"). */
static int build_select(Ctx *c, Options *o, const Program *p, const Select *s,
                        const ArchInfo **arches, int narches)
{
	int nv;
	const int *of;
	Variant *vs = select_variants(c, p, s, &nv, &of);
	if (!vs)
		return 1;
	int shown = o->emit == EMIT_DEFAULT || o->emit == EMIT_CUBIN || o->emit == EMIT_MANIFEST || o->emit == EMIT_MAP;
	if (!shown && !(o->emit == EMIT_PTX && narches == 1)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0608", s->name_sp, "--emit=%s shows %s, not select `%s`",
		                   emit_names[o->emit], o->emit == EMIT_PTX ? "one arch" : "one kernel", s->name);
		d->primary.msg = o->emit == EMIT_PTX ? "linked for several arches" : "a select of several kernels";
		diag_help(d, o->emit == EMIT_PTX ? "give one -arch for --emit=ptx"
		                                 : "name one of its variants with `--kernel VARIANT`");
		diag_end(c, d);
		return 1;
	}
	Placement **ps = arena_alloc(c->arena, ((size_t)narches * nv + 1) * sizeof *ps);
	int rc = 0;
	for (int a = 0; a < narches && !rc; a++)   /* every variant's errors, for the first arch with any */
		for (int v = 0, base = 0; v < nv; v++) {
			Placement **pv = &ps[a * nv + v];
			rc |= place_kernel(c, o, p, vs[v].k, arches[a], base, pv, a == 0);
			if (!rc)
				base += graph_ids((*pv)->g);   /* the next variant's ids follow this one's lanes */
		}
	for (int a = 0; !rc && !c->nerrors && a < narches; a++)
		rc = select_check_launch(c, s, vs, (const Placement *const *)ps + a * nv, nv);
	if (rc || c->nerrors)
		return 1;
	if (o->check_only)
		return 0;
	if (o->emit == EMIT_MAP)   /* every variant's, for each arch */
		return print_maps(c, o, (const Placement *const *)ps, nv, narches);
	Selected sl = { s, vs, of, (const Placement *const *)ps, nv, narches, NULL };
	if (o->emit == EMIT_MANIFEST) {   /* a manifest of a binary that could be linked */
		for (int a = 0; a < narches; a++)
			if (link_check_ids(c, sl.ps + a * nv, nv))
				return 1;
		FILE *f = out_open(c, o, o->out);
		rc = !f || select_manifest(c, &sl, NULL, f) || c->nerrors;
		return out_close(c, o, f, o->out) || rc;
	}
	LinkResult *rs = arena_alloc(c->arena, (size_t)narches * sizeof *rs);
	memset(rs, 0, (size_t)narches * sizeof *rs);
	rc = link_prebuild(c, sl.ps, nv, narches);
	for (int a = 0; a < narches && !rc; a++) {
		double t0 = plk_clock();
		rc = link_kernels(c, sl.ps + a * nv, nv, o->emit == EMIT_PTX, &rs[a]) || c->nerrors;
		ctx_time(c, arena_printf(c->arena, "link %s (total)", arches[a]->name), t0);
	}
	if (!rc && o->emit == EMIT_PTX) {
		FILE *f = out_open(c, o, o->out);
		if (f)
			fputs(rs[0].ptx ? rs[0].ptx : "", f);
		rc = out_close(c, o, f, o->out);
	} else if (!rc) {
		sl.rs = rs;
		rc = write_arches(c, o, s->name, rs, arches, narches, select_manifest, &sl);
	}
	for (int a = 0; a < narches; a++)
		link_result_free(&rs[a]);
	return rc || c->nerrors;
}

/* The component -c and --emit=header build: --component NAME, else the
 * first the input file declares; a note names it when there are several. */
static const Component *pick_component(Ctx *c, const Options *o, const Program *p)
{
	const Component *first = NULL;
	int n = 0;
	for (int i = 0; i < p->comps.n; i++) {
		const Component *ci = p->comps.v[i];
		if (o->component && !strcmp(ci->name, o->component))
			return ci;
		if (ci->file && c->nsrcs && !strcmp(ci->file, c->srcs[0]->path)) {
			n++;
			if (!first)
				first = ci;
		}
	}
	if (o->component) {
		error_at(c, "E0605", span_none, "no component named `%s` in `%s`", o->component, o->input);
		return NULL;
	}
	if (!first) {   /* only components that `use` brought in: name one */
		const Component *c0 = p->comps.v[0];
		Diag *d = diag_new(c, DIAG_ERROR, "E0604", span_none, "`%s` declares no component of its own to compile",
			o->input);
		diag_note(d, "its components come from the files it uses, `%s` the first", c0->name);
		if (p->kernels.n || p->megas.n)
			diag_help(d, "to link its kernels, drop -c: `plkc %s`", o->input);
		diag_help(d, "to compile a component it uses, name it: `--component %s`", c0->name);
		diag_end(c, d);
		return NULL;
	}
	if (n > 1) {
		Diag *d = diag_new(c, DIAG_NOTE, NULL, first->name_sp, "%s component `%s`, the first of %d in `%s`",
			o->emit == EMIT_HEADER ? "the header of" : "compiling", first->name, n, o->input);
		diag_help(d, "pick another with `--component NAME`");
		diag_end(c, d);
	}
	return first;
}

typedef struct MegaLinked { const MegaPlan *mp; const LinkResult *r; } MegaLinked;
static int mega_manifest(Ctx *c, const void *ud, const char *binary, FILE *f)
{
	const MegaLinked *ml = ud;
	return manifest_write_mega(c, ml->mp, ml->r, binary, f);
}

/* A megakernel (docs/megakernel.md): checked and scheduled; its schedule
 * (--emit=schedule), its manifest, or its cubin and manifest, linked from
 * its ops' kernels under its entry (mega_entry.c). One arch (E0377). */
static int build_mega(Ctx *c, Options *o, const Program *p, const Mega *m, const ArchInfo **arches, int narches)
{
	int shown = o->emit == EMIT_DEFAULT || o->emit == EMIT_CUBIN || o->emit == EMIT_MANIFEST ||
	            o->emit == EMIT_SCHEDULE || o->emit == EMIT_GLUE_LL || o->emit == EMIT_MONOLITH || o->emit == EMIT_MAP;
	if (narches > 1 || !shown) {
		Diag *d = narches > 1
		        ? diag_new(c, DIAG_ERROR, "E0377", m->name_sp, "megakernel `%s` is linked for one arch, not %d",
		                   m->name, narches)
		        : diag_new(c, DIAG_ERROR, "E0377", m->name_sp, "--emit=%s shows one kernel, not megakernel `%s`",
		                   emit_names[o->emit], m->name);
		d->primary.msg = narches > 1 ? "its schedule is made for one GPU" : "a program of several kernels";
		diag_help(d, narches > 1 ? "link it once per -arch" : "--emit=schedule shows its schedule; --kernel OP_KERNEL "
		                                                       "shows one op's kernel");
		diag_end(c, d);
		return 1;
	}
	double t0 = plk_clock();
	MegaPlan *mp = mega_check(c, p, m, arches[0]);
	ctx_time(c, "megakernel", t0);
	if (!mp || c->nerrors)
		return 1;
	mp->timeline = o->timeline;
	if (o->emit == EMIT_SCHEDULE) {
		FILE *f = out_open(c, o, o->out);
		if (f)
			mega_schedule_print(f, mp);
		return out_close(c, o, f, o->out);
	}
	if (o->check_only)
		return 0;
	if (mega_check_linkable(c, mp))
		return 1;
	const Placement *const *ps = (const Placement *const *)mp->kernels.v;
	if (o->emit == EMIT_MAP)
		return print_maps(c, o, ps, mp->kernels.n, 1);
	if (o->emit == EMIT_MANIFEST || o->emit == EMIT_GLUE_LL || o->emit == EMIT_MONOLITH) {
		FILE *f = out_open(c, o, o->out);
		int rc = !f || (o->emit == EMIT_MANIFEST ? manifest_write_mega(c, mp, NULL, NULL, f)
		                : o->emit == EMIT_MONOLITH ? monolith_write_mega(c, mp, f)
		                : glue_emit_ll_ops(c, ps, mp->kernels.n, 1, mega_entry_source(c, mp, ps, mp->kernels.n), f));
		return out_close(c, o, f, o->out) || rc || c->nerrors;
	}
	LinkResult r;
	t0 = plk_clock();
	int rc = link_mega(c, ps, mp->kernels.n, mp, 0, &r) || c->nerrors;
	ctx_time(c, "link megakernel (total)", t0);
	if (rc)
		return 1;
	const MegaLinked ml = { mp, &r };
	rc = out_linked(c, o, out_binary_path(c, o, m->name, 1), r.cubin, r.cubin_size, mega_manifest, &ml);
	link_result_free(&r);
	return rc;
}

static int run(Ctx *c, Options *o)
{
	if ((o->emit == EMIT_CONTRACT || o->emit == EMIT_AST) && out_refuse_input(c, o, NULL, o->out))
		return 1;
	if (o->emit == EMIT_CONTRACT) {
		FILE *f = out_open(c, o, o->out);
		int rc = !f || object_emit_contract(c, o->input, f) || c->nerrors;
		rc |= out_close(c, o, f, o->out);
		return rc || (o->md && out_depfile(c, o, NULL));
	}
	if (o->emit == EMIT_AST) {
		int src = ctx_load_input(c, o->input);
		if (src < 0)
			return 1;
		Module *m = parse_source(c, src);
		if (!m || c->nerrors)
			return 1;
		FILE *f = out_open(c, o, o->out);
		if (f)
			ast_dump(f, m);
		return out_close(c, o, f, o->out) || (o->md && out_depfile(c, o, NULL));
	}
	const ArchInfo *arches[8];
	int narches;
	if (lookup_arches(c, o, arches, &narches))
		return 1;
	double t0 = plk_clock();
	Program *p = resolve(c, o->input);
	ctx_time(c, "parse + resolve", t0);
	if (!p || c->nerrors)
		return 1;
	for (int a = 0; a < narches; a++)   /* objects named by `use object` */
		program_check_arch(c, p, arches[a]);
	if (c->nerrors)
		return 1;
	if (o->compile_only || o->emit == EMIT_HEADER) {
		if (p->comps.n == 0) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0604", span_none, "`%s` declares no component to compile", o->input);
			if (p->kernels.n || p->megas.n)
				diag_help(d, "to link its kernels, drop -c: `plkc %s`", o->input);
			diag_end(c, d);
			return 1;
		}
		const Component *comp = pick_component(c, o, p);
		if (!comp)
			return 1;
		/* -D of a contract constant: the value the object is built for */
		int set = 0;
		const int64_t *cv = object_cvals(c, comp, &set);
		if (!cv)
			return 1;
		if (o->emit == EMIT_HEADER) {
			if (out_refuse_input(c, o, p, o->out))
				return 1;
			FILE *f = out_open(c, o, o->out);
			if (f)
				contract_header(f, comp, set ? cv : NULL);
			return out_close(c, o, f, o->out) || (o->md && out_depfile(c, o, p));
		}
		const char *out = o->out ? o->out : arena_printf(c->arena, "%s.o", comp->name);
		if (!strcmp(out, "-")) {
			error_at(c, "E0603", span_none, "an object is not written to stdout: give -o FILE.o");
			return 1;
		}
		/* beside the object: its constants, ids and entry prototype (docs/abi.md);
		 * the two are written together */
		const char *hpath = out_with_ext(c, out, ".plk.h");
		if (out_refuse_input(c, o, p, out) || out_refuse_input(c, o, p, hpath) || out_refuse_input(c, o, p, o->depfile))
			return 1;
		/* no -arch: object_build's default, every arch the contract allows */
		if (object_build(c, comp, cv, o->narches ? arches : NULL, o->narches ? narches : 0, out, hpath,
		                 set ? cv : NULL) || c->nerrors)
			return 1;
		vec_push(c->arena, &o->targets, (void *)out);
		vec_push(c->arena, &o->targets, (void *)hpath);
		return c->nerrors || (o->md && out_depfile(c, o, p));
	}
	if (o->timeline && !p->megas.n) {
		error_at(c, "E0605", span_none, "`%s` declares no megakernel: --timeline records a megakernel's pieces", o->input);
		return 1;
	}
	if (o->emit == EMIT_SCHEDULE && !p->megas.n) {
		error_at(c, "E0605", span_none, "`%s` declares no megakernel: --emit=schedule shows a megakernel's", o->input);
		return 1;
	}
	if (p->kernels.n == 0 && p->megas.n == 0) {
		if (o->check_only)
			return 0;    /* a file of components: checked by resolve */
		Diag *d = diag_new(c, DIAG_ERROR, "E0604", span_none, "`%s` declares no kernel", o->input);
		diag_help(d, "to compile a component on its own, use `plkc -c %s`", o->input);
		diag_end(c, d);
		return 1;
	}
	int rc = 0, built = 0;
	/* one -o for several results: their own errors first (checked, not
	 * built), then E0612 */
	int several = o->out && !o->kernel && !o->check_only && several_outputs(c, o, p, 0);
	if (several)
		o->check_only = 1;
	/* no output is an input: before anything is built */
	for (int i = 0; i < p->kernels.n; i++)
		if (refuse_outputs(c, o, p, ((const Kernel *)p->kernels.v[i])->name, narches))
			return 1;
	for (int i = 0; i < p->selects.n; i++)
		if (refuse_outputs(c, o, p, ((const Select *)p->selects.v[i])->name, narches))
			return 1;
	for (int i = 0; i < p->megas.n; i++) {
		const Mega *m = p->megas.v[i];
		if (o->kernel && strcmp(o->kernel, m->name))
			continue;
		built++;
		rc |= build_mega(c, o, p, m, arches, narches);
	}
	for (int i = 0; i < p->selects.n && o->emit != EMIT_SCHEDULE; i++) {
		const Select *s = p->selects.v[i];
		if (o->kernel && strcmp(o->kernel, s->name))
			continue;
		built++;
		rc |= build_select(c, o, p, s, arches, narches);
	}
	/* a select's variants are built in its cubin, alone only when named;
	 * nothing more after a select's errors (its kernels would repeat them) */
	for (int i = 0, sel = rc; i < p->kernels.n && !sel && o->emit != EMIT_SCHEDULE; i++) {
		const Kernel *k = p->kernels.v[i];
		if (o->kernel ? strcmp(o->kernel, k->name) != 0 : !built_alone(p, k))
			continue;
		built++;
		rc |= build_kernel(c, o, p, k, arches, narches);
	}
	if (o->kernel && !built) {
		error_at(c, "E0605", span_none, "no kernel, select or megakernel named `%s` in `%s`", o->kernel, o->input);
		return 1;
	}
	if (several) {
		o->check_only = 0;
		return rc || c->nerrors ? 1 : several_outputs(c, o, p, 1);
	}
	if (!rc && !c->nerrors && o->md && !o->check_only)
		rc = out_depfile(c, o, p);
	return rc || c->nerrors;
}

static void print_version(Ctx *c, const char *home)
{
	printf("plkc %s\n", PLK_VERSION);
	const char *nvcc = object_toolkit_version(c);
	printf("CUDA toolkit %s (nvcc %s)\n", sys_cuda_home(), nvcc ? nvcc : "not found: set CUDA_HOME");
	link_print_versions(stdout);
	printf("LLVM %s\n", glue_llvm_version());
	printf("data %s\n", home ? home : "not found: set PLK_HOME");
}

int main(int argc, char **argv)
{
	Ctx c;
	ctx_init(&c, stderr);
	Options o = { 0 };
	char homebuf[PATH_MAX];
	const char *home = sys_home(homebuf, sizeof homebuf) ? NULL : arena_strdup(c.arena, homebuf);
	if (home) {
		c.stdlib_dir = arena_printf(c.arena, "%s/stdlib", home);
		const char *comps = arena_printf(c.arena, "%s/components", home);
		if (access(comps, F_OK) == 0)
			c.components_dir = comps;
	}
	/* --help, --version and --explain stand alone: before other options */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(cli_usage, stdout);
			ctx_fini(&c);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			print_version(&c, home);
			ctx_fini(&c);
			return 0;
		}
		if (!strcmp(argv[i], "--explain")) {
			const char *code = i + 1 < argc ? argv[i + 1] : NULL;
			int r = code && home ? explain(stdout, stderr, arena_printf(c.arena, "%s/docs/errors", home), code) : 2;
			if (!code)
				fputs("plkc: --explain needs an error code, e.g. --explain E0101\n", stderr);
			else if (!home)
				fputs("plkc: cannot find PipeLink's docs/errors: set PLK_HOME (PREFIX/share/pipelink)\n", stderr);
			ctx_fini(&c);
			return r ? 2 : 0;
		}
	}
	int rc = cli_parse(&c, &o, argc, argv);
	if (!rc && !o.input)
		rc = cli_bad_usage("%s", "no input file");
	if (!rc)
		rc = out_check_stdout(&c, &o);
	struct stat st;
	if (!rc && !is_stdin_path(o.input) && stat(o.input, &st) == 0 && S_ISDIR(st.st_mode)) {
		Diag *d = diag_new(&c, DIAG_ERROR, "E0601", span_none, "`%s` is a directory, not a .plk file", o.input);
		diag_help(d, "give the recipe's path, e.g. `%s/NAME.plk`", o.input);
		diag_end(&c, d);
		rc = 1;
	} else if (!rc) {
		double t0 = plk_clock();
		rc = run(&c, &o) ? 1 : 0;
		ctx_time(&c, "plkc (all)", t0);
	}
	if (rc == 1 && c.nerrors && c.format == DIAGFMT_HUMAN)
		fprintf(stderr, "error: could not compile `%s` due to %d previous error%s\n", o.input,
			c.nerrors, c.nerrors == 1 ? "" : "s");
	if (rc == 1 && c.nerrors)
		diag_footer(&c);
	ctx_fini(&c);
	return rc;
}
