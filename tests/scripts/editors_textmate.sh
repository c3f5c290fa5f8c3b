#!/bin/bash
# TextMate grammar (editors/vscode/syntaxes/plk.tmLanguage.json) through a real
# engine (PyPI babi, on Oniguruma): every probe of tests/editors/plkref.py
# carries the scope its class calls for, and the scopes of examples/*.plk and
# tests/editors/samples/*.plk equal the snapshots tests/editors/*.snap
# (UPDATE=1 rewrites them). Exit 0 pass, 1 fail, 77 skip.
cd "$(dirname "$0")/../.." || exit 1
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
python3 -c 'import babi.highlight' 2>/dev/null ||
	{ echo "skip: no TextMate engine: pip install babi (scripts/install-editor-deps.sh)"; exit 77; }
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' editors/vscode/package.json || exit 1
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' editors/vscode/language-configuration.json || exit 1
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob
files=(examples/*.plk components/*/*.plk tests/editors/samples/*.plk)
python3 tests/editors/plkref.py probes "$tmp" "${files[@]}" || exit 1
timeout 120 python3 tests/editors/tm_snap.py "$tmp/probes.tsv" "${files[@]}"
