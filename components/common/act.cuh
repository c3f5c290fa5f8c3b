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

#endif /* PLK_ACT_CUH */
