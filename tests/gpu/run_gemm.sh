#!/bin/bash
# Build, check and time the monolithic GEMM compositions on an sm_90a GPU.
#   tests/gpu/run_gemm.sh [quick]
# Logs go to $OUT (default build/gpu/out). Steps: build every configuration
# of tests/gpu/configs.txt (-Xptxas -v kept in the logs), confirm HGMMA in
# the SASS, small ragged-shape checks against a CPU reference, memcheck and
# racecheck on one configuration, then gemm_check.py (large-shape
# correctness against fp32 torch + timings against cuBLAS).
set -u -o pipefail
cd "$(dirname "$0")/../.."
B=${BUILD:-build/gpu}
OUT=${OUT:-$B/out}
mkdir -p "$B" "$OUT"
ARCH="-gencode arch=compute_90a,code=sm_90a"
grep -v '^#' tests/gpu/configs.txt | awk 'NF {printf "CFG(%s, %s, %s)\n",$1,$2,$3}' > "$B/configs.inc"
# the component sources' headers (cparam defaults, ids), from their
# contracts. The GPU host has no plkc: write them on the build host with
# `tests/gpu/headers.sh DIR`, carry DIR and set PLK_HEADERS=DIR.
INC=${PLK_HEADERS:-$B/include}
[ -n "${PLK_HEADERS:-}" ] || tests/gpu/headers.sh "$INC" || exit 1

echo "== build"
pids=()
while read -r n m e bm bn bk wg st g ch; do
	[ -z "$n" ] && continue
	tests/gpu/monolith_cc.sh "$INC" "$B/$n.o" $n $m $e $bm $bn $bk $wg $st $g $ch -Xcompiler -fPIC -Xptxas -v \
		> "$B/$n.build.log" 2>&1 &
	pids+=($!)
done < <(grep -v '^#' tests/gpu/configs.txt)
fail=0
for p in "${pids[@]}"; do wait "$p" || fail=1; done
cat "$B"/*.build.log | grep -E "error|warning|C7508|Compiling entry|Used|spill" | tee "$OUT/ptxas.log"
[ $fail = 0 ] || { echo "build failed"; cat "$B"/*.build.log; exit 1; }
nvcc -shared -o "$B/libplkgemm.so" "$B"/*.o -lcuda || exit 1
nvcc -O2 $ARCH -I"$B" -o "$B/gemm_small" tests/gpu/gemm_small.cu -L"$B" -lplkgemm -lcuda \
	-Xlinker -rpath="$PWD/$B" || exit 1

echo "== sass"
for o in "$B"/*.o; do
	printf '%-28s HGMMA %5d  HMMA %5d  LDL/STL %d\n' "$(basename "$o")" \
		"$(cuobjdump --dump-sass "$o" | grep -c HGMMA)" \
		"$(cuobjdump --dump-sass "$o" | grep -c 'HMMA')" \
		"$(cuobjdump --dump-sass "$o" | grep -cE 'LDL|STL')"
done | tee "$OUT/sass.txt"
cuobjdump --dump-sass "$B/w256_store.o" > "$OUT/w256_store.sass" 2>&1

echo "== small checks"
timeout 60 "$B/gemm_small" 2>&1 | tee "$OUT/small.log" || { echo "small checks failed: stopping"; exit 1; }

if [ "${1:-}" != quick ]; then
	echo "== compute-sanitizer"
	timeout 90 compute-sanitizer --tool memcheck "$B/gemm_small" w256_store w256_tma w256_swiglu_tma a128_swiglu 2>&1 | tail -5 | tee "$OUT/memcheck.log"
	timeout 60 compute-sanitizer --tool racecheck "$B/gemm_small" w256_store w256_tma 2>&1 | tail -5 | tee "$OUT/racecheck.log"
fi

echo "== large checks and timing"
PYTHONUNBUFFERED=1 timeout 400 python3 tests/gpu/gemm_check.py --lib "$B/libplkgemm.so" \
	--out "$OUT/gemm_check.md" ${1:-} 2>&1 | tee "$OUT/gemm_check.log" || fail=1
exit $fail
