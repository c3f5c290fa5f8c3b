#!/usr/bin/env python3
"""Build host: each configuration's monolith of DIR (bench/prepare.py wrote
NAME.mono.cu) built a second way, through the code generator the linked
kernel goes through: nvcc -rdc=true to LTO IR, then nvJitLink -lto with
the same -kernels-used as plkc's link, into NAME.monolto.cubin. Appends a
configuration NAME_lto to DIR/configs.json whose monolith is that cubin,
so that bench/attn_bench.py (or linked_bench.py) times linked against
both monoliths in one run, and bench/sass_diff.py compares the three.

    python3 bench/mono_lto.py --dir .carry/am
"""
import argparse
import ctypes
import json
import os
import subprocess
import sys
import tempfile

CUDA = os.environ.get("CUDA_HOME", "/usr/local/cuda")
INPUT_ANY = 10   # nvJitLinkInputType: let nvJitLink tell a fatbin of LTO IR


def jitlink(fatbin, arch, entry):
    lib = ctypes.CDLL(os.path.join(CUDA, "lib64", "libnvJitLink.so"))
    opts = [b"-arch=" + arch.encode(), b"-lto", b"-kernels-used=" + entry.encode()]
    h = ctypes.c_void_p()

    def ok(r, what):
        if r != 0:
            n = ctypes.c_size_t()
            log = b""
            if h.value and lib.nvJitLinkGetErrorLogSize(h, ctypes.byref(n)) == 0 and n.value:
                b = ctypes.create_string_buffer(n.value)
                lib.nvJitLinkGetErrorLog(h, b)
                log = b.value
            sys.exit("%s: nvJitLink result %d\n%s" % (what, r, log.decode(errors="replace")))
    ok(lib.nvJitLinkCreate(ctypes.byref(h), len(opts), (ctypes.c_char_p * len(opts))(*opts)), "nvJitLinkCreate")
    ok(lib.nvJitLinkAddFile(h, INPUT_ANY, fatbin.encode()), "nvJitLinkAddFile " + fatbin)
    ok(lib.nvJitLinkComplete(h), "nvJitLinkComplete")
    n = ctypes.c_size_t()
    ok(lib.nvJitLinkGetLinkedCubinSize(h, ctypes.byref(n)), "nvJitLinkGetLinkedCubinSize")
    b = ctypes.create_string_buffer(n.value)
    ok(lib.nvJitLinkGetLinkedCubin(h, b), "nvJitLinkGetLinkedCubin")
    lib.nvJitLinkDestroy(ctypes.byref(h))
    return b.raw


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument("--dir", required=True)
    args = ap.parse_args()
    index = os.path.join(args.dir, "configs.json")
    cfgs = [c for c in json.load(open(index)) if not c["name"].endswith("_lto")]
    extra = []
    for c in cfgs:
        man = json.load(open(os.path.join(args.dir, c["manifest"])))
        arch = c["arch"]
        src = os.path.join(args.dir, c["mono"][:-len(".cubin")] + ".cu")
        with tempfile.TemporaryDirectory() as tmp:
            fat = os.path.join(tmp, "mono.fatbin")
            r = subprocess.run([os.path.join(CUDA, "bin", "nvcc"), "-rdc=true", "-fatbin", "-gencode",
                                "arch=compute_%s,code=lto_%s" % (arch[3:], arch[3:]), "-diag-suppress", "177",
                                "-I.", "-Istdlib", "-o", fat, src])
            if r.returncode != 0:
                sys.exit("nvcc failed on %s (exit %d); configs.json left as it was" % (src, r.returncode))
            cubin = jitlink(fat, arch, man["entry"])
        name = c["mono"].replace(".mono.cubin", ".monolto.cubin")
        with open(os.path.join(args.dir, name), "wb") as f:
            f.write(cubin)
        extra.append(dict(c, name=c["name"] + "_lto", mono=name))
        print("%-24s %s (%d bytes)" % (c["name"], name, len(cubin)), flush=True)
    with open(index, "w") as f:
        json.dump(cfgs + extra, f, indent=1)


if __name__ == "__main__":
    main()
