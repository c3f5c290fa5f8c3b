/* abi.c: what the component ABI (docs/abi.md) makes of a Placement,
 * decided once for the glue (glue.c), the kernel entry (trampoline.c) and
 * the monolith (monolith.c): the constant tables behind the plk_*
 * functions, the setmaxnreg budget of each warpgroup, the runs of
 * warpgroups that dispatch as one branch, and the cluster launch. */
#include <string.h>
#include "plk.h"

/* The number of a row's params (at most 3): ABI_NARGS (int inst, int buf) is 2. */
#define ABI_NARGS(...) ABI_NARGS_(__VA_ARGS__, 3, 2, 1, 0)
#define ABI_NARGS_(a, b, c, n, ...) n

/* Each function's name and signature, from stdlib/abi.def (no cases yet). */
void abi_sigs(AbiFn f[ABI_NFNS])
{
	static const struct { const char *name, *cret; int nargs, nkeys; AbiRet ret; } sig[ABI_NFNS] = {
#define PLK_ABI(id, name, ret, params, nkeys, kind, meaning) \
		[F_##id] = { #name, #ret, ABI_NARGS params, nkeys, kind },
#include "../stdlib/abi.def"
#undef PLK_ABI
	};
	for (int i = 0; i < ABI_NFNS; i++)
		f[i] = (AbiFn){ sig[i].name, sig[i].cret, sig[i].nargs, sig[i].nkeys, sig[i].ret, NULL, 0 };
}

static void add_case(Ctx *c, AbiFn *f, int k0, int k1, int k2, int64_t base, int64_t step)
{
	for (int i = 0; i < f->ncases; i++)   /* both ends of a ring share it */
		if (f->cases[i].key[0] == k0 && f->cases[i].key[1] == k1 && f->cases[i].key[2] == k2)
			return;
	AbiCase *n = arena_alloc(c->arena, (f->ncases + 1) * sizeof *n);
	if (f->ncases)
		memcpy(n, f->cases, f->ncases * sizeof *n);
	n[f->ncases++] = (AbiCase){ { k0, k1, k2 }, base, step };
	f->cases = n;
}

void abi_tables(Ctx *c, const Placement *p, AbiFn f[ABI_NFNS])
{
	for (int i = 0; i < p->bufs.n; i++) {
		const PBuf *b = p->bufs.v[i];
		add_case(c, &f[F_SMEM], abi_inst(p->g, b->inst, b->lane), b->buf->id, 0, b->off, 0);
	}
	for (int i = 0; i < p->rings.n; i++) {
		const PRing *r = p->rings.v[i];
		const GEdge *e = r->edge;
		const struct { const GInst *in; const GPort *pt; } ends[2] = { { e->from, e->fp }, { e->to, e->tp } };
		/* every lane of each end: the lanes of a pingpong role share it */
		for (int j = 0; j < 2; j++)
			for (int lane = 0; lane < inst_lanes(p->g, ends[j].in); lane++) {
				int in = abi_inst(p->g, ends[j].in, lane), pt = ends[j].pt->id;
				add_case(c, &f[F_STAGES], in, pt, 0, r->stages, 0);
				add_case(c, &f[F_SLOT], in, pt, 0, r->off, r->slot_stride);
				add_case(c, &f[F_FULL], in, pt, 0, r->full_bar, 8);
				add_case(c, &f[F_EMPTY], in, pt, 0, r->empty_bar, 8);
				/* Bundle fields: where the placement laid them out, else
				 * one after the other, each at its alignment. */
				uint32_t off = 0;
				for (int k = 0; k < ends[j].pt->fields.n; k++) {
					const GField *fl = ends[j].pt->fields.v[k];
					uint32_t al = fl->align ? fl->align : 1;
					off = (off + al - 1) / al * al;
					if (k < r->nfields && r->field_off)
						off = r->field_off[k];
					add_case(c, &f[F_FIELD], in, pt, k, off, 0);
					off += fl->bytes;
				}
			}
	}
	/* A consumer that passes its lanes' turn itself (`handoff`): lane L's
	 * next turn is lane L + 1's mbarrier. Any other port passes none
	 * (plk_ring_handoffs 0, the turn NULL). The flag is an int of its own:
	 * a generic pointer into shared memory does not fold against NULL. */
	for (int i = 0; i < p->roles.n; i++) {
		const PRole *r = p->roles.v[i];
		const GEdge *le = r->role && r->role->lanes > 1 ? r->role->lane_edge : NULL;
		if (!le || !edge_handoff(le))
			continue;
		int in = abi_inst(p->g, le->to, r->lane);
		add_case(c, &f[F_HANDOFF], in, le->tp->id, 0, 1, 0);
		add_case(c, &f[F_TURN], in, le->tp->id, 0, r->turn_bar + 8 * ((r->lane + 1) % r->role->lanes), 0);
	}
	for (int i = 0; i < p->bars.n; i++) {
		const PBar *b = p->bars.v[i];
		int in = abi_inst(p->g, b->inst, b->lane);
		add_case(c, &f[F_NBAR], in, b->bar->id, 0, b->id, 0);
		add_case(c, &f[F_BTHREADS], in, b->bar->id, 0, b->threads, 0);
	}
	for (int i = 0; i < p->roles.n; i++) {
		const PRole *r = p->roles.v[i];
		for (int j = 0; r->role && j < r->role->insts.n; j++) {
			int in = abi_inst(p->g, r->role->insts.v[j], r->lane);
			add_case(c, &f[F_FIRST_WARP], in, 0, 0, r->first_warp, 0);
			add_case(c, &f[F_WARPS], in, 0, 0, r->nwarps, 0);
		}
	}
	/* every lane of a consumer calls its connected hook ports' provider */
	for (int i = 0; i < p->g->hooks.n; i++) {
		const GHook *h = p->g->hooks.v[i];
		for (int lane = 0; lane < inst_lanes(p->g, h->to); lane++)
			add_case(c, &f[F_HOOK_BOUND], abi_inst(p->g, h->to, lane), h->tp->id, 0, 1, 0);
	}
}

void abi_groups(Ctx *c, const AbiFn *f, AbiGroups *g)
{
	memset(g, 0, sizeof *g);
	g->f = f;
	g->taken = arena_alloc(c->arena, f->ncases + 1);
	g->idx = arena_alloc(c->arena, (f->ncases + 1) * sizeof *g->idx);
	memset(g->taken, 0, f->ncases + 1);
}

/* The cases not yet taken whose leading keys are those of the first case
 * not yet taken, sorted by the last key by insertion, then whether they
 * are affine in it, so that the glue and the monolith compute the value
 * rather than switch on a key a component may pass at run time (a
 * barrier a warpgroup: plk_named_barrier(inst, BAR0 + wg)). */
int abi_group_next(AbiGroups *g)
{
	const AbiFn *f = g->f;
	int last = f->nkeys - 1, first = g->next;
	while (first < f->ncases && g->taken[first])
		first++;
	if (first >= f->ncases)
		return 0;
	g->next = first + 1;
	g->n = 0;
	g->lead = 0;
	for (int k = 0; k < last; k++)   /* ids stay below 1024 */
		g->lead = g->lead << 10 | f->cases[first].key[k];
	for (int i = first; i < f->ncases; i++) {
		int same = !g->taken[i];
		for (int k = 0; same && k < last; k++)
			same = f->cases[i].key[k] == f->cases[first].key[k];
		if (!same)
			continue;
		int j = g->n++;
		for (; j > 0 && f->cases[g->idx[j - 1]].key[last] > f->cases[i].key[last]; j--)
			g->idx[j] = g->idx[j - 1];
		g->idx[j] = i;
		g->taken[i] = 1;
	}
	const AbiCase *c0 = &f->cases[g->idx[0]];
	g->d = g->n > 1 ? f->cases[g->idx[1]].base - c0->base : 0;
	g->affine = 1;
	for (int j = 0; j < g->n; j++) {
		const AbiCase *cs = &f->cases[g->idx[j]];
		g->affine &= cs->key[last] == c0->key[last] + j && cs->base == c0->base + j * g->d && cs->step == c0->step;
	}
	g->selects = g->affine && g->n <= ABI_SELECT_MAX;
	return 1;
}

/* ---------------------------------------------------------------- hooks */

int abi_has_hooks(const Graph *g)
{
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		for (int j = 0; !in->hooks && j < in->ports.n; j++)
			if (((const GPort *)in->ports.v[j])->k == TY_HOOK)
				return 1;
	}
	return 0;
}

