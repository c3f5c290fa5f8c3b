#!/bin/bash
# compute-sanitizer's memcheck, racecheck and synccheck on one cubin at
# one shape (plk-run --check: the result checked too), on 4 blocks so
# that the tools finish; the GPU host's halves of bench/a_boxes.sh and
# bench/m_skip.sh call it. Logs go to build/sanitize_NAME_TOOL.txt.
#
#   bash bench/sanitize.sh DIR/NAME.cubin M=... N=... K=...
# Exit 0 when every tool reports no error.
cubin=$1; shift
name=$(basename "$cubin" .cubin)
dims=(); for d in "$@"; do dims+=(--dim "$d"); done
mkdir -p build || exit 1
rc=0
for t in memcheck racecheck synccheck; do
	log=build/sanitize_${name}_$t.txt
	PLK_MAX_BLOCKS=4 compute-sanitizer --tool $t --error-exitcode 9 build/runtime/plk-run "$cubin" \
		--manifest "${cubin%.cubin}.manifest.json" "${dims[@]}" --check --iters 1 --warmup 0 >"$log" 2>&1
	r=$?
	echo "$name $t: exit $r, $(grep -m1 'ERROR SUMMARY' "$log")"
	[ $r = 0 ] || { tail -20 "$log"; rc=1; }
done
exit $rc
