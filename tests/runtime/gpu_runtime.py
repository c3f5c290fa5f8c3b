"""GPU tests of libplkrt through plkrt.py (needs an sm_90 GPU and torch).

    python3 tests/runtime/gpu_runtime.py WORKDIR

WORKDIR holds k.cubin, k.fatbin, tma.manifest.json and bias.manifest.json,
as tests/runtime/gpu_all.sh leaves them. Every output is poisoned (NaN)
before a launch and inputs are fresh random values; results must equal
the torch reference exactly (the kernels only scale or add exactly).
Prints one line per case and exits non-zero on any failure.
"""

import copy
import json
import os
import sys
import traceback

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "runtime", "python"))
import plkrt  # noqa: E402

W = os.path.abspath(sys.argv[1])
BASE = {name: json.load(open(os.path.join(W, name + ".manifest.json"))) for name in ("tma", "bias")}
results = {"pass": 0, "fail": 0}


def case(fn):
    try:
        fn()
        results["pass"] += 1
        print(f"ok    {fn.__name__}")
    except Exception:
        results["fail"] += 1
        print(f"FAIL  {fn.__name__}")
        traceback.print_exc(limit=3, file=sys.stdout)
    return fn


def variant(base, name, **changes):
    """Writes a manifest variant beside the binaries; returns its path."""
    m = copy.deepcopy(BASE[base])
    for k, v in changes.items():
        if v is None:
            m.pop(k, None)
        else:
            m[k] = v
    path = os.path.join(W, f"{name}.manifest.json")
    with open(path, "w") as f:
        json.dump(m, f)
    return path


