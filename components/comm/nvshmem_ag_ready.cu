/*
 * nvshmem_ag_ready: the all-gather's `tile_ready` hook (contract:
 * nvshmem_ag_ready.plk), called by the loader before a tile's first load of
 * rows [row, row + rows). Rows of this GPU's share are here; others wait
 * for their row block's signal (set by its owner's push stage once the
 * rows landed), then order the loads after it: the loader reads them by
 * TMA, the async proxy, so the generic proxy's view is fenced to it.
 */
#include "plk.cuh"
#include <nvshmem.h>
#include <nvshmemx.h>

#ifndef PLK_NVSHMEM_AG_READY_PLK_H
#include <nvshmem_ag_ready.plk.h>
#endif

PLK_ENTRY int plk_nvshmem_ag_ready(int inst, unsigned long long *sig, int M, int epoch, int row, int rows)
{
	if (M % (nvshmem_n_pes() * BM))
		__trap();   /* as the push stage: shares of whole row blocks */
	const int share = M / nvshmem_n_pes();
	if (row / share == nvshmem_my_pe())
		return 0;
	(void)rows;   /* BM: the hook's shape is the loader's tile (E0355) */
	nvshmem_signal_wait_until((uint64_t *)sig + row / BM, NVSHMEM_CMP_GE, (uint64_t)epoch);
#if __CUDA_ARCH__ >= 900
	asm volatile("fence.proxy.async.global;" ::: "memory");
#endif
	return 0;
}
