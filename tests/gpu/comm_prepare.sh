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
		# attn_dense: its 128-key variant, attn_ring's core without the comm stage
		k=$([ $ex = attn_dense ] && echo "--kernel attn_dense_bn128")
		"$PLKC" "examples/$ex.plk" -arch sm_90a $flag $k -o "$d/$ex.cubin" || exit 1
	done
done
ls -l "$OUT" "$OUT/lib"
