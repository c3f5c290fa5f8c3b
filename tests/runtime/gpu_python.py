"""GPU test of the pipelink package on a linked GEMM + SwiGLU
(examples/gemm_swiglu.plk) registered as a PyTorch custom op:

* eager: the op against an fp32 reference, output poisoned (NaN) first;
* torch.compile(fullgraph=True) of a function calling the op (and torch
  ops around it): no graph break (fullgraph raises on one), and the
  result is right; dynamic shapes through the op's fake implementation;
* CUDA graph capture of the op, then replay on new inputs copied into the
  captured buffers: right results after every replay;
* the in-place form (mutates=["Y"]) under torch.compile too;
* the select examples/gemm_auto.plk (.carry/python/gemm_auto.cubin) as an
  op: eager at shapes of its split-K variant and others, CUDA graph
  replay of the split variant, torch.compile reduce-overhead.

    python3 tests/runtime/gpu_python.py [KERNEL.cubin]

Without an argument the kernel is linked with pipelink.link (plkc, from
this tree's build/ or PATH); with one, that cubin (and its manifest
beside it) is loaded: `plkc examples/gemm_swiglu.plk -o DIR/gemm_swiglu.cubin`
on a build host. Run by tests/runtime/gpu_all.sh. Exit 0 when all pass.
"""

import os
import sys
import traceback

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(ROOT, "python"))
import pipelink  # noqa: E402

TOL = 1e-2
torch.backends.cuda.matmul.allow_tf32 = False
results = {"pass": 0, "fail": 0}


def case(fn):
    try:
        fn()
        results["pass"] += 1
        print(f"ok    {fn.__name__}", flush=True)
    except Exception:   # noqa: BLE001
        results["fail"] += 1
        print(f"FAIL  {fn.__name__}", flush=True)
        traceback.print_exc(limit=4, file=sys.stdout)
    return fn


if len(sys.argv) > 1:
    K_SWIGLU = pipelink.load(sys.argv[1])
else:
    K_SWIGLU = pipelink.link(os.path.join(ROOT, "examples", "gemm_swiglu.plk"), arch="sm_90a")
print(K_SWIGLU)
swiglu = K_SWIGLU.op("plktest::gemm_swiglu", outputs=["Y"])
swiglu_ = K_SWIGLU.op("plktest::gemm_swiglu_", mutates=["Y"])
gen = torch.Generator(device="cuda")
gen.manual_seed(17)


