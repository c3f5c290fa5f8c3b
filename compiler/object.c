/* object.c: building component objects that carry their contract, and
 * the content-hash cache of them (objread.c reads them back; deps.c keeps
 * the files each depends on and their hashes).
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
 *   plk.contract 2
 *   component NAME
 *   arches sm_90a sm_100a
 *   hash HEX          sha256 over the key (source text, contract, generated
 *                     header, flags, toolkit) and every file nvcc read
 *   source HEX        sha256 over the bytes of every file nvcc read
 *   contract HEX      sha256 of the payload: detects a damaged section
 *   digest HEX        obj_digest: the name, arches, contract and the fatbin's
 *                     bytes; binds this contract to this code
 *   toolkit V13.0.88
 *   flags -std=c++17 -DBM=128 -gencode ...
 *   dep HEX PATH      one per file nvcc read (its -MD list, the toolkit's own
 *                     headers left out: the toolkit version covers them), in
 *                     its order, the source first; PATH relative to the
 *                     source's directory when they share more than `/`
 *   length N
 *   <empty line>
 *   <N bytes of contract text>
 *
 * The source's constants and ids come from its contract: it includes
 * <NAME.plk.h>, which build() writes for the object's constants
 * (contract_header) into a temporary directory beside the output and
 * passes with -I; angle brackets, so that a stale copy beside the source
 * is never read.
 *
 * The cache (PLKC_CACHE, README.md) holds one object per key, named
 * NAME-KEY.o, KEY over what is known before nvcc runs. An entry is used
 * when it reads back whole (its digest checks), its arches are the ones
 * asked for, and every file its `dep` lines name still holds the bytes it
 * held; else it is rebuilt in place. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plk.h"

/* ------------------------------------------------------------- helpers */

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
void object_io_error(Ctx *c, const Component *comp, const char *what, const char *path)
{
	int err = errno;
	Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp, "cannot build the object of component `%s`: %s", comp->name, what);
	if (path)
		diag_note(d, "%s: %s", path, sys_strerror(err));
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

const char *object_nvcc(Ctx *c)
{
	const char *p = arena_printf(c->arena, "%s/bin/nvcc", sys_cuda_home());
	return is_exec(p) ? p : "nvcc";
}

static const char *objcopy_path(void)
{
	const char *p = getenv("OBJCOPY");
	return p && *p ? p : "objcopy";
}

/* "V13.0.88" from `nvcc --version`: part of every cache key; asked once
 * a run. */
const char *object_toolkit_version(Ctx *c)
{
	if (c->toolkit_asked)
		return c->toolkit;
	c->toolkit_asked = 1;
	char *log;
	char *argv[] = { (char *)object_nvcc(c), "--version", NULL };
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
	return c->toolkit = v;
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

/* -I DIR for nvcc: absolute, so that the flags (and the key) say which. */
static const char *abs_dir(Ctx *c, const char *dir)
{
	char real[PATH_MAX];
	return realpath(dir, real) ? arena_strdup(c->arena, real) : dir;
}

/* --------------------------------------------------------- build keys */

typedef struct Key {
	const char *srcpath;     /* as the declaration names it, from here */
	const char *srcdir;      /* its directory, as a real path: deps are relative to it */
	char *contract;          /* contract text (malloc'd) */
	size_t clen;
	char *header;            /* NAME.plk.h for the object's constants (malloc'd) */
	size_t hlen;
	Vec flags;               /* char*: nvcc flags that change the code */
	const char *flagstr;
	const char *arches[OBJ_MAX_ARCHES];
	int narches;
	const char *arches_text; /* "sm_90a sm_100a" */
	const char *toolkit;
	const char *sym;         /* the entry symbol the object defines: comp->entry, or key_rename's */
	char key[65];            /* over what is known before nvcc runs: the cache entry's name */
	char conhash[65];
} Key;

static void key_fini(Key *k)
{
	free(k->contract);
	free(k->header);
	k->contract = k->header = NULL;
}

/* cvals for a component: given, or its defaults, each evaluated over the
 * constants before it; with defs (-c's command line: "-DNAME=VALUE" and
 * other flags), a -D of a constant sets it instead, and is marked in
 * used[] (E0607 when its value is no integer). */
static int64_t *component_cvals(Ctx *c, const Component *comp, const int64_t *given, const Vec *defs, int *used)
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
		int set = 0;
		size_t pl = strlen(p->name);
		for (int j = 0; defs && j < defs->n; j++) {
			const char *d = defs->v[j];
			if (strncmp(d, "-D", 2) || strncmp(d + 2, p->name, pl) || (d[2 + pl] && d[2 + pl] != '='))
				continue;
			const char *val = d[2 + pl] ? d + 3 + pl : "";
			char *end;
			errno = 0;
			long long x = strtoll(val, &end, 0);
			if (!*val || *end || errno) {
				Diag *dg = diag_new(c, DIAG_ERROR, "E0607", p->sp, "`%s` gives constant `%s` of `%s` no integer",
					d, p->name, comp->name);
				diag_label(dg, p->sp, "a constant of the contract: the object is compiled for one value of it");
				diag_help(dg, "write `-D %s=128`", p->name);
				diag_end(c, dg);
				return NULL;
			}
			v[i] = x;
			used[j] = set = 1;
		}
		if (set)
			continue;
		if (!p->def) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0213", p->sp,
				"constant `%s` of component `%s` has no value to build the object with", p->name, comp->name);
			diag_label(d, p->sp, "no default");
			diag_help(d, "give it a default in the declaration, e.g. `%s = 128`, or `-D %s=128`", p->name, p->name);
			diag_end(c, d);
			return NULL;
		}
		Scope s = { names, v, i, NULL };
		if (eval_expr(c, p->def, &s, &v[i]))
			return NULL;
	}
	return v;
}

