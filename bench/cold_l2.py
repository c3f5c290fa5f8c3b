#!/usr/bin/env python3
"""Weight-streaming GEMMs timed with the weights warm and cold in L2.

A benchmark that launches a kernel on the same weights again and again
leaves part of them in L2 for the next launch (an H100's or H200's L2
holds 50 MB; 16 x 14336 x 4096 streams 117 MB of weights), and how much
a kernel keeps depends on its L2 eviction hints: a warm benchmark can
reward a kernel for what a model, whose layers each read their own
weights once a step, never sees. So each shape is timed twice, every
configuration of DIR/configs.json of the kind and the baseline
(bench/linked_bench.py's) interleaved launch by launch as linked_bench's
bench does:

* warm: the same weights every launch (the shape suite's way);
* cold: each launch reads the next of R copies of the weights, R large
  enough that at least 400 MB of other weights streamed through L2
  since a copy was last read.

Every output is checked against the fp32 reference on a NaN-poisoned
buffer first (copy 0; the copies are clones).

    PLKRT_LIB=build/runtime/libplkrt.so python3 bench/cold_l2.py --dir DIR [--kind gemm|swiglu] [--out F]
"""
import argparse
import datetime
import json
import os
import sys

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "runtime", "python"))
import plkrt  # noqa: E402
from linked_bench import TOL, bench, cold, finish, problem, rel_err  # noqa: E402

SHAPES = dict(gemm=[(1, 14336, 4096), (16, 14336, 4096), (64, 14336, 4096), (128, 14336, 4096),
                    (256, 14336, 4096), (16, 4096, 14336), (16, 6144, 4096), (256, 6144, 4096),
                    (1000, 128256, 2048), (4096, 4096, 4096)],
              swiglu=[(16, 14336, 4096), (128, 14336, 4096), (16, 11008, 4096), (1000, 14336, 4096)])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--kind", choices=("gemm", "swiglu"), default="gemm")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--min-s", type=float, default=0.25)
    ap.add_argument("--out")
    args = ap.parse_args()
    cfgs = [c for c in json.load(open(os.path.join(args.dir, "configs.json"))) if c["kind"] == args.kind]
    ks = [(c["name"], plkrt.load(os.path.join(args.dir, c["cubin"]), os.path.join(args.dir, c["manifest"])))
          for c in cfgs]
    dev = torch.cuda.get_device_name(0)
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(datetime.datetime.now().timestamp()))
    head = ["| M x N x K | L2 | copies | %s | baseline us | baseline TB/s of weights |" %
            " | ".join(n + " / base" for n, _ in ks), "|---|---|---|" + "---|" * len(ks) + "---|---|"]
    rows, fails = [], 0
    print("device: %s, torch %s, %s" % (dev, torch.__version__, stamp), flush=True)
    for (M, N, K) in SHAPES[args.kind]:
        bind, out, ref, base_warm, _ = problem(args.kind, M, N, K, gen)
        wname = "B" if args.kind == "gemm" else "W"
        dims = {"N": N} if args.kind == "swiglu" else {}
        wbytes = bind[wname].numel() * 2
        for name, k in ks:
            out.fill_(float("nan"))
            k(**bind, **dims)
            torch.cuda.synchronize()
            e = rel_err(out, ref)
            fails += not e < TOL
            if not e < TOL:
                print("FAIL %s %dx%dx%d: rel err %.1e" % (name, M, N, K, e), flush=True)
        for regime in ("warm", "cold"):
            if regime == "warm":
                R, base = 1, base_warm
                fns = [lambda k=k: k(**bind, **dims) for _, k in ks] + [base]
            else:
                ours, base, R = cold(args.kind, bind, base_warm, N)
                fns = [lambda k=k: ours(k, **dims) for _, k in ks] + [base]
            ts = bench(fns, args.iters, min_s=args.min_s)
            tb = ts[-1]
            row = "| %dx%dx%d | %s | %d | %s | %.1f | %.2f |" % (
                M, N, K, regime, R, " | ".join("%.3f" % (tb / t) for t in ts[:-1]), tb * 1e3,
                wbytes / (tb * 1e-3) / 1e12)
            print(row, flush=True)
            rows.append(row)
            del fns, base
        del bind, out, ref, base_warm
        torch.cuda.empty_cache()
    doc = "device: %s, torch %s, %s; medians, at least %d launches and %.2f s of each kernel\n\n%s\n" % (
        dev, torch.__version__, stamp, args.iters, args.min_s, "\n".join(head + rows))
    return finish(doc, args.out, fails)


if __name__ == "__main__":
    sys.exit(main())
