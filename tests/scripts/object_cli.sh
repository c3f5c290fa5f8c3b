#!/bin/bash
# plkc -c builds a component object that carries its contract;
# --emit=contract prints the contract back; building again from that text
# gives an object with the same content hash; damaged and foreign files get
# their own errors.
. "$(dirname "$0")/common.bash"
need_nvcc
command -v objcopy >/dev/null 2>&1 || { echo "no objcopy"; exit 77; }
fail() { echo "object_cli: $*"; exit 1; }

"$PLKC" -c tests/objects/add.plk -arch sm_90a -o "$tmp/add.o" || fail "plkc -c failed"
"$PLKC" --emit=contract "$tmp/add.o" >"$tmp/a.plk" || fail "--emit=contract failed"
grep -q '^component plk_test_add(N = 3, M = 6, K = -1) {$' "$tmp/a.plk" || fail "unexpected contract: $(cat "$tmp/a.plk")"
objcopy --dump-section .plk.contract="$tmp/sec" "$tmp/add.o" "$tmp/junk.o" || fail "no .plk.contract section"
grep -q '^arches sm_90a$' "$tmp/sec" || fail "section header lacks the arches: $(head -n 9 "$tmp/sec")"

# Without -arch, -c builds every arch the contract allows (add.plk: arch >= sm_80;
# sm_80's LTO-IR serves sm_90 and sm_100), as E0206 and E0210's pages say.
"$PLKC" -c tests/objects/add.plk -o "$tmp/all.o" || fail "plkc -c without -arch failed"
objcopy --dump-section .plk.contract="$tmp/secall" "$tmp/all.o" "$tmp/junk.o"
grep -q '^arches sm_80 sm_90a sm_100a$' "$tmp/secall" || fail "default arches: $(grep '^arches' "$tmp/secall")"

# Round trip: the printed contract, built again beside the same source,
# is the same object (same hash), and prints the same contract.
cp tests/objects/add.cu "$tmp/"
"$PLKC" -c "$tmp/a.plk" -arch sm_90a -o "$tmp/again.o" || fail "plkc -c of the printed contract failed"
"$PLKC" --emit=contract "$tmp/again.o" >"$tmp/b.plk" || fail "--emit=contract of the rebuilt object failed"
# (the digest covers the code, which names the source's path: it may differ)
diff <(grep -Ev '^// (object|digest)' "$tmp/a.plk") <(grep -Ev '^// (object|digest)' "$tmp/b.plk") ||
	fail "contract changed on a round trip"
objcopy --dump-section .plk.contract="$tmp/sec2" "$tmp/again.o" "$tmp/junk.o"
[ "$(grep '^hash ' "$tmp/sec")" = "$(grep '^hash ' "$tmp/sec2")" ] || fail "content hash changed on a round trip"

# A contract with rings read ahead and kept registers (attn_core: `ahead(AHEAD)`,
# `regs next: ...`) prints them back, and its printed text builds the same contract.
"$PLKC" -c components/attention/attn_core.plk -arch sm_90a -o "$tmp/core.o" || fail "plkc -c attn_core failed"
"$PLKC" --emit=contract "$tmp/core.o" >"$tmp/core.plk" || fail "--emit=contract of attn_core failed"
grep -q '^  in k: tile<bf16, BN x HD, sw128> per ceil_div(SKV, BN) split ahead(AHEAD)$' "$tmp/core.plk" &&
	grep -q '^  regs next: AHEAD \* (BN / 2 + 2)$' "$tmp/core.plk" || fail "attn_core's contract: $(cat "$tmp/core.plk")"
cp components/attention/attn_core.cu components/attention/attn.cuh "$tmp/"
"$PLKC" -c "$tmp/core.plk" -arch sm_90a -o "$tmp/core2.o" || fail "plkc -c of attn_core's printed contract failed"
"$PLKC" --emit=contract "$tmp/core2.o" >"$tmp/core2.plk" || fail "--emit=contract of the rebuilt attn_core failed"
diff <(grep -Ev '^// (object|digest)' "$tmp/core.plk") <(grep -Ev '^// (object|digest)' "$tmp/core2.plk") ||
	fail "attn_core's contract changed on a round trip"

# Errors: exit status 1 and the code.
expect() {   # CODE FILE
	out=$("$PLKC" --emit=contract "$2" 2>&1)
	rc=$?
	[ $rc -eq 1 ] && grep -q "error\[$1\]" <<<"$out" || fail "$2: expected error[$1], exit 1; got exit $rc: $out"
}
expect E0204 tests/objects/truncated.elf
expect E0205 tests/objects/nocontract.elf
expect E0207 tests/objects/add.plk
expect E0201 "$tmp/absent.o"
head -c 3000 "$tmp/add.o" >"$tmp/cut.o"
expect E0204 "$tmp/cut.o"
exit 0
