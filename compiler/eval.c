/* eval.c: integer constant expressions over named constants.
 *
 * Every error is reported where it happens, so callers only propagate the
 * failure: E0320 unknown name, E0321 division by zero, E0322 overflow,
 * E0323 `auto` where a number is needed, E0324 unknown function. */
#include <stdlib.h>
#include <string.h>
#include "plk.h"

/* Edit distance with adjacent transpositions (optimal string alignment):
 * insertions, deletions, substitutions and swaps of two neighbours each
 * cost 1, so `warsp` is one edit from `warps`. */
int edit_distance(const char *a, const char *b)
{
	size_t la = strlen(a), lb = strlen(b);
	if (la > 64 || lb > 64)     /* names that long are never typos of each other */
		return la > lb ? (int)la : (int)lb;
	int d[65][65];
	for (size_t i = 0; i <= la; i++)
		d[i][0] = (int)i;
	for (size_t j = 0; j <= lb; j++)
		d[0][j] = (int)j;
	for (size_t i = 1; i <= la; i++)
		for (size_t j = 1; j <= lb; j++) {
			int best = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
			if (d[i - 1][j] + 1 < best) best = d[i - 1][j] + 1;
			if (d[i][j - 1] + 1 < best) best = d[i][j - 1] + 1;
			if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < best)
				best = d[i - 2][j - 2] + 1;
			d[i][j] = best;
		}
	return d[la][lb];
}

/* The candidate nearest to name within a third of its length (at least
 * one edit), other than name itself; NULL if none. Of two as near, the
 * first that begins as name does (`K`: `KK` before `M`), else the first.
 * Every "did you mean" of plkc goes through here: names, functions,
 * layouts, keywords. */
const char *did_you_mean(const char *name, const char *const *cands, int n)
{
	int len = (int)strlen(name);
	int limit = len / 3 > 1 ? len / 3 : 1;
	const char *best = NULL;
	int bestd = limit + 1;
	for (int i = 0; i < n; i++) {
		if (!cands[i] || !strcmp(cands[i], name))
			continue;
		int d = edit_distance(name, cands[i]);
		if (d < bestd || (d == bestd && best && best[0] != name[0] && cands[i][0] == name[0])) {
			bestd = d;
			best = cands[i];
		}
	}
	return best;
}

int scope_lookup(const Scope *s, const char *name, int64_t *out)
{
	for (; s; s = s->up)
		for (int i = s->n - 1; i >= 0; i--)
			if (!strcmp(s->names[i], name)) {
				*out = s->vals[i];
				return 1;
			}
	return 0;
}

static void unknown_name(Ctx *c, const Expr *e, const Scope *s)
{
	int n = 0;
	for (const Scope *t = s; t; t = t->up)
		n += t->n;
	const char **cands = arena_alloc(c->arena, (n + 1) * sizeof *cands);
	n = 0;
	for (const Scope *t = s; t; t = t->up)
		for (int i = 0; i < t->n; i++)
			cands[n++] = t->names[i];
	Diag *d = diag_new(c, DIAG_ERROR, "E0320", e->sp, "unknown name `%s`", e->name);
	d->primary.msg = "not a constant in scope here";
	const char *m = did_you_mean(e->name, cands, n);
	if (m)
		diag_help(d, "did you mean `%s`?", m);
	else if (n)
		diag_help(d, "constants come from the component's parameter list and the kernel's `const` items");
	else
		diag_help(d, "no constants are in scope here; declare one with `const %s = ...` in the kernel", e->name);
	diag_end(c, d);
}

static int overflow(Ctx *c, const Expr *e, int64_t a, int64_t b)
{
	Diag *d = diag_new(c, DIAG_ERROR, "E0322", e->sp, "integer overflow in constant expression");
	if (e->k == EX_BIN)
		d->primary.msg = arena_printf(c->arena, "%lld %c %lld does not fit in 64 bits",
		                              (long long)a, e->op, (long long)b);
	else if (e->k == EX_NEG)
		d->primary.msg = arena_printf(c->arena, "-(%lld) does not fit in 64 bits", (long long)b);
	else
		d->primary.msg = arena_printf(c->arena, "%s(%lld, %lld) does not fit in 64 bits",
		                              e->name, (long long)a, (long long)b);
	diag_help(d, "constants are 64-bit signed integers; check the operands' values");
	diag_end(c, d);
	return -1;
}

