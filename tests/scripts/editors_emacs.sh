#!/bin/bash
# Emacs (batch mode, ERT): the face at every probe of tests/editors/plkref.py
# (each token of examples/*.plk and tests/editors/samples/*.plk, each lexer
# keyword and stdlib name) must be the one its class calls for; plus
# auto-mode-alist, comments, indentation and the plkc compilation regexp.
# Exit 0 pass, 1 fail, 77 skip.
cd "$(dirname "$0")/../.." || exit 1
command -v emacs >/dev/null || { echo "skip: emacs not found (scripts/install-editor-deps.sh installs emacs-nox)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob
python3 tests/editors/plkref.py probes "$tmp" examples/*.plk components/*/*.plk tests/editors/samples/*.plk || exit 1
PLK_PROBES="$tmp/probes.tsv" timeout 120 emacs -Q --batch -L editors/emacs \
	-l editors/emacs/plk-mode.el -l tests/editors/plk-mode-test.el \
	-f ert-run-tests-batch-and-exit </dev/null >"$tmp/log" 2>&1
rc=$?
grep -v '^Loading\|^   passed' "$tmp/log" | tail -n 60
[ $rc -eq 0 ] || exit 1
