/* object.c: building component objects that carry their contract, and
 * the content-hash cache of them (objread.c reads them back).
 *
 * `plkc -c comp.plk -o comp.o` compiles the component's CUDA source once
 * per allowed LTO target into one relocatable object:
 *
 *   nvcc -rdc=true -c -gencode arch=compute_90a,code=lto_90a ... -DBM=128
 *
 * (code=lto_XX is nvcc's spelling of -dlto per target; nvcc refuses both
 * together), then appends a .plk.contract section with objcopy. nvJitLink
 * ignores the extra section. The section is a small text header followed by
 * the contract (contract.c's canonical text, constants bound):
 *
 *   plk.contract 1
 *   component NAME
 *   arches sm_90a sm_100a
 *   hash HEX          sha256 over source, headers, contract, the generated
 *                     header, flags, toolkit
 *   source HEX        sha256 over the source text, the .cuh/.h/.def files
 *                     beside it and those of stdlib/
 *   contract HEX      sha256 of the payload: detects a damaged section
 *   toolkit V13.0.88
 *   flags -std=c++17 -DBM=128 -gencode ...
 *   length N
 *   <empty line>
 *   <N bytes of contract text>
 *
 * The source's constants and ids come from its contract: it includes
 * <NAME.plk.h>, which build() writes for the object's constants
 * (contract_header) into a temporary directory beside the output and
 * passes with -I; angle brackets, so that a stale copy beside the source
 * is never read. */
#include <dirent.h>
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plk.h"

/* ------------------------------------------------------------- helpers */

static int is_dir(const char *p)
{
	struct stat st;
	return p && stat(p, &st) == 0 && S_ISDIR(st.st_mode);
}

static int is_exec(const char *p)
{
	return access(p, X_OK) == 0;
}

static const char *dir_of(Ctx *c, const char *path)
{
	const char *sl = strrchr(path, '/');
	return sl ? arena_strndup(c->arena, path, sl == path ? 1 : (size_t)(sl - path)) : ".";
}

/* E0211, with errno's text for path when given. */
static void io_error(Ctx *c, const Component *comp, const char *what, const char *path)
{
	Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp, "cannot build the object of component `%s`: %s", comp->name, what);
	if (path)
		diag_note(d, "%s: %s", path, strerror(errno));
	diag_end(c, d);
}

/* The tail of a tool's output, short enough for a note. */
static const char *log_tail(Ctx *c, const char *log)
{
	if (!log || !*log)
		return "(no output)";
	size_t n = strlen(log);
	while (n && (log[n - 1] == '\n' || log[n - 1] == ' '))
		n--;
	size_t from = n > 1500 ? n - 1500 : 0;
	return arena_strndup(c->arena, log + from, n - from);
}

static const char *nvcc_path(Ctx *c)
{
	const char *p = arena_printf(c->arena, "%s/bin/nvcc", sys_cuda_home());
	return is_exec(p) ? p : "nvcc";
}

static const char *objcopy_path(void)
{
	const char *p = getenv("OBJCOPY");
	return p && *p ? p : "objcopy";
}

/* "V13.0.88" from `nvcc --version`: part of every cache key. */
const char *object_toolkit_version(Ctx *c)
{
	char *log;
	char *argv[] = { (char *)nvcc_path(c), "--version", NULL };
	int rc = sys_run(argv, &log);
	const char *v = NULL;
	if (rc == 0 && log) {
		char *r = strstr(log, "release ");
		char *sp = r ? strstr(r, ", ") : NULL;
		if (sp) {
			sp += 2;
			v = arena_strndup(c->arena, sp, strcspn(sp, " \n\r"));
		}
	}
	free(log);
	return v;
}

/* stdlib/: Ctx.stdlib_dir, else the data directory sys_home finds (in
 * the tree for build/plkc and build/unit/test_*; PREFIX/share/pipelink
 * installed). */
