/* mega.c: a megakernel checked and scheduled (docs/megakernel.md).
 *
 * A megakernel is a program of ops; each op runs a kernel of the file over
 * the megakernel's tensors (its parameters and its buffers). The order of
 * the ops is their dataflow: an op that reads a tensor (or a slice of one)
 * waits for the op that writes it, whatever their order in the file. Every
 * op's pieces (its kernel's work items) are given to the blocks of one
 * persistent grid, round robin in that order, and each piece waits on the
 * counters of the ops it reads from.
 *
 *   expand    `for` bodies unrolled, consts evaluated, tensors sized
 *   bind      each op's arguments against its kernel's parameters
 *   order     (mega_order.c) writers before readers, the waits
 *   fit       the block's threads and each block's consecutive pages
 *
 * Errors: E0370 unknown kernel, E0371 arguments, E0372 shapes, E0375
 * resources; the order's (E0373, E0374, E0376, E0382, E0383) in
 * mega_order.c. */
#include <stdlib.h>
#include <string.h>
#include "plk.h"

typedef struct M {
	Ctx *c;
	const Program *p;
	const Mega *mk;
	MegaPlan *mp;
	NameMap tensors;         /* MTensor*, by name */
	NameMap ops;             /* MOp*, by name */
	const MItem *grid;
	Vec placed;              /* PlacedKernel*: each kernel checked and placed once */
	int inst_base;           /* the next kernel's first instance id */
	int nparams;             /* the megakernel's params so far */
} M;

typedef struct PlacedKernel { const Kernel *k; Graph *g; Placement *pl; } PlacedKernel;

static Arena *AR(M *m) { return m->c->arena; }

/* Names in scope while expanding: the consts so far and the enclosing
 * `for` indices (Scope.up). */
typedef struct Names { const char *names[256]; int64_t vals[256]; Scope s; } Names;   /* MEGA_MAX_NAMES */

enum { MEGA_MAX_NAMES = 256, MEGA_MAX_OPS = 2048, MEGA_MAX_PIECES = 1 << 24 };
#define MEGA_MAX_TENSOR_BYTES (1ull << 48)

/* 0 ok; E0371 past MEGA_MAX_NAMES consts and indices in scope. */
static int names_add(Ctx *c, Names *n, const char *name, int64_t v, Span sp)
{
	n->s.names = n->names;
	n->s.vals = n->vals;
	if (n->s.n == MEGA_MAX_NAMES) {
		error_at(c, "E0371", sp, "more than %d consts and `for` indices in one megakernel", MEGA_MAX_NAMES);
		return -1;
	}
	n->names[n->s.n] = name;
	n->vals[n->s.n] = v;
	n->s.n++;
	return 0;
}

/* A kernel of the root file, else of a file it uses: ops may come from
 * recipes of their own. */
static const Kernel *kernel_named(const Program *p, const char *name)
{
	for (int i = 0; i < p->kernels.n; i++)
		if (!strcmp(((const Kernel *)p->kernels.v[i])->name, name))
			return p->kernels.v[i];
	for (int i = 0; i < p->modules.n; i++) {
		const Module *md = p->modules.v[i];
		for (int j = 0; j < md->kernels.n; j++)
			if (!strcmp(((const Kernel *)md->kernels.v[j])->name, name))
				return md->kernels.v[j];
	}
	return NULL;
}

static int runs_kernel(const Vec *items, const char *kernel)
{
	for (int i = 0; i < items->n; i++) {
		const MItem *it = items->v[i];
		if ((it->k == MI_OP && !strcmp(it->kernel, kernel)) || (it->k == MI_FOR && runs_kernel(&it->body, kernel)))
			return 1;
	}
	return 0;
}

int kernel_is_op(const Program *p, const Kernel *k)
{
	for (int i = 0; i < p->megas.n; i++)
		if (runs_kernel(&((const Mega *)p->megas.v[i])->items, k->name))
			return 1;
	return 0;
}

/* ------------------------------------------------------------ expand */

/* A tensor of the megakernel: every dimension a const (the schedule is
 * made at link time); E0372 otherwise. */
static void add_tensor(M *m, const char *name, const Type *ty, Span sp, int buffer, const Scope *s)
{
	if (namemap_get(&m->tensors, name) || namemap_get(&m->ops, name)) {
		error_at(m->c, "E0371", sp, "`%s` is declared twice in megakernel `%s`", name, m->mk->name);
		return;
	}
	MTensor *t = arena_alloc(AR(m), sizeof *t);
	t->name = name;
	t->ty = ty;
	t->sp = sp;
	t->buffer = buffer;
	t->param = buffer ? -1 : m->nparams++;
	const DtypeInfo *dt = ty->dtype ? dtype_lookup(ty->dtype) : NULL;
	t->elem_bytes = dt ? (dt->bits + 7) / 8 : 0;
	t->rank = ty->dims.n;
	if (t->rank > 8) {
		error_at(m->c, "E0372", sp, "`%s` has %d dimensions: a megakernel's tensors have at most 8", name, t->rank);
		return;
	}
	for (int i = 0; i < ty->dims.n; i++) {
		const Expr *e = ty->dims.v[i];
		int known = e->k != EX_NAME;
		for (int j = 0; !known && j < s->n; j++)
			known = !strcmp(s->names[j], e->name);
		if (!known) {
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0372", e->sp,
			                   "dimension `%s` of `%s` is not a constant", e->name, name);
			d->primary.msg = "not a `const` of the megakernel";
			diag_note(d, "a megakernel's schedule is made when it is linked, from its tensors' sizes");
			diag_help(d, "give it a value before the tensors' uses: `const %s = ...`", e->name);
			diag_end(m->c, d);
			return;
		}
		if (eval_expr(m->c, e, s, &t->dims[i]))
			return;
		if (t->dims[i] < 1) {
			error_at(m->c, "E0372", e->sp, "dimension %d of `%s` is %lld: sizes are positive", i, name,
			         (long long)t->dims[i]);
			return;
		}
	}
	if (ty->k != TY_TENSOR && ty->k != TY_SCALAR && ty->k != TY_PTR) {
		error_at(m->c, "E0372", sp, "`%s` of a megakernel is a tensor, a pointer or a scalar", name);
		return;
	}
	int sk = ty->k == TY_SCALAR ? scalar_kind(ty->dtype) : KP_PTR;
	if (sk < 0) {   /* the entry and the manifest pass it as this kind */
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0333", ty->sp, "a megakernel scalar cannot be %s",
		                   ty->dtype ? ty->dtype : "untyped");
		d->primary.msg = "not a parameter kind";
		diag_help(d, "scalars are i32, u32, i64, u64 or f32");
		diag_end(m->c, d);
		return;
	}
	t->kind = (KParamKind)sk;
	/* its bytes, which slices' offsets and the buffers' layout are made
	 * of: at most MEGA_MAX_TENSOR_BYTES, so that no sum or product of
	 * them wraps (a wrapped size gave a buffer 0 bytes) */
	uint64_t bytes = (uint64_t)t->elem_bytes;
	for (int i = 0; i < t->rank; i++) {
		if (bytes && (uint64_t)t->dims[i] > MEGA_MAX_TENSOR_BYTES / bytes) {
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0372", ty->sp, "`%s` is larger than a megakernel's tensor "
			                   "can be", name);
			d->primary.msg = arena_printf(AR(m), "more than 2^48 bytes from dimension %d on", i);
			diag_note(d, "a megakernel's tensors and buffers hold at most 2^48 bytes (256 TiB) each");
			diag_help(d, "check the sizes of `%s`", name);
			diag_end(m->c, d);
			bytes = 0;   /* declared all the same: its uses report nothing more */
			break;
		}
		bytes *= (uint64_t)t->dims[i];
	}
	t->bytes = bytes;
	t->slice_bytes = t->rank ? bytes / (uint64_t)t->dims[0] : bytes;
	if (buffer) {   /* 256-aligned, after the ones before */
		t->off = m->mp->buf_bytes;
		m->mp->buf_bytes += (bytes + 255) & ~(uint64_t)255;
	}
	namemap_put(AR(m), &m->tensors, name, t);
	vec_push(AR(m), &m->mp->tensors, t);
}

