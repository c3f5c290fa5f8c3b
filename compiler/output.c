/* output.c: every file plkc writes goes through out_open/out_close (text)
 * or write_files (binaries with their manifests, and what out_close
 * collected): written under a temporary name beside it and renamed into
 * place, several together or none, so a failing write (a full disk, a
 * directory in the way) leaves the old files as they were
 * (sys_write_files). "-" and NULL are stdout. Each file written is a
 * target of the dependency file (-MD). */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "driver.h"

/* Where the linked binary goes: -o, else stdout for --emit=cubin (as
 * --help says of every --emit kind), else KERNEL.cubin / KERNEL.fatbin.
 * NULL when the run writes no binary. */
const char *out_binary_path(Ctx *c, const Options *o, const char *kernel, int narches)
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
int out_check_stdout(Ctx *c, const Options *o)
{
	const char *bin = out_binary_path(c, o, "k", o->narches);
	if (!bin || strcmp(bin, "-"))
		return 0;
	if (!o->manifest)
		return cli_bad_usage("%s", "a cubin on stdout needs --manifest FILE for its manifest (or give -o FILE)");
	if (isatty(STDOUT_FILENO))
		return cli_bad_usage("%s", "not writing a cubin to a terminal: give -o FILE or redirect stdout");
	return 0;
}

/* E0603 for path, with the OS's reason (errno), left open for more notes. */
static Diag *cannot_write(Ctx *c, const char *path)
{
	int e = errno;
	Diag *d = diag_new(c, DIAG_ERROR, "E0603", span_none, "cannot write `%s`", path);
	diag_note(d, "%s", e ? sys_strerror(e) : "the write did not complete");
	return d;
}

void out_cannot_write(Ctx *c, const char *path)
{
	diag_end(c, cannot_write(c, path));
}

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
		Diag *d = cannot_write(c, path[failed]);
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

FILE *out_open(Ctx *c, Options *o, const char *path)
{
	if (!path || !strcmp(path, "-"))
		return stdout;
	Out *w = arena_alloc(c->arena, sizeof *w);
	w->path = path;
	if (!(w->f = open_memstream(&w->buf, &w->len))) {
		out_cannot_write(c, path);
		return NULL;
	}
	vec_push(c->arena, &o->outs, w);
	return w->f;
}

/* 0 when everything reached the file (or stdout). */
int out_close(Ctx *c, Options *o, FILE *f, const char *path)
{
	if (!f)
		return 1;
	if (f == stdout) {
		int bad = fflush(f) != 0 || ferror(f);
		if (bad)
			out_cannot_write(c, "<stdout>");
		return bad;
	}
	Out *w = NULL;
	for (int i = 0; i < o->outs.n && !w; i++)
		if (((Out *)o->outs.v[i])->f == f)
			w = o->outs.v[i];
	int bad = fclose(f) != 0;
	if (bad)
		out_cannot_write(c, path);
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
const char *out_with_ext(Ctx *c, const char *out, const char *ext)
{
	const char *slash = strrchr(out, '/'), *dot = strrchr(out, '.');
	size_t stem = dot && (!slash || dot > slash) ? (size_t)(dot - out) : strlen(out);
	return arena_printf(c->arena, "%.*s%s", (int)stem, out, ext);
}

/* E0606 when out is a file this run reads: the recipe, a file it uses, a
 * component's declaration, source or object. */
int out_refuse_input(Ctx *c, const Options *o, const Program *p, const char *out)
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
int out_depfile(Ctx *c, Options *o, const Program *p)
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
		path = out_with_ext(c, first, ".d");
	char *buf = NULL;
	size_t len = 0;
	FILE *f = open_memstream(&buf, &len);
	if (!f) {
		out_cannot_write(c, path);
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


/* A binary and its manifest text, both or neither: to `out` and mpath
 * (atomically), or the binary to stdout (out "-"). */
static int write_pair(Ctx *c, Options *o, const char *out, const char *mpath, const void *bin, size_t size,
                      const char *man, size_t mlen)
{
	if (!strcmp(out, "-")) {
		int rc = fwrite(bin, 1, size, stdout) != size || fflush(stdout) != 0;
		if (rc)
			out_cannot_write(c, "<stdout>");
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
int out_linked(Ctx *c, Options *o, const char *out, const void *bin, size_t size, ManifestFn fn,
                        const void *ud)
{
	const char *mpath = o->manifest ? o->manifest : out_with_ext(c, out, ".manifest.json");
	char *man = NULL;
	size_t mlen = 0;
	FILE *m = open_memstream(&man, &mlen);
	int rc = !m || fn(c, ud, binary_key(c, out, mpath), m);
	if (m && fclose(m))
		rc = 1;
	if (rc)
		out_cannot_write(c, mpath);
	else
		rc = write_pair(c, o, out, mpath, bin, size, man, mlen);
	free(man);
	return rc;
}