static const char *stdlib_dir(Ctx *c)
{
	if (c->stdlib_dir)
		return c->stdlib_dir;
	char home[PATH_MAX];
	if (sys_home(home, sizeof home))
		return NULL;
	return arena_printf(c->arena, "%s/stdlib", home);
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* A file a build read, for the dependency file (-MD); once each. */
static void add_dep(Ctx *c, const char *path)
{
	for (int i = 0; i < c->deps.n; i++)
		if (!strcmp(c->deps.v[i], path))
			return;
	vec_push(c->arena, &c->deps, arena_strdup(c->arena, path));
}

/* The .cuh, .h and .def files of dir (not a .plk.h: the build includes
 * the one it generates, and the key covers that): headers under stdlib/
 * are part of every component's source, and plk.cuh includes abi.def.
 * Each is a field named rel/NAME (rel NULL: NAME). depth > 0 descends
 * into that many levels of subdirectories: the standard components'
 * family headers (common/acc_store.cuh) are on every build's include
 * path. */
static void hash_headers(Ctx *c, Sha256 *s, const char *dir, const char *rel, int depth)
{
	DIR *d = dir ? opendir(dir) : NULL;
	if (!d)
		return;
	Vec names = { 0 }, subs = { 0 };
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (e->d_name[0] == '.')
			continue;
		if (n > 6 && !strcmp(e->d_name + n - 6, ".plk.h"))
			continue;   /* generated from a contract */
		if ((n > 4 && !strcmp(e->d_name + n - 4, ".cuh")) || (n > 2 && !strcmp(e->d_name + n - 2, ".h")) ||
		    (n > 4 && !strcmp(e->d_name + n - 4, ".def")))
			vec_push(c->arena, &names, arena_strdup(c->arena, e->d_name));
		else if (depth > 0 && is_dir(arena_printf(c->arena, "%s/%s", dir, e->d_name)))
			vec_push(c->arena, &subs, arena_strdup(c->arena, e->d_name));
	}
	closedir(d);
	if (names.n)
		qsort(names.v, (size_t)names.n, sizeof names.v[0], cmpstr);
	if (subs.n)
		qsort(subs.v, (size_t)subs.n, sizeof subs.v[0], cmpstr);
	for (int i = 0; i < names.n; i++) {
		size_t len;
		const char *path = arena_printf(c->arena, "%s/%s", dir, (char *)names.v[i]);
		char *t = sys_read_file(path, &len);
		if (t) {
			sha256_field(s, rel ? arena_printf(c->arena, "%s/%s", rel, (char *)names.v[i]) : names.v[i], t, len);
			free(t);
			add_dep(c, path);
		}
	}
	for (int i = 0; i < subs.n; i++)
		hash_headers(c, s, arena_printf(c->arena, "%s/%s", dir, (char *)subs.v[i]),
			rel ? arena_printf(c->arena, "%s/%s", rel, (char *)subs.v[i]) : subs.v[i], depth - 1);
}

/* -I DIR for nvcc: absolute, so that the flags (and the key) say which. */
static const char *abs_dir(Ctx *c, const char *dir)
{
	char real[PATH_MAX];
	return realpath(dir, real) ? arena_strdup(c->arena, real) : dir;
}

/* --------------------------------------------------------- build keys */

typedef struct Key {
	const char *srcpath;
	char *contract;          /* contract text (malloc'd) */
	size_t clen;
	char *header;            /* NAME.plk.h for the object's constants (malloc'd) */
	size_t hlen;
	Vec flags;               /* char*: nvcc flags that change the code */
	const char *flagstr;
	const char *arches[OBJ_MAX_ARCHES];
	int narches;
	const char *toolkit;
	char hash[65], srchash[65], conhash[65];
} Key;

static void key_hash(Key *k);

static void key_fini(Key *k)
{
	free(k->contract);
	free(k->header);
	k->contract = k->header = NULL;
}

/* cvals for a component: given, or its defaults, each evaluated over the
 * constants before it. */
static int64_t *component_cvals(Ctx *c, const Component *comp, const int64_t *given)
{
	int n = comp->cparams.n;
	int64_t *v = arena_alloc(c->arena, sizeof *v * (size_t)(n ? n : 1));
	const char **names = arena_alloc(c->arena, sizeof *names * (size_t)(n ? n : 1));
	for (int i = 0; i < n; i++) {
		const CParam *p = comp->cparams.v[i];
		names[i] = p->name;
		if (given) {
			v[i] = given[i];
			continue;
		}
		if (!p->def) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0213", p->sp,
				"constant `%s` of component `%s` has no value to build the object with", p->name, comp->name);
			diag_label(d, p->sp, "no default");
			diag_help(d, "give it a default in the declaration, e.g. `%s = 128`", p->name);
			diag_end(c, d);
			return NULL;
		}
		Scope s = { names, v, i, NULL };
		if (eval_expr(c, p->def, &s, &v[i]))
			return NULL;
	}
	return v;
}

