/* manifest.c: reads and validates k.manifest.json (docs/manifest.md) into
 * a plk_manifest. Everything a launch needs is checked here, once, so
 * that a bad manifest fails at load with the key that is wrong. */
#include "plan.h"
#include "json.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <stddef.h>
#include <stdlib.h>
#include <string.h>

#define PLK_MANIFEST_VERSION 1

static int mfail(char *err, const char *fmt, ...)
{
	int n = snprintf(err, PLK_ERRLEN, "manifest: ");
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err + n, PLK_ERRLEN - n, fmt, ap);
	va_end(ap);
	return -1;
}

static char *dup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = malloc(n);
	if (d)
		memcpy(d, s, n);
	return d;
}

static int is_ident(const char *s)
{
	if (!isalpha((unsigned char)*s) && *s != '_')
		return 0;
	for (s++; *s; s++)
		if (!isalnum((unsigned char)*s) && *s != '_')
			return 0;
	return 1;
}

/* A required or optional string member. */
static int get_str(const pj_val *o, const char *key, int required, char **out, const char *where, char *err)
{
	const pj_val *v = pj_get(o, key);
	if (!v) {
		if (required)
			return mfail(err, "%s: missing \"%s\"", where, key);
		return 0;
	}
	if (v->k != PJ_STR || strlen(v->s) != v->slen || !v->slen)
		return mfail(err, "%s: \"%s\" must be a non-empty string, not %s", where, key,
		             v->k == PJ_STR ? "this" : pj_kind_name(v->k));
	*out = dup(v->s);
	return *out ? 0 : mfail(err, "out of memory");
}

/* o[key], when there: an array of strings, into a NULL-ended *out of *n. */
static int get_strs(const pj_val *o, const char *key, char ***out, int *n, char *err)
{
	const pj_val *a = pj_get(o, key);
	if (!a)
		return 0;
	if (a->k != PJ_ARR)
		return mfail(err, "\"%s\" must be an array of strings", key);
	if (!(*out = calloc((size_t)a->n + 1, sizeof **out)))
		return mfail(err, "out of memory");
	for (int i = 0; i < a->n; i++) {
		if (a->items[i].k != PJ_STR)
			return mfail(err, "\"%s\"[%d] must be a string", key, i);
		if (!((*out)[i] = dup(a->items[i].s)))
			return mfail(err, "out of memory");
		*n = i + 1;
	}
	return 0;
}

static int int_of(const pj_val *v, int64_t lo, int64_t hi, int64_t *out, const char *what, char *err)
{
	if (!v || v->k != PJ_NUM || !v->is_int)
		return mfail(err, "%s must be an integer, not %s", what, v ? pj_kind_name(v->k) : "missing");
	if (v->i < lo || v->i > hi)
		return mfail(err, "%s is %lld; expected %lld..%lld", what, (long long)v->i, (long long)lo, (long long)hi);
	*out = v->i;
	return 0;
}

/* [x, y, z] with 1..3 entries; missing ones are 1. */
static int get_dim3(const pj_val *o, const char *key, int required, unsigned out[3], unsigned max, char *err)
{
	out[0] = out[1] = out[2] = 1;
	const pj_val *v = pj_get(o, key);
	if (!v)
		return required ? mfail(err, "missing \"%s\"", key) : 0;
	if (v->k != PJ_ARR || v->n < 1 || v->n > 3)
		return mfail(err, "\"%s\" must be an array of 1 to 3 integers", key);
	for (int i = 0; i < v->n; i++) {
		char what[64];
		snprintf(what, sizeof what, "\"%s\"[%d]", key, i);
		int64_t x;
		if (int_of(&v->items[i], 1, max, &x, what, err))
			return -1;
		out[i] = (unsigned)x;
	}
	return 0;
}

/* A dim or scalar source: a string (symbol or expression) or an integer. */
static int get_shape_expr(const pj_val *v, char **out, const char *what, char *err)
{
	char buf[32];
	if (v->k == PJ_NUM && v->is_int) {
		snprintf(buf, sizeof buf, "%lld", (long long)v->i);
	} else if (v->k != PJ_STR || !v->slen || strlen(v->s) != v->slen) {
		return mfail(err, "%s must be a shape symbol, an expression string or an integer", what);
	}
	const char *s = v->k == PJ_STR ? v->s : buf;
	char e[PLK_ERRLEN];
	if (plk_expr_names(s, NULL, NULL, e) != 0)
		return mfail(err, "%s: %s", what, e);
	*out = dup(s);
	return *out ? 0 : mfail(err, "out of memory");
}

/* Whether name (len bytes) is one of the device's values; its value in
 * *v from dv where both are given. */
