/*
 * bias_gelu_tma: epilogue C = bf16(gelu_tanh(acc + bias[col])) for a
 * BM x BN wgmma_acc fragment, written like store_bf16_tma (shared-memory
 * staging, TMA stores left draining under the next tile's mainloop).
 * The bias and GELU: act.cuh plk_bias_gelu_pairs, into registers of the
 * epilogue's own. Needs N % 8 == 0 and the flush call (tile_m < 0).
 * Contract: bias_gelu_tma.plk.
 */
#include "plk.cuh"
#include "../common/acc_store.cuh"
#include "../common/act.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_BIAS_GELU_TMA_PLK_H
#include <bias_gelu_tma.plk.h>
#endif

PLK_ENTRY void plk_bias_gelu_tma(int inst, const void *c, const __nv_bfloat16 *bias, int N,
                                 float *acc, int tile_m, int tile_n)
{
	static_assert(BM % (64 * (WARPS / 4)) == 0, "each warpgroup owns whole 64-row blocks");
	static_assert(BN % CH == 0 && CH % 64 == 0, "CH: whole 64-column boxes dividing BN");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
#if __CUDA_ARCH__ >= 900
	/* Results packed into registers of their own (bf16x2): written in
	 * place, the accumulators would serialize the next tile's wgmmas
	 * (ptxas C7515). */
	uint32_t v2[MI * NI * 2];
	if (tile_m >= 0)
		plk_bias_gelu_pairs<MI, NI>(acc, bias, tile_n * BN + 2 * (plk_lane() & 3), N, v2);
	plk_acc_store_tma_pairs<MI, NI, WARPS, CH>([&v2](int i) { return v2[i]; }, plk_warp_rank(inst),
	                                           (char *)plk_smem(inst, BIAS_GELU_TMA_BUF_STAGING), c,
	                                           plk_named_barrier(inst, BIAS_GELU_TMA_BAR_STAGED),
	                                           plk_barrier_threads(inst, BIAS_GELU_TMA_BAR_STAGED),
	                                           tile_m < 0 ? -1 : tile_m * BM, tile_n * BN);
#else
	__trap();	/* contract: arch >= sm_90 */
#endif
}