int abi_fn_defined(const Graph *g, int fn)
{
	return fn != F_HOOK_BOUND || abi_has_hooks(g);
}

AbiHookCase *abi_hook_cases(Ctx *c, const Placement *p, int kind, int *n)
{
	const Graph *g = p->g;
	int m = 0;
	for (int i = 0; i < g->hooks.n; i++) {
		const GHook *h = g->hooks.v[i];
		if (h->kind->id == kind)
			m += inst_lanes(g, h->to);
	}
	AbiHookCase *v = arena_alloc(c->arena, (m + 1) * sizeof *v);
	*n = 0;
	for (int i = 0; i < g->hooks.n; i++) {
		const GHook *h = g->hooks.v[i];
		for (int lane = 0; h->kind->id == kind && lane < inst_lanes(g, h->to); lane++)
			v[(*n)++] = (AbiHookCase){ abi_inst(g, h->to, lane), h->tp->id, h };
	}
	return v;
}

int abi_wg_regs(Ctx *c, const Placement *p, int *regs, int *cap)
{
	int nwg = (p->threads + 127) / 128, any = 0;
	for (int w = 0; w < nwg; w++)
		regs[w] = 0;
	*cap = 0;
	if (!(p->arch->features & FEAT_SETMAXNREG))
		return 0;
	if (p->nwarpgroups > 0 && p->wg_regs) {   /* the placement decided */
		for (int w = 0; w < nwg && w < p->nwarpgroups; w++)
			any |= (regs[w] = p->wg_regs[w]) != 0;
		*cap = any ? p->entry_regs : 0;
		return 0;
	}
	for (int i = 0; i < p->roles.n; i++) {
		const PRole *r = p->roles.v[i];
		if (r->regs <= 0)
			continue;
		for (int w = r->first_warp / 4; w <= (r->first_warp + r->nwarps - 1) / 4 && w < nwg; w++) {
			if (regs[w] && regs[w] != r->regs) {
				Diag *d = diag_new(c, DIAG_ERROR, "E0510", kernel_span(p->g),
				    "warpgroup %d holds roles with register budgets %d and %d", w, regs[w], r->regs);
				diag_note(d, "setmaxnreg sets the budget of a whole warpgroup");
				diag_help(d, "this is a placement bug: roles with a budget must be warpgroup-aligned");
				diag_end(c, d);
				return -1;
			}
			regs[w] = r->regs;
			any = 1;
		}
	}
	if (!any)
		return 0;
	/* ptxas caps registers at entry from .maxntid and .minnctapersm 1. */
	int cp = p->arch->regs_per_sm / (nwg * 128);
	if (cp > p->arch->regs_per_thread_max)
		cp = p->arch->regs_per_thread_max;
	*cap = cp / 8 * 8;
	return 0;
}