static void bind_op(M *m, const MItem *it, const char *name, const Scope *s);

static void expand(M *m, const Vec *items, Names *n, const char *suffix)
{
	for (int i = 0; i < items->n; i++) {
		const MItem *it = items->v[i];
		int64_t v;
		switch (it->k) {
		case MI_CONST:    /* the top level's are evaluated first (mega_check) */
			if (suffix && !eval_expr(m->c, it->val, &n->s, &v))
				names_add(m->c, n, it->name, v, it->name_sp);
			break;
		case MI_BUFFER:
			if (suffix) {
				error_at(m->c, "E0371", it->sp, "a `buffer` is declared outside any `for`");
				break;
			}
			if (it->ty->k != TY_TENSOR) {
				error_at(m->c, "E0372", it->ty->sp, "buffer `%s` must be a `tensor<...>[...]`", it->name);
				break;
			}
			add_tensor(m, it->name, it->ty, it->name_sp, 1, &n->s);
			break;
		case MI_GRID:
			if (strcmp(it->name, "blocks")) {
				Diag *d = diag_new(m->c, DIAG_ERROR, "E0371", it->name_sp,
				                   "a megakernel's grid is `blocks(N)`, not `%s`", it->name);
				diag_help(d, "write `grid blocks(132)`: one block per SM of the GPU it runs on");
				diag_end(m->c, d);
			} else if (m->grid || suffix)
				error_at(m->c, "E0371", it->sp, "`grid blocks` is given once, outside any `for`");
			else if (!eval_expr(m->c, it->val, &n->s, &v)) {
				if (v < 1 || v > 4096)
					error_at(m->c, "E0371", it->val->sp, "%lld blocks: give 1 to 4096", (long long)v);
				m->grid = it;
				m->mp->blocks = v;
			}
			break;
		case MI_OP:
			bind_op(m, it, suffix ? arena_printf(AR(m), "%s%s", it->name, suffix) : it->name, &n->s);
			break;
		case MI_FOR: {
			if (eval_expr(m->c, it->val, &n->s, &v))
				break;
			if (v < 0 || v > 1024) {
				error_at(m->c, "E0371", it->val->sp, "a `for` over %lld indices: give 0 to 1024", (long long)v);
				break;
			}
			for (int64_t j = 0; j < v && !m->c->nerrors; j++) {
				Names inner = *n;
				if (names_add(m->c, &inner, it->name, j, it->name_sp))
					break;
				expand(m, &it->body, &inner,
				       arena_printf(AR(m), "%s[%lld]", suffix ? suffix : "", (long long)j));
			}
			break;
		}
		}
	}
}

/* -------------------------------------------------------------- bind */

static PlacedKernel *placed(M *m, const Kernel *k)
{
	for (int i = 0; i < m->placed.n; i++) {
		PlacedKernel *pk = m->placed.v[i];
		if (pk->k == k)
			return pk->pl ? pk : NULL;
	}
	PlacedKernel *pk = arena_alloc(AR(m), sizeof *pk);
	pk->k = k;
	vec_push(AR(m), &m->placed, pk);
	int before = m->c->nerrors;
	pk->g = check_kernel(m->c, m->p, k, m->mp->arch);
	if (pk->g && m->c->nerrors == before) {
		pk->g->inst_base = m->inst_base;   /* one cubin: the kernels' instance ids apart */
		m->inst_base += graph_ids(pk->g);
		pk->pl = place(m->c, pk->g);
	}
	if (m->c->nerrors != before)
		pk->pl = NULL;
	if (pk->pl)
		vec_push(AR(m), &m->mp->kernels, pk->pl);
	return pk->pl ? pk : NULL;
}

/* How kernel g touches its tensor parameter `name`: read only when it is
 * declared `const` (check_bind holds its components to that, E0378) or
 * every component param bound to it is a `ptr<const T>`; 0: only its
 * sizes are read. */
