/* plk.h: the types every stage of plkc shares.
 *
 * Pipeline (one file per stage):
 *   lexer.re -> parser.y -> ast.c (dump) -> resolve.c (imports, objects)
 *   -> check.c (contracts, composition graph) -> place.c (placement)
 *   -> glue.c (LLVM IR) -> link.c (libNVVM + nvJitLink) -> manifest.c
 * Shared services: diag.c (diagnostics), arena.c (memory), stdlib.c
 * (dtypes, layouts, arch limits, generated from the .def files in stdlib/),
 * sys.c (processes, files: the OS layer), sha256.c.
 *
 * No global mutable state: every stage takes the Ctx it works in. */
#ifndef PLK_H
#define PLK_H

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include "../stdlib/hw.h"

#define PLK_VERSION "0.1.0"

/* ---------------------------------------------------------------- memory */

typedef struct Arena Arena;
Arena *arena_new(void);
void arena_free(Arena *a);
void *arena_alloc(Arena *a, size_t n);      /* zeroed, 16-byte aligned */
char *arena_strndup(Arena *a, const char *s, size_t n);
char *arena_strdup(Arena *a, const char *s);
char *arena_printf(Arena *a, const char *fmt, ...);

/* Vec: a growable array of pointers, allocated in an arena. */
typedef struct Vec {
	void **v;
	int n, cap;
} Vec;
void vec_push(Arena *a, Vec *v, void *p);

/* NameMap: names to pointers, a hash table in an arena, for lookups that
 * must stay linear in the number of names (duplicate declarations). Keys
 * are not copied. */
typedef struct NameMap {
	const char **keys;
	void **vals;
	int n, cap;
} NameMap;
void *namemap_get(const NameMap *m, const char *key);            /* NULL: absent */
void namemap_put(Arena *a, NameMap *m, const char *key, void *val);  /* replaces */

/* ------------------------------------------------------------- sources */

typedef struct Source {
	const char *path;   /* as given on the command line or in `use` */
	const char *text;   /* NUL-terminated copy of the file */
	size_t len;
} Source;

/* A half-open byte range [off, end) of one source, with the line and
 * column (1-based, columns count bytes) of both ends. */
typedef struct Span {
	int src;            /* index into Ctx.srcs; -1: no location */
	int off, end;
	int line, col;
	int eline, ecol;
} Span;

Span span_join(Span a, Span b);
extern const Span span_none;

/* ---------------------------------------------------------- diagnostics */

typedef enum { DIAG_ERROR, DIAG_WARNING, DIAG_NOTE } DiagLevel;
typedef enum { DIAGFMT_HUMAN, DIAGFMT_SHORT } DiagFormat;

typedef struct Label {
	Span sp;
	const char *msg;    /* may be NULL */
} Label;

/* One diagnostic under construction: diag_begin, then labels, notes and
 * helps, then diag_end prints it. */
enum { DIAG_LABELS = 8 };   /* secondary labels one diagnostic keeps */
typedef struct Diag {
	DiagLevel level;
	const char *code;   /* "E0101", or NULL */
	const char *msg;
	Label primary;
	Label secondary[DIAG_LABELS];
	int nsecondary;
	const char *notes[4];
	int nnotes;
	const char *helps[4];
	int nhelps;
} Diag;

typedef struct Ctx {
	Arena *arena;
	Source **srcs;
	int nsrcs, capsrcs;
	FILE *err;           /* where diagnostics go (stderr) */
	int color;           /* ANSI colour: only when err is a terminal */
	DiagFormat format;
	int nerrors, nwarnings;
	int max_errors;      /* stop reporting after this many (0: 20) */
	Vec codes;           /* const char*: the distinct codes of the errors shown, in order */
	Vec include_dirs;    /* char*: -I directories: for `use`, and for nvcc in component builds */
	const char *stdlib_dir;
	const char *components_dir;  /* the standard components: last on both search paths */
	Vec cflags;          /* char*: -DNAME=VALUE and -Xnvcc arguments for component builds */
	Vec deps;            /* char*: files a build read beyond the .plk sources (-MD) */
	const char *cache_dir;   /* component object cache */
	Vec current;             /* deps.c's Known*: the cached objects this run found or made current */
	Vec hashed;              /* deps.c's Known*: the files this run hashed, as they were */
	const char *toolkit;     /* object_toolkit_version's answer (toolkit_asked: once asked) */
	int toolkit_asked;
	int verbose;
	int jobs;                /* -j: component builds at once (0: the processors online) */
	int warn_spills;         /* --warn-spills: a warning where ptxas spills registers */
	int timing;              /* --time: stage times on stderr */
	int engine_lib;          /* --engine-lib: the engines' device libraries in the link */
	const char *engine_home[1], *engine_tried[1];   /* engine.c's finds, by engine, once each */
	int engine_reported[1];                          /* its E0219 shown (once a run) */
} Ctx;

void ctx_init(Ctx *c, FILE *err);
void ctx_fini(Ctx *c);
int  ctx_add_source(Ctx *c, const char *path, const char *text, size_t len);
int  ctx_load_file(Ctx *c, const char *path, Span from); /* -1 on error (reported) */
/* E0217 when err (sys_read_file's errno) says that path is no regular file
 * or is over max bytes: 1; 0 for any other err (the caller reports it).
 * `what` names the input: "input", "object", "the source of `x`". */
int  input_refused(Ctx *c, Span from, const char *what, const char *path, int err, size_t max);

/* --time: seconds since an arbitrary start; ctx_time prints
 * "time: WHAT N ms" since t0 when c->timing is set. */
double plk_clock(void);
void ctx_time(Ctx *c, const char *what, double t0);

Diag *diag_new(Ctx *c, DiagLevel lv, const char *code, Span sp, const char *fmt, ...);
void  diag_label(Diag *d, Span sp, const char *fmt, ...);   /* secondary */
void  diag_note(Diag *d, const char *fmt, ...);
void  diag_help(Diag *d, const char *fmt, ...);
void  diag_end(Ctx *c, Diag *d);                            /* prints it */
/* Shorthand: one error with a single label. */
void  error_at(Ctx *c, const char *code, Span sp, const char *fmt, ...);
/* rustc's footer after a failing run (human format only): `plkc --explain`
 * for the code shown, or the list of the codes shown and the first one. */
void  diag_footer(Ctx *c);

/* plkc --explain: docs/errors/EXXXX.md on out, 0 when found; else what
 * is wrong with code on err, 1. */
int explain(FILE *out, FILE *err, const char *docs_dir, const char *code);

/* -------------------------------------------------------------- system
 * sys.c: the OS layer; it reports nothing. Failure is NULL or -1 with
 * errno set (not by sys_run). Text it returns is malloc'd and NUL-ended. */

/* errno of sys_read_file for a FIFO, device or socket (sys_strerror says so) */
enum { SYS_ENOTREG = 0x10001 };
/* The largest input of each kind plkc reads (E0217 beyond). */
#define PLK_MAX_TEXT   ((size_t)16 << 20)   /* .plk files, CUDA sources, dependency lists */
#define PLK_MAX_OBJECT ((size_t)64 << 20)   /* component objects, cache entries */

/* argv, no shell: exit status, 128 + N for signal N, -1 if it did not start;
 * its stdout and stderr go to *log (the first MiB), or with log NULL to ours. */
int sys_run(char *const argv[], char **log);
int sys_run_in(const char *dir, char *const argv[], char **log);  /* in directory dir */
/* argv started in dir (NULL: here), its stdout and stderr to the file
 * log (an absolute path; made or emptied), not waited for: 0 and *pid,
 * else -1 (errno); sys_wait(pid) then gives its exit status as sys_run,
 * or -1. For several tools at once (object_prebuild). */
int sys_spawn_in(const char *dir, char *const argv[], const char *log, long *pid);
int sys_wait(long pid);
/* A whole regular file of at most max bytes; else NULL with errno EISDIR,
 * SYS_ENOTREG or EFBIG (or open's). Never blocks on a FIFO. */
char *sys_read_file(const char *path, size_t max, size_t *len);
char *sys_read_stream(FILE *f, size_t max, size_t *len);         /* the rest of f; past max dropped */
const char *sys_strerror(int err);                               /* strerror, and SYS_ENOTREG */
int sys_write_file(const char *path, const void *data, size_t n); /* 0 ok */
/* A new empty file named PREFIX and six random characters, in path[n]; 0 ok. */
int sys_tmp_file(char *path, size_t n, const char *prefix);
int sys_tmp_dir(char *path, size_t n, const char *prefix);       /* likewise, a directory */
/* A new directory beside target for what will replace it, named
 * .BASE.tmp.PID.XXXXXX, in path[n]; 0 ok. */
int sys_tmp_beside(char *path, size_t n, const char *target);
int sys_rmdir_files(const char *dir);       /* dir and the files in it; 0 ok */
/* Removes the temporaries (sys_tmp_beside) in dir of processes that are
 * gone, and any a day old; base: only those for that file name (NULL: any,
 * also older names with ".tmp" a day old). */
void sys_sweep(const char *dir, const char *base);
/* Renames tmp[i] to dst[i], all or none: on a failure (a directory in the
 * way) the files renamed so far are put back. *failed: the index. 0 ok. */
int sys_commit(const char *const tmp[], const char *const dst[], int n, int *failed);
/* data[i] to dst[i] under temporaries beside them, then sys_commit; a dst
 * that is a device or FIFO (/dev/null) is written as it is. 0 ok. */
