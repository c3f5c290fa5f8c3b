/* place.c: one joint placement of an SM's resources for a checked graph.
 *
 * Decided together, for one arch (docs/placement.md):
 *   warps    roles laid out in warp order; warpgroup-aligned roles take
 *            whole warpgroups, the narrow ones (producers) are packed into
 *            the warpgroups in front, one setmaxnreg budget per warpgroup;
 *   regs     the budgets must fit the register file at one block per SM;
 *   barriers named barrier ids 1..N-1 (0 is __syncthreads);
 *   smem     ring stages (auto rings: deepest that fits, mainloop first),
 *            then offsets by first fit over lifetimes, mbarriers last.
 * Objective: deepest pipeline, then least shared memory. Everything is a
 * pure function of the graph: ties break by declaration order. */
#include <stdlib.h>
#include <string.h>
#include "plk.h"

enum {
	AUTO_MAX_STAGES = 8,   /* deeper rings hide no more latency, only cost smem */
	MIN_ALIGN = 128,       /* every buffer and slot: TMA and vector access */
	WG_WARPS = PLK_WARPGROUP_WARPS,
	REGS_MIN = PLK_SETMAXNREG_MIN, REGS_MAX = PLK_SETMAXNREG_MAX, REGS_STEP = PLK_SETMAXNREG_STEP,
};

typedef struct Item {       /* one shared-memory region to lay out */
	uint64_t size, off;
	uint32_t align;
	unsigned live;
	int ring;               /* 1: a ring (index into rings), 0: a buffer */
	int idx;
} Item;

typedef struct Solve {
	Ctx *c;
	const Graph *g;
	Placement *p;
	Item *items;
	int nitems;
	Item **order;
} Solve;

static uint64_t round_up(uint64_t x, uint64_t a) { return a ? (x + a - 1) / a * a : x; }
static uint32_t max_u32(uint32_t a, uint32_t b) { return a > b ? a : b; }

static const char *fmt_bytes(Arena *a, uint64_t n)
{
	if (n && n % 1024 == 0)
		return arena_printf(a, "%llu KiB", (unsigned long long)(n / 1024));
	if (n >= 10240)
		return arena_printf(a, "%llu bytes (%.1f KiB)", (unsigned long long)n, n / 1024.0);
	return arena_printf(a, "%llu bytes", (unsigned long long)n);
}

static Span inst_span(const GInst *i) { return i->decl ? i->decl->sp : span_none; }

static const GRole *role_of(const Graph *g, const GInst *i)
{
	return i->role >= 0 && i->role < g->roles.n ? g->roles.v[i->role] : NULL;
}

static int inst_warps(const Graph *g, const GInst *i)
{
	const GRole *r = role_of(g, i);
	return i->nwarps ? i->nwarps : r ? r->nwarps : 0;
}

/* ------------------------------------------------------------- warps */

static int role_wide(const GRole *r)
{
	return (r->warpgroup_aligned && r->nwarps >= WG_WARPS) || r->nwarps > WG_WARPS;
}

long placement_regs_total(const Placement *p)
{
	long t = 0;
	for (int j = 0; j < p->nwarpgroups; j++)
		t += 128L * (p->wg_regs[j] ? p->wg_regs[j] : p->entry_regs);
	return t;
}

long placement_regs_pool(const Placement *p)
{
	return (long)p->threads * p->entry_regs;
}

