/* explain.c: plkc --explain E0XXX prints docs/errors/E0XXX.md. */
#include <ctype.h>
#include <string.h>
#include "plk.h"

int explain(FILE *out, const char *docs_dir, const char *code)
{
	if (strlen(code) != 5 || code[0] != 'E')
		return 1;
	for (int i = 1; i < 5; i++)
		if (!isdigit((unsigned char)code[i]))
			return 1;
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.md", docs_dir, code);
	FILE *f = fopen(path, "r");
	if (!f)
		return 1;
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, out);
	fclose(f);
	return 0;
}
