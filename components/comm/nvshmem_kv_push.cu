/*
 * nvshmem_kv_push: context-parallel attention's comm stage (contract:
 * nvshmem_kv_push.plk). One warp per block; in the prologue call
 * (tile_m == PLK_PROLOGUE) it puts the block's share of this GPU's key
 * blocks to every other GPU: for each peer, the block's K and V rows of
 * every (batch, KV head), BN x HD contiguous elements each; once all but
 * the last completed (nvshmem_quiet), the last carries the block's signal,
 * set to `epoch`.
 * Peers are visited from the next one round,
 * as the all-gather of nvshmem_ag_push does, so GPU r hears first from
 * GPU r - 1, whose keys nvshmem_ring_blocks visits right after r's own.
 * The flush call waits for the block's puts (nvshmem_quiet).
 */
#include "plk.cuh"
#include <nvshmem.h>
#include <nvshmemx.h>

#ifndef PLK_NVSHMEM_KV_PUSH_PLK_H
#include <nvshmem_kv_push.plk.h>
#endif

PLK_ENTRY void plk_nvshmem_kv_push(int inst, __nv_bfloat16 *k, __nv_bfloat16 *v, unsigned long long *sig, int B,
                                   int HKV, int SKV, int epoch, int tile_m, int tile_n)
{
	if (tile_m == PLK_FLUSH) {
		nvshmem_quiet();   /* every put of this block delivered, signals included */
		return;
	}
	if (tile_m != PLK_PROLOGUE)
		return;            /* tiles: nothing of its own */
	const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
	if (SKV % (npes * BN))
		__trap();   /* each GPU's share is whole key blocks: else a launch error, never a wrong O */
	const int blocks = SKV / npes / BN;            /* key blocks per GPU */
	const int heads = B * HKV;
	const size_t bytes = (size_t)BN * HD * sizeof(__nv_bfloat16);
	for (int i = blockIdx.x; i < blocks; i += gridDim.x) {
		const int kb = me * blocks + i;            /* the key block, in all of SKV */
		for (int d = 1; d < npes; d++) {
			const int pe = (me + d) % npes;
			/* every segment but the block's last V: puts with a signal
			 * that adds 0 (NVSHMEM inlines the signalling puts whole;
			 * its plain put's remote path is a call, and one call in the
			 * kernel makes ptxas serialize all of its wgmmas, C7509) */
			for (int bh = 0; bh < heads; bh++) {
				const size_t at = ((size_t)bh * SKV + (size_t)kb * BN) * HD;
				nvshmemx_putmem_signal_nbi_warp(k + at, k + at, bytes, (uint64_t *)sig + kb, 0,
				                                NVSHMEM_SIGNAL_ADD, pe);
				if (bh + 1 < heads)
					nvshmemx_putmem_signal_nbi_warp(v + at, v + at, bytes, (uint64_t *)sig + kb, 0,
					                                NVSHMEM_SIGNAL_ADD, pe);
			}
			/* those completed, the last carries the block's signal */
			nvshmem_quiet();
			const size_t last = ((size_t)(heads - 1) * SKV + (size_t)kb * BN) * HD;
			nvshmemx_putmem_signal_nbi_warp(v + last, v + last, bytes, (uint64_t *)sig + kb, (uint64_t)epoch,
			                                NVSHMEM_SIGNAL_SET, pe);
		}
	}
}