int sys_write_files(int n, const char *const dst[], const void *const data[], const size_t len[], int *failed);
int sys_same_file(const char *a, const char *b);                 /* both name one existing file */
int sys_mkdirs(const char *path);                                /* mkdir -p; 0 ok */
int sys_exe_path(char *path, size_t n);                          /* the running binary; 0 ok */
const char *sys_cuda_home(void);                                 /* $CUDA_HOME, else the build's */
/* PipeLink's data directory (stdlib/, components/, docs/errors/) in
 * path[n]: $PLK_HOME, else found from the running binary: PREFIX/bin/plkc
 * -> PREFIX/share/pipelink; build/plkc (and build/san/plkc, build/unit/x)
 * in the source tree -> the tree. 0 ok; -1 none found. */
int sys_home(char *path, size_t n);

/* ------------------------------------------------------------- engines
 * engine.c: the communication engines a component may call (`engine
 * NAME`, docs/comm.md). */
typedef struct Engine {
	const char *name;        /* as `engine NAME` says it */
	const char *home_env;    /* the variable naming its install directory */
	const char *probe;       /* a file that directory holds */
	const char *module;      /* the Python package of its wheel, else */
	const char *pip;         /* the package that installs it */
	const char *flags;       /* nvcc flags its callers are built with */
	const char *device_lib;  /* under its home: what --engine-lib links */
	const char *version_header;  /* under its home: names its release */
	const char *state_src;   /* CUDA source of the device state its host looks
	                          * up by name, linked in place of the library */
	const char *state_var;   /* the variable it defines */
} Engine;
const Engine *engine_lookup(const char *name);   /* NULL: not one */
const char *engine_names(Ctx *c);                /* the known ones, for a message */
/* Its install directory, NULL when not found; *tried says where it looked. */
const char *engine_home(Ctx *c, const Engine *e, const char **tried);
struct Component;
void engine_missing(Ctx *c, const struct Component *comp, const char *tried);   /* E0219 */
/* e->state_src built for arch ("sm_90a") with the engine installed at
 * home into an LTO object, in the arena (and the object cache); NULL and
 * *why when nvcc fails. */
void *engine_state_object(Ctx *c, const Engine *e, const char *home, const char *arch, size_t *n, const char **why);

/* -------------------------------------------------------------- sha256
 * sha256.c: FIPS 180-4; the object cache's key, the contract's digest. */

typedef struct Sha256 {
	uint32_t h[8];
	uint64_t len;
	unsigned char buf[64];
	int nbuf;
} Sha256;
void sha256_init(Sha256 *s);
void sha256_add(Sha256 *s, const void *data, size_t n);
/* "TAG N\n", then the N bytes: no two lists of fields hash alike. */
void sha256_field(Sha256 *s, const char *tag, const void *data, size_t n);
void sha256_hex(Sha256 *s, char out[65]);            /* ends s: 64 hex digits */
void sha256_of(const void *data, size_t n, char out[65]);

/* ------------------------------------------------------------------ AST */

typedef enum {
	EX_NUM, EX_NAME, EX_BIN, EX_NEG, EX_CALL, EX_AUTO
} ExprKind;

/* The functions of expressions, decided once from the name where a call
 * is made (builtin_of); every stage switches on it. ceil_div(a, b) rounds
 * a / b toward +infinity whatever the signs, in the checker, the glue,
 * the monolith, the megakernel's entry and the runtime alike. */
typedef enum {
	FN_UNKNOWN, FN_CEIL_DIV, FN_MIN, FN_MAX
} Builtin;

Builtin builtin_of(const char *name);
const char *builtin_name(Builtin f);        /* NULL for FN_UNKNOWN */
const char *const *builtin_list(int *n);   /* their names, for suggestions */

typedef struct Expr {
	ExprKind k;
	Span sp;
	int64_t num;         /* EX_NUM */
	const char *name;    /* EX_NAME, EX_CALL (ceil_div, min, max) */
	Builtin fn;          /* EX_CALL: name's function (FN_UNKNOWN: E0324 where it is evaluated) */
	int op;              /* EX_BIN: '+', '-', '*', '/', '%' */
	int depth;           /* of the tree below; the parser caps it */
	struct Expr *a, *b;
	Vec args;            /* EX_CALL: Expr* */
} Expr;
/* 1: e calls a Builtin with its two arguments, which every stage
 * computes; any other call is E0324 (eval_expr reports it). */
int builtin_call(const Expr *e);
int expr_same(const Expr *a, const Expr *b);   /* the same tree (NULL only as NULL) */

typedef enum {
	TY_SCALAR,      /* bf16, i32, ...: a kernel scalar */
	TY_PTR,         /* ptr<dtype> */
	TY_TENSOR,      /* tensor<dtype>[dims]: recipe parameters only */
	TY_TENSORMAP,   /* tensormap<dtype, rank>[box] */
	TY_TILE,        /* tile<dtype, R x C, swizzle> in shared memory */
	TY_FRAG,        /* frag<dtype, R x C, layout> in registers */
	TY_BUNDLE,      /* { name: tile, ... }: several tiles per slot */
	TY_HOOK         /* hook KIND [<R x C>] [= BASE]: a function another component provides */
} TypeKind;

typedef struct Field Field;

typedef struct Type {
	TypeKind k;
	Span sp;
	const char *dtype;   /* not for TY_BUNDLE */
	Span dtype_sp;
	Expr *rank;          /* TY_TENSORMAP */
	int readonly;        /* TY_PTR: ptr<const T>, the kernel only reads it */
	Expr *rows, *cols;   /* TY_TILE, TY_FRAG */
	const char *layout;  /* swizzle (tile) or fragment layout (frag); NULL: default */
	Span layout_sp;
	Vec dims;            /* TY_TENSOR shape, TY_TENSORMAP box: Expr* */
	Vec fields;          /* TY_BUNDLE: Field* */
	const char *hook;    /* TY_HOOK: the kind (stdlib/hook.def); rows, cols: its index space */
	Span hook_sp;
	const char *base;    /* TY_HOOK of an `out hook`: its functions' base name; NULL for `in` */
	Span base_sp;
} Type;

struct Field {
	const char *name;
	Span sp;
	Type *ty;
};

/* component-level declarations */
typedef struct CParam {     /* compile-time constant: name [= default] */
	const char *name;
	Span sp;
	Expr *def;              /* may be NULL */
} CParam;

typedef enum { PORT_IN, PORT_OUT } PortDir;

typedef struct Port {       /* in/out NAME: TYPE [per COUNT] [handoff]; in/out hook NAME: KIND ... */
	PortDir dir;
	const char *name;
	Span sp;
	Type *ty;
	Expr *per;              /* tiles (slots) per work item; NULL: unsaid */
	int handoff;            /* the consumer passes its pingpong turn itself (plk_ring_handoff) */
	Span handoff_sp;
	int split;              /* walks a share of its `per` count: the entry takes
	                           (k_first, k_count) after tile_n (docs/abi.md, "Split") */
	Span split_sp;
	const char *merge;      /* how a frag's partials combine under a split: "sum"
	                           (NULL) or "softmax" (docs/language.md, "Split") */
	Span merge_sp;
	Expr *ahead;            /* `ahead [(COND)]`: the ring carries one work item past the
	                           block's last and a slot or more for every item, so that
	                           its consumer may read one item ahead (docs/language.md,
	                           "Reading ahead"); NULL: not */
	Span ahead_sp;
} Port;

typedef struct Keep {       /* regs NAME: WORDS (registers kept across the entry's calls) */
	const char *name;
	Span sp;
	Expr *words;            /* 32-bit words a thread */
} Keep;

typedef struct Param {      /* param NAME: TYPE  (a kernel parameter) */
	const char *name;
	Span sp;
	Type *ty;
} Param;

typedef struct Smem {       /* smem NAME: SIZE bytes [, align A] [, live PHASE] */
	const char *name;
	Span sp;
	Expr *size;
	Expr *align;            /* NULL: 128 */
	const char *live;       /* NULL: "all" */
	Span live_sp;
} Smem;

typedef struct Barrier {    /* barrier NAME [: THREADS] */
	const char *name;
	Span sp;
	Expr *threads;          /* NULL: the component's threads */
} Barrier;

typedef struct Feature {
	const char *name;
	Span sp;
} Feature;

/* `require LHS OP RHS` or `require LHS in { E, ... }`: a condition on the
 * component's cparams that every instance must meet (check_rules.c, E0353). */
typedef enum { REQ_EQ, REQ_NE, REQ_LT, REQ_LE, REQ_GT, REQ_GE, REQ_IN } ReqOp;
typedef struct Require {
	Expr *lhs, *rhs;        /* rhs: NULL for REQ_IN */
	ReqOp op;
	Vec set;                /* Expr*: the values REQ_IN allows */
	Span sp;
} Require;

typedef struct Component {
	const char *name;
	Span sp;                /* the whole declaration */
	Span name_sp;
	Vec cparams;            /* CParam* */
	const char *source;     /* CUDA source, relative to the .plk file */
	Span source_sp;
	const char *entry;
	Span entry_sp;
	const char *arch_min;   /* "sm_90" */
	Span arch_sp;
	Vec features;           /* Feature* */
	Expr *warps;            /* NULL: runs on its frag producer's warps */
	int warpgroups;         /* warps were given as `warpgroups N` */
	Expr *regs;             /* NULL: no setmaxnreg budget */
	Expr *cluster;          /* `cluster N`: the blocks per cluster it assumes; NULL: any;
	                           `cluster X x Y`: X, the cluster's tile rows */
	Expr *cluster_y;        /* `cluster X x Y`: Y, its tile columns; NULL: `cluster N` */
	Span cluster_sp;
	const char *engine;     /* `engine NAME`: the communication engine its code calls */
	Span engine_sp;
	const struct Engine *eng;   /* that engine, found by resolve; NULL: none */
	int prologue;           /* `prologue`: its entry is called once before the first work item */
	Span prologue_sp;
	Vec early;              /* Feature*: `early p, q`, the params it reads before it calls
	                         * plk_wait_inputs (checked by resolve, E0381); empty: it never calls it */
	Vec zeroed;             /* Feature*: `zeroed p`, params whose memory is zero when the kernel
	                         * starts and which the component leaves zero (resolve, E0384) */
	Vec params, ports, smem, barriers;
	Vec keeps;              /* Keep*: `regs NAME: WORDS`, after the ports in the entry */
	Vec requires;           /* Require*: conditions on the cparams */
	const char *file;       /* the .plk file that declared it */
	const char *object;     /* read back from this object's .plk.contract */
	const char *digest;     /* with object: its digest (obj_digest) */
	const struct Component *decl;   /* an object beside its declaration: the declaration,
	                                 * which builds other constants from source */
} Component;

