"""The benchmark's configurations: shapes x tile shapes x epilogues.

Each links a recipe of examples/ (with `edit` replacements applied) for
`arch`, and runs at every `shapes` entry (M, N, K). `kind` picks the
reference and the baseline in bench/linked_bench.py:
  gemm       C = A B^T                      baseline: cuBLAS
  bias_gelu  C = gelu_tanh(A B^T + bias)    baseline: cuBLAS + torch.compile'd epilogue
  swiglu     Y = silu(A Wg^T) * (A Wu^T)    baseline: cuBLAS + torch.compile'd activation
             (W interleaves gate and up rows in blocks of 8: docs/components.md)
"""

GEMM_SHAPES = [(8192, 8192, 8192), (4096, 4096, 4096), (8192, 28672, 4096), (16384, 14336, 4096)]
SWIGLU_SHAPES = [(8192, 14336, 4096), (4096, 8192, 4096)]
BN128 = [("const BM = 128, BN = 256, BK = 64", "const BM = 128, BN = 128, BK = 64")]

CONFIGS = [
    dict(name="gemm_128x256", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES),
    dict(name="gemm_128x128", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES[:2], edit=BN128),
    dict(name="swiglu_tma_128x256", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES),
    dict(name="swiglu_tma_128x128", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES[1:],
         edit=BN128 + [("const WG = 2, WARPS = 4 * WG", "const WG = 2, WARPS = 4 * WG, CH = 64")]),
    dict(name="swiglu_regs_128x256", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES[1:],
         edit=[('use "../components/hopper/swiglu_tma.plk"', 'use "../components/common/swiglu.plk"'),
               ("act  = swiglu_tma(y = Y)", "act  = swiglu(y = Y)")]),
    dict(name="bias_gelu_128x256", recipe="examples/gemm_bias_gelu.plk", arch="sm_90a",
         kind="bias_gelu", shapes=GEMM_SHAPES[:2]),
    # the register-store epilogue (hopper/bias_gelu: no staging, no TMA)
    dict(name="bias_gelu_regs_128x256", recipe="examples/gemm_bias_gelu.plk", arch="sm_90a",
         kind="bias_gelu", shapes=GEMM_SHAPES[:2],
         edit=[('use "../components/hopper/bias_gelu_tma.plk"', 'use "../components/hopper/bias_gelu.plk"'),
               ("epi  = bias_gelu_tma(c = C, bias = bias)", "epi  = bias_gelu(c = C, bias = bias)")]),
    # B multicast across 2 x 1 clusters (tma_load_ab MCAST = 2)
    dict(name="gemm_mcast_128x256", recipe="examples/gemm_mcast.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES),
    dict(name="swiglu_mcast_128x256", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES[:1],
         edit=[("const WG = 2, WARPS = 4 * WG", "const WG = 2, WARPS = 4 * WG, MCAST = 2"),
               ("raster grouped(8)", "raster grouped(8), cluster(2, 1)")]),
    dict(name="sm80_swiglu_128x128", recipe="examples/gemm_swiglu_sm80.plk", arch="sm_90",
         kind="swiglu", shapes=SWIGLU_SHAPES[1:]),
]


# Exploration: variants of the SwiGLU composition at the shape that misses
# its target, and its bound (the same mainloop with an epilogue that stores
# nothing: `bound` configurations are timed but not checked).
SWIGLU_BIG = SWIGLU_SHAPES[:1]
DISCARD = [('use "../components/hopper/swiglu_tma.plk"', 'use "../bench/components/discard.plk"'),
           ("act  = swiglu_tma(y = Y)", "act  = discard(y = Y)")]
EXPLORE = [
    dict(name="swiglu_tma_128x256", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES),
    dict(name="discard_128x256", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES, edit=DISCARD, bound=True),
    dict(name="swiglu_raster4", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_BIG, edit=[("raster grouped(8)", "raster grouped(4)")]),
    dict(name="swiglu_raster16", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_BIG, edit=[("raster grouped(8)", "raster grouped(16)")]),
    dict(name="discard_mcast", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_BIG, bound=True,
         edit=DISCARD + [("const WG = 2, WARPS = 4 * WG", "const WG = 2, WARPS = 4 * WG, MCAST = 2"),
                         ("raster grouped(8)", "raster grouped(8), cluster(2, 1)")]),
]

# Pingpong lanes (`pingpong = 2` on the operand ring): each consumer
# warpgroup computes a whole 128 x 128 tile, the two take tiles in turn.
PINGPONG = [("const WG = 2, WARPS = 4 * WG", "const WG = 1, WARPS = 4 * WG, CH = 64"),
            ("load.ab -> mma.ab [stages = auto]", "load.ab -> mma.ab [stages = auto, pingpong = 2]")]
PINGPONG_CONFIGS = [
    dict(name="gemm_pingpong_128x128", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES),
    dict(name="swiglu_pingpong_128x128", recipe="examples/gemm_swiglu_pingpong.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES),
    dict(name="bias_gelu_pingpong_128x128", recipe="examples/gemm_bias_gelu.plk", arch="sm_90a",
         kind="bias_gelu", shapes=GEMM_SHAPES[:2], edit=BN128 + PINGPONG),
]
PINGPONG_EXPLORE = [
    dict(name="discard_pingpong", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_BIG, bound=True, edit=DISCARD + BN128 + PINGPONG),
    dict(name="swiglu_pingpong_r16", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_BIG,
         edit=BN128 + PINGPONG + [("raster grouped(8)", "raster grouped(16)")]),
    dict(name="swiglu_pingpong_s5", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_BIG,
         edit=BN128 + [PINGPONG[0], ("load.ab -> mma.ab [stages = auto]",
                                     "load.ab -> mma.ab [stages = 4, pingpong = 2]")]),
]

# Pingpong lanes with B multicast to a 2 x 1 cluster (exploration).
MCAST_PP = [("const BM = 128, BN = 128, BK = 64", "const BM = 128, BN = 128, BK = 64, MCAST = 2"),
            ("raster grouped(8)", "raster grouped(8), cluster(2, 1)")]
PINGPONG_MCAST = [
    dict(name="gemm_pingpong_mcast", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES, edit=MCAST_PP),
    dict(name="swiglu_pingpong_mcast", recipe="examples/gemm_swiglu.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES, edit=BN128 + PINGPONG + [
             ("raster grouped(8)", "raster grouped(8), cluster(2, 1)"),
             ("const WG = 1, WARPS = 4 * WG, CH = 64", "const WG = 1, WARPS = 4 * WG, CH = 64, MCAST = 2")]),
]

# Pingpong lanes on 64 x 256 tiles: one m64n256k16 wgmma per k16 step.
PP64 = [('const BM = 128, BN = 128, BK = 64', 'const BM = 64, BN = 256, BK = 64')]
PINGPONG_64 = [
    dict(name="swiglu_pingpong_64x256", recipe="examples/gemm_swiglu_pingpong.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_SHAPES, edit=PP64),
    dict(name="gemm_pingpong_64x256", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES[2:], edit=PP64),
]

SETS = dict(main=CONFIGS + PINGPONG_CONFIGS, explore=EXPLORE,
            pingpong=[CONFIGS[0], CONFIGS[2], CONFIGS[5]] + PINGPONG_CONFIGS + PINGPONG_EXPLORE,
            mcast_pingpong=PINGPONG_CONFIGS[:2] + PINGPONG_MCAST,
            # the two configurations whose monolith differs most from the link
            monolith_gap=[CONFIGS[-1], PINGPONG_CONFIGS[1]],
            pingpong_64=PINGPONG_CONFIGS[:2] + PINGPONG_64)

# The pingpong turn: handed off by the mainloop (`handoff` on
# wgmma_mainloop's ring port, the default) against the glue passing it
# when the mainloop returns (the same contract without `handoff`), and
# where the mainloop passes it (its TURN: 2 right after committing its last
# wgmma group, the default; 1 once only that group is in flight; 0 after
# all have drained, which should time as the glue's return).
LATE_TURN = {"components/hopper/wgmma_mainloop.plk": [("\n         handoff ", "\n         // (no handoff) ")]}
PP_CONST = "const WG = 1, WARPS = 4 * WG, CH = 64"
def turn(t, kind):   # the examples say TURN = 2
    return [(PP_CONST + ", TURN = 2", PP_CONST + ", TURN = %d" % t)]
TURNS = [
    dict(name="gemm_pingpong_late", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES[2:3], contracts=LATE_TURN),
    dict(name="swiglu_pingpong_late", recipe="examples/gemm_swiglu_pingpong.plk", arch="sm_90a",
         kind="swiglu", shapes=SWIGLU_BIG, contracts=LATE_TURN),
] + [dict(name="%s_pingpong_t%d" % (k, t), recipe="examples/gemm%s_pingpong.plk" % ("_swiglu" if k == "swiglu" else ""),
          arch="sm_90a", kind=k, shapes=GEMM_SHAPES[2:3] if k == "gemm" else SWIGLU_BIG, edit=turn(t, k))
     for k in ("gemm", "swiglu") for t in (0, 1, 2)]

# 3 and 4 lanes fit the block's registers only with smaller tiles: 64 x 128
# per lane (64 accumulator registers a thread) and lower budgets (E0403:
# the budgets must fit threads x the entry cap, 640 x 96 for four lanes).
def lanes(n, regs):
    return [("const BM = 128, BN = 128, BK = 64", "const BM = 64, BN = 128, BK = 64, REGS = %d" % regs),
            ("pingpong = 2", "pingpong = %d" % n)]
LANES = [
    dict(name="gemm_pingpong3_64x128", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES[:2], edit=lanes(3, 152)),
    dict(name="gemm_pingpong4_64x128", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=GEMM_SHAPES[:2], edit=lanes(4, 104)),
    dict(name="sm80_swiglu_pingpong", recipe="examples/gemm_swiglu_sm80.plk", arch="sm_90",
         kind="swiglu", shapes=SWIGLU_SHAPES[1:],
         edit=[("load.ab -> mma.ab [stages = auto]", "load.ab -> mma.ab [stages = auto, pingpong = 2]")]),
]
SETS["lanes"] = LANES + TURNS
SETS["turn"] = TURNS

# bias+GELU on lanes: the early turn (TURN 2, the mainloop's default) against
# TURN 0, as for the SwiGLU.
SETS["bias_gelu_turn"] = [
    dict(name="bias_gelu_pingpong_t%d" % t, recipe="examples/gemm_bias_gelu.plk", arch="sm_90a",
         kind="bias_gelu", shapes=GEMM_SHAPES[:2],
         edit=BN128 + [(PINGPONG[0][0], PINGPONG[0][1] + ", TURN = %d" % t), PINGPONG[1]])
    for t in (2, 0)]

# Two source revisions side by side (bench/README.md, "Two revisions"): the
# kernels that set the SwiGLU and GEMM figures, built once per revision
# into one directory with `prepare.py --suffix _base` and `--append`.
SETS["core"] = [CONFIGS[2], PINGPONG_CONFIGS[0], PINGPONG_CONFIGS[1]]

# Two wgmma groups in flight (wgmma_mainloop's INFLIGHT = 2) against one,
# for the kernels of the `core` set: `prepare.py --set core` and then
# `--set inflight --append` into one directory.
IF2 = ", INFLIGHT = 2"
SETS["inflight"] = [
    dict(CONFIGS[2], name="swiglu_tma_if2", shapes=SWIGLU_SHAPES,
         edit=[("const WG = 2, WARPS = 4 * WG", "const WG = 2, WARPS = 4 * WG" + IF2)]),
    dict(PINGPONG_CONFIGS[0], name="gemm_pingpong_if2", edit=[(PP_CONST + ", TURN = 2", PP_CONST + ", TURN = 2" + IF2)]),
    dict(PINGPONG_CONFIGS[1], name="swiglu_pingpong_if2", edit=[(PP_CONST + ", TURN = 2", PP_CONST + ", TURN = 2" + IF2)]),
]


# Attention (bench/attn_bench.py, docs/attention.md): every variant links
# the same core; `kind` picks the mask and score mod of the reference and
# the baselines. Shapes are (B, H, HKV, SQ, SKV); check_shapes are the
# small and odd ones checked against the fp32 reference before timing.
ATTN_CHECK = [(1, 2, 2, 1000, 1000), (1, 2, 1, 4097, 4097), (2, 4, 2, 640, 640), (1, 2, 2, 257, 257)]
ATTN_CHECK_XL = ATTN_CHECK + [(1, 2, 2, 500, 1300), (1, 2, 2, 1300, 500)]   # SQ != SKV
ATTN_BIG = [(2, 16, 16, 8192, 8192)]
ATTN_D64 = [("const BM = 128, BN = 128, HD = 128", "const BM = 192, BN = 128, HD = 64, LREGS = 32")]   # 3 warpgroups
W2_D64 = [("const BM = 128, BN = 128, HD = 128", "const BM = 128, BN = 128, HD = 64")]   # 2 warpgroups

# lpt_order's line in the recipes that take it, and the two grids
LPT_G = "lpt  = lpt_order(G = max(1, 12582912 / (SKV * HD)))"
INDEX_GRID = "grid persistent, tiles(ceil_div(SQ, BM), B * H), dynamic"
LPT_GRID = "grid persistent, tiles(ceil_div(SQ, BM), B * H), order(lpt), dynamic"
# examples/attn_document.plk's items in lpt_order's order; at head dim 64
# pipelink.attention takes them in index order (2026-12-03-attention-sliding-order.md)
DOC_INDEX = [(LPT_GRID, INDEX_GRID), ("  %s   // 48 MiB of K and V: the L2\n" % LPT_G, "")]


# examples/attn_dense.plk is a select of two kernels, 128- and 176-key
# blocks (docs/attention.md, "Wide KV blocks"): a configuration is one of
# them, the 128-key one unless it names the other.
DENSE_WIDE = "attn_dense_bn176"


def _attn(kind, recipe, hd, shapes, check):
    """At head dim 64 the tiles and order pipelink.attention takes
    (_attention.py): two warpgroups for the sliding window, softcap and the
    document mask (its items in index order), three for dense and causal."""
    edit = [] if hd == 128 else W2_D64 if kind in ("sliding", "softcap", "document") else ATTN_D64
    if kind == "document" and hd == 64:
        edit = edit + DOC_INDEX
    kern = dict(kernel="attn_%s_bn128" % recipe) if recipe in ("dense", "causal") else {}
    return dict(kern, name="attn_%s_d%d" % (kind, hd), recipe="examples/attn_%s.plk" % recipe, arch="sm_90a",
                kind=kind, hd=hd, shapes=shapes, check_shapes=check, edit=edit)


SETS["attention"] = [
    # attn_dense's select: the 176-key variant from 4k keys on, the 128-key one under
    dict(_attn("dense", "dense", 128, [(2, 16, 16, 8192, 8192), (1, 16, 16, 16384, 16384), (2, 32, 8, 8192, 8192)],
               ATTN_CHECK_XL), kernel=DENSE_WIDE),
    dict(_attn("dense", "dense", 128, [(8, 16, 16, 2048, 2048)], ATTN_CHECK_XL), name="attn_dense_d128_bn128"),
    # attn_causal's select: 128-key blocks under 4k keys, 176 from there, GQA dealt round robin
    _attn("causal", "causal", 128, [(8, 16, 16, 2048, 2048)], ATTN_CHECK_XL),
    dict(_attn("causal", "causal", 128, [(2, 16, 16, 8192, 8192), (1, 16, 16, 16384, 16384)], ATTN_CHECK_XL),
         name="attn_causal_d128_bn176", kernel="attn_causal_bn176"),
    dict(_attn("causal", "causal", 128, [(2, 32, 8, 8192, 8192)], ATTN_CHECK_XL),
         name="attn_causal_d128_gqa", kernel="attn_causal_gqa"),
    _attn("dense", "dense", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL),
    _attn("causal", "causal", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL),
    # two warpgroups at HD = 64 (BM = 128), against the three above
    dict(_attn("causal", "causal", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK[:2]), name="attn_causal_d64w2",
         edit=[("const BM = 128, BN = 128, HD = 128", "const BM = 128, BN = 128, HD = 64")]),
] + [_attn(kind, recipe, hd, ATTN_BIG if hd == 128 else [(2, 32, 32, 8192, 8192)],
           ATTN_CHECK if kind == "document" else ATTN_CHECK_XL)
     for kind, recipe in (("sliding", "sliding"), ("softcap", "softcap"), ("document", "document"))
     for hd in (128, 64)] + [
    _attn("block_sparse", "block_sparse", 128, ATTN_BIG, ATTN_CHECK_XL),
    # the block mask is of 128 x 128 blocks: q blocks of 128 rows, two warpgroups
    dict(_attn("block_sparse", "block_sparse", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL),
         edit=[("const BM = 128, BN = 128, HD = 128", "const BM = 128, BN = 128, HD = 64")]),
]

# The attention set's configurations that miss issue 15's targets (run
# 12), for a profile of where their time goes (bench/attn_profile.sh).
ATTN_MISSES = ("attn_dense_d128", "attn_dense_d64", "attn_causal_d64", "attn_causal_d64w2", "attn_sliding_d64",
               "attn_document_d64")
SETS["attn_misses"] = [c for c in SETS["attention"] if c["name"] in ATTN_MISSES]


# Deeper K and V rings for the short work items at head dim 64 (issue 15:
# sliding window 1.13x and document mask 1.43x FlexAttention, their tensor
# pipe busy ~40% against 62% dense; 2026-12-04-attention-profile-misses.md):
# a 128 x 64 K or V stage is 16 KB, so 4 stages fit where 2 did, and the
# loader can run further into the next item while this one ends (the
# epilogue, the first S and its softmax). The sliding window, document and
# softcap recipes take `stages = 256 / HD` (4 at D64), each here beside its
# rings of 2 and 3; causal (three warpgroups) beside 3 and 4.
KV_RING = "lkv.%s  -> core.%s [stages = %s]"
KV_STAGES = lambda a, b: [(KV_RING % (x, x, a), KV_RING % (x, x, b)) for x in "kv"]
SETS["attn_kv_stages"] = [
    dict(c, name=c["name"] + sfx, edit=c["edit"] + edit) if edit else c
    for c in SETS["attention"] if c["name"] in ("attn_sliding_d64", "attn_document_d64", "attn_causal_d64",
                                                 "attn_softcap_d64")
    for sfx, edit in ((("", []), ("_kv3", KV_STAGES(2, 3)), ("_kv4", KV_STAGES(2, 4)))
                      if c["name"] == "attn_causal_d64" else
                      (("", []), ("_kv2", KV_STAGES("256 / HD", 2)), ("_kv3", KV_STAGES("256 / HD", 3))))]


# ... and for the same short items: the pingpong turn not carried from
# item to item (CARRY = 0: each item starts and takes back the turn), and
# a third Q stage (16 KB at D64), each beside the recipe as committed.
# (Reading ahead needs the carried turn: the sliding window's recipe,
# which reads ahead since 2026-12-05-attention-ahead.md, turns it off.)
SHORT_CARRY0 = [("  core = attn_core()\n", "  core = attn_core(CARRY = 0)\n")]
NO_AHEAD = [("  const AHEAD = 1\n", "  const AHEAD = 0\n")]
SHORT_Q3 = [("lq.q   -> core.q [stages = 2]", "lq.q   -> core.q [stages = 3]")]
SETS["attn_short_items"] = [
    dict(c, name=c["name"] + sfx, edit=c["edit"] + edit) if edit else c
    for c in SETS["attention"] if c["name"] in ("attn_sliding_d64", "attn_document_d64")
    for sfx, edit in (("", []), ("_carry0", SHORT_CARRY0 + (NO_AHEAD if "sliding" in c["name"] else [])),
                      ("_q3", SHORT_Q3))]


# The sliding window's work items (bench/results/2026-12-03-attention-sliding-order.md):
# examples/attn_sliding.plk takes them in index order (a head's q blocks in
# a row: neighbours share most of their KV window) since that run; before
# it, lpt_order's (q blocks descending, 12 heads at a time). Both, and the
# pingpong turn not carried across items.
SLIDING_LPT = [
    ('use "../components/attention/sliding_window.plk"\n',
     'use "../components/attention/sliding_window.plk"\nuse "../components/attention/lpt_order.plk"\n'),
    (INDEX_GRID, LPT_GRID),
    ("  mask = sliding_window()\n", "  mask = sliding_window()\n  %s\n" % LPT_G)]
SETS["attn_sliding_order"] = [
    _attn("sliding", "sliding", 128, ATTN_BIG, ATTN_CHECK),
    dict(_attn("sliding", "sliding", 128, ATTN_BIG, ATTN_CHECK), name="attn_sliding_d128_lpt", edit=SLIDING_LPT),
    dict(_attn("sliding", "sliding", 128, ATTN_BIG, ATTN_CHECK), name="attn_sliding_d128_carry0",
         edit=[("const BM = 128, BN = 128, HD = 128", "const BM = 128, BN = 128, HD = 128, CARRY = 0")] + NO_AHEAD),
    _attn("sliding", "sliding", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK),
    dict(_attn("sliding", "sliding", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK), name="attn_sliding_d64_lpt",
         edit=W2_D64 + SLIDING_LPT),
]

# The document mask's items (uneven: causal within each document) in index
# order against lpt_order's.
SETS["attn_document_order"] = [
    _attn("document", "document", 128, ATTN_BIG, ATTN_CHECK),
    dict(_attn("document", "document", 128, ATTN_BIG, ATTN_CHECK), name="attn_document_d128_index", edit=DOC_INDEX),
    # at 64 the configuration is in index order since that run; `_lpt` as before it
    _attn("document", "document", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK),
    dict(_attn("document", "document", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK), name="attn_document_d64_lpt",
         edit=W2_D64),
]

# The shape suite (bench/shape_suite.py, which has its own shapes): every
# GEMM and GEMM + SwiGLU tile configuration a `select` can choose from,
# each timed against the baseline at every shape of the suite.
SETS["shape_suite"] = [CONFIGS[0], CONFIGS[1], PINGPONG_CONFIGS[0], PINGPONG_64[1],
                       CONFIGS[2], PINGPONG_CONFIGS[1], PINGPONG_64[0]]

# The user-facing selects, each linked whole (every variant in one cubin,
# the rule picking at launch; no monolith: bench/prepare.py), for
# bench/shape_suite.py's rows of what users run:
#   python3 bench/prepare.py --set auto_suite --out .carry/auto --repeat 1
SETS["auto_suite"] = [
    dict(name="gemm_auto", recipe="examples/gemm_auto.plk", arch="sm_90a", kind="gemm", shapes=[], select=True),
    dict(name="gemm_swiglu_auto", recipe="examples/gemm_swiglu_auto.plk", arch="sm_90a", kind="swiglu", shapes=[],
         select=True),
]

# Split K (`grid split`, docs/language.md): examples/gemm_auto.plk's split
# variants, each tile's K shared by up to 4 work items to fill one wave of
# 132 SMs, at the small-M shapes whose tiles alone leave most SMs idle;
# each against its monolith and cuBLAS. Their tiles hold 64 f32 of
# accumulator per thread (the reduction holds them twice).
SPLIT = [("raster grouped(8)", "raster grouped(8), split(min(4, 132 / (ceil_div(M, BM) * ceil_div(N, BN))))")]
SETS["split"] = [
    dict(name="gemm_pp64x128_split", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=[(16, 4096, 14336), (64, 4096, 14336), (1, 4096, 14336), (33, 4096, 4096)],
         edit=[('const BM = 128, BN = 128, BK = 64', 'const BM = 64, BN = 128, BK = 64')] + SPLIT),
    dict(name="gemm_128x128_split", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm",
         shapes=[(128, 4096, 14336), (256, 4096, 14336), (128, 4096, 4096), (200, 3000, 5000)],
         edit=BN128 + SPLIT),
]

# The shape suite's tuning table for examples/gemm_auto.plk: each of its
# variants as a fixed configuration (the split ones as SETS["split"]).
SETS["shape_suite_auto"] = [
    dict(name="pp64x128", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm", shapes=[],
         edit=[('const BM = 128, BN = 128, BK = 64', 'const BM = 64, BN = 128, BK = 64')]),
    dict(SETS["split"][0], shapes=[]),
    dict(SETS["split"][1], shapes=[]),
    dict(PINGPONG_CONFIGS[0], shapes=[]),
    dict(CONFIGS[0], shapes=[]),
]

# Stream-K (`split(auto)`): 64 x 128 tiles without lanes, the tiles' K
# tiles split evenly among the blocks, against the same tiles split
# min(4, 132 / tiles) ways (pingpong) and unsplit.
P64N = [('const BM = 128, BN = 128, BK = 64', 'const BM = 64, BN = 128, BK = 64')]
STREAM_SHAPES = [(1, 6144, 4096), (16, 6144, 4096), (64, 6144, 4096), (16, 14336, 4096), (16, 4096, 14336),
                 (128, 6144, 4096), (33, 776, 520), (300, 3000, 1000), (1024, 1024, 1024)]
SETS["stream"] = [
    dict(name="pp64x128_stream", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=STREAM_SHAPES, edit=P64N + [("[stages = auto, pingpong = 2]", "[stages = auto]"),
                                            ("raster grouped(8)", "raster grouped(8), split(auto)")]),
    dict(name="pp64x128_split", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=STREAM_SHAPES, edit=P64N + SPLIT),
    dict(name="pp64x128", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=STREAM_SHAPES, edit=P64N),
    dict(name="t128x128_stream", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=STREAM_SHAPES + [(2048, 2048, 2048), (4096, 4096, 4096)],
         edit=[("[stages = auto, pingpong = 2]", "[stages = auto]"),
               ("raster grouped(8)", "raster grouped(8), split(auto)")]),
]

# Attention tiles for the short work items of the sliding window and the
# document mask at head dim 64 (issue 15: both under 1.5x FlexAttention):
# q blocks of 128 rows on two warpgroups, against the 192 rows on three of
# the `attention` set (attn_*_d64). At W = 1024 a 128-row block visits 9
# KV blocks, 2 of them partial; a 192-row one 10-11, 4-5 partial. And the
# dense core at 240 registers with 24-register loaders (FA3's split).
SETS["attn_tiles"] = [
    dict(_attn("sliding", "sliding", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL), name="attn_sliding_d64w3",
         edit=ATTN_D64),
    dict(_attn("sliding", "sliding", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL), name="attn_sliding_d64w2"),
    _attn("document", "document", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK),
    dict(_attn("document", "document", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK), name="attn_document_d64w2",
         edit=W2_D64),
    dict(_attn("dense", "dense", 128, [(2, 16, 16, 8192, 8192), (2, 32, 8, 8192, 8192)], ATTN_CHECK_XL),
         ),
    dict(_attn("dense", "dense", 128, [(2, 16, 16, 8192, 8192), (2, 32, 8, 8192, 8192)], ATTN_CHECK_XL),
         name="attn_dense_d128_r240",
         edit=[("const BM = 128, BN = 128, HD = 128", "const BM = 128, BN = 128, HD = 128, REGS = 240, LREGS = 24")]),
]

# Wider KV blocks at head dim 128 (issue 15: dense D128 at 0.95x cuDNN;
# FA3 takes 128 x 176 there): the block's fixed costs (the pingpong turn,
# the ring waits, the row max's shuffles, O's rescale) over 1.25x and
# 1.375x the keys. Shared memory pays for it: one Q stage, and at 176 the
# output staged half its columns at a time (attn_store SPLIT = 2).
BN_SHAPES = [(8, 16, 16, 2048, 2048), (2, 16, 16, 8192, 8192), (1, 16, 16, 16384, 16384), (2, 32, 8, 8192, 8192)]
BN_Q1 = ("lq.q   -> core.q [stages = 2]", "lq.q   -> core.q [stages = 1]")
BN_TILES = "const BM = 128, BN = 128, HD = 128"
BN160 = [BN_Q1, (BN_TILES, "const BM = 128, BN = 160, HD = 128, REGS = 240, LREGS = 24")]
BN160_D64 = [BN_Q1, (BN_TILES, "const BM = 128, BN = 160, HD = 64")]
BN176 = [BN_Q1, (BN_TILES, "const BM = 128, BN = 176, HD = 128, REGS = 240, LREGS = 24, SPLIT = 2")]
SETS["attn_bn"] = [
    _attn("dense", "dense", 128, BN_SHAPES, ATTN_CHECK_XL),
    dict(_attn("dense", "dense", 128, BN_SHAPES[1:2], ATTN_CHECK[:1]), name="attn_dense_d128_q1",
         edit=[BN_Q1]),
    dict(_attn("dense", "dense", 128, BN_SHAPES, ATTN_CHECK_XL), name="attn_dense_d128_bn160", edit=BN160),
    dict(_attn("dense", "dense", 128, BN_SHAPES, ATTN_CHECK_XL), name="attn_dense_d128_bn176",
         kernel=DENSE_WIDE),
    _attn("causal", "causal", 128, BN_SHAPES[1:2] + BN_SHAPES[3:], ATTN_CHECK_XL),
    dict(_attn("causal", "causal", 128, BN_SHAPES[1:2] + BN_SHAPES[3:], ATTN_CHECK_XL), name="attn_causal_d128_bn176",
         edit=BN176),
]

# The 160-key blocks on every variant at head dim 128, and on the
# two-warpgroup tiles at head dim 64 (the sliding window's, causal's),
# each beside its 128-key form; the dense 176 once more, to be built
# with the glue's shared pointers 32-bit as well (--suffix _p3).
SETS["attn_bn2"] = [
    dict(_attn("dense", "dense", 128, BN_SHAPES, ATTN_CHECK_XL), name="attn_dense_d128_bn160",
         edit=BN160),
    dict(_attn("dense", "dense", 128, BN_SHAPES[1:2], ATTN_CHECK[:1]), name="attn_dense_d128_bn176",
         kernel=DENSE_WIDE),
    _attn("causal", "causal", 128, BN_SHAPES, ATTN_CHECK_XL),
    dict(_attn("causal", "causal", 128, BN_SHAPES, ATTN_CHECK_XL), name="attn_causal_d128_bn160", edit=BN160),
] + [x for kind in ("sliding", "softcap", "document")
     for x in (_attn(kind, kind, 128, ATTN_BIG, ATTN_CHECK),
               dict(_attn(kind, kind, 128, ATTN_BIG, ATTN_CHECK), name="attn_%s_d128_bn160" % kind, edit=BN160))] + [
    _attn("sliding", "sliding", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK),
    dict(_attn("sliding", "sliding", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK), name="attn_sliding_d64_bn160",
         edit=BN160_D64),
    dict(_attn("causal", "causal", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK[:2]), name="attn_causal_d64w2",
         edit=W2_D64),
    dict(_attn("causal", "causal", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK[:2]), name="attn_causal_d64w2_bn160",
         edit=BN160_D64),
]
SETS["attn_bn2_p3"] = [SETS["attn_bn2"][1]]

# With the glue's shared pointers 32-bit (docs/toolchain.md): the wider
# blocks on the causal and softcap variants at head dim 128, appended to
# the `attention` set's run (--append) beside their 128-key forms.
SETS["attn_wide"] = [
    dict(_attn(kind, kind, 128, BN_SHAPES if kind == "causal" else ATTN_BIG, ATTN_CHECK),
         name="attn_%s_d128_bn%d" % (kind, bn), edit=BN160 if bn == 160 else BN176)
    for kind in ("causal", "softcap") for bn in (160, 176)]

# Where attn_dense's select turns to 176-key blocks: both variants
# between the 2k and 8k keys timed before (it turned at SKV >= 4096 when
# this ran; at 3072 since).
SETS["attn_dense_mid"] = [
    dict(_attn("dense", "dense", 128, [(6, 16, 16, 3072, 3072), (4, 16, 16, 4096, 4096)], ATTN_CHECK[:1]),
         name="attn_dense_d128_mid%s" % k[-3:], kernel=k)
    for k in ("attn_dense_bn128", DENSE_WIDE)]

# lpt_order's group of G heads (the blocks running at once share their K
# and V in L2): the recipes' G = 48 MiB / (SKV * HD * 4) heads, 12 at 8k
# and HD 128, against fewer.
SETS["attn_lpt"] = [_attn("causal", "causal", 128, BN_SHAPES[1:], ATTN_CHECK[:1])] + [
    dict(_attn("causal", "causal", 128, BN_SHAPES[1:], ATTN_CHECK[:1]), name="attn_causal_d128_g%s" % g[0],
         edit=[(LPT_G, "lpt  = lpt_order(G = %s)" % g[1])])
    for g in (("4", "max(1, 4194304 / (SKV * HD))"), ("2", "max(1, 2097152 / (SKV * HD))"), ("1", "1"))]

# Skinny GEMMs (examples/gemm_skinny.plk, issue 16's small M): C^T = B A^T
# on 64-row tiles of the weights by 16 rows of A; the ring's depth and a K
# split varied (run 1 of bench/results/2026-12-02-skinny.md timed the
# recipe of then, split 4 ways, against these edits of it). And C of odd
# width, which no TMA map describes: the pingpong GEMM with register
# stores (store_bf16), as examples/gemm_auto.plk's gemm_odd.
SKINNY_SHAPES = [(m, n, k) for m in (1, 16) for (n, k) in ((14336, 4096), (4096, 14336), (6144, 4096),
                                                          (128256, 2048))] + [(7, 4095, 4096)]
SKINNY_GRID = "grid persistent, tiles(ceil_div(N, BM), ceil_div(M, BN))"
# examples/gemm_skinny.plk as committed (BK 128 since the skinny_bk run),
# and back to the 64-column K tiles the `skinny` set's runs timed
SKINNY_BK = "const BM = 64, BN = 16, BK = 128"
SKINNY_RING = "[stages = 8, pingpong = 2]"
SKINNY_BK64 = [(SKINNY_BK, "const BM = 64, BN = 16, BK = 64"), (SKINNY_RING, "[stages = 16, pingpong = 2]")]
SETS["skinny"] = [
    dict(name="skinny16", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm", shapes=SKINNY_SHAPES,
         edit=SKINNY_BK64),
    dict(name="skinny16_s8", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8], edit=SKINNY_BK64 + [("[stages = 16, pingpong = 2]", "[stages = auto, pingpong = 2]")]),
    dict(name="skinny16_s12", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8], edit=SKINNY_BK64 + [("[stages = 16, pingpong = 2]", "[stages = 12, pingpong = 2]")]),
    dict(name="skinny16_split4", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8],
         edit=SKINNY_BK64 + [("const BM = 64, BN = 16, BK = 64", "const BM = 64, BN = 16, BK = 64, WAVE = 132"),
               (SKINNY_GRID, SKINNY_GRID + ", split(min(4, max(1, 8 * WAVE / (ceil_div(N, BM) * ceil_div(M, BN)))))")]),
    # the same split without pingpong lanes: one consumer warpgroup takes
    # the block's items in turn (does the split lose to the lanes' order?)
    dict(name="skinny16_split4_single", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8],
         edit=SKINNY_BK64 + [("const BM = 64, BN = 16, BK = 64", "const BM = 64, BN = 16, BK = 64, WAVE = 132"),
               ("[stages = 16, pingpong = 2]", "[stages = 16]"),
               (SKINNY_GRID, SKINNY_GRID + ", split(min(4, max(1, 8 * WAVE / (ceil_div(N, BM) * ceil_div(M, BN)))))")]),
    # 128-row tiles of the weights (two m64 blocks on one warpgroup), K
    # split to fill one wave at most: cuBLAS's own kernel at 1x4096x14336
    # is such a split (128 x 8 tiles, 4 ways, 128 CTAs, and a reduction)
    dict(name="skinny128_split", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8],
         edit=SKINNY_BK64 + [("const BM = 64, BN = 16, BK = 64", "const BM = 128, BN = 16, BK = 64, WAVE = 132"),
               ("[stages = 16, pingpong = 2]", "[stages = 11, pingpong = 2]"),
               (SKINNY_GRID, SKINNY_GRID + ", split(min(4, max(1, WAVE / (ceil_div(N, BM) * ceil_div(M, BN)))))")]),
    dict(name="pp128_regs", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=[(4096, 4095, 4096), (4097, 4095, 4096), (1000, 2999, 1000), (4096, 4096, 4096)],
         edit=[('use "../components/hopper/store_bf16_tma.plk"', 'use "../components/hopper/store_bf16.plk"'),
               ("store = store_bf16_tma(c = C)", "store = store_bf16(c = C)")]),
]

