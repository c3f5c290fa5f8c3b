/* plan.h: the runtime's pure part, testable without a GPU: the manifest
 * as a struct, shape expressions, argument binding and inference, grid
 * computation and tensor-map arguments. plkrt.c adds the CUDA calls.
 *
 * Every function reports failure by returning non-zero with a message in
 * err (a PLK_ERRLEN buffer). */
#ifndef PLK_PLAN_H
#define PLK_PLAN_H

#include <stddef.h>
#include <stdint.h>

#define PLK_ERRLEN 512
#define PLK_MAX_RANK 8        /* tensors; tensor maps are limited to 5 */
#define PLK_TMAP_MAX_RANK 5

/* PK_WORKSPACE: global memory the runtime allocates and zeroes once
 * ("bytes"); a split-K kernel keeps it zero between launches. */
typedef enum { PK_PTR, PK_TENSORMAP, PK_I32, PK_I64, PK_F32, PK_WORKSPACE } plk_pkind;
typedef enum { GRID_PERSISTENT, GRID_TILES } plk_gpolicy;

typedef struct plk_mtensor {
	char *name, *dtype;
	int elem_bytes;
	int rank;
	char *dims[PLK_MAX_RANK];   /* outermost first: symbol, integer or expression */
	int dim_sym[PLK_MAX_RANK];  /* symbol index when the dim is a bare symbol; else -1 */
} plk_mtensor;

typedef struct plk_mparam {
	char *name;
	plk_pkind kind;
	int tensor;                 /* index into tensors; -1: none */
	char *dim;                  /* scalars: the symbol or expression carried; NULL: none;
	                               PK_WORKSPACE: its size in bytes */
	char *zero;                 /* PK_WORKSPACE: its first bytes, zeroed for each new shape */
	int box_rank;
	uint32_t box[PLK_TMAP_MAX_RANK];  /* innermost first */
	int swizzle;                /* bytes: 0, 32, 64, 128 */
	int top;                    /* a param bound by name: its index in the top level's
	                               params (where bindings keep its value); else -1 */
} plk_mparam;

typedef struct plk_mtile { char *expr; int64_t tile; } plk_mtile;

/* One arch's launch shape in a multi-arch manifest ("variants"). */
typedef struct plk_mvariant {
	char *arch;
	int has_block, has_cluster, has_smem;
	unsigned block[3], cluster[3];
	uint32_t dynamic_smem;
} plk_mvariant;

/* A condition of a kernel variant: lhs OP rhs, or lhs in set. */
enum { PLK_OP_EQ, PLK_OP_NE, PLK_OP_LT, PLK_OP_LE, PLK_OP_GT, PLK_OP_GE, PLK_OP_IN };
typedef struct plk_mcond {
	char *lhs, *rhs;            /* expressions over the symbols and SMS; rhs NULL for in */
	int op;
	char **set;
	int nset;
} plk_mcond;

struct plk_manifest;
/* One kernel of a binary of several, a select's variant (the first
 * "variants" entry of its "name"): its launch. */
typedef struct plk_kvariant {
	struct plk_manifest *m;     /* its entry, launch, params; the top level's tensors */
} plk_kvariant;
/* One branch of a select's rule (each "variants" entry with a "name", in
 * order): when it is taken, and the kernel it launches. */
typedef struct plk_mrule {
	plk_mcond *when;            /* all must hold; none: always (the default) */
	int nwhen;
	int kvar;                   /* kvars index */
} plk_mrule;

typedef struct plk_manifest {
	int version;
	char *kernel, *entry, *binary;
	char **arch;
	int narch;
	char **engines;             /* "engines": the comm engines it calls (docs/comm.md) */
	int nengines;
	unsigned block[3], cluster[3];
	uint32_t dynamic_smem;
	int cooperative;            /* every block resident at once (a megakernel's waits) */
	plk_gpolicy policy;
	plk_mtile *tiles;
	int ntiles;
	char *raster;               /* NULL: none */
	char *split;                /* work items per tile (split K); NULL: one */
	int64_t group;
	plk_mtensor *tensors;
	int ntensors;
	plk_mparam *params;
	int nparams;
	int maxparams;              /* the most params of any kernel of the binary (a plan's size) */
	char **syms;                /* every shape symbol, in first-use order */
	int nsyms;
	plk_mvariant *variants;
	int nvariants;
	plk_kvariant *kvars;         /* the kernels of a select, each once, in order; none: one kernel */
	int nkvars;
	plk_mrule *rules;            /* the select's branches, in order (a kernel may have several) */
	int nrules;
	/* "requires": the kernel's `require`, all must hold to launch it (not
	 * named `requires`, C++20's keyword: comm.cc includes this) */
	plk_mcond *reqs;
	int nreqs;
	/* "int32": what else the kernel computes in C's int from the shape
	 * symbols and its integer params; plk_resolve refuses a launch where
	 * one would not fit, as plk_work_items does the grid's counts */
	char **ints;
	int nints;
	/* "int64": the same in C's long long (an i64 param's expression) */
	char **ints64;
	int nints64;
} plk_manifest;

