/* monolith.c: the same composition as one CUDA unit (--emit=monolith).
 *
 * It defines the plk_* ABI functions as constant inline functions of the
 * placement (the same tables as the glue: abi_tables), includes every
 * component source with its constants as macros and its header
 * (contract_header) written out before it, and holds the kernel
 * body the glue builds (prologue, setmaxnreg, roles, tile loop), so one
 * ordinary nvcc call builds the kernel the linker is measured against.
 * The shape follows the hand-written reference in tests/gpu. A
 * megakernel's monolith holds each op kernel's body as the glue builds
 * its main (a noinline function of its first work item and stride) and
 * the entry mega_entry.c writes for the link. */
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plk.h"

/* A name in a kernel expression, as check resolved it (Expr.ref): a
 * scalar kernel parameter (p<i>) or a recipe constant (its value). */
static void kname(FILE *o, const Expr *n, const void *ud)
{
	switch (n->ref) {
	case NAME_KPARAM: fprintf(o, "p%d", n->ref_i); return;
	case NAME_CONST: fprintf(o, "%lld", (long long)graph_constval(ud, n)); return;
	case NAME_NONE: fputs(n->name, o); return;   /* nvcc reports it */
	}
}

static int knonneg(const void *ud, const Expr *e)
{
	return graph_nonneg(ud, e);
}

static void cexpr(FILE *o, const Graph *g, const Expr *e)
{
	if (e)
		expr_print_c(o, e, kname, knonneg, g);
	else
		fputs("1", o);
}

/* kname's, each a long long */
static void kname_ll(FILE *o, const Expr *n, const void *ud)
{
	switch (n->ref) {
	case NAME_KPARAM: fprintf(o, "((long long)p%d)", n->ref_i); return;
	case NAME_CONST: fprintf(o, "%lldLL", (long long)graph_constval(ud, n)); return;
	case NAME_NONE: fputs(n->name, o); return;
	}
}

/* value: base [+ rel * d] [+ the extra argument * step], into smem or not */
static void abi_value(FILE *o, const AbiFn *f, const char *rel, int64_t base, int64_t d, int64_t step)
{
	if (f->ret == ABI_SMEM)
		fputs("pipelink_smem + ", o);
	fprintf(o, "%lld", (long long)base);
	if (rel && d)
		fprintf(o, " + %s * %lld", rel, (long long)d);
	if (f->nargs > f->nkeys && step)
		fprintf(o, " + a%d * %lld", f->nkeys, (long long)step);
}

/* The glue's shape (glue.c, define_abi): a switch over the leading keys,
 * in each case a chain of selects on the last key or the value computed
 * from it where abi_group_next finds it affine, else a switch over it. */
static void abi_def(FILE *o, Ctx *c, const AbiFn *f)
{
	static const char *const args[3] = { "a0", "a1", "a2" };
	int last = f->nkeys - 1;
	fprintf(o, "extern \"C\" __device__ __forceinline__ %s%s%s(", f->cret,
	        f->cret[strlen(f->cret) - 1] == '*' ? "" : " ", f->name);
	for (int i = 0; i < f->nargs; i++)
		fprintf(o, "%sint %s", i ? ", " : "", args[i]);
	fprintf(o, ")\n{\n\tswitch (");
	/* the leading keys: 10 bits per id, the first highest */
	for (int k = 0; k < last; k++) {
		int shift = 10 * (last - 1 - k);
		if (shift)
			fprintf(o, "%s%s << %d", k ? " | " : "", args[k], shift);
		else
			fprintf(o, "%s%s", k ? " | " : "", args[k]);
	}
	fprintf(o, "%s) {\n", last ? "" : "0");
	AbiGroups gr;
	abi_groups(c, f, &gr);
	while (abi_group_next(&gr)) {
		const AbiCase *c0 = &f->cases[gr.idx[0]];
		fprintf(o, "\tcase %lld:", (long long)gr.lead);
		if (gr.selects) {   /* the glue's chain, the last case outermost */
			fputs(" return ", o);
			for (int j = gr.n - 1; j >= 0; j--) {
				const AbiCase *cs = &f->cases[gr.idx[j]];
				fprintf(o, "%s == %d ? ", args[last], cs->key[last]);
				abi_value(o, f, NULL, cs->base, 0, cs->step);
				fputs(" : ", o);
			}
			fputs("0;\n", o);
			continue;
		}
		if (gr.affine) {
			char rel[32];
			snprintf(rel, sizeof rel, "(%s - %d)", args[last], c0->key[last]);
			fprintf(o, " return (unsigned)%s < %du ? ", rel, gr.n);
			abi_value(o, f, rel, c0->base, gr.d, c0->step);
			fputs(" : 0;\n", o);
			continue;
		}
		fprintf(o, "\n\t\tswitch (%s) {\n", args[last]);
		for (int j = 0; j < gr.n; j++) {
			const AbiCase *cs = &f->cases[gr.idx[j]];
			fprintf(o, "\t\tcase %d: return ", cs->key[last]);
			abi_value(o, f, NULL, cs->base, 0, cs->step);
			fputs(";\n", o);
		}
		fputs("\t\t}\n\t\tbreak;\n", o);
	}
	fprintf(o, "\t}\n\treturn 0;\n}\n");
}

