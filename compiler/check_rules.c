/* check_rules.c: the composition rules, over a graph that is whole (every
 * port typed and connected, roles formed, params bound); check.c runs
 * them in order until one reports. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

/* ------------------------------------------------------------- requires
 * `require COND` in a contract: every instance's cparams must meet it
 * (a value the component's source would reject with a static_assert, or
 * worse, compile into a kernel that hangs). Checked before anything is
 * placed, at the instance. */

/* "A = 1, B = 2": the values of the cparams r names */
static const char *req_values(Chk *k, const Require *r, const Scope *cs)
{
	Vec seen = { 0 };
	expr_names(A(k), r->lhs, &seen);
	expr_names(A(k), r->rhs, &seen);
	for (int i = 0; i < r->set.n; i++)
		expr_names(A(k), r->set.v[i], &seen);
	return scope_values(A(k), &seen, cs);
}

void check_requires(Chk *k)
{
	const Graph *g = k->g;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		const Component *cp = gi->comp;
		if (!cp->requires.n)
			continue;
		Scope cs = inst_scope(k, gi);
		for (int j = 0; j < cp->requires.n; j++) {
			const Require *r = cp->requires.v[j];
			int met = require_met(k->c, r, &cs);
			if (met < 0)
				return;
			if (met)
				continue;
			const char *vals = req_values(k, r, &cs);
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0353", gi->decl ? gi->decl->sp : k->k->name_sp,
			                   "`%s` does not meet its contract's `require %s`", gi->name,
			                   require_text(A(k), r));
			d->primary.msg = *vals ? arena_printf(A(k), "here %s", vals) : "this instance";
			diag_label(d, r->sp, "`%s` requires this", cp->name);
			label_origins(k, d, gi, r->lhs);
			label_origins(k, d, gi, r->rhs);
			for (int q = 0; q < r->set.n; q++)
				label_origins(k, d, gi, r->set.v[q]);
			diag_help(d, "give `%s` values that meet it: the kernel's `const` line or the instance's "
			          "arguments set them", gi->name);
			diag_end(k->c, d);
		}
	}
}

/* ---------------------------------------------------- counts per work item
 * `out ab: ... per ceil_div(K, BK)` says how many slots a port moves per
 * work item. Both sides of a ring must agree for every input, or one of
 * them waits forever. The counts depend on run-time sizes, so they are
 * compared at a few probe values of every shape symbol and scalar: an
 * identity of the two expressions passes every probe; a typical mistake
 * (another BK, K rounded another way) fails at least one. */

enum { NPROBES = 4 };

/* The probe value of kernel name `name` in round r: distinct per name,
 * not multiples of the usual tile sizes (rounding differences show). */
static int64_t probe(const char *name, int r)
{
	static const int64_t base[NPROBES] = { 4096, 1000, 8197, 130 };
	uint32_t h = 2166136261u;
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return base[r] + (int64_t)(h % 61) * 8 + r;
}

/* The value of one side's count in round r: the component's cparams, and
 * its params at the probe values of what they are bound to. */
static int count_at(Chk *k, const GInst *gi, const Expr *per, int r, int64_t *out)
{
	const Graph *g = k->g;
	const Component *cp = gi->comp;
	int n = cp->cparams.n + gi->binds.n + g->kparams.n;
	const char **names = arena_alloc(A(k), (n + 1) * sizeof *names);
	int64_t *vals = arena_alloc(A(k), (n + 1) * sizeof *vals);
	int m = 0;
	/* kernel names first (the scope of bound expressions) */
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *kp = g->kparams.v[i];
		if (kp->kind == KP_I32 || kp->kind == KP_I64) {
			names[m] = kp->dim ? kp->dim : kp->name;
			vals[m] = probe(names[m], r);
			m++;
		}
	}
	Scope ks = { names, vals, m, &k->kscope };
	const char **cn = arena_alloc(A(k), (n + 1) * sizeof *cn);
	int64_t *cv = arena_alloc(A(k), (n + 1) * sizeof *cv);
	int q = 0;
	for (int i = 0; i < cp->cparams.n; i++) {
		cn[q] = ((const CParam *)cp->cparams.v[i])->name;
		cv[q++] = gi->cvals[i];
	}
	for (int i = 0; i < gi->binds.n; i++) {
		const GBind *b = gi->binds.v[i];
		int64_t v;
		if (b->expr) {
			if (eval_expr(k->c, b->expr, &ks, &v))
				return -1;
		} else if (b->kparam >= 0 && b->kparam < g->kparams.n) {
			const GKParam *kp = g->kparams.v[b->kparam];
			if (kp->kind != KP_I32 && kp->kind != KP_I64)
				continue;   /* a pointer or tensor map: not a number */
			v = probe(kp->dim ? kp->dim : kp->name, r);
		} else
			continue;
		cn[q] = b->param;
		cv[q++] = v;
	}
	Scope cs = { cn, cv, q, NULL };
	return eval_expr(k->c, per, &cs, out);
}

