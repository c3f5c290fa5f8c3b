/*
 * gemm_monolith.cu: the hand-written monolithic reference composition, in
 * the shape `plkc --emit=monolith` generates (docs/components.md): one unit
 * that includes every component source with its cparams, defines each plk_*
 * ABI function as a constant inline function of one fixed placement, and
 * holds the kernel (roles, prologue, persistent tile loop) and its host
 * launcher. One build per configuration, chosen by -D flags:
 *
 *   CFG_NAME      suffix of the kernel and launcher symbols
 *   CFG_MAIN      1: tma_load_ab + wgmma_mainloop (sm_90a)
 *                 2: cp_async_load_ab + mma_sync_mainloop (sm_80 class)
 *   CFG_EPI       1: store_bf16   2: bias_gelu   3: swiglu
 *                 4: store_bf16_tma   5: swiglu_tma (staging CFG_CH columns a pass)
 *   CFG_BM, CFG_BN, CFG_BK   accumulator tile (BN counts accumulator columns)
 *   CFG_WG        consumer warpgroups (wgmma path)
 *   CFG_STAGES    ring depth
 *   CFG_GROUP     raster group (tile-rows)
 *
 * Each source includes its generated header (cparam defaults, ids):
 * run_gemm.sh writes them with tests/gpu/headers.sh and passes -I.
 */
#include <cuda.h>
#include <cuda_runtime.h>
#include <cuda_bf16.h>
#include <string.h>
#include "plk.cuh"

#define PLK_CAT2(a, b) a##b
#define PLK_CAT(a, b) PLK_CAT2(a, b)

/* ---------------- placement (what the placer would solve) ---------------- */
/* instances: 0 = load, 1 = mma, 2 = epilogue (on the mma warps) */
#if CFG_MAIN == 1
#define CONSUMER_WARPS (4 * CFG_WG)
#define LOAD_WARPS 4		/* a whole warpgroup: setmaxnreg is per warpgroup */
#define REGS_LOAD 40
#define REGS_MMA (CFG_WG == 2 ? 232 : 240)
#else
#define CONSUMER_WARPS 8
#define LOAD_WARPS 1
#endif
#define THREADS (32 * (LOAD_WARPS + CONSUMER_WARPS))

namespace PLK_CAT(place_, CFG_NAME) {
constexpr unsigned SLOT_A = 0;					/* field a */
constexpr unsigned SLOT_B = CFG_BM * CFG_BK * 2;		/* field b */
constexpr unsigned SLOT_BYTES = (CFG_BM + CFG_BN) * CFG_BK * 2;
constexpr unsigned RING = 0;					/* 1024-aligned slots */
constexpr unsigned FULL = RING + CFG_STAGES * SLOT_BYTES;	/* 8-byte mbarriers */
constexpr unsigned EMPTY = FULL + 8 * CFG_STAGES;
#if CFG_EPI >= 4	/* the epilogue's staging buffer (live all: it overlaps the mainloop) */
constexpr unsigned STAGING = (EMPTY + 8 * CFG_STAGES + 1023) / 1024 * 1024;
constexpr unsigned SMEM_BYTES = STAGING + CONSUMER_WARPS / 4 * 64 * CFG_CH * 2;
#else
constexpr unsigned STAGING = 0;
constexpr unsigned SMEM_BYTES = EMPTY + 8 * CFG_STAGES;
#endif
static_assert(SLOT_B % 1024 == 0 && SLOT_BYTES % 1024 == 0, "sw128 tiles need 1024-byte alignment");
static_assert(SMEM_BYTES <= 232448, "over the 227 KiB of shared memory per block");
}
namespace place = PLK_CAT(place_, CFG_NAME);

/* ---------------- ABI definitions: constants of this placement ---------------- */
extern __shared__ __align__(1024) unsigned char plk_dsmem[];

extern "C" __device__ __forceinline__ void *plk_smem(int inst, int buf) { return plk_dsmem + place::STAGING; }
extern "C" __device__ __forceinline__ int plk_ring_stages(int inst, int port) { return CFG_STAGES; }
extern "C" __device__ __forceinline__ void *plk_ring_slot(int inst, int port, int stage)
{
	return plk_dsmem + place::RING + stage * place::SLOT_BYTES;
}
extern "C" __device__ __forceinline__ unsigned plk_ring_field(int inst, int port, int field)
{
	return field == 0 ? place::SLOT_A : place::SLOT_B;
}
extern "C" __device__ __forceinline__ void *plk_ring_full(int inst, int port, int stage)
{
	return plk_dsmem + place::FULL + 8 * stage;
}
extern "C" __device__ __forceinline__ void *plk_ring_empty(int inst, int port, int stage)
{
	return plk_dsmem + place::EMPTY + 8 * stage;
}
extern "C" __device__ __forceinline__ int plk_ring_handoffs(int inst, int port) { return 0; }	/* no lanes */
extern "C" __device__ __forceinline__ void *plk_ring_turn(int inst, int port) { return nullptr; }
extern "C" __device__ __forceinline__ int plk_named_barrier(int inst, int bar) { return 1 + bar; }
extern "C" __device__ __forceinline__ int plk_barrier_threads(int inst, int bar) { return 32 * CONSUMER_WARPS; }
extern "C" __device__ __forceinline__ int plk_role_first_warp(int inst) { return inst == 0 ? 0 : LOAD_WARPS; }
extern "C" __device__ __forceinline__ int plk_role_warps(int inst) { return inst == 0 ? 1 : CONSUMER_WARPS; }
/* the loader's `ready` hook, unconnected: nothing to wait for */
extern "C" __device__ __forceinline__ int plk_tile_ready(int inst, int port, const void *ctx, int row, int rows) { return 0; }