/* recipe-level declarations */
typedef struct KParam {     /* NAME: TYPE in a kernel's parameter list */
	const char *name;
	Span sp;
	Type *ty;
} KParam;

typedef struct Const {      /* const NAME = EXPR */
	const char *name;
	Span sp;
	Expr *val;
} Const;

typedef struct Arg {        /* NAME = EXPR in an instantiation */
	const char *name;
	Span sp;
	Expr *val;
} Arg;

typedef struct Inst {       /* NAME = COMPONENT(ARGS) */
	const char *name;
	Span sp, name_sp;
	const char *comp;
	Span comp_sp;
	Vec args;               /* Arg* */
} Inst;

typedef struct PortRef {
	const char *inst, *port;
	Span sp, inst_sp, port_sp;
} PortRef;

typedef struct Conn {       /* A.p -> B.q [stages = N | auto] */
	PortRef from, to;
	Span sp;
	Expr *stages;           /* NULL: default; EX_AUTO: solved */
	Vec attrs;              /* Arg*: other attributes, checked later */
} Conn;

typedef struct Policy {     /* grid persistent | tiles(E, E) | raster grouped(E) | cluster E x E */
	const char *name;       /* "persistent", "tiles", "raster", "cluster" */
	Span sp;
	const char *sub;        /* raster: "grouped", "row", "column" */
	Vec args;               /* Expr* */
} Policy;

typedef struct Kernel {
	const char *name;
	Span sp, name_sp;
	Vec params;             /* KParam* */
	Vec consts;             /* Const* */
	Vec policies;           /* Policy* */
	Vec insts;              /* Inst* */
	Vec conns;              /* Conn* */
	Vec requires;           /* Require*: `require COND, ...` over its shape symbols, consts and SMS,
	                           held at launch (a megakernel op's: at link) */
} Kernel;

/* A branch of a select: `when COND, ...: KERNEL` (every condition holds)
 * or `else: KERNEL` (conds empty, dflt set): the default, always last. */
typedef struct Branch {
	Vec conds;              /* Require*: over shape symbols, SMS and integers */
	int dflt;               /* `else` */
	const char *kernel;
	Span sp, kernel_sp;
} Branch;

/* `select NAME(PARAMS) { BRANCH ... }`: one kernel entry per variant
 * (a kernel of the same file taking the same parameters), linked into
 * one cubin; the runtime launches the first whose conditions hold. */
typedef struct Select {
	const char *name;
	Span sp, name_sp;
	Vec params;             /* KParam*: each variant's must be these */
	Vec branches;           /* Branch* */
} Select;

/* `megakernel NAME(PARAMS) { MITEM ... }` (docs/megakernel.md): ops, each
 * a kernel of the file bound to the megakernel's tensors, run in one
 * persistent kernel in an order their dataflow decides. */
typedef enum { MI_CONST, MI_BUFFER, MI_OP, MI_FOR, MI_GRID } MItemKind;

typedef struct OpArg {      /* NAME = EXPR | NAME = TENSOR[INDEX] */
	const char *name;
	Span sp;
	Expr *val;              /* a bare EX_NAME may name a tensor */
	Expr *index;            /* T[i]: one slice of T's first dimension; NULL: all */
} OpArg;

typedef struct MItem {
	MItemKind k;
	Span sp, name_sp;
	const char *name;       /* const, buffer, op: its name; for: the index */
	Expr *val;              /* const: the value; for: the count; grid blocks(N): N */
	Type *ty;               /* buffer */
	const char *kernel;     /* op: the kernel it runs */
	Span kernel_sp;
	Vec args;               /* op: OpArg* */
	Vec body;               /* for: MItem* */
} MItem;

typedef struct Mega {
	const char *name;
	Span sp, name_sp;
	Vec params;             /* KParam* */
	Vec items;              /* MItem*, in file order */
} Mega;

typedef struct Use {        /* use "file.plk" | use object "file.o" */
	const char *path;
	Span sp, path_sp;
	int object;
} Use;

typedef struct Module {
	const char *path;
	int src;
	Vec uses, comps, kernels;
	Vec selects;            /* Select* */
	Vec megas;              /* Mega* */
} Module;

/* parser.y: parse one loaded source; NULL only on an unusable file.
 * Syntax errors are reported and counted in c->nerrors; a module is
 * returned whenever the parser could recover. */
Module *parse_source(Ctx *c, int src);
/* ast.c: the --emit=ast dump used by the golden tests. */
void ast_dump(FILE *out, const Module *m);
void expr_print(FILE *out, const Expr *e);
/* e in the syntax the runtime evaluates (docs/manifest.md): fully
 * parenthesised, each name as name() prints it (a value, a symbol). */
typedef void (*NamePrint)(FILE *, const char *, const void *);
void expr_print_names(FILE *out, const Expr *e, NamePrint name, const void *ud);
void type_print(FILE *out, const Type *t);   /* as the recipe writes it: tensor<bf16>[M, K] */
/* a `require` condition; each expression printed by pe */
const char *req_op_text(ReqOp op);
void require_print(FILE *out, const Require *r, void (*pe)(FILE *, const Expr *));
void names_print(FILE *o, const char *lead, const Vec *names);   /* Feature*: "LEADa, b\n", or nothing */
/* e as a C expression (the component headers, the monolith): every
 * compound operand parenthesised, ceil_div/min/max spelled out with
 * eval.c's semantics, no casts, so the preprocessor can evaluate it too.
 * name(out, n, ud) prints a name; NULL prints it as it is. With nonneg
 * (a kernel's expression, the monolith) ceil_div is spelled as the glue
 * builds it, so that both builds compute it alike: (x + y - 1) / y where
 * nonneg(ud, x) and nonneg(ud, y) (graph_nonneg: >= 0 at every launch),
 * else q + 1 when the remainder is nonzero and of y's sign. */
void expr_print_c(FILE *out, const Expr *e, void (*name)(FILE *, const char *, const void *),
                  int (*nonneg)(const void *, const Expr *), const void *ud);

/* -------------------------------------------------------------- stdlib
 * the .def files in stdlib/ are the one source of truth for dtypes, layouts and
 * per-arch limits; stdlib.c turns them into these tables. */

enum {                      /* arch features: ArchInfo.features bits */
	FEAT_CP_ASYNC = 1 << 0, FEAT_MMA_SYNC = 1 << 1, FEAT_TMA = 1 << 2,
	FEAT_WGMMA = 1 << 3, FEAT_SETMAXNREG = 1 << 4, FEAT_CLUSTERS = 1 << 5,
	FEAT_TCGEN05 = 1 << 6, FEAT_TMEM = 1 << 7
};

typedef struct ArchInfo {
	const char *name;        /* "sm_90a" */
	int sm;                  /* 90 */
	int arch_specific;       /* the 'a' feature set */
	unsigned features;
	uint32_t smem_per_block; /* max dynamic shared memory per block, bytes */
	uint32_t smem_reserved;  /* bytes the system reserves per block */
	int regs_per_sm, regs_per_thread_max;
	int max_threads;
	int named_barriers;      /* 16: id 0 is __syncthreads */
	uint32_t tmem_columns;   /* sm_100: 512 */
} ArchInfo;

typedef struct DtypeInfo { const char *name; int bits; const char *ctype; } DtypeInfo;
typedef struct LayoutInfo {
	const char *name;        /* "sw128", "wgmma_acc" */
	int frag;                /* 1: register fragment layout; 0: smem swizzle */
	int align;               /* smem: required alignment of a tile */
	int swizzle_bytes;       /* smem: 0, 32, 64, 128 */
	int atom_rows, atom_cols;/* frag: R x C must be multiples of the atom */
	int atom_warps;          /* frag: warps that hold one atom (wgmma: 4) */
	const char *doc;
} LayoutInfo;
typedef struct FeatureInfo { unsigned bit; const char *name, *doc; } FeatureInfo;

/* Hook kinds (stdlib/hook.def): HK_<id>, and each kind's functions. */
enum {
#define PLK_HOOK_KIND(id, name, shaped, doc) HK_##id,
#include "../stdlib/hook.def"
	HK_NKINDS
};
typedef struct HookFnInfo {
	int kind;                /* HK_* */
	const char *suffix;      /* appended to the provider's base name: "_count", "" */
	const char *cret;        /* "int", "float" */
	const char *cargs;       /* "(int b, int h, int qb)" */
	const char *types;       /* one letter per argument: 'i' int, 'f' float */
	const char *dispatch;    /* the function consumers call; NULL: the glue calls it (tile_order) */
	const char *dflt;        /* returned unconnected: an integer or an argument's name */
} HookFnInfo;
typedef struct HookKind { int id; const char *name; int shaped; const char *doc; } HookKind;
const HookKind *hook_kind_lookup(const char *name);   /* NULL: unknown */
const HookKind *hook_kind_all(int *n);
const HookFnInfo *hook_fns(int kind, int *n);         /* the kind's functions, in table order */
/* The name a provider defines f under: its `out hook`'s BASE and f's suffix. */
const char *hook_fn_name(Ctx *c, const char *base, const HookFnInfo *f);
/* The name of argument i of f ("qb"), in buf[n]. */
const char *hook_arg_name(const HookFnInfo *f, int i, char *buf, size_t n);

