"""pipelink.attention (this module: pipelink._attention): the attention family of docs/attention.md on torch
tensors, with SDPA-like arguments.

    o = pipelink.attention(q, k, v, is_causal=True)        # [B, H, S, D] bf16
    o, lse = pipelink.attention(q, k, v, window=1024, return_lse=True)

q is [B, H, SQ, D], k and v [B, HKV, SKV, D] with H a multiple of HKV
(GQA), D 64 or 128, bf16, contiguous, on the GPU. The variant is chosen
from the arguments, and every variant links the same core (one recipe
per variant and head dim, written here from the standard components and
linked once through plkc and its cache):

    is_causal=True     causal, aligned bottom-right when SQ != SKV
    window=W           causal, the last W keys (W includes the query's own)
    softcap=C          scores -> C * tanh(score / C), with is_causal
    document_ids=T     [B, SKV] int ids, ascending along each sequence:
                       causal within each document (SQ == SKV)
    block_mask=M       FlexAttention's BlockMask (128 x 128 blocks)

scale defaults to 1 / sqrt(D). Returns O [B, H, SQ, D] (and LSE [B, H,
SQ], natural log, with return_lse). A query row that attends to nothing
gets O = 0 and LSE = -inf.
"""

import hashlib
import os

from ._link import cache_dir, link
from ._runtime import PlkError

# What each variant adds to the core: its hook components, their
# instances and connections, and the kernel parameters they read.
_VARIANTS = {
    # the items left over from the full rounds shared out along the keys
    # (examples/attn_dense.plk, docs/attention.md)
    "dense": dict(uses=[], params="", hooks="", grid="raster column, split(auto)"),
    "causal": dict(uses=["causal"], params="", grid="order(lpt), dynamic",
                   hooks="  mask = causal()\n  mask.mask -> core.mask\n  mask.blocks -> core.blocks\n"
                         "  mask.blocks -> lkv.blocks\n"),
    # the sliding window's items are about equal: index order, whose
    # neighbours share their KV window (examples/attn_sliding.plk)
    "sliding": dict(uses=["sliding_window"], params=", W: i32", grid="dynamic",
                    hooks="  mask = sliding_window()\n  mask.mask -> core.mask\n  mask.blocks -> core.blocks\n"
                          "  mask.blocks -> lkv.blocks\n"),
    "softcap": dict(uses=["causal", "softcap"], params=", cap: f32", grid="order(lpt), dynamic",
                    hooks="  mask = causal()\n  cap = softcap()\n  cap.score -> core.score\n"
                          "  mask.mask -> core.mask\n  mask.blocks -> core.blocks\n  mask.blocks -> lkv.blocks\n"),
    "softcap_dense": dict(uses=["softcap"], params=", cap: f32", grid="raster column",
                          hooks="  cap = softcap()\n  cap.score -> core.score\n"),
    "document": dict(uses=["document"], params=", DSTART: tensor<i32>[B, SKV]", grid="order(lpt), dynamic",
                     hooks="  mask = document(start = DSTART)\n  mask.mask -> core.mask\n"
                           "  mask.blocks -> core.blocks\n  mask.blocks -> lkv.blocks\n"),
    "block_sparse": dict(uses=["block_sparse"], grid="order(lpt), dynamic",
                         params=", KV_NUM: tensor<i32>[B, H, QB], KV_IDX: tensor<i32>[B, H, QB, KVB], "
                                "FULL_NUM: tensor<i32>[B, H, QB], FULL_IDX: tensor<i32>[B, H, QB, KVB]",
                         hooks="  bm = block_sparse(kv_num = KV_NUM, kv_idx = KV_IDX, full_num = FULL_NUM, "
                               "full_idx = FULL_IDX)\n  bm.blocks -> core.blocks\n  bm.blocks -> lkv.blocks\n"),
}


SIG = ("(Q: tensor<bf16>[B, H, SQ, HD], K: tensor<bf16>[B, HKV, SKV, HD], V: tensor<bf16>[B, HKV, SKV, HD], "
       "O: tensor<bf16>[B, H, SQ, HD], LSE: tensor<f32>[B, H, SQ], scale: f32%s)")


