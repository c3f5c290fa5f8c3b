/*
 * tma_load_ab: one producer warp streams the A (BM x BK) and B (BN x BK)
 * tiles of one output tile through the ring behind port `ab`, K-major,
 * 128B-swizzled, each stage completing on its full barrier by TMA
 * transaction count. Contract: tma_load_ab.plk. The K tiles of a work
 * item are [k_first, k_first + k_count): all of them, or under a split
 * grid one split's share (`split`, docs/abi.md). With its `ready` hook
 * connected, a tile's A rows are waited for first (docs/comm.md).
 *
 * A box is 64 columns (one 128-byte swizzle row), so a BK of 128 or 256 is
 * BK / 64 boxes per operand per stage, box c of a ROWS-row tile at byte
 * c * ROWS * 128 (the layout wgmma_mainloop reads).
 *
 * MCAST = 2 (a 2 x 1 cluster, the glue pairing tile rows 2m and 2m + 1 on
 * the same tile column): each CTA loads its own A tile and half of the
 * shared B tile (its half of the rows of each box), multicast to the same
 * slot offsets in both CTAs; each CTA's full barrier still expects the
 * whole slot, and its empty barrier counts the consumers of both CTAs
 * (wgmma_mainloop with the same MCAST), so no slot is overwritten while
 * either CTA still reads it.
 *
 * MCAST = 4 (a 2 x 2 cluster: the CTA at (x, y) of its cluster, rank
 * x + 2y, takes tile (2m + x, 2n + y)): the two CTAs of a tile column
 * (same y) share B as above, the two of a tile row (same x) share A, and
 * each loads half of each: B's rows of half x, A's rows of half y. Its
 * slot receives the other halves from its row and column partners; the
 * empty barrier counts all four CTAs' consumers (the diagonal one writes
 * nothing here, but releasing to the whole cluster keeps the four in
 * step at no cost the measurements could see).
 *
 * MCAST = 4 with BWAYS = 4 (a 4 x 1 cluster: rank x takes tile row
 * 4m + x of tile column n): the four share B, each loading rows
 * [x BN / 4, (x + 1) BN / 4) of each box to all four, and load their own
 * A tiles. B is read from L2 once for four tiles, not twice: where K's
 * rows are no whole 32-byte sectors each B row is the costly request
 * (bench/results/2026-12-06-tma-rows-sectors.md). A share of B need not
 * be whole 8-row swizzle atoms (BN = 200: 50 rows a CTA): the TMA
 * swizzles by the shared-memory address, so a share that lands mid-atom
 * writes the bytes the whole box would (bench/results/2026-12-06-cublas-tiles.md).
 *
 * ABOXES > 1: A's tile is ABOXES boxes of BM / ABOXES rows down the
 * slot, and a box wholly past M is neither loaded nor counted in the
 * stage's bytes. Why: the pingpong tiles' time grows with the rows of a
 * last tile row that lie past M (bench/results/2026-12-07-shape-suite-run19-h100.md),
 * and the TMA fills those rows with zeros, more slowly than it loads
 * rows. But a box costs the TMA about as long whatever its rows, so the
 * extra boxes cost more than they save except at a few shapes
 * (bench/results/2026-12-07-a-boxes.md): no recipe sets it.
 * The rows not loaded hold whatever the slot last held, so the
 * accumulator's rows past M are undefined: a GEMM's row i depends on A's
 * row i alone, and every store clips at M.
 *
 * AHINT, BHINT: each operand's L2 eviction hint (PLK_L2_NORMAL, _FIRST,
 * _LAST: plk.cuh): at a decode-sized M the weights are read once and the
 * activations by every tile.
 *
 * Like every component source it may be included into one unit with others
 * (the monolithic build): everything but the entry and its guarded header
 * is local to it.
 */
#include "plk.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_TMA_LOAD_AB_PLK_H
#include <tma_load_ab.plk.h>
#endif

