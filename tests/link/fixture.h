/* fixture.h: hand-built Graph + Placement for the back-end tests, so the
 * glue and the link are tested without the front end.
 *
 *   two:   fill (1 warp, producer) --ring t--> sum (8 warps, writes y)
 *   three: fill --ring t--> sum_acc (8 warps) --frag acc--> store (same
 *          warps; a private smem buffer and a named barrier)
 *
 * Block: warpgroup 0 holds fill (regs 40), warpgroups 1-2 the consumers
 * (regs 232): 384 threads, the 40/232 split. The components' sources
 * are fill.cu, sum.cu, sum_acc.cu and store.cu beside this file; their
 * contracts (params, ports, buffers, barriers) agree with them, as the
 * header the monolith writes before each source checks. */
#ifndef LINK_FIXTURE_H
#define LINK_FIXTURE_H
#include <string.h>
#include "plk.h"

typedef struct Fix {
	Ctx *c;
	Kernel k;
	Graph g;
	Placement p;
} Fix;

static Expr *fx_num(Ctx *c, int64_t v)
{
	Expr *e = arena_alloc(c->arena, sizeof *e);
	e->k = EX_NUM, e->num = v, e->sp = span_none;
	return e;
}
static Expr *fx_name(Ctx *c, const char *n)
{
	Expr *e = arena_alloc(c->arena, sizeof *e);
	e->k = EX_NAME, e->name = n, e->sp = span_none;
	return e;
}
static Expr *fx_ceil_div(Ctx *c, Expr *a, Expr *b)
{
	Expr *e = arena_alloc(c->arena, sizeof *e);
	e->k = EX_CALL, e->name = "ceil_div", e->fn = FN_CEIL_DIV, e->sp = span_none;
	vec_push(c->arena, &e->args, a);
	vec_push(c->arena, &e->args, b);
	return e;
}

static Type *fx_type(Ctx *c, TypeKind k, const char *dtype)
{
	Type *t = arena_alloc(c->arena, sizeof *t);
	t->k = k, t->dtype = dtype, t->sp = span_none;
	return t;
}

static Component *fx_comp(Ctx *c, const char *name, const char *entry, int warps)
{
	Component *cp = arena_alloc(c->arena, sizeof *cp);
	cp->name = name, cp->entry = entry, cp->source = arena_printf(c->arena, "%s.cu", name);
	cp->sp = cp->name_sp = cp->entry_sp = span_none;
	cp->file = arena_printf(c->arena, "tests/link/%s.plk", name);   /* sources resolve beside it */
	cp->warps = warps ? fx_num(c, warps) : NULL;
	return cp;
}

/* A component param bound to kernel parameter `kp`. */
static void fx_param(Ctx *c, Component *cp, GInst *in, const char *name, TypeKind k, const char *dtype, int kp)
{
	Param *pa = arena_alloc(c->arena, sizeof *pa);
	pa->name = name, pa->ty = fx_type(c, k, dtype), pa->sp = span_none;
	vec_push(c->arena, &cp->params, pa);
	GBind *b = arena_alloc(c->arena, sizeof *b);
	b->param = name, b->decl = pa, b->kparam = kp;
	vec_push(c->arena, &in->binds, b);
	graph_order_binds(c->arena, in);
}

static GPort *fx_port(Ctx *c, GInst *in, const char *name, PortDir dir, TypeKind k, const char *dtype,
                      int rows, int cols, uint32_t bytes)
{
	Port *cpt = arena_alloc(c->arena, sizeof *cpt);   /* the contract's port */
	cpt->name = name, cpt->dir = dir, cpt->ty = fx_type(c, k, dtype), cpt->sp = span_none;
	vec_push(c->arena, &((Component *)in->comp)->ports, cpt);   /* fx_comp made it */
	GPort *pt = arena_alloc(c->arena, sizeof *pt);
	pt->name = name, pt->id = in->ports.n, pt->dir = dir, pt->k = k, pt->bytes = bytes;
	GField *f = arena_alloc(c->arena, sizeof *f);
	f->name = name, f->rows = rows, f->cols = cols, f->dtype = dtype;
	f->bytes = k == TY_FRAG ? bytes : (uint32_t)(rows * cols * 4);
	f->align = 128;
	vec_push(c->arena, &pt->fields, f);
	vec_push(c->arena, &in->ports, pt);
	return pt;
}

static GInst *fx_inst(Fix *f, const char *name, Component *cp, int nwarps, int regs)
{
	GInst *in = arena_alloc(f->c->arena, sizeof *in);
	in->name = name, in->id = f->g.insts.n, in->comp = cp, in->nwarps = nwarps, in->regs = regs;
	in->cluster = 1;
	vec_push(f->c->arena, &f->g.insts, in);
	return in;
}

