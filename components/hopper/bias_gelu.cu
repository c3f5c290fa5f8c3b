/*
 * bias_gelu: epilogue C = bf16(gelu_tanh(acc + bias[col])) for a BM x BN
 * wgmma_acc fragment; bias is a bf16 vector of N. The tanh is the
 * hardware approximation (relative error near 2^-11, under bf16's
 * rounding). Needs N % 8 == 0. Contract: bias_gelu.plk.
 */
#include "plk.cuh"
#include "../common/acc_store.cuh"

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
	static_assert(BN % 32 == 0, "BN must be a multiple of 32");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
	const int r0 = tile_m * BM, c0 = tile_n * BN;
	const float k0 = 0.7978845608028654f;	/* sqrt(2 / pi) */
	const float k1 = 0.044715f;
#pragma unroll
	for (int ni = 0; ni < NI; ni++) {
		/* this lane's two columns of block ni; beyond N the value is
		 * never stored, so a clamped bias read is enough */
		const int col = c0 + plk_acc_col(ni, 0);
		const __nv_bfloat162 b2 = col < N ? *(const __nv_bfloat162 *)(bias + col)
		                                  : __floats2bfloat162_rn(0.f, 0.f);
		const float bb[2] = {__low2float(b2), __high2float(b2)};
#pragma unroll
		for (int mi = 0; mi < MI; mi++) {
#pragma unroll
			for (int j = 0; j < 4; j++) {
				float x = acc[(mi * NI + ni) * 4 + j] + bb[j & 1];
				float t;
				asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(k0 * (x + k1 * x * x * x)));
				acc[(mi * NI + ni) * 4 + j] = 0.5f * x * (1.f + t);
			}
		}
	}
	plk_acc_store_bf16<MI, NI, WARPS>(acc, plk_warp_rank(inst), c + (size_t)r0 * N + c0,
	                                  M - r0, N - c0, (size_t)N);
}
