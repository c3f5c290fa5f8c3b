/* test_check.c: the composition graph check_kernel builds, on recipes
 * parsed from text (no files, no resolve). The diagnostics themselves are
 * covered by the golden suite tests/check/. */
#include <stdlib.h>
#include "unit.h"

static const char *comps =
	"component load(BM = 128, BN = 256, BK = 64) {\n"
	"  source \"l.cu\"; entry l\n"
	"  arch >= sm_90 needs tma\n"
	"  warps 1; regs 40\n"
	"  param a: tensormap<bf16, 2>[BK, BM]\n"
	"  param b: tensormap<bf16, 2>[BK, BN]\n"
	"  param K: i32\n"
	"  out ab: { a: tile<bf16, BM x BK, sw128>, b: tile<bf16, BN x BK, sw128> }\n"
	"}\n"
	"component mma(BM, BN, BK) {\n"
	"  source \"m.cu\"; entry m\n"
	"  arch >= sm_90 needs wgmma, setmaxnreg\n"
	"  warpgroups 2; regs 232\n"
	"  param K: i32\n"
	"  in ab: { a: tile<bf16, BM x BK, sw128>, b: tile<bf16, BN x BK, sw128> }\n"
	"  out acc: frag<f32, BM x BN, wgmma_acc>\n"
	"}\n"
	"component store(BM, BN) {\n"
	"  source \"s.cu\"; entry s\n"
	"  arch >= sm_80\n"
	"  param c: ptr<bf16>\n"
	"  in acc: frag<f32, BM x BN, wgmma_acc>\n"
	"  smem staging: BM * BN * 2 bytes, align 1024, live epilogue\n"
	"  barrier sync\n"
	"}\n";

static char *errbuf;
static size_t errlen;

/* Parse comps + kernel text and check its one kernel for arch. */
static Graph *run(Ctx *c, const char *kernel, const char *arch)
{
	const char *text = arena_printf(c->arena, "%s%s", comps, kernel);
	int src = ctx_add_source(c, "t.plk", text, strlen(text));
	Module *m = parse_source(c, src);
	if (!m || c->nerrors || m->kernels.n != 1)
		return NULL;
	Program *p = arena_alloc(c->arena, sizeof *p);
	vec_push(c->arena, &p->modules, m);
	p->comps = m->comps;
	p->kernels = m->kernels;
	return check_kernel(c, p, m->kernels.v[0], arch_lookup(arch));
}

static Ctx *fresh(Ctx *c)
{
	ctx_init(c, open_memstream(&errbuf, &errlen));
	return c;
}

static void done(Ctx *c)
{
	fclose(c->err);
	ctx_fini(c);
	free(errbuf);
	errbuf = NULL;
}

static const char *gemm =
	"kernel gemm(A: tensor<bf16>[M, K], B: tensor<bf16>[N, K], C: tensor<bf16>[M, N]) {\n"
	"  const BM = 128, BN = 256, BK = 64\n"
	"  grid persistent, tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8)\n"
	"  ld = load(a = A, b = B)\n"
	"  mm = mma()\n"
	"  st = store(c = C)\n"
	"  mm.acc -> st.acc\n"
	"  ld.ab -> mm.ab [stages = 3]\n"
	"}\n";

