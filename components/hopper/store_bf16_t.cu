/*
 * store_bf16_t: epilogue of a skinny tile (examples/gemm_auto.plk's
 * gemm_skinny): the mainloop ran with A and B swapped, so its BM x BN
 * accumulator (layout wgmma_acc) is a block of C^T: accumulator row r is C
 * column tile_m * BM + r, accumulator column j is C row tile_n * BN + j.
 * Each value goes to C [M, N] as one bf16 store; for a fixed register the
 * eight lanes of one lane % 4 hold eight consecutive rows of the
 * accumulator, so a warp's store writes four 16-byte runs. The output of a
 * skinny GEMM is BN / K of the bytes its weights stream, so these stores
 * are not on its critical path. Contract: store_bf16_t.plk.
 */
#include "plk.cuh"
#include <cuda_bf16.h>

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_STORE_BF16_T_PLK_H
#include <store_bf16_t.plk.h>
#endif

PLK_ENTRY void plk_store_bf16_t(int inst, __nv_bfloat16 *c, int M, int N, float *acc, int tile_m,
                                int tile_n)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	static_assert(BM % (16 * WARPS) == 0, "each warp owns whole 16-row blocks");
	static_assert(BN % 8 == 0, "the accumulator's columns come in 8-column blocks");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
	const int w = plk_warp_rank(inst);
	const int n0 = tile_m * BM, m0 = tile_n * BN;
#pragma unroll
	for (int mi = 0; mi < MI; mi++)
#pragma unroll
		for (int ni = 0; ni < NI; ni++)
#pragma unroll
			for (int j = 0; j < 4; j++) {
				const int n = n0 + plk_acc_row(mi, j, w, WARPS);
				const int m = m0 + plk_acc_col(ni, j);
				if (m < M && n < N)
					c[(size_t)m * N + n] = __float2bfloat16_rn(acc[(mi * NI + ni) * 4 + j]);
			}
}
