/*
 * swiglu_t: the SwiGLU epilogue of a skinny tile (examples/gemm_swiglu_auto
 * .plk's swiglu_skinny): the mainloop ran with W as the first operand, so
 * its BM x BN accumulator (layout wgmma_acc) is a block of [gate; up]^T:
 * accumulator row r is W row tile_m * BM + r, column j is Y row tile_n * BN
 * + j. W's rows come in blocks of 16, eight gate rows then the eight up
 * rows of the same outputs, and a lane's registers j = 0, 1 hold row r of
 * its warp's 16 (r = lane / 4) where j = 2, 3 hold row r + 8 at the same
 * columns: every lane has both halves of its outputs, no exchange. Output
 * column n = tile_m * BM / 2 + 8 (16-row block) + lane / 4. Contract:
 * swiglu_t.plk.
 */
#include "plk.cuh"
#include <cuda_bf16.h>
#include "../common/act.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_SWIGLU_T_PLK_H
#include <swiglu_t.plk.h>
#endif

PLK_ENTRY void plk_swiglu_t(int inst, __nv_bfloat16 *y, int M, int N, float *acc, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	static_assert(BM % (16 * WARPS) == 0, "each warp owns whole 16-row blocks (8 gate, 8 up rows)");
	static_assert(BN % 8 == 0, "the accumulator's columns come in 8-column blocks");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
	const int w = plk_warp_rank(inst);
	const int n0 = tile_m * (BM / 2), m0 = tile_n * BN;
#pragma unroll
	for (int mi = 0; mi < MI; mi++) {
		const int n = n0 + (mi * WARPS + w) * 8 + (plk_lane() >> 2);
#pragma unroll
		for (int ni = 0; ni < NI; ni++)
#pragma unroll
			for (int j = 0; j < 2; j++) {
				const int m = m0 + plk_acc_col(ni, j);
				const float *a = &acc[(mi * NI + ni) * 4];
				if (m < M && n < N)
					y[(size_t)m * N + n] = __float2bfloat16_rn(plk_silu_mul(a[j], a[j + 2]));
			}
	}
}