# Wider K tiles (tma_load_ab / wgmma_mainloop BK 128 or 256: BK / 64 boxes
# of 64 columns per stage): at decode-sized M the GEMM streams the weights,
# and a 64-column box reads 128 contiguous bytes of each weight row; do 256
# or 512 per row per stage stream DRAM faster? The skinny tiles with the
# ring's bytes kept at 160 KiB (16 x 10, 8 x 20, 4 x 40 KiB), one split 2
# ways where the tiles fill under one wave; and 64 x 128 pingpong tiles at
# BK 128 for mid M (the stream set's pp64x128 at BK 64).
# (Run with the recipe at BK 64, 16 stages; it is BK 128, 8 stages since.)
SETS["skinny_bk"] = [
    dict(name="skinny16", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm", shapes=SKINNY_SHAPES[:8],
         edit=SKINNY_BK64),
    dict(name="skinny16_bk128", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8]),
    dict(name="skinny16_bk256", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8] + [(16, 6144, 4160), (7, 4095, 1000)], edit=[(SKINNY_BK, "const BM = 64, BN = 16, BK = 256"),
                                         (SKINNY_RING, "[stages = 4, pingpong = 2]")]),
    dict(name="skinny16_bk256_split2", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8],
         edit=[(SKINNY_BK, "const BM = 64, BN = 16, BK = 256"), (SKINNY_RING, "[stages = 4, pingpong = 2]"),
               (SKINNY_GRID, SKINNY_GRID + ", split(min(2, max(1, 132 / (ceil_div(N, BM) * ceil_div(M, BN)))))")]),
    dict(name="skinny16_bk128_split2", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
         shapes=SKINNY_SHAPES[:8],
         edit=[(SKINNY_GRID, SKINNY_GRID + ", split(min(2, max(1, 132 / (ceil_div(N, BM) * ceil_div(M, BN)))))")]),
    dict(name="pp64x128_bk128", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm",
         shapes=[(64, 6144, 4096), (128, 6144, 4096), (64, 4096, 14336), (256, 6144, 4096), (100, 1000, 4160)],
         edit=[(P64N[0][0], "const BM = 64, BN = 128, BK = 128")]),
]

