#!/usr/bin/env python3
"""What clock and power a long GEMM runs at: each kernel, cuBLAS first and
last, launched back to back on cold weights (linked_bench.cold) for a few
seconds while nvidia-smi samples the SM clock, the power draw and the
reasons the clock is held down. Where our kernel times slower than cuBLAS
at a shape whose neighbours it matches, this says whether it ran at a
lower clock (power) or at the same clock doing less (the kernel).

    python3 bench/prepare.py --set big_square --out .carry/big --repeat 1   # build host
    python3 bench/clock_probe.py --dir .carry/big --shape 16384 16384 16384 pp wide   # GPU host

Each configuration's output is checked against the fp32 reference on a
NaN-poisoned buffer before it runs.
"""
import argparse
import datetime
import json
import os
import statistics
import sys
import time

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from linked_bench import TOL, cold, plkrt, problem, rel_err  # noqa: E402
from smi import Sampler  # noqa: E402

def run_for(fn, seconds, smi):
    """fn launched back to back for about `seconds`: (ms a launch, the
    sampler's readings meanwhile). The first half second is left out of
    both."""
    for _ in range(3):
        fn()
    torch.cuda.synchronize()
    s0, e0 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s0.record()
    fn()
    e0.record()
    torch.cuda.synchronize()
    per = max(s0.elapsed_time(e0), 1e-3)
    warm = max(1, int(500 / per))
    n = max(10, int(seconds * 1000 / per))
    for _ in range(warm):
        fn()
    torch.cuda.synchronize()
    t0 = time.monotonic()
    s, e = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    s.record()
    for _ in range(n):
        fn()
    e.record()
    torch.cuda.synchronize()
    return s.elapsed_time(e) / n, smi.between(t0, time.monotonic())


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--shape", type=int, nargs=3, required=True, metavar=("M", "N", "K"))
    ap.add_argument("--seconds", type=float, default=3.0)
    ap.add_argument("names", nargs="+")
    args = ap.parse_args()
    cfgs = {c["name"]: c for c in json.load(open(os.path.join(args.dir, "configs.json")))}
    M, N, K = args.shape
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(datetime.datetime.now().timestamp()))
    bind, out, ref, base, flops = problem("gemm", M, N, K, gen)
    ours, base_cold, R = cold("gemm", bind, base, N)
    print("device: %s, torch %s, %s; %d x %d x %d, weights cold (%d copies), %.1f s a kernel"
          % (torch.cuda.get_device_name(0), torch.__version__,
             datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds"), M, N, K, R, args.seconds))
    fns = [("cuBLAS", base_cold)]
    fails = 0
    for name in args.names:
        c = cfgs[name]
        k = plkrt.load(os.path.join(args.dir, c["cubin"]), os.path.join(args.dir, c["manifest"]))
        out.fill_(float("nan"))
        k(**bind)
        torch.cuda.synchronize()
        err = rel_err(out, ref)
        print("%s: rel err %.2e %s" % (name, err, "ok" if err < TOL else "FAIL"))
        fails += not err < TOL
        fns.append((name, lambda k=k: ours(k)))
    fns.append(("cuBLAS again", base_cold))
    print("\n| kernel | ms | TFLOP/s | SM MHz (median) | W (median) | C (max) | clock event reasons seen |")
    print("|---|---|---|---|---|---|---|")
    smi = Sampler()
    for name, fn in fns:
        ms, rows = run_for(fn, args.seconds, smi)
        mhz = statistics.median(r[0] for r in rows) if rows else float("nan")
        w = statistics.median(r[1] for r in rows) if rows else float("nan")
        temp = max((r[2] for r in rows), default=float("nan"))
        reasons = sorted({r[3] for r in rows})
        print("| %s | %.3f | %.0f | %.0f | %.0f | %.0f | %s |" % (name, ms, flops / (ms * 1e-3) / 1e12, mhz, w, temp,
                                                                  " ".join(reasons)), flush=True)
    smi.close()
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
