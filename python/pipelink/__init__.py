"""pipelink: kernels linked by plkc, called from PyTorch.

    import pipelink, torch
    k = pipelink.link("gemm_swiglu.plk", arch="sm_90a")   # plkc, cached
    k(A=a, W=w, Y=y)                                       # on torch's current stream
    swiglu = k.op("mylib::gemm_swiglu", outputs=["Y"])     # a torch custom op
    y = torch.compile(lambda a, w: swiglu(a, w), fullgraph=True)(a, w)

pipelink.attention(q, k, v, is_causal=True) runs the attention family
(docs/attention.md). pipelink.Comm initialises NVSHMEM for kernels with
a comm stage (docs/comm.md). pipelink.load(cubin) loads a kernel plkc linked before (its manifest
beside it). A Kernel is safe to call from several threads and streams at
once. Errors raise PlkError naming their cause. docs/python.md has a
worked example.
"""

from ._link import build, find_plkc, link, read_depfile
from ._attention import attention
from ._comm import Comm
from ._op import custom_op
from ._runtime import Kernel, PlkError, cuda_error_name, find_library, load

__version__ = "0.1.0"
__all__ = ["load", "link", "build", "custom_op", "attention", "Comm", "Kernel", "PlkError", "find_library", "find_plkc",
           "cuda_error_name", "read_depfile"]