static const char *ctype_of(const char *dtype)
{
	const DtypeInfo *d = dtype_lookup(dtype);
	return d ? d->ctype : "float";
}

/* The component's source path as the generated unit includes it. */
static const char *source_path(Ctx *c, const Component *cp)
{
	const char *src = cp->source ? cp->source : "";
	const char *dir = cp->file ? strrchr(cp->file, '/') : NULL;
	const char *p = src[0] == '/' || !dir ? src
	              : arena_printf(c->arena, "%.*s/%s", (int)(dir - cp->file), cp->file, src);
	/* Relative to the working directory when under it, so that the unit
	 * builds on another machine from a copy of the tree (nvcc -I.). */
	char buf[PATH_MAX], cwd[PATH_MAX];
	if (!realpath(p, buf))
		return p;
	size_t n = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
	if (n && !strncmp(buf, cwd, n) && buf[n] == '/')
		return arena_strdup(c->arena, buf + n + 1);
	return arena_strdup(c->arena, buf);
}

static int same_cvals(const GInst *a, const GInst *b)
{
	for (int i = 0; i < a->comp->cparams.n; i++)
		if (a->cvals[i] != b->cvals[i])
			return 0;
	return 1;
}

/* Every instance's component source, once: `done` holds the instances
 * included before (of this graph and, in a megakernel, the op kernels
 * written before it). */
static int includes(Ctx *c, FILE *o, const Graph *g, Vec *done)
{
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		int seen = 0;
		for (int j = 0; j < done->n; j++) {
			const GInst *pr = done->v[j];
			if (pr->comp != in->comp && (!pr->comp->entry || !in->comp->entry ||
			                             strcmp(pr->comp->entry, in->comp->entry)))
				continue;
			seen = 1;
			if (pr->comp != in->comp || (in->cvals && pr->cvals && !same_cvals(pr, in))) {
				Diag *d = diag_new(c, DIAG_ERROR, "E0514", in->decl ? in->decl->sp : span_none,
				                   "the monolith cannot hold `%s` and `%s` in one unit", pr->name, in->name);
				diag_note(d, "both define `%s`, with different constants", in->comp->entry);
				diag_help(d, "the linked kernel is unaffected; only --emit=monolith is");
				diag_end(c, d);
				return -1;
			}
		}
		vec_push(c->arena, done, (void *)in);
		if (seen)
			continue;
		const Component *cp = in->comp;
		fprintf(o, "/* %s = %s(", in->name, cp->name);
		for (int k = 0; k < cp->cparams.n; k++)
			fprintf(o, "%s%s = %lld", k ? ", " : "", ((const CParam *)cp->cparams.v[k])->name,
			        in->cvals ? (long long)in->cvals[k] : 0LL);
		fprintf(o, ") */\n");
		for (int k = 0; in->cvals && k < cp->cparams.n; k++)
			fprintf(o, "#define %s %lld\n", ((const CParam *)cp->cparams.v[k])->name, (long long)in->cvals[k]);
		/* the source's header, inline: the unit stays one file (the
		 * source includes it only when its guard is not defined) */
		contract_header(o, cp, in->cvals);
		fprintf(o, "#include \"%s\"\n", source_path(c, cp));
		for (int k = 0; in->cvals && k < cp->cparams.n; k++)
			fprintf(o, "#undef %s\n", ((const CParam *)cp->cparams.v[k])->name);
	}
	return 0;
}

/* The value of each of in's params, as its entry takes them, each after
 * ", " (the first after `first`) */
static void param_args(FILE *o, const Graph *g, const GInst *in, const char *first)
{
	const Component *cp = in->comp;
	for (int i = 0; i < cp->params.n; i++) {
		const Param *pa = cp->params.v[i];
		const GBind *b = in->bind ? in->bind[i] : NULL;
		int kp = b ? b->kparam : -1;
		fputs(i ? ", " : first, o);
		if (b && kp < 0 && b->expr && b->bits == 64)
			expr_print_c_ll(o, b->expr, kname_ll, knonneg, g);   /* in long long, as the glue (check_ints) */
		else if (b && kp < 0 && b->expr)
			cexpr(o, g, b->expr);
		else if (pa->ty && pa->ty->k == TY_TENSORMAP)
			fprintf(o, "&p%d", kp);
		else if (pa->ty && pa->ty->k == TY_PTR)
			fprintf(o, "(%s *)p%d", ctype_of(pa->ty->dtype), kp);
		else
			fprintf(o, "p%d", kp);
	}
}

/* The context a hook provider's callers pass (glue_hook.c, glue_hook_ctx): its
 * param values, one member each (p0, p1, ...), and the dispatch functions
 * of every hook kind (abi_hook_cases): the provider's function called
 * with the members, or the default. */