void check_counts(Chk *k)
{
	for (int i = 0; i < k->g->edges.n; i++) {
		const GEdge *e = k->g->edges.v[i];
		const Port *a = e->fp->decl, *b = e->tp->decl;
		if (e->kind != EDGE_RING || !a || !b || !a->per || !b->per)
			continue;
		for (int r = 0; r < NPROBES; r++) {
			int64_t va, vb;
			if (count_at(k, e->from, a->per, r, &va) || count_at(k, e->to, b->per, r, &vb))
				return;
			if (va == vb)
				continue;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0349", e->sp,
			                   "`%s.%s` and `%s.%s` move different numbers of tiles per work item",
			                   e->from->name, e->fp->name, e->to->name, e->tp->name);
			d->primary.msg = "the consumer would wait for a tile that never comes, or the producer for a free slot";
			diag_label(d, a->per->sp, "%lld per work item", (long long)va);
			diag_label(d, b->per->sp, "%lld per work item", (long long)vb);
			label_origins(k, d, e->from, a->per);
			label_origins(k, d, e->to, b->per);
			char at[256] = "";
			size_t len = 0;
			for (int j = 0; j < k->g->kparams.n && len < sizeof at - 40; j++) {
				const GKParam *kp = k->g->kparams.v[j];
				if (kp->kind == KP_I32 || kp->kind == KP_I64) {
					const char *nm = kp->dim ? kp->dim : kp->name;
					len += (size_t)snprintf(at + len, sizeof at - len, "%s%s = %lld", len ? ", " : "",
					                        nm, (long long)probe(nm, r));
				}
			}
			diag_note(d, "with %s", at[0] ? at : "these constants");
			diag_help(d, "both sides must step through the same extent with the same tile (e.g. `per ceil_div(K, BK)` with one BK)");
			diag_end(k->c, d);
			return;
		}
	}
}

/* --------------------------------------------------------------- ahead
 * `ahead` on a ring's ports: the consumer reads one work item ahead (in
 * its call for item i it takes item i + 1's first slot), so the producer
 * supplies one item past the block's last (at its flush call) and a slot
 * or more for every item. Both ends say it, or neither: one alone hangs
 * (the consumer waits for a slot that never comes) or leaves a slot
 * unread. The items must follow one another on the ring: no split grid
 * (a split's share may be empty), no pingpong lanes (each lane skips the
 * others' items). */
void check_ahead(Chk *k)
{
	const GEdge *any = NULL;
	for (int i = 0; i < k->g->edges.n; i++) {
		const GEdge *e = k->g->edges.v[i];
		if (e->kind != EDGE_RING)
			continue;
		if (e->fp->ahead == e->tp->ahead) {
			any = any ? any : e->fp->ahead ? e : NULL;
			continue;
		}
		const GPort *on = e->fp->ahead ? e->fp : e->tp, *off = e->fp->ahead ? e->tp : e->fp;
		const GInst *oni = on == e->fp ? e->from : e->to, *offi = on == e->fp ? e->to : e->from;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0387", e->sp, "`%s.%s` reads ahead, `%s.%s` does not",
		                   oni->name, on->name, offi->name, off->name);
		d->primary.msg = on == e->tp ? "the consumer would wait for a work item past the last that never comes"
		                             : "the producer's item past the last would be left unread";
		diag_label(d, on->decl->ahead_sp, "`%s` of `%s`", on->name, oni->comp->name);
		diag_label(d, off->decl->sp, "no `ahead` here, or its condition is 0");
		diag_help(d, "instantiate both with reading ahead on or both off (e.g. the same `AHEAD = 1`)");
		diag_end(k->c, d);
		return;
	}
	const char *why = !any ? NULL : k->split ? "a split's share of a work item may have no slot"
	                : NULL;
	for (int i = 0; any && !why && i < k->g->roles.n; i++)
		if (((const GRole *)k->g->roles.v[i])->lanes > 1)
			why = "pingpong lanes skip each other's work items on a shared ring";
	if (why) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0388", any->sp, "`%s.%s -> %s.%s` reads ahead in a kernel where "
		                   "work items do not follow one another on it", any->from->name, any->fp->name,
		                   any->to->name, any->tp->name);
		d->primary.msg = why;
		diag_help(d, "%s", k->split ? "drop `split` from the grid, or turn reading ahead off (`AHEAD = 0`)"
		                            : "drop `pingpong` from the ring, or turn reading ahead off (`AHEAD = 0`)");
		diag_end(k->c, d);
	}
}

/* ------------------------------------------------------------- clusters
 * `cluster N` in a contract, N > 1: the component works with the other
 * blocks of a cluster of exactly N (a TMA multicast to N CTAs, slots
 * released across them), on the tiles the glue gives them: a 2 x 1 or
 * 4 x 1 cluster's blocks two or four tile rows on one tile column, a
 * 2 x 2 cluster's a 2 x 2 block of tiles (glue.c, role_body). Any other
 * launch hangs or computes garbage, so the kernel's cluster must have
 * that shape. `cluster X x Y` names the shape; `cluster N` means 2 x 1
 * for 2 and 2 x 2 for 4. N = 1 asks for nothing: such a component runs
 * alone in its block, in a cluster or not. */

