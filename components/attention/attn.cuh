/*
 * attn.cuh: what the attention components share (docs/attention.md):
 * 4-D TMA copies, the wgmma forms
 * attention needs beyond plk.cuh's (P from registers, V MN-major), and
 * the index arithmetic of the wgmma_acc layout.
 *
 * Tensors are [B, H, S, Dh] row-major, as torch's SDPA takes them; a work
 * item is (q block, b * H + h). Names are lower case: cparams are macros.
 */
#ifndef PLK_ATTN_CUH
#define PLK_ATTN_CUH

#include "plk.cuh"
#include <cuda_bf16.h>

/* A KV block that is partial gets the mask (and the key bound); a full
 * one is taken whole. */
constexpr int ATTN_PARTIAL = 1;

/* ---- 4-D TMA, coordinates innermost first (dh, s, h, b) ---- */
__device__ __forceinline__ void attn_tma_load_4d(void *dst, const void *tmap, void *bar, int c0,
                                                 int c1, int c2, int c3)
{
	asm volatile("cp.async.bulk.tensor.4d.shared::cluster.global.mbarrier::complete_tx::bytes"
	             " [%0], [%1, {%3, %4, %5, %6}], [%2];"
	             ::"r"(plk_smem_u32(dst)), "l"(tmap), "r"(plk_smem_u32(bar)),
	               "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}
__device__ __forceinline__ void attn_tma_store_4d(const void *tmap, const void *src, int c0, int c1,
                                                  int c2, int c3)
{
	asm volatile("cp.async.bulk.tensor.4d.global.shared::cta.bulk_group [%0, {%2, %3, %4, %5}], [%1];"
	             ::"l"(tmap), "r"(plk_smem_u32(src)), "r"(c0), "r"(c1), "r"(c2), "r"(c3) : "memory");
}

/* ---- Named barriers between the core's two warpgroups (pingpong) ---- */
__device__ __forceinline__ void attn_bar_sync(int id, int threads)
{
	asm volatile("bar.sync %0, %1;" ::"r"(id), "r"(threads) : "memory");
}
__device__ __forceinline__ void attn_bar_arrive(int id, int threads)
{
	asm volatile("bar.arrive %0, %1;" ::"r"(id), "r"(threads) : "memory");
}

#if defined(__CUDA_ARCH_FEAT_SM90_ALL)
/* wgmma descriptor of an MN-major tile in the 128B swizzle: V as TMA
 * writes it, [kv][64 columns of Dh] boxes of 128-byte rows. Along MN (Dh)
 * a 64-element chunk is one swizzle row, the next chunk `chunk_bytes`
 * further (the leading byte offset); along K (kv) 8 rows make a 1024-byte
 * atom, the next 8 rows 1024 bytes further (the stride byte offset).
 * Low word as plk_wgmma_desc_sw128_lo: offsets go to it alone. */
__device__ __forceinline__ uint32_t attn_desc_mn_sw128_lo(const void *p, uint32_t chunk_bytes)
{
	return ((plk_smem_u32(p) & 0x3FFFFu) >> 4) | ((chunk_bytes >> 4) << 16);
}

/* attn_wgmma_m64n<N>k16_rs_tb(d, a, db, accumulate), bf16 -> f32: A (P)
 * from registers in the wgmma_a layout (a[0..3]), B MN-major in shared
 * memory (imm-trans-b = 1). R = N / 2 accumulators (plk.cuh's lists); the
 * asm operands after them, as numbers: A0 .. A0 + 3 the A registers, then
 * DB the descriptor and F the accumulate flag. */
#define ATTN_WGMMA_RS_TB(N, R, A0, A1, A2, A3, DB, F)                                                \
	__device__ __forceinline__ void attn_wgmma_m64n##N##k16_rs_tb(float *d, const uint32_t *a,  \
	                                                              uint64_t db, int accumulate)  \
	{                                                                                           \
		asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, %" #F ", 0;\n"                       \
		             "wgmma.mma_async.sync.aligned.m64n" #N "k16.f32.bf16.bf16 "             \
		             "{" PLK_REGS##R "}, {%" #A0 ", %" #A1 ", %" #A2 ", %" #A3 "}, %" #DB   \
		             ", p, 1, 1, 1;\n}\n"                                                   \
		             : PLK_OUTS##R                                                          \
		             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate)); \
	}
ATTN_WGMMA_RS_TB(64, 32, 32, 33, 34, 35, 36, 37)
ATTN_WGMMA_RS_TB(128, 64, 64, 65, 66, 67, 68, 69)

/* d[0..3] += P (a) x ones: a 64 x 8 block whose every column is the row
 * sums of P, from B in a region of bf16 ones (any layout reads ones). */
__device__ __forceinline__ void attn_wgmma_m64n8k16_rs_sum(float *d, const uint32_t *a, uint64_t db)
{
	asm volatile("{\n.reg .pred p;\nsetp.ne.b32 p, 1, 0;\n"
	             "wgmma.mma_async.sync.aligned.m64n8k16.f32.bf16.bf16 {%0, %1, %2, %3}, {%4, %5, %6, %7}, %8, "
	             "p, 1, 1, 1;\n}\n"
	             : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3])
	             : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db));
}

#endif /* __CUDA_ARCH_FEAT_SM90_ALL */

/* ---- The wgmma_acc layout of one warpgroup's 64 x n accumulator:
 * element e = ni * 4 + j of a thread is at row 16 w + lane / 4 + 8 (j / 2),
 * column 8 ni + 2 (lane % 4) + j % 2 (w: the warp in its warpgroup). ---- */
__device__ __forceinline__ int attn_row_in_wg(int w, int half) { return 16 * w + (plk_lane() >> 2) + 8 * half; }
__device__ __forceinline__ int attn_col(int ni, int j) { return 8 * ni + 2 * (plk_lane() & 3) + (j & 1); }

/* 2^x on the MUFU alone (ex2.approx.ftz). exp2f keeps the results that
 * would be subnormal: per element a compare, a select and two multiplies
 * on the ALU and FMA pipes, 132 of each in the D128 core (SASS), which the
 * softmax shares its issue slots with. A softmax term below 2^-126 of the
 * row's max is zero in bf16 P either way; 2^-inf is still +0. */
__device__ __forceinline__ float attn_exp2(float x)
{
	float y;
	asm("ex2.approx.ftz.f32 %0, %1;" : "=f"(y) : "f"(x));
	return y;
}

/* Max and sum over the four lanes that hold one row. */
__device__ __forceinline__ float attn_quad_max(float x)
{
	x = fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 1));
	return fmaxf(x, __shfl_xor_sync(0xffffffffu, x, 2));
}
__device__ __forceinline__ float attn_quad_sum(float x)
{
	x += __shfl_xor_sync(0xffffffffu, x, 1);
	return x + __shfl_xor_sync(0xffffffffu, x, 2);
}

/* Keeps registers live up to here: after the wgmma that reads them async
 * has been waited for, so that nothing reuses them while it may still
 * read (ptxas would serialize every wgmma of the kernel: C7513). */
template <int count> __device__ __forceinline__ void attn_fence_regs_u32(uint32_t *r)
{
#pragma unroll
	for (int i = 0; i < count; i++)
		asm volatile("" : "+r"(r[i])::"memory");
}

__device__ __forceinline__ uint32_t attn_pack_bf16(float lo, float hi)
{
	__nv_bfloat162 t = __floats2bfloat162_rn(lo, hi);
	return *(uint32_t *)&t;
}

#endif /* PLK_ATTN_CUH */
