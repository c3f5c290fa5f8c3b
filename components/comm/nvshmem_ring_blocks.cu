/*
 * nvshmem_ring_blocks: context-parallel attention's block order (contract:
 * nvshmem_ring_blocks.plk): visit i of a q block is key block j of GPU
 * (r - i / per) mod P's share, j = i mod per, per = SKV / (P BN) blocks a
 * GPU. None is partial: the shares are whole blocks (the push stage traps
 * otherwise). Online softmax makes the sum the same in any order.
 */
#include "plk.cuh"
#include <nvshmem.h>
#include <nvshmemx.h>

#ifndef PLK_NVSHMEM_RING_BLOCKS_PLK_H
#include <nvshmem_ring_blocks.plk.h>
#endif

PLK_ENTRY int plk_nvshmem_ring_blocks_count(int inst, int SKV, int b, int h, int qb)
{
	return SKV / BN;
}

PLK_ENTRY int plk_nvshmem_ring_blocks_at(int inst, int SKV, int b, int h, int qb, int i)
{
	const int npes = nvshmem_n_pes(), per = SKV / (npes * BN);
	const int owner = (nvshmem_my_pe() - i / per + npes) % npes;
	return (owner * per + i % per) << 1;   /* whole: not partial */
}
