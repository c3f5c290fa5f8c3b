// The component add.plk declares: nothing but a constant the build defines.
extern "C" __device__ int plk_test_add(int inst, int a)
{
	return a + N * M + K;
}