def expect_error(fragment, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except plkrt.PlkError as e:
        if fragment not in str(e):
            raise AssertionError(f"error lacks {fragment!r}: {e}")
        return str(e)
    raise AssertionError(f"no error (wanted {fragment!r})")


def run_tma(k, M, K, alpha, stream=None):
    a = torch.randn(M, K, device="cuda").bfloat16()
    out = torch.full((M, K), float("nan"), device="cuda", dtype=torch.bfloat16)
    k(A=a, Out=out, alpha=alpha, stream=stream)
    torch.cuda.synchronize()
    ref = (a.float() * alpha).bfloat16()
    bad = (out.view(torch.int16) != ref.view(torch.int16)).sum().item()
    assert bad == 0, f"{bad} of {M * K} elements wrong for M={M} K={K}"


K_TMA = plkrt.load(os.path.join(W, "k.cubin"), os.path.join(W, "tma.manifest.json"))
SMS = K_TMA.sm_count


@case
def tma_shapes():
    for M, K in [(128, 64), (1000, 520), (129, 72), (4096, 4096), (8, 8)]:
        run_tma(K_TMA, M, K, 2.0)
    run_tma(K_TMA, 300, 200, -0.5)


@case
def persistent_grid():
    a = torch.zeros(4096, 4096, device="cuda", dtype=torch.bfloat16)
    K_TMA.bind(A=a, Out=a.clone(), alpha=1.0)
    grid, block, cluster, smem, work = K_TMA.launch_shape()
    assert work == 32 * 64 and grid == (min(work, SMS), 1, 1), (grid, work)
    assert block == (128, 1, 1) and smem == BASE["tma"]["dynamic_smem"]
    a = torch.zeros(128, 128, device="cuda", dtype=torch.bfloat16)
    K_TMA.bind(A=a, Out=a.clone(), alpha=1.0)
    assert K_TMA.launch_shape()[0] == (2, 1, 1)


@case
def tiles_and_clusters():
    grid = dict(BASE["tma"]["grid"])
    k = plkrt.load(None, variant("tma", "tiles", grid=dict(grid, policy="tiles")))
    run_tma(k, 1000, 520, 2.0)
    a = torch.zeros(1000, 520, device="cuda", dtype=torch.bfloat16)
    k.bind(A=a, Out=a.clone(), alpha=1.0)
    assert k.launch_shape()[0] == (8 * 9, 1, 1)
    for name, g in (("cl_persistent", grid), ("cl_tiles", dict(grid, policy="tiles"))):
        k = plkrt.load(None, variant("tma", name, cluster=[2, 1, 1], grid=g))
        run_tma(k, 1000, 520, 2.0)
        run_tma(k, 128, 64, 2.0)     # one tile: a cluster of 2, one idle block
        k.bind(A=a, Out=a.clone(), alpha=1.0)
        assert k.launch_shape()[0][0] % 2 == 0
    k = plkrt.load(None, variant("tma", "cl_y", cluster=[1, 2, 1]))
    run_tma(k, 1000, 520, 2.0)


@case
def side_stream_and_fatbin():
    s = torch.cuda.Stream()
    with torch.cuda.stream(s):
        run_tma(K_TMA, 1000, 520, 2.0, stream=s)
    k = plkrt.load(None, variant("tma", "fat", binary="k.fatbin"))
    run_tma(k, 513, 136, 2.0)


@case
def positional_and_explicit_dims():
    a = torch.randn(256, 128, device="cuda").bfloat16()
    out = torch.empty_like(a)
    K_TMA(a, out, M=256, K=128, alpha=3.0)
    torch.cuda.synchronize()
    assert torch.equal(out, (a.float() * 3).bfloat16())


@case
def argument_errors():
    a = torch.randn(256, 128, device="cuda").bfloat16()
    out = torch.empty_like(a)
    expect_error("tensor A is torch.float16; the kernel takes bf16", K_TMA, A=a.half(), Out=out, alpha=1.0)
    expect_error("is not contiguous", K_TMA, A=a.t(), Out=out, alpha=1.0)
    expect_error("it must be on a CUDA device", K_TMA, A=a.cpu(), Out=out, alpha=1.0)
    expect_error("has shape (128,); the kernel takes [M, K]", K_TMA, A=a[0], Out=out, alpha=1.0)
    expect_error("tensor Out: dim 1 (K) is 64, but tensor A has K = 128", K_TMA, A=a, Out=out[:, :64].contiguous(),
                 alpha=1.0)
    expect_error("dim 0 (M) is 256, but M = 100 was given", K_TMA, A=a, Out=out, alpha=1.0, M=100)
    expect_error("parameter alpha (f32) has no value", K_TMA, A=a, Out=out)
    expect_error("missing tensor(s) Out", K_TMA, A=a, alpha=1.0)
    expect_error("unknown argument 'beta'", K_TMA, A=a, Out=out, alpha=1.0, beta=2)
    odd = torch.randn(64, 100, device="cuda").bfloat16()     # 200-byte rows: TMA needs 16-byte multiples
    expect_error("row stride of dim 0 is 200 bytes", K_TMA, A=odd, Out=torch.empty_like(odd), alpha=1.0)
    expect_error("not 16-byte aligned", K_TMA, A=a.view(-1)[1:1 + 64 * 128].view(64, 128), Out=out[:64], alpha=1.0)


@case
def manifest_mismatch_errors():
    params = BASE["tma"]["params"]
    expect_error("kernel tma_scale takes 5 parameters; the manifest lists 4",
                 plkrt.load, None, variant("tma", "short", params=params[:4]))
    wide = copy.deepcopy(params)
    wide[2]["kind"] = "i64"
    expect_error("parameter 2 (M, i64) is 4 bytes in the binary, 8 in the manifest",
                 plkrt.load, None, variant("tma", "wide", params=wide))
    e = expect_error("no kernel \"nope\"", plkrt.load, None, variant("tma", "noentry", entry="nope"))
    assert "CUDA_ERROR_NOT_FOUND" in e, e
    expect_error("the device allows", plkrt.load, None, variant("tma", "bigsmem", dynamic_smem=400000))
    expect_error("block of 512 threads, but the binary allows at most 128",
                 plkrt.load, None, variant("tma", "bigblock", block=[512, 1, 1]))
    expect_error("cannot open", plkrt.load, os.path.join(W, "missing.cubin"))


@case
def scalars_pointers_tiles_grid():
    k = plkrt.load(None, os.path.join(W, "bias.manifest.json"))
    for n in (1, 255, 256, 1000003):
        x = torch.randn(n, device="cuda")
        y = torch.full_like(x, float("nan"))
        k(X=x, Y=y, bias=0.25)
        torch.cuda.synchronize()
        assert torch.equal(y, x + 0.25), n
    x = torch.randn(1000, device="cuda")
    k.bind(X=x, Y=x.clone(), bias=0.0)
    assert k.launch_shape()[0] == (4, 1, 1)


@case
def launch_overhead():
    a = torch.randn(128, 64, device="cuda").bfloat16()
    out = torch.empty_like(a)
    K_TMA(A=a, Out=out, alpha=1.0)
    torch.cuda.synchronize()
    n = 200
    e0, e1 = torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)
    e0.record()
    for _ in range(n):
        K_TMA(A=a, Out=out, alpha=1.0)
    e1.record()
    torch.cuda.synchronize()
    print(f"      {e0.elapsed_time(e1) / n * 1000:.1f} us per call from Python (bind + launch, one tile)")


print(f"{results['pass']} passed, {results['fail']} failed")
sys.exit(1 if results["fail"] else 0)
