/* engine.c: the communication engines a component may call (`engine
 * NAME`, docs/comm.md): where each is installed, what its sources are
 * built with and what the link adds. One engine so far, NVSHMEM, its
 * device calls inlined so that LTO sees through them. The link adds a
 * small LTO object of what the runtime's nvshmemx_cumodule_init looks up
 * by name beside the state the headers define, or with --engine-lib the
 * device library, for calls the headers do not inline (link.c,
 * docs/comm.md). */
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include "plk.h"

static const Engine engines[] = {   /* Ctx.engine_home holds as many */
	{ "nvshmem", "NVSHMEM_HOME", "include/nvshmem.h", "nvidia.nvshmem", "nvidia-nvshmem-cu13",
	  "-DNVSHMEM_ENABLE_ALL_DEVICE_INLINING", "lib/libnvshmem_device.a", "include/non_abi/nvshmem_version.h",
	  /* What nvshmemx_cumodule_init looks up in a module beside the device
	   * state the headers define: the device library's version, checked
	   * against the host's (the headers define it only outside -rdc, as
	   * here). The transports' states (IBGDA, GPUNetIO) it may do without,
	   * as in a module built without -rdc. */
	  "#include <nvshmem.h>\n"
	  "__constant__ nvshmemi_version_t nvshmemi_device_lib_version_d = {\n"
	  "\tNVSHMEM_VENDOR_MAJOR_VERSION, NVSHMEM_VENDOR_MINOR_VERSION, NVSHMEM_VENDOR_PATCH_VERSION};\n",
	  "nvshmemi_device_lib_version_d" },
};

const Engine *engine_lookup(const char *name)
{
	for (size_t i = 0; i < sizeof engines / sizeof *engines; i++)
		if (!strcmp(engines[i].name, name))
			return &engines[i];
	return NULL;
}

const char *engine_names(Ctx *c)
{
	const char *all = "";
	for (size_t i = 0; i < sizeof engines / sizeof *engines; i++)
		all = arena_printf(c->arena, "%s%s`%s`", all, i ? ", " : "", engines[i].name);
	return all;
}

static int holds(Ctx *c, const char *home, const char *file)
{
	return access(arena_printf(c->arena, "%s/%s", home, file), R_OK) == 0;
}

/* $HOME_ENV when set (it must hold the probe), else where Python finds
 * the engine's wheel; NULL when neither. */
static const char *find_home(Ctx *c, const Engine *e, const char **tried)
{
	const char *env = getenv(e->home_env);
	if (env && *env) {
		*tried = arena_printf(c->arena, "%s=%s", e->home_env, env);
		return holds(c, env, e->probe) ? arena_strdup(c->arena, env) : NULL;
	}
	*tried = arena_printf(c->arena, "%s unset, and python3 finds no %s", e->home_env, e->module);
	const char *prog = arena_printf(c->arena, "import importlib.util as u; s = u.find_spec('%s'); "
	                                "print(s.submodule_search_locations[0] if s else '')", e->module);
	char *argv[] = { "python3", "-c", (char *)prog, NULL }, *out = NULL;
	const char *home = NULL;
	if (sys_run(argv, &out) == 0 && out) {
		out[strcspn(out, "\n")] = 0;
		if (*out && holds(c, out, e->probe))
			home = arena_strdup(c->arena, out);
		else if (*out)
			*tried = arena_printf(c->arena, "%s unset; python3 finds %s, which holds no %s", e->home_env, out, e->probe);
	}
	free(out);
	return home;
}

const char *engine_home(Ctx *c, const Engine *e, const char **tried)
{
	int i = (int)(e - engines);
	if (!c->engine_tried[i])
		c->engine_home[i] = find_home(c, e, &c->engine_tried[i]);
	*tried = c->engine_tried[i];
	return c->engine_home[i];
}

/* E0219: comp calls an engine that is not installed; once a run (every
 * component of the engine would say the same). */
void engine_missing(Ctx *c, const Component *comp, const char *tried)
{
	const Engine *e = comp->eng;
	if (c->engine_reported[e - engines]++)
		return;   /* the first said it; the caller fails all the same */
	Diag *d = diag_new(c, DIAG_ERROR, "E0219", comp->engine_sp.src >= 0 ? comp->engine_sp : comp->name_sp,
		"cannot find %s, which component `%s` calls", e->name, comp->name);
	diag_label(d, comp->engine_sp, "its engine");
	diag_note(d, "looked for %s: %s", e->probe, tried);
	diag_help(d, "install it (`pip install %s`) or set %s to the directory that holds %s",
	          e->pip, e->home_env, e->probe);
	diag_end(c, d);
}

/* The key of e's state object for arch: its source, flags and arch, the
 * toolkit, and where the engine is with the bytes of its version header
 * (another release, another object). */
