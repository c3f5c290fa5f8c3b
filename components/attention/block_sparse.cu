/*
 * block_sparse: the KV blocks of each q block from a block mask in
 * FlexAttention's BlockMask form: for (b, h, q block), kv_num[.] partial
 * blocks listed in kv_idx[., 0 ..] (the mask hook, if any, applies to
 * them) and full_num[.] full blocks in full_idx[., 0 ..], full ones
 * first. The index tensors are [B, H, QB, KVB], the counts [B, H, QB].
 * Contract: block_sparse.plk.
 */
#include "plk.cuh"

#ifndef PLK_BLOCK_SPARSE_PLK_H
#include <block_sparse.plk.h>
#endif

__device__ __forceinline__ size_t plk_block_sparse_row(int H, int QB, int b, int h, int qb)
{
	return ((size_t)b * H + h) * QB + qb;
}

PLK_ENTRY int plk_block_sparse_blocks_count(int inst, const int *kv_num, const int *kv_idx, const int *full_num,
                                            const int *full_idx, int H, int QB, int KVB, int b, int h, int qb)
{
	const size_t r = plk_block_sparse_row(H, QB, b, h, qb);
	return __ldg(kv_num + r) + __ldg(full_num + r);
}

PLK_ENTRY int plk_block_sparse_blocks_at(int inst, const int *kv_num, const int *kv_idx, const int *full_num,
                                         const int *full_idx, int H, int QB, int KVB, int b, int h, int qb, int i)
{
	const size_t r = plk_block_sparse_row(H, QB, b, h, qb);
	const int nf = __ldg(full_num + r);
	if (i < nf)
		return __ldg(full_idx + r * KVB + i) << 1;
	return __ldg(kv_idx + r * KVB + (i - nf)) << 1 | 1;
}
