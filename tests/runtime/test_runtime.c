/* test_runtime.c: the runtime's pure part without a GPU: JSON reader,
 * shape expressions, manifest parsing and validation, argument binding
 * and inference, grid computation, tensor-map arguments. */
#include "json.h"
#include "plan.h"

#include <cuda.h>
#include <stdio.h>
#include <string.h>

static int failures, checks;
#define CHECK(c) do { checks++; if (!(c)) { failures++; \
	fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #c); } } while (0)
#define CHECK_EQ(a, b) do { long long a_ = (long long)(a), b_ = (long long)(b); checks++; if (a_ != b_) { \
	failures++; fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, a_, b_); } } while (0)
#define CHECK_STR(a, b) do { const char *a_ = (a), *b_ = (b); checks++; if (!a_ || strcmp(a_, b_)) { \
	failures++; fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, \
	a_ ? a_ : "(null)", b_); } } while (0)
/* err contains the fragment s. */
#define CHECK_HAS(err, s) do { checks++; if (!strstr((err), (s))) { failures++; \
	fprintf(stderr, "%s:%d: \"%s\" lacks \"%s\"\n", __FILE__, __LINE__, (err), (s)); } } while (0)

static const plk_device_vals H200 = { 132, 4916 };   /* an H200's SMS and DRAM_GBPS */

/* ----------------------------------------------------------------- JSON */

static pj_val *parse(const char *s, char *err)
{
	return pj_parse(s, strlen(s), err, PLK_ERRLEN);
}

static void json_bad(const char *s, const char *want)
{
	char err[PLK_ERRLEN];
	pj_val *v = parse(s, err);
	CHECK(v == NULL);
	pj_free(v);
	CHECK_HAS(err, want);
}

static void test_json(void)
{
	char err[PLK_ERRLEN];
	pj_val *v = parse(" {\"a\": [1, -2, 3.5, 1e3, true, false, null], \"s\": \"x\\\"\\n\\u00e9\\ud83d\\ude00\","
	                  " \"o\": {}, \"e\": [], \"a\": 7, \"big\": 12345678901234567890}\n", err);
	CHECK(v != NULL);
	if (!v) {
		fprintf(stderr, "json: %s\n", err);
		return;
	}
	CHECK_EQ(v->k, PJ_OBJ);
	const pj_val *a = pj_get(v, "a");    /* the last one wins */
	CHECK(a && a->k == PJ_NUM && a->is_int && a->i == 7);
	const pj_val *arr = &v->items[0];
	CHECK_EQ(arr->k, PJ_ARR);
	CHECK_EQ(arr->n, 7);
	CHECK(arr->items[1].is_int && arr->items[1].i == -2);
	CHECK(!arr->items[2].is_int && arr->items[2].num == 3.5);
	CHECK(!arr->items[3].is_int && arr->items[3].num == 1000);
	CHECK(arr->items[4].k == PJ_BOOL && arr->items[4].b == 1);
	CHECK(arr->items[5].k == PJ_BOOL && arr->items[5].b == 0);
	CHECK_EQ(arr->items[6].k, PJ_NULL);
	CHECK_STR(pj_get(v, "s")->s, "x\"\n\xc3\xa9\xf0\x9f\x98\x80");
	CHECK_EQ(pj_get(v, "o")->n, 0);
	CHECK_EQ(pj_get(v, "e")->k, PJ_ARR);
	CHECK(!pj_get(v, "big")->is_int);          /* beyond int64: kept as a double */
	CHECK(pj_get(v, "missing") == NULL);
	CHECK(pj_get(arr, "a") == NULL);           /* not an object */
	pj_free(v);

	json_bad("", "value expected");
	json_bad("[1, 2,]", "line 1, column 7: unexpected character ']'");
	json_bad("{\"a\": 1,}", "object key");
	json_bad("{\"a\" 1}", "':' expected");
	json_bad("[01]", "leading zero");
	json_bad("[1.]", "digit expected after '.'");
	json_bad("[1e]", "exponent");
	json_bad("\"abc", "unterminated string");
	json_bad("\"a\tb\"", "control character");
	json_bad("\"\\x\"", "bad escape");
	json_bad("\"\\ud800\"", "unpaired surrogate");
	json_bad("\"\\u12g4\"", "bad hex digit");
	json_bad("{}\n  x", "line 2, column 3: trailing characters");
	json_bad("[1 2]", "',' or ']' expected");
	json_bad("tru", "unexpected character");
	json_bad("// c\n{}", "unexpected character '/'");
	char deep[200];
	memset(deep, '[', 100);
	memset(deep + 100, ']', 100);
	json_bad((memcpy(deep + 199, "", 1), deep), "nested deeper");
}

/* ---------------------------------------------------------- expressions */

typedef struct Env { const char *names[4]; int64_t vals[4]; } Env;

static int env_look(void *ctx, const char *name, size_t len, int64_t *v)
{
	Env *e = ctx;
	for (int i = 0; i < 4 && e->names[i]; i++)
		if (strlen(e->names[i]) == len && !memcmp(e->names[i], name, len)) {
			*v = e->vals[i];
			return 0;
		}
	return -1;
}

static int64_t ev(const char *s, char *err)
{
	Env env = { { "M", "N", "K_dim" }, { 1000, 256, 64 } };
	int64_t v = -999;
	err[0] = 0;
	if (plk_expr_eval(s, env_look, &env, &v, err))
		return -999;
	return v;
}

/* as the kernel computes it: every value along the way in 32 bits */
static int64_t ev32(const char *s, int64_t m, char *err)
{
	Env env = { { "M", "N", "K_dim" }, { m, 256, 64 } };
	int64_t v = -999;
	err[0] = 0;
	if (plk_expr_eval32(s, env_look, &env, &v, err))
		return -999;
	return v;
}

static void count_name(void *ctx, const char *name, size_t len)
{
	(void)name;
	(void)len;
	(*(int *)ctx)++;
}

static void test_expr(void)
{
	char err[PLK_ERRLEN];
	CHECK_EQ(ev("M", err), 1000);
	CHECK_EQ(ev("2 * N", err), 512);
	CHECK_EQ(ev("2*N+1", err), 513);
	CHECK_EQ(ev("1 + 2 * 3 - 4 / 2", err), 5);
	CHECK_EQ(ev("(1 + 2) * 3", err), 9);
	CHECK_EQ(ev("-N + 1", err), -255);
	CHECK_EQ(ev("M % 7", err), 1000 % 7);
	CHECK_EQ(ev("ceil_div(M, 128)", err), 8);
	CHECK_EQ(ev("ceil_div(1024, 128)", err), 8);
	CHECK_EQ(ev("min(M, N) + max(M, K_dim)", err), 1256);
	CHECK_EQ(ev(" 42 ", err), 42);
	CHECK_EQ(ev("M / 0", err), -999);
	CHECK_HAS(err, "division by zero");
	CHECK_EQ(ev("ceil_div(M, 0)", err), -999);
	CHECK_HAS(err, "ceil_div by 0");
	/* an expression the kernel computes too: its values in 32 bits */
	CHECK_EQ(ev32("ceil_div(M, 128) * N", 1000, err), 8 * 256);
	CHECK_EQ(ev32("M * N / 256", 1 << 23, err), -999);           /* 2^31 on the way, 2^23 at the end */
	CHECK_HAS(err, "a product is 2147483648, past the kernel's 32-bit int");
	CHECK_EQ(ev32("ceil_div(M, 64)", 2147483647, err), -999);   /* the glue's M + 63 */
	CHECK_HAS(err, "ceil_div's a + b - 1 is 2147483710");
	CHECK_EQ(ev32("M + 4294967296 / 2", 1, err), -999);
	CHECK_HAS(err, "a number is 4294967296");
	CHECK_EQ(ev("M * N / 256 * 0 + 1", err), 1);                 /* the host's own: 64 bits */
	/* toward +inf whatever the signs, as plkc's checker and glue */
	CHECK_EQ(ev("ceil_div(0 - 128, 64)", err), -2);
	CHECK_EQ(ev("ceil_div(0 - 90, 64)", err), -1);
	CHECK_EQ(ev("ceil_div(9, 0 - 2)", err), -4);
	CHECK_EQ(ev("ceil_div(0 - 9, 0 - 2)", err), 5);
	CHECK_EQ(ev("ceil_div(9223372036854775807, 2)", err), 4611686018427387904);
	CHECK_EQ(ev("4611686018427387904 * 2", err), -999);
	CHECK_HAS(err, "overflow");
	CHECK_EQ(ev("99999999999999999999", err), -999);
	CHECK_HAS(err, "too large");
	CHECK_EQ(ev("Q + 1", err), -999);
	CHECK_HAS(err, "'Q' has no value");
	CHECK_EQ(ev("M +", err), -999);
	CHECK_HAS(err, "operand expected");
	CHECK_EQ(ev("(M", err), -999);
	CHECK_HAS(err, "')' expected");
	CHECK_EQ(ev("M N", err), -999);
	CHECK_HAS(err, "unexpected 'N'");
	CHECK_EQ(ev("foo(M, N)", err), -999);
	CHECK_HAS(err, "unknown function 'foo'");
	CHECK_EQ(ev("min(M)", err), -999);
	CHECK_HAS(err, "takes 2 arguments");
	CHECK_EQ(ev("2x", err), -999);
	CHECK_HAS(err, "bad number");
	int n = 0;
	CHECK_EQ(plk_expr_names("ceil_div(M, BM) * N + M", count_name, &n, err), 0);
	CHECK_EQ(n, 4);
	CHECK(plk_expr_names("M +* N", count_name, &n, err) != 0);
}

/* ------------------------------------------------------------- manifest */

