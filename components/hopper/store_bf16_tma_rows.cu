/*
 * store_bf16_tma_rows: store_bf16_tma for tile widths no 64-column box
 * divides: a BM x BN f32 accumulator fragment (layout wgmma_acc) to C as
 * bf16 through unswizzled shared-memory staging and TMA stores of CH x 64
 * boxes (common/acc_store.cuh, rows = true); the consumer warps return to
 * the next tile's mainloop while the stores drain. Needs the flush call
 * (tile_m < 0) after the last tile. Contract: store_bf16_tma_rows.plk.
 */
#include "plk.cuh"
#include "../common/acc_store.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_STORE_BF16_TMA_ROWS_PLK_H
#include <store_bf16_tma_rows.plk.h>
#endif

PLK_ENTRY void plk_store_bf16_tma_rows(int inst, const void *c, float *acc, int tile_m, int tile_n)
{
	static_assert(BM % (64 * (WARPS / 4)) == 0, "each warpgroup owns whole 64-row blocks");
	static_assert(BN % CH == 0 && CH % 16 == 8, "CH: boxes dividing BN, their rows 4 (mod 8) banks apart");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
#if __CUDA_ARCH__ >= 900
	plk_acc_store_tma<MI, NI, WARPS, CH, true>(acc, plk_warp_rank(inst),
	                                           (char *)plk_smem(inst, STORE_BF16_TMA_ROWS_BUF_STAGING), c,
	                                           plk_named_barrier(inst, STORE_BF16_TMA_ROWS_BAR_STAGED),
	                                           plk_barrier_threads(inst, STORE_BF16_TMA_ROWS_BAR_STAGED),
	                                           tile_m < 0 ? -1 : tile_m * BM, tile_n * BN);
#else
	__trap();	/* contract: arch >= sm_90 */
#endif
}
