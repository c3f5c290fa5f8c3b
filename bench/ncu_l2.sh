#!/bin/bash
# What a GEMM's loads ask of L2, from Nsight Compute: cuBLAS's kernel and
# a linked select's variants at each shape (one launch each: cuBLAS's
# 5th, ours the 4th; clocks and caches left as they are). On the GPU
# host, from the repository root:
#   bash bench/ncu_l2.sh CUBIN MxNxK[,MxNxK...] [VARIANT ...]
# Without VARIANTs the cubin runs as it is (a select: as its rule picks),
# rows named CUBIN; with them each is forced (PLK_VARIANT), rows named
# CUBIN:VARIANT. Per shape and kernel: duration, the L2 requests and
# sectors from the TEX unit (the TMA's and cp.async's loads come through
# it), sectors a request, and the bytes the crossbar carried into the SMs
# (of them multicast). Rows of K % 16 = 8 start mid-sector every other
# row (bench/results/2026-12-06-tma-rows-sectors.md): beside the same
# shape at a K of whole lines this says whether a kernel's requests grow
# with them or only its sectors. A metric this ncu does not have prints
# as "-" (each is checked against `ncu --query-metrics` first).
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
build_runtime || exit 1
[ $# -ge 2 ] || { echo "usage: bench/ncu_l2.sh CUBIN MxNxK[,MxNxK...] [VARIANT ...]" >&2; exit 2; }
cubin=$1
shapes=$2
shift 2
have=$(ncu_counters)
want=(gpu__time_duration lts__t_requests_srcunit_tex lts__t_sectors_srcunit_tex l1tex__m_xbar2l1tex_read_bytes
      l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld_dest_multicast)
metrics=""
for m in "${want[@]}"; do
	grep -qx "$m" <<<"$have" && metrics="$metrics${metrics:+,}$m.sum"
done
[ -n "$metrics" ] || { echo "ncu_l2: this ncu has none of ${want[*]}" >&2; exit 1; }
table() {   # table CSV SHAPE LABEL: one row per kernel profiled
	python3 - "$@" <<'PY'
import sys
sys.path.insert(0, "bench")
from ncu_csv import launches
for v in launches(sys.argv[1]):
    f = v.__getitem__   # f(metric): its value in base units, NaN if absent
    def cell(x, fmt):
        return "-" if x != x else fmt % x
    req, sec = f("lts__t_requests_srcunit_tex.sum"), f("lts__t_sectors_srcunit_tex.sum")
    print("| %s | %s | %s | %s | %s | %s | %s | %s |" % (
        sys.argv[2], sys.argv[3] or v.text("Kernel Name")[:50], cell(f("gpu__time_duration.sum") / 1e3, "%.1f"),
        cell(req / 1e6, "%.2f"), cell(sec / 1e6, "%.2f"), cell(sec / req if req else float("nan"), "%.2f"),
        cell(f("l1tex__m_xbar2l1tex_read_bytes.sum") / 1e6, "%.1f"),
        cell(f("l1tex__m_xbar2l1tex_read_bytes_mem_global_op_tma_ld_dest_multicast.sum") / 1e6, "%.1f")))
PY
}
echo "| M x N x K | kernel | us | L2 requests (M) | L2 sectors (M) | sectors / request | into the SMs MB | of it multicast MB |"
echo "|---|---|---|---|---|---|---|---|"
for shape in ${shapes//,/ }; do
	IFS=x read -r m n k <<<"$shape"
	cublas_script "$O/cublas.py" "$m" "$n" "$k"
	ncu --clock-control none --cache-control none -k "regex:gemm|nvjet|xmma|cutlass" --launch-skip 4 --launch-count 1 \
		--metrics "$metrics" --csv --page raw python3 "$O/cublas.py" >"$O/ncu_l2_cublas_$shape.csv" \
		2>"$O/ncu_l2_cublas_$shape.log" && table "$O/ncu_l2_cublas_$shape.csv" "$shape" "" ||
		tail -n 3 "$O/ncu_l2_cublas_$shape.log"
	for v in "${@:-}"; do
		out="$O/ncu_l2_${v:-rule}_$shape"
		env ${v:+PLK_VARIANT=$v} ncu --clock-control none --cache-control none --launch-skip 3 --launch-count 1 \
			--metrics "$metrics" --csv --page raw "$RUN" "$cubin" --manifest "${cubin%.cubin}.manifest.json" \
			--dim M="$m" --dim N="$n" --dim K="$k" --iters 1 --warmup 3 >"$out.csv" 2>"$out.log" &&
			table "$out.csv" "$shape" "$(basename "$cubin" .cubin)${v:+:$v}" || tail -n 3 "$out.log"
	done
done
