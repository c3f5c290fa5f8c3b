/* glue.c: the glue module of one composition (or of a select's variants,
 * linked into one cubin: one table per ABI function over all their
 * instances, one plk_main_KERNEL each), through the LLVM 14 C API.
 *
 * It defines every plk_* ABI function of docs/abi.md as a constant table
 * (a switch over its keys, always-inline, so that after nvJitLink's LTO
 * each call folds to a constant) and plk_main, the kernel body the NVRTC
 * trampoline calls: mbarrier initialisation, setmaxnreg per warpgroup,
 * warp-role dispatch, the tile loop and the calls to each instance's entry.
 * What they hold (the tables' cases, the budgets, the dispatch runs, the
 * cluster launch) abi.c decides; here it is only emitted. Work items that
 * split K are glue_split.c's, the calls into hooks glue_hook.c's; glue.h
 * has what the three share.
 *
 * libNVVM reads this bitcode with an LLVM 7.0.1 reader: typed pointers
 * only, and no attribute that reader lacks (type attributes, willreturn,
 * nofree, nosync, noundef, immarg, ...): strip_new_attrs removes them. */
#include <stdlib.h>
#include <string.h>
#include <llvm-c/Analysis.h>
#include <llvm-c/BitWriter.h>
#include <llvm-c/Core.h>
#include <llvm/Config/llvm-config.h>
#include "glue.h"

/* Shared (3) and constant (4) pointers are 32-bit, as cicc compiles them:
 * the ABI functions' addresses are then 32-bit adds, and a linked kernel's
 * SASS is its one-unit nvcc build's (docs/toolchain.md). Local (5) stays
 * 64-bit: libdevice's sincosf keeps an array there, and 32-bit local
 * pointers make NVVM fail on it ("Copy one register into another with a
 * different width"). */
#define DATALAYOUT "e-p3:32:32-p4:32:32-i64:64-i128:128-v16:16-v32:32-n16:32:64"
#define TRIPLE "nvptx64-nvidia-cuda"

/* ------------------------------------------------------------ module */



/* Pointer into dynamic shared memory at byte `off` (a value). */
static LLVMValueRef smem_at3(G *g, LLVMValueRef off)
{
	LLVMValueRef idx[2] = { ci32(g, 0), off };
	return LLVMBuildInBoundsGEP2(g->b, LLVMArrayType(g->i8, 0), g->smem, idx, 2, "");
}

static LLVMValueRef smem_u32(G *g, int64_t off)
{
	return LLVMBuildPtrToInt(g->b, smem_at3(g, ci32(g, off)), g->i32, "");
}

void glue_fn_attr(G *g, LLVMValueRef f, const char *name)
{
	unsigned k = LLVMGetEnumAttributeKindForName(name, strlen(name));
	LLVMAddAttributeAtIndex(f, LLVMAttributeFunctionIndex, LLVMCreateEnumAttribute(g->cx, k, 0));
}

/* The value of case cs, or (affine) base0 + rel x d, plus the extra
 * argument's x step. */
static LLVMValueRef abi_value(G *g, const AbiFn *f, LLVMValueRef fn, int64_t base, LLVMValueRef rel, int64_t d,
                              int64_t step)
{
	LLVMValueRef v = ci32(g, base);
	if (rel && d)
		v = LLVMBuildAdd(g->b, v, LLVMBuildMul(g->b, rel, ci32(g, d), ""), "");
	if (f->nargs > f->nkeys && step)
		v = LLVMBuildAdd(g->b, v, LLVMBuildMul(g->b, LLVMGetParam(fn, f->nkeys), ci32(g, step), ""), "");
	return f->ret == ABI_SMEM ? LLVMBuildAddrSpaceCast(g->b, smem_at3(g, v), g->i8p, "") : v;
}

/* One ABI function. At nearly every call its keys are constants (an
 * instance, a port, a buffer) and LLVM folds whatever it is; but a
 * component may pass the last key at run time (a barrier a warpgroup),
 * and a switch over it stays a chain of branches. So: a switch over the
 * leading keys, and in each of its cases the value computed, 0 out of
 * range, without a branch where abi_group_next finds it affine in the last
 * key (a chain of selects where the group is small, gr.selects); else a
 * switch over the last key, one return per case. The
 * monolith's C has the same shape (monolith.c, abi_def). */
static void define_abi(G *g, const AbiFn *f)
{
	LLVMTypeRef rt = f->ret == ABI_SMEM ? g->i8p : g->i32;
	LLVMTypeRef pts[3] = { g->i32, g->i32, g->i32 };
	LLVMValueRef fn = LLVMAddFunction(g->m, f->name, LLVMFunctionType(rt, pts, f->nargs, 0));
	glue_fn_attr(g, fn, "alwaysinline");
	glue_fn_attr(g, fn, "nounwind");
	glue_fn_attr(g, fn, "readnone");
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->cx, fn, "entry");
	LLVMBasicBlockRef dflt = LLVMAppendBasicBlockInContext(g->cx, fn, "none");
	LLVMPositionBuilderAtEnd(g->b, entry);
	int last = f->nkeys - 1;
	LLVMValueRef lead = ci32(g, 0), lk = LLVMGetParam(fn, last);
	for (int k = 0; k < last; k++)   /* as abi_group_next packs them */
		lead = LLVMBuildOr(g->b, LLVMBuildShl(g->b, lead, ci32(g, 10), ""), LLVMGetParam(fn, k), "");
	LLVMValueRef sw = LLVMBuildSwitch(g->b, lead, dflt, f->ncases);
	AbiGroups gr;
	abi_groups(g->c, f, &gr);
	while (abi_group_next(&gr)) {
		LLVMBasicBlockRef bb = LLVMAppendBasicBlockInContext(g->cx, fn, "");
		LLVMAddCase(sw, ci32(g, gr.lead), bb);
		LLVMPositionBuilderAtEnd(g->b, bb);
		const AbiCase *c0 = &f->cases[gr.idx[0]];
		if (gr.selects) {   /* v = id == id_j ? value_j : v, j = 0 .. n - 1, from 0 */
			/* the tests last case first, as the monolith's nested
			 * `?:` (monolith.c) reaches the code generator */
			LLVMValueRef v = LLVMConstNull(rt), eq[ABI_SELECT_MAX], val[ABI_SELECT_MAX];
			for (int j = gr.n - 1; j >= 0; j--) {
				const AbiCase *cs = &f->cases[gr.idx[j]];
				eq[j] = LLVMBuildICmp(g->b, LLVMIntEQ, lk, ci32(g, cs->key[last]), "");
				val[j] = abi_value(g, f, fn, cs->base, NULL, 0, cs->step);
			}
			for (int j = 0; j < gr.n; j++)
				v = LLVMBuildSelect(g->b, eq[j], val[j], v, "");
			LLVMBuildRet(g->b, v);
			continue;
		}
		if (gr.affine) {
			LLVMValueRef rel = LLVMBuildSub(g->b, lk, ci32(g, c0->key[last]), "");
			LLVMValueRef in = LLVMBuildICmp(g->b, LLVMIntULT, rel, ci32(g, gr.n), "");
			LLVMBuildRet(g->b, LLVMBuildSelect(g->b, in, abi_value(g, f, fn, c0->base, rel, gr.d, c0->step),
			                                   LLVMConstNull(rt), ""));
			continue;
		}
		LLVMValueRef isw = LLVMBuildSwitch(g->b, lk, dflt, gr.n);
		for (int j = 0; j < gr.n; j++) {
			const AbiCase *cs = &f->cases[gr.idx[j]];
			LLVMBasicBlockRef cb = LLVMAppendBasicBlockInContext(g->cx, fn, "");
			LLVMAddCase(isw, ci32(g, cs->key[last]), cb);
			LLVMPositionBuilderAtEnd(g->b, cb);
			LLVMBuildRet(g->b, abi_value(g, f, fn, cs->base, NULL, 0, cs->step));
		}
	}
	LLVMPositionBuilderAtEnd(g->b, dflt);
	LLVMBuildRet(g->b, LLVMConstNull(rt));
}