static PRole *fx_role(Fix *f, int first_warp, int nwarps, int regs)
{
	GRole *r = arena_alloc(f->c->arena, sizeof *r);
	r->id = f->g.roles.n, r->nwarps = nwarps, r->regs = regs, r->warpgroup_aligned = regs > 0;
	vec_push(f->c->arena, &f->g.roles, r);
	PRole *pr = arena_alloc(f->c->arena, sizeof *pr);
	pr->role = r, pr->first_warp = first_warp, pr->nwarps = nwarps, pr->regs = regs;
	vec_push(f->c->arena, &f->p.roles, pr);
	return pr;
}

static void fx_role_add(Fix *f, PRole *r, GInst *in)
{
	vec_push(f->c->arena, &((GRole *)r->role)->insts, in);
	in->role = r->role->id;
}

static void fx_kparam(Fix *f, const char *name, KParamKind k)
{
	GKParam *kp = arena_alloc(f->c->arena, sizeof *kp);
	kp->name = name, kp->kind = k, kp->dtype = k == KP_PTR ? "f32" : "i32";
	vec_push(f->c->arena, &f->g.kparams, kp);
}

static PRing *fx_ring(Fix *f, GInst *from, GPort *fp, GInst *to, GPort *tp, int stages, uint32_t off,
                      uint32_t stride, uint32_t bars, int full, int empty)
{
	GEdge *e = arena_alloc(f->c->arena, sizeof *e);
	e->id = f->g.edges.n, e->kind = EDGE_RING, e->from = from, e->to = to, e->fp = fp, e->tp = tp;
	e->stages = stages, e->slot_bytes = stride, e->sp = span_none;
	fp->edge = tp->edge = e;
	vec_push(f->c->arena, &f->g.edges, e);
	PRing *r = arena_alloc(f->c->arena, sizeof *r);
	r->edge = e, r->stages = stages, r->off = off, r->slot_stride = stride;
	r->full_bar = bars, r->empty_bar = bars + 8 * stages, r->full_count = full, r->empty_count = empty;
	vec_push(f->c->arena, &f->p.rings, r);
	return r;
}

/* kernel NAME(y: ptr<f32>, M, N, K: i32), grid persistent, tiles of 32 x 32,
 * raster grouped(8); ring t: 4 stages of 32 x 32 f32 at 0, barriers at 16384. */
