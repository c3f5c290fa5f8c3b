/* test_object.c: component objects built with nvcc carry their contract;
 * reading it back round-trips; damaged, foreign and stale objects get
 * their own errors. Runs from the repository root (fixtures in
 * tests/objects/); skips the nvcc parts when nvcc is missing. */
#include <limits.h>
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include <nvJitLink.h>
#include "unit.h"

static char tmp[256], nvcc[512];

/* nvJitLink keeps a few hundred bytes when it rejects an input: not ours. */
const char *__lsan_default_suppressions(void);
const char *__lsan_default_suppressions(void)
{
	return "leak:libnvJitLink.so\n";
}

typedef UnitCtx T;

static char *slurp(const char *path, size_t *n)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	fseek(f, 0, SEEK_END);
	long len = ftell(f);
	fseek(f, 0, SEEK_SET);
	char *b = malloc((size_t)len + 1);
	if (fread(b, 1, (size_t)len, f) != (size_t)len)
		len = 0;
	b[len] = 0;
	fclose(f);
	*n = (size_t)len;
	return b;
}

static void spit(const char *path, const void *d, size_t n)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fwrite(d, 1, n, f) == n);
	if (f)
		fclose(f);
}

static const char *tp(const char *name)
{
	static char buf[4][512];
	static int k;
	k = (k + 1) % 4;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, name);
	return buf[k];
}

static Component *load_comp(T *t, const char *path)
{
	int s = ctx_load_file(&t->c, path, span_none);
	Module *m = s < 0 ? NULL : parse_source(&t->c, s);
	CHECK(m && m->comps.n == 1);
	return m && m->comps.n ? m->comps.v[0] : NULL;
}

static char *print_comp(const Component *comp, const int64_t *cv)
{
	char *s = NULL;
	size_t n;
	FILE *f = open_memstream(&s, &n);
	contract_print(f, comp, cv);
	fclose(f);
	return s;
}

/* print -> parse -> print is the identity, with and without bound constants. */
static void test_roundtrip(void)
{
	T t;
	unit_ctx_init(&t);
	Component *comp = load_comp(&t, "tests/objects/add.plk");
	if (!comp)
		return;
	int64_t cv[] = { 5, 10, -1 };
	for (int bound = 0; bound < 2; bound++) {
		char *a = print_comp(comp, bound ? cv : NULL);
		int s = ctx_add_source(&t.c, "printed.plk", a, strlen(a));
		Module *m = parse_source(&t.c, s);
		CHECK(m && m->comps.n == 1);
		if (m && m->comps.n == 1) {
			char *b = print_comp(m->comps.v[0], NULL);
			CHECK_STR(b, a);
			free(b);
		}
		if (bound)
			CHECK(strstr(a, "component plk_test_add(N = 5, M = 10, K = -1) {") != NULL);
		CHECK(strstr(a, "\n  require N > 0\n  require K in {-1, 1}\n") != NULL);
		free(a);
	}
	CHECK_EQ_INT(t.c.nerrors, 0);
	unit_ctx_fini(&t);
}

static char *header_of(const Component *comp, const int64_t *cv)
{
	char *s = NULL;
	size_t n;
	FILE *f = open_memstream(&s, &n);
	contract_header(f, comp, cv);
	fclose(f);
	return s;
}

/* The header: each cparam's default as C over the constants before it
 * (with cvals: the bound values), ids of every kind. */