static void hook_defs(Ctx *c, FILE *o, const Placement *p)
{
	const Graph *g = p->g;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		int called = 0;
		for (int j = 0; j < g->hooks.n; j++)
			called |= ((const GHook *)g->hooks.v[j])->from == in;
		if (!called)
			continue;
		fprintf(o, "struct plk_hook_ctx_%d {", in->id);
		for (int j = 0; j < in->comp->params.n; j++) {
			const Type *t = ((const Param *)in->comp->params.v[j])->ty;
			if (t->k == TY_TENSORMAP)
				fprintf(o, " const void *p%d;", j);
			else
				fprintf(o, " %s%s p%d;", ctype_of(t->dtype), t->k == TY_PTR ? " *" : "", j);
		}
		fprintf(o, "%s };   /* %s */\n", in->comp->params.n ? "" : " char none;", in->name);
	}
	for (int k = 0; k < HK_NKINDS; k++) {
		int nf;
		const HookFnInfo *f = hook_fns(k, &nf);
		for (int i = 0; i < nf; i++) {
			if (!f[i].dispatch)
				continue;
			int na = (int)strlen(f[i].types), nc;
			char an[32];
			fprintf(o, "extern \"C\" __device__ __forceinline__ %s %s(int inst, int port, const void *ctx, %s\n{\n"
			           "\tswitch (inst << 10 | port) {\n", f[i].cret, f[i].dispatch, f[i].cargs + 1);
			const AbiHookCase *cs = abi_hook_cases(c, p, k, &nc);
			for (int j = 0; j < nc; j++) {
				const GInst *pv = cs[j].h->from;
				fprintf(o, "\tcase %d: {\n\t\tconst plk_hook_ctx_%d *c = (const plk_hook_ctx_%d *)ctx;\n"
				           "\t\treturn %s(%d", cs[j].inst << 10 | cs[j].port, pv->id, pv->id,
				        hook_fn_name(c, cs[j].h->fp->decl->ty->base, &f[i]), abi_inst(g, pv, 0));
				for (int q = 0; q < pv->comp->params.n; q++)
					fprintf(o, ", c->p%d", q);
				for (int q = 0; q < na; q++)
					fprintf(o, ", %s", hook_arg_name(&f[i], q, an, sizeof an));
				fprintf(o, ");\n\t}\n");
			}
			fprintf(o, "\t}\n\treturn %s;\n}\n", f[i].dflt);
		}
	}
}

static void entry_call(FILE *o, const Graph *g, const GInst *in, int lane, const void **frags,
                       int nfrags, const char *indent)
{
	const Component *cp = in->comp;
	fprintf(o, "%s%s(%d", indent, cp->entry, abi_inst(g, in, lane));
	param_args(o, g, in, ", ");
	for (int i = 0; i < in->ports.n; i++) {
		const GPort *pt = in->ports.v[i];
		if (pt->k == TY_HOOK) {
			if (pt->hk)
				fprintf(o, ", &hctx_%d_%d", in->id, pt->id);
			else
				fputs(", 0", o);
			continue;
		}
		if (pt->k != TY_FRAG) {
			fprintf(o, ", &pipe_%d_%d", in->id, pt->id);
			continue;
		}
		const void *key = frag_key(pt);
		for (int f = 0; f < nfrags; f++)
			if (frags[f] == key)
				fprintf(o, ", frag%d", f);
	}
	for (int i = 0; i < cp->keeps.n; i++)   /* role_decls' keep arrays (none: 0) */
		if (in->keep_words[i])
			fprintf(o, ", keep_%d_%d", in->id, i);
		else
			fputs(", 0", o);
	fprintf(o, ", tm, tn%s);\n", in->split_port ? ", kf, kc" : "");
}

/* The cursor of pingpong ring le moves over `items` work items' slots:
 * items from + j0 * step, ... (split: each item's own count). */
static void pipe_skip_text(FILE *o, const Placement *p, const GEdge *le, int j0, int items, const char *from,
                           const char *step, const char *indent)
{
	fprintf(o, "%splk_pipe_skip(&pipe_%d_%d, ", indent, le->to->id, le->tp->id);
	if (p->g->split) {
		fputs("0", o);
		for (int j = j0; j < j0 + items; j++)
			fprintf(o, " + plk_split_count(%s + %d * (%s), plk_S, plk_per)", from, j, step);
	} else {
		fprintf(o, "%d * (", items);
		cexpr(o, p->g, le->per);
		fputs(")", o);
	}
	fprintf(o, ", %d);\n", placement_ring(p, le)->stages);
}

/* One work item's body in a role's loop (glue.c, glue_role_body): its
 * tile, the entries and split K's reductions; whole: one of split(auto)'s
 * whole tiles (no reduction). */
