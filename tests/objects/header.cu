// header.plk's source: every constant and id comes from <header_test.plk.h>.
#ifndef PLK_HEADER_TEST_PLK_H
#include <header_test.plk.h>
#endif

#if M != 8 || L != 5 || Q != 2 || P != 5
#error "a default of header.plk is another number in C than in plkc"
#endif

extern "C" __device__ void plk_header_test(int inst, int *res, int k, plk_pipe *ab, float *acc,
                                           int tile_m, int tile_n)
{
	static_assert(HEADER_TEST_PORT_AB == 0 && HEADER_TEST_PORT_ACC == 1, "ports: in and out together");
	static_assert(HEADER_TEST_FIELD_AB_A == 0 && HEADER_TEST_FIELD_AB_B == 1, "bundle fields");
	static_assert(HEADER_TEST_BUF_SCRATCH == 0 && HEADER_TEST_BUF_FLAGS == 1, "buffers");
	static_assert(HEADER_TEST_BAR_DONE == 0, "barriers");
	res[inst] = k + N + M + L + Q + P;
}
