/*
 * acc_store.cuh: store a wgmma_acc-layout fragment (docs/components.md) of
 * f32 values to a row-major bf16 matrix, shared by the epilogues. The four
 * lanes that share a row swap column pairs (a 4 x 4 transpose by xor
 * shuffles) so that each lane writes 8 consecutive columns with one 16-byte
 * store and a warp writes whole 64-byte row segments (a last 16 columns
 * that make no whole 32: 4 bytes a lane). Where ld % 8 != 0 or
 * the base is not 16-byte aligned (a C of odd width, which no TMA map can
 * describe either), the same lanes write their 8 columns one by one.
 */
#ifndef PLK_ACC_STORE_CUH
#define PLK_ACC_STORE_CUH

#include "plk.cuh"
#include <cuda_bf16.h>

/* pairs(i): the bf16x2 of columns 2i and 2i + 1 of mblocks x nblocks
 * blocks of 4 values in the wgmma_acc order (an epilogue that packs its
 * results into registers of its own, leaving the accumulator registers to
 * wgmma alone: ptxas serializes the wgmmas of a mainloop whose
 * accumulators other instructions write, C7515); w: warp rank among
 * nwarps warps; out: the tile's top-left element; rows, cols: elements
 * left in the matrix from there (clipping); ld: row pitch. Template names
 * are lower case: cparams are macros. */
template <int mblocks, int nblocks, int nwarps, typename Pairs>
__device__ __forceinline__ void plk_acc_store_bf16_pairs(Pairs pairs, int w, __nv_bfloat16 *out,
                                                         int rows, int cols, size_t ld)
{
	constexpr int whole = nblocks / 4 * 4;   /* blocks stored 4 at a time (32 columns) */
	const int q = plk_lane() & 3;
	/* uniform over the warp: every row start 16-byte aligned, or none */
	const bool vec = ld % 8 == 0 && ((uintptr_t)out & 15) == 0;
#pragma unroll
	for (int mi = 0; mi < mblocks; mi++) {
#pragma unroll
		for (int h = 0; h < 2; h++) {	/* rows lane/4 and lane/4 + 8 */
			const int row = plk_acc_row(mi, 2 * h, w, nwarps);
			__nv_bfloat16 *orow = out + (size_t)row * ld;
#pragma unroll
			for (int n4 = 0; n4 < whole; n4 += 4) {
				/* p[b]: my column pair of block n4 + b */
				uint32_t p[4], o[4];
#pragma unroll
				for (int b = 0; b < 4; b++)
					p[b] = pairs((mi * nblocks + n4 + b) * 2 + h);
				/* Round r: send my pair of block q^r to lane q^r and get
				 * its pair of block q, which is column pair q^r there.
				 * Selects, not indexing: registers need constant indices. */
#pragma unroll
				for (int r = 0; r < 4; r++) {
					const int x = q ^ r;
					const uint32_t send = x == 0 ? p[0] : x == 1 ? p[1] : x == 2 ? p[2] : p[3];
					const uint32_t got = r ? __shfl_xor_sync(0xffffffffu, send, r) : send;
#pragma unroll
					for (int b = 0; b < 4; b++)
						if (x == b)
							o[b] = got;
				}
				const int col = (n4 + q) * 8;
				if (row >= rows || col >= cols)
					continue;
				if (vec) {	/* cols % 8 == 0: a started 8-column block is whole */
					*(uint4 *)(orow + col) = make_uint4(o[0], o[1], o[2], o[3]);
					continue;
				}
#pragma unroll
				for (int e = 0; e < 8; e++)
					if (col + e < cols)
						((uint16_t *)orow)[col + e] = (uint16_t)(o[e >> 1] >> (16 * (e & 1)));
			}
			/* the blocks past the last whole 4, of a width that is no
			 * multiple of 32 columns (2 of a 224-column tile): my own
			 * column pair of each, 4 bytes a lane, no exchange */
#pragma unroll
			for (int nb = whole; nb < nblocks; nb++) {
				const uint32_t p = pairs((mi * nblocks + nb) * 2 + h);
				const int col = nb * 8 + 2 * q;
				if (row >= rows || col >= cols)
					continue;
				if (vec)
					*(uint32_t *)(orow + col) = p;
				else
#pragma unroll
					for (int e = 0; e < 2; e++)
						if (col + e < cols)
							((uint16_t *)orow)[col + e] = (uint16_t)(p >> (16 * e));
			}
		}
	}
}

/* The same from f32 values v in the wgmma_acc order, rounded to bf16 here. */
template <int mblocks, int nblocks, int nwarps>
__device__ __forceinline__ void plk_acc_store_bf16(const float *v, int w, __nv_bfloat16 *out,
                                                   int rows, int cols, size_t ld)
{
	plk_acc_store_bf16_pairs<mblocks, nblocks, nwarps>(
		[v](int i) {
			__nv_bfloat162 t = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
			return *(uint32_t *)&t;
		},
		w, out, rows, cols, ld);
}

#endif /* PLK_ACC_STORE_CUH */

