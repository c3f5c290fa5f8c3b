/* main.c: the plkc command line. Parses options, then runs the pipeline
 * up to the stage that --emit asks for:
 *
 *   parse -> resolve -> check -> place -> glue -> link -> cubin + manifest
 *
 * Exit status: 0 success, 1 errors in the input, 2 a bad command line. */
#include <errno.h>
#include <libgen.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plk.h"

#ifndef PLK_DEFAULT_CUDA_HOME
#define PLK_DEFAULT_CUDA_HOME "/usr/local/cuda"
#endif

typedef enum {
	EMIT_DEFAULT, EMIT_AST, EMIT_GRAPH, EMIT_DOT, EMIT_PLACEMENT, EMIT_GLUE_LL,
	EMIT_PTX, EMIT_CUBIN, EMIT_MONOLITH, EMIT_CONTRACT, EMIT_MANIFEST, EMIT_HEADER, EMIT_MAP,
	EMIT_SCHEDULE
} Emit;

static const char *const emit_names[] = {
	"", "ast", "graph", "dot", "placement", "glue-ll", "ptx", "cubin", "monolith", "contract",
	"manifest", "header", "map", "schedule",
};

typedef struct Options {
	const char *input;
	const char *out;             /* -o; "-": stdout */
	const char *manifest;        /* --manifest FILE */
	const char *kernel;          /* --kernel NAME: one of several */
	const char *component;       /* --component NAME: one of several */
	const char *depfile;         /* -MF FILE */
	int md;                      /* -MD */
	const char *arches[8];
	int narches;
	Emit emit;
	int check_only, compile_only;
	int timeline;            /* --timeline: a megakernel records each block's pieces */
	Vec targets;                 /* const char*: files written, the dependency file's targets */
	Vec outs;                    /* Out*: text outputs being written (open_out) */
} Options;

static const char usage[] =
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
	"  --component NAME     the component to compile (-c) or describe (--emit=header) of several\n"
	"\n"
	"Component builds (-c, and the objects a link builds into the cache):\n"
	"  -D NAME=VALUE        a macro for nvcc (contract constants are set in the recipe); with -c\n"
	"                       (and --emit=header), a constant of the contract: the value the\n"
	"                       object is built for\n"
	"  -Xnvcc ARG           pass ARG to nvcc; repeat for several\n"
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

static int bad_usage(const char *fmt, const char *arg)
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
	return bad_usage("unknown --emit kind `%s`", v);
}