static void test_header(void)
{
	T t;
	unit_ctx_init(&t);
	Component *comp = load_comp(&t, "tests/objects/header.plk");
	if (!comp)
		return;
	char *h = header_of(comp, NULL);
	CHECK(strstr(h, "#ifndef N\n#define N 3\n#endif\n#ifndef M\n"
	                "#define M ((N * 10) / 4 + ((N * 10) % 4 != 0 && ((N * 10) < 0) == (4 < 0)))\n"
	                "#endif\n") != NULL);
	CHECK(strstr(h, "#define L ((M < N ? M : N) - ((-2) > (-N) ? (-2) : (-N)))\n") != NULL);
	/* each require clause, after the constants, as C and as the contract writes it */
	CHECK(strstr(h, "#endif\n\nstatic_assert(N > 0, \"contract of header_test: require N > 0\");\n"
	                "static_assert((M == 8 || M == 9), \"contract of header_test: require M in {8, 9}\");\n"
	                "static_assert((N / 2 + (N % 2 != 0 && (N < 0) == (2 < 0))) == 2, "
	                "\"contract of header_test: require ceil_div(N, 2) == 2\");\n\nenum {\n") != NULL);
	CHECK(strstr(h, "\tHEADER_TEST_PORT_ACC = 1,\n\tHEADER_TEST_BUF_SCRATCH = 0,\n"
	                "\tHEADER_TEST_BUF_FLAGS = 1,\n\tHEADER_TEST_BAR_DONE = 0,\n") != NULL);
	free(h);
	int64_t cv[] = { 3, 8, 5, 2, -5 };
	h = header_of(comp, cv);
	CHECK(strstr(h, "#define M 8\n") && strstr(h, "#define P (-5)\n"));
	free(h);
	/* no default: the includer must define it */
	const char *src = "component nodef(A, B = A + 1) {\n  source \"nodef.cu\"\n  entry plk_nodef\n}\n";
	Module *m = parse_source(&t.c, ctx_add_source(&t.c, "nodef.plk", src, strlen(src)));
	CHECK(m && m->comps.n == 1);
	if (m && m->comps.n == 1) {
		h = header_of(m->comps.v[0], NULL);
		CHECK(strstr(h, "#ifndef A\n#error \"constant A of component nodef has no default: define it\"\n"
		                "#endif\n#ifndef B\n#define B (A + 1)\n#endif\n") != NULL);
		free(h);
	}
	CHECK_EQ_INT(t.c.nerrors, 0);
	unit_ctx_fini(&t);
}

static int sh(const char *fmt, const char *a, const char *b);

/* A source that takes its constants and ids from its header builds: the
 * build generates the header from the declaration in memory, never reads
 * one beside the source, and leaves no temporary behind; a declaration the
 * source disagrees with fails in nvcc. The defaults as C expressions (the
 * header --emit=header writes) give the numbers plkc computes. */
static void test_header_build(void)
{
	CHECK_EQ_INT(sh("mkdir -p '%s/inc' && cp tests/objects/header.plk tests/objects/header.cu '%s'",
	                tp("hdr"), tp("hdr")), 0);
	const char *stale = "#error \"a header beside the source was read\"\n";
	spit(tp("hdr/header_test.plk.h"), stale, strlen(stale));
	T t;
	unit_ctx_init(&t);
	char lib[PATH_MAX];   /* the header includes plk.cuh: build/san/unit finds no stdlib/ */
	if (realpath("stdlib", lib))
		t.c.stdlib_dir = arena_strdup(t.c.arena, lib);
	Component *decl = load_comp(&t, tp("hdr/header.plk"));
	const ArchInfo *a[] = { arch_lookup("sm_80") };
	if (!decl) {
		unit_ctx_fini(&t);
		return;
	}
	CHECK_EQ_INT(object_build(&t.c, decl, NULL, a, 1, tp("hdr/h.o"), NULL, NULL), 0);
	CHECK_EQ_INT(t.c.nerrors, 0);
	CHECK(sh("ls -a '%s' | grep -q tmp%s", tp("hdr"), "") != 0);

	char *h = header_of(decl, NULL);
	spit(tp("hdr/inc/header_test.plk.h"), h, strlen(h));
	free(h);
	char cmd[1200];
	snprintf(cmd, sizeof cmd, "'%s' -rdc=true -c -arch sm_80 -Istdlib -I'%s' '%s' -o '%s'", nvcc,
	         tp("hdr/inc"), tp("hdr/header.cu"), tp("hdr/sym.o"));
	CHECK_EQ_INT(system(cmd), 0);
	/* a value outside a require stops a build by hand at the header's clause */
	const char *req = "#include <header_test.plk.h>\n";
	spit(tp("hdr/req.cu"), req, strlen(req));
	snprintf(cmd, sizeof cmd, "'%s' -c -arch sm_80 -DM=10 -Istdlib -I'%s' '%s' -o /dev/null 2>&1 | "
	         "grep -q 'contract of header_test: require M in {8, 9}'", nvcc, tp("hdr/inc"), tp("hdr/req.cu"));
	CHECK_EQ_INT(system(cmd), 0);

	((Barrier *)decl->barriers.v[0])->name = "finished";
	CHECK(object_build(&t.c, decl, NULL, a, 1, tp("hdr/h2.o"), NULL, NULL) != 0);
	CHECK_LOG(&t, "error[E0209]");
	CHECK_LOG(&t, "HEADER_TEST_BAR_DONE");
	CHECK(sh("ls -a '%s' | grep -q tmp%s", tp("hdr"), "") != 0);
	unit_ctx_fini(&t);
}