const ArchInfo   *arch_lookup(const char *name);  /* "sm_90a", "sm_90" */
const ArchInfo   *arch_all(int *n);
const DtypeInfo  *dtype_lookup(const char *name);
const LayoutInfo *layout_lookup(const char *name);
const char *feature_name(unsigned bit);
unsigned feature_lookup(const char *name);        /* 0: unknown */
const DtypeInfo   *dtype_all(int *n);
const LayoutInfo  *layout_all(int *n);
const FeatureInfo *feature_all(int *n);

/* --------------------------------------------- checked composition graph
 * check.c builds it from a Kernel and the Components it names, with every
 * constant evaluated for one target arch. */

typedef enum { EDGE_RING, EDGE_REGS } EdgeKind;

typedef struct GField { const char *name; uint32_t bytes, align; int64_t rows, cols;
	const char *dtype, *layout;
	uint32_t off;            /* byte offset inside the slot (bundles) */
	Span sp; } GField;

typedef struct GPort {
	const char *name;
	int id;                  /* index among the component's ports */
	PortDir dir;
	const Port *decl;
	TypeKind k;              /* TY_TILE, TY_FRAG or TY_BUNDLE */
	Vec fields;              /* GField*: one for a tile, several for a bundle */
	uint32_t bytes;          /* slot bytes (tiles) or bytes per thread (frag) */
	struct GEdge *edge;
	/* TY_HOOK: its kind, its index space (shaped kinds: rows x cols over
	 * the instance's cparams) and, for an `in hook`, its connection */
	const HookKind *hook;
	int64_t hshape[2];
	struct GHook *hk;
	int ahead;               /* `ahead (COND)` with COND != 0 (check_ahead) */
} GPort;

/* Lifetime phases of a buffer (`live PHASE`): buffers whose masks are
 * disjoint may share space. live_name: the phase's name; live_all: the
 * names, in LIVE_* bit order, then "all" (for lookups and suggestions). */
enum { LIVE_PROLOGUE = 1, LIVE_MAINLOOP = 2, LIVE_EPILOGUE = 4, LIVE_ALL = 7 };
const char *live_name(unsigned mask);
const char *const *live_all(int *n);

typedef struct GBuf { const char *name; int id; uint32_t size, align;
	unsigned live;           /* LIVE_* mask */
	Span sp; } GBuf;
typedef struct GBar { const char *name; int id; int threads; Span sp; } GBar;

/* How a component's kernel parameter is fed. */
typedef struct GBind {
	const char *param;       /* the component's param name */
	const Param *decl;
	int kparam;              /* index into Graph.kparams; -1 with expr */
	const Expr *expr;        /* an integer scalar bound to `p = 2 * N`: names are
	                            kernel consts, shape symbols or scalar kernel
	                            params, evaluated at run time by the glue */
} GBind;

typedef struct GInst {
	const char *name;
	int id;
	const Inst *decl;
	const Component *comp;
	int64_t *cvals;          /* evaluated cparams, in declaration order */
	int nwarps;              /* 0: runs on its frag producer's warps */
	int regs;                /* 0: no setmaxnreg */
	unsigned features;
	int cluster;             /* `cluster N`: the blocks of a cluster it works with;
	                            N > 1: its ring slots reach all N (multicast) */
	Vec ports, bufs, bars, binds;  /* GPort*, GBuf*, GBar*, GBind* */
	const struct GBind **bind;     /* by the component's param index (graph_order_binds); NULL: unbound */
	int role;                /* set by check: index into Graph.roles; -1: none (hook providers) */
	int hooks;               /* a hook provider: its ports are all `out hook`s, it has no warps */
	/* link.c (link_decide): the object that defines its entry and the
	 * symbol the glue calls; NULL until decided (then comp->entry). A
	 * hook provider has no entry: sym is NULL, or the suffix its hooks'
	 * functions' names take in a renamed object (`__<8 hex>`). */
	const char *obj, *sym;
	/* check_split: its port of kind `split` (the entry takes k_first,
	 * k_count); after_reduce: it reads the sum of a split tile's partial
	 * accumulators, so runs on the tile's last split only */
	const struct GPort *split_port;
	int after_reduce;
	/* `regs NAME: WORDS`, in declaration order: 32-bit words a thread the
	 * glue keeps for the entry across its calls (0: a null pointer) */
	int *keep_words;
} GInst;

typedef struct GEdge {
	int id;
	EdgeKind kind;
	GInst *from, *to;
	GPort *fp, *tp;
	int stages;              /* 0: auto */
	uint32_t slot_bytes;
	Span sp;
	/* `pingpong = N` (rings): the consumer's role runs as N lanes that
	 * take the work items in turn, each stage going to one lane; per is
	 * then the slots per work item in kernel terms (the contract's `per`
	 * with the consumer's constants and bindings substituted), which a
	 * lane skips for each item another lane takes. */
	int lanes;               /* 1: no pingpong */
	Expr *per;
	Span lanes_sp;
	/* check_split, `grid split(S)`: a frag from a split producer to a
	 * consumer that is not, i.e. one split's partial sums. The glue adds
	 * the splits' partials up before the consumer (the reduction): this
	 * frag's partials sit at ws_off in a split's workspace slot, and its
	 * counter is reduce_id of each tile's Graph.nreduce. */
	int reduce, reduce_id;
	int softmax;             /* the producer's port says `merge softmax`: partials
	                          * (O, m, l) merge by the online softmax's rule */
	uint32_t ws_off;
} GEdge;

/* A hook connection `from.fp -> to.tp` (one per consumer port: an `out
 * hook` may feed several): the consumer's calls of tp's kind dispatch to
 * from's functions <fp's base><suffix>. */
typedef struct GHook {
	int id;
	const HookKind *kind;
	GInst *from, *to;        /* the provider, the consumer */
	GPort *fp, *tp;
	Span sp;
} GHook;

/* A kernel parameter as the launched kernel sees it. */
typedef enum { KP_PTR, KP_TENSORMAP, KP_I32, KP_I64, KP_F32,
	KP_WORKSPACE             /* global memory the runtime allocates (Graph.ws_bytes) */
} KParamKind;
typedef struct GKParam {
	const char *name;
	KParamKind kind;
	const char *dtype;
	int rank;
	int64_t box[4];          /* TMA box, innermost first */
	const char *swizzle;
	const char *tensor;      /* the recipe tensor it comes from */
	const char *dim;         /* KP_I32 of a shape symbol: the symbol */
} GKParam;

typedef struct GRole {       /* instances that run on one warp range, in call order */
	int id;
	Vec insts;               /* GInst* */
	int nwarps, regs;        /* of one lane */
	int warpgroup_aligned;   /* uses wgmma or setmaxnreg */
	int lanes;               /* copies taking work items in turn (pingpong); 1 */
	const GEdge *lane_edge;  /* the ring that sets lanes; NULL */
} GRole;

/* The order of the work items (`raster ...`): RASTER_NONE as row. */
typedef enum { RASTER_NONE, RASTER_ROW, RASTER_COLUMN, RASTER_GROUPED } Raster;
const char *raster_name(Raster r);   /* "row", ...; NULL for RASTER_NONE */

typedef struct Graph {
	const Kernel *k;
	const ArchInfo *arch;
	Vec insts, edges, roles, kparams;   /* GInst*, GEdge*, GRole*, GKParam* */
	Vec hooks;               /* GHook*: hook connections, in recipe order */
	const GInst *order;      /* `grid order(INST)`: the tile_order provider; NULL: raster */
	const GPort *order_port; /* its `out hook` of kind tile_order */
	Vec consts;              /* Const*, evaluated in cvals order */
	int64_t *constvals;
	int persistent;
	int dynamic;             /* `grid dynamic`: blocks take their next work item from
	                          * a counter in the workspace (check_dynamic) */
	Raster raster; int64_t raster_group;
	int cluster[2];
	Expr *tiles[2];          /* work items: rows x cols of tiles (runtime exprs) */
	/* `grid split(S)` (check_split): each tile's K is divided among S work
	 * items. split: S as the kernel computes it, max(1, min(S, per)), so
	 * that every split has a slot; NULL: no split. split_per: the split
	 * ring's `per` in kernel terms (also without a split grid: the one
	 * share is all of it); NULL: no split ring. */
	Expr *split, *split_per;
	int stream;              /* `split(auto)`, stream-K: the tiles' K tiles, split evenly
	                          * among the blocks (split is then per: the work items are
	                          * the K tiles, the runtime launching min(SMS, them)) */
	int nreduce;             /* frag edges reduced (GEdge.reduce) */
	uint32_t ws_slot;        /* bytes of one split's partials of one tile */
	/* the workspace: ws_zero bytes of counters (4 per tile and reduction,
	 * to 256 bytes), which the runtime zeroes when the shape changes and
	 * the kernel leaves zero; then tiles x (split - 1) x ws_slot bytes of
	 * partials: ws_bytes in all */
	Expr *ws_bytes, *ws_zero;
	int ws_kparam;           /* its kernel param (KP_WORKSPACE); -1: none */
	int inst_base;           /* its first `inst` id: the variants of one cubin take
	                          * ids of their own, since they share the ABI tables */
	/* Expr*: what else the kernel computes from its scalars in C's int
	 * (check_ints): bound params' expressions, the split ring's `per`, a
	 * lane's skip. The manifest lists them ("int32") and the runtime
	 * refuses a launch where one would not fit, as it does the grid's. */
	Vec ints;
} Graph;