static int device_val(const plk_device_vals *dv, const char *name, size_t len, int64_t *v)
{
	static const struct { const char *name; size_t off; } vals[] = {
		{ "SMS", offsetof(plk_device_vals, sms) },
		{ "DRAM_GBPS", offsetof(plk_device_vals, dram_gbps) },
	};
	for (size_t i = 0; i < sizeof vals / sizeof *vals; i++)
		if (strlen(vals[i].name) == len && !memcmp(name, vals[i].name, len)) {
			if (dv && v)
				memcpy(v, (const char *)dv + vals[i].off, sizeof *v);
			return 1;
		}
	return 0;
}

typedef struct SymAdd { plk_manifest *m; int oom; } SymAdd;

static void add_sym(void *ctx, const char *name, size_t len)
{
	SymAdd *sa = ctx;
	plk_manifest *m = sa->m;
	if (device_val(NULL, name, len, NULL))
		return;   /* the device's (plk_device_vals), not a shape symbol */
	for (int i = 0; i < m->nsyms; i++)
		if (strlen(m->syms[i]) == len && !memcmp(m->syms[i], name, len))
			return;
	char **ns = realloc(m->syms, (size_t)(m->nsyms + 1) * sizeof *ns);
	char *s = malloc(len + 1);
	if (!ns || !s) {
		free(s);
		if (ns) m->syms = ns;
		sa->oom = 1;
		return;
	}
	memcpy(s, name, len);
	s[len] = 0;
	m->syms = ns;
	m->syms[m->nsyms++] = s;
}

static int collect(plk_manifest *m, const char *s, char *err)
{
	SymAdd sa = { m, 0 };
	char e[PLK_ERRLEN];
	if (plk_expr_names(s, add_sym, &sa, e))
		return mfail(err, "%s", e);
	return sa.oom ? mfail(err, "out of memory") : 0;
}

/* Bytes per element of the dtypes we know; 0: unknown. */
static int dtype_bytes(const char *d)
{
	static const struct { const char *n; int b; } t[] = {
		{ "bf16", 2 }, { "f16", 2 }, { "f32", 4 }, { "tf32", 4 }, { "f64", 8 },
		{ "i8", 1 }, { "u8", 1 }, { "i16", 2 }, { "u16", 2 }, { "i32", 4 }, { "u32", 4 },
		{ "i64", 8 }, { "u64", 8 }, { "e4m3", 1 }, { "e5m2", 1 }, { "fp8_e4m3", 1 }, { "fp8_e5m2", 1 },
	};
	for (size_t i = 0; i < sizeof t / sizeof t[0]; i++)
		if (!strcmp(t[i].n, d))
			return t[i].b;
	return 0;
}

static int parse_tensor(plk_manifest *m, const pj_val *v, int i, char *err)
{
	plk_mtensor *t = &m->tensors[i];
	char where[64];
	snprintf(where, sizeof where, "tensors[%d]", i);
	if (v->k != PJ_OBJ)
		return mfail(err, "%s must be an object", where);
	if (get_str(v, "name", 1, &t->name, where, err))
		return -1;
	snprintf(where, sizeof where, "tensor \"%.40s\"", t->name);
	if (plk_manifest_tensor(m, t->name) != i)
		return mfail(err, "%s is declared twice", where);
	if (get_str(v, "dtype", 1, &t->dtype, where, err))
		return -1;
	const pj_val *eb = pj_get(v, "elem_bytes");
	int known = dtype_bytes(t->dtype);
	if (eb) {
		char what[96];
		snprintf(what, sizeof what, "%s: \"elem_bytes\"", where);
		int64_t x;
		if (int_of(eb, 1, 16, &x, what, err))
			return -1;
		t->elem_bytes = (int)x;
		if (known && known != x)
			return mfail(err, "%s: elem_bytes %d, but %s has %d", where, (int)x, t->dtype, known);
	} else if (!(t->elem_bytes = known)) {
		return mfail(err, "%s: unknown dtype \"%s\" and no \"elem_bytes\"", where, t->dtype);
	}
	const pj_val *d = pj_get(v, "dims");
	if (!d || d->k != PJ_ARR || d->n < 1 || d->n > PLK_MAX_RANK)
		return mfail(err, "%s: \"dims\" must be an array of 1 to %d entries", where, PLK_MAX_RANK);
	t->rank = d->n;
	for (int j = 0; j < d->n; j++) {
		char what[96];
		snprintf(what, sizeof what, "%s: dims[%d]", where, j);
		if (get_shape_expr(&d->items[j], &t->dims[j], what, err) || collect(m, t->dims[j], err))
			return -1;
		t->dim_sym[j] = is_ident(t->dims[j]) ? plk_manifest_sym(m, t->dims[j]) : -1;
	}
	return 0;
}

static int swizzle_bytes(const char *s)
{
	if (!strcmp(s, "none")) return 0;
	if (!strcmp(s, "sw32")) return 32;
	if (!strcmp(s, "sw64")) return 64;
	if (!strcmp(s, "sw128")) return 128;
	return -1;
}

