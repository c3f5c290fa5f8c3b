extern "C" __device__ int plk_test_stale(int inst)
{
	return inst + 2;   // stale.elf was built when this said `inst + 1`
}
