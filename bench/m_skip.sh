#!/bin/bash
# Partial last tile rows at 256 < M < 512: bench/configs.py's set m_skip
# (the pingpong 128 x 128 tiles with A in one box and in two, the
# 128 x 256 tiles, gemm_auto's 64 x 256 pingpong tiles gemm_s256, and
# SwiGLU's three), each configuration against its monolith and cuBLAS
# (or cuBLAS + a compiled SwiGLU), each kernel checked against the fp32
# reference on a NaN-poisoned output before it is timed; and
# compute-sanitizer on gemm_s256 at a shape whose last tile row holds 44
# rows and whose K is no whole tiles. Two halves:
#
#   bash bench/m_skip.sh link      # build host: the set into .carry/ms
#   bash bench/m_skip.sh run       # GPU host: runtime, sanitizers, benchmark
cd "$(dirname "$0")/.." || exit 1
SET=m_skip D=.carry/ms MARK=s256.cubin
. bench/set_halves.bash "$1"
rc=0
bash bench/sanitize.sh "$D/s256.cubin" M=300 N=904 K=520 || rc=1
# 0.3 s of each kernel a row: 74 rows, about 2 minutes on an H100
python3 bench/linked_bench.py --dir "$D" --min-s 0.3 ${OUT:+--out "$OUT/m_skip.md"} || rc=1
exit $rc