static LLVMTypeRef kparam_type(G *g, KParamKind k)
{
	switch (k) {
	case KP_PTR: case KP_TENSORMAP: case KP_WORKSPACE: return g->i8p;
	case KP_I64: return g->i64;
	case KP_F32: return g->f32;
	default: return g->i32;
	}
}

static LLVMTypeRef scalar_type(G *g, const char *dtype)
{
	const DtypeInfo *d = dtype_lookup(dtype);
	int bits = d ? d->bits : 32;
	if (dtype && dtype[0] == 'f' && bits == 32)
		return g->f32;
	if (dtype && dtype[0] == 'f' && bits == 64)
		return LLVMDoubleTypeInContext(g->cx);
	return LLVMIntTypeInContext(g->cx, bits < 8 ? 8 : bits);
}

LLVMTypeRef glue_param_type(G *g, const Param *pa)
{
	if (!pa || !pa->ty)
		return g->i32;
	switch (pa->ty->k) {
	case TY_PTR: case TY_TENSORMAP: case TY_TENSOR: return g->i8p;
	default: return scalar_type(g, pa->ty->dtype);
	}
}

/* A runtime integer expression over kernel scalars and recipe consts, in
 * C's arithmetic of t's width (no signed wrap), as the monolith writes
 * it: int (i32), or long long for an `i64` param (i64). */
LLVMValueRef glue_expr_ir_t(G *g, const Expr *e, LLVMTypeRef t)
{
	const Graph *gr = g->p->g;
	LLVMValueRef one = LLVMConstInt(t, 1, 1);
	if (!e)
		return one;
	switch (e->k) {
	case EX_NUM: return LLVMConstInt(t, (uint64_t)e->num, 1);
	case EX_NEG: return LLVMBuildNSWNeg(g->b, glue_expr_ir_t(g, e->a, t), "");
	case EX_NAME:
		switch (e->ref) {   /* decided by check (graph_resolve) */
		case NAME_KPARAM: return LLVMBuildIntCast2(g->b, g->kargs[e->ref_i], t, 1, "");
		case NAME_CONST: return LLVMConstInt(t, (uint64_t)graph_constval(gr, e), 1);
		case NAME_NONE: break;
		}
		break;
	case EX_BIN: {
		LLVMValueRef a = glue_expr_ir_t(g, e->a, t), b = glue_expr_ir_t(g, e->b, t);
		switch (e->op) {
		case '+': return LLVMBuildNSWAdd(g->b, a, b, "");
		case '-': return LLVMBuildNSWSub(g->b, a, b, "");
		case '*': return LLVMBuildNSWMul(g->b, a, b, "");
		case '/': return LLVMBuildSDiv(g->b, a, b, "");
		case '%': return LLVMBuildSRem(g->b, a, b, "");
		}
		break;
	}
	case EX_CALL:
		if (builtin_call(e)) {
			LLVMValueRef a = glue_expr_ir_t(g, e->args.v[0], t), b = glue_expr_ir_t(g, e->args.v[1], t);
			LLVMValueRef zero = LLVMConstNull(t);
			switch (e->fn) {
			case FN_CEIL_DIV: {   /* toward +inf, as eval.c: of sizes (a + b - 1) / b, else q + 1
			                       * when r is nonzero of b's sign; the monolith's expr_print_c alike */
				if (graph_nonneg(gr, e->args.v[0]) && graph_nonneg(gr, e->args.v[1]))
					return LLVMBuildSDiv(g->b, LLVMBuildNSWSub(g->b, LLVMBuildNSWAdd(g->b, a, b, ""), one, ""),
					                     b, "");
				LLVMValueRef q = LLVMBuildSDiv(g->b, a, b, ""), r = LLVMBuildSRem(g->b, a, b, "");
				LLVMValueRef rb = LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, b, zero, ""), r,
				                                  LLVMBuildNSWNeg(g->b, r, ""), "");
				LLVMValueRef up = LLVMBuildICmp(g->b, LLVMIntSGT, rb, zero, "");
				return LLVMBuildNSWAdd(g->b, q, LLVMBuildZExt(g->b, up, t, ""), "");
			}
			case FN_MIN: return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSLT, a, b, ""), a, b, "");
			case FN_MAX: return LLVMBuildSelect(g->b, LLVMBuildICmp(g->b, LLVMIntSGT, a, b, ""), a, b, "");
			case FN_UNKNOWN: break;
			}
		}
		break;
	default:
		break;
	}
	error_at(g->c, "E0511", e->sp, "this expression cannot be computed in the kernel");
	g->err = 1;
	return one;
}

LLVMValueRef glue_expr_ir(G *g, const Expr *e) { return glue_expr_ir_t(g, e, g->i32); }

/* Code out of line (glue.h): the builder in use keeps its exact place (a
 * block's end, or before its terminator) for the caller. */
LLVMBuilderRef glue_aside(G *g)
{
	LLVMBuilderRef in_use = g->b;
	g->b = g->aside;
	return in_use;
}

void glue_back(G *g, LLVMBuilderRef in_use) { g->b = in_use; }

/* An alloca in fn's entry block, where SROA promotes it, after the ones
 * before it: they come in the order the glue asks for them, as the
 * monolith declares its fragments, pipes and contexts (monolith.c), and
 * the optimiser then gives both programs the same order. The builder is
 * left where it was. */
LLVMValueRef glue_alloca(G *g, LLVMTypeRef t, const char *name)
{
	LLVMBasicBlockRef entry = LLVMGetEntryBasicBlock(g->fn);
	LLVMValueRef at = g->last_alloca ? LLVMGetNextInstruction(g->last_alloca) : LLVMGetFirstInstruction(entry);
	if (at)
		LLVMPositionBuilderBefore(g->aside, at);
	else
		LLVMPositionBuilderAtEnd(g->aside, entry);
	LLVMValueRef a = LLVMBuildAlloca(g->aside, t, name);
	g->last_alloca = a;
	return a;
}

/* The array made for key in lane (and generation), or NULL. */
LLVMValueRef glue_frag_find(const Frag *fr, int nfr, const void *key, int lane, int gen)
{
	for (int i = 0; i < nfr; i++)
		if (fr[i].key == key && fr[i].lane == lane && fr[i].gen == gen)
			return fr[i].ptr;
	return NULL;
}

/* The array of n et's made once for key in the lane and generation (an
 * alloca in the entry block, as every role's), seen as a pointer to its
 * first element or, with view, cast to it. */
static LLVMValueRef frag_array(G *g, Frag *fr, int *nfr, const void *key, int gen, LLVMTypeRef et, unsigned n,
                               const char *name, LLVMTypeRef view)
{
	LLVMValueRef have = glue_frag_find(fr, *nfr, key, g->lane, gen);
	if (have)
		return have;
	LLVMValueRef a = glue_alloca(g, LLVMArrayType(et, n), name);
	LLVMSetAlignment(a, 16);
	LLVMPositionBuilderBefore(g->aside, LLVMGetNextInstruction(a));
	LLVMValueRef idx[2] = { ci32(g, 0), ci32(g, 0) };
	LLVMValueRef p = view ? LLVMBuildBitCast(g->aside, a, view, "")
	                      : LLVMBuildInBoundsGEP2(g->aside, LLVMArrayType(et, n), a, idx, 2, "");
	fr[*nfr] = (Frag){ key, g->lane, gen, p };
	++*nfr;
	return p;
}

