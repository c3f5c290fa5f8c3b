/* mega_order.c: a megakernel's ops in dataflow order (docs/megakernel.md).
 *
 * An op that reads a tensor (or a slice of one) waits for the op that
 * writes it, whatever their order in the file: E0376 two writers, E0374
 * a read nothing writes, E0382 an `early` op that reads before its wait,
 * E0383 a `zeroed` param bound to the caller's memory, E0373 a cycle. The
 * ops are then put in an order where every op comes after what it waits
 * for, and each op's waits are reduced to the direct ones (those its
 * other waits do not imply): the counters the entry waits on. */
#include <stdlib.h>
#include <string.h>
#include "plk.h"

typedef struct Ord { Ctx *c; MegaPlan *mp; } Ord;

static int overlap(const MUse *a, const MUse *b)
{
	return a->t == b->t && (a->index < 0 || b->index < 0 || a->index == b->index);
}

static const char *use_str(Ord *m, const MUse *u)
{
	return u->index < 0 ? u->t->name : arena_printf(m->c->arena, "%s[%lld]", u->t->name, (long long)u->index);
}

/* E0376: a tensor (or slice) two ops write. */
static int check_writers(Ord *m)
{
	const Vec *ops = &m->mp->ops;
	for (int i = 0; i < ops->n; i++) {
		const MOp *b = ops->v[i];
		for (int u = 0; u < b->uses.n; u++) {
			const MUse *w = b->uses.v[u];
			if (!(w->access & ACC_WRITE))
				continue;
			for (int j = 0; j < i; j++) {
				const MOp *a = ops->v[j];
				for (int v = 0; v < a->uses.n; v++) {
					const MUse *x = a->uses.v[v];
					if (!(x->access & ACC_WRITE) || !overlap(w, x))
						continue;
					Diag *d = diag_new(m->c, DIAG_ERROR, "E0376", w->sp, "ops `%s` and `%s` both write `%s`", a->name,
					                   b->name, use_str(m, w));
					d->primary.msg = arena_printf(m->c->arena, "op `%s` writes `%s` here", b->name, use_str(m, w));
					diag_label(d, x->sp, "op `%s` writes `%s` here", a->name, use_str(m, x));
					diag_note(d, "a tensor has one writer, so that each reader knows which op to wait for");
					diag_help(d, "write a slice each (`T[i]` of a tensor with one more dimension), or a buffer each");
					diag_end(m->c, d);
					return 1;
				}
			}
		}
	}
	return 0;
}

/* E0374: an op reads a buffer (or a slice of one) no op writes. */
static int check_written(Ord *m)
{
	const Vec *ops = &m->mp->ops;
	for (int i = 0; i < ops->n; i++) {
		const MOp *b = ops->v[i];
		for (int u = 0; u < b->uses.n; u++) {
			const MUse *r = b->uses.v[u];
			if (!r->t->buffer || (r->access & ACC_WRITE) || !r->access)
				continue;
			/* every slice it reads has a writer */
			int whole = r->index < 0 && r->t->rank >= 2;   /* every slice of it */
			int64_t n = whole ? r->t->dims[0] : 1, missing = -1;
			int unwritten = 0;
			for (int64_t s = 0; s < n && !unwritten; s++) {
				int64_t want = whole ? s : r->index, found = 0;
				for (int j = 0; j < ops->n && !found; j++) {
					const MOp *a = ops->v[j];
					for (int v = 0; v < a->uses.n && !found; v++) {
						const MUse *w = a->uses.v[v];
						found = a != b && (w->access & ACC_WRITE) && w->t == r->t &&
						        (w->index < 0 || want < 0 || w->index == want);
					}
				}
				if (!found)
					unwritten = 1, missing = want;
			}
			if (!unwritten)
				continue;
			const char *what = !whole ? use_str(m, r)
			                 : arena_printf(m->c->arena, "%s[%lld]", r->t->name, (long long)missing);
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0374", r->sp, "op `%s` reads `%s`, which no op writes", b->name, what);
			d->primary.msg = "read here";
			diag_label(d, r->t->sp, "buffer `%s` declared here", r->t->name);
			diag_note(d, "a buffer holds nothing when the megakernel starts: only what its ops write");
			diag_help(d, "write `%s` in an op, or make `%s` a parameter of megakernel `%s`", what, r->t->name,
			          m->mp->m->name);
			diag_end(m->c, d);
			return 1;
		}
	}
	return 0;
}

