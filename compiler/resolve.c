/* resolve.c: a root .plk file and everything it imports.
 *
 *   use "x.plk"          a declaration file: searched relative to the file
 *                        that names it, then in each -I directory, then
 *                        among the standard components (Ctx.components_dir)
 *   use object "x.o"     a component object: its contract is read from the
 *                        object's .plk.contract section (object.c)
 *
 * Files are identified by their real path, so a file imported along two
 * paths is loaded once; a file imported while it is still being resolved
 * closes a cycle. Every component name is declared once in a program; the
 * one exception is an object beside the declaration it was built from,
 * which must match it (else the object is stale). Imports nest at most
 * PLK_MAX_IMPORT_DEPTH files deep (E0218), and names are looked up in hash
 * tables: any input costs time and stack in proportion to its size. */
#include <errno.h>
#include <limits.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <sys/stat.h>
#include "plk.h"

enum { ST_ACTIVE = 1, ST_DONE = 2 };

typedef struct File {
	const char *real;        /* realpath: identity */
	const char *path;        /* as opened: for messages */
	int state;
	const Use *via;          /* the `use` that first named it; NULL: root */
	int via_src;             /* source that holds `via` */
	Module *mod;             /* .plk files */
	Component *comp;         /* objects */
} File;

/* Where each component came from, for duplicate reports. */
typedef struct Origin {
	Component *comp;
	Span at;                 /* the name in a declaration, or the `use object` */
	int from_object;
} Origin;

typedef struct Resolver {
	Ctx *c;
	Program *p;
	Vec files;               /* File* */
	NameMap by_real;         /* File*, by File.real */
	NameMap origins;         /* Origin*, by component name */
	int depth;               /* files being resolved, one inside the other */
} Resolver;

/* Something is there: a file that cannot be read gets its own error
 * when it is loaded (E0217 for a FIFO or a device), not "not found". */
static int is_file(const char *p)
{
	struct stat st;
	return stat(p, &st) == 0 && !S_ISDIR(st.st_mode);
}

static const char *dir_of(Ctx *c, const char *path)
{
	const char *sl = strrchr(path, '/');
	if (!sl)
		return NULL;
	return arena_strndup(c->arena, path, sl == path ? 1 : (size_t)(sl - path));
}

/* dir/name with `x/..` and `.` folded away, so that diagnostics show
 * `components/hopper/x.plk`, not `examples/../components/hopper/x.plk`.
 * A leading `..` stays: it may leave the working directory. */
static const char *join(Ctx *c, const char *dir, const char *name)
{
	if (!dir || name[0] == '/')
		return name;
	char *full = arena_printf(c->arena, "%s/%s", dir, name);
	char *out = arena_alloc(c->arena, strlen(full) + 2), *o = out;
	int abs = full[0] == '/', depth = 0;   /* components that `..` may pop */
	for (char *seg = full; *seg;) {
		char *end = strchr(seg, '/');
		size_t n = end ? (size_t)(end - seg) : strlen(seg);
		if (n == 0 || (n == 1 && seg[0] == '.')) {
			/* skip */
		} else if (n == 2 && seg[0] == '.' && seg[1] == '.' && depth > 0) {
			while (o > out && *--o != '/')
				;
			if (o == out && !abs)
				*o = 0;
			depth--;
		} else {
			if (o > out || abs)
				*o++ = '/';
			memcpy(o, seg, n);
			o += n;
			if (!(n == 2 && seg[0] == '.' && seg[1] == '.'))
				depth++;
		}
		*o = 0;
		seg += n + (end != NULL);
	}
	return out[0] ? out : ".";
}

/* The file a `use` names: beside the including file, then in each -I
 * directory. On failure, reports E0201 with every path tried. */
static const char *find(Resolver *r, const Use *u, int src)
{
	Ctx *c = r->c;
	Vec tried = { 0 };
	const char *p = join(c, dir_of(c, c->srcs[src]->path), u->path);
	vec_push(c->arena, &tried, (void *)p);
	if (is_file(p))
		return p;
	for (int i = 0; u->path[0] != '/' && i <= c->include_dirs.n; i++) {
		const char *dir = i < c->include_dirs.n ? c->include_dirs.v[i] : c->components_dir;
		if (!dir)
			continue;
		p = join(c, dir, u->path);
		vec_push(c->arena, &tried, (void *)p);
		if (is_file(p))
			return p;
	}
	Diag *d = diag_new(c, DIAG_ERROR, "E0201", u->path_sp, "cannot find %s `%s`",
		u->object ? "object" : "file", u->path);
	diag_label(d, u->path_sp, "not found");
	const char *t = "";
	for (int i = 0; i < tried.n; i++)
		t = arena_printf(c->arena, "%s%s%s", t, i ? ", " : "", (char *)tried.v[i]);
	diag_note(d, "tried: %s", t);
	if (u->object)
		diag_help(d, "build it with `plkc -c COMPONENT.plk -o %s`, or add its directory with `-I DIR`", u->path);
	else
		diag_help(d, "paths are relative to the file that has the `use`; add a search directory with `-I DIR`");
	if (!c->components_dir && u->path[0] != '/')
		diag_note(d, "PipeLink's standard components were not found: set PLK_HOME (PREFIX/share/pipelink)");
	diag_end(c, d);
	return NULL;
}

