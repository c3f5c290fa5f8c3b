/* expr.c: shape expressions from the manifest ("M", "2 * N",
 * "ceil_div(K, 64)"), in the recipe's expression syntax. One
 * recursive-descent walk either evaluates or only lists the names. */
#include "plan.h"

#include <ctype.h>
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

typedef struct E {
	const char *src, *p;
	plk_lookup lookup;
	void (*each)(void *, const char *, size_t);
	void *ctx;
	char *err;
	int failed;
	int bits;     /* the kernel's: 32 (plk_expr_eval32), every value along the way fits
	               * C's int; 64 (plk_expr_eval64), ceil_div's a + b - 1 fits long long
	               * too; 0: the host's own */
} E;

static int efail(E *e, const char *fmt, ...)
{
	if (e->failed)
		return -1;
	e->failed = 1;
	int n = snprintf(e->err, PLK_ERRLEN, "in \"%s\": ", e->src);
	if (n < 0 || n >= PLK_ERRLEN)
		return -1;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(e->err + n, PLK_ERRLEN - n, fmt, ap);
	va_end(ap);
	return -1;
}

static void sp(E *e)
{
	while (*e->p == ' ' || *e->p == '\t')
		e->p++;
}

static int ovf(E *e, const char *op)
{
	return efail(e, "integer overflow: '%s' goes past 64 bits", op);
}

/* v, a value the kernel computes too: under plk_expr_eval32 it must fit
 * the 32-bit int the glue computes it in (a wrapped count would be a
 * silently wrong kernel). */
static int fits(E *e, int64_t v, const char *what)
{
	if (e->bits == 32 && e->lookup && (v < INT32_MIN || v > INT32_MAX))
		return efail(e, "%s is %lld, past the kernel's 32-bit int", what, (long long)v);
	return 0;
}

static int expr(E *e, int64_t *v, int depth);

static int call(E *e, const char *name, size_t len, int64_t *v, int depth)
{
	int64_t a[2] = { 0, 0 };
	int n = 0;
	e->p++;                 /* '(' */
	for (;;) {
		if (n == 2)
			return efail(e, "%.*s takes 2 arguments", (int)len, name);
		if (expr(e, &a[n++], depth + 1))
			return -1;
		sp(e);
		if (*e->p == ',') { e->p++; continue; }
		if (*e->p == ')') { e->p++; break; }
		return efail(e, "',' or ')' expected");
	}
	if (n != 2)
		return efail(e, "%.*s takes 2 arguments", (int)len, name);
	*v = 0;   /* without a lookup, the call's shape is checked, not its value */
	if (!e->lookup)
		return 0;
	if (len == 8 && !memcmp(name, "ceil_div", 8)) {   /* toward +inf, any signs, as plkc computes it */
		if (a[1] == 0)
			return efail(e, "ceil_div by 0");
		if (a[0] == INT64_MIN && a[1] == -1)
			return ovf(e, "ceil_div");
		*v = a[0] / a[1] + (a[0] % a[1] != 0 && (a[0] < 0) == (a[1] < 0));
		int64_t up;   /* the glue's form of sizes (graph_nonneg): a + b - 1 must fit too */
		if (a[0] >= 0 && a[1] > 0 && e->bits &&
		    (__builtin_add_overflow(a[0], a[1] - 1, &up) ? ovf(e, "ceil_div") : fits(e, up, "ceil_div's a + b - 1")))
			return -1;
	} else if (len == 3 && !memcmp(name, "min", 3)) {
		*v = a[0] < a[1] ? a[0] : a[1];
	} else {
		*v = a[0] > a[1] ? a[0] : a[1];
	}
	return 0;
}