/* Warp ranges and per-warpgroup budgets; returns non-zero on errors. */
static int place_warps(Solve *S)
{
	Ctx *c = S->c;
	const Graph *g = S->g;
	const ArchInfo *arch = g->arch;
	Placement *p = S->p;
	/* one PRole per lane: every role's lane 0 (in role order), then the
	 * other lanes of the laned roles, laid out after them */
	int nr = 0, aligned = 0, bad = 0;
	for (int i = 0; i < g->roles.n; i++)   /* lanes 0 reads as 1 */
		nr += ((const GRole *)g->roles.v[i])->lanes > 1 ? ((const GRole *)g->roles.v[i])->lanes : 1;
	PRole *pr = arena_alloc(c->arena, sizeof *pr * (nr ? nr : 1));
	for (int i = 0, k = g->roles.n; i < g->roles.n; i++) {
		const GRole *r = g->roles.v[i];
		pr[i].role = r;
		pr[i].nwarps = r->nwarps;
		for (int l = 1; l < r->lanes; l++, k++)
			pr[k] = (PRole){ .role = r, .nwarps = r->nwarps, .lane = l };
	}

	for (int i = 0; i < g->roles.n; i++) {
		const GRole *r = g->roles.v[i];
		aligned |= r->warpgroup_aligned;
		if (!r->regs)
			continue;
		const GInst *who = r->insts.n ? r->insts.v[0] : NULL;
		Span sp = who ? inst_span(who) : kernel_span(g);
		const char *rn = role_name(c->arena, r);
		if (!(arch->features & FEAT_SETMAXNREG)) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0405", sp,
					   "register budget of `%s` needs setmaxnreg, which %s lacks", rn, arch->name);
			diag_label(d, sp, "asks for %d registers per thread", r->regs);
			diag_help(d, "drop `regs` from the component, or target an arch with setmaxnreg (sm_90a, sm_100a)");
			diag_end(c, d);
			bad = 1;
		} else if (r->regs % REGS_STEP || r->regs < REGS_MIN || r->regs > REGS_MAX) {
			int fix = r->regs < REGS_MIN ? REGS_MIN : r->regs > REGS_MAX ? REGS_MAX :
				r->regs / REGS_STEP * REGS_STEP;
			Diag *d = diag_new(c, DIAG_ERROR, "E0405", sp,
					   "register budget %d of `%s` is not a setmaxnreg count", r->regs, rn);
			diag_label(d, sp, "asks for %d registers per thread", r->regs);
			diag_note(d, "setmaxnreg takes a multiple of %d in [%d, %d]", REGS_STEP, REGS_MIN, REGS_MAX);
			diag_help(d, "use regs %d", fix);
			diag_end(c, d);
			bad = 1;
		}
	}

	/* Narrow roles first (the producer warpgroups), in role order, each
	 * into the first warpgroup with room whose budget agrees; then each
	 * wide role on whole warpgroups. */
	int w = 0, nwg = 0, cap = 1;
	for (int i = 0; i < nr; i++)
		cap += (pr[i].nwarps + WG_WARPS - 1) / WG_WARPS + 1;
	int *wg = arena_alloc(c->arena, sizeof *wg * cap);
	int *used = arena_alloc(c->arena, sizeof *used * cap);
	if (aligned) {
		for (int i = 0; i < nr; i++) {
			const GRole *r = pr[i].role;
			if (role_wide(r) || !r->nwarps)
				continue;
			int j = 0;
			while (j < nwg && (used[j] + r->nwarps > WG_WARPS ||
					   (r->regs && wg[j] && wg[j] != r->regs)))
				j++;
			if (j == nwg)
				wg[nwg] = 0, used[nwg++] = 0;
			pr[i].first_warp = j * WG_WARPS + used[j];
			used[j] += r->nwarps;
			if (r->regs)
				wg[j] = r->regs;
		}
		for (int i = 0; i < nr; i++) {
			const GRole *r = pr[i].role;
			if (!role_wide(r))
				continue;
			pr[i].first_warp = nwg * WG_WARPS;
			for (int k = (r->nwarps + WG_WARPS - 1) / WG_WARPS; k > 0; k--)
				wg[nwg++] = r->regs;
		}
		w = nwg * WG_WARPS;
	} else {
		for (int i = 0; i < nr; i++) {
			pr[i].first_warp = w;
			w += pr[i].nwarps;
		}
	}
	p->nwarps = w;
	p->threads = w * 32;
	p->nwarpgroups = aligned ? nwg : 0;
	p->wg_regs = wg;
	int per = p->threads ? arch->regs_per_sm / p->threads : arch->regs_per_thread_max;
	if (per > arch->regs_per_thread_max)
		per = arch->regs_per_thread_max;
	p->entry_regs = per / REGS_STEP * REGS_STEP;
	for (int i = 0; i < nr; i++) {
		pr[i].regs = p->entry_regs;
		if (aligned && pr[i].nwarps) {
			int b = wg[pr[i].first_warp / WG_WARPS];
			if (b)
				pr[i].regs = b;
		}
		vec_push(c->arena, &p->roles, &pr[i]);
	}

	if (p->threads > arch->max_threads) {
		int over = p->threads - arch->max_threads, big = -1;
		for (int i = 0; i < nr; i++)
			if (big < 0 || pr[i].nwarps > pr[big].nwarps)
				big = i;
		Diag *d = diag_new(c, DIAG_ERROR, "E0404", kernel_span(g),
				   "block of %d threads is over the %s limit of %d by %d",
				   p->threads, arch->name, arch->max_threads, over);
		diag_label(d, kernel_span(g), "%d warps%s", p->nwarps,
			   p->nwarpgroups ? arena_printf(c->arena, " in %d warpgroups", p->nwarpgroups) : "");
		const char *sh = "";
		for (int i = 0; i < nr; i++)
			sh = arena_printf(c->arena, "%s%s%s %d warp%s at %d", sh, i ? ", " : "",
					  role_name(c->arena, pr[i].role), pr[i].nwarps,
					  pr[i].nwarps == 1 ? "" : "s", pr[i].first_warp);
		diag_note(d, "warps by role: %s%s", sh,
			  p->nwarpgroups ? " (roles that use wgmma or setmaxnreg take whole warpgroups)" : "");
		if (big >= 0) {
			const GRole *r = pr[big].role;
			int step = role_wide(r) && r->warpgroup_aligned ? WG_WARPS : 1;
			int less = ((over + 31) / 32 + step - 1) / step * step;
			if (less < r->nwarps) {
				if (step == WG_WARPS)
					diag_help(d, "`%s` with %d warpgroups instead of %d would fit",
						  role_name(c->arena, r), (r->nwarps - less) / WG_WARPS,
						  (r->nwarps + WG_WARPS - 1) / WG_WARPS);
				else
					diag_help(d, "`%s` with %d warps instead of %d would fit",
						  role_name(c->arena, r), r->nwarps - less, r->nwarps);
			}
		}
		diag_end(c, d);
		return 1;
	}
	if (bad || !p->nwarpgroups)
		return bad;

	/* Registers: each warpgroup holds 128 threads x its budget (or the
	 * entry cap). setmaxnreg moves registers only inside the block's own
	 * pool, what it got at launch (threads x entry cap), so the budgets
	 * must fit that: over-subscription makes setmaxnreg.inc wait forever. */
	long total = placement_regs_total(p), pool = placement_regs_pool(p);
	if (total <= pool)
		return 0;
	long over = total - pool;
	Diag *d = diag_new(c, DIAG_ERROR, "E0403", kernel_span(g),
			   "register split over-subscribes the block's registers by %ld", over);
	const char *sh = "";
	int big = -1;
	long bigshare = 0;
	for (int j = 0; j < nwg; j++) {
		const char *who = "";
		int k = 1, regs = wg[j] ? wg[j] : p->entry_regs;
		for (int i = 0; i < nr; i++) {
			const GRole *r = pr[i].role;
			if (!r->nwarps || pr[i].first_warp / WG_WARPS != j)
				continue;
			who = arena_printf(c->arena, "%s%s%s", who, *who ? "+" : "", role_name(c->arena, r));
			if (role_wide(r)) {
				k = (r->nwarps + WG_WARPS - 1) / WG_WARPS;
				if (r->regs && 128L * k * regs > bigshare)
					big = i, bigshare = 128L * k * regs;
			}
		}
		const char *wgs = k > 1 ? arena_printf(c->arena, "warpgroups %d-%d", j, j + k - 1) :
			arena_printf(c->arena, "warpgroup %d", j);
		sh = arena_printf(c->arena, "%s%s%s (%s) %d x %d = %ld", sh, *sh ? ", " : "", wgs,
				  *who ? who : "idle", 128 * k, regs, 128L * k * regs);
		j += k - 1;
	}
	diag_label(d, kernel_span(g), "needs %ld of the %ld registers it gets at launch", total, pool);
	for (int i = 0; i < nr && d->nsecondary < 4; i++)
		if (pr[i].role->regs && pr[i].role->insts.n && !pr[i].lane)
			diag_label(d, inst_span(pr[i].role->insts.v[0]), "%d warps at %d registers",
				   pr[i].nwarps, pr[i].regs);
	diag_note(d, "registers by warpgroup: %s; total %ld > %d threads x %d (the entry cap)", sh, total,
		  p->threads, p->entry_regs);
	diag_note(d, "setmaxnreg.inc takes registers only from those the block's other warpgroups gave back "
		  "(setmaxnreg.dec): a split over the block's registers hangs");
	/* warpgroups at the entry cap first: a forgotten budget is the usual cause */
	for (int j = 0; j < nwg && d->nhelps < 2; j++) {
		if (wg[j])
			continue;
		const char *who = "";
		for (int i = 0; i < nr; i++)
			if (pr[i].nwarps && pr[i].first_warp / WG_WARPS == j)
				who = arena_printf(c->arena, "%s%s`%s`", who, *who ? " and " : "",
						   role_name(c->arena, pr[i].role));
		long rest = total - 128L * p->entry_regs;
		int fit = (int)((pool - rest) / 128L) / REGS_STEP * REGS_STEP;
		if (fit > REGS_MAX)
			fit = REGS_MAX;
		if (*who && fit >= REGS_MIN && fit < p->entry_regs)
			diag_help(d, "warpgroup %d (%s) keeps the entry cap of %d: a budget of `regs %d` there would fit",
				  j, who, p->entry_regs, fit);
	}
	if (big >= 0) {
		const GRole *r = pr[big].role;   /* every lane of it has the budget */
		int k = (r->nwarps + WG_WARPS - 1) / WG_WARPS * (r->lanes > 1 ? r->lanes : 1);
		long rest = total - 128L * k * r->regs;
		int fit = (int)((pool - rest) / (128L * k)) / REGS_STEP * REGS_STEP;
		if (fit >= REGS_MIN)
			diag_help(d, "regs of `%s` from %d to %d would fit (%ld registers)",
				  r->insts.n ? ((GInst *)r->insts.v[0])->name : role_name(c->arena, r),
				  r->regs, fit, rest + 128L * k * fit);
	}
	diag_end(c, d);
	return 1;
}

