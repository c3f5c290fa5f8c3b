#!/bin/bash
# Where a kernel's cycles go, from the hardware counters (Nsight Compute),
# on the GPU host from the repository root:
#   [DIR=CUBINS] bash bench/profile.sh CONFIG[.mono]:MxNxK ...    (default CUBINS .carry/bench)
# One launch of each linked kernel (the 4th, after 3 warm-up ones; caches
# and clocks left as they are) and of cuBLAS on the GEMM of the first
# SwiGLU shape given. Per kernel: elapsed cycles, the SMs' active cycles
# (min / mean / max over the 132 SMs: a max above the mean is work
# imbalance, an idle tail), the tensor pipe's active share of the active
# cycles, DRAM and L2 bytes, instructions executed and shared-memory bank
# conflicts. CONFIG.mono profiles the configuration's monolith.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
B=${DIR:-.carry/bench}   # not B: the runtime's Makefile reads B from the environment
build_runtime || exit 1
# Counter names differ between ncu versions: take the ones this one has
# (gpu_lib.sh).
have=$(ncu_counters)
tensor=$(tensor_counter "$have")
metrics="gpc__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,dram__bytes_read.sum,dram__bytes_write.sum,lts__t_bytes.sum"
[ -n "$tensor" ] && metrics="$metrics,$tensor.avg.pct_of_peak_sustained_active,$tensor.max,$tensor.min"
for extra in smsp__inst_executed l1tex__data_bank_conflicts_pipe_lsu_mem_shared; do
	grep -qx "$extra" <<<"$have" && metrics="$metrics,$extra.sum"
done
prof() {   # [KSEL="-k regex:RE"] prof NAME CMD...: one table row for the 4th matching launch
	local name=$1
	shift
	ncu --clock-control none --cache-control none ${KSEL:-} --launch-skip 3 --launch-count 1 \
		--metrics "$metrics" --csv --page raw "$@" >"$O/ncu_$name.csv" 2>"$O/ncu_$name.log" || {
		tail -n 5 "$O/ncu_$name.log"; return 1; }
	python3 - "$O/ncu_$name.csv" "$name" "$tensor" <<'PY'
import sys
sys.path.insert(0, "bench")
from ncu_csv import Launch, launches
v = (launches(sys.argv[1]) or [Launch({}, {})])[-1]
f = v.__getitem__   # f(metric): its value in base units, NaN if absent
t = sys.argv[3]
el, mn, av, mx = (f("gpc__cycles_elapsed.max"), f("sm__cycles_active.min"),
                  f("sm__cycles_active.avg"), f("sm__cycles_active.max"))
print("| %s | %.0f | %.3f / %.3f / %.3f | %.1f%% | %.3f | %.1f / %.1f | %.2f | %.2f | %.3f | %.1f |" % (
    sys.argv[2], el, mn / el, av / el, mx / el,
    f(t + ".avg.pct_of_peak_sustained_active") if t else float("nan"),
    (f(t + ".max") - f(t + ".min")) / f(t + ".max") if t else float("nan"),
    f("dram__bytes_read.sum") / 1e9, f("dram__bytes_write.sum") / 1e9, f("lts__t_bytes.sum") / 1e9,
    av / mx, f("smsp__inst_executed.sum") / 1e9,
    f("l1tex__data_bank_conflicts_pipe_lsu_mem_shared.sum") / 1e6))
PY
}
echo "tensor pipe counter: ${tensor:-none found}"
echo
echo "| kernel | elapsed cycles | SM active / elapsed: min / mean / max | tensor active (of active) | tensor cycles (max-min)/max | DRAM read / write GB | L2 GB | mean / max active | instructions (G) | smem bank conflicts (M) |"
echo "|---|---|---|---|---|---|---|---|---|---|"
first=
for spec in "$@"; do
	cfg=${spec%%:*}
	IFS=x read -r m n k <<<"${spec#*:}"
	[ -z "$first" ] && first="$m $n $k"
	# CONFIG.mono: the configuration's monolith, with the same manifest
	prof "${cfg}_${m}x${n}x${k}" build/runtime/plk-run "$B/$cfg.cubin" --manifest "$B/${cfg%.mono}.manifest.json" \
		--dim M="$m" --dim N="$n" --dim K="$k" --iters 1 --warmup 3
done
read -r m n k <<<"$first"
cat >"$O/cublas.py" <<PY
import torch
a = torch.randn($m, $k, device="cuda", dtype=torch.bfloat16)
b = torch.randn(2 * $n, $k, device="cuda", dtype=torch.bfloat16)
for _ in range(5):
    c = a @ b.t()
torch.cuda.synchronize()
PY
KSEL="-k regex:gemm|nvjet|xmma|cutlass" prof "cublas_${m}x$((2 * n))x${k}" python3 "$O/cublas.py"
