/* check_bind.c: the kernel's parameters and names, and every component
 * param bound to one of them.
 *
 * A tensor's dims name shape symbols, each an i32 parameter of its own. A
 * component param binds by name (its own, or `param = NAME`) to a kernel
 * param or shape symbol, an integer scalar also to an expression; the
 * kernel params are then put in launch order. */
#include <string.h>
#include "check.h"

/* ----------------------------------------------------------- parameters */

static int find_kparam(const Kernel *kn, const char *name)
{
	for (int i = 0; i < kn->params.n; i++)
		if (!strcmp(((KParam *)kn->params.v[i])->name, name))
			return i;
	return -1;
}

static int find_dim(Chk *k, const char *name)
{
	for (int i = 0; i < k->ndims; i++)
		if (!strcmp(k->dims[i], name))
			return i;
	return -1;
}

static void collect_dims(Chk *k, const Expr *e)
{
	if (!e)
		return;
	if (e->k == EX_NAME) {
		int f;
		kconst(k, e->name, &f);
		if (!f && find_dim(k, e->name) < 0) {
			k->dims[k->ndims] = e->name;
			k->dim_sp[k->ndims++] = e->sp;
		}
		return;
	}
	collect_dims(k, e->a);
	collect_dims(k, e->b);
	for (int i = 0; i < e->args.n; i++)
		collect_dims(k, e->args.v[i]);
}

static int count_names(const Expr *e)
{
	if (!e)
		return 0;
	int n = e->k == EX_NAME;
	n += count_names(e->a) + count_names(e->b);
	for (int i = 0; i < e->args.n; i++)
		n += count_names(e->args.v[i]);
	return n;
}

static const char *kind_str(const Type *t)
{
	switch (t->k) {
	case TY_SCALAR: return "a scalar";
	case TY_PTR: return "a pointer";
	case TY_TENSOR: return "a tensor";
	case TY_TENSORMAP: return "a tensor map";
	default: return "a port type";
	}
}

static void wrong_kind(Chk *k, Span at, const Param *p, const GInst *gi, const char *kname,
                       Span ksp, const char *kkind, const char *help)
{
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0333", at, "param `%s` of `%s` is %s, but `%s` is %s",
	                   p->name, gi->comp->name, kind_str(p->ty), kname, kkind);
	d->primary.msg = arena_printf(A(k), "`%s` bound here", kname);
	diag_label(d, p->sp, "`%s` declared here", p->name);
	if (ksp.src >= 0)
		diag_label(d, ksp, "`%s` declared here", kname);
	diag_help(d, "%s", help);
	diag_end(k->c, d);
}

static void dtype_mismatch(Chk *k, Span at, const Param *p, const GInst *gi, const char *kname,
                           const char *kdt, Span ksp)
{
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0335", at, "param `%s` of `%s` is %s, but `%s` is %s",
	                   p->name, gi->comp->name, p->ty->dtype, kname, kdt);
	d->primary.msg = arena_printf(A(k), "`%s` bound here", kname);
	diag_label(d, p->ty->dtype_sp.src >= 0 ? p->ty->dtype_sp : p->sp, "`%s` expects %s", p->name, p->ty->dtype);
	if (ksp.src >= 0)
		diag_label(d, ksp, "`%s` declared here", kname);
	diag_help(d, "bind a kernel parameter of dtype %s", p->ty->dtype);
	diag_end(k->c, d);
}

/* A known dtype, equal to that of the kernel parameter bound to it. */
static int same_dtype(Chk *k, Span at, const Param *p, const GInst *gi, const char *kname,
                      const KParam *kp)
{
	const Type *t = p->ty;
	if (!need_dtype(k, t->dtype, t->dtype_sp))
		return 0;
	if (strcmp(t->dtype, kp->ty->dtype)) {
		dtype_mismatch(k, at, p, gi, kname, kp->ty->dtype, kp->sp);
		return 0;
	}
	return 1;
}

/* The swizzle a tensor map must load with: the port tile it fills. */
static const char *tmap_swizzle(const GInst *gi, const char *pname, const int64_t *box, int rank)
{
	const GField *shape = NULL;
	for (int i = 0; i < gi->ports.n; i++) {
		const GPort *gp = gi->ports.v[i];
		if (gp->id < 0 || gp->k == TY_FRAG)
			continue;
		for (int j = 0; j < gp->fields.n; j++) {
			const GField *f = gp->fields.v[j];
			if (!strcmp(f->name, pname))
				return f->layout;
			if (!shape && rank >= 2 && f->cols == box[0] && f->rows == box[1])
				shape = f;
		}
	}
	return shape ? shape->layout : "none";
}

