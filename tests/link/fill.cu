/* fill: one producer warp; for each 32-wide step of K it writes a 32 x 32
 * f32 tile whose values depend on (tile_m, tile_n, step) into ring `t`. */
#include "plk.cuh"

PLK_ENTRY void link_fill(int inst, int K, plk_pipe *t, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call: nothing in flight */
	enum { PORT_T = 0 };
	for (int k = 0; k < K; k += 32) {
		const int s = plk_produce_acquire(inst, PORT_T, t);
		float *slot = (float *)plk_ring_slot(inst, PORT_T, s);
		for (int i = plk_lane(); i < 32 * 32; i += 32)
			slot[i] = (float)(tile_m * 7 + tile_n * 3 + k / 32 + i % 5);
		plk_produce_commit(inst, PORT_T, t);
	}
}