static int parse_param(plk_manifest *m, const pj_val *v, int i, char *err)
{
	plk_mparam *p = &m->params[i];
	char where[64], *kind = NULL, *tensor = NULL, *dtype = NULL, *swz = NULL;
	int rc = -1;
	p->tensor = -1;
	p->top = -1;
	snprintf(where, sizeof where, "params[%d]", i);
	if (v->k != PJ_OBJ)
		return mfail(err, "%s must be an object", where);
	if (get_str(v, "name", 1, &p->name, where, err))
		return -1;
	snprintf(where, sizeof where, "param \"%.40s\"", p->name);
	if (plk_manifest_param(m, p->name) != i)
		return mfail(err, "%s is declared twice", where);
	if (get_str(v, "kind", 1, &kind, where, err) || get_str(v, "tensor", 0, &tensor, where, err)
	    || get_str(v, "dtype", 0, &dtype, where, err) || get_str(v, "swizzle", 0, &swz, where, err))
		goto out;
	int k;
	for (k = 0; k <= PK_WORKSPACE && strcmp(kind, plk_pkind_name((plk_pkind)k)); k++)
		;
	if (k > PK_WORKSPACE) {
		mfail(err, "%s: unknown kind \"%s\" (ptr, tensormap, i32, i64, f32, workspace)", where, kind);
		goto out;
	}
	p->kind = (plk_pkind)k;
	if (p->kind == PK_WORKSPACE) {
		const pj_val *by = pj_get(v, "bytes");
		char what[96];
		snprintf(what, sizeof what, "%s: \"bytes\"", where);
		if (!by) {
			mfail(err, "%s: a workspace needs \"bytes\"", where);
			goto out;
		}
		if (tensor || pj_get(v, "dim")) {
			mfail(err, "%s: a workspace carries no tensor or dim", where);
			goto out;
		}
		if (get_shape_expr(by, &p->dim, what, err) || collect(m, p->dim, err))
			goto out;
		const pj_val *z = pj_get(v, "zero");
		snprintf(what, sizeof what, "%s: \"zero\"", where);
		if (z && (get_shape_expr(z, &p->zero, what, err) || collect(m, p->zero, err)))
			goto out;
	}
	if (tensor) {
		if (p->kind != PK_PTR && p->kind != PK_TENSORMAP) {
			mfail(err, "%s: a %s parameter cannot carry tensor \"%s\"", where, kind, tensor);
			goto out;
		}
		if ((p->tensor = plk_manifest_tensor(m, tensor)) < 0) {
			mfail(err, "%s: tensor \"%s\" is not in \"tensors\"", where, tensor);
			goto out;
		}
	}
	const pj_val *dim = pj_get(v, "dim");
	if (dim) {
		char what[96];
		snprintf(what, sizeof what, "%s: \"dim\"", where);
		if (p->kind == PK_PTR || p->kind == PK_TENSORMAP) {
			mfail(err, "%s: a %s parameter cannot carry a dim", where, kind);
			goto out;
		}
		if (get_shape_expr(dim, &p->dim, what, err) || collect(m, p->dim, err))
			goto out;
	}
	if (p->kind == PK_TENSORMAP) {
		if (p->tensor < 0) {
			mfail(err, "%s: a tensormap needs \"tensor\"", where);
			goto out;
		}
		const plk_mtensor *t = &m->tensors[p->tensor];
		if (dtype && strcmp(dtype, t->dtype)) {
			mfail(err, "%s: dtype %s, but tensor %s is %s", where, dtype, t->name, t->dtype);
			goto out;
		}
		if (t->rank > PLK_TMAP_MAX_RANK) {
			mfail(err, "%s: tensor %s has rank %d; a tensor map takes at most %d", where, t->name,
			      t->rank, PLK_TMAP_MAX_RANK);
			goto out;
		}
		const pj_val *box = pj_get(v, "box");
		if (!box || box->k != PJ_ARR || box->n != t->rank) {
			mfail(err, "%s: \"box\" must be an array of %d integers (the rank of %s), innermost first",
			      where, t->rank, t->name);
			goto out;
		}
		p->box_rank = box->n;
		for (int j = 0; j < box->n; j++) {
			char what[96];
			int64_t x;
			snprintf(what, sizeof what, "%s: box[%d]", where, j);
			if (int_of(&box->items[j], 1, 256, &x, what, err))
				goto out;
			p->box[j] = (uint32_t)x;
		}
		if ((p->swizzle = swizzle_bytes(swz ? swz : "none")) < 0) {
			mfail(err, "%s: unknown swizzle \"%s\" (none, sw32, sw64, sw128)", where, swz);
			goto out;
		}
	}
	rc = 0;
out:
	free(kind);
	free(tensor);
	free(dtype);
	free(swz);
	return rc;
}

