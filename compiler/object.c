/* object.c: component objects that carry their contract.
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
 * The arches are cross-checked with the LTO entries of the object's fatbin
 * (section __nv_relfatbin): a fatbin header { u32 magic 0xBA55ED50, u16
 * version, u16 header size, u64 body size } followed by entries { u16 kind
 * (8: LTO-IR), u16, u32 header size, u64 payload size, ..., u32 sm at 28,
 * u64 flags at 40 (0x100000: 'a' target, 0x200000: 'f' target) }.
 *
 * The source's constants and ids come from its contract: it includes
 * <NAME.plk.h>, which build() writes for the object's constants
 * (contract_header) into a temporary directory beside the output and
 * passes with -I; angle brackets, so that a stale copy beside the source
 * is never read. */
#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <gelf.h>
#include <libelf.h>
#include <limits.h>
#include <spawn.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>
#include "plk.h"

#ifndef PLK_DEFAULT_CUDA_HOME
#define PLK_DEFAULT_CUDA_HOME "/usr/local/cuda"
#endif

extern char **environ;

#define SECTION ".plk.contract"
enum { MAX_ARCHES = 16 };

/* ---------------------------------------------------------------- sha256
 * FIPS 180-4; the cache key and the section's integrity digest. */

typedef struct Sha {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	int nbuf;
} Sha;

static const uint32_t K256[64] = {
	0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4, 0xab1c5ed5,
	0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe, 0x9bdc06a7, 0xc19bf174,
	0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f, 0x4a7484aa, 0x5cb0a9dc, 0x76f988da,
	0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7, 0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967,
	0x27b70a85, 0x2e1b2138, 0x4d2c6dfc, 0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85,
	0xa2bfe8a1, 0xa81a664b, 0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070,
	0x19a4c116, 0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
	0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7, 0xc67178f2,
};

#define ROR(x, n) (((x) >> (n)) | ((x) << (32 - (n))))

static void sha_block(Sha *s, const unsigned char *p)
{
	uint32_t w[64], v[8];
	for (int i = 0; i < 16; i++)
		w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 | (uint32_t)p[4 * i + 2] << 8 | p[4 * i + 3];
	for (int i = 16; i < 64; i++) {
		uint32_t s0 = ROR(w[i - 15], 7) ^ ROR(w[i - 15], 18) ^ (w[i - 15] >> 3);
		uint32_t s1 = ROR(w[i - 2], 17) ^ ROR(w[i - 2], 19) ^ (w[i - 2] >> 10);
		w[i] = w[i - 16] + s0 + w[i - 7] + s1;
	}
	memcpy(v, s->h, sizeof v);
	for (int i = 0; i < 64; i++) {
		uint32_t t1 = v[7] + (ROR(v[4], 6) ^ ROR(v[4], 11) ^ ROR(v[4], 25)) +
			((v[4] & v[5]) ^ (~v[4] & v[6])) + K256[i] + w[i];
		uint32_t t2 = (ROR(v[0], 2) ^ ROR(v[0], 13) ^ ROR(v[0], 22)) +
			((v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]));
		memmove(v + 1, v, 7 * sizeof v[0]);
		v[4] += t1;
		v[0] = t1 + t2;
	}
	for (int i = 0; i < 8; i++)
		s->h[i] += v[i];
}

static void sha_init(Sha *s)
{
	static const uint32_t h0[8] = { 0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a,
		0x510e527f, 0x9b05688c, 0x1f83d9ab, 0x5be0cd19 };
	memcpy(s->h, h0, sizeof h0);
	s->len = 0;
	s->nbuf = 0;
}

static void sha_add(Sha *s, const void *data, size_t n)
{
	const unsigned char *p = data;
	s->len += n;
	while (n) {
		size_t k = 64 - (size_t)s->nbuf < n ? 64 - (size_t)s->nbuf : n;
		memcpy(s->buf + s->nbuf, p, k);
		s->nbuf += (int)k;
		p += k;
		n -= k;
		if (s->nbuf == 64) {
			sha_block(s, s->buf);
			s->nbuf = 0;
		}
	}
}

/* Length-prefixed, so that no two field lists hash alike. */
static void sha_field(Sha *s, const char *tag, const void *data, size_t n)
{
	char pre[64];
	int k = snprintf(pre, sizeof pre, "%s %zu\n", tag, n);
	sha_add(s, pre, (size_t)k);
	sha_add(s, data, n);
}

