#!/bin/bash
# A select's variants linked into one cubin (docs/language.md, "Variants"):
# the cubin's symbol table holds every variant's kernel entry, the
# manifest lists them in rule order with the default last; components
# built with other constants in each variant get entries of their own
# (ENTRY__<8 hex>), one specialization shared by two variants is linked
# once under its plain entry; variants are not built alone unless named;
# --emit=map prints every variant's link map, for each arch.
B=${1:-build}
command -v nvcc >/dev/null || [ -x /usr/local/cuda/bin/nvcc ] || { echo "skip: no nvcc"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# entries CUBIN: the global functions of its ELF symbol table, sorted
entries() {
	python3 - "$1" <<'PY'
import struct, sys
d = open(sys.argv[1], "rb").read()
assert d[:4] == b"\x7fELF" and d[4] == 2, "not an ELF64 file"
shoff, = struct.unpack_from("<Q", d, 0x28)
shentsize, shnum = struct.unpack_from("<HH", d, 0x3a)
secs = [struct.unpack_from("<IIQQQQIIQQ", d, shoff + i * shentsize) for i in range(shnum)]
names = []
for s in secs:
    if s[1] != 2:          # SHT_SYMTAB
        continue
    strtab = secs[s[6]]
    for off in range(s[4], s[4] + s[5], 24):
        name, info = struct.unpack_from("<IB", d, off)
        if info >> 4 == 1 and info & 15 == 2:   # GLOBAL FUNC
            end = d.index(b"\0", strtab[4] + name)
            names.append(d[strtab[4] + name:end].decode())
print(" ".join(sorted(names)))
PY
}
# variants MANIFEST: the names of its variants' entries, in the rule's order
# (a kernel named by two branches twice: gemm_auto's gemm_n192,
# gemm_swiglu_auto's swiglu_wide)
variants() { python3 -c 'import json,sys; print(" ".join(v["name"] for v in json.load(open(sys.argv[1]))["variants"]))' "$1"; }

for ex in gemm_auto:"gemm_big gemm_n192 gemm_n192_mc gemm_n200_q4 gemm_n224 gemm_n96 gemm_odd gemm_pp gemm_pp_ef gemm_s256 gemm_s64 gemm_skinny gemm_small gemm_small_sk gemm_wide gemm_wide_mc":"gemm_skinny gemm_odd gemm_small_sk gemm_s64 gemm_small gemm_s256 gemm_n96 gemm_n200_q4 gemm_n192_mc gemm_wide_mc gemm_n192 gemm_n224 gemm_wide gemm_wide gemm_big gemm_n192 gemm_wide_mc gemm_wide gemm_pp_ef gemm_wide gemm_pp" \
          gemm_swiglu_auto:"swiglu_pp swiglu_skinny swiglu_small swiglu_wide swiglu_wide_mc":"swiglu_skinny swiglu_small swiglu_wide_mc swiglu_wide swiglu_wide swiglu_wide swiglu_pp"; do
	IFS=: read -r name want_elf want_man <<<"$ex"
	if ! "$PLKC" "examples/$name.plk" -arch sm_90a -o "$tmp/$name.cubin" 2>"$tmp/err"; then
		echo "$name: link failed:"; head -n 12 "$tmp/err"; fail=1; continue
	fi
	got=$(entries "$tmp/$name.cubin")
	[ "$got" = "$want_elf" ] || { echo "$name: the cubin's entries are '$got', not '$want_elf'"; fail=1; }
	got=$(variants "$tmp/$name.manifest.json")
	[ "$got" = "$want_man" ] || { echo "$name: the manifest's variants are '$got', not '$want_man'"; fail=1; }
done

# each specialization's entry renamed in the linked PTX, the glue calling it
"$PLKC" examples/gemm_auto.plk -arch sm_90a --emit=ptx -o "$tmp/ga.ptx" 2>"$tmp/err" || { cat "$tmp/err"; fail=1; }
n=$(grep -cE '^\.weak \.func plk_(tma_load_ab|wgmma_mainloop|store_bf16_tma|store_bf16_tma_rows)__[0-9a-f]{8}\(' "$tmp/ga.ptx")
# the mainloop at 12 specializations (64 x 16 skinny, 64 x 64, 64 x 128,
# 64 x 256, 128 x 128 twice, 128 x 96, 128 x 192, 128 x 224, 128 x 256,
# 128 x 192 and 128 x 256 multicast in pairs, 128 x 200 in fours), the loader at
# those and two more (the pingpong 128 x 128 tiles and the 128 x 256
# ones, each with and without B's L2 hint), the TMA store at 6 (not the
# skinny's or the odd one's: they store from registers; the multicast
# ones' are those of their tiles without), the TMA store of CH-column
# boxes at 3 (128 x 96, 128 x 224, 128 x 200)
[ "$n" -eq 35 ] || { echo "gemm_auto: $n renamed entries in the PTX, not 35 (12 + 14 specializations + 6 + 3)"; fail=1; }
grep -q '^\.weak \.func plk_tma_load_ab(' "$tmp/ga.ptx" && { echo "gemm_auto: a plain entry left"; fail=1; }
# the loader's L2 hints (AHINT, BHINT) in the specializations of the nine
# variants whose weights are marked evict_first (skinny, small and small_sk,
# s64, s256, n96, n192, n224, wide, pp_ef), in none of the other five
h=$(awk '/^\.(weak|visible) \.(func|entry)/ { f = /plk_tma_load_ab__/; if (f) n++ }
         /L2::cache_hint/ && f && !seen[n]++ { h++ } END { print n + 0, h + 0 }' "$tmp/ga.ptx")
[ "$h" = "14 9" ] || { echo "gemm_auto: loader specializations, those with L2 hints: $h, not 14 9"; fail=1; }

# two variants of the same components and constants (raster only differs):
# each object once, the entries keep their names
sed -e 's/^kernel gemm_wide(/kernel gemm_r4(/' -e '/^kernel gemm_pp(/,/^}/d' -e '/^kernel gemm_pp_ef(/,/^}/d' -e '/^kernel gemm_small(/,/^}/d' \
    -e '/^kernel gemm_small_sk(/,/^}/d' -e '/^kernel gemm_skinny(/,/^}/d' -e '/^kernel gemm_odd(/,/^}/d' \
    -e '/^kernel gemm_n96(/,/^}/d' -e '/^kernel gemm_s64(/,/^}/d' -e '/^kernel gemm_wide_mc(/,/^}/d' \
    -e '/^kernel gemm_n192(/,/^}/d' -e '/^kernel gemm_n192_mc(/,/^}/d' -e '/^kernel gemm_n224(/,/^}/d' \
    -e '/^kernel gemm_big(/,/^}/d' -e '/^kernel gemm_n200_q4(/,/^}/d' -e '/^kernel gemm_s256(/,/^}/d' \
    -e 's/raster grouped(8)/raster grouped(4)/' -e '/^select/,$d' -e 's,"\.\./components,"'"$PWD"'/components,' \
    examples/gemm_auto.plk >"$tmp/same.plk"
sed -n '/^kernel gemm_wide(/,/^}/p' examples/gemm_auto.plk >>"$tmp/same.plk"
cat >>"$tmp/same.plk" <<'PLK'
select same(A: tensor<bf16>[M, K], B: tensor<bf16>[N, K], C: tensor<bf16>[M, N]) {
  when M >= 4096: gemm_r4
  else: gemm_wide
}
PLK
if "$PLKC" "$tmp/same.plk" -arch sm_90a -v --emit=ptx -o "$tmp/same.ptx" 2>"$tmp/err"; then
	n=$(grep -c '^plkc: object of' "$tmp/err"); u=$(grep '^plkc: object of' "$tmp/err" | sort -u | wc -l)
	[ "$n" -eq 6 ] && [ "$u" -eq 3 ] || { echo "same: $n objects named, $u distinct (want 6, 3)"; fail=1; }
	[ "$(grep -c '^\.weak \.func plk_' "$tmp/same.ptx")" -eq 3 ] || { echo "same: not 3 plain entries"; fail=1; }
	grep -qE '^\.visible \.entry gemm_r4\(' "$tmp/same.ptx" && grep -qE '^\.visible \.entry gemm_wide\(' "$tmp/same.ptx" ||
		{ echo "same: a kernel entry is missing"; fail=1; }
else
	echo "same: link failed:"; head -n 12 "$tmp/err"; fail=1
fi

# a shipped object (use object, no declaration beside it) serves the
# constants it was built for only (gemm_wide's: the defaults and B's L2
# hint; gemm_big too, which sets no hint and so takes the object's
# default): the fourteen variants that need others are refused at their
# instances (E0214), once each
if "$PLKC" -c components/hopper/tma_load_ab.plk -D BHINT=1 -arch sm_90a -o "$tmp/load.o" 2>"$tmp/err"; then
	sed -e 's,^use "../components/hopper/tma_load_ab.plk",use object "'"$tmp"'/load.o",' \
	    -e 's,"\.\./components,"'"$PWD"'/components,' examples/gemm_auto.plk >"$tmp/obj.plk"
	"$PLKC" "$tmp/obj.plk" -arch sm_90a -o "$tmp/obj.cubin" 2>"$tmp/err"
	rc=$?
	[ $rc -eq 1 ] && [ "$(grep -c '^error\[E0214\]' "$tmp/err")" -eq 14 ] ||
		{ echo "shipped object: exit $rc, not fourteen E0214:"; head -n 12 "$tmp/err"; fail=1; }
else
	echo "plkc -c tma_load_ab failed:"; head -n 5 "$tmp/err"; fail=1
fi

# no -o: the select's cubin alone; --kernel VARIANT: that kernel alone
root=$PWD
(mkdir "$tmp/d" && cd "$tmp/d" && "$PLKC" "$root/examples/gemm_auto.plk" -arch sm_90a 2>"$tmp/err" &&
	[ "$(ls | tr '\n' ' ')" = "gemm_auto.cubin gemm_auto.manifest.json " ]) ||
	{ echo "no -o: wrote $(ls "$tmp/d" | tr '\n' ' ')"; head -n 5 "$tmp/err"; fail=1; }
"$PLKC" examples/gemm_auto.plk -arch sm_90a --kernel gemm_pp -o "$tmp/pp.cubin" 2>"$tmp/err" &&
	[ "$(entries "$tmp/pp.cubin")" = gemm_pp ] && ! grep -q variants "$tmp/pp.manifest.json" ||
	{ echo "--kernel gemm_pp: not gemm_pp alone"; head -n 5 "$tmp/err"; fail=1; }

# Several -arch: a fatbin of one cubin per arch, each variant placed for
# each arch; its manifest gives every variant (and the top level, the
# default's) a launch per arch. Two mat-vec kernels (sm_80 and up).
cat >"$tmp/mv.plk" <<EOF
use "$root/components/decode/matvec.plk"
kernel mv_thin(W: tensor<const bf16>[N, K], X: tensor<const bf16>[K], Y: tensor<bf16>[N]) {
  const ROWS = 16, WARPS = 4
  grid tiles(ceil_div(N, ROWS), 1)
  m = matvec(w = W, v = X, y = Y)
}
kernel mv_wide(W: tensor<const bf16>[N, K], X: tensor<const bf16>[K], Y: tensor<bf16>[N]) {
  const ROWS = 64, WARPS = 8
  grid tiles(ceil_div(N, ROWS), 1)
  m = matvec(w = W, v = X, y = Y)
}
select mv(W: tensor<const bf16>[N, K], X: tensor<const bf16>[K], Y: tensor<bf16>[N]) {
  when N <= 4096: mv_thin
  else: mv_wide
}
EOF
if "$PLKC" "$tmp/mv.plk" -arch sm_80 -arch sm_90a -o "$tmp/mv.fatbin" 2>"$tmp/err"; then
	python3 - "$tmp/mv.manifest.json" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))