# The skinny tiles as committed against stream-K over them (split(auto):
# every block walks an equal range of the K tiles of all tiles, so the
# last round of 64-row tiles (2004 at N = 128256: 15.2 a block) leaves
# no SM idle; stream-K takes no pingpong lanes, so one consumer
# warpgroup, the ring as deep)
SETS["skinny_sk"] = [
    dict(name="skinny16", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm", shapes=SKINNY_SHAPES[:8]),
    dict(name="skinny16_sk", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm", shapes=SKINNY_SHAPES[:8],
         edit=[(SKINNY_RING, "[stages = 8]"), (SKINNY_GRID, SKINNY_GRID + ", split(auto)")]),
    dict(name="skinny16_sk10", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm", shapes=SKINNY_SHAPES[:8],
         edit=[(SKINNY_RING, "[stages = 10]"), (SKINNY_GRID, SKINNY_GRID + ", split(auto)")]),
]

# Skinny tiles with their K split in S (fixed, not stream-K: the pingpong
# lanes stay): a 64 x 16 tile's partial is 4 KB, so the sum is cheap, and
# S items a tile fill the last round of tiles that a persistent grid runs
# part-empty (N = 128256: 2004 tiles, 15.2 a block; S = 2: 30.4, S = 4:
# 60.7). And the SwiGLU form (examples/gemm_swiglu_auto.plk's
# swiglu_skinny, W on the 64-row side) against swiglu_small, which M <= 64
# took: 2N / 256 tiles leave SMs idle at M = 16
SKINNY_SPLIT = [(SKINNY_GRID, SKINNY_GRID + ", split(%d)" % s) for s in (2, 4)]
SWIGLU_SKINNY_GRID = "grid persistent, tiles(ceil_div(2 * N, BM), ceil_div(M, BN))"
SWIGLU_SKINNY_SHAPES = [(m, n, k) for m in (1, 16) for (n, k) in ((14336, 4096), (8192, 2048), (11008, 4096))] + \
    [(7, 4096, 4096)]
SETS["skinny_split"] = [
    dict(name="skinny16", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm", shapes=SKINNY_SHAPES[:8]),
] + [dict(name="skinny16_s%d" % s, recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
          shapes=SKINNY_SHAPES[:8], edit=[e]) for s, e in zip((2, 4), SKINNY_SPLIT)] + [
    dict(name="swiglu_small", recipe="examples/gemm_swiglu_auto.plk", arch="sm_90a", kind="swiglu",
         shapes=SWIGLU_SKINNY_SHAPES, kernel="swiglu_small"),
] + [dict(name="swiglu_skinny%s" % ("_s%d" % s if s > 1 else ""), recipe="examples/gemm_swiglu_auto.plk",
          arch="sm_90a", kind="swiglu", shapes=SWIGLU_SKINNY_SHAPES, kernel="swiglu_skinny",
          edit=[(SWIGLU_SKINNY_GRID, SWIGLU_SKINNY_GRID + ", split(%d)" % s)] if s > 1 else [])
     for s in (1, 2, 5)] + [
    dict(name="swiglu_skinny_st11", recipe="examples/gemm_swiglu_auto.plk", arch="sm_90a", kind="swiglu",
         shapes=SWIGLU_SKINNY_SHAPES, kernel="swiglu_skinny", edit=[(SKINNY_RING, "[stages = 11, pingpong = 2]")]),
]

# exp2 on the MUFU alone (attn_exp2, components/attention/attn.cuh) against
# exp2f, whose range check adds a compare, a select and two multiplies per
# element: build the set once with the core's exp2f (--suffix _exp2f), once
# as committed (--append), and time both in one run.
SETS["attn_exp"] = [
    _attn("dense", "dense", 128, [(2, 16, 16, 8192, 8192), (8, 16, 16, 2048, 2048), (2, 32, 8, 8192, 8192)],
          ATTN_CHECK_XL),
    _attn("causal", "causal", 128, [(2, 16, 16, 8192, 8192), (2, 32, 8, 8192, 8192)], ATTN_CHECK_XL),
    _attn("dense", "dense", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL),
    _attn("causal", "causal", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL),
    _attn("sliding", "sliding", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL),
    _attn("sliding", "sliding", 128, ATTN_BIG, ATTN_CHECK_XL),
    _attn("softcap", "softcap", 128, ATTN_BIG, ATTN_CHECK_XL),
    _attn("document", "document", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK),
    _attn("block_sparse", "block_sparse", 128, ATTN_BIG, ATTN_CHECK_XL),
]

# 128 x 96 tiles (wgmma m64n96k16; register stores, as TMA boxes of C are
# 64 columns): where 128 x 128 tiles leave part of a wave idle, these come
# closer to whole waves (256 x 6144: 96 tiles of 128 x 128 on 132 SMs,
# 128 of 128 x 96; 1000 x 3000: 96 of 128 x 256 in one wave against 256
# of 128 x 96 in two waves of three-eighths the work). Pingpong lanes, and
# two warpgroups on one tile as examples/gemm.plk.
N96_SHAPES = [(1000, 3000, 1000), (256, 6144, 4096), (2048, 2048, 2048), (1024, 1024, 1024), (128, 6144, 4096),
              (4097, 4096, 4096), (256, 128256, 2048), (1000, 3001, 1000)]
REG_STORE = [('use "../components/hopper/store_bf16_tma.plk"', 'use "../components/hopper/store_bf16.plk"'),
             ("store = store_bf16_tma(c = C)", "store = store_bf16(c = C)")]
SETS["n96"] = [
    dict(name="pp128x96", recipe="examples/gemm_pingpong.plk", arch="sm_90a", kind="gemm", shapes=N96_SHAPES,
         edit=[("const BM = 128, BN = 128, BK = 64", "const BM = 128, BN = 96, BK = 64")] + REG_STORE),
    dict(name="w128x96", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm", shapes=N96_SHAPES,
         edit=[("const BM = 128, BN = 256, BK = 64", "const BM = 128, BN = 96, BK = 64")] + REG_STORE),
]

# attn_core's pingpong turn carried from one work item to the next (the
# prologue starts it once): warpgroup 0 issues the next item's S while the
# last warpgroup stores the item before, where each item began with both
# idle. Build once at the commit before (--suffix _base) and once after
# (--suffix _new --append); attn_bench times both in one run.
SETS["attn_turn"] = [
    _attn("causal", "causal", 128, BN_SHAPES, ATTN_CHECK_XL),
    dict(_attn("dense", "dense", 128, [(8, 16, 16, 2048, 2048)], ATTN_CHECK_XL), name="attn_dense_d128_bn128"),
    dict(_attn("dense", "dense", 128, [(2, 16, 16, 8192, 8192)], ATTN_CHECK_XL), kernel=DENSE_WIDE),
    _attn("causal", "causal", 64, [(2, 32, 32, 8192, 8192)], ATTN_CHECK_XL),
    _attn("sliding", "sliding", 128, ATTN_BIG, ATTN_CHECK_XL),
    _attn("document", "document", 128, ATTN_BIG, ATTN_CHECK),
    _attn("block_sparse", "block_sparse", 128, ATTN_BIG, ATTN_CHECK_XL),
]
SETS["attn_turn_wide"] = [dict(_attn("causal", "causal", 128, BN_SHAPES, ATTN_CHECK_XL), name="attn_causal_d128_bn176",
                               edit=BN176)]

# `grid dynamic` (docs/language.md): each block takes its next work item
# from a counter as it finishes one, against the static stride through
# the same order. Causal at S = 8k: the SMs active 88% of the kernel's
# time on average and 97% at most (Nsight Compute), cuDNN's 92% and 99%.
def _dyn(c):
    if "sliding" in c["recipe"]:   # dynamic in index order since 2026-12-03 (attn_sliding_order)
        return c
    grid = ("raster column, split(auto)", "raster column, dynamic") if "dense" in c["recipe"] else ("order(lpt)", "order(lpt), dynamic")
    return dict(c, edit=c["edit"] + [grid])


SETS["attn_dyn"] = [_dyn(c) for c in SETS["attn_turn"] + SETS["attn_turn_wide"]]

def _auto(kernel, shapes, name=None, edit=None):
    """examples/gemm_auto.plk's variant `kernel` as a configuration of its own."""
    c = dict(name=name or kernel, recipe="examples/gemm_auto.plk", kernel=kernel, arch="sm_90a", kind="gemm",
             shapes=shapes)
    return dict(c, edit=edit) if edit else c


# The shapes gemm_auto leaves below 0.95x cuBLAS (1000 x 3000 x 1000:
# cuBLAS runs 200 x 128 tiles in clusters of 4, 2026-12-03-cublas-kernels.md):
# gemm_auto's 128 x 256 tiles beside the same tiles with B multicast to
# 2 x 1 clusters (examples/gemm_mcast.plk).
MISS_SHAPES = [(1000, 3000, 1000), (256, 14336, 4096), (2000, 3000, 1000)]
SETS["mcast_miss"] = [
    _auto("gemm_wide", MISS_SHAPES),
    dict(name="gemm_mcast_128x256", recipe="examples/gemm_mcast.plk", arch="sm_90a", kind="gemm",
         shapes=MISS_SHAPES),
]

# Tiles whose count fills one wave closer than 128 x 256 does (gemm_auto's
# gemm_n192, gemm_n192_mc and gemm_n224): 1000 x 3000 makes 128 tiles of
# 128 x 192 on 132 SMs (96 of 128 x 256), 256 x 14336 128 of 128 x 224
# (112), each a quarter or an eighth less work than a 128 x 256 tile.
SETS["wave_tiles"] = [_auto(k, MISS_SHAPES)
                      for k in ("gemm_wide", "gemm_wide_mc", "gemm_n192", "gemm_n192_mc", "gemm_n224")]
# ... and the multicast ones in 2 x 2 clusters (tma_load_ab MCAST = 4: A
# shared along each tile row's pair of CTAs as well as B along each
# column's), at the shapes of the rule and one whose tiles fill no whole
# quads (5 x 3 pairs of 9 x 5 tiles of 128 x 192 at 1100 x 904). The H200
# runs at most 30 clusters of 4 of these blocks at once (120 CTAs), so
# 1000 x 3000's 32 quads of 128 x 192 take two waves: 128 x 224 (28
# quads) and 128 x 256 (24) fit in one.
QUAD = ("cluster(2, 1)", "cluster(2, 2)")
QUAD_SHAPES = MISS_SHAPES + [(1100, 904, 1000)]
SETS["wave_quads"] = [
    _auto("gemm_n192_mc", QUAD_SHAPES),
    _auto("gemm_n192_mc", QUAD_SHAPES, "gemm_n192_q", [("CH = 64, MCAST = 2", "CH = 64, MCAST = 4"), QUAD]),
    _auto("gemm_wide_mc", QUAD_SHAPES),
    _auto("gemm_wide_mc", QUAD_SHAPES, "gemm_wide_q", [("WARPS = 4 * WG, MCAST = 2", "WARPS = 4 * WG, MCAST = 4"), QUAD]),
    _auto("gemm_n224", QUAD_SHAPES, "gemm_n224_q",
          [("const BM = 128, BN = 224, BK = 64\n  const WG = 2, WARPS = 4 * WG, BHINT = 1, CH = 56\n  grid persistent, "
            "tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8)",
            "const BM = 128, BN = 224, BK = 64\n  const WG = 2, WARPS = 4 * WG, BHINT = 1, CH = 56, MCAST = 4\n  grid persistent, "
            "tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8), cluster(2, 2)")]),
]

# Two waves of 128 x 96 tiles with pingpong lanes (gemm_n96: one tile's
# epilogue under the other's mainloop) against one of 128 x 192 tiles in
# pairs, where K is short; and gemm_n96's tiles with B multicast in pairs.
# (Its edit matched gemm_odd's lines, not gemm_n96's, from the day gemm_n96
# took BHINT, 2026-12-06, to 2026-12-07: gemm_n96_mc built gemm_n96
# unchanged then; its only results, 2026-12-03-gemm-quads.md, are older.
# bench/prepare.py now refuses such an edit.)
N96_MC = [("TURN = 2, BHINT = 1, CH = 24\n  grid persistent, tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8)",
           "TURN = 2, BHINT = 1, CH = 24, MCAST = 2\n  grid persistent, tiles(ceil_div(M, BM), ceil_div(N, BN)), "
           "raster grouped(8), cluster(2, 1)")]
N96_SHAPES = [(1000, 3000, 1000), (2000, 3000, 1000), (1100, 904, 1000), (1000, 3000, 2048)]
SETS["wave_n96"] = [_auto("gemm_n192_mc", N96_SHAPES), _auto("gemm_n96", N96_SHAPES),
                    _auto("gemm_n96", N96_SHAPES, "gemm_n96_mc", N96_MC)]

# B multicast in pairs at longer K, where gemm_auto's rule takes the
# 128 x 192 and 128 x 256 tiles without it (K > 1024); gemm_n192_mc's C
# stored in one pass of 192 columns, not three of 64; and where K is short
# and 128 x 192 tiles take two waves (2000 x 3000: 256 of them),
# gemm_n192_mc against gemm_pp, which gemm_auto takes there (gemm_n192_mc
# ran 0.90x cuBLAS at 2000 x 3000 x 1000, gemm_pp unmeasured).
MC_K_SHAPES = [(1000, 3000, 2048), (1000, 3000, 4096), (768, 4096, 4096), (512, 6144, 4096)]
KSHORT_WAVES = [(2000, 3000, 1000), (1500, 4096, 768), (2048, 2048, 1024)]
SETS["mc_k"] = ([_auto(k, MC_K_SHAPES) for k in ("gemm_n192", "gemm_n192_mc")] +
                [_auto(k, [(1200, 3000, 2048), (1200, 3000, 4096)]) for k in ("gemm_wide", "gemm_wide_mc")] +
                [_auto("gemm_n192_mc", [(1000, 3000, 1000)] + MC_K_SHAPES, "gemm_n192_mc_ch192",
                       [("CH = 64, MCAST = 2", "CH = 192, MCAST = 2")])] +
                [_auto(k, KSHORT_WAVES, k + "_2w") for k in ("gemm_n192_mc", "gemm_pp")])

# Where the time of a one-wave GEMM goes at short K: the same 1000 x 3000
# tiles at K from one 64-column step to 64 of them, each beside cuBLAS,
# whose time at K = 64 is its fixed cost and whose growth with K its cost
# per step (gemm_n192_mc 0.86x cuBLAS at K = 1000).
K_SWEEP = [(1000, 3000, k) for k in (64, 128, 256, 512, 1000, 2048, 4096)]
SETS["k_sweep"] = [_auto(k, K_SWEEP, k + "_ks") for k in ("gemm_n192_mc", "gemm_n192", "gemm_wide_mc")]
# ... and at K = 1000 gemm_n192_mc in stages of 128 columns (8 K steps,
# half the ring's waits and releases).
SETS["k_sweep"].append(_auto("gemm_n192_mc", [(1000, 3000, 1000), (1000, 3000, 2048)], "gemm_n192_mc_bk128",
                             [("const BM = 128, BN = 192, BK = 64\n  const WG = 2, WARPS = 4 * WG, CH = 64, MCAST = 2",
                               "const BM = 128, BN = 192, BK = 128\n  const WG = 2, WARPS = 4 * WG, CH = 64, MCAST = 2")]))

# K whose rows are no whole 128-byte lines (K % 64 != 0: a 64-column box
# row then spans two lines). At 1000 x 3000 x 1000 the 128 x 192 tiles
# run 40% over their time at the K either side without multicast, 11%
# with B multicast in pairs, cuBLAS 3% (2026-12-03-gemm-k-sweep.md); at
# 2000 x 3000 x 1000 gemm_n192_mc ran 0.945x cuBLAS where gemm_auto's
# gemm_pp ran 0.648x. The multicast tiles beside gemm_pp at more such K.
MISALIGNED_K = [(1000, 3000, 1000), (2000, 3000, 1000), (2048, 8192, 1000), (512, 4096, 1000),
                (3000, 3000, 3000), (4096, 4096, 4000), (8192, 8192, 2000), (4000, 14336, 4000)]
SETS["misaligned_k"] = [_auto(k, MISALIGNED_K, k + "_mk") for k in ("gemm_n192_mc", "gemm_wide_mc", "gemm_pp")]
# ... and gemm_pp's pingpong tiles with B multicast in pairs (as
# gemm_n96_mc did for 128 x 96), at the same K and at K = 4096.
PP_MC = [("const BM = 128, BN = 128, BK = 64\n  const WG = 1, WARPS = 4 * WG, CH = 64, TURN = 2\n"
          "  grid persistent, tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8)\n",
          "const BM = 128, BN = 128, BK = 64\n  const WG = 1, WARPS = 4 * WG, CH = 64, TURN = 2, MCAST = 2\n"
          "  grid persistent, tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8), cluster(2, 1)\n")]
SETS["misaligned_k_pp"] = [_auto("gemm_pp", MISALIGNED_K + [(4096, 4096, 4096), (2048, 8192, 1024)], "gemm_pp_mc_mk",
                                 PP_MC)]

# ... and A shared too: the multicast tiles in 2 x 2 clusters (the
# `wave_quads` edits) at misaligned K, where each K step's loads of rows
# that straddle lines cost what pairs halved (2026-12-03-gemm-k-sweep.md);
# long K (3000, 4000) amortises the rounds that quads fill less well
# (the H200 runs 30 clusters of 4 of these blocks at once).
MIS_QUADS = [(3000, 3000, 3000), (1000, 14336, 4000), (4096, 4096, 4000), (2000, 3000, 1000), (512, 4096, 1000)]
SETS["misaligned_quads"] = [
    _auto("gemm_n192_mc", MIS_QUADS, "gemm_n192_mc_mq"),
    _auto("gemm_n192_mc", MIS_QUADS, "gemm_n192_q_mq", [("CH = 64, MCAST = 2", "CH = 64, MCAST = 4"), QUAD]),
    _auto("gemm_wide_mc", MIS_QUADS, "gemm_wide_mc_mq"),
    _auto("gemm_wide_mc", MIS_QUADS, "gemm_wide_q_mq", [("WARPS = 4 * WG, MCAST = 2", "WARPS = 4 * WG, MCAST = 4"),
                                                        QUAD]),
]

# ... and B shared four ways: the multicast tiles in 4 x 1 clusters
# (tma_load_ab BWAYS = 4), cuBLAS's arrangement at 1000 x 3000 x 1000
# (200 x 128 tiles, 2026-12-03-cublas-kernels.md): each CTA requests a
# quarter of B's straddling rows, A's as before. Like quads, at most 30
# clusters of 4 run at once (120 CTAs).
FOUR = ("cluster(2, 1)", "cluster(4, 1)")
MIS_FOURS = MIS_QUADS + [(1000, 3000, 1000), (1100, 904, 1000)]
SETS["misaligned_fours"] = [
    _auto("gemm_n192_mc", MIS_FOURS, "gemm_n192_mc_m4"),
    _auto("gemm_n192_mc", MIS_FOURS, "gemm_n192_f4", [("CH = 64, MCAST = 2", "CH = 64, MCAST = 4, BWAYS = 4"), FOUR]),
    _auto("gemm_wide_mc", MIS_FOURS, "gemm_wide_mc_m4"),
    _auto("gemm_wide_mc", MIS_FOURS, "gemm_wide_f4", [("WARPS = 4 * WG, MCAST = 2", "WARPS = 4 * WG, MCAST = 4, BWAYS = 4"),
                                                      FOUR]),
    _auto("gemm_n224", MIS_FOURS, "gemm_n224_f4",
          [("const BM = 128, BN = 224, BK = 64\n  const WG = 2, WARPS = 4 * WG, BHINT = 1, CH = 56\n  grid persistent, "
            "tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8)",
            "const BM = 128, BN = 224, BK = 64\n  const WG = 2, WARPS = 4 * WG, BHINT = 1, CH = 56, MCAST = 4, BWAYS = 4\n  grid persistent, "
            "tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8), cluster(4, 1)")]),
    _auto("gemm_pp", MIS_FOURS, "gemm_pp_f4",
          [(PP_MC[0][0], PP_MC[0][1].replace("MCAST = 2", "MCAST = 4, BWAYS = 4").replace("cluster(2, 1)", "cluster(4, 1)"))]),
]

# cuBLAS's own tiles at the misaligned-K shapes (bench/probes/tmap_log.c,
# 2026-12-06-cublas-tiles.md): 192 x 192 in pairs at 3000^3 (three
# consumer warpgroups of 64 rows, 152 registers each), 128 x 200 in
# fours at 1000 x 3000 (B shared four ways, 50 rows a CTA: no whole
# 8-row atoms, so the TMA writes each share mid-atom; stored from
# registers, as no 64-column boxes tile 200 columns).
N192_MC = "const BM = 128, BN = 192, BK = 64\n  const WG = 2, WARPS = 4 * WG, CH = 64, MCAST = 2"
N192_MC_KERNEL = ("  " + N192_MC + "\n"
                  "  grid persistent, tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8), cluster(2, 1)\n\n"
                  "  load  = tma_load_ab(a = A, b = B)\n  mma   = wgmma_mainloop()\n  store = store_bf16_tma(c = C)")
MIS_CUBLAS = [(1000, 3000, 1000), (512, 4096, 1000), (3000, 3000, 3000), (3000, 3000, 3008), (3072, 3072, 3072),
              (2000, 3000, 1000), (2048, 8192, 1000), (1000, 14336, 4000), (6144, 6144, 3000), (1100, 904, 520)]
SETS["cublas_tiles"] = [
    _auto("gemm_n192_mc", MIS_CUBLAS, "gemm_sq192_mc",
          [(N192_MC, N192_MC.replace("BM = 128", "BM = 192").replace("WG = 2", "WG = 3") + ", REGS = 152")]),
    _auto("gemm_n192", MIS_CUBLAS, "gemm_sq192",
          [("const BM = 128, BN = 192, BK = 64\n  const WG = 2, WARPS = 4 * WG, CH = 64, BHINT = 1",
            "const BM = 192, BN = 192, BK = 64\n  const WG = 3, WARPS = 4 * WG, CH = 64, REGS = 152")]),
    _auto("gemm_n192_mc", MIS_CUBLAS, "gemm_n200_q4",
          [(N192_MC_KERNEL, N192_MC_KERNEL.replace("BN = 192", "BN = 200").replace(", CH = 64, MCAST = 2", ", MCAST = 4, BWAYS = 4")
            .replace("cluster(2, 1)", "cluster(4, 1)").replace("store_bf16_tma(c = C)", "store_bf16(c = C)"))]),
]

# Why the 128 x 200 fours trail cuBLAS at K = 1024 as well (0.807x,
# 2026-12-07-fours-factors.md) where gemm_n192 unclustered matches it:
# the same tiles in pairs and alone, and gemm_n192 stored from registers,
# so that cluster size, tile width and the register epilogue each change
# one at a time.
FOURS_SHAPES = [(1000, 3000, 1024), (1000, 3000, 1000), (512, 4096, 1000), (2000, 3000, 1000)]
N200 = N192_MC_KERNEL.replace("BN = 192", "BN = 200").replace("store_bf16_tma(c = C)", "store_bf16(c = C)")
N200_ROWS = N200.replace("store_bf16(c = C)", "store_bf16_tma_rows(c = C)")
# the 200-column tiles alone, stored by TMA in 40-column boxes
N200_U_ROWS = [(N192_MC_KERNEL, N200_ROWS.replace(", CH = 64, MCAST = 2", ", CH = 40, BHINT = 1").replace(", cluster(2, 1)", ""))]
SETS["fours_factors"] = [
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n200_q4",
          [(N192_MC_KERNEL, N200.replace(", CH = 64, MCAST = 2", ", MCAST = 4, BWAYS = 4").replace("cluster(2, 1)", "cluster(4, 1)"))]),
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n200_p2", [(N192_MC_KERNEL, N200.replace(", CH = 64, MCAST = 2", ", MCAST = 2"))]),
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n200_u",
          [(N192_MC_KERNEL, N200.replace(", CH = 64, MCAST = 2", "").replace(", cluster(2, 1)", ""))]),
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n192_reg",
          [(N192_MC_KERNEL, N192_MC_KERNEL.replace(", CH = 64, MCAST = 2", "").replace(", cluster(2, 1)", "")
            .replace("store_bf16_tma(c = C)", "store_bf16(c = C)"))]),
    _auto("gemm_n192", FOURS_SHAPES),
]

