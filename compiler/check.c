/* check.c: the composition graph of one kernel, typed and checked for one
 * target arch.
 *
 * check_kernel evaluates every constant, types every port, binds component
 * params to kernel params, joins ports into edges (tiles: smem rings;
 * frags: register handoff), forms roles (warp ranges) in dataflow order
 * and checks that the composition can exist at all. Whether it fits well
 * is the placement's business; here only "can never fit" is an error.
 * Error codes E0301-E0348 (docs/errors/). */
#include <stdlib.h>
#include <string.h>
#include "plk.h"

typedef struct Chk {
	Ctx *c;
	const Program *p;
	const Kernel *k;
	const ArchInfo *arch;
	Graph *g;
	Scope kscope;            /* the kernel's consts */
	const char **dims;       /* shape symbols of the kernel's tensors */
	Span *dim_sp;
	int ndims;
	int *kused;              /* per kernel param: bound or referenced */
} Chk;

static Arena *A(Chk *k) { return k->c->arena; }

static uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }
static int is_pow2(int64_t v) { return v > 0 && !(v & (v - 1)); }

/* ------------------------------------------------------------- names */

static const Component *find_comp(const Program *p, const char *name)
{
	for (int i = 0; i < p->comps.n; i++) {
		const Component *c = p->comps.v[i];
		if (!strcmp(c->name, name))
			return c;
	}
	return NULL;
}

static void help_similar(Diag *d, const char *name, const char **cands, int n, const char *what)
{
	const char *m = did_you_mean(name, cands, n);
	if (m) {
		diag_help(d, "did you mean `%s`?", m);
		return;
	}
	if (!n) {
		diag_help(d, "there are no %s here", what);
		return;
	}
	size_t len = 0;
	for (int i = 0; i < n && i < 8; i++)
		len += strlen(cands[i]) + 4;
	char *buf = malloc(len + 8), *q = buf;
	if (!buf)
		return;
	for (int i = 0; i < n && i < 8; i++)
		q += sprintf(q, "%s`%s`", i ? ", " : "", cands[i]);
	if (n > 8)
		strcpy(q, ", ...");
	diag_help(d, "the %s are %s", what, buf);
	free(buf);
}

static const char **names_of_vec(Chk *k, const Vec *v, size_t name_off, int *n)
{
	const char **r = arena_alloc(A(k), (v->n + 1) * sizeof *r);
	for (int i = 0; i < v->n; i++)
		r[i] = *(const char **)((const char *)v->v[i] + name_off);
	*n = v->n;
	return r;
}

/* ------------------------------------------------------------- stdlib */

static const DtypeInfo *need_dtype(Chk *k, const char *name, Span sp)
{
	const DtypeInfo *d = dtype_lookup(name);
	if (d)
		return d;
	int n;
	const DtypeInfo *all = dtype_all(&n);
	const char **cands = arena_alloc(A(k), n * sizeof *cands);
	for (int i = 0; i < n; i++)
		cands[i] = all[i].name;
	Diag *dg = diag_new(k->c, DIAG_ERROR, "E0326", sp, "unknown dtype `%s`", name ? name : "?");
	dg->primary.msg = "not a dtype of the standard library";
	help_similar(dg, name ? name : "", cands, n, "dtypes");
	diag_end(k->c, dg);
	return NULL;
}

/* want_frag: 1 for a fragment layout, 0 for a swizzle. */
static const LayoutInfo *need_layout(Chk *k, const char *name, Span sp, int want_frag)
{
	const LayoutInfo *l = layout_lookup(name);
	if (l && l->frag == want_frag)
		return l;
	int n, m = 0;
	const LayoutInfo *all = layout_all(&n);
	const char **cands = arena_alloc(A(k), n * sizeof *cands);
	for (int i = 0; i < n; i++)
		if (all[i].frag == want_frag)
			cands[m++] = all[i].name;
	const char *what = want_frag ? "fragment layouts" : "swizzles";
	Diag *d;
	if (l) {
		d = diag_new(k->c, DIAG_ERROR, "E0327", sp, "`%s` is a %s, not a %s", name,
		             l->frag ? "fragment layout" : "shared-memory swizzle",
		             want_frag ? "fragment layout" : "shared-memory swizzle");
		d->primary.msg = want_frag ? "a frag lives in registers" : "a tile lives in shared memory";
		help_similar(d, "", cands, m, what);
	} else {
		d = diag_new(k->c, DIAG_ERROR, "E0327", sp, "unknown layout `%s`", name);
		d->primary.msg = want_frag ? "not a fragment layout of the standard library"
		                           : "not a swizzle of the standard library";
		help_similar(d, name, cands, m, what);
	}
	diag_end(k->c, d);
	return NULL;
}

static unsigned need_feature(Chk *k, const Feature *f)
{
	unsigned b = feature_lookup(f->name);
	if (b)
		return b;
	int n;
	const FeatureInfo *all = feature_all(&n);
	const char **cands = arena_alloc(A(k), n * sizeof *cands);
	for (int i = 0; i < n; i++)
		cands[i] = all[i].name;
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0328", f->sp, "unknown feature `%s`", f->name);
	d->primary.msg = "not a feature of the standard library";
	help_similar(d, f->name, cands, n, "features");
	diag_end(k->c, d);
	return 0;
}

static char *arches_with(Chk *k, unsigned bit)
{
	int n;
	const ArchInfo *all = arch_all(&n);
	char *s = "";
	for (int i = 0; i < n; i++)
		if ((all[i].features & bit) == bit)
			s = arena_printf(A(k), "%s%s%s", s, *s ? ", " : "", all[i].name);
	return *s ? s : "none";
}

/* ------------------------------------------------------------- values */

static int eval_pos(Chk *k, const Expr *e, const Scope *s, const char *what, int64_t *out)
{
	if (eval_expr(k->c, e, s, out))
		return -1;
	if (*out <= 0) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0345", e->sp, "%s must be positive", what);
		d->primary.msg = arena_printf(A(k), "this is %lld", (long long)*out);
		diag_help(d, "check the constants it is computed from");
		diag_end(k->c, d);
		return -1;
	}
	return 0;
}

static int64_t kconst(Chk *k, const char *name, int *found)
{
	for (int i = k->kscope.n - 1; i >= 0; i--)
		if (!strcmp(k->kscope.names[i], name)) {
			*found = 1;
			return k->kscope.vals[i];
		}
	*found = 0;
	return 0;
}

/* ----------------------------------------------------------- port types */

static char *field_str(Chk *k, const GField *f, int frag)
{
	return arena_printf(A(k), "%s<%s, %lld x %lld, %s>", frag ? "frag" : "tile", f->dtype,
	                    (long long)f->rows, (long long)f->cols, f->layout);
}

static char *port_str(Chk *k, const GPort *p)
{
	if (p->k != TY_BUNDLE)
		return field_str(k, p->fields.v[0], p->k == TY_FRAG);
	char *s = "{ ";
	for (int i = 0; i < p->fields.n; i++) {
		const GField *f = p->fields.v[i];
		s = arena_printf(A(k), "%s%s%s: %s", s, i ? ", " : "", f->name, field_str(k, f, 0));
	}
	return arena_printf(A(k), "%s }", s);
}

/* One tile or frag of a port; NULL after reporting. */
static GField *type_field(Chk *k, const Type *t, const Scope *cs, const char *name, Span sp)
{
	if (t->k != TY_TILE && t->k != TY_FRAG) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0308", t->sp, "a bundle field must be a tile");
		d->primary.msg = "not a tile";
		diag_help(d, "bundles group shared-memory tiles that travel in one ring slot");
		diag_end(k->c, d);
		return NULL;
	}
	int frag = t->k == TY_FRAG;
	const DtypeInfo *dt = need_dtype(k, t->dtype, t->dtype_sp);
	const LayoutInfo *l = need_layout(k, t->layout ? t->layout : (frag ? "?" : "none"),
	                                  t->layout ? t->layout_sp : t->sp, frag);
	int64_t r, c;
	int bad = !dt || !l;
	bad |= eval_pos(k, t->rows, cs, "a tile's row count", &r) != 0;
	bad |= eval_pos(k, t->cols, cs, "a tile's column count", &c) != 0;
	if (bad)
		return NULL;
	if (frag && (r % l->atom_rows || c % l->atom_cols)) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0344", t->sp,
		                   "a %lld x %lld fragment does not tile into `%s` atoms",
		                   (long long)r, (long long)c, l->name);
		d->primary.msg = arena_printf(A(k), "`%s` is made of %d x %d atoms", l->name,
		                              l->atom_rows, l->atom_cols);
		diag_note(d, "%s", l->doc);
		diag_help(d, "make the rows a multiple of %d and the columns a multiple of %d",
		          l->atom_rows, l->atom_cols);
		diag_end(k->c, d);
		return NULL;
	}
	int64_t bits = r * c * dt->bits;
	if (r > (1 << 20) || c > (1 << 20) || bits / 8 > UINT32_MAX) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0345", t->sp, "a %lld x %lld tile is too large",
		                   (long long)r, (long long)c);
		diag_help(d, "tiles live in one block's shared memory or registers");
		diag_end(k->c, d);
		return NULL;
	}
	GField *f = arena_alloc(A(k), sizeof *f);
	f->name = name;
	f->sp = sp;
	f->rows = r;
	f->cols = c;
	f->dtype = dt->name;
	f->layout = l->name;
	f->bytes = (uint32_t)((bits + 7) / 8);
	f->align = frag ? 16 : (uint32_t)l->align;
	return f;
}

