/*
 * discard: reads the accumulator and stores nothing (contract: discard.plk).
 * The sum keeps every accumulator live, so no part of the mainloop can be
 * optimized away; the trap on one NaN bit pattern is never taken in a
 * benchmark but the compiler cannot know that.
 */
#include "plk.cuh"

/* cparams and ids: generated from the contract, found on -I (docs/components.md) */
#ifndef PLK_DISCARD_PLK_H
#include <discard.plk.h>
#endif

PLK_ENTRY void plk_discard(int inst, const void *y, float *acc, int tile_m, int tile_n)
{
	constexpr int ACC = BM * BN / (32 * WARPS);	/* f32 per thread */
	(void)inst; (void)y; (void)tile_n;
	if (tile_m < 0)
		return;
	float s = 0.f;
#pragma unroll
	for (int i = 0; i < ACC; i++)
		s += acc[i];
	if (__float_as_uint(s) == 0x7fc0dead)
		__trap();
}
