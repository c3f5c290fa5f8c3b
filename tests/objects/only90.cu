extern "C" __device__ int plk_test_only90(int inst)
{
	return inst * 2;
}