/* docs/manifest.md's example, completed. */
static const char *GEMM =
	"{\n"
	"  \"plk_manifest\": 1, \"kernel\": \"gemm\", \"entry\": \"gemm_entry\", \"arch\": [\"sm_90a\"],\n"
	"  \"binary\": \"gemm.cubin\", \"block\": [384, 1, 1], \"cluster\": [1, 1, 1],\n"
	"  \"dynamic_smem\": 197632,\n"
	"  \"grid\": { \"policy\": \"persistent\", \"tiles\": [[\"M\", 128], [\"N\", 256]],\n"
	"            \"raster\": \"grouped\", \"group\": 8 },\n"
	"  \"tensors\": [\n"
	"    { \"name\": \"A\", \"dtype\": \"bf16\", \"elem_bytes\": 2, \"dims\": [\"M\", \"K\"] },\n"
	"    { \"name\": \"B\", \"dtype\": \"bf16\", \"elem_bytes\": 2, \"dims\": [\"N\", \"K\"] },\n"
	"    { \"name\": \"C\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"N\"] }\n"
	"  ],\n"
	"  \"params\": [\n"
	"    { \"name\": \"a\", \"kind\": \"tensormap\", \"tensor\": \"A\", \"dtype\": \"bf16\",\n"
	"      \"box\": [64, 128], \"swizzle\": \"sw128\" },\n"
	"    { \"name\": \"b\", \"kind\": \"tensormap\", \"tensor\": \"B\", \"box\": [64, 256], \"swizzle\": \"sw128\" },\n"
	"    { \"name\": \"c\", \"kind\": \"ptr\", \"tensor\": \"C\" },\n"
	"    { \"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\" },\n"
	"    { \"name\": \"N\", \"kind\": \"i32\", \"dim\": \"N\" },\n"
	"    { \"name\": \"K\", \"kind\": \"i32\", \"dim\": \"K\" }\n"
	"  ],\n"
	"  \"placement\": { \"roles\": [ { \"warps\": [0, 4] } ] },\n"
	"  \"future_key\": [1, {\"x\": null}]\n"
	"}\n";

static plk_manifest *mparse(const char *s, char *err)
{
	err[0] = 0;
	return plk_manifest_parse(s, strlen(s), err);
}

static void test_manifest(void)
{
	char err[PLK_ERRLEN];
	plk_manifest *m = mparse(GEMM, err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_STR(m->kernel, "gemm");
	CHECK_STR(m->entry, "gemm_entry");
	CHECK_STR(m->binary, "gemm.cubin");
	CHECK_EQ(m->narch, 1);
	CHECK_STR(m->arch[0], "sm_90a");
	CHECK_EQ(m->nengines, 0);
	CHECK_EQ(m->block[0], 384);
	CHECK_EQ(m->block[1], 1);
	CHECK_EQ(m->cluster[0], 1);
	CHECK_EQ(m->dynamic_smem, 197632);
	CHECK_EQ(m->policy, GRID_PERSISTENT);
	CHECK_EQ(m->ntiles, 2);
	CHECK_STR(m->tiles[1].expr, "N");
	CHECK_EQ(m->tiles[1].tile, 256);
	CHECK_STR(m->raster, "grouped");
	CHECK_EQ(m->group, 8);
	CHECK_EQ(m->ntensors, 3);
	CHECK_EQ(m->tensors[2].elem_bytes, 2);     /* from the dtype */
	CHECK_EQ(m->tensors[1].rank, 2);
	CHECK_EQ(m->nsyms, 3);
	CHECK_STR(m->syms[0], "M");
	CHECK_STR(m->syms[1], "K");
	CHECK_STR(m->syms[2], "N");
	CHECK_EQ(m->tensors[1].dim_sym[0], 2);
	CHECK_EQ(m->nparams, 6);
	CHECK_EQ(m->params[0].kind, PK_TENSORMAP);
	CHECK_EQ(m->params[0].tensor, 0);
	CHECK_EQ(m->params[0].box[0], 64);
	CHECK_EQ(m->params[0].box[1], 128);
	CHECK_EQ(m->params[0].swizzle, 128);
	CHECK_EQ(m->params[2].kind, PK_PTR);
	CHECK_EQ(m->params[2].tensor, 2);
	CHECK_EQ(m->params[3].kind, PK_I32);
	CHECK_STR(m->params[3].dim, "M");
	CHECK_EQ(plk_param_bytes(PK_TENSORMAP), 128);
	CHECK_EQ(plk_param_bytes(PK_I32), 4);
	CHECK_EQ(plk_param_bytes(PK_PTR), 8);
	plk_manifest_free(m);

	/* Minimal: no grid, no tensors; defaults. */
	m = mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [128], \"params\": []}", err);
	CHECK(m != NULL);
	if (m)
		CHECK_EQ(m->nengines, 0);
	if (m) {
		CHECK_STR(m->kernel, "k");
		CHECK_EQ(m->block[1], 1);
		CHECK_EQ(m->cluster[2], 1);
		CHECK_EQ(m->policy, GRID_TILES);
		CHECK_EQ(m->ntiles, 0);
		CHECK_EQ(m->dynamic_smem, 0);
		plk_manifest_free(m);
	}

	/* Expression dims add their symbols. */
	m = mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [128], \"params\": [],"
	           " \"tensors\": [{\"name\": \"W\", \"dtype\": \"bf16\", \"dims\": [\"2 * N\", \"K\"]}]}", err);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ(m->nsyms, 2);
		CHECK_EQ(m->tensors[0].dim_sym[0], -1);
		CHECK_EQ(m->tensors[0].dim_sym[1], 1);
		plk_manifest_free(m);
	}

	static const struct { const char *body, *want; } bad[] = {
		{ "[]", "top level must be an object" },
		{ "{\"entry\": \"k\"}", "missing \"plk_manifest\"" },
		{ "{\"plk_manifest\": 2, \"entry\": \"k\"}", "version 2 is newer" },
		{ "{\"plk_manifest\": 1, \"block\": [1], \"params\": []}", "missing \"entry\"" },
		{ "{\"plk_manifest\": 1, \"entry\": 3, \"block\": [1], \"params\": []}", "\"entry\" must be a non-empty string" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"params\": []}", "missing \"block\"" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"engines\": \"nvshmem\", \"block\": [1], \"params\": []}",
		  "\"engines\" must be an array of strings" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"engines\": [1], \"block\": [1], \"params\": []}",
		  "\"engines\"[0] must be a string" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [0], \"params\": []}", "\"block\"[0] is 0" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [64, 32], \"params\": []}", "more than 1024 threads" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"dynamic_smem\": -1, \"params\": []}",
		  "\"dynamic_smem\" is -1" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"dynamic_smem\": 1.5, \"params\": []}",
		  "must be an integer" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1]}", "\"params\" must be an array" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [{\"name\": \"x\", \"kind\": \"u8\"}]}",
		  "param \"x\": unknown kind \"u8\"" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [{\"name\": \"x\", \"kind\": \"tensormap\"}]}",
		  "a tensormap needs \"tensor\"" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [{\"name\": \"x\", \"kind\": \"ptr\", "
		  "\"tensor\": \"Z\"}]}", "tensor \"Z\" is not in \"tensors\"" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [{\"name\": \"x\", \"kind\": \"i32\"},"
		  " {\"name\": \"x\", \"kind\": \"i32\"}]}", "param \"x\" is declared twice" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [{\"name\": \"x\", \"kind\": \"ptr\", "
		  "\"dim\": \"M\"}]}", "cannot carry a dim" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [{\"name\": \"x\", \"kind\": \"i32\", "
		  "\"dim\": \"M +\"}]}", "param \"x\": \"dim\": in \"M +\": operand expected" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"weird\", \"dims\": [\"M\"]}]}", "unknown dtype \"weird\"" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"elem_bytes\": 4, \"dims\": [\"M\"]}]}",
		  "elem_bytes 4, but bf16 has 2" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": []}]}", "\"dims\" must be an array of 1 to" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\"]},"
		  " {\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\"]}]}", "tensor \"A\" is declared twice" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [true]}]}", "dims[0] must be a shape symbol" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"]}],"
		  " \"params\": [{\"name\": \"a\", \"kind\": \"tensormap\", \"tensor\": \"A\", \"box\": [64]}]}",
		  "\"box\" must be an array of 2 integers" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"]}],"
		  " \"params\": [{\"name\": \"a\", \"kind\": \"tensormap\", \"tensor\": \"A\", \"box\": [64, 512]}]}",
		  "box[1] is 512" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"]}],"
		  " \"params\": [{\"name\": \"a\", \"kind\": \"tensormap\", \"tensor\": \"A\", \"box\": [64, 64],"
		  " \"swizzle\": \"sw256\"}]}", "unknown swizzle \"sw256\"" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1],"
		  " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"]}],"
		  " \"params\": [{\"name\": \"a\", \"kind\": \"tensormap\", \"tensor\": \"A\", \"dtype\": \"f16\","
		  " \"box\": [64, 64]}]}", "dtype f16, but tensor A is bf16" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [], \"grid\": {\"policy\": \"magic\"}}",
		  "unknown policy \"magic\"" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [], \"grid\": {\"policy\": \"tiles\","
		  " \"tiles\": [[\"M\", 0]]}}", "tiles[0][1] is 0" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [], \"grid\": {\"policy\": \"tiles\","
		  " \"tiles\": [\"M\"]}}", "must be a [symbol, tile] pair" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"cluster\": [32], \"params\": []}",
		  "\"cluster\"[0] is 32" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [], \"int32\": \"M\"}",
		  "\"int32\" must be an array of strings" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [], \"int32\": [64]}",
		  "\"int32\"[0] must be a string" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [], \"int32\": [\"(2 *\"]}",
		  "\"int32\"[0]: in \"(2 *\": operand expected" },
		{ "{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [{\"name\": \"p\", \"kind\": \"ptr\"}],"
		  " \"int32\": [\"(2 * p)\"]}", "\"int32\"[0] \"(2 * p)\" names 'p', neither a shape symbol nor an integer param" },
		{ "{\"plk_manifest\": 1, ", "bad JSON: line 1, column 21" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		m = mparse(bad[i].body, err);
		CHECK(m == NULL);
		plk_manifest_free(m);
		CHECK_HAS(err, bad[i].want);
		CHECK_HAS(err, "manifest: ");
	}
}

