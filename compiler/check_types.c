/* check_types.c: names of the standard library (dtypes, layouts,
 * features) looked up, ports typed, connected ports compared.
 *
 * A port is typed per instance, its sizes over the instance's cparams: a
 * tile or frag is one GField, a bundle several tiles at aligned offsets in
 * one ring slot. Both ends of a connection must have the same type. */
#include <string.h>
#include "check.h"

static uint32_t align_up(uint32_t v, uint32_t a) { return a ? (v + a - 1) / a * a : v; }

/* ------------------------------------------------------------- stdlib */

/* `unknown WHAT name` (code), with the closest of a table's n names:
 * the name of entry i at names + i * stride. */
static void unknown_std(Chk *k, const char *code, Span sp, const char *what, const char *plural,
                        const char *name, const void *names, size_t stride, int n)
{
	const char **cands = arena_alloc(A(k), (n + 1) * sizeof *cands);
	for (int i = 0; i < n; i++)
		cands[i] = *(const char *const *)((const char *)names + i * stride);
	Diag *d = diag_new(k->c, DIAG_ERROR, code, sp, "unknown %s `%s`", what, name ? name : "?");
	d->primary.msg = arena_printf(A(k), "not a %s of the standard library", what);
	help_similar(d, name ? name : "", cands, n, plural);
	diag_end(k->c, d);
}

/* The dtype name; NULL after reporting. */
const DtypeInfo *need_dtype(Chk *k, const char *name, Span sp)
{
	const DtypeInfo *d = dtype_lookup(name);
	if (d)
		return d;
	int n;
	const DtypeInfo *all = dtype_all(&n);
	unknown_std(k, "E0326", sp, "dtype", "dtypes", name, &all[0].name, sizeof *all, n);
	return NULL;
}

/* want_frag: 1 for a fragment layout, 0 for a swizzle. */
const LayoutInfo *need_layout(Chk *k, const char *name, Span sp, int want_frag)
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

/* The feature's bit; 0 after reporting. */
unsigned need_feature(Chk *k, const Feature *f)
{
	unsigned b = feature_lookup(f->name);
	if (b)
		return b;
	int n;
	const FeatureInfo *all = feature_all(&n);
	unknown_std(k, "E0328", f->sp, "feature", "features", f->name, &all[0].name, sizeof *all, n);
	return 0;
}

/* The arches that have every feature of bit, for a help. */
char *arches_with(Chk *k, unsigned bit)
{
	int n;
	const ArchInfo *all = arch_all(&n);
	char *s = "";
	for (int i = 0; i < n; i++)
		if ((all[i].features & bit) == bit)
			s = arena_printf(A(k), "%s%s%s", s, *s ? ", " : "", all[i].name);
	return *s ? s : "none";
}

/* The hook kind name (stdlib/hook.def); NULL after reporting (E0354). */
const HookKind *need_hook_kind(Chk *k, const char *name, Span sp)
{
	const HookKind *h = hook_kind_lookup(name);
	if (h)
		return h;
	int n;
	const HookKind *all = hook_kind_all(&n);
	unknown_std(k, "E0354", sp, "hook kind", "hook kinds", name, &all[0].name, sizeof *all, n);
	return NULL;
}

/* A hook port's kind and index space over the instance's cparams cs;
 * -1 after reporting. */
static int type_hook(Chk *k, GPort *gp, const Type *t, const GInst *gi)
{
	const HookKind *h = need_hook_kind(k, t->hook, t->hook_sp);
	if (!h)
		return -1;
	if (h->shaped != (t->rows != NULL)) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0355", t->sp, h->shaped ? "hook kind `%s` needs an index space"
		                   : "hook kind `%s` has no index space", h->name);
		d->primary.msg = h->shaped ? "no `<ROWS x COLS>` here" : "`<...>` given here";
		diag_note(d, "`%s`: %s", h->name, h->doc);
		diag_help(d, h->shaped ? "write `%s<ROWS x COLS>`, e.g. the block shape it iterates"
		                       : "write `%s` alone", h->name);
		diag_end(k->c, d);
		return -1;
	}
	if (h->shaped && (eval_pos(k, t->rows, gi, "a hook's index space", &gp->hshape[0]) ||
	                  eval_pos(k, t->cols, gi, "a hook's index space", &gp->hshape[1])))
		return -1;
	gp->hook = h;
	return 0;
}

/* ----------------------------------------------------------- port types */

char *field_str(Chk *k, const GField *f, int frag)
{
	return arena_printf(A(k), "%s<%s, %lld x %lld, %s>", frag ? "frag" : "tile", f->dtype,
	                    (long long)f->rows, (long long)f->cols, f->layout);
}

char *port_str(Chk *k, const GPort *p)
{
	if (p->k == TY_HOOK && p->hook && p->hook->shaped)
		return arena_printf(A(k), "hook %s<%lld x %lld>", p->hook->name, (long long)p->hshape[0],
		                    (long long)p->hshape[1]);
	if (p->k == TY_HOOK)
		return arena_printf(A(k), "hook %s", p->hook ? p->hook->name : p->decl->ty->hook);
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
static GField *type_field(Chk *k, const Type *t, const GInst *gi, const char *name, Span sp)
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
	bad |= eval_pos(k, t->rows, gi, "a tile's row count", &r) != 0;
	bad |= eval_pos(k, t->cols, gi, "a tile's column count", &c) != 0;
	if (bad)
		return NULL;
	if (frag && (r % l->atom_rows || c % l->atom_cols)) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0344", t->sp,
		                   "a %lld x %lld fragment does not tile into `%s` atoms",
		                   (long long)r, (long long)c, l->name);
		d->primary.msg = arena_printf(A(k), "`%s` is made of %d x %d atoms", l->name,
		                              l->atom_rows, l->atom_cols);
		if (r % l->atom_rows)
			label_origins(k, d, gi, t->rows);
		if (c % l->atom_cols)
			label_origins(k, d, gi, t->cols);
		diag_note(d, "%s", l->doc);
		diag_help(d, "make the rows a multiple of %d and the columns a multiple of %d",
		          l->atom_rows, l->atom_cols);
		diag_end(k->c, d);
		return NULL;
	}
	/* each side bounded before the product, which then fits in 64 bits */
	int64_t bits = r > (1 << 20) || c > (1 << 20) ? 0 : r * c * dt->bits;
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

