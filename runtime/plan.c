/* plan.c: from what the caller bound (pointers, shapes, symbol values,
 * scalars) to a complete launch: symbol values, tensor dims, the bytes
 * of every scalar parameter, tensor-map arguments and the grid. Pure: no
 * CUDA calls, so it is unit-tested on a machine without a GPU. */
#include "plan.h"

#include <cuda.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int pfail(char *err, const char *fmt, ...)
{
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(err, PLK_ERRLEN, fmt, ap);
	va_end(ap);
	return -1;
}

#define NEW(p, n) ((p) = calloc((size_t)(n) + 1, sizeof *(p)))

plk_binding *plk_binding_new(const plk_manifest *m)
{
	plk_binding *b = calloc(1, sizeof *b);
	if (!b)
		return NULL;
	if (!NEW(b->tptr, m->ntensors) || !NEW(b->tshape, m->ntensors) || !NEW(b->tshape_rank, m->ntensors)
	    || !NEW(b->sym, m->nsyms) || !NEW(b->sym_set, m->nsyms) || !NEW(b->sym_from, m->nsyms)
	    || !NEW(b->pval, m->nparams) || !NEW(b->pval_set, m->nparams)) {
		plk_binding_free(b);
		return NULL;
	}
	return b;
}

void plk_binding_free(plk_binding *b)
{
	if (!b)
		return;
	free(b->tptr); free(b->tshape); free(b->tshape_rank);
	free(b->sym); free(b->sym_set); free(b->sym_from);
	free(b->pval); free(b->pval_set);
	free(b);
}

void plk_binding_clear(const plk_manifest *m, plk_binding *b)
{
	memset(b->tptr, 0, (size_t)m->ntensors * sizeof *b->tptr);
	memset(b->tshape_rank, 0, (size_t)m->ntensors * sizeof *b->tshape_rank);
	memset(b->sym_set, 0, (size_t)m->nsyms * sizeof *b->sym_set);
	memset(b->pval_set, 0, (size_t)m->nparams * sizeof *b->pval_set);
}

plk_plan *plk_plan_new(const plk_manifest *m)
{
	plk_plan *p = calloc(1, sizeof *p);
	if (!p)
		return NULL;
	if (!NEW(p->sym, m->nsyms) || !NEW(p->tdims, m->ntensors) || !NEW(p->pval, m->maxparams)
	    || !NEW(p->tmap, m->maxparams)) {
		plk_plan_free(p);
		return NULL;
	}
	return p;
}

void plk_plan_free(plk_plan *p)
{
	if (!p)
		return;
	free(p->sym); free(p->tdims); free(p->pval); free(p->tmap);
	free(p);
}

typedef struct Look { const plk_manifest *m; const int64_t *sym; int64_t sms; } Look;

static int look(void *ctx, const char *name, size_t len, int64_t *v)
{
	Look *l = ctx;
	if (len == 3 && !memcmp(name, "SMS", 3) && l->sms > 0) {
		*v = l->sms;
		return 0;
	}
	for (int i = 0; i < l->m->nsyms; i++)
		if (strlen(l->m->syms[i]) == len && !memcmp(l->m->syms[i], name, len)) {
			*v = l->sym[i];
			return 0;
		}
	return -1;
}

/* Symbols come from explicit values first, then from the shapes of bound
 * tensors whose dims are bare symbols; two sources that disagree are an
 * error naming both. */
static int infer(const plk_manifest *m, const plk_binding *b, int64_t *sym, int *set, int *from, char *err)
{
	for (int s = 0; s < m->nsyms; s++) {
		set[s] = b->sym_set[s] ? 1 : 0;
		sym[s] = b->sym[s];
		from[s] = -1;
	}
	for (int t = 0; t < m->ntensors; t++) {
		const plk_mtensor *mt = &m->tensors[t];
		if (!b->tshape_rank[t])
			continue;
		if (b->tshape_rank[t] != mt->rank)
			return pfail(err, "tensor %s: given rank %d, but the kernel takes rank %d [%s%s%s%s]", mt->name,
			             b->tshape_rank[t], mt->rank, mt->dims[0], mt->rank > 1 ? ", " : "",
			             mt->rank > 1 ? mt->dims[1] : "", mt->rank > 2 ? ", ..." : "");
		for (int d = 0; d < mt->rank; d++) {
			int s = mt->dim_sym[d];
			int64_t v = b->tshape[t][d];
			if (s < 0)
				continue;
			if (!set[s]) {
				set[s] = 1;
				sym[s] = v;
				from[s] = t;
			} else if (sym[s] != v) {
				if (from[s] < 0)
					return pfail(err, "tensor %s: dim %d (%s) is %lld, but %s = %lld was given", mt->name, d,
					             mt->dims[d], (long long)v, m->syms[s], (long long)sym[s]);
				return pfail(err, "tensor %s: dim %d (%s) is %lld, but tensor %s has %s = %lld", mt->name, d,
				             mt->dims[d], (long long)v, m->tensors[from[s]].name, m->syms[s], (long long)sym[s]);
			}
		}
	}
	for (int s = 0; s < m->nsyms; s++)
		if (!set[s])
			return pfail(err, "shape symbol %s has no value: give it, or a tensor whose shape holds it",
			             m->syms[s]);
	return 0;
}