static void test_gemm(void)
{
	Ctx c;
	Graph *g = run(fresh(&c), gemm, "sm_90a");
	CHECK(g && !g->hooks.n && !g->order && !abi_has_hooks(g) && !abi_fn_defined(g, F_HOOK_BOUND));
	CHECK(g != NULL);
	if (!g) {
		fflush(c.err);
		fprintf(stderr, "%.*s", (int)errlen, errbuf);
		done(&c);
		return;
	}
	CHECK_EQ_INT(c.nerrors, 0);
	CHECK_EQ_INT(g->persistent, 1);
	CHECK(g->raster == RASTER_GROUPED);
	CHECK_EQ_INT(g->raster_group, 8);
	CHECK(g->tiles[0] && g->tiles[1]);

	/* instances in dataflow order, whatever the order of the connections */
	CHECK_EQ_INT(g->insts.n, 3);
	GInst *ld = g->insts.v[0], *mm = g->insts.v[1], *st = g->insts.v[2];
	CHECK_STR(ld->name, "ld");
	CHECK_STR(mm->name, "mm");
	CHECK_STR(st->name, "st");
	CHECK_EQ_INT(ld->nwarps, 1);
	CHECK_EQ_INT(mm->nwarps, 8);         /* warpgroups 2 */
	CHECK_EQ_INT(st->nwarps, 0);
	CHECK_EQ_INT(mm->regs, 232);
	CHECK_EQ_INT(mm->cvals[1], 256);     /* BN from the kernel's const */
	CHECK(mm->features == (FEAT_WGMMA | FEAT_SETMAXNREG));

	/* roles: a component without warps joins its frag producer's role */
	CHECK_EQ_INT(g->roles.n, 2);
	GRole *r0 = g->roles.v[0], *r1 = g->roles.v[1];
	CHECK_EQ_INT(r0->nwarps, 1);
	CHECK_EQ_INT(r0->regs, 40);
	CHECK_EQ_INT(r1->nwarps, 8);
	CHECK_EQ_INT(r1->insts.n, 2);
	CHECK(r1->insts.v[1] == st);
	CHECK_EQ_INT(st->role, 1);
	CHECK(r1->warpgroup_aligned);

	/* ports and edges */
	GPort *ab = ld->ports.v[0];
	CHECK_EQ_INT(ab->k, TY_BUNDLE);
	CHECK_EQ_INT(ab->fields.n, 2);
	CHECK_EQ_INT(((GField *)ab->fields.v[0])->bytes, 128 * 64 * 2);
	CHECK_EQ_INT(((GField *)ab->fields.v[1])->off, 16384);
	CHECK_EQ_INT(((GField *)ab->fields.v[1])->align, 1024);
	CHECK_EQ_INT(ab->bytes, 49152);
	CHECK_EQ_INT(g->edges.n, 2);
	GEdge *e0 = g->edges.v[0], *e1 = g->edges.v[1];   /* in connection order */
	CHECK_EQ_INT(e0->kind, EDGE_REGS);
	CHECK_EQ_INT(e0->slot_bytes, 128 * 256 * 4 / 256);   /* per thread */
	CHECK_EQ_INT(e1->kind, EDGE_RING);
	CHECK_EQ_INT(e1->slot_bytes, 49152);
	CHECK_EQ_INT(e1->stages, 3);
	CHECK(e1->from == ld && e1->to == mm && ab->edge == e1);
	GBuf *b = st->bufs.v[0];
	CHECK_EQ_INT(b->size, 65536);
	CHECK_EQ_INT(b->align, 1024);
	CHECK(b->live == LIVE_EPILOGUE);
	CHECK_STR(live_name(b->live), "epilogue");
	CHECK_EQ_INT(((GBar *)st->bars.v[0])->threads, 256);

	/* kernel params: tensors expanded in declaration order, then shape symbols */
	CHECK_EQ_INT(g->kparams.n, 6);
	const char *names[] = { "a", "b", "c", "M", "K", "N" };
	int kinds[] = { KP_TENSORMAP, KP_TENSORMAP, KP_PTR, KP_I32, KP_I32, KP_I32 };
	for (int i = 0; i < 6 && i < g->kparams.n; i++) {
		GKParam *q = g->kparams.v[i];
		CHECK_STR(q->name, names[i]);
		CHECK_EQ_INT(q->kind, kinds[i]);
	}
	GKParam *qa = g->kparams.v[0];
	CHECK_EQ_INT(qa->box[0], 64);
	CHECK_EQ_INT(qa->box[1], 128);
	CHECK_STR(qa->swizzle, "sw128");
	CHECK_STR(qa->tensor, "A");
	CHECK_STR(((GKParam *)g->kparams.v[4])->dim, "K");
	CHECK_EQ_INT(ld->binds.n, 3);
	CHECK_EQ_INT(((GBind *)ld->binds.v[2])->kparam, 4);   /* K */
	CHECK_EQ_INT(((GBind *)st->binds.v[0])->kparam, 2);
	/* bindings by param index (the glue's and the monolith's arguments) */
	for (int i = 0; i < ld->comp->params.n; i++)
		CHECK(ld->bind[i] == NULL || ld->bind[i]->decl == ld->comp->params.v[i]);
	CHECK(ld->bind[ld->comp->params.n - 1] == ld->binds.v[2]);   /* K, the last */
	/* a name in a run-time expression: an integer parameter or shape
	 * symbol, else a const; never the tensor map named `a` */
	{
		int i = -1;
		CHECK_EQ_INT(graph_name(g, "M", &i), NAME_KPARAM);
		CHECK_EQ_INT(i, 3);
		CHECK_EQ_INT(graph_name(g, "BM", &i), NAME_CONST);
		CHECK_EQ_INT(g->constvals[i], 128);
		CHECK_EQ_INT(graph_name(g, "a", &i), NAME_NONE);
		CHECK_EQ_INT(graph_name(g, "nope", &i), NAME_NONE);
		/* check resolved the grid's names once (resolve_names): the
		 * later stages read Expr.ref */
		const Expr *t0 = g->tiles[0];   /* ceil_div(M, BM) */
		CHECK(t0 && t0->k == EX_CALL && t0->args.n == 2);
		if (t0 && t0->args.n == 2) {
			const Expr *m = t0->args.v[0], *bm = t0->args.v[1];
			CHECK_EQ_INT(m->ref, NAME_KPARAM);
			CHECK_EQ_INT(m->ref_i, 3);
			CHECK_EQ_INT(bm->ref, NAME_CONST);
			CHECK_EQ_INT(graph_constval(g, bm), 128);
		}
	}
	CHECK_EQ_INT(scalar_kind("u32"), KP_I32);
	CHECK_EQ_INT(scalar_kind("u64"), KP_I64);
	CHECK_EQ_INT(scalar_kind("f32"), KP_F32);
	CHECK_EQ_INT(scalar_kind("bf16"), -1);
	CHECK_EQ_INT(scalar_kind(NULL), -1);
	CHECK_STR(kparam_ctype(KP_I64), "long long");

	char *out;
	size_t n;
	FILE *f = open_memstream(&out, &n);
	graph_print(f, g);
	graph_dot(f, g);
	fclose(f);
	CHECK(strstr(out, "ld.ab -> mm.ab: smem ring, 49152-byte slots, 3 stages"));
	CHECK(strstr(out, "role 1: 8 warps, regs 232, warpgroup-aligned: mm -> st"));
	CHECK(strstr(out, "digraph \"gemm\""));
	free(out);
	done(&c);
}

