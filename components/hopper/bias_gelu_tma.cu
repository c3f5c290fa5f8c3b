/*
 * bias_gelu_tma: epilogue C = bf16(gelu_tanh(acc + bias[col])) for a
 * BM x BN wgmma_acc fragment, written like store_bf16_tma (shared-memory
 * staging, TMA stores left draining under the next tile's mainloop).
 * The bias slice of the tile is loaded once per tile into registers, one
 * bf16 pair per 8-column block (the same pair serves every row a thread
 * holds), all loads issued before the first use so that their latency is
 * paid once. Needs N % 8 == 0 and the flush call (tile_m < 0).
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
	if (tile_m >= 0) {
		/* Pair ni: columns c0 + 8 ni + 2 (lane % 4) + {0, 1}. Past N the
		 * value is clipped by the TMA store, so 0 is enough there. */
		const int c0 = tile_n * BN + 2 * (plk_lane() & 3);
		uint32_t b2[NI];
#pragma unroll
		for (int ni = 0; ni < NI; ni++)
			b2[ni] = c0 + 8 * ni < N ? __ldg((const unsigned int *)(bias + c0 + 8 * ni)) : 0u;
#pragma unroll
		for (int ni = 0; ni < NI; ni++) {
			const __nv_bfloat162 b = *(const __nv_bfloat162 *)&b2[ni];
			const float b0 = __low2float(b), b1 = __high2float(b);
#pragma unroll
			for (int mi = 0; mi < MI; mi++)
#pragma unroll
				for (int h = 0; h < 2; h++) {
					const float *e = &acc[(mi * NI + ni) * 4 + 2 * h];
					__nv_bfloat162 t = __floats2bfloat162_rn(plk_gelu_tanh(e[0] + b0),
					                                         plk_gelu_tanh(e[1] + b1));
					v2[(mi * NI + ni) * 2 + h] = *(uint32_t *)&t;
				}
		}
	}
	plk_acc_store_tma_pairs<MI, NI, WARPS, CH>([&v2](int i) { return v2[i]; }, plk_warp_rank(inst),
	                                           (char *)plk_smem(inst, BIAS_GELU_TMA_BUF_STAGING), c,
	                                           plk_named_barrier(inst, BIAS_GELU_TMA_BAR_STAGED),
	                                           plk_barrier_threads(inst, BIAS_GELU_TMA_BAR_STAGED),
	                                           tile_m < 0 ? -1 : tile_m * BM, tile_n * BN);
#else
	__trap();	/* contract: arch >= sm_90 */
#endif
}