int plk_resolve_shapes(const plk_manifest *m, const plk_binding *b, plk_plan *p, char *err)
{
	int rc = -1;
	int *set = calloc((size_t)m->nsyms + 1, sizeof *set), *from = calloc((size_t)m->nsyms + 1, sizeof *from);
	if (!set || !from) {
		pfail(err, "out of memory");
		goto out;
	}
	if (infer(m, b, p->sym, set, from, err))
		goto out;
	for (int s = 0; s < m->nsyms; s++)   /* the kernel takes them for sizes (plkc's graph_nonneg) */
		if (p->sym[s] < 0) {
			pfail(err, "shape symbol %s is %lld; sizes are 0 or more", m->syms[s], (long long)p->sym[s]);
			goto out;
		}
	Look l = { m, p->sym, 0 };
	char e[PLK_ERRLEN];
	for (int t = 0; t < m->ntensors; t++) {
		const plk_mtensor *mt = &m->tensors[t];
		for (int d = 0; d < mt->rank; d++) {
			int64_t v;
			if (plk_expr_eval(mt->dims[d], look, &l, &v, e)) {
				pfail(err, "tensor %s, dim %d: %s", mt->name, d, e);
				goto out;
			}
			if (v <= 0) {
				pfail(err, "tensor %s: dim %d (%s) is %lld; dims must be positive", mt->name, d, mt->dims[d],
				      (long long)v);
				goto out;
			}
			if (b->tshape_rank[t] && b->tshape[t][d] != v) {
				pfail(err, "tensor %s: dim %d is %lld, but %s = %lld", mt->name, d,
				      (long long)b->tshape[t][d], mt->dims[d], (long long)v);
				goto out;
			}
			p->tdims[t][d] = v;
		}
	}
	rc = 0;
out:
	free(set);
	free(from);
	return rc;
}

/* "int32"'s names: a shape symbol, else an integer param the caller
 * gave, its value as the kernel reads it (plk_resolve's pval). */
typedef struct IntLook { const plk_manifest *m; const plk_plan *p; } IntLook;

static int int_look(void *ctx, const char *name, size_t len, int64_t *v)
{
	const IntLook *il = ctx;
	Look l = { il->m, il->p->sym, 0 };
	if (!look(&l, name, len, v))
		return 0;
	int i = plk_manifest_int_param(il->m, name, len);
	if (i < 0)
		return -1;
	if (il->m->params[i].kind == PK_I64) {
		memcpy(v, &il->p->pval[i], 8);
	} else {   /* i32: its low 4 bytes, signed */
		int32_t x;
		uint32_t u = (uint32_t)il->p->pval[i];
		memcpy(&x, &u, 4);
		*v = x;
	}
	return 0;
}

/* "kernel k computes EXPR in 32-bit int, and here WHAT (A = 1, B = 2)":
 * the evaluator's message without its "in EXPR: ", then each name's
 * value, once. */
typedef struct IntVals {
	IntLook *il;
	struct { const char *s; size_t len; } seen[16];   /* the names listed: slices of EXPR */
	int nseen;
	char buf[160];
	size_t n;
} IntVals;

static void int_val(void *ctx, const char *name, size_t len)
{
	IntVals *iv = ctx;
	int64_t v;
	for (int i = 0; i < iv->nseen; i++)
		if (iv->seen[i].len == len && !memcmp(iv->seen[i].s, name, len))
			return;
	if (iv->nseen == (int)(sizeof iv->seen / sizeof iv->seen[0]) || int_look(iv->il, name, len, &v))
		return;
	iv->seen[iv->nseen].s = name;
	iv->seen[iv->nseen++].len = len;
	int k = snprintf(iv->buf + iv->n, sizeof iv->buf - iv->n, "%s%.*s = %lld", iv->n ? ", " : "", (int)len, name,
	                 (long long)v);
	if (k > 0 && iv->n + (size_t)k < sizeof iv->buf)
		iv->n += (size_t)k;
	else
		iv->buf[iv->n] = 0;   /* what does not fit is left out whole */
}

