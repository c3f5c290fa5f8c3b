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
	char name[64];
	snprintf(name, sizeof name, "plk_glue_splitk_%d_%d", abi_splitk_elems(e, threads), threads);
	helper_call(g, name, args, 8);
}

/* One role under `split(auto)` (stream-K; abi_streamk_source says how the
 * sums go): block c walks K tiles [c * total / G, (c + 1) * total / G) of
 * the tiles' total, a segment per tile it touches, the last segment
 * first: that one (a tile's start) others wait for, and the first (a
 * tile's end) waits for others, so no block waits for one that waits
 * (forwards, each block's first segment waited for the previous block's
 * last: a chain through the grid, 2-10x slower). The epilogue runs for a
 * tile the segment ends. No lanes (check_split), no pairs. */
void glue_stream_body(G *g, const PRole *r, Frag *fr, int *nfr, const Counts *cn, LLVMBasicBlockRef done)
{
	LLVMBuilderRef b = g->b;
	const Graph *gr = g->p->g;
	LLVMTypeRef i64 = g->i64;
	LLVMValueRef tiles_m = cn->tiles_m, tiles_n = cn->tiles_n;
	LLVMValueRef per = LLVMBuildSExt(b, cn->sp.per, i64, "per");
	LLVMValueRef total = LLVMBuildNSWMul(b, LLVMBuildSExt(b, cn->ntiles, i64, ""), per, "total");
	LLVMValueRef G_ = LLVMBuildZExt(b, call0(g, "llvm.nvvm.read.ptx.sreg.nctaid.x", g->i32), i64, "blocks");
	LLVMValueRef c = LLVMBuildZExt(b, call0(g, "llvm.nvvm.read.ptx.sreg.ctaid.x", g->i32), i64, "block");
	LLVMValueRef start = LLVMBuildSDiv(b, LLVMBuildMul(b, c, total, ""), G_, "start");
	LLVMValueRef end = LLVMBuildSDiv(b, LLVMBuildMul(b, LLVMBuildAdd(b, c, LLVMConstInt(i64, 1, 0), ""), total, ""), G_, "end");
	/* the workspace: flags [G][reductions] to 256 bytes, then a slot per block */
	LLVMValueRef ws = gr->ws_kparam >= 0 ? g->kargs[gr->ws_kparam] : NULL;
	LLVMValueRef zero = LLVMBuildMul(b, LLVMBuildUDiv(b, LLVMBuildAdd(b, LLVMBuildMul(b, G_, LLVMConstInt(i64, 4 * gr->nreduce, 0), ""),
	                                                                  LLVMConstInt(i64, 255, 0), ""),
	                                                  LLVMConstInt(i64, 256, 0), ""),
	                                 LLVMConstInt(i64, 256, 0), "ws.zero");
	Loop l = { .pre = LLVMGetInsertBlock(b) };
	g->preheader = l.pre;
	glue_loop_open(g, r, fr, nfr, "seg", &l);
	LLVMValueRef it = LLVMBuildPhi(b, i64, "k.it");   /* the segments, last first (see above) */
	LLVMBuildCondBr(b, LLVMBuildICmp(b, LLVMIntSGT, it, start, ""), l.body, l.flush);
	LLVMPositionBuilderAtEnd(b, l.body);
	LLVMValueRef tile = LLVMBuildSDiv(b, LLVMBuildSub(b, it, LLVMConstInt(i64, 1, 0), ""), per, "tile");
	LLVMValueRef tstart = LLVMBuildMul(b, tile, per, "");
	LLVMValueRef segb = LLVMBuildSelect(b, LLVMBuildICmp(b, LLVMIntSGT, start, tstart, ""), start, tstart, "seg");
	LLVMValueRef first = LLVMBuildZExt(b, LLVMBuildICmp(b, LLVMIntEQ, segb, tstart, ""), g->i32, "first");
	LLVMValueRef lastb = LLVMBuildICmp(b, LLVMIntEQ, it, LLVMBuildAdd(b, tstart, per, ""), "last");
	LLVMValueRef kr[2] = { LLVMBuildTrunc(b, LLVMBuildSub(b, segb, tstart, ""), g->i32, "k_first"),
	                       LLVMBuildTrunc(b, LLVMBuildSub(b, it, segb, ""), g->i32, "k_count") };
	LLVMValueRef tm, tn;
	glue_raster(g, LLVMBuildTrunc(b, tile, g->i32, ""), tiles_m, tiles_n, &tm, &tn);
	for (int i = 0; r->role && i < r->role->insts.n; i++) {
		const GInst *in = r->role->insts.v[i];
		/* the tile's sums: the segment that ends it */
		glue_call_entry_if(g, in, fr, nfr, r->nwarps * 32, tm, tn, kr, in->after_reduce ? lastb : NULL);
		for (int j = 0; ws && j < gr->edges.n; j++) {
			const GEdge *e = gr->edges.v[j];
			if (!e->reduce || e->from != in)
				continue;
			int threads = r->nwarps * 32;
			LLVMValueRef lt = LLVMBuildSub(b, call0(g, "llvm.nvvm.read.ptx.sreg.tid.x", g->i32),
			                               ci32(g, 32 * r->first_warp), "");
			LLVMValueRef poff = LLVMBuildAdd(b, zero, LLVMConstInt(i64, e->ws_off, 0), "");
			LLVMValueRef foff = LLVMConstInt(i64, 4 * e->reduce_id, 0);
			LLVMValueRef args[14] = {
				glue_frag_ptr(g, fr, nfr, e->fp, threads), glue_frag_ptr(g, fr, nfr, e->tp, threads), lt,
				LLVMBuildGEP2(b, g->i8, ws, &poff, 1, ""),
				LLVMBuildBitCast(b, LLVMBuildGEP2(b, g->i8, ws, &foff, 1, ""), LLVMPointerType(g->i32, 0), ""),
				ci32(g, (int64_t)gr->ws_slot), ci32(g, gr->nreduce), c, G_, total, per, tile, first,
				LLVMBuildZExt(b, lastb, g->i32, "") };
			char name[64];
			snprintf(name, sizeof name, "plk_glue_streamk_%d_%d", abi_splitk_elems(e, threads), threads);
			helper_call(g, name, args, 14);
		}
	}
	glue_loop_close(g, r, fr, nfr, &l, it, end, segb, done);
}