static void sha_hex(Sha *s, char out[65])
{
	uint64_t bits = s->len * 8;
	unsigned char pad = 0x80, zero = 0, lenb[8];
	sha_add(s, &pad, 1);
	while (s->nbuf != 56)
		sha_add(s, &zero, 1);
	for (int i = 0; i < 8; i++)
		lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
	sha_add(s, lenb, 8);
	for (int i = 0; i < 8; i++)
		snprintf(out + 8 * i, 9, "%08x", s->h[i]);
}

static void sha_of(const void *data, size_t n, char out[65])
{
	Sha s;
	sha_init(&s);
	sha_add(&s, data, n);
	sha_hex(&s, out);
}

/* ------------------------------------------------------------- helpers */

static char *read_all(const char *path, size_t *len)
{
	FILE *f = fopen(path, "rb");
	if (!f)
		return NULL;
	size_t cap = 1 << 14, n = 0, k;
	char *buf = malloc(cap + 1);
	while (buf && (k = fread(buf + n, 1, cap - n, f)) > 0) {
		n += k;
		if (n == cap) {
			char *nb = realloc(buf, (cap *= 2) + 1);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	int bad = ferror(f) || !buf;
	fclose(f);
	if (bad) {
		free(buf);
		return NULL;
	}
	buf[n] = 0;
	*len = n;
	return buf;
}

static int write_all(const char *path, const void *data, size_t n)
{
	FILE *f = fopen(path, "wb");
	if (!f)
		return -1;
	int bad = fwrite(data, 1, n, f) != n;
	return fclose(f) || bad ? -1 : 0;
}

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

static int mkdirs(const char *path)
{
	char buf[PATH_MAX];
	if (snprintf(buf, sizeof buf, "%s", path) >= (int)sizeof buf)
		return -1;
	for (char *p = buf + 1; *p; p++) {
		if (*p != '/')
			continue;
		*p = 0;
		if (mkdir(buf, 0777) && errno != EEXIST)
			return -1;
		*p = '/';
	}
	return mkdir(buf, 0777) && errno != EEXIST ? -1 : 0;
}

/* Runs argv (no shell) and returns its exit status, -1 when it could not
 * start; stdout and stderr together land in *log (malloc'd, NUL-ended). */
static int run(char *const argv[], char **log)
{
	int fd[2];
	*log = NULL;
	if (pipe(fd))
		return -1;
	posix_spawn_file_actions_t fa;
	posix_spawn_file_actions_init(&fa);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 1);
	posix_spawn_file_actions_adddup2(&fa, fd[1], 2);
	posix_spawn_file_actions_addclose(&fa, fd[0]);
	pid_t pid;
	int rc = posix_spawnp(&pid, argv[0], &fa, NULL, argv, environ);
	posix_spawn_file_actions_destroy(&fa);
	close(fd[1]);
	size_t cap = 4096, n = 0;
	char *buf = malloc(cap);
	ssize_t k;
	while (buf && (k = read(fd[0], buf + n, cap - n - 1)) != 0) {
		if (k < 0) {
			if (errno == EINTR)
				continue;
			break;
		}
		n += (size_t)k;
		if (cap - n - 1 == 0) {
			char *nb = realloc(buf, cap *= 2);
			if (!nb)
				free(buf);
			buf = nb;
		}
	}
	close(fd[0]);
	if (buf)
		buf[n] = 0;
	*log = buf;
	if (rc)
		return -1;
	int st;
	while (waitpid(pid, &st, 0) < 0)
		if (errno != EINTR)
			return -1;
	return WIFEXITED(st) ? WEXITSTATUS(st) : 128 + (WIFSIGNALED(st) ? WTERMSIG(st) : 0);
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

static const char *cuda_home(void)
{
	const char *h = getenv("CUDA_HOME");
	return h && *h ? h : PLK_DEFAULT_CUDA_HOME;
}

static const char *nvcc_path(Ctx *c)
{
	const char *p = arena_printf(c->arena, "%s/bin/nvcc", cuda_home());
	return is_exec(p) ? p : "nvcc";
}

static const char *objcopy_path(void)
{
	const char *p = getenv("OBJCOPY");
	return p && *p ? p : "objcopy";
}

/* "V13.0.88" from `nvcc --version`: part of every cache key. */
static const char *toolkit_version(Ctx *c)
{
	char *log;
	char *argv[] = { (char *)nvcc_path(c), "--version", NULL };
	int rc = run(argv, &log);
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

/* stdlib/: Ctx.stdlib_dir, else next to the plkc binary (build/plkc and
 * build/unit/test_* in the tree; PREFIX/share/plkc/stdlib installed). */
static const char *stdlib_dir(Ctx *c)
{
	if (c->stdlib_dir)
		return c->stdlib_dir;
	char exe[PATH_MAX];
	ssize_t n = readlink("/proc/self/exe", exe, sizeof exe - 1);
	if (n <= 0)
		return NULL;
	exe[n] = 0;
	const char *d = dir_of(c, exe);
	const char *cand[] = { "../stdlib", "../../stdlib", "../share/plkc/stdlib" };
	for (int i = 0; i < 3; i++) {
		const char *p = arena_printf(c->arena, "%s/%s", d, cand[i]);
		char real[PATH_MAX];
		if (is_dir(p) && realpath(p, real))
			return arena_strdup(c->arena, real);
	}
	return NULL;
}

static int cmpstr(const void *a, const void *b)
{
	return strcmp(*(char *const *)a, *(char *const *)b);
}

/* The .cuh, .h and .def files of dir (not a .plk.h: the build includes
 * the one it generates, and the key covers that): headers under stdlib/
 * are part of every component's source, and plk.cuh includes abi.def. */
static void hash_headers(Ctx *c, Sha *s, const char *dir)
{
	DIR *d = dir ? opendir(dir) : NULL;
	if (!d)
		return;
	Vec names = { 0 };
	struct dirent *e;
	while ((e = readdir(d))) {
		size_t n = strlen(e->d_name);
		if (n > 6 && !strcmp(e->d_name + n - 6, ".plk.h"))
			continue;   /* generated from a contract */
		if ((n > 4 && !strcmp(e->d_name + n - 4, ".cuh")) || (n > 2 && !strcmp(e->d_name + n - 2, ".h")) ||
		    (n > 4 && !strcmp(e->d_name + n - 4, ".def")))
			vec_push(c->arena, &names, arena_strdup(c->arena, e->d_name));
	}
	closedir(d);
	if (names.n)
		qsort(names.v, (size_t)names.n, sizeof names.v[0], cmpstr);
	for (int i = 0; i < names.n; i++) {
		size_t len;
		char *t = read_all(arena_printf(c->arena, "%s/%s", dir, (char *)names.v[i]), &len);
		if (t) {
			sha_field(s, names.v[i], t, len);
			free(t);
		}
	}
}

/* ----------------------------------------------------- arch selection */

/* "sm_90a" -> 90 and 'a'; 0 when not an arch name. */
static int arch_num(const char *name, char *suffix)
{
	int sm = 0;
	*suffix = 0;
	if (!name || strncmp(name, "sm_", 3))
		return 0;
	const char *p = name + 3;
	while (*p >= '0' && *p <= '9')
		sm = sm * 10 + (*p++ - '0');
	if (*p == 'a' || *p == 'f')
		*suffix = *p++;
	return *p ? 0 : sm;
}

static int arch_allowed(const Component *comp, const ArchInfo *a)
{
	char suf;
	int min = arch_num(comp->arch_min, &suf);
	if (min && a->sm < min)
		return 0;
	if (suf == 'a' && !a->arch_specific)
		return 0;
	for (int i = 0; i < comp->features.n; i++) {
		unsigned bit = feature_lookup(((Feature *)comp->features.v[i])->name);
		if (bit && !(a->features & bit))   /* unknown names are check.c's to report */
			return 0;
	}
	return 1;
}

/* Can an LTO target named `have` ("sm_80", "sm_90a", "sm_100f") serve a
 * link for `want`? LTO-IR of a plain target serves later archs; an 'a'
 * target serves its own arch only; an 'f' target its family. */
static int target_serves(const char *have, const ArchInfo *want)
{
	char hs, ws;
	int h = arch_num(have, &hs), w = arch_num(want->name, &ws);
	if (!h || !w)
		return 0;
	if (hs == 'a')
		return h == w && ws == 'a';
	if (hs == 'f')
		return h / 10 == w / 10 && w >= h;
	return w >= h;
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
	const char *arches[MAX_ARCHES];
	int narches;
	const char *toolkit;
	char hash[65], srchash[65], conhash[65];
} Key;

static void io_error(Ctx *c, const Component *comp, const char *what, const char *path);

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
	for (int i = 0; i < narches && k->narches < MAX_ARCHES; i++)
		if (arches[i] && arch_allowed(comp, arches[i]))
			k->arches[k->narches++] = arches[i]->name;
	if (!k->narches) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0210", comp->arch_sp.src >= 0 ? comp->arch_sp : comp->name_sp,
			"component `%s` cannot be built for any requested arch", comp->name);
		diag_label(d, comp->arch_sp, "its arch clause");
		char list[256] = "";
		for (int i = 0; i < narches; i++)
			if (arches[i])
				snprintf(list + strlen(list), sizeof list - strlen(list), "%s%s", *list ? ", " : "", arches[i]->name);
		diag_note(d, "requested: %s", *list ? list : "(none)");
		diag_help(d, "request an arch that has every feature it needs, e.g. `-arch sm_90a`");
		diag_end(c, d);
		return -1;
	}
	k->srcpath = source_path(c, comp);
	size_t slen;
	char *src = read_all(k->srcpath, &slen);
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
	Sha s;
	sha_init(&s);
	sha_field(&s, "source", src, slen);
	hash_headers(c, &s, lib);
	/* Headers beside the source may be included by it: over-approximate
	 * (a change to any of them makes the object stale) rather than miss one. */
	hash_headers(c, &s, dir_of(c, k->srcpath));
	sha_hex(&s, k->srchash);
	free(src);

	FILE *m = open_memstream(&k->contract, &k->clen);
	if (!m || (contract_print(m, comp, cvals), fclose(m))) {
		io_error(c, comp, "out of memory", NULL);
		key_fini(k);
		return -1;
	}
	sha_of(k->contract, k->clen, k->conhash);
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

	k->toolkit = toolkit_version(c);
	if (!k->toolkit) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0209", comp->source_sp, "cannot run nvcc to build component `%s`", comp->name);
		diag_note(d, "tried `%s --version`", nvcc_path(c));
		diag_help(d, "install the CUDA toolkit or set CUDA_HOME");
		diag_end(c, d);
		key_fini(k);
		return -1;
	}
	sha_init(&s);
	sha_field(&s, "plkc-object", "1", 1);
	sha_field(&s, "source", k->srchash, 64);
	sha_field(&s, "contract", k->contract, k->clen);
	sha_field(&s, "header", k->header, k->hlen);   /* a function of the contract, and of plkc */
	sha_field(&s, "flags", k->flagstr, strlen(k->flagstr));
	sha_field(&s, "toolkit", k->toolkit, strlen(k->toolkit));
	sha_hex(&s, k->hash);
	return 0;
}