/* The use of op b behind its kernel's param `kp` (a tensor's or a pointer's name). */
static const MUse *use_of(const MOp *b, const char *kp)
{
	for (int u = 0; u < b->uses.n; u++)
		if (!strcmp(((const MUse *)b->uses.v[u])->param, kp))
			return b->uses.v[u];
	return NULL;
}

/* The use of op b behind param `param` of its kernel's instance gi, or NULL */
static const MUse *param_use(const MOp *b, const GInst *gi, const char *param)
{
	const Graph *g = b->pl->g;
	for (int k = 0; k < gi->binds.n; k++) {
		const GBind *bd = gi->binds.v[k];
		if (bd->kparam < 0 || strcmp(bd->param, param))
			continue;
		const GKParam *gk = g->kparams.v[bd->kparam];
		return use_of(b, gk->tensor ? gk->tensor : gk->name);
	}
	return NULL;
}

/* An op whose kernel's instances all declare `early` waits inside its main
 * (plk_wait_inputs), so each tensor behind an `early` param must be one
 * no other op writes (E0382): it is read before the wait. */
static int check_early(Ord *m)
{
	const Vec *ops = &m->mp->ops;
	for (int i = 0; i < ops->n; i++) {
		MOp *b = ops->v[i];
		const Graph *g = b->pl->g;
		int all = g->insts.n > 0;
		for (int j = 0; j < g->insts.n; j++)
			all &= ((const GInst *)g->insts.v[j])->comp->early.n > 0;
		if (!all)
			continue;
		b->early = 1;
		for (int j = 0; j < g->insts.n; j++) {
			const GInst *gi = g->insts.v[j];
			for (int e = 0; e < gi->comp->early.n; e++) {
				const Feature *ef = gi->comp->early.v[e];
				const MUse *r = param_use(b, gi, ef->name), *w = NULL;
				const MOp *a = NULL;
				for (int o = 0; r && o < ops->n && !w; o++)
					for (int v = 0; ops->v[o] != b && v < ((const MOp *)ops->v[o])->uses.n && !w; v++) {
						const MUse *x = ((const MOp *)ops->v[o])->uses.v[v];
						if ((x->access & ACC_WRITE) && overlap(r, x))
							w = x, a = ops->v[o];
					}
				if (!w)
					continue;
				Diag *d = diag_new(m->c, DIAG_ERROR, "E0382", r->sp, "op `%s` reads `%s` before it waits, but op `%s` "
				                   "writes it", b->name, use_str(m, r), a->name);
				d->primary.msg = arena_printf(m->c->arena, "read early by `%s` of component `%s`", ef->name,
				                              gi->comp->name);
				diag_label(d, w->sp, "op `%s` writes `%s` here", a->name, use_str(m, w));
				diag_note(d, "component `%s` reads its `early` params before plk_wait_inputs returns, while "
				          "the ops it waits for may still be writing", gi->comp->name);
				diag_help(d, "drop `%s` from `early` in component `%s`, so that it is read after the wait, "
				          "or bind it to a tensor no op writes", ef->name, gi->comp->name);
				diag_end(m->c, d);
				return 1;
			}
		}
	}
	return 0;
}

/* A component's `zeroed` params count: the memory behind them is zero when
 * the megakernel starts and the component leaves it zero. A buffer is
 * zeroed with the workspace (zero_bytes + zeroed_end, docs/megakernel.md);
 * the caller's tensors are not (E0383). */
