/*
 * tmap_log.c: what a baseline library asks of the TMA, from outside it.
 *
 * A CUPTI injection library: loaded into any CUDA process with
 *     CUDA_INJECTION64_PATH=build/libtmap_log.so python3 bench/probes/tmap_cublas.py
 * it logs to stderr every tensor map the process encodes (the arguments of
 * cuTensorMapEncodeTiled: dims, strides, box, swizzle, L2 promotion) and
 * every kernel it launches (name, grid, block, shared memory, cluster).
 * cuBLAS's kernels come as binaries; their tensor maps are built on the
 * host through the driver, so the callback sees exactly what they load
 * and in which boxes. Build (no GPU needed):
 *     gcc -O2 -shared -fPIC -I$CUDA/include -o build/libtmap_log.so \
 *         bench/probes/tmap_log.c -L$CUDA/lib64 -lcupti
 * PLK_TMAP_LOG_MAX caps the lines logged (default 400).
 */
#include <cupti.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int left = 400;   /* lines still to log (one process, one subscriber) */

static const char *swizzle_name(CUtensorMapSwizzle s)
{
	switch (s) {
	case CU_TENSOR_MAP_SWIZZLE_NONE: return "none";
	case CU_TENSOR_MAP_SWIZZLE_32B: return "32B";
	case CU_TENSOR_MAP_SWIZZLE_64B: return "64B";
	case CU_TENSOR_MAP_SWIZZLE_128B: return "128B";
	default: return "other";
	}
}

static void log_tiled(const cuTensorMapEncodeTiled_params *p)
{
	fprintf(stderr, "tmap: type %d rank %u addr %p%%128=%lu dims", (int)p->tensorDataType, p->tensorRank,
	        p->globalAddress, (unsigned long)((size_t)p->globalAddress % 128));
	for (cuuint32_t i = 0; i < p->tensorRank; i++)
		fprintf(stderr, " %llu", (unsigned long long)p->globalDim[i]);
	fprintf(stderr, " strides(B)");
	for (cuuint32_t i = 0; i + 1 < p->tensorRank; i++)
		fprintf(stderr, " %llu", (unsigned long long)p->globalStrides[i]);
	fprintf(stderr, " box");
	for (cuuint32_t i = 0; i < p->tensorRank; i++)
		fprintf(stderr, " %u", p->boxDim[i]);
	fprintf(stderr, " estrides");
	for (cuuint32_t i = 0; i < p->tensorRank; i++)
		fprintf(stderr, " %u", p->elementStrides[i]);
	fprintf(stderr, " interleave %d swizzle %s l2promo %d oob %d\n", (int)p->interleave,
	        swizzle_name(p->swizzle), (int)p->l2Promotion, (int)p->oobFill);
}

static void log_launch_ex(const char *name, const cuLaunchKernelEx_params *p)
{
	const CUlaunchConfig *c = p->config;
	unsigned cx = 1, cy = 1, cz = 1;
	for (unsigned i = 0; i < c->numAttrs; i++)
		if (c->attrs[i].id == CU_LAUNCH_ATTRIBUTE_CLUSTER_DIMENSION) {
			cx = c->attrs[i].value.clusterDim.x;
			cy = c->attrs[i].value.clusterDim.y;
			cz = c->attrs[i].value.clusterDim.z;
		}
	fprintf(stderr, "launch: %s grid %u,%u,%u block %u,%u,%u smem %u cluster %u,%u,%u\n", name ? name : "?",
	        c->gridDimX, c->gridDimY, c->gridDimZ, c->blockDimX, c->blockDimY, c->blockDimZ,
	        c->sharedMemBytes, cx, cy, cz);
}

static void log_launch(const char *name, const cuLaunchKernel_params *p)
{
	fprintf(stderr, "launch: %s grid %u,%u,%u block %u,%u,%u smem %u\n", name ? name : "?", p->gridDimX,
	        p->gridDimY, p->gridDimZ, p->blockDimX, p->blockDimY, p->blockDimZ, p->sharedMemBytes);
}

static void CUPTIAPI on_driver(void *user, CUpti_CallbackDomain dom, CUpti_CallbackId id, const void *data)
{
	const CUpti_CallbackData *d = data;
	(void)user;
	if (dom != CUPTI_CB_DOMAIN_DRIVER_API || d->callbackSite != CUPTI_API_ENTER || left <= 0)
		return;
	switch (id) {
	case CUPTI_DRIVER_TRACE_CBID_cuTensorMapEncodeTiled:
		log_tiled(d->functionParams);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernelEx_ptsz:
		log_launch_ex(d->symbolName, d->functionParams);
		break;
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel:
	case CUPTI_DRIVER_TRACE_CBID_cuLaunchKernel_ptsz:
		log_launch(d->symbolName, d->functionParams);
		break;
	default:
		return;
	}
	left--;
}

/* CUDA calls this once, at its initialisation, in every process that names
   the library in CUDA_INJECTION64_PATH. */
int InitializeInjection(void)
{
	CUpti_SubscriberHandle sub;
	const char *max = getenv("PLK_TMAP_LOG_MAX");
	if (max)
		left = atoi(max);
	if (cuptiSubscribe(&sub, on_driver, NULL) != CUPTI_SUCCESS ||
	    cuptiEnableDomain(1, sub, CUPTI_CB_DOMAIN_DRIVER_API) != CUPTI_SUCCESS) {
		fprintf(stderr, "tmap_log: CUPTI subscription failed (another subscriber?)\n");
		return 0;
	}
	return 1;
}