/* -arch values, each once: `-arch sm_90a -arch sm_90a` is one target. */
static int add_arch(Options *o, const char *v)
{
	for (int i = 0; i < o->narches; i++)
		if (!strcmp(o->arches[i], v))
			return 0;
	if (o->narches == 8)
		return bad_usage("%s", "at most 8 -arch values");
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

static int parse_args(Ctx *c, Options *o, int argc, char **argv)
{
	/* options that take a value: where it goes, what the message calls it */
	static const struct { const char *opt, *what; } valued[] = {
		{ "-arch", "an arch, e.g. -arch sm_90a" }, { "--arch", "an arch, e.g. --arch sm_90a" },
		{ "-o", "a file name (or - for stdout)" }, { "-I", "a directory" }, { "-D", "NAME=VALUE" },
		{ "--emit", "a kind" }, { "--kernel", "a name" }, { "--component", "a name" },
		{ "--manifest", "a file name" }, { "-MF", "a file name" },
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
				return bad_usage(arena_printf(c->arena, "%s needs %s", opt, valued[k].what), NULL);
			if (!strcmp(opt, "-arch") || !strcmp(opt, "--arch"))
				rc = add_arch(o, v);
			else if (!strcmp(opt, "-o"))
				o->out = v;
			else if (!strcmp(opt, "-I"))
				vec_push(c->arena, &c->include_dirs, (void *)v);
			else if (!strcmp(opt, "-D")) {
				if (!valid_define(v))
					return bad_usage("-D takes NAME or NAME=VALUE, not `%s`", v);
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
		} else if (!strcmp(a, "-Xnvcc")) {
			if (i + 1 >= argc)
				return bad_usage("%s", "-Xnvcc needs an argument for nvcc");
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
				return bad_usage("unknown diagnostics format `%s` (human or short)", f);
		} else if (!strcmp(a, "--color=always"))
			c->color = 1;
		else if (!strcmp(a, "--color=never"))
			c->color = 0;
		else if (a[0] == '-' && a[1])
			return bad_usage("unknown option `%s`", a);
		else if (o->input)
			return bad_usage("more than one input file (`%s`)", a);
		else
			o->input = a;
		if (rc)
			return rc;
	}
	return 0;
}

/* Where the linked binary goes: -o, else stdout for --emit=cubin (as
 * --help says of every --emit kind), else KERNEL.cubin / KERNEL.fatbin.
 * NULL when the run writes no binary. */
static const char *binary_out(Ctx *c, const Options *o, const char *kernel, int narches)
{
	if (o->check_only || o->compile_only || (o->emit != EMIT_DEFAULT && o->emit != EMIT_CUBIN))
		return NULL;
	if (o->out)
		return o->out;
	if (o->emit == EMIT_CUBIN)
		return "-";
	return arena_printf(c->arena, "%s.%s", kernel, narches > 1 ? "fatbin" : "cubin");
}

/* A binary on stdout needs a manifest file, and never goes to a terminal. */
static int check_outputs(Ctx *c, const Options *o)
{
	const char *bin = binary_out(c, o, "k", o->narches);
	if (!bin || strcmp(bin, "-"))
		return 0;
	if (!o->manifest)
		return bad_usage("%s", "a cubin on stdout needs --manifest FILE for its manifest (or give -o FILE)");
	if (isatty(STDOUT_FILENO))
		return bad_usage("%s", "not writing a cubin to a terminal: give -o FILE or redirect stdout");
	return 0;
}

/* -arch values to ArchInfo. sm_90 and sm_100 name the plain feature set;
 * resolve_arch upgrades them to the `a` set when a component needs it. */
static int lookup_arches(Ctx *c, const Options *o, const ArchInfo **out, int *n)
{
	*n = 0;
	if (o->narches == 0) {
		out[(*n)++] = arch_lookup("sm_90a");
		return out[0] ? 0 : 1;
	}
	for (int i = 0; i < o->narches; i++) {
		const ArchInfo *a = arch_lookup(o->arches[i]);
		if (!a) {
			int na;
			const ArchInfo *all = arch_all(&na);
			Diag *d = diag_new(c, DIAG_ERROR, "E0602", span_none, "unknown arch `%s`", o->arches[i]);
			char list[256] = "";
			size_t len = 0;
			for (int k = 0; k < na; k++)
				len += (size_t)snprintf(list + len, sizeof list - len, "%s%s", k ? ", " : "",
					all[k].name);
			diag_note(d, "known arches: %s", list);
			diag_end(c, d);
			return 1;
		}
		out[(*n)++] = a;
	}
	return 0;
}

/* A plain sm_90 / sm_100 request upgraded to its `a` feature set when a
 * component of the kernel needs an arch-specific feature; says so. */
static const ArchInfo *upgrade_arch(Ctx *c, const Program *p, const Kernel *k, const ArchInfo *a)
{
	if (a->arch_specific)
		return a;
	const ArchInfo *aa = arch_lookup(arena_printf(c->arena, "%sa", a->name));
	if (!aa)
		return a;
	unsigned extra = aa->features & ~a->features;
	for (int i = 0; i < k->insts.n; i++) {
		const Inst *in = k->insts.v[i];
		const Component *comp = program_component(p, in->comp);
		if (!comp)
			continue;
		for (int f = 0; f < comp->features.n; f++) {
			const Feature *ft = comp->features.v[f];
			if (feature_lookup(ft->name) & extra) {
				Diag *d = diag_new(c, DIAG_NOTE, NULL, ft->sp,
					"targeting %s for -arch %s: `%s` needs `%s`", aa->name, a->name,
					comp->name, ft->name);
				diag_end(c, d);
				return aa;
			}
		}
	}
	return a;
}

/* E0603 for path, with the OS's reason (errno). */
static void cannot_write(Ctx *c, const char *path)
{
	int e = errno;
	Diag *d = diag_new(c, DIAG_ERROR, "E0603", span_none, "cannot write `%s`", path);
	diag_note(d, "%s", e ? strerror(e) : "the write did not complete");
	diag_end(c, d);
}

/* ------------------------------------------------------------ outputs
 * Every file plkc writes goes through open_out/close_out (text) or
 * write_files (binaries, and what close_out collected): written under a
 * temporary name beside it and renamed into place, several together or
 * none, so a failing write (a full disk, a directory in the way) leaves
 * the old files as they were (sys_write_files). "-" and NULL are stdout.
 * Each file written is a target of the dependency file. */

typedef struct Out { FILE *f; char *buf; size_t len; const char *path; } Out;

/* n files at once, all or none; targets: they are the build's outputs. */
static int write_files(Ctx *c, Options *o, int n, const char *const *path, const void *const *data,
                       const size_t *len, int targets)
{
	for (int i = 0; i < n; i++) {    /* what killed runs left beside these */
		const char *sl = strrchr(path[i], '/');
		sys_sweep(sl ? arena_strndup(c->arena, path[i], sl == path[i] ? 1 : (size_t)(sl - path[i])) : ".",
		          sl ? sl + 1 : path[i]);
	}
	int failed = 0;
	errno = 0;
	if (sys_write_files(n, path, data, len, &failed)) {
		int e = errno;
		Diag *d = diag_new(c, DIAG_ERROR, "E0603", span_none, "cannot write `%s`", path[failed]);
		diag_note(d, "%s", e ? sys_strerror(e) : "the write did not complete");
		if (n > 1)
			diag_note(d, "nothing was written: %s", n == 2 ? arena_printf(c->arena,
				"`%s` and `%s` are kept as they were", path[0], path[1]) : "the outputs are kept as they were");
		diag_end(c, d);
		return 1;
	}
	for (int i = 0; targets && i < n; i++)
		vec_push(c->arena, &o->targets, (void *)path[i]);
	return 0;
}

static FILE *open_out(Ctx *c, Options *o, const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	Out *w = arena_alloc(c->arena, sizeof *w);
	w->path = path;
	if (!(w->f = open_memstream(&w->buf, &w->len))) {
		cannot_write(c, path);
		return NULL;
	}
	vec_push(c->arena, &o->outs, w);
	return w->f;
}

/* 0 when everything reached the file (or stdout). */
static int close_out(Ctx *c, Options *o, FILE *f, const char *path)
{
	if (!f)
		return 1;
	if (f == stdout) {
		int bad = fflush(f) != 0 || ferror(f);
		if (bad)
			cannot_write(c, "<stdout>");
		return bad;
	}
	Out *w = NULL;
	for (int i = 0; i < o->outs.n && !w; i++)
		if (((Out *)o->outs.v[i])->f == f)
			w = o->outs.v[i];
	int bad = fclose(f) != 0;
	if (bad)
		cannot_write(c, path);
	else if (w) {
		const void *data[1] = { w->buf };
		bad = write_files(c, o, 1, &w->path, data, &w->len, 1);
	}
	if (w) {   /* closed: a later stream may get the same FILE address */
		free(w->buf);
		w->buf = NULL;
		w->f = NULL;
	}
	return bad;
}

/* OUT with its extension replaced: k.cubin -> k.manifest.json. */
static const char *with_ext(Ctx *c, const char *out, const char *ext)
{
	const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
	size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
	return arena_printf(c->arena, "%.*s%s", (int)stem, out, ext);
}

/* E0606 when out is a file this run reads: the recipe, a file it uses, a
 * component's declaration, source or object. */
static int refuse_input(Ctx *c, const Options *o, const Program *p, const char *out)
{
	if (!out || !strcmp(out, "-"))
		return 0;
	const char *what = NULL;
	for (int i = 0; i < c->nsrcs && !what; i++)
		if (sys_same_file(out, c->srcs[i]->path))
			what = i == 0 ? "the recipe" : "a file it uses";
	if (!what && sys_same_file(out, o->input))
		what = o->emit == EMIT_CONTRACT ? "the object it reads" : "the input";
	for (int i = 0; p && i < p->comps.n && !what; i++) {
		const Component *cp = p->comps.v[i];
		const char *files[3] = { cp->object, cp->file, NULL };
		const Component *dc = cp->decl ? cp->decl : cp;
		if (dc->source && dc->file) {
			const char *sl = strrchr(dc->file, '/');
			files[2] = dc->source[0] == '/' || !sl ? dc->source
				: arena_printf(c->arena, "%.*s/%s", (int)(sl - dc->file), dc->file, dc->source);
		}
		for (int j = 0; j < 3 && !what; j++)
			if (files[j] && sys_same_file(out, files[j]))
				what = arena_printf(c->arena, j == 0 ? "the object of component `%s`" : j == 1
					? "the declaration of component `%s`" : "the source of component `%s`", cp->name);
	}
	if (!what)
		return 0;
	Diag *d = diag_new(c, DIAG_ERROR, "E0606", span_none, "the output `%s` is an input of this build", out);
	diag_note(d, "`%s` is %s; writing it would destroy what it is built from", out, what);
	diag_help(d, "name another file with `-o`, e.g. `-o out.cubin` (`-o OBJECT.o` with -c)");
	diag_end(c, d);
	return 1;
}

/* The manifest's "binary": the binary's name relative to the manifest's
 * directory (its file name when both are in one directory), NULL when the
 * binary went to stdout. */
static const char *binary_key(Ctx *c, const char *bin, const char *manifest)
{
	if (!strcmp(bin, "-"))
		return NULL;
	const char *bs = strrchr(bin, '/'), *ms = strrchr(manifest, '/');
	size_t bd = bs ? (size_t)(bs - bin) : 0, md = ms ? (size_t)(ms - manifest) : 0;
	if (bd == md && !strncmp(bin, manifest, bd))
		return bs ? bs + 1 : bin;
	char real[PATH_MAX];
	const char *dir = bs ? arena_strndup(c->arena, bin, bd ? bd : 1) : ".";
	return realpath(dir, real) ? arena_printf(c->arena, "%s/%s", real, bs ? bs + 1 : bin) : bin;
}

/* Make's escapes for a path in a dependency file. */
static void dep_path(FILE *f, const char *p)
{
	for (; *p; p++) {
		if (*p == ' ' || *p == '#' || *p == '\\')
			fputc('\\', f);
		else if (*p == '$')
			fputc('$', f);
		fputc(*p, f);
	}
}

/* -MD: `TARGETS: every file the build read`, for make and ninja. */
static int write_depfile(Ctx *c, Options *o, const Program *p)
{
	Vec deps = { 0 };
	for (int i = 0; i < c->nsrcs; i++)          /* recipes and contracts (.plk) */
		if (strcmp(c->srcs[i]->path, "<stdin>"))
			vec_push(c->arena, &deps, (void *)c->srcs[i]->path);
	if (o->emit == EMIT_CONTRACT)
		vec_push(c->arena, &deps, (void *)o->input);
	for (int i = 0; p && i < p->comps.n; i++) {    /* `use object` */
		const Component *comp = p->comps.v[i];
		if (comp->object)
			vec_push(c->arena, &deps, (void *)comp->object);
	}
	for (int i = 0; i < c->deps.n; i++)          /* component sources and headers */
		vec_push(c->arena, &deps, c->deps.v[i]);
	const char *first = o->targets.n ? o->targets.v[0] : NULL;
	const char *path = o->depfile;
	if (!path && (!first || !strcmp(first, "-"))) {
		error_at(c, "E0603", span_none, "-MD: nothing was written to a file to name the dependency file after");
		return 1;
	}
	if (!path)
		path = with_ext(c, first, ".d");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		cannot_write(c, path);
		return 1;
	}
	if (!o->targets.n)
		dep_path(f, o->input);
	for (int i = 0; i < o->targets.n; i++) {
		fputs(i ? " " : "", f);
		dep_path(f, o->targets.v[i]);
	}
	fputc(':', f);
	for (int i = 0; i < deps.n; i++) {
		int seen = 0;
		for (int j = 0; j < i && !seen; j++)
			seen = !strcmp(deps.v[i], deps.v[j]);
		if (seen)
			continue;
		fputs(" \\\n  ", f);
		dep_path(f, deps.v[i]);
	}
	fputc('\n', f);
	int bad = fclose(f) != 0;
	const void *data[1] = { buf };
	bad = bad || write_files(c, o, 1, &path, data, &len, 0);
	free(buf);
	return bad;
}

