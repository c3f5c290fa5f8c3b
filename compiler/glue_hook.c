/* glue_hook.c: the calls into hooks (docs/abi.md, "Hooks"). A core's
 * `in hook` port takes a context, the param values of the provider
 * connected to it, stored once in the role's preheader; the core calls a
 * dispatch function (always-inline) that switches on (inst, port), loads
 * the provider's params from the context and calls its function, or
 * returns the hook's default where no provider is connected. The tile
 * loop's `grid order(INST)` hook is called directly. */
#include <stdlib.h>
#include <string.h>
#include "glue.h"

/* The struct of a hook provider's param values, as an `in hook`'s context
 * holds them (one i8 when it has none). */
static LLVMTypeRef ctx_type(G *g, const GInst *prov)
{
	const Component *cp = prov->comp;
	int np = cp->params.n;
	LLVMTypeRef *ts = arena_alloc(g->c->arena, (np + 1) * sizeof *ts);
	for (int i = 0; i < np; i++)
		ts[i] = glue_param_type(g, cp->params.v[i]);
	if (!np)
		ts[np++] = g->i8;
	return LLVMStructTypeInContext(g->cx, ts, np, 0);
}

/* An `in hook` port's argument: a pointer to the context of the provider
 * connected to it (its param values, stored in the role's preheader), or
 * NULL when none is. One per (port, lane), like the ring cursors. */
LLVMValueRef glue_hook_ctx(G *g, Frag *fr, int *nfr, const GPort *pt)
{
	if (!pt->hk)
		return LLVMConstNull(g->i8p);
	LLVMValueRef have = glue_frag_find(fr, *nfr, pt, g->lane, 0);
	if (have)
		return have;
	const GInst *prov = pt->hk->from;
	LLVMTypeRef st = ctx_type(g, prov);
	LLVMValueRef a = glue_alloca(g, st, "hook.ctx");
	LLVMSetAlignment(a, 8);
	LLVMBuilderRef in_use = glue_aside(g);
	glue_at_preheader(g);
	int np = prov->comp->params.n;
	LLVMTypeRef *ts = arena_alloc(g->c->arena, (np + 1) * sizeof *ts);
	LLVMValueRef *vs = arena_alloc(g->c->arena, (np + 1) * sizeof *vs);
	glue_param_values(g, prov, ts, vs);
	for (int i = 0; i < np; i++)
		LLVMBuildStore(g->b, vs[i], LLVMBuildStructGEP2(g->b, st, a, (unsigned)i, ""));
	LLVMValueRef p = LLVMBuildBitCast(g->b, a, g->i8p, "");
	glue_back(g, in_use);
	fr[*nfr] = (Frag){ pt, g->lane, 0, p };
	++*nfr;
	return p;
}

static LLVMTypeRef hook_arg_type(G *g, char t)
{
	return t == 'f' ? g->f32 : g->i32;
}

/* The call of provider prov's function f for its `out hook` out:
 * f(inst, params..., args...), args as f's types give them. */
static LLVMValueRef call_hook(G *g, const GInst *prov, const GPort *out, const HookFnInfo *f,
                              LLVMValueRef *params, LLVMTypeRef *pts, int np, LLVMValueRef *args)
{
	int na = (int)strlen(f->types), n = 0;
	LLVMTypeRef *ts = arena_alloc(g->c->arena, (1 + np + na) * sizeof *ts);
	LLVMValueRef *as = arena_alloc(g->c->arena, (1 + np + na) * sizeof *as);
	ts[n] = g->i32, as[n++] = ci32(g, abi_inst(g->p->g, prov, 0));
	for (int i = 0; i < np; i++)
		ts[n] = pts[i], as[n++] = params[i];
	for (int i = 0; i < na; i++)
		ts[n] = hook_arg_type(g, f->types[i]), as[n++] = args[i];
	LLVMTypeRef ft = LLVMFunctionType(hook_arg_type(g, f->cret[0]), ts, n, 0);
	const char *name = hook_fn_name(g->c, out->decl->ty->base, f);
	if (!prov->comp->entry && prov->sym)   /* a renamed specialization (link_decide) */
		name = arena_printf(g->c->arena, "%s%s", name, prov->sym);
	LLVMValueRef fn = LLVMGetNamedFunction(g->m, name);
	if (!fn)
		fn = LLVMAddFunction(g->m, name, ft);
	else if (LLVMGlobalGetValueType(fn) != ft) {
		error_at(g->c, "E0513", out->decl->sp, "hook function `%s` is called with two different signatures", name);
		g->err = 1;
		return LLVMConstNull(hook_arg_type(g, f->cret[0]));
	}
	return LLVMBuildCall2(g->b, ft, fn, as, n, "");
}

/* One dispatch function of the hooks (docs/abi.md): RET f(inst, port,
 * ctx, args...): per connected (consumer, port), the provider's params
 * loaded from ctx and its function called; otherwise the default. */
