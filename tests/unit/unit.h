/* unit.h: the few macros the unit tests share. Each test file is one
 * program; it exits non-zero when any CHECK failed. */
#ifndef UNIT_H
#define UNIT_H
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "plk.h"

static int unit_failures;
#define CHECK(cond) do { if (!(cond)) { unit_failures++; \
	fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_EQ_INT(a, b) do { long long _a = (a), _b = (b); if (_a != _b) { unit_failures++; \
	fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, _a, _b); } } while (0)
#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); if (!_a || strcmp(_a, _b)) { unit_failures++; \
	fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, _a ? _a : "(null)", _b); } } while (0)
/* A Ctx whose diagnostics land in a string, which unit_log returns. */
typedef struct UnitCtx {
	Ctx c;
	char *log;
	size_t n;
	FILE *err;
} UnitCtx;

static inline void unit_ctx_init(UnitCtx *u)
{
	u->log = NULL;
	u->n = 0;
	u->err = open_memstream(&u->log, &u->n);
	ctx_init(&u->c, u->err);
}

static inline const char *unit_log(UnitCtx *u)
{
	fflush(u->err);
	return u->log ? u->log : "";
}

static inline void unit_ctx_fini(UnitCtx *u)
{
	ctx_fini(&u->c);
	fclose(u->err);
	free(u->log);
}

/* occurrences of sub in s */
static inline int unit_count(const char *s, const char *sub)
{
	int n = 0;
	for (; (s = strstr(s, sub)); s++)
		n++;
	return n;
}

#define CHECK_LOG(u, s) do { if (!strstr(unit_log(u), s)) { unit_failures++; \
	fprintf(stderr, "%s:%d: diagnostics lack \"%s\":\n%s\n", __FILE__, __LINE__, s, unit_log(u)); } } while (0)

#define UNIT_END() do { if (unit_failures) fprintf(stderr, "%d check(s) failed\n", unit_failures); \
	return unit_failures != 0; } while (0)
#endif
