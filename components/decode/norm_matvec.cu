/*
 * norm_matvec: ROWS rows of W (RMSNorm(x) g) in f32 (contract:
 * norm_matvec.plk). Warp w takes ROWS / WARPS rows of the piece, 8 in two
 * batches of 4 or 4 in one, the first batch loaded before the op's wait.
 * A block runs many pieces of the LM head (4008 of 32 rows on 132
 * blocks): each warp normalises x at its first and keeps it in shared
 * memory (normed_once), so that a piece is its rows' loads and products.
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
	constexpr int NK = D / 256;
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst);
	const NormCache nc = { (float *)plk_smem(inst, NORM_MATVEC_BUF_XN) + warp * NK * 256,
	                       (unsigned *)plk_smem(inst, NORM_MATVEC_BUF_READY) + warp };
	if (tile_m == PLK_PROLOGUE) {
		norm_cache_reset(nc);
		return;
	}
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int RPW = ROWS / WARPS;   /* a warp's rows: two batches of 4, or one */
	static_assert(RPW == 8 || RPW == 4, "ROWS: 8 or 4 rows a warp");
	const int row = tile_m * ROWS + warp * RPW + lane, row0 = row - lane;
	uint4 wa[4][NK];   /* `early w`: rows row0 .. + 3 stream in while the op waits */
	rows_load<NK, 4>(w, D, row0, N, wa);
	float xr[NK][8];
	normed_once<NK>(inst, x, g, 1e-5f, nc, xr);
	float a[4], b[4] = { 0.f, 0.f, 0.f, 0.f };
	rows_fma<NK, 4>(wa, xr, a);
	if constexpr (RPW == 8)   /* the second batch, after the norm */
		rows_dot<NK, 4>(w, D, row0 + 4, N, xr, b);
	const float v = lane < 4 ? pick<4>(a, lane) : pick<4>(b, lane & 3);
	if (lane < RPW && row < N)
		y[row] = v;
}
