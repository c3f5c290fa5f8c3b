/*
 * gateup_silu_bulk: 32 features of silu(Wg xn) x (Wu xn), a piece's 64
 * weight rows (32 gate rows, then the same features' 32 up rows) moved
 * into shared memory by the copy engine (contract: gateup_silu_bulk.plk).
 *
 * Thread 0 starts the first STAGES pages of 8 rows (cp.async.bulk, one
 * contiguous copy of 8 x D x 2 bytes each, completing on the page's full
 * mbarrier) before any warp has its normed vector; each page is then
 * read by the 8 warps, warp w dotting row w, and released on the page's
 * empty mbarrier (each thread arrives for its own reads: racecheck does
 * not see a warp's reads ordered before its lane 0's arrival, and says
 * so, docs/toolchain.md); thread 0 refills it with page
 * p + STAGES once every warp has released it. So HBM sees large
 * sequential copies, STAGES pages in flight, and no register holds a
 * weight in flight. Sums in the order gateup_silu makes them (bit for bit
 * the same outputs).
 *
 * The mbarriers live only for the piece: initialised at its start,
 * invalidated at its end, so the next op may reuse the memory.
 */
#include "plk.cuh"
#include "../../components/decode/decode.cuh"

#ifndef PLK_GATEUP_SILU_BULK_PLK_H
#include <gateup_silu_bulk.plk.h>
#endif

using namespace plk_decode;

/* bytes of one page: 8 rows of D bf16 */
#define GSB_PAGE (8u * D * 2u)

__device__ __forceinline__ void gsb_copy(void *dst, const void *src, unsigned bytes, void *bar)
{
#if __CUDA_ARCH__ >= 900
	asm volatile("{\n.reg .b64 st;\nmbarrier.arrive.expect_tx.shared::cta.b64 st, [%0], %1;\n}"
	             ::"r"(plk_smem_u32(bar)), "r"(bytes) : "memory");
	if (bytes)
		asm volatile("cp.async.bulk.shared::cluster.global.mbarrier::complete_tx::bytes [%0], [%1], %2, [%3];"
		             ::"r"(plk_smem_u32(dst)), "l"(src), "r"(bytes), "r"(plk_smem_u32(bar)) : "memory");
#else
	(void)dst; (void)src; (void)bytes; (void)bar;
	__trap();   /* contract: arch >= sm_90 */
#endif
}

__device__ __forceinline__ void gsb_inval(void *bar)
{
	asm volatile("mbarrier.inval.shared.b64 [%0];" ::"r"(plk_smem_u32(bar)) : "memory");
}

PLK_ENTRY void plk_gateup_silu_bulk(int inst, const __nv_bfloat16 *w, const __nv_bfloat16 *x, const __nv_bfloat16 *g,
                                    __nv_bfloat16 *y, int F, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* the flush call */
	constexpr int NK = D / 256, FEAT = 32, ROWS = 2 * FEAT, NPAGE = ROWS / 8;
	static_assert(WARPS == 8, "a page's 8 rows, a warp each");
	const int lane = threadIdx.x & 31, warp = plk_warp_rank(inst), t = warp * 32 + lane;
	char *pages = (char *)plk_smem(inst, GATEUP_SILU_BULK_BUF_PAGES);
	uint64_t *full = (uint64_t *)plk_smem(inst, GATEUP_SILU_BULK_BUF_STATE), *empty = full + STAGES;
	float *sums = (float *)(empty + STAGES);
	const int row0 = tile_m * ROWS, nrows = 2 * F;
	/* page p: rows row0 + 8p .. + 7, those inside the matrix */
	auto start = [&](int p) {
		const int r = row0 + 8 * p, n = r + 8 <= nrows ? 8 : r < nrows ? nrows - r : 0;
		gsb_copy(pages + (p % STAGES) * GSB_PAGE, w + (size_t)r * D, (unsigned)n * D * 2u, &full[p % STAGES]);
	};
	if (t == 0) {
		for (int s = 0; s < STAGES; s++) {
			plk_mbar_init(&full[s], 1);
			plk_mbar_init(&empty[s], WARPS * 32);
		}
		plk_fence_mbar_init();
	}
	plk_bar_sync(inst, GATEUP_SILU_BULK_BAR_READY);
	if (t == 0)
		for (int p = 0; p < STAGES && p < NPAGE; p++)
			start(p);
	float xr[NK][8];
	load_normed<NK>(x, g, 1e-5f, xr);
#pragma unroll 1
	for (int p = 0; p < NPAGE; p++) {
		const int s = p % STAGES;
		const unsigned parity = (p / STAGES) & 1;
		plk_mbar_wait(&full[s], parity);
		const __nv_bfloat16 *row = (const __nv_bfloat16 *)(pages + s * GSB_PAGE) + warp * D;
		float acc = 0.f;
#pragma unroll
		for (int j = 0; j < NK; j++)
			acc += dot8(*(const uint4 *)(row + lane * 8 + j * 256), xr[j]);
		plk_mbar_arrive(&empty[s]);   /* this thread has read its share of the page */
		acc = warp_sum(acc);
		if (lane == 0)
			sums[8 * p + warp] = acc;
		if (t == 0 && p + STAGES < NPAGE) {
			plk_mbar_wait(&empty[s], parity);
			start(p + STAGES);
		}
	}
	plk_bar_sync(inst, GATEUP_SILU_BULK_BAR_READY);
	const int f = tile_m * FEAT + t;
	if (t < FEAT && f < F) {
		const float a = sums[t], b = sums[FEAT + t];
		y[f] = __float2bfloat16(a / (1.f + __expf(-a)) * b);
	}
	if (t == 0)
		for (int s = 0; s < STAGES; s++) {
			gsb_inval(&full[s]);
			gsb_inval(&empty[s]);
		}
	plk_bar_sync(inst, GATEUP_SILU_BULK_BAR_READY);   /* sums and pages free for the next piece */
}
