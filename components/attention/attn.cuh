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

/* m64n64k16, bf16 -> f32: A (P) from registers in the wgmma_a layout,
 * B MN-major in shared memory (imm-trans-b = 1). */
__device__ __forceinline__ void attn_wgmma_m64n64k16_rs_tb(float *d, const uint32_t *a, uint64_t db,
                                                          int accumulate)
{
	asm volatile(
	    "{\n.reg .pred p;\nsetp.ne.b32 p, %37, 0;\n"
	    "wgmma.mma_async.sync.aligned.m64n64k16.f32.bf16.bf16 "
	    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31}, "
	    "{%32, %33, %34, %35}, %36, p, 1, 1, 1;\n}\n"
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
}

/* m64n128k16, bf16 -> f32: A (P) from registers in the wgmma_a layout,
 * B MN-major in shared memory (imm-trans-b = 1). */
__device__ __forceinline__ void attn_wgmma_m64n128k16_rs_tb(float *d, const uint32_t *a, uint64_t db,
                                                          int accumulate)
{
	asm volatile(
	    "{\n.reg .pred p;\nsetp.ne.b32 p, %69, 0;\n"
	    "wgmma.mma_async.sync.aligned.m64n128k16.f32.bf16.bf16 "
	    "{%0, %1, %2, %3, %4, %5, %6, %7, %8, %9, %10, %11, %12, %13, %14, %15, %16, %17, %18, %19, %20, %21, %22, %23, %24, %25, %26, %27, %28, %29, %30, %31, %32, %33, %34, %35, %36, %37, %38, %39, %40, %41, %42, %43, %44, %45, %46, %47, %48, %49, %50, %51, %52, %53, %54, %55, %56, %57, %58, %59, %60, %61, %62, %63}, "
	    "{%64, %65, %66, %67}, %68, p, 1, 1, 1;\n}\n"
	    : "+f"(d[0]), "+f"(d[1]), "+f"(d[2]), "+f"(d[3]), "+f"(d[4]), "+f"(d[5]), "+f"(d[6]), "+f"(d[7]), "+f"(d[8]), "+f"(d[9]), "+f"(d[10]), "+f"(d[11]), "+f"(d[12]), "+f"(d[13]), "+f"(d[14]), "+f"(d[15]), "+f"(d[16]), "+f"(d[17]), "+f"(d[18]), "+f"(d[19]), "+f"(d[20]), "+f"(d[21]), "+f"(d[22]), "+f"(d[23]), "+f"(d[24]), "+f"(d[25]), "+f"(d[26]), "+f"(d[27]), "+f"(d[28]), "+f"(d[29]), "+f"(d[30]), "+f"(d[31]), "+f"(d[32]), "+f"(d[33]), "+f"(d[34]), "+f"(d[35]), "+f"(d[36]), "+f"(d[37]), "+f"(d[38]), "+f"(d[39]), "+f"(d[40]), "+f"(d[41]), "+f"(d[42]), "+f"(d[43]), "+f"(d[44]), "+f"(d[45]), "+f"(d[46]), "+f"(d[47]), "+f"(d[48]), "+f"(d[49]), "+f"(d[50]), "+f"(d[51]), "+f"(d[52]), "+f"(d[53]), "+f"(d[54]), "+f"(d[55]), "+f"(d[56]), "+f"(d[57]), "+f"(d[58]), "+f"(d[59]), "+f"(d[60]), "+f"(d[61]), "+f"(d[62]), "+f"(d[63])
	    : "r"(a[0]), "r"(a[1]), "r"(a[2]), "r"(a[3]), "l"(db), "r"(accumulate));
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
