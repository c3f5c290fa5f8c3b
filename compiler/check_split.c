/* check_split.c: splitting a tile's K among work items (`grid split(S)`).
 *
 * A component that walks a ring's `per` count (K tiles) may declare the
 * port `split`: its entry then takes (k_first, k_count), the share of the
 * count its work item walks. Without a split grid the one share is the
 * whole count. With `grid split(S)` every tile becomes S work items, and
 * a frag out of a split component into one that is not (the mainloop's
 * accumulator into the epilogue) holds one split's partial sums: the
 * glue adds the splits' partials up in global memory (a workspace the
 * runtime allocates) and runs the consumer on the tile's last split only
 * (docs/language.md, "Split"). This rule decides all of it once. */
#include <string.h>
#include "check.h"

static Expr *num(Chk *k, int64_t v)
{
	Expr *e = arena_alloc(A(k), sizeof *e);
	e->k = EX_NUM, e->num = v;
	return e;
}

static Expr *bin(Chk *k, int op, Expr *a, Expr *b)
{
	Expr *e = arena_alloc(A(k), sizeof *e);
	e->k = EX_BIN, e->op = op, e->a = a, e->b = b;
	return e;
}

static Expr *call2(Chk *k, const char *fn, Expr *a, Expr *b)
{
	Expr *e = arena_alloc(A(k), sizeof *e);
	e->k = EX_CALL, e->name = fn, e->fn = builtin_of(fn);
	vec_push(A(k), &e->args, a);
	vec_push(A(k), &e->args, b);
	return e;
}

/* The kernel's workspace param (Graph.ws_bytes, ws_zero set): the runtime
 * allocates it and passes it last. */
static void add_workspace(Chk *k)
{
	GKParam *q = arena_alloc(A(k), sizeof *q);
	q->name = "plk_workspace";
	q->kind = KP_WORKSPACE;
	k->g->ws_kparam = k->g->kparams.n;
	vec_push(A(k), &k->g->kparams, q);
}

static void split_error(Chk *k, Span at, const char *label, const char *help, const char *fmt, const char *arg)
{
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0366", at, fmt, arg);
	d->primary.msg = label;
	diag_help(d, "%s", help);
	diag_end(k->c, d);
}

/* The split ring: both ends `split`, its `per` in kernel terms. */
static int split_ring(Chk *k)
{
	Graph *g = k->g;
	const GEdge *ring = NULL;
	for (int i = 0; i < g->insts.n; i++) {
		GInst *gi = g->insts.v[i];
		const Port *sp = gi->comp ? comp_split_port(gi->comp) : NULL;
		for (int j = 0; sp && j < gi->ports.n; j++)
			if (((const GPort *)gi->ports.v[j])->decl == sp)
				gi->split_port = gi->ports.v[j];
		const GEdge *e = gi->split_port ? gi->split_port->edge : NULL;
		if (!e)
			continue;
		const GPort *other = e->fp == gi->split_port ? e->tp : e->fp;
		if (!other->decl || !other->decl->split) {
			split_error(k, e->sp, "one end walks a share of the count, the other all of it",
			            "declare both ends' ports `split`, or neither",
			            "`%s`: only one end of the ring is `split`", edge_name(A(k), e));
			return -1;
		}
		if (ring && ring != e) {
			split_error(k, e->sp, "second ring with `split` ends",
			            "a kernel divides one count among its splits: keep `split` on one ring",
			            "`%s`: a kernel has one split ring", edge_name(A(k), e));
			return -1;
		}
		if (!ring) {
			const char *bad = NULL;
			g->split_per = kernel_terms(k, gi, gi->split_port->decl->per, &bad);
			if (!g->split_per) {
				split_error(k, gi->split_port->decl->per->sp, "not a constant or an integer param of the component",
				            "write the count over the component's constants and integer params",
				            "`per` of a `split` port names `%s`, which the kernel cannot compute", bad ? bad : "?");
				return -1;
			}
		}
		ring = e;
	}
	if (k->split && !ring) {
		split_error(k, k->split->sp, "no ring here has `split` ends",
		            "a mainloop and its loader declare their ring's port `split` (docs/language.md, \"Split\")",
		            "`split` divides a ring's count, and `%s` has no split ring", g->k->name);
		return -1;
	}
	return 0;
}

