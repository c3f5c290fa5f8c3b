#!/bin/bash
# bench/prepare.py on a `select` configuration (set auto_suite): each
# select is linked whole into one cubin whose manifest lists its
# variants, no monolith is written for it (a monolith is one kernel,
# E0608), and configs.json says so (mono: null) for shape_suite.py and
# linked_bench.py. Exit 0 pass, 1 fail, 77 skip.
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
PLKC=${PLKC:-$PWD/${1:-build}/plkc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
python3 bench/prepare.py --set auto_suite --out "$tmp" --repeat 1 --plkc "$PLKC" || exit 1
python3 - "$tmp" <<'PY'
import json, os, sys
d = sys.argv[1]
cfgs = json.load(open(os.path.join(d, "configs.json")))
bad = []
names = [c["name"] for c in cfgs]
if names != ["gemm_auto", "gemm_swiglu_auto"]:
    bad.append("configurations: %s" % names)
for c in cfgs:
    if c.get("mono") is not None:
        bad.append("%s: mono %r, not null" % (c["name"], c["mono"]))
    if os.path.exists(os.path.join(d, c["name"] + ".mono.cu")):
        bad.append("%s: a monolith was written" % c["name"])
    if not os.path.getsize(os.path.join(d, c["cubin"])):
        bad.append("%s: empty cubin" % c["name"])
    v = json.load(open(os.path.join(d, c["manifest"]))).get("variants", [])
    if len(v) < 2:
        bad.append("%s: %d variants in the manifest" % (c["name"], len(v)))
for b in bad:
    print("FAIL:", b)
print("bench_prepare_select: %d configurations, %d problems" % (len(cfgs), len(bad)))
sys.exit(1 if bad else 0)
PY
