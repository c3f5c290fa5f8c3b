/*
 * swiglu_tma: common/swiglu.cu's epilogue (gate and up interleaved in
 * blocks of 8 accumulator columns; Y gets BN / 2 columns per tile) with the
 * output written through shared-memory staging and TMA stores, which drain
 * while the next tile's mainloop runs. CH output columns are staged per
 * pass. The activation is act.cuh's one-MUFU silu. Needs the flush call
 * (tile_m < 0). Contract: swiglu_tma.plk.
 */
#include "plk.cuh"
#include "../common/acc_store.cuh"
#include "../common/act.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_SWIGLU_TMA_PLK_H
#include <swiglu_tma.plk.h>
#endif

PLK_ENTRY void plk_swiglu_tma(int inst, const void *y, float *acc, int tile_m, int tile_n)
{
	static_assert(BM % (64 * (WARPS / 4)) == 0, "each warpgroup owns whole 64-row blocks");
	static_assert((BN / 2) % CH == 0 && CH % 64 == 0, "CH: whole 64-column boxes dividing BN / 2");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8, NO = NI / 2;
#if __CUDA_ARCH__ >= 900
	float v[MI * NO * 4];
	if (tile_m >= 0)
		plk_swiglu_blocks<MI, NI>(acc, v);
	plk_acc_store_tma<MI, NO, WARPS, CH>(v, plk_warp_rank(inst),
	                                     (char *)plk_smem(inst, SWIGLU_TMA_BUF_STAGING), y,
	                                     plk_named_barrier(inst, SWIGLU_TMA_BAR_STAGED),
	                                     plk_barrier_threads(inst, SWIGLU_TMA_BAR_STAGED),
	                                     tile_m < 0 ? -1 : tile_m * BM, tile_n * (BN / 2));
#else
	__trap();	/* contract: arch >= sm_90 */
#endif
}
