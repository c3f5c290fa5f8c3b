#!/bin/bash
# The readers of untrusted input under MemorySanitizer (clang-14), which
# finds what ASan and UBSan cannot: a read of memory never written. The
# runtime's unit tests (json.c, expr.c, manifest.c, plan.c, cubin.c) and
# its manifest reader on every manifest the tests, the examples and the
# manifest fuzzer's finds have; the front end on its fuzz seeds and
# goldens; the object reader on its generated and committed seeds. Only
# code without uninstrumented libraries goes here (the check stages link
# LLVM and libNVVM: fuzz_replay.sh runs them under ASan). Skipped without
# clang-14.
B=${1:-build}
command -v clang-14 >/dev/null || { echo "skip: no clang-14 for MemorySanitizer"; exit 77; }
out="$B/msan"
mkdir -p "$out/objseeds" "$out/manifests"
CUDA_INC="${CUDA_HOME:-/usr/local/cuda}/include"
MSAN="clang-14 -g -O1 -fsanitize=memory -fsanitize-memory-track-origins -fno-omit-frame-pointer -D_GNU_SOURCE"
export MSAN_OPTIONS=halt_on_error=1:exitcode=86
RT="runtime/json.c runtime/expr.c runtime/manifest.c runtime/plan.c"

# the runtime's pure part: its unit tests (cuerrors.c's table is generated
# by the runtime's Makefile)
make -s -C runtime B="$PWD/$out/rt" "$PWD/$out/rt/cuda_errors.inc" >/dev/null || exit 1
$MSAN -Iruntime -I"$out/rt" -I"$CUDA_INC" -o "$out/test_runtime" tests/runtime/test_runtime.c $RT \
	runtime/cubin.c runtime/cuerrors.c || exit 1
"$out/test_runtime" || exit 1

# the manifest reader and launch plan
for f in examples/*.plk; do
	"${PLKC:-$PWD/$B/plkc}" "$f" -arch sm_90a --emit=manifest -o "$out/manifests/$(basename "$f" .plk).json" \
		2>/dev/null
done
$MSAN -DREPLAY -Iruntime -I"$CUDA_INC" -o "$out/replay_manifest" tests/fuzz/fuzz_manifest.c $RT || exit 1
"$out/replay_manifest" tests/runtime/*.manifest.json tests/fuzz/manifests/* "$out"/manifests/*.json || exit 1

# the front end and the object reader
FRONT="compiler/arena.c compiler/diag.c compiler/sys.c compiler/ast.c compiler/eval.c $B/gen/lexer.c $B/gen/parser.c"
INC="-Icompiler -Igrammar -I$B/gen"
$MSAN $INC -DREPLAY -o "$out/replay_frontend" tests/fuzz/fuzz_frontend.c $FRONT || exit 1
"$out/replay_frontend" tests/fuzz/corpus/* tests/parse/*.plk tests/diag/*.plk examples/*.plk || exit 1
$MSAN $INC -DSEEDS -o "$out/object_seeds" tests/fuzz/fuzz_object.c $FRONT compiler/sha256.c compiler/stdlib.c || exit 1
$MSAN $INC -DREPLAY -o "$out/replay_object" tests/fuzz/fuzz_object.c $FRONT compiler/sha256.c compiler/stdlib.c || exit 1
"$out/object_seeds" "$out/objseeds" >/dev/null || exit 1
"$out/replay_object" "$out"/objseeds/* tests/fuzz/objects/* tests/objects/*.elf tests/objects/elf.bin || exit 1
