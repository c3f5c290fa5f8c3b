#!/bin/bash
# E0504 when nvJitLink finds a symbol nothing defines: a component whose
# source calls a device function no object provides fails to link with
# nvJitLink's log and the help about entries and ABI functions, but not
# the help about --engine-lib (no engine in the link). A component with
# `engine nvshmem` calling an undefined `nvshmem...` function gets that
# help too, and not with --engine-lib (the library is in the link then).
# Exit 0 pass, 1 fail, 77 skip (no nvcc); the engine half is skipped
# without NVSHMEM (pip install nvidia-nvshmem-cu13), said on stdout.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -x "$CUDA_HOME/bin/nvcc" ] || { echo "skip: no nvcc under $CUDA_HOME"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
export PLKC_CACHE=${PLKC_CACHE:-$tmp/cache}

# recipe NAME ENGINE CALLEE: a one-warp component whose entry calls CALLEE
recipe() {
	cat >"$tmp/$1.cu" <<CU
#include "plk.cuh"
$( [ -n "$2" ] && echo '#include <nvshmem.h>' )
extern "C" __device__ void $3(void);
PLK_ENTRY void plk_$1(int inst, int tile_m, int tile_n)
{
	if (tile_m >= 0 && threadIdx.x == 0)
		$3();
}
CU
	cat >"$tmp/$1.plk" <<PLK
component $1 {
  source "$1.cu"
  entry plk_$1
  arch >= sm_80
  warps 1
$( [ -n "$2" ] && echo "  engine $2" )
}
kernel k() {
  grid tiles(1, 1)
  c = $1()
}
PLK
}

recipe miss "" plk_test_undefined
out=$("$PLKC" "$tmp/miss.plk" -arch sm_90a -o "$tmp/miss.cubin" 2>&1)
rc=$?
[ $rc -eq 1 ] || no "an undefined call linked with exit $rc"
grep -q 'error\[E0504\]: nvJitLink failed to link `k`' <<<"$out" || no "no E0504: $out"
grep -q 'plk_test_undefined' <<<"$out" || no "nvJitLink's log does not name the symbol: $out"
grep -q 'an undefined symbol is an `entry`' <<<"$out" || no "no help about entries: $out"
grep -q -- '--engine-lib' <<<"$out" && no "the --engine-lib help shows for a kernel without an engine"
[ -e "$tmp/miss.cubin" ] && no "a cubin was written"

NV=${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem as m; print(m.__path__[0])' 2>/dev/null)}
if [ -f "$NV/include/nvshmem.h" ]; then
	recipe emiss nvshmem nvshmemx_plk_test_undefined
	out=$("$PLKC" "$tmp/emiss.plk" -arch sm_90a -o "$tmp/emiss.cubin" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || no "an undefined engine call linked with exit $rc"
	grep -q 'error\[E0504\]' <<<"$out" || no "no E0504 for the engine call: $out"
	grep -q -- 'link with --engine-lib' <<<"$out" || no "no --engine-lib help for an engine's kernel: $out"
	out=$("$PLKC" "$tmp/emiss.plk" -arch sm_90a --engine-lib -o "$tmp/emiss.cubin" 2>&1)
	rc=$?
	[ $rc -eq 1 ] || no "with --engine-lib, the undefined engine call linked with exit $rc"
	grep -q 'error\[E0504\]' <<<"$out" || no "no E0504 with --engine-lib: $out"
	grep -q -- 'link with --engine-lib' <<<"$out" && no "the --engine-lib help shows with --engine-lib"
else
	echo "note: the engine half skipped (no NVSHMEM at ${NV:-the nvidia.nvshmem wheel})"
fi
exit $fail
