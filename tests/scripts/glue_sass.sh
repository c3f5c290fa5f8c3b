#!/bin/bash
# The linked attention kernels are their monoliths, instruction for
# instruction: the SASS plkc's link gives and that of one nvcc unit of
# the same sources (`--emit=monolith`) are the same once addresses and
# encodings are left out (bench/ptx_diff.py --sass; bench/results/
# 2026-12-04-glue-as-monolith.md). Five variants of the one core: three
# warpgroups at head dim 64 with the causal mask, the sliding window,
# the block-sparse iterator, the document mask with its LPT order, and
# causal at 176 keys, where the core fixes where the KV block's word is
# computed (2026-12-04-attention-linked-equals-monolith.md); and three
# that read ahead (AHEAD = 1: the core's `regs next` kept across calls,
# the loaders' item past the last): the document mask, block-sparse and
# causal at head dim 64. And two GEMMs: the skinny SwiGLU tiles
# (swiglu_skinny, W on wgmma's 64-row side, the transposed epilogue) and
# gemm_auto's 128 x 200 fours (B multicast across a 4 x 1 cluster: the
# relaxed cluster barrier at entry, the producer draining its ring at exit).
# Needs nvdisasm (the nvidia-cuda-nvdisasm wheel; .ci/run installs it).
# Exit 0 pass, 1 fail, 77 skip.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -x "$CUDA_HOME/bin/nvcc" ] || { echo "skip: no nvcc under $CUDA_HOME"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
NVD=$(python3 -c 'import sys; sys.path.insert(0, "bench"); from sass_loops import find_nvdisasm
print(find_nvdisasm(None))' 2>/dev/null)
[ -n "$NVD" ] || { echo "skip: no nvdisasm (pip install nvidia-cuda-nvdisasm)"; exit 77; }
export PATH="$CUDA_HOME/bin:$PATH"
python3 bench/ptx_diff.py --plkc "$PLKC" --sass "$NVD" --same attention/attn_causal_d64 \
	attention/attn_sliding_d128 attention/attn_block_sparse_d64 attention/attn_document_d128 \
	attention/attn_causal_d128_bn176 attn_ahead/attn_document_d64_ahead attn_ahead/attn_block_sparse_d64_ahead \
	attn_ahead/attn_causal_d64_ahead skinny_split/swiglu_skinny fours_width/gemm_n200_q4
