/*
 * store_bf16_tma_rows: a BM x BN f32 accumulator fragment (wgmma_acc) to
 * C as bf16 through unswizzled staging and TMA stores of CH x 64 boxes
 * (contract: store_bf16_tma_rows.plk). The pass structure is
 * store_bf16_tma's (common/acc_store.cuh): per 64-row block and CH-column
 * pass, wait until the previous pass's box has left shared memory, write
 * the pairs, fence for the async proxy, one thread issues the store and
 * the warps return to the next tile while it drains. Needs the flush call
 * (tile_m < 0) after the last tile.
 */
#include "plk.cuh"
#include <cuda_bf16.h>

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_STORE_BF16_TMA_ROWS_PLK_H
#include <store_bf16_tma_rows.plk.h>
#endif

PLK_ENTRY void plk_store_bf16_tma_rows(int inst, const void *c, float *acc, int tile_m, int tile_n)
{
	static_assert(BM % (64 * (WARPS / 4)) == 0, "each warpgroup owns whole 64-row blocks");
	static_assert(BN % CH == 0 && CH % 16 == 8, "CH: boxes dividing BN, rows 4 (mod 8) banks apart");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8, WGS = WARPS / 4;
	constexpr int ROW_BYTES = CH * 2, WG_BYTES = 64 * ROW_BYTES;	/* one box a warpgroup */
#if __CUDA_ARCH__ >= 900
	const int w = plk_warp_rank(inst), g = w >> 2, lane = plk_lane(), q = lane & 3;
	const bool issuer = (w & 3) == 0 && lane == 0;
	char *mine = (char *)plk_smem(inst, STORE_BF16_TMA_ROWS_BUF_STAGING) + g * WG_BYTES;
	const int bar = plk_named_barrier(inst, STORE_BF16_TMA_ROWS_BAR_STAGED);
	const int bar_threads = plk_barrier_threads(inst, STORE_BF16_TMA_ROWS_BAR_STAGED);
	if (tile_m < 0) {
		if (issuer)
			plk_tma_store_wait<0>();
		return;
	}
#pragma unroll
	for (int mi = 0; mi < MI; mi++) {
#pragma unroll
		for (int c0 = 0; c0 < BN; c0 += CH) {
			if (issuer)
				plk_tma_store_wait_read<0>();
			plk_named_barrier_sync(bar, bar_threads);
#pragma unroll
			for (int nb = 0; nb < CH / 8; nb++) {
				const int ni = c0 / 8 + nb;
#pragma unroll
				for (int h = 0; h < 2; h++) {
					const float *v = acc + ((mi * NI + ni) * 2 + h) * 2;
					__nv_bfloat162 t = __floats2bfloat162_rn(v[0], v[1]);
					const int r = 16 * (w & 3) + (lane >> 2) + 8 * h;	/* row in the 64-row block */
					*(uint32_t *)(mine + r * ROW_BYTES + nb * 16 + 4 * q) = *(uint32_t *)&t;
				}
			}
			plk_fence_proxy_async();	/* generic writes -> async-proxy reads */
			plk_named_barrier_sync(bar, bar_threads);
			if (issuer) {
				plk_tma_store_2d(c, mine, tile_n * BN + c0, tile_m * BM + (mi * WGS + g) * 64);
				plk_tma_store_commit();
			}
		}
	}
#else
	(void)inst; (void)c; (void)acc; (void)tile_m; (void)tile_n;
	__trap();	/* contract: arch >= sm_90 */
#endif
}