/* --------------------------------------------------------- barriers */

static int place_bars(Solve *S)
{
	Ctx *c = S->c;
	const Graph *g = S->g;
	Placement *p = S->p;
	int ids = g->arch->named_barriers > 1 ? g->arch->named_barriers - 1 : 15;
	int next = 1;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		for (int l = 0; l < inst_lanes(g, in); l++)
			for (int j = 0; j < in->bars.n; j++) {
				const GBar *b = in->bars.v[j];
				PBar *pb = arena_alloc(c->arena, sizeof *pb);
				pb->inst = in;
				pb->bar = b;
				pb->id = next++;
				pb->threads = b->threads ? b->threads : inst_warps(g, in) * 32;
				pb->lane = l;
				vec_push(c->arena, &p->bars, pb);
			}
	}
	int need = next - 1;
	if (need <= ids)
		return 0;
	const PBar *first_over = p->bars.v[ids];
	Diag *d = diag_new(c, DIAG_ERROR, "E0402", first_over->bar->sp,
			   "named barriers: %d needed, %s has %d (ids 1..%d; 0 is __syncthreads)",
			   need, g->arch->name, ids, ids);
	diag_label(d, first_over->bar->sp, "barrier %d of %d does not get an id", ids + 1, need);
	const char *sh = "";
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		if (in->bars.n)
			sh = arena_printf(c->arena, "%s%s%s %d", sh, *sh ? ", " : "", in->name,
					  in->bars.n * inst_lanes(g, in));
	}
	diag_note(d, "barriers by component: %s", sh);
	diag_help(d, "%d fewer barrier%s would fit: components on the same warps can share one",
		  need - ids, need - ids == 1 ? "" : "s");
	diag_end(c, d);
	return 1;
}

