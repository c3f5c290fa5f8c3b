#!/usr/bin/env python3
"""Two linked variants of one composition side by side, with the baseline.

The rows of bench/linked_bench.py compare each kernel with its own
monolith and the baseline; the GPU's clock drifts between rows (the same
cuBLAS call moved by up to 5% from one row to the next in one run), so two
variants are compared only within one row: here both are checked against
the fp32 reference on poisoned outputs, then timed interleaved with the
baseline, launch by launch in a random order.

    python3 bench/ab_bench.py --dir .carry/bench A:B [C:D ...] [--iters 300] [--out F]

A and B name configurations of DIR/configs.json (bench/prepare.py) of the
same kind; the shapes are A's.
"""
import argparse
import datetime
import json
import os
import sys

import torch

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import linked_bench as lb  # noqa: E402


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".carry/bench")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--out")
    ap.add_argument("--cold", action="store_true", help="GEMM and SwiGLU: each launch on the next of several "
                    "copies of the weights (linked_bench.cold), as the shape suite times; for kernels whose L2 "
                    "hints differ, a warm A/B times what their last launches left in L2")
    ap.add_argument("pairs", nargs="+")
    args = ap.parse_args()
    cfgs = {c["name"]: c for c in json.load(open(os.path.join(args.dir, "configs.json")))}
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    head = "device: %s, torch %s, %s, at least %d timed launches each, and 1 s of each kernel (median)\n\n" % (
        torch.cuda.get_device_name(0), torch.__version__, stamp, args.iters)
    rows = ["| A | B | M x N x K | rel err A / B | A ms | B ms | A / B | baseline ms | baseline / A | baseline / B |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    print(head, flush=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(datetime.datetime.now().timestamp()))
    fails = 0
    for pair in args.pairs:
        a, b = pair.split(":")
        ca, cb = cfgs[a], cfgs[b]
        if ca["kind"] != cb["kind"]:
            sys.exit("%s and %s compute different things" % (a, b))
        ka = lb.plkrt.load(os.path.join(args.dir, ca["cubin"]), os.path.join(args.dir, ca["manifest"]))
        kb = lb.plkrt.load(os.path.join(args.dir, cb["cubin"]), os.path.join(args.dir, cb["manifest"]))
        for (M, N, K) in ca["shapes"]:
            bind, out, ref, base, flops = lb.problem(ca["kind"], M, N, K, gen)
            dims = {"N": N} if ca["kind"] == "swiglu" else {}
            errs = []
            for k in (ka, kb):
                out.fill_(float("nan"))
                k(**bind, **dims)
                torch.cuda.synchronize()
                errs.append(lb.rel_err(out, ref))
            ok = all(e < lb.TOL for e in errs)
            fails += not ok
            fa, fb = (lambda: ka(**bind, **dims)), (lambda: kb(**bind, **dims))
            if args.cold:
                ours, base, _ = lb.cold(ca["kind"], bind, base, N)
                fa, fb = (lambda: ours(ka, **dims)), (lambda: ours(kb, **dims))
            t_a, t_b, t_base = lb.bench([fa, fb, base], args.iters)
            row = "| %s | %s | %dx%dx%d | %.2e / %.2e %s | %.4f | %.4f | %.3f | %.4f | %.3f | %.3f |" % (
                a, b, M, N, K, errs[0], errs[1], "ok" if ok else "FAIL", t_a, t_b, t_a / t_b, t_base,
                t_base / t_a, t_base / t_b)
            print(row, flush=True)
            rows.append(row)
            del bind, out, ref, base, fa, fb
            torch.cuda.empty_cache()
        ka.close()
        kb.close()
    return lb.finish(head + "\n".join(rows) + "\n", args.out, fails)


if __name__ == "__main__":
    sys.exit(main())
