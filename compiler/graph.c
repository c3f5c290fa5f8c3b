/* graph.c: the checked composition graph as text (--emit=graph) and as
 * Graphviz (--emit=dot), and the facts about it that later stages share. */
#include <string.h>
#include "plk.h"

const char *kparam_kind_name(KParamKind k)
{
	static const char *const s[] = { "ptr", "tensormap", "i32", "i64", "f32", "workspace" };
	return k <= KP_WORKSPACE ? s[k] : "?";
}

int scalar_kind(const char *dtype)
{
	if (!dtype)
		return -1;
	if (!strcmp(dtype, "i32") || !strcmp(dtype, "u32"))
		return KP_I32;
	if (!strcmp(dtype, "i64") || !strcmp(dtype, "u64"))
		return KP_I64;
	if (!strcmp(dtype, "f32"))
		return KP_F32;
	return -1;
}

const char *kparam_ctype(KParamKind k)
{
	return k == KP_F32 ? "float" : k == KP_I64 ? "long long" : k == KP_I32 ? "int" : "void *";
}

static void print_field(FILE *out, const GField *f, int frag)
{
	fprintf(out, "%s<%s, %lld x %lld, %s>", frag ? "frag" : "tile", f->dtype,
	        (long long)f->rows, (long long)f->cols, f->layout);
}

/* `hook KIND[<R x C>][ = BASE]` */
static void hook_print(FILE *out, const GPort *p)
{
	fprintf(out, "hook %s", p->hook ? p->hook->name : "?");
	if (p->hook && p->hook->shaped)
		fprintf(out, "<%lld x %lld>", (long long)p->hshape[0], (long long)p->hshape[1]);
	if (p->decl->ty->base)
		fprintf(out, " = %s", p->decl->ty->base);
	if (p->dir == PORT_IN)
		fputs(p->hk ? "" : ", unconnected: the component's default", out);
}