/* ------------------------------------------------------ shared memory */

static void ring_slot(Solve *S, PRing *r)
{
	const GEdge *e = r->edge;
	const GPort *pt = e->fp ? e->fp : e->tp;
	uint64_t end = 0;
	uint32_t align = MIN_ALIGN;
	int nf = pt ? pt->fields.n : 0;
	r->nfields = nf;
	r->field_off = arena_alloc(S->c->arena, sizeof *r->field_off * (nf ? nf : 1));
	for (int i = 0; i < nf; i++) {
		const GField *f = pt->fields.v[i];
		uint32_t a = max_u32(f->align, MIN_ALIGN);
		end = round_up(end, a);
		r->field_off[i] = (uint32_t)end;
		end += f->bytes;
		align = max_u32(align, a);
	}
	if (end < e->slot_bytes)
		end = e->slot_bytes;
	r->slot_bytes = (uint32_t)end;
	r->slot_align = align;
	r->slot_stride = (uint32_t)round_up(end, align);
}

static int item_cmp(const void *a, const void *b)
{
	const Item *x = *(Item *const *)a, *y = *(Item *const *)b;
	if (x->align != y->align)
		return x->align > y->align ? -1 : 1;
	if (x->size != y->size)
		return x->size > y->size ? -1 : 1;
	if (x->ring != y->ring)
		return x->ring ? -1 : 1;
	return x->idx - y->idx;
}