/* ----------------------------------------------------- reading objects */

typedef enum { OBJ_OK, OBJ_MISSING, OBJ_NOTELF, OBJ_CORRUPT, OBJ_NOCONTRACT } ObjErr;

typedef struct Obj {
	char *data;              /* the whole file (malloc'd) */
	size_t size;
	const char *component, *toolkit, *flags;
	char hash[65], srchash[65], conhash[65];
	const char *arches[MAX_ARCHES];   /* from the header */
	int narches;
	const char *lto[MAX_ARCHES];      /* from the fatbin */
	int nlto, nother;                 /* other entries: PTX, cubins */
	const char *payload;              /* contract text, NUL-ended copy */
	size_t plen;
	const char *why;                  /* what is wrong, for OBJ_CORRUPT */
} Obj;

static void obj_fini(Obj *o)
{
	free(o->data);
	o->data = NULL;
}

static uint64_t rd(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* LTO targets of a fatbin section. 0 ok, -1 malformed. */
static int scan_fatbin(Ctx *c, Obj *o, const unsigned char *p, size_t n)
{
	size_t off = 0;
	while (off + 16 <= n) {
		if (rd(p + off, 4) == 0) {           /* padding between fatbins */
			off += 8;
			continue;
		}
		if (rd(p + off, 4) != 0xBA55ED50u)
			return -1;
		uint64_t hs = rd(p + off + 6, 2), fs = rd(p + off + 8, 8);
		if (hs < 16 || fs > n - off || hs > n - off - fs)
			return -1;
		size_t e = off + hs, end = off + hs + fs;
		while (e < end) {
			if (end - e < 48)
				return -1;
			uint64_t kind = rd(p + e, 2), ehs = rd(p + e + 4, 4), psz = rd(p + e + 8, 8);
			if (ehs < 48 || ehs > end - e || psz > end - e - ehs)
				return -1;
			unsigned sm = (unsigned)rd(p + e + 28, 4);
			uint64_t fl = rd(p + e + 40, 8);
			if (kind == 8 && o->nlto < MAX_ARCHES)
				o->lto[o->nlto++] = arena_printf(c->arena, "sm_%u%s", sm,
					fl & 0x100000 ? "a" : fl & 0x200000 ? "f" : "");
			else if (kind != 8)
				o->nother++;
			e += ehs + psz;
		}
		off = end;
	}
	return 0;
}

static const char *hdr_field(Ctx *c, const char *h, size_t n, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = h; p < h + n;) {
		const char *nl = memchr(p, '\n', (size_t)(h + n - p));
		if (!nl)
			nl = h + n;
		if ((size_t)(nl - p) > kl && !strncmp(p, key, kl) && p[kl] == ' ')
			return arena_strndup(c->arena, p + kl + 1, (size_t)(nl - p - (ptrdiff_t)kl - 1));
		p = nl + 1;
	}
	return NULL;
}

