#!/bin/bash
# Build host: links examples/ag_gemm.plk, examples/gemm_rs.plk, examples/attn_ring.plk (and
# examples/gemm.plk and attn_dense.plk, the same without the comm stage) for sm_90a into OUT/ for
# tests/gpu/comm_gpu.sh. Needs NVSHMEM's wheel (pip install
# nvidia-nvshmem-cu13) for plkc to build the comm stage.
#   bash tests/gpu/comm_prepare.sh [OUT]       (default .carry/comm)
cd "$(dirname "$0")/../.." || exit 1
OUT=${1:-.carry/comm}
PLKC=${PLKC:-$PWD/build/plkc}
mkdir -p "$OUT/lib" || exit 1
# OUT/lib: the same, linked with --engine-lib (NVSHMEM's device library in
# the link: docs/comm.md); run it as tests/gpu/comm_gpu.sh OUT/lib
for d in "$OUT" "$OUT/lib"; do
	flag=$([ "$d" = "$OUT/lib" ] && echo --engine-lib)
	for ex in ag_gemm gemm_rs gemm attn_ring attn_dense; do
		"$PLKC" "examples/$ex.plk" -arch sm_90a $flag -o "$d/$ex.cubin" || exit 1
	done
done
ls -l "$OUT" "$OUT/lib"
