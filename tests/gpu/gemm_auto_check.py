#!/usr/bin/env python3
"""GPU check of the selects examples/gemm_auto.plk and
examples/gemm_swiglu_auto.plk (docs/language.md, "Variants"): one cubin
each, several kernels, the runtime picking one per call.

* every variant forced with PLK_VARIANT (set before the load, as a test
  would), at shapes of both kinds, against an fp32 torch reference on an
  output poisoned with NaN first: relative Frobenius error < 1e-2; those
  that store C through a pointer also at odd widths of C (N % 8 != 0);
* the rule's own pick (no PLK_VARIANT) at M = 128, at a shape whose
  128 x 256 tiles fill one wave of 132 SMs (GEMM 1000 x 3000 x 1000,
  SwiGLU 1000 x 1504 x 1000: 2N = 3008; N a multiple of 8, as the
  interleaved W needs) and at a big shape: the variant
  the manifest's conditions name for this GPU's SM count and DRAM
  bandwidth, and a right result;
* force_variant() from Python, and an unknown name refused;
* the split-K variants (`grid split`) once more: three launches on the
  same inputs give the same bits (the splits are added in a fixed order,
  and the kernel leaves its workspace counters zero for the next launch).

    python3 tests/gpu/gemm_auto_check.py DIR
    PLK_CHECK_VARIANTS=v1,v2 python3 tests/gpu/gemm_auto_check.py DIR   # those forced only

(PLK_CHECK_VARIANTS: a quick check of a change that touches some
variants alone; the rule's picks and force_variant() are checked either
way.)

DIR holds gemm_auto.cubin and gemm_swiglu_auto.cubin with their manifests
(tests/runtime/gpu_prepare.sh links them into .carry/python on the build
host). Prints one line per case with the relative error. Exit 0 when all
pass.
"""

import json
import os
import re
import sys
import traceback

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import pipelink  # noqa: E402

TOL = 1e-2
torch.backends.cuda.matmul.allow_tf32 = False
DIR = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "..", "..", ".carry", "python")
results = {"pass": 0, "fail": 0}
gen = torch.Generator(device="cuda")
gen.manual_seed(16)
BF = dict(device="cuda", dtype=torch.bfloat16)


def load(name, variant=None):
    """The cubin DIR/name.cubin, PLK_VARIANT=variant at its load."""
    old = os.environ.pop("PLK_VARIANT", None)
    if variant is not None:
        os.environ["PLK_VARIANT"] = variant
    try:
        return pipelink.load(os.path.join(DIR, name + ".cubin"))
    finally:
        os.environ.pop("PLK_VARIANT", None)
        if old is not None:
            os.environ["PLK_VARIANT"] = old


def manifest(name):
    with open(os.path.join(DIR, name + ".manifest.json")) as f:
        return json.load(f)