int64_t *object_cvals(Ctx *c, const Component *comp, int *set)
{
	int n = c->cflags.n;
	int *used = arena_alloc(c->arena, sizeof *used * (size_t)(n ? n : 1));
	int64_t *v = component_cvals(c, comp, NULL, &c->cflags, used);
	if (!v)
		return NULL;
	Vec rest = { 0 };           /* the others stay nvcc's macros and flags */
	*set = 0;
	for (int j = 0; j < n; j++) {
		if (used[j])
			*set = 1;
		else
			vec_push(c->arena, &rest, c->cflags.v[j]);
	}
	c->cflags = rest;
	return v;
}

/* Source path of a component: relative to its .plk file. */
static const char *source_path(Ctx *c, const Component *comp)
{
	if (comp->source[0] == '/' || !comp->file)
		return comp->source;
	return arena_printf(c->arena, "%s/%s", dir_of(c, comp->file), comp->source);
}

/* E0201 for a source that cannot be read (err). */
static void source_error(Ctx *c, const Component *comp, const char *path, int err)
{
	if (input_refused(c, comp->source_sp, arena_printf(c->arena, "the source of `%s`", comp->name), path, err,
		PLK_MAX_TEXT))
		return;
	Diag *d = diag_new(c, DIAG_ERROR, "E0201", comp->source_sp,
		"cannot read the source `%s` of component `%s`", comp->source, comp->name);
	diag_label(d, comp->source_sp, "named here");
	diag_note(d, "tried: %s (%s)", path, sys_strerror(err));
	diag_help(d, "`source` is relative to the .plk file that declares the component");
	diag_end(c, d);
}

/* Everything the object depends on that is known before nvcc runs.
 * Reports its own errors; with quiet_source, a source that cannot be read
 * is left to the caller (-1, errno set, nothing reported). */
