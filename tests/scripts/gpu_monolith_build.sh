#!/bin/bash
# tests/gpu/gemm_monolith.cu, the hand-written monolithic GEMMs that
# tests/gpu/run_gemm.sh builds and runs on a GPU host, calls the component
# entries directly: an entry that gains a parameter (tma_load_ab's M did)
# breaks it, and only a GPU run would notice. Each configuration of
# tests/gpu/configs.txt is compiled here by tests/gpu/monolith_cc.sh, as
# run_gemm.sh compiles it.
# Exit 0 pass, 1 fail, 77 skip.
. "$(dirname "$0")/common.bash"
case $B in *san*) echo "the monoliths' nvcc build runs once, with the plain build"; exit 77 ;; esac
need_nvcc
export NVCC
root=$(cd "$(dirname "$0")/../.." && pwd)
PLKC=$PLKC sh "$root/tests/gpu/headers.sh" "$tmp/include" || exit 1
fail=0 n=0
while read -r name cfg; do
	[ -n "$name" ] || continue
	# shellcheck disable=SC2086   # the configuration's fields, one argument each
	if ! "$root/tests/gpu/monolith_cc.sh" "$tmp/include" "$tmp/$name.o" "$name" $cfg >"$tmp/$name.log" 2>&1; then
		echo "FAIL $name:"; grep -m5 error "$tmp/$name.log" | sed 's/^/  /'; fail=1; continue
	fi
	n=$((n + 1))
done < <(grep -v '^#' "$root/tests/gpu/configs.txt")
[ $fail = 0 ] && echo "$n monolithic GEMM configurations build"
exit $fail
