/*
 * tma_rows.cu: what a TMA load costs when a tensor's rows are no whole
 * number of 128-byte lines (a bf16 GEMM operand [rows, K] at K % 64 != 0).
 * A probe, not a component: it answers, before a loader is built for it,
 * which box shape and which sharing make such rows as cheap as whole
 * lines (bench/results/2026-12-03-gemm-k-sweep.md: at K = 1000 the
 * 128 x 192 tiles ran 40% over their time, cuBLAS 3%).
 *
 * One CTA an SM; thread 0 streams boxes of a [R, K] bf16 tensor that sits
 * in L2 (8 MB: R = 8 MB / 2K, rounded down to 512) into a ring of NS stages, a second warp waits for
 * each and frees it: nothing but the TMA's own throughput. Per box shape
 * and K, the L2 -> shared memory rate over all SMs, and its ratio to the
 * same box at K = 1024. With `cluster 2` each CTA of a pair loads half of
 * every box and multicasts it to both (the loaders' MCAST = 2). The
 * `cp.async` rows load the same boxes without the TMA: four producer
 * warps copy 16-byte runs (cp.async.cg, zero-filled past K) into the
 * image the 128-byte swizzle gives, checked against the TMA's own.
 *
 *   nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o build/tma_rows bench/probes/tma_rows.cu
 *   build/tma_rows [iters=4000]
 *   build/tma_rows 4000 oob     # rows past the tensor: a load's zero fill, a store's dropped rows
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(1); } } while (0)

enum { NS = 6, STAGE = 32768, BYTES = 8 << 20 };   /* ring of 6 x 32 KB; the tensor's size (in L2) */
static_assert(NS * STAGE <= 227 * 1024 - 64, "the ring and its barriers fit one CTA's shared memory");

__device__ static inline uint32_t saddr(const void *p) { return (uint32_t)__cvta_generic_to_shared(p); }

__device__ static inline void wait_parity(uint64_t *bar, uint32_t parity)
{
	asm volatile("{\n .reg .pred p;\n W_%=: mbarrier.try_wait.parity.shared::cta.b64 p, [%0], %1;\n"
	             " @!p bra W_%=;\n}" :: "r"(saddr(bar)), "r"(parity) : "memory");
}

/* One box into dst, completing on bar: col c, row r of a rank-2 map, or
   the same box through a rank-3 view ([8, K / 8, rows] when rank3 is 1,
   [8, rows, K / 8] when 2; encode_map below). */
__device__ static inline void load_box(uint32_t dst, const CUtensorMap *map, int c, int r, uint64_t *bar, int rank3)
{
	if (rank3)
		asm volatile("cp.async.bulk.tensor.3d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
		             " [%0], [%1, {%2, %3, %4}], [%5];"
		             :: "r"(dst), "l"(map), "r"(0), "r"(rank3 == 2 ? r : c / 8), "r"(rank3 == 2 ? c / 8 : r),
		                "r"(saddr(bar)) : "memory");
	else
		asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
		             " [%0], [%1, {%2, %3}], [%4];"
		             :: "r"(dst), "l"(map), "r"(c), "r"(r), "r"(saddr(bar)) : "memory");
}

/* Box t of this CTA: box b = blockIdx.x / pair + (gridDim.x / pair) t of the
   tensor's rowblks x colblks boxes, rows first (as a GEMM's tiles walk K). */
