/* test_glue: ABI tables, the glue IR, the entry's source, the monolith and
 * the manifest of the hand-built compositions in tests/link/fixture.h. */
#include <stdlib.h>
#include "unit.h"
#include "../link/fixture.h"
#include "../../compiler/glue.h"

typedef struct Out { char *buf; size_t len; FILE *f; } Out;
static FILE *out_open(Out *o) { return o->f = open_memstream(&o->buf, &o->len); }
static const char *out_text(Out *o) { fflush(o->f); return o->buf; }
static void out_close(Out *o) { fclose(o->f); free(o->buf); }

static int has(const char *s, const char *sub) { return s && strstr(s, sub) != NULL; }

static const AbiCase *find(const AbiFn *fns, const char *name, int k0, int k1, int k2)
{
	for (int i = 0; i < ABI_NFNS; i++) {
		if (strcmp(fns[i].name, name))
			continue;
		for (int j = 0; j < fns[i].ncases; j++) {
			const AbiCase *cs = &fns[i].cases[j];
			if (cs->key[0] == k0 && cs->key[1] == k1 && cs->key[2] == k2)
				return cs;
		}
	}
	return NULL;
}

static void test_tables(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f;
	fx_init(&f, &c, "sm_90a", 1);
	AbiFn fns[ABI_NFNS];
	abi_sigs(fns);
	abi_tables(&c, &f.p, fns);
	/* the rows of stdlib/abi.def as the glue and the monolith read them:
	 * the keys first, at most one param after them (the x of base + x *
	 * step), and a pointer is one into shared memory */
	for (int i = 0; i < ABI_NFNS; i++) {
		const AbiFn *fn = &fns[i];
		CHECK(fn->nkeys >= 1 && fn->nkeys <= fn->nargs && fn->nargs <= fn->nkeys + 1 && fn->nargs <= 3);
		CHECK((fn->ret == ABI_SMEM) == (fn->cret[strlen(fn->cret) - 1] == '*'));
	}
	CHECK(!strcmp(fns[2].name, "plk_ring_slot") && !strcmp(fns[2].cret, "void *") &&
	      fns[2].nargs == 3 && fns[2].nkeys == 2 && fns[2].ret == ABI_SMEM);
	CHECK(!strcmp(fns[3].name, "plk_ring_field") && !strcmp(fns[3].cret, "unsigned") &&
	      fns[3].nargs == 3 && fns[3].nkeys == 3 && fns[3].ret == ABI_INT);
	const AbiCase *cs;
	/* both ends of the ring see the same slots and barriers */
	for (int in = 0; in < 2; in++) {
		CHECK((cs = find(fns, "plk_ring_slot", in, 0, 0)) && cs->base == 0 && cs->step == 4096);
		CHECK((cs = find(fns, "plk_ring_full", in, 0, 0)) && cs->base == 16384 && cs->step == 8);
		CHECK((cs = find(fns, "plk_ring_empty", in, 0, 0)) && cs->base == 16416 && cs->step == 8);
		CHECK((cs = find(fns, "plk_ring_stages", in, 0, 0)) && cs->base == 4);
		CHECK((cs = find(fns, "plk_ring_field", in, 0, 0)) && cs->base == 0);
	}
	CHECK(!find(fns, "plk_ring_slot", 1, 1, 0));   /* acc is a frag, not a ring */
	CHECK((cs = find(fns, "plk_smem", 2, 0, 0)) && cs->base == 17408);
	CHECK((cs = find(fns, "plk_named_barrier", 2, 0, 0)) && cs->base == 1);
	CHECK((cs = find(fns, "plk_barrier_threads", 2, 0, 0)) && cs->base == 256);
	CHECK((cs = find(fns, "plk_role_first_warp", 0, 0, 0)) && cs->base == 0);
	CHECK((cs = find(fns, "plk_role_first_warp", 2, 0, 0)) && cs->base == 4);
	CHECK((cs = find(fns, "plk_role_warps", 1, 0, 0)) && cs->base == 8);
	CHECK((cs = find(fns, "plk_role_warps", 0, 0, 0)) && cs->base == 1);

	int regs[3], cap;
	for (int from_roles = 0; from_roles < 2; from_roles++) {
		if (from_roles)
			f.p.nwarpgroups = 0;
		CHECK_EQ_INT(abi_wg_regs(&c, &f.p, regs, &cap), 0);
		CHECK_EQ_INT(cap, 168);   /* 65536 / 384, down to a multiple of 8 */
		CHECK_EQ_INT(regs[0], 40);
		CHECK_EQ_INT(regs[1], 232);
		CHECK_EQ_INT(regs[2], 232);
	}
	/* dispatch: fill's warpgroup alone, then the consumers' two as one run */
	const PRole *r0 = f.p.roles.v[0], *r1 = f.p.roles.v[1];
	CHECK_EQ_INT(abi_wg_run(&f.p, regs, cap, 0), 1);
	CHECK_EQ_INT(abi_wg_run(&f.p, regs, cap, 1), 3);
	CHECK_EQ_INT(abi_wg_run(&f.p, regs, 0, 0), 3);   /* no budgets: one branch */
	CHECK(abi_role_in(r0, 0, 1) && !abi_role_in(r0, 1, 3));
	CHECK(abi_role_in(r1, 1, 3) && abi_role_in(r1, 2, 3) && !abi_role_in(r1, 0, 1));
	/* clusters of tile rows: log2 of the rows a cluster takes */
	CHECK(!abi_clustered(&f.p) && !abi_rows_log2(&f.p));
	f.g.cluster[0] = 2, f.g.cluster[1] = 1;
	CHECK(abi_clustered(&f.p) && abi_rows_log2(&f.p) == 1 && !abi_quad(&f.p));
	f.g.cluster[0] = 4, f.g.cluster[1] = 1;
	CHECK(abi_clustered(&f.p) && abi_rows_log2(&f.p) == 2 && !abi_quad(&f.p));
	f.g.cluster[0] = 2, f.g.cluster[1] = 2;
	CHECK(abi_clustered(&f.p) && abi_rows_log2(&f.p) == 1 && abi_quad(&f.p));
	f.g.cluster[0] = 1, f.g.cluster[1] = 2;
	CHECK(abi_clustered(&f.p) && !abi_rows_log2(&f.p));
	f.g.cluster[0] = 8, f.g.cluster[1] = 1;   /* no arrangement: a tile each */
	CHECK(abi_clustered(&f.p) && !abi_rows_log2(&f.p));
	ctx_fini(&c);

	ctx_init(&c, stderr);
	fx_init(&f, &c, "sm_80", 1);
	CHECK_EQ_INT(abi_wg_regs(&c, &f.p, regs, &cap), 0);
	CHECK_EQ_INT(cap, 0);     /* no setmaxnreg before sm_90a */
	ctx_fini(&c);
}

