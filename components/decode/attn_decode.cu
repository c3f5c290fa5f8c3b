/*
 * attn_decode: a piece's G = 4 query heads over its range of positions
 * (contract: attn_decode.plk). In a warp, lane group grp = lane / 8 takes
 * a position and lane sub = lane % 8 its dims 8 sub .. 8 sub + 7: a score
 * is 8 FMAs and 3 shuffles. Each group keeps an online softmax per head
 * (exp2, the scale and log2(e) folded into q), rescaled once a trip of U
 * positions; the four groups of a warp merge by shuffles, the warps
 * through shared memory, and warps 0..3 (one per head) write the piece's
 * partial. The KV head's last piece to finish (cnt, counted in and reset)
 * combines its SPLIT partials into the four heads' outputs. The cache's
 * rows before P are read early (before the wait for qkv); row P comes
 * from qkv's kn and vn and is appended here.
 */
#include "plk.cuh"
#include "decode.cuh"

#ifndef PLK_ATTN_DECODE_PLK_H
#include <attn_decode.plk.h>
#endif

using namespace plk_decode;

namespace {
constexpr int G = 4;            /* query heads per KV head */
constexpr float NEG = -INFINITY;

/* (m, l, o) merged with another partial (m2, l2, o2) */
__device__ __forceinline__ void merge(float &m, float &l, float o[8], float m2, float l2, const float o2[8])
{
	const float mm = fmaxf(m, m2);
	const float e1 = m == NEG ? 0.f : exp2f(m - mm), e2 = m2 == NEG ? 0.f : exp2f(m2 - mm);
	l = l * e1 + l2 * e2;
#pragma unroll
	for (int d = 0; d < 8; d++)
		o[d] = o[d] * e1 + o2[d] * e2;
	m = mm;
}
}

PLK_ENTRY void plk_attn_decode(int inst, const __nv_bfloat16 *q, const __nv_bfloat16 *kc, const __nv_bfloat16 *vc,
                               const __nv_bfloat16 *kn, const __nv_bfloat16 *vn, __nv_bfloat16 *ka,
                               __nv_bfloat16 *va, float *part, __nv_bfloat16 *out, unsigned *cnt, int P, int tile_m,
                               int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	static_assert(NQ == G * NKV, "four query heads per KV head");
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst), grp = lane >> 3, sub = lane & 7;
	const int kvh = tile_m / SPLIT, s = tile_m % SPLIT;
	const int n = P + 1, ch = (n + SPLIT - 1) / SPLIT, t0 = s * ch, t1 = min(n, t0 + ch);
	const size_t row = (size_t)NKV * HD, mine = kvh * HD + sub * 8;   /* a position's row; the lane's 8 dims */
	/* The loop's bound is the warp's (tb), not the group's (t): the score's
	 * shuffles name the whole warp, so all its lanes run every trip, and
	 * a group past the range folds nothing in. A trip takes U positions a
	 * group, WARPS * 4 apart, their K and V rows loaded before the first
	 * is used: the loads are one round trip to memory, not U (at 2048 rows
	 * a range is 128 positions, one trip). */
	constexpr int U = 4, STEP = WARPS * 4;
	const int first = t0 + warp * 4;
	uint4 kraw[U], vraw[U];
	/* a trip's rows before P: no op of the launch writes them (`early kc,
	 * vc`), so the first trip's go out before the wait for qkv, and the
	 * wait no longer ends in a round trip to HBM */
	auto load_old = [&](int tb) {
#pragma unroll
		for (int u = 0; u < U; u++) {
			const int t = tb + u * STEP + grp;
			kraw[u] = vraw[u] = make_uint4(0, 0, 0, 0);
			if (t < t1 && t < P) {
				kraw[u] = ld_weight(kc + t * row + mine);
				vraw[u] = ld_weight(vc + t * row + mine);
			}
		}
	};
	/* position P: qkv's k and v of this step (kn, vn: after the wait) */
	auto load_new = [&](int tb) {
#pragma unroll
		for (int u = 0; u < U; u++)
			if (tb + u * STEP + grp == P) {
				kraw[u] = ld_act(kn + mine);
				vraw[u] = ld_act(vn + mine);
			}
	};
	load_old(first);
	plk_wait_inputs(inst);   /* qkv has written q, kn and vn */
	load_new(first);
	const float qscale = rsqrtf((float)HD) * 1.4426950408889634f;
	float qr[G][8];