static void test_build_and_read(void)
{
	T t;
	unit_ctx_init(&t);
	Component *decl = load_comp(&t, "tests/objects/add.plk");
	if (!decl)
		return;
	CHECK_EQ_INT(object_build(&t.c, decl, NULL, NULL, 0, tp("add.o"), NULL, NULL), 0);
	CHECK_EQ_INT(t.c.nerrors, 0);
	Component *obj = object_read_contract(&t.c, tp("add.o"), span_none);
	CHECK(obj != NULL);
	if (obj) {
		int64_t cv[] = { 3, 6, -1 };
		char *a = print_comp(decl, cv), *b = print_comp(obj, NULL);
		CHECK_STR(b, a);
		free(a);
		free(b);
		CHECK_STR(obj->object, tp("add.o"));
		CHECK_EQ_INT(object_matches(&t.c, decl, obj, span_none), 0);
	}
	/* every default target: sm_80 LTO-IR serves the plain later archs too */
	const char *ok[] = { "sm_80", "sm_90", "sm_90a", "sm_100a" };
	for (int i = 0; i < 4; i++)
		CHECK_EQ_INT(object_check_arch(&t.c, tp("add.o"), arch_lookup(ok[i]), span_none), 0);
	char *e = NULL;
	size_t en;
	FILE *f = open_memstream(&e, &en);
	CHECK_EQ_INT(object_emit_contract(&t.c, tp("add.o"), f), 0);
	fclose(f);
	CHECK(e && strstr(e, "// object ") == e && strstr(e, "LTO-IR for sm_80, sm_90a, sm_100a"));
	CHECK(e && strstr(e, "component plk_test_add(N = 3, M = 6, K = -1) {"));
	free(e);
	CHECK_EQ_INT(t.c.nerrors, 0);
	unit_ctx_fini(&t);
}

/* Whether nvJitLink itself takes the object for arch: the ground truth
 * object_check_arch must agree with. */
static int jitlink_accepts(const char *path, const char *arch)
{
	char opt[32];
	snprintf(opt, sizeof opt, "-arch=%s", arch);
	const char *opts[] = { opt, "-lto" };
	nvJitLinkHandle h;
	if (nvJitLinkCreate(&h, 2, opts) != NVJITLINK_SUCCESS)
		return -1;
	int ok = nvJitLinkAddFile(h, NVJITLINK_INPUT_ANY, path) == NVJITLINK_SUCCESS &&
		nvJitLinkComplete(h) == NVJITLINK_SUCCESS;
	nvJitLinkDestroy(&h);
	return ok;
}

static void test_agrees_with_nvjitlink(void)
{
	const char *objs[] = { tp("add.o"), tp("hopper.o") };
	const char *archs[] = { "sm_80", "sm_90", "sm_90a", "sm_100a" };
	for (int i = 0; i < 2; i++)
		for (int j = 0; j < 4; j++) {
			T t;
			unit_ctx_init(&t);
			int ours = object_check_arch(&t.c, objs[i], arch_lookup(archs[j]), span_none) == 0;
			int theirs = jitlink_accepts(objs[i], archs[j]);
			if (ours != theirs)
				fprintf(stderr, "%s for %s: object_check_arch %d, nvJitLink %d\n", objs[i], archs[j], ours, theirs);
			CHECK_EQ_INT(ours, theirs);
			unit_ctx_fini(&t);
		}
}

