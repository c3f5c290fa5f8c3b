"""The manifest's shape rules in Python: its dims are shape symbols or
integer expressions over them ("M", "2 * N", "ceil_div(K, 64)"), in the
recipe's syntax (+ - * / %, unary -, parentheses, ceil_div, min, max).

Values may be ints or torch SymInts (torch.compile traces the fake
implementation of a custom op with symbolic sizes), so evaluation uses
only Python arithmetic, and min/max go through the functions the caller
passes. Everything here is pure: no torch, no CUDA.
"""

import re

_TOKEN = re.compile(r"\s*(?:(\d+)|([A-Za-z_][A-Za-z0-9_]*)|(.))")


class ShapeError(ValueError):
    pass


def parse(text):
    """The expression as a tree: int, name (str), or (op, a, b) / (fn, [args])."""
    text = str(text)
    toks = []
    for num, name, op in _TOKEN.findall(text):
        if num:
            toks.append(("num", int(num)))
        elif name:
            toks.append(("name", name))
        elif op.strip():
            toks.append(("op", op))
    pos = [0]

    def peek():
        return toks[pos[0]] if pos[0] < len(toks) else ("end", None)

    def take():
        t = peek()
        pos[0] += 1
        return t

    def expect(op):
        t = take()
        if t != ("op", op):
            raise ShapeError(f"in {text!r}: expected {op!r}")

    def primary():
        kind, v = take()
        if kind == "num":
            return v
        if kind == "op" and v == "-":
            return ("neg", primary())
        if kind == "op" and v == "(":
            e = additive()
            expect(")")
            return e
        if kind == "name":
            if peek() == ("op", "("):
                take()
                args = [additive()]
                while peek() == ("op", ","):
                    take()
                    args.append(additive())
                expect(")")
                if v not in ("ceil_div", "min", "max") or len(args) != 2:
                    raise ShapeError(f"in {text!r}: unknown function {v}/{len(args)}")
                return (v, args)
            return v
        raise ShapeError(f"in {text!r}: unexpected {v!r}")

    def term():
        e = primary()
        while peek()[0] == "op" and peek()[1] in "*/%":
            e = (take()[1], e, primary())
        return e

    def additive():
        e = term()
        while peek()[0] == "op" and peek()[1] in "+-":
            e = (take()[1], e, term())
        return e

    tree = additive()
    if peek()[0] != "end":
        raise ShapeError(f"in {text!r}: unexpected {peek()[1]!r}")
    return tree


def names(tree):
    """The shape symbols an expression tree uses, in order."""
    if isinstance(tree, int):
        return []
    if isinstance(tree, str):
        return [tree]
    if tree[0] in ("ceil_div", "min", "max"):
        out = []
        for a in tree[1]:
            out += [n for n in names(a) if n not in out]
        return out
    out = []
    for a in tree[1:]:
        out += [n for n in names(a) if n not in out]
    return out


def evaluate(tree, env, smin=min, smax=max):
    """The value of a tree; env maps symbols to ints or SymInts. Dims are
    positive, so floor division is the runtime's truncating one."""
    if isinstance(tree, int):
        return tree
    if isinstance(tree, str):
        if tree not in env:
            raise ShapeError(f"shape symbol {tree} has no value")
        return env[tree]
    op = tree[0]
    if op == "neg":
        return -evaluate(tree[1], env, smin, smax)
    if op in ("ceil_div", "min", "max"):
        a, b = (evaluate(x, env, smin, smax) for x in tree[1])
        if op == "ceil_div":
            return _ceil_div(a, b)
        return smin(a, b) if op == "min" else smax(a, b)
    a, b = evaluate(tree[1], env, smin, smax), evaluate(tree[2], env, smin, smax)
    if op == "+":
        return a + b
    if op == "-":
        return a - b
    if op == "*":
        return a * b
    return _div(a, b) if op == "/" else _mod(a, b)


