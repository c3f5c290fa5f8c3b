/* mock_cuda.c: a stand-in libcuda.so.1 for machines without a GPU, so the
 * runtime's CUDA-side paths (loading, checks against the function,
 * tensor-map encoding, launch configuration, plk-run --check) run in CI.
 *
 * Device memory is host memory. A "binary" is text:
 *
 *   MOCKCUBIN
 *   NAME MAXTHREADS SIZE,SIZE,...      one line per kernel: parameter sizes
 *
 * ("NOBIN..." answers CUDA_ERROR_NO_BINARY_FOR_GPU). An ELF image (a real
 * cubin, as plkc links it) loads too: every entry name is found, takes up
 * to 1024 threads, and its parameters are not described
 * (cuFuncGetParamInfo: CUDA_ERROR_NOT_SUPPORTED, as an old driver); its
 * launches only log. Launches of the known kernels run on the host:
 * tma_scale (out = alpha * A through the tensor map), add_bias (y = x +
 * bias) and half_bias (writes only half of y).
 * With MOCK_CUDA_LOG set, calls worth asserting on are appended there,
 * and every call that fails is logged as "api-error NAME CODE" (what
 * compute-sanitizer's API check reports). MOCK_CUDA_LAUNCH_ERROR=N makes
 * cuLaunchKernelEx return CUresult N; MOCK_CUDA_CAPTURING=1 makes every
 * stream one being captured. The current context is per thread,
 * as the driver's is. Test code: it keeps process-wide state otherwise. */
#include <cuda.h>

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAXK 16
typedef struct MFunc { char name[64]; int maxt; int nparams; size_t size[32]; } MFunc;
typedef struct MMod { MFunc f[MAXK]; int n; int elf; } MMod;
/* What cuTensorMapEncodeTiled saw, kept inside the opaque map. */
typedef struct MTmap { uint64_t magic, addr; uint32_t rank, dtype, swizzle; uint64_t dim[5], stride[4]; uint32_t box[5]; } MTmap;

static _Thread_local CUcontext current;
static int ctx_obj;

#define MOCK_LOG_ENV "MOCK_CUDA_LOG"
#include "mock_log.h"

CUresult cuGetErrorName(CUresult e, const char **s)
{
	switch (e) {
	case CUDA_SUCCESS: *s = "CUDA_SUCCESS"; return CUDA_SUCCESS;
	case CUDA_ERROR_INVALID_VALUE: *s = "CUDA_ERROR_INVALID_VALUE"; return CUDA_SUCCESS;
	case CUDA_ERROR_NOT_FOUND: *s = "CUDA_ERROR_NOT_FOUND"; return CUDA_SUCCESS;
	case CUDA_ERROR_NO_BINARY_FOR_GPU: *s = "CUDA_ERROR_NO_BINARY_FOR_GPU"; return CUDA_SUCCESS;
	case CUDA_ERROR_INVALID_IMAGE: *s = "CUDA_ERROR_INVALID_IMAGE"; return CUDA_SUCCESS;
	case CUDA_ERROR_OUT_OF_MEMORY: *s = "CUDA_ERROR_OUT_OF_MEMORY"; return CUDA_SUCCESS;
	default: *s = NULL; return CUDA_ERROR_INVALID_VALUE;
	}
}

CUresult cuGetErrorString(CUresult e, const char **s)
{
	*s = e == CUDA_ERROR_NOT_FOUND ? "named symbol not found" : "mock error";
	return CUDA_SUCCESS;
}

CUresult cuInit(unsigned flags) { return CUDA_SUCCESS; }
CUresult cuDeviceGet(CUdevice *d, int ord) { *d = ord; return ord == 0 ? CUDA_SUCCESS : CUDA_ERROR_INVALID_VALUE; }
CUresult cuDevicePrimaryCtxRetain(CUcontext *c, CUdevice d) { *c = (CUcontext)&ctx_obj; return CUDA_SUCCESS; }
CUresult cuDevicePrimaryCtxRelease(CUdevice d) { return CUDA_SUCCESS; }
CUresult cuCtxSetCurrent(CUcontext c) { current = c; return CUDA_SUCCESS; }
CUresult cuCtxGetCurrent(CUcontext *c) { *c = current; return CUDA_SUCCESS; }
CUresult cuCtxPushCurrent(CUcontext c) { current = c; return CUDA_SUCCESS; }
CUresult cuCtxPopCurrent(CUcontext *c) { *c = current; current = NULL; return CUDA_SUCCESS; }
CUresult cuCtxGetDevice(CUdevice *d) { *d = 0; return current ? CUDA_SUCCESS : CUDA_ERROR_INVALID_CONTEXT; }
CUresult cuCtxSynchronize(void) { return CUDA_SUCCESS; }

