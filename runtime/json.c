/* json.c: recursive-descent JSON reader. Strict RFC 8259: no comments,
 * no trailing commas; nesting is capped so hostile input cannot exhaust
 * the stack. */
#include "json.h"

#include <errno.h>
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define PJ_MAX_DEPTH 64

typedef struct P {
	const char *s, *end, *p;
	char *err;
	size_t errlen;
	int failed;
} P;

static void fail(P *p, const char *fmt, ...)
{
	if (p->failed)
		return;
	p->failed = 1;
	int line = 1, col = 1;
	for (const char *q = p->s; q < p->p && q < p->end; q++) {
		if (*q == '\n') { line++; col = 1; } else col++;
	}
	if (!p->err || !p->errlen)
		return;
	int n = snprintf(p->err, p->errlen, "line %d, column %d: ", line, col);
	if (n < 0 || (size_t)n >= p->errlen)
		return;
	va_list ap;
	va_start(ap, fmt);
	vsnprintf(p->err + n, p->errlen - n, fmt, ap);
	va_end(ap);
}

static void ws(P *p)
{
	while (p->p < p->end && (*p->p == ' ' || *p->p == '\t' || *p->p == '\n' || *p->p == '\r'))
		p->p++;
}

static void free_val(pj_val *v)
{
	if (v->k == PJ_STR)
		free(v->s);
	if (v->k == PJ_ARR || v->k == PJ_OBJ) {
		for (int i = 0; i < v->n; i++) {
			free_val(&v->items[i]);
			if (v->keys)
				free(v->keys[i]);
		}
		free(v->items);
		free(v->keys);
	}
}

/* Appends one code point as UTF-8. */
static size_t put_utf8(char *o, unsigned c)
{
	if (c < 0x80) { o[0] = (char)c; return 1; }
	if (c < 0x800) { o[0] = (char)(0xC0 | c >> 6); o[1] = (char)(0x80 | (c & 0x3F)); return 2; }
	if (c < 0x10000) {
		o[0] = (char)(0xE0 | c >> 12); o[1] = (char)(0x80 | (c >> 6 & 0x3F));
		o[2] = (char)(0x80 | (c & 0x3F)); return 3;
	}
	o[0] = (char)(0xF0 | c >> 18); o[1] = (char)(0x80 | (c >> 12 & 0x3F));
	o[2] = (char)(0x80 | (c >> 6 & 0x3F)); o[3] = (char)(0x80 | (c & 0x3F));
	return 4;
}

static int hex4(P *p, unsigned *out)
{
	unsigned c = 0;
	for (int i = 0; i < 4; i++, p->p++) {
		if (p->p >= p->end) { fail(p, "unterminated \\u escape"); return -1; }
		char h = *p->p;
		c <<= 4;
		if (h >= '0' && h <= '9') c |= (unsigned)(h - '0');
		else if (h >= 'a' && h <= 'f') c |= (unsigned)(h - 'a' + 10);
		else if (h >= 'A' && h <= 'F') c |= (unsigned)(h - 'A' + 10);
		else { fail(p, "bad hex digit '%c' in \\u escape", h); return -1; }
	}
	*out = c;
	return 0;
}

/* At the opening quote. The decoded text is never longer than the source,
 * so one allocation of the source length suffices. */