static int parse_grid(plk_manifest *m, const pj_val *g, char *err)
{
	m->policy = GRID_TILES;
	if (!g)
		return 0;   /* no grid: one work item */
	if (g->k != PJ_OBJ)
		return mfail(err, "\"grid\" must be an object");
	char *pol = NULL;
	if (get_str(g, "policy", 1, &pol, "grid", err))
		return -1;
	int bad = strcmp(pol, "persistent") && strcmp(pol, "tiles");
	m->policy = !strcmp(pol, "persistent") ? GRID_PERSISTENT : GRID_TILES;
	if (bad) {
		mfail(err, "grid: unknown policy \"%s\" (persistent, tiles)", pol);
		free(pol);
		return -1;
	}
	free(pol);
	if (get_str(g, "raster", 0, &m->raster, "grid", err))
		return -1;
	const pj_val *sp = pj_get(g, "split");
	if (sp && (get_shape_expr(sp, &m->split, "grid: \"split\"", err) || collect(m, m->split, err)))
		return -1;
	const pj_val *grp = pj_get(g, "group");
	if (grp && int_of(grp, 1, INT32_MAX, &m->group, "grid: \"group\"", err))
		return -1;
	const pj_val *t = pj_get(g, "tiles");
	if (!t)
		return 0;
	if (t->k != PJ_ARR || t->n > 8)
		return mfail(err, "grid: \"tiles\" must be an array of [symbol, tile] pairs");
	m->tiles = calloc((size_t)t->n + 1, sizeof *m->tiles);
	if (!m->tiles)
		return mfail(err, "out of memory");
	for (int i = 0; i < t->n; i++) {
		const pj_val *e = &t->items[i];
		char what[64];
		snprintf(what, sizeof what, "grid: tiles[%d]", i);
		if (e->k != PJ_ARR || e->n != 2)
			return mfail(err, "%s must be a [symbol, tile] pair", what);
		m->ntiles = i + 1;
		if (get_shape_expr(&e->items[0], &m->tiles[i].expr, what, err) || collect(m, m->tiles[i].expr, err))
			return -1;
		snprintf(what, sizeof what, "grid: tiles[%d][1]", i);
		if (int_of(&e->items[1], 1, INT32_MAX, &m->tiles[i].tile, what, err))
			return -1;
	}
	return 0;
}

static int parse(plk_manifest *m, const pj_val *r, const pj_val *kv, char *err);

/* A condition's operators, in PLK_OP_* order (plan.h). */
static const char *const cond_ops[] = { "==", "!=", "<", "<=", ">", ">=", "in" };

/* Conditions: a kernel variant's "when", a kernel's "requires":
 * [{lhs, op, rhs} | {lhs, "op": "in", set}], into *out (*n of them). */
static int parse_conds(plk_mcond **out, int *n, const pj_val *w, const char *where, const char *key, char *err)
{
	if (!w)
		return 0;
	if (w->k != PJ_ARR)
		return mfail(err, "%s: \"%s\" must be an array of conditions", where, key);
	if (!(*out = calloc((size_t)w->n + 1, sizeof **out)))
		return mfail(err, "out of memory");
	for (int i = 0; i < w->n; i++) {
		const pj_val *o = &w->items[i];
		plk_mcond *cd = &(*out)[i];
		char what[64], *op = NULL;
		snprintf(what, sizeof what, "%s: %s[%d]", where, key, i);
		*n = i + 1;
		if (o->k != PJ_OBJ)
			return mfail(err, "%s must be an object", what);
		if (get_str(o, "op", 1, &op, what, err))
			return -1;
		cd->op = -1;
		for (int k = 0; k < 7; k++)
			if (!strcmp(op, cond_ops[k]))
				cd->op = k;
		free(op);
		if (cd->op < 0)
			return mfail(err, "%s: \"op\" must be one of == != < <= > >= in", what);
		const pj_val *l = pj_get(o, "lhs"), *rh = pj_get(o, "rhs"), *set = pj_get(o, "set");
		if (!l || get_shape_expr(l, &cd->lhs, what, err))
			return l ? -1 : mfail(err, "%s needs \"lhs\"", what);
		if (cd->op != PLK_OP_IN) {
			if (!rh)
				return mfail(err, "%s needs \"rhs\"", what);
			if (get_shape_expr(rh, &cd->rhs, what, err))
				return -1;
			continue;
		}
		if (!set || set->k != PJ_ARR)
			return mfail(err, "%s: \"in\" needs a \"set\" array", what);
		if (!(cd->set = calloc((size_t)set->n + 1, sizeof *cd->set)))
			return mfail(err, "out of memory");
		for (int j = 0; j < set->n; j++) {
			cd->nset = j + 1;
			if (get_shape_expr(&set->items[j], &cd->set[j], what, err))
				return -1;
		}
	}
	return 0;
}

/* "variants": per arch ({arch, block, ...}), or the branches of a
 * select's rule in order (docs/manifest.md): a kernel's first ({name,
 * when, launch}) and, where the rule names it again, {name, when} alone.
 * A kernel variant (kv) of a fatbin has per-arch entries of its own,
 * never kernels. */