/* The cluster shape a contract asks for: `cluster X x Y` as written,
 * `cluster N` 2 x 1 or 2 x 2 (N x 1 for any other N). 0, or -1 if an
 * expression cannot be evaluated. */
static int cluster_shape(Chk *k, const Component *cp, Scope *cs, int64_t *x, int64_t *y)
{
	if (eval_expr(k->c, cp->cluster, cs, x))
		return -1;
	if (cp->cluster_y)
		return eval_expr(k->c, cp->cluster_y, cs, y) ? -1 : 0;
	*y = *x == 4 ? 2 : 1;
	*x = *x == 4 ? 2 : *x;
	return 0;
}

void check_clusters(Chk *k)
{
	const Graph *g = k->g;
	int64_t have = (int64_t)g->cluster[0] * g->cluster[1];
	Span pol = k->k->name_sp;
	for (int i = 0; i < k->k->policies.n; i++) {
		const Policy *p = k->k->policies.v[i];
		if (!strcmp(p->name, "cluster"))
			pol = p->sp;
	}
	int64_t *wants = arena_alloc(A(k), (g->insts.n + 1) * sizeof *wants);
	const int errs0 = k->c->nerrors;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		const Component *cp = gi->comp;
		wants[gi->id] = 1;
		if (!cp->cluster)
			continue;
		Scope cs = inst_scope(k, gi);
		int64_t wx, wy;
		if (cluster_shape(k, cp, &cs, &wx, &wy))
			return;
		/* a shape's sides: 1 to 16 (check_grid's limit), or no shape */
		int sides = wx >= 1 && wy >= 1 && wx <= 16 && wy <= 16;
		int64_t want = !cp->cluster_y ? wx * wy : sides ? wx * wy : -1;
		wants[gi->id] = want;
		if (cp->cluster_y ? want == 1 : want <= 1)
			continue;
		int ok = abi_cluster_tiles(wx, wy);   /* the glue's arrangements */
		if (ok && wx == g->cluster[0] && wy == g->cluster[1]) {
			((GInst *)gi)->cluster = (int)want;	/* have <= 16: check_grid */
			continue;
		}
		Diag *d;
		Span sp = gi->decl ? gi->decl->sp : k->k->name_sp;
		if (!ok && cp->cluster_y) {
			d = diag_new(k->c, DIAG_ERROR, "E0350", sp, "`%s` needs %lld x %lld clusters; the glue "
			             "shares tiles in 2 x 1, 4 x 1 and 2 x 2 clusters only", gi->name, (long long)wx,
			             (long long)wy);
			d->primary.msg = arena_printf(A(k), "no arrangement of tiles for `%s`", gi->name);
		} else if (!ok) {
			d = diag_new(k->c, DIAG_ERROR, "E0350", sp, "`%s` needs clusters of %lld blocks; the glue "
			             "shares tiles in clusters of 2 and 4 only", gi->name, (long long)want);
			d->primary.msg = arena_printf(A(k), "no arrangement of tiles for `%s`", gi->name);
		} else if (want != have) {
			d = diag_new(k->c, DIAG_ERROR, "E0350", sp, "`%s` needs clusters of %lld blocks; kernel `%s` launches %lld",
			             gi->name, (long long)want, k->k->name, (long long)have);
			d->primary.msg = arena_printf(A(k), "`%s` would wait for partner blocks that are not there", gi->name);
		} else {
			d = diag_new(k->c, DIAG_ERROR, "E0350", sp, "`%s` needs %lld x %lld clusters; kernel `%s` launches %d x %d",
			             gi->name, (long long)wx, (long long)wy, k->k->name, g->cluster[0], g->cluster[1]);
			d->primary.msg = arena_printf(A(k), "`%s` would share tiles with blocks that compute other ones", gi->name);
		}
		if (cp->cluster_y)
			diag_label(d, cp->cluster_sp, "`%s` assumes %lld x %lld blocks per cluster", cp->name,
			           (long long)wx, (long long)wy);
		else
			diag_label(d, cp->cluster_sp, "`%s` assumes %lld blocks per cluster", cp->name, (long long)want);
		if (have > 1)
			diag_label(d, pol, "%d x %d blocks per cluster", g->cluster[0], g->cluster[1]);
		label_origins(k, d, gi, cp->cluster);
		if (cp->cluster_y)
			label_origins(k, d, gi, cp->cluster_y);
		diag_note(d, "a 2 x 1 (4 x 1) cluster's blocks take two (four) tile rows on one tile column, "
		             "a 2 x 2 cluster's two rows by two columns");
		if (!ok && cp->cluster_y)
			diag_help(d, "instantiate `%s` for 2 x 1, 4 x 1 or 2 x 2 clusters", cp->name);
		else if (!ok)
			diag_help(d, "instantiate `%s` for clusters of 2 or 4", cp->name);
		else if (want != have)
			diag_help(d, "launch clusters of %lld blocks (`grid ..., cluster(%lld, %lld)`), or instantiate `%s` for %lld",
			          (long long)want, (long long)wx, (long long)wy, cp->name, (long long)have);
		else
			diag_help(d, "launch `grid ..., cluster(%lld, %lld)`", (long long)wx, (long long)wy);
		diag_end(k->c, d);
	}
	/* A ring shared across blocks is shared by both its ends: a producer
	 * that multicasts needs a consumer that releases in every block. */
	for (int i = 0; i < g->edges.n && k->c->nerrors == errs0; i++) {
		const GEdge *e = g->edges.v[i];
		int64_t wa = wants[e->from->id], wb = wants[e->to->id];
		if (e->kind != EDGE_RING || wa == wb)
			continue;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0350", e->sp,
		                   "the ends of `%s.%s -> %s.%s` assume clusters of %lld and %lld blocks",
		                   e->from->name, e->fp->name, e->to->name, e->tp->name, (long long)wa,
		                   (long long)wb);
		d->primary.msg = "a slot shared across blocks must be released in every block";
		if (e->from->comp->cluster)
			diag_label(d, e->from->comp->cluster_sp, "`%s` assumes %lld", e->from->comp->name, (long long)wa);
		if (e->to->comp->cluster)
			diag_label(d, e->to->comp->cluster_sp, "`%s` assumes %lld", e->to->comp->name, (long long)wb);
		label_origins(k, d, e->from, e->from->comp->cluster);
		label_origins(k, d, e->to, e->to->comp->cluster);
		diag_help(d, "give both components the same cluster constant");
		diag_end(k->c, d);
	}
}