static int make_key(Ctx *c, const Component *comp, const int64_t *cvals,
                    const ArchInfo **arches, int narches, Key *k, int quiet_source)
{
	memset(k, 0, sizeof *k);
	k->sym = comp->entry;
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
	const char *at = "";
	for (int i = 0; i < k->narches; i++)
		at = arena_printf(c->arena, "%s%s%s", at, i ? " " : "", k->arches[i]);
	k->arches_text = at;
	k->srcpath = source_path(c, comp);
	size_t slen;
	char *src = sys_read_file(k->srcpath, PLK_MAX_TEXT, &slen);
	char real[PATH_MAX];
	if (!src || !realpath(dir_of(c, k->srcpath), real)) {
		int err = errno;
		free(src);
		if (!quiet_source)
			source_error(c, comp, k->srcpath, err);
		errno = err;
		return -1;
	}
	k->srcdir = arena_strdup(c->arena, real);
	if (!stdlib_dir(c)) {
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
	deps_add(c, k->srcpath);

	FILE *m = open_memstream(&k->contract, &k->clen);
	if (!m || (contract_print(m, comp, cvals), fclose(m))) {
		object_io_error(c, comp, "out of memory for its contract", NULL);
		free(src);
		key_fini(k);
		return -1;
	}
	sha256_of(k->contract, k->clen, k->conhash);
	m = open_memstream(&k->header, &k->hlen);
	if (!m || (contract_header(m, comp, cvals), fclose(m))) {
		object_io_error(c, comp, "out of memory for its header", NULL);
		free(src);
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
				diag_help(d, "set it where the recipe instantiates the component, e.g. `%s(%s = ...)`; "
					"with -c, `-D %s=VALUE` builds the object for that value", comp->name, n, n);
				diag_end(c, d);
				free(src);
				key_fini(k);
				return -1;
			}
		}
		vec_push(c->arena, &k->flags, (void *)f);
	}
	if (comp->eng) {   /* the engine's headers and flags change the code */
		const char *tried, *home = engine_home(c, comp->eng, &tried);
		if (!home) {
			engine_missing(c, comp, tried);
			free(src);
			key_fini(k);
			return -1;
		}
		vec_push(c->arena, &k->flags, arena_printf(c->arena, "-I%s/include", abs_dir(c, home)));
		vec_push(c->arena, &k->flags, (void *)comp->eng->flags);
	}
	for (int i = 0; i < k->narches; i++) {
		const char *n = k->arches[i] + 3;   /* after "sm_" */
		vec_push(c->arena, &k->flags, "-gencode");
		vec_push(c->arena, &k->flags, arena_printf(c->arena, "arch=compute_%s,code=lto_%s", n, n));
	}
	const char *fs = "";
	for (int i = 0; i < k->flags.n; i++)
		fs = arena_printf(c->arena, "%s%s%s", fs, i ? " " : "", (char *)k->flags.v[i]);
	k->flagstr = fs;

	k->toolkit = object_toolkit_version(c);
	if (!k->toolkit) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0209", comp->source_sp, "cannot run nvcc to build component `%s`", comp->name);
		diag_note(d, "tried `%s --version`", object_nvcc(c));
		diag_help(d, "install the CUDA toolkit or set CUDA_HOME");
		diag_end(c, d);
		free(src);
		key_fini(k);
		return -1;
	}
	Sha256 s;
	sha256_init(&s);
	sha256_field(&s, "plkc-object", "2", 1);
	sha256_field(&s, "source", src, slen);
	sha256_field(&s, "contract", k->contract, k->clen);
	sha256_field(&s, "header", k->header, k->hlen);   /* a function of the contract, and of plkc */
	sha256_field(&s, "flags", k->flagstr, strlen(k->flagstr));
	sha256_field(&s, "toolkit", k->toolkit, strlen(k->toolkit));
	sha256_hex(&s, k->key);
	free(src);
	return 0;
}

/* -DNAME=NAME<tag> for nvcc: a flag of k's, and in *fs, the flags so far. */
static void rename_flag(Ctx *c, Key *k, const char *name, const char *tag, const char **fs)
{
	const char *f = arena_printf(c->arena, "-D%s=%s%s", name, name, tag);
	vec_push(c->arena, &k->flags, (void *)f);
	*fs = **fs ? arena_printf(c->arena, "%s %s", *fs, f) : f;
}

/* Renamed: the entry ENTRY__<8 hex of the key>, or a hook provider's
 * functions each NAME__<the same>: a -D flag each, and a key over the
 * plain key and those flags, so the object's cache name differs from the
 * plain one. Returns the entry's new name, or a provider's suffix. */
static const char *key_rename(Ctx *c, const Component *comp, Key *k)
{
	const char *tag = arena_printf(c->arena, "__%.8s", k->key), *fs = "";
	if (comp->entry) {
		rename_flag(c, k, comp->entry, tag, &fs);
		k->sym = arena_printf(c->arena, "%s%s", comp->entry, tag);
	}
	for (int i = 0; !comp->entry && i < comp->ports.n; i++) {
		const Port *p = comp->ports.v[i];
		const HookKind *hk = p->dir == PORT_OUT && p->ty->k == TY_HOOK ? hook_kind_lookup(p->ty->hook) : NULL;
		int nf = 0;
		const HookFnInfo *f = hk ? hook_fns(hk->id, &nf) : NULL;
		for (int j = 0; j < nf; j++)
			rename_flag(c, k, hook_fn_name(c, p->ty->base, &f[j]), tag, &fs);
	}
	k->flagstr = arena_printf(c->arena, "%s %s", k->flagstr, fs);
	Sha256 s;
	sha256_init(&s);
	sha256_field(&s, "plain", k->key, 64);
	sha256_field(&s, "rename", fs, strlen(fs));
	sha256_hex(&s, k->key);
	return comp->entry ? k->sym : tag;
}

