"""The pipelink package against the mock libcuda and fake_torch (run by
tests/scripts/runtime_mock.sh): one kernel called from four threads at
once, each with its own tensors, shapes and scalar; custom ops (schema,
argument checks, the fake implementation's shapes, a call); linking a
recipe through plkc with the cache of linked kernels; error names.

    python3 tests/runtime/mock_pipelink.py WORKDIR [PLKC]
"""

import os
import struct
import sys
import threading

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.join(HERE, "..", "..")
sys.path.insert(0, os.path.join(HERE, "fake_torch"))
sys.path.insert(0, os.path.join(ROOT, "python"))
import pipelink  # noqa: E402
import torch  # noqa: E402  (the fake)

W = sys.argv[1]
PLKC = sys.argv[2] if len(sys.argv) > 2 else None


def bf16(x):   # exact for small integers
    return struct.unpack("<I", struct.pack("<f", float(x)))[0] >> 16


def expect_error(fragment, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except pipelink.PlkError as e:
        assert fragment in str(e), f"error lacks {fragment!r}: {e}"
        return str(e)
    raise AssertionError(f"no error (wanted {fragment!r})")


k = pipelink.load(os.path.join(W, "k.cubin"))
assert repr(k) == "<pipelink.Kernel tma_scale(A: bf16[M, K], Out: bf16[M, K])>", repr(k)

# Four threads, one kernel, 200 calls each on their own tensors, shapes and
# alpha; every result checked. With the bindings in the kernel (before
# plk_args) calls interleaved and failed ("shape symbol M has no value",
# wrong results).
errors = []


def worker(t):
    M, K = 64 + 32 * t, 64 * (t + 1)
    a = torch.Tensor((M, K), torch.bfloat16).fill([bf16((i + t) % 5) for i in range(M * K)])
    out = torch.Tensor((M, K), torch.bfloat16)
    want = [bf16((t + 1) * ((i + t) % 5)) for i in range(M * K)]
    try:
        for n in range(200):
            out.fill([0xFFFF] * (M * K))
            k(A=a, Out=out, alpha=float(t + 1))
            if out.values() != want:
                errors.append(f"thread {t}, call {n}: wrong result")
                return
            grid = k.launch_shape()[0]
            if grid[0] != ((M + 127) // 128) * (K // 64):
                errors.append(f"thread {t}: launch shape {grid} of another thread's call")
                return
    except Exception as e:   # noqa: BLE001
        errors.append(f"thread {t}: {e}")


threads = [threading.Thread(target=worker, args=(t,)) for t in range(4)]
for t in threads:
    t.start()
for t in threads:
    t.join()
assert not errors, errors

# A custom op: Out is allocated from the manifest's shape rules.
op = k.op("plktest::scale", outputs=["Out"])
assert op.schema == "(Tensor A, *, float alpha) -> Tensor", op.schema
assert op.mutates_args == () and op.device_types == "cuda"
M, K = 128, 64
a = torch.Tensor((M, K), torch.bfloat16).fill([bf16(i % 3) for i in range(M * K)])
y = op(a, alpha=3.0)
assert y.shape == (M, K) and y.dtype == torch.bfloat16
assert y.values() == [bf16(3 * (i % 3)) for i in range(M * K)]
fy = op(torch.FakeTensor((256, 192), torch.bfloat16), alpha=1.0)      # the fake implementation
assert isinstance(fy, torch.FakeTensor) and fy.shape == (256, 192) and fy.dtype == torch.bfloat16, fy.shape
expect_error("missing alpha", op, a)
expect_error("unexpected argument 'beta'", op, a, alpha=1.0, beta=2)
expect_error("2 positional arguments; it takes 1 tensors (A)", op, a, a, alpha=1.0)
assert k.op("plktest::scale", outputs=["Out"]) is op                   # again: the same op
expect_error("already a custom op with schema", pipelink.custom_op, k, "plktest::scale", mutates=["Out"])
expect_error("say which tensors tma_scale writes", k.op, "plktest::none")
expect_error("tma_scale has no tensor Y", k.op, "plktest::y", outputs=["Y"])
expect_error("a custom op's name is NAMESPACE::NAME", k.op, "scale", outputs=["Out"])
# In place: the caller's Out, declared mutated.
mop = k.op("plktest::scale_", mutates=["Out"])
assert mop.schema == "(Tensor A, Tensor(a!) Out, *, float alpha) -> ()", mop.schema
assert mop.mutates_args == ("Out",)
out = torch.Tensor((M, K), torch.bfloat16)
assert mop(a, out, alpha=2.0) is None
assert out.values() == [bf16(2 * (i % 3)) for i in range(M * K)]

# Shape rules: an affine dim gives its symbol (W: [2 * N, K] gives N);
# symbols no input gives become keyword arguments.
from pipelink._op import OpSpec  # noqa: E402


class Meta:   # a kernel's signature, as Kernel has it
    def __init__(self, name, tensors, params=()):
        self.name = name
        self.tensors = [{"name": n, "dtype": "bf16", "elem_bytes": 2, "dims": d} for n, d in tensors]
        self.symbols = []
        for _, d in tensors:
            for e in d:
                for s in pipelink._shapes.names(pipelink._shapes.parse(e)):
                    if s not in self.symbols:
                        self.symbols.append(s)
        self.params = [{"name": n, "kind": kd, "free": True} for n, kd in params]


swiglu = OpSpec(Meta("gemm_swiglu", [("A", ["M", "K"]), ("W", ["2 * N", "K"]), ("Y", ["M", "N"])]),
                "t::s", ["Y"], [])
assert swiglu.schema() == "(Tensor A, Tensor W) -> Tensor", swiglu.schema()
shapes = swiglu.output_shapes({"A": torch.FakeTensor((300, 64), torch.bfloat16),
                               "W": torch.FakeTensor((512, 64), torch.bfloat16)}, {})
assert shapes == {"Y": [300, 256]}, shapes
expect_error("tensor W: dim 1 (K) is 32, but K = 64 (tensor A)", swiglu.output_shapes,
             {"A": torch.FakeTensor((300, 64), None), "W": torch.FakeTensor((512, 32), None)}, {})
expect_error("dim 0 (2 * N) is 511: no integer N gives it", swiglu.output_shapes,
             {"A": torch.FakeTensor((300, 64), None), "W": torch.FakeTensor((511, 64), None)}, {})
pad = OpSpec(Meta("pad", [("X", ["M"]), ("Y", ["ceil_div(M, 128) * 128", "P"])], [("eps", "f32")]), "t::p", ["Y"], [])
assert pad.schema() == "(Tensor X, *, SymInt P, float eps) -> Tensor", pad.schema()
assert pad.output_shapes({"X": torch.FakeTensor((300,), None)}, {"P": 7}) == {"Y": [384, 7]}
# C's arithmetic, as the kernel and the runtime compute it: / truncates,
# % takes the dividend's sign, ceil_div rounds toward +inf at any signs
ev = lambda text: pipelink._shapes.evaluate(pipelink._shapes.parse(text), {"M": 10})
assert [ev(t) for t in ("(M - 17) / 2", "(M - 17) % 2", "ceil_div(M - 138, 64)", "ceil_div(M - 100, 64)",
                        "ceil_div(9, -2)", "ceil_div(M - 19, -2)")] == [-3, -1, -2, -1, -4, 5]
expect_error("parameter p is a ptr", OpSpec, Meta("q", [("X", ["M"])], [("p", "ptr")]), "t::q", ["X"], [])

# Error names: a CUresult the mock cannot name has its name from cuda.h.
assert pipelink.cuda_error_name(719) == "CUDA_ERROR_LAUNCH_FAILED"
assert pipelink.cuda_error_name(34) == "CUDA_ERROR_STUB_LIBRARY"

# Linking through plkc: a real cubin (the mock loads any ELF), the cache of
# linked kernels, and relinking when a file the link read changes.
if PLKC:
    calls = os.path.join(W, "plkc-calls")
    wrapper = os.path.join(W, "plkc-wrapper")
    with open(wrapper, "w") as f:
        f.write(f"#!/bin/sh\necho \"$@\" >>{calls}\nexec {PLKC} \"$@\"\n")
    os.chmod(wrapper, 0o755)
    cache = os.path.join(W, "kcache")
    recipe = os.path.join(W, "gemm_swiglu.plk")
    src = open(os.path.join(ROOT, "examples", "gemm_swiglu.plk")).read()
    with open(recipe, "w") as f:   # from another directory: the standard components by search path
        f.write(src.replace('use "../components/', 'use "'))
    g = pipelink.link(recipe, arch="sm_90a", plkc=wrapper, cache=cache)
    assert g.name == "gemm_swiglu" and [t["name"] for t in g.tensors] == ["A", "W", "Y"], g
    binary, manifest = pipelink.build(recipe, arch="sm_90a", plkc=wrapper, cache=cache)
    assert open(binary, "rb").read(4) == b"\x7fELF"
    assert len(open(calls).read().splitlines()) == 1, "the second link ran plkc again"
    # ptxas on every processor (the same SASS: tests/scripts/link_split.sh)
    assert ("--split-compile %d" % min(os.cpu_count(), 64) in open(calls).read()) == (os.cpu_count() > 1), \
        open(calls).read()
    deps = pipelink.read_depfile(os.path.join(os.path.dirname(binary), "k.d"))
    for want in ("gemm_swiglu.plk", "tma_load_ab.plk", "wgmma_mainloop.cu", "swiglu_tma.cu", "plk.cuh",
                 "acc_store.cuh"):
        assert any(d.endswith("/" + want) for d in deps), (want, deps)
    with open(recipe, "a") as f:
        f.write("// changed\n")
    pipelink.build(recipe, arch="sm_90a", plkc=wrapper, cache=cache)
    assert len(open(calls).read().splitlines()) == 2, "a changed recipe did not relink"
    gop = g.op("plktest::gemm_swiglu", outputs=["Y"])
    assert gop.schema == "(Tensor A, Tensor W) -> Tensor", gop.schema
    fy = gop(torch.FakeTensor((256, 64), torch.bfloat16), torch.FakeTensor((1024, 64), torch.bfloat16))
    assert fy.shape == (256, 512), fy.shape
    with open(os.path.join(W, "bad.plk"), "w") as f:
        f.write("kernel k( {\n")
    e = expect_error("plkc failed (exit 1) linking", pipelink.link, os.path.join(W, "bad.plk"), plkc=wrapper,
                     cache=cache)
    assert "error[E01" in e, e
print("mock pipelink ok")
