/* check_select.c: a select's variants (docs/language.md, "Variants").
 *
 * `select NAME(PARAMS) { when CONDS: KERNEL ... else: KERNEL }` names
 * kernels of the same file, each linked into one cubin as a kernel entry
 * of its own; the runtime launches the first whose conditions hold for
 * the bound shapes and the device (its SM count, its DRAM bandwidth).
 * What is checked here: each branch names a kernel (E0361) that takes the
 * select's parameters (E0360; a kernel named in several branches is one
 * variant), no name declared twice (E0363), the last branch and only the
 * last is `else` (E0362), and the conditions use only shape symbols, the
 * device's values (SMS, DRAM_GBPS) and integers; a warning for a branch
 * that changes nothing. After each variant is placed, the tensors' dims
 * must agree (E0360); the kernel parameters they launch may differ
 * (select_check_launch). */
#include <stdlib.h>
#include <string.h>
#include "check.h"

const Select *program_select(const Program *p, const char *name)
{
	for (int i = 0; i < p->selects.n; i++)
		if (!strcmp(((const Select *)p->selects.v[i])->name, name))
			return p->selects.v[i];
	return NULL;
}

int kernel_is_variant(const Program *p, const Kernel *k)
{
	for (int i = 0; i < p->selects.n; i++) {
		const Select *s = p->selects.v[i];
		for (int j = 0; j < s->branches.n; j++)
			if (!strcmp(((const Branch *)s->branches.v[j])->kernel, k->name))
				return 1;
	}
	return 0;
}

static const Kernel *kernel_named(const Program *p, const char *name)
{
	for (int i = 0; i < p->kernels.n; i++)
		if (!strcmp(((const Kernel *)p->kernels.v[i])->name, name))
			return p->kernels.v[i];
	return NULL;
}

/* ------------------------------------------------------- parameters */

static int str_same(const char *a, const char *b)
{
	return a && b ? !strcmp(a, b) : a == b;
}

static int type_same(const Type *a, const Type *b)
{
	if (a->k != b->k || !str_same(a->dtype, b->dtype) || a->readonly != b->readonly ||
	    !str_same(a->layout, b->layout) || !expr_same(a->rank, b->rank) || a->dims.n != b->dims.n)
		return 0;
	for (int i = 0; i < a->dims.n; i++)
		if (!expr_same(a->dims.v[i], b->dims.v[i]))
			return 0;
	return 1;
}

/* `NAME: TYPE` as the recipe writes it (arena). */
static const char *kparam_text(Ctx *c, const KParam *p)
{
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f)
		return p->name;
	fprintf(f, "%s: ", p->name);
	type_print(f, p->ty);
	fclose(f);
	const char *s = arena_strdup(c->arena, buf);
	free(buf);
	return s;
}

/* E0360 when k does not take s's parameters, in s's order. */
static int same_params(Ctx *c, const Select *s, const Kernel *k)
{
	int n = s->params.n < k->params.n ? s->params.n : k->params.n;
	for (int i = 0; i < n; i++) {
		const KParam *a = s->params.v[i], *b = k->params.v[i];
		if (!strcmp(a->name, b->name) && type_same(a->ty, b->ty))
			continue;
		Diag *d = diag_new(c, DIAG_ERROR, "E0360", b->sp, "variant `%s` does not take the parameters of select `%s`",
		                   k->name, s->name);
		d->primary.msg = arena_printf(c->arena, "parameter %d of `%s`", i + 1, k->name);
		diag_label(d, a->sp, "parameter %d of the select", i + 1);
		diag_note(d, "one argument list serves every variant: each takes the select's parameters, in its order");
		diag_help(d, "write it as the select does: `%s`", kparam_text(c, a));
		diag_end(c, d);
		return -1;
	}
	if (s->params.n == k->params.n)
		return 0;
	Diag *d = diag_new(c, DIAG_ERROR, "E0360", k->name_sp, "variant `%s` does not take the parameters of select `%s`",
	                   k->name, s->name);
	d->primary.msg = arena_printf(c->arena, "takes %d parameter%s", k->params.n, k->params.n == 1 ? "" : "s");
	diag_label(d, s->name_sp, "takes %d", s->params.n);
	if (k->params.n > n)
		diag_note(d, "`%s` has `%s` beyond the select's", k->name, kparam_text(c, k->params.v[n]));
	else
		diag_note(d, "`%s` lacks `%s`", k->name, kparam_text(c, s->params.v[n]));
	diag_help(d, "give every variant the select's parameters, in its order");
	diag_end(c, d);
	return -1;
}

