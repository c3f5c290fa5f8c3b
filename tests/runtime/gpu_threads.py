"""GPU test: one kernel called from 4 threads at once, each on its own
stream with its own tensors, shapes and scalar, 200 calls each; every
call's output is poisoned (NaN) before the launch and compared with the
torch reference after it, on that thread's stream. Before plk_args (the
bound arguments lived in the kernel object) this gave 10-21 wrong results
per thread and "shape symbol M has no value" / "tensor C has no device
pointer" errors.

    python3 tests/runtime/gpu_threads.py WORKDIR     (k.cubin, tma.manifest.json)

Run by tests/runtime/gpu_all.sh. Exit 0 when every call of every thread
was right.
"""

import os
import sys
import threading

import torch

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import pipelink  # noqa: E402

W = os.path.abspath(sys.argv[1])
THREADS, CALLS = 4, 200
k = pipelink.load(os.path.join(W, "k.cubin"), os.path.join(W, "tma.manifest.json"))
torch.cuda.synchronize()
results, barrier = {}, threading.Barrier(THREADS)


def worker(t):
    torch.cuda.set_device(0)
    s = torch.cuda.Stream()
    M, K = 1024 + 128 * t, 512 + 64 * t          # every thread its own shape: the symbols race too
    alpha = float(t + 1)
    with torch.cuda.stream(s):
        a = torch.randn(M, K, device="cuda").bfloat16()
        ref = (a.float() * alpha).bfloat16().view(torch.int16)
        out = torch.empty(M, K, device="cuda", dtype=torch.bfloat16)
        bad = torch.zeros((), device="cuda", dtype=torch.int64)
        errors = []
        barrier.wait()
        for _ in range(CALLS):
            out.fill_(float("nan"))
            try:
                k(A=a, Out=out, alpha=alpha, stream=s)
            except pipelink.PlkError as e:
                errors.append(str(e))
                continue
            bad += (out.view(torch.int16) != ref).any().long()
        s.synchronize()
    results[t] = (int(bad.item()), errors)


threads = [threading.Thread(target=worker, args=(t,)) for t in range(THREADS)]
for th in threads:
    th.start()
for th in threads:
    th.join()
fail = 0
for t in range(THREADS):
    wrong, errors = results.get(t, (None, ["the thread died"]))
    print(f"thread {t}: {CALLS} calls, {wrong} wrong results, {len(errors)} errors"
          + (f" (first: {errors[0]})" if errors else ""))
    fail |= wrong != 0 or bool(errors)
print("threads: FAIL" if fail else "threads: ok")
sys.exit(1 if fail else 0)