static void test_other_arch_only(void)
{
	T t;
	unit_ctx_init(&t);
	Component *decl = load_comp(&t, "tests/objects/hopper.plk");
	if (!decl)
		return;
	/* needs wgmma: of the default targets only sm_90a is built */
	CHECK_EQ_INT(object_build(&t.c, decl, NULL, NULL, 0, tp("hopper.o"), NULL, NULL), 0);
	CHECK_EQ_INT(object_check_arch(&t.c, tp("hopper.o"), arch_lookup("sm_90a"), span_none), 0);
	CHECK_EQ_INT(t.c.nerrors, 0);
	CHECK(object_check_arch(&t.c, tp("hopper.o"), arch_lookup("sm_80"), span_none) != 0);
	CHECK_LOG(&t, "error[E0206]");
	CHECK_LOG(&t, "it holds LTO-IR for: sm_90a");
	CHECK(object_check_arch(&t.c, tp("hopper.o"), arch_lookup("sm_100a"), span_none) != 0);
	/* and it cannot be built for sm_80 at all */
	const ArchInfo *a80[] = { arch_lookup("sm_80") };
	CHECK(object_build(&t.c, decl, NULL, a80, 1, tp("never.o"), NULL, NULL) != 0);
	CHECK_LOG(&t, "error[E0210]");
	CHECK(access(tp("never.o"), F_OK) != 0);
	unit_ctx_fini(&t);
}

/* Runs `cmd` through the shell; the tests own every path in it. */
static int sh(const char *fmt, const char *a, const char *b)
{
	char cmd[1200];
	snprintf(cmd, sizeof cmd, fmt, a, b);
	return system(cmd);
}

static void expect_read_error(const char *path, const char *code, const char *detail)
{
	T t;
	unit_ctx_init(&t);
	CHECK(object_read_contract(&t.c, path, span_none) == NULL);
	CHECK_LOG(&t, code);
	if (detail)
		CHECK_LOG(&t, detail);
	unit_ctx_fini(&t);
}

static void test_damaged(void)
{
	size_t n;
	char *o = slurp(tp("add.o"), &n);
	CHECK(o && n > 1000);
	if (!o)
		return;
	/* truncated: half, and the bare ELF identification */
	spit(tp("half.o"), o, n / 2);
	expect_read_error(tp("half.o"), "error[E0204]", "corrupted or truncated");
	spit(tp("ident.o"), o, 20);
	expect_read_error(tp("ident.o"), "error[E0204]", NULL);
	/* one byte of the contract flipped */
	char *c = o;
	char *hdr = NULL;
	for (size_t i = 0; i + 15 < n && !hdr; i++)
		if (!memcmp(c + i, "plk.contract 2\n", 15))
			hdr = c + i;
	CHECK(hdr != NULL);
	if (hdr) {
		char *body = strstr(hdr, "\n\n");
		char *m = malloc(n);
		memcpy(m, o, n);
		m[body - o + 12] ^= 0x20;
		spit(tp("flip.o"), m, n);
		expect_read_error(tp("flip.o"), "error[E0204]", "does not match the digest");
		/* the section's length field no longer matches */
		memcpy(m, o, n);
		char *len = strstr(m + (hdr - o), "length ");
		len[7] = len[7] == '9' ? '1' : '9';
		spit(tp("len.o"), m, n);
		expect_read_error(tp("len.o"), "error[E0204]", NULL);
		free(m);
	}
	/* section table pointer out of the file */
	char *m = malloc(n);
	memcpy(m, o, n);
	memset(m + 0x28, 0x7f, 8);    /* e_shoff of ELF64 */
	spit(tp("shoff.o"), m, n);
	expect_read_error(tp("shoff.o"), "error[E0204]", NULL);
	free(m);
	free(o);

	/* no contract: the section stripped again */
	CHECK_EQ_INT(sh("objcopy --remove-section .plk.contract '%s' '%s'", tp("add.o"), tp("bare.o")), 0);
	expect_read_error(tp("bare.o"), "error[E0205]", "LTO-IR for sm_80, sm_90a, sm_100a");

	/* not ELF: a .plk file, an empty file; and no file at all */
	expect_read_error("tests/objects/add.plk", "error[E0207]", "imported with `use`, without `object`");
	spit(tp("empty.o"), "", 0);
	expect_read_error(tp("empty.o"), "error[E0207]", "0 bytes");
	expect_read_error(tp("absent.o"), "error[E0201]", "tried:");
}