def recipe_text(kind, hd):
    """The recipe of a variant at head dim hd (64 or 128): the standard
    components, found on plkc's default `use` path."""
    v = _VARIANTS[kind]
    # HD 64: three consumer warpgroups (BM 192), loaders at 32 registers;
    # the block-sparse mask is of 128 x 128 blocks, so it keeps BM 128; the
    # sliding window keeps BM 128 too: its q blocks visit few KV blocks,
    # fewer of them partial at 128 rows (288 against 247 TFLOP/s at W
    # 1024, bench/results/2026-12-02-attention-tiles.md); softcap and the
    # document mask as well: at 160 registers their consumers spill 150
    # bytes, and at 128 rows they run alike or 1% faster without
    # (bench/results/2026-12-02-attention-dynamic.md, run 6)
    three = hd == 64 and kind not in ("block_sparse", "sliding", "softcap", "document")
    bm, lregs = (192, 32) if three else (128, 40)
    uses = ["tma_load_q", "tma_load_kv", "attn_core", "attn_store"] + v["uses"]
    grid = v["grid"]
    if kind == "document" and hd == 64:
        # at 64 the document mask's items in index order: a head's q blocks
        # in a row share their documents' KV in L2, 7.1% faster than
        # lpt_order's (3.1% slower at 128),
        # bench/results/2026-12-03-attention-sliding-order.md
        grid = "dynamic"
    if "lpt" in grid:
        uses.append("lpt_order")
    text = "".join('use "attention/%s.plk"\n' % u for u in uses)
    sig = SIG % v["params"]

    # K and V rings: 2 stages at HD 128, 4 at HD 64 for the short items of
    # the sliding window, document mask and softcap (as their examples/
    # recipes; bench/results/2026-12-04-attention-kv-stages.md)
    kv = "256 / HD" if kind in ("sliding", "document", "softcap") else "2"

    # reading ahead (the next item's first S while this one stores) where
    # it measured faster: the sliding window 1.0-1.4%, causal GQA 5.1%;
    # the document mask, softcap and block-sparse 1-9% slower, causal at
    # 2k 0.6% (bench/results/2026-12-05-attention-ahead.md)
    def kernel(name, tiles, qstages, grid=grid, ahead=kind == "sliding"):
        k = "\nkernel %s%s {\n  const BM = %d, %s%s\n" % (name, sig, bm, tiles, ", AHEAD = 1" if ahead else "")
        k += "  grid persistent, tiles(ceil_div(SQ, BM), B * H), %s\n" % grid
        k += ("  lq   = tma_load_q(qmap = Q)\n  lkv  = tma_load_kv(kmap = K, vmap = V)\n  core = attn_core()\n"
              "  epi  = attn_store(omap = O, lse = LSE)\n")
        if "lpt" in grid:
            k += "  lpt  = lpt_order(G = max(1, 12582912 / (SKV * HD)))\n"
        k += ("  lq.q -> core.q [stages = %d]\n  lkv.k -> core.k [stages = %s]\n  lkv.v -> core.v [stages = %s]\n"
              "  core.o -> epi.o\n" % (qstages, kv, kv))
        return k + v["hooks"] + "}\n"

    narrow = "BN = 128, HD = %d, LREGS = %d" % (hd, lregs)
    wide = "BN = 176, HD = 128, REGS = 240, LREGS = 24, SPLIT = 2"
    if kind == "causal" and hd == 128:
        # examples/attn_causal.plk's select: 176-key blocks from 4k keys,
        # with GQA the work items dealt round robin
        text += kernel("attn_causal_bn128", narrow, 2)
        text += kernel("attn_causal_bn176", wide, 1)
        text += kernel("attn_causal_gqa", narrow, 2, grid="order(lpt)", ahead=True)
        return text + ("\nselect attn_causal%s {\n  when HKV < H: attn_causal_gqa\n"
                       "  when SKV >= 4096: attn_causal_bn176\n  else: attn_causal_bn128\n}\n" % sig)
    if kind != "dense" or hd != 128:
        return text + kernel("attn_%s" % kind, narrow, 2)
    # dense at HD 128: 176-key blocks from 3k keys on, as
    # examples/attn_dense.plk's select (docs/attention.md, "Wide KV blocks")
    text += kernel("attn_dense_bn128", narrow, 2)
    text += kernel("attn_dense_bn176", wide + ", CARRY = 0", 1)
    return text + ("\nselect attn_dense%s {\n  when SKV >= 3072: attn_dense_bn176\n  else: attn_dense_bn128\n}\n"
                   % sig)


