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

#endif /* PLK_ACT_CUH */
