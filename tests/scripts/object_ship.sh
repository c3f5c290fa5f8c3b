#!/bin/bash
# Objects as the unit of distribution: three components built with
# `plkc -c`, copied alone into an empty directory, their .plk and .cu
# files deleted, link a recipe that names them with `use object`; the
# cubin is the one linking from source gives, the manifest's link map
# names each object's digest, and nothing is built (the cache stays
# empty). Two builds of one source give one digest. An object serves
# its own constants only (E0214; -D builds others); its digest binds its contract to its code (E0215); an object
# beside its declaration without the source stands for it.
. "$(dirname "$0")/common.bash"
need_nvcc
command -v objcopy >/dev/null 2>&1 || { echo "skip: no objcopy"; exit 77; }
fail() { echo "object_ship: $*"; exit 1; }
repo=$PWD
comps="tma_load_ab wgmma_mainloop store_bf16_tma"

# the sources in a directory of their own, built there, then deleted
mkdir -p "$tmp/src" "$tmp/ship" "$tmp/cache"
cp -r components "$tmp/src/"
for c in $comps; do
	(cd "$tmp/src" && "$PLKC" -c "components/hopper/$c.plk" -o "$tmp/ship/$c.o") || fail "plkc -c $c failed"
done
(cd "$tmp/src" && "$PLKC" -c components/hopper/store_bf16_tma.plk -D CH=64 -o "$tmp/ship/st64.o") ||
	fail "plkc -c -D CH=64 failed"
