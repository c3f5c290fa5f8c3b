/* explain.c: plkc --explain E0XXX prints docs/errors/E0XXX.md. The code
 * may be written e0389 or 0389. A code with no page gets the codes of its
 * stage that do have one, so a mistyped digit finds its neighbour. */
#include <ctype.h>
#include <dirent.h>
#include <stdlib.h>
#include <string.h>
#include "plk.h"

static const char *const stages[] = {
	"E01xx syntax", "E02xx imports and objects", "E03xx contracts and composition",
	"E04xx placement", "E05xx glue and link", "E06xx command line",
};

static void print_stages(FILE *err)
{
	for (size_t i = 0; i < sizeof stages / sizeof *stages; i++)
		fprintf(err, "%s %s", i ? "," : "", stages[i]);
	fputc('\n', err);
}

static int by_name(const void *a, const void *b) { return strcmp(*(char *const *)a, *(char *const *)b); }

/* How many codes docs_dir has a page for whose first three characters
 * are prefix's ("E03"); with err, they are printed there in order,
 * twelve a line. */
static int list_stage(FILE *err, const char *docs_dir, const char *prefix)
{
	DIR *d = opendir(docs_dir);
	if (!d)
		return 0;
	char *names[1000];
	int n = 0;
	for (struct dirent *e; (e = readdir(d)) && n < 1000;)
		if (strlen(e->d_name) == 8 && !strncmp(e->d_name, prefix, 3) && !strcmp(e->d_name + 5, ".md") &&
		    (names[n] = strndup(e->d_name, 5)))
			n++;
	closedir(d);
	qsort(names, n, sizeof *names, by_name);
	for (int i = 0; i < n; i++) {
		if (err)
			fprintf(err, "%s%s", !i ? "  " : i % 12 ? " " : "\n  ", names[i]);
		free(names[i]);
	}
	if (err && n)
		fputc('\n', err);
	return n;
}

int explain(FILE *out, FILE *err, const char *docs_dir, const char *arg)
{
	char code[6];
	size_t len = strlen(arg);
	int digits = len == 4 || (len == 5 && toupper((unsigned char)arg[0]) == 'E');
	for (size_t i = len - 4; digits && i < len; i++)
		digits = isdigit((unsigned char)arg[i]) != 0;
	if (!digits) {
		fprintf(err, "plkc: `%s` is not an error code: they are E and four digits, as in E0101:", arg);
		print_stages(err);
		return 1;
	}
	snprintf(code, sizeof code, "E%s", arg + len - 4);
	char path[4096];
	snprintf(path, sizeof path, "%s/%s.md", docs_dir, code);
	FILE *f = fopen(path, "r");
	if (!f) {
		fprintf(err, "plkc: no error %s: plkc never reports it", code);
		char prefix[4] = { 'E', code[1], code[2], 0 };
		if (list_stage(NULL, docs_dir, prefix)) {
			fputs("; the codes of its stage are:\n", err);
			list_stage(err, docs_dir, prefix);
		} else {
			fputs("; the stages' codes are", err);
			print_stages(err);
		}
		return 1;
	}
	char buf[4096];
	size_t n;
	while ((n = fread(buf, 1, sizeof buf, f)) > 0)
		fwrite(buf, 1, n, out);
	fclose(f);
	return 0;
}