__global__ void __launch_bounds__(64) load_boxes(const __grid_constant__ CUtensorMap map, int rowblks, int colblks,
                                                 int boxc, int boxr, int iters, int pair, int rank3, int sub)
{
	extern __shared__ __align__(1024) unsigned char ring[];
	uint64_t *full = (uint64_t *)(ring + NS * STAGE), *empty = full + NS;
	const unsigned bytes = (unsigned)(boxc * boxr * 2 * pair * sub);   /* what lands in this CTA a stage */
	uint32_t rank = 0;
	if (pair == 2)
		asm volatile("mov.u32 %0, %%cluster_ctarank;" : "=r"(rank));
	if (threadIdx.x == 0) {
		for (int s = 0; s < NS; s++) {
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(saddr(full + s)));
			asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(saddr(empty + s)), "r"(pair));
		}
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	if (pair == 2)
		asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
	else
		__syncthreads();
	int tile0 = blockIdx.x / pair, tiles = gridDim.x / pair;
	if (threadIdx.x == 0) {
		for (int t = 0; t < iters; t++) {
			int s = t % NS, k = t / NS;
			if (k > 0)
				wait_parity(empty + s, (k - 1) & 1);
			asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(saddr(full + s)), "r"(bytes)
			             : "memory");
			long b = tile0 + (long)tiles * t;
			int c = (int)((b / rowblks) % colblks) * boxc * sub;
			int r = (int)(b % rowblks) * boxr * pair + (int)rank * boxr;
			uint32_t dst = saddr(ring + s * STAGE + rank * boxc * boxr * 2);
			if (pair == 1)
				for (int j = 0; j < sub; j++)   /* sub boxes side by side along K: one stage */
					load_box(dst + j * boxc * boxr * 2, &map, c + j * boxc, r, full + s, rank3);
			else
				asm volatile("cp.async.bulk.tensor.2d.shared::cluster.global.tile.mbarrier::complete_tx::bytes"
				             ".multicast::cluster [%0], [%1, {%2, %3}], [%4], %5;"
				             :: "r"(dst), "l"(&map), "r"(c), "r"(r), "r"(saddr(full + s)), "h"((uint16_t)3)
				             : "memory");
		}
	} else if (threadIdx.x == 32) {
		for (int t = 0; t < iters; t++) {
			int s = t % NS;
			wait_parity(full + s, (t / NS) & 1);
			if (pair == 1) {
				asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(saddr(empty + s)) : "memory");
			} else {   /* both producers write this stage: free it to both */
				for (uint32_t peer = 0; peer < 2; peer++) {
					uint32_t remote;
					asm volatile("mapa.shared::cluster.u32 %0, %1, %2;" : "=r"(remote) : "r"(saddr(empty + s)),
					             "r"(peer));
					asm volatile("mbarrier.arrive.release.cluster.shared::cluster.b64 _, [%0];" :: "r"(remote)
					             : "memory");
				}
			}
		}
	}
	if (pair == 2)   /* no CTA leaves while its peer may still write into it */
		asm volatile("barrier.cluster.arrive.release;\nbarrier.cluster.wait.acquire;" ::: "memory");
}

/* The 64-column box of rows [r, r + R) at column c, 16-byte run by run,
   into dst as the 128-byte swizzle lays it out (run j of row i at
   i * 128 + (j ^ i % 8) * 16: dst is 1024-byte aligned); runs past K
   zero-filled, as the TMA fills them. Thread t of n issues runs t, t + n, ... */
__device__ static inline void cp_box(uint32_t dst, const unsigned char *g, int K, int c, int r, int R, int t, int n)
{
	for (int q = t; q < R * 8; q += n) {
		int i = q / 8, j = q % 8, col = c + j * 8;
		const unsigned char *src = g + ((size_t)(r + i) * K + (col < K ? col : 0)) * 2;
		asm volatile("cp.async.cg.shared.global [%0], [%1], 16, %2;"
		             :: "r"(dst + i * 128 + ((j ^ (i & 7)) << 4)), "l"(src), "r"(col < K ? 16 : 0) : "memory");
	}
}

enum { CPW = 4 };   /* producer warps of the cp.async kernel */

/* load_boxes without the TMA: CPW warps fill each stage by cp_box and
   arrive on its full barrier as their copies land (noinc: the barrier
   counts their 32 CPW arrivals); warp CPW frees each stage. */
__global__ void __launch_bounds__(32 * CPW + 32) cp_boxes(const unsigned char *g, int K, int rowblks, int colblks,
                                                          int boxr, int iters)
{
	extern __shared__ __align__(1024) unsigned char ring[];
	uint64_t *full = (uint64_t *)(ring + NS * STAGE), *empty = full + NS;
	const int np = 32 * CPW, t = threadIdx.x;
	if (t == 0) {
		for (int s = 0; s < NS; s++) {
			asm volatile("mbarrier.init.shared::cta.b64 [%0], %1;" :: "r"(saddr(full + s)), "r"(np));
			asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(saddr(empty + s)));
		}
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
	}
	__syncthreads();
	if (t < np) {
		for (int it = 0; it < iters; it++) {
			int s = it % NS, k = it / NS;
			if (k > 0)
				wait_parity(empty + s, (k - 1) & 1);
			long b = blockIdx.x + (long)gridDim.x * it;
			int c = (int)((b / rowblks) % colblks) * 64, r = (int)(b % rowblks) * boxr;
			cp_box(saddr(ring + s * STAGE), g, K, c, r, boxr, t, np);
			asm volatile("cp.async.mbarrier.arrive.noinc.shared::cta.b64 [%0];" :: "r"(saddr(full + s)) : "memory");
		}
		asm volatile("cp.async.wait_all;" ::: "memory");
	} else if (t == np) {
		for (int it = 0; it < iters; it++) {
			int s = it % NS;
			wait_parity(full + s, (it / NS) & 1);
			asm volatile("mbarrier.arrive.shared::cta.b64 _, [%0];" :: "r"(saddr(empty + s)) : "memory");
		}
	}
}

