#!/bin/bash
# 2 x 2 clusters (docs/language.md, `cluster N`): examples/gemm_mcast.plk
# with MCAST = 4 and `cluster(2, 2)` multicasts A to its tile row's pair
# of CTAs and B to its tile column's; the glue gives the CTA at (x, y) of
# its cluster tile (2m + x, 2n + y) and every empty barrier counts the
# consumers of all four. Then the runtime against the mock libcuda: a
# clustered grid's work items are whole clusters of tiles, pairs and
# quads, so that no pair or quad of a partial edge is left without a
# cluster (non-persistent: one item each). And 4 x 1 clusters (MCAST = 4,
# BWAYS = 4, `cluster(4, 1)`): B alone multicast to the four CTAs of a
# tile column, which take tile rows 4m .. 4m + 3. The GPU runs of these
# kernels: bench/results/2026-12-03-gemm-quads.md, -misaligned-fours.md.
B=${1:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
T=$(mktemp -d); trap 'rm -rf "$T"' EXIT
fail=0
# edit NAME SED-ARGS...: examples/gemm_mcast.plk edited by sed as
# $T/NAME.plk, then its PTX and manifest ($T/NAME.ptx, .manifest.json)
edit() {
	local name=$1
	shift
	sed "$@" -e 's,"\.\./components,"'"$PWD"'/components,' examples/gemm_mcast.plk >"$T/$name.plk"
	"$PLKC" "$T/$name.plk" -arch sm_90a --emit=ptx -o "$T/$name.ptx" 2>"$T/err" || { cat "$T/err"; exit 1; }
	"$PLKC" "$T/$name.plk" -arch sm_90a --emit=manifest -o "$T/$name.manifest.json" || exit 1
}
# variant NAME CONSTS CLUSTER: edit with MCAST = 2 replaced by CONSTS and
# cluster(2, 1) by CLUSTER, and its monolith too ($T/NAME.mono.cu)
variant() {
	edit "$1" -e "s/const MCAST = 2 /const $2 /" -e "s/cluster(2, 1)/$3/"
	grep -q "const $2 " "$T/$1.plk" && grep -qF "$3" "$T/$1.plk" || { echo "$1.plk: the edits went stale"; exit 1; }
	"$PLKC" "$T/$1.plk" -arch sm_90a --emit=monolith -o "$T/$1.mono.cu" || exit 1
}
# boxes NAME WANT: the manifest's cluster and its tensor maps' boxes
boxes() {
	local got
	got=$(python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
print(m["cluster"], [p["box"] for p in m["params"] if "box" in p])' "$T/$1.manifest.json")
	[ "$got" = "$2" ] || { echo "$1 manifest: $got"; fail=1; }
}
# want FILE PATTERN WHAT: FILE (under $T) has a line matching PATTERN
want() {
	grep -q -- "$2" "$T/$1" || { echo "$1: $3"; fail=1; }
}
variant quad "MCAST = 4" "cluster(2, 2)"
# two multicast loads a box (A and B), the cluster's shape, the grid's y
# (the tile column within the quad), and empty barriers of 4 x 256 threads
n=$(grep -c 'multicast::cluster' "$T/quad.ptx")
[ "$n" -ge 2 ] && [ $((n % 2)) -eq 0 ] || { echo "quad: $n multicast loads in the PTX, not pairs of them"; fail=1; }
want quad.ptx '\.reqnctapercluster 2, 2, 1' "no 2 x 2 cluster"
want quad.ptx '%ctaid\.y' "the tile column is not read from ctaid.y"
want quad.ptx 'mov.u32 	%r[0-9]*, 1024;' "no barrier count of 1024 (4 x 256)"
# the tensor maps' boxes: half of A's 128 rows, half of B's 256, C's 64 x 64
boxes quad "[2, 2, 1] [[64, 64], [64, 128], [64, 64]]"
# the monolith the same way (monolith.c)
want quad.mono.cu 'pairs_n = (tiles_n + 1) >> 1' "no pairs of tile columns"
want quad.mono.cu 'tn = 2 \* tn + blockIdx.y;' "no tile column from the grid's y"

# 4 x 1: B's quarter multicast to all four (mask 15), A alone; the boxes:
# A's 128 rows, a quarter of B's 256; the monolith's fours of tile rows
variant four "MCAST = 4, BWAYS = 4" "cluster(4, 1)"
want four.ptx '\.reqnctapercluster 4, 1, 1' "no 4 x 1 cluster"
want four.ptx 'mov.u32 	%r[0-9]*, 15;' "no multicast mask of 15"
want four.ptx 'mov.u32 	%r[0-9]*, 1024;' "no barrier count of 1024 (4 x 256)"
boxes four "[4, 1, 1] [[64, 128], [64, 64], [64, 64]]"
want four.mono.cu 'pairs_m = (tiles_m + 3) >> 2' "no fours of tile rows"
want four.mono.cu 'tm = 4 \* tm + (blockIdx.x & 3);' "no tile row from the cluster's rank"

# 128 x 200 fours (BN = 200: 50 rows of B a CTA, its box landing mid-atom;
# stored from registers) and 192 x 192 pairs (WG = 3: three consumer
# warpgroups of 64 rows, 152 registers each beside the loader's 40), the
# tiles cuBLAS runs at misaligned K (bench/results/2026-12-06-cublas-tiles.md)
edit n200 -e 's/BN = 256,/BN = 200,/' -e 's/const MCAST = 2 /const MCAST = 4, BWAYS = 4 /' -e 's/cluster(2, 1)/cluster(4, 1)/' \
	-e 's/store_bf16_tma(c = C)/store_bf16(c = C)/' -e 's,^use "\(.*\)/store_bf16_tma.plk",use "\1/store_bf16.plk",'
want n200.ptx 'wgmma.mma_async.sync.aligned.m64n200k16' "no m64n200k16"
boxes n200 "[4, 1, 1] [[64, 128], [64, 50]]"
edit sq192 -e 's/BM = 128, BN = 256,/BM = 192, BN = 192,/' -e 's/const WG = 2, /const WG = 3, REGS = 152, CH = 64, /'
want sq192.ptx 'wgmma.mma_async.sync.aligned.m64n192k16' "no m64n192k16"
want sq192.ptx 'setmaxnreg.inc.sync.aligned.u32 152' "no setmaxnreg of 152"
boxes sq192 "[2, 1, 1] [[64, 192], [64, 96], [64, 64]]"
regs=$(python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); print(m["block"][0], m["placement"]["warpgroup_regs"])' \
	"$T/sq192.manifest.json")
[ "$regs" = "512 [40, 152, 152, 152]" ] || { echo "sq192 manifest: block and registers $regs"; fail=1; }

[ -f "$CUDA_HOME/include/cuda.h" ] || { echo "skip: the runtime half: no cuda.h under $CUDA_HOME"; exit $((fail ? 1 : 77)); }
make -s -C runtime B="$T/rt" CUDA_HOME="$CUDA_HOME" "$T/rt/plk-run" || exit 1
cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -shared -fPIC -Wl,-soname,libcuda.so.1 -I"$CUDA_HOME/include" \
	-o "$T/libcuda.so.1" tests/runtime/mock_cuda.c || exit 1
printf '\177ELF' >"$T/k.cubin"
# shape MANIFEST M N: plk-run's launch line (grid, cluster, work items)
shape() {
	LD_LIBRARY_PATH="$T" "$T/rt/plk-run" "$T/k.cubin" --manifest "$1" --dim M="$2" --dim N="$3" --dim K=64 \
		--iters 1 --warmup 0 2>&1 | grep -o 'grid [0-9x]*, block [0-9x]*, cluster [0-9x]*, [0-9]* B dynamic smem, [0-9]* work items'
}
expect() {   # expect WHAT GOT WANT
	printf '%s' "$2" | grep -qF -- "$3" || { echo "$1: lacks '$3' in: $2"; fail=1; }
}
# 3 tile rows by 4 columns of 128 x 256: 2 x 2 quads, 16 tiles' worth
got=$(shape "$T/quad.manifest.json" 300 776)
expect "quad 300x776" "$got" "grid 8x2x1, block 384x1x1, cluster 2x2x1"
expect "quad 300x776" "$got" "16 work items"
# pairs, non-persistent: 3 tile rows by 2 columns are 4 pairs, 4 clusters
sed -e 's/grid persistent, /grid /' "$T/quad.plk" | sed -e 's/const MCAST = 4 /const MCAST = 2 /' \
	-e 's/cluster(2, 2)/cluster(2, 1)/' >"$T/pairs.plk"
"$PLKC" "$T/pairs.plk" -arch sm_90a --emit=manifest -o "$T/p.manifest.json" || exit 1
got=$(shape "$T/p.manifest.json" 300 504)
expect "pairs 300x504" "$got" "grid 8x1x1, block 384x1x1, cluster 2x1x1"
expect "pairs 300x504" "$got" "8 work items"
# fours: 3 tile rows are one four (its last row past M) by 4 columns
got=$(shape "$T/four.manifest.json" 300 1000)
expect "four 300x1000" "$got" "cluster 4x1x1"
expect "four 300x1000" "$got" "16 work items"
[ $fail -eq 0 ] && echo "quads and fours (128 x 200 too), 192-row pairs: PTX, manifest, monolith and the runtime's clusters of tiles"
exit $fail