/* ------------------------------------------------------ binding, resolve */

static void test_resolve(void)
{
	char err[PLK_ERRLEN];
	plk_manifest *m = mparse(GEMM, err);
	if (!m) {
		CHECK(0);
		return;
	}
	plk_binding *b = plk_binding_new(m);
	plk_plan *p = plk_plan_new(m);
	CHECK(b && p);

	/* Shapes infer every symbol. */
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10000, (int64_t[]){ 1000, 512 }, 2, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "B", 0x20000, (int64_t[]){ 256, 512 }, 2, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "C", 0x30000, NULL, 0, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	CHECK_EQ(p->sym[0], 1000);
	CHECK_EQ(p->sym[1], 512);
	CHECK_EQ(p->sym[2], 256);
	CHECK_EQ(p->tdims[2][0], 1000);
	CHECK_EQ(p->tdims[2][1], 256);
	CHECK_EQ(p->pval[2], 0x30000);                /* c: the pointer */
	CHECK_EQ(p->pval[3], 1000);                   /* M as i32 */
	CHECK_EQ(p->pval[5], 512);
	CHECK_EQ(p->tmap[0].dtype, CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
	CHECK_EQ(p->tmap[0].dim[0], 512);             /* innermost first */
	CHECK_EQ(p->tmap[0].dim[1], 1000);
	CHECK_EQ(p->tmap[0].stride[0], 1024);
	CHECK_EQ(p->tmap[1].box[1], 256);
	CHECK_EQ(p->tmap[1].addr, 0x20000);
	CHECK_EQ(p->tmap[1].swizzle, CU_TENSOR_MAP_SWIZZLE_128B);

	/* Work items and grid. */
	int64_t work = 0;
	CHECK_EQ(plk_work_items(m, p->sym, &work, err), 0);
	CHECK_EQ(work, 8 * 1);                        /* ceil(1000/128) * ceil(256/256) */
	unsigned g[3];
	CHECK_EQ(plk_grid(m, work, 132, g, err), 0);
	CHECK_EQ(g[0], 8);
	CHECK_EQ(plk_grid(m, 1000, 132, g, err), 0);
	CHECK_EQ(g[0], 132);                          /* persistent: min(work, SMs) */
	CHECK_EQ(g[1], 1);
	CHECK_EQ(plk_grid(m, INT32_MAX - 4 * 132, 132, g, err), 0);
	CHECK(plk_grid(m, INT32_MAX - 4 * 132 + 1, 132, g, err) != 0);   /* the last item's t + 4 x grid wraps */
	CHECK_HAS(err, "grid: 2147483120 work items; a persistent kernel of 132 blocks steps past 2147483647");

	/* Disagreeing shapes name both sources. */
	CHECK_EQ(plk_binding_tensor(m, b, "B", 0x20000, (int64_t[]){ 256, 520 }, 2, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "tensor B: dim 1 (K) is 520, but tensor A has K = 512");
	/* An explicit value beats the shape, and is named. */
	CHECK_EQ(plk_binding_dim(m, b, "K", 520, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "tensor A: dim 1 (K) is 512, but K = 520 was given");
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10000, (int64_t[]){ 1000, 520 }, 2, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	CHECK_EQ(p->tmap[0].stride[0], 1040);
	/* K = 500 bf16 rows are 1000 bytes: TMA needs a multiple of 16. */
	CHECK_EQ(plk_binding_dim(m, b, "K", 500, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10000, NULL, 0, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "B", 0x20000, NULL, 0, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "M", 1000, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "N", 256, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "parameter a (tensor map of A): row stride of dim 0 is 1000 bytes, not a multiple of 16");
	/* Rank mismatch. */
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10000, (int64_t[]){ 1000, 500, 1 }, 3, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "tensor A: given rank 3, but the kernel takes rank 2 [M, K]");

	/* Pointers only: symbols must be given. */
	plk_binding_clear(m, b);
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10000, NULL, 0, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "B", 0x20000, NULL, 0, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "C", 0x30000, NULL, 0, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "M", 4096, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "N", 4096, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "shape symbol K has no value");
	CHECK_EQ(plk_binding_dim(m, b, "K", 4096, err), 0);
	CHECK_EQ(plk_resolve_shapes(m, b, p, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	CHECK_EQ(plk_work_items(m, p->sym, &work, err), 0);
	CHECK_EQ(work, 32 * 16);
	/* i32 range. */
	CHECK_EQ(plk_binding_dim(m, b, "M", 1LL << 31, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "does not fit i32");
	CHECK_EQ(plk_binding_dim(m, b, "M", 0, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "tensor A: dim 0 (M) is 0; dims must be positive");
	CHECK_EQ(plk_binding_dim(m, b, "M", -128, err), 0);   /* before any dim of it: the kernel's ceil_div of sizes */
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "shape symbol M is -128; sizes are 0 or more");
	CHECK_EQ(plk_binding_dim(m, b, "M", 128, err), 0);
	/* Missing pointer. */
	CHECK_EQ(plk_binding_tensor(m, b, "C", 0, NULL, 0, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "tensor C has no device pointer (parameter c)");
	/* Misaligned pointer for a tensor map. */
	CHECK_EQ(plk_binding_tensor(m, b, "C", 0x30000, NULL, 0, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10008, NULL, 0, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "parameter a (tensor map of A): address 0x10008 is not 16-byte aligned");

	/* Binding errors. */
	CHECK(plk_binding_tensor(m, b, "Z", 1, NULL, 0, err) != 0);
	CHECK_HAS(err, "kernel gemm has no tensor Z");
	CHECK(plk_binding_dim(m, b, "Q", 1, err) != 0);
	CHECK_HAS(err, "no shape symbol Q");
	CHECK(plk_binding_int(m, b, "M", 1, err) != 0);
	CHECK_HAS(err, "parameter M carries M; bind that symbol");
	CHECK(plk_binding_ptr(m, b, "c", 1, err) != 0);
	CHECK_HAS(err, "parameter c comes from tensor C");
	CHECK(plk_binding_float(m, b, "zz", 1, err) != 0);
	CHECK_HAS(err, "no parameter zz");
	plk_binding_free(b);
	plk_plan_free(p);
	plk_manifest_free(m);

	/* Expression dims, free scalars, a tiles grid with clusters. */
	m = mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [256], \"cluster\": [2, 1, 1],"
	           " \"grid\": {\"policy\": \"tiles\", \"tiles\": [[\"M\", 128], [\"ceil_div(N, 2)\", 64]]},"
	           " \"tensors\": [{\"name\": \"W\", \"dtype\": \"f32\", \"dims\": [\"2 * N\", \"K\"]},"
	           "               {\"name\": \"X\", \"dtype\": \"f32\", \"dims\": [\"M\", \"K\"]}],"
	           " \"params\": [{\"name\": \"w\", \"kind\": \"ptr\", \"tensor\": \"W\"},"
	           "              {\"name\": \"x\", \"kind\": \"tensormap\", \"tensor\": \"X\", \"box\": [32, 64]},"
	           "              {\"name\": \"alpha\", \"kind\": \"f32\"}, {\"name\": \"seed\", \"kind\": \"i64\"},"
	           "              {\"name\": \"scratch\", \"kind\": \"ptr\"}, {\"name\": \"n2\", \"kind\": \"i64\", \"dim\": \"2*N\"}]}",
	           err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	b = plk_binding_new(m);
	p = plk_plan_new(m);
	CHECK_EQ(plk_binding_tensor(m, b, "X", 0x1000, (int64_t[]){ 300, 96 }, 2, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "W", 0x2000, (int64_t[]){ 100, 96 }, 2, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "shape symbol N has no value");   /* not inferred from "2 * N" */
	CHECK_EQ(plk_binding_dim(m, b, "N", 51, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "tensor W: dim 0 is 100, but 2 * N = 102");
	CHECK_EQ(plk_binding_dim(m, b, "N", 50, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "parameter alpha (f32) has no value");
	CHECK_EQ(plk_binding_float(m, b, "alpha", 0.5, err), 0);
	CHECK_EQ(plk_binding_int(m, b, "seed", -3, err), 0);
	CHECK_EQ(plk_binding_ptr(m, b, "scratch", 0xabc0, err), 0);
	CHECK(plk_binding_int(m, b, "scratch", 1, err) != 0);
	CHECK_HAS(err, "parameter scratch is ptr, not an integer");
	CHECK(plk_binding_float(m, b, "seed", 1, err) != 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	float alpha;
	uint32_t bits = (uint32_t)p->pval[2];
	memcpy(&alpha, &bits, 4);
	CHECK(alpha == 0.5f);
	CHECK_EQ((int64_t)p->pval[3], -3);
	CHECK_EQ(p->pval[4], 0xabc0);
	CHECK_EQ(p->pval[5], 100);
	CHECK_EQ(p->tmap[1].dtype, CU_TENSOR_MAP_DATA_TYPE_FLOAT32);
	CHECK_EQ(p->tmap[1].stride[0], 96 * 4);
	CHECK_EQ(p->tmap[1].swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);
	CHECK_EQ(plk_work_items(m, p->sym, &work, err), 0);
	CHECK_EQ(work, 4 * 1);                        /* ceil(300/128) * ceil(25/64), the rows in */
	CHECK_EQ(plk_grid(m, work, 132, g, err), 0);  /* whole clusters of 2 (docs/abi.md, "Tile quads") */
	CHECK_EQ(g[0], 4);
	plk_binding_free(b);
	plk_plan_free(p);
	plk_manifest_free(m);
}

/* What compiler/manifest.c writes: tile counts as expressions with tile 1,
 * parenthesised expression dims, integer dims. */
static void test_writer_forms(void)
{
	char err[PLK_ERRLEN];
	plk_manifest *m = mparse("{\"plk_manifest\": 1, \"kernel\": \"g\", \"entry\": \"g\", \"block\": [384, 1, 1],"
	                         " \"grid\": { \"policy\": \"persistent\", \"tiles\": [[\"ceil_div(M, 128)\", 1],"
	                         " [\"ceil_div(N, 256)\", 1]], \"raster\": \"grouped\", \"group\": 8 },"
	                         " \"tensors\": [{ \"name\": \"W\", \"dtype\": \"bf16\", \"elem_bytes\": 2,"
	                         " \"dims\": [\"(2 * N)\", \"K\"] }, { \"name\": \"S\", \"dtype\": \"f32\","
	                         " \"elem_bytes\": 4, \"dims\": [4, \"-(-M)\"] }],"
	                         " \"params\": [{ \"name\": \"w\", \"kind\": \"ptr\", \"tensor\": \"W\", \"dtype\": \"bf16\" },"
	                         " { \"name\": \"s\", \"kind\": \"ptr\", \"tensor\": \"S\" },"
	                         " { \"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\" }],"
	                         " \"placement\": { \"roles\": [{\"warps\": [0, 4], \"regs\": 40}], \"smem\": [] } }", err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	plk_binding *b = plk_binding_new(m);
	plk_plan *p = plk_plan_new(m);
	CHECK_EQ(plk_binding_tensor(m, b, "W", 0x1000, (int64_t[]){ 2 * 14336, 4096 }, 2, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "S", 0x2000, (int64_t[]){ 4, 8192 }, 2, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "M", 8192, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "N", 14336, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	int64_t work;
	CHECK_EQ(plk_work_items(m, p->sym, &work, err), 0);
	CHECK_EQ(work, 64 * 56);
	CHECK_EQ(p->pval[2], 8192);
	CHECK_EQ(p->tdims[1][1], 8192);
	/* dims that fit i32 whose tiles do not: the kernel counts in 32 bits */
	CHECK_EQ(plk_binding_tensor(m, b, "W", 0x1000, NULL, 0, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "S", 0x2000, NULL, 0, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "M", 1 << 30, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "N", 1 << 29, err), 0);
	CHECK_EQ(plk_binding_dim(m, b, "K", 64, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	CHECK(plk_work_items(m, p->sym, &work, err) != 0);
	CHECK_HAS(err, "grid: 17592186044416 work items; a kernel counts at most 2147483647");

	plk_binding_free(b);
	plk_plan_free(p);
	plk_manifest_free(m);
	/* raster grouped(16): a group's items, 16 x the tile columns, in int */
	m = mparse("{\"plk_manifest\": 1, \"entry\": \"g\", \"block\": [128], \"params\": [],"
	           " \"grid\": { \"policy\": \"persistent\", \"tiles\": [[\"M\", 128], [\"N\", 1]],"
	           " \"raster\": \"grouped\", \"group\": 16 } }", err);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ(plk_work_items(m, (int64_t[]){ 128, INT32_MAX / 16 }, &work, err), 0);
		CHECK(plk_work_items(m, (int64_t[]){ 128, INT32_MAX / 16 + 1 }, &work, err) != 0);
		CHECK_HAS(err, "grid: raster groups of 16 x 134217728 tiles; a kernel counts at most 2147483647");
	}
	plk_manifest_free(m);
}

/* What else the kernel computes in int ("int32"): over the shape
 * symbols and the integer params the caller gives, each refused by
 * plk_resolve, naming it, where a value along the way would not fit. */
static void test_ints(void)
{
	char err[PLK_ERRLEN];
	plk_manifest *m = mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [128],"
	                         " \"int32\": [\"ceil_div(K, 64)\", \"(W * 4)\", \"(Z + 1)\", \"((M * M) + (MM * K))\"],"
	                         " \"tensors\": [{ \"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"] }],"
	                         " \"params\": [{ \"name\": \"a\", \"kind\": \"ptr\", \"tensor\": \"A\" },"
	                         " { \"name\": \"W\", \"kind\": \"i32\" }, { \"name\": \"Z\", \"kind\": \"i64\" },"
	                         " { \"name\": \"MM\", \"kind\": \"i32\" }, { \"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\" },"
	                         " { \"name\": \"K\", \"kind\": \"i32\", \"dim\": \"K\" }] }", err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_EQ(m->nints, 4);
	CHECK_EQ(m->nsyms, 2);   /* W, Z and MM are params, not symbols */
	plk_binding *b = plk_binding_new(m);
	plk_plan *p = plk_plan_new(m);
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x1000, (int64_t[]){ 128, 4096 }, 2, err), 0);
	CHECK_EQ(plk_binding_int(m, b, "W", 1000, err), 0);
	CHECK_EQ(plk_binding_int(m, b, "Z", -7, err), 0);
	CHECK_EQ(plk_binding_int(m, b, "MM", 1, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	/* K fits i32, but the kernel's ceil_div adds 63 to it first */
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x1000, (int64_t[]){ 1, INT32_MAX }, 2, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "kernel k computes ceil_div(K, 64) in 32-bit int, and here ceil_div's a + b - 1 is "
	               "2147483710, past the kernel's 32-bit int (K = 2147483647)");
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x1000, (int64_t[]){ 1, INT32_MAX - 63 }, 2, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	/* a caller's i32, as the kernel reads it, times 4 */
	CHECK_EQ(plk_binding_int(m, b, "W", 1 << 29, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "kernel k computes (W * 4) in 32-bit int, and here a product is 2147483648, past the "
	               "kernel's 32-bit int (W = 536870912)");
	CHECK_EQ(plk_binding_int(m, b, "W", -(1 << 29), err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);   /* -2^31 fits */
	/* an i64 the kernel's int truncates */
	CHECK_EQ(plk_binding_int(m, b, "Z", 1LL << 32, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "kernel k computes (Z + 1) in 32-bit int, and here a name's value is 4294967296, past "
	               "the kernel's 32-bit int (Z = 4294967296)");
	/* each name's value once, M's apart from MM's */
	CHECK_EQ(plk_binding_int(m, b, "Z", 0, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x1000, (int64_t[]){ 128, 4096 }, 2, err), 0);
	CHECK_EQ(plk_binding_int(m, b, "MM", 1 << 20, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "kernel k computes ((M * M) + (MM * K)) in 32-bit int, and here a product is 4294967296, past "
	               "the kernel's 32-bit int (M = 128, MM = 1048576, K = 4096)");
	plk_binding_free(b);
	plk_plan_free(p);
	plk_manifest_free(m);
}

/* What the kernel computes in long long ("int64": an i64 param's
 * expression): past 32 bits is what it is for, past 64 refused. */
static void test_ints64(void)
{
	char err[PLK_ERRLEN];
	plk_manifest *m = mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [128],"
	                         " \"int32\": [\"(M + K)\"], \"int64\": [\"((M * K) * 4)\", \"(Z * Z)\"],"
	                         " \"tensors\": [{ \"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"] }],"
	                         " \"params\": [{ \"name\": \"a\", \"kind\": \"ptr\", \"tensor\": \"A\" },"
	                         " { \"name\": \"Z\", \"kind\": \"i64\" }] }", err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_EQ(m->nints, 1);
	CHECK_EQ(m->nints64, 2);
	plk_binding *b = plk_binding_new(m);
	plk_plan *p = plk_plan_new(m);
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x1000, (int64_t[]){ 1 << 20, 1 << 20 }, 2, err), 0);
	CHECK_EQ(plk_binding_int(m, b, "Z", 3000000000LL, err), 0);   /* Z * Z = 9e18: fits */
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	CHECK_EQ(plk_binding_int(m, b, "Z", 1LL << 32, err), 0);
	CHECK(plk_resolve(m, b, p, err) != 0);
	CHECK_HAS(err, "kernel k computes (Z * Z) in 64-bit long long, and here integer overflow: '*' goes past 64 "
	               "bits (Z = 4294967296)");
	/* the kernel's ceil_div adds b - 1 first, in long long too; the host's
	 * own evaluation is exact */
	{
		Env env = { { "M", "N", "K_dim" }, { INT64_MAX, 2, 64 } };
		int64_t v = 0;
		CHECK(plk_expr_eval64("ceil_div(M, N)", env_look, &env, &v, err) != 0);
		CHECK_HAS(err, "integer overflow: 'ceil_div' goes past 64 bits");
		CHECK_EQ(plk_expr_eval("ceil_div(M, N)", env_look, &env, &v, err), 0);
		CHECK_EQ(v, INT64_MAX / 2 + 1);
	}
	plk_binding_free(b);
	plk_plan_free(p);
	/* a malformed list is refused as "int32"'s is */
	CHECK(mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [], \"int64\": [\"(2 * q)\"]}",
	             err) == NULL);
	CHECK_HAS(err, "\"int64\"[0] \"(2 * q)\" names 'q', neither a shape symbol nor an integer param");
	plk_manifest_free(m);
}

/* ----------------------------------------------------------------- grid */

static void test_grid(void)
{
	char err[PLK_ERRLEN];
	plk_manifest *m = mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [128], \"cluster\": [2, 1],"
	                         " \"grid\": {\"policy\": \"persistent\", \"tiles\": [[\"M\", 64]]}, \"params\": []}", err);
	CHECK(m != NULL);
	if (!m)
		return;
	unsigned g[3];
	CHECK_EQ(plk_grid(m, 1000, 132, g, err), 0);
	CHECK_EQ(g[0], 132);
	CHECK_EQ(plk_grid(m, 1000, 131, g, err), 0);
	CHECK_EQ(g[0], 130);                          /* whole clusters that fit */
	CHECK_EQ(plk_grid(m, 7, 132, g, err), 0);
	CHECK_EQ(g[0], 8);
	CHECK(plk_grid(m, 7, 1, g, err) != 0);
	CHECK_HAS(err, "fewer than one cluster");
	CHECK(plk_grid(m, 0, 132, g, err) != 0);
	int64_t sym = 0, work;
	CHECK(plk_work_items(m, &sym, &work, err) != 0);
	CHECK_HAS(err, "must be positive");
	sym = 65;
	CHECK_EQ(plk_work_items(m, &sym, &work, err), 0);
	CHECK_EQ(work, 2);
	m->cluster[0] = 1;
	m->cluster[1] = 2;                            /* clusters along y: grid (n, 2, 1) */
	CHECK_EQ(plk_grid(m, 10, 132, g, err), 0);
	CHECK_EQ(g[0], 5);
	CHECK_EQ(g[1], 2);
	m->cluster[1] = 1;
	m->policy = GRID_TILES;
	CHECK_EQ(plk_grid(m, 5000, 132, g, err), 0);
	CHECK_EQ(g[0], 5000);                         /* tiles: one block per work item */
	plk_manifest_free(m);
}

/* ------------------------------------------------------------- variants */

static void test_variants(void)
{
	char err[PLK_ERRLEN];
	const char *j = "{\"plk_manifest\": 1, \"entry\": \"k\", \"arch\": [\"sm_90a\", \"sm_80\", \"sm_100a\"],"
	                " \"block\": [384], \"dynamic_smem\": 200000, \"params\": [],"
	                " \"variants\": [{\"arch\": \"sm_90a\", \"block\": [384, 1, 1], \"dynamic_smem\": 200000, "
	                "\"placement\": {\"x\": [1]}},"
	                " {\"arch\": \"sm_80\", \"block\": [256, 1, 1], \"dynamic_smem\": 99000},"
	                " {\"arch\": \"sm_100a\", \"block\": [512], \"cluster\": [2, 1, 1]}]}";
	static const struct { int major, minor, want, block, cluster; uint32_t smem; } cases[] = {
		{ 9, 0, 0, 384, 1, 200000 },
		{ 8, 0, 1, 256, 1, 99000 },
		{ 8, 6, 1, 256, 1, 99000 },      /* a plain sm_80 cubin runs on sm_86 */
		{ 10, 0, 2, 512, 2, 200000 },    /* no dynamic_smem: the top level's */
		{ 12, 0, -1, 384, 1, 200000 },   /* none: the top level stays */
		{ 7, 5, -1, 384, 1, 200000 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		plk_manifest *m = mparse(j, err);
		CHECK(m != NULL);
		if (!m) {
			fprintf(stderr, "%s\n", err);
			return;
		}
		CHECK_EQ(m->nvariants, 3);
		CHECK_EQ(plk_manifest_select(m, cases[i].major, cases[i].minor), cases[i].want);
		CHECK_EQ(m->block[0], cases[i].block);
		CHECK_EQ(m->cluster[0], cases[i].cluster);
		CHECK_EQ(m->dynamic_smem, cases[i].smem);
		plk_manifest_free(m);
	}
	plk_manifest *m = mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [],"
	                         " \"variants\": [{\"block\": [1]}]}", err);
	CHECK(m == NULL);
	CHECK_HAS(err, "variants[0]: missing \"arch\"");
	plk_manifest_free(m);
	m = mparse("{\"plk_manifest\": 1, \"entry\": \"k\", \"block\": [1], \"params\": [], \"variants\": {}}", err);
	CHECK(m == NULL);
	CHECK_HAS(err, "\"variants\" must be an array");
	plk_manifest_free(m);
}

/* ------------------------------------------------------------ tensor map */


/* A kernel's `require` ("requires"): a variant whose conditions fail is
 * passed over by the pick, and refused when launched anyway, the error
 * naming the condition and its value. */
static void test_requires(void)
{
	char err[PLK_ERRLEN];
	const char *j = "{\"plk_manifest\": 1, \"kernel\": \"auto\", \"entry\": \"pp\", \"block\": [384],"
	                " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"N\"]}],"
	                " \"params\": [], \"grid\": {\"policy\": \"tiles\", \"tiles\": [[\"M\", 128]]},"
	                " \"variants\": ["
	                "  {\"name\": \"skinny\", \"when\": [{\"lhs\": \"M\", \"op\": \"<=\", \"rhs\": 16}],"
	                "   \"requires\": [{\"lhs\": \"(N % 8)\", \"op\": \"==\", \"rhs\": 0}],"
	                "   \"block\": [128], \"params\": [], \"grid\": {\"policy\": \"tiles\", \"tiles\": [[\"N\", 64]]}},"
	                "  {\"name\": \"pp\", \"when\": [], \"block\": [384], \"params\": [],"
	                "   \"grid\": {\"policy\": \"tiles\", \"tiles\": [[\"M\", 128]]}}]}";
	plk_manifest *m = mparse(j, err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_EQ(m->kvars[0].m->nreqs, 1);
	CHECK_EQ(m->kvars[1].m->nreqs, 0);
	static const struct { int64_t M, N; int want; } cases[] = {
		{ 16, 4096, 0 }, { 16, 4100, 1 }, { 17, 4096, 1 }, { 1, 8, 0 }, { 1, 9, 1 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t sym[2] = { cases[i].M, cases[i].N };   /* m's order: M, N */
		int pick = -1;
		CHECK_EQ(plk_variant_pick(m, sym, &H200, &pick, err), 0);
		CHECK_EQ(pick, cases[i].want);
	}
	int64_t bad[2] = { 16, 4100 }, good[2] = { 16, 4096 };
	CHECK_EQ(plk_requires_check(m->kvars[0].m, good, &H200, err), 0);
	CHECK_EQ(plk_requires_check(m->kvars[0].m, bad, &H200, err), -1);
	CHECK_HAS(err, "kernel skinny requires (N % 8) == 0, and here (N % 8) = 4");
	CHECK_EQ(plk_requires_check(m->kvars[1].m, bad, &H200, err), 0);
	plk_manifest_free(m);
	char buf[4096];
	const char *at = strstr(j, "\"requires\": [{");
	snprintf(buf, sizeof buf, "%.*s\"requires\": {}, \"x\": [{%s", (int)(at - j), j, at + strlen("\"requires\": [{"));
	m = mparse(buf, err);
	CHECK(m == NULL);
	CHECK_HAS(err, "variants[0]: skinny: \"requires\" must be an array of conditions");
	plk_manifest_free(m);
}
/* A select's kernel variants: each its own launch, the first whose
 * conditions hold, errors of the form. */
static void test_kernel_variants(void)
{
	char err[PLK_ERRLEN];
	const char *j = "{\"plk_manifest\": 1, \"kernel\": \"auto\", \"entry\": \"pp\", \"block\": [384],"
	                " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"]}],"
	                " \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}],"
	                " \"grid\": {\"policy\": \"persistent\", \"tiles\": [[\"M\", 128]]},"
	                " \"variants\": ["
	                "  {\"name\": \"wide\", \"when\": [{\"lhs\": \"ceil_div(M, 256)\", \"op\": \"<=\", \"rhs\": \"SMS\"},"
	                "    {\"lhs\": \"K\", \"op\": \"in\", \"set\": [64, \"2 * 64\"]},"
	                "    {\"lhs\": \"DRAM_GBPS / 1000\", \"op\": \">=\", \"rhs\": 4}],"
	                "   \"block\": [256], \"dynamic_smem\": 1000, \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}],"
	                "   \"grid\": {\"policy\": \"tiles\", \"tiles\": [[\"M\", 256]]}},"
	                "  {\"name\": \"pp\", \"when\": [], \"block\": [384],"
	                "   \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}],"
	                "   \"grid\": {\"policy\": \"persistent\", \"tiles\": [[\"M\", 128]]}}]}";
	plk_manifest *m = mparse(j, err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_EQ(m->nkvars, 2);
	CHECK_EQ(m->nvariants, 0);
	CHECK_EQ(plk_manifest_variant(m, "pp"), 1);
	CHECK_EQ(plk_manifest_variant(m, "nope"), -1);
	CHECK_EQ(m->kvars[0].m->block[0], 256);
	CHECK_EQ(m->kvars[0].m->dynamic_smem, 1000);
	CHECK_EQ(m->kvars[0].m->ntensors, 1);
	/* syms in m's order: M, K (SMS and DRAM_GBPS are the device's) */
	CHECK_EQ(m->nsyms, 2);
	static const struct { int64_t M, K, sms, gbps; int want; } cases[] = {
		{ 1000, 64, 132, 4916, 0 }, { 1000, 128, 132, 4916, 0 }, { 1000, 96, 132, 4916, 1 },
		{ 256 * 132, 64, 132, 4916, 0 }, { 256 * 132 + 1, 64, 132, 4916, 1 }, { 1000, 64, 3, 4916, 1 },
		{ 1000, 64, 132, 3352, 1 }, { 1000, 64, 132, 4000, 0 },
	};
	for (size_t i = 0; i < sizeof cases / sizeof cases[0]; i++) {
		int64_t sym[2] = { cases[i].M, cases[i].K };
		int pick = -1;
		const plk_device_vals dv = { cases[i].sms, cases[i].gbps };
		CHECK_EQ(plk_variant_pick(m, sym, &dv, &pick, err), 0);
		CHECK_EQ(pick, cases[i].want);
	}
	plk_manifest_free(m);
	static const struct { const char *from, *to, *want; } bad[] = {
		{ "\"op\": \"<=\"", "\"op\": \"=<\"", "\"op\" must be one of" },
		{ "\"op\": \"in\", \"set\"", "\"op\": \"in\", \"sets\"", "\"in\" needs a \"set\" array" },
		{ "{\"lhs\": \"ceil_div(M, 256)\", ", "{", "needs \"lhs\"" },
		{ "\"when\": []", "\"when\": {}", "variants[1]: \"when\" must be an array of conditions" },
		{ "\"dynamic_smem\": 1000, \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}",
		  "\"dynamic_smem\": 1000, \"params\": [{\"name\": \"alpha\", \"kind\": \"f32\"}",
		  "variants[0] (wide): param \"alpha\" (f32) is bound by name, but the top level has no such f32 param" },
	};
	for (size_t i = 0; i < sizeof bad / sizeof bad[0]; i++) {
		char buf[4096];
		const char *at = strstr(j, bad[i].from);
		CHECK(at != NULL);
		if (!at)
			continue;
		snprintf(buf, sizeof buf, "%.*s%s%s", (int)(at - j), j, bad[i].to, at + strlen(bad[i].from));
		m = mparse(buf, err);
		CHECK(m == NULL);
		CHECK_HAS(err, bad[i].want);
		plk_manifest_free(m);
	}
	/* One kernel in two branches of the rule: its second entry is the
	 * branch alone (name and when), the kernel listed once. */
	const char *tw = "{\"plk_manifest\": 1, \"kernel\": \"auto\", \"entry\": \"pp\", \"block\": [384],"
	                 " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"]}],"
	                 " \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}],"
	                 " \"grid\": {\"policy\": \"persistent\", \"tiles\": [[\"M\", 128]]},"
	                 " \"variants\": ["
	                 "  {\"name\": \"wide\", \"when\": [{\"lhs\": \"M\", \"op\": \">=\", \"rhs\": 4096}], \"block\": [256],"
	                 "   \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}],"
	                 "   \"grid\": {\"policy\": \"persistent\", \"tiles\": [[\"M\", 256]]}},"
	                 "  {\"name\": \"small\", \"when\": [{\"lhs\": \"M\", \"op\": \"<=\", \"rhs\": 64}], \"block\": [128],"
	                 "   \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}],"
	                 "   \"grid\": {\"policy\": \"persistent\", \"tiles\": [[\"M\", 64]]}},"
	                 "  {\"name\": \"wide\", \"when\": [{\"lhs\": \"K\", \"op\": \"<\", \"rhs\": 256}]},"
	                 "  {\"name\": \"pp\", \"when\": [], \"block\": [384],"
	                 "   \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}],"
	                 "   \"grid\": {\"policy\": \"persistent\", \"tiles\": [[\"M\", 128]]}}]}";
	m = mparse(tw, err);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ(m->nkvars, 3);
		CHECK_EQ(m->nrules, 4);
		CHECK_EQ(m->rules[2].kvar, 0);
		CHECK_EQ(plk_manifest_variant(m, "pp"), 2);
		/* M >= 4096: wide (its first branch); M <= 64: small, ahead of
		 * wide's second branch; K < 256: wide again; else pp */
		static const struct { int64_t M, K; int want; } tc[] = {
			{ 8192, 64, 0 }, { 32, 64, 1 }, { 1000, 64, 0 }, { 1000, 4096, 2 }, { 32, 4096, 1 },
		};
		for (size_t i = 0; i < sizeof tc / sizeof tc[0]; i++) {
			int64_t sym[2] = { tc[i].M, tc[i].K };
			int pick = -1;
			CHECK_EQ(plk_variant_pick(m, sym, &(plk_device_vals){ 132, 3352 }, &pick, err), 0);
			CHECK_EQ(pick, tc[i].want);
		}
		plk_manifest_free(m);
	}
	{
		char buf[4096];
		const char *at = strstr(tw, "\"rhs\": 256}]}");
		CHECK(at != NULL);
		snprintf(buf, sizeof buf, "%.*s\"rhs\": 256}], \"block\": [64]}%s", (int)(at - tw), tw, at + strlen("\"rhs\": 256}]}"));
		m = mparse(buf, err);
		CHECK(m == NULL);
		CHECK_HAS(err, "variants[2]: kernel \"wide\" is listed before, so this entry is a branch of the rule: "
		               "\"name\" and \"when\" only, not \"block\"");
		plk_manifest_free(m);
	}
	/* Variants launching different lists: `wide` takes A's pointer first
	 * and M, the default only M; both the scalar s, bound once by name at
	 * the top level, where each variant finds it by its index there. */
	const char *dl = "{\"plk_manifest\": 1, \"kernel\": \"auto\", \"entry\": \"pp\", \"block\": [128],"
	                 " \"tensors\": [{\"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"]}],"
	                 " \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}, {\"name\": \"s\", \"kind\": \"f32\"}],"
	                 " \"grid\": {\"policy\": \"tiles\", \"tiles\": [[\"M\", 128]]},"
	                 " \"variants\": ["
	                 "  {\"name\": \"wide\", \"when\": [{\"lhs\": \"M\", \"op\": \">\", \"rhs\": 64}], \"block\": [256],"
	                 "   \"params\": [{\"name\": \"a\", \"kind\": \"ptr\", \"tensor\": \"A\"},"
	                 "    {\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}, {\"name\": \"s\", \"kind\": \"f32\"}],"
	                 "   \"grid\": {\"policy\": \"tiles\", \"tiles\": [[\"M\", 256]]}},"
	                 "  {\"name\": \"pp\", \"when\": [], \"block\": [128],"
	                 "   \"params\": [{\"name\": \"M\", \"kind\": \"i32\", \"dim\": \"M\"}, {\"name\": \"s\", \"kind\": \"f32\"}],"
	                 "   \"grid\": {\"policy\": \"tiles\", \"tiles\": [[\"M\", 128]]}}]}";
	m = mparse(dl, err);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ(m->maxparams, 3);
		CHECK_EQ(m->kvars[0].m->params[2].top, 1);
		CHECK_EQ(m->kvars[0].m->params[0].top, -1);
		plk_binding *b = plk_binding_new(m);
		plk_plan *p = plk_plan_new(m);
		CHECK(b && p);
		CHECK_EQ(plk_binding_tensor(m, b, "A", 0x40000, (int64_t[]){ 100, 64 }, 2, err), 0);
		CHECK_EQ(plk_binding_float(m, b, "s", 0.25, err), 0);
		CHECK_EQ(plk_resolve(m->kvars[0].m, b, p, err), 0);
		CHECK_EQ(p->pval[0], 0x40000);
		CHECK_EQ(p->pval[1], 100);
		float f;
		uint32_t bits = (uint32_t)p->pval[2];
		memcpy(&f, &bits, 4);
		CHECK(f == 0.25f);
		CHECK_EQ(plk_resolve(m->kvars[1].m, b, p, err), 0);
		CHECK_EQ(p->pval[0], 100);
		bits = (uint32_t)p->pval[1];
		memcpy(&f, &bits, 4);
		CHECK(f == 0.25f);
		plk_plan_free(p);
		plk_binding_free(b);
		plk_manifest_free(m);
	}
	/* a select's fatbin: each kernel variant has its own per-arch entries,
	 * the top level (the default variant) its own too */
	const char *fb = "{\"plk_manifest\": 1, \"kernel\": \"pick\", \"entry\": \"pp\", \"block\": [384],"
	                 " \"arch\": [\"sm_90a\", \"sm_80\"], \"params\": [], \"grid\": {\"policy\": \"tiles\", \"tiles\": [[1, 1]]},"
	                 " \"variants\": ["
	                 "  {\"name\": \"wide\", \"when\": [], \"block\": [256], \"dynamic_smem\": 1000, \"params\": [],"
	                 "   \"grid\": {\"policy\": \"tiles\", \"tiles\": [[1, 1]]},"
	                 "   \"variants\": [{\"arch\": \"sm_90a\", \"block\": [256], \"dynamic_smem\": 1000},"
	                 "                {\"arch\": \"sm_80\", \"block\": [128], \"dynamic_smem\": 500}]},"
	                 "  {\"name\": \"pp\", \"when\": [], \"block\": [384], \"params\": [],"
	                 "   \"grid\": {\"policy\": \"tiles\", \"tiles\": [[1, 1]]},"
	                 "   \"variants\": [{\"arch\": \"sm_90a\", \"block\": [384]}, {\"arch\": \"sm_80\", \"block\": [160]}]},"
	                 "  {\"arch\": \"sm_90a\", \"block\": [384]}, {\"arch\": \"sm_80\", \"block\": [160]}]}";
	static const struct { int major, minor, want, wide, wide_smem, pp, top; } arches[] = {
		{ 9, 0, 0, 256, 1000, 384, 384 }, { 8, 6, 1, 128, 500, 160, 160 }, { 7, 5, -1, 256, 1000, 384, 384 },
	};
	for (size_t i = 0; i < sizeof arches / sizeof arches[0]; i++) {
		m = mparse(fb, err);
		CHECK(m != NULL);
		if (!m) {
			fprintf(stderr, "%s\n", err);
			return;
		}
		CHECK_EQ(m->nkvars, 2);
		CHECK_EQ(m->nvariants, 2);
		CHECK_EQ(m->kvars[0].m->nvariants, 2);
		CHECK_EQ(plk_manifest_select(m, arches[i].major, arches[i].minor), arches[i].want);
		CHECK_EQ(m->kvars[0].m->block[0], arches[i].wide);
		CHECK_EQ(m->kvars[0].m->dynamic_smem, arches[i].wide_smem);
		CHECK_EQ(m->kvars[1].m->block[0], arches[i].pp);
		CHECK_EQ(m->block[0], arches[i].top);
		plk_manifest_free(m);
	}
	char buf[4096];
	const char *at = strstr(fb, "{\"arch\": \"sm_80\", \"block\": [128]");
	CHECK(at != NULL);
	snprintf(buf, sizeof buf, "%.*s{\"name\": \"x\", %s", (int)(at - fb), fb, at + 1);
	m = mparse(buf, err);
	CHECK(m == NULL);
	CHECK_HAS(err, "variants[0]: variants[1]: a kernel variant's \"variants\" are per arch");
	plk_manifest_free(m);
}

