/*
 * matvec: y = W v (or y += W v with ACC) for one piece of ROWS rows, on
 * WARPS warps. Batch-1 decode is bound by streaming W once: each warp
 * takes rows warp, warp + WARPS, ... of the piece, RB at a time, and
 * walks K in chunks of 32 lanes x 8 elements, so that every lane keeps
 * RB x UNROLL 16-byte loads of W in flight (the bytes an SM must have in
 * flight to reach its share of HBM's bandwidth). v is read from L2 by
 * every warp. Contract: matvec.plk.
 */
#include "plk.cuh"
#include <cuda_bf16.h>

#ifndef PLK_MATVEC_PLK_H
#include <matvec.plk.h>
#endif

namespace {
constexpr int RB = 4;        /* rows a warp walks at once */
constexpr int UNROLL = 4;    /* 256-element chunks of K per step */
static_assert(ROWS % WARPS == 0, "every warp takes as many rows");

__device__ __forceinline__ float dot8(uint4 w, uint4 x)
{
	const __nv_bfloat162 *a = reinterpret_cast<const __nv_bfloat162 *>(&w);
	const __nv_bfloat162 *b = reinterpret_cast<const __nv_bfloat162 *>(&x);
	float s = 0.f;
#pragma unroll
	for (int i = 0; i < 4; i++) {
		float2 fa = __bfloat1622float2(a[i]), fb = __bfloat1622float2(b[i]);
		s = fmaf(fa.x, fb.x, s);
		s = fmaf(fa.y, fb.y, s);
	}
	return s;
}

__device__ __forceinline__ uint4 ld_stream(const __nv_bfloat16 *p)
{
	uint4 v;   /* W is read once: do not keep it in L1 */
	asm volatile("ld.global.nc.L1::no_allocate.v4.u32 {%0, %1, %2, %3}, [%4];"
	             : "=r"(v.x), "=r"(v.y), "=r"(v.z), "=r"(v.w) : "l"(p));
	return v;
}
}

PLK_ENTRY void plk_matvec(int inst, const __nv_bfloat16 *w, const __nv_bfloat16 *v, __nv_bfloat16 *y, int N, int K,
                          int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	const int lane = plk_lane(), warp = plk_warp_rank(inst);
	const int row0 = tile_m * ROWS;
	for (int r = row0 + warp * RB; r < row0 + ROWS && r < N; r += WARPS * RB) {
		float acc[RB] = {};
		for (int k = lane * 8; k < K; k += 32 * 8 * UNROLL) {
			uint4 xv[UNROLL], wv[UNROLL][RB];
#pragma unroll
			for (int u = 0; u < UNROLL; u++) {
				const int kk = k + u * 256;
				xv[u] = kk < K ? *reinterpret_cast<const uint4 *>(v + kk) : make_uint4(0, 0, 0, 0);
#pragma unroll
				for (int i = 0; i < RB; i++)
					wv[u][i] = kk < K && r + i < N ? ld_stream(w + (size_t)(r + i) * K + kk)
					                              : make_uint4(0, 0, 0, 0);
			}
#pragma unroll
			for (int u = 0; u < UNROLL; u++)
#pragma unroll
				for (int i = 0; i < RB; i++)
					acc[i] += dot8(wv[u][i], xv[u]);
		}
#pragma unroll
		for (int i = 0; i < RB; i++) {
#pragma unroll
			for (int o = 16; o > 0; o >>= 1)
				acc[i] += __shfl_xor_sync(0xffffffffu, acc[i], o);
		}
		if (lane < RB && r + lane < N) {
			float out = acc[0];
#pragma unroll
			for (int i = 1; i < RB; i++)
				out = lane == i ? acc[i] : out;
			if (ACC)
				out += __bfloat162float(y[r + lane]);
			y[r + lane] = __float2bfloat16(out);
		}
	}
}