def per_arch(threads):
    return [{"arch": a, "block": [threads, 1, 1], "cluster": [1, 1, 1], "dynamic_smem": 0} for a in ("sm_80", "sm_90a")]
got = {v["name"]: v.get("variants") for v in m["variants"] if "name" in v}
top = [v for v in m["variants"] if "name" not in v]
if m["arch"] != ["sm_80", "sm_90a"] or got != {"mv_thin": per_arch(128), "mv_wide": per_arch(256)} \
        or top != per_arch(256):
    print("FAIL: the fatbin select's manifest:", m["arch"], got, top)
    sys.exit(1)
PY
	# a fatbin (its magic) of two ELF images, each with both variants' entries
	n=$(python3 -c 'import sys; d = open(sys.argv[1], "rb").read()
print(d.count(b"\x7fELF") if d[:4] == bytes.fromhex("50ed55ba") else "no fatbin")' "$tmp/mv.fatbin")
	[ "$n" = 2 ] || { echo "the fatbin holds $n ELF images, not 2"; fail=1; }
else
	echo "a select for sm_80 and sm_90a failed:"; head -n 12 "$tmp/err"; fail=1
fi
# --emit=map of that select for both arches: each variant's map, each
# arch's, in one output
"$PLKC" "$tmp/mv.plk" -arch sm_80 -arch sm_90a --emit=map -o "$tmp/mv.map" 2>"$tmp/err" ||
	{ echo "--emit=map of a select failed: $(head -n 5 "$tmp/err")"; fail=1; }
got=$(grep '^link map of' "$tmp/mv.map" | tr '\n' ';')
want="link map of mv_thin for sm_80;link map of mv_wide for sm_80;link map of mv_thin for sm_90a;link map of mv_wide for sm_90a;"
[ "$got" = "$want" ] || { echo "--emit=map of a select: $got"; fail=1; }
[ "$(grep -c '^  digest    [0-9a-f]\{64\}$' "$tmp/mv.map")" = 4 ] || { echo "--emit=map of a select: not 4 digests"; fail=1; }
exit $fail
