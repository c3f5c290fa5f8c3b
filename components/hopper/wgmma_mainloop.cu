/*
 * wgmma_mainloop: WG consumer warpgroups multiply the A and B tiles of the
 * `ab` ring into a BM x BN f32 accumulator held in registers (port `acc`,
 * layout wgmma_acc: docs/components.md). Warpgroup g owns the m64 blocks
 * g, g + WG, ...; each k16 step is one wgmma m64nBNk16 per block with both
 * operands read from shared memory through 128B-swizzle descriptors. A
 * stage of BK 128 or 256 is BK / 64 boxes of 64 columns per operand (box c
 * of a ROWS-row tile at byte c * ROWS * 128, as tma_load_ab writes it), so
 * step kk reads box kk / 4 at 32 * (kk % 4) bytes into its rows.
 * BN of 16 to 64 makes skinny tiles: bound with A and B swapped, a tile is
 * 64 rows of the weights by a GEMM's few rows of activations (C^T = B A^T,
 * stored transposed by store_bf16_t).
 * Contract: wgmma_mainloop.plk. MCAST > 1 (the loader multicasts B, or A
 * and B, across a cluster of MCAST CTAs): a stage goes back to the
 * producers of every CTA of the cluster.
 */
#include "plk.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_WGMMA_MAINLOOP_PLK_H
#include <wgmma_mainloop.plk.h>
#endif

PLK_ENTRY void plk_wgmma_mainloop(int inst, int K, plk_pipe *ab, float *acc, int tile_m,
                                  int tile_n, int k_first, int k_count)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	static_assert(BK % 64 == 0, "BK must be whole 64-column boxes: one 128-byte swizzle row of bf16 each");
	static_assert(MCAST == 1 || MCAST == 2 || MCAST == 4, "MCAST must match tma_load_ab's: 1, 2 or 4");
	static_assert(BN == 16 || BN == 32 || BN == 64 || BN == 96 || BN == 128 || BN == 192 || BN == 200 || BN == 224 ||
	              BN == 256, "BN: a wgmma m64nBNk16 form of plk.cuh (16, 32, 64, 96, 128, 192, 200, 224 or 256)");
	constexpr int MI = BM / (64 * WG);	/* m64 blocks per warpgroup */
	constexpr int NACC = BN / 2;		/* f32 per thread per m64 block */
	constexpr int ACC = MI * NACC;
	static_assert(ACC <= 128, "accumulator over 128 registers per thread: use WG = 2 or BN = 128");
	constexpr unsigned ROW_BYTES = 128;		/* one swizzled row of a box, whatever BK */
	constexpr unsigned M64_BYTES = 64 * ROW_BYTES;	/* one m64 block of A within a box */
	constexpr unsigned A_BOX = BM * ROW_BYTES, B_BOX = BN * ROW_BYTES;	/* a 64-column box */
	constexpr unsigned K16_DESC = 32 >> 4;		/* +16 elements along K, in 16-byte units */
	(void)tile_m; (void)tile_n;

#if defined(PLK_HAS_WGMMA)
	/* a stage goes back to this CTA's producer, or to every CTA's */