/* Check and place one kernel for one arch; write the stage --emit asks
 * for when it ends before linking. *pl is NULL when nothing is left to do. */
static int place_kernel(Ctx *c, Options *o, const Program *p, const Kernel *k,
                        const ArchInfo *arch, int inst_base, Placement **pl, int first)
{
	*pl = NULL;
	arch = upgrade_arch(c, p, k, arch);
	double t0 = plk_clock();
	Graph *g = check_kernel(c, p, k, arch);
	ctx_time(c, "check", t0);
	if (!g || c->nerrors)
		return 1;
	g->inst_base = inst_base;
	if (first)      /* once per kernel, not per arch, and not on top of errors */
		check_unused_consts(c, p, k);
	if (o->emit == EMIT_GRAPH || o->emit == EMIT_DOT) {
		FILE *f = open_out(c, o, o->out);
		if (f)
			(o->emit == EMIT_GRAPH ? graph_print : graph_dot)(f, g);
		return close_out(c, o, f, o->out);
	}
	t0 = plk_clock();
	Placement *x = place(c, g);
	ctx_time(c, "place", t0);
	if (!x || c->nerrors)
		return 1;
	if (o->emit == EMIT_PLACEMENT) {
		FILE *f = open_out(c, o, o->out);
		if (f)
			placement_print(f, x);
		return close_out(c, o, f, o->out);
	}
	if (o->check_only) {
		*pl = x;   /* placed, for a select's comparison of its variants */
		return 0;
	}
	if (o->emit == EMIT_GLUE_LL || o->emit == EMIT_MONOLITH) {
		FILE *f = open_out(c, o, o->out);
		int rc = !f || (o->emit == EMIT_GLUE_LL ? glue_emit_ll(c, x, f) : monolith_write(c, x, f));
		return close_out(c, o, f, o->out) || rc || c->nerrors;
	}
	*pl = x;
	return 0;
}

