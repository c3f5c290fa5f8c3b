/* store: runs on sum_acc's warps; stages the fragment through its private
 * buffer `stage` (named barrier `sync` between the phases) and writes the
 * 32 x 32 tile to y[tile_m * 32 + r, tile_n * 32 + c] with coalesced rows. */
#include "plk.cuh"

PLK_ENTRY void link_store(int inst, float *y, int N, float *acc, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call: nothing in flight */
	enum { PORT_ACC = 0 };
	enum { BUF_STAGE = 0 };
	enum { BAR_SYNC = 0 };
	float *buf = (float *)plk_smem(inst, BUF_STAGE);
	const int n = plk_role_warps(inst) * 32, i = plk_warp_rank(inst) * 32 + plk_lane();
#pragma unroll
	for (int j = 0; j < 4; j++)
		buf[i * 4 + j] = acc[j];
	plk_bar_sync(inst, BAR_SYNC);
	for (int e = i; e < 32 * 32; e += n)
		y[(size_t)(tile_m * 32 + e / 32) * N + tile_n * 32 + e % 32] = buf[e];
	plk_bar_sync(inst, BAR_SYNC);	/* the next tile reuses buf */
}