/* graph.c: facts of a checked graph that several stages read */
Span kernel_span(const Graph *g);   /* the kernel's name; span_none without one */
int inst_lanes(const Graph *g, const GInst *in);   /* its role's pingpong lanes, else 1 */
/* The `inst` ids its instances take (abi_inst): instances x the most lanes;
 * the next kernel of one cubin starts after them (Graph.inst_base). */
int graph_ids(const Graph *g);
/* A name in one of g's run-time expressions (its grid, an expression
 * bound to an integer param, a tensor's sizes), as check_bind allows it:
 * an integer kernel parameter or shape symbol (*kparam: its index in
 * g->kparams) before a recipe const (*val); a tensor's map or pointer is
 * none, whatever its name. The glue, the monolith and the manifest all
 * read names through it. */
typedef enum { NAME_NONE, NAME_KPARAM, NAME_CONST } NameRef;
NameRef graph_name(const Graph *g, const char *name, int *kparam, int64_t *val);
int graph_const(const Graph *g, const char *name, int64_t *val);   /* 1: a const of g's kernel */
/* 1 when e is >= 0 at every launch: numbers >= 0, shape symbols, consts
 * >= 0, and + * / % and the functions of such; then ceil_div(e, d) is
 * (e + d - 1) / d in the glue and the monolith, else the general form. */
int graph_nonneg(const Graph *g, const Expr *e);
/* gi->binds in its component's param order, as the entry takes them, and
 * gi->bind by param index (check_bind; the glue's and the monolith's
 * arguments) */
void graph_order_binds(Arena *a, GInst *gi);
const char *edge_name(Arena *a, const GEdge *e);   /* "from.port -> to.port" */
const char *kparam_kind_name(KParamKind k);         /* the manifest's "kind": "ptr", ... */
/* A scalar's kind by its dtype (KP_I32 for i32 and u32, KP_I64, KP_F32);
 * -1 for a dtype no scalar parameter can be (bf16, u8, ...). */
int scalar_kind(const char *dtype);
const char *kparam_ctype(KParamKind k);             /* a scalar's C type: "int", ...; else "void *" */
const void *frag_key(const GPort *pt);              /* its registers: the edge's, or its own */
const char *role_name(Arena *a, const GRole *r);   /* its instances "a+b"; else "role N" */

/* ------------------------------------------------------------ placement */

/* One lane of a role (lanes: GRole.lanes); lane 0 of role i is roles.v[i],
 * the other lanes follow all roles' lane 0. */
typedef struct PRole { const GRole *role; int first_warp, nwarps, regs; int lane;
	uint32_t turn_bar;       /* lanes: lane 0's turn mbarrier; lane L's at + 8 L */ } PRole;
typedef struct PBuf  { const GInst *inst; const GBuf *buf; uint32_t off, size, align;
	unsigned live;           /* additive (place.c): LIVE_* mask */
	int lane;                /* the copy of a laned role's buffer */ } PBuf;
enum { MBAR_BYTES = PLK_MBAR_BYTES };
typedef struct PRing {
	const GEdge *edge;
	int stages;
	uint32_t off;            /* first slot */
	uint32_t slot_stride;    /* slot bytes rounded up to the slot alignment */
	uint32_t full_bar, empty_bar;   /* offsets of stage 0's mbarriers (8 bytes each) */
	int full_count, empty_count;    /* mbarrier arrival counts */
	/* additive (place.c): */
	uint32_t slot_bytes, slot_align;   /* one slot's laid-out bytes; its alignment */
	int auto_stages;         /* stages were chosen by the placement */
	int nfields;             /* bundle fields of a slot, in port order */
	uint32_t *field_off;     /* byte offset of each field inside a slot */
} PRing;
typedef struct PBar  { const GInst *inst; const GBar *bar; int id; int threads; int lane; } PBar;

typedef struct Placement {
	const Graph *g;
	const ArchInfo *arch;
	int threads;             /* block size */
	uint32_t smem_bytes;     /* dynamic shared memory */
	Vec roles, bufs, rings, bars;   /* PRole*, PBuf*, PRing*, PBar* */
	/* additive (place.c): */
	int nwarps;              /* threads / 32 */
	int entry_regs;          /* register cap at entry: regs_per_sm / threads, down to 8 */
	int nwarpgroups;         /* 0: no warpgroup structure (no role is aligned) */
	int *wg_regs;            /* per warpgroup: setmaxnreg budget; 0: keeps entry_regs */
	uint32_t bar_off;        /* the mbarrier region: full+empty of every ring */
	uint32_t items_bar;      /* `grid dynamic`: PLK_ITEM_SLOTS slots of the block's work
	                          * items (8 bytes each), then their full and empty
	                          * mbarriers, in the mbarrier region */
	uint32_t smem_limit;     /* the arch's dynamic shared memory per block */
} Placement;

/* ------------------------------------------------------- stage entries
 * Each stage reports its own errors through diag.c and returns NULL (or
 * non-zero) when it found any. Error codes by stage: E01xx syntax,
 * E02xx imports and objects, E03xx contracts and composition,
 * E04xx placement, E05xx glue and link, E06xx command line. */

typedef struct Program {     /* resolve.c: a root file with its imports */
	Vec modules;             /* Module* */
	Vec comps;               /* Component*, from .plk files and objects */
	Vec kernels;             /* Kernel*, of the root file only */
	Vec selects;             /* Select*, of the root file only */
	Vec megas;               /* Mega*, of the root file only */
	Vec objuses;             /* Use*, parallel to comps: the `use object` that
	                          * brought it; NULL for a .plk declaration */
	NameMap by_name;         /* Component*, by name */
} Program;

enum { PLK_MAX_IMPORT_DEPTH = 64 };   /* files importing one another, nested (E0218) */

Program *resolve(Ctx *c, const char *root);        /* root "-" or "/dev/stdin": standard input */
int is_stdin_path(const char *path);
/* The input file as a source: a path, or standard input as `<stdin>`;
 * -1 on error (reported). */
int ctx_load_input(Ctx *c, const char *path);
const Component *program_component(const Program *p, const char *name);
/* E0206 for each component object without an LTO target serving arch. */
int program_check_arch(Ctx *c, const Program *p, const ArchInfo *arch);

/* object.c: component objects carrying their contract in .plk.contract;
 * built with nvcc and objcopy, cached by content hash */
/* An object of comp for cvals (NULL: its defaults), for each of arches
 * (NULL: object_default_arches) its arch clause allows, written to out
 * and, with hdr, its COMPONENT.plk.h (hdr_cvals: NULL writes the
 * defaults as expressions) to hdr; both or neither. 0 ok. */
int object_build(Ctx *c, const Component *comp, const int64_t *cvals, const ArchInfo **arches, int narches,
                 const char *out, const char *hdr, const int64_t *hdr_cvals);
/* The values -c builds comp for: its defaults, each `-DNAME=VALUE` of
 * Ctx.cflags that names a constant instead (taken out of cflags; *set 1
 * when there was one); NULL after reporting (E0607). */
int64_t *object_cvals(Ctx *c, const Component *comp, int *set);
/* object_for, the entry renamed (rename: `-D ENTRY=ENTRY__<8 hex of the
 * key without it>` for nvcc) and *sym the symbol the object defines; a
 * hook provider's functions renamed so each (`-D NAME=NAME__<the same>`)
 * and *sym that suffix. */
const char *object_for_sym(Ctx *c, const Component *comp, const int64_t *cvals, const ArchInfo *arch,
                           int rename, const char **sym, char digest[65]);
/* The cached object of comp for cvals and arch, built when missing or
 * stale; NULL on error. With digest, its digest (obj_digest). */
const char *object_for(Ctx *c, const Component *comp, const int64_t *cvals,
                       const ArchInfo *arch, char digest[65]);
/* An object a link needs: object_for_sym's arguments. */
typedef struct ObjReq {
	const Component *comp;
	const int64_t *cvals;
	const ArchInfo *arch;
	int rename;
} ObjReq;
/* Builds the cached objects of reqs that are missing or stale, Ctx.jobs
 * nvcc at once (0: the processors online), so that object_for_sym then
 * finds each current; one build an object. Errors in the order of reqs;
 * 0 ok. */
int object_prebuild(Ctx *c, const ObjReq *reqs, int n);
/* "V13.0.88": the nvcc release the objects are built with; NULL when nvcc does not run. */
const char *object_toolkit_version(Ctx *c);
const char *object_cache_dir(Ctx *c);   /* where objects are cached; NULL: nowhere */
const char *object_nvcc(Ctx *c);        /* CUDA_HOME's nvcc, else the one on PATH */
/* 0 when obj (read from an object) was built from decl as it is now; else E0208. */
int object_matches(Ctx *c, const Component *decl, const Component *obj, Span from);
/* E0211 for comp's object: what failed, with errno's text for path when given. */
void object_io_error(Ctx *c, const Component *comp, const char *what, const char *path);
/* objread.c: reading them back */
Component *object_read_contract(Ctx *c, const char *path, Span from);
/* 0 when the object holds an LTO target that can serve arch; else E0206. */
int object_check_arch(Ctx *c, const char *path, const ArchInfo *arch, Span from);
/* --emit=contract: the contract, after `//` lines naming arches, flags, hash, digest. */
int object_emit_contract(Ctx *c, const char *path, FILE *out);
/* Whether comp's arch clause and features allow building it for a. */
int object_arch_allowed(const Component *comp, const ArchInfo *a);
/* What `plkc -c` builds without -arch: every arch of stdlib/arch.def that
 * allows comp, less a plain one that the LTO-IR of an older plain one
 * serves (sm_80's serves sm_90 and sm_100); their number. */
