/*
 * bias_gelu: epilogue C = bf16(gelu_tanh(acc + bias[col])) for a BM x BN
 * wgmma_acc fragment; bias is a bf16 vector of N (act.cuh
 * plk_bias_gelu_pairs: the hardware tanh, results packed into registers
 * of the epilogue's own). Needs N % 8 == 0. Contract: bias_gelu.plk.
 */
#include "plk.cuh"
#include "../common/acc_store.cuh"
#include "../common/act.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_BIAS_GELU_PLK_H
#include <bias_gelu.plk.h>
#endif

PLK_ENTRY void plk_bias_gelu(int inst, __nv_bfloat16 *c, const __nv_bfloat16 *bias, int M, int N,
                             float *acc, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	static_assert(BM % (16 * WARPS) == 0, "each warp owns whole 16-row blocks");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
	const int r0 = tile_m * BM, c0 = tile_n * BN;
	uint32_t v2[MI * NI * 2];	/* packed results: act.cuh, C7515 */
	plk_bias_gelu_pairs<MI, NI>(acc, bias, c0 + 2 * (plk_lane() & 3), N, v2);
	plk_acc_store_bf16_pairs<MI, NI, WARPS>([&v2](int i) { return v2[i]; }, plk_warp_rank(inst),
	                                        c + (size_t)r0 * N + c0, M - r0, N - c0, (size_t)N);
}
