/*
 * tma_load_kv: one producer warp streams the K and V blocks (BN x HD each)
 * that a work item's q block visits into the k and v rings by 4-D TMA, K
 * before V, so the core's S = Q K^T starts before V lands. The blocks come
 * from the `blocks` hook, the same one the core asks, or are every block
 * of the sequence; under a split grid the work item's share of them
 * (k_first, k_count). GQA: query head h reads KV head h / (H / HKV). Keys
 * past SKV come back as zeros (the core masks them). With its `ready`
 * hook connected, a block's keys are waited for first: they come from
 * another GPU (ring attention, docs/comm.md). AHEAD (a core that reads one
 * work item ahead): an item that visits no block still streams one, block
 * 0 (the core treats it as fully masked), and the flush call streams one
 * more item, block 0 of head 0, which the core waits for and lets go
 * unused. Contract: tma_load_kv.plk.
 */
#include "plk.cuh"
#include "attn.cuh"

#ifndef PLK_TMA_LOAD_KV_PLK_H
#include <tma_load_kv.plk.h>
#endif

PLK_ENTRY void plk_tma_load_kv(int inst, const void *kmap, const void *vmap, int H, int HKV, int SKV,
                               plk_pipe *k, plk_pipe *v, const void *blocks, const void *ready, int tile_m,
                               int tile_n, int k_first, int k_count)
{
	if (tile_m < 0 && !AHEAD)
		return;	/* the flush call: nothing asynchronous left behind */
	const bool past = AHEAD && tile_m < 0;	/* the item past the last */
	if (past)
		tile_m = tile_n = k_first = 0, k_count = 1;
	constexpr unsigned BOX = BN * 128;	/* one 64-column box of a block */
	constexpr unsigned BYTES = BN * HD * 2;
	static_assert(HD % 64 == 0 && BN <= 256, "64-column boxes of at most 256 rows");
#if __CUDA_ARCH__ >= 900
	const int b = tile_n / H, h = tile_n - b * H, hk = h / (H / HKV);
	const bool own = plk_hook_bound(inst, TMA_LOAD_KV_PORT_BLOCKS);
	const int n = past ? 1 : own ? plk_block_count(inst, TMA_LOAD_KV_PORT_BLOCKS, blocks, b, h, tile_m)
	                             : (SKV + BN - 1) / BN;
	/* the work item's share of the visits (`split`), as the core's; AHEAD:
	 * at least one block (an empty item's is block 0, unused) */
	for (int i = min(k_first, n); i < (AHEAD ? max(min(k_first + k_count, n), min(k_first, n) + 1)
	                                          : min(k_first + k_count, n)); i++) {
		const bool real = !AHEAD || (!past && i < n);
		const int j = own && real ? plk_block_at(inst, TMA_LOAD_KV_PORT_BLOCKS, blocks, b, h, tile_m, i) >> 1
		                          : real ? i : 0;
		/* keys another GPU sends (ring attention): wait for the block's
		 * signal; unconnected, the default returns at once */
		if (real)
			plk_tile_ready(inst, TMA_LOAD_KV_PORT_READY, ready, j * BN, BN);
#pragma unroll
		for (int t = 0; t < 2; t++) {	/* K, then V */
			const int port = t ? TMA_LOAD_KV_PORT_V : TMA_LOAD_KV_PORT_K;
			plk_pipe *pp = t ? v : k;
			const int s = plk_produce_acquire(inst, port, pp);
			void *full = plk_ring_full(inst, port, s);
			plk_produce_expect_tx(inst, port, pp, BYTES);
			if (plk_lane() == 0) {
				char *slot = (char *)plk_ring_slot(inst, port, s);
#pragma unroll
				for (int c = 0; c < HD / 64; c++)
					attn_tma_load_4d(slot + c * BOX, t ? vmap : kmap, full, c * 64, j * BN, hk, b);
			}
		}
	}
#else
	(void)kmap; (void)vmap; (void)H; (void)HKV; (void)SKV; (void)k; (void)v; (void)blocks; (void)ready;
	(void)tile_n; (void)k_first; (void)k_count;
	__trap();	/* contract: arch >= sm_90 */
#endif
}