static void test_mixed_budgets(void)
{
	Ctx c;
	Out e;
	ctx_init(&c, out_open(&e));
	Fix f;
	fx_init(&f, &c, "sm_90a", 0);
	((PRole *)f.p.roles.v[0])->nwarps = 5;   /* spills into warpgroup 1 */
	f.p.nwarpgroups = 0;                     /* derive budgets from the roles */
	int regs[3], cap;
	CHECK(abi_wg_regs(&c, &f.p, regs, &cap) != 0);
	CHECK(has(out_text(&e), "error[E0510]"));
	ctx_fini(&c);
	out_close(&e);
}

static void test_ir(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f;
	Out o;
	fx_init(&f, &c, "sm_90a", 1);
	CHECK_EQ_INT(glue_emit_ll(&c, &f.p, out_open(&o)), 0);
	const char *ll = out_text(&o);
	CHECK(has(ll, "target triple = \"nvptx64-nvidia-cuda\""));
	CHECK(has(ll, "target datalayout = \"e-p3:32:32-p4:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64\""));
	CHECK(has(ll, "!nvvmir.version = !{!0}"));
	CHECK(has(ll, "!0 = !{i32 2, i32 0}"));
	CHECK(has(ll, "@pipelink_smem = external addrspace(3) global [0 x i8], align 1024"));
	CHECK(has(ll, "define i8* @plk_smem(i32 %0, i32 %1)"));
	CHECK(has(ll, "define i32 @plk_role_warps(i32 %0)"));
	CHECK(has(ll, "define void @plk_main(i8* %y, i32 %M, i32 %N, i32 %K)"));
	CHECK(has(ll, "alwaysinline"));
	CHECK(has(ll, "call void @llvm.nvvm.barrier0()"));
	CHECK(has(ll, "@plk_glue_mbar_init(i32 ptrtoint"));
	CHECK(has(ll, "call void @plk_glue_fence_mbar_init()"));
	CHECK(has(ll, "call void @plk_glue_setmaxnreg_dec_40()"));
	CHECK(has(ll, "call void @plk_glue_setmaxnreg_inc_232()"));
	CHECK(has(ll, "call void @link_fill(i32 0, i32 %K, { i32, i32 }* %pipe"));
	CHECK(has(ll, "call void @link_store(i32 2, i8* %y, i32 %N, float* "));
	CHECK(has(ll, "alloca [4 x float], align 16"));
	/* nothing libNVVM's LLVM 7.0.1 reader rejects */
	CHECK(!has(ll, "willreturn") && !has(ll, "nofree") && !has(ll, "nosync"));
	CHECK(!has(ll, "call void asm") && !has(ll, "byval") && !has(ll, "elementtype"));
	out_close(&o);
	ctx_fini(&c);

	ctx_init(&c, stderr);
	fx_init(&f, &c, "sm_80", 0);
	CHECK_EQ_INT(glue_emit_ll(&c, &f.p, out_open(&o)), 0);
	ll = out_text(&o);
	CHECK(has(ll, "@plk_glue_mbar_init"));
	CHECK(!has(ll, "setmaxnreg") && !has(ll, "fence"));
	CHECK(has(ll, "call void @link_sum(i32 1, i8* %y, i32 %N, i32 %K, { i32, i32 }* %pipe"));
	void *bc;
	size_t n;
	CHECK_EQ_INT(glue_bitcode(&c, &f.p, &bc, &n), 0);
	CHECK(n > 4 && !memcmp(bc, "BC\xc0\xde", 4));
	free(bc);
	out_close(&o);
	ctx_fini(&c);
}

