/* gpu_check: runs a linked (or monolithic) tests/link composition on the
 * GPU and compares it with the host reference. gcc + -lcuda only.
 *
 *   gpu_check CUBIN two|three M N K BLOCKS
 *
 * Inputs are generated on the device by the fill component from the tile
 * coordinates; the output starts poisoned (NaN), so a tile no block wrote
 * fails. BLOCKS below the tile count exercises the persistent loop and the
 * rings' phase wrap-around across tiles. */
#include <cuda.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define CK(x) do { CUresult r_ = (x); if (r_ != CUDA_SUCCESS) { const char *n_ = "?"; \
	cuGetErrorName(r_, &n_); fprintf(stderr, "%s:%d: %s: %s\n", __FILE__, __LINE__, #x, n_); exit(2); } } while (0)

static void *slurp(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f) { perror(path); exit(2); }
	fseek(f, 0, SEEK_END);
	long n = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc(n + 1);
	if (fread(b, 1, n, f) != (size_t)n) { perror(path); exit(2); }
	fclose(f);
	return b;
}

int main(int argc, char **argv)
{
	if (argc != 7) {
		fprintf(stderr, "usage: gpu_check CUBIN two|three M N K BLOCKS\n");
		return 2;
	}
	int three = !strcmp(argv[2], "three");
	int M = atoi(argv[3]), N = atoi(argv[4]), K = atoi(argv[5]), blocks = atoi(argv[6]);
	int tm_n = (M + 31) / 32, tn_n = (N + 31) / 32, ks = K / 32;
	int rows = three ? tm_n * 32 : tm_n * 8;   /* two: 8 warps' partial sums per tile */
	size_t n = (size_t)rows * N;
	CK(cuInit(0));
	CUdevice dev;
	CUcontext ctx;
	CK(cuDeviceGet(&dev, 0));
	CK(cuDevicePrimaryCtxRetain(&ctx, dev));
	CK(cuCtxSetCurrent(ctx));
	CUmodule mod;
	CK(cuModuleLoadData(&mod, slurp(argv[1])));
	CUfunction fn;
	CK(cuModuleGetFunction(&fn, mod, three ? "link_three" : "link_two"));
	unsigned smem = three ? 21504 : 16448;
	CK(cuFuncSetAttribute(fn, CU_FUNC_ATTRIBUTE_MAX_DYNAMIC_SHARED_SIZE_BYTES, smem));
	CUdeviceptr y;
	CK(cuMemAlloc(&y, n * 4));
	CK(cuMemsetD32(y, 0x7fc00000u, n));   /* NaN */
	void *args[] = { &y, &M, &N, &K };
	CK(cuLaunchKernel(fn, blocks, 1, 1, 384, 1, 1, smem, 0, args, NULL));
	CK(cuCtxSynchronize());
	float *h = malloc(n * 4);
	CK(cuMemcpyDtoH(h, y, n * 4));
	long bad = 0;
	for (int tm = 0; tm < tm_n; tm++)
		for (int tn = 0; tn < tn_n; tn++)
			for (int r = 0; r < (three ? 32 : 8); r++)
				for (int col = 0; col < 32; col++) {
					double want = 0;
					for (int k = 0; k < ks; k++) {
						if (three)
							want += tm * 7 + tn * 3 + k + (r * 32 + col) % 5;
						else
							for (int rr = r; rr < 32; rr += 8)
								want += tm * 7 + tn * 3 + k + (rr * 32 + col) % 5;
					}
					float got = h[(size_t)(tm * (three ? 32 : 8) + r) * N + tn * 32 + col];
					if (!(fabs(got - want) <= 1e-3 * fabs(want) + 1e-3) && bad++ < 5)
						fprintf(stderr, "tile (%d, %d) [%d, %d]: got %g, want %g\n", tm, tn, r, col, got, want);
				}
	printf("%s %s M=%d N=%d K=%d blocks=%d: %s (%ld bad of %zu)\n", argv[1], argv[2], M, N, K, blocks,
	       bad ? "FAIL" : "ok", bad, n);
	CK(cuMemFree(y));
	CK(cuModuleUnload(mod));
	CK(cuDevicePrimaryCtxRelease(dev));
	return bad != 0;
}
