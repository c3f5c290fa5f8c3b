#!/bin/bash
# Replays the fuzz seed corpus and every golden input through the front
# end, built with ASan and UBSan: none may crash or report.
B=${1:-build}
out="$B/fuzz-replay"
mkdir -p "$out"
cc -g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined -DREPLAY -D_GNU_SOURCE \
	-Icompiler -Igrammar -I"$B/gen" -o "$out/replay" tests/fuzz/fuzz_frontend.c \
	compiler/arena.c compiler/diag.c compiler/sys.c compiler/ast.c compiler/eval.c "$B/gen/lexer.c" "$B/gen/parser.c" || exit 1
"$out/replay" tests/fuzz/corpus/* tests/parse/*.plk tests/diag/*.plk
