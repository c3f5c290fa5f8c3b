/* test_eval.c: constant expressions, their errors and did-you-mean. */
#include <stdlib.h>
#include "unit.h"

static Arena *ar;

static Expr *num(int64_t v) { Expr *e = arena_alloc(ar, sizeof *e); e->k = EX_NUM; e->num = v; e->sp = span_none; return e; }
static Expr *name(const char *n) { Expr *e = arena_alloc(ar, sizeof *e); e->k = EX_NAME; e->name = n; e->sp = span_none; return e; }
static Expr *bin(int op, Expr *a, Expr *b) { Expr *e = arena_alloc(ar, sizeof *e); e->k = EX_BIN; e->op = op; e->a = a; e->b = b; e->sp = span_none; return e; }
static Expr *neg(Expr *a) { Expr *e = arena_alloc(ar, sizeof *e); e->k = EX_NEG; e->a = a; e->sp = span_none; return e; }
static Expr *call(const char *f, Expr *a, Expr *b)
{
	Expr *e = arena_alloc(ar, sizeof *e);
	e->k = EX_CALL;
	e->name = f;
	e->fn = builtin_of(f);
	e->sp = span_none;
	if (a) vec_push(ar, &e->args, a);
	if (b) vec_push(ar, &e->args, b);
	return e;
}

static void print_name_p(FILE *o, const Expr *n, const void *ud) { (void)ud; fputs(n->name, o); }
static int all_nonneg(const void *ud, const Expr *e) { (void)ud; (void)e; return 1; }
static int no_nonneg(const void *ud, const Expr *e) { (void)ud; (void)e; return 0; }

static char *buf;
static size_t len;

/* value, or INT64_MIN + 7 on error (the diagnostic is in buf) */
static int64_t ev(Ctx *c, const Expr *e, const Scope *s)
{
	int64_t v = 0;
	fclose(c->err);
	free(buf);
	c->err = open_memstream(&buf, &len);    /* a fresh one: buf holds this call's output only */
	if (eval_expr(c, e, s, &v))
		v = INT64_MIN + 7;
	fflush(c->err);
	return v;
}