void graph_print(FILE *out, const Graph *g)
{
	fprintf(out, "kernel %s for %s\n", g->k->name, g->arch->name);
	if (g->consts.n) {
		fprintf(out, "  const");
		for (int i = 0; i < g->consts.n; i++)
			fprintf(out, "%s %s = %lld", i ? "," : "", ((Const *)g->consts.v[i])->name,
			        (long long)g->constvals[i]);
		fprintf(out, "\n");
	}
	fprintf(out, "  grid %s", g->persistent ? "persistent" : "one block per tile");
	if (g->tiles[0]) {
		fprintf(out, ", tiles(");
		expr_print(out, g->tiles[0]);
		fprintf(out, ", ");
		expr_print(out, g->tiles[1]);
		fprintf(out, ")");
	}
	if (g->raster) {
		fprintf(out, ", raster %s", raster_name(g->raster));
		if (g->raster_group)
			fprintf(out, "(%lld)", (long long)g->raster_group);
	}
	if (g->cluster[0] * g->cluster[1] > 1)
		fprintf(out, ", cluster(%d, %d)", g->cluster[0], g->cluster[1]);
	if (g->order)
		fprintf(out, ", order(%s.%s)", g->order->name, g->order_port->name);
	if (g->stream) {
		fprintf(out, ", split auto (stream-K: the blocks share the tiles' ");
		expr_print(out, g->split_per);
		fprintf(out, " slots each; workspace ");
		expr_print(out, g->ws_bytes);
		fprintf(out, " bytes)");
	} else if (g->split) {
		fprintf(out, ", split ");
		expr_print(out, g->split);
		fprintf(out, " (of ");
		expr_print(out, g->split_per);
		fprintf(out, " slots; workspace ");
		expr_print(out, g->ws_bytes);
		fprintf(out, " bytes)");
	}
	if (g->dynamic)
		fprintf(out, ", dynamic (the next work item from a counter in the workspace)");
	fprintf(out, "\n  params\n");
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *q = g->kparams.v[i];
		fprintf(out, "    %d %s: %s", i, q->name, kparam_kind_name(q->kind));
		if (q->kind == KP_TENSORMAP) {
			fprintf(out, "<%s, %d> box [", q->dtype, q->rank);
			for (int j = 0; j < q->rank && j < 4; j++)
				fprintf(out, "%s%lld", j ? ", " : "", (long long)q->box[j]);
			fprintf(out, "] %s", q->swizzle);
		} else if (q->kind == KP_PTR) {
			fprintf(out, "<%s>", q->dtype);
		}
		if (q->tensor)
			fprintf(out, " of tensor %s", q->tensor);
		if (q->dim)
			fprintf(out, " (shape symbol)");
		fprintf(out, "\n");
	}
	fprintf(out, "  roles\n");
	for (int i = 0; i < g->roles.n; i++) {
		const GRole *r = g->roles.v[i];
		fprintf(out, "    role %d: %d warp%s", r->id, r->nwarps, r->nwarps == 1 ? "" : "s");
		if (r->lanes > 1)
			fprintf(out, " x %d pingpong lanes", r->lanes);
		if (r->regs)
			fprintf(out, ", regs %d", r->regs);
		if (r->warpgroup_aligned)
			fprintf(out, ", warpgroup-aligned");
		fprintf(out, ":");
		for (int j = 0; j < r->insts.n; j++)
			fprintf(out, "%s %s", j ? " ->" : "", ((GInst *)r->insts.v[j])->name);
		fprintf(out, "\n");
	}
	fprintf(out, "  instances\n");
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		const Component *cp = gi->comp;
		fprintf(out, "    %s = %s: ", gi->name, cp->name);
		if (gi->hooks)
			fprintf(out, "hook provider, on its callers' warps");
		else
			fprintf(out, "role %d", gi->role);
		if (gi->hooks)
			;
		else if (gi->nwarps)
			fprintf(out, ", warps %d", gi->nwarps);
		else
			fprintf(out, ", on its producer's warps");
		if (gi->regs)
			fprintf(out, ", regs %d", gi->regs);
		for (unsigned b = 1, f = 0; b; b <<= 1)
			if (gi->features & b)
				fprintf(out, "%s%s", f++ ? ", " : ", needs ", feature_name(b));
		fprintf(out, "\n");
		if (cp->cparams.n) {
			fprintf(out, "      const");
			for (int j = 0; j < cp->cparams.n; j++)
				fprintf(out, "%s %s = %lld", j ? "," : "", ((CParam *)cp->cparams.v[j])->name,
				        (long long)gi->cvals[j]);
			fprintf(out, "\n");
		}
		for (int j = 0; j < gi->binds.n; j++) {
			const GBind *b = gi->binds.v[j];
			if (b->expr) {
				fprintf(out, "      param %s = ", b->param);
				expr_print(out, b->expr);
				fprintf(out, " (computed)\n");
			} else {
				fprintf(out, "      param %s = #%d %s\n", b->param, b->kparam,
				        ((GKParam *)g->kparams.v[b->kparam])->name);
			}
		}
		for (int j = 0; j < gi->ports.n; j++) {
			const GPort *p = gi->ports.v[j];
			fprintf(out, "      %s %s: ", p->dir == PORT_IN ? "in " : "out", p->name);
			if (p->k == TY_HOOK) {
				hook_print(out, p);
				fputc('\n', out);
			} else if (p->k == TY_BUNDLE) {
				fprintf(out, "{ ");
				for (int q = 0; q < p->fields.n; q++) {
					const GField *f = p->fields.v[q];
					fprintf(out, "%s%s: ", q ? ", " : "", f->name);
					print_field(out, f, 0);
					fprintf(out, " @%u", f->off);
				}
				fprintf(out, " }, %u bytes\n", p->bytes);
			} else {
				print_field(out, p->fields.v[0], p->k == TY_FRAG);
				fprintf(out, p->k == TY_FRAG ? ", %u bytes per thread\n" : ", %u bytes\n", p->bytes);
			}
		}
		for (int j = 0; j < gi->bufs.n; j++) {
			const GBuf *b = gi->bufs.v[j];
			fprintf(out, "      smem %s: %u bytes, align %u, live %s\n", b->name, b->size, b->align,
			        live_name(b->live));
		}
		for (int j = 0; j < gi->bars.n; j++) {
			const GBar *b = gi->bars.v[j];
			fprintf(out, "      barrier %s: %d threads\n", b->name, b->threads);
		}
		for (int j = 0; j < gi->comp->keeps.n; j++)
			fprintf(out, "      regs %s: %d words a thread, kept across calls\n",
			        ((const Keep *)gi->comp->keeps.v[j])->name, gi->keep_words[j]);
	}
	fprintf(out, "  edges\n");
	for (int i = 0; i < g->edges.n; i++) {
		const GEdge *e = g->edges.v[i];
		fprintf(out, "    e%d %s.%s -> %s.%s: ", e->id, e->from->name, e->fp->name, e->to->name, e->tp->name);
		if (e->kind == EDGE_REGS)
			fprintf(out, "registers, %u bytes per thread%s\n", e->slot_bytes,
			        e->reduce ? "; partial sums, added by the glue for the last split" : "");
		else {
			fprintf(out, e->stages ? "smem ring, %u-byte slots, %d stages" : "smem ring, %u-byte slots, stages auto",
			        e->slot_bytes, e->stages);
			if (e->fp->decl && e->fp->decl->split)
				fprintf(out, ", split");
			if (e->tp->ahead)
				fprintf(out, ", read ahead (an item past the last, a slot or more an item)");
			if (e->lanes > 1) {
				fprintf(out, ", pingpong %d (", e->lanes);
				expr_print(out, e->per);
				fprintf(out, " slots per work item%s)", edge_handoff(e) ? ", turn handed off by the consumer" : "");
			}
			fputc('\n', out);
		}
	}
	if (g->hooks.n)
		fprintf(out, "  hooks\n");
	for (int i = 0; i < g->hooks.n; i++) {
		const GHook *h = g->hooks.v[i];
		fprintf(out, "    h%d %s.%s -> %s.%s: %s", h->id, h->from->name, h->fp->name, h->to->name, h->tp->name,
		        h->kind->name);
		if (h->kind->shaped)
			fprintf(out, "<%lld x %lld>", (long long)h->fp->hshape[0], (long long)h->fp->hshape[1]);
		fprintf(out, ", calls %s*\n", h->fp->decl->ty->base);
	}
}