LLVMValueRef glue_frag_ptr(G *g, Frag *fr, int *nfr, const GPort *pt, int role_threads)
{
	const GField *fl = pt->fields.n ? pt->fields.v[0] : NULL;
	const DtypeInfo *d = fl ? dtype_lookup(fl->dtype) : NULL;
	int bits = d && d->bits >= 8 ? d->bits : 8;
	uint32_t bytes = pt->bytes;
	if (!bytes && fl && role_threads)   /* elements per thread from the shape */
		bytes = (uint32_t)(fl->rows * fl->cols / role_threads * bits / 8);
	unsigned n = bytes * 8 / bits;
	return frag_array(g, fr, nfr, frag_key(pt), g->frag_gen, scalar_type(g, fl ? fl->dtype : "f32"), n ? n : 1,
	                  "frag", NULL);
}

/* The words kept for an entry across its calls (`regs NAME: WORDS`): an
 * array of the role's, made once like a frag's (monolith.c: keep_I_K);
 * none (0 words): a null pointer. */
static LLVMValueRef keep_ptr(G *g, Frag *fr, int *nfr, const GInst *in, int i)
{
	LLVMTypeRef i8p = LLVMPointerType(LLVMInt8TypeInContext(g->cx), 0);
	if (!in->keep_words[i])
		return LLVMConstNull(i8p);
	return frag_array(g, fr, nfr, &in->keep_words[i], 0, g->i32, (unsigned)in->keep_words[i], "keep", i8p);
}

/* The builder to the end of the tile loop's preheader: before its branch,
 * or at its end while it is still open (the prologue calls are built
 * there, before the branch). */
void glue_at_preheader(G *g)
{
	LLVMValueRef term = LLVMGetBasicBlockTerminator(g->preheader);
	if (term)
		LLVMPositionBuilderBefore(g->b, term);
	else
		LLVMPositionBuilderAtEnd(g->b, g->preheader);
}

/* plk_pipe (plk.cuh): { int stage; unsigned phase; } */
static LLVMTypeRef pipe_type(G *g)
{
	LLVMTypeRef ts[2] = { g->i32, g->i32 };
	return LLVMStructTypeInContext(g->cx, ts, 2, 0);
}

/* The plk_pipe {stage, phase} of one ring port, kept across work items:
 * zeroed in the role's prologue, before its tile loop. */
static LLVMValueRef pipe_ptr(G *g, Frag *fr, int *nfr, const GPort *pt)
{
	LLVMValueRef have = glue_frag_find(fr, *nfr, pt, g->lane, 0);
	if (have)
		return have;
	LLVMTypeRef st = pipe_type(g);
	LLVMValueRef a = glue_alloca(g, st, "pipe");
	LLVMSetAlignment(a, 8);
	/* The caller is inside the tile loop: zero it in the loop's preheader. */
	LLVMBuilderRef in_use = glue_aside(g);
	glue_at_preheader(g);
	LLVMBuildStore(g->b, LLVMConstNull(st), a);
	glue_back(g, in_use);
	fr[*nfr] = (Frag){ pt, g->lane, 0, a };
	++*nfr;
	return a;
}

/* The values of in's params, as its entry (or hook function) takes them,
 * into ts[], as[]; their count. */
int glue_param_values(G *g, const GInst *in, LLVMTypeRef *ts, LLVMValueRef *as)
{
	const Component *cp = in->comp;
	int np = cp->params.n, n = 0;
	for (int i = 0; i < np; i++) {
		const Param *pa = cp->params.v[i];
		const GBind *b = in->bind ? in->bind[i] : NULL;
		ts[n] = glue_param_type(g, pa);
		if (b && b->kparam < 0 && b->expr && LLVMGetTypeKind(ts[n]) == LLVMIntegerTypeKind) {
			/* an `i64` param's in long long, any other's in int (check_ints) */
			LLVMTypeRef w = b->bits == 64 ? g->i64 : g->i32;
			as[n] = LLVMBuildIntCast2(g->b, glue_expr_ir_t(g, b->expr, w), ts[n], 1, "");
			n++;
			continue;
		}
		if (!b || b->kparam < 0 || b->kparam >= g->p->g->kparams.n) {
			error_at(g->c, "E0512", pa->sp, "param `%s` of `%s` is bound to no kernel parameter",
			         pa->name, in->name);
			g->err = 1;
			as[n] = LLVMConstNull(ts[n]);
			n++;
			continue;
		}
		LLVMValueRef v = g->kargs[b->kparam];
		LLVMTypeRef vt = LLVMTypeOf(v);
		if (vt != ts[n]) {
			if (LLVMGetTypeKind(vt) == LLVMIntegerTypeKind && LLVMGetTypeKind(ts[n]) == LLVMIntegerTypeKind)
				v = LLVMBuildIntCast2(g->b, v, ts[n], 1, "");
			else if (LLVMGetTypeKind(vt) == LLVMPointerTypeKind && LLVMGetTypeKind(ts[n]) == LLVMPointerTypeKind)
				v = LLVMBuildBitCast(g->b, v, ts[n], "");
			else {
				error_at(g->c, "E0512", pa->sp, "param `%s` of `%s` does not match the kernel parameter's type",
				         pa->name, in->name);
				g->err = 1;
				v = LLVMConstNull(ts[n]);
			}
		}
		as[n++] = v;
	}
	return n;
}

/* entry(inst, params..., ports..., kept..., tile_m, tile_n [, k_first,
 * k_count]): the k range for a component with a `split` port
 * (check_split) */
void glue_call_entry(G *g, const GInst *in, Frag *fr, int *nfr, int role_threads,
                     LLVMValueRef tm, LLVMValueRef tn, const LLVMValueRef kr[2])
{
	const Component *cp = in->comp;
	int np = cp->params.n, max = 5 + np + in->ports.n + cp->keeps.n;
	LLVMTypeRef *ts = arena_alloc(g->c->arena, max * sizeof *ts);
	LLVMValueRef *as = arena_alloc(g->c->arena, max * sizeof *as);
	int n = 0;
	ts[n] = g->i32, as[n++] = ci32(g, abi_inst(g->p->g, in, g->lane));
	n += glue_param_values(g, in, ts + n, as + n);
	for (int i = 0; i < in->ports.n; i++) {
		const GPort *pt = in->ports.v[i];
		LLVMValueRef p = pt->k == TY_FRAG ? glue_frag_ptr(g, fr, nfr, pt, role_threads)
		               : pt->k == TY_HOOK ? glue_hook_ctx(g, fr, nfr, pt)
		                                  : pipe_ptr(g, fr, nfr, pt);
		ts[n] = LLVMTypeOf(p), as[n++] = p;
	}
	for (int i = 0; i < cp->keeps.n; i++) {
		LLVMValueRef p = keep_ptr(g, fr, nfr, in, i);
		ts[n] = LLVMTypeOf(p), as[n++] = p;
	}
	ts[n] = g->i32, as[n++] = tm;
	ts[n] = g->i32, as[n++] = tn;
	if (in->split_port) {
		ts[n] = g->i32, as[n++] = kr ? kr[0] : ci32(g, 0);
		ts[n] = g->i32, as[n++] = kr ? kr[1] : ci32(g, 0);
	}
	LLVMTypeRef ft = LLVMFunctionType(g->v, ts, n, 0);
	const char *sym = in->sym ? in->sym : cp->entry;   /* link_decide's */
	LLVMValueRef f = LLVMGetNamedFunction(g->m, sym);
	if (!f)
		f = LLVMAddFunction(g->m, sym, ft);
	else if (LLVMGlobalGetValueType(f) != ft) {
		error_at(g->c, "E0513", cp->entry_sp, "entry `%s` is called with two different signatures", sym);
		g->err = 1;
		return;
	}
	LLVMBuildCall2(g->b, ft, f, as, n, "");
}

