/*
 * oproj_res: ROWS rows of r + Wo attn (contract: oproj_res.plk). Thread t
 * combines head t / 8's dims 8 (t % 8) .. + 7 over the SPLIT partials
 * (each scaled by 2^(its max - the max), divided by the sum), into shared
 * memory; then warp w takes rows 8w .. 8w + 7 of the piece (rows8).
 */
#include "plk.cuh"
#include "decode.cuh"

#ifndef PLK_OPROJ_RES_PLK_H
#include <oproj_res.plk.h>
#endif

using namespace plk_decode;

PLK_ENTRY void plk_oproj_res(int inst, const float *part, const __nv_bfloat16 *w, const __nv_bfloat16 *r,
                             __nv_bfloat16 *y, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int G = NQ / NKV, NK = D / 256, E = HD + 2;
	static_assert(NQ * 8 == WARPS * 32, "one thread per head and 8 dims");
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst), t = warp * 32 + lane;
	float *attn = (float *)plk_smem(inst, OPROJ_RES_BUF_ATTN);
	{
		const int h = t / 8, d0 = (t % 8) * 8, kvh = h / G, g = h % G;
		const float *p0 = part + (size_t)(kvh * SPLIT * G + g) * E;   /* split s: + s * G * E */
		float mm = -INFINITY;
		for (int s = 0; s < SPLIT; s++)
			mm = fmaxf(mm, ld_act_f32(p0 + s * G * E + HD));
		float ll = 0.f, o[8] = {};
		for (int s = 0; s < SPLIT; s++) {
			const float *ps = p0 + s * G * E, ms = ld_act_f32(ps + HD);
			const float e = ms == -INFINITY ? 0.f : exp2f(ms - mm);
			ll += ld_act_f32(ps + HD + 1) * e;
#pragma unroll
			for (int d = 0; d < 8; d++)
				o[d] += ld_act_f32(ps + d0 + d) * e;
		}
		const float inv = ll > 0.f ? 1.f / ll : 0.f;
#pragma unroll
		for (int d = 0; d < 8; d++)
			attn[h * HD + d0 + d] = o[d] * inv;
	}
	plk_bar_sync(inst, OPROJ_RES_BAR_READY);
	float xr[NK][8];
#pragma unroll
	for (int j = 0; j < NK; j++)
#pragma unroll
		for (int i = 0; i < 8; i++)
			xr[j][i] = attn[lane * 8 + j * 256 + i];
	const int row = tile_m * ROWS + warp * 8 + lane;
	const float v = rows8<NK>(w, D, row - lane, D, xr);
	if (lane < 8 && row < D)
		y[row] = __float2bfloat16(ld_act_bf16(r + row) + v);
	plk_bar_sync(inst, OPROJ_RES_BAR_READY);   /* attn is free for the block's next piece */
}
