#!/usr/bin/env python3
"""Runs every attention configuration of DIR once at small, odd shapes
(S = 1000 and 4097, GQA, SQ != SKV where the variant allows it), with the
inputs each variant needs, for compute-sanitizer (bench/gpu_attn.sh runs
it under memcheck, racecheck and synccheck, on our kernels only). Also
checks each result against the fp32 reference, so a run that the tool
perturbs is noticed.

    compute-sanitizer --tool memcheck python3 tests/gpu/attn_sanitize.py .carry/attn [SUBSTRING]

With SUBSTRING (or several, comma-separated), only the configurations
whose names contain one of them. Run it with
PYTORCH_NO_CUDA_MEMORY_CACHING=1 (bench/gpu_attn.sh does): each tensor
then has an allocation of its own size, and memcheck sees a read past its
end that the caching allocator's rounding would hide. Under
PLK_MAX_BLOCKS=N (docs/runtime.md) each block takes several work items.
"""
import json
import math
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import attn_bench as ab  # noqa: E402

SHAPES = [(1, 2, 1, 1000, 1000), (1, 1, 1, 4097, 4097), (1, 2, 2, 300, 700)]


def main():
    d = sys.argv[1]
    gen = torch.Generator().manual_seed(7)
    bad = 0
    only = sys.argv[2].split(",") if len(sys.argv) > 2 else [""]
    for cfg in json.load(open(os.path.join(d, "configs.json"))):
        if not any(o in cfg["name"] for o in only):
            continue
        kern = ab.plkrt.load(os.path.join(d, cfg["cubin"]), os.path.join(d, cfg["manifest"]))
        for (B, H, HKV, SQ, SKV) in SHAPES:
            if cfg["kind"] == "document" and SQ != SKV:
                continue
            HD = cfg["hd"]
            q = torch.randn(B, H, SQ, HD, device="cuda", dtype=torch.bfloat16)
            k = torch.randn(B, HKV, SKV, HD, device="cuda", dtype=torch.bfloat16)
            v = torch.randn(B, HKV, SKV, HD, device="cuda", dtype=torch.bfloat16)
            ex = ab.make_extra(cfg["kind"], B, H, SQ, SKV, gen)
            scale = 1 / math.sqrt(HD)
            o, lse = ab.run(kern, cfg["kind"], q, k, v, scale, ex)
            torch.cuda.synchronize()
            e, le = ab.errors(o, lse, *ab.reference(cfg["kind"], q, k, v, scale, ex))
            ok = e < ab.TOL and le < ab.TOL
            bad += not ok
            print("%-24s %-24s O %.2e LSE %.2e %s" % (cfg["name"], (B, H, HKV, SQ, SKV), e, le, "ok" if ok else "FAIL"),
                  flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