/* Each kernel param's kind and dtype checked; the shape symbols of the
 * tensors' dims collected (in order of first appearance), none a param. */
void kernel_params(Chk *k)
{
	Ctx *c = k->c;
	const Kernel *kn = k->k;
	int maxd = 0;
	for (int i = 0; i < kn->params.n; i++) {
		const KParam *kp = kn->params.v[i];
		for (int j = 0; j < kp->ty->dims.n; j++)
			maxd += count_names(kp->ty->dims.v[j]);
	}
	k->dims = arena_alloc(c->arena, (maxd + 1) * sizeof *k->dims);
	k->dim_sp = arena_alloc(c->arena, (maxd + 1) * sizeof *k->dim_sp);
	k->kused = arena_alloc(c->arena, (kn->params.n + 1) * sizeof *k->kused);
	for (int i = 0; i < kn->params.n; i++) {
		const KParam *kp = kn->params.v[i];
		const Type *t = kp->ty;
		if (t->k == TY_TENSOR) {
			need_dtype(k, t->dtype, t->dtype_sp);
			for (int j = 0; j < t->dims.n; j++)
				collect_dims(k, t->dims.v[j]);
		} else if (t->k == TY_PTR) {
			need_dtype(k, t->dtype, t->dtype_sp);
		} else if (t->k == TY_SCALAR) {
			if (need_dtype(k, t->dtype, t->dtype_sp) && scalar_kind(t->dtype) < 0) {
				Diag *d = diag_new(c, DIAG_ERROR, "E0333", t->sp, "a kernel scalar cannot be %s", t->dtype);
				d->primary.msg = "not a parameter kind";
				diag_help(d, "scalars are i32, u32, i64, u64 or f32");
				diag_end(c, d);
			}
		} else {
			Diag *d = diag_new(c, DIAG_ERROR, "E0333", t->sp, "kernel parameter `%s` is %s",
			                   kp->name, kind_str(t));
			d->primary.msg = "not a kernel parameter kind";
			diag_help(d, "kernels take `tensor<T>[dims]`, `ptr<T>` and scalars; tensor maps are made from tensors");
			diag_end(c, d);
		}
	}
	for (int i = 0; i < k->ndims; i++)
		if (find_kparam(kn, k->dims[i]) >= 0) {
			int ki = find_kparam(kn, k->dims[i]);
			const KParam *kp = kn->params.v[ki];
			Diag *d = diag_new(c, DIAG_ERROR, "E0334", kp->sp,
			                   "`%s` is both a kernel parameter and a shape symbol", kp->name);
			d->primary.msg = "declared as a parameter here";
			diag_label(d, k->dim_sp[i], "used as a tensor dimension here");
			diag_help(d, "shape symbols are passed as i32 parameters already; remove `%s` or rename it", kp->name);
			diag_end(c, d);
		}
}

/* --------------------------------------------------------------- grid */

/* Every name in e is a kernel const, shape symbol or scalar param (that
 * param is then used). */
