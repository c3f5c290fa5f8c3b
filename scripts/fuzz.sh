#!/bin/sh
# scripts/fuzz.sh [SECONDS]: fuzz the front end with libFuzzer (clang-14),
# ASan and UBSan, starting from tests/fuzz/corpus plus the golden inputs.
# New interesting inputs go to build/fuzz/corpus; crashes to build/fuzz/.
set -e
secs=${1:-60}
B=build/fuzz
mkdir -p $B/gen $B/corpus
bison -Wall -Werror --defines=$B/gen/parser.h -o $B/gen/parser.c grammar/parser.y
re2c -W --no-generation-date --no-version -o $B/gen/lexer.c grammar/lexer.re
clang-14 -g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined \
	-D_GNU_SOURCE -Icompiler -Igrammar -I$B/gen -o $B/fuzz_frontend \
	tests/fuzz/fuzz_frontend.c compiler/arena.c compiler/diag.c compiler/sys.c compiler/ast.c compiler/eval.c \
	$B/gen/lexer.c $B/gen/parser.c
cp tests/fuzz/corpus/* tests/parse/*.plk tests/diag/*.plk examples/*.plk $B/corpus/ 2>/dev/null || true
cd $B
./fuzz_frontend -max_total_time="$secs" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
	-dict=../../tests/fuzz/plk.dict -print_final_stats=1 corpus