static void test_tmap(void)
{
	char err[PLK_ERRLEN];
	plk_tmap_args a;
	/* 3-D f16 [B=4, S=1024, D=128], box 64 x 128 x 1. */
	CHECK_EQ(plk_tmap_compute("f16", 2, (int64_t[]){ 4, 1024, 128 }, 3, 0x100000, (uint32_t[]){ 64, 128, 1 }, 3,
	                          128, &a, err), 0);
	CHECK_EQ(a.rank, 3);
	CHECK_EQ(a.dtype, CU_TENSOR_MAP_DATA_TYPE_FLOAT16);
	CHECK_EQ(a.dim[0], 128);
	CHECK_EQ(a.dim[1], 1024);
	CHECK_EQ(a.dim[2], 4);
	CHECK_EQ(a.stride[0], 256);
	CHECK_EQ(a.stride[1], 256 * 1024);
	CHECK_EQ(a.box[0], 64);
	CHECK_EQ(a.box[2], 1);
	CHECK_EQ(a.estride[0], 1);
	CHECK_EQ(a.estride[2], 1);
	CHECK_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_128B);
	CHECK_EQ(a.l2promo, CU_TENSOR_MAP_L2_PROMOTION_L2_256B);
	/* 1-D: no strides. */
	CHECK_EQ(plk_tmap_compute("f32", 4, (int64_t[]){ 1000 }, 1, 0x100, (uint32_t[]){ 32 }, 1, 0, &a, err), 0);
	CHECK_EQ(a.dim[0], 1000);
	CHECK_EQ(a.swizzle, CU_TENSOR_MAP_SWIZZLE_NONE);
	/* fp8 travels as bytes. */
	CHECK_EQ(plk_tmap_compute("e4m3", 1, (int64_t[]){ 64, 128 }, 2, 0x100, (uint32_t[]){ 128, 64 }, 2, 128, &a, err), 0);
	CHECK_EQ(a.dtype, CU_TENSOR_MAP_DATA_TYPE_UINT8);
	CHECK_EQ(plk_tmap_dtype("bf16", 2), CU_TENSOR_MAP_DATA_TYPE_BFLOAT16);
	CHECK_EQ(plk_tmap_dtype("odd", 2), -1);

	/* Hardware rules, with the reason. */
	CHECK(plk_tmap_compute("bf16", 2, (int64_t[]){ 64, 128 }, 2, 0x100, (uint32_t[]){ 128, 64 }, 2, 128, &a, err));
	CHECK_HAS(err, "box[0] spans 256 bytes, more than the 128-byte swizzle allows");
	CHECK(plk_tmap_compute("bf16", 2, (int64_t[]){ 64, 100 }, 2, 0x100, (uint32_t[]){ 32, 64 }, 2, 64, &a, err));
	CHECK_HAS(err, "row stride of dim 0 is 200 bytes, not a multiple of 16");
	CHECK(plk_tmap_compute("bf16", 2, (int64_t[]){ 64, 128 }, 2, 0x108, (uint32_t[]){ 32, 64 }, 2, 64, &a, err));
	CHECK_HAS(err, "not 16-byte aligned");
	CHECK(plk_tmap_compute("bf16", 2, (int64_t[]){ 64, 128 }, 2, 0x100, (uint32_t[]){ 4, 64 }, 2, 0, &a, err));
	CHECK_HAS(err, "box[0] spans 8 bytes, not a multiple of 16");
	CHECK(plk_tmap_compute("bf16", 2, (int64_t[]){ 64, 128 }, 2, 0x100, (uint32_t[]){ 64 }, 1, 0, &a, err));
	CHECK_HAS(err, "box has 1 entries for a rank-2 tensor");
	CHECK(plk_tmap_compute("bf16", 2, (int64_t[]){ 1, 1, 1, 1, 1, 8 }, 6, 0x100, (uint32_t[]){ 8, 1, 1, 1, 1, 1 }, 6, 0,
	                       &a, err));
	CHECK_HAS(err, "rank 6");
	CHECK(plk_tmap_compute("bf16", 2, (int64_t[]){ 64, 128 }, 2, 0x100, (uint32_t[]){ 64, 300 }, 2, 0, &a, err));
	CHECK_HAS(err, "box[1] is 300");
	CHECK(plk_tmap_compute("odd", 2, (int64_t[]){ 64, 128 }, 2, 0x100, (uint32_t[]){ 64, 64 }, 2, 0, &a, err));
	CHECK_HAS(err, "dtype odd has no tensor-map data type");
	CHECK(plk_tmap_compute("bf16", 2, (int64_t[]){ 64, 1LL << 33 }, 2, 0x100, (uint32_t[]){ 64, 64 }, 2, 0, &a, err));
	CHECK_HAS(err, "must be 1..2^32");
}