static void check_names_in(Chk *k, const Expr *e)
{
	if (!e)
		return;
	if (e->k == EX_NAME) {
		int f;
		kconst(k, e->name, &f);
		int ki = find_kparam(k->k, e->name);
		if (ki >= 0) {
			const KParam *kp = k->k->params.v[ki];
			if (kp->ty->k == TY_SCALAR) {
				k->kused[ki] = 1;
				int sk = scalar_kind(kp->ty->dtype);
				if (sk != KP_I32 && sk != KP_I64) {   /* the kernel computes these in int */
					Diag *d = diag_new(k->c, DIAG_ERROR, "E0389", e->sp, "parameter `%s: %s` in an integer "
					                   "expression", e->name, kp->ty->dtype ? kp->ty->dtype : "?");
					d->primary.msg = "not an integer";
					diag_label(d, kp->sp, "declared here");
					diag_help(d, "the grid's work items and the expressions bound to integer params are "
					          "computed in integers: pass `%s` as an `i32` or `i64`, or use a `const`", e->name);
					diag_end(k->c, d);
				}
				return;
			}
		}
		if (f || find_dim(k, e->name) >= 0)
			return;
		int n = k->kscope.n;
		const char **cands = arena_alloc(A(k), (n + k->ndims + k->k->params.n + 1) * sizeof *cands);
		memcpy(cands, k->kscope.names, n * sizeof *cands);
		for (int i = 0; i < k->ndims; i++)
			cands[n++] = k->dims[i];
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0320", e->sp, "unknown name `%s`", e->name);
		d->primary.msg = "not a constant, shape symbol or scalar parameter of the kernel";
		help_similar(d, e->name, cands, n, "names in scope");
		diag_end(k->c, d);
		return;
	}
	if (e->k == EX_AUTO) {
		eval_expr(k->c, e, NULL, &(int64_t){ 0 });
		return;
	}
	if (e->k == EX_CALL && !builtin_call(e)) {
		eval_expr(k->c, e, NULL, &(int64_t){ 0 });   /* E0324, as for a constant */
		return;
	}
	check_names_in(k, e->a);
	check_names_in(k, e->b);
	for (int i = 0; i < e->args.n; i++)
		check_names_in(k, e->args.v[i]);
}

/* The grid policies: persistent, tiles, raster, cluster, order, split,
 * dynamic (into g). */
void check_grid(Chk *k)
{
	static const char *const pols[] = { "persistent", "tiles", "raster", "cluster", "order", "split", "dynamic" };
	static const char *const rasters[] = { "grouped", "row", "column" };
	Graph *g = k->g;
	g->cluster[0] = g->cluster[1] = 1;
	for (int i = 0; i < k->k->policies.n; i++) {
		const Policy *p = k->k->policies.v[i];
		int want = -1;
		const char *usage = NULL;
		if (!strcmp(p->name, "persistent"))
			want = 0, usage = "`persistent`";
		else if (!strcmp(p->name, "tiles"))
			want = 2, usage = "`tiles(ROWS, COLS)`";
		else if (!strcmp(p->name, "cluster"))
			want = 2, usage = "`cluster(X, Y)`";
		else if (!strcmp(p->name, "order"))
			want = 1, usage = "`order(INST)`, INST an instance providing a `tile_order` hook";
		else if (!strcmp(p->name, "split"))
			want = 1, usage = "`split(S)`: each tile's K divided among S work items; `split(auto)`: all tiles' K among the blocks";
		else if (!strcmp(p->name, "dynamic"))
			want = 0, usage = "`dynamic`: each block takes its next work item as it finishes one";
		else if (!strcmp(p->name, "raster")) {
			usage = "`raster grouped(G)`, `raster row` or `raster column`";
			int r = -1;
			for (int j = 0; p->sub && j < 3; j++)
				if (!strcmp(p->sub, rasters[j]))
					r = j;
			want = r == 0 ? 1 : r > 0 ? 0 : -2;
		}
		if (want == -1 || want == -2 || (p->sub && strcmp(p->name, "raster")) || p->args.n != want) {
			Diag *d;
			if (want == -1) {
				d = diag_new(k->c, DIAG_ERROR, "E0347", p->sp, "unknown grid policy `%s`", p->name);
				d->primary.msg = "not a grid policy";
				help_similar(d, p->name, (const char **)pols, 7, "grid policies");
			} else {
				d = diag_new(k->c, DIAG_ERROR, "E0347", p->sp, "malformed grid policy `%s`", p->name);
				d->primary.msg = "wrong form";
				diag_help(d, "write %s", usage);
			}
			diag_end(k->c, d);
			continue;
		}
		if (!strcmp(p->name, "persistent"))
			g->persistent = 1;
		else if (!strcmp(p->name, "dynamic"))
			k->dynamic = p;      /* what it needs: check_dynamic */
		else if (!strcmp(p->name, "order"))
			k->order = p;        /* its instance: check_order */
		else if (!strcmp(p->name, "split")) {
			k->split = p;        /* its ring and reductions: check_split */
			if (((const Expr *)p->args.v[0])->k != EX_AUTO)   /* split(auto): stream-K */
				check_names_in(k, p->args.v[0]);
		}
		else if (!strcmp(p->name, "tiles")) {
			g->tiles[0] = p->args.v[0];
			g->tiles[1] = p->args.v[1];
			check_names_in(k, g->tiles[0]);
			check_names_in(k, g->tiles[1]);
		} else if (!strcmp(p->name, "raster")) {
			static const Raster kinds[] = { RASTER_GROUPED, RASTER_ROW, RASTER_COLUMN };
			for (int j = 0; j < 3; j++)
				if (!strcmp(p->sub, rasters[j]))
					g->raster = kinds[j];
			if (want == 1 && eval_pos(k, p->args.v[0], NULL, "a raster group", &g->raster_group))
				continue;
			if (g->raster_group > INT32_MAX) {
				const Expr *e = p->args.v[0];
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0347", e->sp, "a raster group of %lld tile rows",
				                   (long long)g->raster_group);
				d->primary.msg = arena_printf(A(k), "at most %d: the kernel numbers its tiles in 32 bits", INT32_MAX);
				diag_help(d, "groups of 8 or 16 rows keep a wave's tiles in L2");
				diag_end(k->c, d);
				g->raster_group = 0;
				continue;
			}
		} else {
			int64_t x, y;
			if (eval_pos(k, p->args.v[0], NULL, "a cluster extent", &x) ||
			    eval_pos(k, p->args.v[1], NULL, "a cluster extent", &y))
				continue;
			if (x > 16 || y > 16) {      /* before their product, which may not fit in 64 bits */
				const Expr *e = p->args.v[x > 16 ? 0 : 1];
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0347", e->sp, "a cluster extent of %lld blocks",
				                   (long long)(x > 16 ? x : y));
				d->primary.msg = "a cluster has at most 16 blocks";
				diag_help(d, "portable cluster sizes are at most 8 blocks");
				diag_end(k->c, d);
				continue;
			}
			if (x * y > 1 && !(k->arch->features & FEAT_CLUSTERS)) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0330", p->sp,
				                   "a %lld x %lld cluster needs `clusters`, which %s lacks",
				                   (long long)x, (long long)y, k->arch->name);
				d->primary.msg = "cluster launch requested here";
				diag_help(d, "`clusters` is available on: %s", arches_with(k, FEAT_CLUSTERS));
				diag_end(k->c, d);
				continue;
			}
			if (x * y > 16) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0347", p->sp,
				                   "a cluster of %lld blocks is too large", (long long)(x * y));
				d->primary.msg = "at most 16 blocks";
				diag_help(d, "portable cluster sizes are at most 8 blocks");
				diag_end(k->c, d);
				continue;
			}
			g->cluster[0] = (int)x;
			g->cluster[1] = (int)y;
		}
	}
}