/* ----------------------------------------------------- stale objects */

static void stale_help(Ctx *c, Diag *d, const Component *decl, const Component *obj)
{
	diag_help(d, "rebuild it: `plkc -c %s -o %s`", decl->file ? decl->file : "COMPONENT.plk", obj->object);
}

int object_matches(Ctx *c, const Component *decl, const Component *obj, Span from)
{
	Obj o;
	if (obj_open(c, obj->object, from, 0, &o))
		return -1;
	int n = obj->cparams.n, bad = n != decl->cparams.n;
	int64_t *cv = arena_alloc(c->arena, sizeof *cv * (size_t)(n ? n : 1));
	for (int i = 0; i < n && !bad; i++)       /* the object's bound constants */
		bad = object_value(((CParam *)obj->cparams.v[i])->def, &cv[i]) != 0;
	const ArchInfo *arches[OBJ_MAX_ARCHES];
	int na = 0;
	for (int i = 0; i < o.arches.n && na < OBJ_MAX_ARCHES; i++)
		if ((arches[na] = arch_lookup(o.arches.v[i])))
			na++;
	Key k;
	int rc = -1;
	if (bad) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0208", from, "object `%s` is stale: it does not match the declaration of `%s`",
			obj->object, decl->name);
		diag_label(d, decl->name_sp, "declared here");
		diag_note(d, "their compile-time constants differ");
		stale_help(c, d, decl, obj);
		diag_end(c, d);
	} else if (make_key(c, decl, cv, arches, na, &k, 1) == 0) {
		const char *changed = NULL;
		if (deps_current(c, &o, k.srcdir, dir_of(c, k.srcpath), k.key, &changed) == 0) {
			rc = 0;
		} else {
			Diag *d = diag_new(c, DIAG_ERROR, "E0208", from, "object `%s` is stale: it does not match the declaration of `%s`",
				obj->object, decl->name);
			diag_label(d, from, "this object");
			diag_label(d, decl->name_sp, "declared here");
			if (strcmp(k.conhash, o.conhash))
				diag_note(d, "the declaration changed since the object was built");
			else if (changed)
				diag_note(d, "`%s`, which nvcc read to build it, changed since the object was built", changed);
			else
				diag_note(d, "the source `%s` changed since the object was built", k.srcpath);
			if (strcmp(k.toolkit, o.toolkit))
				diag_note(d, "it was built with nvcc %s; this is nvcc %s", o.toolkit, k.toolkit);
			if (strcmp(k.flagstr, o.flags))
				diag_note(d, "it was built with other flags: %s", o.flags);
			stale_help(c, d, decl, obj);
			diag_end(c, d);
		}
		key_fini(&k);
	} else if (errno == ENOENT && decl->source) {
		/* a shipped object beside its declaration, without the source:
		 * it stands for the declaration when their contracts agree */
		char *text = NULL;
		size_t len = 0;
		FILE *m = open_memstream(&text, &len);
		if (m) {
			contract_print(m, decl, cv);
			if (fclose(m) == 0 && len == o.plen && !memcmp(text, o.payload, len))
				rc = 0;
		}
		free(text);
		if (rc) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0208", from, "object `%s` is stale: it does not match the declaration of `%s`",
				obj->object, decl->name);
			diag_label(d, from, "this object");
			diag_label(d, decl->name_sp, "declared here");
			diag_note(d, "the declaration changed since the object was built (its source `%s` is not here to compare)",
				decl->source);
			stale_help(c, d, decl, obj);
			diag_end(c, d);
		}
	} else if (decl->source) {
		source_error(c, decl, source_path(c, decl), errno);
	}
	obj_fini(&o);
	return rc;
}

/* ------------------------------------------------------------ building */

/* A component's build: build_start writes the header and starts nvcc,
 * build_finish waits for it and makes the object (its deps, the entry's
 * check, the contract section, objcopy, the commit); object_prebuild
 * keeps several under way. */
typedef struct Build {
	const Component *comp;
	const Key *k;
	const char *out, *hdr;
	const int64_t *hdr_cvals;
	char tdir[PATH_MAX];     /* absolute; "" once removed */
	const char *code, *depf, *log;
	long pid;                /* nvcc's; -1: it could not be started */
	double t0;
} Build;

