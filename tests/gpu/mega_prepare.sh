#!/bin/bash
# Build host: links tests/gpu/mega/chain.plk at three sizes into OUT/<size>/
# (chain.cubin, the megakernel; mv.cubin, its op kernel alone), and
# examples/llama_decode.plk at KV 512, 2048 and 8192 and as a reduced model
# (2 layers, vocab 4096, KV 256) into OUT/llama_<size>/ (KV 2048 also with
# --timeline, into OUT/llama_kv2048_timeline/, and its monolith built by
# nvcc into OUT/llama_kv2048_mono/), for
# tests/gpu/mega_chain.py, tests/gpu/llama_decode.py and the sanitizer
# runs of tests/gpu/mega_gpu.sh.
#   bash tests/gpu/mega_prepare.sh [OUT]       (default .carry/mega)
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-.carry/mega}
mkdir -p "$OUT" && OUT=$(cd "$OUT" && pwd) || exit 1   # absolute: the recipe below names the object by it
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
ex=examples/llama_decode.plk
for size in "small 2 4096 256" "kv512 16 128256 512" "kv2048 16 128256 2048" "kv8192 16 128256 8192"; do
	set -- $size
	mkdir -p "$OUT/llama_$1" || exit 1
	sed "s/const L = 16, D = 2048, F = 8192, V = 128256, S = 2048/const L = $2, D = 2048, F = 8192, V = $3, S = $4/" \
		"$ex" >"examples/.llama_$1.plk"
	"$PLKC" "examples/.llama_$1.plk" -arch sm_90a -o "$OUT/llama_$1/llama_decode.cubin"
	rc=$?
	if [ $rc -eq 0 ] && [ "$1" = kv2048 ]; then   # the same, recording its timeline
		mkdir -p "$OUT/llama_kv2048_timeline" &&
			"$PLKC" "examples/.llama_$1.plk" -arch sm_90a --timeline -o "$OUT/llama_kv2048_timeline/llama_decode.cubin"
		rc=$?
	fi
	if [ $rc -eq 0 ] && [ "$1" = kv2048 ]; then   # and as one unit: its monolith, the linked one's manifest
		M=$OUT/llama_kv2048_mono
		mkdir -p "$M" && "$PLKC" "examples/.llama_$1.plk" -arch sm_90a --emit=monolith -o "$M/llama_decode.mono.cu" &&
			"${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" -gencode arch=compute_90a,code=sm_90a -cubin -I. -Istdlib \
				-diag-suppress 177 -o "$M/llama_decode.cubin" "$M/llama_decode.mono.cu" &&
			cp "$OUT/llama_$1/llama_decode.manifest.json" "$M/"
		rc=$?
	fi
	rm -f "examples/.llama_$1.plk"
	[ $rc -eq 0 ] || exit 1
	echo "llama_$1: L = $2, vocab $3, KV rows $4"
done
# the same step with the CuTe attention, from its owner's object (tests/scripts/mega_cute.sh)
CUTE=$(python3 -c 'import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), "source", "include"))')
mkdir -p "$OUT/llama_kv2048_cute" || exit 1
"$PLKC" -c components/decode/attn_decode_cute.plk -I "$CUTE" -arch sm_90a -o "$OUT/attn_decode_cute.o" || exit 1
sed -e 's|^  run = attn_decode(q = Q|  run = attn_decode_cute(q = Q|' \
	-e "s|^use \"../components/decode/attn_decode.plk\"|use object \"$OUT/attn_decode_cute.o\"|" "$ex" >examples/.llama_cute.plk
"$PLKC" examples/.llama_cute.plk -arch sm_90a -o "$OUT/llama_kv2048_cute/llama_decode.cubin"
rc=$?
rm -f examples/.llama_cute.plk "$OUT/attn_decode_cute.o" "$OUT/attn_decode_cute.plk.h"
[ $rc -eq 0 ] || exit 1
echo "llama_kv2048_cute: the attention from the CuTe object"