int abi_role_in(const PRole *r, int w0, int w1)
{
	return r->first_warp < 4 * w1 && r->first_warp + r->nwarps > 4 * w0;
}

/* Whether warpgroups a and b hold the same roles. */
static int roles_same(const Placement *p, int a, int b)
{
	for (int i = 0; i < p->roles.n; i++) {
		const PRole *r = p->roles.v[i];
		if (abi_role_in(r, a, a + 1) != abi_role_in(r, b, b + 1))
			return 0;
	}
	return 1;
}

int abi_wg_run(const Placement *p, const int *regs, int cap, int w0)
{
	int nwg = (p->threads + 127) / 128, w1 = cap ? w0 + 1 : nwg;
	while (cap && w1 < nwg && regs[w1] == regs[w0] && roles_same(p, w0, w1))
		w1++;
	return w1;
}

int abi_clustered(const Placement *p)
{
	return p->arch->sm >= 90 && p->g->cluster[0] * p->g->cluster[1] > 1;
}

int abi_ring_drains(const Placement *p, const PRole *r, const PRing *ring)
{
	const GInst *from = ring->edge->from;
	if (!abi_clustered(p) || !r->role || from->cluster < 2)
		return 0;
	for (int j = 0; j < r->role->insts.n; j++)
		if (r->role->insts.v[j] == from)
			return 1;
	return 0;
}

int abi_cluster_tiles(int64_t x, int64_t y)
{
	return (y == 1 && (x == 2 || x == 4)) || (x == 2 && y == 2);
}

int abi_rows_log2(const Placement *p)
{
	int x = p->g->cluster[0], y = p->g->cluster[1];
	if (!abi_clustered(p) || !abi_cluster_tiles(x, y))
		return 0;
	return x == 4 ? 2 : 1;
}

