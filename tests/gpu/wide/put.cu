/* put: writes the integers it is given, as its entry receives them, to
 * y (tests/gpu/wide.py): what the glue computed for each bound param. */
#include "plk.cuh"

PLK_ENTRY void plk_test_put(int inst, long long *y, long long n, long long m, int k, int tile_m, int tile_n)
{
	if (tile_m < 0 || threadIdx.x != 0)
		return;   /* the flush call; one thread writes */
	y[0] = n;
	y[1] = m;
	y[2] = k;
}
