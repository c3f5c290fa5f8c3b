#!/bin/bash
# The object cache: its key covers every file nvcc reads (an edit to
# components/common/act.cuh rebuilds bias_gelu_tma); an entry is verified on
# use and rebuilt when its code was damaged or replaced; entries are
# written atomically, and what killed runs left is cleaned up; an entry
# that is a device is refused at once, not read. The tests have a cache of
# their own (tests/run.sh), never the user's.
. "$(dirname "$0")/common.bash"
need_nvcc
command -v objcopy >/dev/null 2>&1 || { echo "skip: no objcopy"; exit 77; }
fail() { echo "cache: $*"; exit 1; }
case ${PLKC_CACHE:-} in
"$PWD"/build/*) ;;
*) fail "tests/run.sh must give the tests a cache of their own under build/, not PLKC_CACHE=${PLKC_CACHE:-(unset)}" ;;
esac
export PLKC_CACHE="$tmp/cache"
mkdir -p "$tmp/tree/examples"
cp -r components "$tmp/tree/"
cp examples/gemm_bias_gelu.plk "$tmp/tree/examples/"
rec="$tmp/tree/examples/gemm_bias_gelu.plk"
entry() { ls "$PLKC_CACHE"/bias_gelu_tma-*.o; }
digest() { "$PLKC" "$rec" --emit=map -v 2>"$tmp/log" | awk '/^epi = bias_gelu_tma$/ { on = 1 } on && /digest/ { print $2; exit }'; }

d1=$(digest)
[ ${#d1} -eq 64 ] || fail "no digest for bias_gelu_tma: $(cat "$tmp/log")"
e=$(entry)
m1=$(stat -c %Y.%N "$e" 2>/dev/null || stat -c %Y "$e")
[ "$(digest)" = "$d1" ] && ! grep -q rebuilding "$tmp/log" || fail "a fresh entry was rebuilt: $(cat "$tmp/log")"

# a header two directories away, read through an include of an include
echo "// edited" >>"$tmp/tree/components/common/act.cuh"
digest >/dev/null
grep -q "rebuilding cached object .*bias_gelu_tma-.*: \`.*components/hopper/../common/act.cuh\` changed" "$tmp/log" ||
	fail "editing common/act.cuh did not rebuild bias_gelu_tma: $(cat "$tmp/log")"

# one flipped byte of the entry's LTO-IR: rebuilt, and the link works
e=$(entry)
objcopy --dump-section __nv_relfatbin="$tmp/fat" "$e" "$tmp/junk.o"
size=$(stat -c %s "$tmp/fat")
b=$(od -An -tu1 -j $((size / 2)) -N1 "$tmp/fat" | tr -d ' ')   # inverted: a changed byte whatever it was
printf "\\x$(printf %02x $((b ^ 255)))" | dd of="$tmp/fat" bs=1 seek=$((size / 2)) conv=notrunc status=none
objcopy --update-section __nv_relfatbin="$tmp/fat" "$e" "$tmp/bad.o" && cp "$tmp/bad.o" "$e"
digest >/dev/null
grep -q "rebuilding cached object .*its code does not match its contract" "$tmp/log" ||
	fail "a damaged entry was not rebuilt: $(cat "$tmp/log")"
"$PLKC" "$rec" -arch sm_90a -o "$tmp/k.cubin" 2>"$tmp/err" || fail "link after a damaged entry: $(cat "$tmp/err")"
# other code under the right contract: another component's fatbin
other=$(ls "$PLKC_CACHE"/store_bf16_tma-*.o 2>/dev/null | head -n 1)
[ -n "$other" ] || other=$(ls "$PLKC_CACHE"/tma_load_ab-*.o | head -n 1)
objcopy --dump-section __nv_relfatbin="$tmp/fat2" "$other" "$tmp/junk.o"
objcopy --update-section __nv_relfatbin="$tmp/fat2" "$e" "$tmp/bad.o" && cp "$tmp/bad.o" "$e"
d3=$(digest)
grep -q "rebuilding cached object .*its code does not match its contract" "$tmp/log" ||
	fail "an entry with other code under its contract was used: $(cat "$tmp/log")"
"$PLKC" --emit=contract "$e" | grep -q "^// digest $d3\$" || fail "the rebuilt entry is not the one the map names"

# a device where the entry should be: refused at once and replaced
ln -sf /dev/zero "$e"
timeout 60 "$PLKC" "$rec" --emit=map >/dev/null 2>"$tmp/err" || fail "/dev/zero as a cache entry: $(cat "$tmp/err")"
[ -f "$e" ] && [ ! -L "$e" ] || fail "the /dev/zero entry was not replaced by an object"

# a run killed while it builds leaves its temporaries; the next run removes them
rm -rf "$PLKC_CACHE"
"$PLKC" "$rec" --emit=map >/dev/null 2>&1 &
pid=$!
for i in $(seq 1 600); do
	ls -a "$PLKC_CACHE" 2>/dev/null | grep -q '\.tmp\.' && break
	sleep 0.1
done
kill -9 $pid 2>/dev/null
wait $pid 2>/dev/null
ls -a "$PLKC_CACHE" | grep -q '\.tmp\.' || fail "no temporary seen while building (the test raced)"
"$PLKC" "$rec" --emit=map >/dev/null 2>"$tmp/err" || fail "run after a killed one: $(cat "$tmp/err")"
left=$(ls -a "$PLKC_CACHE" | grep tmp)
[ -z "$left" ] || fail "temporaries of the killed run are left: $left"
for f in "$PLKC_CACHE"/*.o; do
	"$PLKC" --emit=contract "$f" >/dev/null 2>&1 || fail "a cache entry does not read back whole: $f"
done
echo ok