static void item_text(FILE *o, const Placement *p, const PRole *r, const void **frags, int nfrags, int whole)
{
	const Graph *g = p->g;
	const int quad = abi_quad(p), lg = abi_rows_log2(p), pair = lg > 0;
	const char *rows = pair ? "pairs_m" : "tiles_m", *cols = quad ? "pairs_n" : "tiles_n";
	const GEdge *le = r->role && r->role->lanes > 1 ? r->role->lane_edge : NULL;
	if (g->order) {   /* the tile_order hook (glue_hook.c, glue_order_tile) */
		int nf;
		const HookFnInfo *f = hook_fns(HK_TILE_ORDER, &nf);
		for (int k = 0; k < 2; k++) {
			fprintf(o, "\t\t\t\t%s = %s%s(%d", k ? "tn" : "tm", g->order_port->decl->ty->base, f[k].suffix,
			        abi_inst(g, g->order, 0));
			param_args(o, g, g->order, ", ");
			fprintf(o, ", tile, %s, %s);\n", rows, cols);
		}
	} else if (g->raster == RASTER_GROUPED && g->raster_group > 0)
		fprintf(o, "\t\t\t\tplk_raster_grouped(tile, %s, %s, %lld, &tm, &tn);\n", rows, cols,
		        (long long)g->raster_group);
	else if (g->raster == RASTER_COLUMN)
		fprintf(o, "\t\t\t\ttm = tile %% %s, tn = tile / %s;\n", rows, rows);
	else
		fprintf(o, "\t\t\t\ttm = tile / %s, tn = tile %% %s;\n", cols, cols);
	if (pair)
		fprintf(o, "\t\t\t\ttm = %d * tm + (blockIdx.x & %d);\n", 1 << lg, (1 << lg) - 1);
	if (quad)
		fprintf(o, "\t\t\t\ttn = 2 * tn + blockIdx.y;\n");
	if (le)
		fprintf(o, "\t\t\t\tplk_mbar_wait(pipelink_smem + %u, turn);\n\t\t\t\tturn ^= 1u;\n",
		        r->turn_bar + 8 * r->lane);
	for (int j = 0; r->role && j < r->role->insts.n; j++) {
		const GInst *in = r->role->insts.v[j];
		int sum = g->split && in->after_reduce && !whole;   /* the tile's sums: its last split */
		char last[64];   /* stream-K: the segment ends the tile (the helper's, after the producer) */
		snprintf(last, sizeof last, "\t\t\t\tif (seg[%d])\n\t\t\t\t\t", ABI_SEG_LAST);
		entry_call(o, g, in, r->lane, frags, nfrags, !sum ? "\t\t\t\t" : g->stream ? last
		                                                   : "\t\t\t\tif (split == plk_S - 1)\n\t\t\t\t\t");
		int fresh = 0;
		for (int e = 0; g->split && e < g->edges.n; e++) {
			const GEdge *ge = g->edges.v[e];
			if (!ge->reduce || ge->from != in)
				continue;
			int f = 0, f2 = 0, threads = r->nwarps * 32;
			while (f < nfrags && frags[f] != frag_key(ge->fp))
				f++;
			while (f2 < nfrags && frags[f2] != frag_key(ge->tp))
				f2++;
			if (whole) {   /* the glue's copy: the tile's sums are its partials */
				fprintf(o, "\t\t\t\tmemcpy(frag%d, frag%d, %d);\n", f2, f, 4 * abi_splitk_elems(ge, threads));
				continue;
			}
			if (g->stream) {   /* the glue's order: the segment again, then the reduction */
				if (!fresh++)
					fprintf(o, "\t\t\t\tplk_glue_stream_seg(q, ntiles, plk_per, seg);\n");
				fprintf(o, "\t\t\t\t%s(frag%d, frag%d, threadIdx.x - %d, (char *)p%d + (seg[%d] * %d + 255) / 256 * 256 + %u, "
				           "(unsigned *)p%d + %d, %u, %d, seg[%d], seg[%d], seg[%d], plk_per, seg[%d], seg[%d], seg[%d]);\n",
				        abi_reduce_name((char[64]){0}, ge, threads, 1), f, f2, 32 * r->first_warp, g->ws_kparam,
				        ABI_SEG_BLOCKS, 4 * g->nreduce, ge->ws_off, g->ws_kparam, ge->reduce_id, g->ws_slot, g->nreduce,
				        ABI_SEG_BLOCK, ABI_SEG_BLOCKS, ABI_SEG_TOTAL, ABI_SEG_STREAMED, ABI_SEG_FIRST, ABI_SEG_LAST);
				continue;
			}
			fprintf(o, "\t\t\t\t%s(frag%d, frag%d, threadIdx.x - %d, "
			           "(char *)p%d + plk_ws_zero + (long long)tile * (plk_S - 1) * %u + %u, "
			           "(unsigned *)p%d + tile * %d + %d, %u, split, plk_S);\n",
			        abi_reduce_name((char[64]){0}, ge, threads, 0), f, f2, 32 * r->first_warp, g->ws_kparam, g->ws_slot,
			        ge->ws_off, g->ws_kparam, g->nreduce, ge->reduce_id, g->ws_slot);
		}
		if (le && in == le->to && !edge_handoff(le))
			fprintf(o, "\t\t\t\tplk_mbar_arrive(pipelink_smem + %u);\n",
			        r->turn_bar + 8 * ((r->lane + 1) % r->role->lanes));
	}
}

/* A role's declarations: its hooks' contexts, ring cursors and frag
 * arrays (frags_only: the arrays again, in split(auto)'s streamed block,
 * as the glue gives its segments arrays of their own). */