PLK_ENTRY void plk_tma_load_ab(int inst, const void *a, const void *b, int K, int M, plk_pipe *ab, const void *ready,
                               int tile_m, int tile_n, int k_first, int k_count)
{
	if (tile_m < 0)
		return;	/* the flush call: nothing asynchronous left behind */
	constexpr unsigned B_BYTES = BN * BK * 2;
	constexpr int BOXES = BK / 64;		/* 64-column boxes per operand per stage */
	constexpr unsigned A_BOX = BM * 128, B_BOX = BN * 128;	/* a box's bytes in the slot */
	constexpr int AROWS = BM / ABOXES;	/* rows of one A box (ABOXES of them down a tile) */
	static_assert(AROWS % 8 == 0, "an A box is whole 8-row swizzle atoms, so each lands where the whole tile's rows would");
	static_assert(ABOXES == 1 || MCAST == BWAYS, "ABOXES > 1: A is not shared across the cluster");
	static_assert(BK % 64 == 0, "sw128: a stage is whole boxes of 64 bf16 columns, one 128-byte swizzle row each");
	static_assert(BM <= 256 && BN <= 256, "a TMA box dimension is at most 256 elements");
	static_assert(BM % 64 == 0, "A's tile is whole 64-row wgmma blocks");
	static_assert(MCAST == 1 || MCAST == 2 || MCAST == 4, "MCAST: 1, 2 (B shared in 2 x 1 clusters) or 4 (2 x 2, 4 x 1)");
	static_assert(BWAYS >= 1 && MCAST % BWAYS == 0, "BWAYS: the cluster's tile rows, dividing MCAST");
	constexpr int MB = BWAYS, MA = MCAST / BWAYS;	/* CTAs sharing each B, each A tile */
	static_assert(BN % MB == 0 && BM % (8 * MA) == 0,
	              "each CTA's share of a tile: whole rows of B, whole 8-row swizzle atoms of A");

#if __CUDA_ARCH__ >= 900
	/* the work item's K tiles: all ceil(K / BK), or its split's share */
	(void)K;
	const int row0 = tile_m * BM;	/* the tile's first row of A */
	/* A's rows may come from another GPU (an all-gather's comm stage):
	 * wait for them; unconnected, the default returns at once */
	plk_tile_ready(inst, TMA_LOAD_AB_PORT_READY, ready, row0, BM);
	static_assert(AHINT >= 0 && AHINT <= 2 && BHINT >= 0 && BHINT <= 2, "AHINT, BHINT: PLK_L2_NORMAL, _FIRST or _LAST");
	const uint64_t apol = plk_l2_policy(AHINT), bpol = plk_l2_policy(BHINT);
	/* A's boxes that hold a row of M (all but the last tile row: all);
	 * those wholly past it are neither loaded nor expected */
	const int aboxes = ABOXES == 1 ? 1 : min(ABOXES, max(0, (M - row0 + AROWS - 1) / AROWS));
	const unsigned a_bytes = (unsigned)aboxes * AROWS * BK * 2;
	/* column box c of K tile k of A, unshared: those row boxes, down the slot */
	auto load_a = [&](char *sa, void *full, int k, int c) {
		for (int q = 0; q < aboxes; q++)
			plk_tma_load_2d_l2<AHINT>(sa + c * A_BOX + q * (AROWS * 128), a, full, k * BK + c * 64,
			                          row0 + q * AROWS, apol);
	};
	for (int k = k_first; k < k_first + k_count; k++) {
		const int s = plk_produce_acquire(inst, TMA_LOAD_AB_PORT_AB, ab);
		/* Announce the stage's bytes first: the phase cannot complete
		 * before every box lands, zero-filled parts (or whole boxes past
		 * K) outside the tensor included. */
		plk_produce_expect_tx(inst, TMA_LOAD_AB_PORT_AB, ab, a_bytes + B_BYTES);
		if (plk_lane() == 0) {
			void *full = plk_ring_full(inst, TMA_LOAD_AB_PORT_AB, s);
			char *sa = (char *)plk_ring_ptr(inst, TMA_LOAD_AB_PORT_AB, s, TMA_LOAD_AB_FIELD_AB_A);
			char *sb = (char *)plk_ring_ptr(inst, TMA_LOAD_AB_PORT_AB, s, TMA_LOAD_AB_FIELD_AB_B);
#pragma unroll
			for (int c = 0; c < BOXES; c++) {
#if MCAST == 1
				load_a(sa, full, k, c);
				plk_tma_load_2d_l2<BHINT>(sb + c * B_BOX, b, full, k * BK + c * 64, tile_n * BN, bpol);
#else
				/* this CTA's rows of box c (the tensormaps' boxes are
				 * BN / MB and BM / MA rows), to the same offset of its
				 * partners' slots: B to its tile column's MB CTAs (ranks
				 * MB y .. MB y + MB - 1), A to its tile row's (x, x + 2) */
				const unsigned r = plk_cluster_ctarank(), x = r % MB, y = r / MB;
				if constexpr (MA == 2) {
					constexpr int AHALF = BM / MA;
					plk_tma_load_2d_mcast_l2<AHINT>(sa + c * A_BOX + y * (AHALF * 128), a, full, k * BK + c * 64,
					                                row0 + (int)y * AHALF, (uint16_t)(5u << x), apol);
				} else {
					load_a(sa, full, k, c);
				}
				constexpr int BROWS = BN / MB;
				plk_tma_load_2d_mcast_l2<BHINT>(sb + c * B_BOX + x * (BROWS * 128), b, full, k * BK + c * 64,
				                                tile_n * BN + (int)x * BROWS,
				                                (uint16_t)(((1u << MB) - 1) << (MB * y)), bpol);
#endif
			}
		}
	}
#else
	__trap();	/* contract: arch >= sm_90 */
#endif
}
