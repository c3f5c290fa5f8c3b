/*
 * tma_load_q: one producer warp loads the BM x HD query block of each work
 * item (q block tile_m of head tile_n % H of batch tile_n / H) into the q
 * ring by 4-D TMA, as HD / 64 boxes of 64 columns in the 128B swizzle.
 * Rows past SQ come back as zeros. AHEAD: the flush call loads one block
 * more (q block 0 of head 0), the item past the last that a core reading
 * ahead waits for and lets go unused. Contract: tma_load_q.plk.
 */
#include "plk.cuh"
#include "attn.cuh"

#ifndef PLK_TMA_LOAD_Q_PLK_H
#include <tma_load_q.plk.h>
#endif

PLK_ENTRY void plk_tma_load_q(int inst, const void *qmap, int H, plk_pipe *q, int tile_m, int tile_n)
{
	if (tile_m < 0 && !AHEAD)
		return;	/* the flush call: nothing asynchronous left behind */
	if (tile_m < 0)
		tile_m = tile_n = 0;	/* AHEAD: the item past the last */
	constexpr unsigned BOX = BM * 128;	/* one 64-column box of the block */
	static_assert(HD % 64 == 0 && BM <= 256, "64-column boxes of at most 256 rows");
#if __CUDA_ARCH__ >= 900
	const int b = tile_n / H, h = tile_n - b * H;
	const int s = plk_produce_acquire(inst, TMA_LOAD_Q_PORT_Q, q);
	void *full = plk_ring_full(inst, TMA_LOAD_Q_PORT_Q, s);
	plk_produce_expect_tx(inst, TMA_LOAD_Q_PORT_Q, q, BM * HD * 2);
	if (plk_lane() == 0) {
		char *slot = (char *)plk_ring_slot(inst, TMA_LOAD_Q_PORT_Q, s);
#pragma unroll
		for (int c = 0; c < HD / 64; c++)
			attn_tma_load_4d(slot + c * BOX, qmap, full, c * 64, tile_m * BM, h, b);
	}
#else
	(void)qmap; (void)H; (void)q; (void)tile_n;
	__trap();	/* contract: arch >= sm_90 */
#endif
}
