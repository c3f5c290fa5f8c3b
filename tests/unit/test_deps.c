/* test_deps.c: an object's files (deps.c). nvcc's -MD list as make
 * writes it (continued lines, escaped spaces and `#`, `$$`, a target with
 * a space before its colon), the generated header left out, each file
 * with the sha256 of its bytes and relative to the source's directory;
 * whether the files still hold those bytes; what a bad list says. Runs
 * in a temporary directory of its own. */
#include <stdlib.h>
#include <sys/stat.h>
#include <unistd.h>
#include "unit.h"

typedef UnitCtx T;

static char tmp[256];

static const char *tp(const char *name)
{
	static char buf[8][512];
	static int k;
	k = (k + 1) % 8;
	snprintf(buf[k], sizeof buf[k], "%s/%s", tmp, name);
	return buf[k];
}

static void put(const char *path, const char *text)
{
	FILE *f = fopen(path, "wb");
	CHECK(f && fputs(text, f) >= 0);
	if (f)
		fclose(f);
}

static const ObjDep *dep(const Vec *deps, int i)
{
	static const ObjDep none = { .path = "(none)" };
	return i < deps->n ? deps->v[i] : &none;
}

static const char *sha(const char *text)
{
	static char out[65];
	sha256_of(text, strlen(text), out);
	return out;
}

/* A list as nvcc -MD writes it, every kind of escape in it. */
static void test_read(void)
{
	T u;
	unit_ctx_init(&u);
	Component comp = { .name = "t", .name_sp = span_none };
	char *src = realpath(tp("src"), NULL), *gen = realpath(tp("gen"), NULL);
	char list[4096];
	snprintf(list, sizeof list,
	         "%s/code.o : %s/a.cu \\\n  %s/dir\\ with\\ space/b.h \\\r\n  c$$d.h e\\#f.h \\\n  %s/comp.plk.h\n",
	         gen, src, src, gen);
	put(tp("deps.d"), list);
	Vec deps = { 0 };
	CHECK_EQ_INT(deps_read(&u.c, &comp, src, tp("deps.d"), gen, &deps), 0);
	CHECK_EQ_INT(deps.n, 4);   /* the generated header is not the object's */
	CHECK_STR(dep(&deps, 0)->path, "a.cu");
	CHECK_STR(dep(&deps, 1)->path, "dir with space/b.h");
	CHECK_STR(dep(&deps, 2)->path, "c$d.h");
	CHECK_STR(dep(&deps, 3)->path, "e#f.h");
	CHECK_STR(dep(&deps, 0)->hash, sha("source a\n"));
	CHECK_STR(dep(&deps, 1)->hash, sha("header b\n"));
	CHECK_STR(dep(&deps, 3)->hash, sha("header e#f\n"));
	CHECK_EQ_INT(u.c.deps.n, 4);   /* each for -MD too, once */
	CHECK_EQ_INT(u.c.nerrors, 0);

	/* the object's hashes over them: current while the bytes are the same */
	char key[65];
	sha256_of("key", 3, key);
	Obj o = { .deps = deps };
	deps_source_hash(&deps, o.srchash);
	deps_object_hash(key, o.srchash, o.hash);
	const char *changed = "?";
	CHECK_EQ_INT(deps_current(&u.c, &o, src, "shown", key, &changed), 0);
	CHECK(changed == NULL);
	char other[65];
	sha256_of("other key", 9, other);
	CHECK_EQ_INT(deps_current(&u.c, &o, src, "shown", other, &changed), -1);
	CHECK(changed == NULL);   /* no file differs: the key does */
	/* a header rewritten (its stat moves: hashed again, not the memo's) */
	put(tp("src/dir with space/b.h"), "header b, changed\n");
	CHECK_EQ_INT(deps_current(&u.c, &o, src, "shown", key, &changed), -1);
	CHECK_STR(changed, "shown/dir with space/b.h");
	put(tp("src/dir with space/b.h"), "header b\n");
	CHECK_EQ_INT(deps_current(&u.c, &o, src, "shown", key, &changed), 0);
	/* and one gone */
	CHECK_EQ_INT(unlink(tp("src/e#f.h")), 0);
	CHECK_EQ_INT(deps_current(&u.c, &o, src, "shown", key, &changed), -1);
	CHECK_STR(changed, "shown/e#f.h");
	put(tp("src/e#f.h"), "header e#f\n");
	free(src);
	free(gen);
	unit_ctx_fini(&u);
}

/* Each bad list is E0211, saying what is wrong with it. */
static void test_bad_lists(void)
{
	static const struct { const char *list, *says; } bad[] = {
		{ "no target here\n", "is malformed" },
		{ "code.o:\n", "is malformed" },               /* no file */
		{ "code.o: missing.h\n", "cannot find a file nvcc read" },
	};
	char *src = realpath(tp("src"), NULL), *gen = realpath(tp("gen"), NULL);
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		T u;
		unit_ctx_init(&u);
		Component comp = { .name = "t", .name_sp = span_none };
		put(tp("bad.d"), bad[i].list);
		Vec deps = { 0 };
		CHECK_EQ_INT(deps_read(&u.c, &comp, src, tp("bad.d"), gen, &deps), -1);
		CHECK_LOG(&u, "E0211");
		CHECK_LOG(&u, bad[i].says);
		unit_ctx_fini(&u);
	}
	T u;
	unit_ctx_init(&u);
	Component comp = { .name = "t", .name_sp = span_none };
	Vec deps = { 0 };
	CHECK_EQ_INT(deps_read(&u.c, &comp, src, tp("none.d"), gen, &deps), -1);
	CHECK_LOG(&u, "cannot read the list of files nvcc read");
	unit_ctx_fini(&u);
	free(src);
	free(gen);
}

int main(void)
{
	snprintf(tmp, sizeof tmp, "/tmp/plk-depstest-XXXXXX");
	if (!mkdtemp(tmp))
		return 1;
	CHECK_EQ_INT(mkdir(tp("src"), 0700), 0);
	CHECK_EQ_INT(mkdir(tp("src/dir with space"), 0700), 0);
	CHECK_EQ_INT(mkdir(tp("gen"), 0700), 0);
	put(tp("src/a.cu"), "source a\n");
	put(tp("src/dir with space/b.h"), "header b\n");
	put(tp("src/c$d.h"), "header c$d\n");
	put(tp("src/e#f.h"), "header e#f\n");
	put(tp("gen/comp.plk.h"), "generated\n");
	test_read();
	test_bad_lists();
	if (!unit_failures) {
		char cmd[600];
		snprintf(cmd, sizeof cmd, "rm -rf '%s'", tmp);
		CHECK_EQ_INT(system(cmd), 0);
	} else {
		fprintf(stderr, "test_deps: files kept in %s\n", tmp);
	}
	UNIT_END();
}
