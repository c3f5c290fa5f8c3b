#!/bin/bash
# The pingpong lanes' GPU session, on the H200 from the repository root,
# after the build host ran
#   python3 bench/prepare.py --set lanes --out .carry/lanes
# It builds the runtime, then:
#   1. compute-sanitizer memcheck and racecheck on 3 and 4 lanes (64 x 128
#      tiles) and on lanes of the sm_80 path, each on few blocks
#      (PLK_MAX_BLOCKS) so that every lane takes and skips several tiles;
#   2. bench/linked_bench.py over the set: correctness, linked vs
#      monolithic, baseline;
#   3. bench/ab_bench.py: the turn passed by the glue when the mainloop
#      returns (`_late`) against the mainloop's TURN 2, 1, 0, in one row;
#   4. the SM clock and power, sampled every 250 ms through 2 and 3
#      (clocks.csv).
# Logs go to $OUT (or build/gpu-out); a summary last.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
nvidia-smi -L
build_runtime || exit 1
B=.carry/lanes

# 64 x 128 tiles: 6 x 5 of them over 2 blocks of 3 or 4 lanes
PLK_MAX_BLOCKS=2 TO=120 step sanitize-gemm-3-lanes sanitize gemm_pingpong3_64x128 M=384 N=640 K=512
PLK_MAX_BLOCKS=2 TO=120 step sanitize-gemm-4-lanes sanitize gemm_pingpong4_64x128 M=384 N=640 K=512
# 2 x 2 tiles over one block: each sm_80 lane takes two and skips two
PLK_MAX_BLOCKS=1 TO=300 step sanitize-sm80-lanes sanitize sm80_swiglu_pingpong M=256 N=128 K=128

nvidia-smi --query-gpu=timestamp,clocks.sm,power.draw,temperature.gpu --format=csv,noheader -lms 250 \
	>"$O/clocks.csv" 2>&1 &
smi=$!
step lanes-bench timeout 240 env PYTHONUNBUFFERED=1 python3 bench/linked_bench.py --dir $B --out "$O/lanes.md"
step turn-ab timeout 180 env PYTHONUNBUFFERED=1 python3 bench/ab_bench.py --dir $B --out "$O/turn_ab.md" \
	gemm_pingpong_late:gemm_pingpong_t2 gemm_pingpong_late:gemm_pingpong_t1 gemm_pingpong_late:gemm_pingpong_t0 \
	swiglu_pingpong_late:swiglu_pingpong_t2 swiglu_pingpong_late:swiglu_pingpong_t1 \
	swiglu_pingpong_late:swiglu_pingpong_t0
kill $smi
cat "$O/lanes.md" "$O/turn_ab.md" 2>/dev/null
finish
