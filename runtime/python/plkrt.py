"""plkrt: call a kernel linked by plkc on torch tensors.

The ctypes layer is the pipelink package's (python/pipelink in this
repository, `pip install ./python`); this module keeps the name the
runtime's scripts and tests use:

    import plkrt
    k = plkrt.load("gemm.cubin")              # gemm.manifest.json beside it
    k(A=a, B=b, C=c)                          # M, N, K inferred from shapes
    k(A=a, B=b, C=c, stream=torch.cuda.Stream())

The library is found through $PLKRT_LIB, then beside the package, an
install prefix, build/runtime/libplkrt.so of this repository (what
`make -C runtime` builds), then the system's library path.
"""

import os
import sys

try:
    import pipelink
except ImportError:
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import pipelink

from pipelink import Kernel, PlkError, load  # noqa: E402,F401

__all__ = ["load", "Kernel", "PlkError"]