/* glue_call_entry, only where `when` holds (NULL: always): a consumer of
 * a tile's sums runs in the work item that completes them. */
void glue_call_entry_if(G *g, const GInst *in, Frag *fr, int *nfr, int role_threads, LLVMValueRef tm,
                        LLVMValueRef tn, const LLVMValueRef kr[2], LLVMValueRef when)
{
	LLVMBuilderRef b = g->b;
	LLVMBasicBlockRef after = NULL;
	if (when) {
		LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->cx, g->fn, "sum");
		after = LLVMAppendBasicBlockInContext(g->cx, g->fn, "");
		LLVMBuildCondBr(b, when, yes, after);
		LLVMPositionBuilderAtEnd(b, yes);
	}
	glue_call_entry(g, in, fr, nfr, role_threads, tm, tn, kr);
	if (after) {
		LLVMBuildBr(b, after);
		LLVMPositionBuilderAtEnd(b, after);
	}
}

/* t (linear work item) -> (tile_m, tile_n) after the raster order. */
void glue_raster(G *g, LLVMValueRef t, LLVMValueRef tiles_m, LLVMValueRef tiles_n,
                 LLVMValueRef *tm, LLVMValueRef *tn)
{
	const Graph *gr = g->p->g;
	LLVMBuilderRef b = g->b;
	if (gr->order)
		glue_order_tile(g, t, tiles_m, tiles_n, tm, tn);
	else if (gr->raster == RASTER_GROUPED && gr->raster_group > 0) {
		LLVMValueRef G_ = ci32(g, gr->raster_group);
		/* plk_raster_grouped (plk.cuh) in its int arithmetic */
		LLVMValueRef per = LLVMBuildNSWMul(b, G_, tiles_n, "");
		LLVMValueRef grp = LLVMBuildSDiv(b, t, per, "");
		LLVMValueRef first = LLVMBuildNSWMul(b, grp, G_, "");
		LLVMValueRef left = LLVMBuildNSWSub(b, tiles_m, first, "");
		LLVMValueRef rows = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSLT, left, G_, ""), left, G_, "");
		LLVMValueRef r = LLVMBuildNSWSub(b, t, LLVMBuildNSWMul(b, grp, per, ""), "");
		*tm = LLVMBuildNSWAdd(b, first, LLVMBuildSRem(b, r, rows, ""), "tile_m");
		*tn = LLVMBuildSDiv(b, r, rows, "tile_n");
	} else if (gr->raster == RASTER_COLUMN) {
		*tm = LLVMBuildSRem(b, t, tiles_m, "tile_m");
		*tn = LLVMBuildSDiv(b, t, tiles_m, "tile_n");
	} else {
		*tm = LLVMBuildSDiv(b, t, tiles_n, "tile_m");
		*tn = LLVMBuildSRem(b, t, tiles_n, "tile_n");
	}
}

/* cursor += n slots: plk_pipe_skip (plk.cuh), in its int arithmetic and
 * order, which the monolith calls */
static void pipe_skip(G *g, LLVMValueRef pipe, LLVMValueRef n, int stages)
{
	LLVMBuilderRef b = g->b;
	LLVMTypeRef st = pipe_type(g);
	LLVMValueRef ps = LLVMBuildStructGEP2(b, st, pipe, 0, "");
	LLVMValueRef pp = LLVMBuildStructGEP2(b, st, pipe, 1, "");
	LLVMValueRef x = LLVMBuildNSWAdd(b, LLVMBuildLoad2(b, g->i32, ps, ""), n, "");
	LLVMValueRef wraps = LLVMBuildSDiv(b, x, ci32(g, stages), "");
	LLVMValueRef ph = LLVMBuildXor(b, LLVMBuildLoad2(b, g->i32, pp, ""),
	                               LLVMBuildAnd(b, wraps, ci32(g, 1), ""), "");
	LLVMBuildStore(b, ph, pp);
	LLVMBuildStore(b, LLVMBuildSRem(b, x, ci32(g, stages), ""), ps);
}

/* The role's entries called with (c, c) in turn: c = -1 after the last
 * work item, every entry (the flush: TMA stores in flight are waited for
 * there); c = -2 before the first, the entries whose contract says
 * `prologue` (work of the block's own, not a tile's: a comm stage's
 * puts). */
void glue_edge_calls(G *g, const PRole *r, Frag *fr, int *nfr, int c)
{
	for (int i = 0; r->role && i < r->role->insts.n; i++) {
		const GInst *in = r->role->insts.v[i];
		if (c == -1 || in->comp->prologue)
			glue_call_entry(g, in, fr, nfr, r->nwarps * 32, ci32(g, c), ci32(g, c), NULL);
	}
}

void glue_loop_open(G *g, const PRole *r, Frag *fr, int *nfr, const char *name, Loop *l)
{
	l->head = LLVMAppendBasicBlockInContext(g->cx, g->fn, arena_printf(g->c->arena, "%s.head", name));
	l->body = LLVMAppendBasicBlockInContext(g->cx, g->fn, arena_printf(g->c->arena, "%s.body", name));
	l->flush = LLVMAppendBasicBlockInContext(g->cx, g->fn, arena_printf(g->c->arena, "%s.flush", name));
	if (!l->no_prologue)
		glue_edge_calls(g, r, fr, nfr, -2);
	LLVMBuildBr(g->b, l->head);
	LLVMPositionBuilderAtEnd(g->b, l->head);
}

void glue_loop_close(G *g, const PRole *r, Frag *fr, int *nfr, const Loop *l, LLVMValueRef phi, LLVMValueRef init,
                     LLVMValueRef next, LLVMBasicBlockRef done)
{
	LLVMBasicBlockRef latch = LLVMGetInsertBlock(g->b);
	LLVMBuildBr(g->b, l->head);
	LLVMValueRef inv[2] = { init, next };
	LLVMBasicBlockRef inb[2] = { l->pre, latch };
	LLVMAddIncoming(phi, inv, inb, 2);
	LLVMPositionBuilderAtEnd(g->b, l->flush);
	if (!l->no_flush)
		glue_edge_calls(g, r, fr, nfr, -1);
	LLVMBuildBr(g->b, done);
}

/* The counts (glue.h) */
static void build_counts(G *g, LLVMValueRef tiles_m, LLVMValueRef tiles_n, Counts *cn)
{
	LLVMBuilderRef b = g->b;
	const Graph *gr = g->p->g;
	int quad = abi_quad(g->p), lg = abi_rows_log2(g->p);
	cn->tiles_m = tiles_m, cn->tiles_n = tiles_n;
	LLVMValueRef ntiles = cn->ntiles = LLVMBuildNSWMul(b, tiles_m, tiles_n, "ntiles");
	cn->sp.S = gr->split ? glue_expr_ir(g, gr->split) : ci32(g, 1);
	cn->sp.per = gr->split_per ? glue_expr_ir(g, gr->split_per) : NULL;
	cn->nitems = gr->split ? LLVMBuildNSWMul(b, ntiles, cn->sp.S, "nitems") : ntiles;
	cn->sp.zero = gr->split && !gr->stream ? LLVMBuildSExt(b, glue_expr_ir(g, gr->ws_zero), g->i64, "ws.zero") : NULL;
	cn->pairs_m = lg ? LLVMBuildAShr(b, LLVMBuildNSWAdd(b, tiles_m, ci32(g, (1 << lg) - 1), ""), ci32(g, lg), "pairs_m")
	                 : NULL;
	cn->pairs_n = quad ? LLVMBuildAShr(b, LLVMBuildNSWAdd(b, tiles_n, ci32(g, 1), ""), ci32(g, 1), "pairs_n") : NULL;
	if (lg) {   /* items over pairs (fours) of tile rows (quads: and pairs of columns) */
		LLVMValueRef np = LLVMBuildNSWMul(b, cn->pairs_m, quad ? cn->pairs_n : tiles_n, "npairs");
		cn->nitems = gr->split ? LLVMBuildNSWMul(b, np, cn->sp.S, "") : np;
	}
}

