/* glue_split.c: the glue's work items that split a tile's K (check_split):
 * `grid split(S)`, S splits of a tile whose partial sums the last one
 * adds up, and `split(auto)`, stream-K, each block walking an equal share
 * of all the tiles' K steps. The reductions themselves are helpers of the
 * entry's unit (abi_splitk_source, abi_streamk_source). */
#include <stdio.h>
#include "glue.h"

/* `grid split(S)` (check_split): work item t is split t % S of tile t / S
 * (a tile's splits are neighbours, so they run at once and their partials
 * stay in L2); split s walks slots [s * per / S, (s + 1) * per / S) of the
 * split ring, at least one each since S <= per. */

static LLVMValueRef split_bound(G *g, const Split *sp, LLVMValueRef s)
{
	LLVMBuilderRef b = g->b;
	LLVMValueRef x = LLVMBuildNSWMul(b, LLVMBuildSExt(b, s, g->i64, ""), LLVMBuildSExt(b, sp->per, g->i64, ""), "");
	return LLVMBuildTrunc(b, LLVMBuildSDiv(b, x, LLVMBuildSExt(b, sp->S, g->i64, ""), ""), g->i32, "");
}

/* [k_first, k_count] of split s */
void glue_split_range(G *g, const Split *sp, LLVMValueRef s, LLVMValueRef kr[2])
{
	LLVMBuilderRef b = g->b;
	kr[0] = split_bound(g, sp, s);
	kr[1] = LLVMBuildNSWSub(b, split_bound(g, sp, LLVMBuildNSWAdd(b, s, ci32(g, 1), "")), kr[0], "k_count");
}

/* Slots of the split ring that work item t takes: the end, then the
 * start, as the monolith's plk_split_count reads them. */
LLVMValueRef glue_split_count(G *g, const Split *sp, LLVMValueRef t)
{
	LLVMValueRef s = LLVMBuildSRem(g->b, t, sp->S, "");
	LLVMValueRef end = split_bound(g, sp, LLVMBuildNSWAdd(g->b, s, ci32(g, 1), ""));
	return LLVMBuildNSWSub(g->b, end, split_bound(g, sp, s), "k_count");
}

/* The reduction of frag e (check_split) after its producer's call, for
 * split s of tile `tile` (abi_splitk_source says how). */
void glue_split_reduce(G *g, const PRole *r, const GEdge *e, Frag *fr, int *nfr, const Split *sp,
                       LLVMValueRef tile, LLVMValueRef s)
{
	LLVMBuilderRef b = g->b;
	const Graph *gr = g->p->g;
	int threads = r->nwarps * 32;
	LLVMValueRef acc = glue_frag_ptr(g, fr, nfr, e->fp, threads), sum = glue_frag_ptr(g, fr, nfr, e->tp, threads);
	LLVMValueRef tid = call0(g, "llvm.nvvm.read.ptx.sreg.tid.x", g->i32);
	LLVMValueRef lt = LLVMBuildSub(b, tid, ci32(g, 32 * r->first_warp), "");
	LLVMValueRef ws = g->kargs[gr->ws_kparam];
	LLVMValueRef S1 = LLVMBuildSExt(b, LLVMBuildSub(b, sp->S, ci32(g, 1), ""), g->i64, "");
	LLVMValueRef slot = LLVMConstInt(g->i64, gr->ws_slot, 0);
	/* counters: [tile][reduction], ws_zero bytes; then partials: [tile][split < S - 1][slot] */
	LLVMValueRef tile64 = LLVMBuildSExt(b, tile, g->i64, "");
	LLVMValueRef poff = LLVMBuildAdd(b, LLVMBuildAdd(b, sp->zero, LLVMBuildMul(b, LLVMBuildMul(b, tile64, S1, ""), slot, ""), ""),
	                                 LLVMConstInt(g->i64, e->ws_off, 0), "");
	LLVMValueRef coff = LLVMBuildMul(b, LLVMBuildAdd(b, LLVMBuildMul(b, tile64, LLVMConstInt(g->i64, gr->nreduce, 0), ""),
	                                                 LLVMConstInt(g->i64, e->reduce_id, 0), ""),
	                                 LLVMConstInt(g->i64, 4, 0), "");
	LLVMValueRef part = LLVMBuildGEP2(b, g->i8, ws, &poff, 1, "");
	LLVMValueRef cnt = LLVMBuildGEP2(b, g->i8, ws, &coff, 1, "");
	LLVMValueRef args[8] = { acc, sum, lt, part, LLVMBuildBitCast(b, cnt, LLVMPointerType(g->i32, 0), ""),
	                         ci32(g, (int64_t)gr->ws_slot), s, sp->S };
	helper_call(g, abi_reduce_name((char[64]){0}, e, threads, 0), args, 8);
}

/* Segment q of this block under `split(auto)`: plk_glue_stream_seg
 * (abi_stream_seg_source) fills seg[] (ABI_SEG_*). */
static void stream_seg(G *g, LLVMValueRef seg, LLVMValueRef q, const Counts *cn)
{
	LLVMValueRef args[4] = { q, cn->ntiles, cn->sp.per, LLVMBuildBitCast(g->b, seg, LLVMPointerType(g->i32, 0), "") };
	helper_call(g, "plk_glue_stream_seg", args, 4);
}

/* seg[i], read where the monolith reads it */
static LLVMValueRef seg_at(G *g, LLVMValueRef seg, int i)
{
	LLVMValueRef idx[2] = { ci32(g, 0), ci32(g, i) };
	return LLVMBuildLoad2(g->b, g->i32, LLVMBuildGEP2(g->b, LLVMArrayType(g->i32, ABI_SEG_N), seg, idx, 2, ""), "");
}

