/*
 * nvshmem_ag_push: the all-gather's comm stage (contract: nvshmem_ag_push.plk).
 * One warp per block; its work is the block's, not a tile's, so it runs
 * in the prologue call (tile_m == PLK_PROLOGUE): the block's share of
 * this GPU's row blocks of A, each put to every other GPU with a signal
 * set to `epoch` once the rows have landed there (put-with-signal
 * orders the two). Peers are visited from the next one round, so that
 * P - 1 GPUs do not all write to the same one at once. The flush call
 * waits for the block's puts (nvshmem_quiet) before the kernel ends.
 */
#include "plk.cuh"
#include <nvshmem.h>
#include <nvshmemx.h>

#ifndef PLK_NVSHMEM_AG_PUSH_PLK_H
#include <nvshmem_ag_push.plk.h>
#endif

PLK_ENTRY void plk_nvshmem_ag_push(int inst, __nv_bfloat16 *a, unsigned long long *sig, int M, int K,
                                   int epoch, int tile_m, int tile_n)
{
	if (tile_m == PLK_FLUSH) {
		nvshmem_quiet();   /* every put of this block delivered, signals included */
		return;
	}
	if (tile_m != PLK_PROLOGUE)
		return;            /* tiles: nothing of its own */
	const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
	if (M % (npes * BM))
		__trap();   /* each GPU's share is whole row blocks: else a launch error, never a wrong C */
	const int share = M / npes;                    /* rows per GPU */
	const int blocks = share / BM;                 /* row blocks per GPU */
	const size_t bytes = (size_t)BM * K * sizeof(__nv_bfloat16);
	for (int i = blockIdx.x; i < blocks; i += gridDim.x) {
		const int rb = me * blocks + i;            /* the row block, in all of A */
		__nv_bfloat16 *rows = a + (size_t)rb * BM * K;
		for (int d = 1; d < npes; d++)
			nvshmemx_putmem_signal_nbi_warp(rows, rows, bytes, (uint64_t *)sig + rb, (uint64_t)epoch,
			                                NVSHMEM_SIGNAL_SET, (me + d) % npes);
	}
}
