#!/usr/bin/env python3
"""Build-host half of the linked-vs-monolithic benchmark (bench/README.md).

For each configuration of bench/configs.py: write the recipe variant, link
it with plkc (cubin + manifest), write its monolith with
`plkc --emit=monolith` and build that with one ordinary nvcc call
(`nvcc -gencode arch=compute_XX,code=sm_XX -cubin -I. -Istdlib`; nvcc's LTO
path, -rdc=true -c code=lto_XX then nvJitLink -lto, gives the same SASS
instruction for instruction, docs/toolchain.md). Also
times each recipe's link (plkc wall time and nvJitLink's share, from
`plkc --time`) beside the nvcc time of its monolith. Everything goes to
OUT (default .carry/bench), which the GPU run reads. A configuration
marked "select" is a recipe's whole select (gemm_auto: every variant in
one cubin, picked at launch), linked as users link it; it has no
monolith of its own (a monolith is one kernel, E0608), so none is
written for it (set auto_suite: bench/shape_suite.py's user-facing rows).

    python3 bench/prepare.py [--out DIR] [--plkc build/plkc] [--repeat 3] [--set main]
    python3 bench/prepare.py --check      # every configuration of every set type-checks
    python3 bench/prepare.py --hashes     # sha256 of every configuration's outputs
"""
import argparse
import contextlib
import hashlib
import json
import os
import re
import statistics
import subprocess
import sys
import time

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
from configs import SETS  # noqa: E402

NVCC = os.environ.get("NVCC", "nvcc")


def run(cmd, **kw):
    t0 = time.perf_counter()
    r = subprocess.run(cmd, capture_output=True, text=True, **kw)
    dt = time.perf_counter() - t0
    if r.returncode != 0:
        sys.exit("FAILED: %s\n%s%s" % (" ".join(cmd), r.stdout, r.stderr))
    return r, dt


def kernel_flag(cfg):
    """`--kernel NAME` where the configuration is one variant of a select
    (its "kernel"): plkc links and writes the monolith of that one."""
    return ["--kernel", cfg["kernel"]] if "kernel" in cfg else []


def kernel_spans(src):
    """{kernel name: (start, end)} of each `kernel NAME(` block of a recipe,
    from its first line to its closing brace at the start of a line."""
    spans = {}
    for m in re.finditer(r"^kernel (\w+)\(", src, re.M):
        close = src.find("\n}", m.start())
        spans[m.group(1)] = (m.start(), len(src) if close < 0 else close + 2)
    return spans


def misdirected(src, old, kernel):
    """The kernels an edit of `old` would change when it changes none of
    the lines of `kernel` and none outside every kernel (a `use` line, a
    select), else []: an edit written for a kernel's lines that matches
    another's only (as gemm_n96's did gemm_odd's once its own changed)."""
    spans = kernel_spans(src)
    if kernel not in spans:
        return []
    hit = set()
    for m in re.finditer(re.escape(old), src):
        inside = [k for k, (a, b) in spans.items() if a < m.end() and m.start() < b]
        if kernel in inside or not inside:
            return []
        hit.update(inside)
    return sorted(hit)


def edited(name, path, edits, kernel=None):
    """path with the edits applied, written beside it as .bench_NAME_FILE
    (relative paths inside it still resolve); returns the new path. With
    `kernel` (a configuration of one variant of a select), an edit that
    would change other kernels' lines and none of its own is an error."""
    src = open(path).read()
    for old, new in edits:
        if old not in src:
            sys.exit("%s: `%s` not in %s" % (name, old, path))
        others = misdirected(src, old, kernel) if kernel else []
        if others:
            sys.exit("%s: `%s` changes %s in %s, not %s" % (name, old, ", ".join(others), path, kernel))
        src = src.replace(old, new)
    out = os.path.join(os.path.dirname(path), ".bench_%s_%s" % (name, os.path.basename(path)))
    with open(out, "w") as f:
        f.write(src)
    return out