static void role_decls(FILE *o, const Graph *g, const PRole *r, const void **frags, int *nfrags, int frags_only)
{
	int mine[64], nmine = 0;   /* frags declared in this block */
	for (int j = 0; r->role && j < r->role->insts.n; j++) {
		const GInst *in = r->role->insts.v[j];
		for (int k = 0; k < in->ports.n; k++) {
			const GPort *pt = in->ports.v[k];
			if (pt->k == TY_HOOK) {
				if (pt->hk && !frags_only) {   /* the provider's params, for its hooks' calls */
					fprintf(o, "\t\t\tconst plk_hook_ctx_%d hctx_%d_%d = { ", pt->hk->from->id, in->id, pt->id);
					param_args(o, g, pt->hk->from, "");
					fprintf(o, "%s };\n", pt->hk->from->comp->params.n ? "" : "0");
				}
				continue;
			}
			if (pt->k != TY_FRAG) {
				if (!frags_only)
					fprintf(o, "\t\t\tplk_pipe pipe_%d_%d = {0, 0};\n", in->id, pt->id);
				continue;
			}
			const void *key = frag_key(pt);
			int have = -1, here = 0;
			for (int f = 0; f < *nfrags; f++)
				if (frags[f] == key)
					have = f;
			for (int f = 0; f < nmine; f++)
				here |= mine[f] == have;
			if (here || nmine == 64 || (have < 0 && *nfrags >= g->edges.n + 64))
				continue;
			if (have < 0)   /* numbered once: the lanes of a role declare the same */
				frags[have = (*nfrags)++] = key;
			mine[nmine++] = have;
			const GField *fl = pt->fields.n ? pt->fields.v[0] : NULL;
			const DtypeInfo *d = fl ? dtype_lookup(fl->dtype) : NULL;
			int bits = d && d->bits >= 8 ? d->bits : 8;
			unsigned n = pt->bytes ? pt->bytes * 8 / bits
			           : fl ? (unsigned)(fl->rows * fl->cols / (r->nwarps * 32)) : 1;
			fprintf(o, "\t\t\t%s frag%d[%u];\n", d ? d->ctype : "float", have, n ? n : 1);
		}
		/* the words it keeps across calls (glue.c, keep_ptr) */
		for (int k = 0; !frags_only && k < in->comp->keeps.n; k++)
			if (in->keep_words[k])
				fprintf(o, "\t\t\tunsigned keep_%d_%d[%d] __attribute__((aligned(16)));\n", in->id, k,
				        in->keep_words[k]);
	}
}

/* A role's flush call after its last work item, and its exit (glue.c:
 * the roles are exclusive branches, none falls into the next one's test). */
static void flush_text(FILE *o, const Placement *p, const PRole *r, const void **frags, int nfrags)
{
	fprintf(o, "\t\t\ttm = tn = -1, kf = kc = 0;   /* the flush call, as the glue's */\n");
	for (int j = 0; r->role && j < r->role->insts.n; j++)
		entry_call(o, p->g, r->role->insts.v[j], r->lane, frags, nfrags, "\t\t\t");
	/* a producer that multicasts leaves once its ring is empty (glue.c, role_exit) */
	for (int i = 0; i < p->rings.n; i++) {
		const PRing *ring = p->rings.v[i];
		const GEdge *e = ring->edge;
		if (abi_ring_drains(p, r, ring))
			fprintf(o, "\t\t\tplk_ring_drain(plk_smem_u32(pipelink_smem + %u), %d, pipe_%d_%d.stage, pipe_%d_%d.phase);\n",
			        ring->empty_bar, ring->stages, e->from->id, e->fp->id, e->from->id, e->fp->id);
	}
	fprintf(o, "\t\t\treturn;\n\t\t}\n");
}

/* split(auto)'s two loops (glue_split.c, glue_stream_body; glue.c,
 * glue_role_body): the streamed segments first, in a block with frag
 * arrays of its own, segment q from the helper; then the full rounds'
 * whole tiles; then the flush. */
static void stream_text(FILE *o, const Placement *p, const PRole *r, const void **frags, int *nfrags,
                        const char *first, const char *step)
{
	fprintf(o, "\t\t\t{\n");
	role_decls(o, p->g, r, frags, nfrags, 1);
	fprintf(o, "\t\t\tfor (int q = 0;; q++) {\n"
	           "\t\t\t\tint seg[%d];\n"
	           "\t\t\t\tplk_glue_stream_seg(q, ntiles, plk_per, seg);\n"
	           "\t\t\t\tif (q >= seg[%d])\n\t\t\t\t\tbreak;\n"
	           "\t\t\t\tconst int tile = seg[%d];\n"
	           "\t\t\t\tkf = seg[%d], kc = seg[%d];\n", ABI_SEG_N, ABI_SEG_COUNT, ABI_SEG_TILE, ABI_SEG_KFIRST,
	        ABI_SEG_KCOUNT);
	item_text(o, p, r, frags, *nfrags, 0);
	fprintf(o, "\t\t\t}\n\t\t\t}\n");
	fprintf(o, "\t\t\tfor (int t = %s; t - (int)(%s) + (int)(%s) <= ntiles; t += %s) {\n"
	           "\t\t\t\tconst int tile = t;\n"
	           "\t\t\t\tkf = 0, kc = plk_per;\n", first, first, step, step);
	item_text(o, p, r, frags, *nfrags, 1);
	fprintf(o, "\t\t\t}\n");
	flush_text(o, p, r, frags, *nfrags);
}

