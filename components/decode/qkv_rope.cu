/*
 * qkv_rope: a head's 64 rows of q, k or v for the token at position P, or
 * part of them (contract: qkv_rope.plk). Of the head's part p (32 / PARTS
 * rotate-half pairs), warp w takes the pairs i and i + 32 for
 * i = p 32 / PARTS + w PAIRS + j, j < PAIRS, so that both halves of a pair
 * meet in one warp and RoPE needs no shared memory: lane j < PAIRS writes
 * pair i.
 */
#include "plk.cuh"
#include "decode.cuh"

#ifndef PLK_QKV_ROPE_PLK_H
#include <qkv_rope.plk.h>
#endif

using namespace plk_decode;

PLK_ENTRY void plk_qkv_rope(int inst, const __nv_bfloat16 *w, const __nv_bfloat16 *x, const __nv_bfloat16 *g,
                            __nv_bfloat16 *q, __nv_bfloat16 *kc, __nv_bfloat16 *vc, int P, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int NK = D / 256, HALF = HD / 2, PAIRS = HALF / (WARPS * PARTS);
	static_assert(PAIRS >= 1 && PAIRS * WARPS * PARTS == HALF, "every warp takes as many rotate-half pairs");
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst), head = tile_m / PARTS;
	const int first = (tile_m % PARTS) * (HALF / PARTS) + warp * PAIRS;   /* the warp's first pair */
	const int base = head * HD + first, rows = (NQ + 2 * NKV) * HD;
	float lo[PAIRS], hi[PAIRS];   /* `early w`: the lo rows stream in while the op waits */
	rows2_normed<NK, PAIRS>(inst, w, D, base, base + HALF, rows, x, g, 1e-5f, lo, hi);
	if (lane >= PAIRS)
		return;
	const int i = first + lane;   /* the pair: dims i and i + HALF of the head */
	float a = pick<PAIRS>(lo, lane), b = pick<PAIRS>(hi, lane);
	const size_t row = APPEND ? (size_t)P * NKV * HD : 0;   /* k and v: the cache's row P, or a row of their own */
	__nv_bfloat16 *dst;
	if (head < NQ + NKV) {   /* q or k: rotated by P x theta^(-2i / HD) */
		const float inv = exp2f(-(float)(2 * i) / (float)HD * log2f((float)THETA));
		float s, c;
		sincosf((float)P * inv, &s, &c);
		const float ra = a * c - b * s, rb = b * c + a * s;
		a = ra, b = rb;
		dst = head < NQ ? q + head * HD : kc + row + (head - NQ) * HD;
	} else
		dst = vc + row + (head - NQ - NKV) * HD;
	dst[i] = __float2bfloat16(a);
	dst[i + HALF] = __float2bfloat16(b);
}
