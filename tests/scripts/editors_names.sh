#!/bin/bash
# The editor files know every keyword of grammar/lexer.re and every name of
# stdlib/*.def: the name lists in editors/ must equal what
# tests/editors/plkref.py extracts (`python3 tests/editors/plkref.py sync`
# regenerates them), and the extractors pass their self-test (they fail
# when they find no keyword). Exit 0 pass, 1 fail, 77 skip.
cd "$(dirname "$0")/../.." || exit 1
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
python3 tests/editors/plkref.py selftest || exit 1
python3 tests/editors/plkref.py names || exit 1
if ! python3 tests/editors/plkref.py sync --check; then
	echo "the editor files lack names of grammar/lexer.re or stdlib/*.def:"
	echo "run: python3 tests/editors/plkref.py sync, then review and commit editors/"
	exit 1
fi