/* ---------------- component sources, each with its cparams ---------------- */
#if CFG_MAIN == 1
#define BM CFG_BM
#define BN CFG_BN
#define BK CFG_BK
#define MCAST 1
#include "../../components/hopper/tma_load_ab.cu"
#undef BM
#undef BN
#undef BK
#undef MCAST
#define BM CFG_BM
#define BN CFG_BN
#define BK CFG_BK
#define WG CFG_WG
#include "../../components/hopper/wgmma_mainloop.cu"
#undef BM
#undef BN
#undef BK
#undef WG
#else
#define BM CFG_BM
#define BN CFG_BN
#define BK CFG_BK
#include "../../components/ampere/cp_async_load_ab.cu"
#undef BM
#undef BN
#undef BK
#define BM CFG_BM
#define BN CFG_BN
#define BK CFG_BK
#define WARPS CONSUMER_WARPS
#include "../../components/ampere/mma_sync_mainloop.cu"
#undef BM
#undef BN
#undef BK
#undef WARPS
#endif
#define BM CFG_BM
#define BN CFG_BN
#define WARPS CONSUMER_WARPS
#define CH CFG_CH
#if CFG_EPI == 1
#include "../../components/hopper/store_bf16.cu"
#elif CFG_EPI == 2
#include "../../components/hopper/bias_gelu.cu"
#elif CFG_EPI == 3
#include "../../components/common/swiglu.cu"
#elif CFG_EPI == 4
#include "../../components/hopper/store_bf16_tma.cu"
#else
#include "../../components/hopper/swiglu_tma.cu"
#endif
#undef BM
#undef BN
#undef WARPS
#undef CH

/* ---------------- the kernel ---------------- */
#if CFG_EPI == 1
#define EPILOGUE(tm, tn) plk_store_bf16(2, c, M, N, acc, tm, tn)
#elif CFG_EPI == 2
#define EPILOGUE(tm, tn) plk_bias_gelu(2, c, bias, M, N, acc, tm, tn)
#elif CFG_EPI == 3
#define EPILOGUE(tm, tn) plk_swiglu(2, c, M, N, acc, tm, tn)
#elif CFG_EPI == 4
#define EPILOGUE(tm, tn) plk_store_bf16_tma(2, &c_map, acc, tm, tn)
#else
#define EPILOGUE(tm, tn) plk_swiglu_tma(2, &c_map, acc, tm, tn)
#endif
#define ACC_PER_THREAD (CFG_BM * CFG_BN / (32 * CONSUMER_WARPS))

extern "C" __global__ void __launch_bounds__(THREADS, 1)
PLK_CAT(plk_kernel_, CFG_NAME)(const __grid_constant__ CUtensorMap a_map,
                               const __grid_constant__ CUtensorMap b_map,
                               const __grid_constant__ CUtensorMap c_map,
                               const __nv_bfloat16 *a, const __nv_bfloat16 *b,
                               __nv_bfloat16 *c, const __nv_bfloat16 *bias,
                               int M, int N, int K)
{
	/* prologue: barriers, then every role starts */
	if (threadIdx.x == 0) {
		if (plk_smem_u32(plk_dsmem) & 1023)
			__trap();	/* sw128 tiles need a 1024-aligned base */
		for (int s = 0; s < CFG_STAGES; s++) {
			plk_mbar_init(plk_ring_full(0, 0, s), 32);		/* the producer warp's threads */
			plk_mbar_init(plk_ring_empty(0, 0, s), 32 * CONSUMER_WARPS);	/* the consumers' threads */
		}
		plk_fence_mbar_init();
	}
	__syncthreads();

#if CFG_EPI == 3 || CFG_EPI == 5
	const int nacc = 2 * N;		/* swiglu: gate and up columns */
#else
	const int nacc = N;
#endif
	const int tiles_m = (M + CFG_BM - 1) / CFG_BM, tiles_n = (nacc + CFG_BN - 1) / CFG_BN;
	const int ntiles = tiles_m * tiles_n;
	const int KT = (K + CFG_BK - 1) / CFG_BK;   /* K tiles: every work item takes all of them */
	const int warp = __shfl_sync(0xffffffffu, (int)(threadIdx.x >> 5), 0);

	if (warp < LOAD_WARPS) {
		/* role load: warps [0, LOAD_WARPS), instance 0 on warp 0 */
#if CFG_MAIN == 1
		plk_setmaxnreg_dec<REGS_LOAD>();
#endif
		if (warp == 0) {
			plk_pipe ab = {0, 0};
			for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
				int tm, tn;
				plk_raster_grouped(t, tiles_m, tiles_n, CFG_GROUP, &tm, &tn);
#if CFG_MAIN == 1
				plk_tma_load_ab(0, &a_map, &b_map, K, M, &ab, nullptr, tm, tn, 0, KT);
#else
				plk_cp_async_load_ab(0, a, b, M, nacc, K, &ab, tm, tn);
#endif
			}
			/* flush: every entry once more with tile -1 */
#if CFG_MAIN == 1
			plk_tma_load_ab(0, &a_map, &b_map, K, M, &ab, nullptr, -1, -1, 0, 0);
#else
			plk_cp_async_load_ab(0, a, b, M, nacc, K, &ab, -1, -1);
#endif
		}
	} else {
		/* role mma: warps [LOAD_WARPS, LOAD_WARPS + CONSUMER_WARPS),
		 * instances 1 (mainloop) and 2 (epilogue) in turn */
#if CFG_MAIN == 1
		plk_setmaxnreg_inc<REGS_MMA>();
#endif
		plk_pipe ab = {0, 0};
		float acc[ACC_PER_THREAD];
		for (int t = blockIdx.x; t < ntiles; t += gridDim.x) {
			int tm, tn;
			plk_raster_grouped(t, tiles_m, tiles_n, CFG_GROUP, &tm, &tn);
#if CFG_MAIN == 1
			plk_wgmma_mainloop(1, K, &ab, acc, tm, tn, 0, KT);
#else
			plk_mma_sync_mainloop(1, K, &ab, acc, tm, tn);
#endif
			EPILOGUE(tm, tn);
		}
		/* flush: every entry once more with tile -1 */
#if CFG_MAIN == 1
		plk_wgmma_mainloop(1, K, &ab, acc, -1, -1, 0, 0);
#else
		plk_mma_sync_mainloop(1, K, &ab, acc, -1, -1);
#endif
		EPILOGUE(-1, -1);
	}
}

