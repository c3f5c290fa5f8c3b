#!/bin/bash
# Which kernel cuBLAS runs at a shape, and how it compares with a linked
# GEMM's pick, from Nsight Compute (one launch each, the 4th; clocks and
# caches left as they are). On the GPU host, from the repository root:
#   bash bench/ncu_gemm.sh CUBIN MxNxK ...      (CUBIN: a select such as gemm_auto)
# Per shape and kernel: its name, grid, block, cluster, registers, dynamic
# shared memory, duration, and the SMs' active cycles (min / mean / max of
# the elapsed cycles). cuBLAS may run two kernels (a split K and its
# reduction): both are listed. With the bytes read from DRAM and their
# rate over the kernel's duration (a weight-streaming kernel's figure of
# merit at small M).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
build_runtime || exit 1
cubin=$1
shift
metrics="gpu__time_duration.sum,launch__grid_size,launch__block_size,launch__cluster_dim_x,launch__cluster_dim_y,launch__registers_per_thread,launch__shared_mem_per_block_dynamic,gpc__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,dram__bytes_read.sum"
table() {   # table CSV SHAPE: one row per kernel profiled
	python3 - "$1" "$2" <<'PY'
import sys
sys.path.insert(0, "bench")
from ncu_csv import launches
for v in launches(sys.argv[1]):
    f = v.__getitem__   # f(metric): its value in base units, NaN if absent
    el = f("gpc__cycles_elapsed.max")
    us = f("gpu__time_duration.sum") / 1e3
    print("| %s | %s | %d | %d | %dx%d | %d | %d | %.1f | %.2f / %.2f / %.2f | %.0f | %.2f |" % (
        sys.argv[2], v.text("Kernel Name")[:60], f("launch__grid_size"), f("launch__block_size"),
        f("launch__cluster_dim_x"), f("launch__cluster_dim_y"), f("launch__registers_per_thread"),
        f("launch__shared_mem_per_block_dynamic"), f("gpu__time_duration.sum") / 1e3,
        f("sm__cycles_active.min") / el, f("sm__cycles_active.avg") / el, f("sm__cycles_active.max") / el,
        f("dram__bytes_read.sum") / 1e6, f("dram__bytes_read.sum") / us / 1e6))
PY
}
echo "| M x N x K | kernel | grid | block | cluster | regs | dyn smem | us | SM active min / mean / max | DRAM read MB | TB/s |"
echo "|---|---|---|---|---|---|---|---|---|---|---|"
for shape in "$@"; do
	IFS=x read -r m n k <<<"$shape"
	cublas_script "$O/cublas.py" "$m" "$n" "$k"
	# launches 5 and 6: two calls of one kernel, or one call's split K and reduction
	ncu --clock-control none --cache-control none -k "regex:gemm|nvjet|xmma|cutlass|splitK|reduce" --launch-skip 4 \
		--launch-count 2 --metrics "$metrics" --csv --page raw python3 "$O/cublas.py" >"$O/ncu_cublas_$shape.csv" \
		2>"$O/ncu_cublas_$shape.log" && table "$O/ncu_cublas_$shape.csv" "$shape" || tail -n 3 "$O/ncu_cublas_$shape.log"
	ncu --clock-control none --cache-control none --launch-skip 3 --launch-count 1 --metrics "$metrics" --csv --page raw \
		"$RUN" "$cubin" --manifest "${cubin%.cubin}.manifest.json" --dim M="$m" --dim N="$n" --dim K="$k" \
		--iters 1 --warmup 3 >"$O/ncu_linked_$shape.csv" 2>"$O/ncu_linked_$shape.log" &&
		table "$O/ncu_linked_$shape.csv" "$shape" || tail -n 3 "$O/ncu_linked_$shape.log"
done