static int is_hex64(const char *s)
{
	if (!s || strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* The .plk.contract section's header and payload. */
static int parse_section(Ctx *c, Obj *o, const char *d, size_t n)
{
	const char *sep = NULL;
	for (size_t i = 0; i + 1 < n; i++)
		if (d[i] == '\n' && d[i + 1] == '\n') {
			sep = d + i;
			break;
		}
	if (n < 15 || strncmp(d, "plk.contract 1\n", 15) || !sep) {
		o->why = "its .plk.contract section has no valid header";
		return -1;
	}
	size_t hn = (size_t)(sep - d) + 1;
	o->component = hdr_field(c, d, hn, "component");
	o->toolkit = hdr_field(c, d, hn, "toolkit");
	o->flags = hdr_field(c, d, hn, "flags");
	const char *hash = hdr_field(c, d, hn, "hash"), *src = hdr_field(c, d, hn, "source"),
		*con = hdr_field(c, d, hn, "contract"), *len = hdr_field(c, d, hn, "length"),
		*arches = hdr_field(c, d, hn, "arches");
	if (!o->component || !o->toolkit || !o->flags || !is_hex64(hash) || !is_hex64(src) ||
	    !is_hex64(con) || !len || !arches) {
		o->why = "its .plk.contract header lacks a field";
		return -1;
	}
	memcpy(o->hash, hash, 65);
	memcpy(o->srchash, src, 65);
	memcpy(o->conhash, con, 65);
	char *endp;
	unsigned long long l = strtoull(len, &endp, 10);
	size_t avail = n - hn - 1;
	if (*endp || l != avail) {
		o->why = arena_printf(c->arena, "its contract is %zu bytes, its header says %s", avail, len);
		return -1;
	}
	o->payload = arena_strndup(c->arena, sep + 2, (size_t)l);
	o->plen = (size_t)l;
	char dig[65];
	sha_of(o->payload, o->plen, dig);
	if (strcmp(dig, o->conhash) || strlen(o->payload) != o->plen) {
		o->why = "its contract does not match the digest recorded with it";
		return -1;
	}
	for (char *a = (char *)arches, *t; (t = strtok_r(a, " ", &a)) && o->narches < MAX_ARCHES;)
		o->arches[o->narches++] = t;
	return 0;
}

static int same_set(const char **a, int na, const char **b, int nb)
{
	if (na != nb)
		return 0;
	for (int i = 0; i < na; i++) {
		int found = 0;
		for (int j = 0; j < nb && !found; j++)
			found = !strcmp(a[i], b[j]);
		if (!found)
			return 0;
	}
	return 1;
}

static ObjErr read_elf(Ctx *c, Obj *o)
{
	const unsigned char *p = (const unsigned char *)o->data;
	if (o->size < 4 || memcmp(p, ELFMAG, SELFMAG))
		return OBJ_NOTELF;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		o->why = "libelf is unusable";
		return OBJ_CORRUPT;
	}
	Elf *e = elf_memory(o->data, o->size);
	if (!e) {
		o->why = arena_printf(c->arena, "libelf: %s", elf_errmsg(-1));
		return OBJ_CORRUPT;
	}
	ObjErr r = OBJ_CORRUPT;
	GElf_Ehdr eh;
	size_t shstr, nsec;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		o->why = "its ELF header is damaged";
		goto out;
	}
	if (eh.e_type != ET_REL) {
		o->why = "it is not a relocatable object";
		goto out;
	}
	if (elf_getshdrnum(e, &nsec) || elf_getshdrstrndx(e, &shstr) ||
	    eh.e_shoff > o->size || (uint64_t)nsec * eh.e_shentsize > o->size - eh.e_shoff) {
		o->why = "its section table lies past the end of the file";
		goto out;
	}
	const unsigned char *fat = NULL, *con = NULL;
	size_t fatn = 0, conn = 0;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh)) {
			o->why = arena_printf(c->arena, "libelf: %s", elf_errmsg(-1));
			goto out;
		}
		if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > o->size || sh.sh_size > o->size - sh.sh_offset)) {
			o->why = "a section lies past the end of the file";
			goto out;
		}
		const char *name = elf_strptr(e, shstr, sh.sh_name);
		if (!name) {
			o->why = "its section names are damaged";
			goto out;
		}
		if (!strcmp(name, SECTION)) {
			con = p + sh.sh_offset;
			conn = sh.sh_size;
		} else if (!strcmp(name, "__nv_relfatbin") || !strcmp(name, ".nv_fatbin")) {
			fat = p + sh.sh_offset;
			fatn = sh.sh_size;
		}
	}
	if (fat && scan_fatbin(c, o, fat, fatn)) {
		o->why = "its fatbin is damaged";
		goto out;
	}
	if (!con) {
		r = OBJ_NOCONTRACT;
		goto out;
	}
	if (parse_section(c, o, (const char *)con, conn))
		goto out;
	if (!same_set(o->arches, o->narches, o->lto, o->nlto)) {
		o->why = "the arches recorded with its contract differ from the LTO targets it holds";
		goto out;
	}
	r = OBJ_OK;