static char *string(P *p, size_t *lenp)
{
	p->p++;
	const char *q = p->p;
	while (q < p->end && *q != '"') {
		if (*q == '\\' && q + 1 < p->end)
			q++;
		q++;
	}
	char *o = malloc((size_t)(q - p->p) + 4);
	if (!o) { fail(p, "out of memory"); return NULL; }
	size_t n = 0;
	for (;;) {
		if (p->p >= p->end) { fail(p, "unterminated string"); break; }
		unsigned char c = (unsigned char)*p->p;
		if (c == '"') { p->p++; o[n] = 0; *lenp = n; return o; }
		if (c < 0x20) { fail(p, "control character in string"); break; }
		if (c != '\\') { o[n++] = (char)c; p->p++; continue; }
		p->p++;
		if (p->p >= p->end) { fail(p, "unterminated string"); break; }
		char e = *p->p++;
		switch (e) {
		case '"': o[n++] = '"'; break;
		case '\\': o[n++] = '\\'; break;
		case '/': o[n++] = '/'; break;
		case 'b': o[n++] = '\b'; break;
		case 'f': o[n++] = '\f'; break;
		case 'n': o[n++] = '\n'; break;
		case 'r': o[n++] = '\r'; break;
		case 't': o[n++] = '\t'; break;
		case 'u': {
			unsigned cp;
			if (hex4(p, &cp))
				goto bad;
			if (cp >= 0xD800 && cp < 0xDC00) {
				unsigned lo;
				if (p->end - p->p < 2 || p->p[0] != '\\' || p->p[1] != 'u') {
					fail(p, "unpaired surrogate in \\u escape");
					goto bad;
				}
				p->p += 2;
				if (hex4(p, &lo))
					goto bad;
				if (lo < 0xDC00 || lo > 0xDFFF) { fail(p, "unpaired surrogate in \\u escape"); goto bad; }
				cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
			} else if (cp >= 0xDC00 && cp < 0xE000) {
				fail(p, "unpaired surrogate in \\u escape");
				goto bad;
			}
			n += put_utf8(o + n, cp);
			break;
		}
		default:
			p->p--;
			fail(p, "bad escape '\\%c'", e);
			goto bad;
		}
	}
bad:
	free(o);
	return NULL;
}

static int number(P *p, pj_val *v)
{
	const char *q = p->p;
	int is_int = 1;
	if (q < p->end && *q == '-') q++;
	if (q >= p->end || *q < '0' || *q > '9') { fail(p, "bad number"); return -1; }
	if (*q == '0' && q + 1 < p->end && q[1] >= '0' && q[1] <= '9') { fail(p, "leading zero in number"); return -1; }
	while (q < p->end && *q >= '0' && *q <= '9') q++;
	if (q < p->end && *q == '.') {
		is_int = 0;
		q++;
		if (q >= p->end || *q < '0' || *q > '9') { p->p = q; fail(p, "digit expected after '.'"); return -1; }
		while (q < p->end && *q >= '0' && *q <= '9') q++;
	}
	if (q < p->end && (*q == 'e' || *q == 'E')) {
		is_int = 0;
		q++;
		if (q < p->end && (*q == '+' || *q == '-')) q++;
		if (q >= p->end || *q < '0' || *q > '9') { p->p = q; fail(p, "digit expected in exponent"); return -1; }
		while (q < p->end && *q >= '0' && *q <= '9') q++;
	}
	char buf[64];
	size_t n = (size_t)(q - p->p);
	v->k = PJ_NUM;
	if (n < sizeof buf) {
		memcpy(buf, p->p, n);
		buf[n] = 0;
		v->num = strtod(buf, NULL);
		if (is_int) {
			errno = 0;
			long long i = strtoll(buf, NULL, 10);
			if (errno == 0) { v->i = i; v->is_int = 1; }
		}
	} else {
		v->num = is_int ? (*p->p == '-' ? -1e300 : 1e300) : 0;   /* absurd literal */
	}
	p->p = q;
	return 0;
}

static int lit(P *p, const char *w)
{
	size_t n = strlen(w);
	if ((size_t)(p->end - p->p) >= n && !memcmp(p->p, w, n)) {
		p->p += n;
		return 1;
	}
	return 0;
}

static int value(P *p, pj_val *v, int depth);

