#!/bin/bash
# Replays the fuzz seed corpora through both fuzz targets, built with ASan
# and UBSan: the front end's seeds and every golden input; the object
# reader's generated ELF seeds (fuzz_object.c, SEEDS), its text seeds and
# the committed objects. None may crash or report.
B=${1:-build}
out="$B/fuzz-replay"
mkdir -p "$out/objseeds"
SAN="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE -Icompiler -Igrammar -I$B/gen"
FRONT="compiler/arena.c compiler/diag.c compiler/sys.c compiler/ast.c compiler/eval.c $B/gen/lexer.c $B/gen/parser.c"
cc $SAN -DREPLAY -o "$out/replay" tests/fuzz/fuzz_frontend.c $FRONT || exit 1
"$out/replay" tests/fuzz/corpus/* tests/parse/*.plk tests/diag/*.plk || exit 1
cc $SAN -DREPLAY -o "$out/replay_object" tests/fuzz/fuzz_object.c $FRONT compiler/sha256.c compiler/stdlib.c || exit 1
cc $SAN -DSEEDS -o "$out/object_seeds" tests/fuzz/fuzz_object.c $FRONT compiler/sha256.c compiler/stdlib.c || exit 1
"$out/object_seeds" "$out/objseeds" >/dev/null || exit 1
"$out/replay_object" "$out"/objseeds/* tests/fuzz/objects/* tests/objects/*.elf tests/objects/elf.bin