int object_default_arches(const Component *comp, const ArchInfo **out, int max);
/* The arches of stdlib/arch.def that allow comp, for a help: "`-arch sm_90`,
 * `-arch sm_90a` or `-arch sm_100a`" (arena); NULL when none does. */
const char *object_arch_flags(Ctx *c, const Component *comp);
/* The value an object's contract gives a constant: a number, or minus
 * one. 0 ok; -1 for anything else. */
int object_value(const Expr *e, int64_t *out);
/* Whether the object comp obj was built for exactly cvals (its cparams' order). */
int object_serves(const Component *obj, const int64_t *cvals);
/* An object as read, for object.c's cache and staleness checks. */
#define OBJ_SECTION ".plk.contract"
enum { OBJ_MAX_ARCHES = 64 };
typedef enum { OBJ_OK, OBJ_MISSING, OBJ_UNREADABLE, OBJ_NOTELF, OBJ_CORRUPT, OBJ_NOCONTRACT,
	OBJ_MISMATCH } ObjErr;
typedef struct ObjDep {      /* a file nvcc read to build the object */
	char hash[65];           /* sha256 of its bytes */
	const char *path;        /* relative to the source's directory, or absolute */
} ObjDep;
typedef struct Obj {
	char *data;              /* the whole file (malloc'd) */
	size_t size;
	const char *component, *toolkit, *flags, *arches_text;
	char hash[65], srchash[65], conhash[65], digest[65];
	Vec arches;              /* const char*: from the header */
	Vec lto;                 /* const char*: the fatbin's LTO-IR targets */
	int nother;              /* other fatbin entries: PTX, cubins */
	Vec deps;                /* ObjDep*: the source and what it includes */
	const unsigned char *fatbin;   /* the fatbin section, in data; NULL: none */
	size_t fatn;
	const char *payload;     /* contract text, NUL-ended copy */
	size_t plen;
	const char *why;         /* what is wrong, for OBJ_CORRUPT */
} Obj;
/* Reads and validates an object; reports unless quiet. Frees with obj_fini
 * (also after an error when quiet). */
ObjErr obj_open(Ctx *c, const char *path, Span from, int quiet, Obj *o);
void obj_fini(Obj *o);
int obj_same_set(const char *const *a, int na, const char *const *b, int nb);   /* as multisets of names */
/* The digest binding a contract to its code: over the component's name,
 * the arches line, the contract text and the fatbin section's bytes. */
void obj_digest(const char *component, const char *arches, const char *contract, size_t clen,
                const void *fatbin, size_t fatn, char out[65]);
/* deps.c: the files an object depends on */
void deps_add(Ctx *c, const char *path);   /* a file the run read, for -MD (once, as a real path) */
/* The files nvcc's -MD list (depfile) names, less the toolkit's and the
 * generated header's (under tdir), each with its sha256, relative to
 * srcdir where they share more than `/`, into deps (ObjDep*); 0 ok, else
 * E0211 reported. */
int deps_read(Ctx *c, const Component *comp, const char *srcdir, const char *depfile, const char *tdir, Vec *deps);
/* 0 when every file o records still holds its bytes (and o's hashes are
 * key's); else -1, *changed the first that differs or is gone as seen
 * from shown, or NULL when only a hash differs. */
int deps_current(Ctx *c, const Obj *o, const char *srcdir, const char *shown, const char key[65],
                 const char **changed);
void deps_source_hash(const Vec *deps, char out[65]);   /* an object's `source`: over its deps' hashes */
/* an object's `hash`: over its key and its source hash */
void deps_object_hash(const char key[65], const char srchash[65], char out[65]);
/* The per-run memo of files as they were (Ctx.current, Ctx.hashed): what
 * v knows of path while now is the stat it was known with (else NULL);
 * known_set records path, as st, holding val (65 characters). */
struct stat;
const char *known_get(const Vec *v, const char *path, const struct stat *now);
void known_set(Ctx *c, Vec *v, const char *path, const struct stat *st, const char *val);
/* contract.c: a component as .plk text (what the section holds) */
void contract_print(FILE *out, const Component *comp, const int64_t *cvals);
/* one `require` condition as contract_print writes it: `TURN in {0, 1, 2}` */
void contract_print_require(FILE *out, const Require *r);
const char *require_text(Arena *a, const Require *r);   /* the same, as an arena string */
/* <component>.plk.h: cparam macros (defaults, or cvals when given), ids
 * and the entry's prototype; the source includes it */
void contract_header(FILE *out, const Component *comp, const int64_t *cvals);
const Port *comp_split_port(const Component *c);   /* its `split` port; NULL */

/* eval.c: integer expressions over named constants */
typedef struct Scope { const char **names; const int64_t *vals; int n; const struct Scope *up; } Scope;
int eval_expr(Ctx *c, const Expr *e, const Scope *s, int64_t *out);  /* 0 ok */
int scope_lookup(const Scope *s, const char *name, int64_t *out);  /* 1: name in s (the innermost, last first) */
int require_met(Ctx *c, const Require *r, const Scope *s);           /* 1 met, 0 not, -1 error (reported) */
const Expr *expr_find_name(const Expr *e, const char *name);       /* its first EX_NAME `name`, or NULL */
const Expr *require_find_name(const Require *r, const char *name);  /* the same over a condition */
/* The candidate closest to name by edit distance, if close enough; else NULL. */
const char *did_you_mean(const char *name, const char *const *cands, int n);
/* check.c: a help for an unknown name, the candidate closest to it, else
 * the first eight (`what` names them). */
void help_similar(Diag *d, const char *name, const char **cands, int n, const char *what);
int edit_distance(const char *a, const char *b);

/* check.c (and check_*.c) */
Graph *check_kernel(Ctx *c, const Program *p, const Kernel *k, const ArchInfo *arch);
/* A warning for each kernel const nothing reads (once per kernel, not per arch). */
void check_unused_consts(Ctx *c, const Program *p, const Kernel *k);
/* check_select.c: a select's variants (docs/language.md, "Variants") */
typedef struct Variant {
	const Kernel *k;
	const Branch *br;        /* the branch naming it: its conditions; dflt for the last */
} Variant;
/* s's variants in branch order, checked: each branch names a kernel of the
 * file (E0361) that takes s's parameters (E0360), none twice and s's name
 * declared once (E0363), `else` last and only last (E0362), conditions over
 * s's shape symbols, SMS and integers (E0320, E0323, E0324). NULL on errors
 * (reported). */
Variant *select_variants(Ctx *c, const Program *p, const Select *s, int *n);
int kernel_requires_check(Ctx *c, const Kernel *k);   /* E0320 for a kernel's `require` (check_select.c) */
/* E0360 unless every name of the select's tensor dims is a const of no
 * variant (ps[i]: variant i placed) or of all, of one value; gives every
 * variant the workspace param where one splits K. */
int select_check_launch(Ctx *c, const Select *s, const Variant *vs, const Placement *const *ps, int n);
const Select *program_select(const Program *p, const char *name);   /* NULL: none */
int kernel_is_variant(const Program *p, const Kernel *k);           /* some select names it */

struct LinkResult;
/* mega.c: a megakernel checked, its ops ordered by their dataflow
 * (mega_order.c) and their pieces given to blocks (docs/megakernel.md).
 * mega_sched.c prints the result (--emit=schedule). */
enum { ACC_READ = 1, ACC_WRITE = 2 };   /* a write may read too */
typedef struct MTensor {
	const char *name;
	const Type *ty;
	int buffer;              /* declared `buffer`: the megakernel's own scratch */
	int param;               /* not a buffer: its index among the megakernel's params */
	uint64_t off;            /* a buffer: its offset in the buffers (mega.c, 256-aligned) */
	uint64_t bytes;          /* its size (at most MEGA_MAX_TENSOR_BYTES; 0 past it) */
	uint64_t slice_bytes;    /* one slice of its first dimension (T[i]): bytes / dims[0] */
	int zeroed;              /* a buffer bound to a `zeroed` param: zero when a launch starts */
	KParamKind kind;         /* a scalar parameter's (mega.c, add_tensor): KP_I32, KP_I64, KP_F32 */
	int elem_bytes;
	int rank;
	int64_t dims[8];
	Span sp;
} MTensor;
typedef struct MUse {        /* one tensor an op reads or writes */
	const char *param;       /* the op kernel's parameter */
	const MTensor *t;
	int64_t index;           /* a slice of t's first dimension; -1: all of t */
	int access;              /* ACC_*: from the kernel's bindings (mega.c, kernel_access) */
	Span sp;                 /* the op's argument, else the op */
} MUse;
typedef struct MOp MOp;
typedef struct MDep {        /* to waits for from: it reads what from writes */
	const MOp *from;
	const MUse *write, *read;
	int direct;              /* not implied by the op's other waits */
} MDep;
struct MOp {
	const char *name;        /* "qkv[3]" inside `for l < L` */
	int id;                  /* declaration order; its counter's index */
	const MItem *decl;
	const Kernel *k;
	const Placement *pl;     /* the kernel placed on its own */
	int64_t pieces;          /* the kernel's work items at the op's shapes */
	int64_t first;           /* piece i runs on block (first + i) % blocks */
	int early;               /* every instance of its kernel declares `early`: its components
	                          * wait for its deps (plk_wait_inputs), not the entry before its main */
	int waits;               /* its direct deps (MDep.direct), the counters it waits on */
	Vec uses, deps;          /* MUse*, MDep* */
	/* what its kernel's main takes, per Graph.kparams, as CUDA over the
	 * megakernel entry's names (mega_entry.c): p<i> its params, plk_bufs
	 * its buffers; NULL: a kind the entry cannot pass yet (E0379) */
	const char **args;
};
typedef struct MegaPlan {
	const Mega *m;
	const ArchInfo *arch;
	Vec tensors;             /* MTensor*: parameters, then buffers */
	Vec ops;                 /* MOp*, in schedule order */
	int64_t blocks;          /* `grid blocks(N)` */
	int threads;             /* the block: the most any op needs */
	uint32_t page_bytes;     /* the shared memory of one page: the most any op needs */
	int early_slots;         /* the most direct waits of an op that waits inside (MOp.early),
	                          * at least 1; 0: no such op. The entry keeps them in shared memory */
	uint32_t smem_limit;     /* what two ops in a row may hold together (mega.c, check_fit) */
	/* its workspace: counters (4 bytes per op, then the blocks' arrivals and
	 * the launch's generation), zeroed once, to zero_bytes; the buffers after */
	uint32_t zero_bytes;
	uint64_t buf_bytes;
	uint64_t zeroed_end;     /* the end of the last buffer bound to a `zeroed` param (mega_order.c): the
	                          * runtime zeroes the workspace to zero_bytes + zeroed_end */
	Vec kernels;             /* Placement*: the ops' kernels, each once */
	int timeline;            /* --timeline: the entry takes `timeline` [blocks, ops, 4] i64 and
	                          * writes, per block and op it runs: wait, start, end (ns), SM */
	Vec ints;                /* char*: the i32 op params' expressions over its scalars, in the
	                          * manifest's syntax ("int32"), which the runtime checks */
} MegaPlan;
int mega_order(Ctx *c, MegaPlan *mp);   /* mega_order.c: E0373-E0376, E0382, E0383; the order and waits */
MegaPlan *mega_check(Ctx *c, const Program *p, const Mega *m, const ArchInfo *arch);
void mega_schedule_print(FILE *out, const MegaPlan *mp);
/* mega_entry.c: the megakernel's __global__ entry (CUDA, NVRTC to LTO-IR),
 * which runs each op's pieces on its block with the waits; its manifest. */