int abi_quad(const Placement *p)
{
	return abi_clustered(p) && p->g->cluster[0] == 2 && p->g->cluster[1] == 2;
}

const char *abi_main_name(Ctx *c, const Placement *const *ps, int n, int i)
{
	return n == 1 ? "plk_main" : arena_printf(c->arena, "plk_main_%s", ps[i]->g->k->name);
}

/* The reductions' synchronisation, as text. uniform = 0 (split(S)'s):
 * each warp's first lane spins and counts, branching; uniform = 1
 * (split(auto)'s): every lane spins with a vote at each read, and lane 0
 * counts predicated, so that the warp's control flow stays the warp's
 * own: ptxas then keeps the components' shared-memory addresses in
 * uniform registers (with the lane-0 spin the attention core's KV loop
 * went to R2UR, bench/results/2026-12-04-attention-stream-k.md).
 * Racecheck instruments each vote: under it the uniform form is slow.
 *
 * red_text: a warp that stored partials counts itself on ptr (release). */
static void red_text(FILE *o, const char *in, const char *ptr, int uniform)
{
	if (uniform)
		fprintf(o, "%sasm volatile(\"{\\n\\t.reg .pred p;\\n\\tsetp.eq.u32 p, %%1, 0;\\n\\t"
		           "@p red.release.gpu.global.add.u32 [%%0], 1;\\n\\t}\"\n"
		           "%s             :: \"l\"(%s), \"r\"(lt & 31) : \"memory\");   /* lane 0's, without a branch */\n",
		        in, in, ptr);
	else
		fprintf(o, "%sif ((lt & 31) == 0)\n"
		           "%s\tasm volatile(\"red.release.gpu.global.add.u32 [%%0], 1;\" :: \"l\"(%s) : \"memory\");\n",
		        in, in, ptr);
}

/* store_text: the warp's partials (acc) to the slot at part + off, and
 * the fence that orders them before red_text's count. */
static void store_text(FILE *o, const char *in, const char *off)
{
	fprintf(o, "%sfloat *dst = (float *)(part + %s);\n"
	           "#pragma unroll\n"
	           "%sfor (int i = 0; i < N; i++)\n"
	           "%s\tasm volatile(\"st.global.cg.f32 [%%0], %%1;\" :: \"l\"(dst + i * THREADS + lt), \"f\"(acc[i]) : \"memory\");\n"
	           "%sasm volatile(\"fence.acq_rel.gpu;\\n\\tbar.warp.sync -1;\" ::: \"memory\");\n",
	        in, off, in, in, in);
}

/* wait_text: until the counter at ptr reaches target; then what the
 * counted warps wrote is visible to the warp. */
static void wait_text(FILE *o, const char *in, const char *ptr, const char *target, int uniform)
{
	fprintf(o, "%s%s{\n%s\tunsigned v;\n%s\tdo\n"
	           "%s\t\tasm volatile(\"ld.acquire.gpu.global.u32 %%0, [%%1];\" : \"=r\"(v) : \"l\"(%s) : \"memory\");\n",
	        in, uniform ? "" : "if ((lt & 31) == 0) ", in, in, in, ptr);
	if (uniform)
		fprintf(o, "%s\twhile (!__all_sync(0xffffffffu, v >= (unsigned)(%s)));\n%s}\n"
		           "%sasm volatile(\"fence.acq_rel.gpu;\" ::: \"memory\");\n", in, target, in, in);
	else
		fprintf(o, "%s\twhile (v < (unsigned)(%s));\n%s}\n"
		           "%sasm volatile(\"bar.warp.sync -1;\\n\\tfence.acq_rel.gpu;\" ::: \"memory\");\n", in, target, in, in);
}

/* count_text: after a reduction has read the partials, each warp counts
 * itself on ptr, and the count that makes `last` resets it to zero for
 * the next launch. */
