/*
 * store_bf16_tma: epilogue writing a BM x BN f32 accumulator fragment
 * (layout wgmma_acc) to C as bf16 through a shared-memory staging buffer
 * and TMA stores (common/acc_store.cuh): the consumer warps return to the
 * next tile's mainloop while the stores drain. CH columns are staged per
 * pass (CH = BN: one pass). Needs the flush call (tile_m < 0) after the
 * last tile. Contract: store_bf16_tma.plk.
 */
#include "plk.cuh"
#include "../common/acc_store.cuh"

#ifndef BM
#define BM 128
#endif
#ifndef BN
#define BN 256
#endif
#ifndef WARPS
#define WARPS 8
#endif
#ifndef CH
#define CH 128
#endif

PLK_ENTRY void plk_store_bf16_tma(int inst, const void *c, float *acc, int tile_m, int tile_n)
{
	enum { BUF_STAGING = 0 };
	enum { BAR_STAGED = 0 };
	static_assert(BM % (64 * (WARPS / 4)) == 0, "each warpgroup owns whole 64-row blocks");
	static_assert(BN % CH == 0 && CH % 64 == 0, "CH: whole 64-column boxes dividing BN");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
#if __CUDA_ARCH__ >= 900
	plk_acc_store_tma<MI, NI, WARPS, CH>(acc, plk_warp_rank(inst),
	                                     (char *)plk_smem(inst, BUF_STAGING), c,
	                                     plk_named_barrier(inst, BAR_STAGED),
	                                     plk_barrier_threads(inst, BAR_STAGED),
	                                     tile_m < 0 ? -1 : tile_m * BM, tile_n * BN);
#else
	__trap();	/* contract: arch >= sm_90 */
#endif
}
