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
#include <unistd.h>
#include "plk.h"

typedef enum {
	EMIT_DEFAULT, EMIT_AST, EMIT_GRAPH, EMIT_DOT, EMIT_PLACEMENT, EMIT_GLUE_LL,
	EMIT_PTX, EMIT_CUBIN, EMIT_MONOLITH, EMIT_CONTRACT, EMIT_MANIFEST, EMIT_HEADER
} Emit;

static const char *const emit_names[] = {
	"", "ast", "graph", "dot", "placement", "glue-ll", "ptx", "cubin", "monolith", "contract",
	"manifest", "header",
};

typedef struct Options {
	const char *input;
	const char *out;
	const char *kernel;          /* --kernel NAME: one of several */
	const char *arches[8];
	int narches;
	Emit emit;
	int check_only, compile_only;
} Options;

static const char usage[] =
	"usage: plkc FILE.plk [-arch sm_XX ...] [-o OUT] [-I DIR] [--emit=KIND] [--check]\n"
	"       plkc -c COMPONENT.plk [-arch sm_XX ...] [-o OBJECT.o]\n"
	"       plkc --emit=contract OBJECT.o\n"
	"       plkc --explain E0XXX | --version | --help\n"
	"\n"
	"  -arch sm_XX          target arch (repeatable; sm_80, sm_90a, sm_100a; default sm_90a;\n"
	"                       with -c, every arch the component's `arch` clause allows).\n"
	"                       sm_90/sm_100 pick the `a` feature set when a component needs it.\n"
	"  -o OUT               output file (cubin, fatbin for several arches, or object with -c);\n"
	"                       the manifest goes beside it: k.cubin -> k.manifest.json\n"
	"  -I DIR               also look for `use`d files in DIR\n"
	"  -c                   compile a component declaration into an object carrying its contract\n"
	"  --check              check contracts and placement, write nothing\n"
	"  --emit=KIND          ast | graph | dot | placement | glue-ll | ptx | cubin | monolith |\n"
	"                       manifest | contract | header: print that stage's result on stdout\n"
	"                       (header: a component's constants, ids and entry prototype, COMPONENT.plk.h)\n"
	"  --kernel NAME        the kernel to build when the file declares several\n"
	"  --time               print the time of each stage on stderr\n"
	"  --diagnostics-format=human|short\n"
	"                       short: one `file:line:col: error[E0XXX]: message` line each\n"
	"  --explain E0XXX      explain an error code, with an example\n";

/* The repository (or install prefix) root: the binary lives in build/. */
static const char *home_dir(Ctx *c)
{
	const char *env = getenv("PLK_HOME");
	if (env && *env)
		return env;
	char exe[PATH_MAX];
	if (sys_exe_path(exe, sizeof exe))
		return ".";
	char *d = dirname(exe);        /* .../build or .../build/san */
	char probe[PATH_MAX + 32];
	for (int up = 0; up < 3; up++) {
		snprintf(probe, sizeof probe, "%s/stdlib", d);
		if (access(probe, F_OK) == 0)
			return arena_strdup(c->arena, d);
		d = dirname(d);
	}
	return ".";
}

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

static int add_arch(Options *o, const char *v)
{
	if (!v || !*v)
		return bad_usage("%s", "-arch needs a value, e.g. -arch sm_90a");
	if (o->narches == 8)
		return bad_usage("%s", "at most 8 -arch values");
	o->arches[o->narches++] = v;
	return 0;
}

