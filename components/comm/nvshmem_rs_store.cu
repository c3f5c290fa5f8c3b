/*
 * nvshmem_rs_store: the reduce-scatter's epilogue (contract:
 * nvshmem_rs_store.plk). Tile (tm, tn) of partial C belongs to GPU
 * o = tm BM / share, share = M / P rows each.
 *
 * Another GPU's tile: the bf16 partial goes from registers straight
 * into o's R, slot `me` (rows me share + the tile's row in o's share),
 * through the peer pointer nvshmem_ptr gives; every thread fences its
 * stores to the system, the warps meet on `sent`, and one thread sets
 * signal [tile in o's share] x P + me on o to `epoch` by a release
 * store through the same kind of pointer (nvshmemx_signal_op, its
 * transport choice inlined, spilled).
 *
 * Its own tile: it waits for the P - 1 other signals of the tile, stores
 * its own partial into its own slot of R, and sums the P slots into C
 * row-major with coalesced 16-byte loads. Partials are bf16, summed in
 * f32.
 */
#include "plk.cuh"
#include "../common/acc_store.cuh"
#include <nvshmem.h>
#include <nvshmemx.h>

#ifndef PLK_NVSHMEM_RS_STORE_PLK_H
#include <nvshmem_rs_store.plk.h>
#endif

PLK_ENTRY void plk_nvshmem_rs_store(int inst, __nv_bfloat16 *c, __nv_bfloat16 *r, unsigned long long *sig, int M,
                                    int N, int epoch, float *acc, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;   /* prologue or flush: the stores are plain, and fenced per tile */
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
	const int me = nvshmem_my_pe(), npes = nvshmem_n_pes();
	if (M % (npes * BM))
		__trap();   /* shares of whole row blocks: else a launch error, never a wrong C */
	const int share = M / npes, tiles_n = (N + BN - 1) / BN;
	const int r0 = tile_m * BM, c0 = tile_n * BN, owner = r0 / share, lr = r0 - owner * share;
	const int w = plk_warp_rank(inst);
	uint64_t *flags = (uint64_t *)sig + ((size_t)(lr / BM) * tiles_n + tile_n) * npes;
	if (owner != me) {
		__nv_bfloat16 *peer = (__nv_bfloat16 *)nvshmem_ptr(r, owner);
		if (!peer)
			__trap();   /* not an NVLink peer */
		plk_acc_store_bf16<MI, NI, WARPS>(acc, w, peer + ((size_t)me * share + lr) * N + c0, share - lr, N - c0,
		                                  (size_t)N);
		__threadfence_system();
		plk_bar_sync(inst, NVSHMEM_RS_STORE_BAR_SENT);
		if (w == 0 && plk_lane() == 0) {   /* a release store by NVLink: the peer is one (above) */
			uint64_t *f = (uint64_t *)nvshmem_ptr(flags + me, owner);
			asm volatile("st.release.sys.global.u64 [%0], %1;" ::"l"(f), "l"((uint64_t)epoch) : "memory");
		}
		return;
	}
	/* its own tile: the others' partials waited for, its own into its
	 * own slot, then the tile summed over the P slots row-major, 8
	 * columns (16 bytes) a thread at a time: loads that coalesce (in
	 * the accumulator's layout instead, and with the own store before
	 * the waits, ptxas spilled more) */
	for (int src = 0; src < npes; src++)
		if (src != me)
			nvshmem_signal_wait_until(flags + src, NVSHMEM_CMP_GE, (uint64_t)epoch);
	__threadfence();
	__nv_bfloat16 *slot0 = r + (size_t)lr * N + c0;   /* slot `src` is share x N further each */
	plk_acc_store_bf16<MI, NI, WARPS>(acc, w, slot0 + (size_t)me * share * N, share - lr, N - c0, (size_t)N);
	plk_bar_sync(inst, NVSHMEM_RS_STORE_BAR_SENT);
	const int rows = min(BM, share - lr), cols = min(BN, N - c0);
	for (int k = w * 32 + plk_lane(); k < BM * (BN / 8); k += WARPS * 32) {
		const int row = k / (BN / 8), col = k % (BN / 8) * 8;
		if (row >= rows || col >= cols)
			continue;
		float sum[8] = {};
		for (int src = 0; src < npes; src++) {
			const uint4 v = *(const uint4 *)(slot0 + ((size_t)src * share + row) * N + col);
			const __nv_bfloat162 *p = (const __nv_bfloat162 *)&v;
#pragma unroll
			for (int j = 0; j < 4; j++) {
				sum[2 * j] += __bfloat162float(p[j].x);
				sum[2 * j + 1] += __bfloat162float(p[j].y);
			}
		}
		uint4 o;
		__nv_bfloat162 *q = (__nv_bfloat162 *)&o;
#pragma unroll
		for (int j = 0; j < 4; j++)
			q[j] = __floats2bfloat162_rn(sum[2 * j], sum[2 * j + 1]);
		*(uint4 *)(c + ((size_t)lr + row) * N + c0 + col) = o;
	}
	plk_bar_sync(inst, NVSHMEM_RS_STORE_BAR_SENT);   /* the slot is read before the next tile's partial lands */
}
