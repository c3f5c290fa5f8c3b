#!/bin/bash
# The glue says what the monolith's C says: for configurations whose
# linked SASS equals their monolith's (bench/results/2026-12-04-glue-as-
# monolith.md, -split-stream-as-monolith.md), the PTX plkc links and
# `nvcc -ptx` of `--emit=monolith` are the same text once register
# numbers and labels are left out (bench/ptx_diff.py): a GEMM, B
# multicast, pingpong lanes (2 and 3), the sm_80 path, and lanes in 4 x 1
# clusters (-misaligned-fours.md). Not stream-K since its schedule moved
# into one helper both call (plk_glue_stream_seg, 2026-12-04): two lines
# of the loader's ring advance (a selp and an xor) come out in the other
# order, the rest the same.
# A glue or monolith.c change that parts them fails here, without a GPU.
# Exit 0 pass, 1 fail, 77 skip.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -x "$CUDA_HOME/bin/nvcc" ] || { echo "skip: no nvcc under $CUDA_HOME"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
export PATH="$CUDA_HOME/bin:$PATH"
python3 bench/ptx_diff.py --plkc "$PLKC" --same main/gemm_128x256 main/gemm_mcast_128x256 \
	main/gemm_pingpong_128x128 main/sm80_swiglu_128x128 lanes/gemm_pingpong3_64x128 \
	misaligned_fours/gemm_pp_f4