/* First fit in (alignment, size) order: each region takes the lowest
 * aligned offset free of every region it is live together with. Returns
 * the bytes in use, the mbarrier region included. */
static uint64_t layout(Solve *S)
{
	Placement *p = S->p;
	int n = S->nitems;
	uint64_t nbar = 0;
	for (int i = 0; i < n; i++) {
		Item *it = &S->items[i];
		if (it->ring) {
			const PRing *r = p->rings.v[it->idx];
			it->size = (uint64_t)r->slot_stride * r->stages;
			nbar += 2 * (uint64_t)r->stages;
		}
		S->order[i] = it;
	}
	for (int i = 0; i < S->g->roles.n; i++)   /* the lanes' turns */
		if (((const GRole *)S->g->roles.v[i])->lanes > 1)
			nbar += ((const GRole *)S->g->roles.v[i])->lanes;
	if (S->g->dynamic)   /* the work items' slots, full and empty */
		nbar += 3 * PLK_ITEM_SLOTS;
	qsort(S->order, n, sizeof *S->order, item_cmp);
	uint64_t end = 0;
	for (int i = 0; i < n; i++) {
		Item *it = S->order[i];
		uint64_t off = 0;
		if (it->size) {
			for (int moved = 1; moved;) {
				moved = 0;
				for (int j = 0; j < i; j++) {
					const Item *o = S->order[j];
					if (!(o->live & it->live) || !o->size)
						continue;
					if (off < o->off + o->size && o->off < off + it->size) {
						off = round_up(o->off + o->size, it->align);
						moved = 1;
					}
				}
			}
		}
		it->off = off;
		if (off + it->size > end)
			end = off + it->size;
	}
	uint64_t bars = round_up(end, MBAR_BYTES);
	p->bar_off = (uint32_t)bars;
	return bars + nbar * MBAR_BYTES;
}

/* Auto rings by priority: the mainloop's operand ring (its consumer uses
 * wgmma/tcgen05, then the widest consumer role) first. */
static int ring_prio(const Graph *g, const PRing *r)
{
	const GInst *to = r->edge->to;
	const GRole *ro = role_of(g, to);
	int mma = (to->features & (FEAT_WGMMA | FEAT_TCGEN05 | FEAT_MMA_SYNC)) != 0;
	return mma * 4096 + (ro ? ro->nwarps : to->nwarps);
}

