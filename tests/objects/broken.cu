extern "C" __device__ int plk_test_broken(int inst)
{
	return undeclared_name + inst;
}
