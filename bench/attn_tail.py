#!/usr/bin/env python3
"""How much the persistent grid's last wave costs dense attention: one
linked attention kernel timed at head counts whose work items fill the
SMs' last round to different degrees (B x H x ceil(SQ / BM) items on
the SMs, each item the same work), beside cuDNN's SDPA at each (whose
own grid fills differently), timed interleaved. Each shape's output is
checked against the fp32 reference on a poisoned buffer first (a
smaller sequence at the same head count).

    python3 bench/attn_tail.py --dir .carry/attn [--config attn_dense_d128] [--heads 16,17,32,33]
"""
import argparse
import json
import math
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import attn_bench as ab  # noqa: E402
from linked_bench import bench  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".carry/attn")
    ap.add_argument("--config", default="attn_dense_d128")
    ap.add_argument("--heads", default="16,17,32,33")
    ap.add_argument("--batch", type=int, default=2)
    ap.add_argument("--seq", type=int, default=8192)
    ap.add_argument("--bm", type=int, default=128, help="the kernel's query rows a work item")
    args = ap.parse_args()
    cfg = next(c for c in json.load(open(os.path.join(args.dir, "configs.json"))) if c["name"] == args.config)
    kern = ab.plkrt.load(os.path.join(args.dir, cfg["cubin"]), os.path.join(args.dir, cfg["manifest"]))
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    HD, B, S, kind = cfg["hd"], args.batch, args.seq, cfg["kind"]
    if kind != "dense":   # every item the same work, and 4 HD S^2 FLOP a head
        sys.exit("attn_tail: %s is a %s kernel; this times dense ones" % (args.config, kind))
    scale = 1 / math.sqrt(HD)
    bad = 0
    print("| heads | work items | rounds on %d SMs | last round full | TFLOP/s | cuDNN TFLOP/s | ours / cuDNN | rel err (S = 1000) |" % sms)
    print("|---|---|---|---|---|---|---|---|")
    for H in [int(h) for h in args.heads.split(",")]:
        q, k, v = (torch.randn(B, H, 1000, HD, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        e, le = ab.errors(*ab.run(kern, kind, q, k, v, scale, {}), *ab.reference(kind, q, k, v, scale, {}))
        ok = e < ab.TOL and le < ab.TOL
        bad += not ok
        q, k, v = (torch.randn(B, H, S, HD, device="cuda", dtype=torch.bfloat16) for _ in range(3))
        o = torch.empty_like(q)
        lse = torch.empty(B, H, S, device="cuda")
        ka = ab.kernel_args(kind, q, k, v, o, lse, scale, {})
        cudnn = ab.baselines(kind, q, k, v, scale, {}).get("cudnn")
        t, tb = bench([lambda: kern(**ka), cudnn], 200, min_s=0.5)
        items = B * H * -(-S // args.bm)
        rounds = -(-items // sms)
        fl = 4.0 * HD * B * H * S * S
        print("| %d | %d | %d | %.0f%% | %.0f | %.0f | %.3f | %.1e %s |" % (
              H, items, rounds, 100.0 * (items - (rounds - 1) * sms) / sms, fl / t / 1e9, fl / tb / 1e9, tb / t,
              max(e, le), "ok" if ok else "FAIL"), flush=True)
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
