/*
 * document: causal attention inside each document of a packed batch of
 * sequences (SQ == SKV, the tokens of one sequence after another), from a
 * per-token document id, ids ascending along the sequence: query q
 * attends to key kv <= q of the same document. A q block visits the keys
 * from the start of its first token's document up to its last token; a
 * block is full when its keys and the q block's queries all lie in one
 * document and below the diagonal. doc: [B, SKV] (b-th row for batch b).
 * Contract: document.plk.
 */
#include "plk.cuh"

#ifndef PLK_DOCUMENT_PLK_H
#include <document.plk.h>
#endif

PLK_ENTRY int plk_document_mask(int inst, const int *doc, int SKV, int b, int h, int q, int kv)
{
	const int *d = doc + (size_t)b * SKV;
	return kv <= q && __ldg(d + q) == __ldg(d + kv);
}

/* the first position of the document holding position p (ids ascending) */
__device__ __forceinline__ int plk_document_start(const int *d, int p)
{
	const int id = __ldg(d + p);
	int lo = 0, hi = p;	/* d[hi] == id; find the least such index */
	while (lo < hi) {
		const int mid = (lo + hi) >> 1;
		if (__ldg(d + mid) == id)
			hi = mid;
		else
			lo = mid + 1;
	}
	return lo;
}

PLK_ENTRY int plk_document_blocks_count(int inst, const int *doc, int SKV, int b, int h, int qb)
{
	const int q0 = qb * BM, q1 = min(q0 + BM, SKV) - 1;
	if (q0 >= SKV)
		return 0;
	const int first = plk_document_start(doc + (size_t)b * SKV, q0) / BN;
	return q1 / BN - first + 1;
}

PLK_ENTRY int plk_document_blocks_at(int inst, const int *doc, int SKV, int b, int h, int qb, int i)
{
	const int *d = doc + (size_t)b * SKV;
	const int q0 = qb * BM, q1 = min(q0 + BM, SKV) - 1;
	const int j = plk_document_start(d, q0) / BN + i;
	const int k0 = j * BN, k1 = min(k0 + BN, SKV) - 1;
	const int id = __ldg(d + q0);
	const bool full = k1 <= q0 && __ldg(d + k0) == id && __ldg(d + q1) == id;
	return j << 1 | (full ? 0 : 1);
}
