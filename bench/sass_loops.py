#!/usr/bin/env python3
"""The KV loop of each attention kernel in DIR, counted in its SASS on the
build host: the innermost loop (a backward branch's body) with the softmax,
its instructions in all, those of its partial-block path (the masked
blocks' code, which a full block branches over: the longest stretch a
predicated forward branch inside the loop skips), and how many of each
opcode. A mask hook's cost a partial block shows here
before any GPU time is spent on it.

    python3 bench/sass_loops.py --dir .carry/hooks [--nvdisasm PATH] [--ops N]
    python3 bench/sass_loops.py K.cubin ... [--max-partial N]

With cubins named, those; --max-partial N fails (status 1) when a
kernel's partial-block path holds more than N instructions
(tests/scripts/mask_sass.sh).
"""
import argparse
import collections
import json
import os
import re
import shutil
import subprocess


def find_nvdisasm(path):
    """--nvdisasm, else nvdisasm on PATH, else the nvidia-cuda-nvdisasm
    wheel's (the build host's toolkit has none). Also the SASS tests'
    lookup (tests/scripts/glue_sass.sh, mask_sass.sh)."""
    path = path or shutil.which("nvdisasm")
    if path:
        return path
    try:
        import nvidia
        for d in nvidia.__path__:
            wheel = os.path.join(d, "cu13", "bin", "nvdisasm")
            if os.access(wheel, os.X_OK):
                return wheel
    except ImportError:
        pass
    raise SystemExit("sass_loops: no nvdisasm (--nvdisasm PATH, or pip install nvidia-cuda-nvdisasm)")


def parse(path, disasm):
    """The instructions (address, text) and each label's index."""
    out = subprocess.run(disasm + [path], capture_output=True, text=True, check=True).stdout
    ins, labels, pending = [], {}, []
    for line in out.splitlines():
        m = re.match(r"^(\.L_x_\d+):", line)
        if m:
            pending.append(m.group(1))
            continue
        m = re.match(r"\s*/\*([0-9a-f]{4,})\*/\s+(.*?)\s*;", line)
        if m:
            for p in pending:
                labels[p] = len(ins)
            pending = []
            ins.append((int(m.group(1), 16), m.group(2)))
    return ins, labels


def opcode(text):
    return re.sub(r"^@!?U?P[T\d]+\s+", "", text).split()[0]


def kv_loop(ins, labels):
    """(start, end) of the innermost loop with the softmax: the smallest
    backward branch's body holding 32 or more MUFU.EX2."""
    best = None
    for i, (_, t) in enumerate(ins):
        m = re.search(r"BRA[^`]*`\((\.L_x_\d+)\)", t)
        if m and labels.get(m.group(1), i) < i:
            s = labels[m.group(1)]
            n = sum(opcode(x) == "MUFU.EX2" for _, x in ins[s:i + 1])
            if n >= 32 and (best is None or i - s < best[1] - best[0]):
                best = (s, i)
    return best


def skipped(ins, labels, s, e):
    """Instructions a forward branch inside [s, e] jumps over, for the
    predicated branch that skips the most (the partial blocks' mask)."""
    most = 0
    for i in range(s, e + 1):
        m = re.search(r"@!?P\d\s+BRA[^`]*`\((\.L_x_\d+)\)", ins[i][1])
        if m and i < labels.get(m.group(1), -1) <= e:
            most = max(most, labels[m.group(1)] - i - 1)
    return most


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("cubins", nargs="*")
    ap.add_argument("--dir")
    ap.add_argument("--nvdisasm")
    ap.add_argument("--ops", type=int, default=0, help="print the N commonest opcodes of each loop")
    ap.add_argument("--max-partial", type=int, help="fail when a partial-block path holds more")
    a = ap.parse_args()
    disasm = [find_nvdisasm(a.nvdisasm), "-c"]
    kernels = [(c, c) for c in a.cubins]
    if a.dir:
        kernels += [(cfg["name"], os.path.join(a.dir, cfg["cubin"]))
                    for cfg in json.load(open(os.path.join(a.dir, "configs.json")))]
    print("| config | KV loop | partial-block path | MUFU.EX2 |")
    print("|---|---|---|---|")
    bad = 0
    for name, path in kernels:
        ins, labels = parse(path, disasm)
        loop = kv_loop(ins, labels)
        if not loop:
            print("| %s | no loop with MUFU.EX2 | | |" % name)
            bad = 1
            continue
        s, e = loop
        ops = collections.Counter(opcode(t) for _, t in ins[s:e + 1])
        partial = skipped(ins, labels, s, e)
        print("| %s | %d | %d | %d |" % (name, e - s + 1, partial, ops["MUFU.EX2"]))
        for op, n in ops.most_common(a.ops):
            print("|   %s | %d | | |" % (op, n))
        if a.max_partial is not None and partial > a.max_partial:
            print("%s: the partial-block path holds %d instructions, more than %d" % (name, partial, a.max_partial))
            bad = 1
    return bad


if __name__ == "__main__":
    raise SystemExit(main())