/* `grid order(INST)`: INST provides a `tile_order` hook, which the tile
 * loop asks for each work item's tile instead of a raster (Graph.order). */
void check_order(Chk *k)
{
	const Policy *p = k->order;
	if (!p)
		return;
	for (int i = 0; i < k->k->policies.n; i++) {
		const Policy *r = k->k->policies.v[i];
		if (strcmp(r->name, "raster"))
			continue;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0347", p->sp, "grid policies `order` and `raster` exclude each other");
		d->primary.msg = "the work items' order comes from this hook";
		diag_label(d, r->sp, "and from this raster");
		diag_help(d, "keep one of them");
		diag_end(k->c, d);
		return;
	}
	const Expr *e = p->args.v[0];
	GInst *gi = e->k == EX_NAME ? inst_named(k, e->name) : NULL;
	const GPort *op = NULL;
	for (int i = 0; gi && gi->hooks && !op && i < gi->ports.n; i++) {
		const GPort *q = gi->ports.v[i];
		if (q->hook && q->hook->id == HK_TILE_ORDER)
			op = q;
	}
	if (op) {
		k->g->order = gi;
		k->g->order_port = op;
		return;
	}
	if (gi && !gi->comp)
		return;   /* unknown component: reported */
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0347", e->sp, gi ? "`%s` provides no `tile_order` hook"
	                   : e->k == EX_NAME ? "no instance named `%s`" : "`order` takes an instance", e->k == EX_NAME ? e->name : "");
	d->primary.msg = gi ? arena_printf(A(k), "`%s` is a `%s`", gi->name, gi->comp->name) : "not an instance";
	if (gi)
		diag_label(d, gi->comp->name_sp, "`%s` declared here", gi->comp->name);
	if (!gi && e->k == EX_NAME) {
		int n;
		const char **cands = names_of_vec(k, &k->k->insts, offsetof(Inst, name), &n);
		help_similar(d, e->name, cands, n, "instances of this kernel");
	} else
		diag_help(d, "write `order(INST)`, INST an instance of a component with `out hook NAME: tile_order = FN`");
	diag_end(k->c, d);
}

