/* fuzz_check.c: libFuzzer target for the stages after the parser:
 * resolve, check, place, the monolith's C and the glue's LLVM IR (no
 * link), and a megakernel's check, schedule and monolith, for sm_90a. Any input must give a placement or diagnostics: never a crash,
 * a hang, a leak or undefined behaviour (an overflowing schedule was
 * found by scripts/mutate.sh, which this covers at libFuzzer's rate).
 *
 * Each input is written to WORK/examples/fuzz.plk, where WORK holds
 * links to the tree's components/ and to tests/mega/lib, so that the
 * examples' `use "../components/..."` and the megakernel goldens'
 * `use "lib/..."` resolve as in the tree. WORK is made once per process
 * under $TMPDIR; PLK_FUZZ_ROOT names the tree (default: the working
 * directory). Built by scripts/fuzz.sh check; the replay build (REPLAY)
 * runs files given on the command line (tests/scripts/fuzz_replay.sh). */
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plk.h"

static char work[PATH_MAX];   /* WORK, removed at exit */

static void remove_work(void)
{
	char a[PATH_MAX + 64];
	const char *names[] = { "examples/fuzz.plk", "examples/lib", "examples", "components", "" };
	for (size_t i = 0; i < sizeof names / sizeof *names; i++) {
		snprintf(a, sizeof a, "%s/%s", work, names[i]);
		remove(a);
	}
}

/* WORK/examples/fuzz.plk, made on the first call; NULL if it cannot be */
static const char *input_path(void)
{
	static char path[PATH_MAX + 64];
	if (path[0])
		return path;
	const char *tmp = getenv("TMPDIR") ? getenv("TMPDIR") : "/tmp";
	char root[PATH_MAX], a[PATH_MAX + 64], b[PATH_MAX + 64];
	if (!realpath(getenv("PLK_FUZZ_ROOT") ? getenv("PLK_FUZZ_ROOT") : ".", root))
		return NULL;
	snprintf(work, sizeof work, "%s/plk-fuzz-check-XXXXXX", tmp);
	if (!mkdtemp(work))
		return NULL;
	atexit(remove_work);
	snprintf(a, sizeof a, "%s/examples", work);
	if (mkdir(a, 0700))
		return NULL;
	snprintf(a, sizeof a, "%s/components", root), snprintf(b, sizeof b, "%s/components", work);
	if (symlink(a, b))
		return NULL;
	snprintf(a, sizeof a, "%s/tests/mega/lib", root), snprintf(b, sizeof b, "%s/examples/lib", work);
	if (symlink(a, b))
		return NULL;
	snprintf(path, sizeof path, "%s/examples/fuzz.plk", work);
	return path;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;      /* diagnostics are rendered, then dropped */
	if (!sink)
		sink = fopen("/dev/null", "w");
	const char *path = input_path();
	if (!path)
		abort();            /* the harness, not the input */
	FILE *f = fopen(path, "wb");
	if (!f || fwrite(data, 1, size, f) != size || fclose(f))
		abort();
	const ArchInfo *arch = arch_lookup("sm_90a");
	Ctx c;
	ctx_init(&c, sink);
	Program *p = resolve(&c, path);
	if (p && !c.nerrors && !program_check_arch(&c, p, arch) && !c.nerrors) {
		for (int i = 0; i < p->kernels.n; i++) {
			Graph *g = check_kernel(&c, p, p->kernels.v[i], arch);
			Placement *x = g && !c.nerrors ? place(&c, g) : NULL;
			if (x && !c.nerrors && !monolith_write(&c, x, sink))
				glue_emit_ll(&c, x, sink);
		}
		for (int i = 0; i < p->megas.n && !c.nerrors; i++) {
			MegaPlan *mp = mega_check(&c, p, p->megas.v[i], arch);
			if (mp && !c.nerrors)
				monolith_write_mega(&c, mp, sink);
		}
	}
	if (getenv("PLK_FUZZ_VERBOSE"))   /* how far the replay's inputs get */
		fprintf(stderr, "%s\n", c.nerrors ? "errors" : "placed");
	ctx_fini(&c);
	return 0;
}

#define REPLAY_WHAT "recipes"
#include "replay.h"
