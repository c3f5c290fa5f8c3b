/* plk-run: run a linked kernel on random inputs and time it.
 *
 *   plk-run k.cubin [--manifest k.manifest.json] --dim M=4096 --dim N=4096 ...
 *           [--set NAME=VALUE] [--iters N] [--warmup N] [--seed S]
 *           [--flops EXPR] [--check] [--device D]
 *
 * Every tensor gets fresh random values (floats uniform in [-1, 1),
 * integers in 0..3). Times are CUDA events around each launch; the median
 * of --iters runs after --warmup runs is reported.
 *
 * --check: runs once and finds the tensors the kernel wrote (those that
 * changed); fails when none changed or a written float is NaN/Inf; then
 * poisons the written tensors (all bits set: NaN for floats), runs again
 * and requires bit-identical results, which catches elements the kernel
 * never writes and nondeterminism. Tensors both read and written
 * (C += ...) are reported as mismatches: use it on pure outputs. */
#include "plkrt.h"
#include "plan.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_SETS 64

typedef struct Opts {
	const char *bin, *manifest, *flops;
	const char *dims[MAX_SETS], *sets[MAX_SETS];
	int ndims, nsets, iters, warmup, check, device;
	uint64_t seed;
} Opts;

static void usage(FILE *f)
{
	fprintf(f, "usage: plk-run K.cubin [--manifest K.manifest.json] --dim SYM=N ... [--set PARAM=V ...]\n"
	           "               [--iters N] [--warmup N] [--seed S] [--flops EXPR] [--check] [--device D]\n");
}

static int die_cu(CUresult r, const char *what)
{
	const char *name = plk_cuda_error_name((int)r), *desc = NULL;
	if (r == CUDA_ERROR_STUB_LIBRARY)
		desc = PLK_STUB_HINT;
	else if (cuGetErrorString(r, &desc) != CUDA_SUCCESS)
		desc = NULL;
	if (name)
		fprintf(stderr, "plk-run: %s: %s (%s)\n", what, name, desc ? desc : "no description");
	else
		fprintf(stderr, "plk-run: %s: CUresult %d, unknown to this CUDA version\n", what, (int)r);
	return 1;
}

#define CU(call, what) do { CUresult r_ = (call); if (r_ != CUDA_SUCCESS) return die_cu(r_, what); } while (0)

static uint64_t rng(uint64_t *s)   /* splitmix64 */
{
	uint64_t z = (*s += 0x9E3779B97F4A7C15ULL);
	z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL;
	z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL;
	return z ^ (z >> 31);
}

static uint16_t to_bf16(float f)
{
	uint32_t u;
	memcpy(&u, &f, 4);
	return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16);   /* round to nearest even */
}

static uint16_t to_f16(float f)    /* |f| < 1, normal or zero: enough for inputs */
{
	uint32_t u;
	memcpy(&u, &f, 4);
	uint32_t sign = (u >> 16) & 0x8000;
	int e = (int)((u >> 23) & 0xFF) - 127 + 15;
	if (e <= 0)
		return (uint16_t)sign;
	return (uint16_t)(sign | (uint32_t)e << 10 | ((u >> 13) & 0x3FF));
}

static float from_bf16(uint16_t h)
{
	uint32_t u = (uint32_t)h << 16;
	float f;
	memcpy(&f, &u, 4);
	return f;
}

static void fill(void *buf, size_t n, const char *dtype, int eb, uint64_t *s)
{
	for (size_t i = 0; i < n; i++) {
		float f = (float)((double)(rng(s) >> 11) / 9007199254740992.0 * 2.0 - 1.0);
		if (!strcmp(dtype, "bf16")) {
			((uint16_t *)buf)[i] = to_bf16(f);
		} else if (!strcmp(dtype, "f16")) {
			((uint16_t *)buf)[i] = to_f16(f);
		} else if (!strcmp(dtype, "f32") || !strcmp(dtype, "tf32")) {
			((float *)buf)[i] = f;
		} else if (!strcmp(dtype, "f64")) {
			((double *)buf)[i] = f;
		} else {
			unsigned char *p = (unsigned char *)buf + i * (size_t)eb;
			memset(p, 0, (size_t)eb);
			p[0] = (unsigned char)(rng(s) & 3);
		}
	}
}