grep -q '^#define CH 64$' "$tmp/ship/st64.plk.h" || fail "st64.plk.h does not say CH = 64"
# reproducible: built again from the same source (another nvcc run, from
# another directory, into another), an object carries the same code, so
# the same digest. (nvcc names a module after its source's real path, so
# a copy of the source elsewhere gives other code: docs/objects.md.)
(cd "$tmp" && "$PLKC" -c src/components/hopper/tma_load_ab.plk -o "$tmp/again.o") || fail "plkc -c tma_load_ab again failed"
d1=$("$PLKC" --emit=contract "$tmp/ship/tma_load_ab.o" | sed -n 's|^// digest ||p')
d2=$("$PLKC" --emit=contract "$tmp/again.o" | sed -n 's|^// digest ||p')
[ ${#d1} -eq 64 ] && [ "$d1" = "$d2" ] || fail "two builds of tma_load_ab differ: digest $d1 vs $d2"
rm -rf "$tmp/src" "$tmp/ship"/*.plk.h "$tmp/again".*
sed -e 's|use "../components/hopper/\(.*\)\.plk"|use object "\1.o"|' examples/gemm.plk >"$tmp/ship/gemm.plk"
grep -q '^use object "tma_load_ab.o"$' "$tmp/ship/gemm.plk" || fail "the recipe was not rewritten"
ls "$tmp/ship" | grep -v '\.o$' | grep -qv '^gemm.plk$' && fail "more than objects in the directory: $(ls "$tmp/ship")"

cd "$tmp/ship"
PLKC_CACHE="$tmp/cache" "$PLKC" gemm.plk -arch sm_90a -o gemm.cubin 2>"$tmp/err" || fail "link of shipped objects failed: $(cat "$tmp/err")"
[ -z "$(ls -A "$tmp/cache")" ] || fail "the link built objects from source: $(ls "$tmp/cache")"
cd "$repo"
PLKC_CACHE="$tmp/cache2" "$PLKC" examples/gemm.plk -arch sm_90a -o "$tmp/from_source.cubin" ||
	fail "link from source failed"
cmp -s "$tmp/ship/gemm.cubin" "$tmp/from_source.cubin" || fail "shipped objects link another cubin than their sources"
for c in $comps; do
	d=$("$PLKC" --emit=contract "$tmp/ship/$c.o" | sed -n 's|^// digest ||p')
	[ ${#d} -eq 64 ] || fail "--emit=contract $c.o names no digest"
	grep -q "\"component\": \"$c\", \"from\": \"object\", \"file\": \"$c.o\", \"object\": \"$d\"" "$tmp/ship/gemm.manifest.json" ||
		fail "the manifest's map lacks $c from $c.o ($d): $(grep -A4 instances "$tmp/ship/gemm.manifest.json")"
done
grep -q '"name": "store", "component": "store_bf16_tma", .*"cparams": { "BM": 128, "BN": 256, "WARPS": 8, "CH": 128 }, "role": 1, "warps": \[\[4, 8\]\], "regs": 232 }' \
	"$tmp/ship/gemm.manifest.json" || fail "the map lacks store's constants and place"
if command -v python3 >/dev/null; then
	python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/ship/gemm.manifest.json" || fail "manifest is not JSON"
fi
(cd "$tmp/ship" && PLKC_CACHE="$tmp/cache" "$PLKC" gemm.plk --emit=map) >"$tmp/map" || fail "--emit=map failed"
grep -q '^  object    store_bf16_tma.o (use object)$' "$tmp/map" || fail "--emit=map: $(cat "$tmp/map")"
grep -q '^  cparams   BM = 128, BN = 256, WARPS = 8, CH = 128$' "$tmp/map" || fail "--emit=map lacks the constants"

# other constants than the object's: E0214 at the instance; -D's object serves them
sed 's/store = store_bf16_tma(c = C)/store = store_bf16_tma(c = C, CH = 64)/' "$tmp/ship/gemm.plk" >"$tmp/ship/ch64.plk"
out=$(cd "$tmp/ship" && PLKC_CACHE="$tmp/cache" "$PLKC" ch64.plk --check 2>&1)
[ $? -eq 1 ] && grep -q 'error\[E0214\]' <<<"$out" && grep -q 'built for BM = 128, BN = 256, WARPS = 8, CH = 128' <<<"$out" ||
	fail "other constants than the object's: $out"
sed -i 's/use object "store_bf16_tma.o"/use object "st64.o"/' "$tmp/ship/ch64.plk"
(cd "$tmp/ship" && PLKC_CACHE="$tmp/cache" "$PLKC" ch64.plk -arch sm_90a -o ch64.cubin) || fail "the -D CH=64 object does not link"

# the digest: a contract section moved onto another object's code
objcopy --dump-section .plk.contract="$tmp/sec" "$tmp/ship/store_bf16_tma.o" "$tmp/junk.o"
objcopy --update-section .plk.contract="$tmp/sec" "$tmp/ship/st64.o" "$tmp/ship/swapped.o"
out=$("$PLKC" --emit=contract "$tmp/ship/swapped.o" 2>&1)
[ $? -eq 1 ] && grep -q 'error\[E0215\]' <<<"$out" || fail "a moved contract section: $out"
# and code changed under its contract: one byte of its LTO-IR
objcopy --dump-section __nv_relfatbin="$tmp/fat" "$tmp/ship/tma_load_ab.o" "$tmp/junk.o"
size=$(stat -c %s "$tmp/fat")
# (its complement: a constant byte would change nothing where the byte is that already)
byte=$(od -An -tu1 -j $((size / 2)) -N1 "$tmp/fat" | tr -d ' ')
printf "\\$(printf '%03o' $((byte ^ 255)))" | dd of="$tmp/fat" bs=1 seek=$((size / 2)) conv=notrunc status=none
objcopy --update-section __nv_relfatbin="$tmp/fat" "$tmp/ship/tma_load_ab.o" "$tmp/ship/flipped.o"
out=$("$PLKC" --emit=contract "$tmp/ship/flipped.o" 2>&1)
[ $? -eq 1 ] && grep -q 'error\[E0215\]' <<<"$out" || fail "a flipped byte of LTO-IR: $out"

# an object beside its declaration, the source gone: the object stands for it
mkdir -p "$tmp/decl/hopper" "$tmp/decl/rec"
cp components/hopper/store_bf16_tma.plk "$tmp/decl/hopper/"
cp "$tmp/ship/store_bf16_tma.o" "$tmp/decl/hopper/"
sed -e 's|use "../components/hopper/store_bf16_tma.plk"|use "../hopper/store_bf16_tma.plk"\nuse object "../hopper/store_bf16_tma.o"|' \
    -e "s|use \"../components/|use \"$repo/components/|" examples/gemm.plk >"$tmp/decl/rec/gemm.plk"
(cd "$tmp/decl/rec" && PLKC_CACHE="$tmp/cache3" "$PLKC" gemm.plk --emit=map) >"$tmp/map2" 2>"$tmp/err" ||
	fail "object beside its declaration, no source: $(cat "$tmp/err")"
grep -q '^  object    ../hopper/store_bf16_tma.o (use object)$' "$tmp/map2" || fail "the declared object was not used: $(cat "$tmp/map2")"
echo ok