out:
	elf_end(e);
	return r;
}

static const char *list(Ctx *c, const char **v, int n)
{
	const char *s = "";
	for (int i = 0; i < n; i++)
		s = arena_printf(c->arena, "%s%s%s", s, i ? ", " : "", v[i]);
	return n ? s : "none";
}

/* Reads and validates an object; reports unless quiet. */
static ObjErr open_object(Ctx *c, const char *path, Span from, int quiet, Obj *o)
{
	memset(o, 0, sizeof *o);
	o->data = read_all(path, &o->size);
	if (!o->data) {
		int err = errno;
		if (!quiet) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0201", from, "cannot read object `%s`", path);
			diag_label(d, from, "named here");
			diag_note(d, "tried: %s (%s)", path, strerror(err));
			diag_help(d, "build it with `plkc -c COMPONENT.plk -o %s`", path);
			diag_end(c, d);
		}
		return OBJ_MISSING;
	}
	ObjErr r = read_elf(c, o);
	if (r == OBJ_OK || quiet)
		return r;
	Diag *d;
	switch (r) {
	case OBJ_NOTELF: {
		int text = 1;
		for (size_t i = 0; i < o->size && i < 256; i++)
			text &= o->data[i] == '\n' || o->data[i] == '\t' || o->data[i] == '\r' ||
				((unsigned char)o->data[i] >= 0x20 && o->data[i] != 0x7f) || (o->data[i] & 0x80);
		d = diag_new(c, DIAG_ERROR, "E0207", from, "`%s` is not an ELF object", path);
		diag_label(d, from, "named here");
		diag_note(d, o->size < 4 ? "it is %zu bytes long" : "it does not start with the ELF magic bytes (%zu bytes, %s)",
			o->size, text ? "text" : "binary");
		if (text && o->size)
			diag_help(d, "it looks like text: a `.plk` declaration is imported with `use`, without `object`");
		else
			diag_help(d, "component objects come from `plkc -c COMPONENT.plk -o OBJECT.o`");
		break;
	}
	case OBJ_CORRUPT:
		d = diag_new(c, DIAG_ERROR, "E0204", from, "object `%s` is corrupted or truncated", path);
		diag_label(d, from, "named here");
		diag_note(d, "%s (%zu bytes)", o->why ? o->why : "unreadable", o->size);
		diag_help(d, "rebuild it with `plkc -c COMPONENT.plk -o %s`", path);
		break;
	default:   /* OBJ_NOCONTRACT */
		d = diag_new(c, DIAG_ERROR, "E0205", from, "object `%s` carries no contract", path);
		diag_label(d, from, "named here");
		diag_note(d, "it has no `%s` section%s", SECTION,
			o->nlto ? arena_printf(c->arena, "; it holds LTO-IR for %s", list(c, o->lto, o->nlto)) : "");
		diag_help(d, "plkc links objects built by `plkc -c COMPONENT.plk -o %s`, which records what the component requires and promises", path);
		break;
	}
	diag_end(c, d);
	obj_fini(o);
	return r;
}