static int kernel_access(const Graph *g, const KParam *kp)
{
	if (kp->ty->readonly)
		return ACC_READ;
	int acc = 0;
	for (int i = 0; i < g->insts.n; i++) {
		const GInst *gi = g->insts.v[i];
		for (int j = 0; j < gi->binds.n; j++) {
			const GBind *b = gi->binds.v[j];
			const GKParam *gk = b->kparam >= 0 ? g->kparams.v[b->kparam] : NULL;
			if (!gk || gk->dim || strcmp(gk->tensor ? gk->tensor : gk->name, kp->name))
				continue;   /* a tensor's params name it; a pointer's is named alike */
			int ro = b->decl && b->decl->ty->k == TY_PTR && b->decl->ty->readonly;
			acc |= ro ? ACC_READ : ACC_READ | ACC_WRITE;
		}
	}
	return acc;
}

static const OpArg *op_arg(const MItem *it, const char *name)
{
	for (int i = 0; i < it->args.n; i++)
		if (!strcmp(((const OpArg *)it->args.v[i])->name, name))
			return it->args.v[i];
	return NULL;
}

/* The names a scalar argument may use: consts, `for` indices, the
 * megakernel's scalar parameters. E0371 for another; E0324 for a
 * function but ceil_div, min and max of two. *fl: the first name that
 * reads an f32 scalar (check_scalar_kind), else left as it is. */
static int check_scalar_names(M *m, const Expr *e, const Scope *s, const Expr **fl)
{
	if (!e)
		return 0;
	if (e->k == EX_CALL && !builtin_call(e))
		return eval_expr(m->c, e, NULL, &(int64_t){ 0 }) != 0;   /* its E0324, as for a constant */
	if (e->k == EX_NAME) {
		int64_t v;
		if (scope_lookup(s, e->name, &v))
			return 0;
		const MTensor *t = namemap_get(&m->tensors, e->name);
		if (t && t->ty->k == TY_SCALAR) {
			if (t->kind == KP_F32 && !*fl)
				*fl = e;
			return 0;
		}
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0371", e->sp, "`%s` is not a scalar of megakernel `%s`", e->name,
		                   m->mk->name);
		d->primary.msg = t ? "a tensor, where a number is needed" : "unknown name";
		diag_help(d, "a scalar argument is an expression over consts, `for` indices and scalar parameters");
		diag_end(m->c, d);
		return 1;
	}
	int bad = check_scalar_names(m, e->a, s, fl) | check_scalar_names(m, e->b, s, fl);
	for (int i = 0; i < e->args.n; i++)
		bad |= check_scalar_names(m, e->args.v[i], s, fl);
	return bad;
}

/* Kernel dims bound so far: symbol -> size, and where it was bound. */
typedef struct Dims { const char *names[64]; int64_t vals[64]; Span at[64]; int n; } Dims;

/* Tensor argument `a` (or the megakernel tensor of kp's name) for kernel
 * param kp: dtype, rank and sizes (E0372); appends the use. */
static void bind_tensor(M *m, MOp *op, const KParam *kp, const OpArg *a, const Scope *s, Dims *dims, int acc)
{
	const char *tname = a ? a->val->name : kp->name;
	Span at = a ? a->sp : op->decl->sp;
	if (a && a->val->k != EX_NAME) {
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0371", a->val->sp, "`%s` of kernel `%s` takes a tensor", kp->name,
		                   op->k->name);
		d->primary.msg = "an expression, where a tensor is needed";
		diag_label(d, kp->sp, "`%s` declared here", kp->name);
		diag_end(m->c, d);
		return;
	}
	const MTensor *t = namemap_get(&m->tensors, tname);
	if (!t || t->ty->k == TY_SCALAR) {
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0371", a ? a->val->sp : op->decl->sp,
		                   a ? "megakernel `%s` has no tensor `%s`" : "`%s` of kernel `%s` is not bound",
		                   a ? m->mk->name : kp->name, a ? tname : op->k->name);
		d->primary.msg = a ? "unknown tensor" : arena_printf(AR(m), "no `%s = ...` here", kp->name);
		diag_label(d, kp->sp, "`%s` declared here", kp->name);
		const char **cands = arena_alloc(AR(m), (m->mp->tensors.n + 1) * sizeof *cands);
		int nc = 0;
		for (int i = 0; i < m->mp->tensors.n; i++)
			if (((const MTensor *)m->mp->tensors.v[i])->ty->k != TY_SCALAR)
				cands[nc++] = ((const MTensor *)m->mp->tensors.v[i])->name;
		if (a)
			help_similar(d, tname, cands, nc, "tensors");
		else
			diag_help(d, "bind it: `op %s = %s(%s = TENSOR)`", op->decl->name, op->k->name, kp->name);
		diag_end(m->c, d);
		return;
	}
	int64_t index = -1;
	int rank = t->rank, first = 0;
	if (a && a->index) {
		if (eval_expr(m->c, a->index, s, &index))
			return;
		if (t->rank < 2 || index < 0 || index >= t->dims[0]) {
			Diag *d = t->rank < 2
			        ? diag_new(m->c, DIAG_ERROR, "E0372", a->index->sp,
			                   "`%s` has one dimension: a slice of it would have none", t->name)
			        : diag_new(m->c, DIAG_ERROR, "E0372", a->index->sp, "slice %lld of `%s`, whose first dimension is %lld",
			                   (long long)index, t->name, (long long)t->dims[0]);
			d->primary.msg = t->rank < 2 ? "a slice of a vector" : "out of range";
			diag_label(d, t->sp, "`%s` declared here", t->name);
			diag_end(m->c, d);
			return;
		}
		rank--, first = 1;
	}
	const Type *kt = kp->ty;
	if (strcmp(kt->dtype, t->ty->dtype) || (kt->k == TY_TENSOR && rank != kt->dims.n)) {
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0372", at, "`%s` does not match `%s` of kernel `%s`",
		                   a && a->index ? arena_printf(AR(m), "%s[...]", t->name) : t->name, kp->name, op->k->name);
		d->primary.msg = arena_printf(AR(m), "%s with %d dimension%s", t->ty->dtype, rank, rank == 1 ? "" : "s");
		diag_label(d, kp->sp, kt->k == TY_TENSOR ? "%s with %d dimension%s" : "a pointer to %s", kt->dtype,
		           kt->dims.n, kt->dims.n == 1 ? "" : "s");
		diag_label(d, t->sp, "`%s` declared here", t->name);
		diag_end(m->c, d);
		return;
	}
	for (int i = 0; kt->k == TY_TENSOR && i < kt->dims.n; i++) {
		const Expr *e = kt->dims.v[i];
		int64_t v = t->dims[first + i];
		if (e->k != EX_NAME) {
			int64_t want;
			if (eval_expr(m->c, e, NULL, &want))
				return;
			if (want != v) {
				error_at(m->c, "E0372", at, "dimension %d of `%s` is %lld, kernel `%s` wants %lld", i, t->name,
				         (long long)v, op->k->name, (long long)want);
				return;
			}
			continue;
		}
		const Graph *g = op->pl->g;   /* a kernel const (`const D = 2048`): its value */
		int kc = 0;
		while (kc < g->consts.n && strcmp(((const Const *)g->consts.v[kc])->name, e->name))
			kc++;
		if (kc < g->consts.n) {
			if (g->constvals[kc] != v) {
				Diag *d = diag_new(m->c, DIAG_ERROR, "E0372", at, "dimension %d of `%s` is %lld, but kernel `%s` has "
				                   "`%s` = %lld", first + i, t->name, (long long)v, op->k->name, e->name,
				                   (long long)g->constvals[kc]);
				d->primary.msg = "bound here";
				diag_label(d, ((const Const *)g->consts.v[kc])->sp, "`%s` set here", e->name);
				diag_end(m->c, d);
				return;
			}
			continue;
		}
		int j = 0;
		while (j < dims->n && strcmp(dims->names[j], e->name))
			j++;
		if (j < dims->n && dims->vals[j] != v) {
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0372", at, "`%s` is %lld here but %lld in another argument of op `%s`",
			                   e->name, (long long)v, (long long)dims->vals[j], op->name);
			d->primary.msg = arena_printf(AR(m), "`%s` is %lld here", e->name, (long long)v);
			diag_label(d, dims->at[j], "`%s` is %lld here", e->name, (long long)dims->vals[j]);
			diag_label(d, kp->sp, "kernel `%s` names the sizes alike", op->k->name);
			diag_end(m->c, d);
			return;
		}
		if (j == dims->n && j < 64) {
			dims->names[j] = e->name;
			dims->vals[j] = v;
			dims->at[j] = at;
			dims->n++;
		}
	}
	MUse *u = arena_alloc(AR(m), sizeof *u);
	u->param = kp->name;
	u->t = t;
	u->index = index;
	u->access = acc;
	u->sp = at;
	vec_push(AR(m), &op->uses, u);
}