/* The most of nvcc's output kept: its end, where log_tail looks. */
enum { NVCC_LOG_MAX = 1 << 20 };

/* The last NVCC_LOG_MAX bytes of nvcc's log (a file of the build's own
 * temporary directory); NULL when there is none. */
static char *read_log(const char *path)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	if (fseek(f, -(long)NVCC_LOG_MAX, SEEK_END))
		rewind(f);   /* shorter: all of it */
	size_t n;
	char *t = sys_read_stream(f, NVCC_LOG_MAX, &n);
	fclose(f);
	return t;
}

static int build_start(Ctx *c, Build *b)
{
	const Component *comp = b->comp;
	const Key *k = b->k;
	char *tdir = b->tdir;
	if (sys_tmp_beside(tdir, sizeof b->tdir, b->out)) {
		object_io_error(c, comp, "cannot create a directory beside the output", b->out);
		tdir[0] = 0;
		return -1;
	}
	char atdir[PATH_MAX];   /* nvcc runs elsewhere: its paths are absolute */
	if (!realpath(tdir, atdir) || strlen(atdir) >= sizeof b->tdir) {
		object_io_error(c, comp, "cannot resolve a directory beside the output", tdir);
		sys_rmdir_files(tdir);
		tdir[0] = 0;
		return -1;
	}
	strcpy(tdir, atdir);
	const char *hfile = arena_printf(c->arena, "%s/%s.plk.h", tdir, comp->name);
	b->code = arena_printf(c->arena, "%s/code.o", tdir);
	b->depf = arena_printf(c->arena, "%s/deps.d", tdir);
	b->log = arena_printf(c->arena, "%s/nvcc.log", tdir);
	if (sys_write_file(hfile, k->header, k->hlen)) {
		object_io_error(c, comp, "cannot write the component's header", hfile);
		sys_rmdir_files(tdir);
		tdir[0] = 0;
		return -1;
	}
	Vec argv = { 0 };
	vec_push(c->arena, &argv, (char *)object_nvcc(c));
	vec_push(c->arena, &argv, "-rdc=true");
	vec_push(c->arena, &argv, "-c");
	/* nvcc names a module's internal symbols after a number it draws
	 * afresh each run (its pid by default), so two builds of one source
	 * differed, and so did their digests. Seeded from the key, the same
	 * inputs give the same LTO-IR; different keys, different names. nvcc
	 * takes a 32-bit number (a longer one is drawn at random again). */
	vec_push(c->arena, &argv, arena_printf(c->arena, "-frandom-seed=0x%.8s", k->key));
	for (int i = 0; i < k->flags.n; i++)
		vec_push(c->arena, &argv, k->flags.v[i]);
	const char *lib = stdlib_dir(c);
	if (lib)
		vec_push(c->arena, &argv, arena_printf(c->arena, "-I%s", abs_dir(c, lib)));
	vec_push(c->arena, &argv, arena_printf(c->arena, "-I%s", tdir));
	if (c->components_dir)   /* family headers: #include "common/acc_store.cuh" */
		vec_push(c->arena, &argv, arena_printf(c->arena, "-I%s", abs_dir(c, c->components_dir)));
	vec_push(c->arena, &argv, "-MD");         /* the files it reads: the object's deps */
	vec_push(c->arena, &argv, "-MF");
	vec_push(c->arena, &argv, (char *)b->depf);
	vec_push(c->arena, &argv, "-x");
	vec_push(c->arena, &argv, "cu");
	/* by its real path, nvcc run in the source's directory: nvcc names
	 * the module after the path it is given and its real one, and the
	 * code records the directory it ran in; so the code depends on
	 * where the source is, not on where plkc ran */
	const char *base = strrchr(k->srcpath, '/');
	vec_push(c->arena, &argv, arena_printf(c->arena, "%s/%s", k->srcdir, base ? base + 1 : k->srcpath));
	vec_push(c->arena, &argv, "-o");
	vec_push(c->arena, &argv, (char *)b->code);
	vec_push(c->arena, &argv, NULL);
	if (c->verbose) {
		fputs("plkc:", c->err);
		for (int i = 0; argv.v[i]; i++)
			fprintf(c->err, " %s", (char *)argv.v[i]);
		fputc('\n', c->err);
	}
	b->t0 = plk_clock();
	if (sys_spawn_in(k->srcdir, (char *const *)argv.v, b->log, &b->pid))
		b->pid = -1;   /* build_finish says so */
	return 0;
}

