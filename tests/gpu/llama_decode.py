#!/usr/bin/env python3
"""GPU test and benchmark of examples/llama_decode.plk (docs/megakernel.md):
a Llama-3.2-1B decode step at batch 1 as one megakernel, against the same
step in PyTorch (eager, a CUDA graph), with random weights from a seed.

    python3 tests/gpu/llama_decode.py DIR [--steps 16] [--time] [--timeline OUT.svg]

DIR holds llama_decode.cubin and its manifest (linked on the build host,
tests/gpu/mega_prepare.sh); the model's sizes come from the manifest.
The reference is the step in fp32 with the megakernel's rounding points
(q, k, v, the attention's output, the stream after attention, the MLP's
activation and each layer's output stored as bf16): logits, the appended KV rows and the
final stream are compared on outputs poisoned with NaN, for --steps
consecutive steps (positions advancing, KV appended, each step's token
embedding random). With --timeline (a cubin linked with `plkc --timeline`)
the last step's timeline is drawn (bench/timeline_svg.py) and each op
kernel's time and bandwidth summed from it. Exit 0: every step within
1e-2 (relative Frobenius) or, where the model is deep enough that bf16
rounding alone goes past that, within 1.25x the error of the same step
run by PyTorch in bf16 on the same inputs (each step's bound printed).
"""
import argparse
import json
import math
import os
import sys

import torch
import torch.nn.functional as F

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "runtime", "python"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "bench"))
import plkrt  # noqa: E402
from gpu_timing import captured, median_ms  # noqa: E402
import timeline_svg  # noqa: E402

THETA, EPS, NQ, NKV, HD = 500000.0, 1e-5, 32, 8, 64


def dims(man, name):
    return next(t["dims"] for t in man["tensors"] if t["name"] == name)