/* Parses the contract text of a valid object into its Component. */
static Component *obj_component(Ctx *c, Obj *o, const char *path, Span from)
{
	int before = c->nerrors;
	int src = ctx_add_source(c, arena_printf(c->arena, "%s(%s)", path, SECTION), o->payload, o->plen);
	Module *m = src < 0 ? NULL : parse_source(c, src);
	if (!m || c->nerrors != before || m->comps.n != 1 || m->uses.n || m->kernels.n ||
	    strcmp(((Component *)m->comps.v[0])->name, o->component)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0204", from, "object `%s` holds a malformed contract", path);
		diag_label(d, from, "named here");
		diag_note(d, "its %s section must hold exactly one component declaration, `%s`", SECTION, o->component);
		diag_help(d, "rebuild it with `plkc -c COMPONENT.plk -o %s`", path);
		diag_end(c, d);
		return NULL;
	}
	Component *comp = m->comps.v[0];
	comp->object = arena_strdup(c->arena, path);
	if (!comp->file)
		comp->file = comp->object;
	return comp;
}

/* ----------------------------------------------------- stage entries */

Component *object_read_contract(Ctx *c, const char *path, Span from)
{
	Obj o;
	if (open_object(c, path, from, 0, &o))
		return NULL;
	Component *comp = obj_component(c, &o, path, from);
	obj_fini(&o);
	return comp;
}

