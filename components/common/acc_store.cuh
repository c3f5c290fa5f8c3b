/*
 * acc_store.cuh: store a wgmma_acc-layout fragment (docs/components.md) of
 * f32 values to a row-major bf16 matrix, shared by the epilogues. The four
 * lanes that share a row swap column pairs (a 4 x 4 transpose by xor
 * shuffles) so that each lane writes 8 consecutive columns with one 16-byte
 * store and a warp writes whole 64-byte row segments. Needs ld % 8 == 0 and
 * a 16-byte-aligned base.
 */
#ifndef PLK_ACC_STORE_CUH
#define PLK_ACC_STORE_CUH

#include "plk.cuh"
#include <cuda_bf16.h>

/* v: mblocks x nblocks blocks of 4 values (wgmma_acc order); w: warp rank
 * among nwarps warps; out: the tile's top-left element; rows, cols:
 * elements left in the matrix from there (clipping); ld: row pitch.
 * Template names are lower case: cparams are macros. */
template <int mblocks, int nblocks, int nwarps>
__device__ __forceinline__ void plk_acc_store_bf16(const float *v, int w, __nv_bfloat16 *out,
                                                   int rows, int cols, size_t ld)
{
	static_assert(nblocks % 4 == 0, "stores go 4 column blocks (32 columns) at a time");
	const int q = plk_lane() & 3;
#pragma unroll
	for (int mi = 0; mi < mblocks; mi++) {
#pragma unroll
		for (int h = 0; h < 2; h++) {	/* rows lane/4 and lane/4 + 8 */
			const int row = plk_acc_row(mi, 2 * h, w, nwarps);
			__nv_bfloat16 *orow = out + (size_t)row * ld;
#pragma unroll
			for (int n4 = 0; n4 < nblocks; n4 += 4) {
				/* p[b]: my column pair of block n4 + b */
				uint32_t p[4], o[4];
#pragma unroll
				for (int b = 0; b < 4; b++) {
					const float *e = v + (mi * nblocks + n4 + b) * 4 + 2 * h;
					__nv_bfloat162 t = __floats2bfloat162_rn(e[0], e[1]);
					p[b] = *(uint32_t *)&t;
				}
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
				/* cols % 8 == 0, so a started 8-column block is whole */
				if (row < rows && col < cols)
					*(uint4 *)(orow + col) = make_uint4(o[0], o[1], o[2], o[3]);
			}
		}
	}
}

#endif /* PLK_ACC_STORE_CUH */
