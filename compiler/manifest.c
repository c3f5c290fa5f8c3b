/* manifest.c: the JSON beside a linked kernel (docs/manifest.md): all the
 * runtime needs to launch it without plkc, LLVM or the recipe. */
#include <string.h>
#include "plk.h"

/* A name of an expression over shape symbols, as check resolved it
 * (Expr.ref): a recipe const by its value, a symbol or scalar by name,
 * for the runtime. */
static void jname(FILE *o, const Expr *n, const void *ud)
{
	const Graph *g = ud;
	if (n->ref == NAME_CONST)
		fprintf(o, "%lld", (long long)graph_constval(g, n));
	else
		fputs(n->name, o);
}

static void jexpr_body(FILE *o, const Graph *g, const Expr *e)
{
	expr_print_names(o, e, jname, g);
}

/* An integer (a number, a const), else a string of the runtime's
 * expression syntax ("M", "ceil_div(K, 64)"); NULL: 1. */
static void jexpr(FILE *o, const Graph *g, const Expr *e)
{
	if (!e)
		fputs("1", o);
	else if (e->k == EX_NUM)
		fprintf(o, "%lld", (long long)e->num);
	else if (e->k == EX_NAME && e->ref == NAME_CONST)
		fprintf(o, "%lld", (long long)graph_constval(g, e));
	else {
		fputc('"', o);
		jexpr_body(o, g, e);
		fputc('"', o);
	}
}

/* "hooks": each hook provider instance, its component, the kernel
 * parameters its params take and where each of its hooks goes (consumer
 * ports, or the grid's order). Written only when the kernel has one. */
static void hooks_json(FILE *o, const Graph *g)
{
	int any = 0;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		if (!in->hooks)
			continue;
		fprintf(o, "%s\n    { \"instance\": ", any++ ? "," : ",\n  \"hooks\": [");
		json_str(o, in->name);
		fputs(", \"component\": ", o);
		json_str(o, in->comp->name);
		fputs(",\n      \"params\": [", o);
		for (int j = 0; j < in->binds.n; j++) {
			const GBind *b = in->binds.v[j];
			fputs(j ? ", { \"name\": " : "{ \"name\": ", o);
			json_str(o, b->param);
			if (b->kparam >= 0) {
				fputs(", \"param\": ", o);
				json_str(o, ((const GKParam *)g->kparams.v[b->kparam])->name);
			} else {
				fputs(", \"expr\": ", o);
				jexpr(o, g, b->expr);
			}
			fputs(" }", o);
		}
		fputs("],\n      \"hooks\": [", o);
		int nh = 0;
		for (int j = 0; j < in->ports.n; j++) {
			const GPort *pt = in->ports.v[j];
			if (!pt->hook)
				continue;
			fprintf(o, "%s\n        { \"port\": ", nh++ ? "," : "");
			json_str(o, pt->name);
			fputs(", \"kind\": ", o);
			json_str(o, pt->hook->name);
			if (pt->hook->shaped)
				fprintf(o, ", \"shape\": [%lld, %lld]", (long long)pt->hshape[0], (long long)pt->hshape[1]);
			fputs(", \"to\": [", o);
			int nt = 0;
			for (int q = 0; q < g->hooks.n; q++) {
				const GHook *h = g->hooks.v[q];
				if (h->fp != pt)
					continue;
				char to[256];
				snprintf(to, sizeof to, "%s.%s", h->to->name, h->tp->name);
				fputs(nt++ ? ", " : "", o);
				json_str(o, to);
			}
			if (g->order_port == pt)
				fprintf(o, "%s\"grid.order\"", nt++ ? ", " : "");
			fputs("] }", o);
		}
		fputs(nh ? "\n      ] }" : "] }", o);
	}
	if (any)
		fputs("\n  ]", o);
}

/* "block" through "grid" of p, the grid object left open; ind: indent. */
/* The launch's cluster, x and y: 1 where the kernel declares none. */
static int cluster_dim(const Graph *g, int d)
{
	return g->cluster[d] > 0 ? g->cluster[d] : 1;
}

/* "key": [the expressions of v (Expr*)], when there are some */
static void ints_json(FILE *o, const Graph *g, const char *ind, const char *key, const Vec *v)
{
	if (!v->n)
		return;
	fprintf(o, "%s\"%s\": [", ind, key);
	for (int i = 0; i < v->n; i++) {
		fputs(i ? ", \"" : "\"", o);
		jexpr_body(o, g, v->v[i]);
		fputc('"', o);
	}
	fputs("],\n", o);
}

