/* check_inst.c: the kernel's instances, each a component made concrete.
 *
 * An instance's cparams come from its arguments, the kernel's consts or
 * the defaults; over them its warps, register budget, ports, buffers and
 * barriers are evaluated and checked, and its features against the arch. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

static int is_pow2(int64_t v) { return v > 0 && !(v & (v - 1)); }


/* ------------------------------------------------------------ instances */

const Arg *find_arg(const Inst *in, const char *name)
{
	for (int i = 0; i < in->args.n; i++) {
		const Arg *a = in->args.v[i];
		if (!strcmp(a->name, name))
			return a;
	}
	return NULL;
}

static int comp_has(const Component *cp, const char *name)
{
	for (int i = 0; i < cp->cparams.n; i++)
		if (!strcmp(((CParam *)cp->cparams.v[i])->name, name))
			return 1;
	for (int i = 0; i < cp->params.n; i++)
		if (!strcmp(((Param *)cp->params.v[i])->name, name))
			return 1;
	return 0;
}

static void check_args(Chk *k, const Inst *in, const Component *cp)
{
	NameMap seen = { 0 };    /* many arguments: found in a table, not pair by pair */
	for (int i = 0; i < in->args.n; i++) {
		const Arg *a = in->args.v[i];
		if (in->args.n > 16) {
			const Arg *b = namemap_get(&seen, a->name);
			if (!b)
				namemap_put(A(k), &seen, a->name, (void *)a);
			else {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0306", a->sp, "`%s` is given twice", a->name);
				d->primary.msg = "given again here";
				diag_label(d, b->sp, "first given here");
				diag_help(d, "remove one of them");
				diag_end(k->c, d);
			}
		}
		for (int j = 0; j < i && in->args.n <= 16; j++) {
			const Arg *b = in->args.v[j];
			if (!strcmp(a->name, b->name)) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0306", a->sp, "`%s` is given twice", a->name);
				d->primary.msg = "given again here";
				diag_label(d, b->sp, "first given here");
				diag_help(d, "remove one of them");
				diag_end(k->c, d);
				break;
			}
		}
		int ok = comp_has(cp, a->name) ||
		         (cp->warps && (!strcmp(a->name, "warps") || !strcmp(a->name, "warpgroups")));
		if (ok)
			continue;
		int n = 0;
		const char **cands = arena_alloc(A(k), (cp->cparams.n + cp->params.n + 1) * sizeof *cands);
		for (int j = 0; j < cp->cparams.n; j++)
			cands[n++] = ((CParam *)cp->cparams.v[j])->name;
		for (int j = 0; j < cp->params.n; j++)
			cands[n++] = ((Param *)cp->params.v[j])->name;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0305", a->sp,
		                   "component `%s` has no constant or param `%s`", cp->name, a->name);
		d->primary.msg = "unknown argument";
		diag_label(d, cp->name_sp, "`%s` declared here", cp->name);
		help_similar(d, a->name, cands, n, "constants and params of the component");
		diag_end(k->c, d);
	}
}

/* ----------------------------------------------------------- provenance
 * Where a value came from, for a label beside a comparison that failed:
 * "`BN` is 128 here" at the instance's `BN = 128`, the kernel's `const BN
 * = 128` or the contract's default `BN = 128`. */

/* The kernel's const `name`, the last of that name as kconst finds it; NULL: none. */
static const Const *kernel_const(Chk *k, const char *name)
{
	for (int i = k->k->consts.n - 1; i >= 0; i--) {
		const Const *kc = k->k->consts.v[i];
		if (!strcmp(kc->name, name))
			return kc;
	}
	return NULL;
}

/* Where cparam p of instance `in` takes its value: its argument (*arg),
 * else the kernel's const of that name (*kc), else its default (both NULL). */
static void cparam_source(Chk *k, const Inst *in, const CParam *p, const Arg **arg, const Const **kc)
{
	*arg = find_arg(in, p->name);
	*kc = *arg ? NULL : kernel_const(k, p->name);
}