/* The frags that carry partial sums, and who reads their total. */
static int reductions(Chk *k)
{
	Graph *g = k->g;
	uint32_t slot = 0;
	for (int i = 0; i < g->edges.n; i++) {
		GEdge *e = g->edges.v[i];
		if (e->kind != EDGE_REGS || !e->from->split_port || e->to->split_port)
			continue;
		const GField *f = e->fp->fields.n ? e->fp->fields.v[0] : NULL;
		if (!f || strcmp(f->dtype, "f32")) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0367", e->sp,
			                   "`%s` carries partial sums of %s, which the split grid cannot add up",
			                   edge_name(A(k), e), f ? f->dtype : "no dtype");
			d->primary.msg = "one split's share of the K loop";
			diag_label(d, k->split->sp, "split here");
			diag_help(d, "the reduction adds f32 accumulators: give the frag dtype f32");
			diag_end(k->c, d);
			return -1;
		}
		/* The reduction holds the frag twice (its sums in registers of
		 * their own, graph.c frag_key): beyond the budget ptxas spills. */
		const GRole *r = e->from->role >= 0 ? k->g->roles.v[e->from->role] : NULL;
		int64_t per_thread = r && r->nwarps ? f->rows * f->cols / (32 * r->nwarps) : 0;
		int budget = r && r->regs ? r->regs : 255;
		if (2 * per_thread + 64 > budget) {
			Diag *d = diag_new(k->c, DIAG_WARNING, NULL, e->sp,
			                   "the split's reduction of `%s` holds 2 x %lld f32 per thread, in %d registers",
			                   edge_name(A(k), e), (long long)per_thread, budget);
			d->primary.msg = "the partial sums and their total, at once";
			diag_note(d, "ptxas spills what does not fit, and the split kernel slows down");
			diag_help(d, "split smaller tiles: at most 64 f32 per thread, e.g. 64 x 128 per warpgroup");
			diag_end(k->c, d);
		}
		e->reduce = 1;
		e->softmax = e->fp->decl && e->fp->decl->merge && !strcmp(e->fp->decl->merge, "softmax");
		e->reduce_id = g->nreduce++;
		e->ws_off = slot;
		slot += (uint32_t)(f->rows * f->cols * 4 + 15) / 16 * 16;
		e->to->after_reduce = 1;
	}
	if (!g->nreduce) {
		split_error(k, k->split->sp, "nothing would add the splits' partial sums",
		            "the split component hands its accumulator to an epilogue that is not `split` (a frag edge)",
		            "`%s` splits K, but no frag leaves a split component", g->k->name);
		return -1;
	}
	/* and, through frags, whatever reads what those read */
	for (int changed = 1; changed;) {
		changed = 0;
		for (int i = 0; i < g->edges.n; i++) {
			const GEdge *e = g->edges.v[i];
			if (e->kind == EDGE_REGS && e->from->after_reduce && !e->to->after_reduce)
				e->to->after_reduce = changed = 1;
		}
	}
	g->ws_slot = slot;
	return 0;
}

