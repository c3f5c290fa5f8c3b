#!/bin/bash
# Variants side by side, on the H200 from the repository root, after the
# build host prepared DIR (bench/README.md, "Two revisions"):
#   DIR=.carry/core SANITIZE="CONFIG:M=..,N=..,K=.. ..." PAIRS="A:B ..." \
#   [BENCH=1] [PROFILE="CONFIG:MxNxK ..."] bash bench/gpu_ab.sh
# It builds the runtime, then:
#   1. compute-sanitizer memcheck and racecheck on each SANITIZE
#      configuration at its dims, on 2 blocks (each lane of a pingpong
#      kernel takes and skips several tiles);
#   2. bench/ab_bench.py on PAIRS: one row per shape of A;
#   3. with BENCH=1, bench/linked_bench.py over DIR: correctness, linked vs
#      monolithic, baseline;
#   4. bench/profile.sh on PROFILE.
# Logs go to $OUT (or build/gpu-out); a summary last.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
nvidia-smi -L
build_runtime || exit 1
B=${DIR:-.carry/core}

for spec in ${SANITIZE:-}; do
	cfg=${spec%%:*}
	dims=${spec#*:}
	PLK_MAX_BLOCKS=2 TO=120 step "sanitize-$cfg" sanitize "$cfg" ${dims//,/ }
done
[ -n "${PAIRS:-}" ] && step ab timeout 300 env PYTHONUNBUFFERED=1 python3 bench/ab_bench.py --dir "$B" \
	--out "$O/ab.md" $PAIRS
[ -n "${BENCH:-}" ] && step bench timeout 300 env PYTHONUNBUFFERED=1 python3 bench/linked_bench.py --dir "$B" \
	--iters 200 --out "$O/bench.md"
[ -n "${PROFILE:-}" ] && step profile timeout 200 env DIR="$B" bash bench/profile.sh $PROFILE &&
	cp "$O/profile.log" "$O/profile.md"
cat "$O/ab.md" "$O/bench.md" "$O/profile.md" 2>/dev/null
finish