#pragma unroll
	for (int h = 0; h < G; h++) {
		unpack8(ld_act(q + (kvh * G + h) * HD + sub * 8), qr[h]);
#pragma unroll
		for (int d = 0; d < 8; d++)
			qr[h][d] *= qscale;
	}
	float m[G], l[G], o[G][8];
#pragma unroll
	for (int h = 0; h < G; h++) {
		m[h] = NEG, l[h] = 0.f;
#pragma unroll
		for (int d = 0; d < 8; d++)
			o[h][d] = 0.f;
	}
	for (int tb = first; tb < t1; tb += STEP * U) {
		if (tb != first) {
			load_old(tb);
			load_new(tb);
		}
		/* the trip's U scores of each head first (independent shuffles),
		 * then one rescale a head: U + 1 exp2, not 2 U */
		float sc[G][U];
#pragma unroll
		for (int u = 0; u < U; u++) {
			float kf[8];
			unpack8(kraw[u], kf);
#pragma unroll
			for (int h = 0; h < G; h++) {
				float s = 0.f;
#pragma unroll
				for (int d = 0; d < 8; d++)
					s = fmaf(qr[h][d], kf[d], s);
				sc[h][u] = s;
			}
		}
#pragma unroll
		for (int off = 1; off <= 4; off <<= 1)
#pragma unroll
			for (int h = 0; h < G; h++)
#pragma unroll
				for (int u = 0; u < U; u++)
					sc[h][u] += __shfl_xor_sync(0xffffffffu, sc[h][u], off);
		float vf[U][8];
#pragma unroll
		for (int u = 0; u < U; u++) {
			unpack8(vraw[u], vf[u]);
			if (tb + u * STEP + grp == P) {   /* the lane holds row P: it appends it to the cache */
				*reinterpret_cast<uint4 *>(ka + P * row + mine) = kraw[u];
				*reinterpret_cast<uint4 *>(va + P * row + mine) = vraw[u];
			}
		}
#pragma unroll
		for (int h = 0; h < G; h++) {
			float mm = m[h];
#pragma unroll
			for (int u = 0; u < U; u++)
				if (tb + u * STEP + grp < t1)
					mm = fmaxf(mm, sc[h][u]);
			if (mm == NEG)
				continue;   /* no position of the trip in range for this group */
			const float corr = m[h] == NEG ? 0.f : exp2f(m[h] - mm);
			l[h] *= corr;
#pragma unroll
			for (int d = 0; d < 8; d++)
				o[h][d] *= corr;
#pragma unroll
			for (int u = 0; u < U; u++) {
				const float p = tb + u * STEP + grp < t1 ? exp2f(sc[h][u] - mm) : 0.f;
				l[h] += p;
#pragma unroll
				for (int d = 0; d < 8; d++)
					o[h][d] = fmaf(p, vf[u][d], o[h][d]);
			}
			m[h] = mm;
		}
	}
	/* the four groups of the warp: xor 8, then 16 */
#pragma unroll
	for (int off = 8; off <= 16; off <<= 1)
#pragma unroll
		for (int h = 0; h < G; h++) {
			float o2[8];
#pragma unroll
			for (int d = 0; d < 8; d++)
				o2[d] = __shfl_xor_sync(0xffffffffu, o[h][d], off);
			const float m2 = __shfl_xor_sync(0xffffffffu, m[h], off), l2 = __shfl_xor_sync(0xffffffffu, l[h], off);
			merge(m[h], l[h], o[h], m2, l2, o2);
		}
	/* the warps, through shared memory: [warp][head][HD + 2] */
	float *red = (float *)plk_smem(inst, ATTN_DECODE_BUF_RED);
	if (grp == 0)