static int parse_variants(plk_manifest *m, const pj_val *r, const pj_val *v, int kv, char *err)
{
	if (!v)
		return 0;
	if (v->k != PJ_ARR)
		return mfail(err, "\"variants\" must be an array");
	if (!(m->variants = calloc((size_t)v->n + 1, sizeof *m->variants)) ||
	    !(m->kvars = calloc((size_t)v->n + 1, sizeof *m->kvars)) ||
	    !(m->rules = calloc((size_t)v->n + 1, sizeof *m->rules)))
		return mfail(err, "out of memory");
	for (int i = 0; i < v->n; i++) {
		const pj_val *o = &v->items[i];
		char where[32];
		snprintf(where, sizeof where, "variants[%d]", i);
		if (o->k != PJ_OBJ)
			return mfail(err, "%s must be an object", where);
		const pj_val *nm = pj_get(o, "name");
		if (nm && kv)
			return mfail(err, "%s: a kernel variant's \"variants\" are per arch ({arch, block, ...}), "
			             "not kernels", where);
		if (nm) {
			plk_mrule *ru = &m->rules[m->nrules++];
			if (parse_conds(&ru->when, &ru->nwhen, pj_get(o, "when"), where, "when", err))
				return -1;
			ru->kvar = nm->k == PJ_STR ? plk_manifest_variant(m, nm->s) : -1;
			if (ru->kvar >= 0) {   /* a kernel named again: the branch alone */
				for (int k = 0; k < o->n; k++)
					if (strcmp(o->keys[k], "name") && strcmp(o->keys[k], "when"))
						return mfail(err, "%s: kernel \"%s\" is listed before, so this entry is a branch "
						             "of the rule: \"name\" and \"when\" only, not \"%s\"", where, nm->s,
						             o->keys[k]);
				continue;
			}
			ru->kvar = m->nkvars;
			plk_kvariant *x = &m->kvars[m->nkvars++];
			char e[PLK_ERRLEN];   /* mfail writes PLK_ERRLEN bytes; truncated into err below */
			if (!(x->m = calloc(1, sizeof *x->m)))
				return mfail(err, "out of memory");
			if (parse(x->m, r, o, e))   /* e without its own "manifest: " */
				return mfail(err, "%s: %s", where, strncmp(e, "manifest: ", 10) ? e : e + 10);
			/* One binding serves every variant: the same symbols, and
			 * the params bound by name are the top level's. The others
			 * (a tensor's pointer or map, a dim, the workspace) come
			 * from the tensors and symbols, so may differ. */
			int same = x->m->nsyms == m->nsyms;
			for (int j = 0; same && j < m->nsyms; j++)
				same = !strcmp(x->m->syms[j], m->syms[j]);
			if (!same)
				return mfail(err, "%s (%s): its symbols differ from the top level's", where, x->m->entry);
			for (int j = 0; j < x->m->nparams; j++) {
				plk_mparam *xp = &x->m->params[j];
				if (!plk_mparam_free(xp))
					continue;
				int t = plk_manifest_param(m, xp->name);
				if (t < 0 || !plk_mparam_free(&m->params[t]) || m->params[t].kind != xp->kind)
					return mfail(err, "%s (%s): param \"%s\" (%s) is bound by name, but the top level "
					             "has no such %s param", where, x->m->entry, xp->name,
					             plk_pkind_name(xp->kind), plk_pkind_name(xp->kind));
				xp->top = t;
			}
			if (x->m->nparams > m->maxparams)
				m->maxparams = x->m->nparams;
			continue;
		}
		plk_mvariant *x = &m->variants[m->nvariants++];
		if (get_str(o, "arch", 1, &x->arch, where, err))
			return -1;
		x->has_block = pj_get(o, "block") != NULL;
		x->has_cluster = pj_get(o, "cluster") != NULL;
		if (get_dim3(o, "block", 0, x->block, 1024, err) || get_dim3(o, "cluster", 0, x->cluster, 16, err))
			return -1;
		if ((uint64_t)x->block[0] * x->block[1] * x->block[2] > 1024)
			return mfail(err, "%s: block has more than 1024 threads", where);
		const pj_val *ds = pj_get(o, "dynamic_smem");
		int64_t smem = 0;
		if (ds && int_of(ds, 0, UINT32_MAX, &smem, "\"dynamic_smem\"", err))
			return -1;
		x->has_smem = ds != NULL;
		x->dynamic_smem = (uint32_t)smem;
	}
	return 0;
}

/* "sm_90a" -> 90; -1 if not of that shape. */
static int arch_number(const char *a)
{
	if (strncmp(a, "sm_", 3) || !isdigit((unsigned char)a[3]))
		return -1;
	char *end;
	long n = strtol(a + 3, &end, 10);
	return n > 0 && n < 10000 ? (int)n : -1;
}

/* The arch's launch shape for m and, in a select's fatbin, for each of
 * its kernel variants; the index of m's own per-arch entry, -1 if none. */
