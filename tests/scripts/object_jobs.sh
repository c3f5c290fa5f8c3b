#!/bin/bash
# A link builds the objects its cache lacks several at once (-j, default
# the processors online): the same cubin and manifest as one at a time;
# --time counts them; a warm cache builds none; and a component whose
# source fails, among others building beside it, is one E0209, after
# which the others' objects are in the cache and no temporary is left;
# nvcc's log past a mebibyte shows its end; and a link for two arches
# builds both arches' objects in one pass.
# Exit 0 pass, 1 fail, 77 skip.
. "$(dirname "$0")/common.bash"
need_nvcc
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
G=examples/gemm.plk     # three components: tma_load_ab, wgmma_mainloop, store_bf16_tma

mkdir -p "$tmp/one" "$tmp/three"
PLKC_CACHE="$tmp/c1" "$PLKC" $G -arch sm_90a -j 1 --time -o "$tmp/one/gemm.cubin" 2>"$tmp/one.err" || fail "-j 1: $(cat "$tmp/one.err")"
grep -q "time: component objects (3, 1 at once)" "$tmp/one.err" || fail "-j 1: $(grep 'component objects' "$tmp/one.err")"
PLKC_CACHE="$tmp/c3" "$PLKC" $G -arch sm_90a -j 3 --time -o "$tmp/three/gemm.cubin" 2>"$tmp/three.err" || fail "-j 3: $(cat "$tmp/three.err")"
grep -q "time: component objects (3, 3 at once)" "$tmp/three.err" || fail "-j 3: $(grep 'component objects' "$tmp/three.err")"
[ "$(grep -c '^time: nvcc ' "$tmp/three.err")" = 3 ] || fail "-j 3: not one nvcc an object: $(grep '^time: nvcc' "$tmp/three.err")"
cmp -s "$tmp/one/gemm.cubin" "$tmp/three/gemm.cubin" || fail "-j 1 and -j 3 link different cubins"
cmp -s "$tmp/one/gemm.manifest.json" "$tmp/three/gemm.manifest.json" || fail "-j 1 and -j 3 write different manifests"
[ "$(ls "$tmp/c3" | grep -c '\.o$')" = 3 ] || fail "-j 3 cached: $(ls "$tmp/c3")"
PLKC_CACHE="$tmp/c3" "$PLKC" $G -arch sm_90a --time -o "$tmp/warm.cubin" 2>"$tmp/warm.err" || fail "warm link"
grep -q "component objects\|time: nvcc" "$tmp/warm.err" && fail "a warm cache built again: $(grep nvcc "$tmp/warm.err")"
cmp -s "$tmp/one/gemm.cubin" "$tmp/warm.cubin" || fail "the warm link differs"

# several arches: every arch's objects built in one pass before the first
# link, so that an arch's nvcc does not wait for the link before it
S=examples/gemm_swiglu_sm80.plk   # three components, for sm_80 and sm_90a alike
PLKC_CACHE="$tmp/c6" "$PLKC" $S -arch sm_80 -arch sm_90a -j 3 --time -o "$tmp/two.fatbin" 2>"$tmp/two.err" ||
	fail "two arches: $(cat "$tmp/two.err")"
[ "$(grep -c 'time: component objects' "$tmp/two.err")" = 1 ] && grep -q "time: component objects (6, 3 at once)" "$tmp/two.err" ||
	fail "two arches: not one pass of six objects: $(grep 'component objects' "$tmp/two.err")"
grep -n 'time: \(component objects\|link sm_80\)' "$tmp/two.err" | head -1 | grep -q 'component objects' ||
	fail "two arches: sm_80 linked before the objects were built: $(grep -n '^time: \(comp\|link\)' "$tmp/two.err")"

# wgmma_mainloop's source broken in a copy of the tree: one E0209, the
# other two objects built and cached, no temporary left in the cache
mkdir -p "$tmp/t" && cp -r examples components "$tmp/t/" || exit 1
printf '\n#error "plkc test: broken on purpose"\n' >>"$tmp/t/components/hopper/wgmma_mainloop.cu"
o=$(PLKC_CACHE="$tmp/c4" "$PLKC" "$tmp/t/$G" -arch sm_90a -j 3 -o "$tmp/b.cubin" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a broken component: exit $rc"
[ "$(grep -c 'error\[E0209\]' <<<"$o")" = 1 ] || fail "not one E0209: $o"
grep -q "component \`wgmma_mainloop\`" <<<"$o" && grep -q 'broken on purpose' <<<"$o" || fail "E0209 lacks its component or nvcc's words: $o"
[ -e "$tmp/b.cubin" ] && fail "a broken component: a cubin was written"
ls "$tmp/c4" | grep -q '^tma_load_ab-.*\.o$' && ls "$tmp/c4" | grep -q '^store_bf16_tma-.*\.o$' ||
	fail "the others' objects are not cached: $(ls "$tmp/c4")"
ls "$tmp/c4" | grep -q wgmma_mainloop && fail "the broken one's object: $(ls "$tmp/c4")"
[ -z "$(find "$tmp/c4" -mindepth 1 -type d)" ] || fail "temporaries left: $(find "$tmp/c4" -mindepth 1 -type d)"

# nvcc's log past a mebibyte (9000 #warning lines, then the #error): the
# diagnostic shows the log's end, where nvcc names the error
for i in $(seq 9000); do echo "#warning \"plkc test: padding nvcc's log past a mebibyte, line $i\""; done \
	>>"$tmp/t/components/hopper/tma_load_ab.cu"
echo '#error "plkc test: the error after the padding"' >>"$tmp/t/components/hopper/tma_load_ab.cu"
o=$(PLKC_CACHE="$tmp/c5" "$PLKC" "$tmp/t/$G" -arch sm_90a -j 1 -o "$tmp/b.cubin" 2>&1); rc=$?
[ $rc -eq 1 ] || fail "a log past a mebibyte: exit $rc"
grep -q 'the error after the padding' <<<"$o" || fail "a log past a mebibyte: its end not shown: $(tail -c 600 <<<"$o")"
[ ${#o} -lt 20000 ] || fail "a log past a mebibyte: ${#o} bytes of diagnostics"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
exit 0
