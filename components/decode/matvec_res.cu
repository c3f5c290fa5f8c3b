/*
 * matvec_res: ROWS rows of r + W v (contract: matvec_res.plk). Warp w
 * takes rows RB w .. RB w + RB - 1 of the piece and walks K in chunks of
 * 256 elements, UNROLL chunks a step, so that each lane has 16 loads of W
 * in flight whatever RB; the first step's before the op's wait (`early w`).
 */
#include "plk.cuh"
#include "decode.cuh"

#ifndef PLK_MATVEC_RES_PLK_H
#include <matvec_res.plk.h>
#endif

using namespace plk_decode;

PLK_ENTRY void plk_matvec_res(int inst, const __nv_bfloat16 *w, const __nv_bfloat16 *v, const __nv_bfloat16 *r,
                              __nv_bfloat16 *y, int N, int K, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int RB = ROWS / WARPS, UNROLL = 16 / RB;
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst);
	const int row0 = tile_m * ROWS + warp * RB;
	float acc[RB];
	rows_long<RB, UNROLL>(inst, w, v, row0, N, K, acc);
	const int row = row0 + lane;
	if (lane < RB && row < N)
		y[row] = __float2bfloat16(ld_act_bf16(r + row) + pick<RB>(acc, lane));
}