int plk_manifest_select(plk_manifest *m, int major, int minor)
{
	for (int i = 0; i < m->nkvars; i++)
		if (m->kvars[i].m->nvariants)
			(void)plk_manifest_select(m->kvars[i].m, major, minor);
	int dev = major * 10 + minor, best = -1, best_n = -1;
	for (int i = 0; i < m->nvariants; i++) {
		const char *a = m->variants[i].arch;
		int n = arch_number(a);
		if (n == dev) {
			best = i;
			break;
		}
		/* A plain cubin runs on later minors of its major. */
		int plain = n > 0 && a[3 + (n >= 100 ? 3 : 2)] == 0;
		if (plain && n / 10 == major && n <= dev && n > best_n) {
			best = i;
			best_n = n;
		}
	}
	if (best < 0)
		return -1;
	const plk_mvariant *x = &m->variants[best];
	for (int d = 0; d < 3; d++) {
		if (x->has_block)
			m->block[d] = x->block[d];
		if (x->has_cluster)
			m->cluster[d] = x->cluster[d];
	}
	if (x->has_smem)
		m->dynamic_smem = x->dynamic_smem;
	return best;
}

/* "int32": expressions over the shape symbols (those the rest of the
 * manifest names) and the integer params the caller gives. */
typedef struct IntNames { const plk_manifest *m; const char *bad; size_t badlen; } IntNames;

static void int_name(void *ctx, const char *name, size_t len)
{
	IntNames *in = ctx;
	const plk_manifest *m = in->m;
	for (int i = 0; i < m->nsyms; i++)
		if (strlen(m->syms[i]) == len && !memcmp(m->syms[i], name, len))
			return;
	if (plk_manifest_int_param(m, name, len) < 0 && !in->bad)
		in->bad = name, in->badlen = len;
}

static int parse_int_list(plk_manifest *m, const pj_val *l, const char *key, char ***out, int *n, char *err)
{
	if (get_strs(l, key, out, n, err))
		return -1;
	for (int i = 0; i < *n; i++) {
		char e[PLK_ERRLEN];
		IntNames in = { m, NULL, 0 };
		if (plk_expr_names((*out)[i], int_name, &in, e))
			return mfail(err, "\"%s\"[%d]: %s", key, i, e);
		if (in.bad)
			return mfail(err, "\"%s\"[%d] \"%s\" names '%.*s', neither a shape symbol nor an integer param", key,
			             i, (*out)[i], (int)in.badlen, in.bad);
	}
	return 0;
}

/* "int32" and "int64" (long long) */
static int parse_ints(plk_manifest *m, const pj_val *l, char *err)
{
	return parse_int_list(m, l, "int32", &m->ints, &m->nints, err) ||
	       parse_int_list(m, l, "int64", &m->ints64, &m->nints64, err) ? -1 : 0;
}

/* The manifest r, or with kv the kernel variant kv of r: its own entry
 * ("name"), launch and params, r's tensors. */
static int parse(plk_manifest *m, const pj_val *r, const pj_val *kv, char *err)
{
	const pj_val *l = kv ? kv : r;   /* where the launch is */
	if (r->k != PJ_OBJ)
		return mfail(err, "the top level must be an object");
	int64_t ver;
	const pj_val *vv = pj_get(r, "plk_manifest");
	if (!vv)
		return mfail(err, "missing \"plk_manifest\" (is this a manifest?)");
	if (int_of(vv, 1, INT32_MAX, &ver, "\"plk_manifest\"", err))
		return -1;
	if (ver > PLK_MANIFEST_VERSION)
		return mfail(err, "version %lld is newer than this runtime reads (%d)", (long long)ver,
		             PLK_MANIFEST_VERSION);
	m->version = (int)ver;
	if (get_str(l, kv ? "name" : "entry", 1, &m->entry, "top level", err) ||
	    get_str(r, "kernel", 0, &m->kernel, "top level", err)
	    || get_str(r, "binary", 0, &m->binary, "top level", err))
		return -1;
	if (!m->kernel && !(m->kernel = dup(m->entry)))
		return mfail(err, "out of memory");
	if (get_strs(r, "arch", &m->arch, &m->narch, err) || get_strs(r, "engines", &m->engines, &m->nengines, err))
		return -1;
	if (get_dim3(l, "block", 1, m->block, 1024, err) || get_dim3(l, "cluster", 0, m->cluster, 16, err))
		return -1;
	if ((uint64_t)m->block[0] * m->block[1] * m->block[2] > 1024)
		return mfail(err, "block %ux%ux%u has more than 1024 threads", m->block[0], m->block[1], m->block[2]);
	const pj_val *ds = pj_get(l, "dynamic_smem");
	int64_t smem = 0;
	if (ds && int_of(ds, 0, UINT32_MAX, &smem, "\"dynamic_smem\"", err))
		return -1;
	m->dynamic_smem = (uint32_t)smem;
	const pj_val *co = pj_get(l, "cooperative");
	if (co && co->k != PJ_BOOL)
		return mfail(err, "\"cooperative\" must be true or false");
	m->cooperative = co && co->b;

	const pj_val *ts = pj_get(r, "tensors");
	if (ts) {
		if (ts->k != PJ_ARR)
			return mfail(err, "\"tensors\" must be an array");
		if (!(m->tensors = calloc((size_t)ts->n + 1, sizeof *m->tensors)))
			return mfail(err, "out of memory");
		for (int i = 0; i < ts->n; i++) {
			m->ntensors = i + 1;
			if (parse_tensor(m, &ts->items[i], i, err))
				return -1;
		}
	}
	const pj_val *ps = pj_get(l, "params");
	if (!ps || ps->k != PJ_ARR)
		return mfail(err, "\"params\" must be an array (the kernel's parameter list)");
	if (!(m->params = calloc((size_t)ps->n + 1, sizeof *m->params)))
		return mfail(err, "out of memory");
	for (int i = 0; i < ps->n; i++) {
		m->nparams = i + 1;
		if (parse_param(m, &ps->items[i], i, err))
			return -1;
		if (plk_mparam_free(&m->params[i]))
			m->params[i].top = i;
	}
	m->maxparams = m->nparams;
	if (parse_conds(&m->reqs, &m->nreqs, pj_get(l, "requires"), kv ? m->entry : "top level", "requires", err))
		return -1;
	return parse_grid(m, pj_get(l, "grid"), err) || parse_ints(m, l, err) ||
	       parse_variants(m, r, pj_get(l, "variants"), kv != NULL, err) ? -1 : 0;
}