int edge_handoff(const GEdge *e)
{
	return e->tp && e->tp->decl && e->tp->decl->handoff;
}

Span kernel_span(const Graph *g)
{
	return g && g->k ? g->k->name_sp : span_none;
}

int inst_lanes(const Graph *g, const GInst *in)
{
	const GRole *r = in->role >= 0 && in->role < g->roles.n ? g->roles.v[in->role] : NULL;
	return r && r->lanes > 1 ? r->lanes : 1;
}

int graph_ids(const Graph *g)
{
	int lanes = 1;
	for (int i = 0; i < g->insts.n; i++)
		lanes = inst_lanes(g, g->insts.v[i]) > lanes ? inst_lanes(g, g->insts.v[i]) : lanes;
	return g->insts.n * lanes;
}

static int const_index(const Graph *g, const char *name)   /* -1: no const of that name */
{
	for (int i = 0; i < g->consts.n; i++)
		if (!strcmp(((const Const *)g->consts.v[i])->name, name))
			return i;
	return -1;
}

NameRef graph_name(const Graph *g, const char *name, int *index)
{
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *k = g->kparams.v[i];
		if ((k->kind == KP_I32 || k->kind == KP_I64) && !strcmp(k->name, name)) {
			*index = i;
			return NAME_KPARAM;
		}
	}
	*index = const_index(g, name);
	return *index >= 0 ? NAME_CONST : NAME_NONE;   /* none: E0511 where the glue computes it */
}

int graph_const(const Graph *g, const char *name, int64_t *val)
{
	int i = const_index(g, name);
	if (i >= 0)
		*val = g->constvals[i];
	return i >= 0;
}

Expr *graph_resolve(Arena *a, const Graph *g, const Expr *e)
{
	if (!e)
		return NULL;
	Expr *n = arena_alloc(a, sizeof *n);
	*n = *e;
	if (e->k == EX_NAME)
		n->ref = graph_name(g, e->name, &n->ref_i);
	n->a = graph_resolve(a, g, e->a);
	n->b = graph_resolve(a, g, e->b);
	n->args = (Vec){ 0 };
	for (int i = 0; i < e->args.n; i++)
		vec_push(a, &n->args, graph_resolve(a, g, e->args.v[i]));
	return n;
}

int64_t graph_constval(const Graph *g, const Expr *e)
{
	return g->constvals[e->ref_i];
}

int graph_nonneg(const Graph *g, const Expr *e)
{
	switch (e ? e->k : EX_AUTO) {
	case EX_NUM: return e->num >= 0;
	case EX_NAME:
		switch (e->ref) {
		case NAME_KPARAM: return ((const GKParam *)g->kparams.v[e->ref_i])->dim != NULL;
		case NAME_CONST: return graph_constval(g, e) >= 0;
		case NAME_NONE: return 0;
		}
		return 0;
	case EX_BIN: return e->op != '-' && graph_nonneg(g, e->a) && graph_nonneg(g, e->b);
	case EX_CALL:
		for (int i = 0; i < e->args.n; i++)
			if (!graph_nonneg(g, e->args.v[i]))
				return 0;
		return e->fn != FN_UNKNOWN;
	default: return 0;
	}
}

void graph_order_binds(Arena *a, GInst *gi)
{
	int np = gi->comp->params.n;
	Vec sorted = { 0 };
	gi->bind = arena_alloc(a, (np + 1) * sizeof *gi->bind);
	for (int pi = 0; pi < np; pi++)
		for (int j = 0; j < gi->binds.n; j++)
			if (((const GBind *)gi->binds.v[j])->decl == gi->comp->params.v[pi]) {
				vec_push(a, &sorted, gi->binds.v[j]);
				if (!gi->bind[pi])
					gi->bind[pi] = gi->binds.v[j];
			}
	gi->binds = sorted;
}

