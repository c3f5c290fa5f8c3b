/* test_resolve.c: imports beside the including file and through -I, one
 * load per file, cycles, duplicates, missing files, and `use` of the wrong
 * kind of file. Runs from the repository root (fixtures in tests/objects/). */
#include <stdlib.h>
#include "unit.h"

typedef UnitCtx T;

static void test_imports(void)
{
	T t;
	unit_ctx_init(&t);
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
	unit_ctx_fini(&t);
}

static void test_not_found(void)
{
	T t;
	unit_ctx_init(&t);
	vec_push(t.c.arena, &t.c.include_dirs, "tests/objects/diamond");
	CHECK(resolve(&t.c, "tests/objects/missing.plk") == NULL);
	CHECK_LOG(&t, "error[E0201]: cannot find file `nowhere/gone.plk`");
	CHECK_LOG(&t, "missing.plk:1:5");
	CHECK_LOG(&t, "tried: tests/objects/nowhere/gone.plk, tests/objects/diamond/nowhere/gone.plk");
	unit_ctx_fini(&t);

	/* the same import without -I: lib.plk is not beside root.plk */
	unit_ctx_init(&t);
	CHECK(resolve(&t.c, "tests/objects/root.plk") == NULL);
	CHECK_LOG(&t, "cannot find file `lib.plk`");
	unit_ctx_fini(&t);

	unit_ctx_init(&t);
	CHECK(resolve(&t.c, "tests/objects/absent.plk") == NULL);
	CHECK_LOG(&t, "error[E0201]: cannot find `tests/objects/absent.plk`, given on the command line");
	unit_ctx_fini(&t);
}

static void test_cycle(void)
{
	T t;
	unit_ctx_init(&t);
	CHECK(resolve(&t.c, "tests/objects/cycle/a.plk") == NULL);
	CHECK_LOG(&t, "error[E0202]");
	CHECK_LOG(&t, "cycle/b.plk:1:5");        /* the use that closes it */
	CHECK_LOG(&t, "cycle/a.plk:1:5");        /* ...and the one that opened it */
	CHECK_LOG(&t, "tests/objects/cycle/a.plk -> tests/objects/cycle/b.plk -> tests/objects/cycle/a.plk");
	unit_ctx_fini(&t);
}

static void test_duplicate(void)
{
	T t;
	unit_ctx_init(&t);
	CHECK(resolve(&t.c, "tests/objects/dup.plk") == NULL);
	CHECK_LOG(&t, "error[E0203]: component `shared` is declared twice");
	CHECK_LOG(&t, "dup.plk:3:11");
	CHECK_LOG(&t, "first declared here");
	CHECK_LOG(&t, "diamond/shared.plk:1:11");
	unit_ctx_fini(&t);
}

static void test_wrong_kind(void)
{
	T t;
	unit_ctx_init(&t);
	/* `use object` of a text file, `use` of an ELF file */
	CHECK(resolve(&t.c, "tests/objects/wrong_kind.plk") == NULL);
	CHECK_LOG(&t, "error[E0207]: `tests/objects/add.plk` is not an ELF object");
	CHECK_LOG(&t, "help: it looks like text: a `.plk` declaration is imported with `use`");
	CHECK_LOG(&t, "error[E0212]");
	CHECK_LOG(&t, "use object \"elf.bin\"");
	unit_ctx_fini(&t);
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