/* an H200's memory (4916 GB/s) unless the environment names another:
 * MOCK_CUDA_MEM_KHZ=2619000 MOCK_CUDA_BUS_BITS=5120 is an H100 SXM's */
static int env_int(const char *name, int dflt)
{
	const char *s = getenv(name);
	return s && *s ? atoi(s) : dflt;
}

CUresult cuDeviceGetAttribute(int *v, CUdevice_attribute a, CUdevice d)
{
	switch (a) {
	case CU_DEVICE_ATTRIBUTE_MEMORY_CLOCK_RATE: *v = env_int("MOCK_CUDA_MEM_KHZ", 3201000); break;
	case CU_DEVICE_ATTRIBUTE_GLOBAL_MEMORY_BUS_WIDTH: *v = env_int("MOCK_CUDA_BUS_BITS", 6144); break;
	case CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT: *v = 132; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MAJOR: *v = 9; break;
	case CU_DEVICE_ATTRIBUTE_COMPUTE_CAPABILITY_MINOR: *v = 0; break;
	case CU_DEVICE_ATTRIBUTE_MAX_SHARED_MEMORY_PER_BLOCK_OPTIN: *v = 232448; break;
	default: return CUDA_ERROR_INVALID_VALUE;
	}
	return CUDA_SUCCESS;
}

CUresult cuModuleLoadData(CUmodule *m, const void *image)
{
	const char *s = image;
	if (!strncmp(s, "NOBIN", 5))
		return CUDA_ERROR_NO_BINARY_FOR_GPU;
	if (!memcmp(s, "\177ELF", 4)) {
		MMod *mod = calloc(1, sizeof *mod);
		if (!mod)
			return CUDA_ERROR_OUT_OF_MEMORY;
		mod->elf = 1;
		*m = (CUmodule)mod;
		return CUDA_SUCCESS;
	}
	if (strncmp(s, "MOCKCUBIN\n", 10))
		return CUDA_ERROR_INVALID_IMAGE;
	MMod *mod = calloc(1, sizeof *mod);
	if (!mod)
		return CUDA_ERROR_OUT_OF_MEMORY;
	s += 10;
	while (*s && mod->n < MAXK) {
		MFunc *f = &mod->f[mod->n];
		int used = 0;
		char sizes[256];
		if (sscanf(s, "%63s %d %255s%n", f->name, &f->maxt, sizes, &used) != 3)
			break;
		for (char *t = strtok(sizes, ","); t && f->nparams < 32; t = strtok(NULL, ","))
			f->size[f->nparams++] = (size_t)atoi(t);
		mod->n++;
		s += used;
		while (*s == '\n' || *s == ' ')
			s++;
	}
	*m = (CUmodule)mod;
	return CUDA_SUCCESS;
}

CUresult cuModuleUnload(CUmodule m) { free(m); return CUDA_SUCCESS; }

CUresult cuModuleGetFunction(CUfunction *f, CUmodule m, const char *name)
{
	MMod *mod = (MMod *)m;
	if (mod->elf && mod->n < MAXK) {   /* any name; unknown parameters */
		MFunc *fn = &mod->f[mod->n++];
		snprintf(fn->name, sizeof fn->name, "%s", name);
		fn->maxt = 1024;
		fn->nparams = -1;
		*f = (CUfunction)fn;
		return CUDA_SUCCESS;
	}
	for (int i = 0; i < mod->n; i++)
		if (!strcmp(mod->f[i].name, name)) {
			*f = (CUfunction)&mod->f[i];
			return CUDA_SUCCESS;
		}
	return CUDA_ERROR_NOT_FOUND;
}