/* ------------------------------------------------------------- lanes
 * `pingpong = N` on a ring: the consumer's role runs as N copies (lanes)
 * on warps of their own; the producer keeps its order and lane L takes
 * work items L, L + N, ... So one lane's epilogue overlaps the next
 * lane's mainloop. Each lane skips the slots of the items the others
 * take, which the contract's `per` counts: it is required. */

/* e, in the terms of instance gi (its cparams and params), rewritten in
 * the kernel's: cparams become numbers, params their bindings. NULL (and
 * *bad set to the name) when a name is neither. */
Expr *kernel_terms(Chk *k, const GInst *gi, const Expr *e, const char **bad)
{
	if (!e)
		return NULL;
	Expr *n = arena_alloc(A(k), sizeof *n);
	*n = *e;
	if (e->k == EX_NAME) {
		const Component *cp = gi->comp;
		for (int i = 0; i < cp->cparams.n; i++)
			if (!strcmp(((const CParam *)cp->cparams.v[i])->name, e->name)) {
				n->k = EX_NUM, n->num = gi->cvals[i], n->name = NULL;
				return n;
			}
		for (int i = 0; i < gi->binds.n; i++) {
			const GBind *b = gi->binds.v[i];
			if (strcmp(b->param, e->name))
				continue;
			if (b->expr)
				return (Expr *)b->expr;   /* already in kernel terms */
			if (b->kparam >= 0 && b->kparam < k->g->kparams.n) {
				const GKParam *kp = k->g->kparams.v[b->kparam];
				if (kp->kind == KP_I32 || kp->kind == KP_I64) {
					n->name = kp->name;
					return n;
				}
			}
		}
		*bad = e->name;
		return NULL;
	}
	if (e->a && !(n->a = kernel_terms(k, gi, e->a, bad)))
		return NULL;
	if (e->b && !(n->b = kernel_terms(k, gi, e->b, bad)))
		return NULL;
	if (e->args.n) {
		n->args = (Vec){ 0 };
		for (int i = 0; i < e->args.n; i++) {
			Expr *x = kernel_terms(k, gi, e->args.v[i], bad);
			if (!x)
				return NULL;
			vec_push(A(k), &n->args, x);
		}
	}
	return n;
}

static void lane_error(Chk *k, const GEdge *e, const char *msg, const char *label, const char *help)
{
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", e->lanes_sp, "%s", msg);
	d->primary.msg = label;
	diag_help(d, "%s", help);
	diag_end(k->c, d);
}

