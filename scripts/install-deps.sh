#!/bin/sh
# Installs what building and testing plkc needs on Debian, when missing.
#   --check-or-install  install only what is missing (make calls this)
set -e
need=""
command -v re2c >/dev/null 2>&1 || need="$need re2c"
command -v bison >/dev/null 2>&1 || need="$need bison"
command -v llvm-config-14 >/dev/null 2>&1 || need="$need llvm-14-dev"
[ -f /usr/include/gelf.h ] || need="$need libelf-dev"
command -v objcopy >/dev/null 2>&1 || need="$need binutils"
command -v clang-14 >/dev/null 2>&1 || need="$need clang-14"
dpkg -s libclang-rt-14-dev >/dev/null 2>&1 || need="$need libclang-rt-14-dev"
if [ "$1" = "--with-editors" ]; then
	command -v vim >/dev/null 2>&1 || need="$need vim"
	command -v emacs >/dev/null 2>&1 || need="$need emacs-nox"
fi
[ -z "$need" ] && exit 0
echo "install-deps: installing$need" >&2
SUDO=""; [ "$(id -u)" = 0 ] || SUDO=sudo
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends $need >/dev/null