static GPort *type_port(Chk *k, const Port *p, const Scope *cs)
{
	GPort *gp = arena_alloc(A(k), sizeof *gp);
	gp->name = p->name;
	gp->dir = p->dir;
	gp->decl = p;
	gp->k = p->ty->k;
	if (p->ty->k == TY_BUNDLE) {
		uint32_t off = 0;
		int bad = 0;
		for (int i = 0; i < p->ty->fields.n; i++) {
			const Field *fd = p->ty->fields.v[i];
			GField *f = type_field(k, fd->ty, cs, fd->name, fd->sp);
			if (!f) {
				bad = 1;
				continue;
			}
			if (fd->ty->k == TY_FRAG) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0308", fd->ty->sp, "a bundle field must be a tile");
				d->primary.msg = "a frag lives in registers, not in a ring slot";
				diag_help(d, "make `%s` a port of its own", fd->name);
				diag_end(k->c, d);
				bad = 1;
				continue;
			}
			off = align_up(off, f->align);
			f->off = off;
			off += f->bytes;
			vec_push(A(k), &gp->fields, f);
		}
		if (bad || !gp->fields.n)
			return NULL;
		gp->bytes = off;
	} else if (p->ty->k == TY_TILE || p->ty->k == TY_FRAG) {
		GField *f = type_field(k, p->ty, cs, p->name, p->sp);
		if (!f)
			return NULL;
		vec_push(A(k), &gp->fields, f);
		gp->bytes = f->bytes;    /* frag: per thread, once the role is known */
	} else {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0308", p->ty->sp, "a port must be a tile, a frag or a bundle");
		d->primary.msg = "not a port type";
		diag_help(d, "kernel inputs are `param`s; ports carry data between components");
		diag_end(k->c, d);
		return NULL;
	}
	return gp;
}

/* ------------------------------------------------------------ instances */

static const Arg *find_arg(const Inst *in, const char *name)
{
	for (int i = 0; i < in->args.n; i++) {
		const Arg *a = in->args.v[i];
		if (!strcmp(a->name, name))
			return a;
	}
	return NULL;
}

static int comp_has(const Component *cp, const char *name)
{
	for (int i = 0; i < cp->cparams.n; i++)
		if (!strcmp(((CParam *)cp->cparams.v[i])->name, name))
			return 1;
	for (int i = 0; i < cp->params.n; i++)
		if (!strcmp(((Param *)cp->params.v[i])->name, name))
			return 1;
	return 0;
}

static void check_args(Chk *k, const Inst *in, const Component *cp)
{
	for (int i = 0; i < in->args.n; i++) {
		const Arg *a = in->args.v[i];
		for (int j = 0; j < i; j++) {
			const Arg *b = in->args.v[j];
			if (!strcmp(a->name, b->name)) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0306", a->sp, "`%s` is given twice", a->name);
				d->primary.msg = "given again here";
				diag_label(d, b->sp, "first given here");
				diag_help(d, "remove one of them");
				diag_end(k->c, d);
				break;
			}
		}
		int ok = comp_has(cp, a->name) ||
		         (cp->warps && (!strcmp(a->name, "warps") || !strcmp(a->name, "warpgroups")));
		if (ok)
			continue;
		int n = 0;
		const char **cands = arena_alloc(A(k), (cp->cparams.n + cp->params.n + 1) * sizeof *cands);
		for (int j = 0; j < cp->cparams.n; j++)
			cands[n++] = ((CParam *)cp->cparams.v[j])->name;
		for (int j = 0; j < cp->params.n; j++)
			cands[n++] = ((Param *)cp->params.v[j])->name;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0305", a->sp,
		                   "component `%s` has no constant or param `%s`", cp->name, a->name);
		d->primary.msg = "unknown argument";
		diag_label(d, cp->name_sp, "`%s` declared here", cp->name);
		help_similar(d, a->name, cands, n, "constants and params of the component");
		diag_end(k->c, d);
	}
}

/* cparams: the instance's argument, else the kernel's const of that name,
 * else the default (over the cparams before it). */
static int eval_cparams(Chk *k, GInst *gi, Scope *cs)
{
	const Component *cp = gi->comp;
	const Inst *in = gi->decl;
	int n = cp->cparams.n, bad = 0;
	const char **names = arena_alloc(A(k), (n + 1) * sizeof *names);
	gi->cvals = arena_alloc(A(k), (n + 1) * sizeof *gi->cvals);
	cs->names = names;
	cs->vals = gi->cvals;
	cs->n = 0;
	cs->up = NULL;
	for (int i = 0; i < n; i++) {
		const CParam *p = cp->cparams.v[i];
		const Arg *a = find_arg(in, p->name);
		int found;
		int64_t v = 0;
		if (a) {
			if (eval_expr(k->c, a->val, &k->kscope, &v))
				bad = 1;
		} else if (v = kconst(k, p->name, &found), found) {
		} else if (p->def) {
			if (eval_expr(k->c, p->def, cs, &v))
				bad = 1;
		} else {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0325", in->sp,
			                   "no value for constant `%s` of `%s`", p->name, cp->name);
			d->primary.msg = arena_printf(A(k), "`%s` is not given here", p->name);
			diag_label(d, p->sp, "declared without a default");
			diag_help(d, "pass it, `%s(%s = ...)`, or declare `const %s = ...` in the kernel",
			          cp->name, p->name, p->name);
			diag_end(k->c, d);
			bad = 1;
		}
		names[i] = p->name;
		gi->cvals[i] = v;
		cs->n = i + 1;
	}
	return bad ? -1 : 0;
}

static GInst *make_inst(Chk *k, const Inst *in, const Component *cp)
{
	GInst *gi = arena_alloc(A(k), sizeof *gi);
	gi->name = in->name;
	gi->decl = in;
	gi->comp = cp;
	gi->role = -1;
	check_args(k, in, cp);
	Scope *cs = arena_alloc(A(k), sizeof *cs);
	if (eval_cparams(k, gi, cs)) {
		gi->nwarps = -1;     /* everything below depends on the constants */
		gi->cvals = NULL;
		return gi;
	}

	/* warps: the component's own, or the instance's warps/warpgroups override */
	if (cp->warps) {
		const Arg *o = comp_has(cp, "warpgroups") ? NULL : find_arg(in, "warpgroups");
		int wg = o != NULL;
		if (!o) {
			o = comp_has(cp, "warps") ? NULL : find_arg(in, "warps");
			wg = o ? 0 : cp->warpgroups;
		}
		int64_t w;
		int rc = o ? eval_pos(k, o->val, &k->kscope, "a warp count", &w)
		           : eval_pos(k, cp->warps, cs, "a warp count", &w);
		if (rc == 0) {
			if (wg)
				w *= 4;
			if (w > 1024)
				w = 1024;   /* more than any arch allows: reported as E0337 */
			gi->nwarps = (int)w;
		} else {
			gi->nwarps = -1;
		}
	}
	if (cp->regs) {
		int64_t r;
		if (eval_expr(k->c, cp->regs, cs, &r) == 0) {
			if (r % 8 || r < 24 || r > 256) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0342", cp->regs->sp,
				                   "register budget %lld is not a setmaxnreg value", (long long)r);
				d->primary.msg = "must be a multiple of 8 in 24..256";
				diag_label(d, in->sp, "`%s` instantiated here", in->name);
				long long lo = r < 24 ? 24 : r > 256 ? 256 : r / 8 * 8;
				diag_help(d, "use %lld", lo);
				diag_end(k->c, d);
			} else {
				gi->regs = (int)r;
			}
		}
	}
	for (int i = 0; i < cp->features.n; i++)
		gi->features |= need_feature(k, cp->features.v[i]);

	int first = 1;   /* contract-only errors: reported at the first instance */
	for (int i = 0; i < k->g->insts.n; i++)
		first &= ((const GInst *)k->g->insts.v[i])->comp != cp;
	for (int i = 0; i < cp->ports.n; i++) {
		const Port *p = cp->ports.v[i];
		if (first && p->handoff && (p->dir != PORT_IN || p->ty->k == TY_FRAG)) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0352", p->handoff_sp,
			                   "`handoff` on %s, which takes no pingpong turns",
			                   p->dir != PORT_IN ? "an `out` port" : "a frag port");
			d->primary.msg = "only a ring's consumer passes the turn";
			diag_label(d, p->sp, "`%s` is %s", p->name, p->dir != PORT_IN ? "a producer's end" : "registers, not a ring");
			diag_help(d, "remove `handoff`, or move it to the `in` port of the ring the lanes share");
			diag_end(k->c, d);
		}
		GPort *gp = type_port(k, p, cs);
		if (!gp) {
			gp = arena_alloc(A(k), sizeof *gp);   /* placeholder: keeps ids and suppresses "unconnected" */
			gp->name = p->name;
			gp->dir = p->dir;
			gp->decl = p;
			gp->k = p->ty->k;
			gp->id = -1;
		} else {
			gp->id = i;
		}
		vec_push(A(k), &gi->ports, gp);
	}

	static const char *const phases[] = { "prologue", "mainloop", "epilogue", "all" };
	for (int i = 0; i < cp->smem.n; i++) {
		const Smem *s = cp->smem.v[i];
		int64_t size, al = 128;
		if (eval_expr(k->c, s->size, cs, &size) || (s->align && eval_expr(k->c, s->align, cs, &al)))
			continue;
		if (size <= 0 || size > UINT32_MAX || !is_pow2(al) || al > 65536) {
			int sz = size <= 0 || size > UINT32_MAX;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0341", sz ? s->size->sp : s->align->sp,
			                   sz ? "buffer `%s` has size %lld bytes" : "buffer `%s` has alignment %lld",
			                   s->name, (long long)(sz ? size : al));
			d->primary.msg = sz ? "must be positive" : "must be a power of two";
			diag_help(d, sz ? "a buffer holds at least one byte" : "use a power of two such as 128 or 1024");
			diag_end(k->c, d);
			continue;
		}
		const char *live = s->live ? s->live : "all";
		int ok = 0;
		for (int j = 0; j < 4; j++)
			ok |= !strcmp(live, phases[j]);
		if (!ok) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0341", s->live_sp, "unknown phase `%s`", live);
			d->primary.msg = "not a lifetime phase";
			help_similar(d, live, (const char **)phases, 4, "phases");
			diag_end(k->c, d);
			continue;
		}
		/* A buffer named after a port stages that port's tile: it must hold it. */
		for (int j = 0; j < gi->ports.n; j++) {
			GPort *gp = gi->ports.v[j];
			if (gp->id >= 0 && gp->k != TY_FRAG && !strcmp(gp->name, s->name) && size < gp->bytes) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0340", s->size->sp,
				                   "buffer `%s` is smaller than the tile it stages",
				                   s->name);
				d->primary.msg = arena_printf(A(k), "%lld bytes", (long long)size);
				diag_label(d, gp->decl->sp, "`%s` is %s: %u bytes", gp->name, port_str(k, gp), gp->bytes);
				diag_help(d, "make it at least %u bytes", gp->bytes);
				diag_end(k->c, d);
			}
		}
		GBuf *b = arena_alloc(A(k), sizeof *b);
		b->name = s->name;
		b->id = gi->bufs.n;
		b->size = (uint32_t)size;
		b->align = (uint32_t)al;
		b->live = live;
		b->sp = s->sp;
		vec_push(A(k), &gi->bufs, b);
	}
	for (int i = 0; i < cp->barriers.n; i++) {
		const Barrier *br = cp->barriers.v[i];
		GBar *b = arena_alloc(A(k), sizeof *b);
		b->name = br->name;
		b->id = i;
		b->sp = br->sp;
		int64_t t = 0;
		if (br->threads && eval_pos(k, br->threads, cs, "a barrier's thread count", &t))
			continue;
		if (t % 32) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0345", br->threads->sp,
			                   "barrier `%s` has %lld threads", br->name, (long long)t);
			d->primary.msg = "named barriers count whole warps";
			diag_help(d, "use a multiple of 32");
			diag_end(k->c, d);
			continue;
		}
		b->threads = (int)t;     /* 0: the role's threads, filled in later */
		vec_push(A(k), &gi->bars, b);
	}
	return gi;
}

