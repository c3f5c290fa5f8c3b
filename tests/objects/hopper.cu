extern "C" __device__ int plk_test_hopper(int inst)
{
	return inst + 1;
}