/* ------------------------------------------------------- conditions */

/* 1 if name is one of ns's (const char *). */
static int has_name(const Vec *ns, const char *name)
{
	for (int i = 0; i < ns->n; i++)
		if (!strcmp(ns->v[i], name))
			return 1;
	return 0;
}

/* The distinct names in the tensor dims of params (KParam*), in order,
 * added to ns. */
static void dim_names(Ctx *c, const Vec *params, Vec *ns)
{
	for (int i = 0; i < params->n; i++) {
		const Type *t = ((const KParam *)params->v[i])->ty;
		for (int j = 0; t->k == TY_TENSOR && j < t->dims.n; j++)
			expr_names(c->arena, t->dims.v[j], ns);
	}
}

/* The names a condition may use: the device's values, then the shape
 * symbols of s's tensors (a `const` of a variant is no symbol: its value
 * is in the dims). SMS first: a misspelt `SM` is nearer it than `M` is,
 * in a tie. */
static Vec rule_scope(Ctx *c, const Select *s, const Variant *vs, int nv)
{
	Vec all = { 0 }, ns = { 0 };
	dim_names(c, &s->params, &all);
	for (int i = 0; i < NDEVICE_NAMES; i++)
		vec_push(c->arena, &ns, (void *)device_names[i]);
	for (int i = 0; i < all.n; i++) {
		int cst = 0;
		for (int v = 0; v < nv && !cst; v++)
			for (int j = 0; j < vs[v].k->consts.n && !cst; j++)
				cst = !strcmp(((const Const *)vs[v].k->consts.v[j])->name, all.v[i]);
		if (!cst)
			vec_push(c->arena, &ns, all.v[i]);
	}
	return ns;
}

/* E0320 / E0323 / E0324 for what a condition cannot say; of says what
 * its names may be ("a shape symbol of the select"). */
static int check_cond_expr(Ctx *c, const Expr *e, const Vec *scope, const char *of)
{
	if (!e)
		return 0;
	switch (e->k) {
	case EX_NUM:
		return 0;
	case EX_AUTO:
		return eval_expr(c, e, NULL, &(int64_t){ 0 });
	case EX_NAME:
		if (has_name(scope, e->name))
			return 0;
		{
			Diag *d = diag_new(c, DIAG_ERROR, "E0320", e->sp, "unknown name `%s`", e->name);
			d->primary.msg = arena_printf(c->arena, "not %s, nor SMS or DRAM_GBPS", of);
			help_similar(d, e->name, (const char **)scope->v, scope->n, "names a condition can use");
			diag_end(c, d);
		}
		return -1;
	case EX_CALL:
		if (!builtin_call(e))
			return eval_expr(c, e, NULL, &(int64_t){ 0 });   /* its E0324 */
		break;
	default:
		break;
	}
	int rc = check_cond_expr(c, e->a, scope, of) | check_cond_expr(c, e->b, scope, of);
	for (int i = 0; i < e->args.n; i++)
		rc |= check_cond_expr(c, e->args.v[i], scope, of);
	return rc;
}

static int check_conds(Ctx *c, const Vec *conds, const Vec *scope, const char *of)
{
	int rc = 0;
	for (int i = 0; i < conds->n; i++) {
		const Require *r = conds->v[i];
		rc |= check_cond_expr(c, r->lhs, scope, of) | check_cond_expr(c, r->rhs, scope, of);
		for (int j = 0; j < r->set.n; j++)
			rc |= check_cond_expr(c, r->set.v[j], scope, of);
	}
	return rc;
}

/* A kernel's `require` conditions (held at launch, docs/language.md):
 * over its shape symbols, its `const`s (the manifest writes their values)
 * and the device's values. */
int kernel_requires_check(Ctx *c, const Kernel *k)
{
	if (!k->requires.n)
		return 0;
	Vec ns = { 0 };
	for (int i = 0; i < NDEVICE_NAMES; i++)
		vec_push(c->arena, &ns, (void *)device_names[i]);
	dim_names(c, &k->params, &ns);
	for (int j = 0; j < k->consts.n; j++)
		if (!has_name(&ns, ((const Const *)k->consts.v[j])->name))
			vec_push(c->arena, &ns, (void *)((const Const *)k->consts.v[j])->name);
	return check_conds(c, &k->requires, &ns, "a shape symbol or const of the kernel");
}

