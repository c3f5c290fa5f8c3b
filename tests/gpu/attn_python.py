#!/usr/bin/env python3
"""pipelink.attention on the GPU: every variant and both head dims against
the fp32 reference on fresh random inputs (small and odd shapes), and
against SDPA and FlexAttention's own outputs with their arguments. Links
through the installed or in-tree plkc when one is there, else loads the
cubins bench/prepare.py linked (.carry/attn) under the variant names.

    python3 tests/gpu/attn_python.py
"""
import math
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import pipelink  # noqa: E402
import pipelink._attention as PA  # noqa: E402
import attn_bench as ab  # noqa: E402

bad = 0


def check(name, o, lse, o_ref, lse_ref):
    global bad
    e, le = ab.errors(o, lse, o_ref, lse_ref)
    ok = e < ab.TOL and le < ab.TOL
    bad += not ok
    print("%-34s O %.2e LSE %.2e %s" % (name, e, le, "ok" if ok else "FAIL"), flush=True)


def main():
    try:
        pipelink.find_plkc()
    except pipelink.PlkError:
        # no plkc on this host: the cubins the build host linked, by variant
        carry = os.path.join(HERE, "..", "..", ".carry", "attn")
        for kind, rec in (("dense", "dense"), ("causal", "causal"), ("sliding", "sliding"), ("softcap", "softcap"),
                          ("document", "document"), ("block_sparse", "block_sparse")):
            for hd in (64, 128):
                p = os.path.join(carry, "attn_%s_d%d.cubin" % (rec, hd))
                if os.path.exists(p):
                    PA._kernels[(kind, hd, "sm_90a")] = pipelink.load(p)
    gen = torch.Generator().manual_seed(11)
    for hd in (128, 64):
        # 4500 keys: dense at head dim 128 takes its 176-key variant there,
        # causal its GQA one (HKV < H); 4200 keys without GQA: causal's 176-key one
        for (B, H, HKV, SQ, SKV) in ((1, 4, 2, 1000, 1000), (2, 2, 2, 333, 777), (1, 2, 1, 500, 4500),
                                     (1, 2, 2, 600, 4200)):
            q = torch.randn(B, H, SQ, hd, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(B, HKV, SKV, hd, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(B, HKV, SKV, hd, device="cuda", dtype=torch.bfloat16)
            s = 1 / math.sqrt(hd)
            for kind, kw in (("dense", {}), ("causal", dict(is_causal=True)), ("sliding", dict(window=300)),
                             ("softcap", dict(is_causal=True, softcap=ab.CAP))):
                if (kind, hd, "sm_90a") not in PA._kernels and not _has_plkc():
                    continue
                ab.WINDOW = 300
                o, lse = pipelink.attention(q, k, v, return_lse=True, **kw)
                check("%s d%d %s" % (kind, hd, (B, H, HKV, SQ, SKV)), o, lse, *ab.reference(kind, q, k, v, s, {}))
            # SDPA's own answer with its own arguments (GQA, causal bottom-right there too)
            if SQ == SKV:
                ref = F.scaled_dot_product_attention(q, k, v, is_causal=True, enable_gqa=True)
                o = pipelink.attention(q, k, v, is_causal=True)
                e = ((o.float() - ref.float()).norm() / ref.float().norm()).item()
                print("%-34s vs SDPA %.2e %s" % ("causal d%d" % hd, e, "ok" if e < ab.TOL else "FAIL"))
                global bad
                bad += not e < ab.TOL
        # documents from ids
        B, H, S = 2, 2, 1000
        q, k, v = (torch.randn(B, H, S, hd, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        ex = ab.make_extra("document", B, H, S, S, gen)
        o, lse = pipelink.attention(q, k, v, document_ids=ex["doc"], return_lse=True)
        check("document d%d" % hd, o, lse, *ab.reference("document", q, k, v, 1 / math.sqrt(hd), ex))
    print("FAILURES: %d" % bad if bad else "all correct")
    return 1 if bad else 0


def _has_plkc():
    try:
        pipelink.find_plkc()
        return True
    except pipelink.PlkError:
        return False


if __name__ == "__main__":
    sys.exit(main())
