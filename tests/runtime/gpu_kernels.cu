// gpu_kernels.cu: hand-written kernels that exercise libplkrt on a GPU
// without plkc: a tensor-map parameter in parameter space (TMA load with
// 128-byte swizzle), a pointer, i32 shape scalars, a free f32 scalar,
// dynamic shared memory over 48 KiB and a persistent tile loop that also
// serves "tiles" and clustered launches.
//
//   nvcc -arch=sm_90a -cubin -o gpu_kernels.cubin gpu_kernels.cu
#include <cuda.h>
#include <cuda_bf16.h>
#include <stdint.h>

#define BM 128
#define BK 64      // 64 bf16 = 128 bytes: one 128B-swizzle row

// out[m][k] = alpha * a[m][k] for a [M, K] bf16 tensor read through TMA.
extern "C" __global__ void __launch_bounds__(128, 1)
tma_scale(const __grid_constant__ CUtensorMap a, __nv_bfloat16 *out, int M, int K, float alpha)
{
	extern __shared__ unsigned char smem_raw[];
	__shared__ __align__(8) uint64_t bar;
	// 128B-swizzled TMA destinations must be 1024-byte aligned.
	unsigned char *tile = (unsigned char *)(((uintptr_t)smem_raw + 1023) & ~(uintptr_t)1023);
	unsigned tile_s = (unsigned)__cvta_generic_to_shared(tile);
	unsigned bar_s = (unsigned)__cvta_generic_to_shared(&bar);
	int tiles_m = (M + BM - 1) / BM, tiles_k = (K + BK - 1) / BK, tiles = tiles_m * tiles_k;

	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" ::"r"(bar_s));
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		asm volatile("fence.proxy.async.shared::cta;" ::: "memory");
	}
	__syncthreads();
	unsigned phase = 0;
	for (int t = blockIdx.x + blockIdx.y * gridDim.x; t < tiles; t += gridDim.x * gridDim.y) {
		int tm = t / tiles_k, tk = t % tiles_k;
		if (threadIdx.x == 0) {
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;"
			             ::"r"(bar_s), "r"(BM * BK * 2) : "memory");
			asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.mbarrier::complete_tx::bytes"
			             " [%0], [%1, {%2, %3}], [%4];"
			             ::"r"(tile_s), "l"(&a), "r"(tk * BK), "r"(tm * BM), "r"(bar_s) : "memory");
		}
		unsigned done = 0;
		while (!done)
			asm volatile("{ .reg .pred p; mbarrier.try_wait.parity.shared::cta.b64 p, [%1], %2; selp.u32 %0, 1, 0, p; }"
			             : "=r"(done) : "r"(bar_s), "r"(phase) : "memory");
		phase ^= 1;
		const __nv_bfloat16 *s = (const __nv_bfloat16 *)tile;
		for (int i = threadIdx.x; i < BM * BK; i += blockDim.x) {
			int r = i / BK, c = i % BK;
			int m = tm * BM + r, k = tk * BK + c;
			// 128B swizzle: 16-byte chunk j of row r sits at chunk j ^ (r % 8).
			int phys = r * BK + (((c / 8) ^ (r % 8)) * 8) + c % 8;
			if (m < M && k < K)
				out[(size_t)m * K + k] = __float2bfloat16(alpha * __bfloat162float(s[phys]));
		}
		__syncthreads();   // the tile is read before the next load overwrites it
	}
}

// y[i] = x[i] + bias for n floats: plain pointers, i64 scalar, tiles grid.
extern "C" __global__ void add_bias(const float *x, float *y, long long n, float bias)
{
	long long i = (long long)blockIdx.x * blockDim.x + threadIdx.x;
	if (i < n)
		y[i] = x[i] + bias;
}