Span cparam_origin(Chk *k, const GInst *gi, const char *name, int64_t *val)
{
	const Component *cp = gi ? gi->comp : NULL;
	for (int i = 0; cp && gi->cvals && i < cp->cparams.n; i++) {
		const CParam *p = cp->cparams.v[i];
		if (strcmp(p->name, name))
			continue;
		const Arg *a;
		const Const *kc;
		cparam_source(k, gi->decl, p, &a, &kc);
		*val = gi->cvals[i];
		return a ? a->sp : kc ? kc->sp : p->sp;
	}
	return span_none;
}

/* d has a label at sp already (its primary included). */
static int labelled(const Diag *d, Span sp)
{
	for (int i = 0; i < d->nsecondary; i++)
		if (span_same(d->secondary[i].sp, sp))
			return 1;
	return span_same(d->primary.sp, sp);
}

void label_origins(Chk *k, Diag *d, const GInst *gi, const Expr *e)
{
	if (!e)
		return;
	if (e->k == EX_NAME) {
		int64_t v = 0;
		Span sp = span_none;
		const Const *kc = gi ? NULL : kernel_const(k, e->name);
		int found;
		if (gi)
			sp = cparam_origin(k, gi, e->name, &v);
		else if (kc)
			v = kconst(k, e->name, &found), sp = kc->sp;
		if (sp.src >= 0 && !labelled(d, sp))
			diag_label(d, sp, "`%s` is %lld here", e->name, (long long)v);
		return;
	}
	label_origins(k, d, gi, e->a);
	label_origins(k, d, gi, e->b);
	for (int i = 0; i < e->args.n; i++)
		label_origins(k, d, gi, e->args.v[i]);
}

/* cparams: the instance's argument, else the kernel's const of that name,
 * else the default (over the cparams before it). */
static int eval_cparams(Chk *k, GInst *gi, Scope *cs)
{
	const Component *cp = gi->comp;
	const Inst *in = gi->decl;
	int n = cp->cparams.n, bad = 0;
	const char **names = arena_alloc(A(k), (n + 1) * sizeof *names);
	gi->cvals = arena_alloc(A(k), (n + 1) * sizeof *gi->cvals);
	cs->names = names;
	cs->vals = gi->cvals;
	cs->n = 0;
	cs->up = NULL;
	for (int i = 0; i < n; i++) {
		const CParam *p = cp->cparams.v[i];
		const Arg *a;
		const Const *kc;
		cparam_source(k, in, p, &a, &kc);
		int found;
		int64_t v = 0;
		if (a) {
			if (eval_expr(k->c, a->val, &k->kscope, &v))
				bad = 1;
		} else if (kc) {
			v = kconst(k, p->name, &found);
		} else if (p->def) {
			if (eval_expr(k->c, p->def, cs, &v))
				bad = 1;
		} else {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0325", in->sp,
			                   "no value for constant `%s` of `%s`", p->name, cp->name);
			d->primary.msg = arena_printf(A(k), "`%s` is not given here", p->name);
			diag_label(d, p->sp, "declared without a default");
			diag_help(d, "pass it, `%s(%s = ...)`, or declare `const %s = ...` in the kernel",
			          cp->name, p->name, p->name);
			diag_end(k->c, d);
			bad = 1;
		}
		names[i] = p->name;
		gi->cvals[i] = v;
		cs->n = i + 1;
	}
	return bad ? -1 : 0;
}

/* A component with an `out hook` provides hooks: it is nothing but
 * functions the glue links into their callers, so it has a source, no
 * entry and no resource of its own (E0356, reported at its first instance). */
static const Port *first_out_hook(const Component *cp)
{
	for (int i = 0; i < cp->ports.n; i++) {
		const Port *p = cp->ports.v[i];
		if (p->dir == PORT_OUT && p->ty->k == TY_HOOK)
			return p;
	}
	return NULL;
}

