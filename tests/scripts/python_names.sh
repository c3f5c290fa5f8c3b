#!/bin/bash
# No Python file of the tree uses a name before a later assignment in the
# same function makes it local there (pyflakes' "referenced before
# assignment"): an import shadowed that way raises UnboundLocalError only
# when the line runs, and the benchmark and GPU scripts run only on a GPU
# host (bench/shape_suite.py's clock column did, 39bed5e). Only that
# message fails the test: pyflakes' other reports (names deleted after a
# lambda that used them was called) are not errors here.
# Exit 0 pass, 1 fail, 77 skip.
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
python3 -c 'import pyflakes' 2>/dev/null || { echo "skip: no pyflakes (.ci/run installs it)"; exit 77; }
command -v git >/dev/null && git rev-parse --git-dir >/dev/null 2>&1 || { echo "skip: not a git checkout"; exit 77; }
out=$(git ls-files -z '*.py' | xargs -0 python3 -m pyflakes 2>&1)
n=$(git ls-files '*.py' | wc -l)
bad=$(grep 'referenced before assignment' <<<"$out")
[ -z "$bad" ] || { printf '%s\n' "$bad"; echo "python_names: $(grep -c . <<<"$bad") of $n files' names used before assignment"; exit 1; }
echo "python_names: $n Python files, no name used before its assignment"