static void cond_json(FILE *o, const Graph *g, const Require *r);

/* The kernel's launch: its `require` conditions and the expressions it
 * computes in int (when it has any), block, cluster, shared memory and
 * grid. */
static void launch_json(FILE *o, const Placement *p, const char *ind)
{
	const Graph *g = p->g;
	if (g->requires.n) {
		fprintf(o, "%s\"requires\": [", ind);
		for (int i = 0; i < g->requires.n; i++) {
			fputs(i ? ", " : "", o);
			cond_json(o, g, g->requires.v[i]);
		}
		fputs("],\n", o);
	}
	ints_json(o, g, ind, "int32", &g->ints);   /* what else it computes in int (check_ints), for the runtime */
	ints_json(o, g, ind, "int64", &g->ints64);   /* and in long long */
	fprintf(o, "%s\"block\": [%d, 1, 1],\n%s\"cluster\": [%d, %d, 1],\n%s\"dynamic_smem\": %u,\n",
	        ind, p->threads, ind, cluster_dim(g, 0), cluster_dim(g, 1), ind, p->smem_bytes);
	fprintf(o, "%s\"grid\": { \"policy\": \"%s\", \"tiles\": [[", ind, g->persistent ? "persistent" : "tiles");
	jexpr(o, g, g->tiles[0]);
	fputs(", 1], [", o);
	jexpr(o, g, g->tiles[1]);
	fputs(", 1]]", o);
	if (g->split) {
		fputs(", \"split\": ", o);
		jexpr(o, g, g->split);
	}
	if (g->raster) {
		fputs(", \"raster\": ", o);
		json_str(o, raster_name(g->raster));
		if (g->raster == RASTER_GROUPED)
			fprintf(o, ", \"group\": %lld", (long long)g->raster_group);
	}
}

/* "params": [...], at indent ind. */
static void params_json(FILE *o, const Graph *g, const char *ind)
{
	fprintf(o, "%s\"params\": [", ind);
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *kp = g->kparams.v[i];
		fprintf(o, "%s\n%s  { \"name\": ", i ? "," : "", ind);
		json_str(o, kp->name);
		fprintf(o, ", \"kind\": \"%s\"", kparam_kind_name(kp->kind));
		if (kp->tensor) {
			fputs(", \"tensor\": ", o);
			json_str(o, kp->tensor);
		}
		if (kp->dtype && kp->kind != KP_I32 && kp->kind != KP_I64) {
			fputs(", \"dtype\": ", o);
			json_str(o, kp->dtype);
		}
		if (kp->kind == KP_TENSORMAP) {
			fputs(", \"box\": [", o);
			for (int j = 0; j < kp->rank && j < 4; j++)
				fprintf(o, "%s%lld", j ? ", " : "", (long long)kp->box[j]);
			fputs("], \"swizzle\": ", o);
			json_str(o, kp->swizzle ? kp->swizzle : "none");
		}
		if (kp->dim) {
			fputs(", \"dim\": ", o);
			json_str(o, kp->dim);
		}
		if (kp->kind == KP_WORKSPACE) {   /* its first "zero" bytes zeroed for each new shape */
			fputs(", \"bytes\": ", o);
			jexpr(o, g, g->ws_bytes);
			fputs(", \"zero\": ", o);
			jexpr(o, g, g->ws_zero);
		}
		fputs(" }", o);
	}
	if (g->kparams.n)
		fprintf(o, "\n%s]", ind);
	else
		fputs("]", o);
}

/* "engines": the communication engines the n kernels' components call,
 * once each (the runtime initialises them for the module); none: nothing. */
static void engines_json(FILE *o, const Placement *const *ps, int n)
{
	const Engine *seen[8];
	int ns = 0;
	for (int v = 0; v < n; v++)
		for (int i = 0; i < ps[v]->g->insts.n; i++) {
			const Engine *e = ((const GInst *)ps[v]->g->insts.v[i])->comp->eng;
			int j = 0;
			while (e && j < ns && seen[j] != e)
				j++;
			if (!e || j < ns || ns == 8)
				continue;
			fputs(ns ? ", " : "  \"engines\": [", o);
			json_str(o, e->name);
			seen[ns++] = e;
		}
	if (ns)
		fputs("],\n", o);
}

