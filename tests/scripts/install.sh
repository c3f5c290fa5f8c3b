#!/bin/bash
# make install into a temporary prefix, then use it as a new user would,
# with no source tree in sight: the installed plkc, from another
# directory and on a cold cache, links a recipe that names the standard
# components by their search path (`use "hopper/tma_load_ab.plk"`);
# --explain reads the installed docs; the installed runtime and header
# build a program; the installed pipelink package finds the installed
# libplkrt and plkc.
B=${1:-build}
case $B in *san*) echo "the install test runs once, with the plain build"; exit 77 ;; esac
command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ] || { echo "no nvcc"; exit 77; }
ROOT=$PWD
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
P=$tmp/prefix
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
make -s B="$B" PREFIX="$P" install >"$tmp/install.log" 2>&1 || { cat "$tmp/install.log"; echo "make install failed"; exit 1; }
for f in bin/plkc bin/plk-run lib/libplkrt.so lib/libplkrt.a include/plkrt.h share/pipelink/stdlib/plk.cuh \
	share/pipelink/stdlib/abi.def share/pipelink/components/hopper/tma_load_ab.plk \
	share/pipelink/components/hopper/tma_load_ab.cu share/pipelink/components/common/acc_store.cuh \
	share/pipelink/docs/errors/E0301.md share/pipelink/examples/gemm_swiglu.plk; do
	[ -s "$P/$f" ] || fail "not installed: $f"
done

# Elsewhere, no PLK_HOME, a cold cache, the source tree out of reach.
W=$tmp/work
mkdir -p "$W"
sed 's|use "../components/|use "|' examples/gemm_swiglu.plk >"$W/swiglu.plk"
grep -q '^use "hopper/tma_load_ab.plk"' "$W/swiglu.plk" || fail "the recipe was not rewritten"
run() { (cd "$W" && env -u PLK_HOME -u PLKC PLKC_CACHE="$W/cache" PATH="$P/bin:/usr/bin:/bin" "$@"); }
o=$(run plkc swiglu.plk -arch sm_90a -o swiglu.cubin -MD 2>&1) || fail "installed plkc: $o"
[ "$(head -c 4 "$W/swiglu.cubin")" = $'\x7fELF' ] || fail "no cubin"
[ -s "$W/swiglu.manifest.json" ] || fail "no manifest"
grep -q "$P/share/pipelink/components/hopper/swiglu_tma.cu" "$W/swiglu.d" || fail "deps: $(cat "$W/swiglu.d")"
grep -q "$ROOT" "$W/swiglu.d" && fail "the installed plkc read the source tree: $(grep "$ROOT" "$W/swiglu.d")"
o=$(run plkc --version) && printf '%s' "$o" | grep -qF "data $P/share/pipelink" || fail "--version: $o"
o=$(run plkc --explain E0301) && [ "$o" = "$(cat docs/errors/E0301.md)" ] || fail "--explain from the install"
# an installed example, linked where it lies
run plkc "$P/share/pipelink/examples/gemm.plk" -o gemm.cubin || fail "installed example"

# The runtime: a C program against the installed header and library.
cat >"$W/use.c" <<'EOF'
#include <plkrt.h>
#include <stdio.h>
int main(void)
{
	char err[256];
	plk_kernel *k = plk_load("none.cubin", NULL, err, sizeof err);
	printf("%s\n", k ? "loaded" : err);
	return 0;
}
EOF
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
cc -I"$P/include" -I"$CUDA_HOME/include" -o "$W/use" "$W/use.c" -L"$P/lib" -lplkrt -L"$CUDA_HOME/lib64/stubs" -lcuda \
	-Wl,-rpath,"$P/lib" || fail "a program against the installed runtime"

# The Python package, as installed (pip --prefix): it finds the installed
# libplkrt and plkc without PLKRT_LIB or PLKC.
site=$(python3 -c 'import sys, sysconfig; print(sysconfig.get_path("purelib", "posix_prefix", {"base": sys.argv[1], "platbase": sys.argv[1]}))' "$P")
[ -f "$site/pipelink/__init__.py" ] || fail "pipelink not installed in $site"
o=$(cd "$W" && env -u PLKRT_LIB -u PLKC PYTHONPATH="$site" PATH="$P/bin:/usr/bin:/bin" python3 -c '
import pipelink
print(pipelink.__file__)
print(pipelink.find_library())
print(pipelink.find_plkc())' 2>&1)
[ "$o" = "$site/pipelink/__init__.py
$P/lib/libplkrt.so
$P/bin/plkc" ] || fail "pipelink from the install: $o"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
exit 0