/* ---------------- host launcher ---------------- */
static int PLK_CAT(encode_, CFG_NAME)(CUtensorMap *m, const void *p, int rows, int cols,
                                      int box_rows, int box_cols)
{
	cuuint64_t dims[2] = {(cuuint64_t)cols, (cuuint64_t)rows};
	cuuint64_t strides[1] = {(cuuint64_t)cols * 2};
	cuuint32_t box[2] = {(cuuint32_t)box_cols, (cuuint32_t)box_rows};
	cuuint32_t estr[2] = {1, 1};
	CUresult r = cuTensorMapEncodeTiled(m, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16, 2, (void *)p, dims,
	                                    strides, box, estr, CU_TENSOR_MAP_INTERLEAVE_NONE,
	                                    CU_TENSOR_MAP_SWIZZLE_128B,
	                                    CU_TENSOR_MAP_L2_PROMOTION_L2_256B,
	                                    CU_TENSOR_MAP_FLOAT_OOB_FILL_NONE);
	return r == CUDA_SUCCESS ? 0 : -100 - (int)r;
}

/* a [M, K], b [nacc, K], c [M, N]; returns 0 or a negative error code */
extern "C" int PLK_CAT(plk_mono_launch_, CFG_NAME)(const void *a, const void *b, void *c,
                                                   const void *bias, int M, int N, int K,
                                                   int sms, cudaStream_t st)
{
	static bool attr_set = false;
	auto kern = PLK_CAT(plk_kernel_, CFG_NAME);
	const int nacc = CFG_EPI == 3 || CFG_EPI == 5 ? 2 * N : N;
	CUtensorMap am, bm, cm;
	memset(&am, 0, sizeof am);
	memset(&bm, 0, sizeof bm);
	memset(&cm, 0, sizeof cm);
	if (CFG_MAIN == 1) {
		int e = PLK_CAT(encode_, CFG_NAME)(&am, a, M, K, CFG_BM, CFG_BK);
		if (!e)
			e = PLK_CAT(encode_, CFG_NAME)(&bm, b, nacc, K, CFG_BN, CFG_BK);
		if (!e && CFG_EPI >= 4)
			e = PLK_CAT(encode_, CFG_NAME)(&cm, c, M, N, 64, 64);
		if (e)
			return e;
	}
	if (!attr_set) {
		cudaError_t e = cudaFuncSetAttribute(kern, cudaFuncAttributeMaxDynamicSharedMemorySize,
		                                     (int)place::SMEM_BYTES);
		if (e != cudaSuccess)
			return -(int)e;
		attr_set = true;
	}
	const int ntiles = ((M + CFG_BM - 1) / CFG_BM) * ((nacc + CFG_BN - 1) / CFG_BN);
	const int grid = ntiles < sms ? ntiles : sms;
	kern<<<grid, THREADS, place::SMEM_BYTES, st>>>(am, bm, cm, (const __nv_bfloat16 *)a,
	                                               (const __nv_bfloat16 *)b, (__nv_bfloat16 *)c,
	                                               (const __nv_bfloat16 *)bias, M, N, K);
	cudaError_t e = cudaGetLastError();
	return e == cudaSuccess ? 0 : -(int)e;
}