static int int_fail(IntLook *il, const char *expr, const char *e, char *err, int bits)
{
	size_t n = strlen(expr);   /* e is "in \"EXPR\": WHAT" (expr.c, efail) */
	const char *what = !strncmp(e, "in \"", 4) && !strncmp(e + 4, expr, n) && !strncmp(e + 4 + n, "\": ", 3)
	                 ? e + 4 + n + 3 : e;
	IntVals iv = { .il = il };
	char ne[PLK_ERRLEN];
	(void)plk_expr_names(expr, int_val, &iv, ne);
	return pfail(err, "kernel %s computes %s in %s, and here %s%s%s%s", il->m->entry, expr,
	             bits == 64 ? "64-bit long long" : "32-bit int", what, iv.n ? " (" : "", iv.buf, iv.n ? ")" : "");
}

/* Each of xs as the kernel computes it, in its int of `bits` (32, 64):
 * 0 when every value along the way fits, else int_fail's refusal. */
static int ints_fit(IntLook *il, char *const *xs, int n, int bits, char *err)
{
	char e[PLK_ERRLEN];
	for (int i = 0; i < n; i++) {
		int64_t v;
		if ((bits == 64 ? plk_expr_eval64 : plk_expr_eval32)(xs[i], int_look, il, &v, e))
			return int_fail(il, xs[i], e, err, bits);
	}
	return 0;
}

int plk_resolve(const plk_manifest *m, const plk_binding *b, plk_plan *p, char *err)
{
	char e[PLK_ERRLEN];
	if (plk_resolve_shapes(m, b, p, err))
		return -1;
	Look l = { m, p->sym, p->sms };
	p->ws_bytes = -1;
	p->ws_param = -1;
	for (int i = 0; i < m->nparams; i++) {
		const plk_mparam *mp = &m->params[i];
		p->pval[i] = 0;
		if (mp->kind == PK_WORKSPACE) {   /* its pointer: the caller's (plkrt.c) */
			if (plk_expr_eval(mp->dim, look, &l, &p->ws_bytes, e)) {
				pfail(err, "parameter %s: %s", mp->name, e);
				return -1;
			}
			p->ws_zero = p->ws_bytes;
			if (mp->zero && plk_expr_eval32(mp->zero, look, &l, &p->ws_zero, e)) {
				pfail(err, "parameter %s: %s", mp->name, e);
				return -1;
			}
			if (p->ws_bytes < 0 || p->ws_zero < 0 || p->ws_zero > p->ws_bytes) {
				pfail(err, "parameter %s: %s = %lld bytes, of which %lld zeroed", mp->name, mp->dim,
				      (long long)p->ws_bytes, (long long)p->ws_zero);
				return -1;
			}
			p->ws_param = i;
			continue;
		}
		if (mp->tensor >= 0) {
			const plk_mtensor *mt = &m->tensors[mp->tensor];
			if (!b->tptr[mp->tensor]) {
				pfail(err, "tensor %s has no device pointer (parameter %s)", mt->name, mp->name);
				return -1;
			}
			if (mp->kind == PK_PTR) {
				p->pval[i] = b->tptr[mp->tensor];
				continue;
			}
			if (plk_tmap_compute(mt->dtype, mt->elem_bytes, p->tdims[mp->tensor], mt->rank,
			                     b->tptr[mp->tensor], mp->box, mp->box_rank, mp->swizzle, &p->tmap[i], e)) {
				pfail(err, "parameter %s (tensor map of %s): %s", mp->name, mt->name, e);
				return -1;
			}
			continue;
		}
		int64_t v;
		double f;
		if (mp->dim) {
			if (plk_expr_eval(mp->dim, look, &l, &v, e)) {
				pfail(err, "parameter %s: %s", mp->name, e);
				return -1;
			}
			f = (double)v;
		} else if (mp->top >= 0 && b->pval_set[mp->top]) {
			p->pval[i] = b->pval[mp->top];
			continue;
		} else {
			pfail(err, "parameter %s (%s) has no value", mp->name, plk_pkind_name(mp->kind));
			return -1;
		}
		switch (mp->kind) {
		case PK_I32:
			if (v < INT32_MIN || v > INT32_MAX) {
				pfail(err, "parameter %s: %s = %lld does not fit i32", mp->name, mp->dim, (long long)v);
				return -1;
			}
			{ int32_t x = (int32_t)v; uint32_t u; memcpy(&u, &x, 4); p->pval[i] = u; }
			break;
		case PK_I64:
			memcpy(&p->pval[i], &v, 8);
			break;
		case PK_F32:
			{ float x = (float)f; uint32_t u; memcpy(&u, &x, 4); p->pval[i] = u; }
			break;
		default:
			break;
		}
	}
	IntLook il = { m, p };
	/* what else the kernel computes in its 32-bit int, and in its long long */
	return ints_fit(&il, m->ints, m->nints, 32, err) || ints_fit(&il, m->ints64, m->nints64, 64, err) ? -1 : 0;
}