#if MCAST == 1
#define PLK_RELEASE(stage) plk_consume_release_stage(inst, WGMMA_MAINLOOP_PORT_AB, stage)
#else
#define PLK_RELEASE(stage) plk_consume_release_stage_cluster(inst, WGMMA_MAINLOOP_PORT_AB, stage, MCAST)
#endif
	const int wg = plk_warp_rank(inst) >> 2;
	/* the work item's K tiles (all, or a split's share: `split`); under a
	 * split grid acc holds this split's partial sums, which the glue adds up */
	const int kt = k_count;
	(void)K; (void)k_first;
	int prev = -1, prev2 = -1;	/* stages of the last two groups, prev the newer */

	plk_fence_regs<ACC>(acc);
	for (int k = 0; k < kt; k++) {
		const int s = plk_consume_wait(inst, WGMMA_MAINLOOP_PORT_AB, ab);
		plk_pipe_advance(inst, WGMMA_MAINLOOP_PORT_AB, ab);
		const uint32_t da0 = plk_wgmma_desc_sw128_lo(plk_ring_ptr(inst, WGMMA_MAINLOOP_PORT_AB, s,
		                                                          WGMMA_MAINLOOP_FIELD_AB_A));
		const uint32_t db0 = plk_wgmma_desc_sw128_lo(plk_ring_ptr(inst, WGMMA_MAINLOOP_PORT_AB, s,
		                                                          WGMMA_MAINLOOP_FIELD_AB_B));
		plk_wgmma_fence();
#pragma unroll
		for (int kk = 0; kk < BK / 16; kk++) {
#pragma unroll
			for (int mi = 0; mi < MI; mi++) {
				/* box kk / 4, then 16 elements per step within its rows */
				const unsigned ka = (kk >> 2) * (A_BOX >> 4) + (kk & 3) * K16_DESC;
				const unsigned kb = (kk >> 2) * (B_BOX >> 4) + (kk & 3) * K16_DESC;
				const uint64_t da = plk_wgmma_desc_sw128_at(da0, ((mi * WG + wg) * M64_BYTES >> 4) + ka);
				const uint64_t db = plk_wgmma_desc_sw128_at(db0, kb);
				/* the first k16 step of a tile overwrites (scale-d = 0) */
				const int accumulate = (k | kk) != 0;
				if constexpr (BN == 256)
					plk_wgmma_m64n256k16(acc + mi * NACC, da, db, accumulate);
				else if constexpr (BN == 224)
					plk_wgmma_m64n224k16(acc + mi * NACC, da, db, accumulate);
				else if constexpr (BN == 200)
					plk_wgmma_m64n200k16(acc + mi * NACC, da, db, accumulate);
				else if constexpr (BN == 192)
					plk_wgmma_m64n192k16(acc + mi * NACC, da, db, accumulate);
				else if constexpr (BN == 128)
					plk_wgmma_m64n128k16(acc + mi * NACC, da, db, accumulate);
				else if constexpr (BN == 96)
					plk_wgmma_m64n96k16(acc + mi * NACC, da, db, accumulate);
				else if constexpr (BN == 64)
					plk_wgmma_m64n64k16(acc + mi * NACC, da, db, accumulate);
				else if constexpr (BN == 32)
					plk_wgmma_m64n32k16(acc + mi * NACC, da, db, accumulate);
				else
					plk_wgmma_m64n16k16(acc + mi * NACC, da, db, accumulate);
			}
		}
		plk_wgmma_commit();
		/* Pingpong lanes: every wgmma of the tile is issued, so the next
		 * lane may start (contract: `handoff`; TURN, below); its first
		 * wgmma then queues behind this group instead of after it drains. */
		if (TURN == 2 && k == kt - 1)
			plk_ring_handoff(inst, WGMMA_MAINLOOP_PORT_AB);
		/* Keep INFLIGHT groups in flight (this stage's, and with 2 the
		 * previous one's too): the group before them has now finished
		 * reading its stage, which goes back to the producer. Two give
		 * the next k-step's waits and descriptors a whole group's time. */
		plk_wgmma_wait<INFLIGHT>();
		if (TURN == 1 && k == kt - 1) {
			if (INFLIGHT > 1)
				plk_wgmma_wait<1>();
			plk_ring_handoff(inst, WGMMA_MAINLOOP_PORT_AB);
		}
		plk_fence_regs<ACC>(acc);
		const int done = INFLIGHT == 1 ? prev : prev2;
		if (done >= 0)
			PLK_RELEASE(done);
		prev2 = prev;
		prev = s;
	}
	plk_wgmma_wait<0>();
	plk_fence_regs<ACC>(acc);
	if (INFLIGHT > 1 && prev2 >= 0)
		PLK_RELEASE(prev2);
	if (prev >= 0)
		PLK_RELEASE(prev);
	if (TURN == 0 || kt <= 0)	/* once per tile, also with no k tiles */
		plk_ring_handoff(inst, WGMMA_MAINLOOP_PORT_AB);
#undef PLK_RELEASE
#else
	(void)inst; (void)K; (void)ab; (void)acc;
	__trap();	/* contract: arch >= sm_90a */
#endif
}
