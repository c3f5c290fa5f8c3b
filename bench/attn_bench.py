#!/usr/bin/env python3
"""GPU half of the attention benchmark (bench/README.md, docs/attention.md).

For every attention configuration in DIR/configs.json (bench/prepare.py
--set attention): the linked kernel (plkc's cubin) and the monolithic one
(the same sources as one nvcc unit) are each checked against an fp32
reference of the same mask / score mod on NaN-poisoned outputs (O and LSE)
at small and odd shapes, then at every timed shape against the baseline's
own output; then timed interleaved launch by launch with the baselines:
cuDNN and flash SDPA (forced with sdpa_kernel, where the variant is one
SDPA computes) and torch.compile(flex_attention) with the same mask_mod /
score_mod and block mask. TFLOP/s count only unmasked work (4 * HD per
(query, key) pair that the mask keeps).

    python3 bench/attn_bench.py --dir .carry/attn [--out results.md] [--quick]
"""
import argparse
import datetime
import json
import math
import os
import sys
import zlib

import torch
import torch.nn.functional as F
from torch.nn.attention import SDPBackend, sdpa_kernel

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "runtime", "python"))
import plkrt  # noqa: E402
from linked_bench import bench, finish  # noqa: E402

TOL = 1e-2          # relative Frobenius error of O; LSE: absolute
WINDOW, CAP, NDOCS, DENSITY = 1024, 30.0, 8, 0.5
torch._dynamo.config.recompile_limit = 1000   # past the limit flex runs eagerly, ~100x slower
torch._dynamo.config.cache_size_limit = 1000

try:
    from torch.nn.attention.flex_attention import create_block_mask, flex_attention
    FLEX = torch.compile(flex_attention, dynamic=False)
except ImportError:
    FLEX = None


# ---- the variants: each a mask over (b, h, q, kv) and a score mod ----

def inputs(kind, shape, HD, gen):
    """Fresh random q, k, v (bf16, [B, H, S, HD]), the variant's extra
    tensors and the softmax scale for one (B, H, HKV, SQ, SKV) shape."""
    B, H, HKV, SQ, SKV = shape
    q = torch.randn(B, H, SQ, HD, device="cuda", dtype=torch.bfloat16)
    k = torch.randn(B, HKV, SKV, HD, device="cuda", dtype=torch.bfloat16)
    v = torch.randn(B, HKV, SKV, HD, device="cuda", dtype=torch.bfloat16)
    return q, k, v, make_extra(kind, B, H, SQ, SKV, gen), 1 / math.sqrt(HD)


def make_extra(kind, B, H, SQ, SKV, gen):
    """Per-variant inputs: doc ids, block tables."""
    ex = {}
    if kind == "document":
        cuts = sorted(torch.randperm(SKV - 1, generator=gen)[:NDOCS - 1].add(1).tolist())
        doc = torch.zeros(SKV, dtype=torch.int32)
        for c in cuts:
            doc[c:] += 1
        ex["doc"] = doc.repeat(B, 1).cuda()
        # the kernel's form: each token's document start
        pos = torch.arange(SKV, dtype=torch.int32)
        first = torch.zeros(SKV, dtype=torch.int32)
        for c in cuts:
            first[c:] = c
        ex["dstart"] = first.repeat(B, 1).cuda()
        assert bool(((pos >= first)).all())
    if kind == "block_sparse":
        QB, KVB = math.ceil(SQ / 128), math.ceil(SKV / 128)
        keep = torch.rand(B, H, QB, KVB, generator=gen) < DENSITY
        keep[..., 0] = True      # every row keeps a block
        ex["blocks"] = keep.cuda()
    return ex


