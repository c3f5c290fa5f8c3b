"""A stand-in for the few torch features plkrt.py uses, for the mock-driver
tests (tests/scripts/runtime_mock.sh): "CUDA" tensors are host buffers,
which is what the mock libcuda treats device pointers as."""

import ctypes
import struct


class dtype:
    def __init__(self, name, size, fmt):
        self.name, self.size, self.fmt = name, size, fmt

    def __repr__(self):
        return "torch." + self.name


bfloat16 = dtype("bfloat16", 2, "H")
float16 = dtype("float16", 2, "e")
float32 = dtype("float32", 4, "f")
int32 = dtype("int32", 4, "i")


class device:
    def __init__(self, type_, index):
        self.type, self.index = type_, index

    def __str__(self):
        return self.type if self.index is None else f"{self.type}:{self.index}"


class Tensor:
    def __init__(self, shape, dt, on_cuda=True, contiguous=True, offset=0, buf=None):
        self.shape, self.dtype, self.is_cuda, self._contig, self._off = tuple(shape), dt, on_cuda, contiguous, offset
        self.device = device("cuda", 0) if on_cuda else device("cpu", None)
        n = 1
        for d in shape:
            n *= d
        self._n = n
        self._buf = buf if buf is not None else ctypes.create_string_buffer(n * dt.size + 64)

    def dim(self):
        return len(self.shape)

    def is_contiguous(self):
        return self._contig

    def stride(self):
        return (1, self.shape[0]) if not self._contig else (self.shape[-1], 1)

    def element_size(self):
        return self.dtype.size

    def data_ptr(self):
        return ctypes.addressof(self._buf) + self._off

    def values(self):
        return list(struct.unpack_from(f"<{self._n}{self.dtype.fmt}", self._buf, self._off))

    def fill(self, vals):
        struct.pack_into(f"<{self._n}{self.dtype.fmt}", self._buf, self._off, *vals)
        return self


class _Stream:
    cuda_stream = 0


class cuda:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def current_stream(dev=None):
        return _Stream()