/* NaN/Inf count of a float tensor; 0 for others. */
static size_t nonfinite(const void *buf, size_t n, const char *dtype)
{
	size_t bad = 0;
	for (size_t i = 0; i < n; i++) {
		double v;
		if (!strcmp(dtype, "bf16")) v = from_bf16(((const uint16_t *)buf)[i]);
		else if (!strcmp(dtype, "f16")) v = ((((const uint16_t *)buf)[i] >> 10) & 0x1F) == 0x1F ? NAN : 0;
		else if (!strcmp(dtype, "f32")) v = ((const float *)buf)[i];
		else if (!strcmp(dtype, "f64")) v = ((const double *)buf)[i];
		else return 0;
		bad += !isfinite(v);
	}
	return bad;
}

static int cmp_double(const void *a, const void *b)
{
	double x = *(const double *)a, y = *(const double *)b;
	return (x > y) - (x < y);
}

typedef struct T {
	const char *name, *dtype;
	int eb;
	size_t n, bytes;
	CUdeviceptr d;
	void *init, *out;
	int written;
} T;

static int upload(T *t, const void *src)
{
	CU(cuMemcpyHtoD(t->d, src, t->bytes), "cuMemcpyHtoD");
	return 0;
}

static int check(plk_kernel *k, T *ts, int nt)
{
	CU(cuCtxSynchronize(), "cuCtxSynchronize (before --check)");
	for (int i = 0; i < nt; i++)
		if (upload(&ts[i], ts[i].init))
			return 1;
	if (plk_launch(k, 0)) {
		fprintf(stderr, "plk-run: %s\n", plk_error(k));
		return 1;
	}
	CU(cuCtxSynchronize(), "kernel (first --check run)");
	int nw = 0, fails = 0;
	for (int i = 0; i < nt; i++) {
		T *t = &ts[i];
		CU(cuMemcpyDtoH(t->out, t->d, t->bytes), "cuMemcpyDtoH");
		t->written = memcmp(t->out, t->init, t->bytes) != 0;
		nw += t->written;
		if (!t->written)
			continue;
		size_t bad = nonfinite(t->out, t->n, t->dtype);
		printf("check: %s written", t->name);
		if (bad) {
			printf(", %zu of %zu elements NaN or Inf\n", bad, t->n);
			fails++;
		} else {
			printf(", all finite\n");
		}
	}
	if (!nw) {
		printf("check: FAIL: the kernel changed no tensor\n");
		return 1;
	}
	void *again = NULL;
	for (int i = 0; i < nt; i++) {
		T *t = &ts[i];
		if (!t->written)
			continue;
		CU(cuMemsetD8(t->d, 0xFF, t->bytes), "cuMemsetD8 (poison)");
	}
	if (plk_launch(k, 0)) {
		fprintf(stderr, "plk-run: %s\n", plk_error(k));
		return 1;
	}
	CU(cuCtxSynchronize(), "kernel (second --check run)");
	for (int i = 0; i < nt; i++) {
		T *t = &ts[i];
		if (!t->written)
			continue;
		free(again);
		if (!(again = malloc(t->bytes))) {
			fprintf(stderr, "plk-run: out of memory\n");
			return 1;
		}
		CUresult r = cuMemcpyDtoH(again, t->d, t->bytes);
		if (r != CUDA_SUCCESS) {
			free(again);
			return die_cu(r, "cuMemcpyDtoH");
		}
		size_t diff = 0, first = 0;
		size_t eb = (size_t)t->eb;
		for (size_t e = 0; e < t->n; e++)
			if (memcmp((char *)again + e * eb, (char *)t->out + e * eb, eb) && !diff++)
				first = e;
		if (diff) {
			printf("check: FAIL: %s: %zu of %zu elements differ after poisoning (first at %zu): "
			       "not written, nondeterministic, or also read\n", t->name, diff, t->n, first);
			fails++;
		} else {
			printf("check: %s fully written and deterministic\n", t->name);
		}
	}
	free(again);
	printf("check: %s\n", fails ? "FAIL" : "ok");
	return fails != 0;
}

