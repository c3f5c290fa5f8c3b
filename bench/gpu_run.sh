#!/bin/bash
# The GPU session, on the H200 from the repository root, after the build
# host ran:
#   python3 bench/prepare.py                                   (-> .carry/bench)
#   PLK_GPU_OUT=$PWD/.carry/linktest tests/scripts/link_compositions.sh build
# It builds the runtime, then:
#   1. the tests/link compositions (two and three components), linked and
#      monolithic, against their host reference; compute-sanitizer
#      memcheck, racecheck and synccheck on the linked ones;
#   2. the runtime's own GPU tests;
#   3. compute-sanitizer memcheck and racecheck on one linked kernel of each
#      example composition (plk-run --check, small shapes; the cluster
#      multicast and pingpong ones under a timeout, where a deadlock would
#      show);
#   4. the SASS of the linked GEMM: HGMMA present;
#   5. bench/linked_bench.py: correctness and linked vs monolithic vs baseline;
#   6. bench/ab_bench.py: cooperative vs pingpong variants in one row;
#   7. with `python3 bench/prepare.py --set lanes --out .carry/lanes` done
#      too: the lanes set (3 and 4 lanes, lanes on the sm_80 path) under
#      memcheck and racecheck, its correctness and timings, and the turn
#      handed off by the mainloop against the turn passed on its return
#      (ab_bench), with the SM clock and power sampled meanwhile.
# Logs go to $OUT (or build/gpu-out). Prints a summary last.
set -u
cd "$(dirname "$0")/.." || exit 1
O=${OUT:-build/gpu-out}
mkdir -p "$O"
CUDA=${CUDA_HOME:-/usr/local/cuda}
CS=$CUDA/bin/compute-sanitizer
export PATH="$CUDA/bin:$PATH"
summary=()
failed=0
step() {   # step NAME CMD...: runs CMD, log in $O/NAME.log
	local name=$1
	shift
	local t0=$SECONDS
	"$@" >"$O/$name.log" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || failed=1
	summary+=("$(printf '%-28s %s (%ds)' "$name" "$([ $rc -eq 0 ] && echo ok || echo "FAIL rc=$rc")" $((SECONDS - t0)))")
	tail -n 3 "$O/$name.log"
	return $rc
}

nvidia-smi -L
make -s -C runtime all >"$O/runtime-build.log" 2>&1 || { cat "$O/runtime-build.log"; exit 1; }
RUN=build/runtime/plk-run

step link-compositions bash tests/link/gpu_run.sh .carry/linktest
step runtime-gpu bash tests/runtime/gpu_all.sh build/runtime-gpu

B=.carry/bench
sanitize() {   # [TO=SECONDS] [B=DIR] sanitize CONFIG DIMS...
	local cfg=$1
	shift
	local dims=()
	for d in "$@"; do dims+=(--dim "$d"); done
	for tool in memcheck racecheck; do
		${TO:+timeout $TO} "$CS" --tool $tool --report-api-errors no --error-exitcode 9 "$RUN" "$B/$cfg.cubin" --manifest "$B/$cfg.manifest.json" \
			"${dims[@]}" --iters 1 --warmup 0 --check || return 1
	done
}
step sanitize-gemm sanitize gemm_128x256 M=256 N=512 K=256
step sanitize-swiglu-tma sanitize swiglu_tma_128x256 M=256 N=256 K=256
step sanitize-bias-gelu sanitize bias_gelu_128x256 M=256 N=512 K=256
step sanitize-bias-gelu-regs sanitize bias_gelu_regs_128x256 M=256 N=512 K=256
step sanitize-sm80-swiglu sanitize sm80_swiglu_128x128 M=256 N=128 K=256
# B multicast across a CTA pair; M = 384: three tile rows, so the last pair's
# second CTA computes a tile past M. A deadlock shows as the timeout.
TO=120 step sanitize-gemm-mcast sanitize gemm_mcast_128x256 M=384 N=512 K=256
TO=120 step sanitize-swiglu-mcast sanitize swiglu_mcast_128x256 M=256 N=256 K=256
# Pingpong lanes: two blocks only (PLK_MAX_BLOCKS), so that each lane takes
# several tiles and skips the other's slots; 3 x 5 tiles: the lanes of one
# block get different numbers of tiles.
PLK_MAX_BLOCKS=2 TO=120 step sanitize-gemm-pingpong sanitize gemm_pingpong_128x128 M=384 N=640 K=512
PLK_MAX_BLOCKS=2 TO=120 step sanitize-swiglu-pingpong sanitize swiglu_pingpong_128x128 M=384 N=320 K=512

sass() {
	cuobjdump -sass "$B/gemm_128x256.cubin" >"$O/gemm_128x256.sass" || return 1
	local n
	n=$(grep -c HGMMA "$O/gemm_128x256.sass")
	echo "HGMMA instructions in the linked GEMM: $n"
	grep -m1 -o 'HGMMA\.[^ ]*' "$O/gemm_128x256.sass"
	[ "$n" -gt 0 ]
}
step sass-hgmma sass

step linked-bench env PYTHONUNBUFFERED=1 python3 bench/linked_bench.py --dir $B --out "$O/linked_vs_monolith.md"
# the cooperative tiles against the pingpong lanes, side by side in one row
step ab-bench env PYTHONUNBUFFERED=1 python3 bench/ab_bench.py --dir $B --out "$O/ab.md" \
	gemm_128x256:gemm_pingpong_128x128 swiglu_tma_128x256:swiglu_pingpong_128x128 \
	bias_gelu_128x256:bias_gelu_pingpong_128x128
cat "$O/linked_vs_monolith.md" "$O/ab.md" 2>/dev/null

L=.carry/lanes
if [ -f $L/configs.json ]; then
	# 64 x 128 tiles: 6 x 5 of them over 2 blocks of 3 or 4 lanes
	B=$L PLK_MAX_BLOCKS=2 TO=120 step sanitize-gemm-3-lanes sanitize gemm_pingpong3_64x128 M=384 N=640 K=512
	B=$L PLK_MAX_BLOCKS=2 TO=120 step sanitize-gemm-4-lanes sanitize gemm_pingpong4_64x128 M=384 N=640 K=512
	# 2 x 2 tiles over one block: each sm_80 lane takes two and skips two
	B=$L PLK_MAX_BLOCKS=1 TO=300 step sanitize-sm80-lanes sanitize sm80_swiglu_pingpong M=256 N=128 K=128
	nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 250 \
		>"$O/clocks.csv" 2>&1 &
	smi=$!
	step lanes-bench env PYTHONUNBUFFERED=1 python3 bench/linked_bench.py --dir $L --out "$O/lanes.md"
	step turn-ab env PYTHONUNBUFFERED=1 python3 bench/ab_bench.py --dir $L --out "$O/turn_ab.md" \
		gemm_pingpong_late:gemm_pingpong_128x128 swiglu_pingpong_late:swiglu_pingpong_128x128
	kill $smi
	cat "$O/lanes.md" "$O/turn_ab.md" 2>/dev/null
fi
echo
printf '%s\n' "${summary[@]}"
exit $failed