static void count_text(FILE *o, const char *in, const char *ptr, const char *last, int uniform)
{
	fprintf(o, "%sasm volatile(\"bar.warp.sync -1;\" ::: \"memory\");\n", in);
	if (uniform)
		fprintf(o, "%sasm volatile(\"{\\n\\t.reg .pred p;\\n\\t.reg .b32 old;\\n\\tsetp.eq.u32 p, %%1, 0;\\n\\t\"\n"
		           "%s             \"@p atom.relaxed.gpu.global.add.u32 old, [%%0], 1;\\n\\t@p setp.eq.u32 p, old, %%2;\\n\\t\"\n"
		           "%s             \"@p st.relaxed.gpu.global.u32 [%%0], 0;\\n\\t}\"\n"
		           "%s             :: \"l\"(%s), \"r\"(lt & 31), \"r\"((unsigned)(%s)) : \"memory\");\n",
		        in, in, in, in, ptr, last);
	else
		fprintf(o, "%sif ((lt & 31) == 0) {\n%s\tunsigned old;\n"
		           "%s\tasm volatile(\"atom.relaxed.gpu.global.add.u32 %%0, [%%1], 1;\" : \"=r\"(old) : \"l\"(%s) : \"memory\");\n"
		           "%s\tif (old == (unsigned)(%s))\n"
		           "%s\t\tasm volatile(\"st.relaxed.gpu.global.u32 [%%0], 0;\" :: \"l\"(%s) : \"memory\");\n%s}\n",
		        in, in, in, ptr, in, last, in, ptr, in);
}

/* A load of the partial's element IDX into VAR (merge_text's). */
static void load_text(FILE *o, const char *in, const char *var, const char *idx)
{
	fprintf(o, "%sasm volatile(\"ld.global.cg.f32 %%0, [%%1];\" : \"=f\"(%s) : \"l\"(src + %s * THREADS + lt) : \"memory\");\n",
	        in, var, idx);
}

/* One partial at src combined into sum, in a reduction helper below:
 * `merge sum` adds it; `merge softmax` (check_merge) merges (O, m, l) as
 * the online softmax does: each of the thread's two rows has its (m, l)
 * at elements N - 4 + 2h (the frag's last 8 columns in wgmma_acc; h =
 * (i >> 1) & 1 is element i's row), m = max(m_a, m_b), O and l the sum
 * of each side times 2^(m_side - m), and m = -inf (nothing attended on
 * either side) leaves O = 0, l = 0. */
static void merge_text(FILE *o, int softmax, const char *in)
{
	char in2[16];
	snprintf(in2, sizeof in2, "%s\t", in);
	if (!softmax) {
		fprintf(o, "#pragma unroll\n%sfor (int i = 0; i < N; i++) {\n%s\tfloat x;\n", in, in);
		load_text(o, in2, "x", "i");
		fprintf(o, "%s\tsum[i] += x;\n%s}\n", in, in);
		return;
	}
	fprintf(o, "%sfloat fa[2], fb[2];\n"
	           "#pragma unroll\n"
	           "%sfor (int h = 0; h < 2; h++) {\n"
	           "%s\tconst int i = N - 4 + 2 * h;\n"
	           "%s\tfloat mp, lp;\n", in, in, in, in);
	load_text(o, in2, "mp", "i");
	load_text(o, in2, "lp", "(i + 1)");
	fprintf(o, "%s\tconst float m = fmaxf(sum[i], mp), mu = m == __int_as_float(0xff800000) ? 0.f : m;\n"
	           "%s\tasm(\"ex2.approx.ftz.f32 %%0, %%1;\" : \"=f\"(fa[h]) : \"f\"(sum[i] - mu));\n"
	           "%s\tasm(\"ex2.approx.ftz.f32 %%0, %%1;\" : \"=f\"(fb[h]) : \"f\"(mp - mu));\n"
	           "%s\tsum[i] = m;\n"
	           "%s\tsum[i + 1] = sum[i + 1] * fa[h] + lp * fb[h];\n"
	           "%s}\n"
	           "#pragma unroll\n"
	           "%sfor (int i = 0; i < N - 4; i++) {\n"
	           "%s\tfloat x;\n", in, in, in, in, in, in, in, in);
	load_text(o, in2, "x", "i");
	fprintf(o, "%s\tsum[i] = sum[i] * fa[(i >> 1) & 1] + x * fb[(i >> 1) & 1];\n%s}\n", in, in);
}