static void check_hook_provider(Chk *k, const Component *cp, const Port *hp)
{
	struct { Span sp; const char *what; } bad[8];
	int n = 0;
#define BAD(s, w) do { if (n < 8) bad[n].sp = (s), bad[n++].what = (w); } while (0)
	if (cp->entry)
		BAD(cp->entry_sp, "an entry: the glue calls its hooks' functions, not an entry");
	if (cp->warps)
		BAD(cp->warps->sp, cp->warpgroups ? "warpgroups of its own" : "warps of its own");
	if (cp->regs)
		BAD(cp->regs->sp, "a register budget");
	if (cp->cluster)
		BAD(cp->cluster_sp, "a cluster size");
	if (cp->prologue)
		BAD(cp->prologue_sp, "a prologue: it has no entry to call");
	for (int i = 0; i < cp->smem.n; i++)
		BAD(((const Smem *)cp->smem.v[i])->sp, "a shared-memory buffer");
	for (int i = 0; i < cp->barriers.n; i++)
		BAD(((const Barrier *)cp->barriers.v[i])->sp, "a named barrier");
	for (int i = 0; i < cp->ports.n; i++) {
		const Port *p = cp->ports.v[i];
		if (p->dir != PORT_OUT || p->ty->k != TY_HOOK)
			BAD(p->sp, p->ty->k == TY_HOOK ? "an `in hook`: providers do not call hooks"
			                               : "a port that is not an `out hook`");
	}
#undef BAD
	if (!n && cp->source)
		return;
	Span at = n ? bad[0].sp : cp->name_sp;
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0356", at, "hook provider `%s` has %s", cp->name,
	                   n ? bad[0].what : "no source");
	d->primary.msg = n ? "not allowed in a hook provider" : "no `source` declared";
	for (int i = 1; i < n && i < 4; i++)
		diag_label(d, bad[i].sp, "also %s", bad[i].what);
	diag_label(d, hp->sp, "`%s` makes `%s` a hook provider", hp->name, cp->name);
	diag_note(d, "a hook provider is functions linked into the components that call them: "
	          "it runs on their warps and has only params and `out hook`s");
	diag_help(d, n ? "move it to a component of its own, or make `%s` an ordinary component without `out hook`s"
	               : "add `source \"FILE.cu\"` defining its hooks' functions", cp->name);
	diag_end(k->c, d);
}

/* "BM = 128, BN = 256": names with values */
static const char *values(Chk *k, const Component *cp, const int64_t *v)
{
	const char *s = "";
	for (int i = 0; i < cp->cparams.n; i++)
		s = arena_printf(A(k), "%s%s%s = %lld", s, i ? ", " : "", ((const CParam *)cp->cparams.v[i])->name,
		                 (long long)v[i]);
	return s;
}

/* `merge KIND` on a port (docs/language.md, "Split"): how a split's
 * partials of an out frag combine. `sum` adds them; `softmax` merges
 * (O, m, l) by the online softmax's rule, so it needs the frag to hold
 * them where the glue's merge reads them: f32 in wgmma_acc, O in the
 * columns before the last 8 and each row's (m, l) pair after them. */
static void check_merge(Chk *k, const Port *p, const GPort *gp)
{
	const char *why = NULL, *help = NULL;
	const GField *f = gp && gp->fields.n ? gp->fields.v[0] : NULL;
	if (strcmp(p->merge, "sum") && strcmp(p->merge, "softmax"))
		why = "no such merge", help = "write `merge sum` (the default) or `merge softmax`";
	else if (p->dir != PORT_OUT || p->ty->k != TY_FRAG)
		why = "only a split producer's frag has partials to merge",
		help = "put `merge` on the `out` frag port that carries the partial results";
	else if (!strcmp(p->merge, "softmax") && f &&
	         (strcmp(f->dtype, "f32") || !f->layout || strcmp(f->layout, "wgmma_acc") || f->cols < 16))
		why = "`softmax` reads each row's (m, l) from the last 8 columns of an f32 wgmma_acc frag",
		help = "declare the frag `frag<f32, R x (C + 8), wgmma_acc>`, (m, l) per row after the C columns";
	if (!why)
		return;
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0368", p->merge_sp, "`%s` cannot merge partials of `%s`", p->merge,
	                   p->name);
	d->primary.msg = why;
	diag_label(d, p->sp, "`%s`", p->name);
	diag_help(d, "%s", help);
	diag_end(k->c, d);
}

/* E0214: an instance of a component that only an object provides, with
 * constants other than those the object was built for. */