static int check_zeroed(Ord *m)
{
	const Vec *ops = &m->mp->ops;
	for (int i = 0; i < ops->n; i++) {
		const MOp *b = ops->v[i];
		const Graph *g = b->pl->g;
		for (int j = 0; j < g->insts.n; j++) {
			const GInst *gi = g->insts.v[j];
			for (int e = 0; e < gi->comp->zeroed.n; e++) {
				const Feature *zf = gi->comp->zeroed.v[e];
				const MUse *r = param_use(b, gi, zf->name);
				if (!r)
					continue;
				if (r->t->buffer) {
					((MTensor *)r->t)->zeroed = 1;   /* the plan's own tensor */
					uint64_t end = r->t->off + r->t->bytes;
					if (end > m->mp->zeroed_end)
						m->mp->zeroed_end = end;
					continue;
				}
				Diag *d = diag_new(m->c, DIAG_ERROR, "E0383", r->sp, "op `%s` binds `zeroed` param `%s` to `%s`, "
				                   "a parameter of megakernel `%s`", b->name, zf->name, use_str(m, r), m->mp->m->name);
				d->primary.msg = arena_printf(m->c->arena, "`zeroed` in component `%s`", gi->comp->name);
				diag_label(d, r->t->sp, "declared here, the caller's memory");
				diag_note(d, "component `%s` adds to `%s` and resets it when it is done: it must be zero "
				          "when the megakernel starts, which plkc can promise only for its own buffers",
				          gi->comp->name, zf->name);
				diag_help(d, "declare a buffer for it in the megakernel (`buffer NAME: tensor<%s>[...]`) "
				          "and bind that", r->t->ty->dtype ? r->t->ty->dtype : "u32");
				diag_end(m->c, d);
				return 1;
			}
		}
	}
	return 0;
}

/* b waits for every op that writes what b reads. */
static void make_deps(Ord *m)
{
	const Vec *ops = &m->mp->ops;
	for (int i = 0; i < ops->n; i++) {
		MOp *b = ops->v[i];
		for (int j = 0; j < ops->n; j++) {
			const MOp *a = ops->v[j];
			const MUse *wr = NULL, *rd = NULL;
			for (int u = 0; a != b && u < b->uses.n && !wr; u++)
				for (int v = 0; v < a->uses.n && !wr; v++) {
					const MUse *r = b->uses.v[u], *w = a->uses.v[v];
					if ((r->access & ACC_READ) && (w->access & ACC_WRITE) && overlap(r, w))
						wr = w, rd = r;
				}
			if (!wr)
				continue;
			MDep *d = arena_alloc(m->c->arena, sizeof *d);
			d->from = a;
			d->write = wr;
			d->read = rd;
			d->direct = 1;
			vec_push(m->c->arena, &b->deps, d);
		}
	}
}

/* E0373 for a cycle of waits below op stack[depth] (DFS colours: 0 new,
 * 1 on the path, 2 done); waits[j] is stack[j]'s wait for stack[j + 1]. */
static int find_cycle(Ord *m, const MOp **stack, const MDep **waits, int depth, int *colour)
{
	const MOp *at = stack[depth];
	colour[at->id] = 1;
	for (int i = 0; i < at->deps.n; i++) {
		const MDep *d = at->deps.v[i];
		waits[depth] = d;
		if (colour[d->from->id] == 0) {
			stack[depth + 1] = d->from;
			if (find_cycle(m, stack, waits, depth + 1, colour))
				return 1;
			continue;
		}
		if (colour[d->from->id] != 1)
			continue;
		int s = depth;
		while (stack[s] != d->from)
			s--;
		int len = depth - s + 1;
		Diag *e = len == 1 ? diag_new(m->c, DIAG_ERROR, "E0373", d->read->sp, "op `%s` waits for itself", at->name)
		        : len == 2 ? diag_new(m->c, DIAG_ERROR, "E0373", d->read->sp, "ops `%s` and `%s` wait for each other",
		                              d->from->name, at->name)
		        : diag_new(m->c, DIAG_ERROR, "E0373", d->read->sp, "%d ops wait for each other in a cycle", len);
		e->primary.msg = arena_printf(m->c->arena, "op `%s` reads `%s`, which op `%s` writes", at->name,
		                              use_str(m, d->read), d->from->name);
		for (int j = s; j < depth && e->nsecondary < DIAG_LABELS; j++)
			diag_label(e, waits[j]->read->sp, "op `%s` reads `%s`, which op `%s` writes", stack[j]->name,
			           use_str(m, waits[j]->read), stack[j + 1]->name);
		diag_note(e, "an op starts once the ops whose outputs it reads are done, so none of these can start");
		diag_help(e, "let one of them read a tensor that an op outside the cycle writes");
		diag_end(m->c, e);
		return 1;
	}
	colour[at->id] = 2;
	return 0;
}