static void smem_over(Solve *S, uint64_t need, uint64_t limit)
{
	Ctx *c = S->c;
	Arena *a = c->arena;
	const Graph *g = S->g;
	Placement *p = S->p;
	uint64_t over = need - limit;
	Diag *d = diag_new(c, DIAG_ERROR, "E0401", kernel_span(g),
			   "shared memory: %s needed, %s allows %s: over by %s",
			   fmt_bytes(a, need), g->arch->name, fmt_bytes(a, limit), fmt_bytes(a, over));
	diag_label(d, kernel_span(g), "needs %llu bytes of dynamic shared memory", (unsigned long long)need);
	/* the largest rings as labels */
	int shown[4], ns = 0;
	for (int k = 0; k < 4; k++) {
		int best = -1;
		for (int i = 0; i < p->rings.n; i++) {
			int dup = 0;
			for (int j = 0; j < ns; j++)
				dup |= shown[j] == i;
			const PRing *r = p->rings.v[i];
			if (!dup && (best < 0 || (uint64_t)r->slot_stride * r->stages >
				     (uint64_t)((PRing *)p->rings.v[best])->slot_stride *
				     ((PRing *)p->rings.v[best])->stages))
				best = i;
		}
		if (best < 0)
			break;
		shown[ns++] = best;
		const PRing *r = p->rings.v[best];
		diag_label(d, r->edge->sp, "%d stage%s x %s%s", r->stages, r->stages == 1 ? "" : "s",
			   fmt_bytes(a, r->slot_stride), r->auto_stages ? " (auto, at its minimum)" : "");
	}
	const char *sh = "";
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		uint64_t own = 0;
		for (int j = 0; j < p->bufs.n; j++) {
			const PBuf *b = p->bufs.v[j];
			if (b->inst == in)
				own += b->size;
		}
		sh = arena_printf(a, "%s%s%s %s", sh, *sh ? ", " : "", in->name, fmt_bytes(a, own));
	}
	for (int i = 0; i < p->rings.n; i++) {
		const PRing *r = p->rings.v[i];
		sh = arena_printf(a, "%s%sring %s %d x %s", sh, *sh ? ", " : "", edge_name(a, r->edge),
				  r->stages, fmt_bytes(a, r->slot_stride));
	}
	uint64_t nb = 0;
	for (int i = 0; i < p->rings.n; i++)
		nb += 2 * (uint64_t)((PRing *)p->rings.v[i])->stages;
	sh = arena_printf(a, "%s%smbarriers %s", sh, *sh ? ", " : "", fmt_bytes(a, nb * MBAR_BYTES));
	diag_note(d, "shares: %s (buffers with disjoint `live` phases already share space)", sh);

	/* help: the ring whose depth needs to drop least (then the widest slot) */
	int best = -1, best_to = 0;
	uint64_t best_free = 0, best_slots = 0;
	for (int i = 0; i < p->rings.n; i++) {
		PRing *r = p->rings.v[i];
		int keep = r->stages;
		for (int s = keep - 1; s >= 1; s--) {
			r->stages = s;
			uint64_t t = layout(S);
			if (t <= limit) {
				if (best < 0 || keep - s < r->stages - best_to ||
				    (keep - s == ((PRing *)p->rings.v[best])->stages - best_to &&
				     r->slot_stride > ((PRing *)p->rings.v[best])->slot_stride))
					best = i, best_to = s, best_free = need - t,
					best_slots = (uint64_t)(keep - s) * r->slot_stride;
				break;
			}
		}
		r->stages = keep;
	}
	if (best >= 0) {
		const PRing *r = p->rings.v[best];
		uint64_t bars = (uint64_t)(r->stages - best_to) * 2 * MBAR_BYTES;
		if (best_free == best_slots + bars)
			diag_help(d, "stages of %s from %d to %d would free %s and %llu bytes of mbarriers",
				  edge_name(a, r->edge), r->stages, best_to, fmt_bytes(a, best_slots),
				  (unsigned long long)bars);
		else
			diag_help(d, "stages of %s from %d to %d would free %s", edge_name(a, r->edge),
				  r->stages, best_to, fmt_bytes(a, best_free));
	} else {
		diag_help(d, "no ring depth alone makes it fit: smaller tiles or buffers must free %s",
			  fmt_bytes(a, over));
	}
	diag_end(c, d);
}