static void object_mismatch(Chk *k, const GInst *gi)
{
	const Component *cp = gi->comp;
	int n = cp->cparams.n;
	int64_t *have = arena_alloc(A(k), (n + 1) * sizeof *have);
	for (int i = 0; i < n; i++)
		object_value(((const CParam *)cp->cparams.v[i])->def, &have[i]);
	const char *differ = "";
	for (int i = 0; i < n; i++)
		if (have[i] != gi->cvals[i])
			differ = arena_printf(A(k), "%s%s%s = %lld", differ, *differ ? ", " : "",
			                      ((const CParam *)cp->cparams.v[i])->name, (long long)gi->cvals[i]);
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0214", gi->decl->sp, "object `%s` was not built for the constants of `%s`",
	                   cp->object, gi->name);
	d->primary.msg = arena_printf(A(k), "`%s` needs %s", gi->name, differ);
	for (int i = 0; i < k->p->comps.n; i++) {
		const Use *u = k->p->comps.v[i] == cp ? k->p->objuses.v[i] : NULL;
		if (u)
			diag_label(d, u->path_sp, "built for %s", values(k, cp, have));
	}
	diag_note(d, "the object holds `%s` compiled for %s only: tile shapes size its registers at compile time",
	          cp->name, values(k, cp, have));
	const char *defs = "";
	for (int i = 0; i < n; i++)
		if (have[i] != gi->cvals[i])
			defs = arena_printf(A(k), "%s -D %s=%lld", defs, ((const CParam *)cp->cparams.v[i])->name,
			                    (long long)gi->cvals[i]);
	diag_help(d, "give `%s` the object's constants, or rebuild the object for these from the declaration of `%s`: "
	          "`plkc -c COMPONENT.plk%s -o %s`", gi->name, cp->name, defs, cp->object);
	diag_end(k->c, d);
}