# ... and gemm_n192 differs from the rest in BHINT = 1 (B's loads
# evict_first) too: each of the four with the hint flipped; and the
# fours stored by TMA.
SETS["fours_hints"] = [
    _auto("gemm_n192", FOURS_SHAPES, "gemm_n192_nohint", [(", CH = 64, BHINT = 1", ", CH = 64")]),
    _auto("gemm_n192", FOURS_SHAPES, "gemm_n192_reg_hint", [("store_bf16_tma(c = C)", "store_bf16(c = C)")]),
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n200_q4_hint",
          [(N192_MC_KERNEL, N200.replace(", CH = 64, MCAST = 2", ", MCAST = 4, BWAYS = 4, BHINT = 1")
            .replace("cluster(2, 1)", "cluster(4, 1)"))]),
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n192_mc_hint", [(", CH = 64, MCAST = 2", ", CH = 64, MCAST = 2, BHINT = 1")]),
    # the 200-column tiles stored by TMA after all: five unswizzled boxes
    # of 40 columns (components/hopper/store_bf16_tma_rows)
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n200_q4_rows",
          [(N192_MC_KERNEL, N200_ROWS.replace(", CH = 64, MCAST = 2", ", CH = 40, MCAST = 4, BWAYS = 4")
            .replace("cluster(2, 1)", "cluster(4, 1)"))]),
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n200_q4_rows_hint",
          [(N192_MC_KERNEL, N200_ROWS.replace(", CH = 64, MCAST = 2", ", CH = 40, MCAST = 4, BWAYS = 4, BHINT = 1")
            .replace("cluster(2, 1)", "cluster(4, 1)"))]),
    _auto("gemm_n192_mc", FOURS_SHAPES, "gemm_n200_u_rows",
          N200_U_ROWS),
]

