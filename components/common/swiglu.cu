/*
 * swiglu: epilogue Y = bf16(silu(gate) * up) from a BM x BN accumulator
 * fragment (layout wgmma_acc) whose columns interleave gate and up in
 * blocks of 8: accumulator columns [16j, 16j+8) are gate columns
 * [8j, 8j+8) and [16j+8, 16j+16) the matching up columns. So W [2N, K]
 * stacks 8 gate rows, then 8 up rows, and so on; the tile then holds
 * BN / 2 whole output columns and every thread owns both operands of its
 * outputs (no exchange). Output tile: BM x BN/2 of Y [M, N]. Needs
 * N % 8 == 0. One object serves every arch: plain CUDA, sm_80 and later.
 * Contract: swiglu.plk.
 */
#include "plk.cuh"
#include "acc_store.cuh"
#include "act.cuh"	/* the silu shared with swiglu_tma */

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_SWIGLU_PLK_H
#include <swiglu.plk.h>
#endif

PLK_ENTRY void plk_swiglu(int inst, __nv_bfloat16 *y, int M, int N, float *acc, int tile_m,
                          int tile_n)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	static_assert(BM % (16 * WARPS) == 0, "each warp owns whole 16-row blocks");
	static_assert(BN % 32 == 0, "BN: whole pairs of 8-column gate and up blocks, 16 output columns each");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8, NO = NI / 2;	/* NO: output blocks */
	float v[MI * NO * 4];	/* registers: every index is constant once unrolled */
	plk_swiglu_blocks<MI, NI>(acc, v);
	const int r0 = tile_m * BM, c0 = tile_n * (BN / 2);
	plk_acc_store_bf16<MI, NO, WARPS>(v, plk_warp_rank(inst), y + (size_t)r0 * N + c0,
	                                  M - r0, N - c0, (size_t)N);
}
