/*
 * nvshmem_rank_order: work item t -> its tile (contract:
 * nvshmem_rank_order.plk). The grouped raster of plk_raster_grouped over
 * the tile rows, then rotated by a GPU's share of them: GPU r of P
 * begins at tile row (r + SHIFT) tiles_m / P: with SHIFT 0 its own rows
 * of A, which need no wait, meeting another GPU's rows in the order that
 * GPU's push stage sends them (its own first); with SHIFT 1 the next
 * GPU's, its own last. Every role of the kernel asks the same
 * order, so they agree on each work item's tile.
 */
#include "plk.cuh"
#include <nvshmem.h>

#ifndef PLK_NVSHMEM_RANK_ORDER_PLK_H
#include <nvshmem_rank_order.plk.h>
#endif

PLK_ENTRY int plk_nvshmem_rank_order_m(int inst, int GROUP, int t, int tiles_m, int tiles_n)
{
	int tm, tn;
	plk_raster_grouped(t, tiles_m, tiles_n, GROUP, &tm, &tn);
	const int npes = nvshmem_n_pes();
	const int shift = (nvshmem_my_pe() + SHIFT) % npes * (tiles_m / npes);
	return (tm + shift) % tiles_m;
}

PLK_ENTRY int plk_nvshmem_rank_order_n(int inst, int GROUP, int t, int tiles_m, int tiles_n)
{
	int tm, tn;
	plk_raster_grouped(t, tiles_m, tiles_n, GROUP, &tm, &tn);
	return tn;
}