# Is it the cluster of four or the 200-column width (its 50-row B
# shares: no whole 8-row atoms) that keeps the fours 13% behind gemm_n192
# at 1000 x 3000 x 1024? At N = 2880 the 128 x 192 tiles make 120 CTAs,
# 30 clusters of four sharing B in 48-row shares (whole atoms): the same
# CTAs clustered four ways, in pairs and alone; the fours of 128 x 200 and
# those tiles alone at N = 3000 beside them.
FW_SHAPES = [(1000, 2880, 1024), (1000, 2880, 1000), (1000, 3000, 1024), (1000, 3000, 1000)]
SETS["fours_width"] = [
    _auto("gemm_n192_mc", FW_SHAPES, "gemm_n192_q4",
          [(N192_MC_KERNEL, N192_MC_KERNEL.replace(", CH = 64, MCAST = 2", ", CH = 64, MCAST = 4, BWAYS = 4")
            .replace("cluster(2, 1)", "cluster(4, 1)"))]),
    _auto("gemm_n192_mc", FW_SHAPES),
    _auto("gemm_n192", FW_SHAPES),
    _auto("gemm_n200_q4", FW_SHAPES),
    _auto("gemm_n192_mc", FW_SHAPES, "gemm_n200_u_rows",
          N200_U_ROWS),
]

