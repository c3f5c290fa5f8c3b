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
 * No global mutable state: every stage takes the Ctx it works in.
 *
 * This file: memory, sources, diagnostics, the OS layer, the AST and the
 * stdlib tables; at its end graph.h (the checked graph, its placement)
 * and stages.h (each stage's entry points). */
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
	int split_compile;       /* --split-compile: ptxas's threads in a link (0: one) */
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

/* What an EX_NAME of a kernel's run-time expression names, decided once
 * by check (graph_resolve): an integer kernel parameter or shape symbol,
 * or a recipe const; NAME_NONE in the AST as parsed. */
typedef enum { NAME_NONE, NAME_KPARAM, NAME_CONST } NameRef;

typedef struct Expr {
	ExprKind k;
	Span sp;
	int64_t num;         /* EX_NUM */
	const char *name;    /* EX_NAME, EX_CALL (ceil_div, min, max) */
	NameRef ref;         /* EX_NAME in a checked graph's expressions: what name is, */
	int ref_i;           /* its index into Graph.kparams or Graph.consts */
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
	Vec requires;           /* Require*: `require COND, ...` over its shape symbols, consts and the
	                           device's values (SMS, DRAM_GBPS), held at launch (a megakernel
	                           op's: at link) */
} Kernel;

/* A branch of a select: `when COND, ...: KERNEL` (every condition holds)
 * or `else: KERNEL` (conds empty, dflt set): the default, always last. */
typedef struct Branch {
	Vec conds;              /* Require*: over shape symbols, the device's values and integers */
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
typedef void (*NamePrint)(FILE *, const Expr *name, const void *ud);   /* an EX_NAME */
void expr_print_names(FILE *out, const Expr *e, NamePrint name, const void *ud);
void type_print(FILE *out, const Type *t);   /* as the recipe writes it: tensor<bf16>[M, K] */
/* a `require` condition; each expression printed by pe */
const char *req_op_text(ReqOp op);
void require_print(FILE *out, const Require *r, void (*pe)(FILE *, const Expr *));
void names_print(FILE *o, const char *lead, const Vec *names);   /* Feature*: "LEADa, b\n", or nothing */
/* e as a C expression (the component headers, the monolith): every
 * compound operand parenthesised, ceil_div/min/max spelled out with
 * eval.c's semantics, no casts, so the preprocessor can evaluate it too.
 * name(out, e, ud) prints an EX_NAME; NULL prints it as it is. With nonneg
 * (a kernel's expression, the monolith) ceil_div is spelled as the glue
 * builds it, so that both builds compute it alike: (x + y - 1) / y where
 * nonneg(ud, x) and nonneg(ud, y) (graph_nonneg: >= 0 at every launch),
 * else q + 1 when the remainder is nonzero and of y's sign. */
void expr_print_c(FILE *out, const Expr *e, NamePrint name, int (*nonneg)(const void *, const Expr *),
                  const void *ud);
/* the same in long long (an `i64` param's expression): each number a
 * long long literal; name() prints each name as a long long too */
void expr_print_c_ll(FILE *out, const Expr *e, NamePrint name, int (*nonneg)(const void *, const Expr *),
                     const void *ud);

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

#include "graph.h"    /* the checked graph and its placement */
#include "stages.h"   /* each stage's entry points */

#endif