def problem(M, N, K):
    """A, the gate/up rows interleaved in blocks of 8 (W [2N, K]), the
    fp32 reference silu(A Wg^T) * (A Wu^T)."""
    bf = dict(device="cuda", dtype=torch.bfloat16)
    a = torch.randn(M, K, generator=gen, **bf)
    wg = (torch.randn(N, K, generator=gen, **bf) * K ** -0.5).to(torch.bfloat16)
    wu = (torch.randn(N, K, generator=gen, **bf) * K ** -0.5).to(torch.bfloat16)
    w = torch.stack([wg.view(N // 8, 8, K), wu.view(N // 8, 8, K)], 1).reshape(2 * N, K).contiguous()
    return a, w, reference(a, w)


def reference(a, w):
    """silu(A Wg^T) * (A Wu^T) in fp32, Wg and Wu taken back out of W."""
    K = w.shape[1]
    rows = w.float().view(-1, 2, 8, K)
    wg, wu = rows[:, 0].reshape(-1, K), rows[:, 1].reshape(-1, K)
    af = a.float()
    return F.silu(af @ wg.t()) * (af @ wu.t())


def check(y, ref, what):
    assert y.shape == ref.shape and y.dtype == torch.bfloat16, (what, y.shape, y.dtype)
    y = y.float()
    assert torch.isfinite(y).all(), f"{what}: NaN/Inf in the output (unwritten elements?)"
    err = ((y - ref).norm() / ref.norm()).item()
    assert err < TOL, f"{what}: relative error {err:.3e}"


@case
def schema():
    assert swiglu._opoverload._schema is not None
    s = str(swiglu._opoverload._schema)
    assert "(Tensor A, Tensor W) -> Tensor" in s, s


@case
def eager():
    for M, N, K in ((256, 512, 256), (300, 768, 512)):
        a, w, ref = problem(M, N, K)
        check(swiglu(a, w), ref, f"eager {M}x{N}x{K}")
        y = torch.full((M, N), float("nan"), device="cuda", dtype=torch.bfloat16)
        swiglu_(a, w, y)
        check(y, ref, f"in place {M}x{N}x{K}")


@case
def compile_fullgraph():
    torch._dynamo.reset()

    def mlp(x, w):
        h = swiglu(x * 2.0, w)          # torch ops before and after the custom op
        return h + 1.0

    f = torch.compile(mlp, fullgraph=True)
    for M, N, K in ((256, 512, 256), (512, 1024, 512)):
        a, w, ref = problem(M, N, K)
        out = f(a, w)
        torch.cuda.synchronize()
        check(out - 1.0, reference(a * 2.0, w), f"torch.compile {M}x{N}x{K}")
    # dynamic shapes: the fake implementation on symbolic sizes
    torch._dynamo.reset()
    g = torch.compile(mlp, fullgraph=True, dynamic=True)
    for M in (256, 384, 640):
        a, w, ref = problem(M, 512, 256)
        out = g(a, w)
        torch.cuda.synchronize()
        assert out.shape == (M, 512), out.shape


@case
def compile_in_place():
    torch._dynamo.reset()

    def f(x, w, y):
        swiglu_(x, w, y)
        return y * 1.0

    cf = torch.compile(f, fullgraph=True)
    a, w, ref = problem(256, 512, 256)
    y = torch.full((256, 512), float("nan"), device="cuda", dtype=torch.bfloat16)
    out = cf(a, w, y)
    torch.cuda.synchronize()
    check(out, ref, "compiled in place (returned)")
    check(y, ref, "compiled in place (mutated)")


def graph_replays(op, inputs, fresh, what):
    """op(*inputs) captured in a CUDA graph after a warm-up outside it,
    then replayed 3 times on fresh() inputs copied into the captured ones,
    the output poisoned before each replay."""
    s = torch.cuda.Stream()
    s.wait_stream(torch.cuda.current_stream())
    with torch.cuda.stream(s):          # warm up outside the capture
        op(*inputs)
    torch.cuda.current_stream().wait_stream(s)
    torch.cuda.synchronize()
    g = torch.cuda.CUDAGraph()
    with torch.cuda.graph(g):
        y = op(*inputs)
    for i in range(3):
        *new, ref = fresh()
        for x, n in zip(inputs, new):
            x.copy_(n)
        y.fill_(float("nan"))
        g.replay()
        torch.cuda.synchronize()
        check(y, ref, f"{what} {i}")


@case
def cuda_graph_replay():
    M, N, K = 384, 768, 512
    a, w, _ = problem(M, N, K)
    graph_replays(swiglu, (a, w), lambda: problem(M, N, K), "graph replay")


@case
def compile_reduce_overhead():
    # torch.compile's CUDA graphs (mode="reduce-overhead") around the op
    torch._dynamo.reset()
    f = torch.compile(lambda x, w: swiglu(x, w), fullgraph=True, mode="reduce-overhead")
    for _ in range(3):
        a, w, ref = problem(256, 512, 256)
        out = f(a, w).clone()
        torch.cuda.synchronize()
        check(out, ref, "reduce-overhead")


K_AUTO = os.path.join(ROOT, ".carry", "python", "gemm_auto.cubin")   # tests/runtime/gpu_prepare.sh


@case
def select_split_op():
    """The select examples/gemm_auto.plk as a custom op, at shapes of its
    split-K variant and of the others: eager, CUDA graph replay of the
    split variant (its workspace allocated by the warm-up), torch.compile
    with CUDA graphs."""
    assert os.path.exists(K_AUTO), f"no {K_AUTO}: run tests/runtime/gpu_prepare.sh on the build host"
    k = pipelink.load(K_AUTO)
    op = k.op("plktest::gemm_auto", outputs=["C"])
    bf = dict(device="cuda", dtype=torch.bfloat16)

    def gemm_problem(M, N, K):
        a = torch.randn(M, K, generator=gen, **bf)
        b = (torch.randn(N, K, generator=gen, **bf) * K ** -0.5).to(torch.bfloat16)
        return a, b, a.float() @ b.float().t()
    seen = set()
    # on 132 SMs: split (K over 4), split (K over 3), 64 x 128, 128 x 256 with B multicast (K % 64 != 0),
    # pingpong 128 x 128; M <= 16 takes the skinny tiles since 2026-12-02, so the split's M is 32
    for M, N, K in ((32, 4096, 14336), (300, 776, 520), (128, 6144, 4096), (1000, 3000, 1000), (4096, 4096, 4096)):
        a, b, ref = gemm_problem(M, N, K)
        check(op(a, b), ref, f"gemm_auto op {M}x{N}x{K}")
        seen.add(k.variant())
    assert "gemm_small_sk" in seen and len(seen) >= 3, seen
    M, N, K = 32, 4096, 14336   # split 4 ways
    a, b, _ = gemm_problem(M, N, K)
    graph_replays(op, (a, b), lambda: gemm_problem(M, N, K), "gemm_auto split graph replay")
    assert k.variant() == "gemm_small_sk", k.variant()
    torch._dynamo.reset()
    f = torch.compile(lambda x, w: op(x, w) * 1.0, fullgraph=True, mode="reduce-overhead")
    for _ in range(3):
        a, b, ref = gemm_problem(33, 4096, 4096)
        out = f(a, b).clone()
        torch.cuda.synchronize()
        check(out, ref, "gemm_auto split reduce-overhead")


@case
def errors_name_their_cause():
    a, w, _ = problem(256, 512, 256)
    try:
        swiglu(a.float(), w)
    except pipelink.PlkError as e:
        assert "tensor A is torch.float32; the kernel takes bf16" in str(e), e
    else:
        raise AssertionError("a float32 A was accepted")
    try:
        swiglu(a, w[:, :128].contiguous())
    except pipelink.PlkError as e:
        assert "tensor W: dim 1 (K) is 128, but K = 256 (tensor A)" in str(e), e
    else:
        raise AssertionError("mismatched K was accepted")


print(f"python GPU tests: {results['pass']} passed, {results['fail']} failed")
sys.exit(1 if results["fail"] else 0)
