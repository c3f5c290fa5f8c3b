/*
 * l2_prefetch: piece tile_m's share of w[0, n) into L2 (contract:
 * l2_prefetch.plk). Lane l of warp 0 issues cp.async.bulk.prefetch.L2 of
 * its 32nd of the share; HINT 1 marks the lines evict_last, so that the
 * streams between the prefetch and its use do not evict them first.
 */
#include "plk.cuh"

#ifndef PLK_L2_PREFETCH_PLK_H
#include <l2_prefetch.plk.h>
#endif

PLK_ENTRY void plk_l2_prefetch(int inst, const __nv_bfloat16 *w, long long n, int tile_m, int tile_n)
{
	if (tile_m < 0 || plk_warp_rank(inst) != 0)
		return;   /* the flush call; warp 0 issues */
	/* the piece's bytes, then the lane's, each end rounded down to 16 */
	const long long bytes = n * 2, lo = tile_m * bytes / PIECES, hi = (tile_m + 1) * bytes / PIECES;
	const int lane = threadIdx.x & 31;
	const long long b0 = (lo + (hi - lo) * lane / 32) & ~15ll, b1 = (lo + (hi - lo) * (lane + 1) / 32) & ~15ll;
	const char *p = (const char *)w + b0;
	const long long lane_bytes = b1 - b0;
	for (long long off = 0; off < lane_bytes; off += 1 << 16) {   /* 64 KB a prefetch */
		const unsigned sz = (unsigned)(lane_bytes - off < (1 << 16) ? lane_bytes - off : 1 << 16) & ~15u;
		if (!sz)
			break;
		if (HINT) {
			unsigned long long pol;
			asm volatile("createpolicy.fractional.L2::evict_last.b64 %0, 1.0;" : "=l"(pol));
			asm volatile("cp.async.bulk.prefetch.L2.global.L2::cache_hint [%0], %1, %2;" ::"l"(p + off), "r"(sz),
			             "l"(pol) : "memory");
		} else
			asm volatile("cp.async.bulk.prefetch.L2.global [%0], %1;" ::"l"(p + off), "r"(sz) : "memory");
	}
}
