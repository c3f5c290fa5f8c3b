/* stages.h: each stage's entry points and what one stage hands the next
 * (Program, MegaPlan, LinkResult, the ABI's tables). Part of plk.h, which
 * includes it: include plk.h. */
#ifndef PLK_STAGES_H
#define PLK_STAGES_H

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
/* The first step of e (innermost first) whose value is past C's int of
 * `bits` (32: int, 64: long long), as the kernel computes it: *what says
 * what it is ("is 4294967296", "computes a + b - 1 = ..." for ceil_div's
 * first step, "is past 64 bits"), *v its value where an int64_t holds
 * it; NULL: every step fits, or an error (reported). */
const Expr *expr_past(Ctx *c, const Expr *e, const Scope *s, int bits, int64_t *v, const char **what);
const char *int_range(int bits);   /* "an int holds -2147483648 to 2147483647" (32), long long's (64) */
const Expr *expr_find_name(const Expr *e, const char *name);       /* its first EX_NAME `name`, or NULL */
void expr_names(Arena *a, const Expr *e, Vec *seen);   /* e's distinct names (const char *), in order, added */
const char *scope_values(Arena *a, const Vec *names, const Scope *s);   /* "A = 1, B = 2": those with a value in s */
const Expr *require_find_name(const Require *r, const char *name);  /* the same over a condition */
/* The device's values a select's rule or a kernel's `require` may name,
 * known only at launch: SMS, its multiprocessor count, and DRAM_GBPS, its
 * peak DRAM bandwidth in GB/s (docs/language.md, "Variants"). */
enum { NDEVICE_NAMES = 2 };
extern const char *const device_names[NDEVICE_NAMES];
const Expr *require_find_device_name(const Require *r);   /* the first of them r names, or NULL */
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
	const Branch *br;        /* the first branch naming it */
} Variant;
/* s's variants, each kernel once in the order the branches first name
 * them, checked: each branch names a kernel of the file (E0361) that takes
 * s's parameters (E0360), s's name declared once (E0363), `else` last and
 * only last (E0362), conditions over s's shape symbols, the device's
 * values and integers (E0320, E0323, E0324). (*of)[i]: the variant branch
 * i launches (the rule). NULL on errors (reported). */
Variant *select_variants(Ctx *c, const Program *p, const Select *s, int *n, const int **of);
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
	Vec ints64;              /* char*: the same for 64 bits ("int64"): the i64 op params'
	                          * expressions, the op kernels' own long long ones */
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
/* Cluster launch (sm_90+): a cluster-wide barrier at entry, none at exit
 * (abi_ring_drains). Rows: a 2 x 1 or 4 x 1 cluster's CTAs take tile rows
 * Rm .. Rm + R - 1 of one column, a 2 x 2 cluster's two rows of two
 * columns; log2 R, 0 if none. */
int abi_clustered(const Placement *p);
/* Whether role r leaves through plk_ring_drain on ring: r holds the
 * ring's producer, which multicasts its slots to a cluster (the glue's
 * role exit and the monolith's alike, docs/abi.md). */
int abi_ring_drains(const Placement *p, const PRole *r, const PRing *ring);
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
 * vs[i] placed; of: the rule, select_variants'): the top level is the
 * default's (the `else`), and "variants" lists the rule's branches in
 * order, each kernel's launch at its first (docs/manifest.md); objs (NULL:
 * not linked): link_kernels' LinkResult.objs, for the link map. */
int manifest_write_select(Ctx *c, const Select *s, const Variant *vs, const int *of, const Placement *const *ps,
                          int n, int narch, const LinkResult *rs, const char *binary, FILE *o);
/* Several arches' cubins -> one fatbin (the toolkit's fatbinary). */
int link_fatbin(Ctx *c, const ArchInfo **arches, const LinkResult *rs, int n,
                void **fatbin, size_t *size);

#endif
