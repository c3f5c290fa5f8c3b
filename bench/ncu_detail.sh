#!/bin/bash
# Nsight Compute's details of cuBLAS's kernel and a linked GEMM's pick at
# one shape, side by side: speed of light, memory workload (with its
# tables), scheduler and warp-state statistics (one launch each, the
# 4th; clocks and caches left as they are). On the GPU host, from the
# repository root:
#   bash bench/ncu_detail.sh CUBIN MxNxK [CUBLAS_N]
# CUBLAS_N: cuBLAS's N when it differs (a SwiGLU select at N is cuBLAS's
# GEMM at 2N). Writes $O/ncu_detail_{cublas,linked}.txt and prints both.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
build_runtime || exit 1
cubin=$1
IFS=x read -r m n k <<<"$2"
cn=${3:-$n}
sections=(--section SpeedOfLight --section MemoryWorkloadAnalysis --section MemoryWorkloadAnalysis_Tables
          --section SchedulerStats --section WarpStateStats --section LaunchStats --print-details all)
cublas_script "$O/cublas_detail.py" "$m" "$cn" "$k"
ncu --clock-control none --cache-control none -k "regex:gemm|nvjet|xmma|cutlass" --launch-skip 4 --launch-count 1 \
	"${sections[@]}" python3 "$O/cublas_detail.py" >"$O/ncu_detail_cublas.txt" 2>&1
ncu --clock-control none --cache-control none --launch-skip 3 --launch-count 1 "${sections[@]}" \
	"$RUN" "$cubin" --manifest "${cubin%.cubin}.manifest.json" --dim M="$m" --dim N="$n" --dim K="$k" \
	--iters 1 --warmup 3 >"$O/ncu_detail_linked.txt" 2>&1
for f in cublas linked; do
	echo "=== $f (${m}x$([ $f = cublas ] && echo "$cn" || echo "$n")x$k)"
	grep -v "^==PROF==\|^    ---" "$O/ncu_detail_$f.txt" | grep -A 400 -m 1 "Section:" | head -n 160
done