def model(man, gen):
    L1, D = dims(man, "H")
    L, S, KVD = dims(man, "KC")
    V = dims(man, "Wlm")[0]
    F2 = dims(man, "Wgu")[1]
    bf = dict(device="cuda", dtype=torch.bfloat16)

    def w(*shape, fan):
        return (torch.randn(*shape, generator=gen, **bf) * fan ** -0.5).to(torch.bfloat16)
    m = dict(L=L, D=D, S=S, V=V, F=F2 // 2)
    m["Wqkv"] = w(L, (NQ + 2 * NKV) * HD, D, fan=D)
    m["Wo"] = w(L, D, D, fan=D)
    m["Wg"] = w(L, F2 // 2, D, fan=D)
    m["Wu"] = w(L, F2 // 2, D, fan=D)
    # the megakernel's layout: 32 gate rows, then the same features' 32 up rows
    m["Wgu"] = torch.stack([m["Wg"].view(L, -1, 32, D), m["Wu"].view(L, -1, 32, D)], 2).reshape(L, F2, D).contiguous()
    m["Wd"] = w(L, D, F2 // 2, fan=F2 // 2)
    m["Gattn"] = (1 + 0.1 * torch.randn(L, D, generator=gen, **bf)).to(torch.bfloat16)
    m["Gmlp"] = (1 + 0.1 * torch.randn(L, D, generator=gen, **bf)).to(torch.bfloat16)
    m["Gf"] = (1 + 0.1 * torch.randn(D, generator=gen, **bf)).to(torch.bfloat16)
    m["Wlm"] = w(V, D, fan=D)
    return m


def rms(x, g):
    return x * torch.rsqrt(x.pow(2).mean() + EPS) * g.float()


def rope(x, pos):
    """x [heads, 64] f32, rotate-half pairs (i, i + 32), theta^(-2i / 64)."""
    inv = torch.exp2(-(torch.arange(0, HD // 2, device=x.device, dtype=torch.float32) * 2 / HD) * math.log2(THETA))
    ang = pos * inv
    c, s = torch.cos(ang), torch.sin(ang)
    a, b = x[:, :HD // 2], x[:, HD // 2:]
    return torch.cat([a * c - b * s, b * c + a * s], 1)


def ref_step(m, h0, kc, vc, pos):
    """One step in fp32 with the megakernel's bf16 stores; appends to kc, vc."""
    bf = torch.bfloat16
    h = h0.float()
    for l in range(m["L"]):
        qkv = m["Wqkv"][l].float() @ rms(h, m["Gattn"][l])
        q = rope(qkv[:NQ * HD].view(NQ, HD), pos).to(bf)
        k = rope(qkv[NQ * HD:(NQ + NKV) * HD].view(NKV, HD), pos).to(bf)
        v = qkv[(NQ + NKV) * HD:].view(NKV, HD).to(bf)
        kc[l, pos] = k.reshape(-1)
        vc[l, pos] = v.reshape(-1)
        K = kc[l, :pos + 1].float().view(pos + 1, NKV, HD)
        Vv = vc[l, :pos + 1].float().view(pos + 1, NKV, HD)
        kh = K[:, torch.arange(NQ, device=h.device) // (NQ // NKV)]   # [T, NQ, HD]
        vh = Vv[:, torch.arange(NQ, device=h.device) // (NQ // NKV)]
        sc = torch.einsum("hd,thd->ht", q.float(), kh) / math.sqrt(HD)
        attn = torch.einsum("ht,thd->hd", torch.softmax(sc, -1), vh).reshape(-1).to(bf).float()
        hm = (h + m["Wo"][l].float() @ attn).to(bf).float()
        xn = rms(hm, m["Gmlp"][l])
        act = (F.silu(m["Wg"][l].float() @ xn) * (m["Wu"][l].float() @ xn)).to(bf).float()
        h = (hm + m["Wd"][l].float() @ act).to(bf).float()
    return m["Wlm"].float() @ rms(h, m["Gf"]), h


def torch_step(m, h0, kc, vc, pos, logits):
    """The step as PyTorch code in bf16 (the baseline): what a framework runs."""
    h = h0
    for l in range(m["L"]):
        xn = F.rms_norm(h, (m["D"],), m["Gattn"][l], EPS)
        qkv = F.linear(xn, m["Wqkv"][l])
        q = rope(qkv[:NQ * HD].view(NQ, HD).float(), pos).to(h.dtype)
        k = rope(qkv[NQ * HD:(NQ + NKV) * HD].view(NKV, HD).float(), pos).to(h.dtype)
        kc[l, pos].copy_(k.reshape(-1))
        vc[l, pos].copy_(qkv[(NQ + NKV) * HD:])
        K = kc[l, :pos + 1].view(pos + 1, NKV, HD).transpose(0, 1).unsqueeze(0)
        Vv = vc[l, :pos + 1].view(pos + 1, NKV, HD).transpose(0, 1).unsqueeze(0)
        o = F.scaled_dot_product_attention(q.view(1, NQ, 1, HD), K, Vv, enable_gqa=True)
        h = h + F.linear(o.reshape(-1), m["Wo"][l])
        xn = F.rms_norm(h, (m["D"],), m["Gmlp"][l], EPS)
        h = h + F.linear(F.silu(F.linear(xn, m["Wg"][l])) * F.linear(xn, m["Wu"][l]), m["Wd"][l])
    logits.copy_(F.linear(F.rms_norm(h, (m["D"],), m["Gf"], EPS), m["Wlm"]).float())


def rel(a, b):
    return ((a.float() - b.float()).norm() / b.float().norm()).item()


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("dir")
    ap.add_argument("--steps", type=int, default=16)
    ap.add_argument("--time", action="store_true")
    ap.add_argument("--iters", type=int, default=100)
    ap.add_argument("--timeline")
    ap.add_argument("--timeline-json", help="also the raw timeline: ops and each block's [wait, start, end, sm] ns")
    ap.add_argument("--compile", action="store_true", help="with --time: also torch.compile(mode=max-autotune)")
    ap.add_argument("--against", nargs="+", default=[], metavar="DIR",
                    help="with --time: also time these DIRs' megakernels of the same model (another revision's, "
                    "the monolith's), interleaved")
    args = ap.parse_args()
    man = json.load(open(os.path.join(args.dir, "llama_decode.manifest.json")))
    gen = torch.Generator(device="cuda").manual_seed(2026)
    m = model(man, gen)
    L, D, S, V = m["L"], m["D"], m["S"], m["V"]
    bf = dict(device="cuda", dtype=torch.bfloat16)
    mk = plkrt.load(os.path.join(args.dir, "llama_decode.cubin"))
    pos0 = S - args.steps   # the steps end at the cache's last row
    kc = torch.randn(L, S, NKV * HD, generator=gen, **bf)
    vc = torch.randn(L, S, NKV * HD, generator=gen, **bf)
    kc_ref, vc_ref = kc.clone(), vc.clone()
    H = torch.empty(L + 1, D, **bf)
    logits = torch.empty(V, device="cuda", dtype=torch.float32)
    tl = None
    if any(t["name"] == "timeline" for t in man["tensors"]):
        tl = torch.zeros(*dims(man, "timeline"), device="cuda", dtype=torch.int64)
    extra = {"timeline": tl} if tl is not None else {}
    ok = True
    print(f"device: {torch.cuda.get_device_name()}, torch {torch.__version__}; L {L}, D {D}, KV rows {S}, "
          f"vocab {V}; {len(man['megakernel']['ops'])} ops on {man['megakernel']['blocks']} blocks")
    for step in range(args.steps):
        pos = pos0 + step
        h0 = torch.randn(D, generator=gen, **bf)
        H.fill_(float("nan"))
        H[0] = h0
        logits.fill_(float("nan"))
        mk(H=H, Wqkv=m["Wqkv"], Wo=m["Wo"], Wgu=m["Wgu"], Wd=m["Wd"], Gattn=m["Gattn"], Gmlp=m["Gmlp"], Gf=m["Gf"],
           Wlm=m["Wlm"], KC=kc, VC=vc, Logits=logits, Pos=pos, **extra)
        torch.cuda.synchronize()
        lt = torch.empty_like(logits)
        torch_step(m, h0, kc_ref.clone(), vc_ref.clone(), pos, lt)   # the framework's bf16 step, same inputs
        ref, h_ref = ref_step(m, h0, kc_ref, vc_ref, pos)
        e = (rel(logits, ref), rel(H[L], h_ref), rel(kc[:, pos], kc_ref[:, pos]), rel(vc[:, pos], vc_ref[:, pos]))
        e_t = rel(lt, ref)
        tol = max(1e-2, 1.25 * e_t)
        good = all(x < tol for x in e) and bool(torch.isfinite(logits).all())
        ok &= good
        print(f"step {step} (position {pos}): rel err logits {e[0]:.2e}, stream {e[1]:.2e}, k row {e[2]:.2e}, "
              f"v row {e[3]:.2e} (PyTorch bf16 logits {e_t:.2e}; bound {tol:.2e}) {'ok' if good else 'FAILED'}")
    if args.time and ok:
        pos = S - 1
        h0 = torch.randn(D, generator=gen, **bf)
        lt = torch.empty_like(logits)
        kt, vt = kc.clone(), vc.clone()

        def ours():
            mk(H=H, Wqkv=m["Wqkv"], Wo=m["Wo"], Wgu=m["Wgu"], Wd=m["Wd"], Gattn=m["Gattn"], Gmlp=m["Gmlp"],
               Gf=m["Gf"], Wlm=m["Wlm"], KC=kc, VC=vc, Logits=logits, Pos=pos, **extra)

        def eager():
            torch_step(m, h0, kt, vt, pos, lt)
        H[0] = h0
        ours()
        eager()
        graph = captured(eager)
        fns, names = [ours, eager, graph.replay], ["megakernel", "PyTorch eager", "PyTorch CUDA graph"]
        for d in args.against:   # another build of the step, checked on it before it is timed
            mk2 = plkrt.load(os.path.join(d, "llama_decode.cubin"))
            l2, H2 = torch.full_like(logits, float("nan")), H.clone()

            def theirs(mk2=mk2, l2=l2, H2=H2):
                mk2(H=H2, Wqkv=m["Wqkv"], Wo=m["Wo"], Wgu=m["Wgu"], Wd=m["Wd"], Gattn=m["Gattn"], Gmlp=m["Gmlp"],
                    Gf=m["Gf"], Wlm=m["Wlm"], KC=kc, VC=vc, Logits=l2, Pos=pos)
            ours()
            theirs()
            torch.cuda.synchronize()
            print(f"--against {d}: logits rel diff {rel(l2, logits):.2e} from this megakernel's")
            fns.append(theirs)
            names.append("megakernel of " + d)
        if args.compile:   # inductor's kernels, autotuned, in its own CUDA graphs
            import time
            cstep = torch.compile(torch_step, mode="max-autotune")
            t0 = time.time()
            for _ in range(3):
                cstep(m, h0, kt, vt, pos, lt)
            torch.cuda.synchronize()
            print(f"torch.compile(mode=max-autotune): {time.time() - t0:.0f} s to compile and warm up; "
                  f"rel err logits {rel(lt, logits):.2e} against the megakernel's")
            fns.append(lambda: cstep(m, h0, kt, vt, pos, lt))
            names.append("torch.compile max-autotune")
        t = median_ms(fns, args.iters)
        nbytes = sum(m[k].numel() * 2 for k in ("Wqkv", "Wo", "Wgu", "Wd", "Wlm")) + 2 * L * (pos + 1) * NKV * HD * 2
        print(f"\nstreamed per step: {nbytes / 1e9:.2f} GB (weights and KV rows 0 .. {pos})")
        print("| step | ms | GB/s | CUDA graph / this |")
        print("|---|---|---|---|")
        for n, ms in zip(names, t):
            print(f"| {n} | {ms:.3f} | {nbytes / ms / 1e6:.0f} | {t[2] / ms:.2f}x |")
    if args.timeline and tl is not None:
        ops = man["megakernel"]["ops"]
        rows = tl.cpu().tolist()
        span = timeline_svg.draw(rows, ops, args.timeline, f"llama_decode, KV {S}, position {pos0 + args.steps - 1}")
        if args.timeline_json:
            with open(args.timeline_json, "w") as f:
                json.dump({"ops": [o["name"] for o in ops], "rows": rows}, f)
        busy = {}   # by op name, the layers' together: (kernel, waiting, running)
        for blk in rows:
            for j, r in enumerate(blk):
                if r[2] > 0:
                    k = ops[j]["name"].split("[")[0]
                    kern, w, run = busy.get(k, (ops[j]["kernel"], 0, 0))
                    busy[k] = (kern, w + r[1] - r[0], run + r[2] - r[1])
        print(f"\ntimeline: {span / 1e3:.1f} us from the first wait to the last end ({args.timeline})")
        print("(an op whose components read `early` params waits inside its main: its wait counts as running)")
        print("| op | kernel | block-us waiting | block-us running |")
        print("|---|---|---|---|")
        for k, (kern, w, run) in busy.items():
            print(f"| {k} | {kern} | {w / 1e3:.0f} | {run / 1e3:.0f} |")
    mk.close()
    print("llama_decode: all steps correct" if ok else "llama_decode: FAILED")
    sys.exit(0 if ok else 1)


if __name__ == "__main__":
    main()
