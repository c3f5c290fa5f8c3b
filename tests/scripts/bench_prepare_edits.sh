#!/bin/bash
# bench/prepare.py's edits of one variant of a select: an edit whose text
# matches only another kernel's lines is refused, naming both (gemm_n96's
# multicast edit matched gemm_odd's lines once gemm_n96's own had
# changed, and built gemm_n96 unchanged); one that touches its own
# kernel, or lines outside every kernel (a `use`), or a missing text, as
# before. Exit 0 pass, 1 fail, 77 skip.
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/r.plk" <<'PLK'
use "a.plk"

kernel k1(A: tensor<bf16>[M, K]) {
  const BM = 128, TURN = 2
  load = a(x = A)
}

kernel k2(A: tensor<bf16>[M, K]) {
  const BM = 128, TURN = 2, BHINT = 1
  load = a(x = A)
}
PLK
python3 - "$tmp/r.plk" <<'PY'
import os, sys
sys.path.insert(0, "bench")
import prepare
path = sys.argv[1]
bad = []


def expect(edits, kernel, want):
    """want: None (applies) or a piece of the message prepare exits with."""
    try:
        out = prepare.edited("cfg", path, edits, kernel)
        os.remove(out)
        got = None
    except SystemExit as e:
        got = str(e)
    if (want is None) != (got is None) or (want and want not in got):
        bad.append("%s for %s: %r, want %r" % (edits, kernel, got, want))


expect([("TURN = 2\n", "TURN = 2, MCAST = 2\n")], "k2", "changes k1 in %s, not k2" % path)
expect([("TURN = 2\n", "TURN = 2, MCAST = 2\n")], "k1", None)
expect([("TURN = 2", "TURN = 1")], "k2", None)              # both kernels: its own among them
expect([('use "a.plk"', 'use "b.plk"')], "k2", None)          # outside every kernel
expect([("BHINT = 1", "BHINT = 0")], "k2", None)
expect([("BHINT = 1", "BHINT = 0")], "k1", "changes k2 in %s, not k1" % path)
expect([("BHINT = 1", "BHINT = 0")], None, None)            # a whole select's edit: not checked
expect([("NOPE", "x")], "k1", "`NOPE` not in")
expect([("TURN = 2\n", "TURN = 2, CH = 8\n"), ("CH = 8", "CH = 24")], "k1", None)   # on the edited text
for b in bad:
    print("FAIL:", b)
sys.exit(1 if bad else 0)
PY
