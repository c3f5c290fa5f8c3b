"""Linking a recipe with plkc from Python, with a cache of linked kernels.

plkc already caches component objects (PLKC_CACHE); this caches the
linked binary too. A link's key is the recipe's path, the arguments and
plkc itself; an entry is used while every file the link read (plkc's
`-MD` dependency list: recipes, contracts, sources, headers, objects)
still has the content it had.
"""

import hashlib
import json
import os
import shutil
import subprocess
import tempfile

from ._runtime import PlkError, _prefixes, load


def find_plkc(plkc=None):
    """plkc: the argument, $PLKC, the install prefix or source tree of this
    package, then PATH."""
    if plkc:
        return plkc
    env = os.environ.get("PLKC")
    if env:
        return env
    for p in _prefixes():
        for cand in (os.path.join(p, "bin", "plkc"), os.path.join(p, "build", "plkc")):
            if os.access(cand, os.X_OK) and not os.path.isdir(cand):
                return os.path.normpath(cand)
    found = shutil.which("plkc")
    if found:
        return found
    raise PlkError("cannot find plkc: install PipeLink (make install PREFIX=DIR) and put PREFIX/bin on PATH, "
                   "or set PLKC to its path")


def cache_dir():
    """$PLKC_CACHE/kernels, $XDG_CACHE_HOME/plkc/kernels or ~/.cache/plkc/kernels."""
    base = os.environ.get("PLKC_CACHE")
    if not base:
        xdg = os.environ.get("XDG_CACHE_HOME")
        base = os.path.join(xdg, "plkc") if xdg and os.path.isabs(xdg) else \
            os.path.join(os.path.expanduser("~"), ".cache", "plkc")
    return os.path.join(base, "kernels")


def _sha(path):
    h = hashlib.sha256()
    try:
        with open(path, "rb") as f:
            for block in iter(lambda: f.read(1 << 20), b""):
                h.update(block)
    except OSError:
        return None
    return h.hexdigest()


def read_depfile(path):
    """The prerequisites of a make-style dependency file (`-MD`)."""
    with open(path) as f:
        text = f.read().replace("\\\n", " ")
    deps = []
    for line in text.splitlines():
        if ":" not in line:
            continue
        rest = line.split(":", 1)[1] if not line.startswith(" ") else line
        words, cur, esc = [], "", False
        for ch in rest:
            if esc:
                cur += ch
                esc = False
            elif ch == "\\":
                esc = True
            elif ch in " \t":
                if cur:
                    words.append(cur)
                cur = ""
            else:
                cur += ch
        if cur:
            words.append(cur)
        deps += [w.replace("$$", "$") for w in words]
    return deps


def _fresh(entry):
    try:
        with open(os.path.join(entry, "stamp.json")) as f:
            stamp = json.load(f)
    except (OSError, ValueError):
        return False
    return bool(stamp) and all(_sha(p) == h for p, h in stamp.items())


def build(recipe, arch="sm_90a", kernel=None, include=(), defines=None, nvcc_flags=(), plkc=None, cache=None):
    """Links recipe with plkc (or finds it in the cache); returns the
    paths (binary, manifest). arch: one arch or a list (a fatbin).
    include: -I directories; defines: {NAME: VALUE} for -D; nvcc_flags:
    arguments for -Xnvcc."""
    plkc = find_plkc(plkc)
    arches = [arch] if isinstance(arch, str) else list(arch)
    if not arches:
        raise PlkError("link: no arch given")
    if not os.path.isfile(recipe):
        raise PlkError(f"link: no recipe {recipe}")
    args = []
    for a in arches:
        args += ["-arch", a]
    if kernel:
        args += ["--kernel", kernel]
    for d in include:
        args += ["-I", os.path.abspath(d)]
    for k, v in (defines or {}).items():
        args += ["-D", f"{k}={v}"]
    for x in nvcc_flags:
        args += ["-Xnvcc", x]
    real = os.path.realpath(recipe)
    key = hashlib.sha256(json.dumps([os.path.realpath(plkc), _sha(os.path.realpath(plkc)), real, args]).encode())
    stem = kernel or os.path.splitext(os.path.basename(recipe))[0]
    ext = "fatbin" if len(arches) > 1 else "cubin"
    root = cache or cache_dir()
    entry = os.path.join(root, f"{stem}-{key.hexdigest()[:16]}")
    binary, manifest = os.path.join(entry, f"k.{ext}"), os.path.join(entry, "k.manifest.json")
    if _fresh(entry) and os.path.exists(binary) and os.path.exists(manifest):
        return binary, manifest
    os.makedirs(root, exist_ok=True)
    tmp = tempfile.mkdtemp(prefix=f".{stem}-", dir=root)
    try:
        out = os.path.join(tmp, f"k.{ext}")
        # ptxas on every processor: the same SASS, so not in the key
        # (docs/toolchain.md, nvJitLink)
        threads = min(os.cpu_count() or 1, 64)
        split = ["--split-compile", str(threads)] if threads > 1 else []
        cmd = [plkc, real, *args, *split, "-o", out, "-MD", "-MF", os.path.join(tmp, "k.d")]
        r = subprocess.run(cmd, stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True)
        if r.returncode != 0:
            raise PlkError(f"plkc failed (exit {r.returncode}) linking {recipe}:\n{r.stdout.rstrip()}")
        deps = read_depfile(os.path.join(tmp, "k.d"))
        with open(os.path.join(tmp, "stamp.json"), "w") as f:
            json.dump({p: _sha(p) for p in deps}, f, indent=1)
        old = entry + ".old"
        shutil.rmtree(old, ignore_errors=True)
        if os.path.exists(entry):
            os.rename(entry, old)
        os.rename(tmp, entry)
        shutil.rmtree(old, ignore_errors=True)
    finally:
        shutil.rmtree(tmp, ignore_errors=True)
    return binary, manifest


def link(recipe, arch="sm_90a", kernel=None, include=(), defines=None, nvcc_flags=(), plkc=None, cache=None):
    """Links a recipe with plkc (cached, see build) and loads it: a
    callable Kernel."""
    binary, manifest = build(recipe, arch=arch, kernel=kernel, include=include, defines=defines,
                             nvcc_flags=nvcc_flags, plkc=plkc, cache=cache)
    return load(binary, manifest)