/* The block's (or cluster's) stride through the work items, read where
 * it is used, as the monolith's `t += gridDim.x` reads it; lg: log2 of
 * the tile rows a cluster takes (abi_rows_log2). */
static LLVMValueRef items_step(G *g, int lg, int twod, LLVMValueRef nitems)
{
	if (g->ops)   /* a megakernel's op (mega.c: no pairs, no clusters) */
		return g->op_step;
	if (!g->p->g->persistent)
		return nitems;   /* one work item per block */
	LLVMValueRef nx = call0(g, "llvm.nvvm.read.ptx.sreg.nctaid.x", g->i32);
	if (lg)
		return LLVMBuildLShr(g->b, nx, ci32(g, lg), "");
	return twod ? LLVMBuildMul(g->b, nx, call0(g, "llvm.nvvm.read.ptx.sreg.nctaid.y", g->i32), "") : nx;
}

/* The block's (or cluster's) first work item. */
static LLVMValueRef items_first(G *g, int lg, int twod)
{
	if (g->ops)
		return g->op_first;
	LLVMValueRef t0 = call0(g, "llvm.nvvm.read.ptx.sreg.ctaid.x", g->i32);
	if (lg)
		return LLVMBuildLShr(g->b, t0, ci32(g, lg), "cluster");
	if (twod)
		t0 = LLVMBuildAdd(g->b, t0, LLVMBuildMul(g->b, call0(g, "llvm.nvvm.read.ptx.sreg.ctaid.y", g->i32),
		                                        call0(g, "llvm.nvvm.read.ptx.sreg.nctaid.x", g->i32), ""), "");
	return t0;
}

/* Pingpong lanes: the cursor of r's ring steps over `count` items of the
 * other lanes, items base + j x step for j = j0 .. j0 + count - 1: the
 * ring's `per` slots each, or under a split each item's own count (as
 * the monolith's pipe_skip_text says it). */
static void lanes_skip(G *g, const PRole *r, Frag *fr, int *nfr, const Split *sp, LLVMValueRef base, int j0,
                       int count, int lg, int twod, LLVMValueRef nitems)
{
	LLVMBuilderRef b = g->b;
	const GEdge *le = r->role->lane_edge;
	LLVMValueRef pipe = pipe_ptr(g, fr, nfr, le->tp);
	int split = g->p->g->split != NULL;
	LLVMValueRef n = split ? ci32(g, 0) : LLVMBuildNSWMul(b, ci32(g, count), glue_expr_ir(g, le->per), "");
	for (int j = j0; split && j < j0 + count; j++)
		n = LLVMBuildNSWAdd(b, n, glue_split_count(g, sp, LLVMBuildAdd(b, base, LLVMBuildMul(b, ci32(g, j),
		                    items_step(g, lg, twod, nitems), ""), "")), "");
	pipe_skip(g, pipe, n, placement_ring(g->p, le)->stages);
}

/* One role: for (t = blockIdx.x; t < ntiles; t += gridDim.x) { entries }.
 * whole (split(auto)'s full rounds): while t - blockIdx.x + gridDim.x <=
 * ntiles, each tile whole, after the streamed segments (glue_split.c,
 * glue_stream_body), the prologue called before those.
 * Rows (2 x 1 or 4 x 1 clusters, which the runtime launches whole): work
 * item t is R = 2 or 4 tile rows on one column; t = cluster id, stepping
 * by the number of clusters, so the CTAs of a cluster take the same items
 * in the same order and leave the loop together. The CTA of rank r takes
 * tile row Rm + r; where the tile rows are not a multiple of R the last
 * group's tiles past M are loaded as zeros and clipped by the epilogue,
 * so that the partners still meet every barrier. Quads (2 x 2 clusters, a grid of
 * 2 x clusters by 2): item t is two tile rows by two tile columns, the
 * CTA at (x, y) of its cluster taking tile (2m + x, 2n + y), past the
 * edges the same way. */