/* Every prefix and many byte flips of a good manifest: no crash, no leak
 * (run under the sanitizers), and a message whenever it is rejected. */
static void test_robust(void)
{
	char err[PLK_ERRLEN], buf[4096];
	size_t n = strlen(GEMM);
	int rejected = 0;
	for (size_t len = 0; len < n; len++) {
		err[0] = 0;
		plk_manifest *m = plk_manifest_parse(GEMM, len, err);
		rejected += m == NULL;
		if (!m && !err[0])
			CHECK(!"rejected without a message");
		plk_manifest_free(m);
	}
	CHECK(rejected > (int)n - 10);
	uint64_t s = 12345;
	static const char bytes[] = "{}[]\":,0-9eE.\\ux\x01 ";
	for (int i = 0; i < 4000; i++) {
		memcpy(buf, GEMM, n + 1);
		for (int j = 0; j < 1 + i % 3; j++) {
			s = s * 6364136223846793005ULL + 1442695040888963407ULL;
			buf[(s >> 33) % n] = bytes[(s >> 17) % (sizeof bytes - 1)];
		}
		err[0] = 0;
		plk_manifest *m = plk_manifest_parse(buf, n, err);
		if (!m && !err[0])
			CHECK(!"rejected without a message");
		plk_manifest_free(m);
	}
}

