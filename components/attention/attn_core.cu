/*
 * attn_core: the attention mainloop of one BM x HD block of queries, on two
 * consumer warpgroups (64 query rows each) fed by the q, k and v rings
 * (docs/attention.md). Per KV block of BN keys:
 *
 *   S = Q K^T         wgmma, Q and K K-major in shared memory
 *   S -> P            online softmax in registers: row max, exp2 with the
 *                     scale folded in
 *   O = O * alpha + P V   wgmma with P from registers, V MN-major; and
 *   l = l * alpha + P 1   the row sums on the tensor cores too: an
 *                     m64n8k16 per k16 step against a region of ones,
 *                     whose 8 columns land where `o` keeps (m, l)
 *                     (FADDs instead at HD = 128 with a score mod)
 *
 * The S of block i + 1 is issued before the softmax of block i and its
 * P V after it, and with PINGPONG the warpgroups take turns issuing, so
 * one's softmax runs while another's GEMMs keep the tensor cores busy
 * (a named barrier per warpgroup passes the turn round).
 *
 * Hooks, all optional, inlined by LTO: `score` (score_mod), `mask`
 * (mask_mod, applied in partial blocks only) and `blocks` (which KV blocks
 * a q block visits, and which are partial). Without `blocks` every block
 * is visited and only the last, when SKV % BN != 0, is partial.
 *
 * Under a split grid a work item walks visits k_first .. k_first + k_count
 * - 1 of the q block's KV blocks, and its `o` is that share's.
 *
 * AHEAD: one S = Q K^T is always in flight between calls, in `next`: the
 * prologue call issues the first item's (block 0), each item's call the
 * next item's beside its last P V (so the tensor cores run it while the
 * epilogue stores), and the flush call waits for the one of the item past
 * the last, which the loaders stream for it, and lets its stages go. Each
 * item takes its block 0's S from `next` and, visiting no block, the block
 * the loader streams for it anyway (fully masked: O = 0, LSE = -inf).
 * Always one in flight: where paths meet, ptxas sees the same wgmma group
 * pending on each (with one issued only on some paths it waits there,
 * C7517, and the overlap is gone).
 *
 * Out: `o`, BM x (HD + 8) in wgmma_acc: columns 0..HD-1 hold O unscaled,
 * and the 8 columns after them the row's statistics in pairs (m, l): the
 * row max in the log2 domain (-inf: nothing attended) and the row sum of
 * exp2(x - m). Contract: attn_core.plk.
 */
#include "plk.cuh"
#include "attn.cuh"

#ifndef PLK_ATTN_CORE_PLK_H
#include <attn_core.plk.h>
#endif

/* AHEAD: what the glue keeps between calls (`regs next`): the next item's
 * block-0 S, in flight, and the Q and K stages it reads */
struct attn_next {
	float s[BN / 2];
	int sq, sk;
};
static_assert(sizeof(attn_next) == 4 * (BN / 2 + 2), "attn_core.plk: regs next: AHEAD * (BN / 2 + 2)");