/* The section's header is parsed strictly; lists are compared as
 * multisets and never cut short. */
static void test_strict(void)
{
	const char *a2[] = { "sm_90a", "sm_90a" }, *b2[] = { "sm_90a", "sm_80" }, *c2[] = { "sm_90a", "sm_80" };
	CHECK(!obj_same_set(a2, 2, b2, 2) && !obj_same_set(b2, 2, a2, 2));
	CHECK(obj_same_set(b2, 2, c2, 2));
	const char *rev[] = { "sm_80", "sm_90a" };
	CHECK(obj_same_set(b2, 2, rev, 2));
	/* edits of the section text: sed EXPR on it, the object rebuilt with it */
	static const struct { const char *sed, *why; } edits[] = {
		{ "s/^length \\([0-9]*\\)$/length +\\1/", "its header says `+" },
		{ "s/^length \\([0-9]*\\)$/length  \\1/", "its header says ` " },
		{ "s/^length \\([0-9]*\\)$/length 0\\1/", "its header says `0" },
		{ "s/^toolkit .*/&\\ntoolkit V0/", "says `toolkit` twice" },
		{ "s/^component .*/&\\ncomponent plk_other/", "says `component` twice" },
		{ "s/^dep \\([0-9a-f]*\\) add.cu$/dep \\1/", "malformed `dep` line" },
		{ "s/^arches .*/arches sm_90a sm_90a/", "names an arch twice" },
		{ "/^digest /d", "lacks `digest`" },
	};
	char st[512], ao[512], jo[512], eo[512];   /* tp's buffers are few: copies */
	snprintf(st, sizeof st, "%s", tp("s.txt"));
	snprintf(ao, sizeof ao, "%s", tp("add.o"));
	snprintf(jo, sizeof jo, "%s", tp("junk.o"));
	snprintf(eo, sizeof eo, "%s", tp("edited.o"));
	for (size_t i = 0; i < sizeof edits / sizeof *edits; i++) {
		char cmd[4000];
		snprintf(cmd, sizeof cmd, "objcopy --dump-section .plk.contract='%s' '%s' '%s' && sed -i '%s' '%s' && "
		         "objcopy --update-section .plk.contract='%s' '%s' '%s'", st, ao, jo, edits[i].sed, st, st, ao, eo);
		CHECK_EQ_INT(system(cmd), 0);
		expect_read_error(tp("edited.o"), "error[E0204]", edits[i].why);
	}
	/* a fatbin of 65 LTO-IR entries: refused, not cut to the first 64 */
	unsigned char fat[16 + 65 * 48];
	memset(fat, 0, sizeof fat);
	unsigned char *h = fat;
	h[0] = 0x50, h[1] = 0xed, h[2] = 0x55, h[3] = 0xba, h[4] = 1, h[6] = 16;
	uint64_t body = 65 * 48;
	for (int k = 0; k < 8; k++)
		h[8 + k] = (unsigned char)(body >> (8 * k));
	for (int e = 0; e < 65; e++) {
		unsigned char *x = fat + 16 + 48 * e;
		x[0] = 8, x[4] = 48, x[28] = 90;
	}
	spit(tp("fat65"), fat, sizeof fat);
	char cmd[2000], f65[512];
	snprintf(f65, sizeof f65, "%s", tp("fat65"));
	snprintf(cmd, sizeof cmd, "objcopy --update-section __nv_relfatbin='%s' '%s' '%s'", f65, ao, tp("fat65.o"));
	CHECK_EQ_INT(system(cmd), 0);
	expect_read_error(tp("fat65.o"), "error[E0204]", "more than 64 LTO-IR entries");
}

static void test_nvcc_failure(void)
{
	T t;
	unit_ctx_init(&t);
	Component *decl = load_comp(&t, "tests/objects/broken.plk");
	const ArchInfo *a[] = { arch_lookup("sm_90a") };
	CHECK(decl && object_build(&t.c, decl, NULL, a, 1, tp("broken.o"), NULL, NULL) != 0);
	CHECK_LOG(&t, "error[E0209]");
	CHECK_LOG(&t, "undeclared_name");
	CHECK(access(tp("broken.o"), F_OK) != 0);
	unit_ctx_fini(&t);
}

