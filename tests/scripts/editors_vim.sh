#!/bin/bash
# Vim (batch mode, no vimrc, editors/vim on 'runtimepath'): the syntax group
# at every probe of tests/editors/plkref.py (each token of examples/*.plk and
# tests/editors/samples/*.plk, each lexer keyword and stdlib name) must be
# the one its class calls for; plus filetype, commentstring, indentation of a
# sample and the plkc quickfix format. Exit 0 pass, 1 fail, 77 skip.
cd "$(dirname "$0")/../.." || exit 1
command -v vim >/dev/null || { echo "skip: vim not found (scripts/install-editor-deps.sh installs it)"; exit 77; }
command -v python3 >/dev/null || { echo "skip: python3 not found"; exit 77; }
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
shopt -s nullglob
python3 tests/editors/plkref.py probes "$tmp" examples/*.plk components/*/*.plk tests/editors/samples/*.plk || exit 1
plkc=()
if [ -x "${PLKC:-}" ]; then    # tests/run.sh sets it: also run :make through plkc
	printf 'kernel k( {\n}\n\n"unterminated\n' >"$tmp/bad.plk"
	plkc=(--cmd "let g:plkc = '$PLKC' | let g:bad = '$tmp/bad.plk'")
fi
timeout 60 vim -Es -u NONE -N -i NONE --cmd 'set rtp^=editors/vim' \
	--cmd "let g:probes = '$tmp/probes.tsv' | let g:out = '$tmp/got.tsv' | let g:indent_src = 'tests/editors/samples/sample_gemm.plk'" \
	"${plkc[@]}" -S tests/editors/vim_probe.vim </dev/null
[ -s "$tmp/got.tsv" ] || { echo "vim wrote no results (exit $?)"; exit 1; }
python3 tests/editors/plkref.py compare vim "$tmp/got.tsv"