/* The one kernel of a whole file's text (its components in it), checked
 * for sm_90a; NULL (its diagnostics on stderr) on an error. */
static Graph *check_text(Ctx *c, const char *text)
{
	int src = ctx_add_source(c, "t.plk", text, strlen(text));
	Module *m = parse_source(c, src);
	CHECK(m && !c->nerrors);
	if (!m || c->nerrors)
		return NULL;
	Program *p = arena_alloc(c->arena, sizeof *p);
	p->comps = m->comps;
	Graph *g = check_kernel(c, p, m->kernels.v[0], arch_lookup("sm_90a"));
	CHECK(g);
	if (!g) {
		fflush(c->err);
		fprintf(stderr, "%s", errbuf);
	}
	return g;
}

/* code: the error code expected in the output for this kernel on arch */
static void expect(const char *kernel, const char *arch, const char *code)
{
	Ctx c;
	Graph *g = run(fresh(&c), kernel, arch);
	fflush(c.err);
	if (g || !strstr(errbuf, code)) {
		unit_failures++;
		fprintf(stderr, "expected %s on %s, got:\n%.*s\n", code, arch, (int)errlen, errbuf);
	}
	done(&c);
}

/* Pingpong lanes, from the check through the placement to the glue and
 * the monolith: the ring's `per` in kernel terms, one role of two lanes,
 * lane 1's instances keyed id + 3, and each lane's cursor skipping. With
 * `handoff` (%s below) the consumer passes the turn: plk_ring_turn gives
 * each lane the next lane's turn mbarrier, and the glue no longer arrives
 * on it after the consumer returns. */
static const char *lanes_comps =
	"component load(BK = 64) {\n"
	"  source \"l.cu\"; entry l\n"
	"  arch >= sm_90 needs tma\n"
	"  warps 1; regs 40\n"
	"  param a: tensormap<bf16, 2>[BK, 128]\n"
	"  param K: i32\n"
	"  out t: tile<bf16, 128 x BK, sw128> per ceil_div(K, BK)\n"
	"}\n"
	"component mma(BK = 64) {\n"
	"  source \"m.cu\"; entry m\n"
	"  arch >= sm_90a needs wgmma, setmaxnreg\n"
	"  warpgroups 1; regs 232\n"
	"  param K: i32\n"
	"  in t: tile<bf16, 128 x BK, sw128> per ceil_div(K, BK) %s\n"
	"  out acc: frag<f32, 128 x 128, wgmma_acc>\n"
	"}\n"
	"component store {\n"
	"  source \"s.cu\"; entry s\n"
	"  arch >= sm_80\n"
	"  param c: ptr<f32>\n"
	"  in acc: frag<f32, 128 x 128, wgmma_acc>\n"
	"  smem staging: 4096 bytes\n"
	"  barrier sync\n"
	"}\n"
	"kernel pp(A: tensor<bf16>[M, K], C: tensor<f32>[M, N]) {\n"
	"  grid persistent, tiles(ceil_div(M, 128), 1)\n"
	"  l = load(a = A, BK = 32); m = mma(BK = 32); s = store(c = C)\n"
	"  l.t -> m.t [stages = 4, pingpong = 2]\n"
	"  m.acc -> s.acc\n"
	"}\n";