static GInst *make_inst(Chk *k, const Inst *in, const Component *cp)
{
	GInst *gi = arena_alloc(A(k), sizeof *gi);
	gi->name = in->name;
	gi->decl = in;
	gi->comp = cp;
	gi->role = -1;
	gi->cluster = 1;
	check_args(k, in, cp);
	Scope *cs = arena_alloc(A(k), sizeof *cs);
	if (eval_cparams(k, gi, cs)) {
		gi->nwarps = -1;     /* everything below depends on the constants */
		gi->cvals = NULL;
		return gi;
	}
	if (cp->object && !cp->decl && !object_serves(cp, gi->cvals))
		object_mismatch(k, gi);

	/* warps: the component's own, or the instance's warps/warpgroups override */
	if (cp->warps) {
		const Arg *o = comp_has(cp, "warpgroups") ? NULL : find_arg(in, "warpgroups");
		int wg = o != NULL;
		if (!o) {
			o = comp_has(cp, "warps") ? NULL : find_arg(in, "warps");
			wg = o ? 0 : cp->warpgroups;
		}
		int64_t w;
		int rc = o ? eval_pos(k, o->val, NULL, "a warp count", &w)
		           : eval_pos(k, cp->warps, gi, "a warp count", &w);
		if (rc == 0) {
			if (w > 1024)
				w = 1024;   /* more than any arch allows: reported as E0337 */
			if (wg)
				w *= 4;
			if (w > 1024)
				w = 1024;
			gi->nwarps = (int)w;
		} else {
			gi->nwarps = -1;
		}
	}
	if (cp->regs) {
		int64_t r;
		if (eval_expr(k->c, cp->regs, cs, &r) == 0) {
			const int lo = PLK_SETMAXNREG_MIN, hi = PLK_SETMAXNREG_MAX, step = PLK_SETMAXNREG_STEP;
			if (r % step || r < lo || r > hi) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0342", cp->regs->sp,
				                   "register budget %lld is not a setmaxnreg value", (long long)r);
				d->primary.msg = arena_printf(A(k), "must be a multiple of %d in %d..%d", step, lo, hi);
				diag_label(d, in->sp, "`%s` instantiated here", in->name);
				label_origins(k, d, gi, cp->regs);
				long long use = r < lo ? lo : r > hi ? hi : r / step * step;
				diag_help(d, "use %lld", use);
				diag_end(k->c, d);
			} else {
				gi->regs = (int)r;
			}
		}
	}
	for (int i = 0; i < cp->features.n; i++)
		gi->features |= need_feature(k, cp->features.v[i]);

	int first = 1;   /* contract-only errors: reported at the first instance */
	for (int i = 0; i < k->g->insts.n; i++)
		first &= ((const GInst *)k->g->insts.v[i])->comp != cp;
	for (int i = 0; i < cp->ports.n; i++) {
		const Port *p = cp->ports.v[i];
		int hook = p->ty->k == TY_HOOK;
		int ring = !hook && p->ty->k != TY_FRAG;   /* a tile or bundle port: a ring */
		if (first && p->handoff && (p->dir != PORT_IN || !ring)) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0352", p->handoff_sp,
			                   "`handoff` on %s, which takes no pingpong turns",
			                   p->dir != PORT_IN ? "an `out` port" : hook ? "a hook port" : "a frag port");
			d->primary.msg = "only a ring's consumer passes the turn";
			diag_label(d, p->sp, "`%s` is %s", p->name, p->dir != PORT_IN ? "a producer's end"
			           : hook ? "a function call, not a ring" : "registers, not a ring");
			diag_help(d, "remove `handoff`, or move it to the `in` port of the ring the lanes share");
			diag_end(k->c, d);
		}
		if (first && p->split && (!ring || !p->per || comp_split_port(cp) != p)) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0365", p->split_sp, "`split` on %s",
			                   hook ? "a hook port" : p->ty->k == TY_FRAG ? "a frag port"
			                   : !p->per ? "a port without `per`" : "a second port");
			d->primary.msg = "a split walks a share of one ring's `per` count";
			diag_label(d, p->sp, "`%s`", p->name);
			diag_help(d, "keep `split` on the one ring port that says `per COUNT` (the K loop)");
			diag_end(k->c, d);
		}
		if (first && p->ahead && !ring) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0385", p->ahead_sp, "`ahead` on %s",
			                   hook ? "a hook port" : "a frag port");
			d->primary.msg = "only a ring can carry a work item past the last";
			diag_label(d, p->sp, "`%s` is %s", p->name, hook ? "a function call, not a ring"
			           : "registers, not a ring");
			diag_help(d, "put `ahead` on the tile ports whose rings the component reads one item ahead");
			diag_end(k->c, d);
		}
		GPort *gp = type_port(k, p, gi);
		if (first && p->merge)
			check_merge(k, p, gp);
		int64_t ahead = 0;
		if (gp && p->ahead && ring && eval_expr(k->c, p->ahead, cs, &ahead) == 0)
			gp->ahead = ahead != 0;
		if (!gp) {
			gp = arena_alloc(A(k), sizeof *gp);   /* placeholder: keeps ids and suppresses "unconnected" */
			gp->name = p->name;
			gp->dir = p->dir;
			gp->decl = p;
			gp->k = p->ty->k;
			gp->id = -1;
		} else {
			gp->id = i;
		}
		vec_push(A(k), &gi->ports, gp);
	}

	for (int i = 0; i < cp->smem.n; i++) {
		const Smem *s = cp->smem.v[i];
		int64_t size, al = 128;
		if (eval_expr(k->c, s->size, cs, &size) || (s->align && eval_expr(k->c, s->align, cs, &al)))
			continue;
		if (size <= 0 || size > UINT32_MAX || !is_pow2(al) || al > 65536) {
			int sz = size <= 0 || size > UINT32_MAX;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0341", sz ? s->size->sp : s->align->sp,
			                   sz ? "buffer `%s` has size %lld bytes" : "buffer `%s` has alignment %lld",
			                   s->name, (long long)(sz ? size : al));
			d->primary.msg = sz ? "must be positive" : "must be a power of two";
			diag_help(d, sz ? "a buffer holds at least one byte" : "use a power of two such as 128 or 1024");
			diag_end(k->c, d);
			continue;
		}
		int nph;
		const char *const *phases = live_all(&nph);
		unsigned live = s->live ? 0 : LIVE_ALL;
		for (int j = 0; s->live && j < nph; j++)
			if (!strcmp(s->live, phases[j]))
				live = j < nph - 1 ? 1u << j : LIVE_ALL;
		if (!live) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0341", s->live_sp, "unknown phase `%s`", s->live);
			d->primary.msg = "not a lifetime phase";
			help_similar(d, s->live, (const char **)phases, nph, "phases");
			diag_end(k->c, d);
			continue;
		}
		/* A buffer named after a port stages that port's tile: it must hold it. */
		for (int j = 0; j < gi->ports.n; j++) {
			GPort *gp = gi->ports.v[j];
			if (gp->id >= 0 && gp->k != TY_FRAG && !strcmp(gp->name, s->name) && size < gp->bytes) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0340", s->size->sp,
				                   "buffer `%s` is smaller than the tile it stages",
				                   s->name);
				d->primary.msg = arena_printf(A(k), "%lld bytes", (long long)size);
				diag_label(d, gp->decl->sp, "`%s` is %s: %u bytes", gp->name, port_str(k, gp), gp->bytes);
				label_origins(k, d, gi, s->size);
				diag_help(d, "make it at least %u bytes", gp->bytes);
				diag_end(k->c, d);
			}
		}
		GBuf *b = arena_alloc(A(k), sizeof *b);
		b->name = s->name;
		b->id = gi->bufs.n;
		b->size = (uint32_t)size;
		b->align = (uint32_t)al;
		b->live = live;
		b->sp = s->sp;
		vec_push(A(k), &gi->bufs, b);
	}
	for (int i = 0; i < cp->barriers.n; i++) {
		const Barrier *br = cp->barriers.v[i];
		GBar *b = arena_alloc(A(k), sizeof *b);
		b->name = br->name;
		b->id = i;
		b->sp = br->sp;
		int64_t t = 0;
		if (br->threads && eval_pos(k, br->threads, gi, "a barrier's thread count", &t))
			continue;
		if (t % 32 || t > k->arch->max_threads) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0345", br->threads->sp,
			                   "barrier `%s` has %lld threads", br->name, (long long)t);
			d->primary.msg = t % 32 ? "named barriers count whole warps"
			                        : arena_printf(A(k), "a block of %s has at most %d", k->arch->name,
			                                       k->arch->max_threads);
			diag_label(d, in->sp, "`%s` instantiated here", in->name);
			diag_help(d, t % 32 ? "use a multiple of 32" : "count the threads of the warps that wait at it");
			diag_end(k->c, d);
			continue;
		}
		b->threads = (int)t;     /* 0: the role's threads, filled in later */
		vec_push(A(k), &gi->bars, b);
	}
	gi->keep_words = cp->keeps.n ? arena_alloc(A(k), cp->keeps.n * sizeof *gi->keep_words) : NULL;
	for (int i = 0; i < cp->keeps.n; i++) {   /* registers: at most a thread's 255 */
		const Keep *kp = cp->keeps.v[i];
		int64_t w;
		if (eval_expr(k->c, kp->words, cs, &w))
			continue;
		if (w < 0 || w > 255) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0386", kp->words->sp, "`regs %s` keeps %lld words a thread",
			                   kp->name, (long long)w);
			d->primary.msg = "must be 0 to 255: they are registers";
			diag_label(d, in->sp, "`%s` instantiated here", in->name);
			label_origins(k, d, gi, kp->words);
			diag_help(d, "keep fewer values across calls, or put them in shared memory (`smem`)");
			diag_end(k->c, d);
			continue;
		}
		gi->keep_words[i] = (int)w;
	}
	const Port *hp = first_out_hook(cp);
	if (hp) {   /* no role, no resources: what it may not have is reported */
		if (first)
			check_hook_provider(k, cp, hp);
		gi->hooks = 1;
		gi->nwarps = gi->regs = 0;
		gi->bufs = gi->bars = (Vec){ 0 };
		for (int i = 0; i < gi->ports.n; i++) {   /* E0356's, not E0315's */
			GPort *gp = gi->ports.v[i];
			if (gp->k != TY_HOOK || gp->dir != PORT_OUT)
				gp->id = -1;
		}
	}
	return gi;
}