static int parse_args(Ctx *c, Options *o, int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		const char *a = argv[i];
		int rc = 0;
		if (!strcmp(a, "-arch") || !strcmp(a, "--arch"))
			rc = add_arch(o, i + 1 < argc ? argv[++i] : NULL);
		else if (!strncmp(a, "-arch=", 6))
			rc = add_arch(o, a + 6);
		else if (!strncmp(a, "--arch=", 7))
			rc = add_arch(o, a + 7);
		else if (!strcmp(a, "-o")) {
			if (i + 1 >= argc)
				return bad_usage("%s", "-o needs a file name");
			o->out = argv[++i];
		} else if (!strcmp(a, "-I")) {
			if (i + 1 >= argc)
				return bad_usage("%s", "-I needs a directory");
			vec_push(c->arena, &c->include_dirs, argv[++i]);
		} else if (!strncmp(a, "-I", 2))
			vec_push(c->arena, &c->include_dirs, (void *)(a + 2));
		else if (!strncmp(a, "--emit=", 7))
			rc = set_emit(o, a + 7);
		else if (!strcmp(a, "--emit")) {
			if (i + 1 >= argc)
				return bad_usage("%s", "--emit needs a kind");
			rc = set_emit(o, argv[++i]);
		} else if (!strcmp(a, "--kernel")) {
			if (i + 1 >= argc)
				return bad_usage("%s", "--kernel needs a name");
			o->kernel = argv[++i];
		} else if (!strcmp(a, "--check"))
			o->check_only = 1;
		else if (!strcmp(a, "-c"))
			o->compile_only = 1;
		else if (!strcmp(a, "-v") || !strcmp(a, "--verbose"))
			c->verbose = 1;
		else if (!strcmp(a, "--time"))
			c->timing = 1;
		else if (!strncmp(a, "--diagnostics-format=", 21)) {
			const char *v = a + 21;
			if (!strcmp(v, "short"))
				c->format = DIAGFMT_SHORT;
			else if (!strcmp(v, "human"))
				c->format = DIAGFMT_HUMAN;
			else
				return bad_usage("unknown diagnostics format `%s` (human or short)", v);
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

static FILE *open_out(Ctx *c, const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	FILE *f = fopen(path, "wb");
	if (!f)
		cannot_write(c, path);
	return f;
}

static void close_out(FILE *f)
{
	if (f && f != stdout)
		fclose(f);
}

/* OUT with its extension replaced: k.cubin -> k.manifest.json. */
static const char *manifest_path(Ctx *c, const char *out)
{
	const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
	size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
	return arena_printf(c->arena, "%.*s.manifest.json", (int)stem, out);
}

/* The linked binary to path, or to stdout for "-". */
static int write_out(Ctx *c, const char *path, const void *data, size_t n)
{
	errno = 0;
	int bad = strcmp(path, "-") ? sys_write_file(path, data, n) != 0 : fwrite(data, 1, n, stdout) != n;
	if (bad)
		cannot_write(c, path);
	return bad;
}

/* Check and place one kernel for one arch; print the stage --emit asks
 * for when it ends before linking. *pl is NULL when nothing is left to do. */
static int place_kernel(Ctx *c, const Options *o, const Program *p, const Kernel *k,
                        const ArchInfo *arch, Placement **pl)
{
	*pl = NULL;
	arch = upgrade_arch(c, p, k, arch);
	double t0 = plk_clock();
	Graph *g = check_kernel(c, p, k, arch);
	ctx_time(c, "check", t0);
	if (!g || c->nerrors)
		return 1;
	if (o->emit == EMIT_GRAPH || o->emit == EMIT_DOT) {
		(o->emit == EMIT_GRAPH ? graph_print : graph_dot)(stdout, g);
		return 0;
	}
	t0 = plk_clock();
	Placement *x = place(c, g);
	ctx_time(c, "place", t0);
	if (!x || c->nerrors)
		return 1;
	if (o->emit == EMIT_PLACEMENT) {
		placement_print(stdout, x);
		return 0;
	}
	if (o->check_only)
		return 0;
	if (o->emit == EMIT_GLUE_LL)
		return glue_emit_ll(c, x, stdout) || c->nerrors;
	if (o->emit == EMIT_MONOLITH) {
		FILE *f = open_out(c, o->out);
		int rc = !f || monolith_write(c, x, f);
		close_out(f);
		return rc || c->nerrors;
	}
	*pl = x;
	return 0;
}

/* One kernel, every requested arch: a cubin for one arch, a fatbin for
 * several, and the manifest beside it. */
static int build_kernel(Ctx *c, const Options *o, const Program *p, const Kernel *k,
                        const ArchInfo **arches, int narches)
{
	Placement *ps[8];
	LinkResult rs[8];
	const ArchInfo *as[8];
	int n = 0, rc = 0;
	memset(rs, 0, sizeof rs);
	for (int a = 0; a < narches && !rc; a++) {
		rc = place_kernel(c, o, p, k, arches[a], &ps[n]);
		if (rc || !ps[n])
			continue;
		if (o->emit == EMIT_MANIFEST) {
			n++;
			continue;
		}
		as[n] = ps[n]->arch;
		double t0 = plk_clock();
		rc = link_kernel(c, ps[n], o->emit == EMIT_PTX, &rs[n]) || c->nerrors;
		ctx_time(c, arena_printf(c->arena, "link %s (total)", as[n]->name), t0);
		n++;
		if (!rc && o->emit == EMIT_PTX)
			fputs(rs[n - 1].ptx ? rs[n - 1].ptx : "", stdout);
	}
	if (!rc && n > 0 && o->emit == EMIT_MANIFEST)
		rc = manifest_write_multi(c, (const Placement *const *)ps, n, NULL, stdout) || c->nerrors;
	else if (!rc && n > 0 && o->emit != EMIT_PTX) {
		const char *out = o->out ? o->out
			: arena_printf(c->arena, "%s.%s", k->name, n > 1 ? "fatbin" : "cubin");
		if (n == 1)
			rc = write_out(c, out, rs[0].cubin, rs[0].cubin_size);
		else {
			void *fb = NULL;
			size_t size = 0;
			rc = link_fatbin(c, as, rs, n, &fb, &size) || write_out(c, out, fb, size);
			free(fb);
		}
		if (!rc && strcmp(out, "-")) {
			const char *slash = strrchr(out, '/');
			FILE *m = open_out(c, manifest_path(c, out));
			rc = !m || manifest_write_multi(c, (const Placement *const *)ps, n,
				slash ? slash + 1 : out, m);
			close_out(m);
		}
	}
	for (int i = 0; i < n; i++)
		link_result_free(&rs[i]);
	return rc || c->nerrors;
}

static int run(Ctx *c, const Options *o)
{
	if (o->emit == EMIT_CONTRACT) {
		return object_emit_contract(c, o->input, stdout) || c->nerrors;
	}
	if (o->emit == EMIT_AST) {
		int src = ctx_load_file(c, o->input, span_none);
		if (src < 0)
			return 1;
		Module *m = parse_source(c, src);
		if (m && !c->nerrors)
			ast_dump(stdout, m);
		return c->nerrors != 0;
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
		const Component *comp = NULL;
		for (int i = 0; i < p->comps.n; i++) {
			const Component *ci = p->comps.v[i];
			if (!strcmp(ci->file, o->input))
				comp = ci;
		}
		if (!comp)
			comp = p->comps.v[0];
		if (o->emit == EMIT_HEADER) {
			contract_header(stdout, comp, NULL);
			return 0;
		}
		const char *out = o->out ? o->out : arena_printf(c->arena, "%s.o", comp->name);
		/* no -arch: object_build's default, every arch the contract allows */
		if (object_build(c, comp, NULL, o->narches ? arches : NULL, o->narches ? narches : 0, out) ||
		    c->nerrors)
			return 1;
		/* beside the object: its constants, ids and entry prototype (docs/abi.md) */
		const char *dot = strrchr(out, '.'), *slash = strrchr(out, '/');
		int stem = dot && (!slash || dot > slash) ? (int)(dot - out) : (int)strlen(out);
		FILE *h = open_out(c, arena_printf(c->arena, "%.*s.plk.h", stem, out));
		if (!h)
			return 1;
		contract_header(h, comp, NULL);
		close_out(h);
		return c->nerrors != 0;
	}
	if (p->kernels.n == 0) {
		if (o->check_only)
			return 0;    /* a file of components: checked by resolve */
		Diag *d = diag_new(c, DIAG_ERROR, "E0604", span_none, "`%s` declares no kernel", o->input);
		diag_help(d, "to compile a component on its own, use `plkc -c %s`", o->input);
		diag_end(c, d);
		return 1;
	}
	int rc = 0, built = 0;
	for (int i = 0; i < p->kernels.n; i++) {
		const Kernel *k = p->kernels.v[i];
		if (o->kernel && strcmp(o->kernel, k->name))
			continue;
		built++;
		rc |= build_kernel(c, o, p, k, arches, narches);
	}
	if (o->kernel && !built) {
		error_at(c, "E0605", span_none, "no kernel named `%s` in `%s`", o->kernel, o->input);
		return 1;
	}
	return rc || c->nerrors;
}

int main(int argc, char **argv)
{
	Ctx c;
	ctx_init(&c, stderr);
	Options o = { 0 };
	const char *home = home_dir(&c);
	c.stdlib_dir = arena_printf(c.arena, "%s/stdlib", home);
	/* --help, --version and --explain stand alone: before other options */
	for (int i = 1; i < argc; i++) {
		if (!strcmp(argv[i], "--help") || !strcmp(argv[i], "-h")) {
			fputs(usage, stdout);
			ctx_fini(&c);
			return 0;
		}
		if (!strcmp(argv[i], "--version")) {
			printf("plkc %s\n", PLK_VERSION);
			ctx_fini(&c);
			return 0;
		}
		if (!strcmp(argv[i], "--explain")) {
			const char *code = i + 1 < argc ? argv[i + 1] : NULL;
			int r = code ? explain(stdout, arena_printf(c.arena, "%s/docs/errors", home), code) : 2;
			if (!code)
				fputs("plkc: --explain needs an error code, e.g. --explain E0101\n", stderr);
			else if (r)
				fprintf(stderr, "plkc: no explanation for `%s`: error codes look like E0101\n", code);
			ctx_fini(&c);
			return r ? 2 : 0;
		}
	}
	int rc = parse_args(&c, &o, argc, argv);
	if (!rc && !o.input)
		rc = bad_usage("%s", "no input file");
	if (!rc) {
		double t0 = plk_clock();
		rc = run(&c, &o) ? 1 : 0;
		ctx_time(&c, "plkc (all)", t0);
		if (c.nerrors && c.format == DIAGFMT_HUMAN)
			fprintf(stderr, "error: could not compile `%s` due to %d previous error%s\n", o.input,
				c.nerrors, c.nerrors == 1 ? "" : "s");
		if (c.nerrors)
			diag_footer(&c);
	}
	ctx_fini(&c);
	return rc;
}