PLK_ENTRY void plk_attn_core(int inst, int SQ, int SKV, int H, float scale, plk_pipe *q, plk_pipe *k,
                             plk_pipe *v, const void *score, const void *mask, const void *blocks,
                             float *o, void *next, int tile_m, int tile_n, int k_first, int k_count)
{
	constexpr int NS = BN / 2;		/* S floats per thread: BN / 8 blocks of 4 */
	constexpr int NO = HD / 2;		/* O floats per thread */
	constexpr int NP = BN / 4;		/* P registers (bf16 pairs) per thread */
	constexpr unsigned Q_CHUNK = BM * 128;	/* one 64-column box of the Q tile */
	constexpr unsigned KV_CHUNK = BN * 128;	/* one 64-column box of a K or V tile */
	constexpr unsigned WG_ROWS = 64 * 128;	/* a warpgroup's 64 rows of a Q box */
	constexpr float LOG2E = 1.4426950408889634f;
	static_assert((WG == 2 || WG == 3) && BM == 64 * WG, "one m64 block of queries per warpgroup, 2 or 3 of them");
	static_assert(HD == 64 || HD == 128, "head dim 64 or 128: whole 64-column swizzle boxes");
	static_assert(BN == 128 || BN == 160 || BN == 176,
	              "BN = 128, 160 or 176: S = Q K^T is one m64nBN wgmma per k16 step (a form in plk.cuh)");
	constexpr bool carry = CARRY && PINGPONG;
	static_assert(!AHEAD || carry, "reading ahead carries the turn across items (attn_core.plk)");
	attn_next *const nx = (attn_next *)next;	/* AHEAD only */
	constexpr int ONES = 2048;	/* bytes of bf16 1.0 (the contract's `ones`) */
	/* The ones, written once in the prologue call by every consumer
	 * thread, made visible to wgmma (the async proxy), then waited for
	 * by all: the row sums' B (P 1 on the tensor cores takes the 64
	 * FADDs a KV block a thread off the softmax's FMA pipe). */
	if (tile_m == PLK_PROLOGUE) {
		uint4 *ones = (uint4 *)plk_smem(inst, ATTN_CORE_BUF_ONES);
		for (int i = plk_warp_rank(inst) * 32 + plk_lane(); i < ONES / 16; i += WG * 128)
			ones[i] = make_uint4(0x3F803F80u, 0x3F803F80u, 0x3F803F80u, 0x3F803F80u);
		plk_fence_proxy_async();
		plk_bar_sync(inst, ATTN_CORE_BAR_ONES);
	}
	if (!carry && tile_m < 0)
		return;	/* the prologue and flush calls: nothing to start or take back */
	const int wg = plk_warp_rank(inst) >> 2, w = plk_warp_rank(inst) & 3;
	/* the turn goes round the warpgroups: sched<g> is warpgroup g's */
	const int sched_me = plk_named_barrier(inst, ATTN_CORE_BAR_SCHED0 + wg);
	const int sched_next = plk_named_barrier(inst, ATTN_CORE_BAR_SCHED0 + (wg + 1) % WG);
	/* CARRY: the turn runs on across work items: the last warpgroup's
	 * last pass of one item is warpgroup 0's first turn of the next, so
	 * warpgroup 0 issues the next item's S while the others store the
	 * item before. The prologue call starts it once, the flush call takes
	 * the pass the last item left (the barriers hold nothing at exit).
	 * Without CARRY every item starts the turn and takes it back. */
#if defined(PLK_HAS_WGMMA)
	/* Pingpong: warpgroup g issues its GEMMs only holding the turn (its
	 * barrier, which the previous warpgroup's arrival completes), then
	 * passes it to the next. Per work item each takes the turn once per
	 * issue phase, n + 1 times (AHEAD: n, the first phase being the item
	 * before's last), the same n for all: the turns stay balanced from
	 * item to item (see the prologue above). */
	auto turn_take = [&]() { if (PINGPONG) attn_bar_sync(sched_me, 256); };
	auto turn_pass = [&]() { if (PINGPONG) attn_bar_arrive(sched_next, 256); };
	/* the wgmma descriptor of this warpgroup's rows of Q stage sq */
	auto q_desc = [&](int sq) {
		return plk_wgmma_desc_sw128_lo((char *)plk_ring_slot(inst, ATTN_CORE_PORT_Q, sq) + wg * WG_ROWS);
	};
	/* d = Q K^T of the Q rows at qlo and the k stage sk */
	auto issue_s_into = [&](float *d, uint32_t qlo, int sk) {
		const uint32_t klo = plk_wgmma_desc_sw128_lo(plk_ring_slot(inst, ATTN_CORE_PORT_K, sk));
		plk_wgmma_fence();
#pragma unroll
		for (int kk = 0; kk < HD / 16; kk++) {
			const uint32_t off = (kk & 3) * (32 >> 4);	/* 16 elements along Dh */
			const uint64_t da = plk_wgmma_desc_sw128_at(qlo, (kk >> 2) * (Q_CHUNK >> 4) + off);
			const uint64_t db = plk_wgmma_desc_sw128_at(klo, (kk >> 2) * (KV_CHUNK >> 4) + off);
			if (BN == 128)
				plk_wgmma_m64n128k16(d, da, db, kk > 0);
			else if (BN == 160)
				plk_wgmma_m64n160k16(d, da, db, kk > 0);
			else
				plk_wgmma_m64n176k16(d, da, db, kk > 0);
		}
		plk_wgmma_commit();
	};
	/* AHEAD: the next item's Q and first K, next in their rings (the
	 * loaders stream an item past the last): its block-0 S into `next` */
	auto issue_next = [&]() {
		nx->sq = plk_consume_wait(inst, ATTN_CORE_PORT_Q, q);
		nx->sk = plk_consume_wait(inst, ATTN_CORE_PORT_K, k);
		plk_pipe_advance(inst, ATTN_CORE_PORT_K, k);
		issue_s_into(nx->s, q_desc(nx->sq), nx->sk);
	};
	if (tile_m < 0) {
		if (tile_m == PLK_PROLOGUE && wg == WG - 1)
			attn_bar_arrive(sched_next, 256);
		if (AHEAD && tile_m == PLK_PROLOGUE) {	/* the first item's S */
			turn_take();
			issue_next();
			turn_pass();
		}
		if (AHEAD && tile_m == PLK_FLUSH) {	/* the item past the last: its S unused, its stages let go */
			plk_wgmma_wait<0>();
			plk_fence_regs<BN / 2>(nx->s);
			plk_consume_release_stage(inst, ATTN_CORE_PORT_K, nx->sk);
			const int sv = plk_consume_wait(inst, ATTN_CORE_PORT_V, v);
			plk_pipe_advance(inst, ATTN_CORE_PORT_V, v);
			plk_consume_release_stage(inst, ATTN_CORE_PORT_V, sv);
			plk_consume_release_stage(inst, ATTN_CORE_PORT_Q, nx->sq);
			plk_pipe_advance(inst, ATTN_CORE_PORT_Q, q);
		}
		if (tile_m == PLK_FLUSH && wg == 0)
			attn_bar_sync(sched_me, 256);
		return;
	}
	const int b = tile_n / H, h = tile_n - b * H;
	const int nkv = (SKV + BN - 1) / BN;
	const bool own_blocks = plk_hook_bound(inst, ATTN_CORE_PORT_BLOCKS);
	const bool has_mask = plk_hook_bound(inst, ATTN_CORE_PORT_MASK);
	const bool has_score = plk_hook_bound(inst, ATTN_CORE_PORT_SCORE);
	const int visits = own_blocks ? plk_block_count(inst, ATTN_CORE_PORT_BLOCKS, blocks, b, h, tile_m) : nkv;
	/* this work item's share of the visits (the contract's `split`): all
	 * of them, or under a split grid a range whose (O, m, l) the glue
	 * merges with the others' */
	const int first = min(k_first, visits), n = min(k_first + k_count, visits) - first;
	const float scale_log2 = scale * LOG2E;
	/* The row sums on the tensor cores, except at HD = 128 with a score
	 * mod: there the softmax's two MUFU an element (tanh, exp2) already
	 * wait on the tensor cores' turn, and the sums' extra m64n8k16s cost
	 * more than the FADDs they save (softcap D128 7.4% slower, bench/
	 * results/2026-12-04-attention-rowsum-tensor.md). A link-time fact:
	 * LTO keeps one of the two paths. */
	const bool tensor_sums = !(HD == 128 && has_score);
	float l[2] = { 0.f, 0.f };	/* !tensor_sums: this thread's part of the row sums */
	const int row0 = tile_m * BM + 64 * wg + attn_row_in_wg(w, 0);	/* this thread's rows: row0, row0 + 8 */

	/* KV block i: (index << 1) | partial */
	auto block = [&](int i) {
		int x = own_blocks ? plk_block_at(inst, ATTN_CORE_PORT_BLOCKS, blocks, b, h, tile_m, first + i)
		                   : ((first + i) << 1) | (has_mask ? ATTN_PARTIAL : 0);
		if ((x >> 1) == nkv - 1 && SKV % BN)
			x |= ATTN_PARTIAL;	/* keys past SKV are masked */
		/* At 176 keys the block's word is computed here, before the
		 * turn's barrier: left free, nvcc's whole-program build sank it
		 * to its use and its LTO build (the linked kernel's) did not,
		 * 1,600 instructions apart and 0.4-0.8% either way in time. Not
		 * at 128 keys, where both builds already agree and pinning it
		 * moved times by -6% to +5% (bench/results/2026-12-04-attention-
		 * linked-equals-monolith.md). */
		if (BN == 176)
			asm volatile("" : "+r"(x));
		return x;
	};

	if (!carry && PINGPONG && wg == WG - 1)
		attn_bar_arrive(sched_next, 256);	/* starts warpgroup 0 */

	const int sq = AHEAD ? nx->sq : plk_consume_wait(inst, ATTN_CORE_PORT_Q, q);
	const uint32_t qlo = q_desc(sq);

	float s[NS];
	uint32_t p[NP];
	float m[2] = { -INFINITY, -INFINITY };
#pragma unroll
	for (int i = 0; i < NO + 4; i++)	/* O, then the row sums' 64 x 8 */
		o[i] = 0.f;

	/* S = Q K^T of the k stage at cursor k */
	auto issue_s = [&](int sk) { issue_s_into(s, qlo, sk); };
	/* O += P V of the v stage sv, and the row sums += P 1 */
	const uint64_t ones_desc = plk_wgmma_desc_sw128_at(attn_desc_mn_sw128_lo(plk_smem(inst, ATTN_CORE_BUF_ONES), 1024), 0);
	auto issue_pv = [&](const uint32_t *pp, int sv) {
		const uint32_t vlo = attn_desc_mn_sw128_lo(plk_ring_slot(inst, ATTN_CORE_PORT_V, sv), KV_CHUNK);
		plk_wgmma_fence();
#pragma unroll
		for (int kk = 0; kk < BN / 16; kk++) {
			const uint64_t db = plk_wgmma_desc_sw128_at(vlo, kk * ((16 * 128) >> 4));
			if (HD == 128)
				attn_wgmma_m64n128k16_rs_tb(o, pp + 4 * kk, db, 1);
			else
				attn_wgmma_m64n64k16_rs_tb(o, pp + 4 * kk, db, 1);
			if (tensor_sums)
				attn_wgmma_m64n8k16_rs_sum(o + NO, pp + 4 * kk, ones_desc);
		}
		plk_wgmma_commit();
	};
	/* softmax of S (KV block x), in place: s becomes P in f32; alpha:
	 * how much O shrinks */
	auto softmax = [&](int x, float *alpha) {
		const int kv0 = (x >> 1) * BN;
		/* with a score mod, scores move to the log2 domain; without one
		 * they stay raw and the scale folds into the exp's FFMA */
		if (has_score) {
#pragma unroll
			for (int e = 0; e < NS; e++) {
				const int row = row0 + 8 * ((e >> 1) & 1), col = kv0 + attn_col(e >> 2, e);
				s[e] = plk_score_mod(inst, ATTN_CORE_PORT_SCORE, score, s[e] * scale, b, h, row, col) * LOG2E;
			}
		}
		/* a partial block: keys past SKV and those the mask drops get -inf,
		 * a select per element (no branches: `&`, not `&&`) */
		if (x & ATTN_PARTIAL) {
#pragma unroll
			for (int e = 0; e < NS; e++) {
				const int row = row0 + 8 * ((e >> 1) & 1), col = kv0 + attn_col(e >> 2, e);
				const bool keep = (col < SKV) &
				                  (!has_mask || plk_mask_mod(inst, ATTN_CORE_PORT_MASK, mask, b, h, row, col));
				s[e] = keep ? s[e] : -INFINITY;
			}
		}
		const float mul = has_score ? 1.f : scale_log2;
#pragma unroll
		for (int r = 0; r < 2; r++) {
			float mx = -INFINITY;
#pragma unroll
			for (int ni = 0; ni < BN / 8; ni++)
				mx = fmaxf(mx, fmaxf(s[ni * 4 + 2 * r], s[ni * 4 + 2 * r + 1]));
			const float mnew = fmaxf(m[r], attn_quad_max(mx) * mul);
			const float mu = mnew == -INFINITY ? 0.f : mnew;	/* a row with nothing yet */
			alpha[r] = attn_exp2(m[r] - mu);
			m[r] = mnew;
			float sum = 0.f;
#pragma unroll
			for (int ni = 0; ni < BN / 8; ni++)
#pragma unroll
				for (int c = 0; c < 2; c++) {
					float &e = s[ni * 4 + 2 * r + c];
					e = attn_exp2(fmaf(e, mul, -mu));
					sum += e;
				}
			if (!tensor_sums)
				l[r] = l[r] * alpha[r] + sum;
		}
	};
	/* P in bf16 as wgmma's A fragments: k16 step kk takes the S blocks
	 * 2 kk and 2 kk + 1. Only once the P V that reads p has completed:
	 * a register an in-flight wgmma reads must not be written (C7513). */
	auto pack = [&]() {
#pragma unroll
		for (int ni = 0; ni < BN / 8; ni++)
#pragma unroll
			for (int r = 0; r < 2; r++)
				p[(ni >> 1) * 4 + (ni & 1) * 2 + r] = attn_pack_bf16(s[ni * 4 + 2 * r], s[ni * 4 + 2 * r + 1]);
	};
	auto rescale = [&](const float *alpha) {	/* O and the tensor cores' row sums */
#pragma unroll
		for (int i = 0; i < NO + (tensor_sums ? 4 : 0); i++)
			o[i] *= alpha[(i >> 1) & 1];
	};

	int x = 0, sv = 0;
	if (AHEAD) {	/* block 0's S came with `next`; visiting none, the loader's block 0 */
		plk_wgmma_wait<0>();
		plk_fence_regs<NS>(nx->s);
#pragma unroll
		for (int e = 0; e < NS; e++)	/* only wgmma writes nx->s while one may be in flight */
			s[e] = nx->s[e];
		plk_fence_regs<NS>(s);
		plk_consume_release_stage(inst, ATTN_CORE_PORT_K, nx->sk);
		if (n > 0) {
			float alpha[2];
			softmax(block(0), alpha);
			pack();
		} else {
#pragma unroll
			for (int i = 0; i < NP; i++)	/* fully masked: P = 0, O stays 0 */
				p[i] = 0u;
		}
	} else if (n > 0) {
		x = block(0);
		turn_take();
		const int sk = plk_consume_wait(inst, ATTN_CORE_PORT_K, k);
		plk_pipe_advance(inst, ATTN_CORE_PORT_K, k);
		issue_s(sk);
		turn_pass();
		plk_wgmma_wait<0>();
		plk_fence_regs<NS>(s);
		plk_consume_release_stage(inst, ATTN_CORE_PORT_K, sk);
		float alpha[2];
		softmax(x, alpha);
		pack();
	}
	for (int i = 1; i < n; i++) {
		const int xn = block(i);
		turn_take();
		const int sk = plk_consume_wait(inst, ATTN_CORE_PORT_K, k);
		plk_pipe_advance(inst, ATTN_CORE_PORT_K, k);
		issue_s(sk);
		sv = plk_consume_wait(inst, ATTN_CORE_PORT_V, v);
		plk_pipe_advance(inst, ATTN_CORE_PORT_V, v);
		issue_pv(p, sv);
		turn_pass();
		plk_wgmma_wait<1>();	/* S done; P V may still run */
		plk_fence_regs<NS>(s);
		plk_consume_release_stage(inst, ATTN_CORE_PORT_K, sk);
		float alpha[2];
		softmax(xn, alpha);
		plk_wgmma_wait<0>();
		plk_fence_regs<NO + 4>(o);
		attn_fence_regs_u32<NP>(p);	/* P V has read p */
		plk_consume_release_stage(inst, ATTN_CORE_PORT_V, sv);
		pack();
		rescale(alpha);
	}
	if (AHEAD || n > 0) {
		turn_take();
		sv = plk_consume_wait(inst, ATTN_CORE_PORT_V, v);
		plk_pipe_advance(inst, ATTN_CORE_PORT_V, v);
		issue_pv(p, sv);
		if (AHEAD) {	/* every S of this item has completed: its Q stage is free */
			plk_consume_release_stage(inst, ATTN_CORE_PORT_Q, sq);
			plk_pipe_advance(inst, ATTN_CORE_PORT_Q, q);
			issue_next();
		}
		turn_pass();
		if (AHEAD)
			plk_wgmma_wait<1>();	/* P V done; the next item's S runs on */
		else
			plk_wgmma_wait<0>();
		plk_fence_regs<NO + 4>(o);
		plk_consume_release_stage(inst, ATTN_CORE_PORT_V, sv);
	}
	if (!carry && PINGPONG && wg == 0)
		attn_bar_sync(sched_me, 256);	/* the last warpgroup's last pass */
	if (!AHEAD) {
		plk_consume_release_stage(inst, ATTN_CORE_PORT_Q, sq);
		plk_pipe_advance(inst, ATTN_CORE_PORT_Q, q);
	}

	/* statistics after O: (m, l) per row; the wgmma left l, the whole
	 * row's sum, in both of the thread's columns of the 8 (or the FADDs
	 * a quarter of it in each of the row's four threads) */
#pragma unroll
	for (int r = 0; r < 2; r++) {
		o[NO + 2 * r] = m[r];
		if (!tensor_sums)
			o[NO + 2 * r + 1] = attn_quad_sum(l[r]);
	}
#else
	(void)SQ; (void)SKV; (void)H; (void)scale; (void)q; (void)k; (void)v; (void)score; (void)mask;
	(void)blocks; (void)o; (void)next; (void)tile_n; (void)k_first; (void)k_count;
	__trap();	/* contract: arch >= sm_90a */
#endif
}