/* The binary of one kernel and its manifest, written together: both or
 * neither (the binary alone when it goes to stdout). */
/* A binary and its manifest text, both or neither: to `out` and mpath
 * (atomically), or the binary to stdout (out "-"). */
static int write_pair(Ctx *c, Options *o, const char *out, const char *mpath, const void *bin, size_t size,
                      const char *man, size_t mlen)
{
	if (!strcmp(out, "-")) {
		int rc = fwrite(bin, 1, size, stdout) != size || fflush(stdout) != 0;
		if (rc)
			cannot_write(c, "<stdout>");
		const void *data[1] = { man };
		return rc || write_files(c, o, 1, &mpath, data, &mlen, 1);
	}
	const char *paths[2] = { out, mpath };
	const void *data[2] = { bin, man };
	size_t lens[2] = { size, mlen };
	return write_files(c, o, 2, paths, data, lens, 1);
}

/* A binary and its manifest, the manifest written by fn(c, ud, the
 * binary's name as the manifest records it, f): both or neither. */
typedef int (*ManifestFn)(Ctx *c, const void *ud, const char *binary, FILE *f);
static int write_linked(Ctx *c, Options *o, const char *out, const void *bin, size_t size, ManifestFn fn,
                        const void *ud)
{
	const char *mpath = o->manifest ? o->manifest : with_ext(c, out, ".manifest.json");
	char *man = NULL;
	size_t mlen = 0;
	FILE *m = open_memstream(&man, &mlen);
	int rc = !m || fn(c, ud, binary_key(c, out, mpath), m);
	if (m && fclose(m))
		rc = 1;
	if (rc)
		cannot_write(c, mpath);
	else
		rc = write_pair(c, o, out, mpath, bin, size, man, mlen);
	free(man);
	return rc;
}

typedef struct Linked { const Placement *const *ps; const LinkResult *rs; int n; } Linked;
static int kernel_manifest(Ctx *c, const void *ud, const char *binary, FILE *f)
{
	const Linked *l = ud;
	return manifest_write_linked(c, l->ps, l->rs, l->n, binary, f);
}

/* A cubin for one arch, a fatbin of rs' cubins for several, named for
 * `name` unless -o says, with the manifest fn writes. */
static int write_arches(Ctx *c, Options *o, const char *name, const LinkResult *rs, const ArchInfo **as, int n,
                        ManifestFn fn, const void *ud)
{
	const char *out = binary_out(c, o, name, n);
	size_t len = strlen(out);
	if (n > 1 && len > 6 && !strcmp(out + len - 6, ".cubin")) {
		Diag *d = diag_new(c, DIAG_WARNING, NULL, span_none, "`%s` holds a fatbin of %d arches, not a cubin", out, n);
		diag_help(d, "name it `%s`", with_ext(c, out, ".fatbin"));
		diag_end(c, d);
	}
	void *bin = rs[0].cubin, *fb = NULL;
	size_t size = rs[0].cubin_size;
	if (n > 1 && link_fatbin(c, as, rs, n, &fb, &size))
		return 1;
	if (n > 1)
		bin = fb;
	int rc = write_linked(c, o, out, bin, size, fn, ud);
	free(fb);
	return rc;
}

static int write_binary(Ctx *c, Options *o, const Kernel *k, Placement **ps, LinkResult *rs,
                        const ArchInfo **as, int n)
{
	const Linked l = { (const Placement *const *)ps, rs, n };
	return write_arches(c, o, k->name, rs, as, n, kernel_manifest, &l);
}

/* A kernel no select or megakernel runs: built on its own (without
 * --kernel, run builds it beside each select and megakernel). */
static int built_alone(const Program *p, const Kernel *k)
{
	return !kernel_is_variant(p, k) && !kernel_is_op(p, k);
}

/* One -o for several results (each select, megakernel and kernel no
 * select or megakernel runs is built): each would overwrite the last.
 * Whether so; with `report`, E0612 too. */