plk_manifest *plk_manifest_parse(const char *json, size_t len, char *err)
{
	char e[PLK_ERRLEN - 16];
	pj_val *r = pj_parse(json, len, e, sizeof e);
	if (!r) {
		mfail(err, "bad JSON: %s", e);
		return NULL;
	}
	plk_manifest *m = calloc(1, sizeof *m);
	if (!m) {
		mfail(err, "out of memory");
	} else if (parse(m, r, NULL, err)) {
		plk_manifest_free(m);
		m = NULL;
	}
	pj_free(r);
	return m;
}

static void free_conds(plk_mcond *cs, int n)
{
	for (int j = 0; j < n; j++) {
		free(cs[j].lhs);
		free(cs[j].rhs);
		for (int q = 0; q < cs[j].nset; q++)
			free(cs[j].set[q]);
		free(cs[j].set);
	}
	free(cs);
}

void plk_manifest_free(plk_manifest *m)
{
	if (!m)
		return;
	free(m->kernel);
	free(m->entry);
	free(m->binary);
	for (int i = 0; i < m->narch; i++)
		free(m->arch[i]);
	free(m->arch);
	for (int i = 0; i < m->nengines; i++)
		free(m->engines[i]);
	free(m->engines);
	for (int i = 0; i < m->ntiles; i++)
		free(m->tiles[i].expr);
	free(m->tiles);
	free(m->raster);
	free(m->split);
	for (int i = 0; i < m->ntensors; i++) {
		free(m->tensors[i].name);
		free(m->tensors[i].dtype);
		for (int j = 0; j < m->tensors[i].rank; j++)
			free(m->tensors[i].dims[j]);
	}
	free(m->tensors);
	for (int i = 0; i < m->nparams; i++) {
		free(m->params[i].name);
		free(m->params[i].dim);
		free(m->params[i].zero);
	}
	free(m->params);
	for (int i = 0; i < m->nsyms; i++)
		free(m->syms[i]);
	free(m->syms);
	for (int i = 0; i < m->nvariants; i++)
		free(m->variants[i].arch);
	free(m->variants);
	for (int i = 0; i < m->nkvars; i++)
		plk_manifest_free(m->kvars[i].m);
	free(m->kvars);
	for (int i = 0; i < m->nrules; i++)
		free_conds(m->rules[i].when, m->rules[i].nwhen);
	free(m->rules);
	free_conds(m->reqs, m->nreqs);
	for (int i = 0; i < m->nints; i++)
		free(m->ints[i]);
	free(m->ints);
	for (int i = 0; i < m->nints64; i++)
		free(m->ints64[i]);
	free(m->ints64);
	free(m);
}

int plk_manifest_tensor(const plk_manifest *m, const char *name)
{
	for (int i = 0; i < m->ntensors; i++)
		if (m->tensors[i].name && !strcmp(m->tensors[i].name, name))
			return i;
	return -1;
}

int plk_manifest_param(const plk_manifest *m, const char *name)
{
	for (int i = 0; i < m->nparams; i++)
		if (m->params[i].name && !strcmp(m->params[i].name, name))
			return i;
	return -1;
}

int plk_manifest_sym(const plk_manifest *m, const char *name)
{
	for (int i = 0; i < m->nsyms; i++)
		if (!strcmp(m->syms[i], name))
			return i;
	return -1;
}

int plk_manifest_int_param(const plk_manifest *m, const char *name, size_t len)
{
	for (int i = 0; i < m->nparams; i++) {
		const plk_mparam *p = &m->params[i];
		if ((p->kind == PK_I32 || p->kind == PK_I64) && plk_mparam_free(p) && strlen(p->name) == len &&
		    !memcmp(p->name, name, len))
			return i;
	}
	return -1;
}

