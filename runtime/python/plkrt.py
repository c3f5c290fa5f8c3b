"""plkrt: call a kernel linked by plkc on torch tensors.

A thin ctypes layer over libplkrt.so; no build step.

    import plkrt
    k = plkrt.load("gemm.cubin")              # gemm.manifest.json beside it
    k(A=a, B=b, C=c)                          # M, N, K inferred from shapes
    k(A=a, B=b, C=c, stream=torch.cuda.Stream())

Tensors are passed by the manifest's tensor names (or positionally, in the
manifest's order), shape symbols that no tensor shape gives by their names,
and scalar parameters by theirs. Tensors must be CUDA, contiguous (row-major)
and of the manifest's dtype; shapes must agree with the manifest's dims.
The launch is asynchronous on the given stream (default: torch's current
stream). Errors raise PlkError with the runtime's message.

The library is found through $PLKRT_LIB, then build/runtime/libplkrt.so
of this repository (what `make -C runtime` builds), then the system's
library path.
"""

import ctypes
import ctypes.util
import os

__all__ = ["load", "Kernel", "PlkError"]


class PlkError(RuntimeError):
    pass


_ERRLEN = 512
_lib_cache = []


def _find_lib():
    env = os.environ.get("PLKRT_LIB")
    if env:
        return env
    here = os.path.dirname(os.path.abspath(__file__))
    for cand in (os.path.join(here, "..", "..", "build", "runtime", "libplkrt.so"), os.path.join(here, "libplkrt.so")):
        if os.path.exists(cand):
            return cand
    return ctypes.util.find_library("plkrt") or "libplkrt.so"


def _lib():
    if _lib_cache:
        return _lib_cache[0]
    path = _find_lib()
    try:
        L = ctypes.CDLL(path)
    except OSError as e:
        raise PlkError(f"cannot load libplkrt ({path}): {e}; build it with `make -C runtime` "
                       "or set PLKRT_LIB") from None
    vp, cp, i, i64, u64 = ctypes.c_void_p, ctypes.c_char_p, ctypes.c_int, ctypes.c_int64, ctypes.c_uint64
    sig = {
        "plk_load": (vp, [cp, cp, cp, ctypes.c_size_t]),
        "plk_unload": (None, [vp]),
        "plk_error": (cp, [vp]),
        "plk_bind_tensor": (i, [vp, cp, u64, ctypes.POINTER(i64), i]),
        "plk_bind_dim": (i, [vp, cp, i64]),
        "plk_bind_ptr": (i, [vp, cp, u64]),
        "plk_bind_int": (i, [vp, cp, i64]),
        "plk_bind_float": (i, [vp, cp, ctypes.c_double]),
        "plk_unbind_all": (None, [vp]),
        "plk_prepare": (i, [vp]),
        "plk_launch": (i, [vp, vp]),
        "plk_launch_shape": (i, [vp, ctypes.POINTER(ctypes.c_uint * 3), ctypes.POINTER(ctypes.c_uint * 3),
                                 ctypes.POINTER(ctypes.c_uint * 3), ctypes.POINTER(ctypes.c_uint),
                                 ctypes.POINTER(i64)]),
        "plk_kernel_name": (cp, [vp]),
        "plk_sm_count": (i, [vp]),
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
    }
    for name, (res, args) in sig.items():
        f = getattr(L, name)
        f.restype, f.argtypes = res, args
    _lib_cache.append(L)
    return L


# manifest dtype -> torch dtype attribute name
_TORCH_DTYPE = {
    "bf16": "bfloat16", "f16": "float16", "f32": "float32", "f64": "float64",
    "i8": "int8", "u8": "uint8", "i16": "int16", "u16": "uint16", "i32": "int32",
    "u32": "uint32", "i64": "int64", "u64": "uint64",
    "e4m3": "float8_e4m3fn", "fp8_e4m3": "float8_e4m3fn", "e5m2": "float8_e5m2", "fp8_e5m2": "float8_e5m2",
}


def _s(b):
    return b.decode() if b is not None else None


class Kernel:
    """A loaded kernel. Call it with tensors and values by name."""

    def __init__(self, handle, lib, device):
        self._h, self._L, self.device = handle, lib, device
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
        return f"<plkrt.Kernel {self.name}({ts})>"

    def _check(self, rc, what=""):
        if rc != 0:
            raise PlkError(f"{self.name}: {what}{_s(self._L.plk_error(self._h))}")

    def _bind_tensor(self, torch, meta, t):
        name = meta["name"]
        if not isinstance(t, torch.Tensor):
            raise PlkError(f"{self.name}: tensor {name} must be a torch.Tensor, not {type(t).__name__}")
        if not t.is_cuda:
            raise PlkError(f"{self.name}: tensor {name} is on {t.device}; it must be on a CUDA device")
        if self.device is not None and t.device.index != self.device:
            raise PlkError(f"{self.name}: tensor {name} is on {t.device}, the kernel was loaded on cuda:{self.device}")
        want = _TORCH_DTYPE.get(meta["dtype"])
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
        self._check(self._L.plk_bind_tensor(self._h, name.encode(), t.data_ptr(), shape, t.dim()))

    def bind(self, *args, **kw):
        """Binds arguments without launching; returns self."""
        import torch
        L, h = self._L, self._h
        L.plk_unbind_all(h)
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
                self._bind_tensor(torch, self.tensors[self._tensor_names.index(key)], val)
            elif key in self.symbols:
                self._check(L.plk_bind_dim(h, key.encode(), int(val)))
            elif key in self._free:
                kind = self._free[key]
                if kind == "ptr":
                    ptr = val.data_ptr() if isinstance(val, torch.Tensor) else int(val)
                    self._check(L.plk_bind_ptr(h, key.encode(), ptr))
                elif kind == "f32":
                    self._check(L.plk_bind_float(h, key.encode(), float(val)))
                else:
                    self._check(L.plk_bind_int(h, key.encode(), int(val)))
            else:
                accepted = self._tensor_names + self.symbols + list(self._free)
                raise PlkError(f"{self.name}: unknown argument {key!r}; it takes {', '.join(accepted)}")
        self._check(L.plk_prepare(h))
        return self

    def __call__(self, *args, stream=None, **kw):
        import torch
        self.bind(*args, **kw)
        if stream is None:
            stream = torch.cuda.current_stream(self.device)
        handle = stream.cuda_stream if hasattr(stream, "cuda_stream") else int(stream)
        self._check(self._L.plk_launch(self._h, ctypes.c_void_p(handle)))

    def launch_shape(self):
        """(grid, block, cluster, dynamic_smem, work_items) of the bound arguments."""
        g, b, c = (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)(), (ctypes.c_uint * 3)()
        smem, work = ctypes.c_uint(), ctypes.c_int64()
        self._check(self._L.plk_launch_shape(self._h, ctypes.byref(g), ctypes.byref(b), ctypes.byref(c),
                                             ctypes.byref(smem), ctypes.byref(work)))
        return tuple(g), tuple(b), tuple(c), smem.value, work.value

    @property
    def sm_count(self):
        return self._L.plk_sm_count(self._h)

    def close(self):
        if self._h:
            self._L.plk_unload(self._h)
            self._h = None

    def __del__(self):
        try:
            self.close()
        except Exception:
            pass


def load(binary, manifest=None):
    """Loads a cubin/fatbin and its manifest on torch's current CUDA device."""
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
    return Kernel(h, L, device)
