#!/bin/bash
# Replays the fuzz seed corpora through the fuzz targets, built with ASan
# and UBSan: the front end's seeds and every golden input; the object
# reader's generated ELF seeds (fuzz_object.c, SEEDS), its text seeds and
# the committed objects; the runtime's manifest reader on every manifest
# the tests and examples have (fuzz_manifest.c); the check stages on the
# examples and goldens (fuzz_check.c). None may crash or report; and plkc
# names the error of each damaged ELF seed.
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
"$out/replay_object" "$out"/objseeds/* tests/fuzz/objects/* tests/objects/*.elf tests/objects/elf.bin || exit 1
# the runtime's manifest parser and launch plan on the runtime tests'
# manifests, those of the examples and the manifest fuzzer's finds
mkdir -p "$out/manifests"
for f in examples/*.plk; do
	"${PLKC:-$PWD/$B/plkc}" "$f" -arch sm_90a --emit=manifest -o "$out/manifests/$(basename "$f" .plk).json" 2>/dev/null
done
cc $SAN -DREPLAY -Iruntime -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$out/replay_manifest" \
	tests/fuzz/fuzz_manifest.c runtime/json.c runtime/expr.c runtime/manifest.c runtime/plan.c || exit 1
"$out/replay_manifest" tests/runtime/*.manifest.json tests/fuzz/manifests/* "$out"/manifests/*.json || exit 1
# the stages after the parser (resolve, check, place, the monolith and
# the glue's IR, a megakernel's schedule: fuzz_check.c) on the examples,
# the megakernel and check goldens and the recipes the mutation campaigns
# found; linked as plkc is (the Makefile's LDLIBS)
ldlibs=$(make -s --no-print-directory print-ldlibs) || exit 1
cc $SAN -DREPLAY -I"${CUDA_HOME:-/usr/local/cuda}/include" -o "$out/replay_check" tests/fuzz/fuzz_check.c \
	"$B/libplkc.a" $ldlibs || exit 1
PLK_FUZZ_ROOT=$PWD "$out/replay_check" examples/*.plk tests/mega/*.plk tests/check/*.plk tests/fuzz/recipes/* || exit 1
# and plkc says what is wrong with each seed (a cut table or e_shnum 0xFFFF
# was "carries no contract"; a NOBITS section a SIGSEGV)
PLKC=${PLKC:-$PWD/$B/plkc}
fail=0
while read -r seed want; do
	got=$("$PLKC" --emit=contract "$out/objseeds/$seed" 2>&1)
	rc=$?
	if [ "$want" = ok ]; then
		[ $rc -eq 0 ] || { echo "$seed: expected its contract, got exit $rc: $got"; fail=1; }
	elif [ $rc -ne 1 ] || ! grep -q "error\[$want\]" <<<"$got"; then
		echo "$seed: expected error[$want], got exit $rc: $(head -c 600 <<<"$got")"; fail=1
	fi
done <<'SEEDS'
whole.o ok
shnum_extended.o ok
format1.o E0204
nobits_contract.o E0204
nobits_fatbin.o E0204
cut_table.o E0204
shnum_ffff.o E0204
huge_size.o E0204
names_open.o E0204
code_changed.o E0215
SEEDS
exit $fail
