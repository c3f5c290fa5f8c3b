"""GPU test of an i64 param's bound expression (tests/cli/manifest_int64.plk):
the glue computes it in long long, so M * N * 4 arrives whole past 32
bits, and the runtime refuses a launch where a step of it would be past
64 bits (the manifest's "int64"), or a step of the i32 param's past 32
("int32"). Needs torch and a GPU.

    python3 tests/gpu/wide.py CUBIN      (its manifest beside it)
"""
import os
import sys

import torch

sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
import pipelink  # noqa: E402

k = pipelink.load(sys.argv[1])
G = 1 << 30
fails = 0


def put(M, N):
    out = torch.full((3,), -7777777777, dtype=torch.int64, device="cuda")   # poisoned
    k(out, M=M, N=N)
    torch.cuda.synchronize()
    return out.tolist()


for M, N in ((3, 5), (32768, 32768), (65535, 65537), (2000000000, 3), (-40000, 70000), (2**31 - 2, 1)):
    want = [M * N * 4, 6 * G + M, M + N]
    got = put(M, N)
    ok = got == want
    fails += not ok
    print(f"{'ok  ' if ok else 'FAIL'}  M={M} N={N}: {got}{'' if ok else f' (want {want})'}")

for M, N, what in ((-2**31, 2**31 - 1, "64-bit long long"), (2**30, 2**30, "32-bit int")):
    try:
        put(M, N)
        print(f"FAIL  M={M} N={N}: launched; want a refusal ({what})")
        fails += 1
    except pipelink.PlkError as e:
        ok = what in str(e)
        fails += not ok
        print(f"{'ok  ' if ok else 'FAIL'}  M={M} N={N} refused: {e}")

print(f"wide: {'all passed' if not fails else f'{fails} failed'}")
sys.exit(1 if fails else 0)