void check_split(Chk *k)
{
	Graph *g = k->g;
	g->ws_kparam = -1;
	if (split_ring(k) || !k->split)
		return;
	if (!g->persistent) {
		split_error(k, k->split->sp, "a tile's last split waits for the others",
		            "add `grid persistent`: every block is then resident, so the splits it waits for run",
		            "`split` needs a persistent grid in `%s`", g->k->name);
		return;
	}
	if (g->cluster[0] * g->cluster[1] > 1) {
		split_error(k, k->split->sp, "clustered tiles with split K",
		            "drop the cluster (multicast) from the split kernel",
		            "`split` with a cluster is not supported yet in `%s`", g->k->name);
		return;
	}
	const Expr *n = k->split->args.v[0];
	if (n->k == EX_AUTO) {   /* stream-K: one share per block, no lanes */
		for (int i = 0; i < g->roles.n; i++)
			if (((const GRole *)g->roles.v[i])->lanes > 1) {
				split_error(k, k->split->sp, "each block walks one range of K tiles",
				            "drop `pingpong` from the ring, or give `split` a count",
				            "`split(auto)` with pingpong lanes is not supported in `%s`", g->k->name);
				return;
			}
		if (reductions(k))
			return;
		g->stream = 1;
		g->split = g->split_per;
		/* the workspace: a counter per block and reduction (SMS blocks at
		 * most), to 256 bytes, then a slot per block */
		Expr *sms = arena_alloc(A(k), sizeof *sms);
		sms->k = EX_NAME, sms->name = "SMS";
		g->ws_zero = bin(k, '*', call2(k, "ceil_div", bin(k, '*', sms, num(k, 4 * g->nreduce)), num(k, 256)), num(k, 256));
		g->ws_bytes = bin(k, '+', g->ws_zero, bin(k, '*', sms, num(k, g->ws_slot)));
		add_workspace(k);
		return;
	}
	if ((n->k == EX_NUM && n->num <= 0) || (n->k == EX_NEG && n->a->k == EX_NUM)) {
		split_error(k, n->sp, "each tile needs at least one work item",
		            "write a positive count, or remove `split`", "`split` of a count below one in `%s`",
		            g->k->name);
		return;
	}
	if (reductions(k))
		return;
	/* S as the kernel and the runtime compute it: at least one slot each */
	g->split = call2(k, "max", num(k, 1), call2(k, "min", (Expr *)k->split->args.v[0], g->split_per));
	/* the workspace: the tiles' counters (4 bytes per tile and reduction),
	 * to a 256-byte boundary, then the partials, (S - 1) slots a tile */
	Expr *tiles = bin(k, '*', g->tiles[0], g->tiles[1]);
	g->ws_zero = bin(k, '*', call2(k, "ceil_div", bin(k, '*', tiles, num(k, 4 * g->nreduce)), num(k, 256)), num(k, 256));
	g->ws_bytes = bin(k, '+', g->ws_zero,
	                  bin(k, '*', tiles, bin(k, '*', bin(k, '-', g->split, num(k, 1)), num(k, g->ws_slot))));
	add_workspace(k);
}

/* `grid dynamic`: a block takes its first work item by its index and each
 * next one from a counter in the workspace (atomicAdd + the grid's size)
 * as its first role starts on it; the roles share the items through a
 * ring in shared memory (place.c, glue.c). The block that makes the last
 * fetch of all leaves the counters zero. Causal attention's work items
 * differ in length, and a block that finishes early takes the next longest.
 * Not with a split (its counters are per tile), pingpong lanes (each
 * lane strides through items of its own) or tile pairs of a cluster. */
void check_dynamic(Chk *k)
{
	Graph *g = k->g;
	const Policy *p = k->dynamic;
	if (!p)
		return;
	const char *why = NULL, *help = NULL;
	if (!g->persistent)
		why = "a block takes more work items only in a persistent grid",
		help = "add `grid persistent`";
	else if (k->split)
		why = "a split grid's work items come in a fixed order", help = "keep `split` or `dynamic`, not both";
	else if (g->cluster[0] * g->cluster[1] > 1)
		why = "a cluster's blocks take their tiles together", help = "drop the cluster from the kernel";
	for (int i = 0; !why && i < g->roles.n; i++)
		if (((const GRole *)g->roles.v[i])->lanes > 1)
			why = "pingpong lanes take every other work item of their block",
			help = "drop `pingpong` from the ring";
	if (why) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0347", p->sp, "grid policy `dynamic` does not fit `%s`",
		                   g->k->name);
		d->primary.msg = why;
		diag_help(d, "%s", help);
		diag_end(k->c, d);
		return;
	}
	g->dynamic = 1;
	g->ws_zero = g->ws_bytes = num(k, 256);   /* the next item, the blocks done */
	add_workspace(k);
}