/* ceil_div in the glue rounds toward +inf as eval.c does, whatever the
 * signs: (a + b - 1) / b only where both are sizes (graph_nonneg), else
 * the general form (the builder folds constants, so each is a number). */
static void test_expr_ir(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f;
	fx_init(&f, &c, "sm_90a", 1);
	G g = { .c = &c, .p = &f.p };
	g.cx = LLVMContextCreate();
	g.m = LLVMModuleCreateWithNameInContext("t", g.cx);
	g.b = LLVMCreateBuilderInContext(g.cx);
	g.i32 = LLVMInt32TypeInContext(g.cx);
	LLVMValueRef fn = LLVMAddFunction(g.m, "t", LLVMFunctionType(LLVMVoidTypeInContext(g.cx), NULL, 0, 0));
	LLVMPositionBuilderAtEnd(g.b, LLVMAppendBasicBlockInContext(g.cx, fn, "entry"));
	static const int64_t cases[][3] = { { 1000, 64, 16 }, { 1024, 128, 8 }, { 0, 64, 0 }, { -1, 64, 0 },
	                                    { -64, 64, -1 }, { -90, 64, -1 }, { -128, 64, -2 }, { 9, -2, -4 },
	                                    { -9, -2, 5 }, { -8, -2, 4 } };
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		Expr a = { .k = EX_NUM, .num = cases[i][0] }, b = { .k = EX_NUM, .num = cases[i][1] };
		Expr call = { .k = EX_CALL, .name = "ceil_div", .fn = builtin_of("ceil_div") };
		void *args[2] = { &a, &b };
		call.args = (Vec){ .v = args, .n = 2, .cap = 2 };
		LLVMValueRef v = glue_expr_ir(&g, &call);
		CHECK(LLVMIsAConstantInt(v) != NULL);
		if (LLVMIsAConstantInt(v))
			CHECK_EQ_INT(LLVMConstIntGetSExtValue(v), cases[i][2]);
	}
	/* an i64 param's expression in long long: 3000000000 * 2 whole, where
	 * in int it would be past 32 bits */
	g.i64 = LLVMInt64TypeInContext(g.cx);
	Expr big = { .k = EX_NUM, .num = 3000000000LL }, two = { .k = EX_NUM, .num = 2 };
	Expr mul = { .k = EX_BIN, .op = '*', .a = &big, .b = &two };
	LLVMValueRef w = glue_expr_ir_t(&g, &mul, g.i64);
	CHECK(LLVMTypeOf(w) == g.i64);
	CHECK(LLVMIsAConstantInt(w) != NULL);
	if (LLVMIsAConstantInt(w))
		CHECK_EQ_INT(LLVMConstIntGetSExtValue(w), 6000000000LL);
	CHECK_EQ_INT(g.err, 0);
	LLVMDisposeBuilder(g.b);
	LLVMDisposeModule(g.m);
	LLVMContextDispose(g.cx);
	ctx_fini(&c);
}

