/* check.h: the checker's private state and what its files share; the
 * rest of plkc sees only check_kernel (stages.h).
 *
 *   check.c        the driver: kernel consts, then each step in order
 *   check_types.c  stdlib lookups, port types, port agreement
 *   check_inst.c   instances: cparams, warps, ports, buffers, barriers
 *   check_graph.c  edges, dataflow order, roles
 *   check_bind.c   kernel params, shape symbols, grid, bindings
 *   check_rules.c  the composition rules the driver runs last; then each
 *                  run-time name resolved once, the kernel's int32 list
 *   check_split.c  split grids: split ports, partial sums, the reduction
 *   check_select.c a select's variants and conditions, a kernel's require */
#ifndef PLK_CHECK_H
#define PLK_CHECK_H

#include "plk.h"

typedef struct Chk {
	Ctx *c;
	const Program *p;
	const Kernel *k;
	const ArchInfo *arch;
	Graph *g;
	Scope kscope;            /* the kernel's consts */
	const char **dims;       /* shape symbols of the kernel's tensors */
	Span *dim_sp;
	int ndims;
	int *kused;              /* per kernel param: bound or referenced */
	Vec bounds;              /* Bound*: what bind_params resolved, for order_kparams */
	const Policy *order;     /* `grid order(INST)`, resolved by check_order once instances exist */
	const Policy *split;     /* `grid split(S)`, resolved by check_split */
	const Policy *dynamic;   /* `grid dynamic`, checked by check_dynamic */
	NameMap inst_map;        /* GInst*, by instance name */
} Chk;

static inline Arena *A(Chk *k) { return k->c->arena; }
static inline int span_same(Span a, Span b) { return a.src == b.src && a.off == b.off && a.end == b.end; }

/* check.c */
const char **names_of_vec(Chk *k, const Vec *v, size_t name_off, int *n);
/* e over gi's cparams (gi NULL: the kernel's consts), positive; else reported. */
int eval_pos(Chk *k, const Expr *e, const GInst *gi, const char *what, int64_t *out);
int64_t kconst(Chk *k, const char *name, int *found);

/* check_types.c */
const DtypeInfo *need_dtype(Chk *k, const char *name, Span sp);
const LayoutInfo *need_layout(Chk *k, const char *name, Span sp, int want_frag);
unsigned need_feature(Chk *k, const Feature *f);
char *arches_with(Chk *k, unsigned bit);
const HookKind *need_hook_kind(Chk *k, const char *name, Span sp);
char *field_str(Chk *k, const GField *f, int frag);
char *port_str(Chk *k, const GPort *p);
GPort *type_port(Chk *k, const Port *p, const GInst *gi);
int compare_ports(Chk *k, const Conn *cn, const GInst *ai, const GPort *a, const GInst *bi, const GPort *b);

/* check_inst.c */
/* Where instance gi's cparam `name` got its value (in *val): its argument
 * `name = ...`, else the kernel's `const name = ...`, else the contract's
 * default; span_none when gi has no such cparam. */
Span cparam_origin(Chk *k, const GInst *gi, const char *name, int64_t *val);
/* For each name e uses, "`NAME` is V here" at where its value was set:
 * gi's cparams (cparam_origin), or with gi NULL the kernel's consts (e is
 * in the kernel's terms); none twice, none where d has a label already. */
void label_origins(Chk *k, Diag *d, const GInst *gi, const Expr *e);
const Arg *find_arg(const Inst *in, const char *name);
GInst *inst_named(Chk *k, const char *name);
Scope inst_scope(Chk *k, const GInst *gi);
void make_insts(Chk *k);

/* check_graph.c */
void make_edges(Chk *k);
void check_unconnected(Chk *k);
void make_roles(Chk *k);

/* check_bind.c */
void kernel_params(Chk *k);
void check_grid(Chk *k);
void check_order(Chk *k);
int bind_params(Chk *k);
void check_unused(Chk *k);
void order_kparams(Chk *k);

/* check_rules.c */
void check_requires(Chk *k);
void check_counts(Chk *k);
void check_ahead(Chk *k);
void check_clusters(Chk *k);
void check_lanes(Chk *k);
void resolve_names(Chk *k);
void check_ints(Chk *k);
Expr *kernel_terms(Chk *k, const GInst *gi, const Expr *e, const char **bad);
/* check_split.c */
void check_split(Chk *k);
void check_dynamic(Chk *k);
void check_warps(Chk *k);
void check_resources(Chk *k);

#endif