static void check_arch(Chk *k, GInst *gi)
{
	const Component *cp = gi->comp;
	const Inst *in = gi->decl;
	if (cp->arch_min) {
		int sm = atoi(cp->arch_min + (strncmp(cp->arch_min, "sm_", 3) ? 0 : 3));
		if (sm > k->arch->sm) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0329", in->sp,
			                   "component `%s` needs %s or newer, but the target is %s",
			                   cp->name, cp->arch_min, k->arch->name);
			d->primary.msg = arena_printf(A(k), "`%s` cannot run on %s", in->name, k->arch->name);
			diag_label(d, cp->arch_sp, "`%s` requires this arch", cp->name);
			diag_help(d, "build for `-arch %s` or newer, or use a component that supports %s",
			          cp->arch_min, k->arch->name);
			diag_end(k->c, d);
			return;
		}
	}
	unsigned missing = gi->features & ~k->arch->features;
	for (int i = 0; i < cp->features.n; i++) {
		const Feature *f = cp->features.v[i];
		unsigned b = feature_lookup(f->name);
		if (!(b & missing))
			continue;
		missing &= ~b;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0330", in->sp,
		                   "component `%s` needs `%s`, which %s lacks", cp->name, f->name, k->arch->name);
		d->primary.msg = arena_printf(A(k), "`%s` cannot run on %s", in->name, k->arch->name);
		diag_label(d, f->sp, "`%s` needed here", f->name);
		diag_help(d, "`%s` is available on: %s", f->name, arches_with(k, b));
		diag_end(k->c, d);
	}
}

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