static long mtime_ns(const char *p)
{
	struct stat st;
	return stat(p, &st) ? -1 : st.st_mtim.tv_sec * 1000000000L + st.st_mtim.tv_nsec;
}

/* tests/objects/hopper.{plk,cu} copied into DIR, a context with the
 * test cache, and the component declared there. */
static Component *hopper_in(T *t, const char *dir)
{
	CHECK_EQ_INT(sh("mkdir -p '%s' && cp tests/objects/hopper.plk tests/objects/hopper.cu '%s'", tp(dir), tp(dir)), 0);
	unit_ctx_init(t);
	t->c.cache_dir = arena_strdup(t->c.arena, tp("cache"));
	return load_comp(t, arena_printf(t->c.arena, "%s/hopper.plk", tp(dir)));
}

/* The cache: built once, found again, damaged -> rebuilt, source edited ->
 * another key; an object beside an edited declaration is stale. */
static void test_cache_and_stale(void)
{
	T t;
	Component *decl = hopper_in(&t, "src");
	const ArchInfo *a = arch_lookup("sm_90a");
	const char *p1 = decl ? object_for(&t.c, decl, NULL, a, NULL) : NULL;
	CHECK(p1 != NULL);
	if (!p1) {
		unit_ctx_fini(&t);
		return;
	}
	long m1 = mtime_ns(p1);
	const char *p2 = object_for(&t.c, decl, NULL, a, NULL);
	CHECK_STR(p2, p1);
	CHECK_EQ_INT(mtime_ns(p1), m1);        /* a hit: not rebuilt */
	spit(p1, "junk", 4);                    /* damaged -> rebuilt, never used */
	const char *p3 = object_for(&t.c, decl, NULL, a, NULL);
	CHECK_STR(p3, p1);
	CHECK(object_read_contract(&t.c, p1, span_none) != NULL);
	CHECK_EQ_INT(t.c.nerrors, 0);

	/* an object built now matches its declaration; after an edit it is stale */
	CHECK_EQ_INT(object_build(&t.c, decl, NULL, &a, 1, tp("src/hopper.o"), NULL, NULL), 0);
	Component *obj = object_read_contract(&t.c, tp("src/hopper.o"), span_none);
	CHECK(obj && object_matches(&t.c, decl, obj, span_none) == 0);
	CHECK_EQ_INT(sh("echo '// edited' >> '%s'%s", tp("src/hopper.cu"), ""), 0);
	CHECK(obj && object_matches(&t.c, decl, obj, span_none) != 0);
	CHECK_LOG(&t, "error[E0208]");
	CHECK_LOG(&t, "hopper.cu`, which nvcc read to build it, changed");
	const char *p4 = object_for(&t.c, decl, NULL, a, NULL);
	CHECK(p4 && strcmp(p4, p1));            /* the edit is a new key */

	/* resolve: a fresh object beside its declaration stands for it */
	unit_ctx_fini(&t);
	unit_ctx_init(&t);
	t.c.cache_dir = arena_strdup(t.c.arena, tp("cache"));
	const char *both = "use \"hopper.plk\"\nuse object \"hopper.o\"\n";
	spit(tp("src/both.plk"), both, strlen(both));
	CHECK_EQ_INT(sh("cp tests/objects/hopper.cu '%s'%s", tp("src/hopper.cu"), ""), 0);
	Program *p = resolve(&t.c, tp("src/both.plk"));
	CHECK(p && p->comps.n == 1);
	if (p && p->comps.n == 1) {
		CHECK_STR(((Component *)p->comps.v[0])->object, tp("src/hopper.o"));
		CHECK(p->objuses.n == 1 && p->objuses.v[0] != NULL);
		CHECK_EQ_INT(program_check_arch(&t.c, p, arch_lookup("sm_90a")), 0);
		CHECK(program_check_arch(&t.c, p, arch_lookup("sm_80")) != 0);
		CHECK_LOG(&t, "both.plk:2:12");      /* at the `use object` */
		CHECK_LOG(&t, "requires arch >= sm_90 and the features it needs: link for one of sm_90a");
		t.c.nerrors = 0;
	}
	CHECK_EQ_INT(sh("echo '// edited' >> '%s'%s", tp("src/hopper.cu"), ""), 0);
	CHECK(resolve(&t.c, tp("src/both.plk")) == NULL);
	CHECK_LOG(&t, "error[E0208]");
	unit_ctx_fini(&t);
}

