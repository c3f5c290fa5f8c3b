/*
 * gemm_small.cu: small-shape correctness check of every monolithic
 * configuration against a CPU reference (fp64 accumulation), sized to run
 * quickly under compute-sanitizer. Shapes are deliberately ragged (M, N, K
 * not multiples of the tiles) so that clipping and zero fill are exercised.
 * Usage: gemm_small [config-name ...]   (default: all). Exit 1 on a failure.
 */
#include <cuda_runtime.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <vector>
#include <cuda_bf16.h>

typedef int (*launch_fn)(const void *, const void *, void *, const void *, int, int, int, int,
                         cudaStream_t);
#define CFG(name, main, epi) extern "C" int plk_mono_launch_##name(const void *, const void *, \
	void *, const void *, int, int, int, int, cudaStream_t);
#include "configs.inc"
#undef CFG
struct Cfg { const char *name; int epi; launch_fn fn; };
static const Cfg cfgs[] = {
#define CFG(name, main, epi) {#name, epi, plk_mono_launch_##name},
#include "configs.inc"
#undef CFG
};

#define CK(x) do { cudaError_t e_ = (x); if (e_ != cudaSuccess) { \
	fprintf(stderr, "%s:%d: %s\n", __FILE__, __LINE__, cudaGetErrorString(e_)); exit(2); } } while (0)

static float bf(float x) { return __bfloat162float(__float2bfloat16(x)); }
static float frand(unsigned *s) { *s = *s * 1664525u + 1013904223u; return ((*s >> 8) / 16777216.f) * 2.f - 1.f; }

static int check(const Cfg &c, int M, int N, int K, unsigned seed)
{
	const int nacc = c.epi == 3 || c.epi == 5 ? 2 * N : N;
	std::vector<__nv_bfloat16> a((size_t)M * K), b((size_t)nacc * K), bias(N), out((size_t)M * N);
	std::vector<float> af(a.size()), bfv(b.size()), biasf(N);
	for (size_t i = 0; i < a.size(); i++) { af[i] = bf(frand(&seed)); a[i] = __float2bfloat16(af[i]); }
	for (size_t i = 0; i < b.size(); i++) { bfv[i] = bf(frand(&seed) * 0.1f); b[i] = __float2bfloat16(bfv[i]); }
	for (int i = 0; i < N; i++) { biasf[i] = bf(frand(&seed)); bias[i] = __float2bfloat16(biasf[i]); }
	void *da, *db, *dc, *dbias;
	CK(cudaMalloc(&da, a.size() * 2)); CK(cudaMalloc(&db, b.size() * 2));
	CK(cudaMalloc(&dc, out.size() * 2)); CK(cudaMalloc(&dbias, N * 2));
	CK(cudaMemcpy(da, a.data(), a.size() * 2, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(db, b.data(), b.size() * 2, cudaMemcpyHostToDevice));
	CK(cudaMemcpy(dbias, bias.data(), N * 2, cudaMemcpyHostToDevice));
	CK(cudaMemset(dc, 0xff, out.size() * 2));	/* bf16 0xffff is NaN: poison */
	int sms = 0;
	CK(cudaDeviceGetAttribute(&sms, cudaDevAttrMultiProcessorCount, 0));
	int r = c.fn(da, db, dc, dbias, M, N, K, sms, 0);
	if (r) { fprintf(stderr, "%s: launch returned %d\n", c.name, r); exit(2); }
	CK(cudaDeviceSynchronize());
	CK(cudaMemcpy(out.data(), dc, out.size() * 2, cudaMemcpyDeviceToHost));
	double num = 0, den = 0;
	long bad = 0;
	for (int i = 0; i < M; i++) {
		for (int j = 0; j < N; j++) {
			auto dot = [&](int row) { double s = 0; for (int k = 0; k < K; k++)
				s += (double)af[(size_t)i * K + k] * bfv[(size_t)row * K + k]; return s; };
			double ref;
			if (c.epi == 1 || c.epi == 4) ref = dot(j);
			else if (c.epi == 2) { double x = dot(j) + biasf[j];
				ref = 0.5 * x * (1 + tanh(0.7978845608028654 * (x + 0.044715 * x * x * x))); }
			else { int g = (j / 8) * 16 + j % 8; double gv = dot(g), uv = dot(g + 8);
				ref = gv / (1 + exp(-gv)) * uv; }
			double o = __bfloat162float(out[(size_t)i * N + j]);
			if (!isfinite(o)) bad++;
			num += (o - ref) * (o - ref); den += ref * ref;
		}
	}
	double rel = sqrt(num / den);
	int ok = bad == 0 && rel < 1e-2;
	printf("%-14s M=%d N=%d K=%d  rel_err=%.3e  nonfinite=%ld  %s\n", c.name, M, N, K, rel, bad,
	       ok ? "ok" : "FAIL");
	CK(cudaFree(da)); CK(cudaFree(db)); CK(cudaFree(dc)); CK(cudaFree(dbias));
	return ok;
}

int main(int argc, char **argv)
{
	int fails = 0;
	for (const Cfg &c : cfgs) {
		bool want = argc < 2;
		for (int i = 1; i < argc; i++) want |= !strcmp(argv[i], c.name);
		if (!want) continue;
		fails += !check(c, 300, 264, 200, 1);
		fails += !check(c, 256, 512, 256, 2);
	}
	printf("%s\n", fails ? "gemm_small: FAILED" : "gemm_small: all ok");
	return fails != 0;
}
