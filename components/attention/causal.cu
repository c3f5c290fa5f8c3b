/*
 * causal: the causal mask and its block iterator, aligned bottom-right as
 * FlashAttention aligns it when SQ != SKV: query q attends to keys
 * kv <= q + SKV - SQ. Blocks are visited in order; a block is full when
 * its last key is visible to its first query. Contract: causal.plk.
 */
#include "plk.cuh"

#ifndef PLK_CAUSAL_PLK_H
#include <causal.plk.h>
#endif

PLK_ENTRY int plk_causal_mask(int inst, int SQ, int SKV, int b, int h, int q, int kv)
{
	return kv <= q + (SKV - SQ);
}

/* blocks 0 .. the one holding the q block's last visible key */
PLK_ENTRY int plk_causal_blocks_count(int inst, int SQ, int SKV, int b, int h, int qb)
{
	const int last = min(SKV - 1, qb * BM + BM - 1 + (SKV - SQ));
	return last < 0 ? 0 : last / BN + 1;
}

PLK_ENTRY int plk_causal_blocks_at(int inst, int SQ, int SKV, int b, int h, int qb, int i)
{
	const bool full = (i + 1) * BN - 1 <= qb * BM + (SKV - SQ);
	return i << 1 | (full ? 0 : 1);
}