def _eval(e, env):
    """A manifest expression (an integer or recipe syntax) over env."""
    if isinstance(e, int):
        return e
    py = re.sub(r"\b([A-Za-z_]\w*)\b", lambda m: m.group(1) if m.group(1) in ("ceil_div", "min", "max")
                else str(env[m.group(1)]), e).replace("/", "//")
    return eval(py, {"ceil_div": lambda a, b: -(-a // b), "min": min, "max": max})   # noqa: S307


def kernels(m):
    """The select's kernels, each once: its first entry in "variants" (a kernel named
    again by the rule has an entry of its name and `when` alone)."""
    first = {}
    for v in m["variants"]:
        first.setdefault(v["name"], v)
    return list(first.values())


def rule_pick(m, env):
    """The variant the manifest's rule picks (a branch's `when` and its kernel's `requires`), evaluated here."""
    ops = {"==": int.__eq__, "!=": int.__ne__, "<": int.__lt__, "<=": int.__le__, ">": int.__gt__, ">=": int.__ge__}
    reqs = {v["name"]: v.get("requires", []) for v in kernels(m)}
    for v in m["variants"]:
        ok = True
        for c in v["when"] + reqs[v["name"]]:   # the branch and its kernel's own `require`
            a = _eval(c["lhs"], env)
            ok = ok and (a in [_eval(s, env) for s in c["set"]] if c["op"] == "in" else ops[c["op"]](a, _eval(c["rhs"], env)))
        if ok:
            return v["name"]
    raise AssertionError("no variant holds")


def case(what, fn):
    try:
        msg = fn()
        results["pass"] += 1
        print(f"ok    {what}{': ' + msg if msg else ''}", flush=True)
    except Exception:   # noqa: BLE001
        results["fail"] += 1
        print(f"FAIL  {what}", flush=True)
        traceback.print_exc(limit=4, file=sys.stdout)


def rel(y, ref, what):
    assert torch.isfinite(y.float()).all(), f"{what}: NaN/Inf in the output (unwritten elements?)"
    err = ((y.float() - ref).norm() / ref.norm()).item()
    assert err < TOL, f"{what}: relative error {err:.3e}"
    return f"rel err {err:.2e}"


def gemm(k, M, N, K):
    a = torch.randn(M, K, generator=gen, **BF)
    b = (torch.randn(N, K, generator=gen, **BF) * K ** -0.5).to(torch.bfloat16)
    c = torch.full((M, N), float("nan"), **BF)
    k(A=a, B=b, C=c)
    torch.cuda.synchronize()
    return rel(c, a.float() @ b.float().t(), f"{M}x{N}x{K}")


def swiglu(k, M, N, K):
    a = torch.randn(M, K, generator=gen, **BF)
    wg = (torch.randn(N, K, generator=gen, **BF) * K ** -0.5).to(torch.bfloat16)
    wu = (torch.randn(N, K, generator=gen, **BF) * K ** -0.5).to(torch.bfloat16)
    w = torch.stack([wg.view(N // 8, 8, K), wu.view(N // 8, 8, K)], 1).reshape(2 * N, K).contiguous()
    y = torch.full((M, N), float("nan"), **BF)
    k(A=a, W=w, Y=y)
    torch.cuda.synchronize()
    return rel(y, F.silu(a.float() @ wg.float().t()) * (a.float() @ wu.float().t()), f"{M}x{N}x{K}")


# shapes of both kinds (one wave or several; edges, odd K; K split unevenly:
# 520 is 9 K tiles, split 9 ways at 16 x 776 and 6 ways at 300 x 776)
SHAPES = {"gemm_auto": [(16, 4096, 4096), (128, 4096, 4096), (1000, 3000, 1000), (300, 776, 520), (4096, 4096, 4096),
                        (16, 776, 520), (16, 4096, 14336), (1, 6144, 4096)],
          "gemm_swiglu_auto": [(16, 4096, 4096), (128, 4096, 4096), (1000, 3000, 1000), (300, 768, 512), (4096, 4096, 4096)]}
# C of odd width (rows not 16-byte aligned: no TMA map of C): the
# variants that store C through a pointer, forced; the others refuse
ODD = [(7, 4095, 4096), (300, 1001, 520), (1, 777, 64), (16, 4095, 4104)]
# the rule's picks on 132 SMs: small, pingpong, wide (one wave of 128 x 256 tiles), pingpong
AUTO = {"gemm_auto": [(33, 4096, 4096), (128, 4096, 4096), (1000, 3000, 1000), (8192, 8192, 4096),
                      (16, 4096, 14336), (256, 4096, 14336), (33, 128256, 2048), (1, 6144, 4096),
                      (64, 128256, 2048), (4096, 4095, 4096), (300, 1001, 520), (5, 4095, 4096), (256, 6144, 4096),
                      (8192, 16384, 8192),    # gemm_big under 4 TB/s (an H100), gemm_pp above
                      (3000, 3000, 3008),     # gemm_n192 over several waves: 3 rounds against 5
                      (1000, 128256, 2048),   # a partial last tile row: the pairs (gemm_wide_mc) over 7+ rounds,
                      (900, 20000, 2048),     # else gemm_wide at 8 tile rows
                      (300, 14336, 4096)],    # 2 to 4 tile rows, the last partial: gemm_s256
        "gemm_swiglu_auto": [(16, 14336, 4096), (33, 4096, 4096), (128, 4096, 4096), (1000, 1504, 1000), (8192, 8192, 4096),
                             (16384, 14336, 4096)]}   # swiglu_wide's second branch under 4 TB/s, swiglu_pp above
ONLY = set(filter(None, os.environ.get("PLK_CHECK_VARIANTS", "").split(",")))
# a name of no variant would leave the check passing on nothing
UNKNOWN = ONLY - {v["name"] for name in AUTO for v in kernels(manifest(name))}
if UNKNOWN:
    sys.exit(f"PLK_CHECK_VARIANTS: no variant {', '.join(sorted(UNKNOWN))} in {', '.join(AUTO)}")
for name, run in (("gemm_auto", gemm), ("gemm_swiglu_auto", swiglu)):
    m = manifest(name)
    ks = kernels(m)
    names = [v["name"] for v in ks]
    ptr_c = [v["name"] for v in ks
             if any(p["name"] == "c" and p["kind"] == "ptr" for p in v["params"])]
    for v in names:
        if ONLY and v not in ONLY:
            continue
        k = load(name, v)
        for M, N, K in SHAPES[name] + (ODD if v in ptr_c else []):
            def forced(k=k, v=v, M=M, N=N, K=K):
                msg = run(k, M, N, K)
                assert k.variant() == v, f"PLK_VARIANT={v} launched {k.variant()}"
                return msg
            case(f"{name} PLK_VARIANT={v} {M}x{N}x{K}", forced)
        k.close()
    for v in [x["name"] for x in ks if "split" in x["grid"] and (not ONLY or x["name"] in ONLY)]:
        k = load(name, v)
        for M, N, K in ((16, 4096, 14336), (300, 776, 520)):
            def repeat(k=k, M=M, N=N, K=K):
                a = torch.randn(M, K, generator=gen, **BF)
                b = (torch.randn(N, K, generator=gen, **BF) * K ** -0.5).to(torch.bfloat16)
                outs = []
                for _ in range(3):
                    c = torch.full((M, N), float("nan"), **BF)
                    k(A=a, B=b, C=c)
                    outs.append(c)
                torch.cuda.synchronize()
                msg = rel(outs[-1], a.float() @ b.float().t(), f"{M}x{N}x{K}")
                assert all(torch.equal(outs[0], o) for o in outs[1:]), "three launches gave different bits"
                return msg + ", 3 launches bit-identical"
            case(f"{name} split {v} {M}x{N}x{K} x3", repeat)
        k.close()
    k = load(name)
    sms, gbps = k.sm_count, k.dram_gbps
    for M, N, K in AUTO[name]:
        def auto(M=M, N=N, K=K):
            msg = run(k, M, N, K)
            want = rule_pick(m, dict(M=M, N=N, K=K, SMS=sms, DRAM_GBPS=gbps))
            assert k.variant() == want, (f"the rule picks {want} on {sms} SMs and {gbps} GB/s, "
                                         f"the runtime launched {k.variant()}")
            return f"{k.variant()} on {sms} SMs and {gbps} GB/s, {msg}"
        case(f"{name} auto {M}x{N}x{K}", auto)

    def force_api():
        k.force_variant(names[0])
        msg = run(k, 128, 4096, 4096)
        assert k.variant() == names[0], k.variant()
        k.force_variant(None)
        try:
            k.force_variant("no_such_variant")
        except pipelink.PlkError as e:
            assert "no variant \"no_such_variant\"" in str(e) and names[-1] in str(e), str(e)
        else:
            raise AssertionError("an unknown variant was accepted")
        return f"{names[0]} forced at 128x4096x4096, {msg}"
    case(f"{name} force_variant", force_api)
    k.close()

print(f"{results['pass']} passed, {results['fail']} failed")
sys.exit(1 if results["fail"] else 0)