typedef struct FlopCtx { plk_kernel *k; } FlopCtx;

static int flop_look(void *ctx, const char *name, size_t len, int64_t *v)
{
	plk_kernel *k = ((FlopCtx *)ctx)->k;
	for (int i = 0; i < plk_num_symbols(k); i++) {
		const char *s = plk_symbol_name(k, i);
		if (strlen(s) == len && !memcmp(s, name, len))
			return plk_symbol_value(k, i, v);
	}
	return -1;
}

static int parse_args(int argc, char **argv, Opts *o)
{
	*o = (Opts){ .iters = 20, .warmup = 5, .seed = 1 };
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		const char *v = i + 1 < argc ? argv[i + 1] : NULL;
#define VAL() do { if (!v) { fprintf(stderr, "plk-run: %s needs a value\n", a); return 2; } i++; } while (0)
		if (!strcmp(a, "-h") || !strcmp(a, "--help")) { usage(stdout); exit(0); }
		else if (!strcmp(a, "--manifest")) { VAL(); o->manifest = v; }
		else if (!strcmp(a, "--dim")) { VAL(); if (o->ndims == MAX_SETS) return 2; o->dims[o->ndims++] = v; }
		else if (!strcmp(a, "--set")) { VAL(); if (o->nsets == MAX_SETS) return 2; o->sets[o->nsets++] = v; }
		else if (!strcmp(a, "--iters")) { VAL(); o->iters = atoi(v); }
		else if (!strcmp(a, "--warmup")) { VAL(); o->warmup = atoi(v); }
		else if (!strcmp(a, "--seed")) { VAL(); o->seed = strtoull(v, NULL, 0); }
		else if (!strcmp(a, "--flops")) { VAL(); o->flops = v; }
		else if (!strcmp(a, "--device")) { VAL(); o->device = atoi(v); }
		else if (!strcmp(a, "--check")) o->check = 1;
		else if (a[0] == '-' && a[1]) { fprintf(stderr, "plk-run: unknown option %s\n", a); usage(stderr); return 2; }
		else if (!o->bin) o->bin = a;
		else { fprintf(stderr, "plk-run: more than one binary: %s\n", a); return 2; }
#undef VAL
	}
	if (!o->bin && !o->manifest) {
		usage(stderr);
		return 2;
	}
	if (o->iters < 1 || o->warmup < 0) {
		fprintf(stderr, "plk-run: --iters must be >= 1 and --warmup >= 0\n");
		return 2;
	}
	return 0;
}

static int bind_sets(plk_kernel *k, const Opts *o)
{
	for (int i = 0; i < o->ndims + o->nsets; i++) {
		int isdim = i < o->ndims;
		const char *s = isdim ? o->dims[i] : o->sets[i - o->ndims];
		const char *eq = strchr(s, '=');
		if (!eq || eq == s) {
			fprintf(stderr, "plk-run: expected NAME=VALUE, got '%s'\n", s);
			return 1;
		}
		char name[128];
		snprintf(name, sizeof name, "%.*s", (int)(eq - s), s);
		char *end;
		int rc;
		if (isdim) {
			long long v = strtoll(eq + 1, &end, 0);
			if (*end || end == eq + 1) {
				fprintf(stderr, "plk-run: --dim %s: not an integer\n", s);
				return 1;
			}
			rc = plk_bind_dim(k, name, v);
		} else {
			int pi;
			for (pi = 0; pi < plk_num_params(k) && strcmp(plk_param_name(k, pi), name); pi++)
				;
			const char *kind = pi < plk_num_params(k) ? plk_param_kind(k, pi) : "";
			long long iv = strtoll(eq + 1, &end, 0);
			int isint = !*end && end != eq + 1;
			double v = strtod(eq + 1, &end);
			if (*end || end == eq + 1) {
				fprintf(stderr, "plk-run: --set %s: not a number\n", s);
				return 1;
			}
			if (!strcmp(kind, "f32"))
				rc = plk_bind_float(k, name, v);
			else if (isint)
				rc = plk_bind_int(k, name, iv);
			else {
				fprintf(stderr, "plk-run: --set %s: parameter %s takes an integer\n", s, name);
				return 1;
			}
		}
		if (rc) {
			fprintf(stderr, "plk-run: %s\n", plk_error(k));
			return 1;
		}
	}
	return 0;
}

