#!/usr/bin/env python3
"""GPU half of the benchmark: linked vs monolithic vs the baseline, side by
side in one process (bench/README.md).

For every configuration and shape in DIR/configs.json (bench/prepare.py):
fresh random bf16 inputs; the linked kernel (plkc's cubin) and the
monolithic one (the same sources as one nvcc unit) are both launched
through libplkrt with the same manifest, each on a NaN-poisoned output and
checked against an fp32 torch reference (relative Frobenius error < 1e-2);
then the three are timed interleaved launch by launch (CUDA events, median
of at least N timed launches each after warm-up, more for kernels shorter
than S / N: see bench(); S is --min-s, 1 s unless given).

    python3 bench/linked_bench.py --dir .carry/bench [--iters 200] [--min-s 0.3] [--out results.md]
"""
import argparse
import datetime
import json
import math
import os
import random
import statistics
import sys

import torch
import torch.nn.functional as F

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "runtime", "python"))
import plkrt  # noqa: E402

TOL = 1e-2
torch.backends.cuda.matmul.allow_tf32 = False


def rel_err(out, ref):
    out = out.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).norm() / ref.norm()).item()


# GPU cycles of the spacer before each timed launch (torch.cuda._sleep):
# about 200 us, so that the stream is still busy when the host has issued
# the start event and the launch, and the events time the kernel, not the
# host's launch path (Python and ctypes for ours, torch's for the
# baseline's). Measured on the H200 host: 38-42 us for a pipelink call,
# 27 us for torch.matmul; the 40 us spacer of before (80000 cycles) let
# ~10 us kernels be timed with part of the gap now and then (1024^3: 0.55x
# to 1.00x cuBLAS across runs; bench/results/2026-12-02-shape-suite-run5.md).
# PLK_BENCH_SPACER sets it.
SPACER_CYCLES = int(os.environ.get("PLK_BENCH_SPACER", "400000"))


