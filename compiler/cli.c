/* cli.c: plkc's command line: --help's text and the options, parsed into
 * Options (driver.h) and the Ctx's flags. Every mistake is a message on
 * stderr and exit status 2, before anything is read. */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "driver.h"

#ifndef PLK_DEFAULT_CUDA_HOME
#define PLK_DEFAULT_CUDA_HOME "/usr/local/cuda"
#endif

const char *const emit_names[] = {
	"", "ast", "graph", "dot", "placement", "glue-ll", "ptx", "cubin", "monolith", "contract",
	"manifest", "header", "map", "schedule",
};
_Static_assert(sizeof emit_names / sizeof emit_names[0] == EMIT_SCHEDULE + 1, "a name for every Emit, in its order");

const char cli_usage[] =
	"usage: plkc RECIPE.plk [-arch sm_XX ...] [-o OUT] [options]   link: a cubin (fatbin) and its manifest\n"
	"       plkc -c COMPONENT.plk [-arch sm_XX ...] [-o OBJECT.o]  a component object carrying its contract\n"
	"       plkc --emit=contract OBJECT.o                          the contract inside an object\n"
	"       plkc --explain E0XXX | --version | --help\n"
	"\n"
	"The input is a .plk file; `-` (or /dev/stdin) reads it from standard input, its `use`\n"
	"paths then relative to the working directory.\n"
	"\n"
	"Output:\n"
	"  -o FILE              where the result goes, for every --emit kind; `-` is stdout. Linking:\n"
	"                       the cubin (a fatbin for several -arch), the manifest beside it\n"
	"                       (k.cubin -> k.manifest.json). Default: KERNEL.cubin (KERNEL.fatbin);\n"
	"                       with -c, COMPONENT.o and COMPONENT.plk.h\n"
	"  --manifest FILE      write the manifest to FILE (needed when the cubin goes to stdout)\n"
	"  --emit=KIND          stop at a stage and write its result, on stdout unless -o:\n"
	"                         ast | graph | dot | placement | glue-ll | ptx | monolith | manifest |\n"
	"                         map (the link map: each instance's component, object, constants, place) |\n"
	"                         cubin (the binary: on stdout it needs --manifest FILE) |\n"
	"                         contract (an object's) | header (a component's COMPONENT.plk.h:\n"
	"                         its constants, ids and entry prototype) |\n"
	"                         schedule (a megakernel's: its ops in order, their pieces and waits)\n"
	"  --check              check contracts and placement, write nothing\n"
	"  --timeline           a megakernel records when each block waits for, starts and ends each op\n"
	"                       (its tensor `timeline`, docs/megakernel.md)\n"
	"  --engine-lib         link a comm stage's engine with its device library, for calls its\n"
	"                       headers do not inline (slower kernels: docs/comm.md)\n"
	"  --split-compile N    ptxas compiles a link's kernels on N threads: the same SASS, sooner\n"
	"                       where a cubin holds several kernels (a select); the cubin's bytes\n"
	"                       differ from a link without it (its notes record ptxas's options)\n"
	"  -MD                  also write a make/ninja dependency file: every file the build read\n"
	"                       (recipes, contracts, sources, headers, objects); OUT with .d\n"
	"  -MF FILE             the dependency file's name (implies -MD)\n"
	"\n"
	"Targets and search paths:\n"
	"  -arch sm_XX          target arch, repeat for a fatbin: sm_80, sm_90, sm_90a, sm_100, sm_100a\n"
	"                       (default sm_90a; with -c, every arch the component's `arch` clause\n"
	"                       allows); sm_90/sm_100 pick the `a` set when a component needs it\n"
	"  -I DIR               look for `use`d files in DIR (after the using file's directory, before\n"
	"                       the standard components), and give nvcc -I DIR in component builds\n"
	"  --kernel NAME        the kernel (or select: its variants in one cubin) to link when the file\n"
	"                       declares several; without it, each select and each kernel no select names\n"
	"  --component NAME     the component to compile (-c) or describe (--emit=header) when the file\n"
	"                       declares several, or one it `use`s (a recipe's components are all used)\n"
	"\n"
	"Component builds (-c, and the objects a link builds into the cache):\n"
	"  -D NAME=VALUE        a macro for nvcc (contract constants are set in the recipe); with -c\n"
	"                       (and --emit=header), a constant of the contract: the value the\n"
	"                       object is built for\n"
	"  -Xnvcc ARG           pass ARG to nvcc; repeat for several\n"
	"  -j, --jobs N         run at most N nvcc at once for the objects a link builds (default:\n"
	"                       the processors online)\n"
	"                       -I, -D and -Xnvcc are recorded in the object and in its cache key\n"
	"\n"
	"Diagnostics:\n"
	"  --diagnostics-format=human|short\n"
	"                       short: one `file:line:col: error[E0XXX]: message` line each\n"
	"  --color=always|never colour (default: when stderr is a terminal and NO_COLOR is unset)\n"
	"  -v, --verbose        print nvcc command lines and rebuilds of stale cached objects\n"
	"  --warn-spills        warn where ptxas spills registers to local memory in a linked kernel\n"
	"                       (each function and its bytes a thread; -v prints ptxas's whole report)\n"
	"  --time               print the time of each stage, component compiles included, on stderr\n"
	"  --explain E0XXX      explain an error code, with an example\n"
	"\n"
	"Environment:\n"
	"  PLKC_CACHE           the component object cache (default $XDG_CACHE_HOME/plkc, ~/.cache/plkc)\n"
	"  PLK_HOME             PipeLink's data: stdlib/, components/ (the standard components, on the\n"
	"                       `use` path), docs/errors/; default: found from plkc's own location\n"
	"                       (PREFIX/share/pipelink installed, or the source tree)\n"
	"  CUDA_HOME            the CUDA toolkit whose nvcc builds components (default " PLK_DEFAULT_CUDA_HOME ")\n"
	"  OBJCOPY              the objcopy that adds an object's contract section (default objcopy)\n"
	"  TMPDIR               where temporary files go\n"
	"  NO_COLOR             no colour in diagnostics\n"
	"\n"
	"Exit status: 0 success, 1 errors in the input, 2 a bad command line.\n";