static int scalar_kind(const char *dt)
{
	if (!strcmp(dt, "i32") || !strcmp(dt, "u32"))
		return KP_I32;
	if (!strcmp(dt, "i64") || !strcmp(dt, "u64"))
		return KP_I64;
	if (!strcmp(dt, "f32"))
		return KP_F32;
	return -1;
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

typedef struct Bound {       /* one resolved binding, before kparams are ordered */
	GInst *gi;
	const Param *p;
	int kidx;                /* kernel param index, or -1 */
	int dim;                 /* shape symbol index, or -1 */
	const Expr *expr;        /* an integer scalar bound to an expression */
	GKParam want;            /* what the component needs */
} Bound;

static void check_names_in(Chk *k, const Expr *e);

/* An instance's cparams as a scope: its contract's names, its values. */
static Scope inst_scope(Chk *k, const GInst *gi)
{
	const Component *cp = gi->comp;
	const char **names = arena_alloc(A(k), (cp->cparams.n + 1) * sizeof *names);
	for (int i = 0; i < cp->cparams.n; i++)
		names[i] = ((const CParam *)cp->cparams.v[i])->name;
	return (Scope){ names, gi->cvals, cp->cparams.n, NULL };
}

static int bind_params(Chk *k, Vec *bounds)
{
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
				int sk = p->ty->k == TY_SCALAR && p->ty->dtype ? scalar_kind(p->ty->dtype) : -1;
				if (a->val->k != EX_NAME && (sk == KP_I32 || sk == KP_I64)) {
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
				int n = 0;
				const char **cands = arena_alloc(A(k), (kn->params.n + k->ndims + 1) * sizeof *cands);
				for (int i = 0; i < kn->params.n; i++)
					cands[n++] = ((KParam *)kn->params.v[i])->name;
				for (int i = 0; i < k->ndims; i++)
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
				if (eval_pos(k, t->rank, &cs, "a tensor map's rank", &rank)) { bad = 1; continue; }
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
					if (v < 1 || v > 256) {
						const Expr *e = t->dims.v[i];
						Diag *d = diag_new(k->c, DIAG_ERROR, "E0346", e->sp,
						                   "TMA box extent %lld is out of range", (long long)v);
						d->primary.msg = "must be in 1..256";
						diag_label(d, at, "`%s` of `%s` bound here", p->name, gi->name);
						diag_help(d, "split the tile into several TMA loads of at most 256 elements per dimension");
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
					           "a scalar is bound to a scalar kernel parameter or a tensor's shape symbol");
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
static void order_kparams(Chk *k, Vec *bounds)
{
	Graph *g = k->g;
	const Kernel *kn = k->k;
	int *dimk = arena_alloc(A(k), (k->ndims + 1) * sizeof *dimk);
	for (int ki = 0; ki < kn->params.n; ki++) {
		const KParam *kp = kn->params.v[ki];
		if (kp->ty->k != TY_TENSOR) {
			GKParam *q = arena_alloc(A(k), sizeof *q);
			q->name = kp->name;
			q->dtype = kp->ty->dtype;
			q->kind = kp->ty->k == TY_PTR ? KP_PTR : scalar_kind(kp->ty->dtype ? kp->ty->dtype : "");
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
	/* binds in the component's param order, as the entry takes them */
	for (int ii = 0; ii < g->insts.n; ii++) {
		GInst *gi = g->insts.v[ii];
		if (!gi->cvals)
			continue;
		Vec sorted = { 0 };
		for (int pi = 0; pi < gi->comp->params.n; pi++)
			for (int j = 0; j < gi->binds.n; j++)
				if (((GBind *)gi->binds.v[j])->decl == gi->comp->params.v[pi])
					vec_push(A(k), &sorted, gi->binds.v[j]);
		gi->binds = sorted;
	}
}

/* --------------------------------------------------------------- grid */

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
	check_names_in(k, e->a);
	check_names_in(k, e->b);
	for (int i = 0; i < e->args.n; i++)
		check_names_in(k, e->args.v[i]);
}

static void check_grid(Chk *k)
{
	static const char *const pols[] = { "persistent", "tiles", "raster", "cluster" };
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
				help_similar(d, p->name, (const char **)pols, 4, "grid policies");
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
		else if (!strcmp(p->name, "tiles")) {
			g->tiles[0] = p->args.v[0];
			g->tiles[1] = p->args.v[1];
			check_names_in(k, g->tiles[0]);
			check_names_in(k, g->tiles[1]);
		} else if (!strcmp(p->name, "raster")) {
			g->raster = p->sub;
			if (want == 1 && eval_pos(k, p->args.v[0], &k->kscope, "a raster group", &g->raster_group))
				continue;
		} else {
			int64_t x, y;
			if (eval_pos(k, p->args.v[0], &k->kscope, "a cluster extent", &x) ||
			    eval_pos(k, p->args.v[1], &k->kscope, "a cluster extent", &y))
				continue;
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

/* ---------------------------------------------------------- connections */

static GInst *inst_named(const Graph *g, const char *name)
{
	for (int i = 0; i < g->insts.n; i++) {
		GInst *gi = g->insts.v[i];
		if (!strcmp(gi->name, name))
			return gi;
	}
	return NULL;
}

static GPort *resolve_ref(Chk *k, const PortRef *r, GInst **out)
{
	GInst *gi = inst_named(k->g, r->inst);
	*out = gi;
	if (!gi) {
		int n;
		const char **cands = names_of_vec(k, &k->k->insts, offsetof(Inst, name), &n);
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0303", r->inst_sp, "no instance named `%s`", r->inst);
		d->primary.msg = "unknown instance";
		help_similar(d, r->inst, cands, n, "instances of this kernel");
		diag_end(k->c, d);
		return NULL;
	}
	if (!gi->comp)
		return NULL;     /* unknown component: already reported */
	for (int i = 0; i < gi->comp->ports.n; i++) {
		const Port *p = gi->comp->ports.v[i];
		if (!strcmp(p->name, r->port))
			return i < gi->ports.n ? gi->ports.v[i] : NULL;
	}
	int n;
	const char **cands = names_of_vec(k, &gi->comp->ports, offsetof(Port, name), &n);
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0304", r->port_sp, "`%s` (a `%s`) has no port `%s`",
	                   r->inst, gi->comp->name, r->port);
	d->primary.msg = "unknown port";
	diag_label(d, gi->comp->name_sp, "`%s` declared here", gi->comp->name);
	help_similar(d, r->port, cands, n, "ports of the component");
	diag_end(k->c, d);
	return NULL;
}

static void mismatch(Chk *k, const Conn *cn, const char *code, const char *what,
                     const GPort *a, const GPort *b, Span asp, Span bsp,
                     const char *aval, const char *bval, const char *help)
{
	Diag *d = diag_new(k->c, DIAG_ERROR, code, cn->sp, "%s mismatch between `%s.%s` and `%s.%s`",
	                   what, cn->from.inst, cn->from.port, cn->to.inst, cn->to.port);
	d->primary.msg = arena_printf(A(k), "%s flows into %s", aval, bval);
	diag_label(d, asp, "`%s.%s` produces %s", cn->from.inst, cn->from.port, aval);
	diag_label(d, bsp, "`%s.%s` expects %s", cn->to.inst, cn->to.port, bval);
	diag_note(d, "`%s.%s` is %s", cn->from.inst, cn->from.port, port_str(k, a));
	diag_note(d, "`%s.%s` is %s", cn->to.inst, cn->to.port, port_str(k, b));
	diag_help(d, "%s", help);
	diag_end(k->c, d);
}

static Span field_decl_sp(const GPort *p, int i, int what)
{
	const Type *t = p->decl->ty;
	if (p->k == TY_BUNDLE)
		t = ((Field *)t->fields.v[i])->ty;
	if (what == 1 && t->dtype_sp.src >= 0)
		return t->dtype_sp;
	if (what == 2 && t->layout && t->layout_sp.src >= 0)
		return t->layout_sp;
	return t->sp;
}

/* 0: same type; else reported. */
static int compare_ports(Chk *k, const Conn *cn, const GPort *a, const GPort *b)
{
	static const char *const kinds[] = { [TY_TILE] = "a tile", [TY_FRAG] = "a frag", [TY_BUNDLE] = "a bundle" };
	if (a->k != b->k) {
		mismatch(k, cn, "E0308", "port kind", a, b, a->decl->ty->sp, b->decl->ty->sp,
		         kinds[a->k], kinds[b->k],
		         "a tile goes through shared memory, a frag stays in registers; "
		         "put a component between them that converts");
		return -1;
	}
	if (a->k == TY_BUNDLE) {
		int same = a->fields.n == b->fields.n;
		for (int i = 0; same && i < a->fields.n; i++)
			same = !strcmp(((GField *)a->fields.v[i])->name, ((GField *)b->fields.v[i])->name);
		if (!same) {
			char *fa = "", *fb = "";
			for (int i = 0; i < a->fields.n; i++)
				fa = arena_printf(A(k), "%s%s%s", fa, i ? ", " : "", ((GField *)a->fields.v[i])->name);
			for (int i = 0; i < b->fields.n; i++)
				fb = arena_printf(A(k), "%s%s%s", fb, i ? ", " : "", ((GField *)b->fields.v[i])->name);
			mismatch(k, cn, "E0313", "bundle field", a, b, a->decl->ty->sp, b->decl->ty->sp,
			         arena_printf(A(k), "{%s}", fa), arena_printf(A(k), "{%s}", fb),
			         "both sides must name the same fields in the same order");
			return -1;
		}
	}
	for (int i = 0; i < a->fields.n; i++) {
		const GField *x = a->fields.v[i], *y = b->fields.v[i];
		const char *in = a->k == TY_BUNDLE ? arena_printf(A(k), " (field `%s`)", x->name) : "";
		if (strcmp(x->dtype, y->dtype)) {
			mismatch(k, cn, "E0309", "dtype", a, b, field_decl_sp(a, i, 1), field_decl_sp(b, i, 1),
			         arena_printf(A(k), "%s%s", x->dtype, in), y->dtype,
			         "convert in a component between them, or instantiate one side for the other dtype");
			return -1;
		}
		if (x->rows != y->rows || x->cols != y->cols) {
			mismatch(k, cn, "E0310", "shape", a, b, field_decl_sp(a, i, 0), field_decl_sp(b, i, 0),
			         arena_printf(A(k), "%lld x %lld%s", (long long)x->rows, (long long)x->cols, in),
			         arena_printf(A(k), "%lld x %lld", (long long)y->rows, (long long)y->cols),
			         "give both instances the same tile constants (kernel `const`s are shared by every instance)");
			return -1;
		}
		if (strcmp(x->layout, y->layout)) {
			int fr = a->k == TY_FRAG;
			mismatch(k, cn, fr ? "E0312" : "E0311", fr ? "fragment layout" : "swizzle", a, b,
			         field_decl_sp(a, i, 2), field_decl_sp(b, i, 2),
			         arena_printf(A(k), "%s%s", x->layout, in), y->layout,
			         fr ? "a fragment's layout fixes which thread holds which element; both sides must agree"
			            : "the consumer reads the tile with the producer's swizzle; both sides must agree");
			return -1;
		}
	}
	return 0;
}

/* `pingpong = N` on a ring: N in 2..4 (the rest is check_lanes's, once
 * roles exist). */
static void edge_lanes(Chk *k, GEdge *e, const Arg *a)
{
	int64_t n;
	if (eval_expr(k->c, a->val, &k->kscope, &n))
		return;
	e->lanes_sp = a->sp;
	if (e->kind != EDGE_RING) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", a->sp, "a register edge cannot be split into pingpong lanes");
		d->primary.msg = "`pingpong` given here";
		diag_label(d, e->fp->decl->sp, "`%s.%s` is a frag: it stays on its warps", e->from->name, e->fp->name);
		diag_help(d, "put `pingpong` on the ring that feeds the role (e.g. `load.ab -> mma.ab`)");
		diag_end(k->c, d);
		return;
	}
	if (n < 2 || n > 4) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", a->val->sp, "pingpong over %lld lanes", (long long)n);
		d->primary.msg = "must be in 2..4";
		diag_help(d, "`pingpong = 2`: two copies of the consumer's role take the work items in turn");
		diag_end(k->c, d);
		return;
	}
	e->lanes = (int)n;
}

static void make_edges(Chk *k)
{
	Graph *g = k->g;
	const Kernel *kn = k->k;
	for (int ci = 0; ci < kn->conns.n; ci++) {
		const Conn *cn = kn->conns.v[ci];
		GInst *fi, *ti;
		GPort *fp = resolve_ref(k, &cn->from, &fi);
		GPort *tp = resolve_ref(k, &cn->to, &ti);
		if (!fp || !tp) {
			/* the side that resolved counts as connected: no second error */
			if (fp) fp->id = -1;
			if (tp) tp->id = -1;
			continue;
		}
		if (fp->dir != PORT_OUT || tp->dir != PORT_IN) {
			const PortRef *r = fp->dir != PORT_OUT ? &cn->from : &cn->to;
			const GPort *p = fp->dir != PORT_OUT ? fp : tp;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0307", r->sp, "`%s.%s` is an `%s` port",
			                   r->inst, r->port, p->dir == PORT_IN ? "in" : "out");
			d->primary.msg = fp->dir != PORT_OUT ? "data cannot flow out of an input"
			                                     : "data cannot flow into an output";
			diag_label(d, p->decl->sp, "declared `%s` here", p->dir == PORT_IN ? "in" : "out");
			if (fp->dir != PORT_OUT && tp->dir != PORT_IN)
				diag_help(d, "swap the sides: `%s.%s -> %s.%s`", cn->to.inst, cn->to.port,
				          cn->from.inst, cn->from.port);
			else
				diag_help(d, "a connection goes from an `out` port to an `in` port");
			diag_end(k->c, d);
			fp->id = tp->id = -1;
			continue;
		}
		if (fp->id < 0 || tp->id < 0) {
			fp->id = tp->id = -1;   /* a port whose type failed: already reported */
			continue;
		}
		for (int side = 0; side < 2; side++) {
			GPort *p = side ? tp : fp;
			if (!p->edge)
				continue;
			const PortRef *r = side ? &cn->to : &cn->from;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0314", r->sp, "`%s.%s` is connected twice",
			                   r->inst, r->port);
			d->primary.msg = "connected again here";
			diag_label(d, p->edge->sp, "first connected here");
			diag_help(d, "a port joins exactly one edge; to feed two consumers, add a component that copies");
			diag_end(k->c, d);
		}
		if (fp->edge || tp->edge) {
			if (!fp->edge) fp->id = -1;   /* reported once, not again as unconnected */
			if (!tp->edge) tp->id = -1;
			continue;
		}
		if (compare_ports(k, cn, fp, tp)) {
			fp->id = tp->id = -1;
			continue;
		}
		GEdge *e = arena_alloc(A(k), sizeof *e);
		e->id = g->edges.n;
		e->kind = fp->k == TY_FRAG ? EDGE_REGS : EDGE_RING;
		e->from = fi;
		e->to = ti;
		e->fp = fp;
		e->tp = tp;
		e->sp = cn->sp;
		e->slot_bytes = fp->bytes;
		e->lanes = 1;
		fp->edge = tp->edge = e;
		vec_push(A(k), &g->edges, e);
		for (int i = 0; i < cn->attrs.n; i++) {
			const Arg *a = cn->attrs.v[i];
			if (!strcmp(a->name, "pingpong")) {
				edge_lanes(k, e, a);
				continue;
			}
			static const char *const known[] = { "stages", "pingpong" };
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0305", a->sp, "connections have no attribute `%s`", a->name);
			d->primary.msg = "unknown attribute";
			help_similar(d, a->name, (const char **)known, 2, "connection attributes");
			diag_end(k->c, d);
		}
		if (cn->stages && e->kind == EDGE_REGS) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0319", cn->stages->sp,
			                   "a register edge has no stages");
			d->primary.msg = "`stages` given here";
			diag_label(d, fp->decl->sp, "`%s.%s` is a frag: it is handed over in registers", fi->name, fp->name);
			diag_help(d, "remove `stages`; only tile edges are shared-memory rings");
			diag_end(k->c, d);
		} else if (cn->stages && cn->stages->k != EX_AUTO) {
			int64_t s;
			if (eval_expr(k->c, cn->stages, &k->kscope, &s) == 0) {
				if (s < 1 || s > 64) {
					Diag *d = diag_new(k->c, DIAG_ERROR, "E0319", cn->stages->sp,
					                   "a ring of %lld stages", (long long)s);
					d->primary.msg = "must be in 1..64";
					diag_help(d, "use `stages = auto` to let the placement choose");
					diag_end(k->c, d);
				} else {
					e->stages = (int)s;
				}
			}
		}
		if (e->kind == EDGE_REGS && fi->nwarps > 0 && ti->nwarps > 0) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0317", cn->sp,
			                   "a frag cannot pass between `%s` and `%s`: both have warps of their own",
			                   fi->name, ti->name);
			d->primary.msg = "register handoff needs the same warps on both sides";
			diag_label(d, fi->comp->warps->sp, "`%s` has its own warps", fi->comp->name);
			diag_label(d, ti->comp->warps->sp, "`%s` has its own warps", ti->comp->name);
			diag_help(d, "drop `warps` from `%s` so that it runs on `%s`'s warps, "
			          "or pass a tile through shared memory", ti->comp->name, fi->name);
			diag_end(k->c, d);
		}
	}
}