/* One box by cp_box, its shared-memory image copied out (against box_image's) */
__global__ void cp_image(const unsigned char *g, int K, int c, int r, int R, unsigned char *out)
{
	extern __shared__ __align__(1024) unsigned char ring[];
	cp_box(saddr(ring), g, K, c, r, R, threadIdx.x, blockDim.x);
	asm volatile("cp.async.wait_all;" ::: "memory");
	__syncthreads();
	for (int i = threadIdx.x; i < R * 128; i += blockDim.x)
		out[i] = ring[i];
}

/* One box at (col c, row r) through a rank-2 or rank-3 map, its shared-
   memory image copied out: do the two forms lay a box out alike? */
__global__ void box_image(const __grid_constant__ CUtensorMap map, int rank3, int c, int r, unsigned bytes,
                          unsigned char *out)
{
	extern __shared__ __align__(1024) unsigned char ring[];
	uint64_t *full = (uint64_t *)(ring + NS * STAGE);
	if (threadIdx.x == 0) {
		asm volatile("mbarrier.init.shared::cta.b64 [%0], 1;" :: "r"(saddr(full)));
		asm volatile("fence.mbarrier_init.release.cluster;" ::: "memory");
		asm volatile("mbarrier.arrive.expect_tx.shared::cta.b64 _, [%0], %1;" :: "r"(saddr(full)), "r"(bytes)
		             : "memory");
		load_box(saddr(ring), &map, c, r, full, rank3);
	}
	__syncthreads();
	wait_parity(full, 0);
	for (unsigned i = threadIdx.x; i < bytes; i += blockDim.x)
		out[i] = ring[i];
}

typedef CUresult (*encode_fn)(CUtensorMap *, CUtensorMapDataType, cuuint32_t, void *, const cuuint64_t *,
                              const cuuint64_t *, const cuuint32_t *, const cuuint32_t *, CUtensorMapInterleave,
                              CUtensorMapSwizzle, CUtensorMapL2promotion, CUtensorMapFloatOOBfill);

/* sub: boxes side by side along K in one stage (a 64-column stage of two
   32-column sw64 boxes); 0 reads as 1 */
struct Box { int c, r, pair; CUtensorMapSwizzle sw; const char *name; int rank3, sub; int promo; };

/* promo: the L2 promotion, 0 read as the loaders' 256 B */
static CUtensorMapL2promotion promotion(const Box *bx)
{
	return bx->promo ? (CUtensorMapL2promotion)(bx->promo - 1) : CU_TENSOR_MAP_L2_PROMOTION_L2_256B;
}

/* A [rows, K] bf16 tensor as rank 2 ([K, rows]) or rank 3 ([8, K / 8, rows]:
   16-byte runs, each in one 32-byte sector whatever K is) */
