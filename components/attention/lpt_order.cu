/*
 * lpt_order: the persistent grid's work items longest first, for causal
 * and other masks that make q blocks uneven: item t takes q block
 * tiles_m - 1 - t / tiles_n of (batch, head) t % tiles_n, so the blocks
 * deal out the long items first and finish together (longest processing
 * time first, dealt round robin). Contract: lpt_order.plk.
 */
#include "plk.cuh"

#ifndef PLK_LPT_ORDER_PLK_H
#include <lpt_order.plk.h>
#endif

PLK_ENTRY int plk_lpt_order_m(int inst, int t, int tiles_m, int tiles_n)
{
	return tiles_m - 1 - t / tiles_n;
}

PLK_ENTRY int plk_lpt_order_n(int inst, int t, int tiles_m, int tiles_n)
{
	return t % tiles_n;
}