static void test_lanes(int handoff)
{
	Ctx c;
	fresh(&c);
	char text[2048];
	snprintf(text, sizeof text, lanes_comps, handoff ? "handoff" : "");
	Graph *g = check_text(&c, text);
	if (!g) { done(&c); return; }
	const GEdge *e = NULL;
	for (int i = 0; i < g->edges.n; i++)
		if (((GEdge *)g->edges.v[i])->kind == EDGE_RING)
			e = g->edges.v[i];
	CHECK(e && e->lanes == 2 && e->per);
	char *txt; size_t n;
	FILE *f = open_memstream(&txt, &n);
	expr_print(f, e->per);
	fclose(f);
	CHECK(!strcmp(txt, "ceil_div(K, 32)"));   /* BK bound, K the kernel's */
	free(txt);
	const GRole *r = g->roles.v[e->to->role];
	CHECK_EQ_INT(r->lanes, 2);
	CHECK(r->lane_edge == e);

	Placement *pl = place(&c, g);
	CHECK(pl);
	if (!pl) { done(&c); return; }
	CHECK_EQ_INT(pl->roles.n, 3);
	f = open_memstream(&txt, &n);
	CHECK_EQ_INT(glue_emit_ll(&c, pl, f), 0);
	fclose(f);
	CHECK(strstr(txt, "%lanes.step = mul i32") != NULL);
	CHECK(strstr(txt, "srem i32") && strstr(txt, ", 4\n"));   /* cursor modulo the 4 stages (plk_pipe_skip's int) */
	CHECK(strstr(txt, "call void @m(i32 4,") != NULL);     /* lane 1 of m: 1 + 1 * 3 */
	CHECK(strstr(txt, "call void @s(i32 5,") != NULL);
	/* the turns: both lanes wait; the glue passes them unless handed off */
	CHECK_EQ_INT(unit_count(txt, "call void @plk_glue_mbar_wait("), 2);
	CHECK_EQ_INT(unit_count(txt, "call void @plk_glue_mbar_arrive("), handoff ? 0 : 2);
	free(txt);
	f = open_memstream(&txt, &n);
	CHECK_EQ_INT(monolith_write(&c, pl, f), 0);
	fclose(f);
	CHECK(strstr(txt, "for (int t = blockIdx.x + 1 * (gridDim.x); t < nitems; t += 2 * (gridDim.x))") != NULL);
	CHECK(strstr(txt, "plk_pipe_skip(&pipe_1_0, 1 * ((((p3) + (32) - 1) / (32))), 4);") != NULL);
	/* lane 0 of m (inst 1, port 0) hands to lane 1's turn, lane 1 (inst 4) to lane 0's */
	const PRole *l0 = pl->roles.v[1], *l1 = pl->roles.v[2];
	char c0[96], c1[96];
	snprintf(c0, sizeof c0, "case 1: return a1 == 0 ? pipelink_smem + %u : 0;", l0->turn_bar + 8);
	snprintf(c1, sizeof c1, "case 4: return a1 == 0 ? pipelink_smem + %u : 0;", l1->turn_bar);
	CHECK_EQ_INT(strstr(txt, c0) != NULL, handoff);
	const char *hf = strstr(txt, "int plk_ring_handoffs(int a0, int a1)");
	const char *hend = hf ? strstr(hf, "return 0;") : NULL;
	CHECK(hf && hend);
	if (hf && hend) {   /* 1 for both lanes of m, nothing else */
		char *body = strndup(hf, (size_t)(hend - hf));
		CHECK_EQ_INT(unit_count(body, "? 1 : 0;"), handoff ? 2 : 0);
		CHECK_EQ_INT(strstr(body, "case 1: return a1 == 0 ? 1 : 0;") != NULL, handoff);
		free(body);
	}
	CHECK_EQ_INT(strstr(txt, c1) != NULL, handoff);
	CHECK_EQ_INT(unit_count(txt, "plk_mbar_arrive(pipelink_smem"), handoff ? 0 : 2);
	if (getenv("PLK_TEST_VERBOSE")) fputs(txt, stderr);
	free(txt);
	done(&c);
}

