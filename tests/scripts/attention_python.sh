#!/bin/bash
# pipelink.attention's recipes: every variant at both head dims is written
# from the standard components (found on plkc's default `use` path, from
# another directory) and type-checks and places (plkc --check); two of
# them link. The calls themselves run on the GPU (tests/gpu/attn_python.py).
B=${1:-build}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
PLKC=$PWD/$B/plkc
W=$(mktemp -d); trap 'rm -rf "$W"' EXIT
export PLKC_CACHE=$W/cache
cd "$W" || exit 1
PYTHONPATH=$OLDPWD/python python3 - "$PLKC" <<'PY' || exit 1
import os, subprocess, sys
import pipelink._attention as A
plkc = sys.argv[1]
n = 0
for kind in A._VARIANTS:
    for hd in (64, 128):
        path = A.recipe_path(kind, hd, cache=os.environ["PLKC_CACHE"])
        r = subprocess.run([plkc, "--check", path, "-arch", "sm_90a"], capture_output=True, text=True)
        if r.returncode:
            sys.exit("%s d%d: %s" % (kind, hd, r.stderr))
        n += 1
for kind, hd in (("causal", 64), ("document", 128)):
    path = A.recipe_path(kind, hd, cache=os.environ["PLKC_CACHE"])
    r = subprocess.run([plkc, path, "-arch", "sm_90a", "-o", "k.cubin"], capture_output=True, text=True)
    if r.returncode or not os.path.getsize("k.cubin"):
        sys.exit("link %s d%d: %s" % (kind, hd, r.stderr))
# argument errors name their cause (no torch needed before the tensors)
try:
    A._variant(True, 128, 30.0, None, None)
except A.PlkError as e:
    assert "window does not combine" in str(e), e
else:
    sys.exit("window + softcap accepted")
print("%d recipes check, 2 link" % n)
PY
