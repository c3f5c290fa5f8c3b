/*
 * matvec: y = W v (or y += W v with ACC) for one piece of ROWS rows, on
 * WARPS warps (contract: matvec.plk). Batch-1 decode is bound by
 * streaming W once: each warp takes rows warp, warp + WARPS, ... of the
 * piece, RB at a time, and walks K in chunks of 32 lanes x 8 elements, so
 * that every lane keeps RB x UNROLL 16-byte loads of W in flight. v comes
 * through L2 (decode.cuh: another block may have written it in this
 * megakernel launch).
 */
#include "plk.cuh"
#include "decode.cuh"

#ifndef PLK_MATVEC_PLK_H
#include <matvec.plk.h>
#endif

using namespace plk_decode;

PLK_ENTRY void plk_matvec(int inst, const __nv_bfloat16 *w, const __nv_bfloat16 *v, __nv_bfloat16 *y, int N, int K,
                          int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int RB = 4, UNROLL = 4;   /* rows at once; 256-element chunks of K a step */
	static_assert(ROWS % WARPS == 0, "every warp takes as many rows");
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst);
	const int row0 = tile_m * ROWS;
	for (int r = row0 + warp * RB; r < row0 + ROWS && r < N; r += WARPS * RB) {
		float acc[RB];
		rows_long<RB, UNROLL>(inst, w, v, r, N, K, acc);
		if (lane < RB && r + lane < N) {
			float out = pick<RB>(acc, lane);
			if (ACC)
				out += ld_act_bf16(y + r + lane);
			y[r + lane] = __float2bfloat16(out);
		}
	}
}