/* Hooks (docs/abi.md): a mask provider connected to the consumer of a
 * pingpong ring, and a tile order. The checker stores the connection and
 * the order provider on the graph; abi.c gives the dispatch one case per
 * lane of the consumer (inst 1 and 1 + 5); the glue and the monolith call
 * the provider's function with its param, and the order's in the loop. */
static const char *hooks_text =
	"component load {\n"
	"  source \"l.cu\"; entry l\n"
	"  arch >= sm_90 needs tma\n"
	"  warps 1; regs 40\n"
	"  param a: tensormap<bf16, 2>[64, 128]\n"
	"  param K: i32\n"
	"  out t: tile<bf16, 128 x 64, sw128> per ceil_div(K, 64)\n"
	"}\n"
	"component mma {\n"
	"  source \"m.cu\"; entry m\n"
	"  arch >= sm_90a needs wgmma, setmaxnreg\n"
	"  warpgroups 1; regs 232\n"
	"  param K: i32\n"
	"  in t: tile<bf16, 128 x 64, sw128> per ceil_div(K, 64)\n"
	"  in hook mask: mask_mod\n"
	"  in hook score: score_mod\n"
	"  out acc: frag<f32, 128 x 128, wgmma_acc>\n"
	"}\n"
	"component store {\n"
	"  source \"s.cu\"; entry s\n"
	"  arch >= sm_80\n"
	"  param c: ptr<f32>\n"
	"  in acc: frag<f32, 128 x 128, wgmma_acc>\n"
	"}\n"
	"component cv {\n"
	"  source \"cv.cu\"\n"
	"  param N: i32\n"
	"  out hook mask: mask_mod = plk_cv_mask\n"
	"}\n"
	"component lpt {\n"
	"  source \"lpt.cu\"\n"
	"  out hook order: tile_order = plk_lpt\n"
	"}\n"
	"kernel hk(A: tensor<bf16>[M, K], C: tensor<f32>[M, N]) {\n"
	"  grid persistent, tiles(ceil_div(M, 128), 1), order(o)\n"
	"  l = load(a = A); m = mma(); s = store(c = C); v = cv(); o = lpt()\n"
	"  l.t -> m.t [stages = 4, pingpong = 2]\n"
	"  m.acc -> s.acc\n"
	"  v.mask -> m.mask\n"
	"}\n";