int object_check_arch(Ctx *c, const char *path, const ArchInfo *arch, Span from)
{
	Obj o;
	if (open_object(c, path, from, 0, &o))
		return -1;
	for (int i = 0; i < o.nlto; i++)
		if (target_serves(o.lto[i], arch)) {
			obj_fini(&o);
			return 0;
		}
	/* Whether a rebuild can help depends on what the contract allows. */
	Component *comp = obj_component(c, &o, path, from);
	if (!comp) {
		obj_fini(&o);
		return -1;
	}
	Diag *d = diag_new(c, DIAG_ERROR, "E0206", from, "object `%s` has no LTO target for %s", path, arch->name);
	diag_label(d, from, "named here");
	diag_note(d, "it holds LTO-IR for: %s", list(c, o.lto, o.nlto));
	if (o.nother)
		diag_note(d, "its other %d fatbin entr%s (PTX or cubin) cannot take part in link-time optimisation",
			o.nother, o.nother == 1 ? "y" : "ies");
	if (arch_allowed(comp, arch))
		diag_help(d, "rebuild it for this arch: `plkc -c COMPONENT.plk -arch %s -o %s`", arch->name, path);
	else
		diag_help(d, "component `%s` requires arch >= %s%s: link for one of %s instead",
			comp->name, comp->arch_min ? comp->arch_min : "?", comp->features.n ? " and the features it needs" : "",
			list(c, o.lto, o.nlto));
	diag_end(c, d);
	obj_fini(&o);
	return -1;
}

int object_emit_contract(Ctx *c, const char *path, FILE *out)
{
	Obj o;
	if (open_object(c, path, span_none, 0, &o))
		return -1;
	Component *comp = obj_component(c, &o, path, span_none);
	if (comp) {
		fprintf(out, "// object %s: LTO-IR for %s\n", path, list(c, o.lto, o.nlto));
		fprintf(out, "// built with nvcc %s %s\n", o.toolkit, o.flags);
		fprintf(out, "// hash %s\n", o.hash);
		fwrite(o.payload, 1, o.plen, out);
	}
	obj_fini(&o);
	return comp ? 0 : -1;
}

int object_matches(Ctx *c, const Component *decl, const Component *obj, Span from)
{
	Obj o;
	if (open_object(c, obj->object, from, 0, &o))
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
	const ArchInfo *arches[MAX_ARCHES];
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

static int tmp_path(char *buf, size_t n, const char *out, const char *suffix)
{
	if (snprintf(buf, n, "%s.tmp%sXXXXXX", out, suffix) >= (int)n)
		return -1;
	int fd = mkstemp(buf);
	if (fd < 0)
		return -1;
	close(fd);
	return 0;
}

static void io_error(Ctx *c, const Component *comp, const char *what, const char *path)
{
	Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp, "cannot build the object of component `%s`: %s", comp->name, what);
	if (path)
		diag_note(d, "%s: %s", path, strerror(errno));
	diag_end(c, d);
}

