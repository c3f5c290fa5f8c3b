#!/bin/bash
# Build host, before the GPU session: links what the runtime's GPU tests
# need from plkc into .carry/python (carried to the GPU host with the
# tree): the GEMM + SwiGLU of examples/gemm_swiglu.plk for
# tests/runtime/gpu_python.py, and the selects examples/gemm_auto.plk and
# examples/gemm_swiglu_auto.plk (one cubin of two variants each) for
# tests/gpu/gemm_auto_check.py, and tests/cli/manifest_int64.plk for
# tests/gpu/wide.py.
#
#   bash tests/runtime/gpu_prepare.sh [BUILD_DIR]      (default build)
cd "$(dirname "$0")/../.." || exit 1
B=${1:-build}
out=.carry/python
mkdir -p "$out" || exit 1
"$B/plkc" examples/gemm_swiglu.plk -arch sm_90a -o "$out/gemm_swiglu.cubin" || exit 1
for k in gemm_auto gemm_swiglu_auto; do
	"$B/plkc" "examples/$k.plk" -arch sm_90a -o "$out/$k.cubin" || exit 1
done
"$B/plkc" tests/cli/manifest_int64.plk -arch sm_90a -o "$out/wide.cubin" || exit 1
ls -l "$out"/wide.cubin "$out"/gemm_swiglu.cubin "$out"/gemm_swiglu.manifest.json "$out"/gemm_auto.* "$out"/gemm_swiglu_auto.*