def mask_fn(kind, SQ, SKV, ex):
    """FlexAttention mask_mod of the variant (None: every key)."""
    off = SKV - SQ

    def causal(b, h, q, kv):
        return kv <= q + off
    if kind == "dense" or kind == "softcap_dense":
        return None
    if kind in ("causal", "softcap"):
        return causal
    if kind == "sliding":
        return lambda b, h, q, kv: (kv <= q + off) & (q + off - kv < WINDOW)
    if kind == "document":
        doc = ex["doc"]
        return lambda b, h, q, kv: (kv <= q) & (doc[b, q] == doc[b, kv])
    if kind == "block_sparse":
        blk = ex["blocks"]
        return lambda b, h, q, kv: blk[b, h, q // 128, kv // 128]
    raise ValueError(kind)


def score_fn(kind):
    if kind.startswith("softcap"):
        return lambda s, b, h, q, kv: CAP * torch.tanh(s / CAP)
    return None


def dense_mask(kind, B, H, SQ, SKV, ex, dev="cuda"):
    """The mask as a [B or 1, H or 1, SQ, SKV] bool tensor (None: all)."""
    q = torch.arange(SQ, device=dev)[:, None]
    kv = torch.arange(SKV, device=dev)[None, :]
    off = SKV - SQ
    if kind in ("dense", "softcap_dense"):
        return None
    if kind in ("causal", "softcap"):
        return (kv <= q + off)[None, None]
    if kind == "sliding":
        return ((kv <= q + off) & (q + off - kv < WINDOW))[None, None]
    if kind == "document":
        d = ex["doc"]
        return ((kv <= q)[None] & (d[:, :, None] == d[:, None, :]))[:, None]
    if kind == "block_sparse":
        return ex["blocks"].repeat_interleave(128, 2)[:, :, :SQ].repeat_interleave(128, 3)[..., :SKV]
    raise ValueError(kind)


def reference(kind, q, k, v, scale, ex):
    """fp32 O and LSE (natural log; -inf for a row that keeps no key)."""
    B, H, SQ, HD = q.shape
    HKV, SKV = k.shape[1], k.shape[2]
    k = k.float().repeat_interleave(H // HKV, 1)
    v = v.float().repeat_interleave(H // HKV, 1)
    s = torch.einsum("bhqd,bhkd->bhqk", q.float(), k) * scale
    if kind.startswith("softcap"):
        s = CAP * torch.tanh(s / CAP)
    m = dense_mask(kind, B, H, SQ, SKV, ex)
    if m is not None:
        s = s.masked_fill(~m, float("-inf"))
    lse = torch.logsumexp(s, -1)
    p = torch.softmax(s, -1).nan_to_num(0.0)
    return torch.einsum("bhqk,bhkd->bhqd", p, v), lse


def pairs(kind, B, H, SQ, SKV, ex):
    """(query, key) pairs the mask keeps, over the whole batch."""
    m = dense_mask(kind, B, H, SQ, SKV, ex)
    if m is None:
        return B * H * SQ * SKV
    return int(m.expand(B, H, SQ, SKV).sum().item())


# ---- our kernels ----

def kernel_args(kind, q, k, v, o, lse, scale, ex):
    a = dict(Q=q, K=k, V=v, O=o, LSE=lse, scale=scale)
    if kind == "sliding":
        a["W"] = WINDOW
    if kind.startswith("softcap"):
        a["cap"] = CAP
    if kind == "document":
        a["DSTART"] = ex["dstart"]
    if kind == "block_sparse":
        B, H, QB, KVB = ex["blocks"].shape
        keep = ex["blocks"].int()
        full_num = keep.sum(-1).int().contiguous()
        # kept block indices first (ascending), then padding
        order = torch.argsort((1 - keep) * KVB + torch.arange(KVB, device=keep.device), dim=-1)
        a.update(KV_NUM=torch.zeros_like(full_num), KV_IDX=torch.zeros_like(order, dtype=torch.int32),
                 FULL_NUM=full_num, FULL_IDX=order.int().contiguous())
    return a


def run(kern, kind, q, k, v, scale, ex):
    B, H, SQ, HD = q.shape
    o = torch.full_like(q, float("nan"))
    lse = torch.full((B, H, SQ), float("nan"), device=q.device)
    kern(**kernel_args(kind, q, k, v, o, lse, scale, ex))
    return o, lse


def errors(o, lse, o_ref, lse_ref):
    if not torch.isfinite(o).all() or torch.isnan(lse).any():
        return float("inf"), float("inf")
    err = ((o.float() - o_ref).norm() / o_ref.norm().clamp_min(1e-30)).item()
    fin = torch.isfinite(lse_ref)
    if not torch.equal(torch.isfinite(lse), fin):
        return err, float("inf")
    return err, (lse[fin] - lse_ref[fin]).abs().max().item() if fin.any() else 0.0


# ---- baselines ----

def baselines(kind, q, k, v, scale, ex):
    """name -> zero-argument callable computing the variant."""
    out = {}
    B, H, SQ, HD = q.shape
    HKV, SKV = k.shape[1], k.shape[2]
    gqa = HKV != H
    if kind in ("dense", "causal"):
        for be, nm in ((SDPBackend.CUDNN_ATTENTION, "cudnn"), (SDPBackend.FLASH_ATTENTION, "flash")):
            def f(be=be):
                with sdpa_kernel(be):
                    return F.scaled_dot_product_attention(q, k, v, is_causal=kind == "causal", scale=scale,
                                                          enable_gqa=gqa)
            try:
                f()
                out[nm] = f
            except RuntimeError as e:
                print("  (%s unavailable: %s)" % (nm, str(e).splitlines()[0][:80]))
    if FLEX is not None and (SQ, SKV) == (8192, 8192):   # each shape compiles anew: the table's shape
        mm, sm = mask_fn(kind, SQ, SKV, ex), score_fn(kind)
        bm = create_block_mask(mm, B if kind in ("document", "block_sparse") else None,
                               H if kind == "block_sparse" else None, SQ, SKV, BLOCK_SIZE=128) if mm else None
        out["flex"] = lambda: FLEX(q, k, v, score_mod=sm, block_mask=bm, scale=scale, enable_gqa=gqa)
    return out


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".carry/attn")
    ap.add_argument("--out")
    ap.add_argument("--quick", action="store_true", help="fewer timed launches")
    ap.add_argument("--only", help="comma-separated configuration names")
    ap.add_argument("--baselines", help="comma-separated subset of cudnn,flash,flex (an A/B run needs one)")
    args = ap.parse_args()
    cfgs = json.load(open(os.path.join(args.dir, "configs.json")))
    if args.only:
        cfgs = [c for c in cfgs if c["name"] in args.only.split(",")]
    gen = torch.Generator().manual_seed(2026)
    torch.manual_seed(2026)
    lines, fails, ratios = [], 0, []
    lines.append("| config | B H/HKV SQ x SKV HD | linked | monolith | A/A | %s | linked/mono | vs best SDPA | vs flex |"
                 % " | ".join(("cudnn", "flash", "flex")))
    lines.append("|---|---|---|---|---|---|---|---|---|---|---|")
    for cfg in cfgs:
        kind, HD = cfg["kind"], cfg["hd"]
        man = os.path.join(args.dir, cfg["manifest"])
        lk = plkrt.load(os.path.join(args.dir, cfg["cubin"]), man)
        # "mono_manifest": the second kernel is another build (an A/B run)
        mk = plkrt.load(os.path.join(args.dir, cfg["mono"]), os.path.join(args.dir, cfg.get("mono_manifest", cfg["manifest"])))
        # correctness at small and odd shapes, both builds
        for shape in cfg["check_shapes"]:
            q, k, v, ex, scale = inputs(kind, shape, HD, gen)
            o_ref, lse_ref = reference(kind, q, k, v, scale, ex)
            for nm, kern in (("linked", lk), ("monolith", mk)):
                o, lse = run(kern, kind, q, k, v, scale, ex)
                e, le = errors(o, lse, o_ref, lse_ref)
                ok = e < TOL and le < TOL
                fails += not ok
                print("%-22s %-8s %-26s O %.2e LSE %.2e %s" % (cfg["name"], nm, tuple(shape), e, le,
                                                               "ok" if ok else "FAIL"), flush=True)
        for shape in cfg["shapes"]:
            B, H, HKV, SQ, SKV = shape
            # the timed shape's documents or block mask drawn from the shape
            # alone: every configuration timed at it sees the same mask, so
            # its rows compare (the work per row depends on the mask)
            mgen = torch.Generator().manual_seed(zlib.crc32(repr((kind, tuple(shape))).encode()))
            q, k, v, ex, scale = inputs(kind, shape, HD, mgen)
            base = baselines(kind, q, k, v, scale, ex)
            if args.baselines:
                base = {n: f for n, f in base.items() if n in args.baselines.split(",")}
            # at the timed shape: against a baseline's output (no fp32 reference fits)
            o, lse = run(lk, kind, q, k, v, scale, ex)
            if base:
                ref = next(iter(base.values()))()
                e = ((o.float() - ref.float()).norm() / ref.float().norm()).item()
                fails += not e < TOL
                print("%-22s at %s: vs %s %.2e %s" % (cfg["name"], (B, H, HKV, SQ, SKV), next(iter(base)), e,
                                                       "ok" if e < TOL else "FAIL"), flush=True)
            for f in base.values():   # compiles flex for this shape before timing
                f()
            o = torch.empty_like(q)
            lse = torch.empty(B, H, SQ, device="cuda")
            ka = kernel_args(kind, q, k, v, o, lse, scale, ex)
            fns = [lambda: lk(**ka), lambda: mk(**ka), lambda: lk(**ka)] + list(base.values())
            ts = bench(fns, 100 if args.quick else 300, min_s=0.3 if args.quick else 0.6)
            # after hundreds of launches (a dynamic grid's counters reset by
            # the kernel itself): the last output still the baseline's
            if base:
                torch.cuda.synchronize()
                e = ((o.float() - ref.float()).norm() / ref.float().norm()).item()
                fails += not e < TOL
                if not e < TOL:
                    print("%-22s after timing: vs %s %.2e FAIL" % (cfg["name"], next(iter(base)), e), flush=True)
            fl = 4.0 * HD * pairs(kind, B, H, SQ, SKV, ex)
            tf = [fl / t / 1e9 for t in ts]
            names = ["linked", "monolith", "A/A"] + list(base)
            col = dict(zip(names, tf))
            best_sdpa = max([col[n] for n in ("cudnn", "flash") if n in col], default=None)
            ratios.append(ts[1] / ts[0])
            lines.append("| %s | %d %d/%d %d x %d %d | %.0f | %.0f | %.0f | %s | %.4f | %s | %s |" % (
                cfg["name"], B, H, HKV, SQ, SKV, HD, tf[0], tf[1], tf[2],
                " | ".join("%.0f" % col[n] if n in col else "-" for n in ("cudnn", "flash", "flex")),
                ts[1] / ts[0], "%.3f" % (tf[0] / best_sdpa) if best_sdpa else "-",
                "%.2f" % (tf[0] / col["flex"]) if "flex" in col else "-"))
            print(lines[-1], flush=True)
    dev = [abs(r - 1) for r in ratios]
    head = ["# Attention: linked vs monolith vs SDPA and FlexAttention",
            "", "%s, %s, torch %s" % (datetime.date.today(), torch.cuda.get_device_name(), torch.__version__),
            "TFLOP/s count unmasked (query, key) pairs x 4 x HD; linked/mono: monolith time over linked time.",
            "linked vs monolith over %d rows: median |diff| %.2f%%, max %.2f%%" % (
                len(ratios), 100 * sorted(dev)[len(dev) // 2] if dev else 0, 100 * max(dev) if dev else 0), ""]
    return finish("\n".join(head + lines) + "\n", args.out, fails)


if __name__ == "__main__":
    sys.exit(main())
