/* test_link: the back end past the glue.
 *
 *   test_link           libNVVM takes the glue, NVRTC the entry, for every
 *                       arch; the PTX and info-log checks catch what they must
 *   test_link OBJDIR    also links the tests/link compositions with the
 *                       objects in OBJDIR (built by tests/scripts/link_compositions.sh)
 *                       for sm_80, sm_90a and sm_100a and inspects the result */
#include <stdlib.h>
#include "unit.h"
#include "../link/fixture.h"

static const char *const arches[] = { "sm_80", "sm_90a", "sm_100a" };

/* Runs f on a fresh Ctx whose diagnostics are captured in *out. */
static Ctx *ctx_capture(Ctx *c, char **buf, size_t *len)
{
	ctx_init(c, open_memstream(buf, len));
	return c;
}
static void ctx_release(Ctx *c, char **buf)
{
	fclose(c->err);   /* updates *buf */
	ctx_fini(c);
	free(*buf);
}

static void test_front(void)
{
	for (int a = 0; a < 3; a++)
		for (int three = 0; three < 2; three++) {
			Ctx c;
			char *log = NULL;
			size_t len = 0;
			Fix f;
			fx_init(&f, ctx_capture(&c, &log, &len), arches[a], three);
			void *ir = NULL;
			size_t n = 0;
			CHECK_EQ_INT(link_glue_ltoir(&c, &f.p, &ir, &n), 0);
			CHECK(n > 0);
			free(ir);
			ir = NULL;
			CHECK_EQ_INT(trampoline_ltoir(&c, &f.p, &ir, &n), 0);
			CHECK(n > 0);
			free(ir);
			CHECK_EQ_INT(c.nerrors, 0);
			fflush(c.err);
			if (c.nerrors)
				fprintf(stderr, "%s\n", log);
			ctx_release(&c, &log);
		}
}

static int has(const char *log, const char *s) { return log && strstr(log, s) != NULL; }

static void test_checks(void)
{
	Ctx c;
	char *log = NULL;
	size_t len = 0;
	Fix f;
	fx_init(&f, ctx_capture(&c, &log, &len), "sm_90a", 0);
	const char *good = ".visible .entry link_two(\n\t.param .u64 link_two_param_0\n)\n"
	                   ".maxntid 384, 1, 1\n.minnctapersm 1\n{\n\tret;\n}\n";
	CHECK_EQ_INT(link_check_ptx(&c, &f.p, good), 0);
	const char *empty = "//\n.version 8.8\n.target sm_90a\n.address_size 64\n";
	CHECK(link_check_ptx(&c, &f.p, empty) != 0);
	const char *call = ".visible .entry link_two(\n)\n.maxntid 384, 1, 1\n.minnctapersm 1\n{\n"
	                   "\tcall.uni (retval0),\n\tplk_ring_slot,\n\t(param0, param1, param2);\n}\n";
	CHECK(link_check_ptx(&c, &f.p, call) != 0);
	const char *nobounds = ".visible .entry link_two(\n)\n{\n\tret;\n}\n";
	CHECK(link_check_ptx(&c, &f.p, nobounds) != 0);
	CHECK(link_check_log(&c, &f.p, "ptxas info    : (C7508) Potential Performance Loss: "
	                                 "'setmaxnreg' ignored; unable to determine register count at entry\n") != 0);
	CHECK_EQ_INT(link_check_log(&c, &f.p, "ptxas info    : Used 168 registers\n"), 0);
	/* one log for the kernels of a select: a C7515 about another kernel
	 * is not this one's; about this one it is a warning */
	CHECK_EQ_INT(link_check_log(&c, &f.p, "ptxas info    : (C7515) Potential Performance Loss: wgmma.mma_async "
	                                       "instructions are serialized ... in the function 'other_kernel'\n"), 0);
	CHECK_EQ_INT(c.nwarnings, 0);
	CHECK_EQ_INT(link_check_log(&c, &f.p, "ptxas info    : (C7515) x in the function 'other_kernel'\n"
	                                       "ptxas info    : (C7515) y in the function 'link_two'\n"), 0);
	CHECK_EQ_INT(c.nwarnings, 1);
	fflush(c.err);
	CHECK(has(log, "E0505"));
	CHECK(has(log, "E0506"));
	CHECK(has(log, "`plk_ring_slot`"));
	CHECK(has(log, "E0509"));
	CHECK(has(log, "E0507"));
	CHECK(has(log, "ptxas: (C7515) y in the function 'link_two'"));
	CHECK(!has(log, "(C7515) x"));
	CHECK_EQ_INT(c.nerrors, 4);
	/* E0504: ptxas's cvta mismatch in a link with an engine names
	 * NVSHMEM's IBGDA code (rdma-core's headers); without one, nothing */
	const char *cvta = "ptxas application ptx input, line 3121; error   : Arguments mismatch for instruction 'cvta'\n";
	link_jit_error(&c, &f.p, 4, "link", cvta, 0);
	fflush(c.err);
	CHECK(has(log, "E0504") && !has(log, "mlx5dv.h"));
	link_jit_error(&c, &f.p, 4, "link", cvta, 1);
	fflush(c.err);
	CHECK(has(log, "infiniband/mlx5dv.h") && has(log, "without rdma-core's development headers"));
	CHECK_EQ_INT(c.nerrors, 6);
	ctx_release(&c, &log);
}