static int push(P *p, pj_val *v, int *cap)
{
	if (v->n < *cap)
		return 0;
	int nc = *cap ? *cap * 2 : 4;
	pj_val *ni = realloc(v->items, (size_t)nc * sizeof *ni);
	if (!ni) { fail(p, "out of memory"); return -1; }
	v->items = ni;
	if (v->k == PJ_OBJ) {
		char **nk = realloc(v->keys, (size_t)nc * sizeof *nk);
		if (!nk) { fail(p, "out of memory"); return -1; }
		v->keys = nk;
	}
	*cap = nc;
	return 0;
}

static int container(P *p, pj_val *v, int depth)
{
	int obj = *p->p == '{';
	char close = obj ? '}' : ']';
	v->k = obj ? PJ_OBJ : PJ_ARR;
	int cap = 0;
	p->p++;
	ws(p);
	if (p->p < p->end && *p->p == close) { p->p++; return 0; }
	for (;;) {
		if (push(p, v, &cap))
			return -1;
		if (obj) {
			ws(p);
			if (p->p >= p->end || *p->p != '"') { fail(p, "object key (a string) expected"); return -1; }
			size_t kl;
			char *key = string(p, &kl);
			if (!key)
				return -1;
			v->keys[v->n] = key;
			ws(p);
			if (p->p >= p->end || *p->p != ':') {
				free(key);
				fail(p, "':' expected after object key");
				return -1;
			}
			p->p++;
		}
		memset(&v->items[v->n], 0, sizeof v->items[0]);
		int r = value(p, &v->items[v->n], depth + 1);
		v->n++;             /* counted even when partial, so it is freed */
		if (r)
			return -1;
		ws(p);
		if (p->p < p->end && *p->p == ',') { p->p++; continue; }
		if (p->p < p->end && *p->p == close) { p->p++; return 0; }
		fail(p, "',' or '%c' expected", close);
		return -1;
	}
}

static int value(P *p, pj_val *v, int depth)
{
	if (depth > PJ_MAX_DEPTH) { fail(p, "nested deeper than %d", PJ_MAX_DEPTH); return -1; }
	ws(p);
	if (p->p >= p->end) { fail(p, "value expected, found end of input"); return -1; }
	char c = *p->p;
	if (c == '{' || c == '[')
		return container(p, v, depth);
	if (c == '"') {
		v->s = string(p, &v->slen);
		if (!v->s)
			return -1;
		v->k = PJ_STR;
		return 0;
	}
	if (c == '-' || (c >= '0' && c <= '9'))
		return number(p, v);
	if (lit(p, "true")) { v->k = PJ_BOOL; v->b = 1; return 0; }
	if (lit(p, "false")) { v->k = PJ_BOOL; v->b = 0; return 0; }
	if (lit(p, "null")) { v->k = PJ_NULL; return 0; }
	fail(p, "unexpected character '%c'", c);
	return -1;
}

pj_val *pj_parse(const char *text, size_t len, char *err, size_t errlen)
{
	P p = { text, text + len, text, err, errlen, 0 };
	if (err && errlen)
		err[0] = 0;
	pj_val *v = calloc(1, sizeof *v);
	if (!v) {
		if (err && errlen) snprintf(err, errlen, "out of memory");
		return NULL;
	}
	if (value(&p, v, 0) == 0) {
		ws(&p);
		if (p.p == p.end)
			return v;
		fail(&p, "trailing characters after the JSON value");
	}
	pj_free(v);
	return NULL;
}

void pj_free(pj_val *v)
{
	if (!v)
		return;
	free_val(v);
	free(v);
}

const pj_val *pj_get(const pj_val *v, const char *key)
{
	if (!v || v->k != PJ_OBJ)
		return NULL;
	for (int i = v->n - 1; i >= 0; i--)
		if (!strcmp(v->keys[i], key))
			return &v->items[i];
	return NULL;
}

const char *pj_kind_name(pj_kind k)
{
	static const char *const names[] = { "null", "boolean", "number", "string", "array", "object" };
	return (unsigned)k < 6 ? names[k] : "?";
}