/* Source path of a component: relative to its .plk file. */
static const char *source_path(Ctx *c, const Component *comp)
{
	if (comp->source[0] == '/' || !comp->file)
		return comp->source;
	return arena_printf(c->arena, "%s/%s", dir_of(c, comp->file), comp->source);
}

/* Everything the object depends on. Reports its own errors. */
static int make_key(Ctx *c, const Component *comp, const int64_t *cvals,
                    const ArchInfo **arches, int narches, Key *k)
{
	memset(k, 0, sizeof *k);
	if (!comp->source) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp,
			"component `%s` names no CUDA source to build", comp->name);
		diag_help(d, "add `source \"%s.cu\"` to its declaration", comp->name);
		diag_end(c, d);
		return -1;
	}
	for (int i = 0; i < narches && k->narches < OBJ_MAX_ARCHES; i++)
		if (arches[i] && object_arch_allowed(comp, arches[i]))
			k->arches[k->narches++] = arches[i]->name;
	if (!k->narches) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0210", comp->arch_sp.src >= 0 ? comp->arch_sp : comp->name_sp,
			narches ? "component `%s` cannot be built for any requested arch"
			        : "component `%s` cannot be built for any arch", comp->name);
		diag_label(d, comp->arch_sp, "its arch clause");
		char list[256] = "";
		for (int i = 0; i < narches; i++)
			if (arches[i])
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", arches[i]->name);
		if (*list)
			diag_note(d, "requested: %s", list);
		else   /* object_build's default: none of stdlib/arch.def */
			diag_note(d, "with no `-arch`, `-c` builds every arch that its `arch` clause allows");
		const char *to = object_arch_flags(c, comp);
		if (to)
			diag_help(d, "request an arch with what it needs: %s", to);
		else
			diag_help(d, "no known arch has what it needs: relax its `arch` clause");
		diag_end(c, d);
		return -1;
	}
	k->srcpath = source_path(c, comp);
	size_t slen;
	char *src = sys_read_file(k->srcpath, &slen);
	if (!src) {
		int err = errno;
		Diag *d = diag_new(c, DIAG_ERROR, "E0201", comp->source_sp,
			"cannot read the source `%s` of component `%s`", comp->source, comp->name);
		diag_label(d, comp->source_sp, "named here");
		diag_note(d, "tried: %s (%s)", k->srcpath, strerror(err));
		diag_help(d, "`source` is relative to the .plk file that declares the component");
		diag_end(c, d);
		return -1;
	}
	const char *lib = stdlib_dir(c);
	if (!lib) {
		free(src);
		Diag *d = diag_new(c, DIAG_ERROR, "E0611", comp->name_sp,
			"cannot find PipeLink's standard library to build component `%s`", comp->name);
		const char *env = getenv("PLK_HOME");
		if (env && *env)
			diag_note(d, "PLK_HOME is `%s`, which holds no stdlib/plk.cuh", env);
		else
			diag_note(d, "looked beside the plkc binary: ../share/pipelink/stdlib (installed), ../stdlib (the source tree)");
		diag_help(d, "set PLK_HOME to the directory that holds stdlib/ (PREFIX/share/pipelink), "
			"or run plkc where `make install` put it");
		diag_end(c, d);
		return -1;
	}
	add_dep(c, k->srcpath);
	Sha256 s;
	sha256_init(&s);
	sha256_field(&s, "source", src, slen);
	hash_headers(c, &s, lib, NULL, 0);
	/* Headers the source may include: over-approximate (a change to any
	 * of them makes the object stale) rather than miss one. Beside the
	 * source, in each -I directory, and the standard components' family
	 * headers (-I components/: "common/acc_store.cuh"). */
	hash_headers(c, &s, dir_of(c, k->srcpath), NULL, 0);
	for (int i = 0; i < c->include_dirs.n; i++)
		hash_headers(c, &s, c->include_dirs.v[i], arena_printf(c->arena, "-I%d", i), 0);
	if (c->components_dir)
		hash_headers(c, &s, c->components_dir, "components", 3);
	sha256_hex(&s, k->srchash);
	free(src);

	FILE *m = open_memstream(&k->contract, &k->clen);
	if (!m || (contract_print(m, comp, cvals), fclose(m))) {
		io_error(c, comp, "out of memory", NULL);
		key_fini(k);
		return -1;
	}
	sha256_of(k->contract, k->clen, k->conhash);
	m = open_memstream(&k->header, &k->hlen);
	if (!m || (contract_header(m, comp, cvals), fclose(m))) {
		io_error(c, comp, "out of memory", NULL);
		key_fini(k);
		return -1;
	}

	vec_push(c->arena, &k->flags, "-std=c++17");
	for (int i = 0; i < comp->cparams.n; i++)
		vec_push(c->arena, &k->flags, arena_printf(c->arena, "-D%s=%lld",
			((CParam *)comp->cparams.v[i])->name, (long long)cvals[i]));
	/* the command line's -I, -D and -Xnvcc: they change the code */
	for (int i = 0; i < c->include_dirs.n; i++)
		vec_push(c->arena, &k->flags, arena_printf(c->arena, "-I%s", abs_dir(c, c->include_dirs.v[i])));
	for (int i = 0; i < c->cflags.n; i++) {
		const char *f = c->cflags.v[i];
		for (int j = 0; !strncmp(f, "-D", 2) && j < comp->cparams.n; j++) {
			const char *n = ((CParam *)comp->cparams.v[j])->name;
			size_t len = strlen(n);
			if (!strncmp(f + 2, n, len) && (f[2 + len] == '=' || !f[2 + len])) {
				Diag *d = diag_new(c, DIAG_ERROR, "E0610", ((CParam *)comp->cparams.v[j])->sp,
					"`%s` on the command line sets constant `%s` of component `%s`", f, n, comp->name);
				diag_label(d, ((CParam *)comp->cparams.v[j])->sp, "a constant of the contract");
				diag_help(d, "set it where the recipe instantiates the component, e.g. `%s(%s = ...)`",
					comp->name, n);
				diag_end(c, d);
				key_fini(k);
				return -1;
			}
		}
		vec_push(c->arena, &k->flags, (void *)f);
	}
	for (int i = 0; i < k->narches; i++) {
		const char *n = k->arches[i] + 3;   /* after "sm_" */
		vec_push(c->arena, &k->flags, "-gencode");
		vec_push(c->arena, &k->flags, arena_printf(c->arena, "arch=compute_%s,code=lto_%s", n, n));
	}
	size_t fl = 1;
	for (int i = 0; i < k->flags.n; i++)
		fl += strlen(k->flags.v[i]) + 1;
	char *fs = arena_alloc(c->arena, fl);
	for (int i = 0; i < k->flags.n; i++) {
		if (i)
			strcat(fs, " ");
		strcat(fs, k->flags.v[i]);
	}
	k->flagstr = fs;

	k->toolkit = object_toolkit_version(c);
	if (!k->toolkit) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0209", comp->source_sp, "cannot run nvcc to build component `%s`", comp->name);
		diag_note(d, "tried `%s --version`", nvcc_path(c));
		diag_help(d, "install the CUDA toolkit or set CUDA_HOME");
		diag_end(c, d);
		key_fini(k);
		return -1;
	}
	key_hash(k);
	return 0;
}