static void fx_init(Fix *f, Ctx *c, const char *arch, int three)
{
	memset(f, 0, sizeof *f);
	f->c = c;
	f->k.name = three ? "link_three" : "link_two";
	f->k.sp = f->k.name_sp = span_none;
	f->g.k = &f->k;
	f->g.arch = f->p.arch = arch_lookup(arch);
	f->p.g = &f->g;
	f->p.threads = 384;
	f->p.nwarps = 12;
	f->p.entry_regs = 168;
	static int wg_regs[3] = { 40, 232, 232 };
	f->p.nwarpgroups = 3, f->p.wg_regs = wg_regs;
	f->g.persistent = 1;
	f->g.raster = RASTER_GROUPED, f->g.raster_group = 8;
	f->g.tiles[0] = fx_ceil_div(c, fx_name(c, "M"), fx_num(c, 32));
	f->g.tiles[1] = fx_ceil_div(c, fx_name(c, "N"), fx_num(c, 32));
	/* kernel (Y: tensor<f32>[M, N], K: i32): Y gives y, M and N */
	KParam *Y = arena_alloc(c->arena, sizeof *Y);
	Y->name = "Y", Y->sp = span_none, Y->ty = fx_type(c, TY_TENSOR, "f32");
	vec_push(c->arena, &Y->ty->dims, fx_name(c, "M"));
	vec_push(c->arena, &Y->ty->dims, fx_name(c, "N"));
	vec_push(c->arena, &f->k.params, Y);
	KParam *K = arena_alloc(c->arena, sizeof *K);
	K->name = "K", K->sp = span_none, K->ty = fx_type(c, TY_SCALAR, "i32");
	vec_push(c->arena, &f->k.params, K);
	fx_kparam(f, "y", KP_PTR);
	fx_kparam(f, "M", KP_I32);
	fx_kparam(f, "N", KP_I32);
	fx_kparam(f, "K", KP_I32);
	((GKParam *)f->g.kparams.v[0])->tensor = "Y";
	((GKParam *)f->g.kparams.v[1])->dim = "M";
	((GKParam *)f->g.kparams.v[2])->dim = "N";
	/* as check leaves them: each name resolved (resolve_names) */
	f->g.tiles[0] = graph_resolve(c->arena, &f->g, f->g.tiles[0]);
	f->g.tiles[1] = graph_resolve(c->arena, &f->g, f->g.tiles[1]);
	for (int i = 0; i < Y->ty->dims.n; i++)
		vec_push(c->arena, &f->g.tensor_dims, graph_resolve(c->arena, &f->g, Y->ty->dims.v[i]));

	Component *fill = fx_comp(c, "fill", "link_fill", 1);
	GInst *i0 = fx_inst(f, "load", fill, 1, 40);
	fx_param(c, fill, i0, "K", TY_SCALAR, "i32", 3);
	GPort *t0 = fx_port(c, i0, "t", PORT_OUT, TY_TILE, "f32", 32, 32, 4096);
	PRole *r0 = fx_role(f, 0, 1, 40);
	fx_role_add(f, r0, i0);
	PRole *r1 = fx_role(f, 4, 8, 232);
	if (!three) {
		Component *sum = fx_comp(c, "sum", "link_sum", 8);
		GInst *i1 = fx_inst(f, "sum", sum, 8, 232);
		fx_param(c, sum, i1, "y", TY_PTR, "f32", 0);
		fx_param(c, sum, i1, "N", TY_SCALAR, "i32", 2);
		fx_param(c, sum, i1, "K", TY_SCALAR, "i32", 3);
		GPort *t1 = fx_port(c, i1, "t", PORT_IN, TY_TILE, "f32", 32, 32, 4096);
		fx_role_add(f, r1, i1);
		fx_ring(f, i0, t0, i1, t1, 4, 0, 4096, 16384, 32, 256);  /* threads */
		f->p.smem_bytes = 16384 + 64;
		return;
	}
	Component *sa = fx_comp(c, "sum_acc", "link_sum_acc", 8);
	GInst *i1 = fx_inst(f, "acc", sa, 8, 232);
	fx_param(c, sa, i1, "K", TY_SCALAR, "i32", 3);
	GPort *t1 = fx_port(c, i1, "t", PORT_IN, TY_TILE, "f32", 32, 32, 4096);
	GPort *a1 = fx_port(c, i1, "acc", PORT_OUT, TY_FRAG, "f32", 32, 32, 16);
	Component *st = fx_comp(c, "store", "link_store", 0);
	GInst *i2 = fx_inst(f, "store", st, 0, 0);
	fx_param(c, st, i2, "y", TY_PTR, "f32", 0);
	fx_param(c, st, i2, "N", TY_SCALAR, "i32", 2);
	GPort *a2 = fx_port(c, i2, "acc", PORT_IN, TY_FRAG, "f32", 32, 32, 16);
	GEdge *fe = arena_alloc(c->arena, sizeof *fe);
	fe->id = 1, fe->kind = EDGE_REGS, fe->from = i1, fe->to = i2, fe->fp = a1, fe->tp = a2, fe->sp = span_none;
	a1->edge = a2->edge = fe;
	fx_role_add(f, r1, i1);
	fx_role_add(f, r1, i2);
	fx_ring(f, i0, t0, i1, t1, 4, 0, 4096, 16384, 32, 256);  /* threads */
	vec_push(c->arena, &f->g.edges, fe);
	/* store's buffer `stage` (32 x 32 f32) and barrier `sync` (256 threads) */
	Smem *sm = arena_alloc(c->arena, sizeof *sm);
	sm->name = "stage", sm->size = fx_num(c, 4096), sm->sp = sm->live_sp = span_none;
	vec_push(c->arena, &st->smem, sm);
	Barrier *bar = arena_alloc(c->arena, sizeof *bar);
	bar->name = "sync", bar->threads = fx_num(c, 256), bar->sp = span_none;
	vec_push(c->arena, &st->barriers, bar);
	GBuf *b = arena_alloc(c->arena, sizeof *b);
	b->name = "stage", b->id = 0, b->size = 4096, b->align = 128, b->sp = span_none;
	vec_push(c->arena, &i2->bufs, b);
	PBuf *pb = arena_alloc(c->arena, sizeof *pb);
	pb->inst = i2, pb->buf = b, pb->off = 17408, pb->size = 4096, pb->align = 128;
	vec_push(c->arena, &f->p.bufs, pb);
	GBar *gb = arena_alloc(c->arena, sizeof *gb);
	gb->name = "sync", gb->id = 0, gb->threads = 256, gb->sp = span_none;
	vec_push(c->arena, &i2->bars, gb);
	PBar *pbar = arena_alloc(c->arena, sizeof *pbar);
	pbar->inst = i2, pbar->bar = gb, pbar->id = 1, pbar->threads = 256;
	vec_push(c->arena, &f->p.bars, pbar);
	f->p.smem_bytes = 17408 + 4096;
}
#endif