static File *file_by_real(Resolver *r, const char *real)
{
	return namemap_get(&r->by_real, real);
}

static File *file_new(Resolver *r, const char *path, const char *real, const Use *via, int via_src)
{
	File *f = arena_alloc(r->c->arena, sizeof *f);
	f->path = path;
	f->real = arena_strdup(r->c->arena, real);
	f->via = via;
	f->via_src = via_src;
	vec_push(r->c->arena, &r->files, f);
	namemap_put(r->c->arena, &r->by_real, f->real, f);
	return f;
}

/* "a.plk -> b.plk -> a.plk": the chain of active imports from f. */
static const char *chain(Resolver *r, const File *f, const char *last)
{
	const char *s = last;
	for (int i = r->files.n - 1; i >= 0; i--) {
		const File *g = r->files.v[i];
		if (g->state == ST_ACTIVE) {
			s = arena_printf(r->c->arena, "%s -> %s", g->path, s);
			if (g == f)
				break;
		}
	}
	return s;
}

/* `engine NAME`: one of engine.c's, decided here for every later stage */
static void find_engine(Ctx *c, Component *comp)
{
	if (!comp->engine || (comp->eng = engine_lookup(comp->engine)))
		return;
	Diag *d = diag_new(c, DIAG_ERROR, "E0380", comp->engine_sp, "unknown communication engine `%s`", comp->engine);
	d->primary.msg = "not an engine plkc links";
	diag_note(d, "the engines: %s", engine_names(c));
	diag_help(d, "a component calls an existing engine's device API: name one of them (docs/comm.md)");
	diag_end(c, d);
}

/* The param NAMES[i] names, or NULL; *again: NAMES names it before i */
static const Param *named_param(const Component *comp, const Vec *names, int i, int *again)
{
	const Feature *e = names->v[i];
	*again = 0;
	for (int j = 0; j < i; j++)
		*again |= !strcmp(((const Feature *)names->v[j])->name, e->name);
	for (int j = 0; j < comp->params.n; j++)
		if (!strcmp(((const Param *)comp->params.v[j])->name, e->name))
			return comp->params.v[j];
	return NULL;
}

/* A list of a component's params (`early`, `zeroed`): what each name
 * must be, and the words of its error. */
typedef struct {
	const char *item, *code;
	int (*ok)(const Param *p);
	const char *want;           /* "a `ptr<const T>`" */
	const char *label;          /* the primary label on a param of the wrong type */
	const char *note, *help;    /* the note; the help for a param of the wrong type */
} NameList;

static int early_ok(const Param *p) { return p->ty->k == TY_PTR && p->ty->readonly; }

static int zeroed_ok(const Param *p)
{
	return p->ty->k == TY_PTR && !p->ty->readonly && (!strcmp(p->ty->dtype, "u32") || !strcmp(p->ty->dtype, "i32"));
}

/* `early p, ...`: each a `ptr<const T>` param (E0381); a megakernel
 * holds the tensors behind them to it (mega.c, E0382). */
static const NameList EARLY = {
	"early", "E0381", early_ok, "a `ptr<const T>`", "read early, so read only",
	"`early` lists the pointer params a component reads before it calls plk_wait_inputs: "
	"memory that no earlier op of a megakernel writes",
	"list only `ptr<const T>` params; scalars are passed, not read",
};

/* `zeroed p, ...`: each a `ptr<u32>` or `ptr<i32>` param, counters the
 * component adds to and leaves zero (E0384); a megakernel binds them to
 * buffers it zeroes (mega.c, E0383). */
static const NameList ZEROED = {
	"zeroed", "E0384", zeroed_ok, "a `ptr<u32>` or `ptr<i32>`", "a counter: `ptr<u32>` or `ptr<i32>`",
	"`zeroed` lists the counters a component adds to: zero when the kernel starts, and zero again when "
	"it ends (the component resets what it counted)",
	"declare the param `ptr<u32>` (or `ptr<i32>`), or leave it out of `zeroed`",
};