/* One role's body: ring cursors, frag arrays, the tile loop, the flush. */
static void role_text(FILE *o, const Placement *p, const PRole *r, const void **frags, int *nfrags, int op)
{
	const Graph *g = p->g;
	/* 2 x 1 (4 x 1) clusters take tile rows in pairs (fours), 2 x 2 rows
	 * and columns (quads); lg: log2 of the tile rows */
	const int quad = abi_quad(p), lg = abi_rows_log2(p), pair = lg > 0;
	fprintf(o, "\t\tif ((unsigned)(warp - %d) < %du) {\n", r->first_warp, r->nwarps);
	role_decls(o, g, r, frags, nfrags, 0);
	int twod = g->cluster[1] > 1 && !quad;   /* clusters may come as a 2-D grid */
	const GEdge *le = r->role && r->role->lanes > 1 ? r->role->lane_edge : NULL;
	char cfirst[24], cstep[24];
	snprintf(cfirst, sizeof cfirst, "blockIdx.x >> %d", lg);
	snprintf(cstep, sizeof cstep, "gridDim.x >> %d", lg);
	const char *first = pair ? cfirst : twod ? "blockIdx.x + blockIdx.y * gridDim.x" : "blockIdx.x";
	const char *count = pair ? "npairs" : "nitems";
	const char *step = !g->persistent ? count : pair ? cstep : twod ? "gridDim.x * gridDim.y" : "gridDim.x";
	if (op)   /* a megakernel's op: the main's (mega.c: no pairs, no clusters) */
		first = "plk_first", step = "plk_step";
	if (le && r->lane)
		pipe_skip_text(o, p, le, 0, r->lane, first, step, "\t\t\t");
	if (le)   /* the lanes' turns (glue.c) */
		fprintf(o, "\t\t\tunsigned turn = %d;\n", r->lane == 0);
	/* The glue's tile loop (glue.c, role_body): over tile pairs, their
	 * rows `pairs_m`, with a cluster of 2 x 1 (2 x 2: pairs of rows by
	 * pairs of columns); lane L of N starting at item L and stepping by N. */
	/* kf and kc pass a split's K range to the calls that take one; a
	 * role whose calls take none still sets them. Names a kernel may not
	 * use are [[maybe_unused]], here and below (nvcc's #550 and #177
	 * otherwise; a (void) use does not silence #550) */
	fprintf(o, "\t\t\t[[maybe_unused]] int tm, tn, kf = 0, kc = 0;\n");
	for (int j = 0, first = 1; r->role && j < r->role->insts.n; j++)   /* glue.c, edge_calls */
		if (((const GInst *)r->role->insts.v[j])->comp->prologue) {
			if (first)
				fprintf(o, "\t\t\ttm = tn = -2;   /* the prologue call */\n");
			first = 0;
			entry_call(o, g, r->role->insts.v[j], r->lane, frags, *nfrags, "\t\t\t");
		}
	if (g->stream) {   /* split(auto): the streamed segments, then the whole tiles */
		stream_text(o, p, r, frags, nfrags, first, step);
		return;
	}
	if (g->dynamic) {   /* grid dynamic (glue.c, role_body): the items' ring */
		char producer[48] = "0";
		if (r == p->roles.v[0])
			snprintf(producer, sizeof producer, "threadIdx.x == %d", 32 * r->first_warp);
		fprintf(o, "\t\t\tfor (int k = 0, t;; k++) {\n"
		           "\t\t\t\tt = plk_glue_item((unsigned)__cvta_generic_to_shared(pipelink_smem) + %uu, k, %s, p%d, nitems);\n"
		           "\t\t\t\tif (t >= nitems)\n\t\t\t\t\tbreak;\n", p->items_bar, producer, g->ws_kparam);
	} else if (le)
		fprintf(o, "\t\t\tfor (int t = %s%s%s + %d * (%s); t < %s; t += %d * (%s)) {\n", pair ? "(" : "", first,
		        pair ? ")" : "", r->lane, step, count, r->role->lanes, step);
	else
		fprintf(o, "\t\t\tfor (int t = %s; t < %s; t += %s) {\n", first, count, step);
	/* split K (glue.c): split t % S of tile t / S, its share of the K tiles */
	fprintf(o, "\t\t\t\tconst int tile = t / plk_S;\n\t\t\t\t[[maybe_unused]] const int split = t %% plk_S;\n");
	if (g->split_per)
		fprintf(o, "\t\t\t\tkf = plk_split_first(split, plk_S, plk_per), "
		           "kc = plk_split_first(split + 1, plk_S, plk_per) - kf;\n");
	item_text(o, p, r, frags, *nfrags, 0);
	if (le)
		pipe_skip_text(o, p, le, 1, r->role->lanes - 1, "t", step, "\t\t\t\t");
	fprintf(o, "\t\t\t}\n");
	flush_text(o, p, r, frags, *nfrags);
}

/* What precedes the kernel: the headers, the ABI functions over the n
 * placements' tables, every component source once, the hooks' dispatch
 * and split K's helpers. */