static void test_trampoline(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f;
	fx_init(&f, &c, "sm_90a", 0);
	const char *s = trampoline_source(&c, &f.p);
	CHECK(has(s, "extern \"C\" __global__ void __launch_bounds__(384, 1)\nlink_two(void *p0, int p1, int p2, int p3)"));
	CHECK(has(s, "plk_main(p0, p1, p2, p3);"));
	CHECK(has(s, "setmaxnreg.inc.sync.aligned.u32 232;"));
	CHECK(has(s, "fence.mbarrier_init.release.cluster;"));
	/* a tensor map stays a __grid_constant__ in param space; plk_main gets its address */
	((GKParam *)f.g.kparams.v[0])->kind = KP_TENSORMAP;
	f.g.cluster[0] = 2, f.g.cluster[1] = 1;
	s = trampoline_source(&c, &f.p);
	CHECK(has(s, "struct alignas(64) plk_tmap { unsigned long long opaque[16]; }"));
	CHECK(has(s, "(const __grid_constant__ plk_tmap p0, int p1"));
	CHECK(has(s, "plk_main(&p0, p1"));
	CHECK(has(s, "extern \"C\" __device__ void plk_main(const void *, int "));
	CHECK(has(s, "__cluster_dims__(2, 1, 1)"));
	ctx_fini(&c);

	ctx_init(&c, stderr);
	fx_init(&f, &c, "sm_80", 0);
	s = trampoline_source(&c, &f.p);
	CHECK(!has(s, "setmaxnreg") && !has(s, "fence.mbarrier_init"));
	ctx_fini(&c);
}

/* abi_groups: cases grouped by their leading keys, sorted by the last;
 * affine where the last keys are contiguous and the values step evenly
 * (a barrier a warpgroup), so that the glue computes them, no branch;
 * selects where such a group has at most ABI_SELECT_MAX (4) cases. */
static void test_abi_group(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	AbiCase cases[] = {
		{ { 3, 2 }, 20, 0 }, { { 2, 1 }, 2, 0 }, { { 3, 0 }, 10, 0 },   /* inst 3: ids 0 and 2, not contiguous */
		{ { 2, 0 }, 1, 0 }, { { 2, 2 }, 3, 0 },                        /* inst 2: ids 0..2 -> 1..3 */
		{ { 4, 5 }, 64, 8 }, { { 4, 6 }, 96, 8 },                      /* inst 4: 64 + 32 (k - 5), step 8 */
		{ { 5, 0 }, 7, 0 }, { { 5, 1 }, 9, 0 }, { { 5, 2 }, 11, 0 },   /* inst 5: 7 + 2 k, five ids */
		{ { 5, 3 }, 13, 0 }, { { 5, 4 }, 15, 0 },
	};
	AbiFn f = { "plk_named_barrier", "int", 2, 2, ABI_INT, cases, 12 };
	AbiGroups g;
	abi_groups(&c, &f, &g);
	CHECK(abi_group_next(&g) && !g.affine && !g.selects && g.lead == 3);   /* inst 3 */
	CHECK_EQ_INT(g.n, 2);
	CHECK(g.idx[0] == 2 && g.idx[1] == 0);
	CHECK(abi_group_next(&g) && g.affine && g.selects && g.lead == 2);    /* inst 2 */
	CHECK(g.n == 3 && g.idx[0] == 3 && g.idx[1] == 1 && g.idx[2] == 4 && g.d == 1);
	CHECK(abi_group_next(&g) && g.affine && g.selects && g.lead == 4);    /* inst 4 */
	CHECK(g.n == 2 && g.d == 32);
	CHECK(abi_group_next(&g) && g.affine && !g.selects && g.lead == 5);   /* inst 5: computed */
	CHECK(g.n == 5 && g.d == 2);
	CHECK(!abi_group_next(&g));   /* every case taken */
	for (int i = 0; i < 12; i++)
		CHECK(g.taken[i]);
	cases[6].step = 16;   /* steps that differ: no longer affine */
	abi_groups(&c, &f, &g);
	CHECK(abi_group_next(&g) && abi_group_next(&g) && abi_group_next(&g) && g.lead == 4);
	CHECK_EQ_INT(g.affine, 0);
	CHECK_EQ_INT(g.selects, 0);
	ctx_fini(&c);
}

