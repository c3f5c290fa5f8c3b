extern "C" __device__ void plk_test_spec(int inst, int tile_m, int tile_n)
{
	volatile int regs[N];   // N sizes an array: a compile-time constant
	regs[0] = inst + tile_m + tile_n;
}
