/* The runtime's engine code on the mock driver and a mock NVSHMEM
 * (tests/scripts/runtime_mock.sh): a kernel whose manifest names
 * "engines" refuses to launch until attached; plk_comm_init, attach (the
 * module's initialisation), alloc, barrier and fini reach NVSHMEM's
 * functions; an engine's failure comes back by name. Modes (argv[1]):
 * `ok`, `init-fails`, `module-fails`. Prints "comm ok" on success. */
#include <stdio.h>
#include <string.h>
#include "plkrt.h"

static const char image[] = "MOCKCUBIN\nag_kernel 128 8\n";
static const char manifest[] =
	"{ \"plk_manifest\": 1, \"kernel\": \"ag_kernel\", \"entry\": \"ag_kernel\", \"engines\": [\"nvshmem\"],\n"
	"  \"block\": [128], \"grid\": { \"policy\": \"tiles\", \"tiles\": [[\"n\", 128]] },\n"
	"  \"tensors\": [ { \"name\": \"X\", \"dtype\": \"f32\", \"dims\": [\"n\"] } ],\n"
	"  \"params\": [ { \"name\": \"x\", \"kind\": \"ptr\", \"tensor\": \"X\" } ] }\n";

#define FAIL(...) do { fprintf(stderr, __VA_ARGS__); fputc('\n', stderr); return 1; } while (0)

int main(int argc, char **argv)
{
	const char *mode = argc > 1 ? argv[1] : "ok";
	char err[512], id[128];
	if (plk_comm_unique_id_size() != sizeof id)
		FAIL("unique id size %zu, not 128 (built without NVSHMEM's headers?)", plk_comm_unique_id_size());
	if (plk_comm_unique_id(id, 64, err, sizeof err) == 0 || !strstr(err, "needs 128 bytes"))
		FAIL("a short id buffer: %s", err);
	if (plk_comm_unique_id(id, sizeof id, err, sizeof err))
		FAIL("unique id: %s", err);
	plk_comm *c = plk_comm_init(0, 1, id, sizeof id, err, sizeof err);
	if (!strcmp(mode, "init-fails")) {
		if (c || !strstr(err, "NVSHMEMX_ERROR_INTERNAL (7)"))
			FAIL("a failing initialisation: %s", c ? "succeeded" : err);
		puts("comm ok");
		return 0;
	}
	if (!c)
		FAIL("init: %s", err);
	if (plk_comm_rank(c) != 0 || plk_comm_size(c) != 1)
		FAIL("rank %d of %d", plk_comm_rank(c), plk_comm_size(c));
	plk_kernel *k = plk_load_data(image, sizeof image - 1, manifest, strlen(manifest), err, sizeof err);
	if (!k)
		FAIL("load: %s", err);
	CUdeviceptr x = plk_comm_alloc(c, 128 * 4);
	int64_t n = 128;
	if (!x)
		FAIL("alloc: %s", plk_comm_error(c));
	if (plk_bind_tensor(k, "X", x, &n, 1))
		FAIL("bind: %s", plk_error(k));
	if (plk_launch(k, NULL) == 0 || !strstr(plk_error(k), "calls nvshmem") || !strstr(plk_error(k), "plk_comm_attach"))
		FAIL("a launch before attaching: %s", plk_error(k));
	int rc = plk_comm_attach(c, k);
	if (!strcmp(mode, "module-fails")) {
		if (rc == 0 || !strstr(plk_error(k), "nvshmemx_cumodule_init: NVSHMEMX_ERROR_INTERNAL (7)") ||
		    !strstr(plk_error(k), "same NVSHMEM release as the host library, which is 3.4.5"))
			FAIL("a failing module initialisation: %s", rc ? plk_error(k) : "succeeded");
		if (plk_launch(k, NULL) == 0)
			FAIL("launched after a failed attach");
	} else {
		if (rc)
			FAIL("attach: %s", plk_error(k));
		if (plk_launch(k, NULL))
			FAIL("launch after attaching: %s", plk_error(k));
		if (plk_comm_barrier(c, NULL))
			FAIL("barrier");
	}
	if (!strcmp(mode, "fini-first")) {   /* the engine goes first: it gives the module's state back */
		plk_comm_free(c, x);
		plk_comm_fini(c);
		plk_unload(k);
	} else {
		plk_unload(k);
		plk_comm_free(c, x);
		plk_comm_fini(c);
	}
	puts("comm ok");
	return 0;
}