static int prelude(Ctx *c, FILE *o, const Placement *const *ps, int n)
{
	fprintf(o, "#include <cuda_fp16.h>\n#include <cuda_bf16.h>\n#include \"plk.cuh\"\n\n");
	fprintf(o, "extern __shared__ __align__(1024) unsigned char pipelink_smem[];\n");
	fprintf(o, "struct alignas(64) plk_tmap { unsigned long long opaque[16]; };  /* CUtensorMap */\n\n");
	AbiFn fns[ABI_NFNS];
	abi_sigs(fns);
	int hooks = -1, split = 0;
	for (int v = 0; v < n; v++) {   /* one table over every kernel's instances (glue.c) */
		abi_tables(c, ps[v], fns);
		if (abi_has_hooks(ps[v]->g)) {
			if (hooks >= 0) {   /* hook_defs names its contexts by instance id, per kernel */
				Diag *d = diag_new(c, DIAG_ERROR, "E0514", kernel_span(ps[v]->g),
				                   "the monolith cannot hold `%s` and `%s` in one unit", ps[hooks]->g->k->name,
				                   ps[v]->g->k->name);
				diag_note(d, "both op kernels call hooks: a megakernel's monolith holds one kernel's hooks");
				diag_help(d, "the linked megakernel is unaffected; only --emit=monolith is");
				diag_end(c, d);
				return -1;
			}
			hooks = v;
		}
		split |= ps[v]->g->split_per != NULL;
	}
	for (int i = 0; i < ABI_NFNS; i++)
		if (abi_fn_defined(hooks >= 0 ? ps[hooks]->g : ps[0]->g, i))
			abi_def(o, c, &fns[i]);
	fputc('\n', o);
	Vec done = { 0 };
	for (int v = 0; v < n; v++)
		if (includes(c, o, ps[v]->g, &done))
			return -1;
	if (hooks >= 0)
		hook_defs(c, o, ps[hooks]);
	if (split)   /* a split ring: the glue's k ranges (glue.c) */
		fprintf(o, "\nstatic __device__ __forceinline__ int plk_split_first(int s, int S, int per)\n"
		           "{ return (int)((long long)s * per / S); }\n"
		           "[[maybe_unused]] static __device__ __forceinline__ int plk_split_count(int t, int S, int per)\n"
		           "{ return plk_split_first(t %% S + 1, S, per) - plk_split_first(t %% S, S, per); }\n");
	abi_splitk_sources(o, "static __device__ __forceinline__ void", ps, n);   /* split K's reductions (abi.c) */
	for (int v = 0; v < n; v++)
		if (ps[v]->g->dynamic) {   /* grid dynamic (abi.c): its helper's mbarrier calls, on shared addresses */
			fprintf(o, "static __device__ __forceinline__ void plk_glue_mbar_wait(unsigned a, unsigned parity)\n"
			           "{ plk_mbar_wait(__cvta_shared_to_generic(a), parity); }\n"
			           "static __device__ __forceinline__ void plk_glue_mbar_arrive(unsigned a)\n"
			           "{ plk_mbar_arrive(__cvta_shared_to_generic(a)); }\n");
			break;
		}
	abi_item_source(o, "static __device__ __forceinline__", ps, n);   /* grid dynamic (abi.c) */
	return 0;
}

/* The body of p's kernel, or of its main as a megakernel's op (op: the
 * first work item and the stride are plk_first and plk_step). */
static int body_text(Ctx *c, FILE *o, const Placement *p, int op)
{
	const Graph *g = p->g;
	int nwg = (p->threads + 127) / 128, cap = 0;
	int *regs = arena_alloc(c->arena, (nwg + 1) * sizeof *regs);
	if (abi_wg_regs(c, p, regs, &cap))
		return -1;
	/* As the glue's entry block (glue.c, build_main): the warp and the
	 * tile counts first, then thread 0's mbarrier initialisation. */
	fprintf(o, "\tconst int warp = threadIdx.x >> 5;\n");
	fprintf(o, "\tconst int tiles_m = ");
	cexpr(o, g, g->tiles[0]);
	fprintf(o, ", tiles_n = ");
	cexpr(o, g, g->tiles[1]);
	fprintf(o, ";\n\tif (threadIdx.x == 0) {\n");
	for (int i = 0; i < g->kparams.n; i++)
		if (((const GKParam *)g->kparams.v[i])->kind == KP_TENSORMAP)
			fprintf(o, "\t\tplk_tma_prefetch_desc(&p%d);\n", i);
	for (int i = 0; i < p->rings.n; i++) {
		const PRing *r = p->rings.v[i];
		fprintf(o, "\t\tfor (int s = 0; s < %d; s++) {\n"
		           "\t\t\tplk_mbar_init(pipelink_smem + %u + 8 * s, %d);\n"
		           "\t\t\tplk_mbar_init(pipelink_smem + %u + 8 * s, %d);\n\t\t}\n",
		        r->stages, r->full_bar, r->full_count, r->empty_bar, r->empty_count);
	}
	for (int i = 0; i < p->roles.n; i++) {
		const PRole *r = p->roles.v[i];
		if (r->role->lanes > 1)
			fprintf(o, "\t\tplk_mbar_init(pipelink_smem + %u, %d);\n", r->turn_bar + 8 * r->lane,
			        32 * r->nwarps);
	}
	if (g->dynamic)   /* the work items' slots (glue.c) */
		fprintf(o, "\t\tfor (int s = 0; s < %d; s++) {\n"
		           "\t\t\tplk_mbar_init(pipelink_smem + %u + 8 * s, 1);\n"
		           "\t\t\tplk_mbar_init(pipelink_smem + %u + 8 * s, %d);\n\t\t}\n",
		        PLK_ITEM_SLOTS, abi_item_full(p), abi_item_empty(p), abi_item_threads(p));
	if (p->rings.n)
		fprintf(o, "\t\tplk_fence_mbar_init();\n");
	/* the glue's entry barrier: cluster-wide with a cluster */
	fprintf(o, "\t}\n\t%s;\n", !abi_clustered(p) ? "__syncthreads()" : p->rings.n ? "plk_cluster_sync_init()" : "plk_cluster_sync()");
	fprintf(o, "\tconst int ntiles = tiles_m * tiles_n;\n");
	/* split K (check_split): S work items per tile; per: the split ring's count */
	fprintf(o, "\t[[maybe_unused]] const int plk_S = ");
	cexpr(o, g, g->split);
	fprintf(o, ", plk_per = ");
	if (g->split_per)
		cexpr(o, g, g->split_per);
	else
		fputs("0", o);
	fprintf(o, ", nitems = ntiles * plk_S;\n");
	if (g->split && !g->stream) {
		fprintf(o, "\tconst long long plk_ws_zero = ");
		cexpr(o, g, g->ws_zero);
		fprintf(o, ";\n");
	}
	const int lg = abi_rows_log2(p);   /* log2 of a cluster's tile rows */
	if (lg && !abi_quad(p))
		fprintf(o, "\tconst int pairs_m = (tiles_m + %d) >> %d, npairs = pairs_m * tiles_n;\n", (1 << lg) - 1, lg);
	if (abi_quad(p))
		fprintf(o, "\tconst int pairs_m = (tiles_m + 1) >> 1, pairs_n = (tiles_n + 1) >> 1, "
		           "npairs = pairs_m * pairs_n;\n");
	/* The glue's dispatch (glue.c): one branch per run of warpgroups with
	 * the same budget and roles, setmaxnreg first, then one branch per
	 * role; no branch falls into another. */
	const void **frags = arena_alloc(c->arena, (g->edges.n + 64) * sizeof *frags);
	int nfrags = 0, w0 = 0, w1;
	do {
		w1 = abi_wg_run(p, regs, cap, w0);
		fprintf(o, "\tif ((unsigned)((warp >> 2) - %d) < %du) {\n", w0, w1 - w0);
		if (cap && regs[w0] && regs[w0] != cap)
			fprintf(o, "\t\tasm volatile(\"setmaxnreg.%s.sync.aligned.u32 %d;\" ::: \"memory\");\n",
			        regs[w0] > cap ? "inc" : "dec", regs[w0]);
		for (int i = 0; i < p->roles.n; i++) {
			const PRole *r = p->roles.v[i];
			if (!abi_role_in(r, w0, w1))
				continue;
			role_text(o, p, r, frags, &nfrags, op);
		}
		fprintf(o, "\t\treturn;\n\t}\n");
		w0 = w1;
	} while (w0 < nwg);
	fprintf(o, "}\n");
	return 0;
}