static int divzero(Ctx *c, const Expr *e, const Expr *rhs)
{
	Diag *d = diag_new(c, DIAG_ERROR, "E0321", e->sp, "division by zero in constant expression");
	d->primary.msg = NULL;
	diag_label(d, rhs->sp, "this evaluates to 0");
	diag_help(d, "make the divisor a positive constant");
	diag_end(c, d);
	return -1;
}

static int64_t ceil_div(int64_t a, int64_t b)
{
	int64_t q = a / b;
	if (a % b != 0 && ((a < 0) == (b < 0)))
		q++;
	return q;
}

int eval_expr(Ctx *c, const Expr *e, const Scope *s, int64_t *out)
{
	int64_t a, b;
	switch (e->k) {
	case EX_NUM:
		*out = e->num;
		return 0;
	case EX_NAME:
		if (scope_lookup(s, e->name, out))
			return 0;
		unknown_name(c, e, s);
		return -1;
	case EX_AUTO: {
		Diag *d = diag_new(c, DIAG_ERROR, "E0323", e->sp, "`auto` is not a number");
		d->primary.msg = "a constant value is needed here";
		diag_help(d, "`auto` is only allowed as a connection's `stages`");
		diag_end(c, d);
		return -1;
	}
	case EX_NEG:
		if (eval_expr(c, e->a, s, &a))
			return -1;
		if (a == INT64_MIN)
			return overflow(c, e, 0, a);
		*out = -a;
		return 0;
	case EX_BIN:
		if (eval_expr(c, e->a, s, &a) || eval_expr(c, e->b, s, &b))
			return -1;
		switch (e->op) {
		case '+': if (__builtin_add_overflow(a, b, out)) return overflow(c, e, a, b); return 0;
		case '-': if (__builtin_sub_overflow(a, b, out)) return overflow(c, e, a, b); return 0;
		case '*': if (__builtin_mul_overflow(a, b, out)) return overflow(c, e, a, b); return 0;
		case '/':
		case '%':
			if (b == 0)
				return divzero(c, e, e->b);
			if (a == INT64_MIN && b == -1)
				return overflow(c, e, a, b);
			*out = e->op == '/' ? a / b : a % b;
			return 0;
		}
		break;
	case EX_CALL: {
		const char *f = e->name;
		if (!builtin_call(e)) {
			int unknown = e->fn == FN_UNKNOWN, nfns;
			const char *const *fns = builtin_list(&nfns);
			Diag *d = diag_new(c, DIAG_ERROR, "E0324", e->sp,
			                   unknown ? "unknown function `%s`" : "`%s` takes 2 arguments", f);
			d->primary.msg = unknown ? "not a function of constant expressions"
			                         : arena_printf(c->arena, "%d argument%s given", e->args.n,
			                                        e->args.n == 1 ? "" : "s");
			const char *m = unknown ? did_you_mean(f, fns, nfns) : NULL;
			if (m)
				diag_help(d, "did you mean `%s`?", m);
			else
				diag_help(d, "the functions are ceil_div(a, b), min(a, b) and max(a, b)");
			diag_end(c, d);
			return -1;
		}
		const Expr *ea = e->args.v[0], *eb = e->args.v[1];
		if (eval_expr(c, ea, s, &a) || eval_expr(c, eb, s, &b))
			return -1;
		if (e->fn == FN_MIN)
			*out = a < b ? a : b;
		else if (e->fn == FN_MAX)
			*out = a > b ? a : b;
		else if (b == 0)
			return divzero(c, e, eb);
		else if (a == INT64_MIN && b == -1)
			return overflow(c, e, a, b);
		else
			*out = ceil_div(a, b);
		return 0;
	}
	}
	error_at(c, "E0324", e->sp, "malformed expression");
	return -1;
}

/* The first EX_NAME node of e that says name, or NULL. */
const Expr *expr_find_name(const Expr *e, const char *name)
{
	if (!e)
		return NULL;
	if (e->k == EX_NAME && !strcmp(e->name, name))
		return e;
	const Expr *f = expr_find_name(e->a, name);
	if (!f)
		f = expr_find_name(e->b, name);
	for (int i = 0; !f && i < e->args.n; i++)
		f = expr_find_name(e->args.v[i], name);
	return f;
}

/* The same over a condition's operands. */
const Expr *require_find_name(const Require *r, const char *name)
{
	const Expr *f = expr_find_name(r->lhs, name);
	if (!f)
		f = expr_find_name(r->rhs, name);
	for (int i = 0; !f && i < r->set.n; i++)
		f = expr_find_name(r->set.v[i], name);
	return f;
}

const char *const device_names[NDEVICE_NAMES] = { "SMS", "DRAM_GBPS" };

