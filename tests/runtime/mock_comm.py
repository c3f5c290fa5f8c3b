"""pipelink.Comm against the mock driver and a mock NVSHMEM (run by
tests/scripts/runtime_mock.sh with NVSHMEM_HOME at the mock): the
bootstrap id, one rank of one, symmetric buffers, attaching a kernel
whose manifest names the engine, close; a failing initialisation comes
back as PlkError with NVSHMEM's status by name. Prints "comm python ok".

    python3 tests/runtime/mock_comm.py WORKDIR
"""

import json
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
sys.path.insert(0, os.path.join(HERE, "..", "..", "python"))
import pipelink  # noqa: E402

W = sys.argv[1]
with open(os.path.join(W, "ag.cubin"), "w") as f:
    f.write("MOCKCUBIN\nag_kernel 128 8\n")
with open(os.path.join(W, "ag.manifest.json"), "w") as f:
    json.dump({"plk_manifest": 1, "kernel": "ag_kernel", "entry": "ag_kernel", "engines": ["nvshmem"],
               "block": [128], "grid": {"policy": "tiles", "tiles": [["n", 128]]},
               "tensors": [{"name": "X", "dtype": "f32", "dims": ["n"]}],
               "params": [{"name": "x", "kind": "ptr", "tensor": "X"}]}, f)

if os.environ.get("MOCK_NVSHMEM_FAIL") == "init":
    try:
        pipelink.Comm(0, 1, pipelink.Comm.unique_id())
    except pipelink.PlkError as e:
        assert "NVSHMEMX_ERROR_INTERNAL (7)" in str(e), e
        print("comm python ok")
        sys.exit(0)
    sys.exit("a failing initialisation raised nothing")

uid = pipelink.Comm.unique_id()
assert len(uid) == 128 and uid[0] == 0x5A, uid[:4]
try:
    pipelink.Comm(1, 1, uid)
except pipelink.PlkError as e:
    assert "rank 1 of 1" in str(e), e
else:
    sys.exit("rank 1 of 1 was accepted")
with pipelink.Comm(0, 1, uid) as comm:
    assert (comm.rank, comm.nranks) == (0, 1)
    assert os.environ.get("NVSHMEM_DISABLE_NVLS") == "1"
    p = comm.alloc(4096)
    assert p
    k = pipelink.load(os.path.join(W, "ag.cubin"))
    comm.attach(k)
    comm.barrier(stream=0)
    comm.free(p)
    k.close()
print("comm python ok")