/* The ops in schedule order: each after the ops it waits for, else in
 * declaration order; the waits an earlier wait implies marked indirect. */
static int order_ops(Ord *m)
{
	Vec *ops = &m->mp->ops;
	int n = ops->n;
	if (!n)
		return 0;
	for (int i = 0; i < n; i++)
		((MOp *)ops->v[i])->id = i;
	int *colour = arena_alloc(m->c->arena, n * sizeof *colour);
	const MOp **stack = arena_alloc(m->c->arena, (n + 1) * sizeof *stack);
	const MDep **waits = arena_alloc(m->c->arena, (n + 1) * sizeof *waits);
	for (int i = 0; i < n; i++) {
		stack[0] = ops->v[i];
		if (!colour[i] && find_cycle(m, stack, waits, 0, colour))
			return 1;
	}
	/* reach[i * n + j]: op i waits, directly or not, for op j */
	unsigned char *reach = arena_alloc(m->c->arena, (size_t)n * n);
	MOp **out = arena_alloc(m->c->arena, n * sizeof *out);
	int *done = arena_alloc(m->c->arena, n * sizeof *done);
	for (int k = 0; k < n; k++) {
		int pick = -1;
		for (int i = 0; i < n && pick < 0; i++) {
			const MOp *op = ops->v[i];
			int ready = !done[i];
			for (int d = 0; ready && d < op->deps.n; d++)
				ready = done[((const MDep *)op->deps.v[d])->from->id];
			if (ready)
				pick = i;
		}
		MOp *op = ops->v[pick];
		done[pick] = 1;
		out[k] = op;
		for (int d = 0; d < op->deps.n; d++) {
			int j = ((const MDep *)op->deps.v[d])->from->id;
			reach[pick * n + j] = 1;
			for (int x = 0; x < n; x++)
				reach[pick * n + x] |= reach[j * n + x];
		}
		for (int d = 0; d < op->deps.n; d++) {
			MDep *dd = op->deps.v[d];
			for (int e = 0; e < op->deps.n && dd->direct; e++) {
				const MDep *other = op->deps.v[e];
				if (other != dd && reach[other->from->id * n + dd->from->id])
					dd->direct = 0;
			}
		}
	}
	for (int k = 0; k < n; k++) {
		ops->v[k] = out[k];
		out[k]->id = k;      /* its counter: the schedule's index */
	}
	return 0;
}

int mega_order(Ctx *c, MegaPlan *mp)
{
	Ord st = { c, mp }, *m = &st;
	if (check_writers(m) || check_written(m) || check_early(m) || check_zeroed(m))
		return 1;
	make_deps(m);
	if (order_ops(m))
		return 1;
	for (int i = 0; i < mp->ops.n; i++) {
		MOp *op = mp->ops.v[i];
		for (int d = 0; d < op->deps.n; d++)
			op->waits += ((const MDep *)op->deps.v[d])->direct;
		int slots = op->waits > 1 ? op->waits : 1;
		if (op->early && slots > mp->early_slots)
			mp->early_slots = slots;
	}
	return 0;
}