const char *mega_entry_source(Ctx *c, const MegaPlan *mp, const Placement *const *ps, int n);
void mega_entry_write(Ctx *c, FILE *out, const MegaPlan *mp, const Placement *const *ps, int n, int own_smem);
int mega_entry_ltoir(Ctx *c, const MegaPlan *mp, const Placement *const *ps, int n, void **ir, size_t *len);
int manifest_write_mega(Ctx *c, const MegaPlan *mp, const struct LinkResult *r, const char *binary, FILE *out);
/* E0379 for an op the entry cannot run yet; 0 when all can. */
int mega_check_linkable(Ctx *c, const MegaPlan *mp);
int kernel_is_op(const Program *p, const Kernel *k);            /* some megakernel runs it */

/* graph.c */
void graph_print(FILE *out, const Graph *g);
/* Whether the consumer of a lanes' ring passes the turn itself (its port
 * says `handoff`: plk_ring_turn) rather than the glue after it returns. */
int edge_handoff(const GEdge *e);
void graph_dot(FILE *out, const Graph *g);

/* place.c */
Placement *place(Ctx *c, const Graph *g);
const PRing *placement_ring(const Placement *p, const GEdge *e);   /* e's ring; NULL */
/* Registers the warpgroups hold after setmaxnreg (128 x each budget, else
 * the entry cap); those the block gets at launch (threads x the entry cap). */
long placement_regs_total(const Placement *p);
long placement_regs_pool(const Placement *p);

/* place_print.c */
void placement_print(FILE *out, const Placement *p);
/* The placement as one JSON object (the manifest's "placement" value), no
 * trailing newline; `indent` prefixes its nested lines and closing brace. */
void placement_write_json(FILE *out, const Placement *p, const char *indent);
/* s as a JSON string: quoted, `"` and `\` escaped, control characters as \u00XX */
void json_str(FILE *out, const char *s);

/* glue.c, link.c, manifest.c, monolith.c */
int glue_emit_ll(Ctx *c, const Placement *p, FILE *out);
int glue_bitcode(Ctx *c, const Placement *p, void **bc, size_t *n);  /* malloc'd */
/* One glue module for the n kernels of one cubin (the variants of a
 * select): the ABI tables over all their instances, one plk_main each
 * (abi_main_name). n == 1 is glue_bitcode. */
int glue_bitcode_multi(Ctx *c, const Placement *const *ps, int n, void **bc, size_t *len);
/* ops: the kernels are a megakernel's ops; each main takes two i32 after
 * its kernel params, its first work item and its stride through them. */
int glue_bitcode_ops(Ctx *c, const Placement *const *ps, int n, int ops, void **bc, size_t *len);
/* The module as text (--emit=glue-ll), headed by entry (CUDA) as comments. */
int glue_emit_ll_ops(Ctx *c, const Placement *const *ps, int n, int ops, const char *entry, FILE *out);
const char *glue_llvm_version(void);     /* the LLVM plkc was built with */
/* --version: the libNVVM, NVRTC and nvJitLink versions, one line each. */
void link_print_versions(FILE *out);
/* The object an instance's code came from (the link map). */
typedef struct LinkObj {
	const char *path;
	char digest[65];         /* obj_digest; "" for an object ObjectFn gave */
	int from_object;         /* 1: the `use object` itself; 0: built from source (the cache) */
} LinkObj;
typedef struct LinkResult {
	void *cubin; size_t cubin_size;
	char *ptx;               /* with want_ptx */
	char *info_log;
	LinkObj *objs;           /* per instance, in Graph.insts order, kernel after kernel (arena) */
} LinkResult;
int link_kernel(Ctx *c, const Placement *p, int want_ptx, LinkResult *r);
int manifest_write(Ctx *c, const Placement *p, FILE *out);
int monolith_write(Ctx *c, const Placement *p, FILE *out);
int monolith_write_mega(Ctx *c, const MegaPlan *mp, FILE *out);   /* its op kernels' mains and entry */

/* abi.c: the constant tables behind the plk_* ABI functions, and the
 * block's warpgroup, dispatch and cluster facts, that the glue, the entry
 * (trampoline.c) and the monolith all follow. fn(k0, .., k[nkeys-1] [, x])
 * returns base + x * step for the case whose keys match, 0 for any other. */
typedef enum { ABI_INT, ABI_SMEM } AbiRet;    /* int, or generic ptr into smem */
typedef struct AbiCase { int key[3]; int64_t base, step; } AbiCase;
typedef struct AbiFn {
	const char *name, *cret;  /* cret: the C return type */
	int nargs, nkeys;
	AbiRet ret;
	AbiCase *cases;
	int ncases;
} AbiFn;
/* F_<id>: the functions, the rows of stdlib/abi.def in its order; indices
 * into AbiFn[ABI_NFNS]. */
enum {
#define PLK_ABI(id, name, ret, params, nkeys, kind, meaning) F_##id,
#include "../stdlib/abi.def"
#undef PLK_ABI
	ABI_NFNS
};
/* The `inst` an entry gets (the tables' first key): lane L of an instance
 * is a copy with its own buffers, barriers and warps. */
static inline int abi_inst(const Graph *g, const GInst *in, int lane)
{
	return g->inst_base + in->id + lane * g->insts.n;
}
/* abi.c: each function's name and signature, from stdlib/abi.def; no cases. */
void abi_sigs(AbiFn fns[ABI_NFNS]);
/* Each function's cases for p, added to fns as abi_sigs left them. */
void abi_tables(Ctx *c, const Placement *p, AbiFn fns[ABI_NFNS]);
/* An affine group of ABI_SELECT_MAX cases or fewer is a chain of selects
 * on the last key, not base + (id - id0) x d: both are branch-free, but
 * with the arithmetic ptxas scheduled attn_dense_bn176's softmax loop
 * otherwise, 2.3-3.4% slower than with the switch before it; with the
 * selects as fast as then, every other attention kernel as fast as with
 * the arithmetic or faster (bench/results/2026-12-03-attention-abi-timed.md). */
enum { ABI_SELECT_MAX = 4 };
/* f's cases a group at a time, by their leading keys (all but the last):
 * abi_groups starts, abi_group_next gives the next group (0: none left):
 * idx[0 .. n) its cases sorted by the last key, lead the leading keys
 * packed (10 bits each, the first highest), affine when the last keys are
 * contiguous and the values affine in them (d a unit of the last key, the
 * extra argument's step alike). The glue and the monolith define each
 * ABI function from them (glue.c, define_abi; monolith.c, abi_def). */
typedef struct AbiGroups {
	const AbiFn *f;
	char *taken;
	int *idx, n, affine, next;
	int selects;   /* affine and at most ABI_SELECT_MAX cases: a chain of selects */
	int64_t lead, d;
} AbiGroups;
void abi_groups(Ctx *c, const AbiFn *f, AbiGroups *g);
int abi_group_next(AbiGroups *g);
/* setmaxnreg per warpgroup: regs[w] (0: none) for w < threads/128, and the
 * register cap ptxas gives at entry; 0 when the arch or roles need none. */
int abi_wg_regs(Ctx *c, const Placement *p, int *regs, int *cap);
/* Dispatch: the end w1 of the run [w0, w1) of warpgroups that share one
 * branch, those with w0's budget and roles (regs, cap: abi_wg_regs); with
 * cap 0, threads/128: no budgets, one branch. */