static void check_unconnected(Chk *k)
{
	for (int i = 0; i < k->g->insts.n; i++) {
		GInst *gi = k->g->insts.v[i];
		for (int j = 0; j < gi->ports.n; j++) {
			GPort *p = gi->ports.v[j];
			if (p->edge || p->id < 0)
				continue;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0315", gi->decl->sp,
			                   "%s port `%s.%s` is not connected", p->dir == PORT_IN ? "input" : "output",
			                   gi->name, p->name);
			d->primary.msg = arena_printf(A(k), "`%s` needs a connection for `%s`", gi->name, p->name);
			diag_label(d, p->decl->sp, "declared here");
			if (p->dir == PORT_IN)
				diag_help(d, "connect a producer: `SOME.out -> %s.%s`", gi->name, p->name);
			else
				diag_help(d, "connect a consumer: `%s.%s -> SOME.in`", gi->name, p->name);
			diag_end(k->c, d);
		}
	}
}

/* Kahn's algorithm over the edges; 0 and the order in *topo, or -1 after
 * reporting one cycle. */
static int toposort(Chk *k, GInst **topo)
{
	Graph *g = k->g;
	int n = g->insts.n, m = 0;
	int *indeg = arena_alloc(A(k), (n + 1) * sizeof *indeg);
	for (int i = 0; i < n; i++)
		((GInst *)g->insts.v[i])->id = i;
	for (int i = 0; i < g->edges.n; i++)
		indeg[((GEdge *)g->edges.v[i])->to->id]++;
	int progress = 1;
	char *done = arena_alloc(A(k), n + 1);
	while (progress) {
		progress = 0;
		for (int i = 0; i < n; i++) {      /* lowest declaration first: stable */
			if (done[i] || indeg[i])
				continue;
			done[i] = 1;
			topo[m++] = g->insts.v[i];
			for (int j = 0; j < g->edges.n; j++) {
				GEdge *e = g->edges.v[j];
				if (e->from->id == i)
					indeg[e->to->id]--;
			}
			progress = 1;
			break;
		}
	}
	if (m == n)
		return 0;
	/* walk back along in-edges among the remaining nodes until one repeats */
	int *onpath = arena_alloc(A(k), (n + 1) * sizeof *onpath);
	GEdge **via = arena_alloc(A(k), (n + 1) * sizeof *via);
	int cur = 0;
	while (done[cur])
		cur++;
	int step = 1;
	while (!onpath[cur]) {
		onpath[cur] = step++;
		for (int j = 0; j < g->edges.n; j++) {
			GEdge *e = g->edges.v[j];
			if (e->to->id == cur && !done[e->from->id]) {
				via[cur] = e;
				cur = e->from->id;
				break;
			}
		}
	}
	/* the cycle: from cur along via[] back to cur, edges reversed */
	GEdge *cyc[64];
	int nc = 0, x = cur;
	do {
		cyc[nc++] = via[x];
		x = via[x]->from->id;
	} while (x != cur && nc < 64);
	char *path = arena_printf(A(k), "%s", cyc[nc - 1]->from->name);
	for (int i = nc - 1; i >= 0; i--)
		path = arena_printf(A(k), "%s -> %s", path, cyc[i]->to->name);
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0316", cyc[0]->sp, "the dataflow has a cycle: %s", path);
	d->primary.msg = "this edge closes the cycle";
	for (int i = 1; i < nc && i < 4; i++)
		diag_label(d, cyc[i]->sp, "part of the cycle");
	diag_help(d, "components run in dataflow order; remove one of these edges");
	diag_end(k->c, d);
	return -1;
}

static void form_roles(Chk *k, GInst **topo)
{
	Graph *g = k->g;
	for (int i = 0; i < g->insts.n; i++) {
		GInst *gi = topo[i];
		if (!gi->comp || gi->nwarps < 0)
			continue;
		if (gi->nwarps > 0) {
			GRole *r = arena_alloc(A(k), sizeof *r);
			r->id = g->roles.n;
			r->nwarps = gi->nwarps;
			r->lanes = 1;
			gi->role = r->id;
			vec_push(A(k), &r->insts, gi);
			vec_push(A(k), &g->roles, r);
			continue;
		}
		GEdge *src = NULL;
		for (int j = 0; j < gi->ports.n; j++) {
			GPort *p = gi->ports.v[j];
			if (p->dir != PORT_IN || !p->edge || p->edge->kind != EDGE_REGS)
				continue;
			GEdge *e = p->edge;
			if (e->from->role < 0)
				continue;    /* producer failed: already reported */
			if (src && src->from->role != e->from->role) {
				Diag *d = diag_new(k->c, DIAG_ERROR, "E0348", gi->decl->sp,
				                   "`%s` consumes frags from two different warp roles", gi->name);
				d->primary.msg = "it cannot run on both";
				diag_label(d, src->sp, "`%s` runs on role %d", src->from->name, src->from->role);
				diag_label(d, e->sp, "`%s` runs on role %d", e->from->name, e->from->role);
				diag_help(d, "give `%s` warps of its own and pass tiles, or feed it from one role", gi->comp->name);
				diag_end(k->c, d);
				src = NULL;
				gi->nwarps = -1;
				break;
			}
			src = e;
		}
		if (gi->nwarps < 0)
			continue;
		int any = 0;
		for (int j = 0; j < gi->ports.n; j++) {
			GPort *p = gi->ports.v[j];
			any |= p->dir == PORT_IN && p->k == TY_FRAG;
		}
		if (!src) {
			if (any)
				continue;    /* its frag input is unconnected: reported as E0315 */
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0318", gi->decl->sp,
			                   "`%s` has no warps to run on", gi->name);
			d->primary.msg = arena_printf(A(k), "`%s` declares no warps and consumes no frag", gi->comp->name);
			diag_label(d, gi->comp->name_sp, "`%s` declared here", gi->comp->name);
			diag_help(d, "add `warps N` to `%s`, or give it an `in` frag port fed by the component whose warps it shares",
			          gi->comp->name);
			diag_end(k->c, d);
			continue;
		}
		GRole *r = g->roles.v[src->from->role];
		gi->role = r->id;
		vec_push(A(k), &r->insts, gi);
	}
	for (int i = 0; i < g->roles.n; i++) {
		GRole *r = g->roles.v[i];
		GInst *owner = r->insts.v[0];
		r->regs = owner->regs;
		unsigned need = 0;
		for (int j = 0; j < r->insts.n; j++) {
			GInst *gi = r->insts.v[j];
			need |= gi->features;
			if (gi->regs)
				need |= FEAT_SETMAXNREG;
		}
		/* A `regs` budget alone only asks the placement to pad the role to a
		 * warpgroup; code that issues wgmma or setmaxnreg itself needs them all. */
		r->warpgroup_aligned = (need & (FEAT_WGMMA | FEAT_SETMAXNREG)) != 0;
		unsigned own = 0;
		for (int j = 0; j < r->insts.n; j++)
			own |= ((GInst *)r->insts.v[j])->features;
		if ((own & (FEAT_WGMMA | FEAT_SETMAXNREG)) && r->nwarps % 4) {
			GInst *why = owner;
			for (int j = 0; j < r->insts.n; j++)
				if (((GInst *)r->insts.v[j])->features & (FEAT_WGMMA | FEAT_SETMAXNREG))
					why = r->insts.v[j];
			int wg = why->features & FEAT_WGMMA;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0343", owner->decl->sp,
			                   "`%s` runs on %d warp%s, but %s needs whole warpgroups",
			                   owner->name, r->nwarps, r->nwarps == 1 ? "" : "s",
			                   wg ? "wgmma" : "setmaxnreg");
			d->primary.msg = arena_printf(A(k), "%d is not a multiple of 4", r->nwarps);
			diag_label(d, owner->comp->warps->sp, "warps declared here");
			if (why != owner)
				diag_label(d, why->decl->sp, "`%s` needs %s on these warps", why->name, wg ? "wgmma" : "setmaxnreg");
			diag_help(d, "use %d warps (or `warpgroups %d`)", (r->nwarps + 3) / 4 * 4, (r->nwarps + 3) / 4);
			diag_end(k->c, d);
		}
		/* frags: bytes per thread of the role */
		for (int j = 0; j < r->insts.n; j++) {
			GInst *gi = r->insts.v[j];
			for (int q = 0; q < gi->ports.n; q++) {
				GPort *p = gi->ports.v[q];
				if (p->k != TY_FRAG || p->id < 0)
					continue;
				GField *f = p->fields.v[0];
				const LayoutInfo *l = layout_lookup(f->layout);
				int64_t threads = (int64_t)r->nwarps * 32;
				int64_t atoms = (f->rows / l->atom_rows) * (f->cols / l->atom_cols);
				if (r->nwarps % l->atom_warps || f->bytes % threads ||
				    atoms % (r->nwarps / l->atom_warps ? r->nwarps / l->atom_warps : 1)) {
					Diag *d = diag_new(k->c, DIAG_ERROR, "E0344", p->decl->ty->sp,
					                   "%s does not divide among the %d warps of `%s`'s role",
					                   field_str(k, f, 1), r->nwarps, gi->name);
					d->primary.msg = arena_printf(A(k), "%lld atoms of `%s`, each held by %d warp%s",
					                              (long long)atoms, l->name, l->atom_warps,
					                              l->atom_warps > 1 ? "s" : "");
					diag_label(d, owner->decl->sp, "the role has %d warps", r->nwarps);
					diag_help(d, "make the fragment a multiple of %d x %d per %d warp%s",
					          l->atom_rows, l->atom_cols, l->atom_warps, l->atom_warps > 1 ? "s" : "");
					diag_end(k->c, d);
					p->id = -1;
					continue;
				}
				p->bytes = (uint32_t)(f->bytes / threads);
				if (p->edge)
					p->edge->slot_bytes = p->bytes;
			}
			for (int q = 0; q < gi->bars.n; q++) {
				GBar *b = gi->bars.v[q];
				if (!b->threads)
					b->threads = r->nwarps * 32;
			}
		}
	}
}