/* The op's pieces: its kernel's work items (`grid tiles(R, C)`, else one)
 * at the sizes its arguments give; E0372 unless each factor is positive
 * and their product at most MEGA_MAX_PIECES (the entry's piece indices
 * and counter targets are 32-bit). */
static int op_pieces(M *m, MOp *op, const Graph *g, const Dims *dims)
{
	const char *names[128];
	int64_t vals[128];
	int n = 0;
	for (int i = 0; i < g->consts.n && n < 64; i++, n++) {
		names[n] = ((const Const *)g->consts.v[i])->name;
		vals[n] = g->constvals[i];
	}
	for (int i = 0; i < dims->n; i++, n++) {
		names[n] = dims->names[i];
		vals[n] = dims->vals[i];
	}
	Scope s = { names, vals, n, NULL };
	for (int i = 0; i < op->k->requires.n; i++) {   /* the kernel's `require`, at the op's shapes */
		const Require *r = op->k->requires.v[i];
		const Expr *dev = require_find_device_name(r);
		if (dev) {   /* the device's values are no link-time sizes */
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0372", op->decl->sp, "op `%s`'s kernel `%s` requires "
			                   "`%s`, which plkc cannot check for a megakernel", op->name, op->k->name,
			                   require_text(AR(m), r));
			d->primary.msg = "a megakernel checks its ops' `require` here, at link time";
			diag_label(d, dev->sp, "the device's `%s` is known only at launch", dev->name);
			diag_help(d, "give `%s` a `require` over its tensors' sizes and consts, or use a kernel "
			          "without this condition", op->k->name);
			diag_end(m->c, d);
			return 1;
		}
		int met = require_met(m->c, r, &s);
		if (met < 0)
			return 1;
		if (met)
			continue;
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0372", op->decl->sp, "op `%s` does not meet kernel `%s`'s "
		                   "`require %s`", op->name, op->k->name, require_text(AR(m), r));
		d->primary.msg = "at the sizes of the tensors given here";
		diag_label(d, r->sp, "`%s` requires this", op->k->name);
		diag_help(d, "give op `%s` tensors of the sizes its kernel is written for", op->name);
		diag_end(m->c, d);
		return 1;
	}
	op->pieces = 1;
	for (int i = 0; i < 2 && g->tiles[i]; i++) {
		int64_t v;
		if (eval_expr(m->c, g->tiles[i], &s, &v))
			return 1;
		if (v < 1 || v > MEGA_MAX_PIECES / op->pieces) {
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0372", op->decl->sp, "op `%s` would have %s pieces", op->name,
			                   v < 1 ? "no" : "too many");
			d->primary.msg = arena_printf(AR(m), "kernel `%s` at these shapes", op->k->name);
			diag_label(d, g->tiles[i]->sp, "%s: %lld", i ? "columns" : "rows", (long long)v);
			if (v < 1)
				diag_note(d, "an op's pieces are its kernel's work items, `grid tiles(R, C)` at the op's "
				          "shapes: R and C must be positive");
			else
				diag_note(d, "an op's pieces are its kernel's work items, `grid tiles(R, C)` at the op's "
				          "shapes: %lld x %lld here, at most %d", (long long)op->pieces, (long long)v,
				          MEGA_MAX_PIECES);
			diag_help(d, "check the sizes of the tensors op `%s` is given", op->name);
			diag_end(m->c, d);
			return 1;
		}
		op->pieces *= v;
	}
	return 0;
}

/* e as CUDA for the megakernel's entry: consts and `for` indices as
 * their values, the megakernel's scalars as its params p<i>. */