static int build_finish(Ctx *c, Build *b, char digest[65])
{
	const Component *comp = b->comp;
	const Key *k = b->k;
	const char *tdir = b->tdir, *code = b->code, *depf = b->depf;
	int rc = -1;
	char *log = NULL, *sec = NULL, *htext = NULL;
	size_t secn = 0, hn = 0;
	Obj co;
	memset(&co, 0, sizeof co);
	const char *secf = arena_printf(c->arena, "%s/contract", tdir), *objf = arena_printf(c->arena, "%s/object.o", tdir);
	const char *hdrf = arena_printf(c->arena, "%s/header.h", tdir);
	const char *out = b->out, *hdr = b->hdr;
	int st = b->pid < 0 ? -1 : sys_wait(b->pid);
	log = read_log(b->log);
	const char *what = arena_printf(c->arena, "nvcc %s for", comp->name);
	for (int i = 0; i < k->narches; i++)
		what = arena_printf(c->arena, "%s %s", what, k->arches[i]);
	ctx_time(c, what, b->t0);
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
	Vec deps = { 0 };
	if (deps_read(c, comp, k->srcdir, depf, tdir, &deps))
		goto out;
	char srchash[65], hash[65];
	deps_source_hash(&deps, srchash);
	deps_object_hash(k->key, srchash, hash);

	ObjErr r = obj_open(c, code, span_none, 1, &co);
	if (r != OBJ_NOCONTRACT || !co.fatbin ||
	    !obj_same_set((const char **)co.lto.v, co.lto.n, k->arches, k->narches)) {
		errno = EINVAL;
		object_io_error(c, comp, r == OBJ_NOCONTRACT ? "nvcc's object does not hold LTO-IR for exactly the arches asked for"
		                                      : arena_printf(c->arena, "cannot read nvcc's object (%s)", co.why ? co.why : "?"),
		         NULL);
		goto out;
	}
	const ArchInfo *first = arch_lookup(k->arches[0]);
	if (first && link_check_entry(c, comp, k->sym, code, first))
		goto out;
	obj_digest(comp->name, k->arches_text, k->contract, k->clen, co.fatbin, co.fatn, digest);

	FILE *m = open_memstream(&sec, &secn);
	if (!m) {
		object_io_error(c, comp, "out of memory for its contract section", NULL);
		goto out;
	}
	fprintf(m, "plk.contract 2\ncomponent %s\narches %s\nhash %s\nsource %s\ncontract %s\ndigest %s\ntoolkit %s\nflags %s\n",
		comp->name, k->arches_text, hash, srchash, k->conhash, digest, k->toolkit, k->flagstr);
	for (int i = 0; i < deps.n; i++) {
		const ObjDep *d = deps.v[i];
		fprintf(m, "dep %s %s\n", d->hash, d->path);
	}
	fprintf(m, "length %zu\n\n", k->clen);
	fwrite(k->contract, 1, k->clen, m);
	if (fclose(m)) {
		object_io_error(c, comp, "out of memory for its contract section", NULL);
		goto out;
	}
	if (sys_write_file(secf, sec, secn)) {
		object_io_error(c, comp, "cannot write the contract section", secf);
		goto out;
	}
	char *addsec = arena_printf(c->arena, "%s=%s", OBJ_SECTION, secf);
	char *flags = arena_printf(c->arena, "%s=noload,readonly", OBJ_SECTION);
	char *oargv[] = { (char *)objcopy_path(), "--add-section", addsec, "--set-section-flags", flags,
		(char *)code, (char *)objf, NULL };
	free(log);
	log = NULL;
	st = sys_run(oargv, &log);
	if (st) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp,
			"cannot build the object of component `%s`: objcopy failed", comp->name);
		diag_note(d, st < 0 ? "`%s` could not be started" : "`%s` said:\n%s", objcopy_path(), log_tail(c, log));
		diag_help(d, "install binutils, or set OBJCOPY to its objcopy");
		diag_end(c, d);
		goto out;
	}
	mode_t mask = umask(0);     /* mkdtemp's directory is 0700; the files get a normal mode */
	umask(mask);
	if (chmod(objf, 0666 & ~mask)) {
		object_io_error(c, comp, "cannot write the output", objf);
		goto out;
	}
	if (hdr) {
		m = open_memstream(&htext, &hn);
		if (!m || (contract_header(m, comp, b->hdr_cvals), fclose(m)) || sys_write_file(hdrf, htext, hn) ||
		    chmod(hdrf, 0666 & ~mask)) {
			object_io_error(c, comp, "cannot write its header", hdrf);
			goto out;
		}
	}
	const char *tmps[2] = { objf, hdrf }, *dsts[2] = { out, hdr };
	int failed;
	if (sys_commit(tmps, dsts, hdr ? 2 : 1, &failed)) {
		object_io_error(c, comp, "cannot write the output", dsts[failed]);
		goto out;
	}
	rc = 0;