/* Each name of NAMES a param of the component of L's kind, named once. */
static void check_names(Ctx *c, const Component *comp, const Vec *names, const NameList *l)
{
	for (int i = 0; i < names->n; i++) {
		const Feature *e = names->v[i];
		int again;
		const Param *p = named_param(comp, names, i, &again);
		if (p && l->ok(p) && !again)
			continue;
		Diag *d = again ? diag_new(c, DIAG_ERROR, l->code, e->sp, "`%s` is named twice in `%s` of component `%s`",
		                           e->name, l->item, comp->name)
		        : !p    ? diag_new(c, DIAG_ERROR, l->code, e->sp, "`%s` names `%s`, which is not a param of "
		                           "component `%s`", l->item, e->name, comp->name)
		                : diag_new(c, DIAG_ERROR, l->code, e->sp, "`%s` names `%s` of component `%s`, which is "
		                           "not %s", l->item, e->name, comp->name, l->want);
		d->primary.msg = again ? "named again" : !p ? "no such param" : l->label;
		if (p && !again)
			diag_label(d, p->sp, "declared here");
		diag_note(d, "%s", l->note);
		diag_help(d, "%s", again ? "name it once" : !p ? "name a `param` of the component, or declare it" : l->help);
		diag_end(c, d);
		return;
	}
}

/* E0220: a name the generated header would declare twice. The entry's
 * arguments (its params, ports and kept registers, after `inst`; `tile_m`, `tile_n`,
 * `k_first`, `k_count` after them) are C parameters of those names, the
 * constants macros, and the buffers' and barriers' ids enum names of
 * their kind: one of each name, or the header does not compile. */
static void check_decl_names(Ctx *c, const Component *comp)
{
	static const char *const fixed[] = { "inst", "tile_m", "tile_n", "k_first", "k_count" };
	struct { const Vec *v; size_t name_at, sp_at; int group; const char *what; } kinds[] = {
		{ &comp->params, offsetof(Param, name), offsetof(Param, sp), 0, "param" },
		{ &comp->ports, offsetof(Port, name), offsetof(Port, sp), 0, "port" },
		{ &comp->keeps, offsetof(Keep, name), offsetof(Keep, sp), 0, "kept register array (`regs NAME`)" },
		{ &comp->cparams, offsetof(CParam, name), offsetof(CParam, sp), 1, "constant" },
		{ &comp->smem, offsetof(Smem, name), offsetof(Smem, sp), 2, "buffer" },
		{ &comp->barriers, offsetof(Barrier, name), offsetof(Barrier, sp), 3, "barrier" },
	};
	enum { NK = sizeof kinds / sizeof kinds[0] };
	for (int a = 0; a < NK; a++)
		for (int i = 0; i < kinds[a].v->n; i++) {
			const char *x = kinds[a].v->v[i];
			const char *name = *(const char *const *)(x + kinds[a].name_at);
			Span sp = *(const Span *)(x + kinds[a].sp_at);
			const char *other = NULL;
			Span osp = span_none;
			for (int f = 0; kinds[a].group == 0 && f < (int)(sizeof fixed / sizeof *fixed); f++)
				if (!strcmp(name, fixed[f]))
					other = "an argument the glue passes";
			for (int b = 0; !other && b <= a; b++)
				for (int j = 0; !other && j < (b < a ? kinds[b].v->n : i); j++) {
					const char *y = kinds[b].v->v[j];
					if (kinds[b].group == kinds[a].group && !strcmp(name, *(const char *const *)(y + kinds[b].name_at)))
						other = kinds[b].what, osp = *(const Span *)(y + kinds[b].sp_at);
				}
			if (!other)
				continue;
			Diag *d = osp.src >= 0 ? diag_new(c, DIAG_ERROR, "E0220", sp, "`%s` is declared twice in component `%s`",
			                                  name, comp->name)
			                       : diag_new(c, DIAG_ERROR, "E0220", sp, "`%s` of component `%s` is named after "
			                                  "an argument of its entry", name, comp->name);
			d->primary.msg = arena_printf(c->arena, "this %s", kinds[a].what);
			if (osp.src >= 0)
				diag_label(d, osp, "a %s of the same name", other);
			else
				diag_note(d, "`%s` is %s: the entry's `int %s`", name, other, name);
			diag_note(d, "the component's header declares %s", kinds[a].group == 0 ? "params, ports and kept registers as "
			          "the entry's arguments"
			          : kinds[a].group == 1 ? "each constant as a macro" : "ids of one enum, one per name");
			diag_help(d, "rename one of them");
			diag_end(c, d);
			return;
		}
}