int cli_bad_usage(const char *fmt, const char *arg)
{
	fprintf(stderr, "plkc: ");
	fprintf(stderr, fmt, arg);
	fprintf(stderr, "\n(see plkc --help)\n");
	return 2;
}

static int set_emit(Options *o, const char *v)
{
	for (size_t i = 1; i < sizeof emit_names / sizeof emit_names[0]; i++)
		if (!strcmp(v, emit_names[i])) {
			o->emit = (Emit)i;
			return 0;
		}
	return cli_bad_usage("unknown --emit kind `%s`", v);
}

/* -arch values, each once: `-arch sm_90a -arch sm_90a` is one target. */
static int add_arch(Options *o, const char *v)
{
	for (int i = 0; i < o->narches; i++)
		if (!strcmp(o->arches[i], v))
			return 0;
	if (o->narches == 8)
		return cli_bad_usage("%s", "at most 8 -arch values");
	o->arches[o->narches++] = v;
	return 0;
}

/* The value of an option that takes one (`-o FILE`): the next argument,
 * unless there is none or it is another option (`-arch --check` lacks
 * its value; `-` alone is a value: stdout, stdin). */
static const char *value_of(int argc, char **argv, int *i)
{
	if (*i + 1 >= argc)
		return NULL;
	const char *v = argv[*i + 1];
	if (v[0] == '-' && v[1])
		return NULL;
	return argv[++*i];
}

/* Options of the form `-oVALUE` / `--opt=VALUE` / `--opt VALUE`: the value
 * when a matches, else NULL with *matched 0. */
static const char *joined(const char *a, const char *opt, int argc, char **argv, int *i, int *matched)
{
	size_t n = strlen(opt);
	*matched = 0;
	if (strncmp(a, opt, n))
		return NULL;
	if (!a[n]) {
		*matched = 1;
		return value_of(argc, argv, i);
	}
	if (a[n] == '=' || (opt[1] != '-' && n == 2)) {   /* --opt=V, or -IV / -DV */
		*matched = 1;
		return a[n] == '=' ? a + n + 1 : a + n;
	}
	return NULL;
}

static int valid_define(const char *v)
{
	if (!(*v == '_' || (*v >= 'A' && *v <= 'Z') || (*v >= 'a' && *v <= 'z')))
		return 0;
	while (*v && *v != '=') {
		if (!(*v == '_' || (*v >= 'A' && *v <= 'Z') || (*v >= 'a' && *v <= 'z') || (*v >= '0' && *v <= '9')))
			return 0;
		v++;
	}
	return 1;
}