/* The top level up to "params" (exclusive): p's launch, k's tensors. */
static void head_json(FILE *o, const Placement *const *ps, int n, const char *kernel, const char *entry,
                      const char *binary)
{
	const Placement *p = ps[0];
	const Graph *g = p->g;
	const Kernel *k = g->k;
	fprintf(o, "{\n  \"plk_manifest\": 1,\n  \"kernel\": ");
	json_str(o, kernel);
	fputs(",\n  \"entry\": ", o);
	json_str(o, entry);
	fputs(",\n  \"arch\": [", o);
	for (int i = 0; i < n; i++) {
		fputs(i ? ", " : "", o);
		json_str(o, ps[i]->arch->name);
	}
	fputs("],\n", o);
	if (binary) {
		fputs("  \"binary\": ", o);
		json_str(o, binary);
		fputs(",\n", o);
	}
	engines_json(o, ps, n);
	launch_json(o, p, "  ");
	fputs(" },\n  \"tensors\": [", o);
	int nt = 0, nd = 0;   /* nd: g->tensor_dims taken */
	for (int i = 0; i < k->params.n; i++) {
		const KParam *kp = k->params.v[i];
		if (!kp->ty || kp->ty->k != TY_TENSOR)
			continue;
		const DtypeInfo *d = dtype_lookup(kp->ty->dtype);
		fprintf(o, "%s\n    { \"name\": ", nt++ ? "," : "");
		json_str(o, kp->name);
		fputs(", \"dtype\": ", o);
		json_str(o, kp->ty->dtype);
		fprintf(o, ", \"elem_bytes\": %d, \"dims\": [", d ? (d->bits + 7) / 8 : 0);
		for (int j = 0; j < kp->ty->dims.n; j++) {
			fputs(j ? ", " : "", o);
			jexpr(o, g, g->tensor_dims.v[nd++]);
		}
		fputs("] }", o);
	}
	fputs(nt ? "\n  ],\n" : "],\n", o);
}

/* ------------------------------------------------------- the link map */

/* The file an instance's component came from: the object it was read
 * from, or its declaration. */
static const char *comp_file(const Component *cp)
{
	return cp->object ? cp->object : cp->file ? cp->file : "";
}

/* The lanes of in's role: [first warp, warps] each, in lane order. */
static int inst_roles(const Placement *p, const GInst *in, const PRole **out, int max)
{
	int n = 0;
	for (int i = 0; i < p->roles.n && n < max; i++) {
		const PRole *r = p->roles.v[i];
		if (r->role && r->role->id == in->role)
			out[n++] = r;
	}
	return n;
}

/* "instances": every instance, its component, its object, its constants
 * and its place (docs/manifest.md). */
static void instances_json(FILE *o, const Placement *p, const LinkObj *objs, const char *ind)
{
	const Graph *g = p->g;
	fputc('[', o);
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		const Component *cp = in->comp;
		fprintf(o, "%s\n%s  { \"name\": ", i ? "," : "", ind);
		json_str(o, in->name);
		fputs(", \"component\": ", o);
		json_str(o, cp->name);
		if (objs && objs[i].path) {
			fprintf(o, ", \"from\": \"%s\", \"file\": ", objs[i].from_object ? "object" : "source");
			json_str(o, objs[i].from_object ? objs[i].path : comp_file(cp->decl && !objs[i].from_object ? cp->decl : cp));
			if (objs[i].digest[0]) {
				fputs(", \"object\": ", o);
				json_str(o, objs[i].digest);
			}
		}
		fputs(", \"cparams\": {", o);
		for (int j = 0; j < cp->cparams.n; j++) {
			fputs(j ? ", " : " ", o);
			json_str(o, ((const CParam *)cp->cparams.v[j])->name);
			fprintf(o, ": %lld", (long long)in->cvals[j]);
		}
		fprintf(o, "%s}, \"role\": %d, \"warps\": [", cp->cparams.n ? " " : "", in->role);
		const PRole *rs[8];
		int nr = inst_roles(p, in, rs, 8);
		for (int j = 0; j < nr; j++)
			fprintf(o, "%s[%d, %d]", j ? ", " : "", rs[j]->first_warp, rs[j]->nwarps);
		fprintf(o, "], \"regs\": %d }", nr ? rs[0]->regs : 0);
	}
	if (g->insts.n)
		fprintf(o, "\n%s", ind);
	fputc(']', o);
}