@contextlib.contextmanager
def variant(cfg):
    """The recipe with the configuration's edits, and the contracts it uses
    with theirs ("contracts": {path: edits}, e.g. an ablation that drops
    `handoff`): yields the recipe's path, and removes every file written
    when done (also when an edit went stale)."""
    written, edits = [], list(cfg.get("edit", []))
    rdir = os.path.dirname(cfg["recipe"])
    try:
        for path, cedits in cfg.get("contracts", {}).items():
            written.append(edited(cfg["name"], path, cedits))
            edits.append(('"%s"' % os.path.relpath(path, rdir), '"%s"' % os.path.relpath(written[-1], rdir)))
        written.append(edited(cfg["name"], cfg["recipe"], edits, cfg.get("kernel")))
        yield written[-1]
    finally:
        for path in written:
            os.remove(path)


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--out", default=".carry/bench")
    ap.add_argument("--plkc", default="build/plkc")
    ap.add_argument("--repeat", type=int, default=3)
    ap.add_argument("--set", default="main", choices=sorted(SETS), help="bench/configs.py SETS")
    ap.add_argument("--suffix", default="", help="appended to every configuration's name")
    ap.add_argument("--append", action="store_true", help="add to DIR/configs.json, not replace it")
    ap.add_argument("--check", action="store_true",
                    help="only type-check every configuration of every set (plkc --check)")
    ap.add_argument("--hashes", action="store_true",
                    help="only link every configuration of every set and print the sha256 of its "
                         "cubin, manifest and monolith source (scripts/output_hashes.sh)")
    args = ap.parse_args()
    if args.check:
        return check_all(args.plkc)
    if args.hashes:
        return hash_all(args.plkc, args.out)
    os.makedirs(args.out, exist_ok=True)
    meta = []
    index = os.path.join(args.out, "configs.json")
    if args.append and os.path.exists(index):
        meta = json.load(open(index))
    for cfg in SETS[args.set]:
        cfg = dict(cfg, name=cfg["name"] + args.suffix)
        name, arch = cfg["name"], cfg["arch"]
        with variant(cfg) as recipe:
            cubin = os.path.join(args.out, name + ".cubin")
            kern = kernel_flag(cfg)
            run([args.plkc, recipe, "-arch", arch, "-o", cubin] + kern)   # warms the object cache
            links, jit = [], []
            for _ in range(args.repeat):
                r, dt = run([args.plkc, recipe, "-arch", arch, "-o", cubin, "--time"] + kern)
                links.append(dt)
                m = re.search(r"time: nvJitLink \(LTO \+ ptxas\)\s+([0-9.]+) ms", r.stderr)
                jit.append(float(m.group(1)) / 1e3 if m else float("nan"))
            mono, nv = None, [float("nan")]
            if not cfg.get("select"):
                mono_cu = os.path.join(args.out, name + ".mono.cu")
                run([args.plkc, recipe, "-arch", arch, "--emit=monolith", "-o", mono_cu] + kern)
                mono = os.path.join(args.out, name + ".mono.cubin")
                sm = arch[3:]
                nv = []
                for _ in range(args.repeat):
                    _, dt = run([NVCC, "-gencode", "arch=compute_%s,code=sm_%s" % (sm, sm), "-cubin",
                                 "-I.", "-Istdlib", "-o", mono, mono_cu])
                    nv.append(dt)
        man = os.path.join(args.out, name + ".manifest.json")
        meta.append(dict(cfg, cubin=os.path.basename(cubin), mono=mono and os.path.basename(mono),
                         manifest=os.path.basename(man),
                         plkc_s=statistics.median(links), nvjitlink_s=statistics.median(jit),
                         nvcc_s=statistics.median(nv)))
        print("%-22s plkc %.2f s (nvJitLink %.2f s)   %s" % (
            name, meta[-1]["plkc_s"], meta[-1]["nvjitlink_s"],
            "a select: no monolith" if mono is None else "monolith nvcc %.2f s" % meta[-1]["nvcc_s"]), flush=True)
    with open(index, "w") as f:
        json.dump(meta, f, indent=1)


def check_all(plkc):
    """Each configuration's edits still apply and its recipe type-checks
    and places (`plkc --check`): a set whose edits went stale fails here,
    on the build host, not in a GPU session."""
    cfgs = unique_configs()
    for cfg in cfgs:
        with variant(cfg) as recipe:
            run([plkc, "--check", recipe, "-arch", cfg["arch"]] + kernel_flag(cfg))
    print("%d configurations of %d sets type-check" % (len(cfgs), len(SETS)))


def hash_all(plkc, out):
    """One line per output of every configuration: "sha256  NAME FILE"."""
    os.makedirs(out, exist_ok=True)
    for cfg in unique_configs():
        with variant(cfg) as recipe:
            base = os.path.join(out, cfg["name"])
            run([plkc, recipe, "-arch", cfg["arch"], "-o", base + ".cubin"] + kernel_flag(cfg))
            if not cfg.get("select"):
                run([plkc, recipe, "-arch", cfg["arch"], "--emit=monolith", "-o", base + ".mono.cu"] + kernel_flag(cfg))
        for ext in (".cubin", ".manifest.json") + (() if cfg.get("select") else (".mono.cu",)):
            with open(base + ext, "rb") as f:
                print("%s  bench %s%s" % (hashlib.sha256(f.read()).hexdigest(), cfg["name"], ext))


def unique_configs():
    """Every configuration of every set, once, by name."""
    seen = {}
    for cfgs in SETS.values():
        for cfg in cfgs:
            seen[cfg["name"]] = cfg
    return list(seen.values())


if __name__ == "__main__":
    main()