static void test_monolith(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f;
	Out o;
	fx_init(&f, &c, "sm_90a", 1);
	CHECK_EQ_INT(monolith_write(&c, &f.p, out_open(&o)), 0);
	const char *s = out_text(&o);
	if (getenv("PLK_TEST_VERBOSE")) fputs(s, stderr);
	CHECK(has(s, "#include \"plk.cuh\""));
	CHECK(has(s, "extern \"C\" __device__ __forceinline__ void *plk_smem(int a0, int a1)"));
	/* a switch over the instance, the buffer's id selected: inst 2, buffer 0 */
	CHECK(has(s, "case 2: return a1 == 0 ? pipelink_smem + 17408 : 0;"));
	CHECK(has(s, "case 0: return a1 == 0 ? pipelink_smem + 0 + a2 * 4096 : 0;"));
	CHECK(has(s, "tests/link/fill.cu\""));
	CHECK(has(s, "plk_mbar_init(pipelink_smem + 16384 + 8 * s, 32);"));
	CHECK(has(s, "plk_mbar_init(pipelink_smem + 16416 + 8 * s, 256);"));
	CHECK(has(s, "setmaxnreg.inc.sync.aligned.u32 232;"));
	CHECK(has(s, "setmaxnreg.dec.sync.aligned.u32 40;"));
	CHECK(has(s, "link_sum_acc(1, p3, &pipe_1_0, frag0, tm, tn);"));
	CHECK(has(s, "link_store(2, (float *)p0, p2, frag0, tm, tn);"));
	CHECK(has(s, "plk_raster_grouped(tile, tiles_m, tiles_n, 8, &tm, &tn);"));
	CHECK(has(s, "float frag0[4];"));
	out_close(&o);
	ctx_fini(&c);
}

static void test_manifest(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f, f80;
	Out o;
	fx_init(&f, &c, "sm_90a", 1);
	CHECK_EQ_INT(manifest_write(&c, &f.p, out_open(&o)), 0);
	const char *s = out_text(&o);
	CHECK(has(s, "\"plk_manifest\": 1,"));
	CHECK(has(s, "\"kernel\": \"link_three\","));
	CHECK(has(s, "\"arch\": [\"sm_90a\"],"));
	CHECK(has(s, "\"block\": [384, 1, 1],"));
	CHECK(has(s, "\"dynamic_smem\": 21504,"));
	CHECK(has(s, "\"grid\": { \"policy\": \"persistent\", \"tiles\": [[\"ceil_div(M, 32)\", 1], "
	             "[\"ceil_div(N, 32)\", 1]], \"raster\": \"grouped\", \"group\": 8 }"));
	CHECK(has(s, "{ \"name\": \"Y\", \"dtype\": \"f32\", \"elem_bytes\": 4, \"dims\": [\"M\", \"N\"] }"));
	CHECK(has(s, "{ \"name\": \"y\", \"kind\": \"ptr\", \"tensor\": \"Y\", \"dtype\": \"f32\" }"));
	CHECK(has(s, "{ \"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\" }"));
	CHECK(has(s, "\"placement\": {"));
	CHECK(has(s, "\"from\": \"load.t\", \"to\": \"acc.t\", \"stages\": 4"));
	CHECK(has(s, "\"sync\"") && has(s, "\"threads\": 256"));   /* place.c's layout of it */
	CHECK(!has(s, "variants"));
	out_close(&o);

	fx_init(&f80, &c, "sm_80", 1);
	const Placement *ps[2] = { &f.p, &f80.p };
	CHECK_EQ_INT(manifest_write_multi(&c, ps, 2, "k.fatbin", out_open(&o)), 0);
	s = out_text(&o);
	CHECK(has(s, "\"arch\": [\"sm_90a\", \"sm_80\"],"));
	CHECK(has(s, "\"binary\": \"k.fatbin\","));
	CHECK(has(s, "\"variants\": ["));
	CHECK(has(s, "{ \"arch\": \"sm_80\", \"block\": [384, 1, 1], \"dynamic_smem\": 21504, \"placement\": {"));
	if (getenv("PLK_TEST_VERBOSE"))
		fputs(s, stderr);
	out_close(&o);
	ctx_fini(&c);
}

