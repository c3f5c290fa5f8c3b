/* glue.h: what the glue module's files share (glue.c, the module and its
 * kernels' bodies; glue_split.c, the work items that split K; glue_hook.c,
 * the calls into hooks): the builder's state, its small IR helpers, and
 * the functions one file calls in another. Nothing outside the glue
 * includes it. */
#ifndef PLK_GLUE_H
#define PLK_GLUE_H
#include <llvm-c/Core.h>
#include "plk.h"

typedef struct G {
	Ctx *c;
	const Placement *p;    /* the kernel being built */
	const Placement *const *ps;   /* every kernel of the module (the variants of a select) */
	int nps;
	LLVMContextRef cx;
	LLVMModuleRef m;
	LLVMBuilderRef b;
	LLVMBuilderRef aside;  /* for code out of line (allocas, preheaders): glue_aside */
	LLVMTypeRef v, i8, i8p, i8p3, i32, i64, f32;
	LLVMValueRef smem;     /* [0 x i8] addrspace(3), the dynamic shared memory */
	LLVMValueRef fn;       /* function being built */
	LLVMValueRef last_alloca;   /* fn's last, in its entry block (glue_alloca) */
	LLVMValueRef *kargs;   /* plk_main's params, by Graph.kparams index */
	LLVMBasicBlockRef preheader;   /* of the tile loop being built */
	int lane;              /* of the role being built (pingpong lanes); 0 */
	int frag_gen;          /* 1: split(auto)'s streamed segments, frag arrays of their own */
	int ops;               /* the ops of a megakernel: each main takes its first
	                          work item and its stride (after the kernel params) */
	LLVMValueRef op_first, op_step;
	int err;
} G;

static inline LLVMValueRef ci32(G *g, int64_t v) { return LLVMConstInt(g->i32, (uint64_t)v, 1); }

static inline LLVMValueRef intrinsic(G *g, const char *name, LLVMTypeRef ret)
{
	LLVMValueRef f = LLVMGetNamedFunction(g->m, name);
	if (!f)
		f = LLVMAddFunction(g->m, name, LLVMFunctionType(ret, NULL, 0, 0));
	return f;
}

static inline LLVMValueRef call0(G *g, const char *name, LLVMTypeRef ret)
{
	LLVMValueRef f = intrinsic(g, name, ret);
	return LLVMBuildCall2(g->b, LLVMFunctionType(ret, NULL, 0, 0), f, NULL, 0, "");
}

/* A call to a void helper the entry's NVRTC unit defines (trampoline.c):
 * inline asm cannot be written here, since LLVM 14 encodes it with a
 * bitcode record (CST_CODE_INLINEASM, 30) that the LLVM 7.0.1 reader does
 * not know; the call would silently become a call of undef. */
static inline LLVMValueRef helper_call_ret(G *g, LLVMTypeRef ret, const char *name, LLVMValueRef *args, int n)
{
	LLVMTypeRef ts[16];   /* the split reductions' take the most, 14 */
	for (int i = 0; i < n && i < 16; i++)
		ts[i] = LLVMTypeOf(args[i]);
	LLVMTypeRef ft = LLVMFunctionType(ret, ts, n, 0);
	LLVMValueRef f = LLVMGetNamedFunction(g->m, name);
	if (!f)
		f = LLVMAddFunction(g->m, name, ft);
	return LLVMBuildCall2(g->b, ft, f, args, n, "");
}

static inline void helper_call(G *g, const char *name, LLVMValueRef *args, int n)
{
	helper_call_ret(g, g->v, name, args, n);
}

/* Frag arrays: one per register edge (producer and consumer share it) and
 * lane. */
typedef struct Frag { const void *key; int lane, gen; LLVMValueRef ptr; } Frag;

/* `grid split(S)`: S, per and the partials' offset in the workspace
 * (ws_zero), computed once before the tile loop (glue_split.c) */
typedef struct Split { LLVMValueRef S, per, zero; } Split;

/* The work items' counts, computed once after the entry's barrier and
 * in the monolith's order (monolith.c), so that both programs give ptxas
 * the same instructions in the same place: tiles, split, pairs. */
typedef struct Counts {
	LLVMValueRef tiles_m, tiles_n, ntiles, pairs_m, pairs_n, nitems;
	Split sp;
} Counts;

