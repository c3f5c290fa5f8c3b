/*
 * attn_decode_cute: one piece of split-KV decode attention (contract:
 * attn_decode_cute.plk) in CuTe's terms. Every buffer is a cute::Tensor
 * over its layout: the KV cache as (position, kv head, chunk, element),
 * so that a lane's view of its 8 dims of its KV head is one slice, and a
 * position's 8 elements are one 16-byte vectorised copy into a register
 * fragment. The algorithm is attn_decode's (lane groups of 8 per
 * position, an online softmax per query head in exp2, merged across the
 * groups by shuffles and across the warps in shared memory; the KV head's
 * last piece to count in combines the partials), so that the two objects
 * are interchangeable behind one contract.
 */
#include "plk.cuh"
#include <cute/tensor.hpp>
#include <cuda_bf16.h>

#ifndef PLK_ATTN_DECODE_CUTE_PLK_H
#include <attn_decode_cute.plk.h>
#endif

namespace {
using namespace cute;
using bf16 = cutlass::bfloat16_t;
constexpr int G = 4;            /* query heads per KV head */

/* (m, l, o) merged with (m2, l2, o2); -inf is an empty partial */
template <class Frag>
__device__ __forceinline__ void merge(float &m, float &l, Frag &&o, float m2, float l2, const float (&o2)[8])
{
	const float mm = fmaxf(m, m2);
	const float e1 = m == -INFINITY ? 0.f : exp2f(m - mm), e2 = m2 == -INFINITY ? 0.f : exp2f(m2 - mm);
	l = l * e1 + l2 * e2;
	CUTE_UNROLL
	for (int d = 0; d < 8; d++)
		o(d) = o(d) * e1 + o2[d] * e2;
	m = mm;
}
}