# gemm_n96 (pingpong) and gemm_n224 as gemm_auto has them, C stored by TMA
# in 24- and 56-column boxes (a stage fewer than before: 7 of 8, 4 of 5),
# beside the same tiles stored from registers (as until 2026-12-07) and in
# 8-column boxes (every stage kept, a barrier pair every 8 columns).
N96_KERNEL = ("BN = 96, BK = 64\n  const WG = 1, WARPS = 4 * WG, TURN = 2, BHINT = 1, CH = 24\n  grid persistent, "
              "tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8)\n\n  load  = tma_load_ab(a = A, b = B)\n"
              "  mma   = wgmma_mainloop()\n  store = store_bf16_tma_rows(c = C)")
N224_KERNEL = ("BN = 224, BK = 64\n  const WG = 2, WARPS = 4 * WG, BHINT = 1, CH = 56\n  grid persistent, "
               "tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8)\n\n  load  = tma_load_ab(a = A, b = B)\n"
               "  mma   = wgmma_mainloop()\n  store = store_bf16_tma_rows(c = C)")
ROWS_SHAPES = [(256, 6144, 4096), (256, 14336, 4096), (256, 4096, 14336), (1000, 14336, 4096)]


def _reg(kernel, ch):
    """kernel's lines stored from registers (store_bf16), as before 2026-12-07."""
    return [(kernel, kernel.replace(", CH = %d" % ch, "").replace("store_bf16_tma_rows(c = C)", "store_bf16(c = C)"))]


SETS["rows_store"] = [
    _auto("gemm_n96", ROWS_SHAPES, "gemm_n96_reg", _reg(N96_KERNEL, 24)),
    _auto("gemm_n96", ROWS_SHAPES),
    _auto("gemm_n96", ROWS_SHAPES, "gemm_n96_rows8", [(N96_KERNEL, N96_KERNEL.replace("CH = 24", "CH = 8"))]),
    _auto("gemm_n224", ROWS_SHAPES, "gemm_n224_reg", _reg(N224_KERNEL, 56)),
    _auto("gemm_n224", ROWS_SHAPES, "gemm_n224_rows8", [(N224_KERNEL, N224_KERNEL.replace("CH = 56", "CH = 8"))]),
    _auto("gemm_n224", ROWS_SHAPES),
]

# cuBLAS's tile at 4096^3 and 4097 x 4096 x 4096: 256 x 128 in pairs
# (2026-12-03-cublas-kernels.md). From gemm_wide's components: two
# consumer warpgroups of two m64 blocks each (m64n128k16, 128 accumulator
# registers a thread), unicast and with B shared by the pair's two tile
# rows.
TALL = [(4096, 4096, 4096), (4097, 4096, 4096), (2048, 2048, 2048), (8192, 8192, 8192), (6144, 12288, 5120),
        (12288, 4096, 11008), (8192, 28672, 4096), (3000, 3000, 3008), (3000, 3000, 3000), (1000, 14336, 4000),
        (1100, 904, 520)]
TALL_EDIT = ("const BM = 128, BN = 256, BK = 64\n  const WG = 2, WARPS = 4 * WG, BHINT = 1",
             "const BM = 256, BN = 128, BK = 64\n  const WG = 2, WARPS = 4 * WG, BHINT = 1")
TALL_GRID = "\n  grid persistent, tiles(ceil_div(M, BM), ceil_div(N, BN)), raster grouped(8)"   # gemm_wide's, after TALL_EDIT
SETS["tall_tiles"] = [
    _auto("gemm_wide", TALL, "gemm_tall", [TALL_EDIT]),
    _auto("gemm_wide", TALL, "gemm_tall_mc",
          [(TALL_EDIT[0] + TALL_GRID, TALL_EDIT[1] + ", MCAST = 2" + TALL_GRID + ", cluster(2, 1)")]),
]

# gemm_swiglu_auto's small tiles at M <= 64 (swiglu_small: 64 x 256,
# pingpong): at N = 14336 they are 112 tiles, so 20 of the 132 SMs stream
# no weights (16 x 14336 x 4096: 1.045x the baseline in suite run 11,
# issue 16 asks 1.05x). The same tiles with K split in two (224 work
# items, every SM busy; the last split sums and runs the SwiGLU) and with
# 128-column tiles (224 tiles).
SW_SMALL = [(16, 14336, 4096), (1, 14336, 4096), (64, 14336, 4096), (16, 11008, 4096)]
SW_SMALL_GRID = "grid persistent, tiles(ceil_div(M, BM), ceil_div(2 * N, BN)), raster grouped(8)"
SETS["swiglu_small_split"] = [
    dict(name="swiglu_small_ss", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_small", arch="sm_90a",
         kind="swiglu", shapes=SW_SMALL),
    dict(name="swiglu_small_split2", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_small", arch="sm_90a",
         kind="swiglu", shapes=SW_SMALL, edit=[(SW_SMALL_GRID, SW_SMALL_GRID + ", split(2)")]),
    dict(name="swiglu_small_n128", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_small", arch="sm_90a",
         kind="swiglu", shapes=SW_SMALL, edit=[("const BM = 64, BN = 256, BK = 64", "const BM = 64, BN = 128, BK = 64")]),
]

# The same at 224 columns (128 tiles at N = 14336: 128 SMs stream the
# weights, not 112), its SwiGLU stored from registers (swiglu_tma stores
# whole 64-column boxes; 112 output columns are not), with and without
# pingpong lanes, and the 256-column tiles stored the same way beside them.
SW_USE = ('use "../components/hopper/swiglu_tma.plk"',
          'use "../components/hopper/swiglu_tma.plk"\nuse "../components/common/swiglu.plk"')
SW_ST = [SW_USE, ("act  = swiglu_tma(y = Y)", "act  = swiglu(y = Y)")]
SW_224 = [("const BM = 64, BN = 256, BK = 64", "const BM = 64, BN = 224, BK = 64")]
SETS["swiglu_small224"] = [
    dict(name="swiglu_small_ss", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_small", arch="sm_90a",
         kind="swiglu", shapes=SW_SMALL),
    dict(name="swiglu_small_st", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_small", arch="sm_90a",
         kind="swiglu", shapes=SW_SMALL, edit=SW_ST),
    dict(name="swiglu_small_224", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_small", arch="sm_90a",
         kind="swiglu", shapes=SW_SMALL, edit=SW_ST + SW_224),
    dict(name="swiglu_small_224np", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_small", arch="sm_90a",
         kind="swiglu", shapes=SW_SMALL,
         edit=SW_ST + SW_224 + [("load.ab -> mma.ab [stages = auto, pingpong = 2]", "load.ab -> mma.ab [stages = auto]")]),
]

# swiglu_small reading 256 contiguous bytes of each weight row a stage
# (BK 128) rather than 128, as gemm_skinny does (2026-12-02-skinny-bk.md:
# 11% at N 4096 x K 14336), with and without its pingpong lanes; two
# stages of 80 KB (BK 256 would leave one).
SW_BK = "const BM = 64, BN = 256, BK = 64"
SW_LANES = ("load.ab -> mma.ab [stages = auto, pingpong = 2]", "load.ab -> mma.ab [stages = auto]")
SETS["swiglu_small_bk"] = [SETS["swiglu_small224"][0]] + [
    dict(name="swiglu_small_bk128" + sfx, recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_small", arch="sm_90a",
         kind="swiglu", shapes=SW_SMALL, edit=[(SW_BK, SW_BK.replace("BK = 64", "BK = 128"))] + more)
    for sfx, more in (("", []), ("np", [SW_LANES]))]

# Where the K % 64 != 0 rule guesses: 1000 and 256 x 14336 x 4000 (the
# rule takes gemm_wide_mc; 0.862x cuBLAS at 1000 rows in run 10), and the
# SwiGLU GEMM at such K: swiglu_wide with W multicast in pairs
# (swiglu_wide_mc, first measured as an edit of swiglu_wide) beside
# swiglu_pp.
MIS_GUESS = [(1000, 14336, 4000), (256, 14336, 4000), (2000, 6144, 4000)]
MIS_SWIGLU = [(1000, 14336, 4000), (4096, 8192, 4000), (2048, 11008, 1000)]
SETS["misaligned_k3"] = [_auto(k, MIS_GUESS, k + "_g") for k in ("gemm_wide_mc", "gemm_n192_mc", "gemm_pp")] + [
    dict(name="swiglu_pp_mk", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_pp", arch="sm_90a",
         kind="swiglu", shapes=MIS_SWIGLU),
    dict(name="swiglu_wide_mc_mk", recipe="examples/gemm_swiglu_auto.plk", kernel="swiglu_wide_mc", arch="sm_90a",
         kind="swiglu", shapes=MIS_SWIGLU)]

# Stream-K over the last round (`split(auto)`, docs/language.md, "Split";
# docs/attention.md, "Scheduling the work items"): dense attention's
# equal work items leave the persistent grid's last round part empty
# (2048 items on 132 SMs at B2 H16 S8k: 15.5 rounds); the full rounds stay
# whole and the leftover items' KV blocks are shared evenly among the
# blocks, each split item's (O, m, l) merged by the online softmax's rule.
# examples/attn_dense.plk splits (since 2026-12-04, streamed shares first);
# each `_grid` is the same kernel without it, on the shapes of `attention`.
SK_GRID = ("grid persistent, tiles(ceil_div(SQ, BM), B * H), raster column, split(auto)",
           "grid persistent, tiles(ceil_div(SQ, BM), B * H), raster column")
