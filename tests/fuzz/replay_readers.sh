#!/bin/bash
# tests/fuzz/replay_readers.sh B OUT CC...: the fuzz targets of the readers
# of untrusted input, built by CC... (a compiler and its sanitizer flags)
# in their REPLAY form into OUT, each run on its inputs: the front end on
# its seeds, the goldens and the examples; the object reader on the ELF
# seeds fuzz_object.c writes (SEEDS, left in OUT/objseeds), its text seeds
# and the committed objects; the runtime's manifest reader and launch plan
# on the runtime tests' manifests, the manifest fuzzer's finds and those
# of the examples ($PLKC, else B/plkc). Exits non-zero at the first build
# failure or report. Shared by tests/scripts/fuzz_replay.sh (ASan + UBSan)
# and msan.sh (MemorySanitizer).
B=$1 out=$2
shift 2
CCS=("$@")
mkdir -p "$out/objseeds" "$out/manifests"
INC="-D_GNU_SOURCE -Icompiler -Igrammar -I$B/gen"
FRONT="compiler/arena.c compiler/diag.c compiler/sys.c compiler/ast.c compiler/eval.c $B/gen/lexer.c $B/gen/parser.c"
"${CCS[@]}" $INC -DREPLAY -o "$out/replay_frontend" tests/fuzz/fuzz_frontend.c $FRONT || exit 1
"$out/replay_frontend" tests/fuzz/corpus/* tests/parse/*.plk tests/diag/*.plk examples/*.plk || exit 1
"${CCS[@]}" $INC -DREPLAY -o "$out/replay_object" tests/fuzz/fuzz_object.c $FRONT compiler/sha256.c \
	compiler/stdlib.c || exit 1
"${CCS[@]}" $INC -DSEEDS -o "$out/object_seeds" tests/fuzz/fuzz_object.c $FRONT compiler/sha256.c \
	compiler/stdlib.c || exit 1
"$out/object_seeds" "$out/objseeds" >/dev/null || exit 1
"$out/replay_object" "$out"/objseeds/* tests/fuzz/objects/* tests/objects/*.elf tests/objects/elf.bin || exit 1
for f in examples/*.plk; do
	"${PLKC:-$PWD/$B/plkc}" "$f" -arch sm_90a --emit=manifest -o "$out/manifests/$(basename "$f" .plk).json" \
		2>/dev/null
done
"${CCS[@]}" -D_GNU_SOURCE -DREPLAY -Iruntime -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$out/replay_manifest" \
	tests/fuzz/fuzz_manifest.c runtime/json.c runtime/expr.c runtime/manifest.c runtime/plan.c || exit 1
"$out/replay_manifest" tests/runtime/*.manifest.json tests/fuzz/manifests/* "$out"/manifests/*.json || exit 1