int plk_work_items(const plk_manifest *m, const int64_t *sym, int64_t *work, char *err)
{
	char e[PLK_ERRLEN];
	Look l = { m, sym, 0 };
	int64_t w = 1;
	for (int i = 0; i < m->ntiles; i++) {
		int64_t v;
		if (plk_expr_eval32(m->tiles[i].expr, look, &l, &v, e))
			return pfail(err, "grid tiles[%d]: %s", i, e);
		if (v <= 0)
			return pfail(err, "grid tiles[%d]: %s = %lld; must be positive", i, m->tiles[i].expr, (long long)v);
		int64_t n = v / m->tiles[i].tile + (v % m->tiles[i].tile != 0);
		/* A cluster takes its tiles together, cluster[0] tile rows by
		 * cluster[1] columns (the glue's pairs and quads): whole clusters
		 * of them, or the last, partial one would have no block. */
		if (i < 2 && m->cluster[i] > 1)
			n = (n + m->cluster[i] - 1) / m->cluster[i] * m->cluster[i];
		if (__builtin_mul_overflow(w, n, &w))
			return pfail(err, "grid: work items overflow");
		/* raster grouped: the kernel counts a group's items, group x the
		 * tile columns, in its int too */
		if (i == 1 && m->raster && !strcmp(m->raster, "grouped") && m->group * n > INT32_MAX)
			return pfail(err, "grid: raster groups of %lld x %lld tiles; a kernel counts at most %d", (long long)m->group,
			             (long long)n, INT32_MAX);
	}
	if (m->split) {   /* split K: each tile is that many work items */
		int64_t v;
		if (plk_expr_eval32(m->split, look, &l, &v, e))
			return pfail(err, "grid split: %s", e);
		if (v < 1)
			return pfail(err, "grid split: %s = %lld; must be positive", m->split, (long long)v);
		if (__builtin_mul_overflow(w, v, &w))
			return pfail(err, "grid: work items overflow");
	}
	if (w > INT32_MAX)   /* the kernel counts its tiles and items in 32 bits (the glue's C int) */
		return pfail(err, "grid: %lld work items; a kernel counts at most %d", (long long)w, INT32_MAX);
	*work = w;
	return 0;
}

int plk_grid(const plk_manifest *m, int64_t work, int64_t capacity, unsigned grid[3], char *err)
{
	int64_t cx = m->cluster[0], cy = m->cluster[1], cz = m->cluster[2], cs = cx * cy * cz;
	int64_t blocks = work;
	if (work < 1)
		return pfail(err, "grid: %lld work items", (long long)work);
	if (m->policy == GRID_PERSISTENT) {
		if (capacity < cs)
			return pfail(err, "grid: persistent launch with room for %lld blocks, fewer than one cluster (%lld)",
			             (long long)capacity, (long long)cs);
		if (blocks > capacity)
			blocks = capacity / cs * cs;   /* whole clusters that fit */
	}
	int64_t clusters = (blocks + cs - 1) / cs;
	if (clusters * cx > INT32_MAX)
		return pfail(err, "grid: %lld blocks exceed the grid limit", (long long)(clusters * cs));
	/* a persistent block steps its item t by the grid (times at most 4
	 * pingpong lanes) in 32-bit int: past its last item, t must not wrap */
	if (m->policy == GRID_PERSISTENT && work > INT32_MAX - 4 * clusters * cs)
		return pfail(err, "grid: %lld work items; a persistent kernel of %lld blocks steps past %d", (long long)work,
		             (long long)(clusters * cs), INT32_MAX);
	grid[0] = (unsigned)(clusters * cx);
	grid[1] = (unsigned)cy;
	grid[2] = (unsigned)cz;
	return 0;
}

