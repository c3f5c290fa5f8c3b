#!/bin/bash
# tests/gpu/gemm_monolith.cu, the hand-written monolithic GEMMs that
# tests/gpu/run_gemm.sh builds and runs on a GPU host, calls the component
# entries directly: an entry that gains a parameter (tma_load_ab's M did)
# breaks it, and only a GPU run would notice. Each configuration of
# tests/gpu/configs.txt is compiled here as run_gemm.sh compiles it.
# Exit 0 pass, 1 fail, 77 skip.
. "$(dirname "$0")/common.bash"
case $B in *san*) echo "the monoliths' nvcc build runs once, with the plain build"; exit 77 ;; esac
need_nvcc
NVCC=$(command -v nvcc || echo "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc")
root=$(cd "$(dirname "$0")/../.." && pwd)
PLKC=$PLKC sh "$root/tests/gpu/headers.sh" "$tmp/include" || exit 1
fail=0 n=0
while read -r name main epi bm bn bk wg st g ch; do
	[ -n "$name" ] || continue
	if ! "$NVCC" -c -O3 -gencode arch=compute_90a,code=sm_90a -I"$root/stdlib" -I"$tmp/include" \
		-DCFG_NAME="$name" -DCFG_MAIN="$main" -DCFG_EPI="$epi" -DCFG_BM="$bm" -DCFG_BN="$bn" -DCFG_BK="$bk" \
		-DCFG_WG="$wg" -DCFG_STAGES="$st" -DCFG_GROUP="$g" -DCFG_CH="$ch" \
		"$root/tests/gpu/gemm_monolith.cu" -o "$tmp/$name.o" >"$tmp/$name.log" 2>&1; then
		echo "FAIL $name:"; grep -m5 error "$tmp/$name.log" | sed 's/^/  /'; fail=1; continue
	fi
	n=$((n + 1))
done < <(grep -v '^#' "$root/tests/gpu/configs.txt")
[ $fail = 0 ] && echo "$n monolithic GEMM configurations build"
exit $fail
