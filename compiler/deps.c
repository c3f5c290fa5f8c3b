/* deps.c: the files an object depends on (object.c). nvcc's -MD list of
 * what it read (deps_read), each file with the sha256 of its bytes, kept
 * relative to the source's directory; whether an object's files still
 * hold those bytes (deps_current); the hashes an object records over
 * them (deps_source_hash, deps_object_hash); the files a link read, for
 * its dependency file (deps_add); and the per-run memo of files as they
 * were (known_get, known_set), so that a file hashed or an object checked
 * once a run is not read again while its stat is the same. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include "plk.h"

/* A file a build read, for the dependency file (-MD); once each, as a
 * real path, relative to the working directory when under it. */
void deps_add(Ctx *c, const char *path)
{
	char real[PATH_MAX], cwd[PATH_MAX];
	const char *p = path;
	if (realpath(path, real)) {
		p = real;
		size_t n = getcwd(cwd, sizeof cwd) ? strlen(cwd) : 0;
		if (n && !strncmp(real, cwd, n) && real[n] == '/')
			p = real + n + 1;
	}
	for (int i = 0; i < c->deps.n; i++)
		if (!strcmp(c->deps.v[i], p))
			return;
	vec_push(c->arena, &c->deps, arena_strdup(c->arena, p));
}

/* The path of `file` (absolute) relative to directory `dir` (absolute),
 * when the two share more than `/`; else `file` itself. */
static const char *rel_path(Ctx *c, const char *dir, const char *file)
{
	size_t common = 0;     /* length of the shared leading directories */
	for (size_t i = 0; dir[i] && dir[i] == file[i]; i++)
		if (dir[i] == '/')
			common = i;
	size_t dl = strlen(dir);
	if (!strncmp(dir, file, dl) && file[dl] == '/')
		return arena_strdup(c->arena, file + dl + 1);   /* under dir */
	if (common == 0)
		return arena_strdup(c->arena, file);
	const char *s = "";
	for (const char *p = dir + common; *p; p++)
		if (*p == '/')
			s = arena_printf(c->arena, "%s../", s);
	return arena_printf(c->arena, "%s%s", s, file + common + 1);
}

/* A dep's path as the program sees it: relative ones are under srcdir. */
static const char *dep_path(Ctx *c, const char *srcdir, const char *path)
{
	return path[0] == '/' ? path : arena_printf(c->arena, "%s/%s", srcdir, path);
}

/* Whether two stats are of one file as it was: device, inode, size and
 * change time (a write, a rename over it or a chmod moves the last). */
static int same_stat(const struct stat *a, const struct stat *b)
{
	return a->st_ino == b->st_ino && a->st_dev == b->st_dev && a->st_size == b->st_size &&
	       a->st_ctim.tv_sec == b->st_ctim.tv_sec && a->st_ctim.tv_nsec == b->st_ctim.tv_nsec;
}

/* A file this run checked, as it was then (its stat), with what was
 * found: a cached object's digest (Ctx.current) or a file's sha256
 * (Ctx.hashed). Asked again while the file is the same, the answer
 * stands and the file is not read again (a megakernel's 81 ops are 5
 * objects; nvcc's ~140 files for one object are mostly the next's). */
typedef struct Known {
	const char *path;
	struct stat st;
	char val[65];
} Known;

static Known *known_entry(const Vec *v, const char *path)
{
	for (int i = 0; i < v->n; i++)
		if (!strcmp(((Known *)v->v[i])->path, path))
			return v->v[i];
	return NULL;
}

/* What v knows of path, when now is the stat it was known with; else NULL. */
const char *known_get(const Vec *v, const char *path, const struct stat *now)
{
	const Known *e = known_entry(v, path);
	return e && same_stat(&e->st, now) ? e->val : NULL;
}

/* path, as st, holds val (one entry a path: a later answer replaces it). */
void known_set(Ctx *c, Vec *v, const char *path, const struct stat *st, const char *val)
{
	Known *e = known_entry(v, path);
	if (!e) {
		e = arena_alloc(c->arena, sizeof *e);
		e->path = arena_strdup(c->arena, path);
		vec_push(c->arena, v, e);
	}
	e->st = *st;
	snprintf(e->val, sizeof e->val, "%s", val);
}

/* sha256 of a file's bytes; -1 (errno) when it cannot be read. A file
 * hashed before this run and the same since is not read again. */
static int hash_file(Ctx *c, const char *path, char out[65])
{
	struct stat st;
	if (stat(path, &st))
		return -1;
	const char *h = known_get(&c->hashed, path, &st);
	if (h) {
		memcpy(out, h, 65);
		return 0;
	}
	size_t n;
	char *t = sys_read_file(path, PLK_MAX_TEXT, &n);
	if (!t)
		return -1;
	sha256_of(t, n, out);
	free(t);
	known_set(c, &c->hashed, path, &st, out);   /* as stat saw it before the read: a change since is hashed again */
	return 0;
}