int abi_wg_run(const Placement *p, const int *regs, int cap, int w0);
int abi_role_in(const PRole *r, int w0, int w1);   /* r has warps in warpgroups [w0, w1) */
/* Cluster launch (sm_90+): cluster-wide barriers at entry and exit. Rows:
 * a 2 x 1 or 4 x 1 cluster's CTAs take tile rows Rm .. Rm + R - 1 of one
 * column, a 2 x 2 cluster's two rows of two columns; log2 R, 0 if none. */
int abi_clustered(const Placement *p);
/* The X x Y clusters whose blocks share tiles (2 x 1, 4 x 1, 2 x 2): the
 * glue's arrangements, which check_clusters holds contracts to. */
int abi_cluster_tiles(int64_t x, int64_t y);
int abi_rows_log2(const Placement *p);
int abi_quad(const Placement *p);
/* Split K (check_split): the partial-sum reduction's CUDA, named
 * plk_glue_splitk[_softmax]_<n>_<threads> (streamk for split(auto); the
 * suffix where the frag says `merge softmax`), storage its declaration
 * specifiers; _sources: one for each distinct (n, threads, kind) of the
 * kernels ps, and split(auto)'s schedule where one streams. */
void abi_splitk_source(FILE *o, const char *storage, int n, int threads, int softmax);
void abi_streamk_source(FILE *o, const char *storage, int n, int threads, int softmax);   /* split(auto)'s */
const char *abi_reduce_name(char buf[64], const GEdge *e, int threads, int stream);   /* the helper reducing e */
/* split(auto)'s schedule, one helper both programs call (abi.c): segment
 * q of the block into int[ABI_SEG_N], at these indices */
enum { ABI_SEG_COUNT, ABI_SEG_TILE, ABI_SEG_STREAMED, ABI_SEG_KFIRST, ABI_SEG_KCOUNT, ABI_SEG_FIRST, ABI_SEG_LAST,
       ABI_SEG_BLOCK, ABI_SEG_BLOCKS, ABI_SEG_TOTAL, ABI_SEG_N };
void abi_stream_seg_source(FILE *o, const char *storage);
/* split(auto) streams each leftover tile over this many blocks at most
 * (on average): a block's share stays a quarter of a tile or more, so a
 * few leftover tiles are not cut into slivers that each pay a segment's
 * start and a merge (attention, GQA at 8k: 4 leftover items of 47 KV
 * blocks on 132 blocks ran 1.7% slower than unsplit). */
#define ABI_STREAM_WAYS 4
void abi_splitk_sources(FILE *o, const char *storage, const Placement *const *ps, int nps);
/* `grid dynamic`: the work items a block's roles share (abi.c, glue.c, monolith.c) */
enum { PLK_ITEM_SLOTS = 4 };
static inline uint32_t abi_item_full(const Placement *p) { return p->items_bar + 8 * PLK_ITEM_SLOTS; }
static inline uint32_t abi_item_empty(const Placement *p) { return p->items_bar + 16 * PLK_ITEM_SLOTS; }
int abi_item_threads(const Placement *p);
void abi_item_source(FILE *o, const char *storage, const Placement *const *ps, int nps);
int abi_splitk_elems(const GEdge *e, int threads);   /* f32 per thread of a reduced frag */
/* Hooks (docs/abi.md, "Hooks"): whether any instance has a hook port (the
 * glue and the monolith define plk_hook_bound and the dispatch functions
 * only then, so a kernel without hooks keeps the glue it had), whether
 * ABI function fn is defined for g, and the cases of kind's dispatch: one
 * per connected consumer port and lane, calling h->from's functions. */
int abi_has_hooks(const Graph *g);
int abi_fn_defined(const Graph *g, int fn);
typedef struct AbiHookCase { int inst, port; const GHook *h; } AbiHookCase;
AbiHookCase *abi_hook_cases(Ctx *c, const Placement *p, int kind, int *n);   /* arena */
/* trampoline.c: the __global__ entry, as CUDA source and as NVRTC LTO-IR */
const char *trampoline_source(Ctx *c, const Placement *p);  /* arena */
/* The entries of the n kernels of one cubin in one unit, each calling its
 * abi_main_name; the helpers once. */
const char *trampoline_source_multi(Ctx *c, const Placement *const *ps, int n);
int trampoline_ltoir_multi(Ctx *c, const Placement *const *ps, int n, void **ir, size_t *len);
/* The glue's helpers for the kernels ps (CUDA); src compiled by NVRTC to
 * LTO-IR for p's arch (E0503 on failure, reported at p's kernel). */
int trampoline_helpers(Ctx *c, FILE *o, const Placement *const *ps, int n);
int trampoline_compile(Ctx *c, const Placement *p, const char *src, void **ir, size_t *len);
/* The glue's kernel body for kernel i of n in one cubin: plk_main alone,
 * plk_main_KERNEL among several. */
const char *abi_main_name(Ctx *c, const Placement *const *ps, int n, int i);
const char *trampoline_param_ctype(KParamKind k);   /* "int ", "void *", ... */
/* LTO-IR of a kernel `plk_probe` that takes the address of `entry` (for
 * link_check_entry); 0 ok, else -1 with NVRTC's log in *log (malloc'd). */
int trampoline_probe_ltoir(const char *entry, const ArchInfo *arch, void **ir, size_t *n, char **log);
int trampoline_ltoir(Ctx *c, const Placement *p, void **ir, size_t *n);  /* malloc'd */
/* link.c: link_kernel with the component objects given by `object`
 * (object_for when NULL). Frees with link_result_free. */
typedef const char *(*ObjectFn)(Ctx *c, const GInst *inst, void *ud);
int link_kernel_with(Ctx *c, const Placement *p, int want_ptx, ObjectFn object,
                     void *ud, LinkResult *r);
void link_result_free(LinkResult *r);
/* The n kernels of one cubin (the variants of a select), linked in one
 * nvJitLink run: one glue, one entry unit, each object once. Decides each
 * instance's object and entry symbol first (link_decide). */
int link_kernels(Ctx *c, const Placement *const *ps, int n, int want_ptx, LinkResult *r);
/* mp: the kernels ps are mp's ops', linked under its entry (mega_entry.c). */
int link_mega(Ctx *c, const Placement *const *ps, int n, const struct MegaPlan *mp, int want_ptx, LinkResult *r);
/* E0515 unless the kernels ps's instance ids (lanes counted) fit the ABI
 * tables' 10-bit keys; link_decide checks it first. */
int link_check_ids(Ctx *c, const Placement *const *ps, int n);
/* Sets GInst.obj and .sym for every instance of the n graphs: a component
 * built with two sets of constants in one link gets each object's entry
 * renamed ENTRY__<8 hex of its key> (object_for_sym), since each object
 * defines it, and a hook provider its functions so. objs: one LinkObj per
 * instance, the graphs' instances one after another. */
int link_decide(Ctx *c, const Placement *const *ps, int n, LinkObj *objs);
/* Before the links of several arches (narch > 1; else nothing to do):
 * the objects of all of them built several at once (object_prebuild), so
 * that the second arch's nvcc need not wait for the first arch's link.
 * ps: narch groups of n placements, each group one cubin's kernels. */
int link_prebuild(Ctx *c, const Placement *const *ps, int n, int narch);
/* link_decide for each of narch groups of n placements (each group one
 * cubin's kernels), after one link_prebuild: every instance's object,
 * the groups' instances one after another; NULL after reporting. */
LinkObj *link_decide_arches(Ctx *c, const Placement *const *ps, int n, int narch);
/* Checks linked PTX: kernel present, no plk_ call left, launch bounds. */
int link_check_ptx(Ctx *c, const Placement *p, const char *ptx);
/* E0216 unless the object at path (nvcc's, for arch) defines comp's entry
 * under the symbol `entry` (comp->entry, or its renamed form): a probe that
 * takes the entry's address, linked with it by nvJitLink. */
int link_check_entry(Ctx *c, const Component *comp, const char *entry, const char *path, const ArchInfo *arch);
/* Checks nvJitLink's -verbose info log: no C7508 (setmaxnreg ignored). */
int link_check_log(Ctx *c, const Placement *p, const char *info_log);
/* E0504: nvJitLink's result r for `what` (link, ptx ...), its error log
 * and what it suggests; engines: the kernel has a comm stage's engine. */
void link_jit_error(Ctx *c, const Placement *p, int r, const char *what, const char *log, int engines);
/* glue bitcode -> libNVVM -gen-lto for p->arch (malloc'd LTO-IR). */
int link_glue_ltoir(Ctx *c, const Placement *p, void **ir, size_t *n);
/* manifest.c: one manifest for the same kernel linked for n arches (a
 * fatbin); top-level launch shape from ps[0], per-arch in "variants". */
int manifest_write_multi(Ctx *c, const Placement *const *ps, int n, const char *binary, FILE *out);
/* With rs (parallel to ps; NULL: not linked), the instances' objects too. */
int manifest_write_linked(Ctx *c, const Placement *const *ps, const LinkResult *rs, int n, const char *binary,
                          FILE *out);
/* --emit=map: the link map as text: each instance, its component, the
 * object its code came from, its constants and its place. */
void map_print(FILE *out, const Placement *p, const LinkObj *objs);
/* One manifest for the variants of select s, linked into one cubin (ps[i]:
 * vs[i] placed): the top level is the default's (the last), and
 * "variants" lists each with its conditions and launch (docs/manifest.md);
 * objs (NULL: not linked): link_kernels' LinkResult.objs, for the link map. */
int manifest_write_select(Ctx *c, const Select *s, const Variant *vs, const Placement *const *ps, int n, int narch,
                          const LinkResult *rs, const char *binary, FILE *o);
/* Several arches' cubins -> one fatbin (the toolkit's fatbinary). */
int link_fatbin(Ctx *c, const ArchInfo **arches, const LinkResult *rs, int n,
                void **fatbin, size_t *size);

#endif