static void c_expr(M *m, FILE *o, const Expr *e, const Scope *s)
{
	switch (e->k) {
	case EX_NUM:
		fprintf(o, "%lldll", (long long)e->num);
		return;
	case EX_NAME: {
		int64_t v;
		if (scope_lookup(s, e->name, &v)) {
			fprintf(o, "%lldll", (long long)v);
			return;
		}
		/* an f32 scalar comes only alone (check_scalar_kind): as it is */
		const MTensor *t = namemap_get(&m->tensors, e->name);
		fprintf(o, t->kind == KP_F32 ? "p%d" : "(long long)p%d", t->param);
		return;
	}
	case EX_NEG:
		fputs("(-", o);
		c_expr(m, o, e->a, s);
		fputc(')', o);
		return;
	case EX_BIN:
		fputc('(', o);
		c_expr(m, o, e->a, s);
		fprintf(o, " %c ", e->op);
		c_expr(m, o, e->b, s);
		fputc(')', o);
		return;
	case EX_CALL:
		fprintf(o, "plk_mk_%s(", e->fn != FN_UNKNOWN ? builtin_name(e->fn) : e->name);
		for (int i = 0; i < e->args.n; i++) {
			fputs(i ? ", " : "", o);
			c_expr(m, o, e->args.v[i], s);
		}
		fputc(')', o);
		return;
	default:
		fputs("0", o);
	}
}

/* E0389 unless the scalar argument val (NULL: the megakernel's scalar
 * named as kp, t) suits kp: an f32 megakernel scalar passes only alone,
 * and only to an f32 parameter; an integer expression, to any. f: val's
 * first name of an f32 scalar (check_scalar_names), or NULL. */
static int check_scalar_kind(M *m, const MOp *op, const KParam *kp, const Expr *val, const Expr *f,
                             const MTensor *t)
{
	int alone = val ? f == val : t->kind == KP_F32;
	if (!f && !alone)
		return 0;
	if (alone && scalar_kind(kp->ty->dtype) == KP_F32)
		return 0;
	const char *name = f ? f->name : t->name;
	Diag *d = diag_new(m->c, DIAG_ERROR, "E0389", f ? f->sp : op->decl->sp, "parameter `%s: f32` in an integer "
	                   "expression", name);
	d->primary.msg = alone ? arena_printf(AR(m), "`%s` of kernel `%s` is %s", kp->name, op->k->name, kp->ty->dtype)
	                       : "a megakernel's scalar expressions are integers";
	diag_label(d, kp->sp, "`%s` declared here", kp->name);
	if (alone)
		diag_help(d, "pass `%s` to an f32 parameter, or give `%s` an integer (a const, an index or an integer "
		          "scalar)", name, kp->name);
	else
		diag_help(d, "an f32 scalar passes alone and to an f32 parameter (`%s = %s`, `%s` an f32)", kp->name, name,
		          kp->name);
	diag_end(m->c, d);
	return 1;
}

static const char *c_expr_str(M *m, const Expr *e, const Scope *s)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	if (!o)
		return NULL;
	c_expr(m, o, e, s);
	fclose(o);
	const char *r = arena_strdup(AR(m), buf);
	free(buf);
	return r;
}

/* In the megakernel's scope: constants and loop variables by value, its
 * scalars by name. */
static void scope_name(FILE *o, const Expr *n, const void *ud)
{
	int64_t v;
	if (scope_lookup(ud, n->name, &v))
		fprintf(o, "%lld", (long long)v);
	else
		fputs(n->name, o);
}

/* In an op kernel's terms: its consts and sizes by value, a scalar param
 * as the megakernel's expression that it is given. */
typedef struct OpNames {
	const Graph *g;
	const Dims *dims;
	const KParam **sk;
	const Expr **sval;       /* NULL: the megakernel's scalar of that name */
	int ns;
	const Scope *s;
} OpNames;

static void op_name(FILE *o, const Expr *n, const void *ud)
{
	const OpNames *on = ud;
	if (n->ref == NAME_CONST) {
		fprintf(o, "%lld", (long long)graph_constval(on->g, n));
		return;
	}
	const GKParam *kp = n->ref == NAME_KPARAM ? on->g->kparams.v[n->ref_i] : NULL;
	for (int j = 0; kp && kp->dim && j < on->dims->n; j++)   /* a size: the op's, a constant */
		if (!strcmp(on->dims->names[j], kp->dim)) {
			fprintf(o, "%lld", (long long)on->dims->vals[j]);
			return;
		}
	for (int j = 0; kp && j < on->ns; j++)   /* a scalar: what the op is given */
		if (!strcmp(on->sk[j]->name, kp->name)) {
			if (on->sval[j])   /* parenthesised when compound */
				expr_print_names(o, on->sval[j], scope_name, on->s);
			else
				fputs(kp->name, o);
			return;
		}
	fputs(n->name, o);
}

/* An expression the entry or an op's kernel computes in int or long long
 * (MegaPlan.ints, ints64: v), printed by name(): each once. */
static void add_int(M *m, Vec *v, const Expr *e, NamePrint name, const void *ud)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *o = open_memstream(&buf, &len);
	if (!o)
		return;
	expr_print_names(o, e, name, ud);
	fclose(o);
	int seen = !buf;
	for (int i = 0; i < v->n && !seen; i++)
		seen = !strcmp(v->v[i], buf);
	if (!seen)
		vec_push(AR(m), v, (void *)arena_strdup(AR(m), buf));
	free(buf);
}

/* 1: every name of e has a value in s. */
static int names_known(M *m, const Expr *e, const Scope *s)
{
	Vec ns = { 0 };
	int64_t v;
	expr_names(AR(m), e, &ns);
	for (int i = 0; i < ns.n; i++)
		if (!scope_lookup(s, ns.v[i], &v))
			return 0;
	return 1;
}

/* What the op's kernel's names are at this op, where known at link time:
 * its consts, its sizes, and the scalars it is given as constants. */
