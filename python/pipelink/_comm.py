"""The communication engine of kernels whose manifest names one
(docs/comm.md): NVSHMEM, bootstrapped from a unique id that rank 0 makes
and every rank receives, its symmetric buffers, and the attachment each
such kernel needs before it launches.

    comm = pipelink.Comm.from_torch_distributed()   # after dist.init_process_group
    a = comm.tensor((M, K), torch.bfloat16)         # symmetric: the same buffer on every rank
    comm.attach(kernel)
    kernel(A=a, ...)
    comm.close()
"""

import ctypes
import os

from ._runtime import PlkError, _ERRLEN, _lib

# NVLink multicast stays off: a program that uses it can take the host's
# shared GPUs out of service (docs/comm.md). A value already set wins.
_SAFE_ENV = {"NVSHMEM_DISABLE_NVLS": "1"}


class _Symmetric:
    """A symmetric buffer as __cuda_array_interface__, for torch.as_tensor."""

    def __init__(self, ptr, shape, typestr):
        self.__cuda_array_interface__ = {"shape": tuple(shape), "typestr": typestr, "data": (ptr, False),
                                         "version": 3}


class Comm:
    """One rank of an NVSHMEM job. One per process (NVSHMEM's rule)."""

    @staticmethod
    def unique_id():
        """Rank 0's bootstrap id (bytes), to hand to every rank."""
        L = _lib()
        n = L.plk_comm_unique_id_size()
        if n == 0:
            raise PlkError(_comm_error(L, None))
        buf, err = ctypes.create_string_buffer(n), ctypes.create_string_buffer(_ERRLEN)
        if L.plk_comm_unique_id(buf, n, err, _ERRLEN):
            raise PlkError(err.value.decode(errors="replace"))
        return buf.raw

    def __init__(self, rank, nranks, uid):
        for k, v in _SAFE_ENV.items():
            os.environ.setdefault(k, v)
        L = _lib()
        self._L, self._bufs = L, {}
        err = ctypes.create_string_buffer(_ERRLEN)
        uid = bytes(uid)
        self._h = L.plk_comm_init(int(rank), int(nranks), uid, len(uid), err, _ERRLEN)
        if not self._h:
            raise PlkError(err.value.decode(errors="replace"))
        self.rank, self.nranks = L.plk_comm_rank(self._h), L.plk_comm_size(self._h)

    @classmethod
    def from_torch_distributed(cls, group=None):
        """Bootstraps through torch.distributed: rank 0's id, broadcast."""
        import torch.distributed as dist
        rank, nranks = dist.get_rank(group), dist.get_world_size(group)
        box = [cls.unique_id() if rank == 0 else None]
        dist.broadcast_object_list(box, src=0, group=group)
        return cls(rank, nranks, box[0])

    def _check(self, rc, what):
        if rc:
            raise PlkError(f"{what}: {self._L.plk_comm_error(self._h).decode(errors='replace')}")

    def alloc(self, nbytes):
        """A symmetric buffer of nbytes (collective): its device pointer."""
        p = self._L.plk_comm_alloc(self._h, int(nbytes))
        if not p:
            self._check(1, "plk_comm_alloc")
        self._bufs[p] = nbytes
        return p

    def free(self, ptr):
        if self._bufs.pop(ptr, None) is not None:
            self._L.plk_comm_free(self._h, ptr)

    def tensor(self, shape, dtype):
        """A torch tensor over a new symmetric buffer; freed by close()."""
        import torch
        n = 1
        for d in shape:
            n *= int(d)
        elem = torch.empty((), dtype=dtype).element_size()
        p = self.alloc(max(n * elem, 1))
        # the bytes, viewed as dtype (u1 then view: any torch dtype, bf16 included)
        raw = torch.as_tensor(_Symmetric(p, (n * elem,), "|u1"), device="cuda")
        return raw.view(dtype).view(*shape)

    def barrier(self, stream=None):
        """Every rank, on the stream (torch's current one by default)."""
        if stream is None:
            try:
                import torch
                stream = torch.cuda.current_stream().cuda_stream
            except ImportError:
                stream = 0
        self._check(self._L.plk_comm_barrier(self._h, ctypes.c_void_p(int(stream))), "plk_comm_barrier")

    def attach(self, kernel):
        """Initialises the engine's state in kernel's module (before its first launch)."""
        if self._L.plk_comm_attach(self._h, kernel._h):
            raise PlkError(self._L.plk_error(kernel._h).decode(errors="replace"))

    def close(self):
        """Frees the buffers and finalises NVSHMEM (collective)."""
        if self._h:
            for p in list(self._bufs):
                self.free(p)
            self._L.plk_comm_fini(self._h)
            self._h = None

    def __enter__(self):
        return self

    def __exit__(self, *exc):
        self.close()


def _comm_error(L, h):
    return L.plk_comm_error(h).decode(errors="replace") if h is not None else \
        "this libplkrt was built without NVSHMEM's headers (pip install nvidia-nvshmem-cu13, then rebuild runtime/)"
