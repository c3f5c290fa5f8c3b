#!/bin/bash
# A's tile in boxes, those wholly past M not loaded (tma_load_ab ABOXES,
# docs/components.md "A in boxes"): bench/configs.py's set a_boxes,
# each configuration against its monolith and cuBLAS (bench/linked_bench.py:
# every kernel checked against the fp32 reference on a NaN-poisoned
# output before it is timed; gemm_pp_ef with CH = 128 among them, the
# other suspect), the TMA alone on boxes past the tensor, loaded and
# stored (bench/probes/tma_rows.cu oob), and compute-sanitizer on the
# boxes at a shape whose last tile row is partial. Two halves:
#
#   bash bench/a_boxes.sh link      # build host: the set into .carry/ab
#   bash bench/a_boxes.sh run       # GPU host: runtime, probe, sanitizers, benchmark
cd "$(dirname "$0")/.." || exit 1
SET=a_boxes D=.carry/ab MARK=pp_ef_a8.cubin
. bench/set_halves.bash "$1"
mkdir -p build || exit 1
nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -o build/tma_rows bench/probes/tma_rows.cu || exit 1
build/tma_rows 4000 oob || exit 1
rc=0
# 1100 = 8 tile rows + 76: 5 of 8 boxes of the last loaded
bash bench/sanitize.sh "$D/pp_ef_a8.cubin" M=1100 N=904 K=520 || rc=1
# 0.3 s of each kernel a row: 13 shapes x 8 configurations in about 3 minutes
python3 bench/linked_bench.py --dir "$D" --min-s 0.3 ${OUT:+--out "$OUT/a_boxes.md"} || rc=1
exit $rc