/* The hash an object records: its key and the bytes of the files nvcc read. */
void deps_object_hash(const char key[65], const char srchash[65], char out[65])
{
	Sha256 s;
	sha256_init(&s);
	sha256_field(&s, "plkc-object", "2", 1);
	sha256_field(&s, "key", key, 64);
	sha256_field(&s, "source", srchash, 64);
	sha256_hex(&s, out);
}

/* `source`: over each dep's hash, in order. */
void deps_source_hash(const Vec *deps, char out[65])
{
	Sha256 s;
	sha256_init(&s);
	for (int i = 0; i < deps->n; i++)
		sha256_field(&s, "dep", ((const ObjDep *)deps->v[i])->hash, 64);
	sha256_hex(&s, out);
}

/* Whether every file o records still holds its bytes; 0 yes, and the
 * object's hash recomputed for key in hash. Else -1 and *changed names the
 * first file that differs or is gone, as seen from here. */
int deps_current(Ctx *c, const Obj *o, const char *srcdir, const char *shown, const char key[65], const char **changed)
{
	*changed = NULL;
	if (!o->deps.n) {
		*changed = "(no file list)";
		return -1;
	}
	char h[65];
	for (int i = 0; i < o->deps.n; i++) {
		const ObjDep *d = o->deps.v[i];
		const char *path = dep_path(c, srcdir, d->path);
		deps_add(c, path);
		if (hash_file(c, path, h) || strcmp(h, d->hash)) {
			*changed = d->path[0] == '/' ? d->path : arena_printf(c->arena, "%s/%s", shown, d->path);
			return -1;
		}
	}
	char src[65], full[65];
	deps_source_hash(&o->deps, src);
	deps_object_hash(key, src, full);
	return strcmp(src, o->srchash) || strcmp(full, o->hash) ? -1 : 0;
}

/* The files nvcc's -MD list names, but the generated header (under tdir)
 * and the toolkit's own: each with the hash of its bytes, relative to the
 * source's directory where they share more than `/`. */
int deps_read(Ctx *c, const Component *comp, const char *srcdir, const char *depfile, const char *tdir, Vec *deps)
{
	size_t n;
	char *t = sys_read_file(depfile, PLK_MAX_TEXT, &n);
	if (!t) {
		object_io_error(c, comp, "cannot read the list of files nvcc read", depfile);
		return -1;
	}
	char cuda[PATH_MAX], tmp[PATH_MAX];
	const char *home = realpath(sys_cuda_home(), cuda) ? cuda : NULL;
	const char *tr = realpath(tdir, tmp) ? tmp : tdir;
	int rc = 0, target = 1;
	char *word = malloc(n + 1);
	for (size_t i = 0; i < n && !rc;) {
		size_t w = 0;
		while (i < n && (t[i] == ' ' || t[i] == '\t' || t[i] == '\n' || t[i] == '\r' ||
		                 (t[i] == '\\' && i + 1 < n && (t[i + 1] == '\n' || t[i + 1] == '\r'))))
			i += t[i] == '\\' ? 2 : 1;
		while (i < n && t[i] != ' ' && t[i] != '\t' && t[i] != '\n' && t[i] != '\r') {
			if (t[i] == '\\' && i + 1 < n && (t[i + 1] == ' ' || t[i + 1] == '#' || t[i + 1] == '\\'))
				i++;          /* an escaped character */
			else if (t[i] == '$' && i + 1 < n && t[i + 1] == '$')
				i++;
			else if (t[i] == '\\' && i + 1 < n && t[i + 1] == '\n')
				break;
			word[w++] = t[i++];
		}
		word[w] = 0;
		if (!w)
			continue;
		if (target) {          /* "OBJ :" or "OBJ:" */
			if (!strcmp(word, ":") || word[w - 1] == ':')
				target = 0;
			continue;
		}
		char real[PATH_MAX];   /* a relative one is from where nvcc ran */
		if (!realpath(dep_path(c, srcdir, word), real)) {
			object_io_error(c, comp, "cannot find a file nvcc read", word);
			rc = -1;
			break;
		}
		size_t hl = home ? strlen(home) : 0, tl = strlen(tr);
		if ((home && !strncmp(real, home, hl) && real[hl] == '/') || (!strncmp(real, tr, tl) && real[tl] == '/'))
			continue;         /* the toolkit's (its version is in the key), or the generated header */
		ObjDep *d = arena_alloc(c->arena, sizeof *d);
		if (hash_file(c, real, d->hash)) {
			object_io_error(c, comp, "cannot read a file nvcc read", real);
			rc = -1;
			break;
		}
		d->path = rel_path(c, srcdir, real);
		deps_add(c, real);
		if (strchr(d->path, '\n')) {
			errno = EINVAL;
			object_io_error(c, comp, "a file nvcc read has a newline in its name", real);
			rc = -1;
			break;
		}
		if (deps->n == 4096) {
			errno = E2BIG;
			object_io_error(c, comp, "nvcc read more than 4096 files", depfile);
			rc = -1;
			break;
		}
		vec_push(c->arena, deps, d);
	}
	if (!rc && (target || !deps->n)) {
		errno = EINVAL;
		object_io_error(c, comp, "nvcc's list of the files it read is malformed", depfile);
		rc = -1;
	}
	free(word);
	free(t);
	return rc;
}