static int run(plk_kernel *k, const Opts *o)
{
	if (bind_sets(k, o))
		return 1;
	int nt = plk_num_tensors(k), rc = 1;
	CUresult r = CUDA_SUCCESS;
	T *ts = calloc((size_t)nt + 1, sizeof *ts);
	CUevent *ev = calloc((size_t)o->iters * 2, sizeof *ev);
	double *ms = calloc((size_t)o->iters, sizeof *ms);
	if (!ts || !ev || !ms) {
		fprintf(stderr, "plk-run: out of memory\n");
		goto out;
	}
	uint64_t seed = o->seed;
	for (int i = 0; i < nt; i++) {
		T *t = &ts[i];
		int64_t dims[PLK_MAX_RANK];
		if (plk_tensor_dims(k, i, dims)) {
			fprintf(stderr, "plk-run: %s\n", plk_error(k));
			goto out;
		}
		t->name = plk_tensor_name(k, i);
		t->dtype = plk_tensor_dtype(k, i);
		t->eb = plk_tensor_elem_bytes(k, i);
		t->n = 1;
		int wraps = 0;   /* a size no host could hold: refused, not wrapped */
		for (int d = 0; d < plk_tensor_rank(k, i); d++)
			wraps |= dims[d] < 0 || __builtin_mul_overflow(t->n, (size_t)dims[d], &t->n);
		wraps |= __builtin_mul_overflow(t->n, (size_t)t->eb, &t->bytes);
		if (wraps) {
			fprintf(stderr, "plk-run: tensor %s: its size overflows (check --dim)\n", t->name);
			goto out;
		}
		if (!(t->init = malloc(t->bytes)) || !(t->out = malloc(t->bytes))) {
			fprintf(stderr, "plk-run: out of memory for tensor %s (%zu bytes)\n", t->name, t->bytes);
			goto out;
		}
		fill(t->init, t->n, t->dtype, t->eb, &seed);
		if ((r = cuMemAlloc(&t->d, t->bytes)) != CUDA_SUCCESS) {
			char what[160];
			snprintf(what, sizeof what, "cuMemAlloc(tensor %s, %zu bytes)", t->name, t->bytes);
			die_cu(r, what);
			goto out;
		}
		if (upload(t, t->init) || plk_bind_tensor(k, t->name, t->d, NULL, 0))
			goto out;
	}
	unsigned grid[3], block[3], cluster[3], smem;
	int64_t work;
	if (plk_launch_shape(k, grid, block, cluster, &smem, &work)) {
		fprintf(stderr, "plk-run: %s\n", plk_error(k));
		goto out;
	}
	if (plk_num_variants(k))   /* a select: the variant its rule (or PLK_VARIANT) picked */
		printf("variant %s of %s (SMS = %d, DRAM_GBPS = %d)\n", plk_chosen_variant(k), plk_kernel_name(k),
		       plk_sm_count(k), plk_dram_gbps(k));
	printf("kernel %s: grid %ux%ux%u, block %ux%ux%u, cluster %ux%ux%u, %u B dynamic smem, %lld work items, %d SMs\n",
	       plk_kernel_name(k), grid[0], grid[1], grid[2], block[0], block[1], block[2], cluster[0], cluster[1],
	       cluster[2], smem, (long long)work, plk_sm_count(k));
	printf(" ");
	for (int i = 0; i < plk_num_symbols(k); i++) {
		int64_t v = 0;
		plk_symbol_value(k, i, &v);
		printf(" %s=%lld", plk_symbol_name(k, i), (long long)v);
	}
	printf("\n");
	if (o->check) {
		rc = check(k, ts, nt);
		if (rc)
			goto out;
		rc = 1;
		for (int i = 0; i < nt; i++)   /* time on fresh inputs, not poison */
			if (upload(&ts[i], ts[i].init))
				goto out;
	}
	for (int i = 0; i < o->warmup; i++)
		if (plk_launch(k, 0)) {
			fprintf(stderr, "plk-run: %s\n", plk_error(k));
			goto out;
		}
	for (int i = 0; i < o->iters * 2 && r == CUDA_SUCCESS; i++)
		r = cuEventCreate(&ev[i], CU_EVENT_DEFAULT);
	if (r != CUDA_SUCCESS) {
		die_cu(r, "cuEventCreate");
		goto out;
	}
	for (int i = 0; i < o->iters; i++) {
		if ((r = cuEventRecord(ev[2 * i], 0)) != CUDA_SUCCESS) { die_cu(r, "cuEventRecord"); goto out; }
		if (plk_launch(k, 0)) {
			fprintf(stderr, "plk-run: %s\n", plk_error(k));
			goto out;
		}
		if ((r = cuEventRecord(ev[2 * i + 1], 0)) != CUDA_SUCCESS) { die_cu(r, "cuEventRecord"); goto out; }
	}
	if ((r = cuCtxSynchronize()) != CUDA_SUCCESS) {
		die_cu(r, "kernel (timed runs)");
		goto out;
	}
	for (int i = 0; i < o->iters; i++) {
		float t;
		if ((r = cuEventElapsedTime(&t, ev[2 * i], ev[2 * i + 1])) != CUDA_SUCCESS) {
			die_cu(r, "cuEventElapsedTime");
			goto out;
		}
		ms[i] = t;
	}
	qsort(ms, (size_t)o->iters, sizeof *ms, cmp_double);
	double med = o->iters % 2 ? ms[o->iters / 2] : (ms[o->iters / 2 - 1] + ms[o->iters / 2]) / 2;
	printf("  median %.4f ms, min %.4f ms, max %.4f ms over %d runs (%d warm-up)", med, ms[0], ms[o->iters - 1],
	       o->iters, o->warmup);
	if (o->flops) {
		char err[PLK_ERRLEN];
		int64_t fl;
		FlopCtx fc = { k };
		if (plk_expr_eval(o->flops, flop_look, &fc, &fl, err)) {
			fprintf(stderr, "\nplk-run: --flops: %s\n", err);
			goto out;
		}
		printf(", %.1f TFLOP/s", (double)fl / (med * 1e-3) / 1e12);
	}
	printf("\n");
	rc = 0;
out:
	for (int i = 0; ev && i < o->iters * 2; i++)
		if (ev[i] && (r = cuEventDestroy(ev[i])) != CUDA_SUCCESS)
			rc = die_cu(r, "cuEventDestroy");
	for (int i = 0; ts && i < nt; i++) {
		if (ts[i].d && (r = cuMemFree(ts[i].d)) != CUDA_SUCCESS)
			rc = die_cu(r, "cuMemFree");
		free(ts[i].init);
		free(ts[i].out);
	}
	free(ts);
	free(ev);
	free(ms);
	return rc;
}

int main(int argc, char **argv)
{
	Opts o;
	int rc = parse_args(argc, argv, &o);
	if (rc)
		return rc;
	CUdevice dev;
	CUcontext ctx;
	CU(cuInit(0), "cuInit");
	CU(cuDeviceGet(&dev, o.device), "cuDeviceGet");
	CU(cuDevicePrimaryCtxRetain(&ctx, dev), "cuDevicePrimaryCtxRetain");
	CU(cuCtxSetCurrent(ctx), "cuCtxSetCurrent");
	char err[PLK_ERRLEN];
	plk_kernel *k = plk_load(o.bin, o.manifest, err, sizeof err);
	if (!k) {
		fprintf(stderr, "plk-run: %s\n", err);
		return 1;
	}
	rc = run(k, &o);
	plk_unload(k);
	CUresult r = cuDevicePrimaryCtxRelease(dev);
	return r != CUDA_SUCCESS ? die_cu(r, "cuDevicePrimaryCtxRelease") : rc;
}
