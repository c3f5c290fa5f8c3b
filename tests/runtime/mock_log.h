/* mock_log.h: the mocks' call log (tests/runtime/mock_cuda.c,
 * mock_nvshmem.c): one line per call appended to the file that the
 * environment variable MOCK_LOG_ENV names; nothing when it is unset. */
#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>

static void logf_(const char *fmt, ...)
{
	const char *p = getenv(MOCK_LOG_ENV);
	FILE *f = p ? fopen(p, "a") : NULL;
	if (!f)
		return;
	va_list ap;
	va_start(ap, fmt);
	vfprintf(f, fmt, ap);
	va_end(ap);
	fputc('\n', f);
	fclose(f);
}
