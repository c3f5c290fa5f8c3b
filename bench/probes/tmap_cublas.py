"""Which tensor maps and launches cuBLAS uses at a GEMM shape (bench/probes/tmap_log.c).

    CUDA_INJECTION64_PATH=build/libtmap_log.so python3 bench/probes/tmap_cublas.py 1000x3000x1000 ...

For each M x N x K: C = A B^T in bf16 (A M x K, B N x K, both K-major, as
the shape suite calls torch.mm), twice (the second call shows what is
cached); a marker line on stderr before each, so the library's log lines
fall under their shape.
"""
import sys

import torch


def main():
    shapes = [tuple(int(x) for x in s.split("x")) for s in sys.argv[1:]]
    torch.cuda.init()
    for m, n, k in shapes:
        a = torch.randn(m, k, device="cuda", dtype=torch.bfloat16)
        b = torch.randn(n, k, device="cuda", dtype=torch.bfloat16)
        for i in range(2):
            torch.cuda.synchronize()
            print("== %dx%dx%d call %d (A at %#x, B at %#x)" % (m, n, k, i, a.data_ptr(), b.data_ptr()),
                  file=sys.stderr, flush=True)
            c = torch.mm(a, b.t())
            torch.cuda.synchronize()
        ref = a.float() @ b.float().t()
        err = ((c.float() - ref).norm() / ref.norm()).item()
        print("== %dx%dx%d rel err %.2e" % (m, n, k, err), file=sys.stderr, flush=True)


if __name__ == "__main__":
    main()
