/*
 * decode.cuh: what the decode ops (components/decode/) share. Batch-1
 * decoding streams every weight once from HBM: each warp keeps many
 * 16-byte loads of W in flight, dotted with an activation vector that
 * sits in registers as f32. Activations are written by other blocks of
 * the same megakernel launch, so they are loaded through L2 (.cg), never
 * from a possibly stale L1; weights are read once (no L1 allocation).
 *
 * Every function here is __forceinline__ over its arguments and a
 * template over its sizes: nothing reads a component's cparam macros, so
 * two components' objects can meet in one link (docs/abi.md).
 */
#ifndef PLK_DECODE_CUH
#define PLK_DECODE_CUH
#include <cuda_bf16.h>
#include <stdint.h>

namespace plk_decode {

__device__ __forceinline__ uint4 ld_weight(const void *p)
{
	uint4 v;
	asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
	             : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
	return v;
}

/* an activation: written in this launch by another block */
__device__ __forceinline__ uint4 ld_act(const void *p)
{
	uint4 v;
	asm volatile("ld.global.cg.v4.u32 {%0, %1, %2, %3}, [%4];"
	             : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ float ld_act_f32(const float *p)
{
	float v;
	asm volatile("ld.global.cg.f32 %0, [%1];" : "=f"(v) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ float2 ld_act_f32x2(const float *p)   /* 8-byte aligned */
{
	float2 v;
	asm volatile("ld.global.cg.v2.f32 {%0, %1}, [%2];" : "=f"(v.x), "=f"(v.y) : "l"(p) : "memory");
	return v;
}

__device__ __forceinline__ float ld_act_bf16(const __nv_bfloat16 *p)
{
	unsigned short v;
	asm volatile("ld.global.cg.u16 %0, [%1];" : "=h"(v) : "l"(p) : "memory");
	return __bfloat162float(__ushort_as_bfloat16(v));
}

__device__ __forceinline__ float warp_sum(float v)
{
#pragma unroll
	for (int o = 16; o > 0; o >>= 1)
		v += __shfl_xor_sync(0xffffffffu, v, o);
	return v;
}

__device__ __forceinline__ void unpack8(uint4 v, float f[8])
{
	const __nv_bfloat162 *h = reinterpret_cast<const __nv_bfloat162 *>(&v);
#pragma unroll
	for (int i = 0; i < 4; i++) {
		float2 t = __bfloat1622float2(h[i]);
		f[2 * i] = t.x;
		f[2 * i + 1] = t.y;
	}
}

__device__ __forceinline__ float dot8(uint4 w, const float x[8])
{
	float f[8], s = 0.f;
	unpack8(w, f);
#pragma unroll
	for (int i = 0; i < 8; i++)
		s = fmaf(f[i], x[i], s);
	return s;
}

/* Lane l's share of a vector of NK x 256 elements: elements
 * l * 8 + j * 256 + [0, 8) for j < NK. */
template <int NK>
__device__ __forceinline__ void load_vec(const __nv_bfloat16 *x, float xr[NK][8])
{
	const int lane = threadIdx.x & 31;
#pragma unroll
	for (int j = 0; j < NK; j++)
		unpack8(ld_act(x + lane * 8 + j * 256), xr[j]);
}

/* RMSNorm of x (NK x 256 elements) times g, lane's share, in f32:
 * x * rsqrt(mean(x^2) + eps) * g. Each warp computes it on its own (x is
 * 4 KB from L2 at the model's width): no barrier. */
template <int NK>
__device__ __forceinline__ void load_normed(const __nv_bfloat16 *x, const __nv_bfloat16 *g, float eps, float xr[NK][8])
{
	const int lane = threadIdx.x & 31;
	load_vec<NK>(x, xr);
	float ss = 0.f;
#pragma unroll
	for (int j = 0; j < NK; j++)
#pragma unroll
		for (int i = 0; i < 8; i++)
			ss = fmaf(xr[j][i], xr[j][i], ss);
	const float rstd = rsqrtf(warp_sum(ss) / (float)(NK * 256) + eps);
#pragma unroll
	for (int j = 0; j < NK; j++) {
		float gf[8];
		unpack8(ld_weight(g + lane * 8 + j * 256), gf);
#pragma unroll
		for (int i = 0; i < 8; i++)
			xr[j][i] *= rstd * gf[i];
	}
}

/* The lane's share of RB rows of length NK x 256 (stride in elements),
 * all NK x RB loads issued at once; rows at or past n give 0. */
template <int NK, int RB>
__device__ __forceinline__ void rows_load(const __nv_bfloat16 *w, size_t stride, int row0, int n, uint4 wv[RB][NK])
{
	const int lane = threadIdx.x & 31;
#pragma unroll
	for (int i = 0; i < RB; i++)
#pragma unroll
		for (int j = 0; j < NK; j++)
			wv[i][j] = row0 + i < n ? ld_weight(w + (size_t)(row0 + i) * stride + lane * 8 + j * 256)
			                        : make_uint4(0, 0, 0, 0);
}

/* acc[i] = row i . x over the rows rows_load gave, every lane holding
 * the sums. */
template <int NK, int RB>
__device__ __forceinline__ void rows_fma(const uint4 wv[RB][NK], const float xr[NK][8], float acc[RB])
{
#pragma unroll
	for (int i = 0; i < RB; i++) {
		float s = 0.f;
#pragma unroll
		for (int j = 0; j < NK; j++)
			s += dot8(wv[i][j], xr[j]);
		acc[i] = warp_sum(s);
	}
}

/* acc[i] = W[row0 + i] . x for RB rows: rows_load, then rows_fma. */
template <int NK, int RB>
__device__ __forceinline__ void rows_dot(const __nv_bfloat16 *w, size_t stride, int row0, int n, const float xr[NK][8],
                                         float acc[RB])
{
	uint4 wv[RB][NK];
	rows_load<NK, RB>(w, stride, row0, n, wv);
	rows_fma<NK, RB>(wv, xr, acc);
}

/* A warp's normed vector kept for its op's next pieces: x does not
 * change within an op, so only the warp's first piece waits for it and
 * normalises it. xs: the warp's NK x 256 floats of shared memory, as
 * float4 [NK][2][32] (lane-consecutive: no bank conflicts); ready: the
 * warp's flag, set to 0 by the component's prologue call, before the
 * block's first piece. Bit for bit what load_normed gives. */
struct NormCache {
	float *xs;
	unsigned *ready;
};

__device__ __forceinline__ void norm_cache_reset(NormCache c)
{
	if ((threadIdx.x & 31) == 0)
		*c.ready = 0;
}

template <int NK>
__device__ __forceinline__ void normed_once(int inst, const __nv_bfloat16 *x, const __nv_bfloat16 *g, float eps,
                                            NormCache c, float xr[NK][8])
{
	const int lane = threadIdx.x & 31;
	float4 *xs = reinterpret_cast<float4 *>(c.xs);
	__syncwarp();   /* the flag's store (prologue or first piece) before the warp reads it */
	if (*c.ready) {
#pragma unroll
		for (int j = 0; j < NK; j++) {
			const float4 lo = xs[(2 * j) * 32 + lane], hi = xs[(2 * j + 1) * 32 + lane];
			xr[j][0] = lo.x, xr[j][1] = lo.y, xr[j][2] = lo.z, xr[j][3] = lo.w;
			xr[j][4] = hi.x, xr[j][5] = hi.y, xr[j][6] = hi.z, xr[j][7] = hi.w;
		}
		return;
	}
	plk_wait_inputs(inst);
	load_normed<NK>(x, g, eps, xr);
#pragma unroll
	for (int j = 0; j < NK; j++) {
		xs[(2 * j) * 32 + lane] = make_float4(xr[j][0], xr[j][1], xr[j][2], xr[j][3]);
		xs[(2 * j + 1) * 32 + lane] = make_float4(xr[j][4], xr[j][5], xr[j][6], xr[j][7]);
	}
	__syncwarp();
	if (lane == 0)
		*c.ready = 1;
}

/* acc_a[i] = W[row_a + i] . xn, acc_b[i] = W[row_b + i] . xn for two
 * batches of RB rows, xn = RMSNorm(x) g (load_normed). The first batch's
 * loads are issued before plk_wait_inputs(inst): W is an `early` param,
 * x another op's output; the second batch's after the norm. */
template <int NK, int RB>
__device__ __forceinline__ void rows2_normed(int inst, const __nv_bfloat16 *w, size_t stride, int row_a, int row_b, int n,
                                             const __nv_bfloat16 *x, const __nv_bfloat16 *g, float eps, float acc_a[RB],
                                             float acc_b[RB])
{
	uint4 wa[RB][NK];
	rows_load<NK, RB>(w, stride, row_a, n, wa);
	plk_wait_inputs(inst);
	float xr[NK][8];
	load_normed<NK>(x, g, eps, xr);
	rows_fma<NK, RB>(wa, xr, acc_a);
	rows_dot<NK, RB>(w, stride, row_b, n, xr, acc_b);
}

/* v[lane] for lane < RB, from a register array (no local memory). */
template <int RB>
__device__ __forceinline__ float pick(const float v[RB], int lane)
{
	float r = v[0];
#pragma unroll
	for (int i = 1; i < RB; i++)
		r = lane == i ? v[i] : r;
	return r;
}

/* acc[i] = W[row0 + i] . v for RB rows of a long K (any multiple of 8),
 * every lane holding the sums: K walked in chunks of 256 elements, UNROLL
 * chunks a step, so that each lane has RB x UNROLL loads of W in flight;
 * rows at or past n give 0. The first step's loads of W are issued before
 * plk_wait_inputs(inst) (W is an `early` param), the next step's as soon
 * as a step's products are taken. */
template <int RB, int UNROLL>
__device__ __forceinline__ void rows_long(int inst, const __nv_bfloat16 *w, const __nv_bfloat16 *v, int row0, int n,
                                          int K, float acc[RB])
{
	const int lane = threadIdx.x & 31;
	uint4 wv[UNROLL][RB];
	auto load_w = [&](int k) {
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			const int kk = k + u * 256;
#pragma unroll
			for (int i = 0; i < RB; i++)
				wv[u][i] = kk < K && row0 + i < n ? ld_weight(w + (size_t)(row0 + i) * K + kk) : make_uint4(0, 0, 0, 0);
		}
	};
#pragma unroll
	for (int i = 0; i < RB; i++)
		acc[i] = 0.f;
	load_w(lane * 8);
	plk_wait_inputs(inst);
	for (int k = lane * 8; k < K; k += 256 * UNROLL) {
		uint4 xv[UNROLL];
#pragma unroll
		for (int u = 0; u < UNROLL; u++)
			xv[u] = k + u * 256 < K ? ld_act(v + k + u * 256) : make_uint4(0, 0, 0, 0);
#pragma unroll
		for (int u = 0; u < UNROLL; u++) {
			float xf[8];
			unpack8(xv[u], xf);
#pragma unroll
			for (int i = 0; i < RB; i++)
				acc[i] += dot8(wv[u][i], xf);
		}
		if (k + 256 * UNROLL < K)
			load_w(k + 256 * UNROLL);
	}
#pragma unroll
	for (int i = 0; i < RB; i++)
		acc[i] = warp_sum(acc[i]);
}

}   // namespace plk_decode
#endif
