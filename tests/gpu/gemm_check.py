#!/usr/bin/env python3
"""Large-shape correctness and timing of the monolithic GEMM compositions
against cuBLAS (torch), side by side in one process.

Correctness: fresh random bf16 inputs per shape, output poisoned with NaN
before each run, relative Frobenius error against an fp32 torch reference
(< 1e-2). Timing: CUDA events around each launch, median of 2 x 100 timed
runs after warm-up, the two kernels of a pair alternating in rounds.
"""
import argparse
import ctypes
import datetime
import statistics
import sys

import torch
import torch.nn.functional as F

TOL = 1e-2
torch.backends.cuda.matmul.allow_tf32 = False
torch.backends.cudnn.allow_tf32 = False


def load(path):
    lib = ctypes.CDLL(path)

    def fn(name):
        f = getattr(lib, "plk_mono_launch_" + name)
        f.restype = ctypes.c_int
        f.argtypes = [ctypes.c_void_p] * 4 + [ctypes.c_int] * 4 + [ctypes.c_void_p]
        return f
    return fn


SMS = torch.cuda.get_device_properties(0).multi_processor_count


def launcher(fn, a, b, c, bias, M, N, K):
    args = (a.data_ptr(), b.data_ptr(), c.data_ptr(), bias.data_ptr() if bias is not None else None,
            M, N, K, SMS, torch.cuda.current_stream().cuda_stream)

    def run():
        r = fn(*args)
        if r != 0:
            raise RuntimeError("launch failed: %d" % r)
    return run


def rel_err(out, ref):
    out = out.float()
    if not torch.isfinite(out).all():
        return float("inf")
    return ((out - ref).norm() / ref.norm()).item()