/* ` (lane L)` when the role has lanes; the line's end */
static void lane_end(FILE *out, int nlanes, int lane)
{
	if (nlanes > 1)
		fprintf(out, " (lane %d)", lane);
	fputc('\n', out);
}

void map_print(FILE *out, const Placement *p, const LinkObj *objs)
{
	const Graph *g = p->g;
	fprintf(out, "link map of %s for %s\n", g->k->name, p->arch->name);
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *in = g->insts.v[i];
		const Component *cp = in->comp;
		fprintf(out, "\n%s = %s\n", in->name, cp->name);
		if (objs && objs[i].path) {
			if (objs[i].from_object)
				fprintf(out, "  object    %s (use object)\n", objs[i].path);
			else
				fprintf(out, "  object    %s (built from %s)\n", objs[i].path,
				        comp_file(cp->decl ? cp->decl : cp));
			fprintf(out, "  digest    %s\n", objs[i].digest[0] ? objs[i].digest : "(none)");
		}
		fputs("  cparams  ", out);
		for (int j = 0; j < cp->cparams.n; j++)
			fprintf(out, "%s %s = %lld", j ? "," : "", ((const CParam *)cp->cparams.v[j])->name,
			        (long long)in->cvals[j]);
		fputs(cp->cparams.n ? "\n" : " (none)\n", out);
		const PRole *rs[8];
		int nr = inst_roles(p, in, rs, 8);
		for (int j = 0; j < nr; j++) {
			fprintf(out, "  role %-4d warps %d", in->role, rs[j]->first_warp);
			if (rs[j]->nwarps > 1)
				fprintf(out, "-%d", rs[j]->first_warp + rs[j]->nwarps - 1);
			fprintf(out, ", regs %d", rs[j]->regs);
			lane_end(out, nr, rs[j]->lane);
		}
		for (int j = 0; j < p->bufs.n; j++) {
			const PBuf *b = p->bufs.v[j];
			if (b->inst != in)
				continue;
			fprintf(out, "  smem      %s at %u, %u bytes", b->buf->name, b->off, b->size);
			lane_end(out, nr, b->lane);
		}
		for (int j = 0; j < p->bars.n; j++) {
			const PBar *b = p->bars.v[j];
			if (b->inst != in)
				continue;
			fprintf(out, "  barrier   %s id %d, %d threads", b->bar->name, b->id, b->threads);
			lane_end(out, nr, b->lane);
		}
	}
}

int manifest_write_multi(Ctx *c, const Placement *const *ps, int n, const char *binary, FILE *o)
{
	return manifest_write_linked(c, ps, NULL, n, binary, o);
}

int manifest_write_linked(Ctx *c, const Placement *const *ps, const LinkResult *rs, int n, const char *binary,
                          FILE *o)
{
	const Placement *p = ps[0];
	const Graph *g = p->g;
	head_json(o, ps, n, g->k->name, g->k->name, binary);
	params_json(o, g, "  ");
	hooks_json(o, g);
	fputs(",\n  \"instances\": ", o);
	instances_json(o, p, rs ? rs[0].objs : NULL, "  ");
	fputs(",\n  \"placement\": ", o);
	placement_write_json(o, p, "  ");
	if (n > 1) {   /* per-arch launch shape; the top level is arch[0]'s */
		fputs(",\n  \"variants\": [", o);
		for (int i = 0; i < n; i++) {
			fprintf(o, "%s\n    { \"arch\": \"%s\", \"block\": [%d, 1, 1], \"dynamic_smem\": %u, \"placement\": ",
			        i ? "," : "", ps[i]->arch->name, ps[i]->threads, ps[i]->smem_bytes);
			placement_write_json(o, ps[i], "    ");
			fputs(",\n      \"instances\": ", o);
			instances_json(o, ps[i], rs ? rs[i].objs : NULL, "      ");
			fputs(" }", o);
		}
		fputs("\n  ]", o);
	}
	fputs("\n}\n", o);
	return ferror(o) ? -1 : 0;
}

/* A condition of a branch as {"lhs", "op", "rhs"} or {"lhs", "op": "in",
 * "set"}, each side an integer or an expression string. */