/* --------------------------------------------------------- variants */

/* E0363 when s's name is a kernel's or another select's. */
static int name_once(Ctx *c, const Program *p, const Select *s)
{
	const Kernel *k = kernel_named(p, s->name);
	const Select *o = program_select(p, s->name);
	Span other = k ? k->name_sp : o != s ? o->name_sp : span_none;
	if (!k && o == s)
		return 0;
	Diag *d = diag_new(c, DIAG_ERROR, "E0363", s->name_sp, "`%s` is declared twice", s->name);
	d->primary.msg = "a select of this name";
	diag_label(d, other, k ? "a kernel of the same name" : "another select of the same name");
	diag_note(d, "kernels and selects share one name space: each name is a kernel to build, an output file and "
	             "a `--kernel` choice");
	diag_help(d, "rename the select");
	diag_end(c, d);
	return -1;
}

/* The kernel branch b names; else E0361. */
static const Kernel *branch_kernel(Ctx *c, const Program *p, const Select *s, const Branch *b)
{
	const Kernel *k = kernel_named(p, b->kernel);
	if (k)
		return k;
	Diag *d = diag_new(c, DIAG_ERROR, "E0361", b->kernel_sp, "select `%s` names no kernel `%s`", s->name, b->kernel);
	if (program_select(p, b->kernel)) {
		d->primary.msg = "a select, not a kernel";
		diag_note(d, "a variant is a kernel of this file; a select cannot be one");
	} else {
		d->primary.msg = "no kernel of this file is named so";
		const char **cands = arena_alloc(c->arena, (p->kernels.n + 1) * sizeof *cands);
		for (int i = 0; i < p->kernels.n; i++)
			cands[i] = ((const Kernel *)p->kernels.v[i])->name;
		help_similar(d, b->kernel, cands, p->kernels.n, "kernels of this file");
	}
	diag_end(c, d);
	return NULL;
}

/* E0362 unless the last branch, and only the last, is `else`. */
static int default_last(Ctx *c, const Select *s)
{
	for (int i = 0; i + 1 < s->branches.n; i++) {
		const Branch *b = s->branches.v[i];
		if (!b->dflt)
			continue;
		const Branch *next = s->branches.v[i + 1];
		Diag *d = diag_new(c, DIAG_ERROR, "E0362", next->sp, "a branch after `else` in select `%s` is never taken",
		                   s->name);
		d->primary.msg = "never taken";
		diag_label(d, b->sp, "`else` is always taken");
		diag_help(d, "put `else` last: branches are tried in order, the first that holds wins");
		diag_end(c, d);
		return -1;
	}
	const Branch *last = s->branches.n ? s->branches.v[s->branches.n - 1] : NULL;
	if (last && last->dflt)
		return 0;
	Diag *d = diag_new(c, DIAG_ERROR, "E0362", last ? last->sp : s->name_sp, "select `%s` has no default", s->name);
	d->primary.msg = last ? "the last branch has conditions" : "no branch";
	diag_note(d, "some shapes would meet no condition, and nothing would be launched");
	diag_help(d, "end the select with `else: KERNEL`, the variant launched when no condition holds");
	diag_end(c, d);
	return -1;
}

/* A warning for each branch that ends the rule just before `else` (alone
 * or with others like it) and names the kernel `else` names: taken or not,
 * that kernel is launched (its `require` failing fails both). at[i]: the
 * variant of branch i. */
static void same_as_default(Ctx *c, const Select *s, const int *at)
{
	int last = s->branches.n - 1, first = last;
	const Branch *dflt = s->branches.v[last];
	while (first > 0 && at[first - 1] == at[last])
		first--;
	for (int i = first; i < last; i++) {   /* in source order */
		const Branch *b = s->branches.v[i];
		Diag *d = diag_new(c, DIAG_WARNING, NULL, b->sp, "this branch of select `%s` changes nothing", s->name);
		d->primary.msg = arena_printf(c->arena, "takes `%s`", b->kernel);
		diag_label(d, dflt->kernel_sp, "as `else` does, after it");
		diag_note(d, "no branch between them names another kernel, so `%s` is launched whether its conditions hold "
		             "or not", b->kernel);
		diag_help(d, "remove the branch, or name another kernel in it");
		diag_end(c, d);
	}
}

