/*
 * attn_combine: WARPS query heads' outputs from their SPLIT partials
 * (contract: attn_combine.plk). Warp w takes head tile_m WARPS + w; lane
 * l its dims 2 l, 2 l + 1. Every lane loads all the partials' maxima and
 * sums beside its own two dims of each (one L2 round trip: the combine is
 * on the critical path between the attention and the projection), then
 * weighs split s by 2^(max_s - max) / sum.
 */
#include "plk.cuh"
#include "decode.cuh"

#ifndef PLK_ATTN_COMBINE_PLK_H
#include <attn_combine.plk.h>
#endif

using namespace plk_decode;

PLK_ENTRY void plk_attn_combine(int inst, const float *part, __nv_bfloat16 *o, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int G = NQ / NKV, E = HD + 2;
	static_assert(HD == 64, "a lane takes two of the head's 64 dims");
	const int lane = threadIdx.x & 31, h = tile_m * WARPS + plk_warp_rank(inst), kvh = h / G, g = h % G;
	const float *p0 = part + (size_t)(kvh * SPLIT * G + g) * E;   /* split s: + s * G * E */
	float ms[SPLIT], ls[SPLIT];
	float2 os[SPLIT];
#pragma unroll
	for (int s = 0; s < SPLIT; s++) {
		const float *ps = p0 + s * G * E;   /* E even: 8-byte aligned */
		ms[s] = ld_act_f32(ps + HD), ls[s] = ld_act_f32(ps + HD + 1);
		os[s] = ld_act_f32x2(ps + 2 * lane);
	}
	float mm = -INFINITY;
#pragma unroll
	for (int s = 0; s < SPLIT; s++)
		mm = fmaxf(mm, ms[s]);
	float ll = 0.f, o0 = 0.f, o1 = 0.f;
#pragma unroll
	for (int s = 0; s < SPLIT; s++) {   /* an empty range: max -inf, weight 0 */
		const float e = ms[s] == -INFINITY ? 0.f : exp2f(ms[s] - mm);
		ll += ls[s] * e;
		o0 += os[s].x * e, o1 += os[s].y * e;
	}
	const float inv = ll > 0.f ? 1.f / ll : 0.f;
	reinterpret_cast<__nv_bfloat162 *>(o + h * HD)[lane] = __floats2bfloat162_rn(o0 * inv, o1 * inv);
}