/* ------------------------------------------------------------ bindings */

typedef struct Bound {       /* one resolved binding, before kparams are ordered */
	GInst *gi;
	const Param *p;
	int kidx;                /* kernel param index, or -1 */
	int dim;                 /* shape symbol index, or -1 */
	const Expr *expr;        /* an integer scalar bound to an expression */
	GKParam want;            /* what the component needs */
} Bound;

/* Each component param resolved to what it binds (k->bounds); 1 when one
 * failed (reported). */
int bind_params(Chk *k)
{
	Vec *bounds = &k->bounds;
	const Kernel *kn = k->k;
	int bad = 0;
	for (int ii = 0; ii < k->g->insts.n; ii++) {
		GInst *gi = k->g->insts.v[ii];
		if (!gi->cvals)
			continue;
		const Component *cp = gi->comp;
		Scope cs = inst_scope(k, gi);
		for (int pi = 0; pi < cp->params.n; pi++) {
			const Param *p = cp->params.v[pi];
			const Arg *a = find_arg(gi->decl, p->name);
			const char *kname = p->name;
			Span at = gi->decl->sp;
			if (a) {
				at = a->sp;
				int sk = p->ty->k == TY_SCALAR ? scalar_kind(p->ty->dtype) : -1, isconst = 0;
				if (a->val->k == EX_NAME && find_kparam(kn, a->val->name) < 0 && find_dim(k, a->val->name) < 0)
					kconst(k, a->val->name, &isconst);   /* `K = KD`: a const alone, an expression */
				if ((a->val->k != EX_NAME || isconst) && (sk == KP_I32 || sk == KP_I64)) {
					int before = k->c->nerrors;
					check_names_in(k, a->val);
					if (k->c->nerrors != before) {
						bad = 1;
						continue;
					}
					Bound *b = arena_alloc(A(k), sizeof *b);
					b->gi = gi;
					b->p = p;
					b->kidx = b->dim = -1;
					b->expr = a->val;
					vec_push(A(k), bounds, b);
					continue;
				}
				if (a->val->k != EX_NAME) {
					Diag *d = diag_new(k->c, DIAG_ERROR, "E0333", a->val->sp,
					                   "param `%s` of `%s` must be bound to a kernel parameter",
					                   p->name, cp->name);
					d->primary.msg = "not the name of a kernel parameter";
					diag_label(d, p->sp, "`%s` declared here", p->name);
					diag_help(d, "write `%s = NAME` with NAME a parameter of kernel `%s`", p->name, kn->name);
					diag_end(k->c, d);
					bad = 1;
					continue;
				}
				kname = a->val->name;
			}
			int ki = find_kparam(kn, kname), di = ki < 0 ? find_dim(k, kname) : -1;
			if (ki < 0 && di < 0) {
				/* the names p could take: an integer shape symbol or scalar
				 * for an integer scalar, a kernel param of p's kind else */
				int pk = p->ty->k == TY_SCALAR ? scalar_kind(p->ty->dtype) : -1;
				int n = 0, pint = pk == KP_I32 || pk == KP_I64;
				const char **cands = arena_alloc(A(k), (kn->params.n + k->ndims + 1) * sizeof *cands);
				for (int i = 0; i < kn->params.n; i++) {
					const KParam *q = kn->params.v[i];
					if ((q->ty->k == TY_SCALAR) == (p->ty->k == TY_SCALAR))
						cands[n++] = q->name;
				}
				for (int i = 0; pint && i < k->ndims; i++)
					cands[n++] = k->dims[i];
				Diag *d;
				if (a) {
					d = diag_new(k->c, DIAG_ERROR, "E0331", a->val->sp,
					             "kernel `%s` has no parameter `%s`", kn->name, kname);
					d->primary.msg = "unknown kernel parameter";
					diag_label(d, p->sp, "`%s` of `%s` declared here", p->name, cp->name);
					help_similar(d, kname, cands, n, "kernel parameters");
				} else {
					d = diag_new(k->c, DIAG_ERROR, "E0331", at,
					             "param `%s` of `%s` is not bound", p->name, cp->name);
					d->primary.msg = arena_printf(A(k), "no `%s = ...` here, and kernel `%s` has no parameter `%s`",
					                              p->name, kn->name, p->name);
					diag_label(d, p->sp, "`%s` declared here", p->name);
					const char *m = did_you_mean(p->name, cands, n);
					if (m)
						diag_help(d, "bind it: `%s(%s = %s)`", cp->name, p->name, m);
					else
						diag_help(d, "bind it, `%s(%s = NAME)`, or add `%s: ...` to the kernel's parameters",
						          cp->name, p->name, p->name);
				}
				diag_end(k->c, d);
				bad = 1;
				continue;
			}
			const KParam *kp = ki >= 0 ? kn->params.v[ki] : NULL;
			if (ki >= 0)
				k->kused[ki] = 1;    /* referenced, even if the binding is wrong */
			Span ksp = kp ? kp->sp : k->dim_sp[di];
			const Type *t = p->ty;
			Bound *b = arena_alloc(A(k), sizeof *b);
			b->gi = gi;
			b->p = p;
			b->kidx = ki;
			b->dim = di;
			b->want.name = p->name;
			b->want.dtype = t->dtype;
			if (t->k == TY_TENSORMAP) {
				if (!kp || kp->ty->k != TY_TENSOR) {
					wrong_kind(k, at, p, gi, kname, ksp, kp ? kind_str(kp->ty) : "a shape symbol (i32)",
					           "a tensor map is made from a `tensor<...>[...]` kernel parameter");
					bad = 1;
					continue;
				}
				if (!same_dtype(k, at, p, gi, kname, kp)) { bad = 1; continue; }
				int64_t rank;
				if (eval_pos(k, t->rank, gi, "a tensor map's rank", &rank)) { bad = 1; continue; }
				if (rank != kp->ty->dims.n || rank > 5 || (t->dims.n && t->dims.n != rank)) {
					int boxbad = rank == kp->ty->dims.n && rank <= 5;
					Diag *d = boxbad
					        ? diag_new(k->c, DIAG_ERROR, "E0334", at,
					                   "param `%s` of `%s` has a box of %d dimensions but rank %lld",
					                   p->name, cp->name, t->dims.n, (long long)rank)
					        : diag_new(k->c, DIAG_ERROR, "E0334", at,
					                   "param `%s` of `%s` has rank %lld, but `%s` has %d dimensions",
					                   p->name, cp->name, (long long)rank, kname, kp->ty->dims.n);
					d->primary.msg = arena_printf(A(k), "`%s` bound here", kname);
					diag_label(d, t->sp, "`%s` declared here", p->name);
					diag_label(d, kp->sp, "`%s` declared here", kname);
					diag_help(d, boxbad ? "give one box extent per dimension, innermost first"
					                    : "the tensor map's rank must equal the tensor's dimension count (at most 5)");
					diag_end(k->c, d);
					bad = 1;
					continue;
				}
				b->want.kind = KP_TENSORMAP;
				b->want.rank = (int)rank;
				b->want.tensor = kp->name;
				int boxok = 1;
				for (int i = 0; i < t->dims.n && i < 4; i++) {
					int64_t v;
					if (eval_expr(k->c, t->dims.v[i], &cs, &v)) { boxok = 0; break; }
					if (v < 1 || v > PLK_TMA_BOX_MAX) {
						const Expr *e = t->dims.v[i];
						Diag *d = diag_new(k->c, DIAG_ERROR, "E0346", e->sp,
						                   "TMA box extent %lld is out of range", (long long)v);
						d->primary.msg = arena_printf(A(k), "must be in 1..%d", PLK_TMA_BOX_MAX);
						diag_label(d, at, "`%s` of `%s` bound here", p->name, gi->name);
						label_origins(k, d, gi, e);
						diag_help(d, "split the tile into several TMA loads of at most %d elements per dimension",
						          PLK_TMA_BOX_MAX);
						diag_end(k->c, d);
						boxok = 0;
						break;
					}
					b->want.box[i] = v;
				}
				if (!boxok) { bad = 1; continue; }
				if (t->layout) {    /* declared: `tensormap<bf16, 2, sw128>` */
					if (!need_layout(k, t->layout, t->layout_sp, 0)) { bad = 1; continue; }
					b->want.swizzle = t->layout;
				} else
					b->want.swizzle = tmap_swizzle(gi, p->name, b->want.box, (int)rank);
			} else if (t->k == TY_PTR) {
				if (!kp || (kp->ty->k != TY_TENSOR && kp->ty->k != TY_PTR)) {
					wrong_kind(k, at, p, gi, kname, ksp, kp ? kind_str(kp->ty) : "a shape symbol (i32)",
					           "a pointer is bound to a `tensor` or `ptr` kernel parameter");
					bad = 1;
					continue;
				}
				if (!same_dtype(k, at, p, gi, kname, kp)) { bad = 1; continue; }
				if (kp->ty->readonly && !t->readonly) {   /* a megakernel orders its ops by this */
					Diag *d = diag_new(k->c, DIAG_ERROR, "E0378", at,
					                   "`%s` is read-only in kernel `%s`, but `%s` of `%s` may write it",
					                   kname, kn->name, p->name, cp->name);
					d->primary.msg = arena_printf(A(k), "`%s` bound here", kname);
					diag_label(d, kp->sp, "declared `const` here");
					diag_label(d, t->sp, "`%s` declared here, without `const`", p->name);
					diag_help(d, "drop `const` from `%s`, or bind it to a component that only reads it",
					          kname);
					diag_end(k->c, d);
					bad = 1;
					continue;
				}
				b->want.kind = KP_PTR;
				b->want.tensor = kp->ty->k == TY_TENSOR ? kp->name : NULL;
			} else if (t->k == TY_SCALAR) {
				if (!need_dtype(k, t->dtype, t->dtype_sp)) { bad = 1; continue; }
				int sk = scalar_kind(t->dtype);
				if (sk < 0) {
					Diag *d = diag_new(k->c, DIAG_ERROR, "E0333", t->sp,
					                   "a kernel scalar cannot be %s", t->dtype);
					d->primary.msg = "not a parameter kind";
					diag_help(d, "scalars are i32, u32, i64, u64 or f32");
					diag_end(k->c, d);
					bad = 1;
					continue;
				}
				if (kp && kp->ty->k != TY_SCALAR) {
					wrong_kind(k, at, p, gi, kname, ksp, kind_str(kp->ty),
					           sk == KP_I32 || sk == KP_I64
					               ? "an integer is bound to an integer kernel parameter, a tensor's shape symbol, "
					                 "a const, or an expression of them"
					               : "a scalar is bound to a scalar kernel parameter");
					bad = 1;
					continue;
				}
				const char *kdt = kp ? kp->ty->dtype : "i32";
				if (strcmp(kdt, t->dtype)) {
					dtype_mismatch(k, at, p, gi, kname, kdt, ksp);
					bad = 1;
					continue;
				}
				b->want.kind = sk;
			} else {
				wrong_kind(k, p->ty->sp, p, gi, kname, ksp, kp ? kind_str(kp->ty) : "a shape symbol",
				           "a component param is a scalar, `ptr<T>` or `tensormap<T, R>`");
				bad = 1;
				continue;
			}
			if (ki >= 0)
				k->kused[ki] = 1;
			vec_push(A(k), bounds, b);
		}
	}
	return bad;
}