static void key_hash(Key *k)
{
	Sha256 s;
	sha256_init(&s);
	sha256_field(&s, "plkc-object", "1", 1);
	sha256_field(&s, "source", k->srchash, 64);
	sha256_field(&s, "contract", k->contract, k->clen);
	sha256_field(&s, "header", k->header, k->hlen);   /* a function of the contract, and of plkc */
	sha256_field(&s, "flags", k->flagstr, strlen(k->flagstr));
	sha256_field(&s, "toolkit", k->toolkit, strlen(k->toolkit));
	sha256_hex(&s, k->hash);
}

/* The entry renamed ENTRY__<8 hex of the key so far>: a flag of its own,
 * so the object's key (and cache name) differs from the plain one. */
static const char *key_rename(Ctx *c, const Component *comp, Key *k)
{
	const char *sym = arena_printf(c->arena, "%s__%.8s", comp->entry, k->hash);
	const char *f = arena_printf(c->arena, "-D%s=%s", comp->entry, sym);
	vec_push(c->arena, &k->flags, (void *)f);
	k->flagstr = arena_printf(c->arena, "%s %s", k->flagstr, f);
	key_hash(k);
	return sym;
}

/* ----------------------------------------------------- stale objects */

int object_matches(Ctx *c, const Component *decl, const Component *obj, Span from)
{
	Obj o;
	if (obj_open(c, obj->object, from, 0, &o))
		return -1;
	int n = obj->cparams.n, bad = n != decl->cparams.n;
	int64_t *cv = arena_alloc(c->arena, sizeof *cv * (size_t)(n ? n : 1));
	for (int i = 0; i < n && !bad; i++) {     /* the object's bound constants */
		const Expr *e = ((CParam *)obj->cparams.v[i])->def;
		int neg = e && e->k == EX_NEG;
		if (neg)
			e = e->a;
		bad = !e || e->k != EX_NUM;
		cv[i] = bad ? 0 : neg ? -e->num : e->num;
	}
	const ArchInfo *arches[OBJ_MAX_ARCHES];
	int na = 0;
	for (int i = 0; i < o.narches; i++)
		if ((arches[na] = arch_lookup(o.arches[i])))
			na++;
	Key k;
	int rc = -1;
	if (!bad && make_key(c, decl, cv, arches, na, &k) == 0) {
		if (!strcmp(k.hash, o.hash)) {
			rc = 0;
		} else {
			Diag *d = diag_new(c, DIAG_ERROR, "E0208", from, "object `%s` is stale: it does not match the declaration of `%s`",
				obj->object, decl->name);
			diag_label(d, from, "this object");
			diag_label(d, decl->name_sp, "declared here");
			if (strcmp(k.srchash, o.srchash))
				diag_note(d, "the source `%s` (or a header beside it or in stdlib/) changed since the object was built", k.srcpath);
			if (strcmp(k.conhash, o.conhash))
				diag_note(d, "the declaration changed since the object was built");
			if (strcmp(k.toolkit, o.toolkit))
				diag_note(d, "it was built with nvcc %s; this is nvcc %s", o.toolkit, k.toolkit);
			if (strcmp(k.flagstr, o.flags))
				diag_note(d, "it was built with other flags: %s", o.flags);
			diag_help(d, "rebuild it: `plkc -c %s -o %s`", decl->file ? decl->file : "COMPONENT.plk", obj->object);
			diag_end(c, d);
		}
		key_fini(&k);
	} else if (bad) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0208", from, "object `%s` is stale: it does not match the declaration of `%s`",
			obj->object, decl->name);
		diag_label(d, decl->name_sp, "declared here");
		diag_note(d, "their compile-time constants differ");
		diag_help(d, "rebuild it: `plkc -c %s -o %s`", decl->file ? decl->file : "COMPONENT.plk", obj->object);
		diag_end(c, d);
	}
	obj_fini(&o);
	return rc;
}