#if !defined(__CUDA_ARCH__) || __CUDA_ARCH__ >= 900
#ifndef PLK_ACC_STORE_TMA
#define PLK_ACC_STORE_TMA
/*
 * Store through shared memory and TMA (sm_90): each warpgroup stages its
 * 64-row blocks `chunk` columns at a time as 64 x 64 boxes in the 128B
 * swizzle (conflict-free: the 8 rows of one store instruction land in 8
 * different 16-byte chunks), then one thread per warpgroup issues the box
 * stores and returns without waiting, so the writes to global memory drain
 * while the next tile's mainloop runs. The staging space of a warpgroup is
 * reused only after its previous stores have read it (wait_group.read).
 *   buf: chunk * 128 bytes per warpgroup (64 rows x chunk bf16), 1024-aligned
 *   bar, bar_threads: a named barrier over all nwarps warps
 *   row0, col0: the tile's origin in the output tensor (TMA clips)
 * A call with row0 < 0 is the flush: the issuing threads wait until every
 * store they issued has completed.
 * The values come as pairs(i), as for plk_acc_store_bf16_pairs, or,
 * plk_acc_store_tma, as f32 values.
 * rows = true (store_bf16_tma_rows, tile widths no 64-column box divides):
 * each pass is one unswizzled chunk x 64 box, rows of chunk * 2 bytes;
 * chunk % 16 == 8 puts the 8 rows of one store instruction 4 (mod 8)
 * banks apart, so they fill the 32 banks once (no conflicts).
 */
template <int mblocks, int nblocks, int nwarps, int chunk, bool rows = false, typename Pairs>
__device__ __forceinline__ void plk_acc_store_tma_pairs(Pairs pairs, int w, char *buf,
                                                        const void *tmap, int bar, int bar_threads,
                                                        int row0, int col0)
{
	static_assert(nwarps % 4 == 0, "whole warpgroups");
	static_assert(rows || (chunk % 64 == 0 && (nblocks * 8) % chunk == 0), "whole 64-column boxes per pass");
	static_assert(!rows || (chunk % 16 == 8 && (nblocks * 8) % chunk == 0), "rows: chunk % 16 == 8, dividing the tile");
	constexpr int WGS = nwarps / 4;			/* warpgroups */
	constexpr unsigned BOX = 64 * 128;		/* one 64 x 64 bf16 box */
	constexpr unsigned WG_BYTES = chunk * 128;	/* staging per warpgroup: 64 rows x chunk bf16 */
	const int g = w >> 2, lane = plk_lane(), q = lane & 3;
	const bool issuer = (w & 3) == 0 && lane == 0;
	char *mine = buf + g * WG_BYTES;
	if (row0 < 0) {
		if (issuer)
			plk_tma_store_wait<0>();
		return;
	}
#pragma unroll
	for (int mi = 0; mi < mblocks; mi++) {
#pragma unroll
		for (int c0 = 0; c0 < nblocks * 8; c0 += chunk) {
			/* the previous pass's boxes must have left shared memory */
			if (issuer)
				plk_tma_store_wait_read<0>();
			plk_named_barrier_sync(bar, bar_threads);
#pragma unroll
			for (int nb = 0; nb < chunk / 8; nb++) {
				const int ni = c0 / 8 + nb;
#pragma unroll
				for (int h = 0; h < 2; h++) {
					const uint32_t t = pairs((mi * nblocks + ni) * 2 + h);
					const int r = 16 * (w & 3) + (lane >> 2) + 8 * h;	/* row in the 64-row block */
					char *p;
					if constexpr (rows)
						p = mine + r * (chunk * 2) + nb * 16 + 4 * q;
					else
						p = PLK_SW128_CHUNK(mine + (nb >> 3) * BOX, r, nb & 7) + 4 * q;
					*(uint32_t *)p = t;
				}
			}
			plk_fence_proxy_async();	/* generic writes -> async-proxy reads */
			plk_named_barrier_sync(bar, bar_threads);
			if (issuer) {
				const int row = row0 + (mi * WGS + g) * 64;
				if constexpr (rows) {
					plk_tma_store_2d(tmap, mine, col0 + c0, row);
				} else {
#pragma unroll
					for (int b = 0; b < chunk / 64; b++)
						plk_tma_store_2d(tmap, mine + b * BOX, col0 + c0 + b * 64, row);
				}
				plk_tma_store_commit();
			}
		}
	}
}

/* The same from f32 values in the wgmma_acc order, rounded to bf16 here. */
template <int mblocks, int nblocks, int nwarps, int chunk, bool rows = false>
__device__ __forceinline__ void plk_acc_store_tma(const float *v, int w, char *buf,
                                                  const void *tmap, int bar, int bar_threads,
                                                  int row0, int col0)
{
	plk_acc_store_tma_pairs<mblocks, nblocks, nwarps, chunk, rows>(
		[v](int i) {
			__nv_bfloat162 t = __floats2bfloat162_rn(v[2 * i], v[2 * i + 1]);
			return *(uint32_t *)&t;
		},
		w, buf, tmap, bar, bar_threads, row0, col0);
}
#endif /* PLK_ACC_STORE_TMA */
#endif
