/*
 * act.cuh: the epilogues' activations, shared so that every epilogue of a
 * kind computes the same function. Both go through one tanh.approx.f32
 * (sm_75+; one MUFU op, relative error near 2^-11, under bf16's 2^-9
 * rounding): on Hopper the MUFU pipe is 1/8 of the FP32 pipe, so a second
 * special-function op per element (exp, then a reciprocal) or an IEEE
 * division costs more than the rest of the epilogue's arithmetic.
 */
#ifndef PLK_ACT_CUH
#define PLK_ACT_CUH

#include <stdint.h>
#include <cuda_bf16.h>

__device__ __forceinline__ float plk_tanh_approx(float x)
{
	float t;
	asm("tanh.approx.f32 %0, %1;" : "=f"(t) : "f"(x));
	return t;
}

/* gelu_tanh(x) = 0.5 x (1 + tanh(sqrt(2/pi) (x + 0.044715 x^3))) */
__device__ __forceinline__ float plk_gelu_tanh(float x)
{
	const float k0 = 0.7978845608028654f;		/* sqrt(2 / pi) */
	const float k1 = 0.7978845608028654f * 0.044715f;
	const float t = plk_tanh_approx(x * fmaf(k1, x * x, k0));
	const float h = 0.5f * x;
	return fmaf(h, t, h);
}

/* silu(g) * u = g sigmoid(g) u, with sigmoid(g) = (1 + tanh(g / 2)) / 2:
 * one MUFU op instead of an exp and a division. For g << 0 the error is
 * absolute (about |g u| 2^-12), where silu(g) is near 0 anyway. */
__device__ __forceinline__ float plk_silu_mul(float g, float u)
{
	const float h = 0.5f * g;
	const float p = h * u;
	return fmaf(p, plk_tanh_approx(h), p);
}

/* The SwiGLU of a wgmma_acc fragment whose gate and up columns are
 * interleaved in blocks of 8 (docs/components.md): acc holds mblocks x
 * nblocks blocks of 4, v gets mblocks x nblocks / 2 output blocks in the
 * same order, silu(gate) * up. Template names are lower case: cparams are
 * macros. */
template <int mblocks, int nblocks>
__device__ __forceinline__ void plk_swiglu_blocks(const float *acc, float *v)
{
	static_assert(nblocks % 2 == 0, "gate and up blocks come in pairs");
	constexpr int nout = nblocks / 2;
#pragma unroll
	for (int mi = 0; mi < mblocks; mi++)
#pragma unroll
		for (int no = 0; no < nout; no++)
#pragma unroll
			for (int j = 0; j < 4; j++) {
				const float g = acc[(mi * nblocks + 2 * no) * 4 + j];
				const float u = acc[(mi * nblocks + 2 * no + 1) * 4 + j];
				v[(mi * nout + no) * 4 + j] = plk_silu_mul(g, u);
			}
}

/* bf16(gelu_tanh(acc + bias[col])) of a wgmma_acc fragment (mblocks x
 * nblocks blocks of 4), packed into v2 as pairs: v2[i] holds columns
 * 2i and 2i + 1 of the fragment's order, registers of the epilogue's own
 * (written in place, the accumulators would serialize the next tile's
 * wgmmas: ptxas C7515). c0: this lane's first column in the matrix (the
 * tile's first column + 2 (lane % 4)). The tile's bias slice is loaded
 * into registers first, one bf16 pair per 8-column block (the same pair
 * serves every row a thread holds), so the loads' latency is paid once;
 * past N the bias is 0 (those columns are never stored). Needs N % 8 == 0. */
template <int mblocks, int nblocks>
__device__ __forceinline__ void plk_bias_gelu_pairs(const float *acc, const __nv_bfloat16 *bias,
                                                    int c0, int N, uint32_t *v2)
{
	uint32_t b2[nblocks];
#pragma unroll
	for (int ni = 0; ni < nblocks; ni++)
		b2[ni] = c0 + 8 * ni < N ? __ldg((const unsigned int *)(bias + c0 + 8 * ni)) : 0u;
#pragma unroll
	for (int ni = 0; ni < nblocks; ni++) {
		const __nv_bfloat162 b = *(const __nv_bfloat162 *)&b2[ni];
		const float b0 = __low2float(b), b1 = __high2float(b);
#pragma unroll
		for (int mi = 0; mi < mblocks; mi++)
#pragma unroll
			for (int h = 0; h < 2; h++) {
				const float *e = &acc[(mi * nblocks + ni) * 4 + 2 * h];
				__nv_bfloat162 t = __floats2bfloat162_rn(plk_gelu_tanh(e[0] + b0),
				                                         plk_gelu_tanh(e[1] + b1));
				v2[(mi * nblocks + ni) * 2 + h] = *(uint32_t *)&t;
			}
	}
}

#endif /* PLK_ACT_CUH */