CUresult cuFuncGetParamInfo(CUfunction fn, size_t i, size_t *off, size_t *size)
{
	MFunc *f = (MFunc *)fn;
	if (f->nparams < 0)
		return CUDA_ERROR_NOT_SUPPORTED;
	if (i >= (size_t)f->nparams) {
		logf_("api-error cuFuncGetParamInfo %d", (int)CUDA_ERROR_INVALID_VALUE);
		return CUDA_ERROR_INVALID_VALUE;
	}
	*size = f->size[i];
	*off = 0;
	return CUDA_SUCCESS;
}

CUresult cuFuncGetAttribute(int *v, CUfunction_attribute a, CUfunction fn)
{
	if (a == CU_FUNC_ATTRIBUTE_MAX_THREADS_PER_BLOCK) *v = ((MFunc *)fn)->maxt;
	else if (a == CU_FUNC_ATTRIBUTE_SHARED_SIZE_BYTES) *v = 16;
	else return CUDA_ERROR_INVALID_VALUE;
	return CUDA_SUCCESS;
}

CUresult cuFuncSetAttribute(CUfunction fn, CUfunction_attribute a, int v)
{
	logf_("setattr %s %d %d", ((MFunc *)fn)->name, (int)a, v);
	return CUDA_SUCCESS;
}

CUresult cuOccupancyMaxActiveClusters(int *n, CUfunction fn, const CUlaunchConfig *c)
{
	int cs = 1;
	for (unsigned i = 0; i < c->numAttrs; i++)
		if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION)
			cs = (int)(c->attrs[i].value.clusterDim.x * c->attrs[i].value.clusterDim.y * c->attrs[i].value.clusterDim.z);
	*n = 120 / cs;   /* fewer than SMs/cs, as on a real GPU */
	return CUDA_SUCCESS;
}

CUresult cuTensorMapEncodeTiled(CUtensorMap *map, CUtensorMapDataType dt, cuuint32_t rank, void *addr,
                                const cuuint64_t *dim, const cuuint64_t *stride, const cuuint32_t *box,
                                const cuuint32_t *es, CUtensorMapInterleave il, CUtensorMapSwizzle sw,
                                CUtensorMapL2promotion l2, CUtensorMapFloatOOBfill oob)
{
	if ((uintptr_t)map % 64 || (uintptr_t)addr % 16 || rank < 1 || rank > 5)
		return CUDA_ERROR_INVALID_VALUE;
	MTmap t = { 0x746d6170, (uint64_t)(uintptr_t)addr, rank, (uint32_t)dt, (uint32_t)sw, { 0 }, { 0 }, { 0 } };
	for (unsigned i = 0; i < rank; i++) {
		t.dim[i] = dim[i];
		t.box[i] = box[i];
		if (i + 1 < rank)
			t.stride[i] = stride[i];
		if (es[i] != 1)
			return CUDA_ERROR_INVALID_VALUE;
	}
	memset(map, 0, sizeof *map);
	memcpy(map, &t, sizeof t);
	logf_("tmap dtype %u rank %u dim %llu %llu stride %llu box %u %u swizzle %u l2 %d", t.dtype, rank,
	      (unsigned long long)t.dim[0], (unsigned long long)t.dim[1], (unsigned long long)t.stride[0],
	      t.box[0], t.box[1], t.swizzle, (int)l2);
	return CUDA_SUCCESS;
}

CUresult cuMemAlloc(CUdeviceptr *p, size_t n)
{
	void *m = aligned_alloc(256, (n + 255) / 256 * 256);
	*p = (CUdeviceptr)(uintptr_t)m;
	return m ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY;
}
CUresult cuMemFree(CUdeviceptr p) { free((void *)(uintptr_t)p); return CUDA_SUCCESS; }
CUresult cuMemcpyHtoD(CUdeviceptr d, const void *s, size_t n) { memcpy((void *)(uintptr_t)d, s, n); return CUDA_SUCCESS; }
CUresult cuMemcpyDtoH(void *d, CUdeviceptr s, size_t n) { memcpy(d, (void *)(uintptr_t)s, n); return CUDA_SUCCESS; }
CUresult cuMemsetD8(CUdeviceptr d, unsigned char v, size_t n) { memset((void *)(uintptr_t)d, v, n); return CUDA_SUCCESS; }
/* MOCK_CUDA_CAPTURING=1: every stream is being captured into a graph */
CUresult cuStreamIsCapturing(CUstream s, CUstreamCaptureStatus *st)
{
	const char *c = getenv("MOCK_CUDA_CAPTURING");
	*st = c && *c == '1' ? CU_STREAM_CAPTURE_STATUS_ACTIVE : CU_STREAM_CAPTURE_STATUS_NONE;
	return CUDA_SUCCESS;
}
CUresult cuMemsetD8Async(CUdeviceptr d, unsigned char v, size_t n, CUstream s)
{
	memset((void *)(uintptr_t)d, v, n);
	logf_("memset %zu bytes", n);   /* a split kernel's workspace (plkrt.c) */
	return CUDA_SUCCESS;
}