static Scope op_values(M *m, const Graph *g, const Dims *dims, const KParam **sk, const Expr **sval, int ns,
                       const Scope *s)
{
	int n = g->consts.n + g->kparams.n, k = 0;
	const char **names = arena_alloc(AR(m), (n + 1) * sizeof *names);
	int64_t *vals = arena_alloc(AR(m), (n + 1) * sizeof *vals);
	for (int i = 0; i < g->consts.n; i++)
		names[k] = ((const Const *)g->consts.v[i])->name, vals[k++] = g->constvals[i];
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *kp = g->kparams.v[i];
		for (int j = 0; kp->dim && j < dims->n; j++)
			if (!strcmp(dims->names[j], kp->dim))
				names[k] = kp->name, vals[k++] = dims->vals[j];
	}
	for (int j = 0; j < ns && k < n; j++)
		if (sval[j] && names_known(m, sval[j], s) && !eval_expr(m->c, sval[j], s, &vals[k]))
			names[k++] = sk[j]->name;
	return (Scope){ names, vals, k, NULL };
}

/* An expression of the op's kernel (its "int32", bits 32, or "int64")
 * whose names all have values at this op (os: op_values) is known at
 * link time: each step must fit (E0390), as check holds a kernel's own.
 * 1: known (reported when past), 0: for the runtime. */
static int op_int_known(M *m, const MOp *op, const Expr *e, const Scope *os, int bits)
{
	int64_t v;
	const char *what;
	const Expr *bad;
	if (!names_known(m, e, os))
		return 0;
	if ((bad = expr_past(m->c, e, os, bits, &v, &what))) {
		char *txt = NULL;
		size_t len = 0;
		FILE *o = open_memstream(&txt, &len);
		if (o) {
			expr_print(o, bad);
			fclose(o);
		}
		const char *cint = bits == 64 ? "long long" : "int";
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0390", op->decl->sp,
		                   "op `%s`'s kernel `%s` computes `%s` in %d-bit %s, and at this op's sizes it is past that",
		                   op->name, op->k->name, txt ? txt : "", bits, cint);
		d->primary.msg = arena_printf(AR(m), "here it %s; %s", what, int_range(bits));
		if (bad->sp.src >= 0)
			diag_label(d, bad->sp, "computed here");
		Vec seen = { 0 };
		expr_names(AR(m), bad, &seen);
		const char *vals = scope_values(AR(m), &seen, os);
		if (*vals)
			diag_note(d, "at op `%s`: %s", op->name, vals);
		diag_help(d, "give the op smaller sizes, or a kernel that counts them in fewer steps");
		diag_end(m->c, d);
		free(txt);
	}
	return 1;
}

/* What the megakernel's runtime must check: each i32 param the entry
 * computes from the scalars in 64 bits and passes as int (not a number,
 * checked when linked, nor an i32 scalar alone: an i64 one, given or
 * taken by name, must fit), each i64 param it computes from them (in
 * long long: "int64"), and the op kernel's own "int32" and "int64"
 * (check_ints) with its sizes and scalars substituted, but for those its
 * sizes make known (op_int_known, checked now). */
static void op_ints(M *m, const MOp *op, const Graph *g, const Dims *dims, const KParam **sk, const Expr **sval,
                    int ns, const Scope *s)
{
	for (int j = 0; j < ns; j++) {
		Expr alone = { .k = EX_NAME, .name = sk[j]->name };   /* the megakernel's scalar of its name */
		const Expr *e = sval[j] ? sval[j] : &alone;
		int64_t v;
		int kind = scalar_kind(sk[j]->ty->dtype);
		if (kind == KP_I64 && e->k != EX_NUM && e->k != EX_NAME)
			add_int(m, &m->mp->ints64, e, scope_name, s);
		if (kind != KP_I32 || e->k == EX_NUM)
			continue;
		if (e->k == EX_NAME && !scope_lookup(s, e->name, &v) &&
		    ((const MTensor *)namemap_get(&m->tensors, e->name))->kind == KP_I32)
			continue;
		add_int(m, &m->mp->ints, e, scope_name, s);
	}
	if (!g->ints.n && !g->ints64.n)
		return;
	OpNames on = { g, dims, sk, sval, ns, s };
	Scope os = op_values(m, g, dims, sk, sval, ns, s);
	for (int i = 0; i < g->ints.n; i++)
		if (!op_int_known(m, op, g->ints.v[i], &os, 32))
			add_int(m, &m->mp->ints, g->ints.v[i], op_name, &on);
	for (int i = 0; i < g->ints64.n; i++)
		if (!op_int_known(m, op, g->ints64.v[i], &os, 64))
			add_int(m, &m->mp->ints64, g->ints64.v[i], op_name, &on);
}

/* What op's kernel main takes for each of its kernel params: a tensor's
 * address (its slice's), a size, a scalar's expression. */
static void op_args(M *m, MOp *op, const Graph *g, const Dims *dims, const char **scalars, const KParam **sk, int ns)
{
	op->args = arena_alloc(AR(m), (g->kparams.n + 1) * sizeof *op->args);
	for (int i = 0; i < g->kparams.n; i++) {
		const GKParam *kp = g->kparams.v[i];
		if (kp->dim) {
			for (int j = 0; j < dims->n; j++)
				if (!strcmp(dims->names[j], kp->dim))
					op->args[i] = arena_printf(AR(m), "%lld", (long long)dims->vals[j]);
			continue;
		}
		if (kp->kind == KP_PTR) {
			const char *key = kp->tensor ? kp->tensor : kp->name;
			for (int u = 0; u < op->uses.n; u++) {
				const MUse *us = op->uses.v[u];
				if (strcmp(us->param, key))
					continue;
				uint64_t off = us->index < 0 ? 0 : (uint64_t)us->index * us->t->slice_bytes;
				op->args[i] = us->t->buffer
				            ? arena_printf(AR(m), "(void *)(plk_bufs + %lluull)", (unsigned long long)(us->t->off + off))
				            : arena_printf(AR(m), "(void *)((char *)p%d + %lluull)", us->t->param, (unsigned long long)off);
			}
			continue;
		}
		if (kp->kind == KP_I32 || kp->kind == KP_I64 || kp->kind == KP_F32)
			for (int j = 0; j < ns; j++)
				if (!strcmp(sk[j]->name, kp->name))
					op->args[i] = arena_printf(AR(m), "(%s)(%s)", kparam_ctype(kp->kind), scalars[j]);
		/* a tensor map or a workspace: left NULL (E0379 when linked) */
	}
}