void check_lanes(Chk *k)
{
	Graph *g = k->g;
	for (int i = 0; i < g->edges.n; i++) {
		GEdge *e = g->edges.v[i];
		if (e->lanes < 2 || e->to->role < 0)
			continue;
		GRole *r = g->roles.v[e->to->role];
		if (!g->persistent) {
			lane_error(k, e, "pingpong lanes need a persistent grid", "each block would have one work item for two lanes",
			           "add `grid persistent`: the lanes then take the block's work items in turn");
			continue;
		}
		if (r->lanes > 1) {
			lane_error(k, e, arena_printf(A(k), "the role of `%s` is split into lanes by two rings", e->to->name),
			           "second `pingpong` of the role", "keep `pingpong` on one ring into the role");
			continue;
		}
		const GEdge *other = NULL;
		for (int j = 0; j < g->edges.n && !other; j++) {
			const GEdge *f = g->edges.v[j];
			if (f != e && f->kind == EDGE_RING && (f->from->role == r->id || f->to->role == r->id))
				other = f;
		}
		if (other || e->from->role == r->id) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", e->lanes_sp,
			                   "a role split into pingpong lanes must have this ring as its only ring");
			d->primary.msg = "lanes take work items out of the other rings' order";
			if (other)
				diag_label(d, other->sp, "a ring %s `%s`'s role", other->to->role == r->id ? "into" : "out of",
				           e->to->name);
			diag_help(d, "give the lanes one ring in (their operands) and registers or global memory out");
			diag_end(k->c, d);
			continue;
		}
		const Port *tp = e->tp->decl, *fp = e->fp->decl;
		const GInst *who = tp && tp->per ? e->to : e->from;
		const Port *pp = tp && tp->per ? tp : fp;
		if (!pp || !pp->per) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", e->lanes_sp,
			                   "pingpong needs the slots per work item of `%s.%s`, and its contract does not say",
			                   e->to->name, e->tp->name);
			d->primary.msg = "a lane skips the slots of the items other lanes take";
			if (tp)
				diag_label(d, tp->sp, "no `per COUNT` here");
			diag_help(d, "declare the count on the port, e.g. `in ab: ... per ceil_div(K, BK)`");
			diag_end(k->c, d);
			continue;
		}
		const char *bad = NULL;
		e->per = kernel_terms(k, who, pp->per, &bad);
		if (!e->per) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", pp->per->sp,
			                   "`per` of `%s.%s` names `%s`, which the kernel cannot compute", who->name,
			                   pp->name, bad ? bad : "?");
			d->primary.msg = "not a constant or an integer param of the component";
			diag_label(d, e->lanes_sp, "pingpong needs the count at run time");
			diag_help(d, "write the count over the component's constants and integer params");
			diag_end(k->c, d);
			continue;
		}
		r->lanes = e->lanes;
		r->lane_edge = e;
	}
}

/* ---------------------------------------------------------------- warps
 * A component without warps of its own runs on the warps of its frag's
 * producer: the frag is spread over them, and so is the code that reads
 * it. Its source learns their number from a constant named WARPS (it
 * sizes its share of the frag, its barriers count it), which must be the
 * role's; else the consumer reads registers laid out for another count.
 * And no named barrier can wait for more threads than its role has. */

void check_warps(Chk *k)
{
	const Graph *g = k->g;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		const Component *cp = gi->comp;
		if (!cp || gi->role < 0 || gi->role >= g->roles.n)
			continue;
		const GRole *r = g->roles.v[gi->role];
		const GInst *owner = r->insts.v[0];
		for (int j = 0; j < cp->cparams.n && gi->nwarps == 0; j++) {
			if (strcmp(((const CParam *)cp->cparams.v[j])->name, "WARPS") || gi->cvals[j] == r->nwarps)
				continue;
			int64_t v = 0;
			int found = 0;
			Span at = cparam_origin(k, gi, "WARPS", &v);
			kconst(k, "WARPS", &found);
			const char *how = find_arg(gi->decl, "WARPS") ? "given here" : found ? "the kernel's const" : "its default";
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0357", gi->decl->sp,
			                   "`%s` runs on the %d warps of `%s`, but its WARPS is %lld", gi->name, r->nwarps,
			                   owner->name, (long long)gi->cvals[j]);
			d->primary.msg = arena_printf(A(k), "`%s` has no warps of its own: it runs on `%s`'s", cp->name, owner->name);
			diag_label(d, at, "WARPS = %lld: %s", (long long)gi->cvals[j], how);
			if (owner->comp && owner->comp->warps)
				diag_label(d, owner->decl->sp, "`%s` runs on %d warps", owner->name, r->nwarps);
			diag_note(d, "the frag it consumes is spread over all %d warps; code built for %lld reads it wrongly",
			          r->nwarps, (long long)gi->cvals[j]);
			diag_help(d, "make WARPS %d: `%s(WARPS = %d)`, or a kernel const WARPS that follows the producer's warps",
			          r->nwarps, cp->name, r->nwarps);
			diag_end(k->c, d);
		}
		for (int j = 0; j < gi->bars.n; j++) {
			const GBar *b = gi->bars.v[j];
			if (b->threads <= r->nwarps * 32)
				continue;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0345", b->sp, "barrier `%s` of `%s` waits for %d threads; its role has %d",
			                   b->name, gi->name, b->threads, r->nwarps * 32);
			d->primary.msg = "it can never be passed: the kernel would hang here";
			diag_label(d, gi->decl->sp, "`%s` runs on %d warps", gi->name, r->nwarps);
			diag_help(d, "count only the threads of the role's warps that wait at it");
			diag_end(k->c, d);
		}
	}
}

/* ------------------------------------------------------------ resources */

