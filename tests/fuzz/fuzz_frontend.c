/* fuzz_frontend.c: libFuzzer target for the lexer, parser and AST dump.
 * Any input must give a module or diagnostics: never a crash, a hang, a
 * leak or undefined behaviour. Built by scripts/fuzz.sh; the replay build
 * (REPLAY defined) runs files given on the command line instead. */
#include <stdio.h>
#include <stdlib.h>
#include "plk.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	static FILE *sink;      /* diagnostics are rendered, then dropped */
	if (!sink)
		sink = fopen("/dev/null", "w");
	Ctx c;
	ctx_init(&c, sink);
	int src = ctx_add_source(&c, "fuzz.plk", (const char *)data, size);
	if (src >= 0) {
		Module *m = parse_source(&c, src);
		if (m && !c.nerrors)
			ast_dump(sink, m);
	}
	ctx_fini(&c);
	return 0;
}

#define REPLAY_WHAT "inputs"
#include "replay.h"
