#!/bin/sh
# scripts/fuzz.sh [SECONDS] [TARGET]: fuzz with libFuzzer (clang-14), ASan
# and UBSan. TARGET frontend (the default): the lexer, parser and AST dump,
# from tests/fuzz/corpus plus the golden inputs. TARGET object: the object
# reader (objread.c), from the seeds fuzz_object.c writes (SEEDS), the
# text seeds of tests/fuzz/objects and the committed objects of
# tests/objects. New interesting inputs go to build/fuzz/corpus (or
# build/fuzz/objcorpus); crashes to build/fuzz/.
set -e
secs=${1:-60}
target=${2:-frontend}
B=build/fuzz
mkdir -p $B/gen $B/corpus $B/objcorpus
bison -Wall -Werror --defines=$B/gen/parser.h -o $B/gen/parser.c grammar/parser.y
re2c -W --no-generation-date --no-version -o $B/gen/lexer.c grammar/lexer.re
CFLAGS="-g -O1 -fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined -D_GNU_SOURCE -Icompiler -Igrammar -I$B/gen"
FRONT="compiler/arena.c compiler/diag.c compiler/sys.c compiler/ast.c compiler/eval.c $B/gen/lexer.c $B/gen/parser.c"
case $target in
frontend)
	clang-14 $CFLAGS -o $B/fuzz_frontend tests/fuzz/fuzz_frontend.c $FRONT
	cp tests/fuzz/corpus/* tests/parse/*.plk tests/diag/*.plk examples/*.plk $B/corpus/ 2>/dev/null || true
	cd $B
	./fuzz_frontend -max_total_time="$secs" -max_len=4096 -timeout=5 -rss_limit_mb=2048 \
		-dict=../../tests/fuzz/plk.dict -print_final_stats=1 corpus
	;;
object)
	clang-14 $CFLAGS -o $B/fuzz_object tests/fuzz/fuzz_object.c $FRONT compiler/sha256.c compiler/stdlib.c
	cc -g -O1 -DSEEDS -D_GNU_SOURCE -Icompiler -Igrammar -I$B/gen -o $B/object_seeds tests/fuzz/fuzz_object.c \
		$FRONT compiler/sha256.c compiler/stdlib.c
	$B/object_seeds $B/objcorpus
	cp tests/fuzz/objects/* tests/objects/*.elf $B/objcorpus/ 2>/dev/null || true
	cd $B
	./fuzz_object -max_total_time="$secs" -max_len=65536 -timeout=5 -rss_limit_mb=2048 \
		-dict=../../tests/fuzz/object.dict -print_final_stats=1 objcorpus
	;;
*)
	echo "usage: scripts/fuzz.sh [SECONDS] [frontend|object]" >&2
	exit 2
	;;
esac