/* One role under `split(auto)` (stream-K), before its whole tiles (glue.c,
 * glue_role_body): segment q of the block's streamed tiles
 * (abi_stream_seg_source says which K tiles of which tile), the role's
 * entries for it, each reduction after its producer (abi_streamk_source
 * says how the sums go), and a consumer of the sums where the segment
 * ends the tile. The loop holds only q: the segment's bounds come from
 * the helper, whose reads of the block's index are volatile, at the top
 * and again after each producer (for its reduction and the consumer
 * after it), so that no value of the schedule is held through the
 * components' code. Held (in one loop, or in two: one for the streamed
 * segments, one for the whole tiles, each with the components' code)
 * they took the uniform registers the attention core computes its
 * shared-memory addresses in: its wgmmas then waited one for another
 * and it ran 5-9% slower (docs/attention.md). No lanes (check_split). */
void glue_stream_body(G *g, const PRole *r, Frag *fr, int *nfr, const Counts *cn, LLVMBasicBlockRef done)
{
	LLVMBuilderRef b = g->b;
	const Graph *gr = g->p->g;
	LLVMTypeRef i32 = g->i32, i64 = g->i64;
	LLVMValueRef seg = glue_alloca(g, LLVMArrayType(i32, ABI_SEG_N), "seg");
	Loop l = { .pre = LLVMGetInsertBlock(b), .no_prologue = 1, .no_flush = 1 };
	g->preheader = l.pre;
	glue_loop_open(g, r, fr, nfr, "seg", &l);
	LLVMValueRef q = LLVMBuildPhi(b, i32, "seg.q"), w[ABI_SEG_N];
	stream_seg(g, seg, q, cn);
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSLT, q, seg_at(g, seg, ABI_SEG_COUNT), ""), l.body, l.flush);
	LLVMPositionBuilderAtEnd(b, l.body);
	LLVMValueRef tile = seg_at(g, seg, ABI_SEG_TILE);
	LLVMValueRef kr[2] = { seg_at(g, seg, ABI_SEG_KFIRST), seg_at(g, seg, ABI_SEG_KCOUNT) }, tm, tn, lastb = NULL;
	glue_raster(g, tile, cn->tiles_m, cn->tiles_n, &tm, &tn);
	for (int i = 0; r->role && i < r->role->insts.n; i++) {
		const GInst *in = r->role->insts.v[i];
		/* the tile's sums: the segment that ends it */
		glue_call_entry_if(g, in, fr, nfr, r->nwarps * 32, tm, tn, kr, in->after_reduce && lastb ? lastb : NULL);
		for (int j = 0, fresh = 0; gr->ws_kparam >= 0 && j < gr->edges.n; j++) {
			const GEdge *e = gr->edges.v[j];
			if (!e->reduce || e->from != in)
				continue;
			if (!fresh++) {
				stream_seg(g, seg, q, cn);
				for (int k = 0; k < ABI_SEG_N; k++)
					w[k] = seg_at(g, seg, k);
				lastb = LLVMBuildICmp(b, LLVMIntNE, w[ABI_SEG_LAST], ci32(g, 0), "last");
			}
			int threads = r->nwarps * 32;
			LLVMValueRef ws = g->kargs[gr->ws_kparam];
			/* the workspace: flags [G][reductions] to 256 bytes, then a slot per block */
			LLVMValueRef zero = LLVMBuildMul(b, LLVMBuildSDiv(b, LLVMBuildAdd(b, LLVMBuildMul(b, w[ABI_SEG_BLOCKS],
			                                                                                 ci32(g, 4 * gr->nreduce), ""),
			                                                                  ci32(g, 255), ""), ci32(g, 256), ""),
			                                 ci32(g, 256), "ws.zero");
			LLVMValueRef lt = LLVMBuildSub(b, call0(g, "llvm.nvvm.read.ptx.sreg.tid.x", i32),
			                               ci32(g, 32 * r->first_warp), "");
			LLVMValueRef poff = LLVMBuildAdd(b, LLVMBuildSExt(b, zero, i64, ""), LLVMConstInt(i64, e->ws_off, 0), "");
			LLVMValueRef foff = LLVMConstInt(i64, 4 * e->reduce_id, 0);
			LLVMValueRef args[14] = {
				glue_frag_ptr(g, fr, nfr, e->fp, threads), glue_frag_ptr(g, fr, nfr, e->tp, threads), lt,
				LLVMBuildGEP2(b, g->i8, ws, &poff, 1, ""),
				LLVMBuildBitCast(b, LLVMBuildGEP2(b, g->i8, ws, &foff, 1, ""), LLVMPointerType(i32, 0), ""),
				ci32(g, (int64_t)gr->ws_slot), ci32(g, gr->nreduce), LLVMBuildSExt(b, w[ABI_SEG_BLOCK], i64, ""),
				LLVMBuildSExt(b, w[ABI_SEG_BLOCKS], i64, ""), LLVMBuildSExt(b, w[ABI_SEG_TOTAL], i64, ""),
				LLVMBuildSExt(b, cn->sp.per, i64, ""), LLVMBuildSExt(b, w[ABI_SEG_STREAMED], i64, ""), w[ABI_SEG_FIRST],
				w[ABI_SEG_LAST] };
			helper_call(g, abi_reduce_name((char[64]){0}, e, threads, 1), args, 14);
		}
	}
	glue_loop_close(g, r, fr, nfr, &l, q, ci32(g, 0), LLVMBuildAdd(b, q, ci32(g, 1), ""), done);
}
