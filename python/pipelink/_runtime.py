"""The ctypes layer over libplkrt (runtime/plkrt.h): loading a kernel and
launching it on torch tensors. No build step.

A Kernel may be called from several threads at once, each on its own
stream and tensors, as PyTorch code does: every call binds its arguments
into an argument set of the calling thread (plk_args), never into the
kernel, which is read-only once loaded.
"""

import ctypes
import ctypes.util
import os
import shutil
import threading
import weakref

_ERRLEN = 512
_lib_cache = []
_lib_lock = threading.Lock()


class PlkError(RuntimeError):
    """A kernel could not be loaded, linked or launched; the message names
    the cause (the tensor, parameter or CUDA call and its error name)."""


def _prefixes():
    """Directories that may hold lib/libplkrt.so and bin/plkc: the install
    prefix this package sits in (PREFIX/lib/pythonX.Y/site-packages), the
    source tree it came from (python/pipelink), and the prefix of a plkc
    on PATH."""
    here = os.path.dirname(os.path.abspath(__file__))
    out = []
    d = here
    for _ in range(5):
        d = os.path.dirname(d)
        out.append(d)
    plkc = os.environ.get("PLKC") or shutil.which("plkc")
    if plkc:
        out.append(os.path.dirname(os.path.dirname(os.path.realpath(plkc))))
    return out


def _candidates():
    here = os.path.dirname(os.path.abspath(__file__))
    c = [os.path.join(here, "libplkrt.so")]
    for p in _prefixes():
        c += [os.path.join(p, "lib", "libplkrt.so"), os.path.join(p, "build", "runtime", "libplkrt.so")]
    return c


def find_library():
    """The path of libplkrt.so: $PLKRT_LIB, else the first that exists of
    the candidates (see _prefixes), else the system's library path; None
    when there is none."""
    env = os.environ.get("PLKRT_LIB")
    if env:
        return env
    for cand in _candidates():
        if os.path.exists(cand):
            return os.path.normpath(cand)
    return ctypes.util.find_library("plkrt")


def _lib():
    with _lib_lock:
        if _lib_cache:
            return _lib_cache[0]
        path = find_library()
        if not path:
            tried = ", ".join(dict.fromkeys(os.path.normpath(c) for c in _candidates()))
            raise PlkError(f"cannot find libplkrt.so (tried {tried} and the system's library path): "
                           "install PipeLink (make install PREFIX=DIR), build it (make -C runtime), "
                           "or set PLKRT_LIB to its path")
        try:
            L = ctypes.CDLL(path)
        except OSError as e:
            if "libcuda" in str(e):
                raise PlkError(f"cannot load the CUDA driver library libcuda.so.1, which {path} needs: {e}. "
                               "Is an NVIDIA driver installed? (The toolkit's stub library is not a driver.)") from None
            raise PlkError(f"cannot load libplkrt ({path}): {e}") from None
        _declare(L)
        _lib_cache.append(L)
        return L


