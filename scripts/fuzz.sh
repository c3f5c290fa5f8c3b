#!/bin/sh
# scripts/fuzz.sh [SECONDS] [TARGET]: fuzz with libFuzzer (clang-14), ASan
# and UBSan. TARGET frontend (the default): the lexer, parser and AST dump,
# from tests/fuzz/corpus plus the golden inputs. TARGET object: the object
# reader (objread.c), from the seeds fuzz_object.c writes (SEEDS), the
# text seeds of tests/fuzz/objects and the committed objects of
# tests/objects. TARGET manifest: the runtime's manifest parser and launch
# plan (runtime/json.c, expr.c, manifest.c, plan.c), from the runtime
# tests' manifests and those build/plkc writes for the examples. TARGET
# check: resolve, check, place, the monolith and the glue's IR, and a
# megakernel's schedule and monolith, for sm_90a (tests/fuzz/fuzz_check.c), from the examples, the megakernel goldens and
# tests/fuzz/recipes. New interesting inputs go to build/fuzz/corpus
# (objcorpus, mancorpus, checkcorpus); crashes to build/fuzz/.
#
# FUZZ_SAN=memory: MemorySanitizer (a read of memory never written)
# instead of ASan and UBSan, for every target but check (which links LLVM
# and libNVVM, not built for it).
set -e
secs=${1:-60}
target=${2:-frontend}
case ${FUZZ_SAN:-address} in
address) SANF="-fsanitize=fuzzer,address,undefined -fno-sanitize-recover=undefined" ;;
memory)
	[ "$target" != check ] || { echo "scripts/fuzz.sh: check links LLVM: no MemorySanitizer build" >&2; exit 2; }
	SANF="-fsanitize=fuzzer,memory -fsanitize-memory-track-origins" ;;
*) echo "scripts/fuzz.sh: FUZZ_SAN is address (ASan + UBSan, the default) or memory" >&2; exit 2 ;;
esac
B=build/fuzz
mkdir -p $B/gen $B/corpus $B/objcorpus $B/mancorpus
bison -Wall -Werror --defines=$B/gen/parser.h -o $B/gen/parser.c grammar/parser.y
re2c -W --no-generation-date --no-version -o $B/gen/lexer.c grammar/lexer.re
CFLAGS="-g -O1 $SANF -D_GNU_SOURCE -Icompiler -Igrammar -I$B/gen"
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
manifest)
	CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
	clang-14 -g -O1 $SANF -D_GNU_SOURCE \
		-Iruntime -I"$CUDA_HOME/include" -o $B/fuzz_manifest tests/fuzz/fuzz_manifest.c \
		runtime/json.c runtime/expr.c runtime/manifest.c runtime/plan.c
	cp tests/runtime/*.manifest.json $B/mancorpus/
	if [ -x build/plkc ]; then   # the manifests of the examples (selects and megakernels among them), and
	                             # the int32 and int64 lists' tests
		for f in examples/*.plk tests/cli/manifest_int*.plk tests/cli/mega_manifest_int*.plk; do
			build/plkc "$f" -arch sm_90a --emit=manifest -o "$B/mancorpus/$(basename "$f" .plk).json" 2>/dev/null || true
		done
	fi
	cd $B
	./fuzz_manifest -max_total_time="$secs" -max_len=65536 -timeout=5 -rss_limit_mb=2048 \
		-dict=../../tests/fuzz/manifest.dict -print_final_stats=1 mancorpus
	;;
check)
	CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
	mkdir -p $B/checkcorpus
	clang-14 $CFLAGS -std=c11 -I"$CUDA_HOME/include" -I"$(llvm-config-14 --includedir)" -o $B/fuzz_check \
		tests/fuzz/fuzz_check.c $(ls compiler/*.c | grep -v compiler/main.c) $B/gen/lexer.c $B/gen/parser.c \
		$(make -s --no-print-directory print-ldlibs)
	cp examples/*.plk tests/mega/*.plk tests/fuzz/recipes/* $B/checkcorpus/
	root=$PWD
	cd $B
	PLK_FUZZ_ROOT=$root ./fuzz_check -max_total_time="$secs" -max_len=16384 -timeout=10 -rss_limit_mb=4096 \
		-dict=../../tests/fuzz/plk.dict -print_final_stats=1 checkcorpus
	;;
*)
	echo "usage: scripts/fuzz.sh [SECONDS] [frontend|object|manifest|check]" >&2
	exit 2
	;;
esac