static int primary(E *e, int64_t *v, int depth)
{
	if (depth > 32)
		return efail(e, "nested too deeply");
	sp(e);
	char c = *e->p;
	if (c == '(') {
		e->p++;
		if (expr(e, v, depth + 1))
			return -1;
		sp(e);
		if (*e->p != ')')
			return efail(e, "')' expected");
		e->p++;
		return 0;
	}
	if (c == '-') {
		e->p++;
		int64_t x = 0;
		if (primary(e, &x, depth + 1))
			return -1;
		if (x == INT64_MIN)
			return ovf(e, "-");
		*v = -x;
		return 0;
	}
	if (isdigit((unsigned char)c)) {
		int64_t x = 0;
		while (isdigit((unsigned char)*e->p)) {
			int d = *e->p++ - '0';
			if (x > (INT64_MAX - d) / 10)
				return efail(e, "integer literal too large");
			x = x * 10 + d;
		}
		if (isalpha((unsigned char)*e->p) || *e->p == '_')
			return efail(e, "bad number");
		*v = x;
		return fits(e, x, "a number");
	}
	if (isalpha((unsigned char)c) || c == '_') {
		const char *name = e->p;
		while (isalnum((unsigned char)*e->p) || *e->p == '_')
			e->p++;
		size_t len = (size_t)(e->p - name);
		const char *after = e->p;
		sp(e);
		if (*e->p == '(') {
			if ((len == 8 && !memcmp(name, "ceil_div", 8)) || (len == 3 && !memcmp(name, "min", 3))
			    || (len == 3 && !memcmp(name, "max", 3)))
				return call(e, name, len, v, depth);
			return efail(e, "unknown function '%.*s'", (int)len, name);
		}
		e->p = after;
		if (e->each)
			e->each(e->ctx, name, len);
		*v = 0;   /* without a lookup (names only), a defined value for `-` and min/max */
		if (e->lookup && e->lookup(e->ctx, name, len, v))
			return efail(e, "'%.*s' has no value", (int)len, name);
		return fits(e, *v, "a name's value");
	}
	if (!c)
		return efail(e, "operand expected, found end");
	return efail(e, "unexpected '%c'", c);
}

static int term(E *e, int64_t *v, int depth)
{
	if (primary(e, v, depth))
		return -1;
	for (;;) {
		sp(e);
		char op = *e->p;
		if (op != '*' && op != '/' && op != '%')
			return 0;
		e->p++;
		int64_t r = 0;
		if (primary(e, &r, depth))
			return -1;
		if (!e->lookup)
			continue;
		if (op == '*') {
			if (__builtin_mul_overflow(*v, r, v))
				return ovf(e, "*");
		} else {
			if (r == 0)
				return efail(e, "division by zero");
			if (*v == INT64_MIN && r == -1)
				return ovf(e, "/");
			*v = op == '/' ? *v / r : *v % r;
		}
		if (fits(e, *v, op == '*' ? "a product" : "a quotient"))
			return -1;
	}
}

static int expr(E *e, int64_t *v, int depth)
{
	if (term(e, v, depth))
		return -1;
	for (;;) {
		sp(e);
		char op = *e->p;
		if (op != '+' && op != '-')
			return 0;
		e->p++;
		int64_t r = 0;
		if (term(e, &r, depth))
			return -1;
		if (!e->lookup)
			continue;
		if (op == '+' ? __builtin_add_overflow(*v, r, v) : __builtin_sub_overflow(*v, r, v))
			return ovf(e, op == '+' ? "+" : "-");
		if (fits(e, *v, op == '+' ? "a sum" : "a difference"))
			return -1;
	}
}

static int run(E *e, int64_t *out)
{
	int64_t v = 0;
	if (expr(e, &v, 0))
		return -1;
	sp(e);
	if (*e->p)
		return efail(e, "unexpected '%c'", *e->p);
	if (out)
		*out = v;
	return 0;
}

int plk_expr_eval(const char *s, plk_lookup lookup, void *ctx, int64_t *out, char *err)
{
	E e = { s, s, lookup, NULL, ctx, err, 0, 0 };
	return run(&e, out);
}

int plk_expr_eval32(const char *s, plk_lookup lookup, void *ctx, int64_t *out, char *err)
{
	E e = { s, s, lookup, NULL, ctx, err, 0, 32 };
	return run(&e, out);
}

int plk_expr_eval64(const char *s, plk_lookup lookup, void *ctx, int64_t *out, char *err)
{
	E e = { s, s, lookup, NULL, ctx, err, 0, 64 };
	return run(&e, out);
}

int plk_expr_names(const char *s, void (*each)(void *, const char *, size_t), void *ctx, char *err)
{
	E e = { s, s, NULL, each, ctx, err, 0, 0 };
	return run(&e, NULL);
}
