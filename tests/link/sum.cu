/* sum: W consumer warps; warp w adds up column `lane` of the rows
 * r = w (mod W) of every tile of ring `t` and writes it to
 * y[(tile_m * W + w) * N + tile_n * 32 + lane]. */
#include "plk.cuh"

PLK_ENTRY void link_sum(int inst, float *y, int N, int K, plk_pipe *t, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call: nothing in flight */
	enum { PORT_T = 0 };
	const int w = plk_warp_rank(inst), W = plk_role_warps(inst), lane = plk_lane();
	float acc = 0.f;
	for (int k = 0; k < K; k += 32) {
		const int s = plk_consume_wait(inst, PORT_T, t);
		const float *slot = (const float *)plk_ring_slot(inst, PORT_T, s);
		for (int r = w; r < 32; r += W)
			acc += slot[r * 32 + lane];
		plk_consume_release(inst, PORT_T, t);
	}
	y[(size_t)(tile_m * W + w) * N + tile_n * 32 + lane] = acc;
}