/* ------------------------------------------------------------ building */

static int build(Ctx *c, const Component *comp, const int64_t *cvals, const Key *k, const char *out)
{
	char tobj[PATH_MAX], tsec[PATH_MAX], tout[PATH_MAX], thdr[PATH_MAX];
	if (sys_tmp_file(tobj, sizeof tobj, arena_printf(c->arena, "%s.tmpo", out))) {
		io_error(c, comp, "cannot create a file beside the output", out);
		return -1;
	}
	int rc = -1;
	char *log = NULL;
	const char *hfile = NULL;
	tsec[0] = tout[0] = 0;
	if (sys_tmp_dir(thdr, sizeof thdr, arena_printf(c->arena, "%s.tmph", out))) {
		thdr[0] = 0;
		io_error(c, comp, "cannot create a directory beside the output", out);
		goto out;
	}
	hfile = arena_printf(c->arena, "%s/%s.plk.h", thdr, comp->name);
	if (sys_write_file(hfile, k->header, k->hlen)) {
		io_error(c, comp, "cannot write the component's header", hfile);
		goto out;
	}
	Vec argv = { 0 };
	vec_push(c->arena, &argv, (char *)nvcc_path(c));
	vec_push(c->arena, &argv, "-rdc=true");
	vec_push(c->arena, &argv, "-c");
	for (int i = 0; i < k->flags.n; i++)
		vec_push(c->arena, &argv, k->flags.v[i]);
	const char *lib = stdlib_dir(c);
	if (lib)
		vec_push(c->arena, &argv, arena_printf(c->arena, "-I%s", lib));
	vec_push(c->arena, &argv, arena_printf(c->arena, "-I%s", thdr));
	if (c->components_dir)   /* family headers: #include "common/acc_store.cuh" */
		vec_push(c->arena, &argv, arena_printf(c->arena, "-I%s", c->components_dir));
	vec_push(c->arena, &argv, "-x");
	vec_push(c->arena, &argv, "cu");
	vec_push(c->arena, &argv, (char *)k->srcpath);
	vec_push(c->arena, &argv, "-o");
	vec_push(c->arena, &argv, tobj);
	vec_push(c->arena, &argv, NULL);
	if (c->verbose) {
		fputs("plkc:", c->err);
		for (int i = 0; argv.v[i]; i++)
			fprintf(c->err, " %s", (char *)argv.v[i]);
		fputc('\n', c->err);
	}
	double t0 = plk_clock();
	int st = sys_run((char *const *)argv.v, &log);
	const char *what = arena_printf(c->arena, "nvcc %s for", comp->name);
	for (int i = 0; i < k->narches; i++)
		what = arena_printf(c->arena, "%s %s", what, k->arches[i]);
	ctx_time(c, what, t0);
	if (st) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0209", comp->source_sp.src >= 0 ? comp->source_sp : comp->name_sp,
			"nvcc failed to compile `%s` for component `%s`", comp->source, comp->name);
		diag_label(d, comp->source_sp, "this source");
		diag_note(d, st < 0 ? "nvcc could not be started" : "nvcc exited with status %d", st);
		diag_note(d, "nvcc said:\n%s", log_tail(c, log));
		diag_note(d, "flags: %s", k->flagstr);
		diag_help(d, "the component is compiled on its own: it must build with `nvcc -rdc=true -c` and the flags above");
		diag_end(c, d);
		goto out;
	}
	char *sec = NULL;
	size_t secn = 0;
	FILE *m = open_memstream(&sec, &secn);
	if (!m)
		goto out;
	fprintf(m, "plk.contract 1\ncomponent %s\narches", comp->name);
	for (int i = 0; i < k->narches; i++)
		fprintf(m, " %s", k->arches[i]);
	fprintf(m, "\nhash %s\nsource %s\ncontract %s\ntoolkit %s\nflags %s\nlength %zu\n\n",
		k->hash, k->srchash, k->conhash, k->toolkit, k->flagstr, k->clen);
	fwrite(k->contract, 1, k->clen, m);
	if (fclose(m)) {
		free(sec);
		goto out;
	}
	if (sys_tmp_file(tsec, sizeof tsec, arena_printf(c->arena, "%s.tmps", out)) || sys_write_file(tsec, sec, secn)) {
		free(sec);
		io_error(c, comp, "cannot write the contract section", tsec);
		goto out;
	}
	free(sec);
	if (sys_tmp_file(tout, sizeof tout, arena_printf(c->arena, "%s.tmp", out))) {
		io_error(c, comp, "cannot create a file beside the output", out);
		goto out;
	}
	free(log);
	char *addsec = arena_printf(c->arena, "%s=%s", OBJ_SECTION, tsec);
	char *flags = arena_printf(c->arena, "%s=noload,readonly", OBJ_SECTION);
	char *oargv[] = { (char *)objcopy_path(), "--add-section", addsec, "--set-section-flags", flags, tobj, tout, NULL };
	st = sys_run(oargv, &log);
	if (st) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp,
			"cannot build the object of component `%s`: objcopy failed", comp->name);
		diag_note(d, st < 0 ? "`%s` could not be started" : "`%s` said:\n%s", objcopy_path(), log_tail(c, log));
		diag_help(d, "install binutils, or set OBJCOPY to its objcopy");
		diag_end(c, d);
		goto out;
	}
	mode_t mask = umask(0);     /* mkstemp made it 0600: give it a normal file's mode */
	umask(mask);
	if (chmod(tout, 0666 & ~mask) || rename(tout, out)) {
		io_error(c, comp, "cannot write the output", out);
		goto out;
	}
	tout[0] = 0;
	rc = 0;