const char *edge_name(Arena *a, const GEdge *e)
{
	return arena_printf(a, "%s.%s -> %s.%s", e->from->name, e->fp ? e->fp->name : "?",
	                    e->to->name, e->tp ? e->tp->name : "?");
}

const char *role_name(Arena *a, const GRole *r)
{
	const char *s = "";
	for (int i = 0; i < r->insts.n; i++)
		s = arena_printf(a, "%s%s%s", s, i ? "+" : "", ((GInst *)r->insts.v[i])->name);
	return *s ? s : arena_printf(a, "role %d", r->id);
}

void graph_dot(FILE *out, const Graph *g)
{
	fprintf(out, "digraph \"%s\" {\n  rankdir=LR;\n  node [shape=box, fontname=\"monospace\"];\n", g->k->name);
	for (int i = 0; i < g->roles.n; i++) {
		const GRole *r = g->roles.v[i];
		fprintf(out, "  subgraph cluster_role%d {\n    label=\"role %d: %d warp%s", r->id, r->id,
		        r->nwarps, r->nwarps == 1 ? "" : "s");
		if (r->lanes > 1)
			fprintf(out, " x %d pingpong lanes", r->lanes);
		if (r->regs)
			fprintf(out, ", regs %d", r->regs);
		fprintf(out, "\";\n");
		for (int j = 0; j < r->insts.n; j++) {
			const GInst *gi = r->insts.v[j];
			fprintf(out, "    \"%s\" [label=\"%s\\n%s\"];\n", gi->name, gi->name, gi->comp->name);
		}
		fprintf(out, "  }\n");
	}
	for (int i = 0; i < g->edges.n; i++) {
		const GEdge *e = g->edges.v[i];
		const GField *f = e->fp->fields.v[0];
		char stages[16];
		snprintf(stages, sizeof stages, e->stages ? "%d" : "auto", e->stages);
		if (e->kind == EDGE_REGS)
			fprintf(out, "  \"%s\" -> \"%s\" [label=\"%s -> %s\\nfrag %s %lldx%lld %s\", style=dashed];\n",
			        e->from->name, e->to->name, e->fp->name, e->tp->name, f->dtype,
			        (long long)f->rows, (long long)f->cols, f->layout);
		else
			fprintf(out, "  \"%s\" -> \"%s\" [label=\"%s -> %s\\n%u B x %s stages\"];\n",
			        e->from->name, e->to->name, e->fp->name, e->tp->name, e->slot_bytes, stages);
	}
	/* hook providers outside every role; their connections dashed */
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		if (gi->hooks)
			fprintf(out, "  \"%s\" [label=\"%s\\n%s (hooks)\", style=rounded];\n", gi->name, gi->name,
			        gi->comp->name);
	}
	for (int i = 0; i < g->hooks.n; i++) {
		const GHook *h = g->hooks.v[i];
		fprintf(out, "  \"%s\" -> \"%s\" [label=\"%s -> %s\\nhook %s\", style=dashed, arrowhead=empty];\n",
		        h->from->name, h->to->name, h->fp->name, h->tp->name, h->kind->name);
	}
	if (g->order)
		fprintf(out, "  \"%s\" [label=\"tile loop\", shape=ellipse];\n  \"%s\" -> \"%s\" [label=\"%s\\norder\", style=dashed, arrowhead=empty];\n",
		        "(tiles)", g->order->name, "(tiles)", g->order_port->name);
	fprintf(out, "}\n");
}

static const char *const live_names[] = { "prologue", "mainloop", "epilogue", "all" };

const char *const *live_all(int *n)
{
	*n = 4;
	return live_names;
}

const char *live_name(unsigned m)
{
	switch (m) {
	case LIVE_PROLOGUE: return live_names[0];
	case LIVE_MAINLOOP: return live_names[1];
	case LIVE_EPILOGUE: return live_names[2];
	default: return live_names[3];
	}
}

const char *raster_name(Raster r)
{
	static const char *const names[] = { [RASTER_ROW] = "row", [RASTER_COLUMN] = "column",
	                                     [RASTER_GROUPED] = "grouped" };
	return r == RASTER_NONE ? NULL : names[r];
}

/* The registers a frag port reads or writes, as a key: its edge's, which
 * producer and consumer share; but the consumer of a reduced frag
 * (GEdge.reduce) reads the sums from registers of its own: written by
 * the reduction, they would be accumulator registers that other
 * instructions define, and ptxas would serialize the wgmmas (C7515). */
const void *frag_key(const GPort *pt)
{
	if (!pt->edge)
		return pt;
	return pt->edge->reduce && pt == pt->edge->tp ? (const void *)pt : (const void *)pt->edge;
}