/* glue.c */
LLVMValueRef glue_expr_ir(G *g, const Expr *e);
LLVMValueRef glue_expr_ir_t(G *g, const Expr *e, LLVMTypeRef t);
LLVMValueRef glue_frag_ptr(G *g, Frag *fr, int *nfr, const GPort *pt, int role_threads);
void glue_call_entry(G *g, const GInst *in, Frag *fr, int *nfr, int role_threads,
                     LLVMValueRef tm, LLVMValueRef tn, const LLVMValueRef kr[2]);
void glue_call_entry_if(G *g, const GInst *in, Frag *fr, int *nfr, int role_threads, LLVMValueRef tm,
                        LLVMValueRef tn, const LLVMValueRef kr[2], LLVMValueRef when);
void glue_raster(G *g, LLVMValueRef t, LLVMValueRef tiles_m, LLVMValueRef tiles_n,
                 LLVMValueRef *tm, LLVMValueRef *tn);
void glue_edge_calls(G *g, const PRole *r, Frag *fr, int *nfr, int c);
LLVMValueRef glue_alloca(G *g, LLVMTypeRef t, const char *name);   /* in the entry block */
/* A role's loop over its work items (glue_role_body, glue_stream_body): open
 * appends NAME.head, .body and .flush, calls the prologue entries and
 * leaves the builder at the head, where the caller builds its phi and the
 * branch to body or flush; close ends the body with the back edge, gives
 * the phi its value from pre (init) and from the latch (next), and calls
 * the flush entries before done. */
/* split(auto) runs two loops a role, the streamed segments' then the
 * whole tiles' (glue.c, build_main): neither calls the prologue entries
 * (the caller has), the first not the flush. */
typedef struct { LLVMBasicBlockRef pre, head, body, flush; int no_prologue, no_flush; } Loop;
void glue_loop_open(G *g, const PRole *r, Frag *fr, int *nfr, const char *name, Loop *l);
void glue_loop_close(G *g, const PRole *r, Frag *fr, int *nfr, const Loop *l, LLVMValueRef phi, LLVMValueRef init,
                     LLVMValueRef next, LLVMBasicBlockRef done);

/* glue.c: small pieces the other glue files use */
void glue_fn_attr(G *g, LLVMValueRef f, const char *name);
/* Code out of line (an alloca, a preheader's store): g->b becomes the
 * aside builder until glue_back, so the builder in use keeps its place. */
LLVMBuilderRef glue_aside(G *g);
void glue_back(G *g, LLVMBuilderRef in_use);
void glue_at_preheader(G *g);   /* the builder to the end of the tile loop's preheader */
LLVMValueRef glue_frag_find(const Frag *fr, int nfr, const void *key, int lane, int gen);   /* or NULL */
LLVMTypeRef glue_param_type(G *g, const Param *pa);
/* in's param values as its entry (or hook function) takes them, into
 * ts[], as[]; their count */
int glue_param_values(G *g, const GInst *in, LLVMTypeRef *ts, LLVMValueRef *as);

/* glue_hook.c */
LLVMValueRef glue_hook_ctx(G *g, Frag *fr, int *nfr, const GPort *pt);   /* an `in hook` port's argument */
void glue_define_dispatch(G *g, const HookFnInfo *f);                    /* one hook dispatch function */
void glue_order_tile(G *g, LLVMValueRef t, LLVMValueRef tiles_m, LLVMValueRef tiles_n,
                     LLVMValueRef *tm, LLVMValueRef *tn);                  /* `grid order(INST)` */

/* glue_split.c */
void glue_split_range(G *g, const Split *sp, LLVMValueRef s, LLVMValueRef kr[2]);
LLVMValueRef glue_split_count(G *g, const Split *sp, LLVMValueRef t);
void glue_split_reduce(G *g, const PRole *r, const GEdge *e, Frag *fr, int *nfr, const Split *sp,
                       LLVMValueRef tile, LLVMValueRef s);
void glue_stream_body(G *g, const PRole *r, Frag *fr, int *nfr, const Counts *cn, LLVMBasicBlockRef done);
/* glue.c: one role's loop over its work items; whole: split(auto)'s
 * whole tiles, the full rounds, after its streamed segments */
void glue_role_body(G *g, const PRole *r, Frag *fr, int *nfr, const Counts *cn, LLVMBasicBlockRef done, int whole);

#endif