def bench_pair(fa, fb, n=100, warm=10, rounds=2):
    """Median ms of fa and fb, alternating rounds of n timed runs."""
    res = {0: [], 1: []}
    for f in (fa, fb):
        for _ in range(warm):
            f()
    torch.cuda.synchronize()
    for _ in range(rounds):
        for i, f in enumerate((fa, fb)):
            ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True))
                  for _ in range(n)]
            for s, e in ev:
                s.record()
                f()
                e.record()
            torch.cuda.synchronize()
            res[i] += [s.elapsed_time(e) for s, e in ev]
    return statistics.median(res[0]), statistics.median(res[1])


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--lib", required=True)
    ap.add_argument("--out", default=None)
    ap.add_argument("mode", nargs="?", default="full")
    args = ap.parse_args()
    get = load(args.lib)
    rows, fails = [], 0
    dev = torch.cuda.get_device_name(0)
    print("device:", dev, "SMs:", SMS, "torch", torch.__version__)

    def report(kind, shape, name, err, t_ours, t_ref, flops):
        nonlocal fails
        ok = err < TOL
        fails += not ok
        tf = flops / (t_ours * 1e-3) / 1e12
        tfr = flops / (t_ref * 1e-3) / 1e12 if t_ref else 0
        ratio = t_ref / t_ours if t_ref else 0
        line = "| %s | %s | %s | %.2e %s | %.3f | %.0f | %.3f | %.0f | %.3f |" % (
            kind, shape, name, err, "ok" if ok else "FAIL", t_ours, tf, t_ref, tfr, ratio)
        print(line, flush=True)
        rows.append(line)

    gemm_shapes = [(8192, 8192, 8192), (4096, 4096, 4096), (8192, 28672, 4096), (16384, 14336, 4096)]
    gemm_cfgs = ["w256_store", "w256_tma", "w256_tma3"]
    extra = {(4096, 4096, 4096): ["w128_store", "w128x1_store", "a128_store"]}
    gen = torch.Generator(device="cuda")
    gen.manual_seed(int(datetime.datetime.now().timestamp()))
    for (M, N, K) in gemm_shapes:
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16, generator=gen)
        b = (torch.randn(N, K, device="cuda", dtype=torch.bfloat16, generator=gen) * K ** -0.5).to(torch.bfloat16)
        ref = a.float() @ b.float().t()
        c = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        cref = torch.empty_like(c)
        cublas = lambda: torch.matmul(a, b.t(), out=cref)
        for name in gemm_cfgs + extra.get((M, N, K), []):
            run = launcher(get(name), a, b, c, None, M, N, K)
            c.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            err = rel_err(c, ref)
            t_ours, t_cub = bench_pair(run, cublas)
            report("gemm", "%dx%dx%d" % (M, N, K), name, err, t_ours, t_cub, 2.0 * M * N * K)
        bias = torch.randn(N, device="cuda", dtype=torch.bfloat16, generator=gen)
        if (M, N, K) == (8192, 8192, 8192):
            run = launcher(get("w256_gelu"), a, b, c, bias, M, N, K)
            c.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            err = rel_err(c, F.gelu(ref + bias.float(), approximate="tanh"))
            gelu = torch.compile(lambda x, bb: F.gelu(x + bb, approximate="tanh"))
            base = lambda: gelu(torch.matmul(a, b.t(), out=cref), bias)
            t_ours, t_base = bench_pair(run, base)
            report("gemm+bias+gelu", "%dx%dx%d" % (M, N, K), "w256_gelu", err, t_ours, t_base,
                   2.0 * M * N * K)
        del a, b, ref, c, cref
        torch.cuda.empty_cache()

    act = torch.compile(lambda h, n: F.silu(h[:, :n]) * h[:, n:])
    for (M, N, K) in [(8192, 14336, 4096), (4096, 8192, 4096)]:
        a = torch.randn(M, K, device="cuda", dtype=torch.bfloat16, generator=gen)
        wg = (torch.randn(N, K, device="cuda", dtype=torch.bfloat16, generator=gen) * K ** -0.5).to(torch.bfloat16)
        wu = (torch.randn(N, K, device="cuda", dtype=torch.bfloat16, generator=gen) * K ** -0.5).to(torch.bfloat16)
        # ours: gate and up interleaved in blocks of 8 rows; baseline: stacked
        w_il = torch.stack([wg.view(N // 8, 8, K), wu.view(N // 8, 8, K)], 1).reshape(2 * N, K).contiguous()
        w_cat = torch.cat([wg, wu], 0)
        af = a.float()
        ref = F.silu(af @ wg.float().t()) * (af @ wu.float().t())
        del af
        y = torch.empty(M, N, device="cuda", dtype=torch.bfloat16)
        h = torch.empty(M, 2 * N, device="cuda", dtype=torch.bfloat16)
        base = lambda: act(torch.matmul(a, w_cat.t(), out=h), N)
        yb = base()
        err_base = rel_err(yb, ref)
        print("baseline swiglu rel_err %.2e" % err_base)
        cfgs = ["w256_swiglu", "w256_swiglu_tma"] + (["a128_swiglu"] if (M, N, K) == (4096, 8192, 4096) else [])
        for name in cfgs:
            run = launcher(get(name), a, w_il, y, None, M, N, K)
            y.fill_(float("nan"))
            run()
            torch.cuda.synchronize()
            err = rel_err(y, ref)
            t_ours, t_base = bench_pair(run, base)
            report("gemm+swiglu", "%dx%d(x2)x%d" % (M, N, K), name, err, t_ours, t_base,
                   2.0 * M * 2 * N * K)
        del a, wg, wu, w_il, w_cat, ref, y, h
        torch.cuda.empty_cache()

    head = ["| case | M x N x K | ours | rel err | ours ms | ours TFLOP/s | base ms | base TFLOP/s | base/ours |",
            "|---|---|---|---|---|---|---|---|---|"]
    table = "\n".join(head + rows)
    print()
    print(table)
    if args.out:
        with open(args.out, "w") as f:
            f.write("device: %s, SMs %d, torch %s, %s\n\n%s\n" % (
                dev, SMS, torch.__version__, datetime.datetime.now().isoformat(timespec="seconds"), table))
    print("FAILURES: %d" % fails if fails else "all correct")
    return 1 if fails else 0


if __name__ == "__main__":
    sys.exit(main())