int monolith_write(Ctx *c, const Placement *p, FILE *o)
{
	const Graph *g = p->g;
	fprintf(o, "/* The monolithic reference of `%s` for %s, generated by plkc %s:\n"
	           " * the same component sources and placement as the linked kernel, as one unit.\n"
	           " * Build it from the directory plkc ran in (component paths are relative to it):\n"
	           " *   nvcc -gencode arch=compute_%s,code=sm_%s -cubin -I. -I<plkc>/stdlib -o %s.monolith.cubin %s.monolith.cu */\n",
	        g->k->name, p->arch->name, PLK_VERSION, p->arch->name + 3, p->arch->name + 3, g->k->name, g->k->name);
	if (prelude(c, o, &p, 1))
		return -1;
	fputs("extern \"C\" __device__ __forceinline__ void plk_wait_inputs(int inst) { (void)inst; }\n", o);
	fprintf(o, "\nextern \"C\" __global__ void __launch_bounds__(%d, 1)", p->threads);
	if (abi_clustered(p))
		fprintf(o, " __cluster_dims__(%d, %d, 1)", g->cluster[0], g->cluster[1]);
	fprintf(o, "\n%s(", g->k->name);
	for (int i = 0; i < g->kparams.n; i++)
		fprintf(o, "%s%sp%d", i ? ", " : "", trampoline_param_ctype(((const GKParam *)g->kparams.v[i])->kind), i);
	fprintf(o, ")\n{\n");
	return body_text(c, o, p, 0);
}

int monolith_write_mega(Ctx *c, const MegaPlan *mp, FILE *o)
{
	const Placement *const *ps = (const Placement *const *)mp->kernels.v;
	int n = mp->kernels.n;
	fprintf(o, "/* The monolithic reference of megakernel `%s` for %s, generated by plkc %s:\n"
	           " * the same op kernels' component sources, placements and schedule as the linked\n"
	           " * megakernel, as one unit. Build it from the directory plkc ran in:\n"
	           " *   nvcc -gencode arch=compute_%s,code=sm_%s -cubin -I. -I<plkc>/stdlib -o %s.monolith.cubin %s.monolith.cu */\n",
	        mp->m->name, ps[0]->arch->name, PLK_VERSION, ps[0]->arch->name + 3, ps[0]->arch->name + 3, mp->m->name,
	        mp->m->name);
	if (prelude(c, o, ps, n))
		return -1;
	/* each op kernel's main, called once per op (glue.c, build_main) */
	for (int v = 0; v < n; v++) {
		const Graph *g = ps[v]->g;
		fprintf(o, "\nextern \"C\" __device__ __noinline__ void %s(", abi_main_name(c, ps, n, v));
		for (int i = 0; i < g->kparams.n; i++)
			fprintf(o, "%sp%d, ", trampoline_param_ctype(((const GKParam *)g->kparams.v[i])->kind), i);
		fprintf(o, "int plk_first, int plk_step)\n{\n");
		if (body_text(c, o, ps[v], 1))
			return -1;
	}
	fputc('\n', o);
	mega_entry_write(c, o, mp, ps, n, 0);
	return 0;
}
