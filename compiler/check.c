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
	check_clusters,    /* a `cluster N` component gets clusters of N blocks */
	check_lanes,       /* `pingpong` lanes: persistent grid, one ring, a `per` count */
	check_resources,   /* threads, register budgets and least smem fit the arch */
};

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