/* ------------------------------------------------- cubins, error names */

/* A minimal 64-bit ELF: a null section, .shstrtab and .nv.info.k holding
 * the given attribute bytes. */
static size_t tiny_elf(unsigned char *out, const unsigned char *info, size_t ninfo)
{
	static const char names[] = "\0.shstrtab\0.nv.info.k\0";
	memset(out, 0, 4096);
	memcpy(out, "\177ELF\2\1\1", 7);
	size_t at = 64, str = at;
	memcpy(out + at, names, sizeof names);
	at += sizeof names;
	size_t inf = at;
	memcpy(out + at, info, ninfo);
	at = (at + ninfo + 7) / 8 * 8;
	size_t sh = at;
	out[0x28] = (unsigned char)sh;
	out[0x29] = (unsigned char)(sh >> 8);
	out[0x3a] = 64;
	out[0x3c] = 3;
	out[0x3e] = 1;
	unsigned char *s1 = out + sh + 64, *s2 = out + sh + 128;
	s1[0] = 1;                                  /* ".shstrtab" */
	s1[0x18] = (unsigned char)str;
	s1[0x20] = sizeof names;
	s2[0] = 11;                                 /* ".nv.info.k" */
	s2[0x18] = (unsigned char)inf;
	s2[0x20] = (unsigned char)ninfo;
	return sh + 3 * 64;
}

