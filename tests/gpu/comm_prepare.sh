#!/bin/bash
# Build host: links examples/ag_gemm.plk, examples/gemm_rs.plk, examples/attn_ring.plk (and
# examples/gemm.plk and attn_dense.plk, the same without the comm stage) for sm_90a into OUT/ for
# tests/gpu/comm_gpu.sh. Needs NVSHMEM's wheel (pip install
# nvidia-nvshmem-cu13) for plkc to build the comm stage.
#   bash tests/gpu/comm_prepare.sh [OUT]       (default .carry/comm)
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-.carry/comm}
PLKC=${PLKC:-$PWD/build/plkc}
mkdir -p "$OUT" || exit 1
"$PLKC" examples/ag_gemm.plk -arch sm_90a -o "$OUT/ag_gemm.cubin" || exit 1
"$PLKC" examples/gemm_rs.plk -arch sm_90a -o "$OUT/gemm_rs.cubin" || exit 1
"$PLKC" examples/gemm.plk -arch sm_90a -o "$OUT/gemm.cubin" || exit 1
"$PLKC" examples/attn_ring.plk -arch sm_90a -o "$OUT/attn_ring.cubin" || exit 1
"$PLKC" examples/attn_dense.plk -arch sm_90a -o "$OUT/attn_dense.cubin" || exit 1
ls -l "$OUT"