void glue_define_dispatch(G *g, const HookFnInfo *f)
{
	int na = (int)strlen(f->types);
	const Placement *self = g->p;
	LLVMTypeRef rt = hook_arg_type(g, f->cret[0]);
	LLVMTypeRef *pts = arena_alloc(g->c->arena, (3 + na) * sizeof *pts);
	pts[0] = pts[1] = g->i32, pts[2] = g->i8p;
	for (int i = 0; i < na; i++)
		pts[3 + i] = hook_arg_type(g, f->types[i]);
	LLVMValueRef fn = LLVMAddFunction(g->m, f->dispatch, LLVMFunctionType(rt, pts, 3 + na, 0));
	glue_fn_attr(g, fn, "alwaysinline");
	glue_fn_attr(g, fn, "nounwind");
	LLVMValueRef *args = arena_alloc(g->c->arena, (na + 1) * sizeof *args);
	for (int i = 0; i < na; i++)
		args[i] = LLVMGetParam(fn, 3 + i);
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->cx, fn, "entry");
	LLVMBasicBlockRef dflt = LLVMAppendBasicBlockInContext(g->cx, fn, "unbound");
	LLVMPositionBuilderAtEnd(g->b, entry);
	LLVMValueRef key = LLVMBuildOr(g->b, LLVMBuildShl(g->b, LLVMGetParam(fn, 0), ci32(g, 10), ""),
	                               LLVMGetParam(fn, 1), "");
	int nc = 0;   /* every kernel's cases: their `inst` ids differ (Graph.inst_base) */
	const AbiHookCase **cs = NULL;
	const Placement **cp = NULL;
	for (int v = 0; v < g->nps; v++) {
		int m;
		const AbiHookCase *vc = abi_hook_cases(g->c, g->ps[v], f->kind, &m);
		const AbiHookCase **ncs = arena_alloc(g->c->arena, (nc + m + 1) * sizeof *ncs);
		const Placement **ncp = arena_alloc(g->c->arena, (nc + m + 1) * sizeof *ncp);
		for (int i = 0; i < nc; i++)
			ncs[i] = cs[i], ncp[i] = cp[i];
		for (int i = 0; i < m; i++)
			ncs[nc + i] = &vc[i], ncp[nc + i] = g->ps[v];
		cs = ncs, cp = ncp, nc += m;
	}
	LLVMValueRef sw = LLVMBuildSwitch(g->b, key, dflt, nc);
	for (int i = 0; i < nc; i++) {
		g->p = cp[i];
		const GInst *prov = cs[i]->h->from;
		LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->cx, fn, "");
		LLVMAddCase(sw, ci32(g, (int64_t)cs[i]->inst << 10 | cs[i]->port), bb);
		LLVMPositionBuilderAtEnd(g->b, bb);
		LLVMTypeRef st = ctx_type(g, prov);
		LLVMValueRef ctx = LLVMBuildBitCast(g->b, LLVMGetParam(fn, 2), LLVMPointerType(st, 0), "");
		int np = prov->comp->params.n;
		LLVMTypeRef *ts = arena_alloc(g->c->arena, (np + 1) * sizeof *ts);
		LLVMValueRef *vs = arena_alloc(g->c->arena, (np + 1) * sizeof *vs);
		for (int j = 0; j < np; j++) {
			ts[j] = glue_param_type(g, prov->comp->params.v[j]);
			vs[j] = LLVMBuildLoad2(g->b, ts[j], LLVMBuildStructGEP2(g->b, st, ctx, (unsigned)j, ""), "");
		}
		LLVMBuildRet(g->b, call_hook(g, prov, cs[i]->h->fp, f, vs, ts, np, args));
	}
	g->p = self;
	/* unbound: the default, an argument or a constant */
	LLVMPositionBuilderAtEnd(g->b, dflt);
	LLVMValueRef d = NULL;
	char name[32];
	for (int i = 0; i < na && !d; i++)
		if (!strcmp(hook_arg_name(f, i, name, sizeof name), f->dflt))
			d = args[i];
	if (!d)
		d = rt == g->f32 ? LLVMConstReal(g->f32, strtod(f->dflt, NULL)) : ci32(g, strtol(f->dflt, NULL, 0));
	LLVMBuildRet(g->b, d);
}

/* The tile loop's order hook (`grid order(INST)`): its `_m` and `_n`
 * functions of (t, tiles_m, tiles_n). */
void glue_order_tile(G *g, LLVMValueRef t, LLVMValueRef tiles_m, LLVMValueRef tiles_n,
                       LLVMValueRef *tm, LLVMValueRef *tn)
{
	const Graph *gr = g->p->g;
	int nf, np = gr->order->comp->params.n;
	const HookFnInfo *f = hook_fns(HK_TILE_ORDER, &nf);
	LLVMTypeRef *ts = arena_alloc(g->c->arena, (np + 1) * sizeof *ts);
	LLVMValueRef *vs = arena_alloc(g->c->arena, (np + 1) * sizeof *vs);
	glue_param_values(g, gr->order, ts, vs);
	LLVMValueRef args[3] = { t, tiles_m, tiles_n };
	*tm = call_hook(g, gr->order, gr->order_port, &f[0], vs, ts, np, args);
	*tn = call_hook(g, gr->order, gr->order_port, &f[1], vs, ts, np, args);
}
