#!/usr/bin/env python3
"""One attention configuration launched a few times at one shape, for
Nsight Compute (bench/attn_profile.sh reads its counters): the linked
kernel of DIR/configs.json's CONFIG, or with --cudnn the cuDNN SDPA of the
same causal / dense problem (its own kernel names), or with --flex the
compiled FlexAttention with the same mask or score mod (attn_bench's).

    python3 bench/attn_profile.py DIR CONFIG B H HKV SQ SKV [--cudnn | --flex] [--iters N]
"""
import argparse
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
import attn_bench as ab  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("config")
    ap.add_argument("shape", type=int, nargs=5, metavar="B H HKV SQ SKV")
    ap.add_argument("--cudnn", action="store_true")
    ap.add_argument("--flex", action="store_true")
    ap.add_argument("--iters", type=int, default=5)
    a = ap.parse_args()
    cfg = next(c for c in json.load(open(os.path.join(a.dir, "configs.json"))) if c["name"] == a.config)
    gen = torch.Generator().manual_seed(3)
    q, k, v, ex, scale = ab.inputs(cfg["kind"], tuple(a.shape), cfg["hd"], gen)
    if a.cudnn:
        def fn():
            with ab.sdpa_kernel(ab.SDPBackend.CUDNN_ATTENTION):
                return ab.F.scaled_dot_product_attention(q, k, v, is_causal=cfg["kind"] == "causal", scale=scale,
                                                         enable_gqa=k.shape[1] != q.shape[1])
    elif a.flex:
        fn = ab.baselines(cfg["kind"], q, k, v, scale, ex)["flex"]
    else:
        kern = ab.plkrt.load(os.path.join(a.dir, cfg["cubin"]), os.path.join(a.dir, cfg["manifest"]))
        def fn():
            return ab.run(kern, cfg["kind"], q, k, v, scale, ex)
    for _ in range(a.iters):
        fn()
    torch.cuda.synchronize()


if __name__ == "__main__":
    main()