static void add_component(Resolver *r, Component *comp, Span at, const Use *objuse)
{
	int from_object = objuse != NULL;
	Ctx *c = r->c;
	find_engine(c, comp);
	check_names(c, comp, &comp->early, &EARLY);
	check_names(c, comp, &comp->zeroed, &ZEROED);
	check_decl_names(c, comp);
	Origin *o = namemap_get(&r->origins, comp->name);
	if (o && o->from_object != from_object) {
		/* An object beside its declaration: the object stands for it
		 * when it was built from the declaration as it is now. */
		Component *dc = from_object ? o->comp : comp, *oc = from_object ? comp : o->comp;
		Span oat = from_object ? at : o->at;
		if (object_matches(c, dc, oc, oat) == 0) {
			for (int j = 0; j < r->p->comps.n; j++)
				if (r->p->comps.v[j] == dc) {
					r->p->comps.v[j] = oc;
					if (objuse)
						r->p->objuses.v[j] = (void *)objuse;
				}
			oc->decl = dc;      /* other constants are built from its source */
			o->comp = oc;
			o->at = oat;
			o->from_object = 1;
		}
		return;
	}
	if (o) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0203", at, "component `%s` is declared twice", comp->name);
		diag_label(d, at, "declared again here");
		diag_label(d, o->at, "first declared here");
		diag_help(d, "a program holds one component of each name: rename one, or import only one of them");
		diag_end(c, d);
		return;
	}
	o = arena_alloc(c->arena, sizeof *o);
	o->comp = comp;
	o->at = at;
	o->from_object = from_object;
	namemap_put(c->arena, &r->origins, comp->name, o);
	vec_push(c->arena, &r->p->comps, comp);
	vec_push(c->arena, &r->p->objuses, (void *)objuse);
}

static void resolve_file(Resolver *r, File *f, int src);

static void resolve_use(Resolver *r, const Use *u, int src)
{
	Ctx *c = r->c;
	const char *path = find(r, u, src);
	if (!path)
		return;
	char *real = realpath(path, NULL);     /* malloc'd: nothing big on a stack that recursion deepens */
	if (!real) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0201", u->path_sp, "cannot open `%s`", path);
		diag_note(d, "%s", strerror(errno));
		diag_end(c, d);
		return;
	}
	/* Objects and declarations are told apart even for one path, so that
	 * a file imported as the wrong kind gets its own error, not a cycle. */
	const char *key = arena_printf(c->arena, "%s%s", u->object ? "object:" : "", real);
	free(real);
	File *f = file_by_real(r, key);
	if (f && f->state == ST_ACTIVE) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0202", u->path_sp, "import cycle: `%s` imports itself through its imports", f->path);
		diag_label(d, u->path_sp, "closes the cycle");
		const File *next = NULL;         /* the first import on the cycle */
		for (int i = r->files.n - 1; i >= 0 && r->files.v[i] != f; i--) {
			const File *g = r->files.v[i];
			if (g->state == ST_ACTIVE)
				next = g;
		}
		if (next && next->via)
			diag_label(d, next->via->path_sp, "the cycle starts here: `%s` imports `%s`", f->path, next->path);
		diag_note(d, "the cycle: %s", chain(r, f, f->path));
		diag_help(d, "move what both files need into a third file that each imports");
		diag_end(c, d);
		return;
	}
	if (f)                          /* reached along another path: loaded once */
		return;
	f = file_new(r, path, key, u, src);
	if (u->object) {
		f->state = ST_DONE;
		f->comp = object_read_contract(c, path, u->path_sp);
		if (f->comp)
			add_component(r, f->comp, u->path_sp, u);
		return;
	}
	if (r->depth >= PLK_MAX_IMPORT_DEPTH) {
		f->state = ST_DONE;
		Diag *d = diag_new(c, DIAG_ERROR, "E0218", u->path_sp, "imports nest more than %d files deep",
			PLK_MAX_IMPORT_DEPTH);
		diag_label(d, u->path_sp, "one import too many");
		const File *root = r->files.v[0];
		diag_note(d, "`%s` imports a file that imports a file ... %d times over, down to `%s`", root->path,
			PLK_MAX_IMPORT_DEPTH, path);
		diag_help(d, "import the files a recipe needs from the recipe itself, side by side, not each from the last");
		diag_end(c, d);
		return;
	}
	int s = ctx_load_file(c, path, u->path_sp);
	if (s < 0)
		return;
	const Source *sf = c->srcs[s];
	if (sf->len >= 4 && !memcmp(sf->text, "\177ELF", 4)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0212", u->path_sp, "`%s` is an object file, not a .plk declaration", u->path);
		diag_label(d, u->path_sp, "imported as a declaration");
		diag_help(d, "import a component object with `use object \"%s\"`", u->path);
		diag_end(c, d);
		f->state = ST_DONE;
		return;
	}
	resolve_file(r, f, s);
}

