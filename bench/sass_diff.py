#!/usr/bin/env python3
"""The SASS of each configuration's linked kernel against its monolith,
and against the monolith bench/mono_lto.py built through LTO where there
is one. Instructions are compared with addresses, encodings and symbols
left out; "differ" counts the instructions a minimal edit changes
(register choices and order included). The disassembler: cuobjdump
-sass (the GPU host has it), else nvdisasm -c (`--nvdisasm PATH`, or on
PATH: the nvidia-cuda-nvdisasm wheel has one for the build host).

    python3 bench/sass_diff.py --dir .carry/am [--nvdisasm PATH]
"""
import argparse
import difflib
import json
import os
import re
import shutil
import subprocess


DISASM = ["cuobjdump", "-sass"]


def sass(path, disasm=None):
    """path's instructions, disassembled by disasm (default DISASM)."""
    out = subprocess.run((disasm or DISASM) + [path], capture_output=True, text=True, check=True).stdout
    ins = []
    for line in out.splitlines():
        m = re.match(r"\s*/\*[0-9a-f]{4,}\*/\s+(.*?);", line)
        if m:
            ins.append(re.sub(r"`\([^)]*\)", "SYM", re.sub(r"0x[0-9a-f]+", "X", m.group(1))).strip())
    return ins


def differ(a, b):
    ops = difflib.SequenceMatcher(None, a, b, autojunk=False).get_opcodes()
    return sum(max(i2 - i1, j2 - j1) for t, i1, i2, j1, j2 in ops if t != "equal")


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    ap.add_argument("--nvdisasm", help="nvdisasm to use where there is no cuobjdump")
    args = ap.parse_args()
    global DISASM
    if args.nvdisasm or not shutil.which("cuobjdump"):
        tool = args.nvdisasm or shutil.which("nvdisasm")
        if not tool:
            raise SystemExit("sass_diff: neither cuobjdump nor nvdisasm (--nvdisasm PATH) found")
        DISASM = [tool, "-c"]
    print("| config | linked | monolith | monolith (LTO) | linked vs monolith differ | linked vs LTO differ "
          "| monolith vs LTO differ |")
    print("|---|---|---|---|---|---|---|")
    for c in json.load(open(os.path.join(args.dir, "configs.json"))):
        if c["name"].endswith("_lto"):
            continue
        a, b = sass(os.path.join(args.dir, c["cubin"])), sass(os.path.join(args.dir, c["mono"]))
        lto = os.path.join(args.dir, c["mono"].replace(".mono.cubin", ".monolto.cubin"))
        l = sass(lto) if os.path.exists(lto) else None
        print("| %s | %d | %d | %s | %d | %s | %s |" % (
            c["name"], len(a), len(b), len(l) if l else "-", differ(a, b), differ(a, l) if l else "-",
            differ(b, l) if l else "-"), flush=True)


if __name__ == "__main__":
    main()