Variant *select_variants(Ctx *c, const Program *p, const Select *s, int *nv, const int **of)
{
	int before = c->nerrors;
	Variant *vs = arena_alloc(c->arena, (s->branches.n + 1) * sizeof *vs);
	int *at = arena_alloc(c->arena, (s->branches.n + 1) * sizeof *at);
	*nv = 0;
	name_once(c, p, s);
	default_last(c, s);
	for (int i = 0; i < s->branches.n; i++) {
		const Branch *b = s->branches.v[i];
		const Kernel *k = branch_kernel(c, p, s, b);
		at[i] = -1;
		for (int j = 0; k && j < *nv && at[i] < 0; j++)   /* named again: one kernel entry, several branches */
			if (vs[j].k == k)
				at[i] = j;
		if (k && at[i] < 0 && !same_params(c, s, k)) {
			at[i] = *nv;
			vs[(*nv)++] = (Variant){ k, b };
		}
	}
	Vec scope = rule_scope(c, s, vs, *nv);
	for (int i = 0; i < s->branches.n; i++)
		check_conds(c, &((const Branch *)s->branches.v[i])->conds, &scope, "a shape symbol of the select");
	if (c->nerrors == before)
		same_as_default(c, s, at);
	*of = at;
	return c->nerrors == before ? vs : NULL;
}

/* ------------------------------------------------- launched params */

/* E0360 unless a name in the select's tensor dims is a const of no
 * variant, or of every variant with one value: the tensors' shapes are
 * one for all of them (the manifest's). */
static int same_dims(Ctx *c, const Select *s, const Variant *vs, const Placement *const *ps, int nv)
{
	Vec ns = { 0 };
	dim_names(c, &s->params, &ns);
	for (int i = 0; i < ns.n; i++) {
		int64_t x0 = 0, x = 0;
		int c0 = graph_const(ps[0]->g, ns.v[i], &x0);
		for (int v = 1; v < nv; v++) {
			int cv = graph_const(ps[v]->g, ns.v[i], &x);
			if (cv == c0 && (!cv || x == x0))
				continue;
			Diag *d = diag_new(c, DIAG_ERROR, "E0360", vs[v].k->name_sp,
			                   "variants `%s` and `%s` of select `%s` give `%s` different values",
			                   vs[0].k->name, vs[v].k->name, s->name, ns.v[i]);
			d->primary.msg = cv ? arena_printf(c->arena, "`%s` = %lld", ns.v[i], (long long)x)
			                    : arena_printf(c->arena, "`%s` a shape symbol", ns.v[i]);
			diag_label(d, vs[0].k->name_sp, c0 ? "`%s` = %lld" : "`%s` a shape symbol", ns.v[i], (long long)x0);
			diag_note(d, "`%s` is a dim of the select's tensors, whose shapes are one for every variant", ns.v[i]);
			diag_help(d, "give `%s` one value in every variant, or make it a shape symbol of each", ns.v[i]);
			diag_end(c, d);
			return -1;
		}
	}
	return 0;
}

/* One argument list serves every variant: where one splits K (its last
 * kernel param the workspace, check_split), the others take the
 * workspace too, needing none of it. */
static void share_workspace(Ctx *c, const Placement *const *ps, int nv)
{
	const GKParam *ws = NULL;
	for (int v = 0; v < nv && !ws; v++)
		if (ps[v]->g->ws_kparam >= 0)
			ws = ps[v]->g->kparams.v[ps[v]->g->ws_kparam];
	for (int v = 0; v < nv && ws; v++) {
		Graph *g = (Graph *)ps[v]->g;   /* before its glue and manifest are written */
		if (g->ws_kparam >= 0)
			continue;
		Expr *zero = arena_alloc(c->arena, sizeof *zero);
		zero->k = EX_NUM;
		g->ws_bytes = g->ws_zero = zero;
		g->ws_kparam = g->kparams.n;
		vec_push(c->arena, &g->kparams, (void *)ws);
	}
}

/* After placement: the tensors' shapes are one for every variant, and a
 * workspace param in each where one splits K. The kernel parameters each
 * variant launches may differ where a tensor or a shape gives them (a
 * tensor map in one, a pointer in another: the runtime computes each
 * variant's list from one argument list); those the caller binds by name
 * agree already, as every variant takes the select's parameters (E0360)
 * and uses each of them (E0332). */
int select_check_launch(Ctx *c, const Select *s, const Variant *vs, const Placement *const *ps, int nv)
{
	if (same_dims(c, s, vs, ps, nv))
		return -1;
	share_workspace(c, ps, nv);
	return 0;
}