static int several_outputs(Ctx *c, const Options *o, const Program *p, int report)
{
	Vec names = { 0 };
	for (int i = 0; i < p->megas.n; i++)
		vec_push(c->arena, &names, (void *)((const Mega *)p->megas.v[i])->name);
	for (int i = 0; i < p->selects.n && o->emit != EMIT_SCHEDULE; i++)
		vec_push(c->arena, &names, (void *)((const Select *)p->selects.v[i])->name);
	for (int i = 0; i < p->kernels.n && o->emit != EMIT_SCHEDULE; i++) {
		const Kernel *k = p->kernels.v[i];
		if (built_alone(p, k))
			vec_push(c->arena, &names, (void *)k->name);
	}
	if (names.n < 2 || !report)
		return names.n >= 2;
	char *list = arena_printf(c->arena, "`%s`", (const char *)names.v[0]);
	for (int i = 1; i < names.n; i++)
		list = arena_printf(c->arena, "%s, `%s`", list, (const char *)names.v[i]);
	Diag *d = diag_new(c, DIAG_ERROR, "E0612", span_none, "`-o %s` for %d results: `%s` builds %s", o->out,
	                   names.n, o->input, list);
	diag_note(d, "each would be written to the same file, the last over the others");
	diag_help(d, "name one with `--kernel %s`", (const char *)names.v[0]);
	if (o->emit == EMIT_DEFAULT)
		diag_help(d, "or leave out -o: each goes to its NAME.cubin");
	diag_end(c, d);
	return 1;
}

/* E0606 for any output of the kernel or select `name` (when it is built:
 * -k names it, or none is named) that is an input of this build. */
static int refuse_outputs(Ctx *c, Options *o, const Program *p, const char *name, int narches)
{
	if (o->kernel && strcmp(o->kernel, name))
		return 0;
	const char *bin = binary_out(c, o, name, narches);
	return refuse_input(c, o, p, o->out) || refuse_input(c, o, p, bin) || refuse_input(c, o, p, o->depfile) ||
	       refuse_input(c, o, p, bin ? (o->manifest ? o->manifest : with_ext(c, bin, ".manifest.json")) : NULL);
}

/* One kernel, every requested arch: a cubin for one arch, a fatbin for
 * several, and the manifest beside it. */
static int build_kernel(Ctx *c, Options *o, const Program *p, const Kernel *k,
                        const ArchInfo **arches, int narches)
{
	Placement *ps[8];
	LinkResult rs[8];
	const ArchInfo *as[8];
	int n = 0, rc = 0;
	FILE *ptx = NULL, *map = NULL;
	memset(rs, 0, sizeof rs);
	for (int a = 0; a < narches && !rc; a++) {
		rc = place_kernel(c, o, p, k, arches[a], 0, &ps[n], a == 0);
		if (rc || !ps[n] || o->check_only)
			continue;
		if (o->emit == EMIT_MANIFEST) {
			n++;
			continue;
		}
		if (o->emit == EMIT_MAP) {        /* the objects a link would take, not linked */
			LinkObj *objs = arena_alloc(c->arena, (ps[n]->g->insts.n + 1) * sizeof *objs);
			rc = link_objects(c, ps[n], objs) || c->nerrors;
			FILE *f = rc ? NULL : map ? map : (map = open_out(c, o, o->out));
			if (f)
				map_print(f, ps[n], objs);
			rc = rc || !f;
			continue;
		}
		as[n] = ps[n]->arch;
		double t0 = plk_clock();
		rc = link_kernel(c, ps[n], o->emit == EMIT_PTX, &rs[n]) || c->nerrors;
		ctx_time(c, arena_printf(c->arena, "link %s (total)", as[n]->name), t0);
		n++;
		if (!rc && o->emit == EMIT_PTX) {
			if (!ptx && !(ptx = open_out(c, o, o->out)))
				rc = 1;
			else
				fputs(rs[n - 1].ptx ? rs[n - 1].ptx : "", ptx);
		}
	}
	if (ptx)
		rc |= close_out(c, o, ptx, o->out);
	if (map)
		rc |= close_out(c, o, map, o->out);
	if (!rc && n > 0 && o->emit == EMIT_MANIFEST) {
		FILE *f = open_out(c, o, o->out);
		rc = !f || manifest_write_multi(c, (const Placement *const *)ps, n, NULL, f) || c->nerrors;
		rc |= close_out(c, o, f, o->out);
	} else if (!rc && n > 0 && o->emit != EMIT_PTX)
		rc = write_binary(c, o, k, ps, rs, as, n);
	for (int i = 0; i < n; i++)
		link_result_free(&rs[i]);
	return rc || c->nerrors;
}

typedef struct Selected {
	const Select *s;
	const Variant *vs;
	const Placement *const *ps;   /* [arch * n + variant] */
	int n, narch;
	const LinkResult *rs;         /* per arch; NULL: --emit=manifest */
} Selected;
static int select_manifest(Ctx *c, const void *ud, const char *binary, FILE *f)
{
	const Selected *sl = ud;
	return manifest_write_select(c, sl->s, sl->vs, sl->ps, sl->n, sl->narch, sl->rs, binary, f);
}

/* A select: every variant checked and placed for each arch, their
 * launched parameters compared, then all linked into one cubin per arch
 * (a fatbin of them for several) with one manifest (docs/language.md,
 * "Variants"). */
