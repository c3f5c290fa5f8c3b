/* test_resolve.c: imports beside the including file and through -I, one
 * load per file, cycles, duplicates, missing files, and `use` of the wrong
 * kind of file. Runs from the repository root (fixtures in tests/objects/). */
#include <stdlib.h>
#include "unit.h"

typedef struct T {
	Ctx c;
	char *log;
	size_t n;
	FILE *err;
} T;

static void t_init(T *t)
{
	t->log = NULL;
	t->err = open_memstream(&t->log, &t->n);
	ctx_init(&t->c, t->err);
}

static const char *t_log(T *t)
{
	fflush(t->err);
	return t->log ? t->log : "";
}

static void t_fini(T *t)
{
	ctx_fini(&t->c);
	fclose(t->err);
	free(t->log);
}

#define CHECK_LOG(t, s) do { if (!strstr(t_log(t), s)) { unit_failures++; \
	fprintf(stderr, "%s:%d: diagnostics lack \"%s\":\n%s\n", __FILE__, __LINE__, s, t_log(t)); } } while (0)

static void test_imports(void)
{
	T t;
	t_init(&t);
	vec_push(t.c.arena, &t.c.include_dirs, "tests/objects/inc");
	Program *p = resolve(&t.c, "tests/objects/root.plk");
	CHECK(p != NULL);
	CHECK_EQ_INT(t.c.nerrors, 0);
	if (p) {
		/* root, left, shared (once), right, lib */
		CHECK_EQ_INT(p->modules.n, 5);
		CHECK_EQ_INT(p->comps.n, 4);
		CHECK_EQ_INT(p->kernels.n, 0);
		const Component *s = program_component(p, "shared");
		CHECK(s != NULL);
		if (s)
			CHECK_STR(s->file, "tests/objects/diamond/shared.plk");
		const Component *l = program_component(p, "inc_lib");
		CHECK(l != NULL);
		if (l)
			CHECK_STR(l->file, "tests/objects/inc/lib.plk");
		CHECK(program_component(p, "left") && program_component(p, "right"));
		CHECK(program_component(p, "nothing") == NULL);
	}
	t_fini(&t);
}

static void test_not_found(void)
{
	T t;
	t_init(&t);
	vec_push(t.c.arena, &t.c.include_dirs, "tests/objects/diamond");
	CHECK(resolve(&t.c, "tests/objects/missing.plk") == NULL);
	CHECK_LOG(&t, "error[E0201]: cannot find file `nowhere/gone.plk`");
	CHECK_LOG(&t, "missing.plk:1:5");
	CHECK_LOG(&t, "tried: tests/objects/nowhere/gone.plk, tests/objects/diamond/nowhere/gone.plk");
	t_fini(&t);

	/* the same import without -I: lib.plk is not beside root.plk */
	t_init(&t);
	CHECK(resolve(&t.c, "tests/objects/root.plk") == NULL);
	CHECK_LOG(&t, "cannot find file `lib.plk`");
	t_fini(&t);

	t_init(&t);
	CHECK(resolve(&t.c, "tests/objects/absent.plk") == NULL);
	CHECK_LOG(&t, "error[E0201]: cannot find `tests/objects/absent.plk`, given on the command line");
	t_fini(&t);
}

static void test_cycle(void)
{
	T t;
	t_init(&t);
	CHECK(resolve(&t.c, "tests/objects/cycle/a.plk") == NULL);
	CHECK_LOG(&t, "error[E0202]");
	CHECK_LOG(&t, "cycle/b.plk:1:5");        /* the use that closes it */
	CHECK_LOG(&t, "cycle/a.plk:1:5");        /* ...and the one that opened it */
	CHECK_LOG(&t, "tests/objects/cycle/a.plk -> tests/objects/cycle/b.plk -> tests/objects/cycle/a.plk");
	t_fini(&t);
}

static void test_duplicate(void)
{
	T t;
	t_init(&t);
	CHECK(resolve(&t.c, "tests/objects/dup.plk") == NULL);
	CHECK_LOG(&t, "error[E0203]: component `shared` is declared twice");
	CHECK_LOG(&t, "dup.plk:3:11");
	CHECK_LOG(&t, "first declared here");
	CHECK_LOG(&t, "diamond/shared.plk:1:11");
	t_fini(&t);
}

static void test_wrong_kind(void)
{
	T t;
	t_init(&t);
	/* `use object` of a text file, `use` of an ELF file */
	CHECK(resolve(&t.c, "tests/objects/wrong_kind.plk") == NULL);
	CHECK_LOG(&t, "error[E0207]: `tests/objects/add.plk` is not an ELF object");
	CHECK_LOG(&t, "help: it looks like text: a `.plk` declaration is imported with `use`");
	CHECK_LOG(&t, "error[E0212]");
	CHECK_LOG(&t, "use object \"elf.bin\"");
	t_fini(&t);
}

int main(void)
{
	test_imports();
	test_not_found();
	test_cycle();
	test_duplicate();
	test_wrong_kind();
	UNIT_END();
}
