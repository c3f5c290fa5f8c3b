#!/usr/bin/env python3
"""The shape suite (issue 16): every linked GEMM configuration of the
`shape_suite` set against cuBLAS at LLM projection sizes, small M, square
powers of two, odd sizes and the Llama MLP shapes; the GEMM + SwiGLU
configurations against cuBLAS + a torch.compile'd SwiGLU. One row a shape:
each configuration's time over the baseline's, timed interleaved in one
process (linked_bench.bench: medians, fresh random order every round),
after each output was checked against the fp32 reference on a NaN-poisoned
buffer. The best configuration of each row is the tuning table a `select`
rule is written from. The weights are cold in L2: each launch reads the
next of several copies (linked_bench.cold), since a kernel whose L2
hints keep some of them for its next launch on the same weights would be
timed faster than a model, whose layers read theirs once a step, ever
runs it (bench/results/2026-12-06-l2-evict-first.md; `--warm` times the
old way).
Each row ends with the SM clock while it was timed (bench/smi.py).

    python3 bench/prepare.py --set shape_suite --out .carry/shapes --repeat 1   # build host
    python3 bench/shape_suite.py --dir .carry/shapes [--out results.md]         # GPU host
"""
import argparse
import datetime
import json
import math
import os
import statistics
import sys
import time

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, HERE)
sys.path.insert(0, os.path.join(HERE, "..", "runtime", "python"))
import plkrt  # noqa: E402
from linked_bench import TOL, bench, cold, finish, keep, problem, rel_err  # noqa: E402
from smi import Sampler, summary as clock_summary  # noqa: E402

# the SwiGLU baseline compiles once a shape (dynamic=False): past dynamo's
# recompile limit (8) it would silently run eagerly, a weak baseline
torch._dynamo.config.recompile_limit = 64

# (N, K) of LLM projections: Llama-3-8B MLP up/gate and down, attention
# QKV (GQA 32/8 x 128), Llama-3.2-1B's vocabulary projection
PROJ = [(14336, 4096), (4096, 14336), (6144, 4096), (128256, 2048)]
SMALL_M = [1, 16, 64, 128, 256, 1000]
GEMM = ([(m, n, k) for (n, k) in PROJ for m in SMALL_M] +
        [(s, s, s) for s in (1024, 2048, 4096, 8192, 16384)] +
        [(1000, 3000, 1000), (4097, 4096, 4096), (4096, 4095, 4096), (4097, 4095, 4096), (8192, 28672, 4096),
         (8192, 4096, 14336)] +
        # K % 64 != 0: rows of K that are no whole 128-byte lines
        [(2000, 3000, 1000), (512, 4096, 1000), (2048, 8192, 1000), (3000, 3000, 3000), (4096, 4096, 4000),
         (256, 14336, 4000), (1000, 14336, 4000)] +
        # a last tile row mostly past M (the pingpong tiles' slow case,
        # 2026-12-07-shape-suite-run19-h100.md), at the vocabulary's N too
        [(900, 20000, 2048), (900, 128256, 2048), (2000, 128256, 2048)])
