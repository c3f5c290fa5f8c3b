#!/bin/bash
# Every Python file of the tree compiles: the benchmark and GPU scripts
# run only on a GPU host, so a syntax error in one would otherwise be
# found there, in a GPU session. (Compiled into a temporary directory:
# nothing is written beside the sources.)
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || { echo "skip: not a git checkout"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
git ls-files -z '*.py' | python3 -c '
import os, py_compile, sys
files = [f for f in sys.stdin.read().split("\0") if f]
bad = 0
for i, f in enumerate(files):
    try:
        py_compile.compile(f, cfile=os.path.join(sys.argv[1], "%d.pyc" % i), doraise=True)
    except py_compile.PyCompileError as e:
        print(e.msg)
        bad += 1
print("%d Python files, %d that do not compile" % (len(files), bad))
sys.exit(1 if bad or not files else 0)' "$tmp"