static const char *objdir;

static const char *obj(Ctx *c, const GInst *in, void *ud)
{
	return arena_printf(c->arena, "%s/%s.o", objdir, in->comp->name);
}

static void test_link_all(void)
{
	for (int a = 0; a < 3; a++)
		for (int three = 0; three < 2; three++) {
			Ctx c;
			char *log = NULL;
			size_t len = 0;
			Fix f;
			fx_init(&f, ctx_capture(&c, &log, &len), arches[a], three);
			LinkResult r;
			int rc = link_kernel_with(&c, &f.p, 1, obj, NULL, &r);
			fflush(c.err);
			CHECK_EQ_INT(rc, 0);
			if (rc) {
				fprintf(stderr, "%s %s:\n%s\n", arches[a], f.k.name, log);
				ctx_release(&c, &log);
				continue;
			}
			const char *ptx = r.ptx;
			CHECK(r.cubin_size > 0);
			CHECK(has(ptx, three ? ".entry link_three(" : ".entry link_two("));
			/* Nothing of the ABI survives: no call at all, no ABI name. */
			CHECK(!has(ptx, "\tcall"));
			CHECK(!has(ptx, "plk_smem") && !has(ptx, "plk_ring_") && !has(ptx, "plk_role_"));
			CHECK(!has(ptx, "plk_glue_") && !has(ptx, "plk_main"));
			CHECK(has(ptx, ".maxntid 384"));
			CHECK(has(ptx, ".minnctapersm 1"));
			CHECK(has(ptx, ".extern .shared .align 1024 .b8 pipelink_smem[]"));
			/* 4 stages x (full + empty) initialised; counts are immediates */
			CHECK_EQ_INT(unit_count(ptx, "mbarrier.init.shared.b64"), 8);
			CHECK(!has(r.info_log, "C7508"));
			if (three)   /* plk_smem(store, stage) folded into the address */
				CHECK(has(ptx, "+17408]"));
			if (a > 0) {   /* the 40/232 split, honoured */
				CHECK(has(ptx, "setmaxnreg.dec.sync.aligned.u32 40;"));
				CHECK(has(ptx, "setmaxnreg.inc.sync.aligned.u32 232;"));
				CHECK(has(ptx, "fence.mbarrier_init.release.cluster;"));
			} else {
				CHECK(!has(ptx, "setmaxnreg"));
				CHECK(!has(ptx, "fence.mbarrier_init"));
			}
			const char *keep = getenv("PLK_TEST_OUT");   /* cubins for a GPU run */
			if (keep) {
				FILE *o = fopen(arena_printf(c.arena, "%s/%s_%s.cubin", keep, arches[a], f.k.name), "wb");
				CHECK(o && fwrite(r.cubin, 1, r.cubin_size, o) == r.cubin_size);
				if (o)
					fclose(o);
			}
			if (getenv("PLK_TEST_VERBOSE"))
				fprintf(stderr, "== %s %s: cubin %zu bytes\n%s\n", arches[a], f.k.name, r.cubin_size,
				        r.info_log ? r.info_log : "");
			link_result_free(&r);
			ctx_release(&c, &log);
		}
}

static void test_fatbin(void)
{
	Ctx c;
	char *log = NULL;
	size_t len = 0;
	ctx_capture(&c, &log, &len);
	LinkResult rs[3];
	const ArchInfo *as[3];
	int ok = 1;
	for (int a = 0; a < 3; a++) {
		Fix f;
		fx_init(&f, &c, arches[a], 0);
		as[a] = f.p.arch;
		ok &= link_kernel_with(&c, &f.p, 0, obj, NULL, &rs[a]) == 0;
	}
	CHECK(ok);
	void *fb = NULL;
	size_t n = 0;
	if (ok) {
		CHECK_EQ_INT(link_fatbin(&c, as, rs, 3, &fb, &n), 0);
		CHECK(n > rs[0].cubin_size);
		CHECK(fb && *(uint32_t *)fb == 0xBA55ED50u);   /* fatbin magic */
	}
	free(fb);
	for (int a = 0; ok && a < 3; a++)
		link_result_free(&rs[a]);
	fflush(c.err);
	if (c.nerrors)
		fprintf(stderr, "%s\n", log);
	ctx_release(&c, &log);
}

int main(int argc, char **argv)
{
	test_front();
	test_checks();
	if (argc > 1) {
		objdir = argv[1];
		test_link_all();
		test_fatbin();
	}
	UNIT_END();
}