static void check_arch(Chk *k, GInst *gi)
{
	const Component *cp = gi->comp;
	const Inst *in = gi->decl;
	if (cp->arch_min) {
		int sm = atoi(cp->arch_min + (strncmp(cp->arch_min, "sm_", 3) ? 0 : 3));
		if (sm > k->arch->sm) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0329", in->sp,
			                   "component `%s` needs arch >= %s, but the target is %s",
			                   cp->name, cp->arch_min, k->arch->name);
			d->primary.msg = arena_printf(A(k), "`%s` cannot run on %s", in->name, k->arch->name);
			diag_label(d, cp->arch_sp, "`%s` requires this arch", cp->name);
			/* the arches of arch.def with its minimum and features, never "or newer":
			 * sm_100a lacks wgmma */
			const char *to = object_arch_flags(k->c, cp);
			if (to)
				diag_help(d, "build for an arch with what `%s` needs (%s), or use a component that supports %s",
				          cp->name, to, k->arch->name);
			else
				diag_help(d, "no known arch has what `%s` needs: use a component that supports %s",
				          cp->name, k->arch->name);
			diag_end(k->c, d);
			return;
		}
	}
	unsigned missing = gi->features & ~k->arch->features;
	for (int i = 0; i < cp->features.n; i++) {
		const Feature *f = cp->features.v[i];
		unsigned b = feature_lookup(f->name);
		if (!(b & missing))
			continue;
		missing &= ~b;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0330", in->sp,
		                   "component `%s` needs `%s`, which %s lacks", cp->name, f->name, k->arch->name);
		d->primary.msg = arena_printf(A(k), "`%s` cannot run on %s", in->name, k->arch->name);
		diag_label(d, f->sp, "`%s` needed here", f->name);
		diag_help(d, "`%s` is available on: %s", f->name, arches_with(k, b));
		diag_end(k->c, d);
	}
}

