/*
 * norm_matvec: 64 rows of W (RMSNorm(x) g) in f32 (contract:
 * norm_matvec.plk). Warp w takes rows 8w .. 8w + 7 of the piece, in two
 * batches of 4, the first loaded before the op's wait.
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
	const int row = tile_m * 8 * WARPS + warp * 8 + lane, row0 = row - lane;
	float a[4], b[4];   /* `early w`: rows row0 .. + 3 stream in while the op waits */
	rows2_normed<NK, 4>(inst, w, D, row0, row0 + 4, N, x, g, 1e-5f, a, b);
	const float v = lane < 4 ? pick<4>(a, lane) : pick<4>(b, lane & 3);
	if (lane < 8 && row < N)
		y[row] = v;
}
