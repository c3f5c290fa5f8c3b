/*
 * sliding_window: causal attention to the last W keys (bottom-right
 * aligned, as causal.cu): query q attends to key kv when
 * q + SKV - SQ - W < kv <= q + SKV - SQ. Blocks from the first holding a
 * visible key to the last; a block is full when every query of the q
 * block sees all of it. Contract: sliding_window.plk.
 */
#include "plk.cuh"

#ifndef PLK_SLIDING_WINDOW_PLK_H
#include <sliding_window.plk.h>
#endif

PLK_ENTRY int plk_sliding_window_mask(int inst, int SQ, int SKV, int W, int b, int h, int q, int kv)
{
	/* hi - W < kv <= hi, hi the query's own position among the keys: two
	 * compares of kv with bounds of the row, which the core's unrolled
	 * softmax computes once per row (d = hi - kv compared twice, with its
	 * sign tested by a shift, cost 7.6 instructions a key against 4) */
	const int hi = q + (SKV - SQ);
	const long long wide = (long long)hi - W;	/* hi - W, clamped to int: no overflow */
	const int lo = (int)max((long long)INT_MIN, min((long long)INT_MAX, wide));
	return (kv <= hi) & (kv > lo);	/* `&`: a select, not a branch per element */
}

/* the first block holding a key that some query of block qb sees */
__device__ __forceinline__ int plk_sliding_window_first(int SQ, int SKV, int W, int qb)
{
	return max(0, qb * BM + (SKV - SQ) - W + 1) / BN;
}

PLK_ENTRY int plk_sliding_window_blocks_count(int inst, int SQ, int SKV, int W, int b, int h, int qb)
{
	const int last = min(SKV - 1, qb * BM + BM - 1 + (SKV - SQ));
	if (last < 0)
		return 0;
	return last / BN - plk_sliding_window_first(SQ, SKV, W, qb) + 1;
}

PLK_ENTRY int plk_sliding_window_blocks_at(int inst, int SQ, int SKV, int W, int b, int h, int qb, int i)
{
	const int j = plk_sliding_window_first(SQ, SKV, W, qb) + i;
	const int q0 = qb * BM + (SKV - SQ), q1 = q0 + BM - 1;	/* the block's queries, in key positions */
	const bool full = j * BN + BN - 1 <= q0 && q1 - j * BN < W;
	return j << 1 | (full ? 0 : 1);
}
