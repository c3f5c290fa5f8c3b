#!/bin/bash
# The runtime builds with gcc and -lcuda only (the GPU host has no LLVM):
# libplkrt.so, libplkrt.a and plk-run link against the toolkit's libcuda
# stub here; the library exports only the plk_ API and needs nothing but
# libcuda and libc. With the stub as libcuda.so.1, errors carry CUDA's name.
B=${1:-build}
export PYTHONDONTWRITEBYTECODE=1
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -f "$CUDA_HOME/include/cuda.h" ] || { echo "no cuda.h under $CUDA_HOME"; exit 77; }
out="$PWD/$B/runtime-build"
rm -rf "$out"
make -s -C runtime B="$out" CUDA_HOME="$CUDA_HOME" OPT="-O2 -Werror" all || exit 1
for f in libplkrt.so libplkrt.a plk-run; do
	[ -s "$out/$f" ] || { echo "missing $out/$f"; exit 1; }
done
needed=$(objdump -p "$out/libplkrt.so" | awk '/NEEDED/ {print $2}' | sort | tr '\n' ' ')
[ "$needed" = "libc.so.6 libcuda.so.1 " ] || { echo "libplkrt.so needs: $needed"; exit 1; }
bad=$(nm -D --defined-only "$out/libplkrt.so" | awk '{print $3}' | grep -v '^plk_' | grep -v '^_' )
[ -z "$bad" ] || { echo "libplkrt.so exports non-API symbols: $bad"; exit 1; }
if objdump -p "$out/libplkrt.so" "$out/plk-run" | grep -E 'RPATH|RUNPATH' | grep -q stubs; then
	echo "an rpath names the stub directory"; exit 1
fi

# Run against the stub (it answers CUDA_ERROR_STUB_LIBRARY = 34) when
# no driver is installed: plk-run must fail cleanly, naming the call and
# the error.
stub="$CUDA_HOME/lib64/stubs/libcuda.so"
if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 ' && [ -f "$stub" ]; then
	mkdir -p "$out/stub" && ln -sf "$stub" "$out/stub/libcuda.so.1"
	msg=$(LD_LIBRARY_PATH="$out/stub" "$out/plk-run" x.cubin --dim M=1 2>&1); rc=$?
	[ $rc -eq 1 ] || { echo "plk-run on the stub: exit $rc: $msg"; exit 1; }
	# named (from cuda.h: the stub names nothing), and said what it means
	echo "$msg" | grep -q "^plk-run: cuInit: CUDA_ERROR_STUB_LIBRARY (the CUDA toolkit's stub libcuda was loaded" ||
		{ echo "unexpected: $msg"; exit 1; }
	msg=$(LD_LIBRARY_PATH="$out/stub" "$out/plk-run" --bogus 2>&1); rc=$?
	[ $rc -eq 2 ] || { echo "plk-run --bogus: exit $rc: $msg"; exit 1; }
	if command -v python3 >/dev/null; then
		LD_LIBRARY_PATH="$out/stub" PLKRT_LIB="$out/libplkrt.so" python3 - <<'PY' || exit 1
import sys
sys.path.insert(0, "runtime/python")
import plkrt
try:
    plkrt.load("nonexistent.cubin")
except plkrt.PlkError as e:
    assert "cannot open nonexistent.manifest.json" in str(e), e
else:
    sys.exit("load of a missing file did not raise")
PY
	fi
fi
exit 0
