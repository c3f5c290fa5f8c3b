#!/bin/bash
# Build host: links tests/gpu/mega/chain.plk at three sizes into OUT/<size>/
# (chain.cubin, the megakernel; mv.cubin, its op kernel alone), for
# tests/gpu/mega_chain.py and the sanitizer runs of tests/gpu/mega_gpu.sh.
#   bash tests/gpu/mega_prepare.sh [OUT]       (default .carry/mega)
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-.carry/mega}
PLKC=${PLKC:-$PWD/build/plkc}
src=tests/gpu/mega/chain.plk
for size in "small 2 256 512" "l4 4 2048 8192" "l16 16 2048 8192"; do
	set -- $size
	mkdir -p "$OUT/$1" || exit 1
	sed "s/const L = 4, D = 2048, F = 8192/const L = $2, D = $3, F = $4/" "$src" >"tests/gpu/mega/.chain_$1.plk"
	"$PLKC" "tests/gpu/mega/.chain_$1.plk" -arch sm_90a -o "$OUT/$1/chain.cubin" &&
		"$PLKC" "tests/gpu/mega/.chain_$1.plk" --kernel mv -arch sm_90a -o "$OUT/$1/mv.cubin"
	rc=$?
	rm -f "tests/gpu/mega/.chain_$1.plk"
	[ $rc -eq 0 ] || exit 1
	echo "$1: L = $2, D = $3, F = $4"
done