def bench(fns, iters, warm=20, seed=1, min_s=1.0, cap=5000):
    """Median ms of each function over at least `iters` timed launches, and
    more for short kernels: enough for `min_s` seconds of each (at most
    `cap`); a 0.2 ms kernel gets 5000, so its median is as steady as a 3 ms
    kernel's over 300 (the A/A column shows the noise that is left).
    Launches are interleaved one by one, in a fresh random order every
    round, so that every kernel follows every other equally often: a
    kernel's time depends by up to 1% on what ran before it (a rotating
    order keeps the same neighbours: measured with the A/A control). A
    spacer kernel (SPACER_CYCLES) runs before each timed launch."""
    rng = random.Random(seed)
    w0, w1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    w0.record()
    for f in fns:
        for _ in range(warm):
            f()
    w1.record()
    torch.cuda.synchronize()
    per_launch_s = w0.elapsed_time(w1) / 1e3 / (warm * len(fns))
    iters = max(iters, min(cap, math.ceil(min_s / per_launch_s)))
    ev = [[(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
           for _ in range(iters)] for _ in fns]
    order = list(range(len(fns)))
    for i in range(iters):
        rng.shuffle(order)
        for j in order:
            s, e = ev[j][i]
            torch.cuda._sleep(SPACER_CYCLES)
            s.record()
            fns[j]()
            e.record()
    torch.cuda.synchronize()
    return [statistics.median(s.elapsed_time(e) for s, e in evj) for evj in ev]


# Compiled once, for static shapes: each new shape compiles its own kernel
# (before timing). With dynamic shapes the second shape's kernel is a
# generic one, 10-15% slower: a baseline that weak would flatter us.
_gelu = torch.compile(lambda x, bb: F.gelu(x + bb, approximate="tanh"), dynamic=False)
_act = torch.compile(lambda x, n: F.silu(x[:, :n]) * x[:, n:], dynamic=False)


def problem(kind, M, N, K, gen):
    """Inputs, the reference, the output, and the baseline's callable
    (its `weights`: the weight tensor it reads, in its own layout)."""
    bf = dict(device="cuda", dtype=torch.bfloat16)
    a = torch.randn(M, K, generator=gen, **bf)
    if kind in ("gemm", "bias_gelu"):
        b = (torch.randn(N, K, generator=gen, **bf) * K ** -0.5).to(torch.bfloat16)
        c = torch.empty(M, N, **bf)
        h = torch.empty(M, N, **bf)
        ref = a.float() @ b.float().t()
        if kind == "gemm":
            base = lambda: torch.matmul(a, b.t(), out=h)
            base.weights = b
            return dict(A=a, B=b, C=c), c, ref, base, 2.0 * M * N * K
        bias = torch.randn(N, generator=gen, **bf)
        ref = F.gelu(ref + bias.float(), approximate="tanh")
        base = lambda: _gelu(torch.matmul(a, b.t(), out=h), bias)
        return dict(A=a, B=b, bias=bias, C=c), c, ref, base, 2.0 * M * N * K
    wg = (torch.randn(N, K, generator=gen, **bf) * K ** -0.5).to(torch.bfloat16)
    wu = (torch.randn(N, K, generator=gen, **bf) * K ** -0.5).to(torch.bfloat16)
    w_il = torch.stack([wg.view(N // 8, 8, K), wu.view(N // 8, 8, K)], 1).reshape(2 * N, K).contiguous()
    w_cat = torch.cat([wg, wu], 0)
    af = a.float()
    ref = F.silu(af @ wg.float().t()) * (af @ wu.float().t())
    y = torch.empty(M, N, **bf)
    h = torch.empty(M, 2 * N, **bf)
    base = lambda: _act(torch.matmul(a, w_cat.t(), out=h), N)
    base.weights = w_cat
    return dict(A=a, W=w_il, Y=y), y, ref, base, 2.0 * M * 2 * N * K


def cold(kind, bind, base, N, floor=400e6):
    """Cold-L2 launches of a GEMM or GEMM + SwiGLU problem (problem()'s
    bind and baseline): (ours, base, R), where ours(k, **dims) launches k
    and base() the baseline, each on the next of R copies of its weights
    (ours bind's B or W, the baseline's `weights`; one counter for
    both), R such that at least `floor` bytes of other copies stream
    through L2 between two reads of one copy. A benchmark that reads the
    same weights every launch leaves some of them in L2 for the next (50 MB
    on an H100 or H200): more the more a kernel's L2 hints keep them, which
    a model, each layer reading its own weights once a step, never sees
    (bench/results/2026-12-06-l2-evict-first.md)."""
    name = "B" if kind == "gemm" else "W"
    w, bw = bind[name], base.weights
    R = max(3, math.ceil(floor / (w.numel() * w.element_size())) + 1)
    ours_w = [w] + [w.clone() for _ in range(R - 1)]
    base_w = [bw] + [bw.clone() for _ in range(R - 1)]
    a = bind["A"]
    h = torch.empty(a.shape[0], bw.shape[0], device=a.device, dtype=a.dtype)
    turn = [0]

    def step():
        turn[0] = (turn[0] + 1) % R
        return turn[0]

    def ours(k, **dims):
        k(**dict(bind, **{name: ours_w[step()]}), **dims)

    def base_cold():
        y = torch.matmul(a, base_w[step()].t(), out=h)
        if kind != "gemm":
            _act(y, N)
    return ours, base_cold, R


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", default=".carry/bench")
    ap.add_argument("--iters", type=int, default=300)
    ap.add_argument("--min-s", type=float, default=1.0, help="seconds of each kernel timed, at least")
    ap.add_argument("--out")
    args = ap.parse_args()
    cfgs = json.load(open(os.path.join(args.dir, "configs.json")))
    dev = torch.cuda.get_device_name(0)
    stamp = datetime.datetime.now(datetime.timezone.utc).isoformat(timespec="seconds")
    print("device: %s, torch %s, %s" % (dev, torch.__version__, stamp), flush=True)
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(datetime.datetime.now().timestamp()))
    rows, diffs, aas, fails = [], [], [], 0
    head = ["| config | M x N x K | rel err linked / monolith | linked ms | monolith ms | linked vs mono "
            "| linked vs linked (A/A) | linked TFLOP/s | baseline ms | baseline / linked |",
            "|---|---|---|---|---|---|---|---|---|---|"]
    for cfg in cfgs:
        if not cfg.get("mono"):   # a select (bench/prepare.py): no monolith to time it beside
            print("%s: a select, no monolith; bench/shape_suite.py times it" % cfg["name"], flush=True)
            continue
        man = os.path.join(args.dir, cfg["manifest"])
        linked = plkrt.load(os.path.join(args.dir, cfg["cubin"]), man)
        mono = plkrt.load(os.path.join(args.dir, cfg["mono"]), man)
        for (M, N, K) in cfg["shapes"]:
            bind, out, ref, base, flops = problem(cfg["kind"], M, N, K, gen)
            dims = {} if cfg["kind"] != "swiglu" else {"N": N}
            errs = []
            for k in (linked, mono):
                out.fill_(float("nan"))
                k(**bind, **dims)
                torch.cuda.synchronize()
                errs.append(rel_err(out, ref))
            bo = base()
            torch.cuda.synchronize()
            eb = rel_err(bo, ref)
            # a bound (bench/configs.py) writes no output: timed, not checked
            bound = cfg.get("bound", False)
            ok = all(e < TOL for e in errs)
            fails += not ok and not bound
            # the linked kernel twice: the A/A difference is the noise floor
            run_l = lambda: linked(**bind, **dims)
            t_l, t_m, t_l2, t_b = bench([run_l, lambda: mono(**bind, **dims), run_l, base], args.iters,
                                     min_s=args.min_s)
            d = (t_l - t_m) / t_m * 100
            aa = (t_l - t_l2) / t_l2 * 100
            diffs.append(abs(d))
            aas.append(abs(aa))
            tfl = flops / (t_l * 1e-3) / 1e12
            row = "| %s | %dx%dx%d | %.2e / %.2e %s | %.4f | %.4f | %+.2f%% | %+.2f%% | %.0f | %.4f | %.3f |" % (
                cfg["name"], M, N, K, errs[0], errs[1], "bound" if bound else "ok" if ok else "FAIL", t_l, t_m, d, aa, tfl,
                t_b, t_b / t_l)
            print(row, " (baseline err %.1e)" % eb, flush=True)
            rows.append(row)
            keep(args.out, "\n".join(head + rows))
            del bind, out, ref
            torch.cuda.empty_cache()
        linked.close()
        mono.close()
    summary = ("linked vs monolithic over %d configurations: median |diff| %.2f%%, max %.2f%%; "
               "the same linked kernel timed twice (A/A): median |diff| %.2f%%, max %.2f%%"
               % (len(diffs), statistics.median(diffs), max(diffs), statistics.median(aas), max(aas)))
    text = "device: %s, torch %s, %s, at least %d timed launches each, and %g s of each kernel (median)\n\n%s\n\n%s\n" % (
        dev, torch.__version__, stamp, args.iters, args.min_s, "\n".join(head + rows), summary)
    print()
    print(text)
    return finish(text, args.out, fails)


def keep(out, text):
    """Writes the rows timed so far to `out` (if given), marked partial,
    so that a run a time limit stops leaves them; finish() writes the
    whole table over it. Written beside and renamed: never half a file."""
    if out:
        with open(out + ".part", "w") as f:
            f.write(text + "\n\n(partial: the rows timed before the run stopped)\n")
        os.replace(out + ".part", out)


def finish(text, out, fails):
    """Writes the table to `out` (if given); the exit status."""
    if out:
        with open(out, "w") as f:
            f.write(text)
    print("FAILURES: %d" % fails if fails else "all correct")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
