#!/bin/bash
# The headers components share (components/*/*.cuh, stdlib/plk.cuh) read no
# component constant. Two specializations of a component can meet in one
# link (a select's variants, docs/abi.md "Identity"): their entries are
# renamed apart, but an inline function of a shared header is one symbol,
# and LTO keeps one body of it; a body that read a cparam macro (BM, BN,
# ...) would be the other specialization's. Templates over the constants
# (plk_fence_regs<ACC>) are the way to share such code.
cd "$(dirname "$0")/../.." || exit 1
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
python3 - <<'PY'
import glob, re, sys
names = set()
for f in glob.glob("components/*/*.plk"):
    for m in re.finditer(r"\bcomponent\s+\w+\s*\(([^)]*)\)", open(f).read()):
        names |= {p.split("=")[0].strip() for p in m.group(1).split(",") if p.strip()}
if not names:
    sys.exit("no component constants found")
bad = 0
for f in sorted(glob.glob("components/*/*.cuh")) + ["stdlib/plk.cuh"]:
    s = re.sub(r"/\*.*?\*/", "", re.sub(r"//[^\n]*", "", open(f).read()), flags=re.S)
    hit = sorted(set(re.findall(r"\b[A-Z_][A-Z0-9_]*\b", s)) & names)
    if hit:
        print(f"{f} reads component constants {', '.join(hit)}: make its functions templates over them")
        bad = 1
sys.exit(bad)
PY
