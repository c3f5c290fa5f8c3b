#!/bin/bash
# What a mask hook costs a partial KV block, held where it is: the linked
# attention kernels' KV loops in SASS (bench/sass_loops.py), each partial-
# block path at most its bound a thread for a 128-key block (64 scores a
# thread): the sliding window's two compares with per-row bounds 311 (it
# was 484 with a subtraction per score, bench/results/2026-12-04-
# attention-mask-sass.md), the document mask's 293, causal's 195.
# Needs nvdisasm (the nvidia-cuda-nvdisasm wheel; .ci/run installs it).
# Exit 0 pass, 1 fail, 77 skip.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
NVD=$(python3 -c 'import sys; sys.path.insert(0, "bench"); from sass_loops import find_nvdisasm
print(find_nvdisasm(None))' 2>/dev/null)
[ -n "$NVD" ] || { echo "skip: no nvdisasm (pip install nvidia-cuda-nvdisasm)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# recipe, kernel, bound (64 scores a thread: 5, 5 and 3.5 instructions a score)
while read -r recipe kernel bound; do
	"$PLKC" "examples/$recipe.plk" -arch sm_90a --kernel "$kernel" -o "$tmp/$kernel.cubin" 2>"$tmp/$kernel.err" ||
		{ echo "$kernel: link failed:"; head -n 12 "$tmp/$kernel.err"; fail=1; continue; }
	python3 bench/sass_loops.py --nvdisasm "$NVD" --max-partial "$bound" "$tmp/$kernel.cubin" || fail=1
done <<'KERNELS'
attn_sliding attn_sliding 320
attn_document attn_document 320
attn_causal attn_causal_bn128 224
KERNELS
exit $fail
