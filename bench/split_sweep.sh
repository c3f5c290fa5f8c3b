#!/bin/bash
# The split count and the reduction's registers, swept (bench/results/
# 2026-12-01-split-k.md): pingpong 64 x 128 tiles (64 f32 of accumulator
# per thread) and 128 x 128 tiles on two warpgroups (64 each), each linked
# without a split and with split(2), (4), (8); timed by plk-run (median of
# 200 launches after 20, same inputs) at the small-M shapes of the shape
# suite. Two halves:
#
#   bash bench/split_sweep.sh link          # build host: recipes and cubins into .carry/sweep
#   bash bench/split_sweep.sh run           # GPU host: build the runtime, time, print a table
cd "$(dirname "$0")/.." || exit 1
D=.carry/sweep
PP64='s/const BM = 128, BN = 128, BK = 64/const BM = 64, BN = 128, BK = 64/'
W128='s/const BM = 128, BN = 256, BK = 64/const BM = 128, BN = 128, BK = 64/'
if [ "$1" = link ]; then
	mkdir -p "$D" || exit 1
	for s in 0 2 4 8; do
		split='s/raster grouped(8)/raster grouped(8), split('$s')/'
		[ $s = 0 ] && split='s/^$//'
		sed -e 's|"\.\./components|"../../components|' -e "$PP64" -e "$split" examples/gemm_pingpong.plk >"$D/p64n_s$s.plk"
		sed -e 's|"\.\./components|"../../components|' -e "$W128" -e "$split" examples/gemm.plk >"$D/w128_s$s.plk"
	done
	for f in "$D"/*.plk; do build/plkc "$f" -arch sm_90a -o "${f%.plk}.cubin" || exit 1; done
	exit 0
fi
[ "$1" = run ] || { echo "usage: bash bench/split_sweep.sh link|run"; exit 2; }
B=$PWD/build/runtime
make -s -C runtime B="$B" all || exit 1
row() {   # CONFIG SHAPE: the four split counts' medians
	local dims; dims=$(for d in $2; do printf -- '--dim %s ' "$d"; done)
	printf '| %s | %s |' "$1" "$(echo $2 | tr -d 'MNK=' | tr ' ' x)"
	for s in 0 2 4 8; do
		t=$("$B/plk-run" "$D/${1}_s$s.cubin" $dims --iters 200 --warmup 20 2>&1 | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p')
		printf ' %s |' "${t:-fail}"
	done
	echo
}
echo "device: $(nvidia-smi --query-gpu=name --format=csv,noheader | head -n 1), $(date -u +%FT%TZ); plk-run medians, ms"
echo
echo "| tiles | M x N x K | no split | split(2) | split(4) | split(8) |"
echo "|---|---|---|---|---|---|"
for sh in "M=1 N=6144 K=4096" "M=16 N=4096 K=14336" "M=64 N=4096 K=14336" "M=64 N=6144 K=4096" \
          "M=16 N=14336 K=4096" "M=64 N=14336 K=4096"; do row p64n "$sh"; done
for sh in "M=128 N=4096 K=14336" "M=256 N=4096 K=14336" "M=128 N=6144 K=4096" "M=256 N=6144 K=4096" \
          "M=128 N=4096 K=4096" "M=128 N=14336 K=4096" "M=1024 N=1024 K=1024" "M=2048 N=2048 K=2048"; do
	row w128 "$sh"
done
