"""A stand-in for the few torch features pipelink uses, for the mock-driver
tests (tests/scripts/runtime_mock.sh): "CUDA" tensors are host buffers,
which is what the mock libcuda treats device pointers as. torch.library
.custom_op records what it was given (the schema, the fake) and calls the
function; FakeTensor is a tensor with a shape and no storage, as the fake
implementation of a custom op sees under torch.compile."""

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
float8_e4m3fn = dtype("float8_e4m3fn", 1, "B")


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


class FakeTensor(Tensor):
    """Shape, dtype and device only, as torch.compile's fake tensors."""

    def __init__(self, shape, dt, on_cuda=True):
        self.shape, self.dtype, self.is_cuda, self._contig, self._off = tuple(shape), dt, on_cuda, True, 0
        self.device = device("cuda", 0) if on_cuda else device("cpu", None)

    def data_ptr(self):
        raise RuntimeError("a fake tensor has no storage")


def empty(shape, dtype=None, device=None):
    if isinstance(shape, int):
        shape = (shape,)
    cuda_ = device is not None and str(device).startswith("cuda")
    if _fake_mode:
        return FakeTensor(shape, dtype, on_cuda=cuda_)
    return Tensor(shape, dtype, on_cuda=cuda_)


_fake_mode = []


class fake_mode:
    """with torch.fake_mode(): torch.empty makes FakeTensors."""

    def __enter__(self):
        _fake_mode.append(1)

    def __exit__(self, *a):
        _fake_mode.pop()


sym_min, sym_max = min, max


class _CustomOp:
    def __init__(self, name, fn, mutates_args, device_types, schema):
        self.name, self.fn, self.mutates_args, self.device_types, self.schema = \
            name, fn, mutates_args, device_types, schema
        self.fake = None

    def register_fake(self, fn):
        self.fake = fn
        return fn

    def __call__(self, *args, **kwargs):
        if any(isinstance(a, FakeTensor) for a in list(args) + list(kwargs.values())):
            with fake_mode():
                return self.fake(*args, **kwargs)
        return self.fn(*args, **kwargs)


class library:
    ops = {}

    @staticmethod
    def custom_op(name, fn=None, *, mutates_args, device_types=None, schema=None):
        if name in library.ops:
            raise RuntimeError(f"{name} is already registered")
        op = library.ops[name] = _CustomOp(name, fn, mutates_args, device_types, schema)
        return op


class _Stream:
    cuda_stream = 0


class cuda:
    @staticmethod
    def is_available():
        return False

    @staticmethod
    def current_stream(dev=None):
        return _Stream()
