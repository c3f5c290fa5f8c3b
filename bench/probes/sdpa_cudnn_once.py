"""Runs cuDNN's (or flash's) SDPA a few times at one shape, for a profiler
to pick one launch: python3 bench/probes/sdpa_cudnn_once.py [B H SQ HD] [flash]"""
import sys
import torch
import torch.nn.functional as F
from torch.nn.attention import sdpa_kernel, SDPBackend

B, H, S, D = (int(x) for x in sys.argv[1:5]) if len(sys.argv) >= 5 else (2, 16, 8192, 128)
backend = SDPBackend.FLASH_ATTENTION if "flash" in sys.argv else SDPBackend.CUDNN_ATTENTION
q, k, v = (torch.randn(B, H, S, D, device="cuda", dtype=torch.bfloat16) for _ in range(3))
with sdpa_kernel(backend):
    for _ in range(4):
        F.scaled_dot_product_attention(q, k, v)
torch.cuda.synchronize()
