#!/bin/bash
# GPU host: the split-K variants of examples/gemm_auto.plk (issue 16).
#
#   [ONLY=VARIANT,...] bash tests/gpu/gemm_split.sh [DIR]   (default .carry/python, from tests/runtime/gpu_prepare.sh)
#
# Builds the runtime, runs tests/gpu/gemm_auto_check.py (every variant
# forced, the rule's picks, the split variants' repeat launches), then
# compute-sanitizer memcheck, racecheck and synccheck on each split
# variant, forced, at shapes whose K tiles split unevenly, and on the
# odd-width store (gemm_odd; the skinny ones store any N too), and
# gemm_swiglu_auto's skinny tiles (swiglu_skinny) (plk-run --check:
# written outputs, poisoned and run again, bit-identical). Exit 0: all passed.
cd "$(dirname "$0")/../.." || exit 1
D=${1:-.carry/python}
B=$PWD/build/runtime
make -s -C runtime B="$B" all || exit 1
export PLKRT_LIB="$B/libplkrt.so"
fail=0
timeout 300 python3 tests/gpu/gemm_auto_check.py "$D" || fail=1
for vs in "gemm_small_sk:M=33 N=776 K=520" "gemm_small_sk:M=16 N=4096 K=4104" \
	  "gemm_skinny:M=7 N=4095 K=4104" "gemm_skinny:M=16 N=776 K=520" "gemm_odd:M=300 N=1001 K=520" \
	  "swiglu_skinny:M=7 N=4104 K=4104" "swiglu_skinny:M=16 N=776 K=520"; do
	v=${vs%%:*}
	cubin=gemm_auto
	[[ $v == swiglu_* ]] && cubin=gemm_swiglu_auto
	[ -n "${ONLY:-}" ] && [[ ",$ONLY," != *",$v,"* ]] && continue
	for shape in "${vs#*:}"; do
		dims=$(for d in $shape; do printf -- '--dim %s ' "$d"; done)
		for tool in memcheck racecheck synccheck; do
			out=$(PLK_VARIANT=$v timeout 300 compute-sanitizer --tool $tool --report-api-errors no \
				"$B/plk-run" "$D/$cubin.cubin" $dims --check --iters 1 --warmup 0 2>&1)
			rc=$?
			sum=$(printf '%s\n' "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -n 1)
			echo "$v $shape $tool: rc $rc, $sum"
			[ $rc -eq 0 ] && printf '%s' "$sum" | grep -qE "(0 errors|0 hazards)" || { fail=1; printf '%s\n' "$out" | tail -n 20; }
		done
	done
done
[ $fail -eq 0 ] && echo "gemm_split: all passed" || echo "gemm_split: FAILED"
exit $fail