def _declare(L):
    vp, cp, i, i64, u64 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int64, ctypes.c_uint64
    u3 = ctypes.POINTER(ctypes.c_uint * 3)
    sig = {
        "plk_load": (vp, [cp, cp, cp, ctypes.c_size_t]),
        "plk_unload": (None, [vp]),
        "plk_error": (cp, [vp]),
        "plk_args_new": (vp, [vp]),
        "plk_args_free": (None, [vp]),
        "plk_args_error": (cp, [vp]),
        "plk_args_tensor": (i, [vp, cp, u64, ctypes.POINTER(i64), i]),
        "plk_args_dim": (i, [vp, cp, i64]),
        "plk_args_ptr": (i, [vp, cp, u64]),
        "plk_args_int": (i, [vp, cp, i64]),
        "plk_args_float": (i, [vp, cp, ctypes.c_double]),
        "plk_args_clear": (None, [vp]),
        "plk_args_prepare": (i, [vp]),
        "plk_args_launch": (i, [vp, vp]),
        "plk_args_launch_shape": (i, [vp, u3, u3, u3, ctypes.POINTER(ctypes.c_uint), ctypes.POINTER(i64)]),
        "plk_cuda_error_name": (cp, [i]),
        "plk_kernel_name": (cp, [vp]),
        "plk_sm_count": (i, [vp]),
        "plk_dram_gbps": (i, [vp]),
        "plk_num_tensors": (i, [vp]),
        "plk_tensor_name": (cp, [vp, i]),
        "plk_tensor_dtype": (cp, [vp, i]),
        "plk_tensor_elem_bytes": (i, [vp, i]),
        "plk_tensor_rank": (i, [vp, i]),
        "plk_tensor_dim": (cp, [vp, i, i]),
        "plk_num_symbols": (i, [vp]),
        "plk_symbol_name": (cp, [vp, i]),
        "plk_num_params": (i, [vp]),
        "plk_param_name": (cp, [vp, i]),
        "plk_param_kind": (cp, [vp, i]),
        "plk_param_is_free": (i, [vp, i]),
        "plk_force_variant": (i, [vp, cp]),
        "plk_num_variants": (i, [vp]),
        "plk_variant_name": (cp, [vp, i]),
        "plk_args_variant": (cp, [vp]),
        # the communication engine (_comm.py, docs/comm.md)
        "plk_comm_unique_id_size": (ctypes.c_size_t, []),
        "plk_comm_unique_id": (i, [vp, ctypes.c_size_t, cp, ctypes.c_size_t]),
        "plk_comm_init": (vp, [i, i, vp, ctypes.c_size_t, cp, ctypes.c_size_t]),
        "plk_comm_alloc": (u64, [vp, ctypes.c_size_t]),
        "plk_comm_free": (None, [vp, u64]),
        "plk_comm_barrier": (i, [vp, vp]),
        "plk_comm_attach": (i, [vp, vp]),
        "plk_comm_fini": (None, [vp]),
        "plk_comm_rank": (i, [vp]),
        "plk_comm_size": (i, [vp]),
        "plk_comm_error": (cp, [vp]),
    }
    for name, (res, args) in sig.items():
        try:
            f = getattr(L, name)
        except AttributeError:
            raise PlkError(f"{L._name} has no {name}: it is older than this pipelink package; "
                           "rebuild or reinstall the runtime") from None
        f.restype, f.argtypes = res, args


# manifest dtype -> torch dtype attribute name
TORCH_DTYPE = {
    "bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
    "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
    "u32": "uint32", "i64": "int64", "u64": "uint64",
    "e4m3": "float8_e4m3fn", "fp8_e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "fp8_e5m2": "float8_e5m2",
}


def _s(b):
    return b.decode() if b is not None else None


class _Args:
    """One thread's argument set of a kernel (plk_args)."""

    def __init__(self, kernel):
        self._k = kernel
        self.ptr = kernel._L.plk_args_new(kernel._h)
        if not self.ptr:
            raise PlkError(f"{kernel.name}: out of memory for an argument set")
        with kernel._lock:
            kernel._sets.add(self)

    def free(self):
        k = self._k
        with k._lock:
            if self.ptr:
                k._L.plk_args_free(self.ptr)
                self.ptr = None
            k._sets.discard(self)

    def __del__(self):
        try:
            self.free()
        except Exception:
            pass


