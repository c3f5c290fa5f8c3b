"""plkrt.py's call path against the mock libcuda and fake_torch (run by
tests/scripts/runtime_mock.sh): binding by name and position, shape
inference, scalars, every argument check, and the emulated kernels'
results."""

import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "fake_torch"))
sys.path.insert(0, os.path.join(HERE, "..", "..", "runtime", "python"))
import plkrt  # noqa: E402
import torch  # noqa: E402  (the fake)

W = sys.argv[1]


def bf16(x):   # exact for small integers
    import struct
    return struct.unpack("<I", struct.pack("<f", float(x)))[0] >> 16


def expect_error(fragment, fn, *a, **kw):
    try:
        fn(*a, **kw)
    except plkrt.PlkError as e:
        assert fragment in str(e), f"error lacks {fragment!r}: {e}"
        return
    raise AssertionError(f"no error (wanted {fragment!r})")


k = plkrt.load(os.path.join(W, "k.cubin"))
M, K = 200, 72
a = torch.Tensor((M, K), torch.bfloat16).fill([bf16(i % 7) for i in range(M * K)])
out = torch.Tensor((M, K), torch.bfloat16).fill([0xFFFF] * (M * K))
k(A=a, Out=out, alpha=2.0)
assert out.values() == [bf16(2 * (i % 7)) for i in range(M * K)]
out.fill([0xFFFF] * (M * K))
k(a, out, alpha=-1.0)
assert out.values() == [bf16(-1.0 * (i % 7)) for i in range(M * K)]   # -0.0 for 0
grid, block, cluster, smem, work = k.launch_shape()
assert (grid, block, cluster, smem, work) == ((4, 1, 1), (128, 1, 1), (1, 1, 1), 81920, 2 * 2), k.launch_shape()

expect_error("tensor A is torch.float16; the kernel takes bf16", k, A=torch.Tensor((M, K), torch.float16), Out=out,
             alpha=1.0)
expect_error("is not contiguous", k, A=torch.Tensor((M, K), torch.bfloat16, contiguous=False), Out=out, alpha=1.0)
expect_error("it must be on a CUDA device", k, A=torch.Tensor((M, K), torch.bfloat16, on_cuda=False), Out=out,
             alpha=1.0)
expect_error("must be a torch.Tensor, not list", k, A=[1, 2], Out=out, alpha=1.0)
expect_error("has shape (200,); the kernel takes [M, K]", k, A=torch.Tensor((M,), torch.bfloat16), Out=out, alpha=1.0)
expect_error("tensor Out: dim 1 (K) is 64, but tensor A has K = 72", k, A=a, Out=torch.Tensor((M, 64), torch.bfloat16),
             alpha=1.0)
expect_error("tensor A: dim 0 (M) is 200, but M = 100 was given", k, A=a, Out=out, alpha=1.0, M=100)
expect_error("parameter alpha (f32) has no value", k, A=a, Out=out)
expect_error("missing tensor(s) Out", k, A=a, alpha=1.0)
expect_error("tensor A given both by position and by name", k, a, A=a, Out=out, alpha=1.0)
expect_error("3 positional tensors; the kernel has 2", k, a, out, a, alpha=1.0)
expect_error("unknown argument 'beta'; it takes A, Out, M, K, alpha", k, A=a, Out=out, alpha=1.0, beta=2)
odd = torch.Tensor((64, 100), torch.bfloat16)
expect_error("row stride of dim 0 is 200 bytes", k, A=odd, Out=torch.Tensor((64, 100), torch.bfloat16), alpha=1.0)
shifted = torch.Tensor((M, K), torch.bfloat16, offset=2)
expect_error("not 16-byte aligned", k, A=shifted, Out=out, alpha=1.0)

b = plkrt.load(None, os.path.join(W, "bias.manifest.json"))
x = torch.Tensor((1000,), torch.float32).fill([float(i) for i in range(1000)])
y = torch.Tensor((1000,), torch.float32)
b(X=x, Y=y, bias=0.5)
assert y.values() == [i + 0.5 for i in range(1000)]
assert b.launch_shape()[0] == (4, 1, 1)
expect_error("tensor X is torch.int32; the kernel takes f32", b, X=torch.Tensor((1000,), torch.int32), Y=y, bias=0)
# a kernel and its argument set in a cycle (kernel -> thread-local -> set
# -> kernel): the collector finalizes them in either order
import gc  # noqa: E402
del b
gc.collect()
print("mock python ok")