/* A file nvcc read, changed in place (same inode, same size) after this
 * run hashed it, is hashed again, not taken from the run's memo of the
 * files it hashed. */
static void test_changed_in_run(void)
{
	T t;
	Component *decl = hopper_in(&t, "run");
	const ArchInfo *a = arch_lookup("sm_90a");
	CHECK(decl && object_build(&t.c, decl, NULL, &a, 1, tp("run/hopper.o"), NULL, NULL) == 0);
	Component *obj = decl ? object_read_contract(&t.c, tp("run/hopper.o"), span_none) : NULL;
	CHECK(obj && object_matches(&t.c, decl, obj, span_none) == 0);
	CHECK_EQ_INT(sh("printf '+' | dd of='%s' bs=1 seek=$(($(stat -c %%s '%s') - 2)) conv=notrunc status=none",
	                tp("run/hopper.cu"), tp("run/hopper.cu")), 0);
	CHECK(obj && object_matches(&t.c, decl, obj, span_none) != 0);
	CHECK_LOG(&t, "hopper.cu`, which nvcc read to build it, changed");
	unit_ctx_fini(&t);
}

/* What -c builds without -arch: every arch the contract allows, less a
 * plain one that an older plain target serves; nothing for none. */
static void test_default_arches(void)
{
	static const char *const cases[][2] = {
		{ "arch >= sm_80", "sm_80 sm_90a sm_100a" },
		{ "arch >= sm_90 needs tma", "sm_90 sm_90a sm_100a" },
		{ "arch >= sm_90 needs wgmma", "sm_90a" },
		{ "arch >= sm_90a", "sm_90a sm_100a" },
		{ "arch >= sm_80 needs tcgen05", "sm_100a" },
		{ "arch >= sm_120", "" },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		T t;
		unit_ctx_init(&t);
		char *text = arena_printf(t.c.arena, "component c {\n  %s\n  warps 1\n}\n", cases[i][0]);
		Module *m = parse_source(&t.c, ctx_add_source(&t.c, "default.plk", text, strlen(text)));
		CHECK(m && m->comps.n == 1);
		if (m && m->comps.n == 1) {
			const ArchInfo *a[OBJ_MAX_ARCHES];
			int n = object_default_arches(m->comps.v[0], a, OBJ_MAX_ARCHES);
			char got[128] = "";
			for (int j = 0; j < n; j++)
				snprintf(got + strlen(got), sizeof got - strlen(got), "%s%s", j ? " " : "", a[j]->name);
			CHECK_STR(got, cases[i][1]);
		}
		unit_ctx_fini(&t);
	}
}

int main(void)
{
	test_roundtrip();
	test_header();
	test_default_arches();
	snprintf(nvcc, sizeof nvcc, "%s/bin/nvcc", sys_cuda_home());
	if (access(nvcc, X_OK)) {
		if (system("command -v nvcc >/dev/null 2>&1")) {
			fprintf(stderr, "test_object: no nvcc, skipping object builds\n");
			UNIT_END();
		}
		strcpy(nvcc, "nvcc");
	}
	const char *td = getenv("TMPDIR");
	snprintf(tmp, sizeof tmp, "%s/plk-objtest-XXXXXX", td && *td ? td : "/tmp");
	if (!mkdtemp(tmp)) {
		perror("mkdtemp");
		return 1;
	}
	test_build_and_read();
	test_damaged();
	test_strict();
	test_other_arch_only();
	test_agrees_with_nvjitlink();
	test_nvcc_failure();
	test_header_build();
	test_cache_and_stale();
	test_changed_in_run();
	if (!unit_failures && !getenv("KEEP"))
		sh("rm -rf '%s'%s", tmp, "");
	else
		fprintf(stderr, "test_object: files kept in %s\n", tmp);
	UNIT_END();
}