class Kernel:
    """A loaded kernel. Call it with tensors and values by name:

        k(A=a, B=b, C=c)              # shapes give the symbols; torch's current stream
        k(a, b, c, stream=s)          # positionally, in the manifest's tensor order

    Safe to call from several threads at once.
    """

    def __init__(self, handle, lib, device, path=None):
        self._h, self._L, self.device, self.path = handle, lib, device, path
        self._lock = threading.RLock()   # RLock: an _Args may be collected while it is held
        # every thread's argument set, freed by close() before the unload; one
        # the collector frees after it keeps the kernel alive till then (plkrt.h)
        self._sets = weakref.WeakSet()
        self._tls = threading.local()
        L, h = lib, handle
        self.name = _s(L.plk_kernel_name(h))
        self.tensors = []
        for t in range(L.plk_num_tensors(h)):
            rank = L.plk_tensor_rank(h, t)
            self.tensors.append({
                "name": _s(L.plk_tensor_name(h, t)),
                "dtype": _s(L.plk_tensor_dtype(h, t)),
                "elem_bytes": L.plk_tensor_elem_bytes(h, t),
                "dims": [_s(L.plk_tensor_dim(h, t, d)) for d in range(rank)],
            })
        self.symbols = [_s(L.plk_symbol_name(h, s)) for s in range(L.plk_num_symbols(h))]
        self.params = [{"name": _s(L.plk_param_name(h, p)), "kind": _s(L.plk_param_kind(h, p)),
                        "free": bool(L.plk_param_is_free(h, p))} for p in range(L.plk_num_params(h))]
        self._tensor_names = [t["name"] for t in self.tensors]
        self._free = {p["name"]: p["kind"] for p in self.params if p["free"]}

    def __repr__(self):
        ts = ", ".join(f"{t['name']}: {t['dtype']}[{', '.join(t['dims'])}]" for t in self.tensors)
        return f"<pipelink.Kernel {self.name}({ts})>"

    def _args(self):
        a = getattr(self._tls, "args", None)
        if a is None or not a.ptr:
            if not self._h:
                raise PlkError(f"{self.name}: the kernel was closed")
            a = self._tls.args = _Args(self)
        return a

    def _check(self, a, rc):
        if rc != 0:
            raise PlkError(f"{self.name}: {_s(self._L.plk_args_error(a.ptr))}")

    def _bind_tensor(self, torch, a, meta, t):
        name = meta["name"]
        if not isinstance(t, torch.Tensor):
            raise PlkError(f"{self.name}: tensor {name} must be a torch.Tensor, not {type(t).__name__}")
        if not t.is_cuda:
            raise PlkError(f"{self.name}: tensor {name} is on {t.device}; it must be on a CUDA device")
        if self.device is not None and t.device.index != self.device:
            raise PlkError(f"{self.name}: tensor {name} is on {t.device}, the kernel was loaded on cuda:{self.device}")
        want = TORCH_DTYPE.get(meta["dtype"])
        want_dt = getattr(torch, want, None) if want else None
        if want_dt is not None and t.dtype != want_dt:
            raise PlkError(f"{self.name}: tensor {name} is {t.dtype}; the kernel takes {meta['dtype']} ({want_dt})")
        if want_dt is None and t.element_size() != meta["elem_bytes"]:
            raise PlkError(f"{self.name}: tensor {name} has {t.element_size()}-byte elements; the kernel takes "
                           f"{meta['dtype']} ({meta['elem_bytes']} bytes)")
        if t.dim() != len(meta["dims"]):
            raise PlkError(f"{self.name}: tensor {name} has shape {tuple(t.shape)}; the kernel takes "
                           f"[{', '.join(meta['dims'])}]")
        if not t.is_contiguous():
            raise PlkError(f"{self.name}: tensor {name} is not contiguous (strides {t.stride()}); "
                           "pass .contiguous()")
        shape = (ctypes.c_int64 * max(1, t.dim()))(*t.shape)
        self._check(a, self._L.plk_args_tensor(a.ptr, name.encode(), t.data_ptr(), shape, t.dim()))

    def _bind(self, args, kw):
        import torch
        L = self._L
        a = self._args()
        L.plk_args_clear(a.ptr)
        if len(args) > len(self.tensors):
            raise PlkError(f"{self.name}: {len(args)} positional tensors; the kernel has {len(self.tensors)} "
                           f"({', '.join(self._tensor_names)})")
        given = dict(zip(self._tensor_names, args))
        for k in kw:
            if k in given:
                raise PlkError(f"{self.name}: tensor {k} given both by position and by name")
        given.update(kw)
        missing = [n for n in self._tensor_names if n not in given]
        if missing:
            raise PlkError(f"{self.name}: missing tensor(s) {', '.join(missing)}")
        for key, val in given.items():
            if key in self._tensor_names:
                self._bind_tensor(torch, a, self.tensors[self._tensor_names.index(key)], val)
            elif key in self.symbols:
                self._check(a, L.plk_args_dim(a.ptr, key.encode(), int(val)))
            elif key in self._free:
                kind = self._free[key]
                if kind == "ptr":
                    ptr = val.data_ptr() if isinstance(val, torch.Tensor) else int(val)
                    self._check(a, L.plk_args_ptr(a.ptr, key.encode(), ptr))
                elif kind == "f32":
                    self._check(a, L.plk_args_float(a.ptr, key.encode(), float(val)))
                else:
                    self._check(a, L.plk_args_int(a.ptr, key.encode(), int(val)))
            else:
                accepted = self._tensor_names + self.symbols + list(self._free)
                raise PlkError(f"{self.name}: unknown argument {key!r}; it takes {', '.join(accepted)}")
        self._check(a, L.plk_args_prepare(a.ptr))
        return a

    def bind(self, *args, **kw):
        """Binds arguments (in the calling thread's argument set) without
        launching; returns self. launch_shape() then describes them."""
        self._bind(args, kw)
        return self

    def __call__(self, *args, stream=None, **kw):
        import torch
        a = self._bind(args, kw)
        if stream is None:
            stream = torch.cuda.current_stream(self.device)
        handle = stream.cuda_stream if hasattr(stream, "cuda_stream") else int(stream)
        self._check(a, self._L.plk_args_launch(a.ptr, ctypes.c_void_p(handle)))

    def launch_shape(self):
        """(grid, block, cluster, dynamic_smem, work_items) of the arguments
        this thread bound last."""
        a = self._args()
        g, b, c = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
        smem, work = ctypes.c_uint(), ctypes.c_int64()
        self._check(a, self._L.plk_args_launch_shape(a.ptr, ctypes.byref(g), ctypes.byref(b), ctypes.byref(c),
                                                     ctypes.byref(smem), ctypes.byref(work)))
        return tuple(g), tuple(b), tuple(c), smem.value, work.value

    def op(self, name, outputs=(), mutates=()):
        """This kernel as a PyTorch custom op (torch.library.custom_op);
        see pipelink.custom_op."""
        from ._op import custom_op
        return custom_op(self, name, outputs=outputs, mutates=mutates)

    @property
    def variants(self):
        """The kernel entries of a select's binary, in rule order; () for one kernel."""
        return tuple(_s(self._L.plk_variant_name(self._h, i)) for i in range(self._L.plk_num_variants(self._h)))

    def force_variant(self, name):
        """Launch variant `name` always (None: by the manifest's rule again);
        an unknown name raises. Not while other threads launch this kernel."""
        if self._L.plk_force_variant(self._h, name.encode() if name is not None else None):
            raise PlkError(_s(self._L.plk_error(self._h)))

    def variant(self):
        """The variant the arguments this thread bound last launch (None: one kernel)."""
        if not self.variants:
            return None
        a = self._args()
        n = self._L.plk_args_variant(a.ptr)
        if n is None:
            self._check(a, -1)
        return _s(n)

    @property
    def sm_count(self):
        return self._L.plk_sm_count(self._h)

    @property
    def dram_gbps(self):
        """The device's peak DRAM bandwidth in GB/s: DRAM_GBPS in a select's rule."""
        return self._L.plk_dram_gbps(self._h)

    def close(self):
        with self._lock:
            sets = list(self._sets)
        for a in sets:
            a.free()
        if self._h:
            self._L.plk_unload(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def load(binary, manifest=None):
    """Loads a cubin/fatbin and its manifest (beside it, or given) on
    torch's current CUDA device; returns a callable Kernel."""
    L = _lib()
    device = None
    try:
        import torch
    except ImportError:
        torch = None
    if torch is not None and torch.cuda.is_available():
        # Make the device's primary context exist and be current, so the
        # kernel lives in the context torch allocates in.
        device = torch.cuda.current_device()
        torch.empty(1, device=f"cuda:{device}")
    err = ctypes.create_string_buffer(_ERRLEN)
    h = L.plk_load(os.fsencode(binary) if binary is not None else None,
                   os.fsencode(manifest) if manifest is not None else None, err, _ERRLEN)
    if not h:
        raise PlkError(err.value.decode(errors="replace"))
    return Kernel(h, L, device, path=binary)


def cuda_error_name(code):
    """The name of a CUresult ("CUDA_ERROR_INVALID_VALUE"), or None."""
    return _s(_lib().plk_cuda_error_name(int(code)))