static int build_select(Ctx *c, Options *o, const Program *p, const Select *s,
                        const ArchInfo **arches, int narches)
{
	int nv;
	Variant *vs = select_variants(c, p, s, &nv);
	if (!vs)
		return 1;
	int shown = o->emit == EMIT_DEFAULT || o->emit == EMIT_CUBIN || o->emit == EMIT_MANIFEST;
	if (!shown && !(o->emit == EMIT_PTX && narches == 1)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0608", s->name_sp, "--emit=%s shows %s, not select `%s`",
		                   emit_names[o->emit], o->emit == EMIT_PTX ? "one arch" : "one kernel", s->name);
		d->primary.msg = o->emit == EMIT_PTX ? "linked for several arches" : "a select of several kernels";
		diag_help(d, o->emit == EMIT_PTX ? "give one -arch for --emit=ptx"
		                                 : "name one of its variants with `--kernel VARIANT`");
		diag_end(c, d);
		return 1;
	}
	Placement **ps = arena_alloc(c->arena, ((size_t)narches * nv + 1) * sizeof *ps);
	int rc = 0;
	for (int a = 0; a < narches && !rc; a++)   /* every variant's errors, for the first arch with any */
		for (int v = 0, base = 0; v < nv; v++) {
			Placement **pv = &ps[a * nv + v];
			rc |= place_kernel(c, o, p, vs[v].k, arches[a], base, pv, a == 0);
			if (!rc)
				base += graph_ids((*pv)->g);   /* the next variant's ids follow this one's lanes */
		}
	for (int a = 0; !rc && !c->nerrors && a < narches; a++)
		rc = select_check_launch(c, s, vs, (const Placement *const *)ps + a * nv, nv);
	if (rc || c->nerrors)
		return 1;
	if (o->check_only)
		return 0;
	Selected sl = { s, vs, (const Placement *const *)ps, nv, narches, NULL };
	if (o->emit == EMIT_MANIFEST) {   /* a manifest of a binary that could be linked */
		for (int a = 0; a < narches; a++)
			if (link_check_ids(c, sl.ps + a * nv, nv))
				return 1;
		FILE *f = open_out(c, o, o->out);
		rc = !f || select_manifest(c, &sl, NULL, f) || c->nerrors;
		return close_out(c, o, f, o->out) || rc;
	}
	LinkResult *rs = arena_alloc(c->arena, (size_t)narches * sizeof *rs);
	memset(rs, 0, (size_t)narches * sizeof *rs);
	for (int a = 0; a < narches && !rc; a++) {
		double t0 = plk_clock();
		rc = link_kernels(c, sl.ps + a * nv, nv, o->emit == EMIT_PTX, &rs[a]) || c->nerrors;
		ctx_time(c, arena_printf(c->arena, "link %s (total)", arches[a]->name), t0);
	}
	if (!rc && o->emit == EMIT_PTX) {
		FILE *f = open_out(c, o, o->out);
		if (f)
			fputs(rs[0].ptx ? rs[0].ptx : "", f);
		rc = close_out(c, o, f, o->out);
	} else if (!rc) {
		sl.rs = rs;
		rc = write_arches(c, o, s->name, rs, arches, narches, select_manifest, &sl);
	}
	for (int a = 0; a < narches; a++)
		link_result_free(&rs[a]);
	return rc || c->nerrors;
}

/* The component -c and --emit=header build: --component NAME, else the
 * first the input file declares; a note names it when there are several. */
static const Component *pick_component(Ctx *c, const Options *o, const Program *p)
{
	const Component *first = NULL;
	int n = 0;
	for (int i = 0; i < p->comps.n; i++) {
		const Component *ci = p->comps.v[i];
		if (o->component && !strcmp(ci->name, o->component))
			return ci;
		if (ci->file && c->nsrcs && !strcmp(ci->file, c->srcs[0]->path)) {
			n++;
			if (!first)
				first = ci;
		}
	}
	if (o->component) {
		error_at(c, "E0605", span_none, "no component named `%s` in `%s`", o->component, o->input);
		return NULL;
	}
	if (!first)
		first = p->comps.v[0];
	if (n > 1) {
		Diag *d = diag_new(c, DIAG_NOTE, NULL, first->name_sp, "%s component `%s`, the first of %d in `%s`",
			o->emit == EMIT_HEADER ? "the header of" : "compiling", first->name, n, o->input);
		diag_help(d, "pick another with `--component NAME`");
		diag_end(c, d);
	}
	return first;
}

typedef struct MegaLinked { const MegaPlan *mp; const LinkResult *r; } MegaLinked;
static int mega_manifest(Ctx *c, const void *ud, const char *binary, FILE *f)
{
	const MegaLinked *ml = ud;
	return manifest_write_mega(c, ml->mp, ml->r, binary, f);
}

/* A megakernel (docs/megakernel.md): checked and scheduled; its schedule
 * (--emit=schedule), its manifest, or its cubin and manifest, linked from
 * its ops' kernels under its entry (mega_entry.c). One arch (E0377). */
