#!/bin/bash
# Replays the fuzz seed corpora through the fuzz targets, built with ASan
# and UBSan: the readers' (tests/fuzz/replay_readers.sh: the front end, the
# object reader, the runtime's manifest reader); the check stages on the
# examples and goldens (fuzz_check.c). None may crash or report; and plkc
# names the error of each damaged ELF seed.
B=${1:-build}
out="$B/fuzz-replay"
SAN="-g -O1 -fsanitize=address,undefined -fno-sanitize-recover=undefined"
bash tests/fuzz/replay_readers.sh "$B" "$out" cc $SAN || exit 1
# the stages after the parser (resolve, check, place, the monolith and
# the glue's IR, a megakernel's schedule: fuzz_check.c) on the examples,
# the megakernel and check goldens and the recipes the mutation campaigns
# found; linked as plkc is (the Makefile's LDLIBS)
ldlibs=$(make -s --no-print-directory print-ldlibs) || exit 1
cc $SAN -D_GNU_SOURCE -Icompiler -Igrammar -I$B/gen -DREPLAY -I"${CUDA_HOME:-/usr/local/cuda}/include" \
	-o "$out/replay_check" tests/fuzz/fuzz_check.c \
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