static void test_hooks(void)
{
	Ctx c;
	fresh(&c);
	Graph *g = check_text(&c, hooks_text);
	if (!g) { done(&c); return; }
	CHECK_EQ_INT(g->hooks.n, 1);
	const GHook *h = g->hooks.n ? g->hooks.v[0] : NULL;
	CHECK(h && h->kind->id == HK_MASK_MOD && !strcmp(h->from->name, "v") && !strcmp(h->to->name, "m"));
	CHECK(h && h->tp->hk == h && h->tp->id == 1);
	CHECK(g->order && !strcmp(g->order->name, "o") && g->order_port && g->order_port->hook->id == HK_TILE_ORDER);
	CHECK(h && h->from->hooks && h->from->role == -1 && h->from->nwarps == 0);
	CHECK_EQ_INT(g->roles.n, 2);   /* the providers have none */
	CHECK(abi_has_hooks(g) && abi_fn_defined(g, F_HOOK_BOUND));

	Placement *pl = place(&c, g);
	CHECK(pl);
	if (!pl) { done(&c); return; }
	int n;
	const AbiHookCase *cs = abi_hook_cases(&c, pl, HK_MASK_MOD, &n);
	CHECK_EQ_INT(n, 2);   /* both lanes of m */
	CHECK(n == 2 && cs[0].inst == 1 && cs[1].inst == 1 + 5 && cs[0].port == 1 && cs[1].h == h);
	abi_hook_cases(&c, pl, HK_SCORE_MOD, &n);
	CHECK_EQ_INT(n, 0);   /* m.score unconnected: the default */
	AbiFn fns[ABI_NFNS];
	abi_sigs(fns);
	abi_tables(&c, pl, fns);
	CHECK_EQ_INT(fns[F_HOOK_BOUND].ncases, 2);

	char *txt; size_t sz;
	FILE *f = open_memstream(&txt, &sz);
	CHECK_EQ_INT(glue_emit_ll(&c, pl, f), 0);
	fclose(f);
	CHECK(strstr(txt, "define i32 @plk_mask_mod(i32 %0, i32 %1, i8* %2, i32 %3") != NULL);
	CHECK(strstr(txt, "define float @plk_score_mod(") != NULL);
	CHECK_EQ_INT(unit_count(txt, "call i32 @plk_cv_mask(i32 3, i32"), 2);
	CHECK(strstr(txt, "call i32 @plk_lpt_m(i32 4, i32") && strstr(txt, "call i32 @plk_lpt_n(i32 4, i32"));
	CHECK(strstr(txt, "%hook.ctx = alloca { i32 }") != NULL);
	free(txt);
	f = open_memstream(&txt, &sz);
	CHECK_EQ_INT(monolith_write(&c, pl, f), 0);
	fclose(f);
	CHECK(strstr(txt, "struct plk_hook_ctx_3 { int p0; };   /* v */") != NULL);
	CHECK(strstr(txt, "\tcase 1025: {\n") && strstr(txt, "\tcase 6145: {\n"));
	CHECK(strstr(txt, "return plk_cv_mask(3, c->p0, b, h, q, kv);") != NULL);
	CHECK(strstr(txt, "\treturn score;\n}") != NULL);
	CHECK(strstr(txt, "tm = plk_lpt_m(4, tile, tiles_m, tiles_n);") != NULL);
	CHECK(strstr(txt, ", &hctx_1_1, 0, frag") != NULL);   /* mask connected, score NULL */
	if (getenv("PLK_TEST_VERBOSE")) fputs(txt, stderr);
	free(txt);
	done(&c);
}

int main(void)
{
	test_gemm();
	test_hooks();
	test_lanes(0);
	test_lanes(1);
	expect(gemm, "sm_80", "E0329");          /* arch too old */
	expect("kernel k(A: tensor<bf16>[M, K], B: tensor<bf16>[N, K], C: tensor<bf16>[M, N]) {\n"
	       "  const BM = 128, BN = 256, BK = 64\n"
	       "  grid order(ld)\n"
	       "  ld = load(a = A, b = B); mm = mma(); st = store(c = C)\n"
	       "  ld.ab -> mm.ab; mm.acc -> st.acc }\n", "sm_90a", "E0347");   /* order without a tile_order */
	expect(gemm, "sm_90", "E0330");          /* no wgmma without the 'a' features */
	expect(gemm, "sm_100a", "E0330");        /* wgmma is sm_90a only */
	expect("kernel k(A: tensor<bf16>[M, K], B: tensor<bf16>[N, K], C: tensor<bf16>[M, N]) {\n"
	       "  ld = load(a = A, b = B); mm = mma(BM = 128, BN = 256, BK = 64); st = store(c = C, BM = 128, BN = 128)\n"
	       "  ld.ab -> mm.ab; mm.acc -> st.acc }\n", "sm_90a", "E0310");
	expect("kernel k(A: tensor<bf16>[M, K], B: tensor<bf16>[N, K], C: tensor<bf16>[M, N]) {\n"
	       "  const BM = 128, BN = 256, BK = 64\n"
	       "  ld = load(a = A, b = B); mm = mma(); st = store(c = C)\n"
	       "  ld.ab -> mm.ab; st.acc -> mm.acc }\n", "sm_90a", "E0307");
	expect("kernel k(A: tensor<bf16>[M, K], B: tensor<bf16>[N, K], C: tensor<bf16>[M, N]) {\n"
	       "  const BM = 128, BN = 256, BK = 64\n"
	       "  ld = load(a = A, b = B); mm = mma(); st = store(c = C)\n"
	       "  ld.ab -> mm.ab }\n", "sm_90a", "E0315");
	expect("kernel k(A: tensor<bf16>[M, K], B: tensor<f16>[N, K], C: tensor<bf16>[M, N]) {\n"
	       "  const BM = 128, BN = 256, BK = 64\n"
	       "  ld = load(a = A, b = B); mm = mma(); st = store(c = C)\n"
	       "  ld.ab -> mm.ab; mm.acc -> st.acc }\n", "sm_90a", "E0335");
	UNIT_END();
}