def recipe_path(kind, hd, cache=None):
    """The variant's recipe written into the cache (once per text)."""
    text = recipe_text(kind, hd)
    d = os.path.join(cache or cache_dir(), "recipes")
    os.makedirs(d, exist_ok=True)
    path = os.path.join(d, "attn_%s_d%d-%s.plk" % (kind, hd, hashlib.sha256(text.encode()).hexdigest()[:12]))
    if not os.path.exists(path):
        tmp = path + ".tmp%d" % os.getpid()
        with open(tmp, "w") as f:
            f.write(text)
        os.replace(tmp, path)
    return path


_kernels = {}


def kernel(kind, hd, arch="sm_90a", plkc=None, cache=None):
    """The linked kernel of a variant (linked once per process, and once
    per recipe text across processes through plkc's and pipelink's caches)."""
    key = (kind, hd, arch)
    if key not in _kernels:
        _kernels[key] = link(recipe_path(kind, hd, cache), arch=arch, plkc=plkc, cache=cache)
    return _kernels[key]


def document_starts(document_ids):
    """[B, S] ascending document ids -> [B, S] int32: the position where
    each token's document starts (the document kernel's form)."""
    import torch
    ids = document_ids.to(torch.int64)
    B, S = ids.shape
    pos = torch.arange(S, device=ids.device).expand(B, S)
    new = torch.ones_like(ids, dtype=torch.bool)
    new[:, 1:] = ids[:, 1:] != ids[:, :-1]
    starts = torch.where(new, pos, torch.zeros_like(pos))
    return torch.cummax(starts, dim=1).values.to(torch.int32).contiguous()


def _variant(is_causal, window, softcap, document_ids, block_mask):
    if window is not None:
        if softcap is not None or document_ids is not None or block_mask is not None:
            raise PlkError("attention: window does not combine with softcap, document_ids or block_mask")
        return "sliding"
    if document_ids is not None:
        if softcap is not None or block_mask is not None:
            raise PlkError("attention: document_ids does not combine with softcap or block_mask")
        return "document"
    if block_mask is not None:
        if softcap is not None or is_causal:
            raise PlkError("attention: block_mask takes no softcap or is_causal (put them in the block mask)")
        return "block_sparse"
    if softcap is not None:
        return "softcap" if is_causal else "softcap_dense"
    return "causal" if is_causal else "dense"


def attention(q, k, v, is_causal=False, scale=None, window=None, softcap=None, document_ids=None,
              block_mask=None, return_lse=False, arch="sm_90a"):
    """softmax(q k^T * scale + mask) v on the GPU (module docstring)."""
    import torch
    for name, t in (("q", q), ("k", k), ("v", v)):
        if not isinstance(t, torch.Tensor) or t.dim() != 4:
            raise PlkError(f"attention: {name} must be a 4-D tensor [B, H, S, D]")
    B, H, SQ, D = q.shape
    HKV, SKV = k.shape[1], k.shape[2]
    if D not in (64, 128):
        raise PlkError(f"attention: head dim {D}; the core takes 64 or 128")
    if k.shape != v.shape or k.shape[0] != B or k.shape[3] != D:
        raise PlkError(f"attention: k {tuple(k.shape)} and v {tuple(v.shape)} must be [B, HKV, SKV, {D}]")
    if H % HKV:
        raise PlkError(f"attention: {H} query heads are not a multiple of {HKV} KV heads")
    kind = _variant(is_causal, window, softcap, document_ids, block_mask)
    if kind == "document" and SQ != SKV:
        raise PlkError("attention: document_ids needs SQ == SKV")
    o = torch.empty_like(q)
    lse = torch.empty(B, H, SQ, device=q.device, dtype=torch.float32)
    args = dict(Q=q, K=k, V=v, O=o, LSE=lse, scale=float(scale if scale is not None else D ** -0.5))
    if kind == "sliding":
        args["W"] = int(window)
    if kind.startswith("softcap"):
        args["cap"] = float(softcap)
    if kind == "document":
        args["DSTART"] = document_starts(document_ids)
    if kind == "block_sparse":
        bs = tuple(getattr(block_mask, "BLOCK_SIZE", (128, 128)))
        if bs != (128, 128):
            raise PlkError(f"attention: the block mask's blocks are {bs}; the core takes 128 x 128")

        def i32(t):
            return t.to(torch.int32).expand(B, H, *t.shape[2:]).contiguous()
        args.update(KV_NUM=i32(block_mask.kv_num_blocks), KV_IDX=i32(block_mask.kv_indices),
                    FULL_NUM=i32(block_mask.full_kv_num_blocks), FULL_IDX=i32(block_mask.full_kv_indices))
    kernel(kind, D, arch)(**args)
    return (o, lse) if return_lse else o