CUresult cuEventCreate(CUevent *e, unsigned flags) { *e = (CUevent)malloc(1); return *e ? CUDA_SUCCESS : CUDA_ERROR_OUT_OF_MEMORY; }
CUresult cuEventRecord(CUevent e, CUstream s) { return CUDA_SUCCESS; }
CUresult cuEventElapsedTime(float *ms, CUevent a, CUevent b) { *ms = 0.5f; return CUDA_SUCCESS; }
CUresult cuEventDestroy(CUevent e) { free(e); return CUDA_SUCCESS; }

static float bf(uint16_t h) { uint32_t u = (uint32_t)h << 16; float f; memcpy(&f, &u, 4); return f; }
static uint16_t tobf(float f) { uint32_t u; memcpy(&u, &f, 4); return (uint16_t)((u + 0x7FFF + ((u >> 16) & 1)) >> 16); }

CUresult cuLaunchKernelEx(const CUlaunchConfig *c, CUfunction fn, void **p, void **extra)
{
	MFunc *f = (MFunc *)fn;
	unsigned cx = 1, cy = 1, cz = 1;
	int coop = 0;
	for (unsigned i = 0; i < c->numAttrs; i++)
		if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
			cx = c->attrs[i].value.clusterDim.x;
			cy = c->attrs[i].value.clusterDim.y;
			cz = c->attrs[i].value.clusterDim.z;
		} else if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_COOPERATIVE)
			coop = c->attrs[i].value.cooperative;
	if (coop && c->gridDimX * c->gridDimY * c->gridDimZ > 132)
		return CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE;   /* one block per SM of 132, as the mock's kernels */
	if (c->gridDimX % cx || c->gridDimY % cy || c->gridDimZ % cz)
		return CUDA_ERROR_INVALID_VALUE;   /* the grid must hold whole clusters */
	const char *inject = getenv("MOCK_CUDA_LAUNCH_ERROR");
	if (inject && atoi(inject))
		return (CUresult)atoi(inject);
	logf_("launch %s grid %u %u %u block %u %u %u cluster %u %u %u smem %u%s", f->name, c->gridDimX, c->gridDimY,
	      c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ, cx, cy, cz, c->sharedMemBytes,
	      coop ? " cooperative" : "");
	if (!strcmp(f->name, "tma_scale")) {
		MTmap t;
		memcpy(&t, p[0], sizeof t);
		if (t.magic != 0x746d6170 || ((uintptr_t)p[0]) % 64)
			return CUDA_ERROR_INVALID_VALUE;
		uint16_t *out = *(uint16_t **)p[1];
		int M = *(int *)p[2], K = *(int *)p[3];
		float alpha = *(float *)p[4];
		if (t.dim[0] != (uint64_t)K || t.dim[1] != (uint64_t)M || t.stride[0] != (uint64_t)K * 2)
			return CUDA_ERROR_INVALID_VALUE;
		const uint16_t *a = (const uint16_t *)(uintptr_t)t.addr;
		for (long i = 0; i < (long)M * K; i++)
			out[i] = tobf(alpha * bf(a[i]));
	} else if (!strcmp(f->name, "add_bias") || !strcmp(f->name, "half_bias")) {
		const float *x = *(float **)p[0];
		float *y = *(float **)p[1];
		long long n = *(long long *)p[2];
		float bias = *(float *)p[3];
		if (!strcmp(f->name, "half_bias"))
			n /= 2;
		for (long long i = 0; i < n; i++)
			y[i] = x[i] + bias;
	}
	return CUDA_SUCCESS;
}