static void resolve_file(Resolver *r, File *f, int src)
{
	Ctx *c = r->c;
	f->state = ST_ACTIVE;
	r->depth++;
	Module *m = parse_source(c, src);
	f->mod = m;
	if (m) {
		vec_push(c->arena, &r->p->modules, m);
		for (int i = 0; i < m->uses.n; i++)
			resolve_use(r, m->uses.v[i], src);
		for (int i = 0; i < m->comps.n; i++) {
			Component *comp = m->comps.v[i];
			if (!comp->file)
				comp->file = c->srcs[src]->path;
			add_component(r, comp, comp->name_sp, NULL);
		}
	}
	r->depth--;
	f->state = ST_DONE;
}

int is_stdin_path(const char *path)
{
	return path && (!strcmp(path, "-") || !strcmp(path, "/dev/stdin"));
}

int ctx_load_input(Ctx *c, const char *path)
{
	if (!is_stdin_path(path))
		return ctx_load_file(c, path, span_none);
	size_t len;
	char *buf = sys_read_stream(stdin, PLK_MAX_TEXT + 1, &len);   /* one byte more: too large */
	if (!buf) {
		error_at(c, "E0601", span_none, "cannot read the standard input");
		return -1;
	}
	if (len > PLK_MAX_TEXT) {
		free(buf);
		Diag *d = diag_new(c, DIAG_ERROR, "E0217", span_none, "the standard input is too large");
		diag_note(d, "plkc reads at most %zu MiB of a .plk file", PLK_MAX_TEXT >> 20);
		diag_end(c, d);
		return -1;
	}
	int id = ctx_add_source(c, "<stdin>", buf, len);
	free(buf);
	return id;
}

Program *resolve(Ctx *c, const char *root)
{
	int before = c->nerrors;
	Resolver r = { 0 };
	r.c = c;
	r.p = arena_alloc(c->arena, sizeof(Program));
	char real[PATH_MAX];
	if (is_stdin_path(root))    /* `use` paths are then relative to the working directory */
		snprintf(real, sizeof real, "<stdin>");
	else if (!is_file(root) || !realpath(root, real)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0201", span_none, "cannot find `%s`, given on the command line", root);
		diag_note(d, "tried: %s", root);
		diag_help(d, "give the path of a .plk file, relative to the current directory");
		diag_end(c, d);
		return NULL;
	}
	int src = ctx_load_input(c, root);
	if (src < 0)
		return NULL;
	File *f = file_new(&r, c->srcs[src]->path, real, NULL, -1);
	resolve_file(&r, f, src);
	if (f->mod) {
		for (int i = 0; i < f->mod->kernels.n; i++)
			vec_push(c->arena, &r.p->kernels, f->mod->kernels.v[i]);
		for (int i = 0; i < f->mod->selects.n; i++)
			vec_push(c->arena, &r.p->selects, f->mod->selects.v[i]);
		for (int i = 0; i < f->mod->megas.n; i++)
			vec_push(c->arena, &r.p->megas, f->mod->megas.v[i]);
	}
	for (int i = 0; i < r.p->comps.n; i++) {
		Component *comp = r.p->comps.v[i];
		namemap_put(c->arena, &r.p->by_name, comp->name, comp);
	}
	return c->nerrors == before ? r.p : NULL;
}

const Component *program_component(const Program *p, const char *name)
{
	if (p && p->by_name.n)
		return namemap_get(&p->by_name, name);
	for (int i = 0; p && i < p->comps.n; i++) {
		const Component *comp = p->comps.v[i];
		if (!strcmp(comp->name, name))
			return comp;
	}
	return NULL;
}

int program_check_arch(Ctx *c, const Program *p, const ArchInfo *arch)
{
	int bad = 0;
	for (int i = 0; i < p->comps.n; i++) {
		const Component *comp = p->comps.v[i];
		const Use *u = p->objuses.v[i];
		if (comp->object)
			bad |= object_check_arch(c, comp->object, arch, u ? u->path_sp : span_none) != 0;
	}
	return bad ? -1 : 0;
}