out:
	obj_fini(&co);
	free(log);
	free(sec);
	free(htext);
	sys_rmdir_files(tdir);
	b->tdir[0] = 0;
	return rc;
}

/* The object of comp for k to out (and its header to hdr), all written in
 * a temporary directory beside out and renamed into place together; its
 * digest in digest. */
static int build(Ctx *c, const Component *comp, const Key *k, const char *out, const char *hdr,
                 const int64_t *hdr_cvals, char digest[65])
{
	Build b = { .comp = comp, .k = k, .out = out, .hdr = hdr, .hdr_cvals = hdr_cvals };
	return build_start(c, &b) ? -1 : build_finish(c, &b, digest);
}

int object_build(Ctx *c, const Component *comp, const int64_t *cvals, const ArchInfo **arches, int narches,
                 const char *out, const char *hdr, const int64_t *hdr_cvals)
{
	int before = c->nerrors;
	const int64_t *cv = component_cvals(c, comp, cvals, NULL, NULL);
	if (!cv)
		return -1;
	const ArchInfo *def[OBJ_MAX_ARCHES];
	if (!arches || !narches) {
		narches = object_default_arches(comp, def, OBJ_MAX_ARCHES);
		arches = def;
	}
	Key k;
	if (make_key(c, comp, cv, arches, narches, &k, 0))
		return -1;
	char digest[65];
	int rc = build(c, comp, &k, out, hdr, hdr_cvals, digest);
	key_fini(&k);
	return rc || c->nerrors != before ? -1 : 0;
}

/* --------------------------------------------------------------- cache */

/* Ctx.cache_dir, $PLKC_CACHE, $XDG_CACHE_HOME/plkc (absolute) or ~/.cache/plkc. */
const char *object_cache_dir(Ctx *c)
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

const char *object_for(Ctx *c, const Component *comp, const int64_t *cvals, const ArchInfo *arch, char digest[65])
{
	return object_for_sym(c, comp, cvals, arch, 0, NULL, digest);
}

/* path is current with digest: asked again this run while it is the
 * same file, not read and checked again. */
static void note_current(Ctx *c, const char *digest, const char *path)
{
	struct stat st;
	if (stat(path, &st))
		memset(&st, 0, sizeof st);   /* matches no file: checked again */
	known_set(c, &c->current, path, &st, digest);
}

/* The digest of the object at path when it was found or made current
 * this run and is the same file; else NULL. */
static const char *find_current(const Ctx *c, const char *path)
{
	struct stat st;
	return stat(path, &st) ? NULL : known_get(&c->current, path, &st);
}

/* The cache's entry for comp at cvals and arch: *k its key (the caller
 * key_fini's it, also on error), *path the object's, *sym the symbol it
 * defines; *fresh 1 when the cached object is current (digest then its
 * digest). -1 after reporting. */