const Expr *require_find_device_name(const Require *r)
{
	const Expr *f = NULL;
	for (int i = 0; !f && i < NDEVICE_NAMES; i++)
		f = require_find_name(r, device_names[i]);
	return f;
}

/* 1 when r holds in s, 0 when not, -1 when an expression did not
 * evaluate (reported): a component's `require` (check_rules.c), a
 * megakernel op's kernel's (mega.c). */
int require_met(Ctx *c, const Require *r, const Scope *s)
{
	int64_t l, v;
	if (eval_expr(c, r->lhs, s, &l))
		return -1;
	if (r->op == REQ_IN) {
		int met = 0;
		for (int i = 0; i < r->set.n; i++) {
			if (eval_expr(c, r->set.v[i], s, &v))
				return -1;
			met |= v == l;
		}
		return met;
	}
	if (eval_expr(c, r->rhs, s, &v))
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

const char *int_range(int bits)
{
	return bits == 64 ? "a long long holds -9223372036854775808 to 9223372036854775807"
	                  : "an int holds -2147483648 to 2147483647";
}

/* 1 if the step e (its operands' values a, b) is past 64 bits */
static int step_past64(const Expr *e, int64_t a, int64_t b)
{
	int64_t r;
	if (e->k == EX_NEG)
		return a == INT64_MIN;
	if (e->k != EX_BIN)
		return 0;
	switch (e->op) {
	case '+': return __builtin_add_overflow(a, b, &r);
	case '-': return __builtin_sub_overflow(a, b, &r);
	case '*': return __builtin_mul_overflow(a, b, &r);
	case '/': case '%': return a == INT64_MIN && b == -1;
	default: return 0;
	}
}

const Expr *expr_past(Ctx *c, const Expr *e, const Scope *s, int bits, int64_t *v, const char **what)
{
	if (!e)
		return NULL;
	const int64_t lo = bits == 64 ? INT64_MIN : INT32_MIN, hi = bits == 64 ? INT64_MAX : INT32_MAX;
	const Expr *bad;
	if ((bad = expr_past(c, e->a, s, bits, v, what)) || (bad = expr_past(c, e->b, s, bits, v, what)))
		return bad;
	for (int i = 0; i < e->args.n; i++)
		if ((bad = expr_past(c, e->args.v[i], s, bits, v, what)))
			return bad;
	int64_t a = 0, b = 0;
	if (e->k == EX_NEG || e->k == EX_BIN || (e->k == EX_CALL && e->fn == FN_CEIL_DIV && e->args.n == 2)) {
		const Expr *x = e->k == EX_CALL ? e->args.v[0] : e->a, *y = e->k == EX_CALL ? e->args.v[1] : e->b;
		if (eval_expr(c, x, s, &a) || (y && eval_expr(c, y, s, &b)))
			return NULL;   /* reported */
	}
	if (step_past64(e, a, b)) {   /* no int64_t holds it: said, not shown */
		*v = 0;
		*what = "is past 64 bits";
		return e;
	}
	if (e->k == EX_CALL && e->fn == FN_CEIL_DIV && e->args.n == 2 && b > 0 && a > hi - (b - 1)) {
		*v = bits == 64 ? 0 : a + b - 1;   /* a and b fit in 32 bits here: their children were checked */
		*what = bits == 64 ? "computes a + b - 1, past 64 bits"
		                   : arena_printf(c->arena, "computes a + b - 1 = %lld", (long long)(a + b - 1));
		return e;
	}
	if (eval_expr(c, e, s, v))
		return NULL;   /* reported */
	*what = arena_printf(c->arena, "is %lld", (long long)*v);
	return *v < lo || *v > hi ? e : NULL;
}

void expr_names(Arena *a, const Expr *e, Vec *seen)
{
	if (!e)
		return;
	if (e->k == EX_NAME) {
		for (int i = 0; i < seen->n; i++)
			if (!strcmp(seen->v[i], e->name))
				return;
		vec_push(a, seen, (void *)e->name);
		return;
	}
	expr_names(a, e->a, seen);
	expr_names(a, e->b, seen);
	for (int i = 0; i < e->args.n; i++)
		expr_names(a, e->args.v[i], seen);
}

const char *scope_values(Arena *a, const Vec *names, const Scope *s)
{
	const char *out = "";
	int64_t v;
	for (int i = 0; i < names->n; i++)
		if (scope_lookup(s, names->v[i], &v))
			out = arena_printf(a, "%s%s%s = %lld", out, *out ? ", " : "", (const char *)names->v[i], (long long)v);
	return out;
}
