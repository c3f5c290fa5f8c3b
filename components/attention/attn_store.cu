/*
 * attn_store: the attention epilogue. Takes attn_core's `o` fragment (O
 * unscaled, then each row's (m, l)), divides O by l, writes it as bf16
 * through shared memory and 4-D TMA stores (in SPLIT passes over the
 * columns: the staging holds 1 / SPLIT of them), and writes the
 * log-sum-exp of each row (natural log). A row that attended to nothing (l = 0) gets
 * O = 0 and LSE = -inf. The stores drain while the next work item runs;
 * the flush call waits for them. Contract: attn_store.plk.
 */
#include "plk.cuh"
#include "attn.cuh"

#ifndef PLK_ATTN_STORE_PLK_H
#include <attn_store.plk.h>
#endif

PLK_ENTRY void plk_attn_store(int inst, const void *out, float *lse, int SQ, int H, float *o, int tile_m,
                              int tile_n)
{
	constexpr int NO = HD / 2;			/* O floats per thread */
	constexpr unsigned BOX = 64 * 128;		/* one 64 x 64 bf16 box */
	constexpr int PASS_BOXES = HD / 64 / SPLIT;	/* 64-column boxes staged at once */
	constexpr unsigned WG_BYTES = PASS_BOXES * BOX;	/* a warpgroup's 64 rows of them */
	constexpr float LN2 = 0.6931471805599453f;
	static_assert(BM == 16 * WARPS, "a warpgroup's 64 query rows each (attn_core)");
	static_assert(HD % 64 == 0 && (HD / 64) % SPLIT == 0, "whole 64-column boxes, the same number each pass");
#if __CUDA_ARCH__ >= 900
	const int wr = plk_warp_rank(inst), wg = wr >> 2, w = wr & 3, lane = plk_lane(), qd = lane & 3;
	const bool issuer = w == 0 && lane == 0;
	char *mine = (char *)plk_smem(inst, ATTN_STORE_BUF_STAGING) + wg * WG_BYTES;
	/* each warpgroup stages and stores its own 64 rows: a barrier of its
	 * own keeps the pingpong's warpgroups out of step */
	const int bar = plk_named_barrier(inst, ATTN_STORE_BAR_STAGED0 + wg);
	const int bar_threads = plk_barrier_threads(inst, ATTN_STORE_BAR_STAGED0 + wg);
	if (tile_m < 0) {
		if (issuer)
			plk_tma_store_wait<0>();
		return;
	}
	const int b = tile_n / H, h = tile_n - b * H;
	float inv[2];
#pragma unroll
	for (int r = 0; r < 2; r++) {
		const float m = o[NO + 2 * r], l = o[NO + 2 * r + 1];
		inv[r] = l > 0.f ? 1.f / l : 0.f;
		const int row = tile_m * BM + 64 * wg + attn_row_in_wg(w, r);
		if (qd == 0 && row < SQ)
			lse[((size_t)b * H + h) * SQ + row] = l > 0.f ? (m + __log2f(l)) * LN2 : -INFINITY;
	}
	/* SPLIT passes of PASS_BOXES boxes each; this warpgroup's staging is
	 * free once its last stores (of the pass before, or of the work item
	 * before) have read it */
#pragma unroll
	for (int pass = 0; pass < SPLIT; pass++) {
		if (issuer)
			plk_tma_store_wait_read<0>();
		attn_bar_sync(bar, bar_threads);
#pragma unroll
		for (int nj = 0; nj < 8 * PASS_BOXES; nj++) {
			const int ni = pass * 8 * PASS_BOXES + nj;	/* 8-column block of O */
#pragma unroll
			for (int r = 0; r < 2; r++) {
				const uint32_t t = attn_pack_bf16(o[ni * 4 + 2 * r] * inv[r], o[ni * 4 + 2 * r + 1] * inv[r]);
				const int row = attn_row_in_wg(w, r);	/* in the warpgroup's 64 */
				const int box = nj >> 3, ch = nj & 7;
				/* 128B swizzle: 16-byte chunk ch of row `row` sits at ch ^ (row % 8) */
				*(uint32_t *)(mine + box * BOX + row * 128 + ((ch ^ (row & 7)) << 4) + 4 * qd) = t;
			}
		}
		plk_fence_proxy_async();	/* generic writes -> async-proxy reads */
		attn_bar_sync(bar, bar_threads);
		if (issuer) {
#pragma unroll
			for (int c = 0; c < PASS_BOXES; c++)
				attn_tma_store_4d(out, mine + c * BOX, (pass * PASS_BOXES + c) * 64, tile_m * BM + 64 * wg,
				                  h, b);
			plk_tma_store_commit();
		}
	}
#else
	(void)inst; (void)out; (void)lse; (void)SQ; (void)H; (void)o; (void)tile_m; (void)tile_n;
	__trap();	/* contract: arch >= sm_90 */
#endif
}