static void cond_json(FILE *o, const Graph *g, const Require *r)
{
	fputs("{ \"lhs\": ", o);
	jexpr(o, g, r->lhs);
	fprintf(o, ", \"op\": \"%s\"", req_op_text(r->op));
	if (r->op == REQ_IN) {
		fputs(", \"set\": [", o);
		for (int i = 0; i < r->set.n; i++) {
			fputs(i ? ", " : "", o);
			jexpr(o, g, r->set.v[i]);
		}
		fputs("] }", o);
		return;
	}
	fputs(", \"rhs\": ", o);
	jexpr(o, g, r->rhs);
	fputs(" }", o);
}

/* A fatbin's per-arch launch shapes of variant v (ps[a * n + v]): the
 * entries a reader picks from by the device's arch. */
static void arch_entries(FILE *o, const Placement *const *ps, int n, int narch, int v, const char *ind, int more)
{
	for (int a = 0; a < narch; a++) {
		const Placement *p = ps[a * n + v];
		fprintf(o, "%s\n%s{ \"arch\": \"%s\", \"block\": [%d, 1, 1], \"cluster\": [%d, %d, 1], \"dynamic_smem\": %u }",
		        a || more ? "," : "", ind, p->arch->name, p->threads, cluster_dim(p->g, 0), cluster_dim(p->g, 1),
		        p->smem_bytes);
	}
}

/* ps[a * n + v]: variant v placed for arch a (narch of them: a fatbin
 * when more than one); rs[a] its link, or NULL. */
int manifest_write_select(Ctx *c, const Select *s, const Variant *vs, const int *of, const Placement *const *ps,
                          int n, int narch, const LinkResult *rs, const char *binary, FILE *o)
{
	/* the top level: the default variant's, so that a reader without
	 * "variants" launches the kernel that serves every shape */
	int nb = s->branches.n, dv = of[nb - 1];
	const Placement *dp = ps[dv];
	const Graph *g = dp->g;
	const Placement *heads[8];   /* at most 8 -arch (main.c) */
	int nh = narch < 8 ? narch : 8;
	for (int a = 0; a < nh; a++)
		heads[a] = ps[a * n + dv];
	head_json(o, heads, nh, s->name, g->k->name, binary);
	int *off = arena_alloc(c->arena, (size_t)(n + 1) * sizeof *off);   /* objs: the variants' instances in turn */
	off[0] = 0;
	for (int v = 0; v < n; v++)
		off[v + 1] = off[v] + ps[v]->g->insts.n;
	const LinkObj *objs = rs ? rs[0].objs : NULL;
	params_json(o, g, "  ");
	hooks_json(o, g);
	fputs(",\n  \"instances\": ", o);
	instances_json(o, dp, objs ? objs + off[dv] : NULL, "  ");
	fputs(",\n  \"placement\": ", o);
	placement_write_json(o, dp, "  ");
	fputs(",\n  \"variants\": [", o);
	for (int i = 0; i < nb; i++) {   /* the rule's branches; a kernel's launch at its first */
		int v = of[i];
		const Branch *br = s->branches.v[i];
		const Graph *vg = ps[v]->g;
		fprintf(o, "%s\n    { \"name\": ", i ? "," : "");
		json_str(o, vg->k->name);
		fputs(", \"when\": [", o);
		for (int j = 0; j < br->conds.n; j++) {
			fputs(j ? ", " : "", o);
			cond_json(o, vg, br->conds.v[j]);
		}
		fputs("]", o);
		if (vs[v].br != br) {   /* named before: this branch alone */
			fputs(" }", o);
			continue;
		}
		fputs(",\n", o);
		launch_json(o, ps[v], "      ");
		fputs(" },\n", o);
		params_json(o, vg, "      ");
		fputs(",\n      \"instances\": ", o);
		instances_json(o, ps[v], objs ? objs + off[v] : NULL, "      ");
		fputs(",\n      \"placement\": ", o);
		placement_write_json(o, ps[v], "      ");
		if (narch > 1) {
			fputs(",\n      \"variants\": [", o);
			arch_entries(o, ps, n, narch, v, "        ", 0);
			fputs("\n      ]", o);
		}
		fputs(" }", o);
	}
	if (narch > 1)   /* the default variant's, for a reader without kernel variants */
		arch_entries(o, ps, n, narch, dv, "    ", 1);
	fputs("\n  ]\n}\n", o);
	return ferror(o) ? -1 : 0;
}

int manifest_write(Ctx *c, const Placement *p, FILE *out)
{
	return manifest_write_multi(c, &p, 1, NULL, out);
}