static int cache_lookup(Ctx *c, const Component *comp, const int64_t *cvals, const ArchInfo *arch, int rename,
                        Key *k, const char **path, const char **sym, int *fresh, char digest[65])
{
	memset(k, 0, sizeof *k);
	*fresh = 0;
	const int64_t *cv = component_cvals(c, comp, cvals, NULL, NULL);
	if (!cv || make_key(c, comp, cv, &arch, 1, k, 0))
		return -1;
	const char *name = rename ? key_rename(c, comp, k) : comp->entry;
	if (sym)
		*sym = name;
	const char *dir = object_cache_dir(c);
	if (!dir || sys_mkdirs(dir)) {
		int err = errno;
		Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp, "cannot use the object cache for component `%s`", comp->name);
		if (dir)
			diag_note(d, "cannot create `%s`: %s", dir, sys_strerror(err));
		else
			diag_note(d, "neither PLKC_CACHE, XDG_CACHE_HOME nor HOME is set");
		diag_help(d, "set PLKC_CACHE to a writable directory");
		diag_end(c, d);
		return -1;
	}
	*path = arena_printf(c->arena, "%s/%s-%.16s.o", dir, comp->name, k->key);
	const char *cur = find_current(c, *path);   /* checked (or built) already this run */
	if (cur) {
		*fresh = 1;
		if (digest)
			memcpy(digest, cur, 65);
		return 0;
	}
	sys_sweep(dir, NULL);       /* what killed runs left */
	Obj o;
	ObjErr r = obj_open(c, *path, span_none, 1, &o);
	const char *changed = NULL, *why = NULL;
	if (r == OBJ_OK && (strcmp(o.component, comp->name) ||
	                    !obj_same_set((const char **)o.arches.v, o.arches.n, k->arches, k->narches)))
		why = "it holds another component or other arches";
	else if (r == OBJ_OK && deps_current(c, &o, k->srcdir, dir_of(c, k->srcpath), k->key, &changed))
		why = changed ? arena_printf(c->arena, "`%s` changed", changed) : "its hash differs";
	else if (r == OBJ_MISMATCH)
		why = "its code does not match its contract";
	else if (r != OBJ_OK && r != OBJ_MISSING)
		why = o.why ? o.why : "it cannot be read";
	*fresh = r == OBJ_OK && !why;
	if (*fresh && digest)
		memcpy(digest, o.digest, 65);
	if (*fresh)
		note_current(c, o.digest, *path);
	if (why && c->verbose)
		fprintf(c->err, "plkc: rebuilding cached object %s: %s\n", *path, why);
	obj_fini(&o);
	return 0;
}

const char *object_for_sym(Ctx *c, const Component *comp, const int64_t *cvals, const ArchInfo *arch,
                           int rename, const char **sym, char digest[65])
{
	Key k;
	const char *path = NULL;
	int fresh;
	char dg[65];
	if (cache_lookup(c, comp, cvals, arch, rename, &k, &path, sym, &fresh, digest))
		path = NULL;
	else if (!fresh && build(c, comp, &k, path, NULL, NULL, digest ? digest : dg))
		path = NULL;
	else if (!fresh)
		note_current(c, digest ? digest : dg, path);
	if (path && c->verbose)   /* which object serves it (tests: one core for every variant) */
		fprintf(c->err, "plkc: object of `%s`: %s\n", comp->name, path);
	key_fini(&k);
	return path;
}

/* How many nvcc at once: -j, else the processors online (at most 64). */
static int build_jobs(const Ctx *c)
{
	if (c->jobs > 0)
		return c->jobs;
	long n = sysconf(_SC_NPROCESSORS_ONLN);
	return n < 1 ? 1 : n > 64 ? 64 : (int)n;
}

static void prebuild_finish(Ctx *c, Build *b)
{
	char digest[65];
	if (b->tdir[0] && !build_finish(c, b, digest))   /* tdir "": its start failed, reported */
		note_current(c, digest, b->out);
}

int object_prebuild(Ctx *c, const ObjReq *reqs, int n)
{
	int before = c->nerrors, jobs = build_jobs(c), nb = 0, done = 0;
	Key *keys = arena_alloc(c->arena, (n ? n : 1) * sizeof *keys);
	Build *bs = arena_alloc(c->arena, (n ? n : 1) * sizeof *bs);
	double t0 = plk_clock();
	for (int i = 0; i < n; i++) {
		const char *path;
		int fresh, dup = 0;
		if (cache_lookup(c, reqs[i].comp, reqs[i].cvals, reqs[i].arch, reqs[i].rename, &keys[nb], &path, NULL,
		                 &fresh, NULL) || fresh) {
			key_fini(&keys[nb]);
			continue;
		}
		for (int j = 0; j < nb && !dup; j++)   /* two instances of one object */
			dup = !strcmp(bs[j].out, path);
		if (dup) {
			key_fini(&keys[nb]);
			continue;
		}
		if (nb - done == jobs)   /* the oldest first: diagnostics in the order asked */
			prebuild_finish(c, &bs[done++]);
		bs[nb] = (Build){ .comp = reqs[i].comp, .k = &keys[nb], .out = path };
		build_start(c, &bs[nb++]);   /* failed: reported, its tdir "" */
	}
	while (done < nb)
		prebuild_finish(c, &bs[done++]);
	for (int j = 0; j < nb; j++)
		key_fini(&keys[j]);
	if (nb)
		ctx_time(c, arena_printf(c->arena, "component objects (%d, %d at once)", nb, jobs < nb ? jobs : nb), t0);
	return c->nerrors == before ? 0 : -1;
}