SETS["attn_stream"] = [x for c in SETS["attention"] if c["name"] in ("attn_dense_d128", "attn_dense_d128_bn128",
                                                                      "attn_dense_d64")
                       for x in (c, dict(c, name=c["name"] + "_grid", edit=c["edit"] + [SK_GRID]))]

# split(auto) once the full rounds stay whole (2026-12-04): 128 x 128
# tiles without lanes, streamed and not, where the tiles take more than
# one round; and the 64 x 128 stream-K of `stream` (fewer tiles than SMs:
# all streamed, as before) for its small M.
TAIL_SHAPES = [(2048, 2048, 2048), (4096, 4096, 4096), (8192, 8192, 8192), (1000, 3000, 1000),
               (4097, 4096, 4096), (2048, 11008, 4096)]
SETS["stream_tail"] = [
    dict(SETS["stream"][3], shapes=TAIL_SHAPES),
    dict(SETS["stream"][3], name="t128x128", shapes=TAIL_SHAPES, edit=SETS["stream"][3]["edit"][:1]),
    dict(SETS["stream"][0], shapes=STREAM_SHAPES[:6]),
]

# The variants whose hooks mask partial KV blocks (causal, sliding window,
# documents, block-sparse), both head dims: the SASS of their KV loops,
# counted on the build host (bench/sass_loops.py), for the masks' cost a
# partial block.
SETS["attn_masked"] = [c for c in SETS["attention"] if c["kind"] in ("causal", "sliding", "document", "block_sparse")]


# Reading ahead (issue 15, the short items at head dim 64): attn_core's
# AHEAD = 1 (and its loaders') issues the next work item's first S = Q K^T
# beside the last P V of this one, so the tensor cores run it while the
# epilogue stores. Each configuration that runs whole items in order (no
# split grid) beside itself with AHEAD = 1 (the kernel's const, which all
# three components read); bench/ab_dir.py SRC DST _ahead pairs them.
def _ahead(c):
    const = next(e[1] for e in c["edit"] if e[0].startswith("const BM")) if any(
        e[0].startswith("const BM") for e in c["edit"]) else "const BM = 128, BN = 128, HD = 128"
    edit = [e for e in c["edit"] if not e[0].startswith("const BM")]
    base = next((e[0] for e in c["edit"] if e[0].startswith("const BM")), const)
    return dict(c, name=c["name"] + "_ahead", edit=edit + [(base, const + ", AHEAD = 1")])


# (The sliding window's and causal GQA's recipes read ahead since this
# run, bench/results/2026-12-05-attention-ahead.md: their rows here were
# measured before, with AHEAD = 0 in the recipes.)
AHEAD_NAMES = ("attn_document_d64", "attn_causal_d64", "attn_softcap_d64", "attn_block_sparse_d64",
               "attn_document_d128", "attn_causal_d128", "attn_causal_d64w2")
SETS["attn_ahead"] = [x for c in SETS["attention"] if c["name"] in AHEAD_NAMES for x in (c, _ahead(c))]

# The recipes that read ahead as committed (examples/attn_sliding.plk,
# attn_causal.plk's attn_causal_gqa): for compute-sanitizer at small, odd
# shapes (tests/gpu/attn_sanitize.py under memcheck, racecheck, synccheck)
SETS["attn_reading_ahead"] = [c for c in SETS["attention"]
                              if c["name"] in ("attn_sliding_d64", "attn_sliding_d128", "attn_causal_d128_gqa")]

# Why the document mask loses 1.1% with AHEAD = 1 at head dim 64 (its
# items visit 4.5 KV blocks on average) while causal GQA gains 5%: the
# block read ahead holds a K and a V stage while the item's own blocks
# stream, so a short item may run a stage short. Each with the K and V
# rings one stage deeper (5 at HD = 64; 160 KB of the two), AHEAD 0 and 1.
KV_DEEPER = [("lkv.k  -> core.k [stages = 256 / HD]", "lkv.k  -> core.k [stages = 256 / HD + 1]"),
             ("lkv.v  -> core.v [stages = 256 / HD]", "lkv.v  -> core.v [stages = 256 / HD + 1]")]
SETS["attn_ahead_stages"] = [x for c in SETS["attention"] if c["name"] == "attn_document_d64"
                             for y in (c, _ahead(c)) for x in (y, dict(y, name=y["name"] + "_kv5",
                                                                       edit=y["edit"] + KV_DEEPER))]

# swiglu_skinny on 128-row tiles of W, as cuBLAS runs the GEMM of the
# baseline at 16 x 28672 x 4096 (nvjet ..._128x16_64x11_2x1: 128 x 16
# tiles, BK 64, 11 stages, 2 x 1 clusters; 4.04-4.22 TB/s of DRAM reads
# under ncu against swiglu_skinny's 3.91, bench/results/2026-12-05-ncu-
# skinny.md): one warpgroup on two m64 blocks (pingpong lanes kept) or two
# warpgroups on a block each, and the pair sharing A's rows by multicast;
# gemm_skinny alike (bench/results/2026-12-05-skinny-128-rows.md).
# Each form: (suffix, tile constants, warpgroups, ring, cluster)
SKINNY_WG = "const WG = 1, WARPS = 4 * WG, TURN = 2"
SKINNY128 = [
    ("128_pp", "const BM = 128, BN = 16, BK = 64", None, "[stages = 11, pingpong = 2]", False),
    ("128_wg2", "const BM = 128, BN = 16, BK = 64", "const WG = 2, WARPS = 4 * WG", "[stages = 11]", False),
    ("128_wg2_mc", "const BM = 128, BN = 16, BK = 64", "const WG = 2, WARPS = 4 * WG, MCAST = 2", "[stages = 11]",
     True),
    ("128_bk128", "const BM = 128, BN = 16, BK = 128", None, "[stages = 6, pingpong = 2]", False),
    ("64_bk64", "const BM = 64, BN = 16, BK = 64", None, "[stages = 16, pingpong = 2]", False),
    # A's rows multicast in pairs with the lanes kept: under ncu (H100)
    # swiglu_skinny's L2 hit rate is 30% against cuBLAS's 5%, A's 128 KB
    # read again for each of 448 tiles (57 MB beside W's 235)
    ("64_mc", "const BM = 64, BN = 16, BK = 128", "const WG = 1, WARPS = 4 * WG, TURN = 2, MCAST = 2",
     "[stages = 8, pingpong = 2]", True),
    ("128_pp_mc", "const BM = 128, BN = 16, BK = 64", "const WG = 1, WARPS = 4 * WG, TURN = 2, MCAST = 2",
     "[stages = 11, pingpong = 2]", True),
]


def _skinny128(base, prefix, grid, form):
    suffix, tile, wg, ring, cluster = form
    edit = [(SKINNY_BK, tile), (SKINNY_RING, ring)] + ([(SKINNY_WG, wg)] if wg else []) + \
        ([(grid, grid + ", cluster(2, 1)")] if cluster else [])
    return dict(base, name=prefix + suffix, edit=edit)


SWIGLU_SK = dict(name="swiglu_skinny", recipe="examples/gemm_swiglu_auto.plk", arch="sm_90a", kind="swiglu",
                 shapes=SWIGLU_SKINNY_SHAPES, kernel="swiglu_skinny")
GEMM_SK = dict(name="skinny16", recipe="examples/gemm_skinny.plk", arch="sm_90a", kind="gemm",
               shapes=SKINNY_SHAPES[:8])
SETS["swiglu_skinny128"] = [SWIGLU_SK] + [_skinny128(SWIGLU_SK, "swiglu_sk", SWIGLU_SKINNY_GRID, f)
                                          for f in SKINNY128] + \
    [GEMM_SK] + [_skinny128(GEMM_SK, "skinny", SKINNY_GRID, f) for f in SKINNY128 if f[0] not in
                 ("128_wg2", "64_bk64")]

# Split skinny tiles with the last split not waiting for the others
# (timing only: build once with a plkc whose split reduction skips its
# wait, --suffix _nw, once as committed, --append): is the split's cost
# (2026-12-05-swiglu-skinny.md: 6-18% slower at split 2) the wait?
SETS["split_wait"] = [SETS["skinny_split"][i] for i in (0, 1, 4, 5)]

# The 64-row skinny tiles with deeper K steps (fewer, larger TMA loads and
# barrier round trips per byte of W): BK 256 in 4 stages (the ring's
# bytes as the committed BK 128 x 8 stages) and in 5.
SETS["swiglu_skinny_bk"] = [SWIGLU_SK] + [_skinny128(SWIGLU_SK, "swiglu_sk", SWIGLU_SKINNY_GRID, f) for f in (
    ("64_bk256", "const BM = 64, BN = 16, BK = 256", None, "[stages = 4, pingpong = 2]", False),
    ("64_bk256s5", "const BM = 64, BN = 16, BK = 256", None, "[stages = 5, pingpong = 2]", False))]

# The skinny tiles with stream-K as it is since 2026-12-04 (the full
# rounds of tiles whole, only the last round's K tiles shared out:
# 2026-12-03-skinny-stream-k.md streamed every tile): swiglu_skinny's
# 448 tiles at N = 14336 are 3.39 rounds of 132, so 52 blocks stream the
# last round alone. Stream-K takes no pingpong lanes: one consumer
# warpgroup, the ring 8 or 10 stages deep (12 do not fit: E0401).
SK_AUTO = [("auto", "[stages = 8]"), ("auto10", "[stages = 10]")]
SETS["skinny_stream"] = [SWIGLU_SK] + [dict(SWIGLU_SK, name="swiglu_sk_" + s, edit=[
    (SKINNY_RING, ring), (SWIGLU_SKINNY_GRID, SWIGLU_SKINNY_GRID + ", split(auto)")]) for s, ring in SK_AUTO] + \
    [GEMM_SK] + [dict(GEMM_SK, name="skinny16_" + s, edit=[
        (SKINNY_RING, ring), (SKINNY_GRID, SKINNY_GRID + ", split(auto)")]) for s, ring in SK_AUTO]

# L2 eviction hints on the TMA loads (tma_load_ab's AHINT, BHINT: 1
# evict_first, 2 evict_last): at a decode-sized M the weights are read
# once and the activations by every tile (swiglu_skinny's L2 hit rate is
# 30% under ncu, A's 128 KB read again for each of 448 tiles). The
# skinny tiles load W as `a`; the 64-row tiles of gemm_auto load it as `b`.
SMALL_WG = "const WG = 1, WARPS = 4 * WG, CH = 64, TURN = 2"
SMALL_SHAPES = [(64, 14336, 4096), (128, 14336, 4096), (64, 4096, 14336), (128, 6144, 4096)]
GEMM_SMALL = dict(name="small", recipe="examples/gemm_auto.plk", arch="sm_90a", kind="gemm", shapes=SMALL_SHAPES,
                  kernel="gemm_small")
SETS["l2_hint"] = [SWIGLU_SK] + [dict(SWIGLU_SK, name="swiglu_sk_" + s, edit=[(SKINNY_WG, SKINNY_WG + h)])
                                 for s, h in (("wf", ", AHINT = 1"), ("wfal", ", AHINT = 1, BHINT = 2"))] + \
    [GEMM_SK] + [dict(GEMM_SK, name="skinny16_" + s, edit=[(SKINNY_WG, SKINNY_WG + h)])
                 for s, h in (("wf", ", AHINT = 1"), ("wfal", ", AHINT = 1, BHINT = 2"))] + \
    [GEMM_SMALL] + [dict(GEMM_SMALL, name="small_" + s, edit=[(SMALL_WG, SMALL_WG + h)])
                    for s, h in (("wf", ", BHINT = 1"), ("wfal", ", BHINT = 1, AHINT = 2"))]

# The L2 hints on the multicast loads (tma_load_ab's mcast paths, which
# no select marks yet): examples/gemm_mcast.plk in pairs, 2 x 2 quads and
# 4 x 1 fours, each without and with hints on both operands, at odd
# shapes (partial pairs and quads) and a weight-streaming one.
MC_SHAPES = [(1100, 904, 1000), (300, 776, 520), (256, 14336, 4096)]
MC_FORMS = [("pair", "const MCAST = 2 ", "cluster(2, 1)"), ("quad", "const MCAST = 4 ", "cluster(2, 2)"),
            ("four", "const MCAST = 4, BWAYS = 4 ", "cluster(4, 1)")]