static CUresult encode_map(encode_fn encode, CUtensorMap *map, void *buf, int K, int rows, const Box *bx)
{
	if (bx->rank3 == 2) {   /* [8, rows, K / 8]: box c / 8 core-matrix columns of 8 rows x 16 bytes */
		cuuint64_t dims[3] = {8, (cuuint64_t)rows, (cuuint64_t)K / 8}, strides[2] = {(cuuint64_t)K * 2, 16};
		cuuint32_t box[3] = {8, (cuuint32_t)bx->r, (cuuint32_t)bx->c / 8}, es[3] = {1, 1, 1};
		return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, buf, dims, strides, box, es,
		              CU_TENSOR_MAP_INTERLEAVE_NONE, CU_TENSOR_MAP_SWIZZLE_NONE, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
		              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	}
	if (bx->rank3) {
		cuuint64_t dims[3] = {8, (cuuint64_t)K / 8, (cuuint64_t)rows}, strides[2] = {16, (cuuint64_t)K * 2};
		cuuint32_t box[3] = {8, (cuuint32_t)bx->c / 8, (cuuint32_t)bx->r}, es[3] = {1, 1, 1};
		return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 3, buf, dims, strides, box, es,
		              CU_TENSOR_MAP_INTERLEAVE_NONE, bx->sw, CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
		              CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	}
	cuuint64_t dims[2] = {(cuuint64_t)K, (cuuint64_t)rows}, strides[1] = {(cuuint64_t)K * 2};
	cuuint32_t box[2] = {(cuuint32_t)bx->c, (cuuint32_t)bx->r}, es[2] = {1, 1};
	return encode(map, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, buf, dims, strides, box, es,
	              CU_TENSOR_MAP_INTERLEAVE_NONE, bx->sw, promotion(bx), CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
}

/* launch() timed six times: the first warms L2; the best of the other five, ms */
template <class F> static float best_ms(cudaEvent_t e0, cudaEvent_t e1, F launch)
{
	float best = 1e30f;
	for (int rep = 0; rep < 6; rep++) {
		CK(cudaEventRecord(e0));
		launch();
		CK(cudaEventRecord(e1));
		CK(cudaEventSynchronize(e1));
		CK(cudaGetLastError());
		float ms;
		CK(cudaEventElapsedTime(&ms, e0, e1));
		if (rep > 0 && ms < best)
			best = ms;
	}
	return best;
}

/* load_boxes on one CTA an SM (pairs: clusters of 2) over rowblks x
   colblks boxes, iters each: the best of five timed launches, ms */
static float time_boxes(cudaEvent_t e0, cudaEvent_t e1, int sms, const CUtensorMap &map, int rowblks, int colblks,
                        const Box *bx, int iters)
{
	const int sub = bx->sub ? bx->sub : 1;
	cudaLaunchConfig_t cfg = {};
	cudaLaunchAttribute at[1];
	cfg.gridDim = dim3(sms);
	cfg.blockDim = dim3(64);
	cfg.dynamicSmemBytes = NS * STAGE + 2 * NS * 8;
	at[0].id = cudaLaunchAttributeClusterDimension;
	at[0].val.clusterDim.x = bx->pair;
	at[0].val.clusterDim.y = 1;
	at[0].val.clusterDim.z = 1;
	cfg.attrs = at;
	cfg.numAttrs = 1;
	return best_ms(e0, e1, [&] {
		CK(cudaLaunchKernelEx(&cfg, load_boxes, map, rowblks, colblks, bx->c, bx->r, iters, bx->pair, bx->rank3,
		                      sub));
	});
}

/* Stores of boxes to row 0 of the tensor, as an epilogue's TMA store of C
   (components/common/acc_store.cuh): thread 0 stores box t from ring
   stage t % NS to column block (blockIdx.x + gridDim.x t) % colblks, at
   most NS - 1 stores still reading shared memory. The ring's contents
   are any initialised bytes. */
__global__ void __launch_bounds__(32) store_boxes(const __grid_constant__ CUtensorMap map, int colblks, int boxc,
                                                  int iters)
{
	extern __shared__ __align__(1024) unsigned char ring[];
	for (int i = threadIdx.x; i < NS * STAGE / 16; i += 32)   /* 16 bytes a store: the launch's time is the boxes' */
		((uint4 *)ring)[i] = make_uint4(i, i + 1, i + 2, i + 3);
	asm volatile("fence.proxy.async.shared::cta;" ::: "memory");   /* generic writes -> the TMA's reads */
	__syncwarp();
	if (threadIdx.x != 0)
		return;
	for (int t = 0; t < iters; t++) {
		int c = (int)((blockIdx.x + (long)gridDim.x * t) % colblks) * boxc;
		asm volatile("cp.async.bulk.tensor.2d.global.shared::cta.tile.bulk_group [%0, {%1, %2}], [%3];"
		             :: "l"(&map), "r"(c), "r"(0), "r"(saddr(ring + (t % NS) * STAGE)) : "memory");
		asm volatile("cp.async.bulk.commit_group;" ::: "memory");
		asm volatile("cp.async.bulk.wait_group.read %0;" :: "n"(NS - 1) : "memory");
	}
	asm volatile("cp.async.bulk.wait_group 0;" ::: "memory");
}

/* store_boxes on one CTA an SM: the best of five timed launches, ms */
static float time_stores(cudaEvent_t e0, cudaEvent_t e1, int sms, const CUtensorMap &map, int colblks, const Box *bx,
                         int iters)
{
	return best_ms(e0, e1, [&] {
		store_boxes<<<sms, 32, NS * STAGE>>>(map, colblks, bx->c, iters);
	});
}

/* `oob`: what a box's rows past the tensor cost. A [v, 4096] tensor (in
   L2) read as boxes of 64 columns x R rows at row 0, so R - v rows of each
   box lie past the tensor and the TMA fills them with zeros: the time a
   box per CTA at v rows in the tensor, against v = R. A GEMM's last tile
   row past M loads such boxes of A (components/hopper/tma_load_ab.cu,
   ABOXES), and stores such boxes of C, whose rows past the tensor the
   TMA drops: the 64 x 64 box is the epilogue's (a warpgroup's 64 rows). */
static void oob_table(encode_fn encode, void *buf, cudaEvent_t e0, cudaEvent_t e1, int sms, int iters)
{
	const int K = 4096, colblks = K / 64;
	struct Col { Box box; bool store; };
	static const Col cols[] = {{{64, 128, 1, CU_TENSOR_MAP_SWIZZLE_128B, "load 64 x 128"}, false},
	                           {{64, 16, 1, CU_TENSOR_MAP_SWIZZLE_128B, "load 64 x 16"}, false},
	                           {{64, 64, 1, CU_TENSOR_MAP_SWIZZLE_128B, "store 64 x 64"}, true}};
	enum { NC = sizeof cols / sizeof *cols };
	static const int vs[] = {128, 120, 112, 96, 64, 32, 16, 8, 1};
	CK(cudaFuncSetAttribute(store_boxes, cudaFuncAttributeMaxDynamicSharedMemorySize, NS * STAGE));
	printf("%d CTAs, %d boxes each at row 0 of a [v, %d] bf16 tensor; ns a box a CTA (ratio to the box's rows all in it)\n\n",
	       sms, iters, K);
	printf("| v (rows in the tensor) |");
	for (const Col &c : cols)
		printf(" %s |", c.box.name);
	printf("\n|---|");
	for (int i = 0; i < NC; i++)
		printf("---|");
	printf("\n");
	double full[NC] = {0};
	for (int v : vs) {
		printf("| %d |", v);
		for (int i = 0; i < NC; i++) {
			CUtensorMap map;
			CUresult r = encode_map(encode, &map, buf, K, v, &cols[i].box);
			if (r != CUDA_SUCCESS) {
				printf(" encode %d |", (int)r);
				continue;
			}
			float ms = cols[i].store ? time_stores(e0, e1, sms, map, colblks, &cols[i].box, iters)
			                         : time_boxes(e0, e1, sms, map, 1, colblks, &cols[i].box, iters);
			double ns = ms * 1e6 / iters;
			if (v >= cols[i].box.r && full[i] == 0)
				full[i] = ns;
			printf(" %.1f (%.2f) |", ns, full[i] > 0 ? ns / full[i] : 0.0);
		}
		printf("\n");
		fflush(stdout);
	}
}

int main(int argc, char **argv)
{
	int iters = argc > 1 ? atoi(argv[1]) : 4000;
	static const Box boxes[] = {
		{64, 128, 1, CU_TENSOR_MAP_SWIZZLE_128B, "64 x 128, sw128 (the loaders' A box)"},
		{64, 256, 1, CU_TENSOR_MAP_SWIZZLE_128B, "64 x 256, sw128"},
		{64, 32, 1, CU_TENSOR_MAP_SWIZZLE_128B, "64 x 32, sw128"},
		{32, 128, 1, CU_TENSOR_MAP_SWIZZLE_64B, "32 x 128, sw64"},
		{32, 256, 1, CU_TENSOR_MAP_SWIZZLE_64B, "32 x 256, sw64 (16 KB, as deep in flight as 64 x 128)"},
		{16, 256, 1, CU_TENSOR_MAP_SWIZZLE_32B, "16 x 256, sw32"},
		{32, 128, 1, CU_TENSOR_MAP_SWIZZLE_64B, "2 x (32 x 128), sw64: a 64 x 128 stage", 0, 2},
		{32, 256, 1, CU_TENSOR_MAP_SWIZZLE_64B, "2 x (32 x 256), sw64: a 64 x 256 stage", 0, 2},
		{128, 64, 1, CU_TENSOR_MAP_SWIZZLE_NONE, "128 x 64, no swizzle (256-byte rows)"},
		{64, 64, 2, CU_TENSOR_MAP_SWIZZLE_128B, "64 x 128 in pairs, 64 rows each, multicast"},
		{64, 32, 2, CU_TENSOR_MAP_SWIZZLE_128B, "64 x 64 in pairs, 32 rows each, multicast"},
		{64, 128, 1, CU_TENSOR_MAP_SWIZZLE_128B, "64 x 128, sw128, no L2 promotion", 0, 0, 1 + CU_TENSOR_MAP_L2_PROMOTION_NONE},
		{64, 128, 1, CU_TENSOR_MAP_SWIZZLE_128B, "64 x 128, sw128, L2 promotion 64 B", 0, 0, 1 + CU_TENSOR_MAP_L2_PROMOTION_L2_64B},
		{64, 128, 1, CU_TENSOR_MAP_SWIZZLE_128B, "64 x 128, sw128, L2 promotion 128 B", 0, 0, 1 + CU_TENSOR_MAP_L2_PROMOTION_L2_128B},
		{64, 128, 1, CU_TENSOR_MAP_SWIZZLE_NONE, "rank 3: 8 x 128 x 8, no swizzle (16-byte runs, core matrices)", 2},
		{64, 256, 1, CU_TENSOR_MAP_SWIZZLE_NONE, "rank 3: 8 x 256 x 8, no swizzle", 2},
	};
	static const int ks[] = {1024, 1000, 1008, 1016, 1032, 3000, 4000, 4096};
	const int nb = sizeof boxes / sizeof *boxes, nk = sizeof ks / sizeof *ks;

	encode_fn encode = NULL;
	cudaDriverEntryPointQueryResult q;
	CK(cudaGetDriverEntryPointByVersion("cuTensorMapEncodeTiled", (void **)&encode, 12000, cudaEnableDefault, &q));
	if (!encode || q != cudaDriverEntryPointSuccess) {
		fprintf(stderr, "no cuTensorMapEncodeTiled\n");
		return 1;
	}
	int sms;
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	sms &= ~1;   /* pairs need an even grid */
	CK(cudaFuncSetAttribute(load_boxes, cudaFuncAttributeMaxDynamicSharedMemorySize, NS * STAGE + 2 * NS * 8));
	void *buf;
	CK(cudaMalloc(&buf, BYTES));
	CK(cudaMemset(buf, 0x3c, BYTES));
	CK(cudaFuncSetAttribute(box_image, cudaFuncAttributeMaxDynamicSharedMemorySize, NS * STAGE + 2 * NS * 8));
	{	/* the rank-3 box's and cp_box's images against the rank-2 one's, on distinct values, at K = 1000 */
		const int K = 1000, rows = 1024;
		uint16_t *h = (uint16_t *)malloc((size_t)K * rows * 2);
		for (size_t i = 0; i < (size_t)K * rows; i++)
			h[i] = (uint16_t)(i * 2654435761u >> 7);
		CK(cudaMemcpy(buf, h, (size_t)K * rows * 2, cudaMemcpyHostToDevice));
		unsigned char *img;
		CK(cudaMalloc(&img, 2 * STAGE));
		unsigned char *hi = (unsigned char *)malloc(2 * STAGE);
		const Box two = {64, 128, 1, CU_TENSOR_MAP_SWIZZLE_128B, "", 0}, three = {64, 128, 1, CU_TENSOR_MAP_SWIZZLE_128B, "", 1};
		CUtensorMap m2, m3;
		if (encode_map(encode, &m2, buf, K, rows, &two) || encode_map(encode, &m3, buf, K, rows, &three)) {
			printf("rank-3 map: encode failed\n");
		} else {
			/* three boxes through the rank-2 map and through other(c, r,
			 * dst): the same images? The last box is K's partial one. */
			auto alike = [&](auto other) {
				int same = 1;
				for (int at = 0; at < 3; at++) {
					int c = at == 2 ? 960 : 64 * at, r = 128 * (at + 1);
					box_image<<<1, 128, NS * STAGE + 2 * NS * 8>>>(m2, 0, c, r, 16384, img);
					other(c, r, img + STAGE);
					CK(cudaDeviceSynchronize());
					CK(cudaMemcpy(hi, img, 2 * STAGE, cudaMemcpyDeviceToHost));
					same &= memcmp(hi, hi + STAGE, 16384) == 0;
				}
				return same ? "equals" : "DIFFERS FROM";
			};
			printf("rank-3 box image %s the rank-2 one's (K = 1000, three boxes)\n",
			       alike([&](int c, int r, unsigned char *dst) {
				       box_image<<<1, 128, NS * STAGE + 2 * NS * 8>>>(m3, 1, c, r, 16384, dst);
			       }));
			CK(cudaFuncSetAttribute(cp_image, cudaFuncAttributeMaxDynamicSharedMemorySize, STAGE));
			printf("cp.async box image %s the TMA's (K = 1000, three boxes)\n\n",
			       alike([&](int c, int r, unsigned char *dst) {
				       cp_image<<<1, 128, STAGE>>>((const unsigned char *)buf, K, c, r, 128, dst);
			       }));
		}
		CK(cudaFree(img));
		free(h);
		free(hi);
	}
	cudaEvent_t e0, e1;
	CK(cudaEventCreate(&e0));
	CK(cudaEventCreate(&e1));
	if (argc > 2 && !strcmp(argv[2], "oob")) {
		oob_table(encode, buf, e0, e1, sms, iters);
		CK(cudaFree(buf));
		return 0;
	}
	double base[sizeof boxes / sizeof *boxes] = {0};   /* each box's rate at K = 1024 */
	printf("%d CTAs, %d boxes each, a [8 MB / 2K, K] bf16 tensor in L2; GB/s of boxes landed (ratio to K = 1024)\n\n",
	       sms, iters);
	printf("| box (cols x rows) |");
	for (int j = 0; j < nk; j++)
		printf(" K %d |", ks[j]);
	printf("\n|---|");
	for (int j = 0; j < nk; j++)
		printf("---|");
	printf("\n");
	for (int i = 0; i < nb; i++) {
		const Box *bx = &boxes[i];
		printf("| %s |", bx->name);
		for (int j = 0; j < nk; j++) {
			int K = ks[j], rows = BYTES / (2 * K) / 512 * 512;
			CUtensorMap map;
			CUresult r = encode_map(encode, &map, buf, K, rows, bx);
			if (r != CUDA_SUCCESS) {
				printf(" encode %d |", (int)r);
				continue;
			}
			const int sub = bx->sub ? bx->sub : 1;
			int rowblks = rows / (bx->r * bx->pair), colblks = (K + bx->c * sub - 1) / (bx->c * sub);
			float best = time_boxes(e0, e1, sms, map, rowblks, colblks, bx, iters);
			/* bytes landed: every CTA receives a whole box (both halves in pairs) a stage */
			double gbs = (double)sms * iters * bx->c * bx->r * bx->pair * sub * 2 / (best * 1e-3) / 1e9;
			if (K == 1024)
				base[i] = gbs;
			printf(" %.0f (%.2f) |", gbs, base[i] > 0 ? gbs / base[i] : 0.0);
		}
		printf("\n");
		fflush(stdout);
	}
	CK(cudaFuncSetAttribute(cp_boxes, cudaFuncAttributeMaxDynamicSharedMemorySize, NS * STAGE + 2 * NS * 8));
	for (int boxr = 128; boxr <= 256; boxr *= 2) {
		printf("| cp.async, %d warps, 64 x %d (the sw128 image) |", CPW, boxr);
		double cbase = 0;
		for (int j = 0; j < nk; j++) {
			int K = ks[j], rows = BYTES / (2 * K) / 512 * 512;
			int rowblks = rows / boxr, colblks = (K + 63) / 64;
			float best = best_ms(e0, e1, [&] {
				cp_boxes<<<sms, 32 * CPW + 32, NS * STAGE + 2 * NS * 8>>>((const unsigned char *)buf, K, rowblks,
				                                                        colblks, boxr, iters);
			});
			double gbs = (double)sms * iters * 64 * boxr * 2 / (best * 1e-3) / 1e9;
			if (K == 1024)
				cbase = gbs;
			printf(" %.0f (%.2f) |", gbs, cbase > 0 ? gbs / cbase : 0.0);
		}
		printf("\n");
		fflush(stdout);
	}
	CK(cudaFree(buf));
	return 0;
}
