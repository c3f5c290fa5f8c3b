/*
 * document: causal attention inside each document of a packed batch of
 * sequences (SQ == SKV, the tokens of one sequence after another): query q
 * attends to key kv <= q of its own document. A token's document is given
 * by where it starts: start[b, t] is the position of the first token of
 * t's document (FlashAttention's cu_seqlens, per token; pipelink's
 * attention() derives it from document ids). Documents are contiguous, so
 * a key kv <= q lies in q's document exactly when kv >= start[q]: the mask
 * is a bound per row, one load per row and no load per key. The KV blocks
 * of a q block run from its first token's document start to its last
 * token; a block is full when it lies below the diagonal and at or after
 * the latest start of the q block's rows (start[q1]: starts ascend).
 * (A binary search over document ids per block, tried first, put a chain
 * of 13 dependent loads on the core's critical path: 3x slower; comparing
 * ids per key cost a load per element.)
 * Contract: document.plk.
 */
#include "plk.cuh"

#ifndef PLK_DOCUMENT_PLK_H
#include <document.plk.h>
#endif

PLK_ENTRY int plk_document_mask(int inst, const int *start, int SKV, int b, int h, int q, int kv)
{
	/* The core masks every row of a partial block, the last q block's
	 * rows past SQ (= SKV) too: their start is read at the last token's,
	 * not past the end of start[] (their results are not written). A
	 * bound per row, computed once for the row as the load is. */
	const int qs = min(q, SKV - 1);
	return (kv <= q) & (kv >= __ldg(start + (size_t)b * SKV + qs));	/* `&`: a select, not a branch */
}

PLK_ENTRY int plk_document_blocks_count(int inst, const int *start, int SKV, int b, int h, int qb)
{
	const int q0 = qb * BM, q1 = min(q0 + BM, SKV) - 1;
	if (q0 >= SKV)
		return 0;
	return q1 / BN - __ldg(start + (size_t)b * SKV + q0) / BN + 1;
}

PLK_ENTRY int plk_document_blocks_at(int inst, const int *start, int SKV, int b, int h, int qb, int i)
{
	const int *st = start + (size_t)b * SKV;
	const int q0 = qb * BM, q1 = min(q0 + BM, SKV) - 1;
	/* two independent loads: one latency, hidden behind the block's GEMM */
	const int j = __ldg(st + q0) / BN + i;
	const int k0 = j * BN, k1 = min(k0 + BN, SKV) - 1;
	const bool full = (k1 <= q0) & (k0 >= __ldg(st + q1));
	return j << 1 | (full ? 0 : 1);
}