/* manifest.c */
plk_manifest *plk_manifest_parse(const char *json, size_t len, char *err);
void plk_manifest_free(plk_manifest *m);
/* Applies the variant for a device of compute capability major.minor:
 * the one whose arch is sm_<major><minor> (with or without a suffix),
 * else the newest plain sm_<major><n> with n <= minor. Returns the index
 * chosen, -1 when none matches (the top level stays). */
int plk_manifest_select(plk_manifest *m, int major, int minor);
int plk_manifest_tensor(const plk_manifest *m, const char *name);   /* -1: none */
/* A param the caller binds by name: no tensor, no dim, not the workspace. */
static inline int plk_mparam_free(const plk_mparam *p)
{
	return p->tensor < 0 && !p->dim && p->kind != PK_WORKSPACE;
}
int plk_manifest_variant(const plk_manifest *m, const char *name);  /* kvars index; -1: none */
/* The device's values a rule or a `require` may name (docs/language.md,
 * "Variants"): SMS and DRAM_GBPS. */
typedef struct plk_device_vals {
	int64_t sms;                 /* multiprocessors */
	int64_t dram_gbps;           /* peak DRAM bandwidth, GB/s: memory clock x bus width */
} plk_device_vals;
/* The kernel variant (kvars index) of the first rule whose conditions,
 * and its kernel's `require`, hold for the symbol values sym (m's order)
 * and the device dv; an error when none does. */
int plk_variant_pick(const plk_manifest *m, const int64_t *sym, const plk_device_vals *dv, int *pick, char *err);
/* 0 when every condition of m's "requires" holds for the symbols (the
 * kernel's `require`); else -1, the first that fails in err. */
int plk_requires_check(const plk_manifest *m, const int64_t *sym, const plk_device_vals *dv, char *err);
int plk_manifest_param(const plk_manifest *m, const char *name);
int plk_manifest_sym(const plk_manifest *m, const char *name);
/* An i32 or i64 param the caller binds by name ("int32"'s names beside
 * the symbols), named by len bytes of name; -1: none. */
int plk_manifest_int_param(const plk_manifest *m, const char *name, size_t len);
int plk_param_bytes(plk_pkind k);          /* size in the kernel's parameter list */
const char *plk_pkind_name(plk_pkind k);

/* expr.c: the recipe's integer expressions (+ - * / %, unary -, parens,
 * ceil_div/min/max). lookup returns 0 and sets *v when the name has a
 * value. Division by zero and overflow are errors. */
typedef int (*plk_lookup)(void *ctx, const char *name, size_t len, int64_t *v);
int plk_expr_eval(const char *s, plk_lookup lookup, void *ctx, int64_t *out, char *err);
/* The same for an expression the kernel computes too (its grid's tiles
 * and split, its workspace's counters): every value along the way must
 * fit the 32-bit int the glue computes it in, else an error. */
int plk_expr_eval32(const char *s, plk_lookup lookup, void *ctx, int64_t *out, char *err);
/* ... and in the kernel's long long (an i64 param's expression): ceil_div's
 * a + b - 1 must fit 64 bits too. */
int plk_expr_eval64(const char *s, plk_lookup lookup, void *ctx, int64_t *out, char *err);
/* Calls each(ctx, name, len) for every symbol in s; checks the syntax. */
int plk_expr_names(const char *s, void (*each)(void *ctx, const char *name, size_t len),
                   void *ctx, char *err);

/* What the caller supplied; arrays sized by the manifest. */
typedef struct plk_binding {
	uint64_t *tptr;              /* per tensor: device pointer (0: unset) */
	int64_t (*tshape)[PLK_MAX_RANK];
	int *tshape_rank;            /* 0: shape not given */
	int64_t *sym;                /* per symbol */
	int *sym_set;                /* 0 unset, 1 given, 2 inferred (by sym_from) */
	int *sym_from;               /* tensor index that gave an inferred symbol */
	uint64_t *pval;              /* per param without tensor/dim: raw value */
	int *pval_set;
} plk_binding;

