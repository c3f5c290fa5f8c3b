/*
 * ex2_packed.cu: does the MUFU compute two bf16 exponentials in one
 * instruction? At head dim 64 the attention core's softmax issues one
 * MUFU.EX2 per score (attn_exp2, components/attention/attn.cuh), as many
 * cycles on the MUFU as its two GEMMs take on the tensor cores
 * (results/2026-12-04-attention-exp2-fma.md). PTX has
 * ex2.approx.ftz.bf16x2; if it were one MUFU op, P could be packed to
 * bf16 before the exponential (the pack is needed for P V anyway) and the
 * MUFU's work halved. A question for the compiler, not the GPU: read the
 * SASS, no device needed.
 *
 *   nvcc -arch=sm_90a -cubin -o build/ex2_packed.cubin bench/probes/ex2_packed.cu
 *   nvdisasm -c build/ex2_packed.cubin | grep -E 'MUFU|F2FP|PRMT'
 *
 * (results/2026-12-06-attention-ex2-packed.md has the answer.)
 */
#include <stdint.h>

/* the core's form: one f32 exponential, then P packed to bf16x2 */
__global__ void ex2_f32_then_pack(const float2 *x, uint32_t *p)
{
	const int i = threadIdx.x + blockIdx.x * blockDim.x;
	float a, b;
	uint32_t r;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(a) : "f"(x[i].x));
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(b) : "f"(x[i].y));
	asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(r) : "f"(b), "f"(a));
	p[i] = r;
}

/* packed first, then one bf16x2 exponential */
__global__ void pack_then_ex2_bf16x2(const float2 *x, uint32_t *p)
{
	const int i = threadIdx.x + blockIdx.x * blockDim.x;
	uint32_t v, r;
	asm("cvt.rn.bf16x2.f32 %0, %1, %2;" : "=r"(v) : "f"(x[i].y), "f"(x[i].x));
	asm("ex2.approx.ftz.bf16x2 %0, %1;" : "=r"(r) : "r"(v));
	p[i] = r;
}

/* the f16x2 form, for comparison */
__global__ void ex2_f16x2(const uint32_t *x, uint32_t *p)
{
	const int i = threadIdx.x + blockIdx.x * blockDim.x;
	uint32_t r;
	asm("ex2.approx.f16x2 %0, %1;" : "=r"(r) : "r"(x[i]));
	p[i] = r;
}