static int build(Ctx *c, const Component *comp, const int64_t *cvals, const Key *k, const char *out)
{
	char tobj[PATH_MAX], tsec[PATH_MAX], tout[PATH_MAX], thdr[PATH_MAX];
	if (tmp_path(tobj, sizeof tobj, out, "o")) {
		io_error(c, comp, "cannot create a file beside the output", out);
		return -1;
	}
	int rc = -1;
	char *log = NULL;
	const char *hfile = NULL;
	tsec[0] = tout[0] = 0;
	if (snprintf(thdr, sizeof thdr, "%s.tmphXXXXXX", out) >= (int)sizeof thdr || !mkdtemp(thdr)) {
		thdr[0] = 0;
		io_error(c, comp, "cannot create a directory beside the output", out);
		goto out;
	}
	hfile = arena_printf(c->arena, "%s/%s.plk.h", thdr, comp->name);
	if (write_all(hfile, k->header, k->hlen)) {
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
	int st = run((char *const *)argv.v, &log);
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
	if (tmp_path(tsec, sizeof tsec, out, "s") || write_all(tsec, sec, secn)) {
		free(sec);
		io_error(c, comp, "cannot write the contract section", tsec);
		goto out;
	}
	free(sec);
	if (tmp_path(tout, sizeof tout, out, "")) {
		io_error(c, comp, "cannot create a file beside the output", out);
		goto out;
	}
	free(log);
	char *addsec = arena_printf(c->arena, "%s=%s", SECTION, tsec);
	char *flags = arena_printf(c->arena, "%s=noload,readonly", SECTION);
	char *oargv[] = { (char *)objcopy_path(), "--add-section", addsec, "--set-section-flags", flags, tobj, tout, NULL };
	st = run(oargv, &log);
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

/* sm_80, sm_90a and sm_100a: what -c builds when no -arch is given. */
static int default_arches(const ArchInfo *v[3])
{
	static const char *const names[] = { "sm_80", "sm_90a", "sm_100a" };
	int k = 0;
	for (int i = 0; i < 3; i++)
		if ((v[k] = arch_lookup(names[i])))
			k++;
	return k;
}

int object_build(Ctx *c, const Component *comp, const int64_t *cvals,
                 const ArchInfo **arches, int narches, const char *out)
{
	int before = c->nerrors;
	const int64_t *cv = component_cvals(c, comp, cvals);
	if (!cv)
		return -1;
	const ArchInfo *def[3];
	if (!arches || !narches) {
		narches = default_arches(def);
		arches = def;
	}
	Key k;
	if (make_key(c, comp, cv, arches, narches, &k))
		return -1;
	int rc = build(c, comp, cv, &k, out);
	key_fini(&k);
	return rc || c->nerrors != before ? -1 : 0;
}

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
	const int64_t *cv = component_cvals(c, comp, cvals);
	if (!cv)
		return NULL;
	Key k;
	if (make_key(c, comp, cv, &arch, 1, &k))
		return NULL;
	const char *dir = cache_dir(c), *path = NULL;
	if (!dir || mkdirs(dir)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0211", comp->name_sp, "cannot use the object cache for component `%s`", comp->name);
		diag_note(d, dir ? "cannot create `%s`: %s" : "neither PLKC_CACHE, XDG_CACHE_HOME nor HOME is set%s",
			dir ? dir : "", dir ? strerror(errno) : "");
		diag_help(d, "set PLKC_CACHE to a writable directory");
		diag_end(c, d);
		goto out;
	}
	path = arena_printf(c->arena, "%s/%s-%.16s.o", dir, comp->name, k.hash);
	Obj o;
	ObjErr r = open_object(c, path, span_none, 1, &o);
	int fresh = r == OBJ_OK && !strcmp(o.hash, k.hash) && same_set(o.arches, o.narches, k.arches, k.narches);
	if (r != OBJ_MISSING && c->verbose && !fresh)
		fprintf(c->err, "plkc: rebuilding stale cached object %s\n", path);
	obj_fini(&o);
	if (!fresh && build(c, comp, cv, &k, path))
		path = NULL;
out:
	key_fini(&k);
	return path;
}