/* test_glue ARCH two|three monolith|manifest: print that output of the
 * fixture (tests/scripts/link_compositions.sh builds and parses them). */
static int emit(char **argv)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f;
	fx_init(&f, &c, argv[1], !strcmp(argv[2], "three"));
	int rc = !strcmp(argv[3], "monolith") ? monolith_write(&c, &f.p, stdout) : manifest_write(&c, &f.p, stdout);
	ctx_fini(&c);
	return rc != 0;
}

/* grid dynamic: every role reads its work items through plk_glue_item,
 * the first role's first thread fetching them; the slots' mbarriers take
 * one arrival (full) and every role's threads (empty: 32 + 256). */
static void test_dynamic(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f;
	Out o;
	fx_init(&f, &c, "sm_90a", 0);
	fx_kparam(&f, "plk_workspace", KP_WORKSPACE);
	f.g.dynamic = 1, f.g.ws_kparam = 4;
	f.p.items_bar = 16448;
	CHECK_EQ_INT(glue_emit_ll(&c, &f.p, out_open(&o)), 0);
	const char *ll = out_text(&o);
	CHECK(has(ll, "define void @plk_main(i8* %y, i32 %M, i32 %N, i32 %K, i8* %plk_workspace)"));
	CHECK(has(ll, "@pipelink_smem, i32 0, i32 16480) to i32), i32 1)"));     /* full of slot 0 */
	CHECK(has(ll, "@pipelink_smem, i32 0, i32 16512) to i32), i32 288)"));   /* empty of slot 0 */
	CHECK(has(ll, "%producer = zext i1"));
	CHECK(has(ll, "i32 %item.k, i32 %producer, i8* %plk_workspace, i32 %ntiles)"));
	CHECK(has(ll, "i32 0, i8* %plk_workspace, i32 %ntiles)"));   /* the second role's: the one count */
	out_close(&o);
	const char *s = trampoline_source(&c, &f.p);
	CHECK(has(s, "int plk_glue_item(unsigned ring, int k, int producer, void *ws, int nitems)"));
	CHECK(has(s, "t = k == 0 ? (int)blockIdx.x : atomicAdd(ctr, 1) + (int)gridDim.x;"));
	CHECK(has(s, "if (atomicAdd(ctr + 1, 1) == (int)gridDim.x - 1) {"));
	CHECK_EQ_INT(monolith_write(&c, &f.p, out_open(&o)), 0);
	s = out_text(&o);
	CHECK(has(s, "plk_mbar_init(pipelink_smem + 16480 + 8 * s, 1);"));
	CHECK(has(s, "plk_mbar_init(pipelink_smem + 16512 + 8 * s, 288);"));
	CHECK(has(s, "t = plk_glue_item((unsigned)__cvta_generic_to_shared(pipelink_smem) + 16448u, k, threadIdx.x == 0, p4, nitems);"));
	CHECK(has(s, "t = plk_glue_item((unsigned)__cvta_generic_to_shared(pipelink_smem) + 16448u, k, 0, p4, nitems);"));
	out_close(&o);
	ctx_fini(&c);
}

/* A `prologue` entry with a ring port: its call is built in the tile
 * loop's preheader before that block has its branch, where its pipe is
 * zeroed (plkc crashed here before 85fff1e). */
static void test_prologue_ring(void)
{
	Ctx c;
	ctx_init(&c, stderr);
	Fix f;
	Out o;
	fx_init(&f, &c, "sm_90a", 0);
	GInst *sum = ((const GRole *)((const PRole *)f.p.roles.v[1])->role)->insts.v[0];
	((Component *)sum->comp)->prologue = 1;
	CHECK_EQ_INT(glue_emit_ll(&c, &f.p, out_open(&o)), 0);
	const char *ll = out_text(&o);
	CHECK(has(ll, "call void @link_sum(i32 1, i8* %y, i32 %N, i32 %K, { i32, i32 }* %pipe"));
	CHECK(has(ll, "i32 -2, i32 -2)"));
	out_close(&o);
	ctx_fini(&c);
}

int main(int argc, char **argv)
{
	if (argc == 4)
		return emit(argv);
	test_tables();
	test_mixed_budgets();
	test_ir();
	test_expr_ir();
	test_trampoline();
	test_abi_group();
	test_monolith();
	test_manifest();
	test_dynamic();
	test_prologue_ring();
	UNIT_END();
}
