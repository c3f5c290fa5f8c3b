#!/bin/bash
# The readers of untrusted input under MemorySanitizer (clang-14), which
# finds what ASan and UBSan cannot: a read of memory never written. The
# runtime's unit tests (json.c, expr.c, manifest.c, plan.c, cubin.c), and
# the fuzz targets of the front end, the object reader and the manifest
# reader on their inputs (tests/fuzz/replay_readers.sh, as fuzz_replay.sh
# runs them under ASan and UBSan). Only code without uninstrumented
# libraries goes here (the check stages link LLVM and libNVVM:
# fuzz_replay.sh runs them under ASan). Skipped without clang-14.
B=${1:-build}
command -v clang-14 >/dev/null || { echo "skip: no clang-14 for MemorySanitizer"; exit 77; }
out="$B/msan"
mkdir -p "$out"
CUDA_INC="${CUDA_HOME:-/usr/local/cuda}/include"
MSAN="clang-14 -g -O1 -fsanitize=memory -fsanitize-memory-track-origins -fno-omit-frame-pointer"
export MSAN_OPTIONS=halt_on_error=1:exitcode=86
RT="runtime/json.c runtime/expr.c runtime/manifest.c runtime/plan.c"

# the runtime's pure part: its unit tests (cuerrors.c's table is generated
# by the runtime's Makefile)
make -s -C runtime B="$PWD/$out/rt" "$PWD/$out/rt/cuda_errors.inc" >/dev/null || exit 1
$MSAN -D_GNU_SOURCE -Iruntime -I"$out/rt" -I"$CUDA_INC" -o "$out/test_runtime" tests/runtime/test_runtime.c $RT \
	runtime/cubin.c runtime/cuerrors.c || exit 1
"$out/test_runtime" || exit 1

# the readers' fuzz targets on their inputs
bash tests/fuzz/replay_readers.sh "$B" "$out" $MSAN || exit 1