/* Every kernel param bound or named (E0332); one that is also a shape
 * symbol is E0334's. An instance that could not be made (an unknown
 * component, constants that did not evaluate: reported) might have bound
 * any of them, so then none is reported. */
void check_unused(Chk *k)
{
	Ctx *c = k->c;
	const Kernel *kn = k->k;
	for (int i = 0; i < k->g->insts.n; i++)
		if (!((const GInst *)k->g->insts.v[i])->cvals)
			return;
	for (int i = 0; i < kn->params.n; i++) {
		const KParam *kp = kn->params.v[i];
		if (k->kused[i])
			continue;
		int isdim = find_dim(k, kp->name) >= 0;
		if (isdim)
			continue;
		Diag *d = diag_new(c, DIAG_ERROR, "E0332", kp->sp, "kernel parameter `%s` is never used", kp->name);
		d->primary.msg = "no instance binds it";
		diag_help(d, "bind it to a component's param, `inst = comp(PARAM = %s)`, or remove it", kp->name);
		diag_end(c, d);
	}
}

static int same_kp(const GKParam *a, const GKParam *b)
{
	return a->kind == b->kind && !strcmp(a->dtype ? a->dtype : "", b->dtype ? b->dtype : "") &&
	       a->rank == b->rank && !memcmp(a->box, b->box, sizeof a->box) &&
	       !strcmp(a->swizzle ? a->swizzle : "", b->swizzle ? b->swizzle : "");
}