static void test_cubin(void)
{
	unsigned char elf[4096];
	/* two KPARAM_INFO records (ordinals 2 and 0) around an HVAL record */
	static const unsigned char info[] = {
		0x04, 0x17, 0x0c, 0x00, 0, 0, 0, 0, 0x02, 0x00, 0x10, 0x00, 0x00, 0xf0, 0x11, 0x00,
		0x03, 0x1b, 0xff, 0x00,
		0x04, 0x17, 0x0c, 0x00, 0, 0, 0, 0, 0x00, 0x00, 0x00, 0x00, 0x00, 0xf0, 0x21, 0x00,
	};
	size_t n = tiny_elf(elf, info, sizeof info);
	CHECK_EQ(plk_cubin_param_count(elf, n, "k"), 3);
	CHECK_EQ(plk_cubin_param_count(elf, n, "other"), -1);
	CHECK_EQ(plk_cubin_param_count("MOCKCUBIN\n", 10, "k"), -1);
	CHECK_EQ(plk_cubin_param_count(elf, 100, "k"), -1);          /* cut short */
	n = tiny_elf(elf, info, 10);                                 /* a record past the section's end */
	CHECK_EQ(plk_cubin_param_count(elf, n, "k"), -1);
	static const unsigned char none[] = { 0x03, 0x1b, 0xff, 0x00 };
	n = tiny_elf(elf, none, sizeof none);
	CHECK_EQ(plk_cubin_param_count(elf, n, "k"), -1);            /* says nothing */
	CHECK_STR(plk_cuda_error_table(34), "CUDA_ERROR_STUB_LIBRARY");
	CHECK_STR(plk_cuda_error_table(0), "CUDA_SUCCESS");
	CHECK_STR(plk_cuda_error_table(CUDA_ERROR_LAUNCH_FAILED), "CUDA_ERROR_LAUNCH_FAILED");
	CHECK(plk_cuda_error_table(123456) == NULL);
}

/* test_runtime --cubin-params FILE ENTRY: the parameter count cubin.c
 * reads from a real cubin. */
static int cubin_params(char **argv)
{
	static unsigned char buf[1 << 22];
	FILE *f = fopen(argv[2], "rb");
	size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
	if (f)
		fclose(f);
	printf("%d\n", plk_cubin_param_count(buf, n, argv[3]));
	return n == 0;
}

/* test_runtime --manifest FILE [SYM=VALUE ...]: reads a manifest plkc
 * wrote, binds every tensor to an aligned dummy address and the given
 * symbols (unknown ones are skipped), resolves it for a 132-SM device and
 * prints the launch. Exit 1 with the message when anything fails. */
