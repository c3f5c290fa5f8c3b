/* graph.h: the checked composition graph (check.c builds it) and its
 * placement (place.c), which the later stages read. Part of plk.h, which
 * includes it: include plk.h. */
#ifndef PLK_GRAPH_H
#define PLK_GRAPH_H

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
	int bits;                /* with expr: the width the kernel computes it in
	                            (check_ints): 64 for an i64 or u64 param (long
	                            long), else 32 (int) */
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
	/* Expr*: an `i64` param's bound expression, which the kernel computes
	 * in 64-bit long long: the same for 64 bits ("int64"). */
	Vec ints64;
	/* The recipe's facts the manifest prints and no kernel computes, with
	 * their names resolved as the kernel's (resolve_names): the kernel's
	 * `require`s (Require*) and each tensor param's sizes (Expr*, the
	 * tensors' in param order, one after another). */
	Vec requires, tensor_dims;
} Graph;

/* graph.c: facts of a checked graph that several stages read */
Span kernel_span(const Graph *g);   /* the kernel's name; span_none without one */
int inst_lanes(const Graph *g, const GInst *in);   /* its role's pingpong lanes, else 1 */
/* The `inst` ids its instances take (abi_inst): instances x the most lanes;
 * the next kernel of one cubin starts after them (Graph.inst_base). */
int graph_ids(const Graph *g);
/* A name in one of g's run-time expressions (its grid, an expression
 * bound to an integer param, a tensor's sizes, a `require`), as
 * check_bind allows it: an integer kernel parameter or shape symbol
 * (*index: its index in g->kparams) before a recipe const (*index in
 * g->consts); a tensor's map or pointer is none, whatever its name. check
 * decides it once for every expression of the graph that a later stage
 * reads (graph_resolve, Expr.ref); nothing after check asks it again. */
NameRef graph_name(const Graph *g, const char *name, int *index);
int graph_const(const Graph *g, const char *name, int64_t *val);   /* 1: a const of g's kernel */
/* e with each name resolved (Expr.ref), a copy: check's last step over
 * every expression the kernel computes (Graph.tiles, split, ...). */
Expr *graph_resolve(Arena *a, const Graph *g, const Expr *e);
/* the value of a resolved name's const (ref NAME_CONST) */
int64_t graph_constval(const Graph *g, const Expr *e);
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

#endif