out:
	free(log);
	unlink(tobj);
	if (tsec[0])
		unlink(tsec);
	if (tout[0])
		unlink(tout);
	if (thdr[0]) {
		if (hfile)
			unlink(hfile);
		rmdir(thdr);
	}
	return rc;
}

int object_build(Ctx *c, const Component *comp, const int64_t *cvals,
                 const ArchInfo **arches, int narches, const char *out)
{
	int before = c->nerrors;
	const int64_t *cv = component_cvals(c, comp, cvals);
	if (!cv)
		return -1;
	const ArchInfo *def[OBJ_MAX_ARCHES];
	if (!arches || !narches) {
		narches = object_default_arches(comp, def, OBJ_MAX_ARCHES);
		arches = def;
	}
	Key k;
	if (make_key(c, comp, cv, arches, narches, &k))
		return -1;
	int rc = build(c, comp, cv, &k, out);
	key_fini(&k);
	return rc || c->nerrors != before ? -1 : 0;
}

/* --------------------------------------------------------------- cache */

/* Ctx.cache_dir, $PLKC_CACHE, $XDG_CACHE_HOME/plkc (absolute) or ~/.cache/plkc. */
static const char *cache_dir(Ctx *c)
{
	if (c->cache_dir)
		return c->cache_dir;
	const char *e = getenv("PLKC_CACHE");
	if (e && *e)
		return e;
	e = getenv("XDG_CACHE_HOME");
	if (e && *e == '/')
		return arena_printf(c->arena, "%s/plkc", e);
	e = getenv("HOME");
	return e && *e ? arena_printf(c->arena, "%s/.cache/plkc", e) : NULL;
}

