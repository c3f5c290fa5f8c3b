/*
 * gateup_silu: 32 features of silu(Wg xn) x (Wu xn) (contract:
 * gateup_silu.plk). Warp w takes features 4w .. 4w + 3 of the piece: their
 * gate rows and their up rows, so that lane j < 4 has both of feature
 * 4w + j.
 */
#include "plk.cuh"
#include "decode.cuh"

#ifndef PLK_GATEUP_SILU_PLK_H
#include <gateup_silu.plk.h>
#endif

using namespace plk_decode;

PLK_ENTRY void plk_gateup_silu(int inst, const __nv_bfloat16 *w, const __nv_bfloat16 *x, const __nv_bfloat16 *g,
                               __nv_bfloat16 *y, int F, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int NK = D / 256, FEAT = 32, PER = FEAT / WARPS;
	static_assert(PER == 4, "a warp takes 4 features: rows2_normed<NK, 4> and lanes 0..3");
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst);
	const int base = tile_m * 2 * FEAT + warp * PER;
	float gate[PER], up[PER];   /* `early w`: the gate rows stream in while the op waits */
	rows2_normed<NK, PER>(inst, w, D, base, base + FEAT, 2 * F, x, g, 1e-5f, gate, up);
	const int f = tile_m * FEAT + warp * PER + lane;
	if (lane < PER && f < F) {
		const float a = pick<PER>(gate, lane), b = pick<PER>(up, lane);
		y[f] = __float2bfloat16(a / (1.f + __expf(-a)) * b);
	}
}
