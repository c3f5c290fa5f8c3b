#!/usr/bin/env python3
"""Where a linked kernel's program and its monolith's part, one level
above SASS: the PTX plkc links (`--emit=ptx`, the glue and every
component after libNVVM's LTO) against `nvcc -ptx` of `--emit=monolith`,
both with register numbers, labels and the kernel's name left out, as a
unified diff. Where bench/sass_diff.py counts instructions that differ,
this shows which glue IR to change. With --sass NVDISASM the two cubins'
SASS instead (`nvdisasm -c`, addresses and encodings left out, as
bench/sass_diff.py reads them): what runs.

    python3 bench/ptx_diff.py --set stream --config pp64x128_split [--plkc build/plkc] [--context 3]
                              [--sass NVDISASM]

With --same SET/CONFIG ... it prints one count a configuration instead
of the diff, and exits 1 unless every one is 0 (tests/scripts/glue_ptx.sh,
glue_sass.sh).
"""
import argparse
import difflib
import os
import re
import subprocess
import sys
import tempfile

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import sass_diff  # noqa: E402
from configs import SETS  # noqa: E402
from prepare import NVCC, kernel_flag, variant  # noqa: E402


def entry(ptx):
    """The kernel's own text: the `.entry` to its closing brace (both keep
    dead `.weak .func` copies of the components, in different orders)."""
    lines, keep = [], False
    for line in ptx.splitlines():
        top = re.match(r"(\.visible\s+|\.weak\s+|\.extern\s+)?\.(entry|func)\b", line)
        if top and keep:
            break   # the next function: inline asm's braces are at column 0 too
        keep = keep or (top is not None and top.group(2) == "entry")
        if keep:
            lines.append(line)
    return lines


def normal(ptx):
    """The entry's PTX without what differs between two equal programs:
    register and label numbers, the entry's and parameters' names,
    comments, debug directives."""
    out = []
    for line in entry(ptx):
        line = re.sub(r"//.*", "", line).strip()
        if not line or line.startswith((".loc", ".file", ".version", ".target", ".address_size")):
            continue
        line = re.sub(r"%(r|rd|f|fd|p|rs|h|hh)\d+", r"%\1", line)
        line = re.sub(r"\$L__\w+", "$L", line)
        line = re.sub(r"\w+_param_(\d+)", r"param_\1", line)
        out.append(line)
    return out


def listings(cfg, plkc, nvdisasm):
    """The monolith's and the linked kernel's normalised PTX, or with
    nvdisasm their SASS."""
    arch, kern, sm = cfg["arch"], kernel_flag(cfg), cfg["arch"][3:]
    ext = "cubin" if nvdisasm else "ptx"
    # the edited recipe beside the original under a name of this process's
    # own: bench/prepare.py --check (a test beside this one) writes NAME's
    with tempfile.TemporaryDirectory() as tmp, variant(dict(cfg, name="%s_ptx%d" % (cfg["name"], os.getpid()))) as recipe:
        linked, mono_cu, mono = (os.path.join(tmp, n) for n in ("linked." + ext, "mono.cu", "mono." + ext))
        for cmd in ([plkc, recipe, "-arch", arch, "--emit=" + ext, "-o", linked] + kern +
                    (["--manifest", os.path.join(tmp, "linked.json")] if nvdisasm else []),
                    [plkc, recipe, "-arch", arch, "--emit=monolith", "-o", mono_cu] + kern,
                    [NVCC, "-gencode", "arch=compute_%s,code=sm_%s" % (sm, sm), "-" + ext, "-I.", "-Istdlib", "-diag-suppress", "177",
                     "-o", mono, mono_cu]):
            subprocess.run(cmd, check=True)
        if nvdisasm:
            return sass_diff.sass(mono, [nvdisasm, "-c"]), sass_diff.sass(linked, [nvdisasm, "-c"])
        return normal(open(mono).read()), normal(open(linked).read())


def config(set_name, name):
    cfg = next((c for c in SETS.get(set_name, []) if c["name"] == name), None)
    if cfg is None:
        sys.exit("no configuration %s in set %s" % (name, set_name))
    return cfg


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--set")
    ap.add_argument("--config")
    ap.add_argument("--same", nargs="+", metavar="SET/CONFIG", help="only count, and fail unless all are 0")
    ap.add_argument("--plkc", default="build/plkc")
    ap.add_argument("--context", type=int, default=3)
    ap.add_argument("--sass", metavar="NVDISASM", help="compare the cubins' SASS, disassembled by NVDISASM")
    args = ap.parse_args()
    what = "SASS" if args.sass else "PTX"
    if args.same:
        bad = 0
        for sc in args.same:
            a, b = listings(config(*sc.split("/", 1)), args.plkc, args.sass)
            n = sass_diff.differ(a, b)
            bad += n != 0
            print("%s: %d lines of %s (monolith), %d (linked); %d differ" % (sc, len(a), what, len(b), n), flush=True)
        return 1 if bad else 0
    if not (args.set and args.config):
        ap.error("--set and --config, or --same")
    a, b = listings(config(args.set, args.config), args.plkc, args.sass)
    diff = list(difflib.unified_diff(a, b, "monolith", "linked", n=args.context, lineterm=""))
    print("\n".join(diff))
    print("%d lines of %s (monolith), %d (linked); %d differ" % (
        len(a), what, len(b), sum(1 for d in diff if d[:1] in "+-" and d[:3] not in ("+++", "---"))), file=sys.stderr)
    return 0


if __name__ == "__main__":
    sys.exit(main())