/* The one phase (0 prologue, 1 mainloop, 2 epilogue) b lives in; -1: several. */
static int buf_phase(const GBuf *b)
{
	for (int q = 0; q < 3; q++)
		if (b->live == 1u << q)
			return q;
	return -1;
}

/* One part of the least shared memory a placement needs: the buffers of
 * one `smem` line (over its instances and lanes), or one ring's stage. */
typedef struct SmemPart {
	Span sp;
	uint64_t bytes;
	int n, lanes;            /* instances of the line; lanes of the first */
	const GInst *gi;
	const GBuf *b;           /* NULL: the ring e */
	const GEdge *e;
} SmemPart;

/* E0336's secondary labels: its largest parts, at each buffer's `smem`
 * line and each ring's connection. Phase mp is the fullest, the only one
 * whose buffers count besides those live throughout. */
static void label_smem_parts(Chk *k, Diag *d, int mp)
{
	const Graph *g = k->g;
	int cap = g->edges.n + 1, n = 0;
	for (int i = 0; i < g->insts.n; i++)
		cap += ((const GInst *)g->insts.v[i])->bufs.n;
	SmemPart *ps = arena_alloc(A(k), (size_t)cap * sizeof *ps);
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		int lanes = inst_lanes(g, gi);
		for (int j = 0; j < gi->bufs.n; j++) {
			const GBuf *b = gi->bufs.v[j];
			int ph = buf_phase(b);
			if (ph >= 0 && ph != mp)
				continue;
			int q = 0;
			while (q < n && !(ps[q].b && span_same(ps[q].sp, b->sp)))
				q++;
			if (q == n)
				ps[n++] = (SmemPart){ b->sp, 0, 0, lanes, gi, b, NULL };
			ps[q].bytes += (uint64_t)b->size * lanes;
			ps[q].n++;
		}
	}
	for (int i = 0; i < g->edges.n; i++) {
		const GEdge *e = g->edges.v[i];
		if (e->kind == EDGE_RING)
			ps[n++] = (SmemPart){ e->sp, (uint64_t)e->slot_bytes + 16u, 1, 1, NULL, NULL, e };
	}
	for (int i = 1; i < n; i++)      /* largest first; stable */
		for (int j = i; j > 0 && ps[j].bytes > ps[j - 1].bytes; j--) {
			SmemPart t = ps[j]; ps[j] = ps[j - 1]; ps[j - 1] = t;
		}
	for (int i = 0; i < n && i < 4; i++) {
		const SmemPart *p = &ps[i];
		if (p->e)
			diag_label(d, p->sp, "%llu bytes: one stage of %u, + 16 of mbarriers",
			           (unsigned long long)p->bytes, p->e->slot_bytes);
		else if (p->n > 1)
			diag_label(d, p->sp, "%llu bytes: `%s` in %d instances", (unsigned long long)p->bytes,
			           p->b->name, p->n);
		else if (p->lanes > 1)
			diag_label(d, p->sp, "%llu bytes: `%s` of `%s`, in each of %d lanes",
			           (unsigned long long)p->bytes, p->b->name, p->gi->name, p->lanes);
		else
			diag_label(d, p->sp, "%llu bytes: `%s` of `%s`", (unsigned long long)p->bytes, p->b->name,
			           p->gi->name);
	}
}

