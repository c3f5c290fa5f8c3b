/*
 * cp_async_load_ab: sm_80-class producer. One warp copies the A (BM x BK)
 * and B (BN x BK) tiles of one output tile into the `ab` ring with 16-byte
 * cp.async, laid out exactly as TMA's 128B swizzle writes them (the 16-byte
 * chunk c of row r lands at chunk c ^ (r % 8)), so consumers read them with
 * conflict-free ldmatrix. Rows past M/N and columns past K are zero-filled.
 * Each lane's copies complete on the stage's full barrier through
 * cp.async.mbarrier.arrive. Needs K % 8 == 0. Contract: cp_async_load_ab.plk.
 */
#include "plk.cuh"
#include <cuda_bf16.h>

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_CP_ASYNC_LOAD_AB_PLK_H
#include <cp_async_load_ab.plk.h>
#endif

PLK_ENTRY void plk_cp_async_load_ab(int inst, const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                                    int M, int N, int K, plk_pipe *ab, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	static_assert(BK * 2 == 128, "sw128 layout: one BK row of bf16 is one 128-byte row");
	static_assert((BM * 8) % 32 == 0 && (BN * 8) % 32 == 0, "whole warp-wide copy rounds");
	constexpr int CHUNKS = BK * 2 / 16;	/* 16-byte chunks per row */

	const int lane = plk_lane();
	const int kt = (K + BK - 1) / BK;
	/* copies rows [row0, row0 + R) of a row-major [rows, K] matrix */
	auto copy_tile = [&](char *dst, const __nv_bfloat16 *src, int R, int row0, int rows,
	                     int k0) {
#pragma unroll 4
		for (int i = lane; i < R * CHUNKS; i += 32) {
			const int r = i / CHUNKS, ch = i % CHUNKS;
			const int gr = row0 + r, gk = k0 + ch * 8;
			const bool in = gr < rows && gk < K;
			plk_cp_async16(plk_smem_u32(PLK_SW128_CHUNK(dst, r, ch)), in ? src + (size_t)gr * K + gk : src, in);
		}
	};
	for (int k = 0; k < kt; k++) {
		const int s = plk_produce_acquire(inst, CP_ASYNC_LOAD_AB_PORT_AB, ab);
		copy_tile((char *)plk_ring_ptr(inst, CP_ASYNC_LOAD_AB_PORT_AB, s, CP_ASYNC_LOAD_AB_FIELD_AB_A),
		          a, BM, tile_m * BM, M, k * BK);
		copy_tile((char *)plk_ring_ptr(inst, CP_ASYNC_LOAD_AB_PORT_AB, s, CP_ASYNC_LOAD_AB_FIELD_AB_B),
		          b, BN, tile_n * BN, N, k * BK);
		/* Each lane's arrival fires when its copies have landed; it also
		 * adds one pending arrival, so the phase still needs lane 0's
		 * plain arrival (one per producer warp, as the ABI counts). */
		asm volatile("cp.async.mbarrier.arrive.shared.b64 [%0];"
		             ::"r"(plk_smem_u32(plk_ring_full(inst, CP_ASYNC_LOAD_AB_PORT_AB, s))) : "memory");
		plk_produce_commit(inst, CP_ASYNC_LOAD_AB_PORT_AB, ab);
	}
}