static void state_key(Ctx *c, const Engine *e, const char *home, const char *arch, char key[65])
{
	Sha256 h;
	size_t n = 0;
	char *ver = sys_read_file(arena_printf(c->arena, "%s/%s", home, e->version_header), 1u << 20, &n);
	const char *tk = object_toolkit_version(c);
	sha256_init(&h);
	sha256_field(&h, "src", e->state_src, strlen(e->state_src));
	sha256_field(&h, "flags", e->flags, strlen(e->flags));
	sha256_field(&h, "arch", arch, strlen(arch));
	sha256_field(&h, "toolkit", tk ? tk : "", tk ? strlen(tk) : 0);
	sha256_field(&h, "home", home, strlen(home));
	sha256_field(&h, "version", ver ? ver : "", ver ? n : 0);
	sha256_hex(&h, key);
	free(ver);
}

/* A cache entry is a line "plkc-engine-state SHA256\n" and the object whose
 * sha256 that is. */
static const char STATE_TAG[] = "plkc-engine-state ";
enum { STATE_HEAD = sizeof STATE_TAG - 1 + 64 + 1 };   /* the tag, the hash, \n */

/* The object of the cache entry at path; NULL when missing or damaged
 * (then built again). */
static void *cached_state(Ctx *c, const char *path, size_t *n)
{
	size_t len = 0;
	char *f = sys_read_file(path, 64u << 20, &len), hash[65];
	void *obj = NULL;
	if (f && len > STATE_HEAD && !strncmp(f, STATE_TAG, sizeof STATE_TAG - 1) && f[STATE_HEAD - 1] == '\n') {
		sha256_of(f + STATE_HEAD, len - STATE_HEAD, hash);
		if (!memcmp(hash, f + sizeof STATE_TAG - 1, 64)) {   /* the hash the entry names */
			*n = len - STATE_HEAD;
			obj = arena_alloc(c->arena, *n);
			memcpy(obj, f + STATE_HEAD, *n);
		}
	}
	free(f);
	return obj;
}

/* e's state source, compiled for arch into an LTO object (nvcc -rdc
 * -dlto, the engine's flags and headers) in a temporary directory, or
 * taken from the object cache, where it is then kept. */
void *engine_state_object(Ctx *c, const Engine *e, const char *home, const char *arch, size_t *n, const char **why)
{
	char dir[4096], key[65];
	void *obj = NULL;
	char *log = NULL;
	const char *cdir = object_cache_dir(c), *cached = NULL;
	state_key(c, e, home, arch, key);
	if (cdir) {
		cached = arena_printf(c->arena, "%s/%s-state-%.16s.o", cdir, e->name, key);
		if ((obj = cached_state(c, cached, n)))
			return obj;
	}
	*why = "cannot make a temporary directory";
	if (sys_tmp_dir(dir, sizeof dir, "plkc-engine"))
		return NULL;
	const char *src = arena_printf(c->arena, "%s/%s_state.cu", dir, e->name);
	const char *out = arena_printf(c->arena, "%s/%s_state.o", dir, e->name);
	const char *nvcc = object_nvcc(c);
	const char *lto = arena_printf(c->arena, "arch=compute_%s,code=lto_%s", arch + 3, arch + 3);
	const char *inc = arena_printf(c->arena, "-I%s/include", home);
	char *argv[] = { (char *)nvcc, "-rdc=true", "-c", "-std=c++17", "-gencode", (char *)lto, (char *)inc,
	                 (char *)e->flags, "-o", (char *)out, (char *)src, NULL };
	if (sys_write_file(src, e->state_src, strlen(e->state_src))) {
		*why = arena_printf(c->arena, "cannot write %s", src);
	} else if (sys_run(argv, &log)) {
		*why = arena_printf(c->arena, "nvcc failed on its state source: %s", log ? log : "no output");
	} else {
		char *data = sys_read_file(out, 64u << 20, n);
		if (data) {
			obj = arena_alloc(c->arena, *n);
			memcpy(obj, data, *n);
			free(data);
		} else {
			*why = arena_printf(c->arena, "nvcc wrote no %s", out);
		}
	}
	free(log);
	sys_rmdir_files(dir);
	if (obj && cached && !sys_mkdirs(cdir)) {   /* a cache that cannot be written only costs time */
		char hash[65];
		sha256_of(obj, *n, hash);
		char *entry = arena_alloc(c->arena, STATE_HEAD + *n);
		snprintf(entry, STATE_HEAD + 1, "%s%s\n", STATE_TAG, hash);
		memcpy(entry + STATE_HEAD, obj, *n);
		const char *dst[] = { cached };
		const void *data[] = { entry };
		const size_t len[] = { STATE_HEAD + *n };
		int failed;
		sys_write_files(1, dst, data, len, &failed);
	}
	return obj;
}