void check_resources(Chk *k)
{
	Graph *g = k->g;
	const ArchInfo *ar = k->arch;
	const Kernel *kn = k->k;

	int warps = 0;
	for (int i = 0; i < g->roles.n; i++)
		warps += ((GRole *)g->roles.v[i])->nwarps * ((GRole *)g->roles.v[i])->lanes;
	if (warps * 32 > ar->max_threads) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0337", kn->name_sp,
		                   "kernel `%s` needs %d threads, above %s's %d per block",
		                   kn->name, warps * 32, ar->name, ar->max_threads);
		d->primary.msg = arena_printf(A(k), "%d warps in %d roles", warps, g->roles.n);
		for (int i = 0; i < g->roles.n; i++) {
			GRole *r = g->roles.v[i];
			GInst *o = r->insts.v[0];
			if (r->lanes > 1)
				diag_note(d, "`%s`: %d lanes x %d warps (%d threads)", o->name, r->lanes, r->nwarps,
				          r->lanes * r->nwarps * 32);
			else
				diag_note(d, "`%s`: %d warps (%d threads)", o->name, r->nwarps, r->nwarps * 32);
		}
		diag_help(d, "remove %d warps", warps - ar->max_threads / 32);
		diag_end(k->c, d);
	}

	int anyregs = 0;
	int64_t regs = 0;
	for (int i = 0; i < g->roles.n; i++) {
		GRole *r = g->roles.v[i];
		anyregs |= r->regs != 0;
		regs += (int64_t)(r->regs ? r->regs : PLK_SETMAXNREG_MIN) * r->nwarps * 32 * r->lanes;
	}
	if (anyregs && regs > ar->regs_per_sm) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0338", kn->name_sp,
		                   "the register budgets of kernel `%s` need %lld registers, above %s's %d",
		                   kn->name, (long long)regs, ar->name, ar->regs_per_sm);
		d->primary.msg = "setmaxnreg budgets can never fit the register file";
		for (int i = 0; i < g->roles.n; i++) {
			GRole *r = g->roles.v[i];
			GInst *o = r->insts.v[0];
			diag_note(d, "`%s`: %d warps x 32 x %d registers%s = %d", o->name, r->nwarps * r->lanes,
			          r->regs ? r->regs : PLK_SETMAXNREG_MIN, r->regs ? "" : " (at least)",
			          (r->regs ? r->regs : PLK_SETMAXNREG_MIN) * r->nwarps * r->lanes * 32);
		}
		diag_help(d, "over by %lld registers: lower the budgets or use fewer warps",
		          (long long)(regs - ar->regs_per_sm));
		diag_end(k->c, d);
	}

	/* Named barriers are counted by the placement, which assigns them (E0402). */

	/* shared memory, the least any placement needs: buffers live in every
	 * phase, plus the fullest single phase (phases never overlap, so their
	 * buffers may share space), plus each ring at one stage with its two
	 * mbarriers. Padding is left out: a lower bound. A ring whose fixed
	 * depth does not fit is the placement's to explain (E0402), with the
	 * depth that would. */
	uint64_t always = 0, phase[3] = { 0, 0, 0 };
	for (int i = 0; i < g->insts.n; i++) {
		GInst *gi = g->insts.v[i];
		for (int j = 0; j < gi->bufs.n; j++) {
			GBuf *b = gi->bufs.v[j];
			int ph = buf_phase(b);
			int lanes = gi->role >= 0 ? ((GRole *)g->roles.v[gi->role])->lanes : 1;
			*(ph < 0 ? &always : &phase[ph]) += (uint64_t)b->size * lanes;
		}
	}
	int mp = phase[0] >= phase[1] ? (phase[0] >= phase[2] ? 0 : 2) : (phase[1] >= phase[2] ? 1 : 2);
	uint64_t total = always + phase[mp];
	for (int i = 0; i < g->edges.n; i++) {
		GEdge *e = g->edges.v[i];
		if (e->kind == EDGE_RING)
			total += (uint64_t)e->slot_bytes + 16u;
	}
	if (total > ar->smem_per_block) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0336", kn->name_sp,
		                   "kernel `%s` needs at least %llu bytes of shared memory, above %s's %u",
		                   kn->name, (unsigned long long)total, ar->name, ar->smem_per_block);
		d->primary.msg = arena_printf(A(k), "over by %llu bytes",
		                              (unsigned long long)(total - ar->smem_per_block));
		label_smem_parts(k, d, mp);
		/* the sum the labels are the largest parts of */
		uint64_t rings = total - always - phase[mp];
		int nrings = 0;
		for (int i = 0; i < g->edges.n; i++)
			nrings += ((GEdge *)g->edges.v[i])->kind == EDGE_RING;
		const char *sum = always ? arena_printf(A(k), "%llu bytes of buffers live throughout",
		                                        (unsigned long long)always) : "";
		if (phase[mp])
			sum = arena_printf(A(k), "%s%s%llu bytes of buffers live in the %s (the fullest phase)", sum,
			                   *sum ? ", " : "", (unsigned long long)phase[mp], live_name(1u << mp));
		if (nrings)
			sum = arena_printf(A(k), "%s%s%llu bytes of %d ring%s at one stage, with %s mbarriers", sum,
			                   *sum ? ", " : "", (unsigned long long)rings, nrings, nrings == 1 ? "" : "s",
			                   nrings == 1 ? "its" : "their");
		diag_note(d, "at least: %s", sum);
		diag_help(d, "use smaller tiles or smaller buffers");
		diag_end(k->c, d);
	}
}

/* ----------------------------------------------------------- names
 * Not a check: every expression the kernel computes at run time, and
 * the recipe's tensor sizes and `require`s that the manifest prints,
 * each name in them resolved once (graph_resolve: a kernel parameter's
 * index or a const's), so that the glue, the monolith and the manifest
 * read Expr.ref and never look a name up again. */
void resolve_names(Chk *k)
{
	Graph *g = k->g;
	for (int i = 0; i < g->k->requires.n; i++) {
		const Require *r = g->k->requires.v[i];
		Require *n = arena_alloc(A(k), sizeof *n);
		*n = *r;
		n->lhs = graph_resolve(A(k), g, r->lhs);
		n->rhs = graph_resolve(A(k), g, r->rhs);
		n->set = (Vec){ 0 };
		for (int j = 0; j < r->set.n; j++)
			vec_push(A(k), &n->set, graph_resolve(A(k), g, r->set.v[j]));
		vec_push(A(k), &g->requires, n);
	}
	for (int i = 0; i < g->k->params.n; i++) {
		const KParam *kp = g->k->params.v[i];
		if (!kp->ty || kp->ty->k != TY_TENSOR)
			continue;
		for (int j = 0; j < kp->ty->dims.n; j++)
			vec_push(A(k), &g->tensor_dims, graph_resolve(A(k), g, kp->ty->dims.v[j]));
	}
	Expr **fields[] = { &g->tiles[0], &g->tiles[1], &g->split, &g->split_per, &g->ws_bytes, &g->ws_zero };
	for (size_t i = 0; i < sizeof fields / sizeof *fields; i++)
		*fields[i] = graph_resolve(A(k), g, *fields[i]);
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		for (int j = 0; j < gi->binds.n; j++) {
			GBind *b = gi->binds.v[j];
			b->expr = graph_resolve(A(k), g, b->expr);
		}
	}
	for (int i = 0; i < g->edges.n; i++) {
		GEdge *e = g->edges.v[i];
		e->per = graph_resolve(A(k), g, e->per);
	}
}

