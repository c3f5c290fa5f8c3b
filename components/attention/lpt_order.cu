/*
 * lpt_order: the persistent grid's work items longest first, for causal
 * and other masks that make q blocks uneven, in groups of G (batch, head)
 * pairs: within a group, item t takes q block tiles_m - 1 - t / g of head
 * t % g, so the blocks deal out the long items first and finish together
 * (longest processing time first, dealt round robin), while the blocks
 * running at once share the K and V of only G heads in L2 (G about the
 * heads whose K and V fit). Measured on the H200 (bench/results): causal
 * at S = 16k, 425 -> 537 TFLOP/s against q blocks in order; at S = 8k
 * within 1% of it. Contract: lpt_order.plk.
 */
#include "plk.cuh"

#ifndef PLK_LPT_ORDER_PLK_H
#include <lpt_order.plk.h>
#endif

/* t's group, its place in the group and the group's heads */
__device__ __forceinline__ void plk_lpt_group(int G, int t, int tiles_m, int tiles_n, int *grp, int *r, int *g)
{
	G = max(1, min(G, tiles_n));
	*grp = t / (G * tiles_m);
	*r = t - *grp * G * tiles_m;
	*g = min(G, tiles_n - *grp * G);
}

PLK_ENTRY int plk_lpt_order_m(int inst, int G, int t, int tiles_m, int tiles_n)
{
	int grp, r, g;
	plk_lpt_group(G, t, tiles_m, tiles_n, &grp, &r, &g);
	return tiles_m - 1 - r / g;
}

PLK_ENTRY int plk_lpt_order_n(int inst, int G, int t, int tiles_m, int tiles_n)
{
	int grp, r, g;
	plk_lpt_group(G, t, tiles_m, tiles_n, &grp, &r, &g);
	return grp * max(1, min(G, tiles_n)) + r % g;
}