const char *object_for(Ctx *c, const Component *comp, const int64_t *cvals, const ArchInfo *arch)
{
	return object_for_sym(c, comp, cvals, arch, 0, NULL);
}

const char *object_for_sym(Ctx *c, const Component *comp, const int64_t *cvals, const ArchInfo *arch,
                           int rename, const char **sym)
{
	const int64_t *cv = component_cvals(c, comp, cvals);
	if (!cv)
		return NULL;
	Key k;
	if (make_key(c, comp, cv, &arch, 1, &k))
		return NULL;
	const char *name = rename ? key_rename(c, comp, &k) : comp->entry;
	if (sym)
		*sym = name;
	const char *dir = cache_dir(c), *path = NULL;
	if (!dir || sys_mkdirs(dir)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp, "cannot use the object cache for component `%s`", comp->name);
		diag_note(d, dir ? "cannot create `%s`: %s" : "neither PLKC_CACHE, XDG_CACHE_HOME nor HOME is set%s",
			dir ? dir : "", dir ? strerror(errno) : "");
		diag_help(d, "set PLKC_CACHE to a writable directory");
		diag_end(c, d);
		goto out;
	}
	path = arena_printf(c->arena, "%s/%s-%.16s.o", dir, comp->name, k.hash);
	Obj o;
	ObjErr r = obj_open(c, path, span_none, 1, &o);
	int fresh = r == OBJ_OK && !strcmp(o.hash, k.hash) && obj_same_set(o.arches, o.narches, k.arches, k.narches);
	if (r != OBJ_MISSING && c->verbose && !fresh)
		fprintf(c->err, "plkc: rebuilding stale cached object %s\n", path);
	obj_fini(&o);
	if (!fresh && build(c, comp, cv, &k, path))
		path = NULL;
	if (path && c->verbose)   /* which object serves it (tests: one core for every variant) */
		fprintf(c->err, "plkc: object of `%s`: %s\n", comp->name, path);
out:
	key_fini(&k);
	return path;
}