/* ------------------------------------------------------------- requires
 * `require COND` in a contract: every instance's cparams must meet it
 * (a value the component's source would reject with a static_assert, or
 * worse, compile into a kernel that hangs). Checked before anything is
 * placed, at the instance. */

/* the distinct names a condition's expressions use, in order */
static void req_names(const Expr *e, Vec *seen, Arena *a)
{
	if (!e)
		return;
	switch (e->k) {
	case EX_NAME:
		for (int i = 0; i < seen->n; i++)
			if (!strcmp(seen->v[i], e->name))
				return;
		vec_push(a, seen, (void *)e->name);
		return;
	case EX_NEG:
		req_names(e->a, seen, a);
		return;
	case EX_BIN:
		req_names(e->a, seen, a);
		req_names(e->b, seen, a);
		return;
	case EX_CALL:
		for (int i = 0; i < e->args.n; i++)
			req_names(e->args.v[i], seen, a);
		return;
	default:
		return;
	}
}

/* "A = 1, B = 2": the values of the cparams r names */
static const char *req_values(Chk *k, const Require *r, const Scope *cs)
{
	Vec seen = { 0 };
	req_names(r->lhs, &seen, A(k));
	req_names(r->rhs, &seen, A(k));
	for (int i = 0; i < r->set.n; i++)
		req_names(r->set.v[i], &seen, A(k));
	const char *out = "";
	for (int i = 0; i < seen.n; i++)
		for (int j = 0; j < cs->n; j++)
			if (!strcmp(cs->names[j], seen.v[i]))
				out = arena_printf(A(k), "%s%s%s = %lld", out, *out ? ", " : "", cs->names[j],
				                   (long long)cs->vals[j]);
	return out;
}

/* 1 met, 0 not, -1 an expression did not evaluate (reported) */
static int req_met(Chk *k, const Require *r, const Scope *cs)
{
	int64_t l, v;
	if (eval_expr(k->c, r->lhs, cs, &l))
		return -1;
	if (r->op == REQ_IN) {
		int met = 0;
		for (int i = 0; i < r->set.n; i++) {
			if (eval_expr(k->c, r->set.v[i], cs, &v))
				return -1;
			met |= v == l;
		}
		return met;
	}
	if (eval_expr(k->c, r->rhs, cs, &v))
		return -1;
	switch (r->op) {
	case REQ_EQ: return l == v;
	case REQ_NE: return l != v;
	case REQ_LT: return l < v;
	case REQ_LE: return l <= v;
	case REQ_GT: return l > v;
	case REQ_GE: return l >= v;
	default: return 1;
	}
}

static void check_requires(Chk *k)
{
	const Graph *g = k->g;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		const Component *cp = gi->comp;
		if (!cp->requires.n)
			continue;
		Scope cs = inst_scope(k, gi);
		for (int j = 0; j < cp->requires.n; j++) {
			const Require *r = cp->requires.v[j];
			int met = req_met(k, r, &cs);
			if (met < 0)
				return;
			if (met)
				continue;
			char *cond = NULL;
			size_t len = 0;
			FILE *f = open_memstream(&cond, &len);
			if (f) {
				contract_print_require(f, r);
				fclose(f);
			}
			const char *vals = req_values(k, r, &cs);
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0353", gi->decl ? gi->decl->sp : k->k->name_sp,
			                   "`%s` does not meet its contract's `require %s`", gi->name,
			                   cond ? cond : "?");
			d->primary.msg = *vals ? arena_printf(A(k), "here %s", vals) : "this instance";
			diag_label(d, r->sp, "`%s` requires this", cp->name);
			diag_help(d, "give `%s` values that meet it: the kernel's `const` line or the instance's "
			          "arguments set them", gi->name);
			diag_end(k->c, d);
			free(cond);
		}
	}
}

/* ------------------------------------------------------------- clusters
 * `cluster N` in a contract, N > 1: the component works with the other
 * blocks of a cluster of exactly N (a TMA multicast to N CTAs, slots
 * released across them). Any other launch hangs or computes garbage, so
 * the kernel's cluster must hold N blocks. N = 1 asks for nothing: such a
 * component runs alone in its block, in a cluster or not. */

static void check_clusters(Chk *k)
{
	const Graph *g = k->g;
	int64_t have = (int64_t)g->cluster[0] * g->cluster[1];
	Span pol = k->k->name_sp;
	for (int i = 0; i < k->k->policies.n; i++) {
		const Policy *p = k->k->policies.v[i];
		if (!strcmp(p->name, "cluster"))
			pol = p->sp;
	}
	int64_t *wants = arena_alloc(A(k), (g->insts.n + 1) * sizeof *wants);
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		const Component *cp = gi->comp;
		wants[gi->id] = 1;
		if (!cp->cluster)
			continue;
		Scope cs = inst_scope(k, gi);
		int64_t want;
		if (eval_expr(k->c, cp->cluster, &cs, &want))
			return;
		wants[gi->id] = want;
		if (want <= 1 || want == have)
			continue;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0350", gi->decl ? gi->decl->sp : k->k->name_sp,
		                   "`%s` needs clusters of %lld blocks; kernel `%s` launches %lld",
		                   gi->name, (long long)want, k->k->name, (long long)have);
		d->primary.msg = arena_printf(A(k), "`%s` would wait for partner blocks that are not there", gi->name);
		diag_label(d, cp->cluster_sp, "`%s` assumes %lld blocks per cluster", cp->name, (long long)want);
		if (have > 1)
			diag_label(d, pol, "%lld blocks per cluster", (long long)have);
		diag_help(d, "launch clusters of %lld blocks (`grid ..., cluster(%lld, 1)`), or instantiate `%s` for %lld",
		          (long long)want, (long long)want, cp->name, (long long)have);
		diag_end(k->c, d);
	}
	/* A ring shared across blocks is shared by both its ends: a producer
	 * that multicasts needs a consumer that releases in every block. */
	for (int i = 0; i < g->edges.n && !k->c->nerrors; i++) {
		const GEdge *e = g->edges.v[i];
		int64_t wa = wants[e->from->id], wb = wants[e->to->id];
		if (e->kind != EDGE_RING || wa == wb)
			continue;
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0350", e->sp,
		                   "the ends of `%s.%s -> %s.%s` assume clusters of %lld and %lld blocks",
		                   e->from->name, e->fp->name, e->to->name, e->tp->name, (long long)wa,
		                   (long long)wb);
		d->primary.msg = "a slot shared across blocks must be released in every block";
		if (e->from->comp->cluster)
			diag_label(d, e->from->comp->cluster_sp, "`%s` assumes %lld", e->from->comp->name, (long long)wa);
		if (e->to->comp->cluster)
			diag_label(d, e->to->comp->cluster_sp, "`%s` assumes %lld", e->to->comp->name, (long long)wb);
		diag_help(d, "give both components the same cluster constant");
		diag_end(k->c, d);
	}
}