SWIGLU = [(m, 14336, 4096) for m in (16, 128, 1000, 4096, 8192, 16384)] + [(8192, 8192, 2048), (2048, 11008, 4096),
                                                                            (4096, 8192, 4096)] + [
    # K % 64 != 0 (gemm_swiglu_auto's swiglu_wide_mc)
    (2048, 11008, 1000), (1000, 14336, 4000)]


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".carry/shapes")
    ap.add_argument("--iters", type=int, default=30)
    ap.add_argument("--min-s", type=float, default=0.25, help="seconds of each kernel timed, at least")
    ap.add_argument("--out")
    ap.add_argument("--only", choices=("gemm", "swiglu"), help="one kind of the two")
    ap.add_argument("--warm", action="store_true", help="every launch on the same weights, so that a kernel "
                    "finds in L2 what its last launch left there (the suite's way before 2026-12-06); by "
                    "default each launch takes the next of several copies (linked_bench.cold), every kernel "
                    "and the baseline alike")
    ap.add_argument("--force", default="", help="variants to time forced too, as columns of their own: "
                    "a,b,... (a tuning run: the rule's table); a column =v, or =config:v for each of "
                    "several configurations that have v")
    ap.add_argument("--shapes", default="", help="MxNxK,... in place of the kind's list (with --only)")
    args = ap.parse_args()
    if args.shapes and not args.only:
        ap.error("--shapes needs --only: the shapes are of one kind")
    mine = [tuple(int(x) for x in s.split("x")) for s in filter(None, args.shapes.split(","))]
    cfgs = json.load(open(os.path.join(args.dir, "configs.json")))
    dev = torch.cuda.get_device_name(0)
    sms = torch.cuda.get_device_properties(0).multi_processor_count
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    print("device: %s (%d SMs), torch %s, %s" % (dev, sms, torch.__version__, stamp), flush=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(datetime.datetime.now().timestamp()))
    fails, text = 0, []
    # the card's SM clock while each row was timed (bench/smi.py): a row
    # that moves between runs with the same kernel and pick moved with it
    # or not
    smi = Sampler()
    for kind, shapes, base_name in (("gemm", GEMM, "cuBLAS"), ("swiglu", SWIGLU, "cuBLAS + compiled SwiGLU")):
        if args.only and kind != args.only:
            continue
        shapes = mine or shapes
        ks = [(c["name"], plkrt.load(os.path.join(args.dir, c["cubin"]), os.path.join(args.dir, c["manifest"])))
              for c in cfgs if c["kind"] == kind]
        for v in filter(None, args.force.split(",")):   # each forced variant: a load of its own
            has = [c for c in cfgs if c["kind"] == kind and v in
                   [x["name"] for x in json.load(open(os.path.join(args.dir, c["manifest"]))).get("variants", [])]]
            for c in has:   # "=v", or "=config:v" where several configurations have it
                k = plkrt.load(os.path.join(args.dir, c["cubin"]), os.path.join(args.dir, c["manifest"]))
                k.force_variant(v)
                ks.append(("=" + (c["name"] + ":" if len(has) > 1 else "") + v, k))
        if not ks:
            continue
        head = ["| M x N x K | %s TFLOP/s | %s | best | best / %s | SM clock while timed |" % (
                    base_name, " | ".join(n + " / base" for n, _ in ks), "base"),
                "|---|---|" + "---|" * len(ks) + "---|---|---|"]
        rows, best_ratios, ratios = [], [], {}
        for (M, N, K) in shapes:
            bind, out, ref, base, flops = problem(kind, M, N, K, gen)
            # a configuration that cannot take a shape (a TMA map of C
            # whose rows are not a multiple of 16 bytes) is refused by the
            # runtime, and the row says so
            dims = {"N": N} if kind == "swiglu" else {}
            if not args.warm:
                ours, base, _ = cold(kind, bind, base, N)
            runs, cells, good = [], [], []
            for name, k in ks:
                # forced: the small and odd shapes only, unless --shapes names them
                if name.startswith("=") and not mine and M > 1000 and N % 8 == 0:
                    runs.append(None)
                    cells.append("-")
                    good.append(False)
                    continue
                out.fill_(float("nan"))
                try:
                    k(**bind, **dims)
                    torch.cuda.synchronize()
                except plkrt.PlkError as e:
                    runs.append(None)
                    cells.append("refused: %s" % str(e).split("\n")[0][:60])
                    good.append(False)
                    continue
                e = rel_err(out, ref)
                fails += not e < TOL
                runs.append(lambda k=k: k(**bind, **dims) if args.warm else ours(k, **dims))
                cells.append("" if e < TOL else "FAIL %.1e " % e)
                good.append(e < TOL)
            t0 = time.monotonic()
            ts = bench([r for r in runs if r] + [base], args.iters, min_s=args.min_s)
            clock = smi.between(t0, time.monotonic())
            tb, it = ts[-1], iter(ts[:-1])
            best = (float("nan"), "-")
            for i, r in enumerate(runs):
                x = float("nan")
                if r:
                    x = tb / next(it)
                    cells[i] += "%.3f" % x
                    if good[i] and not x <= best[0]:
                        best = (x, ks[i][0])
                ratios.setdefault(ks[i][0], []).append(x if good[i] else float("nan"))
            best_ratios.append(best[0])
            row = "| %dx%dx%d | %.0f | %s | %s | %.3f | %s |" % (M, N, K, flops / (tb * 1e-3) / 1e12, " | ".join(cells),
                                                                best[1], best[0], clock_summary(clock))
            print(row, flush=True)
            rows.append(row)
            keep(args.out, "\n".join(text + ["\n".join(head + rows)]))
            del bind, out, ref, base, runs
            torch.cuda.empty_cache()
        # each configuration as linked (a select: its rule's picks), then
        # the best column of each row (forced variants included: what a
        # perfect rule would reach)
        lines = []
        for name, xs in list(ratios.items()) + [("best configuration", best_ratios)]:
            if name.startswith("="):
                continue
            ok = [x for x in xs if x == x]
            if ok:
                lines.append("%s: %s / %s over %d of %d shapes: geometric mean %.3f, min %.3f, below 0.95: %d"
                             % (kind, name, base_name, len(ok), len(xs),
                                math.exp(statistics.mean(math.log(x) for x in ok)), min(ok),
                                sum(x < 0.95 for x in ok)))
        summary = "\n".join(lines)
        print(summary, flush=True)
        text.append("\n".join(head + rows) + "\n\n" + summary + "\n")
        for _, k in ks:
            k.close()
    smi.close()
    doc = "device: %s (%d SMs), torch %s, %s; medians, at least %d launches and %.2f s of each kernel%s\n\n%s" % (
        dev, sms, torch.__version__, stamp, args.iters, args.min_s,
        "; weights warm in L2 (the same every launch)" if args.warm else
        "; weights cold in L2 (each launch on the next of several copies)", "\n".join(text))
    return finish(doc, args.out, fails)


if __name__ == "__main__":
    sys.exit(main())
