/* sum_acc: W consumer warps sum the tiles of ring `t` over K into a
 * fragment: thread i of the role holds elements 4i .. 4i+3 of the 32 x 32
 * tile (W = 8: 1024 elements over 256 threads). */
#include "plk.cuh"

PLK_ENTRY void link_sum_acc(int inst, int K, plk_pipe *t, float *acc, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call: nothing in flight */
	enum { PORT_T = 0, PORT_ACC = 1 };
	const int i = plk_warp_rank(inst) * 32 + plk_lane();
#pragma unroll
	for (int j = 0; j < 4; j++)
		acc[j] = 0.f;
	for (int k = 0; k < K; k += 32) {
		const int s = plk_consume_wait(inst, PORT_T, t);
		const float *slot = (const float *)plk_ring_slot(inst, PORT_T, s);
#pragma unroll
		for (int j = 0; j < 4; j++)
			acc[j] += slot[i * 4 + j];
		plk_consume_release(inst, PORT_T, t);
	}
}