/* ---------------------------------------------------- counts per work item
 * `out ab: ... per ceil_div(K, BK)` says how many slots a port moves per
 * work item. Both sides of a ring must agree for every input, or one of
 * them waits forever. The counts depend on run-time sizes, so they are
 * compared at a few probe values of every shape symbol and scalar: an
 * identity of the two expressions passes every probe; a typical mistake
 * (another BK, K rounded another way) fails at least one. */

enum { NPROBES = 4 };

/* The probe value of kernel name `name` in round r: distinct per name,
 * not multiples of the usual tile sizes (rounding differences show). */
static int64_t probe(const char *name, int r)
{
	static const int64_t base[NPROBES] = { 4096, 1000, 8197, 130 };
	uint32_t h = 2166136261u;
	for (const char *s = name; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return base[r] + (int64_t)(h % 61) * 8 + r;
}

/* The value of one side's count in round r: the component's cparams, and
 * its params at the probe values of what they are bound to. */
static int count_at(Chk *k, const GInst *gi, const Expr *per, int r, int64_t *out)
{
	const Graph *g = k->g;
	const Component *cp = gi->comp;
	int n = cp->cparams.n + gi->binds.n + g->kparams.n;
	const char **names = arena_alloc(A(k), (n + 1) * sizeof *names);
	int64_t *vals = arena_alloc(A(k), (n + 1) * sizeof *vals);
	int m = 0;
	/* kernel names first (the scope of bound expressions) */
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *kp = g->kparams.v[i];
		if (kp->kind == KP_I32 || kp->kind == KP_I64) {
			names[m] = kp->dim ? kp->dim : kp->name;
			vals[m] = probe(names[m], r);
			m++;
		}
	}
	Scope ks = { names, vals, m, &k->kscope };
	const char **cn = arena_alloc(A(k), (n + 1) * sizeof *cn);
	int64_t *cv = arena_alloc(A(k), (n + 1) * sizeof *cv);
	int q = 0;
	for (int i = 0; i < cp->cparams.n; i++) {
		cn[q] = ((const CParam *)cp->cparams.v[i])->name;
		cv[q++] = gi->cvals[i];
	}
	for (int i = 0; i < gi->binds.n; i++) {
		const GBind *b = gi->binds.v[i];
		int64_t v;
		if (b->expr) {
			if (eval_expr(k->c, b->expr, &ks, &v))
				return -1;
		} else if (b->kparam >= 0 && b->kparam < g->kparams.n) {
			const GKParam *kp = g->kparams.v[b->kparam];
			if (kp->kind != KP_I32 && kp->kind != KP_I64)
				continue;   /* a pointer or tensor map: not a number */
			v = probe(kp->dim ? kp->dim : kp->name, r);
		} else
			continue;
		cn[q] = b->param;
		cv[q++] = v;
	}
	Scope cs = { cn, cv, q, NULL };
	return eval_expr(k->c, per, &cs, out);
}

static void check_counts(Chk *k)
{
	for (int i = 0; i < k->g->edges.n; i++) {
		const GEdge *e = k->g->edges.v[i];
		const Port *a = e->fp->decl, *b = e->tp->decl;
		if (e->kind != EDGE_RING || !a || !b || !a->per || !b->per)
			continue;
		for (int r = 0; r < NPROBES; r++) {
			int64_t va, vb;
			if (count_at(k, e->from, a->per, r, &va) || count_at(k, e->to, b->per, r, &vb))
				return;
			if (va == vb)
				continue;
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0349", e->sp,
			                   "`%s.%s` and `%s.%s` move different numbers of tiles per work item",
			                   e->from->name, e->fp->name, e->to->name, e->tp->name);
			d->primary.msg = "the consumer would wait for a tile that never comes, or the producer for a free slot";
			diag_label(d, a->per->sp, "%lld per work item", (long long)va);
			diag_label(d, b->per->sp, "%lld per work item", (long long)vb);
			char at[256] = "";
			size_t len = 0;
			for (int j = 0; j < k->g->kparams.n && len < sizeof at - 40; j++) {
				const GKParam *kp = k->g->kparams.v[j];
				if (kp->kind == KP_I32 || kp->kind == KP_I64) {
					const char *nm = kp->dim ? kp->dim : kp->name;
					len += (size_t)snprintf(at + len, sizeof at - len, "%s%s = %lld", len ? ", " : "",
					                        nm, (long long)probe(nm, r));
				}
			}
			diag_note(d, "with %s", at[0] ? at : "these constants");
			diag_help(d, "both sides must step through the same extent with the same tile (e.g. `per ceil_div(K, BK)` with one BK)");
			diag_end(k->c, d);
			return;
		}
	}
}

/* ------------------------------------------------------------- lanes
 * `pingpong = N` on a ring: the consumer's role runs as N copies (lanes)
 * on warps of their own; the producer keeps its order and lane L takes
 * work items L, L + N, ... So one lane's epilogue overlaps the next
 * lane's mainloop. Each lane skips the slots of the items the others
 * take, which the contract's `per` counts: it is required. */

/* e, in the terms of instance gi (its cparams and params), rewritten in
 * the kernel's: cparams become numbers, params their bindings. NULL (and
 * *bad set to the name) when a name is neither. */
static Expr *kernel_terms(Chk *k, const GInst *gi, const Expr *e, const char **bad)
{
	if (!e)
		return NULL;
	Expr *n = arena_alloc(A(k), sizeof *n);
	*n = *e;
	if (e->k == EX_NAME) {
		const Component *cp = gi->comp;
		for (int i = 0; i < cp->cparams.n; i++)
			if (!strcmp(((const CParam *)cp->cparams.v[i])->name, e->name)) {
				n->k = EX_NUM, n->num = gi->cvals[i], n->name = NULL;
				return n;
			}
		for (int i = 0; i < gi->binds.n; i++) {
			const GBind *b = gi->binds.v[i];
			if (strcmp(b->param, e->name))
				continue;
			if (b->expr)
				return (Expr *)b->expr;   /* already in kernel terms */
			if (b->kparam >= 0 && b->kparam < k->g->kparams.n) {
				const GKParam *kp = k->g->kparams.v[b->kparam];
				if (kp->kind == KP_I32 || kp->kind == KP_I64) {
					n->name = kp->name;
					return n;
				}
			}
		}
		*bad = e->name;
		return NULL;
	}
	if (e->a && !(n->a = kernel_terms(k, gi, e->a, bad)))
		return NULL;
	if (e->b && !(n->b = kernel_terms(k, gi, e->b, bad)))
		return NULL;
	if (e->args.n) {
		n->args = (Vec){ 0 };
		for (int i = 0; i < e->args.n; i++) {
			Expr *x = kernel_terms(k, gi, e->args.v[i], bad);
			if (!x)
				return NULL;
			vec_push(A(k), &n->args, x);
		}
	}
	return n;
}

static void lane_error(Chk *k, const GEdge *e, const char *msg, const char *label, const char *help)
{
	Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", e->lanes_sp, "%s", msg);
	d->primary.msg = label;
	diag_help(d, "%s", help);
	diag_end(k->c, d);
}

static void check_lanes(Chk *k)
{
	Graph *g = k->g;
	for (int i = 0; i < g->edges.n; i++) {
		GEdge *e = g->edges.v[i];
		if (e->lanes < 2 || e->to->role < 0)
			continue;
		GRole *r = g->roles.v[e->to->role];
		if (!g->persistent) {
			lane_error(k, e, "pingpong lanes need a persistent grid", "each block would have one work item for two lanes",
			           "add `grid persistent`: the lanes then take the block's work items in turn");
			continue;
		}
		if (r->lanes > 1) {
			lane_error(k, e, arena_printf(A(k), "the role of `%s` is split into lanes by two rings", e->to->name),
			           "second `pingpong` of the role", "keep `pingpong` on one ring into the role");
			continue;
		}
		const GEdge *other = NULL;
		for (int j = 0; j < g->edges.n && !other; j++) {
			const GEdge *f = g->edges.v[j];
			if (f != e && f->kind == EDGE_RING && (f->from->role == r->id || f->to->role == r->id))
				other = f;
		}
		if (other || e->from->role == r->id) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", e->lanes_sp,
			                   "a role split into pingpong lanes must have this ring as its only ring");
			d->primary.msg = "lanes take work items out of the other rings' order";
			if (other)
				diag_label(d, other->sp, "a ring %s `%s`'s role", other->to->role == r->id ? "into" : "out of",
				           e->to->name);
			diag_help(d, "give the lanes one ring in (their operands) and registers or global memory out");
			diag_end(k->c, d);
			continue;
		}
		const Port *tp = e->tp->decl, *fp = e->fp->decl;
		const GInst *who = tp && tp->per ? e->to : e->from;
		const Port *pp = tp && tp->per ? tp : fp;
		if (!pp || !pp->per) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", e->lanes_sp,
			                   "pingpong needs the slots per work item of `%s.%s`, and its contract does not say",
			                   e->to->name, e->tp->name);
			d->primary.msg = "a lane skips the slots of the items other lanes take";
			if (tp)
				diag_label(d, tp->sp, "no `per COUNT` here");
			diag_help(d, "declare the count on the port, e.g. `in ab: ... per ceil_div(K, BK)`");
			diag_end(k->c, d);
			continue;
		}
		const char *bad = NULL;
		e->per = kernel_terms(k, who, pp->per, &bad);
		if (!e->per) {
			Diag *d = diag_new(k->c, DIAG_ERROR, "E0351", pp->per->sp,
			                   "`per` of `%s.%s` names `%s`, which the kernel cannot compute", who->name,
			                   pp->name, bad ? bad : "?");
			d->primary.msg = "not a constant or an integer param of the component";
			diag_label(d, e->lanes_sp, "pingpong needs the count at run time");
			diag_help(d, "write the count over the component's constants and integer params");
			diag_end(k->c, d);
			continue;
		}
		r->lanes = e->lanes;
		r->lane_edge = e;
	}
}