#pragma unroll
		for (int h = 0; h < G; h++) {
			float *r = red + (warp * G + h) * (HD + 2);
#pragma unroll
			for (int d = 0; d < 8; d++)
				r[sub * 8 + d] = o[h][d];
			if (sub == 0)
				r[HD] = m[h], r[HD + 1] = l[h];
		}
	plk_bar_sync(inst, ATTN_DECODE_BAR_RED);
	if (warp < G) {   /* warp h: head h; lane: dims 2 lane, 2 lane + 1 */
		const int h = warp;
		float mm = NEG;
		for (int w = 0; w < WARPS; w++)
			mm = fmaxf(mm, red[(w * G + h) * (HD + 2) + HD]);
		float ll = 0.f, o0 = 0.f, o1 = 0.f;
		for (int w = 0; w < WARPS; w++) {
			const float *r = red + (w * G + h) * (HD + 2);
			const float e = r[HD] == NEG ? 0.f : exp2f(r[HD] - mm);
			ll += r[HD + 1] * e;
			o0 += r[2 * lane] * e;
			o1 += r[2 * lane + 1] * e;
		}
		float *dst = part + (size_t)(tile_m * G + h) * (HD + 2);
		dst[2 * lane] = o0;
		dst[2 * lane + 1] = o1;
		if (lane == 0)
			dst[HD] = mm, dst[HD + 1] = ll;
		__threadfence();   /* the partial visible before the count says so */
	}
	/* The KV head's last piece to count in combines its SPLIT partials:
	 * one L2 round trip, where a combine op of its own cost a wait for
	 * this op's counter, the round trip and a wait for its own (1.8% of
	 * the decode step, bench/results/2026-12-03-decode-combine.md). The
	 * writers' fences, the barrier and the acq_rel add order every
	 * partial before the count that says it is there. */
	unsigned *flag = (unsigned *)plk_smem(inst, ATTN_DECODE_BUF_FLAG);
	plk_bar_sync(inst, ATTN_DECODE_BAR_RED);
	if (warp == 0 && lane == 0) {
		unsigned v;
		asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(v) : "l"(cnt + kvh) : "memory");
		const unsigned last = v == SPLIT - 1;
		if (last)   /* every piece of the head has counted: leave cnt zero (`zeroed`) */
			asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(cnt + kvh) : "memory");
		*flag = last;
	}
	plk_bar_sync(inst, ATTN_DECODE_BAR_RED);   /* red is free for the block's next piece */
	if (*flag && warp < G) {
		const int h = warp;
		const float *p0 = part + (size_t)(kvh * SPLIT * G + h) * (HD + 2);   /* split s: + s * G * (HD + 2) */
		float ms[SPLIT], ls[SPLIT];
		float2 os[SPLIT];
#pragma unroll
		for (int j = 0; j < SPLIT; j++) {
			const float *ps = p0 + j * G * (HD + 2);
			ms[j] = ld_act_f32(ps + HD), ls[j] = ld_act_f32(ps + HD + 1);
			os[j] = ld_act_f32x2(ps + 2 * lane);
		}
		float mm = NEG;
#pragma unroll
		for (int j = 0; j < SPLIT; j++)
			mm = fmaxf(mm, ms[j]);
		float ll = 0.f, o0 = 0.f, o1 = 0.f;
#pragma unroll
		for (int j = 0; j < SPLIT; j++) {
			const float e = ms[j] == NEG ? 0.f : exp2f(ms[j] - mm);
			ll += ls[j] * e;
			o0 += os[j].x * e, o1 += os[j].y * e;
		}
		const float inv = ll > 0.f ? 1.f / ll : 0.f;
		reinterpret_cast<__nv_bfloat162 *>(out + (kvh * G + h) * HD)[lane] = __floats2bfloat162_rn(o0 * inv, o1 * inv);
	}
}
