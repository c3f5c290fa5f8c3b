"""A kernel as a PyTorch custom op (torch.library.custom_op), so that
torch.compile traces through it without a graph break and CUDA graphs
capture it.

The manifest says each tensor's shape but not which tensors the kernel
writes (a tensor map is read or written alike), so the caller says:

* outputs: tensors the op allocates and returns (a functional op, what
  torch.compile prefers): `y = op(a, w)`;
* mutates: tensors the caller passes and the kernel writes in place
  (accumulators, preallocated buffers): `op(a, b, c)`, declared in the
  schema as `Tensor(a!)`.

The op's arguments are the other tensors (and the mutated ones), in the
manifest's order, then, keyword-only, the shape symbols that their shapes
do not give and the kernel's free scalars. The fake implementation
allocates each output from the manifest's shape rules, which also work on
symbolic sizes.
"""

import threading

from . import _shapes
from ._runtime import TORCH_DTYPE, PlkError

_ops = {}              # name -> (schema, [kernel]): one op per name per process
_ops_lock = threading.Lock()

_SCALAR = {"i32": "int", "i64": "int", "f32": "float"}


class OpSpec:
    """What the op takes and returns, from the kernel's manifest."""

    def __init__(self, kernel, name, outputs, mutates):
        tensors = [t["name"] for t in kernel.tensors]
        for what, names in (("output", outputs), ("mutated tensor", mutates)):
            for n in names:
                if n not in tensors:
                    raise PlkError(f"{name}: {kernel.name} has no tensor {n} (an {what}); "
                                   f"its tensors are {', '.join(tensors)}")
        both = set(outputs) & set(mutates)
        if both:
            raise PlkError(f"{name}: {', '.join(sorted(both))} both an output and mutated")
        if not outputs and not mutates:
            raise PlkError(f"{name}: say which tensors {kernel.name} writes: outputs=[...] (allocated and "
                           "returned) or mutates=[...] (passed and written in place); the manifest does not say")
        if "::" not in name:
            raise PlkError(f"{name}: a custom op's name is NAMESPACE::NAME, e.g. mylib::{kernel.name}")
        self.name = name
        self.meta = {t["name"]: t for t in kernel.tensors}
        self.dims = {t["name"]: t["dims"] for t in kernel.tensors}
        self.outputs = [t for t in tensors if t in outputs]
        self.mutates = [t for t in tensors if t in mutates]
        self.inputs = [t for t in tensors if t not in outputs]
        # symbols the inputs' shapes do not give: keyword arguments
        given = _shapes.derivable(self.dims, self.inputs, kernel.symbols)
        self.symbols = [s for s in kernel.symbols if s not in given]
        self.scalars = []
        for p in kernel.params:
            if not p["free"]:
                continue
            if p["kind"] not in _SCALAR:
                raise PlkError(f"{name}: parameter {p['name']} is a {p['kind']}; a custom op passes tensors "
                               "and scalars only")
            self.scalars.append((p["name"], _SCALAR[p["kind"]]))

    def schema(self):
        alias = iter("abcdefghijklmnopqrstuvwxyz")
        args = [f"Tensor({next(alias)}!) {t}" if t in self.mutates else f"Tensor {t}" for t in self.inputs]
        kw = [f"SymInt {s}" for s in self.symbols] + [f"{ty} {n}" for n, ty in self.scalars]
        if kw:
            args += ["*"] + kw
        ret = "()" if not self.outputs else "Tensor" if len(self.outputs) == 1 else \
            "(" + ", ".join("Tensor" for _ in self.outputs) + ")"
        return f"({', '.join(args)}) -> {ret}"

    def split(self, args, kwargs):
        """(tensors by name, symbols, scalars) of a call."""
        if len(args) > len(self.inputs):
            raise PlkError(f"{self.name}: {len(args)} positional arguments; it takes {len(self.inputs)} tensors "
                           f"({', '.join(self.inputs)})")
        tensors = dict(zip(self.inputs, args))
        syms, scalars = {}, {}
        for k, v in kwargs.items():
            if k in self.inputs and k not in tensors:
                tensors[k] = v
            elif k in self.symbols:
                syms[k] = v
            elif k in dict(self.scalars):
                scalars[k] = v
            else:
                raise PlkError(f"{self.name}: unexpected argument {k!r}")
        missing = [t for t in self.inputs if t not in tensors] + [s for s in self.symbols if s not in syms] + \
            [n for n, _ in self.scalars if n not in scalars]
        if missing:
            raise PlkError(f"{self.name}: missing {', '.join(missing)}")
        return tensors, syms, scalars

    def output_shapes(self, tensors, syms, smin=min, smax=max):
        """{output: shape} from the inputs' shapes and the given symbols."""
        try:
            env = _shapes.solve(self.dims, {t: tuple(x.shape) for t, x in tensors.items()}, syms)
            return {t: [_shapes.evaluate(_shapes.parse(d), env, smin, smax) for d in self.dims[t]]
                    for t in self.outputs}
        except _shapes.ShapeError as e:
            raise PlkError(f"{self.name}: {e}") from None

    def allocate(self, torch, tensors, syms):
        shapes = self.output_shapes(tensors, syms, getattr(torch, "sym_min", min), getattr(torch, "sym_max", max))
        device = next(iter(tensors.values())).device if tensors else "cuda"
        return {t: torch.empty(shapes[t], dtype=getattr(torch, TORCH_DTYPE[self.meta[t]["dtype"]]), device=device)
                for t in self.outputs}

    def result(self, outs):
        if not self.outputs:
            return None
        if len(self.outputs) == 1:
            return outs[self.outputs[0]]
        return tuple(outs[t] for t in self.outputs)


def custom_op(kernel, name, outputs=(), mutates=()):
    """Registers kernel as the custom op `name` (NAMESPACE::NAME) and
    returns it (a torch.library CustomOpDef: call it like a function).
    Registering a name again with the same signature points the op at the
    new kernel; another signature is an error."""
    import torch
    spec = OpSpec(kernel, name, list(outputs), list(mutates))
    schema = spec.schema()
    with _ops_lock:
        if name in _ops:
            op, old, ref = _ops[name]
            if old != schema:
                raise PlkError(f"{name} is already a custom op with schema {old}; this kernel's is {schema}")
            ref[0] = (kernel, spec)
            return op
        ref = [(kernel, spec)]

        def impl(*args, **kwargs):
            k, sp = ref[0]
            tensors, syms, scalars = sp.split(args, kwargs)
            outs = sp.allocate(torch, tensors, syms)
            k(**tensors, **outs, **syms, **scalars)
            return sp.result(outs)

        def fake(*args, **kwargs):
            _, sp = ref[0]
            tensors, syms, _ = sp.split(args, kwargs)
            return sp.result(sp.allocate(torch, tensors, syms))

        op = torch.library.custom_op(name, impl, mutates_args=tuple(spec.mutates), device_types="cuda",
                                     schema=schema)
        op.register_fake(fake)
        _ops[name] = (op, schema, ref)
        return op