static int place_smem(Solve *S)
{
	Ctx *c = S->c;
	const Graph *g = S->g;
	Placement *p = S->p;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		for (int l = 0; l < inst_lanes(g, in); l++)
			for (int j = 0; j < in->bufs.n; j++) {
				const GBuf *b = in->bufs.v[j];
				PBuf *pb = arena_alloc(c->arena, sizeof *pb);
				pb->inst = in;
				pb->buf = b;
				pb->size = b->size;
				pb->align = max_u32(b->align, MIN_ALIGN);
				pb->live = b->live;
				pb->lane = l;
				vec_push(c->arena, &p->bufs, pb);
			}
	}
	for (int i = 0; i < g->edges.n; i++) {
		const GEdge *e = g->edges.v[i];
		if (e->kind != EDGE_RING)
			continue;
		PRing *r = arena_alloc(c->arena, sizeof *r);
		r->edge = e;
		r->stages = e->stages > 0 ? e->stages : 1;
		r->auto_stages = e->stages <= 0;
		ring_slot(S, r);
		/* arrivals in threads: every thread of each side arrives (plk.cuh);
		 * a producer that multicasts into the slots of its cluster's CTAs
		 * (`cluster N`) needs the consumers of all N to release a stage
		 * (docs/abi.md); with
		 * pingpong lanes one lane consumes a stage */
		r->full_count = 32 * inst_warps(g, e->from);
		r->empty_count = 32 * inst_warps(g, e->to) * e->from->cluster;
		vec_push(c->arena, &p->rings, r);
	}
	S->nitems = p->bufs.n + p->rings.n;
	S->items = arena_alloc(c->arena, sizeof *S->items * (S->nitems + 1));
	S->order = arena_alloc(c->arena, sizeof *S->order * (S->nitems + 1));
	int k = 0;
	for (int i = 0; i < p->rings.n; i++) {
		const PRing *r = p->rings.v[i];
		S->items[k++] = (Item){ .align = r->slot_align, .live = LIVE_ALL, .ring = 1, .idx = i };
	}
	for (int i = 0; i < p->bufs.n; i++) {
		const PBuf *b = p->bufs.v[i];
		S->items[k++] = (Item){ .size = b->size, .align = b->align, .live = b->live, .idx = i };
	}

	uint64_t limit = g->arch->smem_per_block;
	p->smem_limit = (uint32_t)limit;
	uint64_t need = layout(S);
	if (need > limit) {
		smem_over(S, need, limit);
		return 1;
	}

	/* auto rings: deepest that fits with the later ones at one stage */
	int na = 0;
	PRing **au = arena_alloc(c->arena, sizeof *au * (p->rings.n + 1));
	for (int i = 0; i < p->rings.n; i++)
		if (((PRing *)p->rings.v[i])->auto_stages)
			au[na++] = p->rings.v[i];
	for (int i = 1; i < na; i++)          /* stable: priority, then edge order */
		for (int j = i; j > 0 && ring_prio(g, au[j]) > ring_prio(g, au[j - 1]); j--) {
			PRing *t = au[j]; au[j] = au[j - 1]; au[j - 1] = t;
		}
	for (int i = 0; i < na; i++) {
		PRing *r = au[i];
		for (int s = AUTO_MAX_STAGES; s > 1; s--) {
			r->stages = s;
			if (layout(S) <= limit)
				break;
			r->stages = 1;
		}
	}

	need = layout(S);
	for (int i = 0; i < S->nitems; i++) {
		const Item *it = &S->items[i];
		if (it->ring)
			((PRing *)p->rings.v[it->idx])->off = (uint32_t)it->off;
		else
			((PBuf *)p->bufs.v[it->idx])->off = (uint32_t)it->off;
	}
	uint32_t bo = p->bar_off;
	for (int i = 0; i < p->rings.n; i++) {
		PRing *r = p->rings.v[i];
		r->full_bar = bo;
		r->empty_bar = bo + MBAR_BYTES * r->stages;
		bo += 2 * MBAR_BYTES * r->stages;
	}
	/* Lanes take turns on their ring (glue.c): lane L waits on turn L
	 * before its work item and arrives on turn L + 1 after its ring's
	 * consumer returned, so no lane waits on a slot more than one phase
	 * ahead of it (an mbarrier tells only a phase's parity). */
	for (int i = 0; i < g->roles.n; i++) {
		const GRole *gr = g->roles.v[i];
		if (gr->lanes < 2)
			continue;
		for (int j = 0; j < p->roles.n; j++)
			if (((PRole *)p->roles.v[j])->role == gr)
				((PRole *)p->roles.v[j])->turn_bar = bo;
		bo += MBAR_BYTES * gr->lanes;
	}
	/* `grid dynamic` (glue.c): the block's first role fetches each work
	 * item into a slot; every role's threads read it there */
	if (g->dynamic)
		p->items_bar = bo;
	p->smem_bytes = (uint32_t)need;
	return 0;
}

const PRing *placement_ring(const Placement *p, const GEdge *e)
{
	for (int i = 0; i < p->rings.n; i++)
		if (((const PRing *)p->rings.v[i])->edge == e)
			return p->rings.v[i];
	return NULL;
}

Placement *place(Ctx *c, const Graph *g)
{
	if (!g || !g->arch)
		return NULL;
	Placement *p = arena_alloc(c->arena, sizeof *p);
	p->g = g;
	p->arch = g->arch;
	Solve S = { .c = c, .g = g, .p = p };
	int bad = place_warps(&S);
	bad |= place_bars(&S);
	bad |= place_smem(&S);
	return bad ? NULL : p;
}