static int build_mega(Ctx *c, Options *o, const Program *p, const Mega *m, const ArchInfo **arches, int narches)
{
	int shown = o->emit == EMIT_DEFAULT || o->emit == EMIT_CUBIN || o->emit == EMIT_MANIFEST ||
	            o->emit == EMIT_SCHEDULE || o->emit == EMIT_GLUE_LL || o->emit == EMIT_MONOLITH;
	if (narches > 1 || !shown) {
		Diag *d = narches > 1
		        ? diag_new(c, DIAG_ERROR, "E0377", m->name_sp, "megakernel `%s` is linked for one arch, not %d",
		                   m->name, narches)
		        : diag_new(c, DIAG_ERROR, "E0377", m->name_sp, "--emit=%s shows one kernel, not megakernel `%s`",
		                   emit_names[o->emit], m->name);
		d->primary.msg = narches > 1 ? "its schedule is made for one GPU" : "a program of several kernels";
		diag_help(d, narches > 1 ? "link it once per -arch" : "--emit=schedule shows its schedule; --kernel OP_KERNEL "
		                                                       "shows one op's kernel");
		diag_end(c, d);
		return 1;
	}
	double t0 = plk_clock();
	MegaPlan *mp = mega_check(c, p, m, arches[0]);
	ctx_time(c, "megakernel", t0);
	if (!mp || c->nerrors)
		return 1;
	mp->timeline = o->timeline;
	if (o->emit == EMIT_SCHEDULE) {
		FILE *f = open_out(c, o, o->out);
		if (f)
			mega_schedule_print(f, mp);
		return close_out(c, o, f, o->out);
	}
	if (o->check_only)
		return 0;
	if (mega_check_linkable(c, mp))
		return 1;
	const Placement *const *ps = (const Placement *const *)mp->kernels.v;
	if (o->emit == EMIT_MANIFEST || o->emit == EMIT_GLUE_LL || o->emit == EMIT_MONOLITH) {
		FILE *f = open_out(c, o, o->out);
		int rc = !f || (o->emit == EMIT_MANIFEST ? manifest_write_mega(c, mp, NULL, NULL, f)
		                : o->emit == EMIT_MONOLITH ? monolith_write_mega(c, mp, f)
		                : glue_emit_ll_ops(c, ps, mp->kernels.n, 1, mega_entry_source(c, mp, ps, mp->kernels.n), f));
		return close_out(c, o, f, o->out) || rc || c->nerrors;
	}
	LinkResult r;
	t0 = plk_clock();
	int rc = link_mega(c, ps, mp->kernels.n, mp, 0, &r) || c->nerrors;
	ctx_time(c, "link megakernel (total)", t0);
	if (rc)
		return 1;
	const MegaLinked ml = { mp, &r };
	rc = write_linked(c, o, binary_out(c, o, m->name, 1), r.cubin, r.cubin_size, mega_manifest, &ml);
	link_result_free(&r);
	return rc;
}

static int run(Ctx *c, Options *o)
{
	if ((o->emit == EMIT_CONTRACT || o->emit == EMIT_AST) && refuse_input(c, o, NULL, o->out))
		return 1;
	if (o->emit == EMIT_CONTRACT) {
		FILE *f = open_out(c, o, o->out);
		int rc = !f || object_emit_contract(c, o->input, f) || c->nerrors;
		rc |= close_out(c, o, f, o->out);
		return rc || (o->md && write_depfile(c, o, NULL));
	}
	if (o->emit == EMIT_AST) {
		int src = ctx_load_input(c, o->input);
		if (src < 0)
			return 1;
		Module *m = parse_source(c, src);
		if (!m || c->nerrors)
			return 1;
		FILE *f = open_out(c, o, o->out);
		if (f)
			ast_dump(f, m);
		return close_out(c, o, f, o->out) || (o->md && write_depfile(c, o, NULL));
	}
	const ArchInfo *arches[8];
	int narches;
	if (lookup_arches(c, o, arches, &narches))
		return 1;
	double t0 = plk_clock();
	Program *p = resolve(c, o->input);
	ctx_time(c, "parse + resolve", t0);
	if (!p || c->nerrors)
		return 1;
	for (int a = 0; a < narches; a++)   /* objects named by `use object` */
		program_check_arch(c, p, arches[a]);
	if (c->nerrors)
		return 1;
	if (o->compile_only || o->emit == EMIT_HEADER) {
		if (p->comps.n == 0) {
			error_at(c, "E0604", span_none, "`%s` declares no component to compile", o->input);
			return 1;
		}
		const Component *comp = pick_component(c, o, p);
		if (!comp)
			return 1;
		/* -D of a contract constant: the value the object is built for */
		int set = 0;
		const int64_t *cv = object_cvals(c, comp, &set);
		if (!cv)
			return 1;
		if (o->emit == EMIT_HEADER) {
			if (refuse_input(c, o, p, o->out))
				return 1;
			FILE *f = open_out(c, o, o->out);
			if (f)
				contract_header(f, comp, set ? cv : NULL);
			return close_out(c, o, f, o->out) || (o->md && write_depfile(c, o, p));
		}
		const char *out = o->out ? o->out : arena_printf(c->arena, "%s.o", comp->name);
		if (!strcmp(out, "-")) {
			error_at(c, "E0603", span_none, "an object is not written to stdout: give -o FILE.o");
			return 1;
		}
		/* beside the object: its constants, ids and entry prototype (docs/abi.md);
		 * the two are written together */
		const char *hpath = with_ext(c, out, ".plk.h");
		if (refuse_input(c, o, p, out) || refuse_input(c, o, p, hpath) || refuse_input(c, o, p, o->depfile))
			return 1;
		/* no -arch: object_build's default, every arch the contract allows */
		if (object_build(c, comp, cv, o->narches ? arches : NULL, o->narches ? narches : 0, out, hpath,
		                 set ? cv : NULL) || c->nerrors)
			return 1;
		vec_push(c->arena, &o->targets, (void *)out);
		vec_push(c->arena, &o->targets, (void *)hpath);
		return c->nerrors || (o->md && write_depfile(c, o, p));
	}
	if (o->timeline && !p->megas.n) {
		error_at(c, "E0605", span_none, "`%s` declares no megakernel: --timeline records a megakernel's pieces", o->input);
		return 1;
	}
	if (o->emit == EMIT_SCHEDULE && !p->megas.n) {
		error_at(c, "E0605", span_none, "`%s` declares no megakernel: --emit=schedule shows a megakernel's", o->input);
		return 1;
	}
	if (p->kernels.n == 0 && p->megas.n == 0) {
		if (o->check_only)
			return 0;    /* a file of components: checked by resolve */
		Diag *d = diag_new(c, DIAG_ERROR, "E0604", span_none, "`%s` declares no kernel", o->input);
		diag_help(d, "to compile a component on its own, use `plkc -c %s`", o->input);
		diag_end(c, d);
		return 1;
	}
	int rc = 0, built = 0;
	/* one -o for several results: their own errors first (checked, not
	 * built), then E0612 */
	int several = o->out && !o->kernel && !o->check_only && several_outputs(c, o, p, 0);
	if (several)
		o->check_only = 1;
	/* no output is an input: before anything is built */
	for (int i = 0; i < p->kernels.n; i++)
		if (refuse_outputs(c, o, p, ((const Kernel *)p->kernels.v[i])->name, narches))
			return 1;
	for (int i = 0; i < p->selects.n; i++)
		if (refuse_outputs(c, o, p, ((const Select *)p->selects.v[i])->name, narches))
			return 1;
	for (int i = 0; i < p->megas.n; i++) {
		const Mega *m = p->megas.v[i];
		if (o->kernel && strcmp(o->kernel, m->name))
			continue;
		built++;
		rc |= build_mega(c, o, p, m, arches, narches);
	}
	for (int i = 0; i < p->selects.n && o->emit != EMIT_SCHEDULE; i++) {
		const Select *s = p->selects.v[i];
		if (o->kernel && strcmp(o->kernel, s->name))
			continue;
		built++;
		rc |= build_select(c, o, p, s, arches, narches);
	}
	/* a select's variants are built in its cubin, alone only when named;
	 * nothing more after a select's errors (its kernels would repeat them) */
	for (int i = 0, sel = rc; i < p->kernels.n && !sel && o->emit != EMIT_SCHEDULE; i++) {
		const Kernel *k = p->kernels.v[i];
		if (o->kernel ? strcmp(o->kernel, k->name) != 0 : !built_alone(p, k))
			continue;
		built++;
		rc |= build_kernel(c, o, p, k, arches, narches);
	}
	if (o->kernel && !built) {
		error_at(c, "E0605", span_none, "no kernel, select or megakernel named `%s` in `%s`", o->kernel, o->input);
		return 1;
	}
	if (several) {
		o->check_only = 0;
		return rc || c->nerrors ? 1 : several_outputs(c, o, p, 1);
	}
	if (!rc && !c->nerrors && o->md && !o->check_only)
		rc = write_depfile(c, o, p);
	return rc || c->nerrors;
}