int plk_param_bytes(plk_pkind k)
{
	switch (k) {
	case PK_PTR: case PK_I64: case PK_WORKSPACE: return 8;
	case PK_TENSORMAP: return 128;
	case PK_I32: case PK_F32: return 4;
	}
	return 0;
}

const char *plk_pkind_name(plk_pkind k)
{
	static const char *const n[] = { "ptr", "tensormap", "i32", "i64", "f32", "workspace" };
	return (unsigned)k <= PK_WORKSPACE ? n[k] : "?";
}

int plk_manifest_variant(const plk_manifest *m, const char *name)
{
	for (int i = 0; name && i < m->nkvars; i++)
		if (!strcmp(m->kvars[i].m->entry, name))
			return i;
	return -1;
}

typedef struct PickCtx { const plk_manifest *m; const int64_t *sym; const plk_device_vals *dv; } PickCtx;

static int pick_lookup(void *ctx, const char *name, size_t len, int64_t *v)
{
	const PickCtx *pc = ctx;
	if (device_val(pc->dv, name, len, v))
		return 0;
	for (int i = 0; i < pc->m->nsyms; i++)
		if (strlen(pc->m->syms[i]) == len && !memcmp(pc->m->syms[i], name, len)) {
			*v = pc->sym[i];
			return 0;
		}
	return -1;
}

/* Whether all n conditions hold (*holds), the first that does not in
 * *failed; its sides' values in lv, rv. */
static int conds_hold(const plk_mcond *cs, int n, PickCtx *pc, int *holds, int *failed, int64_t *lv, int64_t *rv,
                      char *err)
{
	*holds = 1;
	for (int j = 0; j < n && *holds; j++) {
		const plk_mcond *cd = &cs[j];
		int64_t a, b = 0;
		if (plk_expr_eval(cd->lhs, pick_lookup, pc, &a, err) ||
		    (cd->rhs && plk_expr_eval(cd->rhs, pick_lookup, pc, &b, err)))
			return -1;
		switch (cd->op) {
		case PLK_OP_EQ: *holds = a == b; break;
		case PLK_OP_NE: *holds = a != b; break;
		case PLK_OP_LT: *holds = a < b; break;
		case PLK_OP_LE: *holds = a <= b; break;
		case PLK_OP_GT: *holds = a > b; break;
		case PLK_OP_GE: *holds = a >= b; break;
		default:
			*holds = 0;
			for (int q = 0; q < cd->nset && !*holds; q++) {
				if (plk_expr_eval(cd->set[q], pick_lookup, pc, &b, err))
					return -1;
				*holds = a == b;
			}
		}
		*failed = j;
		*lv = a;
		*rv = b;
	}
	return 0;
}

int plk_variant_pick(const plk_manifest *m, const int64_t *sym, const plk_device_vals *dv, int *pick, char *err)
{
	PickCtx pc = { m, sym, dv };
	for (int i = 0; i < m->nrules; i++) {
		const plk_mrule *ru = &m->rules[i];
		const plk_manifest *x = m->kvars[ru->kvar].m;
		int holds, at;
		int64_t a, b;
		if (conds_hold(ru->when, ru->nwhen, &pc, &holds, &at, &a, &b, err) ||
		    (holds && conds_hold(x->reqs, x->nreqs, &pc, &holds, &at, &a, &b, err)))
			return -1;
		if (holds) {   /* the branch's conditions and its kernel's own `require` */
			*pick = ru->kvar;
			return 0;
		}
	}
	return mfail(err, "no variant of %s holds for these shapes (the manifest lacks a default, or its `require` fails)",
	             m->kernel);
}

int plk_requires_check(const plk_manifest *m, const int64_t *sym, const plk_device_vals *dv, char *err)
{
	PickCtx pc = { m, sym, dv };
	int holds, at;
	int64_t a, b;
	if (conds_hold(m->reqs, m->nreqs, &pc, &holds, &at, &a, &b, err))
		return -1;
	if (holds)
		return 0;
	const plk_mcond *cd = &m->reqs[at];   /* a launch error, not the manifest's: no "manifest: " */
	if (cd->op == PLK_OP_IN)
		return snprintf(err, PLK_ERRLEN, "kernel %s requires %s in {...}, and here %s = %lld", m->entry, cd->lhs,
		                cd->lhs, (long long)a), -1;
	char rv[96] = "";   /* the right side's value, unless it is a number */
	if (cd->rhs[strspn(cd->rhs, "-0123456789")])
		snprintf(rv, sizeof rv, ", %.40s = %lld", cd->rhs, (long long)b);
	return snprintf(err, PLK_ERRLEN, "kernel %s requires %s %s %s, and here %s = %lld%s", m->entry, cd->lhs,
	                cond_ops[cd->op], cd->rhs, cd->lhs, (long long)a, rv), -1;
}