/* ------------------------------------------------------------ split K
 * The reduction of a split tile's partial sums (`grid split(S)`,
 * check_split) from `acc` into `sum`, the consumer's registers of its own
 * (graph.c, frag_key: summed in place, ptxas would serialize the wgmmas),
 * as CUDA the kernel's own unit compiles: the glue's NVRTC entry
 * (trampoline.c) and the monolith write the same text. One function per
 * (elements per thread, threads of the role), so that its loops over the
 * frag unroll to constant indices and the frag stays in registers.
 *
 * Split s < S - 1 stores its partials, thread-major (element i of thread
 * lt at (i * threads + lt) floats: a warp's stores are one line), each
 * thread fences, and each warp's first lane counts the warp on the tile's
 * counter (release). The last split waits for (S - 1) x warps counts,
 * adds the partials in split order (the same sum whichever split finishes
 * first), then counts its own warps; the last of those resets the counter
 * to zero for the next launch. The last split's items come after its
 * tile's other splits in every block's order, and a persistent grid's
 * blocks are all resident, so what it waits for is running or done. */
void abi_splitk_source(FILE *o, const char *storage, int n, int threads, int softmax)
{
	fprintf(o, "%s plk_glue_splitk%s_%d_%d(float *acc, float *sum, int lt, char *part, unsigned *cnt, int slot,\n"
	           "\tint s, int S)\n"
	           "{\n"
	           "\tconstexpr int N = %d, THREADS = %d, WARPS = THREADS / 32;\n"
	           "\tif (S > 1 && s < S - 1) {\n",
	        storage, softmax ? "_softmax" : "", n, threads, n, threads);
	store_text(o, "\t\t", "(long long)s * slot");
	red_text(o, "\t\t", "cnt", 0);
	fprintf(o, "\t\treturn;\n"
	           "\t}\n"
	           "#pragma unroll\n"
	           "\tfor (int i = 0; i < N; i++)\n"
	           "\t\tsum[i] = acc[i];\n"
	           "\tif (S <= 1)\n\t\treturn;\n");
	wait_text(o, "\t", "cnt", "(S - 1) * WARPS", 0);
	fprintf(o, "\tfor (int j = 0; j < S - 1; j++) {\n"
	           "\t\tconst float *src = (const float *)(part + (long long)j * slot);\n");
	merge_text(o, softmax, "\t\t");
	fprintf(o, "\t}\n");
	count_text(o, "\t", "cnt", "S * WARPS - 1", 0);
	fprintf(o, "}\n");
}

/* Stream-K (`split(auto)`): block c walks K tiles [c * total / G,
 * (c + 1) * total / G) of all tiles' total; a tile it starts and ends
 * needs no sum; one it ends without starting (its first segment) it sums,
 * from the slots of the blocks j0 .. c - 1 that hold the tile's earlier
 * parts (each their last segment: a block writes one partial a launch,
 * into its own slot); one it starts without ending (its last segment) it
 * stores to its slot and counts on its flag. The sums wait only on lower
 * blocks, all resident: block 0 starts at a tile's start. Only the tiles
 * left over from the full rounds are streamed (glue_stream_body): total
 * counts their K tiles, which may be fewer than the blocks. Every segment
 * first copies its partials to the sums: defined on every path, the sums
 * are not live from one segment to the next (held across the loop they
 * spilled the attention core's registers). */
void abi_streamk_source(FILE *o, const char *storage, int n, int threads, int softmax)
{
	fprintf(o, "%s plk_glue_streamk%s_%d_%d(const float *acc, float *sum, int lt, char *part, unsigned *flag,\n"
	           "\tint slot, int nred, long long c, long long G, long long total, long long per, long long tile,\n"
	           "\tint first, int last)\n"
	           "{\n"
	           "\tconstexpr int N = %d, THREADS = %d, WARPS = THREADS / 32;\n"
	           "#pragma unroll\n"
	           "\tfor (int i = 0; i < N; i++)\n"
	           "\t\tsum[i] = acc[i];\n"
	           "\tif (!last) {\n",
	        storage, softmax ? "_softmax" : "", n, threads, n, threads);
	store_text(o, "\t\t", "c * slot");
	red_text(o, "\t\t", "flag + c * nred", 1);
	fprintf(o, "\t\treturn;\n"
	           "\t}\n"
	           "\tif (first)\n\t\treturn;\n"
	           "\tfor (long long j = ((tile * per + 1) * G + total - 1) / total - 1; j < c; j++) {\n"
	           "\t\tif (j * total / G == (j + 1) * total / G)\n"
	           "\t\t\tcontinue;   /* fewer streamed K tiles than blocks: j walks none */\n"
	           "\t\tunsigned *f = flag + j * nred;\n");
	wait_text(o, "\t\t", "f", "WARPS", 1);
	fprintf(o, "\t\tconst float *src = (const float *)(part + j * slot);\n");
	merge_text(o, softmax, "\t\t");
	count_text(o, "\t\t", "f", "2 * WARPS - 1", 1);
	fprintf(o, "\t}\n"
	           "}\n");
}