static void bind_op(M *m, const MItem *it, const char *name, const Scope *s)
{
	if (m->mp->ops.n == MEGA_MAX_OPS) {   /* `for` bodies multiply: stop at the first past it */
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0371", it->sp, "megakernel `%s` has more than %d ops", m->mk->name,
		                   MEGA_MAX_OPS);
		d->primary.msg = arena_printf(AR(m), "op `%s` would be one more", name);
		diag_note(d, "the schedule, waits and checks grow with the ops; a model's decode step has a few hundred");
		diag_end(m->c, d);
		return;
	}
	if (namemap_get(&m->ops, name) || namemap_get(&m->tensors, name)) {
		error_at(m->c, "E0371", it->name_sp, "`%s` is declared twice in megakernel `%s`", name, m->mk->name);
		return;
	}
	const Kernel *k = kernel_named(m->p, it->kernel);
	if (!k) {
		Diag *d = diag_new(m->c, DIAG_ERROR, "E0370", it->kernel_sp, "op `%s` runs `%s`, which is not a kernel",
		                   name, it->kernel);
		d->primary.msg = program_component(m->p, it->kernel) ? "a component, not a kernel"
		               : program_select(m->p, it->kernel) ? "a select, not a kernel" : "unknown kernel";
		int nc = 0;
		for (int i = 0; i < m->p->modules.n; i++)
			nc += ((const Module *)m->p->modules.v[i])->kernels.n;
		const char **cands = arena_alloc(AR(m), (nc + 1) * sizeof *cands);
		nc = 0;
		for (int i = 0; i < m->p->modules.n; i++) {
			const Module *md = m->p->modules.v[i];
			for (int j = 0; j < md->kernels.n; j++)
				cands[nc++] = ((const Kernel *)md->kernels.v[j])->name;
		}
		help_similar(d, it->kernel, cands, nc, "kernels");
		diag_end(m->c, d);
		return;
	}
	MOp *op = arena_alloc(AR(m), sizeof *op);
	op->name = name;
	op->decl = it;
	op->k = k;
	op->id = m->mp->ops.n;
	namemap_put(AR(m), &m->ops, name, op);
	for (int i = 0; i < it->args.n; i++) {
		const OpArg *a = it->args.v[i];
		int found = 0;
		for (int j = 0; j < k->params.n && !found; j++)
			found = !strcmp(((const KParam *)k->params.v[j])->name, a->name);
		if (!found) {
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0371", a->sp, "kernel `%s` has no parameter `%s`", k->name, a->name);
			d->primary.msg = "unknown parameter";
			const char **cands = arena_alloc(AR(m), (k->params.n + 1) * sizeof *cands);
			for (int j = 0; j < k->params.n; j++)
				cands[j] = ((const KParam *)k->params.v[j])->name;
			help_similar(d, a->name, cands, k->params.n, "parameters");
			diag_end(m->c, d);
		}
	}
	PlacedKernel *pk = placed(m, k);
	if (!pk)
		return;
	op->pl = pk->pl;
	int before = m->c->nerrors;
	Dims dims = { 0 };
	const char **scalars = arena_alloc(AR(m), (k->params.n + 1) * sizeof *scalars);
	const KParam **sk = arena_alloc(AR(m), (k->params.n + 1) * sizeof *sk);
	const Expr **sval = arena_alloc(AR(m), (k->params.n + 1) * sizeof *sval);
	int ns = 0;
	for (int j = 0; j < k->params.n; j++) {
		const KParam *kp = k->params.v[j];
		const OpArg *a = op_arg(it, kp->name);
		if (kp->ty->k == TY_TENSOR || kp->ty->k == TY_PTR) {
			bind_tensor(m, op, kp, a, s, &dims, kernel_access(pk->g, kp));
			continue;
		}
		if (a && a->index) {
			error_at(m->c, "E0371", a->sp, "`%s` of kernel `%s` is a scalar: it takes no slice", kp->name, k->name);
			continue;
		}
		if (a) {
			const Expr *fl = NULL;
			if (!check_scalar_names(m, a->val, s, &fl) && !check_scalar_kind(m, op, kp, a->val, fl, NULL))
				sk[ns] = kp, sval[ns] = a->val, scalars[ns++] = c_expr_str(m, a->val, s);
			continue;
		}
		const MTensor *t = namemap_get(&m->tensors, kp->name);
		if (t && t->ty->k == TY_SCALAR && !check_scalar_kind(m, op, kp, NULL, NULL, t))
			sk[ns] = kp, sval[ns] = NULL, scalars[ns++] = arena_printf(AR(m), "p%d", t->param);
		if (!t || t->ty->k != TY_SCALAR) {
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0371", it->sp, "`%s` of kernel `%s` is not bound", kp->name, k->name);
			d->primary.msg = arena_printf(AR(m), "no `%s = ...` here", kp->name);
			diag_label(d, kp->sp, "`%s` declared here", kp->name);
			diag_help(d, "bind it, `%s = EXPR`, or give megakernel `%s` a scalar `%s`", kp->name, m->mk->name, kp->name);
			diag_end(m->c, d);
		}
	}
	if (m->c->nerrors == before && !op_pieces(m, op, pk->g, &dims)) {
		op_args(m, op, pk->g, &dims, scalars, sk, ns);
		op_ints(m, op, pk->g, &dims, sk, sval, ns, s);
		vec_push(AR(m), &m->mp->ops, op);
	}
}

/* --------------------------------------------------------------- fit */

/* The ops share the block: its threads are the most any op needs; an op
 * whose warpgroups set their registers (setmaxnreg) assumes the block is
 * exactly its own. Each block keeps two ops' shared memory at once (the
 * current op's, and the next one's, whose loads start early), so every
 * two ops one block runs in a row must fit together. E0375. */