/* A port typed over the cparams of instance gi; NULL after reporting. */
GPort *type_port(Chk *k, const Port *p, const GInst *gi)
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
			GField *f = type_field(k, fd->ty, gi, fd->name, fd->sp);
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
		GField *f = type_field(k, p->ty, gi, p->name, p->sp);
		if (!f)
			return NULL;
		vec_push(A(k), &gp->fields, f);
		gp->bytes = f->bytes;    /* frag: per thread, once the role is known */
	} else if (p->ty->k == TY_HOOK) {
		if (type_hook(k, gp, p->ty, gi))
			return NULL;
	} else {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0308", p->ty->sp, "a port must be a tile, a frag or a bundle");
		d->primary.msg = "not a port type";
		diag_help(d, "kernel inputs are `param`s; ports carry data between components");
		diag_end(k->c, d);
		return NULL;
	}
	return gp;
}

/* ------------------------------------------------------ port agreement */

/* The error for a connection whose ends differ in `what`; the caller may
 * label more, then ends it. */
static Diag *mismatch(Chk *k, const Conn *cn, const char *code, const char *what,
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
	return d;
}

static const Type *field_decl(const GPort *p, int i)
{
	const Type *t = p->decl->ty;
	return p->k == TY_BUNDLE ? ((Field *)t->fields.v[i])->ty : t;
}

static Span field_decl_sp(const GPort *p, int i, int what)
{
	const Type *t = field_decl(p, i);
	if (what == 1 && t->dtype_sp.src >= 0)
		return t->dtype_sp;
	if (what == 2 && t->layout && t->layout_sp.src >= 0)
		return t->layout_sp;
	return t->sp;
}

/* 0: same type; else reported. a is a port of instance ai, b of bi. */
int compare_ports(Chk *k, const Conn *cn, const GInst *ai, const GPort *a, const GInst *bi, const GPort *b)
{
	static const char *const kinds[] = { [TY_TILE] = "a tile", [TY_FRAG] = "a frag", [TY_BUNDLE] = "a bundle",
	                                     [TY_HOOK] = "a hook" };
	if (a->k != b->k) {
		diag_end(k->c, mismatch(k, cn, "E0308", "port kind", a, b, a->decl->ty->sp, b->decl->ty->sp,
		                        kinds[a->k], kinds[b->k],
		                        "a tile goes through shared memory, a frag stays in registers; "
		                        "put a component between them that converts"));
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
			diag_end(k->c, mismatch(k, cn, "E0313", "bundle field", a, b, a->decl->ty->sp, b->decl->ty->sp,
			                        arena_printf(A(k), "{%s}", fa), arena_printf(A(k), "{%s}", fb),
			                        "both sides must name the same fields in the same order"));
			return -1;
		}
	}
	for (int i = 0; i < a->fields.n; i++) {
		const GField *x = a->fields.v[i], *y = b->fields.v[i];
		const char *in = a->k == TY_BUNDLE ? arena_printf(A(k), " (field `%s`)", x->name) : "";
		if (strcmp(x->dtype, y->dtype)) {
			diag_end(k->c, mismatch(k, cn, "E0309", "dtype", a, b, field_decl_sp(a, i, 1), field_decl_sp(b, i, 1),
			                        arena_printf(A(k), "%s%s", x->dtype, in), y->dtype,
			                        "convert in a component between them, or instantiate one side for the other dtype"));
			return -1;
		}
		if (x->rows != y->rows || x->cols != y->cols) {
			Diag *d = mismatch(k, cn, "E0310", "shape", a, b, field_decl_sp(a, i, 0), field_decl_sp(b, i, 0),
			                   arena_printf(A(k), "%lld x %lld%s", (long long)x->rows, (long long)x->cols, in),
			                   arena_printf(A(k), "%lld x %lld", (long long)y->rows, (long long)y->cols),
			                   "give both instances the same tile constants (kernel `const`s are shared by every instance)");
			const Type *ta = field_decl(a, i), *tb = field_decl(b, i);
			if (x->rows != y->rows) {
				label_origins(k, d, ai, ta->rows);
				label_origins(k, d, bi, tb->rows);
			}
			if (x->cols != y->cols) {
				label_origins(k, d, ai, ta->cols);
				label_origins(k, d, bi, tb->cols);
			}
			diag_end(k->c, d);
			return -1;
		}
		if (strcmp(x->layout, y->layout)) {
			int fr = a->k == TY_FRAG;
			diag_end(k->c, mismatch(k, cn, fr ? "E0312" : "E0311", fr ? "fragment layout" : "swizzle", a, b,
			                        field_decl_sp(a, i, 2), field_decl_sp(b, i, 2),
			                        arena_printf(A(k), "%s%s", x->layout, in), y->layout,
			                        fr ? "a fragment's layout fixes which thread holds which element; both sides must agree"
			                        : "the consumer reads the tile with the producer's swizzle; both sides must agree"));
			return -1;
		}
	}
	return 0;
}