int main(void)
{
	Ctx c;
	FILE *err = open_memstream(&buf, &len);
	ctx_init(&c, err);
	ar = c.arena;
	const char *nm[] = { "BM", "BN", "BK" };
	int64_t vals[] = { 128, 256, 64 };
	Scope inner = { nm, vals, 3, NULL };
	const char *onm[] = { "STAGES" };
	int64_t ov[] = { 4 };
	Scope outer = { onm, ov, 1, &inner };

	CHECK_EQ_INT(ev(&c, bin('*', name("BM"), name("BK")), &inner), 8192);
	CHECK_EQ_INT(ev(&c, bin('-', num(3), bin('*', num(2), num(5))), NULL), -7);
	CHECK_EQ_INT(ev(&c, bin('/', num(-7), num(2)), NULL), -3);
	CHECK_EQ_INT(ev(&c, bin('%', num(7), num(3)), NULL), 1);
	CHECK_EQ_INT(ev(&c, neg(name("BN")), &inner), -256);
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(1000), name("BM")), &inner), 8);
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(1024), num(128)), NULL), 8);
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(-7), num(2)), NULL), -3);
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(7), num(-2)), NULL), -3);
	CHECK_EQ_INT(ev(&c, call("min", num(3), num(-2)), NULL), -2);
	CHECK_EQ_INT(ev(&c, call("max", num(3), num(-2)), NULL), 3);
	CHECK_EQ_INT(ev(&c, bin('*', name("STAGES"), name("BK")), &outer), 256);   /* scope chain */
	CHECK_EQ_INT(c.nerrors, 0);

	/* errors: each one counted and coded */
	CHECK_EQ_INT(ev(&c, bin('/', num(1), bin('-', name("BK"), num(64))), &inner), INT64_MIN + 7);
	CHECK(strstr(buf, "E0321") && strstr(buf, "division by zero"));
	CHECK_EQ_INT(ev(&c, bin('%', num(1), num(0)), NULL), INT64_MIN + 7);
	CHECK(strstr(buf, "E0321"));
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(1), num(0)), NULL), INT64_MIN + 7);
	CHECK(strstr(buf, "E0321"));
	CHECK_EQ_INT(ev(&c, bin('*', num(INT64_MAX / 2), num(3)), NULL), INT64_MIN + 7);
	CHECK(strstr(buf, "E0322") && strstr(buf, "overflow"));
	CHECK_EQ_INT(ev(&c, bin('+', num(INT64_MAX), num(1)), NULL), INT64_MIN + 7);
	CHECK_EQ_INT(ev(&c, bin('-', num(INT64_MIN), num(1)), NULL), INT64_MIN + 7);
	CHECK_EQ_INT(ev(&c, bin('/', num(INT64_MIN), num(-1)), NULL), INT64_MIN + 7);
	CHECK_EQ_INT(ev(&c, neg(num(INT64_MIN)), NULL), INT64_MIN + 7);
	CHECK(strstr(buf, "E0322"));
	CHECK_EQ_INT(ev(&c, name("BKK"), &outer), INT64_MIN + 7);
	CHECK(strstr(buf, "E0320") && strstr(buf, "unknown name `BKK`") && strstr(buf, "did you mean `BK`?"));
	CHECK_EQ_INT(ev(&c, name("whatever"), &outer), INT64_MIN + 7);
	CHECK(strstr(buf, "E0320") && !strstr(buf, "did you mean"));
	CHECK_EQ_INT(ev(&c, call("ceildiv", num(1), num(2)), NULL), INT64_MIN + 7);
	CHECK(strstr(buf, "E0324") && strstr(buf, "did you mean `ceil_div`?"));
	CHECK_EQ_INT(ev(&c, call("min", num(1), NULL), NULL), INT64_MIN + 7);
	CHECK(strstr(buf, "E0324") && strstr(buf, "takes 2 arguments"));
	Expr au = { .k = EX_AUTO, .sp = span_none };
	CHECK_EQ_INT(ev(&c, &au, NULL), INT64_MIN + 7);
	CHECK(strstr(buf, "E0323"));
	/* errors inside a call or operand propagate without a second report */
	int before = c.nerrors;
	CHECK_EQ_INT(ev(&c, call("max", name("nope"), num(1)), NULL), INT64_MIN + 7);
	CHECK_EQ_INT(c.nerrors, before + 1);

	CHECK_EQ_INT(edit_distance("kitten", "sitting"), 3);
	CHECK_EQ_INT(edit_distance("", "abc"), 3);
	CHECK_EQ_INT(edit_distance("wgmma", "wgmma"), 0);
	CHECK_EQ_INT(edit_distance("warsp", "warps"), 1);     /* a swap is one edit */
	CHECK_EQ_INT(edit_distance("ca", "abc"), 3);          /* OSA: no edit of a swapped pair */
	const char *cands[] = { "wgmma", "tma", "tcgen05", "setmaxnreg" };
	CHECK_STR(did_you_mean("wgma", cands, 4), "wgmma");
	CHECK_STR(did_you_mean("setmaxreg", cands, 4), "setmaxnreg");
	CHECK(did_you_mean("zzz", cands, 4) == NULL);
	CHECK(did_you_mean("tma", cands, 4) == NULL);     /* itself is no suggestion */
	const char *dims[] = { "A", "M", "KK", "N" };   /* as near: the one beginning as K, else the first */
	CHECK_STR(did_you_mean("K", dims, 4), "KK");
	CHECK_STR(did_you_mean("K", dims, 2), "A");

	/* C text of sizes (the monolith's): a ceil_div is one operand, so
	 * 2 * ceil_div(x, 128) multiplies the quotient, not divides 2 x */
	{
		char *txt = NULL;
		size_t n = 0;
		FILE *o = open_memstream(&txt, &n);
		expr_print_c(o, bin('*', num(2), call("ceil_div", name("x"), num(128))), print_name_p, all_nonneg, NULL);
		fclose(o);
		CHECK_STR(txt, "(2 * (((x) + (128) - 1) / (128)))");
		free(txt);
		/* of anything that may be negative, the general form: it rounds
		 * toward +inf (ceil_div(-128, 64) is -2, not (-128 + 63) / 64 = -1) */
		txt = NULL;
		o = open_memstream(&txt, &n);
		expr_print_c(o, call("ceil_div", name("x"), num(64)), print_name_p, no_nonneg, NULL);
		fclose(o);
		CHECK_STR(txt, "(x / 64 + (((64) > 0 ? (x % 64) : -(x % 64)) > 0))");
		free(txt);
		txt = NULL;   /* a header's (for #if too) */
		o = open_memstream(&txt, &n);
		expr_print_c(o, call("ceil_div", name("x"), num(64)), NULL, NULL, NULL);
		fclose(o);
		CHECK_STR(txt, "(x / 64 + (x % 64 != 0 && (x < 0) == (64 < 0)))");
		free(txt);
		/* in long long (an i64 param's): every number a long long literal,
		 * so that 3000000000 * 2 is not computed in int */
		txt = NULL;
		o = open_memstream(&txt, &n);
		expr_print_c_ll(o, bin('*', bin('*', num(3000000000LL), num(2)), call("ceil_div", name("x"), num(-64))),
		                print_name_p, all_nonneg, NULL);
		fclose(o);
		CHECK_STR(txt, "((3000000000LL * 2LL) * (((x) + ((-64LL)) - 1) / ((-64LL))))");
		free(txt);
	}

	/* expr_past: the first step past the width, innermost first */
	{
		int64_t v = 0;
		const char *what = NULL;
		const Expr *e4g = bin('/', bin('*', num(4), num(1073741824)), num(8));
		CHECK(expr_past(&c, e4g, NULL, 32, &v, &what) == e4g->a);
		CHECK_EQ_INT(v, 4294967296LL);
		CHECK_STR(what, "is 4294967296");
		CHECK(expr_past(&c, e4g, NULL, 64, &v, &what) == NULL);   /* fits in long long */
		const Expr *cd32 = call("ceil_div", num(INT32_MAX), num(64));
		CHECK(expr_past(&c, cd32, NULL, 32, &v, &what) == cd32);
		CHECK_STR(what, "computes a + b - 1 = 2147483710");
		const Expr *cd = call("ceil_div", num(INT64_MAX), num(2));
		CHECK(expr_past(&c, cd, NULL, 64, &v, &what) == cd);   /* its a + b - 1 */
		CHECK_STR(what, "computes a + b - 1, past 64 bits");
		before = c.nerrors;   /* a step past 64 bits: found, not reported as eval's E0322 */
		const Expr *twice = bin('+', num(1), bin('*', num(INT64_MAX), num(2)));
		CHECK(expr_past(&c, twice, NULL, 64, &v, &what) == twice->b);
		CHECK_STR(what, "is past 64 bits");
		CHECK(expr_past(&c, twice, NULL, 32, &v, &what) == twice->b->a);   /* the number itself */
		CHECK(expr_past(&c, bin('*', num(-1), num(INT64_MIN)), NULL, 64, &v, &what) != NULL);
		CHECK_EQ_INT(c.nerrors, before);
	}

	/* ceil_div rounds toward +inf whatever the signs; a function's name
	 * is decided once (builtin_of), an unknown one is E0324 */
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(-128), num(64)), NULL), -2);
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(-90), num(64)), NULL), -1);
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(-9), num(-2)), NULL), 5);
	CHECK_EQ_INT(ev(&c, call("ceil_div", num(9), num(-2)), NULL), -4);
	CHECK_EQ_INT(builtin_of("ceil_div"), FN_CEIL_DIV);
	CHECK_EQ_INT(builtin_of("max"), FN_MAX);
	CHECK_EQ_INT(builtin_of("floor_div"), FN_UNKNOWN);
	CHECK_STR(builtin_name(FN_MIN), "min");
	CHECK(builtin_name(FN_UNKNOWN) == NULL);
	CHECK_EQ_INT(ev(&c, call("ceil_dv", num(9), num(2)), NULL), INT64_MIN + 7);
	CHECK(strstr(buf, "E0324") && strstr(buf, "did you mean `ceil_div`?"));

	/* expr_find_name: the node of a name anywhere in an expression or a
	 * condition (a megakernel's E0372 points at a `require`'s SMS) */
	{
		Expr *sms = name("SMS");
		Expr *e = bin('-', call("ceil_div", name("N"), num(64)), neg(sms));
		CHECK(expr_find_name(e, "SMS") == sms);
		CHECK(expr_find_name(e, "N") == e->a->args.v[0]);
		CHECK(expr_find_name(e, "M") == NULL);
		CHECK(expr_find_name(NULL, "SMS") == NULL);
		Require r = { 0 };
		r.op = REQ_IN;
		r.lhs = name("TURN");
		vec_push(ar, &r.set, num(0));
		vec_push(ar, &r.set, sms);
		CHECK(require_find_name(&r, "SMS") == sms);
		CHECK(require_find_name(&r, "TURN") == r.lhs);
		CHECK(require_find_name(&r, "N") == NULL);
		/* the device's values: the first a condition names, either one */
		CHECK(require_find_device_name(&r) == sms);
		Require d = { 0 };
		d.op = REQ_GE;
		d.lhs = bin('*', name("M"), name("DRAM_GBPS"));
		d.rhs = num(4000);
		CHECK(require_find_device_name(&d) == d.lhs->b);
		d.lhs = name("M");
		CHECK(require_find_device_name(&d) == NULL);
	}

	fclose(c.err);
	ctx_fini(&c);
	free(buf);
	UNIT_END();
}
