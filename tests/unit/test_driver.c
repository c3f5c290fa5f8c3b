/* test_driver.c: cli.c (the options into Options and the Ctx) and
 * output.c (paths, atomic text outputs, the dependency file). The
 * messages of bad command lines are the tests/cli goldens'. */
#include <errno.h>
#include <limits.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"
#include "driver.h"

/* cli_parse of a NULL-terminated argument list, after argv[0] */
static int parse(UnitCtx *u, Options *o, const char **args)
{
	const char *argv[32] = { "plkc" };
	int argc = 1;
	while (*args && argc < 31)
		argv[argc++] = *args++;
	memset(o, 0, sizeof *o);
	return cli_parse(&u->c, o, argc, (char **)argv);
}

static void test_options(void)
{
	UnitCtx u;
	Options o;
	unit_ctx_init(&u);
	CHECK_EQ_INT(parse(&u, &o, (const char *[]){ "k.plk", "-arch", "sm_90a", "--arch=sm_80", "-arch", "sm_90a",
	                                               "-o", "out.cubin", "--emit=ptx", "--kernel", "gemm", NULL }), 0);
	CHECK_STR(o.input, "k.plk");
	CHECK_EQ_INT(o.narches, 2);       /* sm_90a given twice is one target */
	CHECK_STR(o.arches[0], "sm_90a");
	CHECK_STR(o.arches[1], "sm_80");
	CHECK_STR(o.out, "out.cubin");
	CHECK_EQ_INT(o.emit, EMIT_PTX);
	CHECK_STR(emit_names[o.emit], "ptx");
	CHECK_STR(o.kernel, "gemm");

	/* -IDIR, -DNAME=V and -Xnvcc go to the Ctx; -MF implies -MD */
	int ninc = u.c.include_dirs.n, nflags = u.c.cflags.n;
	CHECK_EQ_INT(parse(&u, &o, (const char *[]){ "-Iinc", "-D", "BM=64", "-Xnvcc", "-lineinfo", "-MF", "k.d",
	                                               "-c", "--check", "--diagnostics-format=short", "-", NULL }), 0);
	CHECK_STR(o.input, "-");          /* `-` alone is stdin, not an option */
	CHECK_EQ_INT(u.c.include_dirs.n, ninc + 1);
	CHECK_STR(u.c.include_dirs.v[ninc], "inc");
	CHECK_EQ_INT(u.c.cflags.n, nflags + 2);
	CHECK_STR(u.c.cflags.v[nflags], "-DBM=64");
	CHECK_STR(u.c.cflags.v[nflags + 1], "-lineinfo");
	CHECK_STR(o.depfile, "k.d");
	CHECK(o.md && o.compile_only && o.check_only);
	CHECK_EQ_INT(u.c.format, DIAGFMT_SHORT);

	/* bad command lines: status 2, nothing taken for a value that is
	 * another option */
	const char **bad[] = {
		(const char *[]){ "k.plk", "-arch", "--check", NULL },      /* -arch lacks its value */
		(const char *[]){ "k.plk", "-o", NULL },
		(const char *[]){ "k.plk", "-ofoo", NULL },                 /* -o takes its value apart */
		(const char *[]){ "k.plk", "--emit=bogus", NULL },
		(const char *[]){ "k.plk", "-D", "1X=2", NULL },
		(const char *[]){ "k.plk", "-D", "A-B", NULL },
		(const char *[]){ "k.plk", "-Xnvcc", NULL },
		(const char *[]){ "k.plk", "--diagnostics-format=long", NULL },
		(const char *[]){ "k.plk", "--frobnicate", NULL },
		(const char *[]){ "a.plk", "b.plk", NULL },
		(const char *[]){ "k.plk", "-arch", "sm_80", "-arch", "sm_86", "-arch", "sm_87", "-arch", "sm_89",
		                  "-arch", "sm_90", "-arch", "sm_90a", "-arch", "sm_100", "-arch", "sm_100a",
		                  "-arch", "sm_120", NULL },                /* a ninth arch */
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		int rc = parse(&u, &o, bad[i]);
		if (rc != 2)
			fprintf(stderr, "bad command line %zu: status %d\n", i, rc);
		CHECK_EQ_INT(rc, 2);
	}
	unit_ctx_fini(&u);
}

