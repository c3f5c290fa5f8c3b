/* A stand-in for NVSHMEM's host library (libnvshmem_host.so.3) for the
 * runtime's engine code without GPUs (tests/runtime/mock_comm.c): the
 * functions plkrt opens, each logged to $MOCK_NVSHMEM_LOG; one rank of
 * one; MOCK_NVSHMEM_FAIL=init makes the initialisation fail with status 7
 * (NVSHMEMX_ERROR_INTERNAL), =module the module initialisation. */
#include <stdlib.h>
#include <string.h>

#define MOCK_LOG_ENV "MOCK_NVSHMEM_LOG"
#include "mock_log.h"

static int failing(const char *what)
{
	const char *f = getenv("MOCK_NVSHMEM_FAIL");
	return f && !strcmp(f, what);
}

static int inited;

int nvshmemx_get_uniqueid(void *id) { memset(id, 0x5a, 128); logf_("get_uniqueid"); return 0; }
int nvshmemx_set_attr_uniqueid_args(int rank, int nranks, const void *id, void *attr)
{
	logf_("set_attr_uniqueid_args %d %d %02x", rank, nranks, ((const unsigned char *)id)[0]);
	return 0;
}
int nvshmemx_hostlib_init_attr(unsigned flags, void *attr)
{
	logf_("hostlib_init_attr flags %u", flags);
	if (failing("init"))
		return 7;
	inited = 1;
	return 0;
}
int nvshmem_my_pe(void) { return inited ? 0 : -1; }
int nvshmem_n_pes(void) { return inited ? 1 : -1; }
void nvshmemx_vendor_get_version_info(int *major, int *minor, int *patch) { *major = 3, *minor = 4, *patch = 5; }
int nvshmemx_cumodule_init(void *mod) { logf_("cumodule_init %s", mod ? "module" : "NULL"); return failing("module") ? 7 : 0; }
int nvshmemx_cumodule_finalize(void *mod) { logf_("cumodule_finalize %s", mod ? "module" : "NULL"); return 0; }
void *nvshmem_malloc(size_t n) { logf_("malloc %zu", n); return malloc(n); }
void nvshmem_free(void *p) { logf_("free"); free(p); }
void nvshmemx_barrier_all_on_stream(void *s) { logf_("barrier_all_on_stream"); }
void nvshmemx_hostlib_finalize(void) { logf_("finalize"); inited = 0; }
