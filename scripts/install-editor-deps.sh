#!/bin/sh
# Installs what the editor tests (tests/scripts/editors_*.sh) need, when
# missing: Vim and Emacs from Debian, and a TextMate grammar engine from PyPI
# (babi, whose highlighter runs .tmLanguage.json grammars on Oniguruma through
# onigurumacffi). Without them those tests skip (exit 77).
#   --check   only report what is missing (exit 1 if anything is)
set -e
BABI=babi==1.8.0
PY=${PYTHON:-python3}
need=""
command -v vim >/dev/null 2>&1 || need="$need vim"
command -v emacs >/dev/null 2>&1 || need="$need emacs-nox"
command -v "$PY" >/dev/null 2>&1 || need="$need python3 python3-pip"
pip_need=""
"$PY" -c 'import babi.highlight' >/dev/null 2>&1 || pip_need=$BABI
if [ "$1" = "--check" ]; then
	[ -z "$need$pip_need" ] && exit 0
	echo "install-editor-deps: missing:$need${pip_need:+ $pip_need (pip)}" >&2
	exit 1
fi
if [ -n "$need" ]; then
	echo "install-editor-deps: installing$need" >&2
	SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
	export DEBIAN_FRONTEND=noninteractive
	$SUDO apt-get update -qq
	$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
	"$PY" -c 'import babi.highlight' >/dev/null 2>&1 || pip_need=$BABI
fi
if [ -n "$pip_need" ]; then
	echo "install-editor-deps: pip installing $pip_need" >&2
	# Debian's own python3 refuses a system-wide pip install (PEP 668).
	"$PY" -m pip install -q "$pip_need" 2>/dev/null ||
		"$PY" -m pip install -q --break-system-packages "$pip_need"
	"$PY" -c 'import babi.highlight'
fi
