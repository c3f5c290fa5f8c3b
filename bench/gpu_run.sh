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
#   6. bench/ab_bench.py: cooperative vs pingpong variants in one row.
# Logs go to $OUT (or build/gpu-out). Prints a summary last. The pingpong
# lanes' own session is bench/gpu_lanes.sh.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
nvidia-smi -L
build_runtime || exit 1

step link-compositions bash tests/link/gpu_run.sh .carry/linktest
step runtime-gpu bash tests/runtime/gpu_all.sh build/runtime-gpu

B=.carry/bench
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
PLK_MAX_BLOCKS=2 TO=120 step sanitize-bias-gelu-pingpong sanitize bias_gelu_pingpong_128x128 M=384 N=640 K=512

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

finish