/* split(auto)'s schedule of the streamed tiles (glue_split.c,
 * glue_stream_body): segment q of this block. With T tiles on G blocks
 * the R = T / G full rounds are whole tiles, tiles c + k G for k < R,
 * which each role walks after its streamed segments, in a loop of their
 * own (glue.c, glue_role_body), as an unsplit grid does, so the
 * components' code there compiles as it does unsplit. The rest = T - R G
 * tiles after them (all of them when T < G) are streamed over the first
 * G' = min(G, ABI_STREAM_WAYS x rest) blocks: block c < G' walks K tiles
 * [c total / G', (c + 1) total / G') of their total = rest x per, a
 * segment per tile it touches, the last segment first: that one (a
 * tile's start) others wait for, and the first (a tile's end) waits for
 * others, so no block waits for one that waits (forwards, each block's
 * first segment waited for the previous block's last: a chain through
 * the grid, 2-10x slower). Segment q < nsk (the count) is streamed tile
 * (end - 1) / per - q, tile R G plus that. The block's index is read
 * volatile, so that the callers' compilers recompute all this where it
 * is used rather than hold it (glue_stream_body says why). In int: the K
 * tiles of all tiles fit; c x total in 64 bits. */
void abi_stream_seg_source(FILE *o, const char *storage)
{
	fprintf(o, "%s plk_glue_stream_seg(int q, int ntiles, int per, int *s)\n"
	           "{\n"
	           "\tint c, G;\n"
	           "\tasm volatile(\"mov.u32 %%0, %%%%ctaid.x;\" : \"=r\"(c));\n"
	           "\tasm volatile(\"mov.u32 %%0, %%%%nctaid.x;\" : \"=r\"(G));\n"
	           "\tconst int R = ntiles / G, rest = ntiles - R * G, total = rest * per, whole = R * G;\n"
	           "\tif (G > %d * rest)\n\t\tG = %d * rest;   /* the blocks that stream */\n"
	           "\tconst int start = c < G ? (int)((long long)c * total / G) : total;\n"
	           "\tconst int end = c < G ? (int)((long long)(c + 1) * total / G) : total;\n"
	           "\tconst int top = (end - 1) / per, span = top - start / per + 1;\n"
	           "\tconst int st = top - q, tstart = st * per, tend = tstart + per;\n"
	           "\tconst int segb = start > tstart ? start : tstart, sege = end < tend ? end : tend;\n"
	           "\ts[%d] = start < end ? span : 0, s[%d] = whole + st, s[%d] = st, s[%d] = segb - tstart;\n"
	           "\ts[%d] = sege - segb, s[%d] = segb == tstart, s[%d] = sege == tend, s[%d] = c, s[%d] = G;\n"
	           "\ts[%d] = total;\n"
	           "}\n", storage, ABI_STREAM_WAYS, ABI_STREAM_WAYS, ABI_SEG_COUNT, ABI_SEG_TILE, ABI_SEG_STREAMED, ABI_SEG_KFIRST, ABI_SEG_KCOUNT,
	        ABI_SEG_FIRST, ABI_SEG_LAST, ABI_SEG_BLOCK, ABI_SEG_BLOCKS, ABI_SEG_TOTAL);
}

/* Threads of one lane of in's role. */
static int role_threads(const Placement *p, const GInst *in)
{
	for (int i = 0; i < p->roles.n; i++) {
		const PRole *r = p->roles.v[i];
		if (r->role && r->role->id == in->role)
			return r->nwarps * 32;
	}
	return 0;
}