static void test_paths(void)
{
	UnitCtx u;
	Options o = { 0 };
	unit_ctx_init(&u);
	CHECK_STR(out_with_ext(&u.c, "dir/k.cubin", ".manifest.json"), "dir/k.manifest.json");
	CHECK_STR(out_with_ext(&u.c, "dir.x/k", ".d"), "dir.x/k.d");    /* a dot in the directory only */
	CHECK_STR(out_with_ext(&u.c, "k.tar.gz", ".d"), "k.tar.d");
	CHECK_STR(out_binary_path(&u.c, &o, "gemm", 1), "gemm.cubin");
	CHECK_STR(out_binary_path(&u.c, &o, "gemm", 2), "gemm.fatbin");
	o.emit = EMIT_CUBIN;
	CHECK_STR(out_binary_path(&u.c, &o, "gemm", 1), "-");         /* --emit=cubin: stdout */
	o.out = "x.bin";
	CHECK_STR(out_binary_path(&u.c, &o, "gemm", 1), "x.bin");
	o.emit = EMIT_PLACEMENT;
	CHECK(out_binary_path(&u.c, &o, "gemm", 1) == NULL);
	o.emit = EMIT_DEFAULT;
	o.check_only = 1;
	CHECK(out_binary_path(&u.c, &o, "gemm", 1) == NULL);
	unit_ctx_fini(&u);
}

/* A text output reaches its file on out_close only, and names a target of
 * the dependency file, whose paths carry make's escapes. */
static void test_files(const char *dir)
{
	UnitCtx u;
	Options o = { 0 };
	unit_ctx_init(&u);
	const char *path = arena_printf(u.c.arena, "%s/a b#$.txt", dir);
	FILE *f = out_open(&u.c, &o, path);
	CHECK(f != NULL && f != stdout);
	fputs("placement\n", f);
	CHECK(access(path, F_OK) != 0);         /* nothing on disk before out_close */
	CHECK_EQ_INT(out_close(&u.c, &o, f, path), 0);
	size_t n = 0;
	char *t = sys_read_file(path, 64, &n);
	CHECK(t && !strcmp(t, "placement\n"));
	free(t);
	CHECK_EQ_INT(o.targets.n, 1);

	o.input = "k.plk";
	CHECK_EQ_INT(out_depfile(&u.c, &o, NULL), 0);
	const char *dpath = out_with_ext(&u.c, path, ".d");
	t = sys_read_file(dpath, 4096, &n);
	const char *want = arena_printf(u.c.arena, "%s/a\\ b\\#$$:\n", dir);
	CHECK(t && !strncmp(t, want, strlen(want) - 2));  /* the target escaped; no input read */
	free(t);

	/* a directory where the file goes: E0603, the directory untouched */
	const char *sub = arena_printf(u.c.arena, "%s/sub", dir);
	CHECK_EQ_INT(mkdir(sub, 0700), 0);
	f = out_open(&u.c, &o, sub);
	fputs("x", f);
	CHECK(out_close(&u.c, &o, f, sub) != 0);
	CHECK_LOG(&u, "error[E0603]");
	struct stat st;
	CHECK(stat(sub, &st) == 0 && S_ISDIR(st.st_mode));
	rmdir(sub);
	unlink(path);
	unlink(dpath);
	unit_ctx_fini(&u);
}

int main(void)
{
	char dir[PATH_MAX];
	const char *tmp = getenv("TMPDIR");
	snprintf(dir, sizeof dir, "%s/plk-test-driver.XXXXXX", tmp && *tmp ? tmp : "/tmp");
	if (!mkdtemp(dir)) {
		perror("mkdtemp");
		return 1;
	}
	test_options();
	test_paths();
	test_files(dir);
	rmdir(dir);
	UNIT_END();
}