/* ------------------------------------------------------------ ints
 * The expressions the kernel computes from its scalars in C's int beyond
 * the grid's tiles, split and workspace (which the manifest carries
 * already), each once: every bound param's expression (an `i64` or `u64`
 * param's in long long, any other's in int, the result converted to the
 * param's type), the split ring's `per`, and the most slots a pingpong
 * lane skips at once ((lanes - 1) x per). One over numbers and consts
 * alone (`K = KD`, `n = 3 * 1024 * 1024 * 1024`) is known now, and a step
 * of it past its width would make the kernel compute another number than
 * the recipe says, with no launch to refuse: E0390. The others go into
 * the manifest ("int32", "int64"), and the runtime refuses a shape that
 * takes one past its width instead of launching a silently wrong kernel. */
static int const_only(const Expr *e)
{
	if (!e)
		return 1;
	if (e->k == EX_NAME)
		return e->ref == NAME_CONST;
	for (int i = 0; i < e->args.n; i++)
		if (!const_only(e->args.v[i]))
			return 0;
	return const_only(e->a) && const_only(e->b);
}

/* e, which the kernel computes in C's int of `bits`: checked now when it
 * is known (b: the bind it is the expression of, else a count of the
 * rings), else listed. */
static void add_int(Chk *k, const Expr *e, const GInst *gi, const GBind *b, int bits)
{
	Vec *v = bits == 64 ? &k->g->ints64 : &k->g->ints;
	const char *cint = bits == 64 ? "long long" : "int";
	int64_t val;
	const char *what;
	const Expr *bad;
	if (!e)
		return;
	if (const_only(e)) {
		if (!(bad = expr_past(k->c, e, &k->kscope, bits, &val, &what)))
			return;
		Diag *d;
		if (b) {
			d = diag_new(k->c, DIAG_ERROR, "E0390", bad->sp,
			             "`%s` of `%s` is computed in %d-bit %s, and a step of it is past that", b->param, gi->name,
			             bits, cint);
			diag_label(d, b->decl->sp, "`%s` declared here", b->param);
		} else
			d = diag_new(k->c, DIAG_ERROR, "E0390", bad->sp,
			             "a count of the rings is computed in 32-bit int, and a step of it is past that");
		d->primary.msg = arena_printf(A(k), "this %s; %s", what, int_range(bits));
		if (bits == 64)
			diag_note(d, "the kernel computes an `%s` param's expression in long long from its numbers and consts",
			          b->decl->ty->dtype);
		else
			diag_note(d, "the kernel computes it in int from its numbers and consts%s",
			          b ? " (an `i64` param's in long long)" : "");
		diag_help(d, "keep every step within %d bits", bits);
		diag_end(k->c, d);
		return;
	}
	for (int i = 0; i < v->n; i++)
		if (expr_same(v->v[i], e))
			return;
	vec_push(A(k), v, (void *)e);
}

void check_ints(Chk *k)
{
	Graph *g = k->g;
	int errs0 = k->c->nerrors;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		for (int j = 0; j < gi->binds.n; j++) {
			GBind *b = gi->binds.v[j];
			const Type *t = b->decl ? b->decl->ty : NULL;
			b->bits = t && t->k == TY_SCALAR && scalar_kind(t->dtype) == KP_I64 ? 64 : 32;
			add_int(k, b->expr, gi, b, b->bits);
		}
	}
	if (k->c->nerrors != errs0)
		return;   /* the rings' counts come from the binds: no cascade */
	add_int(k, g->split_per, NULL, NULL, 32);
	for (int i = 0; i < g->edges.n; i++) {
		const GEdge *e = g->edges.v[i];
		if (e->lanes < 2 || !e->per)
			continue;
		if (e->lanes == 2) {   /* one lane's item: per */
			add_int(k, e->per, NULL, NULL, 32);
			continue;
		}
		Expr *n = arena_alloc(A(k), sizeof *n), *skip = arena_alloc(A(k), sizeof *skip);
		n->k = EX_NUM, n->num = e->lanes - 1;
		skip->k = EX_BIN, skip->op = '*', skip->a = n, skip->b = e->per;
		skip->sp = n->sp = e->lanes_sp;
		add_int(k, skip, NULL, NULL, 32);
	}
}