PLK_ENTRY void plk_attn_decode_cute(int inst, const __nv_bfloat16 *q_, const __nv_bfloat16 *kc_,
                                    const __nv_bfloat16 *vc_, const __nv_bfloat16 *kn_, const __nv_bfloat16 *vn_,
                                    __nv_bfloat16 *ka_, __nv_bfloat16 *va_, float *part_, __nv_bfloat16 *o_,
                                    unsigned *cnt, int P, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	static_assert(NQ == G * NKV && HD == 64, "four query heads per KV head, 64 dims in 8 chunks of 8");
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst), grp = lane >> 3, sub = lane & 7;
	const int kvh = tile_m / SPLIT, s = tile_m % SPLIT;
	const int n = P + 1, ch = (n + SPLIT - 1) / SPLIT, t0 = s * ch, t1 = min(n, t0 + ch);

	/* the global buffers as tensors */
	auto qp = reinterpret_cast<const bf16 *>(q_);
	Tensor gQ = make_tensor(make_gmem_ptr(qp), make_layout(make_shape(Int<NKV>{}, Int<G>{}, Int<8>{}, Int<8>{}),
	                                                       GenRowMajor{}));             /* (kvh, g, chunk, e) */
	auto kv_layout = make_layout(make_shape(n, Int<NKV>{}, Int<8>{}, Int<8>{}),
	                             make_stride(NKV * HD, Int<HD>{}, Int<8>{}, Int<1>{})); /* (t, kvh, chunk, e) */
	Tensor gK = make_tensor(make_gmem_ptr(reinterpret_cast<const bf16 *>(kc_)), kv_layout);
	Tensor gV = make_tensor(make_gmem_ptr(reinterpret_cast<const bf16 *>(vc_)), kv_layout);
	auto new_layout = make_layout(make_shape(Int<NKV>{}, Int<8>{}, Int<8>{}), GenRowMajor{});   /* (kvh, chunk, e) */
	Tensor gKn = make_tensor(make_gmem_ptr(reinterpret_cast<const bf16 *>(kn_)), new_layout);   /* position P */
	Tensor gVn = make_tensor(make_gmem_ptr(reinterpret_cast<const bf16 *>(vn_)), new_layout);
	Tensor gKa = make_tensor(make_gmem_ptr(reinterpret_cast<bf16 *>(ka_)), kv_layout);         /* row P appended */
	Tensor gVa = make_tensor(make_gmem_ptr(reinterpret_cast<bf16 *>(va_)), kv_layout);
	Tensor gP = make_tensor(make_gmem_ptr(part_), make_layout(make_shape(Int<NKV * SPLIT>{}, Int<G>{}, Int<HD + 2>{}),
	                                                          GenRowMajor{}));           /* (piece, g, o | m | l) */
	Tensor sRed = make_tensor(make_smem_ptr((float *)plk_smem(inst, ATTN_DECODE_CUTE_BUF_RED)),
	                          make_layout(make_shape(Int<WARPS>{}, Int<G>{}, Int<HD + 2>{}), GenRowMajor{}));

	/* this lane's slices: its KV head's chunk `sub` at every position */
	Tensor tK = gK(_, kvh, sub, _);                                                     /* (t, e) */
	Tensor tV = gV(_, kvh, sub, _);
	const float qscale = rsqrtf((float)HD) * 1.4426950408889634f;
	Tensor rQ = make_tensor<float>(make_shape(Int<G>{}, Int<8>{}));
	Tensor rO = make_tensor<float>(make_shape(Int<G>{}, Int<8>{}));
	float m[G], l[G];
	CUTE_UNROLL
	for (int h = 0; h < G; h++) {
		Tensor qh = make_tensor<bf16>(Shape<_8>{});
		copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gQ(kvh, h, sub, _), qh);
		CUTE_UNROLL
		for (int e = 0; e < 8; e++)
			rQ(h, e) = float(qh(e)) * qscale, rO(h, e) = 0.f;
		m[h] = -INFINITY, l[h] = 0.f;
	}
	Tensor rK = make_tensor<bf16>(Shape<_8>{});
	Tensor rV = make_tensor<bf16>(Shape<_8>{});
	/* the warp's bound, not the group's: the shuffles name the whole warp */
	for (int tb = t0 + warp * 4; tb < t1; tb += WARPS * 4) {
		const int t = tb + grp;
		const bool in = t < t1;
		if (in && t == P) {   /* this step's row, from the op before: appended to the cache */
			copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gKn(kvh, sub, _), rK);
			copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, gVn(kvh, sub, _), rV);
			copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rK, gKa(t, kvh, sub, _));
			copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, rV, gVa(t, kvh, sub, _));
		} else if (in) {
			copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tK(t, _), rK);
			copy(AutoVectorizingCopyWithAssumedAlignment<128>{}, tV(t, _), rV);
		} else {
			fill(rK, bf16(0.f));
			fill(rV, bf16(0.f));
		}
		CUTE_UNROLL
		for (int h = 0; h < G; h++) {
			float sc = 0.f;
			CUTE_UNROLL
			for (int e = 0; e < 8; e++)
				sc = fmaf(rQ(h, e), float(rK(e)), sc);
			sc += __shfl_xor_sync(0xffffffffu, sc, 1);
			sc += __shfl_xor_sync(0xffffffffu, sc, 2);
			sc += __shfl_xor_sync(0xffffffffu, sc, 4);
			if (!in)
				continue;
			const float mm = fmaxf(m[h], sc), corr = m[h] == -INFINITY ? 0.f : exp2f(m[h] - mm), p = exp2f(sc - mm);
			l[h] = l[h] * corr + p;
			CUTE_UNROLL
			for (int e = 0; e < 8; e++)
				rO(h, e) = fmaf(p, float(rV(e)), rO(h, e) * corr);
			m[h] = mm;
		}
	}
	CUTE_UNROLL
	for (int off = 8; off <= 16; off <<= 1)
		CUTE_UNROLL
		for (int h = 0; h < G; h++) {
			float o2[8];
			CUTE_UNROLL
			for (int e = 0; e < 8; e++)
				o2[e] = __shfl_xor_sync(0xffffffffu, rO(h, e), off);
			const float m2 = __shfl_xor_sync(0xffffffffu, m[h], off), l2 = __shfl_xor_sync(0xffffffffu, l[h], off);
			merge(m[h], l[h], rO(h, _), m2, l2, o2);
		}
	if (grp == 0)
		CUTE_UNROLL
		for (int h = 0; h < G; h++) {
			CUTE_UNROLL
			for (int e = 0; e < 8; e++)
				sRed(warp, h, sub * 8 + e) = rO(h, e);
			if (sub == 0)
				sRed(warp, h, HD) = m[h], sRed(warp, h, HD + 1) = l[h];
		}
	plk_bar_sync(inst, ATTN_DECODE_CUTE_BAR_RED);
	if (warp < G) {   /* warp h: head h; lane: dims 2 lane, 2 lane + 1 */
		const int h = warp;
		float mm = -INFINITY;
		for (int w = 0; w < WARPS; w++)
			mm = fmaxf(mm, sRed(w, h, HD));
		float ll = 0.f, o0 = 0.f, o1 = 0.f;
		for (int w = 0; w < WARPS; w++) {
			const float mw = sRed(w, h, HD), e = mw == -INFINITY ? 0.f : exp2f(mw - mm);
			ll += sRed(w, h, HD + 1) * e;
			o0 += sRed(w, h, 2 * lane) * e;
			o1 += sRed(w, h, 2 * lane + 1) * e;
		}
		gP(tile_m, h, 2 * lane) = o0;
		gP(tile_m, h, 2 * lane + 1) = o1;
		if (lane == 0)
			gP(tile_m, h, HD) = mm, gP(tile_m, h, HD + 1) = ll;
		__threadfence();   /* the partial out before the count */
	}
	/* the KV head's pieces count in; the last combines their partials */
	unsigned *last = (unsigned *)plk_smem(inst, ATTN_DECODE_CUTE_BUF_FLAG);
	plk_bar_sync(inst, ATTN_DECODE_CUTE_BAR_RED);
	if (warp == 0 && lane == 0) {
		unsigned before;
		asm volatile("atom.acq_rel.gpu.global.add.u32 %0, [%1], 1;" : "=r"(before) : "l"(cnt + kvh) : "memory");
		*last = before + 1 == SPLIT;
		if (*last)   /* the count back to zero for the next launch (`zeroed`) */
			asm volatile("st.relaxed.gpu.global.u32 [%0], 0;" ::"l"(cnt + kvh) : "memory");
	}
	plk_bar_sync(inst, ATTN_DECODE_CUTE_BAR_RED);   /* sRed is free for the block's next piece */
	if (!*last || warp >= G)
		return;
	/* this head's partials as (split, o | m | l), read through L2 (other
	 * blocks wrote them): a lane's two dims, every split's max and sum */
	const float *base = part_ + (size_t)(kvh * SPLIT * G + warp) * (HD + 2);
	Tensor sP = make_tensor(make_gmem_ptr(base), make_layout(make_shape(Int<SPLIT>{}, Int<HD + 2>{}),
	                                                         make_stride(Int<G * (HD + 2)>{}, Int<1>{})));
	Tensor rM = make_tensor<float>(make_shape(Int<SPLIT>{}, Int<4>{}));   /* (split, m | l | o0 | o1) */
	CUTE_UNROLL
	for (int j = 0; j < SPLIT; j++) {
		const float *row = &sP(j, 0);
		asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(rM(j, 0)) : "l"(row + HD) : "memory");
		asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(rM(j, 1)) : "l"(row + HD + 1) : "memory");
		asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(rM(j, 2)), "=f"(rM(j, 3)) : "l"(row + 2 * lane)
		             : "memory");
	}
	float mm = -INFINITY;
	CUTE_UNROLL
	for (int j = 0; j < SPLIT; j++)
		mm = fmaxf(mm, rM(j, 0));
	float ll = 0.f, o0 = 0.f, o1 = 0.f;
	CUTE_UNROLL
	for (int j = 0; j < SPLIT; j++) {
		const float e = rM(j, 0) == -INFINITY ? 0.f : exp2f(rM(j, 0) - mm);
		ll += rM(j, 1) * e, o0 += rM(j, 2) * e, o1 += rM(j, 3) * e;
	}
	const float inv = ll > 0.f ? 1.f / ll : 0.f;
	Tensor gO = make_tensor(make_gmem_ptr(reinterpret_cast<__nv_bfloat162 *>(o_)),
	                        make_layout(make_shape(Int<NQ>{}, Int<HD / 2>{}), GenRowMajor{}));   /* (head, dim pair) */
	gO(kvh * G + warp, lane) = __floats2bfloat162_rn(o0 * inv, o1 * inv);
}