plk_binding *plk_binding_new(const plk_manifest *m);
/* Setters by name. A tensor's shape (outermost first) is optional;
 * scalars are checked against the parameter's kind. */
int plk_binding_tensor(const plk_manifest *m, plk_binding *b, const char *name, uint64_t ptr,
                       const int64_t *shape, int rank, char *err);
int plk_binding_dim(const plk_manifest *m, plk_binding *b, const char *sym, int64_t v, char *err);
int plk_binding_ptr(const plk_manifest *m, plk_binding *b, const char *param, uint64_t ptr, char *err);
int plk_binding_int(const plk_manifest *m, plk_binding *b, const char *param, int64_t v, char *err);
int plk_binding_float(const plk_manifest *m, plk_binding *b, const char *param, double v, char *err);
void plk_binding_free(plk_binding *b);
void plk_binding_clear(const plk_manifest *m, plk_binding *b);

/* The resolved launch: everything except encoded tensor maps. */
typedef struct plk_tmap_args {
	int dtype;                   /* CUtensorMapDataType */
	uint32_t rank;
	uint64_t addr;
	uint64_t dim[PLK_TMAP_MAX_RANK];       /* innermost first */
	uint64_t stride[PLK_TMAP_MAX_RANK - 1];/* bytes, of dims 1..rank-1 */
	uint32_t box[PLK_TMAP_MAX_RANK];
	uint32_t estride[PLK_TMAP_MAX_RANK];
	int swizzle;                 /* CUtensorMapSwizzle */
	int l2promo;                 /* CUtensorMapL2promotion */
} plk_tmap_args;

typedef struct plk_plan {
	int64_t *sym;                /* value of every symbol */
	int64_t (*tdims)[PLK_MAX_RANK];/* per tensor, outermost first */
	uint64_t *pval;              /* per param: ptr or scalar bits (tensormaps: 0) */
	plk_tmap_args *tmap;         /* per param; valid for tensormaps */
	int64_t work;                /* work items (tiles x splits) */
	int64_t ws_bytes;            /* the workspace param's size; -1: no such param */
	int64_t ws_zero;             /* its bytes to zero when the shape changes */
	int64_t sms;                 /* SMS in expressions: blocks resident at once (the caller's) */
	int ws_param;
	unsigned grid[3];
} plk_plan;

plk_plan *plk_plan_new(const plk_manifest *m);
void plk_plan_free(plk_plan *p);

/* Infers symbols from given shapes, checks them, evaluates every dim and
 * scalar, fills the tensor-map arguments. Grid is left to plk_grid. */
int plk_resolve(const plk_manifest *m, const plk_binding *b, plk_plan *p, char *err);
/* Only the first part: symbols and tensor dims (pointers not needed). */
int plk_resolve_shapes(const plk_manifest *m, const plk_binding *b, plk_plan *p, char *err);

/* Work items: product over grid.tiles of ceil(value / tile), times grid.split. */
int plk_work_items(const plk_manifest *m, const int64_t *sym, int64_t *work, char *err);
/* Blocks to launch. capacity: blocks resident at once for a persistent
 * launch (SM count, or active clusters x cluster size); whole clusters
 * are launched, as grid (clusters * cx, cy, cz). */
int plk_grid(const plk_manifest *m, int64_t work, int64_t capacity, unsigned grid[3], char *err);

/* cuTensorMapEncodeTiled arguments for a row-major tensor (dims
 * outermost first). */
int plk_tmap_compute(const char *dtype, int elem_bytes, const int64_t *dims, int rank,
                     uint64_t addr, const uint32_t *box, int box_rank, int swizzle_bytes,
                     plk_tmap_args *out, char *err);
int plk_tmap_dtype(const char *dtype, int elem_bytes);   /* -1: none */

/* cubin.c: how many parameters kernel entry takes, from a cubin's
 * .nv.info.ENTRY section; -1 when the image is no cubin (a fatbin, PTX)
 * or does not say. */
int plk_cubin_param_count(const void *image, size_t size, const char *entry);

/* The name of a CUresult from cuda.h's list ("CUDA_ERROR_STUB_LIBRARY"),
 * for when cuGetErrorName cannot answer (the toolkit's stub library
 * answers nothing); NULL for a code cuda.h does not list. */
const char *plk_cuda_error_table(int code);
/* What CUDA_ERROR_STUB_LIBRARY means, for its messages. */
#define PLK_STUB_HINT "the CUDA toolkit's stub libcuda was loaded, not the driver's: no NVIDIA driver is " \
	"installed, or LD_LIBRARY_PATH names the toolkit's lib64/stubs"

#endif