/* ------------------------------------------------------------ resources */

static void check_resources(Chk *k)
{
	Graph *g = k->g;
	const ArchInfo *ar = k->arch;
	const Kernel *kn = k->k;

	int warps = 0;
	for (int i = 0; i < g->roles.n; i++)
		warps += ((GRole *)g->roles.v[i])->nwarps * ((GRole *)g->roles.v[i])->lanes;
	if (warps * 32 > ar->max_threads) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0337", kn->name_sp,
		                   "kernel `%s` needs %d threads, above %s's %d per block",
		                   kn->name, warps * 32, ar->name, ar->max_threads);
		d->primary.msg = arena_printf(A(k), "%d warps in %d roles", warps, g->roles.n);
		for (int i = 0; i < g->roles.n; i++) {
			GRole *r = g->roles.v[i];
			GInst *o = r->insts.v[0];
			if (r->lanes > 1)
				diag_note(d, "`%s`: %d lanes x %d warps (%d threads)", o->name, r->lanes, r->nwarps,
				          r->lanes * r->nwarps * 32);
			else
				diag_note(d, "`%s`: %d warps (%d threads)", o->name, r->nwarps, r->nwarps * 32);
		}
		diag_help(d, "remove %d warps", warps - ar->max_threads / 32);
		diag_end(k->c, d);
	}

	int anyregs = 0;
	int64_t regs = 0;
	for (int i = 0; i < g->roles.n; i++) {
		GRole *r = g->roles.v[i];
		anyregs |= r->regs != 0;
		regs += (int64_t)(r->regs ? r->regs : 24) * r->nwarps * 32 * r->lanes;
	}
	if (anyregs && regs > ar->regs_per_sm) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0338", kn->name_sp,
		                   "the register budgets of kernel `%s` need %lld registers, above %s's %d",
		                   kn->name, (long long)regs, ar->name, ar->regs_per_sm);
		d->primary.msg = "setmaxnreg budgets can never fit the register file";
		for (int i = 0; i < g->roles.n; i++) {
			GRole *r = g->roles.v[i];
			GInst *o = r->insts.v[0];
			diag_note(d, "`%s`: %d warps x 32 x %d registers%s = %d", o->name, r->nwarps * r->lanes,
			          r->regs ? r->regs : 24, r->regs ? "" : " (at least)",
			          (r->regs ? r->regs : 24) * r->nwarps * r->lanes * 32);
		}
		diag_help(d, "over by %lld registers: lower the budgets or use fewer warps",
		          (long long)(regs - ar->regs_per_sm));
		diag_end(k->c, d);
	}

	/* Named barriers are counted by the placement, which assigns them (E0402). */

	/* shared memory, the least any placement needs: buffers live in every
	 * phase, plus the fullest single phase (phases never overlap, so their
	 * buffers may share space), plus each ring at one stage with its two
	 * mbarriers. Padding is left out: a lower bound. A ring whose fixed
	 * depth does not fit is the placement's to explain (E0402), with the
	 * depth that would. */
	static const char *const phases[] = { "prologue", "mainloop", "epilogue" };
	uint64_t always = 0, phase[3] = { 0, 0, 0 };
	for (int i = 0; i < g->insts.n; i++) {
		GInst *gi = g->insts.v[i];
		for (int j = 0; j < gi->bufs.n; j++) {
			GBuf *b = gi->bufs.v[j];
			int ph = -1;
			for (int q = 0; q < 3; q++)
				if (!strcmp(b->live, phases[q]))
					ph = q;
			int lanes = gi->role >= 0 ? ((GRole *)g->roles.v[gi->role])->lanes : 1;
			*(ph < 0 ? &always : &phase[ph]) += (uint64_t)b->size * lanes;
		}
	}
	uint64_t total = always + (phase[0] > phase[1] ? (phase[0] > phase[2] ? phase[0] : phase[2])
	                                               : (phase[1] > phase[2] ? phase[1] : phase[2]));
	for (int i = 0; i < g->edges.n; i++) {
		GEdge *e = g->edges.v[i];
		if (e->kind == EDGE_RING)
			total += (uint64_t)e->slot_bytes + 16u;
	}
	if (total > ar->smem_per_block) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0336", kn->name_sp,
		                   "kernel `%s` needs at least %llu bytes of shared memory, above %s's %u",
		                   kn->name, (unsigned long long)total, ar->name, ar->smem_per_block);
		d->primary.msg = arena_printf(A(k), "over by %llu bytes",
		                              (unsigned long long)(total - ar->smem_per_block));
		for (int i = 0; i < g->insts.n; i++) {
			GInst *gi = g->insts.v[i];
			uint64_t s = 0;
			for (int j = 0; j < gi->bufs.n; j++)
				s += ((GBuf *)gi->bufs.v[j])->size;
			if (s)
				diag_note(d, "`%s`: %llu bytes of buffers (`%s`)", gi->name, (unsigned long long)s,
				          gi->comp->name);
		}
		for (int i = 0; i < g->edges.n; i++) {
			GEdge *e = g->edges.v[i];
			if (e->kind == EDGE_RING)
				diag_note(d, "ring `%s.%s -> %s.%s`: at least 1 stage of %u bytes, + 16 bytes of mbarriers",
				          e->from->name, e->fp->name, e->to->name, e->tp->name, e->slot_bytes);
		}
		diag_help(d, "use smaller tiles or smaller buffers");
		diag_end(k->c, d);
	}
}

/* --------------------------------------------------------------- entry */

Graph *check_kernel(Ctx *c, const Program *p, const Kernel *kn, const ArchInfo *arch)
{
	int errs0 = c->nerrors;
	Chk K = { 0 }, *k = &K;
	k->c = c;
	k->p = p;
	k->k = kn;
	k->arch = arch;
	Graph *g = k->g = arena_alloc(c->arena, sizeof *g);
	g->k = kn;
	g->arch = arch;

	/* kernel consts, each over the ones before it */
	int nc = kn->consts.n;
	const char **cnames = arena_alloc(c->arena, (nc + 1) * sizeof *cnames);
	g->constvals = arena_alloc(c->arena, (nc + 1) * sizeof *g->constvals);
	k->kscope.names = cnames;
	k->kscope.vals = g->constvals;
	for (int i = 0; i < nc; i++) {
		const Const *cs = kn->consts.v[i];
		int64_t v = 0;
		eval_expr(c, cs->val, &k->kscope, &v);
		cnames[i] = cs->name;
		g->constvals[i] = v;
		k->kscope.n = i + 1;
		vec_push(c->arena, &g->consts, (void *)cs);
	}
	if (c->nerrors != errs0)
		return NULL;     /* every size below depends on them: no cascade */

	/* shape symbols and kernel param kinds */
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

	check_grid(k);

	/* instances */
	for (int i = 0; i < kn->insts.n; i++) {
		const Inst *in = kn->insts.v[i];
		for (int j = 0; j < i; j++) {
			const Inst *o = kn->insts.v[j];
			if (!strcmp(o->name, in->name)) {
				Diag *d = diag_new(c, DIAG_ERROR, "E0302", in->name_sp, "instance `%s` is declared twice", in->name);
				d->primary.msg = "declared again here";
				diag_label(d, o->name_sp, "first declared here");
				diag_help(d, "give each instance its own name");
				diag_end(c, d);
				break;
			}
		}
		if (inst_named(g, in->name))
			continue;
		const Component *cp = find_comp(p, in->comp);
		GInst *gi;
		if (!cp) {
			int n;
			const char **cands = names_of_vec(k, &p->comps, offsetof(Component, name), &n);
			Diag *d = diag_new(c, DIAG_ERROR, "E0301", in->comp_sp, "unknown component `%s`", in->comp);
			d->primary.msg = "not declared in this file or any file it uses";
			help_similar(d, in->comp, cands, n, "components in scope");
			diag_end(c, d);
			gi = arena_alloc(c->arena, sizeof *gi);
			gi->name = in->name;
			gi->decl = in;
			gi->role = -1;
			gi->nwarps = -1;
		} else {
			gi = make_inst(k, in, cp);
			check_arch(k, gi);
		}
		gi->id = g->insts.n;
		vec_push(c->arena, &g->insts, gi);
	}

	make_edges(k);
	check_unconnected(k);
	GInst **topo = arena_alloc(c->arena, (g->insts.n + 1) * sizeof *topo);
	if (toposort(k, topo) == 0) {
		form_roles(k, topo);
		/* instances in dataflow order from here on */
		Vec v = { 0 };
		for (int i = 0; i < g->insts.n; i++) {
			topo[i]->id = i;
			vec_push(c->arena, &v, topo[i]);
		}
		g->insts = v;
	}

	Vec bounds = { 0 };
	int bindbad = bind_params(k, &bounds);
	for (int i = 0; i < kn->params.n && !bindbad; i++) {   /* unused: only once bindings are right */
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
	if (c->nerrors == errs0)
		check_requires(k);
	if (c->nerrors == errs0)
		order_kparams(k, &bounds);
	if (c->nerrors == errs0)
		check_counts(k);
	if (c->nerrors == errs0)
		check_clusters(k);
	if (c->nerrors == errs0)
		check_lanes(k);
	if (c->nerrors == errs0)
		check_resources(k);
	return c->nerrors == errs0 ? g : NULL;
}