GInst *inst_named(Chk *k, const char *name)
{
	return namemap_get(&k->inst_map, name);
}

/* An instance's cparams as a scope: its contract's names, its values. */
Scope inst_scope(Chk *k, const GInst *gi)
{
	const Component *cp = gi->comp;
	const char **names = arena_alloc(A(k), (cp->cparams.n + 1) * sizeof *names);
	for (int i = 0; i < cp->cparams.n; i++)
		names[i] = ((const CParam *)cp->cparams.v[i])->name;
	return (Scope){ names, gi->cvals, cp->cparams.n, NULL };
}

/* The kernel's instances in declaration order: a second of one name is
 * reported and left out, one of an unknown component kept without ports. */
void make_insts(Chk *k)
{
	Ctx *c = k->c;
	const Program *p = k->p;
	const Kernel *kn = k->k;
	Graph *g = k->g;
	for (int i = 0; i < kn->insts.n; i++) {
		const Inst *in = kn->insts.v[i];
		const GInst *o = inst_named(k, in->name);
		if (o) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0302", in->name_sp, "instance `%s` is declared twice", in->name);
			d->primary.msg = "declared again here";
			diag_label(d, o->decl->name_sp, "first declared here");
			diag_help(d, "give each instance its own name");
			diag_end(c, d);
			continue;
		}
		const Component *cp = program_component(p, in->comp);
		GInst *gi;
		if (!cp) {
			int n;
			const char **cands = names_of_vec(k, &p->comps, offsetof(Component, name), &n);
			Diag *d = diag_new(c, DIAG_ERROR, "E0301", in->comp_sp, "unknown component `%s`", in->comp);
			d->primary.msg = "not declared in this file or any file it uses";
			help_similar(d, in->comp, cands, n, "components in scope");
			diag_end(c, d);
			gi = arena_alloc(c->arena, sizeof *gi);
			gi->name = in->name;
			gi->decl = in;
			gi->role = -1;
			gi->cluster = 1;
			gi->nwarps = -1;
		} else {
			gi = make_inst(k, in, cp);
			check_arch(k, gi);
		}
		gi->id = g->insts.n;
		vec_push(c->arena, &g->insts, gi);
		namemap_put(c->arena, &k->inst_map, gi->name, gi);
	}
}
