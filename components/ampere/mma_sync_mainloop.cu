/*
 * mma_sync_mainloop: sm_80-class consumer. WARPS warps multiply the A and B
 * tiles of the `ab` ring (128B-swizzled, K-major) with mma.sync m16n8k16
 * into a BM x BN f32 accumulator in the wgmma_acc layout: warp w owns the
 * 16-row blocks w, w + WARPS, ... and every column, so the same epilogue
 * objects serve this path and the wgmma one. Contract: mma_sync_mainloop.plk.
 */
#include "plk.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_MMA_SYNC_MAINLOOP_PLK_H
#include <mma_sync_mainloop.plk.h>
#endif

PLK_ENTRY void plk_mma_sync_mainloop(int inst, int K, plk_pipe *ab, float *acc, int tile_m,
                                     int tile_n)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	static_assert(BK * 2 == 128, "sw128 layout: one BK row of bf16 is one 128-byte row");
	static_assert(BM % (16 * WARPS) == 0, "each warp owns whole 16-row blocks");
	static_assert(BN % 16 == 0, "B fragments load two n8 blocks at a time");
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
	static_assert(MI * NI * 4 <= 128, "accumulator over 128 registers per thread");
	(void)tile_m; (void)tile_n;

	const int w = plk_warp_rank(inst), lane = plk_lane();
	const int kt = (K + BK - 1) / BK;
#pragma unroll
	for (int i = 0; i < MI * NI * 4; i++)
		acc[i] = 0.f;
	/* Fragments of k16 step kk + 1 are loaded while the mma.syncs of step
	 * kk run (two register sets): each ldmatrix's latency hides behind
	 * the previous step's mmas instead of stalling the next mma. */
	uint32_t af[2][MI][4], bf[2][NI / 2][4];
	for (int k = 0; k < kt; k++) {
		const int s = plk_consume_wait(inst, MMA_SYNC_MAINLOOP_PORT_AB, ab);
		const uint32_t sa = plk_smem_u32(plk_ring_ptr(inst, MMA_SYNC_MAINLOOP_PORT_AB, s,
		                                              MMA_SYNC_MAINLOOP_FIELD_AB_A));
		const uint32_t sb = plk_smem_u32(plk_ring_ptr(inst, MMA_SYNC_MAINLOOP_PORT_AB, s,
		                                              MMA_SYNC_MAINLOOP_FIELD_AB_B));
		auto load = [&](int kk, uint32_t (&a)[MI][4], uint32_t (&b)[NI / 2][4]) {
#pragma unroll
			for (int mi = 0; mi < MI; mi++) {
				/* A x4: rows 0-7 / 8-15 of the block, k 0-7 / 8-15 */
				const int ar = (mi * WARPS + w) * 16 + (lane & 7) + 8 * ((lane >> 3) & 1);
				asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
				             : "=r"(a[mi][0]), "=r"(a[mi][1]), "=r"(a[mi][2]), "=r"(a[mi][3])
				             : "r"(plk_sw128_chunk_u32(sa, ar, 2 * kk + (lane >> 4))));
			}
#pragma unroll
			for (int np = 0; np < NI / 2; np++) {
				/* B x4: n blocks 2np and 2np+1, k 0-7 / 8-15 each */
				const int br = (2 * np + (lane >> 4)) * 8 + (lane & 7);
				asm volatile("ldmatrix.sync.aligned.m8n8.x4.shared.b16 {%0, %1, %2, %3}, [%4];"
				             : "=r"(b[np][0]), "=r"(b[np][1]), "=r"(b[np][2]), "=r"(b[np][3])
				             : "r"(plk_sw128_chunk_u32(sb, br, 2 * kk + ((lane >> 3) & 1))));
			}
		};
		load(0, af[0], bf[0]);
#pragma unroll
		for (int kk = 0; kk < BK / 16; kk++) {
			if (kk + 1 < BK / 16)
				load(kk + 1, af[(kk + 1) & 1], bf[(kk + 1) & 1]);
			const uint32_t (&a)[MI][4] = af[kk & 1];
			const uint32_t (&b)[NI / 2][4] = bf[kk & 1];
#pragma unroll
			for (int mi = 0; mi < MI; mi++) {
#pragma unroll
				for (int np = 0; np < NI / 2; np++) {
					float *d0 = acc + (mi * NI + 2 * np) * 4, *d1 = d0 + 4;
					asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
					             "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
					             : "+f"(d0[0]), "+f"(d0[1]), "+f"(d0[2]), "+f"(d0[3])
					             : "r"(a[mi][0]), "r"(a[mi][1]), "r"(a[mi][2]), "r"(a[mi][3]),
					               "r"(b[np][0]), "r"(b[np][1]));
					asm volatile("mma.sync.aligned.m16n8k16.row.col.f32.bf16.bf16.f32 "
					             "{%0, %1, %2, %3}, {%4, %5, %6, %7}, {%8, %9}, {%0, %1, %2, %3};"
					             : "+f"(d1[0]), "+f"(d1[1]), "+f"(d1[2]), "+f"(d1[3])
					             : "r"(a[mi][0]), "r"(a[mi][1]), "r"(a[mi][2]), "r"(a[mi][3]),
					               "r"(b[np][2]), "r"(b[np][3]));
				}
			}
		}
		/* ldmatrix results are in registers: the stage can go back */
		plk_consume_release(inst, MMA_SYNC_MAINLOOP_PORT_AB, ab);
	}
}