int cli_parse(Ctx *c, Options *o, int argc, char **argv)
{
	/* options that take a value: where it goes, what the message calls it */
	static const struct { const char *opt, *what; } valued[] = {
		{ "-arch", "an arch, e.g. -arch sm_90a" }, { "--arch", "an arch, e.g. --arch sm_90a" },
		{ "-o", "a file name (or - for stdout)" }, { "-I", "a directory" }, { "-D", "NAME=VALUE" },
		{ "--emit", "a kind" }, { "--kernel", "a name" }, { "--component", "a name" },
		{ "--manifest", "a file name" }, { "-MF", "a file name" },
		{ "-j", "a number of jobs, e.g. -j 4" }, { "--jobs", "a number of jobs, e.g. --jobs 4" },
		{ "--split-compile", "a number of threads, e.g. --split-compile 8" },
	};
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc = 0, matched = 0;
		size_t k;
		const char *v = NULL;
		for (k = 0; k < sizeof valued / sizeof valued[0]; k++) {
			if (!strcmp(valued[k].opt, "-o") && strcmp(a, "-o"))
				continue;     /* -o takes its value apart: `-ofoo` is no option */
			v = joined(a, valued[k].opt, argc, argv, &i, &matched);
			if (matched)
				break;
		}
		if (matched) {
			const char *opt = valued[k].opt;
			if (!v || !*v)
				return cli_bad_usage("%s", arena_printf(c->arena, "%s needs %s", opt, valued[k].what));
			if (!strcmp(opt, "-arch") || !strcmp(opt, "--arch"))
				rc = add_arch(o, v);
			else if (!strcmp(opt, "-o"))
				o->out = v;
			else if (!strcmp(opt, "-I"))
				vec_push(c->arena, &c->include_dirs, (void *)v);
			else if (!strcmp(opt, "-D")) {
				if (!valid_define(v))
					return cli_bad_usage("-D takes NAME or NAME=VALUE, not `%s`", v);
				vec_push(c->arena, &c->cflags, arena_printf(c->arena, "-D%s", v));
			} else if (!strcmp(opt, "--emit"))
				rc = set_emit(o, v);
			else if (!strcmp(opt, "--kernel"))
				o->kernel = v;
			else if (!strcmp(opt, "--component"))
				o->component = v;
			else if (!strcmp(opt, "--manifest"))
				o->manifest = v;
			else if (!strcmp(opt, "-MF"))
				o->depfile = v, o->md = 1;
			else {   /* -j, --jobs, --split-compile: a count */
				const int split = !strcmp(opt, "--split-compile");
				char *end;
				long j = strtol(v, &end, 10);
				if (*end || j < 1 || j > 1024)
					return cli_bad_usage("%s", arena_printf(c->arena, "%s takes a number of %s from 1 to 1024, not `%s`",
					                                        opt, split ? "threads" : "jobs", v));
				*(split ? &c->split_compile : &c->jobs) = (int)j;
			}
		} else if (!strcmp(a, "-Xnvcc")) {
			if (i + 1 >= argc)
				return cli_bad_usage("%s", "-Xnvcc needs an argument for nvcc");
			vec_push(c->arena, &c->cflags, argv[++i]);
		} else if (!strcmp(a, "-MD"))
			o->md = 1;
		else if (!strcmp(a, "--check"))
			o->check_only = 1;
		else if (!strcmp(a, "--timeline"))
			o->timeline = 1;
		else if (!strcmp(a, "--engine-lib"))
			c->engine_lib = 1;
		else if (!strcmp(a, "-c"))
			o->compile_only = 1;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
			c->verbose = 1;
		else if (!strcmp(a, "--warn-spills"))
			c->warn_spills = 1;
		else if (!strcmp(a, "--time"))
			c->timing = 1;
		else if (!strncmp(a, "--diagnostics-format=", 21)) {
			const char *f = a + 21;
			if (!strcmp(f, "short"))
				c->format = DIAGFMT_SHORT;
			else if (!strcmp(f, "human"))
				c->format = DIAGFMT_HUMAN;
			else
				return cli_bad_usage("unknown diagnostics format `%s` (human or short)", f);
		} else if (!strcmp(a, "--color=always"))
			c->color = 1;
		else if (!strcmp(a, "--color=never"))
			c->color = 0;
		else if (a[0] == '-' && a[1])
			return cli_bad_usage("unknown option `%s`", a);
		else if (o->input)
			return cli_bad_usage("more than one input file (`%s`)", a);
		else
			o->input = a;
		if (rc)
			return rc;
	}
	return 0;
}