int plk_tmap_dtype(const char *d, int eb)
{
	static const struct { const char *n; int t; } tab[] = {
		{ "bf16", CU_TENSOR_MAP_DATA_TYPE_BFLOAT16 }, { "f16", CU_TENSOR_MAP_DATA_TYPE_FLOAT16 },
		{ "f32", CU_TENSOR_MAP_DATA_TYPE_FLOAT32 }, { "tf32", CU_TENSOR_MAP_DATA_TYPE_TFLOAT32 },
		{ "f64", CU_TENSOR_MAP_DATA_TYPE_FLOAT64 }, { "i32", CU_TENSOR_MAP_DATA_TYPE_INT32 },
		{ "u32", CU_TENSOR_MAP_DATA_TYPE_UINT32 }, { "i64", CU_TENSOR_MAP_DATA_TYPE_INT64 },
		{ "u64", CU_TENSOR_MAP_DATA_TYPE_UINT64 }, { "u16", CU_TENSOR_MAP_DATA_TYPE_UINT16 },
		{ "i16", CU_TENSOR_MAP_DATA_TYPE_UINT16 }, { "u8", CU_TENSOR_MAP_DATA_TYPE_UINT8 },
		{ "i8", CU_TENSOR_MAP_DATA_TYPE_UINT8 },
	};
	for (size_t i = 0; i < sizeof tab / sizeof tab[0]; i++)
		if (!strcmp(tab[i].n, d))
			return tab[i].t;
	/* TMA only moves bytes: other 1-byte types (fp8) travel as UINT8. */
	return eb == 1 ? CU_TENSOR_MAP_DATA_TYPE_UINT8 : -1;
}

int plk_tmap_compute(const char *dtype, int eb, const int64_t *dims, int rank, uint64_t addr,
                     const uint32_t *box, int box_rank, int swz, plk_tmap_args *o, char *err)
{
	memset(o, 0, sizeof *o);
	if (rank < 1 || rank > PLK_TMAP_MAX_RANK)
		return pfail(err, "rank %d; tensor maps take 1 to %d", rank, PLK_TMAP_MAX_RANK);
	if (box_rank != rank)
		return pfail(err, "box has %d entries for a rank-%d tensor", box_rank, rank);
	if ((o->dtype = plk_tmap_dtype(dtype, eb)) < 0)
		return pfail(err, "dtype %s has no tensor-map data type", dtype);
	if (addr % 16)
		return pfail(err, "address 0x%llx is not 16-byte aligned", (unsigned long long)addr);
	o->rank = (uint32_t)rank;
	o->addr = addr;
	uint64_t stride = (uint64_t)eb;
	for (int i = 0; i < rank; i++) {
		int64_t d = dims[rank - 1 - i];   /* innermost first */
		if (d < 1 || d > (1LL << 32))
			return pfail(err, "dim %d is %lld; must be 1..2^32", rank - 1 - i, (long long)d);
		o->dim[i] = (uint64_t)d;
		if (i > 0) {
			if (stride % 16)
				return pfail(err, "row stride of dim %d is %llu bytes, not a multiple of 16 (the inner dims "
				             "must span a multiple of 16 bytes)", rank - 1 - i, (unsigned long long)stride);
			if (stride >= (1ULL << 40))
				return pfail(err, "stride of dim %d is %llu bytes, over 2^40", rank - 1 - i,
				             (unsigned long long)stride);
			o->stride[i - 1] = stride;
		}
		if (__builtin_mul_overflow(stride, (uint64_t)d, &stride))
			return pfail(err, "tensor size overflows");
		if (box[i] < 1 || box[i] > 256)
			return pfail(err, "box[%d] is %u; must be 1..256", i, box[i]);
		o->box[i] = box[i];
		o->estride[i] = 1;
	}
	uint64_t inner = (uint64_t)box[0] * (uint64_t)eb;
	if (inner % 16)
		return pfail(err, "box[0] spans %llu bytes, not a multiple of 16", (unsigned long long)inner);
	switch (swz) {
	case 0: o->swizzle = CU_TENSOR_MAP_SWIZZLE_NONE; break;
	case 32: o->swizzle = CU_TENSOR_MAP_SWIZZLE_32B; break;
	case 64: o->swizzle = CU_TENSOR_MAP_SWIZZLE_64B; break;
	case 128: o->swizzle = CU_TENSOR_MAP_SWIZZLE_128B; break;
	default: return pfail(err, "swizzle of %d bytes", swz);
	}
	if (swz && inner > (uint64_t)swz)
		return pfail(err, "box[0] spans %llu bytes, more than the %d-byte swizzle allows",
		             (unsigned long long)inner, swz);
	/* 256-byte L2 promotion for wide rows, as tuned GEMMs use; the cache
	 * line for narrow ones. */
	o->l2promo = inner >= 128 ? CU_TENSOR_MAP_L2_PROMOTION_L2_256B : CU_TENSOR_MAP_L2_PROMOTION_L2_128B;
	return 0;
}