void glue_role_body(G *g, const PRole *r, Frag *fr, int *nfr, const Counts *cn, LLVMBasicBlockRef done, int whole)
{
	LLVMBuilderRef b = g->b;
	int quad = abi_quad(g->p), lg = abi_rows_log2(g->p);
	LLVMValueRef tiles_m = lg ? cn->pairs_m : cn->tiles_m, tiles_n = quad ? cn->pairs_n : cn->tiles_n;
	const Graph *gr = g->p->g;
	const int split = gr->split && !whole;
	Split sp = cn->sp;
	LLVMValueRef nitems = cn->nitems;
	/* Clusters may come as a 2-D grid: blocks are numbered row-major. */
	int twod = g->p->g->cluster[1] > 1 && !quad;
	LLVMValueRef t_first = split ? items_first(g, lg, twod) : NULL;   /* split lanes' skip */
	/* Pingpong: lane L of N takes the block's items L, L + N, ... and
	 * steps its cursor of the shared ring over the other lanes' slots
	 * (the edge's `per` each), here before its first item and after each
	 * one. The stride and `per` are computed where they are used, as the
	 * monolith's text has them. */
	const GEdge *le = r->role && r->role->lanes > 1 ? r->role->lane_edge : NULL;
	int lanes = le ? r->role->lanes : 1;
	Loop l = { .pre = LLVMGetInsertBlock(b), .no_prologue = whole };
	g->preheader = l.pre;
	/* The lanes' turns (place.c): lane 0 passes its first wait on the
	 * fresh barrier (parity 1), the others wait for their predecessor. */
	LLVMValueRef turn = NULL;
	if (le) {
		turn = glue_alloca(g, g->i32, "turn.parity");
		LLVMPositionBuilderAtEnd(b, l.pre);
		LLVMBuildStore(b, ci32(g, r->lane == 0), turn);
	}
	glue_loop_open(g, r, fr, nfr, "tile", &l);
	/* the first item, after the prologue calls: the monolith's loop
	 * starts there */
	LLVMPositionBuilderBefore(b, LLVMGetBasicBlockTerminator(l.pre));
	if (le && r->lane)   /* lane L: the L items of the lanes before it, then its first */
		lanes_skip(g, r, fr, nfr, &sp, t_first, 0, r->lane, lg, twod, nitems);
	LLVMValueRef t0 = items_first(g, lg, twod);
	if (le)
		t0 = LLVMBuildAdd(b, t0, LLVMBuildMul(b, ci32(g, r->lane), items_step(g, lg, twod, nitems), ""), "");
	LLVMPositionBuilderAtEnd(b, l.head);
	/* `grid dynamic`: the phi counts the block's items, each read from
	 * the items' ring (abi_item_source); the first role's first thread
	 * fetches them */
	LLVMValueRef k = LLVMBuildPhi(b, g->i32, gr->dynamic ? "item.k" : "tile"), t = k;
	if (gr->dynamic) {
		LLVMValueRef producer = ci32(g, 0);
		if (r == g->p->roles.v[0]) {
			LLVMValueRef tid = call0(g, "llvm.nvvm.read.ptx.sreg.tid.x", g->i32);
			producer = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, tid, ci32(g, 32 * r->first_warp), ""),
			                         g->i32, "producer");
		}
		LLVMValueRef a[5] = { smem_u32(g, g->p->items_bar), k, producer, g->kargs[gr->ws_kparam], nitems };
		t = helper_call_ret(g, g->i32, "plk_glue_item", a, 5);
	}
	/* whole: while a full round is left, t - first + step <= ntiles, in
	 * int as the monolith's C has it */
	LLVMValueRef more = !whole ? LLVMBuildICmp(b, LLVMIntSLT, t, nitems, "")
	                  : LLVMBuildICmp(b, LLVMIntSLE, LLVMBuildNSWAdd(b, LLVMBuildNSWSub(b, t, items_first(g, lg, twod), ""),
	                                                                 items_step(g, lg, twod, nitems), ""),
	                                  cn->ntiles, "round");
	LLVMBuildCondBr(b, more, l.body, l.flush);
	LLVMPositionBuilderAtEnd(b, l.body);
	LLVMValueRef tm, tn, tile = split ? LLVMBuildSDiv(b, t, sp.S, "tile") : t, kr[2] = { NULL, NULL };
	LLVMValueRef s = split ? LLVMBuildSRem(b, t, sp.S, "split") : ci32(g, 0);
	if (whole)   /* all of the tile's K tiles */
		kr[0] = ci32(g, 0), kr[1] = sp.per;
	else if (sp.per)   /* the split's K tiles, then the tile: the monolith's order */
		glue_split_range(g, &sp, s, kr);
	glue_raster(g, tile, tiles_m, tiles_n, &tm, &tn);
	/* the CTA's rank read here, in the loop, as the monolith does */
	if (lg) {
		LLVMValueRef rank = LLVMBuildAnd(b, call0(g, "llvm.nvvm.read.ptx.sreg.ctaid.x", g->i32), ci32(g, (1 << lg) - 1),
		                                 "rank");
		tm = LLVMBuildNSWAdd(b, LLVMBuildNSWMul(b, ci32(g, 1 << lg), tm, ""), rank, "tile_m");
	}
	if (quad) {   /* the grid's y is the cluster's: 0 or 1 */
		LLVMValueRef rank_n = call0(g, "llvm.nvvm.read.ptx.sreg.ctaid.y", g->i32);
		tn = LLVMBuildNSWAdd(b, LLVMBuildNSWMul(b, ci32(g, 2), tn, ""), rank_n, "tile_n");
	}
	if (le) {   /* my turn on the ring */
		LLVMValueRef ph = LLVMBuildLoad2(b, g->i32, turn, "");
		LLVMValueRef a[2] = { smem_u32(g, r->turn_bar + 8 * r->lane), ph };
		helper_call(g, "plk_glue_mbar_wait", a, 2);
		LLVMBuildStore(b, LLVMBuildXor(b, ph, ci32(g, 1), ""), turn);
	}
	/* split: a consumer of the tiles' sums runs on the last split only */
	LLVMValueRef last = split ? LLVMBuildICmp(b, LLVMIntEQ, s, LLVMBuildSub(b, sp.S, ci32(g, 1), ""),
	                                          "last.split") : NULL;
	for (int i = 0; r->role && i < r->role->insts.n; i++) {
		const GInst *in = r->role->insts.v[i];
		glue_call_entry_if(g, in, fr, nfr, r->nwarps * 32, tm, tn, kr, in->after_reduce ? last : NULL);
		for (int j = 0; gr->split && j < gr->edges.n; j++) {
			const GEdge *e = gr->edges.v[j];
			if (!e->reduce || e->from != in)
				continue;
			if (whole) {   /* the tile's sums are its partials: copied, as the reduction does */
				int bytes = 4 * abi_splitk_elems(e, r->nwarps * 32);
				LLVMBuildMemCpy(b, glue_frag_ptr(g, fr, nfr, e->tp, r->nwarps * 32), 4,
				                glue_frag_ptr(g, fr, nfr, e->fp, r->nwarps * 32), 4, ci32(g, bytes));
			} else
				glue_split_reduce(g, r, e, fr, nfr, &sp, tile, s);
		}
		if (le && in == le->to && !edge_handoff(le)) {   /* the ring is the next lane's */
			LLVMValueRef a[1] = { smem_u32(g, r->turn_bar + 8 * ((r->lane + 1) % lanes)) };
			helper_call(g, "plk_glue_mbar_arrive", a, 1);
		}
	}
	if (le)   /* the other lanes' items until this lane's next: lanes - 1 of them */
		lanes_skip(g, r, fr, nfr, &sp, t, 1, lanes - 1, lg, twod, nitems);
	/* a megakernel's op strides like a persistent kernel: its block has
	 * every piece first + k x step */
	LLVMValueRef next = gr->dynamic ? LLVMBuildAdd(b, k, ci32(g, 1), "")
	                  : !g->ops && !g->p->g->persistent ? nitems
	                  : LLVMBuildAdd(b, t, le ? LLVMBuildMul(b, ci32(g, lanes), items_step(g, lg, twod, nitems), "lanes.step")
	                                          : items_step(g, lg, twod, nitems), "");
	glue_loop_close(g, r, fr, nfr, &l, k, gr->dynamic ? ci32(g, 0) : t0, next, done);
}

/* Where a role's threads leave. With a cluster no CTA may exit while a
 * partner can still write its shared memory or arrive on its barriers.
 * The partners' multicasts into a ring's slots land before this CTA's
 * consumers pass the full barriers they wait on, so what can still come
 * are the partners' consumers' releases of the slots this CTA's producer
 * filled: the producer role leaves only once every slot of each ring it
 * multicasts is empty again (its `stages` next acquires, each passing
 * when the fill `stages` back was released cluster-wide). No cluster
 * barrier: its release (a fence of every thread) cost the clustered
 * GEMMs 2-5% at 1000 x 3000 (bench/results/2026-12-07-cluster-exit.md).
 * Filled in after the role's body, whose ring cursors it reads. */
static LLVMBasicBlockRef role_exit(G *g, LLVMBasicBlockRef done)
{
	if (!abi_clustered(g->p))
		return done;
	return LLVMAppendBasicBlockInContext(g->cx, g->fn, "cluster.exit");
}

static void role_exit_fill(G *g, const PRole *r, Frag *fr, int *nfr, LLVMBasicBlockRef leave,
                           LLVMBasicBlockRef done)
{
	if (leave == done)
		return;
	LLVMBuilderRef in_use = glue_aside(g);
	LLVMPositionBuilderAtEnd(g->b, leave);
	for (int i = 0; i < g->p->rings.n; i++) {
		const PRing *ring = g->p->rings.v[i];
		if (!abi_ring_drains(g->p, r, ring))
			continue;
		LLVMTypeRef st = pipe_type(g);
		LLVMValueRef pipe = pipe_ptr(g, fr, nfr, ring->edge->fp);
		LLVMValueRef a[4] = { smem_u32(g, ring->empty_bar), ci32(g, ring->stages),
		                      LLVMBuildLoad2(g->b, g->i32, LLVMBuildStructGEP2(g->b, st, pipe, 0, ""), "stage"),
		                      LLVMBuildLoad2(g->b, g->i32, LLVMBuildStructGEP2(g->b, st, pipe, 1, ""), "phase") };
		helper_call(g, "plk_glue_ring_drain", a, 4);
	}
	LLVMBuildBr(g->b, done);
	glue_back(g, in_use);
}