static int check_file(int argc, char **argv)
{
	char err[PLK_ERRLEN];
	FILE *f = fopen(argv[2], "rb");
	static char buf[1 << 20];
	size_t n = f ? fread(buf, 1, sizeof buf, f) : 0;
	if (f)
		fclose(f);
	if (!n) {
		fprintf(stderr, "cannot read %s\n", argv[2]);
		return 1;
	}
	plk_manifest *m = plk_manifest_parse(buf, n, err);
	if (!m) {
		fprintf(stderr, "%s: %s\n", argv[2], err);
		return 1;
	}
	plk_binding *b = plk_binding_new(m);
	plk_plan *p = plk_plan_new(m);
	int rc = 1;
	if (!b || !p) {
		fprintf(stderr, "%s: out of memory\n", argv[2]);
		goto out;
	}
	p->sms = 132;   /* SMS in a stream-K workspace's size: the device's resident blocks */
	for (int i = 3; i < argc; i++) {
		char name[64];
		long long v;
		if (sscanf(argv[i], "%63[^=]=%lld", name, &v) == 2 && plk_manifest_sym(m, name) >= 0)
			plk_binding_dim(m, b, name, v, err);
	}
	for (int t = 0; t < m->ntensors; t++)
		plk_binding_tensor(m, b, m->tensors[t].name, 0x100000ULL * (t + 1), NULL, 0, err);
	for (int i = 0; i < m->nparams; i++)   /* free scalars: any value */
		if (m->params[i].tensor < 0 && !m->params[i].dim)
			m->params[i].kind == PK_F32 ? plk_binding_float(m, b, m->params[i].name, 1, err)
			                            : m->params[i].kind == PK_PTR ? plk_binding_ptr(m, b, m->params[i].name, 0x1000, err)
			                                                          : plk_binding_int(m, b, m->params[i].name, 1, err);
	int64_t work;
	unsigned g[3];
	if (plk_resolve(m, b, p, err) || plk_work_items(m, p->sym, &work, err) || plk_grid(m, work, 132, g, err)) {
		fprintf(stderr, "%s: %s\n", argv[2], err);
		goto out;
	}
	printf("%s: %d params, %d tensors, %lld work items, grid %ux%ux%u, block %ux%ux%u, smem %u\n", m->kernel,
	       m->nparams, m->ntensors, (long long)work, g[0], g[1], g[2], m->block[0], m->block[1], m->block[2],
	       m->dynamic_smem);
	for (int i = 0; i < m->nparams; i++)
		if (m->params[i].kind == PK_TENSORMAP)
			printf("  %s: tensor map, box %u x %u, %s\n", m->params[i].name, p->tmap[i].box[0], p->tmap[i].box[1],
			       p->tmap[i].swizzle == CU_TENSOR_MAP_SWIZZLE_128B ? "sw128" : "other swizzle");
	rc = 0;
out:
	plk_binding_free(b);
	plk_plan_free(p);
	plk_manifest_free(m);
	return rc;
}

/* A split kernel's manifest (docs/manifest.md): grid.split multiplies the
 * work items; the workspace's bytes and zeroed part evaluate per shape. */
static void test_split(void)
{
	char err[PLK_ERRLEN];
	static const char *const J =
	    "{ \"plk_manifest\": 1, \"entry\": \"k\", \"block\": [384, 1, 1],"
	    "  \"grid\": { \"policy\": \"persistent\", \"tiles\": [[\"ceil_div(M, 64)\", 1], [\"ceil_div(N, 128)\", 1]],"
	    "            \"split\": \"max(1, min(min(4, (132 / (ceil_div(M, 64) * ceil_div(N, 128)))), ceil_div(K, 64)))\" },"
	    "  \"tensors\": [{ \"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"] },"
	    "              { \"name\": \"B\", \"dtype\": \"bf16\", \"dims\": [\"N\", \"K\"] }],"
	    "  \"params\": [{ \"name\": \"a\", \"kind\": \"ptr\", \"tensor\": \"A\" }, { \"name\": \"b\", \"kind\": \"ptr\", \"tensor\": \"B\" },"
	    "    { \"name\": \"ws\", \"kind\": \"workspace\", \"bytes\": \"((ceil_div((ceil_div(M, 64) * ceil_div(N, 128)) * 4, 256) * 256)"
	    " + ((ceil_div(M, 64) * ceil_div(N, 128)) * ((max(1, min(min(4, (132 / (ceil_div(M, 64) * ceil_div(N, 128)))),"
	    " ceil_div(K, 64))) - 1) * 32768)))\", \"zero\": \"(ceil_div((ceil_div(M, 64) * ceil_div(N, 128)) * 4, 256) * 256)\" }] }";
	plk_manifest *m = plk_manifest_parse(J, strlen(J), err);
	CHECK(m != NULL);
	if (!m) {
		fprintf(stderr, "%s\n", err);
		return;
	}
	CHECK_EQ(m->params[2].kind, PK_WORKSPACE);
	CHECK_EQ(plk_param_bytes(PK_WORKSPACE), 8);
	plk_binding *b = plk_binding_new(m);
	plk_plan *p = plk_plan_new(m);
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10000, (int64_t[]){ 16, 4096 }, 2, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "B", 0x20000, (int64_t[]){ 4096, 4096 }, 2, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	int64_t work = 0;
	CHECK_EQ(plk_work_items(m, p->sym, &work, err), 0);
	CHECK_EQ(work, 32 * 4);                        /* 32 tiles, split 4 ways */
	CHECK_EQ(p->ws_param, 2);
	CHECK_EQ(p->ws_zero, 256);
	CHECK_EQ(p->ws_bytes, 256 + 32 * 3 * 32768);
	/* K = 128: two K tiles, so two splits */
	CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10000, (int64_t[]){ 16, 128 }, 2, err), 0);
	CHECK_EQ(plk_binding_tensor(m, b, "B", 0x20000, (int64_t[]){ 4096, 128 }, 2, err), 0);
	CHECK_EQ(plk_resolve(m, b, p, err), 0);
	CHECK_EQ(plk_work_items(m, p->sym, &work, err), 0);
	CHECK_EQ(work, 32 * 2);
	CHECK_EQ(p->ws_bytes, 256 + 32 * 1 * 32768);
	plk_binding_free(b);
	plk_plan_free(p);
	plk_manifest_free(m);
	/* stream-K: the workspace's size names SMS, the caller's capacity, which
	 * is no shape symbol */
	static const char *const S =
	    "{ \"plk_manifest\": 1, \"entry\": \"k\", \"block\": [256, 1, 1],"
	    "  \"grid\": { \"policy\": \"persistent\", \"tiles\": [[\"ceil_div(M, 64)\", 1]], \"split\": \"ceil_div(K, 64)\" },"
	    "  \"tensors\": [{ \"name\": \"A\", \"dtype\": \"bf16\", \"dims\": [\"M\", \"K\"] }],"
	    "  \"params\": [{ \"name\": \"a\", \"kind\": \"ptr\", \"tensor\": \"A\" },"
	    "    { \"name\": \"ws\", \"kind\": \"workspace\", \"bytes\": \"((ceil_div((SMS * 4), 256) * 256) + (SMS * 32768))\","
	    "      \"zero\": \"(ceil_div((SMS * 4), 256) * 256)\" }] }";
	m = plk_manifest_parse(S, strlen(S), err);
	CHECK(m != NULL);
	if (m) {
		CHECK_EQ(m->nsyms, 2);                     /* M, K: not SMS */
		b = plk_binding_new(m);
		p = plk_plan_new(m);
		CHECK_EQ(plk_binding_tensor(m, b, "A", 0x10000, (int64_t[]){ 16, 4096 }, 2, err), 0);
		p->sms = 132;
		CHECK_EQ(plk_resolve(m, b, p, err), 0);
		CHECK_EQ(p->ws_zero, 768);
		CHECK_EQ(p->ws_bytes, 768 + 132 * 32768);
		CHECK_EQ(plk_work_items(m, p->sym, &work, err), 0);
		CHECK_EQ(work, 64);                        /* 1 tile x 64 K tiles */
		p->sms = 0;                                /* no capacity given: an error, not 0 bytes */
		CHECK(plk_resolve(m, b, p, err) != 0);
		plk_binding_free(b);
		plk_plan_free(p);
		plk_manifest_free(m);
	}
	/* a workspace needs its size, and carries no tensor */
	static const char *const bad[] = {
	    "{ \"plk_manifest\": 1, \"entry\": \"k\", \"block\": [32, 1, 1], \"params\": [{ \"name\": \"ws\", \"kind\": \"workspace\" }] }",
	    "{ \"plk_manifest\": 1, \"entry\": \"k\", \"block\": [32, 1, 1], \"tensors\": [{ \"name\": \"A\", \"dtype\": \"f32\", \"dims\": [4] }],"
	    "  \"params\": [{ \"name\": \"ws\", \"kind\": \"workspace\", \"bytes\": 16, \"tensor\": \"A\" }] }",
	};
	static const char *const want[] = { "a workspace needs \"bytes\"", "a workspace carries no tensor or dim" };
	for (int i = 0; i < 2; i++) {
		plk_manifest *x = plk_manifest_parse(bad[i], strlen(bad[i]), err);
		CHECK(x == NULL);
		CHECK_HAS(err, want[i]);
		plk_manifest_free(x);
	}
}

int main(int argc, char **argv)
{
	if (argc >= 3 && !strcmp(argv[1], "--manifest"))
		return check_file(argc, argv);
	if (argc == 4 && !strcmp(argv[1], "--cubin-params"))
		return cubin_params(argv);
	test_json();
	test_expr();
	test_manifest();
	test_resolve();
	test_writer_forms();
	test_ints();
	test_ints64();
	test_grid();
	test_variants();
	test_kernel_variants();
	test_requires();
	test_tmap();
	test_robust();
	test_cubin();
	test_split();
	if (failures)
		fprintf(stderr, "%d of %d checks failed\n", failures, checks);
	else
		printf("runtime: %d checks passed\n", checks);
	return failures != 0;
}
