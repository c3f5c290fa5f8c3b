/* check.c: the composition graph of one kernel, typed and checked for one
 * target arch.
 *
 * check_kernel evaluates every constant, types every port, binds component
 * params to kernel params, joins ports into edges (tiles: smem rings;
 * frags: register handoff), forms roles (warp ranges) in dataflow order
 * and checks that the composition can exist at all. Whether it fits well
 * is the placement's business; here only "can never fit" is an error.
 * Error codes E0301-E0353 (docs/errors/). This file is the driver and the
 * helpers every step uses; check.h lists the others. */
#include <stdlib.h>
#include <string.h>
#include "check.h"

/* ------------------------------------------------------------- names */

/* A help for an unknown name: the candidate closest to it, else the
 * first eight (`what` names them). */
void help_similar(Diag *d, const char *name, const char **cands, int n, const char *what)
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

/* The name (at name_off) of each element of v, as candidates. */
const char **names_of_vec(Chk *k, const Vec *v, size_t name_off, int *n)
{
	const char **r = arena_alloc(A(k), (v->n + 1) * sizeof *r);
	for (int i = 0; i < v->n; i++)
		r[i] = *(const char **)((const char *)v->v[i] + name_off);
	*n = v->n;
	return r;
}

/* ------------------------------------------------------------- values */

/* 0 and a positive value of e in *out; -1 after reporting. */
int eval_pos(Chk *k, const Expr *e, const GInst *gi, const char *what, int64_t *out)
{
	Scope s = gi ? inst_scope(k, gi) : k->kscope;
	if (eval_expr(k->c, e, &s, out))
		return -1;
	if (*out <= 0) {
		Diag *d = diag_new(k->c, DIAG_ERROR, "E0345", e->sp, "%s must be positive", what);
		d->primary.msg = arena_printf(A(k), "this is %lld", (long long)*out);
		label_origins(k, d, gi, e);
		diag_help(d, "check the constants it is computed from");
		diag_end(k->c, d);
		return -1;
	}
	return 0;
}

/* The kernel const name; *found 0 when there is none. */
int64_t kconst(Chk *k, const char *name, int *found)
{
	for (int i = k->kscope.n - 1; i >= 0; i--)
		if (!strcmp(k->kscope.names[i], name)) {
			*found = 1;
			return k->kscope.vals[i];
		}
	*found = 0;
	return 0;
}

/* --------------------------------------------------------------- rules */

/* The composition rules, in order, over a graph with no error so far;
 * the walk stops at the first rule that reports one. */
static void (*const rules[])(Chk *) = {
	check_requires,    /* every instance's cparams meet its contract's `require`s */
	order_kparams,     /* not a check: kernel params in launch order, binds in param order */
	check_counts,      /* both ends of a ring move as many slots per work item */
	check_clusters,    /* a `cluster N` or `X x Y` component gets its cluster shape */
	check_lanes,       /* `pingpong` lanes: persistent grid, one ring, a `per` count */
	check_split,       /* `grid split(S)`: one split ring, its partial sums reduced */
	check_ahead,       /* `ahead` rings: both ends say it; items follow one another */
	check_dynamic,     /* `grid dynamic`: a persistent grid without splits, lanes or pairs */
	check_warps,       /* WARPS of a component on another's warps; barriers within their role */
	check_resources,   /* threads, register budgets and least smem fit the arch */
	resolve_names,     /* not a check: each name of the kernel's run-time expressions */
	check_ints,        /* what the kernel computes in int: known now, fits (E0390); else for the runtime */
};

/* -------------------------------------------------------- unused consts
 * A kernel const is read by the kernel's expressions and, by name, by
 * the instances whose component has a constant of that name and that do
 * not give it themselves. One nothing reads is most likely a typo for a
 * constant the author meant to set (`TRUN = 0` for `TURN`): a warning. */

static void names_read(Arena *a, const Expr *e, NameMap *read)
{
	for (; e; e = e->b) {
		if (e->k == EX_NAME)
			namemap_put(a, read, e->name, (void *)e);
		for (int i = 0; i < e->args.n; i++)
			names_read(a, e->args.v[i], read);
		names_read(a, e->a, read);
	}
}

static void type_names(Arena *a, const Type *t, NameMap *read)
{
	if (!t)
		return;
	names_read(a, t->rank, read);
	names_read(a, t->rows, read);
	names_read(a, t->cols, read);
	for (int i = 0; i < t->dims.n; i++)
		names_read(a, t->dims.v[i], read);
}

void check_unused_consts(Ctx *c, const Program *p, const Kernel *kn)
{
	Arena *a = c->arena;
	NameMap read = { 0 };
	Vec cands = { 0 };        /* constants an instance would take from the kernel */
	for (int i = 0; i < kn->consts.n; i++)
		names_read(a, ((const Const *)kn->consts.v[i])->val, &read);
	for (int i = 0; i < kn->params.n; i++)
		type_names(a, ((const KParam *)kn->params.v[i])->ty, &read);
	for (int i = 0; i < kn->policies.n; i++) {
		const Policy *po = kn->policies.v[i];
		for (int j = 0; j < po->args.n; j++)
			names_read(a, po->args.v[j], &read);
	}
	for (int i = 0; i < kn->conns.n; i++) {
		const Conn *cn = kn->conns.v[i];
		names_read(a, cn->stages, &read);
		for (int j = 0; j < cn->attrs.n; j++)
			names_read(a, ((const Arg *)cn->attrs.v[j])->val, &read);
	}
	for (int i = 0; i < kn->insts.n; i++) {
		const Inst *in = kn->insts.v[i];
		NameMap given = { 0 };
		for (int j = 0; j < in->args.n; j++) {
			const Arg *ar = in->args.v[j];
			names_read(a, ar->val, &read);
			if (in->args.n < 64)
				namemap_put(a, &given, ar->name, (void *)ar);
		}
		const Component *cp = program_component(p, in->comp);
		for (int j = 0; cp && j < cp->cparams.n; j++) {
			const char *n = ((const CParam *)cp->cparams.v[j])->name;
			if (namemap_get(&given, n) || in->args.n >= 64)
				continue;
			namemap_put(a, &read, n, (void *)cp);
			vec_push(a, &cands, (void *)n);
		}
	}
	for (int i = 0; i < kn->consts.n; i++) {
		const Const *cs = kn->consts.v[i];
		if (namemap_get(&read, cs->name))
			continue;
		Diag *d = diag_new(c, DIAG_WARNING, NULL, cs->sp, "kernel const `%s` is never used", cs->name);
		d->primary.msg = "nothing reads it";
		const char *m = did_you_mean(cs->name, (const char *const *)cands.v, cands.n);
		if (m)
			diag_help(d, "did you mean `%s`? a const sets the constant of that name of every instance", m);
		else
			diag_help(d, "a const is read by the kernel's expressions, and by name by every instance whose "
			             "component has a constant of that name; remove it, or use it");
		diag_end(c, d);
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

	kernel_params(k);
	kernel_requires_check(c, kn);
	check_grid(k);
	make_insts(k);
	check_order(k);
	make_edges(k);
	check_unconnected(k);
	make_roles(k);
	if (bind_params(k) == 0)
		check_unused(k);    /* only once bindings are right */
	for (size_t i = 0; i < sizeof rules / sizeof *rules && c->nerrors == errs0; i++)
		rules[i](k);
	return c->nerrors == errs0 ? g : NULL;
}