# The kernel's and the runtime's integer arithmetic (C's): `/` truncates
# toward zero, `%` takes the dividend's sign, ceil_div rounds toward
# +inf, whatever the signs (docs/language.md). Symbolic sizes (torch's
# SymInt) are >= 0, where Python's floor division is the same.
def _div(a, b):
    if isinstance(a, int) and isinstance(b, int):
        q = abs(a) // abs(b)
        return q if (a < 0) == (b < 0) else -q
    return a // b


def _mod(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return a - b * _div(a, b)
    return a % b


def _ceil_div(a, b):
    if isinstance(a, int) and isinstance(b, int):
        return -(-a // b)
    return (a + b - 1) // b


def _affine(tree, sym, env):
    """(a, b) with tree == a * sym + b for every value of sym, or None:
    checked at three points, with the other symbols at their values."""
    try:
        f = [evaluate(tree, dict(env, **{sym: x})) for x in (0, 1, 2, 7)]
    except (ShapeError, ZeroDivisionError):
        return None
    a, b = f[1] - f[0], f[0]
    if a == 0 or f[2] != 2 * a + b or f[3] != 7 * a + b:
        return None
    return a, b


def solve(dims, given, known=None):
    """Symbol values from tensor shapes.

    dims: {tensor: [dim expression, ...]} from the manifest; given:
    {tensor: shape} for the tensors whose shapes are known; known: symbols
    given outright. A bare-symbol dim gives its symbol; a dim with one
    unknown symbol in an affine expression ("2 * N", "N + 1") is solved
    for it. Returns {symbol: value}; values that disagree raise
    ShapeError naming both (only ints are compared: symbolic sizes are
    left to the runtime's check of the real call).
    """
    env = dict(known or {})
    origin = {s: "given" for s in env}
    trees = {t: [parse(d) for d in ds] for t, ds in dims.items()}
    for t, shape in given.items():
        if len(shape) != len(trees[t]):
            raise ShapeError(f"tensor {t} has {len(shape)} dims; the kernel takes [{', '.join(map(str, dims[t]))}]")
    progress = True
    while progress:
        progress = False
        for t, shape in given.items():
            for d, (tree, v) in enumerate(zip(trees[t], shape)):
                unknown = [n for n in names(tree) if n not in env]
                if isinstance(tree, str) and unknown:
                    env[tree], origin[tree] = v, f"tensor {t}"
                    progress = True
                elif len(unknown) == 1:
                    ab = _affine(tree, unknown[0], env)
                    if ab is None:
                        continue
                    a, b = ab
                    if isinstance(v, int) and (v - b) % a:
                        raise ShapeError(f"tensor {t}: dim {d} ({dims[t][d]}) is {v}: no integer {unknown[0]} gives it")
                    env[unknown[0]], origin[unknown[0]] = (v - b) // a, f"tensor {t}"
                    progress = True
    for t, shape in given.items():
        for d, (tree, v) in enumerate(zip(trees[t], shape)):
            if any(n not in env for n in names(tree)):
                continue
            want = evaluate(tree, env)
            if isinstance(v, int) and isinstance(want, int) and v != want:
                src = ", ".join(f"{n} = {env[n]} ({origin[n]})" for n in names(tree))
                raise ShapeError(f"tensor {t}: dim {d} ({dims[t][d]}) is {v}, but {src}")
    return env


def derivable(dims, tensors, symbols):
    """The symbols that the shapes of `tensors` give (as solve would),
    whatever their sizes: found with sample sizes."""
    env = {}   # structure only: every known symbol stands at 3
    progress = True
    while progress:
        progress = False
        for t in tensors:
            for tree in (parse(d) for d in dims[t]):
                unknown = [n for n in names(tree) if n not in env]
                if len(unknown) == 1 and (isinstance(tree, str)
                                          or _affine(tree, unknown[0], {n: 3 for n in env}) is not None):
                    env[unknown[0]] = 3
                    progress = True
    return [s for s in symbols if s in env]