static int check_fit(M *m)
{
	const Vec *ops = &m->mp->ops;
	const MOp *widest = NULL;
	for (int i = 0; i < ops->n; i++) {
		const MOp *op = ops->v[i];
		const Graph *g = op->pl->g;
		if (g->split || g->dynamic || g->cluster[0] * g->cluster[1] > 1) {
			const char *what = g->split ? "splits its K (`grid split`)"
			                 : g->dynamic ? "takes its work items from a counter (`grid dynamic`)"
			                              : "runs in clusters of blocks";
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0375", op->decl->kernel_sp, "op `%s`'s kernel `%s` %s", op->name,
			                   op->k->name, what);
			d->primary.msg = "not an op of a megakernel";
			diag_note(d, "a megakernel's blocks each run alone, without a workspace of their own");
			diag_help(d, "give the op a kernel without `%s`", g->split ? "split" : g->dynamic ? "dynamic" : "cluster");
			diag_end(m->c, d);
			return 1;
		}
		if (!widest || op->pl->threads > widest->pl->threads)
			widest = op;
	}
	if (!widest)
		return 0;
	m->mp->threads = widest->pl->threads;
	for (int i = 0; i < ops->n; i++) {
		const MOp *op = ops->v[i];
		if (op->pl->smem_bytes > m->mp->page_bytes)
			m->mp->page_bytes = op->pl->smem_bytes;
		int budgets = 0;
		for (int w = 0; w < op->pl->nwarpgroups; w++)
			budgets |= op->pl->wg_regs && op->pl->wg_regs[w];
		if (budgets && op->pl->threads != widest->pl->threads) {
			Diag *d = diag_new(m->c, DIAG_ERROR, "E0375", op->decl->sp, "op `%s` does not fit beside op `%s`", op->name,
			                   widest->name);
			d->primary.msg = arena_printf(AR(m), "its warpgroups set their registers for a block of %d threads",
			                              op->pl->threads);
			diag_label(d, widest->decl->sp, "a block of %d threads for this op", widest->pl->threads);
			diag_note(d, "setmaxnreg divides a block's registers among all its warpgroups");
			diag_help(d, "give kernel `%s` warps for %d threads, or drop its `regs` budgets", op->k->name,
			          widest->pl->threads);
			diag_end(m->c, d);
			return 1;
		}
	}
	/* consecutive ops of each block: with b blocks, op j's piece i runs on
	 * block (first_j + i) % b; a block's ops in schedule order */
	int64_t b = m->mp->blocks, next = 0;
	for (int i = 0; i < ops->n; i++) {
		MOp *op = ops->v[i];
		op->first = next % b;
		next += op->pieces;
	}
	/* less the entry's own: the waits of an op that waits inside, in static
	 * shared memory (mega_entry.c), which moves the dynamic shared memory
	 * on by its alignment, 1024 bytes */
	uint32_t limit = m->mp->arch->smem_per_block - (m->mp->early_slots ? 1024 : 0);
	m->mp->smem_limit = limit;
	for (int64_t blk = 0; blk < b; blk++) {
		const MOp *prev = NULL;
		for (int i = 0; i < ops->n; i++) {
			const MOp *op = ops->v[i];
			int64_t off = (blk - op->first + b) % b;
			if (off >= op->pieces)
				continue;   /* no piece of op on this block */
			if (prev && (uint64_t)prev->pl->smem_bytes + op->pl->smem_bytes > limit) {
				Diag *d = diag_new(m->c, DIAG_ERROR, "E0375", op->decl->sp, "op `%s` does not fit beside op `%s`",
				                   op->name, prev->name);
				d->primary.msg = arena_printf(AR(m), "%u bytes of shared memory", op->pl->smem_bytes);
				diag_label(d, prev->decl->sp, "%u bytes, on the same block just before", prev->pl->smem_bytes);
				diag_note(d, "block %lld runs both in a row and holds both ops' shared memory at once (%u + %u > "
				          "%u bytes), so that the next op's loads start while the current one computes",
				          (long long)blk, prev->pl->smem_bytes, op->pl->smem_bytes, limit);
				if (op->k == prev->k)
					diag_help(d, "give kernel `%s` fewer stages (`[stages = N]` on its ring)", op->k->name);
				else
					diag_help(d, "give kernel `%s` or `%s` fewer stages (`[stages = N]` on its ring)", op->k->name,
					          prev->k->name);
				diag_end(m->c, d);
				return 1;
			}
			prev = op;
		}
	}
	return 0;
}

MegaPlan *mega_check(Ctx *c, const Program *p, const Mega *mk, const ArchInfo *arch)
{
	int errs0 = c->nerrors;
	M st = { 0 }, *m = &st;
	m->c = c;
	m->p = p;
	m->mk = mk;
	m->mp = arena_alloc(c->arena, sizeof *m->mp);
	m->mp->m = mk;
	m->mp->arch = arch;
	Names names = { 0 };
	names.s.names = names.names;
	names.s.vals = names.vals;
	/* the consts first, wherever they stand: the parameters' sizes name them */
	for (int i = 0; i < mk->items.n; i++) {
		const MItem *it = mk->items.v[i];
		int64_t v;
		if (it->k == MI_CONST && !eval_expr(c, it->val, &names.s, &v) &&
		    names_add(c, &names, it->name, v, it->name_sp))
			break;
	}
	if (c->nerrors != errs0)
		return NULL;
	for (int i = 0; i < mk->params.n; i++) {
		const KParam *kp = mk->params.v[i];
		add_tensor(m, kp->name, kp->ty, kp->sp, 0, &names.s);
	}
	if (c->nerrors != errs0)
		return NULL;    /* the ops' bindings would repeat them */
	expand(m, &mk->items, &names, NULL);
	if (c->nerrors != errs0)
		return NULL;
	if (!m->grid) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0371", mk->name_sp, "megakernel `%s` does not say how many blocks it runs on",
		                   mk->name);
		d->primary.msg = "no `grid blocks(N)`";
		diag_note(d, "its schedule gives each op's pieces to blocks when it is linked");
		diag_help(d, "add `grid blocks(132)`: one block per SM of an H100 or H200");
		diag_end(c, d);
		return NULL;
	}
	if (!m->mp->ops.n) {
		error_at(c, "E0371", mk->name_sp, "megakernel `%s` has no op", mk->name);
		return NULL;
	}
	if (mega_order(c, m->mp) || check_fit(m))
		return NULL;
	m->mp->zero_bytes = (uint32_t)((4 * (m->mp->ops.n + 2) + 255) & ~255);
	return c->nerrors == errs0 ? m->mp : NULL;
}
