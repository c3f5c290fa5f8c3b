/*
 * oproj_res: ROWS rows of r + Wo attn (contract: oproj_res.plk). Thread t
 * combines head t / 8's dims 8 (t % 8) .. + 7 over the SPLIT partials
 * (each scaled by 2^(its max - the max), divided by the sum), into shared
 * memory; then warp w takes rows RPW w .. RPW w + RPW - 1 of the piece,
 * RPW = ROWS / WARPS (rows8 for 8).
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
		/* CH splits' loads at once, then merged: one L2 round trip per
		 * CH splits rather than one per load (the combine is on every
		 * piece's critical path) */
		constexpr int CH = SPLIT < 8 ? SPLIT : 8;
		static_assert(SPLIT % CH == 0, "whole batches of splits");
		float mm = -INFINITY, ll = 0.f, o[8] = {};
		for (int s0 = 0; s0 < SPLIT; s0 += CH) {
			float ms[CH], ls[CH];
			float2 os[CH][4];
#pragma unroll
			for (int c = 0; c < CH; c++) {
				const float *ps = p0 + (s0 + c) * G * E;   /* E even: 8-byte aligned */
				ms[c] = ld_act_f32(ps + HD), ls[c] = ld_act_f32(ps + HD + 1);
#pragma unroll
				for (int d = 0; d < 4; d++)
					os[c][d] = ld_act_f32x2(ps + d0 + 2 * d);
			}
			float bm = mm;
#pragma unroll
			for (int c = 0; c < CH; c++)
				bm = fmaxf(bm, ms[c]);
			const float sc = mm == -INFINITY ? 0.f : exp2f(mm - bm);   /* the batches before, rescaled */
			ll *= sc;
#pragma unroll
			for (int d = 0; d < 8; d++)
				o[d] *= sc;
#pragma unroll
			for (int c = 0; c < CH; c++) {
				const float e = ms[c] == -INFINITY ? 0.f : exp2f(ms[c] - bm);
				ll += ls[c] * e;
#pragma unroll
				for (int d = 0; d < 4; d++)
					o[2 * d] += os[c][d].x * e, o[2 * d + 1] += os[c][d].y * e;
			}
			mm = bm;
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
	constexpr int RPW = ROWS / WARPS;
	const int row0 = tile_m * ROWS + warp * RPW, row = row0 + lane;
	float v;
	if constexpr (RPW == 8) {
		v = rows8<NK>(w, D, row0, D, xr);
	} else {
		float acc[RPW];
		rows_dot<NK, RPW>(w, D, row0, D, xr, acc);
		v = pick<RPW>(acc, lane % RPW);
	}
	if (lane < RPW && row < D)
		y[row] = __float2bfloat16(ld_act_bf16(r + row) + v);
	plk_bar_sync(inst, OPROJ_RES_BAR_READY);   /* attn is free for the block's next piece */
}