int plk_binding_tensor(const plk_manifest *m, plk_binding *b, const char *name, uint64_t ptr,
                       const int64_t *shape, int rank, char *err)
{
	int t = plk_manifest_tensor(m, name);
	if (t < 0)
		return pfail(err, "kernel %s has no tensor %s", m->kernel, name);
	if (rank < 0 || rank > PLK_MAX_RANK || (rank && !shape))
		return pfail(err, "tensor %s: bad shape (rank %d)", name, rank);
	b->tptr[t] = ptr;
	b->tshape_rank[t] = shape ? rank : 0;
	for (int d = 0; shape && d < rank; d++)
		b->tshape[t][d] = shape[d];
	return 0;
}

int plk_binding_dim(const plk_manifest *m, plk_binding *b, const char *sym, int64_t v, char *err)
{
	int s = plk_manifest_sym(m, sym);
	if (s < 0)
		return pfail(err, "kernel %s has no shape symbol %s", m->kernel, sym);
	b->sym[s] = v;
	b->sym_set[s] = 1;
	return 0;
}

/* A parameter that takes its value by name: no tensor, no dim. */
static int free_param(const plk_manifest *m, const char *param, char *err)
{
	int i = plk_manifest_param(m, param);
	if (i < 0)
		return pfail(err, "kernel %s has no parameter %s", m->kernel, param), -1;
	if (m->params[i].tensor >= 0)
		return pfail(err, "parameter %s comes from tensor %s; bind the tensor", param,
		             m->tensors[m->params[i].tensor].name), -1;
	if (m->params[i].dim)
		return pfail(err, "parameter %s carries %s; bind that symbol", param, m->params[i].dim), -1;
	return i;
}

int plk_binding_ptr(const plk_manifest *m, plk_binding *b, const char *param, uint64_t ptr, char *err)
{
	int i = free_param(m, param, err);
	if (i < 0)
		return -1;
	if (m->params[i].kind != PK_PTR)
		return pfail(err, "parameter %s is %s, not ptr", param, plk_pkind_name(m->params[i].kind));
	b->pval[i] = ptr;
	b->pval_set[i] = 1;
	return 0;
}

int plk_binding_int(const plk_manifest *m, plk_binding *b, const char *param, int64_t v, char *err)
{
	int i = free_param(m, param, err);
	if (i < 0)
		return -1;
	plk_pkind k = m->params[i].kind;
	if (k == PK_F32)
		return plk_binding_float(m, b, param, (double)v, err);
	if (k != PK_I32 && k != PK_I64)
		return pfail(err, "parameter %s is %s, not an integer", param, plk_pkind_name(k));
	if (k == PK_I32 && (v < INT32_MIN || v > INT32_MAX))
		return pfail(err, "parameter %s: %lld does not fit i32", param, (long long)v);
	if (k == PK_I32) {
		int32_t x = (int32_t)v;
		uint32_t u;
		memcpy(&u, &x, 4);
		b->pval[i] = u;
	} else {
		memcpy(&b->pval[i], &v, 8);
	}
	b->pval_set[i] = 1;
	return 0;
}

int plk_binding_float(const plk_manifest *m, plk_binding *b, const char *param, double v, char *err)
{
	int i = free_param(m, param, err);
	if (i < 0)
		return -1;
	if (m->params[i].kind != PK_F32)
		return pfail(err, "parameter %s is %s, not f32", param, plk_pkind_name(m->params[i].kind));
	float x = (float)v;
	uint32_t u;
	memcpy(&u, &x, 4);
	b->pval[i] = u;
	b->pval_set[i] = 1;
	return 0;
}
