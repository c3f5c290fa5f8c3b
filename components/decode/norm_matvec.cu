/*
 * norm_matvec: 64 rows of W (RMSNorm(x) g) in f32 (contract:
 * norm_matvec.plk). Warp w takes rows 8w .. 8w + 7 of the piece (rows8).
 */
#include "plk.cuh"
#include "decode.cuh"

#ifndef PLK_NORM_MATVEC_PLK_H
#include <norm_matvec.plk.h>
#endif

using namespace plk_decode;

PLK_ENTRY void plk_norm_matvec(int inst, const __nv_bfloat16 *w, const __nv_bfloat16 *x, const __nv_bfloat16 *g,
                               float *y, int N, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int NK = D / 256;
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst);
	float xr[NK][8];
	load_normed<NK>(x, g, 1e-5f, xr);
	const int row = tile_m * 8 * WARPS + warp * 8 + lane;
	const float v = rows8<NK>(w, D, row - lane, N, xr);
	if (lane < 8 && row < N)
		y[row] = v;
}