void abi_splitk_sources(FILE *o, const char *storage, const Placement *const *ps, int nps)
{
	int seen[64][4], nseen = 0;   /* (n, threads, stream, softmax) printed */
	for (int v = 0; v < nps; v++)
		if (ps[v]->g->stream) {
			abi_stream_seg_source(o, storage);
			break;
		}
	for (int v = 0; v < nps; v++) {
		const Graph *g = ps[v]->g;
		for (int i = 0; g->split && i < g->edges.n; i++) {
			const GEdge *e = g->edges.v[i];
			if (!e->reduce)
				continue;
			int t = role_threads(ps[v], e->from), n = abi_splitk_elems(e, t), s = g->stream, dup = 0;
			for (int j = 0; j < nseen; j++)
				dup |= seen[j][0] == n && seen[j][1] == t && seen[j][2] == s && seen[j][3] == e->softmax;
			if (dup || nseen == 64)
				continue;
			seen[nseen][0] = n, seen[nseen][1] = t, seen[nseen][2] = s, seen[nseen][3] = e->softmax, nseen++;
			(s ? abi_streamk_source : abi_splitk_source)(o, storage, n, t, e->softmax);
		}
	}
}

/* The name of the helper above that reduces e on `threads` threads. */
const char *abi_reduce_name(char buf[64], const GEdge *e, int threads, int stream)
{
	snprintf(buf, 64, "plk_glue_%s%s_%d_%d", stream ? "streamk" : "splitk", e->softmax ? "_softmax" : "",
	         abi_splitk_elems(e, threads), threads);
	return buf;
}

/* f32 elements per thread of a reduced frag on t threads. */
int abi_splitk_elems(const GEdge *e, int t)
{
	const GField *f = e->fp->fields.n ? e->fp->fields.v[0] : NULL;
	return f && t ? (int)(f->rows * f->cols / t) : 0;
}

/* `grid dynamic`: the threads that read each work item, every role's. */
int abi_item_threads(const Placement *p)
{
	int n = 0;
	for (int i = 0; i < p->roles.n; i++)
		n += ((const PRole *)p->roles.v[i])->nwarps * 32;
	return n;
}

/* `grid dynamic` (check_dynamic): work item k of the block, through slot
 * k % PLK_ITEM_SLOTS at ring (shared memory; its full mbarrier of one
 * arrival after the slots, its empty one of every role's threads after
 * those: abi_item_full, abi_item_empty). The producer, one thread of the
 * first role, fills it: the block's index first, then the counter's next
 * value past the grid. The producer whose fetch runs out counts its block
 * done; the last block to do so zeroes both counters for the next launch
 * (the others have made their last fetch by then). Each thread of the
 * block calls it for each k. The unit defines plk_glue_mbar_wait and
 * plk_glue_mbar_arrive (trampoline.c, monolith.c). */
void abi_item_source(FILE *o, const char *storage, const Placement *const *ps, int nps)
{
	int any = 0;
	for (int v = 0; v < nps; v++)
		any |= ps[v]->g->dynamic;
	if (!any)
		return;
	fprintf(o, "%s int plk_glue_item(unsigned ring, int k, int producer, void *ws, int nitems)\n{\n"
	           "\tconst unsigned n = %d, s = (unsigned)k %% n, ph = ((unsigned)k / n) & 1u;\n"
	           "\tconst unsigned slot = ring + 8u * s, full = ring + 8u * (n + s), empty = ring + 8u * (2u * n + s);\n"
	           "\tint *ctr = (int *)ws, t;\n"
	           "\tif (producer) {\n"
	           "\t\tplk_glue_mbar_wait(empty, ph ^ 1u);   /* a fresh barrier passes parity 1 */\n"
	           "\t\tt = k == 0 ? (int)blockIdx.x : atomicAdd(ctr, 1) + (int)gridDim.x;\n"
	           "\t\tif (t >= nitems) {   /* this block's last fetch */\n"
	           "\t\t\t__threadfence();\n"
	           "\t\t\tif (atomicAdd(ctr + 1, 1) == (int)gridDim.x - 1) {\n"
	           "\t\t\t\tatomicExch(ctr, 0);\n\t\t\t\tatomicExch(ctr + 1, 0);\n\t\t\t}\n\t\t}\n"
	           "\t\tasm volatile(\"st.shared.b32 [%%0], %%1;\" :: \"r\"(slot), \"r\"(t) : \"memory\");\n"
	           "\t\tplk_glue_mbar_arrive(full);\n\t}\n"
	           "\tplk_glue_mbar_wait(full, ph);\n"
	           "\tasm volatile(\"ld.shared.b32 %%0, [%%1];\" : \"=r\"(t) : \"r\"(slot) : \"memory\");\n"
	           "\tplk_glue_mbar_arrive(empty);\n"
	           "\t__syncwarp();   /* the producer's lane rejoins its warp */\n\treturn t;\n}\n", storage, PLK_ITEM_SLOTS);
}