static int kp_named(const Graph *g, const char *name)
{
	for (int i = 0; i < g->kparams.n; i++)
		if (!strcmp(((GKParam *)g->kparams.v[i])->name, name))
			return 1;
	return 0;
}

/* Kernel parameters in launch order: the kernel's parameters in
 * declaration order, a tensor expanded into the tensor maps and pointers
 * its bindings need (in instance order, identical ones shared); then one
 * i32 per shape symbol, in order of first appearance. */
void order_kparams(Chk *k)
{
	Vec *bounds = &k->bounds;
	Graph *g = k->g;
	const Kernel *kn = k->k;
	int *dimk = arena_alloc(A(k), (k->ndims + 1) * sizeof *dimk);
	for (int ki = 0; ki < kn->params.n; ki++) {
		const KParam *kp = kn->params.v[ki];
		if (kp->ty->k != TY_TENSOR) {
			GKParam *q = arena_alloc(A(k), sizeof *q);
			q->name = kp->name;
			q->dtype = kp->ty->dtype;
			q->kind = kp->ty->k == TY_PTR ? KP_PTR : scalar_kind(kp->ty->dtype);
			for (int i = 0; i < bounds->n; i++) {
				Bound *b = bounds->v[i];
				if (b->kidx == ki) {
					GBind *gb = arena_alloc(A(k), sizeof *gb);
					gb->param = b->p->name;
					gb->decl = b->p;
					gb->kparam = g->kparams.n;
					vec_push(A(k), &b->gi->binds, gb);
				}
			}
			vec_push(A(k), &g->kparams, q);
			continue;
		}
		int first = g->kparams.n;
		for (int i = 0; i < bounds->n; i++) {
			Bound *b = bounds->v[i];
			if (b->kidx != ki)
				continue;
			int at = -1;
			for (int j = first; j < g->kparams.n; j++)
				if (same_kp(g->kparams.v[j], &b->want))
					at = j;
			if (at < 0) {
				GKParam *q = arena_alloc(A(k), sizeof *q);
				*q = b->want;
				q->tensor = kp->name;
				int fk = find_kparam(kn, b->p->name);
				q->name = kp_named(g, b->p->name) || (fk >= 0 && fk != ki) ||
				          find_dim(k, b->p->name) >= 0
				        ? arena_printf(A(k), "%s_%s", b->gi->name, b->p->name) : b->p->name;
				at = g->kparams.n;
				vec_push(A(k), &g->kparams, q);
			}
			GBind *gb = arena_alloc(A(k), sizeof *gb);
			gb->param = b->p->name;
			gb->decl = b->p;
			gb->kparam = at;
			vec_push(A(k), &b->gi->binds, gb);
		}
	}
	for (int d = 0; d < k->ndims; d++) {
		GKParam *q = arena_alloc(A(k), sizeof *q);
		q->name = k->dims[d];
		q->kind = KP_I32;
		q->dtype = "i32";
		q->dim = k->dims[d];
		dimk[d] = g->kparams.n;
		vec_push(A(k), &g->kparams, q);
	}
	for (int i = 0; i < bounds->n; i++) {
		Bound *b = bounds->v[i];
		if (b->dim < 0 && !b->expr)
			continue;
		GBind *gb = arena_alloc(A(k), sizeof *gb);
		gb->param = b->p->name;
		gb->decl = b->p;
		gb->kparam = b->expr ? -1 : dimk[b->dim];
		gb->expr = b->expr;
		vec_push(A(k), &b->gi->binds, gb);
	}
	for (int ii = 0; ii < g->insts.n; ii++) {
		GInst *gi = g->insts.v[ii];
		if (gi->cvals)
			graph_order_binds(A(k), gi);
	}
}
