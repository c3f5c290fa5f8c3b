/*
 * cp_async_load_sw128: four producer warps copy the A (BM x BK) and B
 * (BN x BK) tiles of a work item's K tiles into the `ab` ring by 16-byte
 * cp.async, in the image the TMA's 128-byte swizzle writes (run j of row
 * r at run j ^ (r % 8)), so that wgmma_mainloop reads them unchanged.
 * Contract: cp_async_load_sw128.plk; bench/ only.
 *
 * wgmma reads shared memory through the async proxy and cp.async writes
 * it through the generic one, so a stage is announced only after its
 * copies have landed and been fenced: each thread commits one cp.async
 * group a stage, waits until no more than LAG groups are pending (the
 * stage LAG back has landed), runs fence.proxy.async and arrives on that
 * stage's full barrier, which counts the role's 128 threads (docs/abi.md).
 * LAG stages stay in flight behind the one being issued; a work item
 * drains its own before it returns, so the flush call has nothing to do.
 * LAG < stages keeps the ring live: the stage the producer waits to reuse
 * was announced LAG stages before.
 */
#include "plk.cuh"
#include <cuda_bf16.h>

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_CP_ASYNC_LOAD_SW128_PLK_H
#include <cp_async_load_sw128.plk.h>
#endif

PLK_ENTRY void plk_cp_async_load_sw128(int inst, const __nv_bfloat16 *a, const __nv_bfloat16 *b, int M, int N,
                                       int K, plk_pipe *ab, int tile_m, int tile_n, int k_first, int k_count)
{
	if (tile_m < 0)
		return;	/* the flush call: each work item drained its copies */
	static_assert(BK * 2 == 128, "sw128: one BK row of bf16 is one 128-byte swizzle row");
	constexpr int RUNS = BK * 2 / 16;	/* 16-byte runs a row */
	constexpr int THREADS = 128;		/* the role: one warpgroup */
	constexpr int LAG = 2;			/* stages in flight behind the one issued */
	const int t = plk_warp_rank(inst) * 32 + plk_lane();

#if __CUDA_ARCH__ >= 900
	/* Thread t copies run j = t % 8 of rows r0 = t / 8, r0 + 16, ...: those
	 * rows share r % 8, so the run's swizzled place in its row is fixed and
	 * each pass only steps 16 rows on (few registers beside the consumers) */
	constexpr int STEP = THREADS / RUNS;
	static_assert(THREADS % RUNS == 0 && STEP % 8 == 0, "a thread's rows keep one r % 8");
	const int j = t % RUNS, r0 = t / RUNS;
	/* rows [row0, row0 + R) of a row-major [rows, K] matrix, columns from k0 */
	auto copy_tile = [&](char *dst, const __nv_bfloat16 *src, int R, int row0, int rows, int k0) {
		const int gk = k0 + j * 8;
		uint32_t d = plk_smem_u32(PLK_SW128_CHUNK(dst, r0, j));
		const __nv_bfloat16 *g = src + (size_t)(row0 + r0) * K + (gk < K ? gk : 0);
#pragma unroll 1
		for (int r = r0; r < R; r += STEP, d += STEP * 128, g += (size_t)STEP * K) {
			const bool in = gk < K && row0 + r < rows;   /* else zeros */
			plk_cp_async16(d, in ? g : src, in);
		}
	};
	plk_pipe late = *ab;	/* the next stage to announce */
	auto announce = [&]() {
		plk_fence_proxy_async();
		plk_mbar_arrive(plk_ring_full(inst, CP_ASYNC_LOAD_SW128_PORT_AB, late.stage));
		plk_pipe_advance(inst, CP_ASYNC_LOAD_SW128_PORT_AB, &late);
	};
	for (int i = 0; i < k_count; i++) {
		const int k = k_first + i;
		const int s = plk_produce_acquire(inst, CP_ASYNC_LOAD_SW128_PORT_AB, ab);
		copy_tile((char *)plk_ring_ptr(inst, CP_ASYNC_LOAD_SW128_PORT_AB, s, CP_ASYNC_LOAD_SW128_FIELD_AB_A),
		          a, BM, tile_m * BM, M, k * BK);
		copy_tile((char *)plk_ring_ptr(inst, CP_ASYNC_LOAD_SW128_PORT_AB, s, CP_ASYNC_LOAD_SW128_FIELD_AB_B),
		          b, BN, tile_n * BN, N, k * BK);
		asm volatile("cp.async.commit_group;" ::: "memory");
		plk_pipe_advance(inst, CP_ASYNC_LOAD_SW128_PORT_AB, ab);
		if (i >= LAG) {
			asm volatile("cp.async.wait_group %0;" ::"n"(LAG) : "memory");
			announce();
		}
	}
	asm volatile("cp.async.wait_group 0;" ::: "memory");
	for (int i = k_count < LAG ? 0 : k_count - LAG; i < k_count; i++)
		announce();
#else
	(void)a; (void)b; (void)M; (void)N; (void)K; (void)ab; (void)tile_n; (void)k_first; (void)k_count; (void)t;
	__trap();	/* contract: arch >= sm_90 */
#endif
}
