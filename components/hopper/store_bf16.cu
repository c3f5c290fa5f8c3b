/*
 * store_bf16: epilogue writing a BM x BN f32 accumulator fragment (layout
 * wgmma_acc) to C [M, N] as bf16 straight from registers, 16 bytes per
 * store (common/acc_store.cuh). Arch-neutral: it runs on the warps of any
 * mainloop that promises wgmma_acc. Any N (element stores where N % 8 != 0).
 * Contract: store_bf16.plk.
 */
#include "plk.cuh"
#include "../common/acc_store.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_STORE_BF16_PLK_H
#include <store_bf16.plk.h>
#endif

PLK_ENTRY void plk_store_bf16(int inst, __nv_bfloat16 *c, int M, int N, float *acc, int tile_m,
                              int tile_n)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	static_assert(BM % (16 * WARPS) == 0, "each warp owns whole 16-row blocks");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
	const int r0 = tile_m * BM, c0 = tile_n * BN;
	plk_acc_store_bf16<MI, NI, WARPS>(acc, plk_warp_rank(inst), c + (size_t)r0 * N + c0,
	                                  M - r0, N - c0, (size_t)N);
}