static void print_version(Ctx *c, const char *home)
{
	printf("plkc %s\n", PLK_VERSION);
	const char *nvcc = object_toolkit_version(c);
	printf("CUDA toolkit %s (nvcc %s)\n", sys_cuda_home(), nvcc ? nvcc : "not found: set CUDA_HOME");
	link_print_versions(stdout);
	printf("LLVM %s\n", glue_llvm_version());
	printf("data %s\n", home ? home : "not found: set PLK_HOME");
}

int main(int argc, char **argv)
{
	Ctx c;
	ctx_init(&c, stderr);
	Options o = { 0 };
	char homebuf[PATH_MAX];
	const char *home = sys_home(homebuf, sizeof homebuf) ? NULL : arena_strdup(c.arena, homebuf);
	if (home) {
		c.stdlib_dir = arena_printf(c.arena, "%s/stdlib", home);
		const char *comps = arena_printf(c.arena, "%s/components", home);
		if (access(comps, F_OK) == 0)
			c.components_dir = comps;
	}
	/* --help, --version and --explain stand alone: before other options */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			ctx_fini(&c);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			print_version(&c, home);
			ctx_fini(&c);
			return 0;
		}
		if (!strcmp(argv[i], "--explain")) {
			const char *code = i + 1 < argc ? argv[i + 1] : NULL;
			int r = code && home ? explain(stdout, arena_printf(c.arena, "%s/docs/errors", home), code) : 2;
			if (!code)
				fputs("plkc: --explain needs an error code, e.g. --explain E0101\n", stderr);
			else if (!home)
				fputs("plkc: cannot find PipeLink's docs/errors: set PLK_HOME (PREFIX/share/pipelink)\n", stderr);
			else if (r)
				fprintf(stderr, "plkc: no explanation for `%s`: error codes look like E0101\n", code);
			ctx_fini(&c);
			return r ? 2 : 0;
		}
	}
	int rc = parse_args(&c, &o, argc, argv);
	if (!rc && !o.input)
		rc = bad_usage("%s", "no input file");
	if (!rc)
		rc = check_outputs(&c, &o);
	struct stat st;
	if (!rc && !is_stdin_path(o.input) && stat(o.input, &st) == 0 && S_ISDIR(st.st_mode)) {
		Diag *d = diag_new(&c, DIAG_ERROR, "E0601", span_none, "`%s` is a directory, not a .plk file", o.input);
		diag_help(d, "give the recipe's path, e.g. `%s/NAME.plk`", o.input);
		diag_end(&c, d);
		rc = 1;
	} else if (!rc) {
		double t0 = plk_clock();
		rc = run(&c, &o) ? 1 : 0;
		ctx_time(&c, "plkc (all)", t0);
	}
	if (rc == 1 && c.nerrors && c.format == DIAGFMT_HUMAN)
		fprintf(stderr, "error: could not compile `%s` due to %d previous error%s\n", o.input,
			c.nerrors, c.nerrors == 1 ? "" : "s");
	if (rc == 1 && c.nerrors)
		diag_footer(&c);
	ctx_fini(&c);
	return rc;
}
