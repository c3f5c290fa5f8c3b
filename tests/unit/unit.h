/* unit.h: the few macros the unit tests share. Each test file is one
 * program; it exits non-zero when any CHECK failed. */
#ifndef UNIT_H
#define UNIT_H
#include <stdio.h>
#include <string.h>
#include "plk.h"

static int unit_failures;
#define CHECK(cond) do { if (!(cond)) { unit_failures++; \
	fprintf(stderr, "%s:%d: CHECK failed: %s\n", __FILE__, __LINE__, #cond); } } while (0)
#define CHECK_EQ_INT(a, b) do { long long _a = (a), _b = (b); if (_a != _b) { unit_failures++; \
	fprintf(stderr, "%s:%d: %s == %lld, expected %lld\n", __FILE__, __LINE__, #a, _a, _b); } } while (0)
#define CHECK_STR(a, b) do { const char *_a = (a), *_b = (b); if (!_a || strcmp(_a, _b)) { unit_failures++; \
	fprintf(stderr, "%s:%d: %s == \"%s\", expected \"%s\"\n", __FILE__, __LINE__, #a, _a ? _a : "(null)", _b); } } while (0)
#define UNIT_END() do { if (unit_failures) fprintf(stderr, "%d check(s) failed\n", unit_failures); \
	return unit_failures != 0; } while (0)
#endif