SETS["l2_hint_mcast"] = [
    dict(name="mcast_%s%s" % (f, h and "_h"), recipe="examples/gemm_mcast.plk", arch="sm_90a", kind="gemm",
         shapes=MC_SHAPES, edit=[("const MCAST = 2 ", c.rstrip() + (h and ", AHINT = 2, BHINT = 1") + " "),
                                 ("cluster(2, 1)", cl)])
    for f, c, cl in MC_FORMS for h in ("", "1")]

# The large square shapes on an H100: gemm_auto's gemm_pp ran 16384^3 at
# 0.75x cuBLAS there (1.03x on the H200), 8192^3 at 1.04x. The pingpong
# tiles with the raster's group of tile rows at 4, 8 (as linked) and 16,
# and the 128 x 256 tiles of gemm_wide, forced at every shape.
BIG_SHAPES = [(16384, 16384, 16384), (8192, 8192, 8192), (4097, 4096, 4096)]
BIG_SWEEP = [(16384, 16384, 4096), (16384, 16384, 8192), (16384, 16384, 16384), (8192, 8192, 4096),
             (8192, 8192, 8192), (8192, 8192, 16384), (8192, 8192, 32768), (4096, 4096, 8192), (4096, 4096, 16384),
             (2048, 2048, 2048), (4096, 4096, 4096), (4097, 4096, 4096), (8192, 28672, 4096), (8192, 4096, 14336),
             (4096, 14336, 4096), (12288, 4096, 11008), (6144, 12288, 5120), (2048, 11008, 4096)]
GEMM_PP = dict(name="pp", recipe="examples/gemm_auto.plk", arch="sm_90a", kind="gemm", shapes=BIG_SHAPES,
               kernel="gemm_pp")
SETS["big_square"] = [GEMM_PP] + \
    [dict(GEMM_PP, name="pp_r%d" % g, edit=[("raster grouped(8)", "raster grouped(%d)" % g)]) for g in (4, 16)] + \
    [dict(GEMM_PP, name="wide", kernel="gemm_wide")]
# pp against wide over more of the large shapes: where each wins
SETS["big_sweep"] = [dict(GEMM_PP, shapes=BIG_SWEEP), dict(GEMM_PP, name="wide", kernel="gemm_wide", shapes=BIG_SWEEP)]
# and across N at the sizes where the two part: M 2048 to 16384, N 8192 to
# 28672 (64 to 224 tile columns), K 4096 and 8192
BIG_N = [(m, n, k) for m in (2048, 4096, 8192, 16384) for n in (12288, 16384, 20480, 28672) for k in (4096, 8192)
         if m * n * k <= 16384 * 16384 * 8192]
SETS["big_n"] = [dict(GEMM_PP, shapes=BIG_N), dict(GEMM_PP, name="wide", kernel="gemm_wide", shapes=BIG_N)]
# Under 4 TB/s gemm_auto now takes gemm_big (gemm_wide's tiles without
# its L2 hint) where the pingpong tiles fell: each against both
BIG_H100 = [(16384, 16384, 16384), (16384, 16384, 8192), (8192, 28672, 8192), (16384, 20480, 4096),
            (8192, 16384, 8192), (8192, 28672, 4096), (16384, 16384, 4096)]
SETS["big_h100"] = [dict(GEMM_PP, name="big", kernel="gemm_big", shapes=BIG_H100),
                    dict(GEMM_PP, shapes=BIG_H100), dict(GEMM_PP, name="wide", kernel="gemm_wide", shapes=BIG_H100)]
# gemm_big linked against its monolith (linked_bench.py) and under the
# sanitizers at odd shapes
SETS["gemm_big"] = [dict(GEMM_PP, name="big", kernel="gemm_big",
                         shapes=[(8192, 16384, 8192), (16384, 16384, 4096), (4096, 4096, 4096)])]
# The same question for gemm_swiglu_auto's pingpong and 128 x 256 tiles
# at large problems (2N output columns of the GEMM)
SWIGLU_BIG = [(16384, 14336, 4096), (8192, 14336, 8192), (16384, 14336, 8192), (8192, 14336, 4096)]
SETS["swiglu_big"] = [dict(name="swiglu_pp", recipe="examples/gemm_swiglu_auto.plk", arch="sm_90a", kind="swiglu",
                           shapes=SWIGLU_BIG, kernel="swiglu_pp"),
                      dict(name="swiglu_wide", recipe="examples/gemm_swiglu_auto.plk", arch="sm_90a", kind="swiglu",
                           shapes=SWIGLU_BIG, kernel="swiglu_wide")]

# The misaligned-K rows (K % 16 = 8) by cp.async instead of the TMA: the
# same 128 x 192 and 128 x 256 tiles (examples/gemm.plk's components but the
# loader), each beside its TMA twin, at the K % 16 = 8 shapes gemm_auto
# leaves under 0.95x and their whole-line neighbours; 1100 x 904 x 520 for
# the sanitizers (rows past M and N, a partial K tile).
# Measured: half of cuBLAS at every K (bench/results/2026-12-07-cp-async-loader.md).
CPA_SHAPES = [(1000, 3000, 1000), (1000, 3000, 1024), (3000, 3000, 3000), (3072, 3072, 3072), (2000, 3000, 1000),
              (512, 4096, 1000), (2048, 8192, 1000), (4096, 4096, 4096), (1100, 904, 520)]
CPA_LOADER = [('use "../components/hopper/tma_load_ab.plk"', 'use "../bench/components/cp_async_load_sw128.plk"'),
              ("load  = tma_load_ab(a = A, b = B)", "load  = cp_async_load_sw128(a = A, b = B)")]
CPA_N192 = [("const BM = 128, BN = 256, BK = 64", "const BM = 128, BN = 192, BK = 64, CH = 64")]
SETS["cpasync_k"] = [
    dict(name="gemm_tma_n256", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm", shapes=CPA_SHAPES),
    dict(name="gemm_cpa_n256", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm", shapes=CPA_SHAPES,
         edit=CPA_LOADER),
    dict(name="gemm_tma_n192", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm", shapes=CPA_SHAPES,
         edit=CPA_N192),
    dict(name="gemm_cpa_n192", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm", shapes=CPA_SHAPES,
         edit=CPA_N192 + CPA_LOADER),
]

# 2048 x 1792 x 4096, under 0.95x with every configuration gemm_auto has
# (its pick gemm_n224 0.934x on an H100): the 128 x 224 tiles with B
# multicast in pairs (cluster(2, 1)) beside gemm_n224 and gemm_wide_mc,
# at that shape, its K neighbours and the other one-wave n224 picks.
# Measured: no gain (bench/results/2026-12-07-cp-async-loader.md).
N224_SHAPES = [(2048, 1792, 4096), (2048, 1792, 2048), (2048, 1792, 8192), (256, 14336, 4096), (1024, 3584, 4096),
               (1100, 904, 520)]
SETS["wave_n224_mc"] = [
    dict(GEMM_PP, name="n224", kernel="gemm_n224", shapes=N224_SHAPES),
    dict(GEMM_PP, name="wide_mc", kernel="gemm_wide_mc", shapes=N224_SHAPES),
    dict(name="n224_mc", recipe="examples/gemm.plk", arch="sm_90a", kind="gemm", shapes=N224_SHAPES,
         edit=[("use \"../components/hopper/store_bf16_tma.plk\"", "use \"../components/hopper/store_bf16.plk\""),
               ("const BM = 128, BN = 256, BK = 64", "const BM = 128, BN = 224, BK = 64, MCAST = 2"),
               ("raster grouped(8)", "raster grouped(8), cluster(2, 1)"),
               ("store = store_bf16_tma(c = C)", "store = store_bf16(c = C)")]),
]

# A's tile in boxes, those wholly past M not loaded (tma_load_ab ABOXES):
# the pingpong tiles' time grows with the rows of the last tile row past M
# (M x 20000 x 2048 on an H100: gemm_pp_ef 0.107 ms at M = 896, 0.179 at
# 897, 0.145 at 960, 0.116 at 1000; gemm_wide flat), where the TMA still
# fills those rows. gemm_pp_ef and gemm_pp with 1, 2, 4 and 8 boxes of
# A, and gemm_wide, at whole and partial last tile rows; 8192^3 and
# 4096^3 for what more TMA instructions cost where no row is past M.
# And gemm_pp_ef storing C in 128-column passes (CH = 128).
# bash bench/a_boxes.sh link (build host), then run (GPU host).
A_BOX_SHAPES = [(896, 20000, 2048), (897, 20000, 2048), (960, 20000, 2048), (1000, 20000, 2048),
                (900, 128256, 2048), (1000, 128256, 2048), (2000, 128256, 2048), (1100, 904, 520),
                (4096, 4096, 4096), (8192, 8192, 8192),
                # where gemm_auto now takes gemm_wide (8 tile rows, at most half the
                # last in M), at N other than 20000: not yet timed there
                (900, 4096, 4096), (1000, 8192, 4096), (900, 14336, 4096)]
SETS["a_boxes"] = [dict(GEMM_PP, name="pp_ef", kernel="gemm_pp_ef", shapes=A_BOX_SHAPES)] + \
    [dict(GEMM_PP, name="pp_ef_a%d" % n, kernel="gemm_pp_ef", shapes=A_BOX_SHAPES,
          edit=[("CH = 64, TURN = 2, BHINT = 1\n", "CH = 64, TURN = 2, BHINT = 1, ABOXES = %d\n" % n)])
     for n in (2, 4, 8)] + \
    [dict(GEMM_PP, shapes=A_BOX_SHAPES),
     dict(GEMM_PP, name="pp_a8", shapes=A_BOX_SHAPES,
          edit=[("CH = 64, TURN = 2\n", "CH = 64, TURN = 2, ABOXES = 8\n")]),
     dict(GEMM_PP, name="wide", kernel="gemm_wide", shapes=A_BOX_SHAPES),
     # the second suspect: C stored in passes of 64 columns, each waiting
     # for the one before to leave shared memory; CH = 128, half the passes
     dict(GEMM_PP, name="pp_ef_ch128", kernel="gemm_pp_ef", shapes=A_BOX_SHAPES,
          edit=[("CH = 64, TURN = 2, BHINT = 1\n", "CH = 128, TURN = 2, BHINT = 1\n")])]

# Partial last tile rows at 256 < M < 512 (bench/results/2026-12-08-m-skip.md):
# the 64 x 256 pingpong tiles that gemm_auto now takes there (gemm_s256:
# rows in steps of 64), the 128 x 256 tiles and the pingpong 128 x 128
# tiles with A in one box and in two, at last tile rows of 4 to 116 rows
# in M and at whole ones; GEMM and SwiGLU. (That file's call also timed
# an MMA that skipped A's rows past M: a patch, not kept.)
# bash bench/m_skip.sh link (build host), then run (GPU host).
M_SKIP_SHAPES = [(260, 14336, 4096), (300, 14336, 4096), (320, 14336, 4096), (400, 14336, 4096),
                 (450, 14336, 4096), (300, 4096, 4096), (300, 6144, 4096), (300, 128256, 2048),
                 (897, 20000, 2048), (960, 20000, 2048), (900, 128256, 2048), (4000, 14336, 4096),
                 (1100, 904, 520), (4096, 4096, 4096)]
SWIGLU_M_SKIP_SHAPES = [(260, 14336, 4096), (300, 14336, 4096), (320, 14336, 4096), (400, 14336, 4096),
                        (900, 14336, 4096), (4000, 14336, 4096)]
PP_EF = "CH = 64, TURN = 2, BHINT = 1\n"
SWIGLU_AUTO = dict(recipe="examples/gemm_swiglu_auto.plk", arch="sm_90a", kind="swiglu", shapes=SWIGLU_M_SKIP_SHAPES)
SETS["m_skip"] = [
    dict(GEMM_PP, name="pp_ef", kernel="gemm_pp_ef", shapes=M_SKIP_SHAPES),
    dict(GEMM_PP, name="pp_ef_a2", kernel="gemm_pp_ef", shapes=M_SKIP_SHAPES,
         edit=[(PP_EF, PP_EF[:-1] + ", ABOXES = 2\n")]),
    dict(GEMM_PP, name="wide", kernel="gemm_wide", shapes=M_SKIP_SHAPES),
    dict(GEMM_PP, name="s256", kernel="gemm_s256", shapes=M_SKIP_SHAPES),
    dict(SWIGLU_AUTO, name="swiglu_pp", kernel="swiglu_pp"),
    dict(SWIGLU_AUTO, name="swiglu_wide", kernel="swiglu_wide"),
    dict(SWIGLU_AUTO, name="swiglu_small", kernel="swiglu_small"),
]
