#!/bin/bash
# Compiles tests/gpu/gemm_monolith.cu for one line of tests/gpu/configs.txt
# (its fields, in its order) into OUT.o; extra arguments go to nvcc.
#
#   tests/gpu/monolith_cc.sh INCLUDE_DIR OUT.o NAME MAIN EPI BM BN BK WG STAGES GROUP CH [NVCC ARGS...]
#
# INCLUDE_DIR holds the components' headers (tests/gpu/headers.sh).
# tests/gpu/run_gemm.sh builds every configuration with it on the GPU
# host, tests/scripts/gpu_monolith_build.sh on the build host. nvcc:
# $NVCC, else the one on PATH.
root=$(cd "$(dirname "$0")/../.." && pwd)
inc=$1 out=$2 name=$3 main=$4 epi=$5 bm=$6 bn=$7 bk=$8 wg=$9 st=${10} g=${11} ch=${12}
shift 12 || { echo "usage: $0 INCLUDE_DIR OUT.o NAME MAIN EPI BM BN BK WG STAGES GROUP CH [NVCC ARGS...]" >&2; exit 2; }
exec "${NVCC:-nvcc}" -c -O3 -gencode arch=compute_90a,code=sm_90a "$@" -I"$root/stdlib" -I"$inc" \
	-DCFG_NAME="$name" -DCFG_MAIN="$main" -DCFG_EPI="$epi" -DCFG_BM="$bm" -DCFG_BN="$bn" -DCFG_BK="$bk" \
	-DCFG_WG="$wg" -DCFG_STAGES="$st" -DCFG_GROUP="$g" -DCFG_CH="$ch" \
	"$root/tests/gpu/gemm_monolith.cu" -o "$out"
