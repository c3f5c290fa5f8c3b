/* cuerrors.c: CUresult names from cuda.h itself (the Makefile extracts
 * its enum into cuda_errors.inc), for messages when cuGetErrorName cannot
 * answer: the toolkit's stub libcuda answers every call, that one
 * included, with CUDA_ERROR_STUB_LIBRARY. Pure: no CUDA calls. */
#include "plan.h"

#include <stddef.h>

static const struct { int code; const char *name; } table[] = {
#include "cuda_errors.inc"
};

const char *plk_cuda_error_table(int code)
{
	for (size_t i = 0; i < sizeof table / sizeof table[0]; i++)
		if (table[i].code == code)
			return table[i].name;
	return NULL;
}
