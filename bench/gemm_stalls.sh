#!/bin/bash
# Where a GEMM's warps stall, instruction by instruction (Nsight Compute's
# warp state sampling), beside cuBLAS's at the same shape. On the GPU
# host, from the repository root:
#   bash bench/gemm_stalls.sh DIR CONFIG:MxNxK ...
# CONFIG: a configuration of DIR (DIR/CONFIG.cubin and its manifest; a
# select's variant as NAME@VARIANT, forced through PLK_VARIANT), or
# `cublas` (torch's bf16 GEMM). One launch each (the 4th), clocks and
# caches as they are, with the SourceCounters and WarpStateStats sections;
# the SASS page of each report goes to $O/stalls_NAME.csv and
# $O/gemm_stalls.md gets bench/stall_summary.py's table of it. The
# question: do the consumers wait for data (the ab ring's full barriers),
# the producers for slots (its empty barriers), or the tensor pipe?
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
build_runtime || exit 1
D=$1
shift
: >"$O/gemm_stalls.md"
for a in "$@"; do
	cfg=${a%%:*} shape=${a#*:}
	IFS=x read -r m n k <<<"$shape"
	name="${cfg//@/_}_$shape"
	sec=(--section SourceCounters --section WarpStateStats --section SpeedOfLight)
	if [ "$cfg" = cublas ]; then
		cublas_script "$O/cublas_$shape.py" "$m" "$n" "$k"
		cmd=(ncu --clock-control none --cache-control none -k "regex:gemm|nvjet|xmma|cutlass" --launch-skip 4
		     --launch-count 1 "${sec[@]}" -f -o "$O/stalls_$name" python3 "$O/cublas_$shape.py")
	else
		base=${cfg%@*} var=
		[ "$base" = "$cfg" ] || var=${cfg#*@}
		cmd=(env ${var:+PLK_VARIANT=$var} ncu --clock-control none --cache-control none --launch-skip 3
		     --launch-count 1 "${sec[@]}" -f -o "$O/stalls_$name" "$RUN" "$D/$base.cubin"
		     --manifest "$D/$base.manifest.json" --dim M="$m" --dim N="$n" --dim K="$k" --iters 1 --warmup 3)
	fi
	"${cmd[@]}" >"$O/ncu_stalls_$name.log" 2>&1 || { tail -n 5 "$O/ncu_stalls_$name.log"; failed=1; continue; }
	ncu -i "$O/stalls_$name.ncu-rep" --page source --print-source sass --csv >"$O/stalls_$name.csv" \
		2>>"$O/ncu_stalls_$name.log" || { tail -n 5 "$O/ncu_stalls_$name.log"; failed=1; continue; }
	ncu -i "$O/stalls_$name.ncu-rep" --print-details all 2>/dev/null |
		grep -E "Duration|Elapsed Cycles|SM Active Cycles|Compute \(SM\) Throughput|Memory Throughput|Warp Cycles Per Issued|Avg. Active Threads" |
		sed "s/^/[$name] /" >>"$O/gemm_stalls.md"
	python3 bench/stall_summary.py "$O/stalls_$name.csv" "$name" >>"$O/gemm_stalls.md"
done
cat "$O/gemm_stalls.md"
exit $failed