static void build_main(G *g, const char *name)
{
	const Placement *p = g->p;
	const Graph *gr = p->g;
	LLVMBuilderRef b = g->b;
	int nk = gr->kparams.n;
	LLVMTypeRef *pts = arena_alloc(g->c->arena, (nk + 3) * sizeof *pts);
	for (int i = 0; i < nk; i++)
		pts[i] = kparam_type(g, ((const GKParam *)gr->kparams.v[i])->kind);
	pts[nk] = pts[nk + 1] = g->i32;   /* ops: first work item, stride */
	g->fn = LLVMAddFunction(g->m, name, LLVMFunctionType(g->v, pts, nk + 2 * g->ops, 0));
	g->last_alloca = NULL;
	if (g->ops) {
		g->op_first = LLVMGetParam(g->fn, nk);
		g->op_step = LLVMGetParam(g->fn, nk + 1);
		LLVMSetValueName2(g->op_first, "op.first", 8);
		LLVMSetValueName2(g->op_step, "op.step", 7);
	}
	/* a megakernel calls each op kernel's main once per op: one body each */
	glue_fn_attr(g, g->fn, g->ops ? "noinline" : "alwaysinline");
	glue_fn_attr(g, g->fn, "nounwind");
	g->kargs = arena_alloc(g->c->arena, (nk + 1) * sizeof *g->kargs);
	for (int i = 0; i < nk; i++) {
		g->kargs[i] = LLVMGetParam(g->fn, i);
		LLVMSetValueName2(g->kargs[i], ((const GKParam *)gr->kparams.v[i])->name,
		                  strlen(((const GKParam *)gr->kparams.v[i])->name));
	}
	LLVMBasicBlockRef entry = LLVMAppendBasicBlockInContext(g->cx, g->fn, "entry");
	LLVMBasicBlockRef init = LLVMAppendBasicBlockInContext(g->cx, g->fn, "mbar.init");
	LLVMBasicBlockRef sync = LLVMAppendBasicBlockInContext(g->cx, g->fn, "sync");
	LLVMBasicBlockRef done = LLVMAppendBasicBlockInContext(g->cx, g->fn, "done");
	LLVMPositionBuilderAtEnd(b, entry);
	LLVMValueRef tid = call0(g, "llvm.nvvm.read.ptx.sreg.tid.x", g->i32);
	LLVMValueRef warp = LLVMBuildLShr(b, tid, ci32(g, 5), "warp");
	LLVMValueRef tiles_m = glue_expr_ir(g, gr->tiles[0]);
	LLVMValueRef tiles_n = glue_expr_ir(g, gr->tiles[1]);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntEQ, tid, ci32(g, 0), ""), init, sync);

	/* Thread 0 starts the kernel's TMA descriptors towards the SM, so
	 * that the first load or store through each need not fetch it, then
	 * initialises every stage's full and empty mbarrier. */
	LLVMPositionBuilderAtEnd(b, init);
	for (int i = 0; i < nk; i++)
		if (((const GKParam *)gr->kparams.v[i])->kind == KP_TENSORMAP)
			helper_call(g, "plk_glue_prefetch_tmap", &g->kargs[i], 1);
	for (int i = 0; i < p->rings.n; i++) {
		const PRing *r = p->rings.v[i];
		for (int s = 0; s < r->stages; s++) {
			LLVMValueRef a[2] = { smem_u32(g, r->full_bar + 8 * s), ci32(g, r->full_count) };
			helper_call(g, "plk_glue_mbar_init", a, 2);
			a[0] = smem_u32(g, r->empty_bar + 8 * s), a[1] = ci32(g, r->empty_count);
			helper_call(g, "plk_glue_mbar_init", a, 2);
		}
	}
	for (int i = 0; i < p->roles.n; i++) {   /* each lane's turn: all its threads arrive */
		const PRole *r = p->roles.v[i];
		if (r->role->lanes < 2)
			continue;
		LLVMValueRef a[2] = { smem_u32(g, r->turn_bar + 8 * r->lane), ci32(g, 32 * r->nwarps) };
		helper_call(g, "plk_glue_mbar_init", a, 2);
	}
	for (int s = 0; gr->dynamic && s < PLK_ITEM_SLOTS; s++) {   /* the work items' slots */
		LLVMValueRef a[2] = { smem_u32(g, abi_item_full(p) + 8 * s), ci32(g, 1) };
		helper_call(g, "plk_glue_mbar_init", a, 2);
		a[0] = smem_u32(g, abi_item_empty(p) + 8 * s), a[1] = ci32(g, abi_item_threads(p));
		helper_call(g, "plk_glue_mbar_init", a, 2);
	}
	if (p->arch->sm >= 90 && p->rings.n)
		helper_call(g, "plk_glue_fence_mbar_init", NULL, 0);
	LLVMBuildBr(b, sync);

	/* With a cluster, the partners' barriers must be initialised before
	 * any remote arrival or multicast reaches them: a cluster barrier,
	 * whose arrive is relaxed where fence.mbarrier_init released them. */
	LLVMPositionBuilderAtEnd(b, sync);
	if (abi_clustered(p))
		helper_call(g, p->rings.n ? "plk_glue_cluster_sync_init" : "plk_glue_cluster_sync", NULL, 0);
	else
		call0(g, "llvm.nvvm.barrier0", g->v);
	Counts cn;
	build_counts(g, tiles_m, tiles_n, &cn);

	/* Dispatch. ptxas honours setmaxnreg only when each budget's code is
	 * a branch of its own that never merges with another budget's code
	 * (else C7507: it keeps the registers every path needs). So: one
	 * branch per run of warpgroups with the same budget and roles; in it
	 * the setmaxnreg, then one branch per role; every branch ends at
	 * `done`, which only returns. */
	int nwg = (p->threads + 127) / 128, cap = 0;
	int *wregs = arena_alloc(g->c->arena, (nwg + 1) * sizeof *wregs);
	if (abi_wg_regs(g->c, p, wregs, &cap))
		g->err = 1;
	int nports = 1;
	for (int i = 0; i < gr->insts.n; i++) {   /* and the `regs NAME: WORDS` kept */
		const GInst *in = gr->insts.v[i];
		nports += (in->ports.n + in->comp->keeps.n) * inst_lanes(gr, in);
	}
	if (gr->stream)   /* the streamed segments' frags are arrays of their own (glue_stream_body) */
		nports *= 2;
	Frag *fr = arena_alloc(g->c->arena, nports * sizeof *fr);
	int nfr = 0;
	int w0 = 0, w1;
	do {
		/* the run [w0, w1): same budget, same roles (when budgets exist) */
		w1 = abi_wg_run(p, wregs, cap, w0);
		LLVMBasicBlockRef run = LLVMAppendBasicBlockInContext(g->cx, g->fn, "warpgroups");
		LLVMBasicBlockRef next = LLVMAppendBasicBlockInContext(g->cx, g->fn, "");
		/* `warp >> 2` again for each run, as the monolith writes it: one
		 * use each, which the optimiser folds alike in both */
		LLVMValueRef wg = LLVMBuildLShr(b, warp, ci32(g, 2), "warpgroup");
		LLVMValueRef in = LLVMBuildICmp(b, LLVMIntULT, LLVMBuildSub(b, wg, ci32(g, w0), ""),
		                                ci32(g, w1 - w0), "");
		LLVMBuildCondBr(b, in, run, next);
		LLVMPositionBuilderAtEnd(b, run);
		if (cap && wregs[w0] && wregs[w0] != cap) {
			char name[64];
			snprintf(name, sizeof name, "plk_glue_setmaxnreg_%s_%d", wregs[w0] > cap ? "inc" : "dec",
			         wregs[w0]);
			helper_call(g, name, NULL, 0);
		}
		for (int i = 0; i < p->roles.n; i++) {
			const PRole *r = p->roles.v[i];
			if (!abi_role_in(r, w0, w1))
				continue;
			LLVMBasicBlockRef yes = LLVMAppendBasicBlockInContext(g->cx, g->fn, "role");
			LLVMBasicBlockRef no = LLVMAppendBasicBlockInContext(g->cx, g->fn, "");
			LLVMValueRef rin = LLVMBuildICmp(b, LLVMIntULT,
			                                 LLVMBuildSub(b, warp, ci32(g, r->first_warp), ""),
			                                 ci32(g, r->nwarps), "");
			LLVMBuildCondBr(b, rin, yes, no);
			LLVMPositionBuilderAtEnd(b, yes);
			g->lane = r->lane;
			LLVMBasicBlockRef leave = role_exit(g, done);
			if (gr->stream) {   /* the prologue; the leftover tiles streamed, then the full rounds whole */
				LLVMBasicBlockRef then = LLVMAppendBasicBlockInContext(g->cx, g->fn, "whole");
				g->preheader = LLVMGetInsertBlock(b);
				glue_edge_calls(g, r, fr, &nfr, -2);
				g->frag_gen = 1;
				glue_stream_body(g, r, fr, &nfr, &cn, then);
				g->frag_gen = 0;
				LLVMPositionBuilderAtEnd(b, then);
				glue_role_body(g, r, fr, &nfr, &cn, leave, 1);
			} else
				glue_role_body(g, r, fr, &nfr, &cn, leave, 0);
			role_exit_fill(g, r, fr, &nfr, leave, done);
			g->lane = 0;
			LLVMPositionBuilderAtEnd(b, no);
		}
		LLVMBuildBr(b, done);   /* warps of the run without a role */
		LLVMPositionBuilderAtEnd(b, next);
		w0 = w1;
	} while (w0 < nwg);
	LLVMBuildBr(b, done);
	LLVMPositionBuilderAtEnd(b, done);
	LLVMBuildRetVoid(b);
}

