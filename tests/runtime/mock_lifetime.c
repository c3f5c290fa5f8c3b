/* An argument set freed after its kernel's plk_unload (a garbage
 * collector's order; tests/scripts/runtime_mock.sh runs it on the mock
 * driver, and under ASan in its sanitizer pass): a set that launched a
 * kernel with a workspace frees that memory in the kernel's context, so
 * the kernel must live until its last set is freed; a kernel with no sets
 * left is freed at once. Exit 0: "lifetime ok". */
#include <stdio.h>
#include <string.h>
#include "plkrt.h"

static const char image[] = "MOCKCUBIN\nws_kernel 256 8,8\n";
static const char manifest[] =
	"{ \"plk_manifest\": 1, \"kernel\": \"ws_kernel\", \"entry\": \"ws_kernel\",\n"
	"  \"block\": [256], \"grid\": { \"policy\": \"tiles\", \"tiles\": [[\"n\", 256]] },\n"
	"  \"tensors\": [ { \"name\": \"X\", \"dtype\": \"f32\", \"dims\": [\"n\"] } ],\n"
	"  \"params\": [ { \"name\": \"x\", \"kind\": \"ptr\", \"tensor\": \"X\" },\n"
	"              { \"name\": \"ws\", \"kind\": \"workspace\", \"bytes\": \"n * 4\" } ] }\n";

static plk_kernel *load(void)
{
	char err[512];
	plk_kernel *k = plk_load_data(image, sizeof image - 1, manifest, strlen(manifest), err, sizeof err);
	if (!k)
		fprintf(stderr, "load: %s\n", err);
	return k;
}

int main(void)
{
	plk_kernel *k = load();
	if (!k)
		return 1;
	plk_args *a = plk_args_new(k), *b = plk_args_new(k);
	if (!a || !b)
		return fprintf(stderr, "out of memory\n"), 1;
	CUdeviceptr x;
	int64_t n = 1024;
	if (cuMemAlloc(&x, (size_t)n * 4) != CUDA_SUCCESS)
		return fprintf(stderr, "cuMemAlloc failed\n"), 1;
	if (plk_args_tensor(a, "X", x, &n, 1) || plk_args_launch(a, NULL))
		return fprintf(stderr, "launch: %s\n", plk_args_error(a)), 1;
	plk_args_free(b);
	plk_unload(k);        /* a is alive, its workspace allocated: the kernel stays */
	plk_args_free(a);     /* frees the workspace in the kernel's context, then the kernel */
	if (!(k = load()))
		return 1;
	plk_unload(k);        /* no sets: freed here */
	cuMemFree(x);
	puts("lifetime ok");
	return 0;
}
