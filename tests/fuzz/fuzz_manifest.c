/* fuzz_manifest.c: libFuzzer target for the runtime's pure part (runtime/
 * json.c, expr.c, manifest.c, plan.c): a manifest sits beside a binary
 * that may come from anywhere, so any text must give a launch plan or one
 * error, never a crash, an over-read, a huge allocation, a leak, a hang
 * or undefined behaviour. Each input that parses is then driven as
 * plk-run drives it: the device's arch picked (9.0, then 8.0), every
 * symbol bound to 100, every tensor to a pointer, every free scalar set,
 * the shapes resolved, the select's variant picked, the work items and
 * the grid computed. scripts/fuzz.sh manifest; seeds: the runtime tests'
 * manifests and those plkc writes for the examples. The REPLAY build
 * (tests/scripts/fuzz_replay.sh) runs files given on the command line. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plan.h"

static void drive(plk_manifest *m, int major, int minor)
{
	char err[PLK_ERRLEN];
	(void)plk_manifest_select(m, major, minor);
	plk_binding *b = plk_binding_new(m);
	plk_plan *p = plk_plan_new(m);
	if (!b || !p)
		goto out;
	for (int i = 0; i < m->nsyms; i++)
		(void)plk_binding_dim(m, b, m->syms[i], 100, err);
	for (int t = 0; t < m->ntensors; t++)
		(void)plk_binding_tensor(m, b, m->tensors[t].name, 0x100000ULL * (uint64_t)(t + 1), NULL, 0, err);
	for (int i = 0; i < m->nparams; i++)
		if (m->params[i].tensor < 0 && !m->params[i].dim) {
			if (m->params[i].kind == PK_F32)
				(void)plk_binding_float(m, b, m->params[i].name, 1, err);
			else if (m->params[i].kind == PK_PTR)
				(void)plk_binding_ptr(m, b, m->params[i].name, 0x1000, err);
			else
				(void)plk_binding_int(m, b, m->params[i].name, 1, err);
		}
	int pick = -1;
	const plk_device_vals dv = { 132, 4916 };
	int64_t work;
	unsigned g[3];
	if (plk_resolve(m, b, p, err) == 0) {
		if (m->nkvars)
			(void)plk_variant_pick(m, p->sym, &dv, &pick, err);
		const plk_manifest *k = pick >= 0 ? m->kvars[pick].m : m;
		(void)plk_requires_check(k, p->sym, &dv, err);
		if (plk_work_items(k, p->sym, &work, err) == 0)
			(void)plk_grid(k, work, 132, g, err);
	}
out:
	plk_binding_free(b);
	plk_plan_free(p);
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	char err[PLK_ERRLEN];
	plk_manifest *m = plk_manifest_parse((const char *)data, size, err);
	if (m) {
		drive(m, 9, 0);
		plk_manifest_free(m);
	}
	if ((m = plk_manifest_parse((const char *)data, size, err))) {
		drive(m, 8, 0);
		plk_manifest_free(m);
	}
	return 0;
}

#define REPLAY_WHAT "manifests"
#include "replay.h"