/* Drops the attributes LLVM 14 adds to intrinsic declarations that the
 * LLVM 7.0.1 reader in libNVVM does not know. */
static void strip_new_attrs(G *g)
{
	static const char *const newer[] = { "willreturn", "nofree", "nosync", "noundef", "immarg",
		"mustprogress", "nocallback", "noprofile", "nocf_check", "byval", "sret", "elementtype",
		"preallocated", "inalloca", "vscale_range", "hot", "nomerge", "null_pointer_is_valid" };
	for (LLVMValueRef f = LLVMGetFirstFunction(g->m); f; f = LLVMGetNextFunction(f)) {
		int np = LLVMCountParams(f);
		for (int idx = -1; idx <= np; idx++) {
			LLVMAttributeIndex ai = idx < 0 ? LLVMAttributeFunctionIndex : (LLVMAttributeIndex)idx;
			for (size_t k = 0; k < sizeof newer / sizeof *newer; k++) {
				unsigned id = LLVMGetEnumAttributeKindForName(newer[k], strlen(newer[k]));
				if (id)
					LLVMRemoveEnumAttributeAtIndex(f, ai, id);
			}
		}
	}
}

static LLVMModuleRef build_module(G *g, Ctx *c, const Placement *const *ps, int nps, int ops)
{
	const Placement *p = ps[0];
	memset(g, 0, sizeof *g);
	g->c = c, g->p = p, g->ps = ps, g->nps = nps, g->ops = ops;
	g->cx = LLVMContextCreate();
	g->m = LLVMModuleCreateWithNameInContext("plk_glue", g->cx);
	g->b = LLVMCreateBuilderInContext(g->cx);
	g->aside = LLVMCreateBuilderInContext(g->cx);
	LLVMSetTarget(g->m, TRIPLE);
	LLVMSetDataLayout(g->m, DATALAYOUT);
	g->v = LLVMVoidTypeInContext(g->cx);
	g->i8 = LLVMInt8TypeInContext(g->cx);
	g->i8p = LLVMPointerType(g->i8, 0);
	g->i8p3 = LLVMPointerType(g->i8, 3);
	g->i32 = LLVMInt32TypeInContext(g->cx);
	g->i64 = LLVMInt64TypeInContext(g->cx);
	g->f32 = LLVMFloatTypeInContext(g->cx);

	/* extern __shared__ __align__(1024) char pipelink_smem[] */
	g->smem = LLVMAddGlobalInAddressSpace(g->m, LLVMArrayType(g->i8, 0), "pipelink_smem", 3);
	LLVMSetLinkage(g->smem, LLVMExternalLinkage);
	LLVMSetAlignment(g->smem, 1024);

	AbiFn fns[ABI_NFNS];
	abi_sigs(fns);
	int hooks = 0;
	for (int v = 0; v < nps; v++) {   /* one table over every kernel's instances */
		abi_tables(c, ps[v], fns);
		hooks |= abi_has_hooks(ps[v]->g);
	}
	for (int i = 0; i < ABI_NFNS; i++)
		if (i != F_HOOK_BOUND || hooks)
			define_abi(g, &fns[i]);
	if (hooks)
		for (int k = 0; k < HK_NKINDS; k++) {
			int nf;
			const HookFnInfo *f = hook_fns(k, &nf);
			for (int i = 0; i < nf; i++)
				if (f[i].dispatch)
					glue_define_dispatch(g, &f[i]);
		}
	for (int v = 0; v < nps; v++) {
		g->p = ps[v];
		build_main(g, abi_main_name(c, ps, nps, v));
	}
	g->p = p;
	strip_new_attrs(g);

	LLVMValueRef ver[2] = { ci32(g, 2), ci32(g, 0) };
	LLVMAddNamedMetadataOperand(g->m, "nvvmir.version", LLVMMDNodeInContext(g->cx, ver, 2));

	char *msg = NULL;
	if (!g->err && LLVMVerifyModule(g->m, LLVMReturnStatusAction, &msg)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0501", kernel_span(p->g), "the generated glue module is invalid");
		diag_note(d, "LLVM: %s", msg ? msg : "(no message)");
		diag_help(d, "this is a bug in plkc; --emit=glue-ll shows the module");
		diag_end(c, d);
		g->err = 1;
	}
	LLVMDisposeMessage(msg);
	return g->m;
}

static void dispose(G *g)
{
	LLVMDisposeBuilder(g->b);
	LLVMDisposeBuilder(g->aside);
	LLVMDisposeModule(g->m);
	LLVMContextDispose(g->cx);
}

int glue_emit_ll(Ctx *c, const Placement *p, FILE *out)
{
	return glue_emit_ll_ops(c, &p, 1, 0, trampoline_source(c, p), out);
}

int glue_emit_ll_ops(Ctx *c, const Placement *const *ps, int nps, int ops, const char *entry, FILE *out)
{
	G g;
	/* The kernel entry (NVRTC, trampoline.c or mega_entry.c) heads it as a comment. */
	for (const char *s = entry; s && *s;) {
		const char *e = strchr(s, '\n');
		int n = e ? (int)(e - s) : (int)strlen(s);
		fprintf(out, "; %.*s\n", n, s);
		s += n + (e != NULL);
	}
	build_module(&g, c, ps, nps, ops);
	char *s = LLVMPrintModuleToString(g.m);
	fputs(s, out);
	LLVMDisposeMessage(s);
	int err = g.err;
	dispose(&g);
	return err ? -1 : 0;
}

int glue_bitcode(Ctx *c, const Placement *p, void **bc, size_t *n)
{
	return glue_bitcode_multi(c, &p, 1, bc, n);
}

int glue_bitcode_multi(Ctx *c, const Placement *const *ps, int nps, void **bc, size_t *n)
{
	return glue_bitcode_ops(c, ps, nps, 0, bc, n);
}

int glue_bitcode_ops(Ctx *c, const Placement *const *ps, int nps, int ops, void **bc, size_t *n)
{
	G g;
	const Placement *p = ps[0];
	*bc = NULL, *n = 0;
	build_module(&g, c, ps, nps, ops);
	int err = g.err;
	if (!err) {
		LLVMMemoryBufferRef mb = LLVMWriteBitcodeToMemoryBuffer(g.m);
		if (!mb) {
			error_at(c, "E0501", kernel_span(p->g), "LLVM could not write the glue bitcode");
			err = 1;
		} else {
			*n = LLVMGetBufferSize(mb);
			*bc = malloc(*n);
			memcpy(*bc, LLVMGetBufferStart(mb), *n);
			LLVMDisposeMemoryBuffer(mb);
		}
	}
	dispose(&g);
	return err ? -1 : 0;
}

const char *glue_llvm_version(void)
{
	return LLVM_VERSION_STRING;
}
