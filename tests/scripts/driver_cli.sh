#!/bin/bash
# plkc's command line as compilers have it: -o for every --emit kind and
# `-o -` for stdout; a cubin on stdout only with --manifest FILE; the
# recipe from standard input; a directory named as such; -arch
# deduplicated and its missing value; a fatbin in a .cubin said so;
# component builds with -I, -D and -Xnvcc (in the object, in the cache
# key) and the standard components' family headers; -MD -MF; --help,
# --version, --time and --emit=header naming their subjects; --explain
# with its code written three ways, or one that has no page; --warn-spills;
# an unknown arch (E0602); nothing to build (E0604); a copied plkc
# without its data (E0611).
. "$(dirname "$0")/common.bash"
need_nvcc
ROOT=$PWD
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
has() { local o=$1; shift; for f in "$@"; do printf '%s' "$o" | grep -qF -- "$f" || { fail "lacks '$f' in: $o"; return 1; }; done; }
G=examples/gemm.plk

# -o for every --emit kind; nothing on stdout then; `-o -` is stdout.
for kind in ast graph dot placement glue-ll ptx monolith manifest; do
	o=$("$PLKC" $G --emit=$kind -o "$tmp/$kind.out" 2>"$tmp/err") || fail "--emit=$kind -o: $(cat "$tmp/err")"
	[ -z "$o" ] || fail "--emit=$kind -o printed: $(printf '%s' "$o" | head -n 3)"   # stdout (stderr: LSan's notes)
	[ -s "$tmp/$kind.out" ] || fail "--emit=$kind -o: empty file"
	cmp -s "$tmp/$kind.out" <("$PLKC" $G --emit=$kind -o - 2>/dev/null) || fail "--emit=$kind: -o - differs from -o FILE"
done
grep -q '^placement of gemm for sm_90a' "$tmp/placement.out" || fail "placement: $(head -n 2 "$tmp/placement.out")"
"$PLKC" --emit=header components/hopper/store_bf16.plk -o "$tmp/h.plk.h" && grep -q 'PLK_STORE_BF16_PLK_H' "$tmp/h.plk.h" ||
	fail "--emit=header -o"
"$PLKC" -c tests/objects/add.plk -arch sm_90a -o "$tmp/add.o" || fail "-c"
"$PLKC" --emit=contract "$tmp/add.o" -o "$tmp/contract.plk" && grep -q '^component plk_test_add' "$tmp/contract.plk" ||
	fail "--emit=contract -o"

# The binary: KERNEL.cubin by default; --emit=cubin goes to stdout (as
# --help says of every --emit) and needs --manifest FILE for the manifest.
(cd "$tmp" && "$PLKC" "$ROOT/$G" >/dev/null 2>&1) && [ -s "$tmp/gemm.cubin" ] && [ -s "$tmp/gemm.manifest.json" ] ||
	fail "default output: $(ls "$tmp")"
grep -q '"binary": "gemm.cubin"' "$tmp/gemm.manifest.json" || fail "default manifest names no binary"
o=$("$PLKC" $G --emit=cubin 2>&1 >/dev/null); rc=$?
[ $rc -eq 2 ] || fail "--emit=cubin without --manifest: exit $rc"
has "$o" "a cubin on stdout needs --manifest FILE"
o=$("$PLKC" $G -o - 2>&1 >/dev/null); [ $? -eq 2 ] || fail "-o - without --manifest"
"$PLKC" $G --emit=cubin --manifest "$tmp/m.json" >"$tmp/s.cubin" || fail "--emit=cubin --manifest"
[ "$(head -c 4 "$tmp/s.cubin")" = $'\x7fELF' ] || fail "stdout cubin is no ELF"
grep -q '"binary"' "$tmp/m.json" && fail "a manifest of a cubin on stdout names a binary"
python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/m.json" || fail "--manifest: bad JSON"
mkdir -p "$tmp/sub"
"$PLKC" $G -o "$tmp/o.cubin" --manifest "$tmp/sub/o.json" || fail "-o --manifest"
grep -q "\"binary\": \"$tmp/o.cubin\"" "$tmp/sub/o.json" || fail "a manifest elsewhere: $(grep binary "$tmp/sub/o.json")"

# The recipe from standard input ("-" and /dev/stdin); `use` paths are
# relative to the working directory.
o=$(cd examples && "$PLKC" - --emit=placement <gemm.plk 2>&1) || fail "stdin: $o"
has "$o" "placement of gemm for sm_90a"
o=$(cd examples && cat gemm.plk | "$PLKC" /dev/stdin --check 2>&1) || fail "/dev/stdin: $o"
o=$(printf 'kernel k( {\n' | "$PLKC" - --check 2>&1); [ $? -eq 1 ] || fail "stdin syntax error: exit"
has "$o" "<stdin>:1:"
# A directory says it is one.
o=$("$PLKC" examples 2>&1); [ $? -eq 1 ] || fail "directory: exit"
has "$o" "error[E0601]: \`examples\` is a directory, not a .plk file"

# -arch: repeated values are one target; a missing value is a missing value.
"$PLKC" $G -arch sm_90a -arch sm_90a -o "$tmp/d.cubin" 2>"$tmp/err" || fail "-arch twice: $(cat "$tmp/err")"
[ "$(head -c 4 "$tmp/d.cubin")" = $'\x7fELF' ] || fail "-arch sm_90a twice: not one cubin"
grep -q '"arch": \["sm_90a"\]' "$tmp/d.manifest.json" || fail "-arch twice: $(grep arch "$tmp/d.manifest.json")"
o=$("$PLKC" $G -arch --check 2>&1); [ $? -eq 2 ] || fail "-arch --check: exit"
has "$o" "-arch needs an arch"
printf '%s' "$o" | grep -q "unknown arch" && fail "-arch --check: $o"
o=$("$PLKC" $G -o 2>&1); [ $? -eq 2 ] || fail "-o at the end"
has "$o" "-o needs a file name"
# several arches into a .cubin: a fatbin, and a warning that says so
o=$("$PLKC" examples/gemm_swiglu_sm80.plk -arch sm_80 -arch sm_90a -o "$tmp/f.cubin" 2>&1) || fail "fatbin: $o"
has "$o" "warning: \`$tmp/f.cubin\` holds a fatbin of 2 arches, not a cubin" "name it \`$tmp/f.fatbin\`"

# Component builds: -I, -D and -Xnvcc reach nvcc, are recorded in the
# object, and change the cache key; a family header of the standard
# components is found as "common/acc_store.cuh" from anywhere.
fam=$tmp/fam
mkdir -p "$fam/inc"
printf '#pragma once\n#define MYLIB_SCALE 3\n' >"$fam/inc/mylib.cuh"
sed -e 's/component store_bf16(/component my_store(/' -e 's/entry  *plk_store_bf16/entry my_store/' \
	-e 's/source "store_bf16.cu"/source "my_store.cu"/' components/hopper/store_bf16.plk >"$fam/my_store.plk"
cat >"$fam/my_store.cu" <<'EOF'
#include "plk.cuh"
#include "common/acc_store.cuh"
#include "mylib.cuh"
#include <my_store.plk.h>
#if MYFLAG != 7 || MYLIB_SCALE != 3
#error "-D MYFLAG=7 and -I inc were not given"
#endif
#ifndef XN
#error "-Xnvcc -DXN was not given"
#endif
PLK_ENTRY void my_store(int inst, __nv_bfloat16 *c, int M, int N, float *acc, int tile_m, int tile_n)
{
	if (tile_m < 0)
		return;
	constexpr int MI = BM / (16 * WARPS), NI = BN / 8;
	plk_acc_store_bf16<MI, NI, WARPS>(acc, plk_warp_rank(inst), c + (size_t)tile_m * BM * N + tile_n * BN,
	                                  M - tile_m * BM, N - tile_n * BN, (size_t)N);
}
EOF
o=$("$PLKC" -c "$fam/my_store.plk" -arch sm_90a -o "$tmp/my.o" 2>&1) && fail "built without -I/-D/-Xnvcc"
has "$o" "error[E0209]" "mylib.cuh"
o=$("$PLKC" -c "$fam/my_store.plk" -arch sm_90a -o "$tmp/my.o" -I "$fam/inc" -D MYFLAG=7 -Xnvcc -DXN -MD --time 2>&1) ||
	fail "-c -I -D -Xnvcc: $o"
has "$o" "time: nvcc my_store for sm_90a"
has "$("$PLKC" --emit=contract "$tmp/my.o")" "-I$fam/inc -DMYFLAG=7 -DXN"
has "$(cat "$tmp/my.d")" "$tmp/my.o $tmp/my.plk.h:" "$fam/my_store.plk" "$fam/my_store.cu" "stdlib/plk.cuh" \
	"$fam/inc/mylib.cuh" "components/common/acc_store.cuh"
# -D of a contract constant: with -c the value the object is built for
# (its contract says so); in a link, E0610: the recipe sets constants
"$PLKC" -c "$fam/my_store.plk" -arch sm_90a -o "$tmp/my64.o" -I "$fam/inc" -D MYFLAG=7 -Xnvcc -DXN -DBM=64 -DWARPS=4 ||
	fail "-c -DBM=64"
has "$("$PLKC" --emit=contract "$tmp/my64.o")" "component my_store(BM = 64, BN = 256, WARPS = 4)"
o=$("$PLKC" $G -o "$tmp/bm.cubin" -DBM=64 2>&1); [ $? -eq 1 ] || fail "-DBM: exit"
has "$o" "error[E0610]: \`-DBM=64\` on the command line sets constant \`BM\` of component \`"
o=$("$PLKC" -c "$fam/my_store.plk" -D 9x 2>&1); [ $? -eq 2 ] || fail "-D 9x: exit"
# the cache key: another -D is another object
export PLKC_CACHE=$tmp/cache
sed 's|use "../components/|use "|' examples/gemm.plk >"$tmp/g.plk"
"$PLKC" "$tmp/g.plk" -o "$tmp/g1.cubin" || fail "link from elsewhere (the standard components by search path)"
n1=$(ls "$tmp/cache" | wc -l)
"$PLKC" "$tmp/g.plk" -o "$tmp/g2.cubin" -D PLK_TEST_UNUSED=1 || fail "link with -D"
n2=$(ls "$tmp/cache" | wc -l)
[ "$n2" -gt "$n1" ] || fail "-D did not change the cache key ($n1 -> $n2 objects)"
"$PLKC" "$tmp/g.plk" -o "$tmp/g3.cubin" -D PLK_TEST_UNUSED=1
[ "$(ls "$tmp/cache" | wc -l)" = "$n2" ] || fail "the same -D built again"

# -MD -MF: everything the link read.
"$PLKC" $G -o "$tmp/k.cubin" -MD -MF "$tmp/deps.mk" || fail "-MD -MF"
has "$(cat "$tmp/deps.mk")" "$tmp/k.cubin $tmp/k.manifest.json:" "examples/gemm.plk" \
	"components/hopper/tma_load_ab.plk" "components/hopper/wgmma_mainloop.cu" "components/hopper/store_bf16_tma.cu" \
	"stdlib/plk.cuh" "components/common/acc_store.cuh"
"$PLKC" $G -o "$tmp/k2.cubin" -MD && [ -s "$tmp/k2.d" ] || fail "-MD: no k2.d"
# make reads it: nothing to do while the inputs are unchanged
printf 'include %s\n%s:\n\t@echo relink\n' "$tmp/deps.mk" "$tmp/k.cubin" >"$tmp/Makefile"
[ -z "$(make -s -f "$tmp/Makefile" "$tmp/k.cubin")" ] || fail "make relinks up-to-date output"
touch "$tmp/k.cubin" -d '2000-01-01'
[ "$(make -s -f "$tmp/Makefile" "$tmp/k.cubin")" = relink ] || fail "make does not relink an old output"

# --help names every flag and variable; --version the tools.
o=$("$PLKC" --help)
has "$o" "-o FILE" "--manifest FILE" "--emit=KIND" "-MD" "-MF FILE" "-arch sm_XX" "-I DIR" "-D NAME=VALUE" \
	"-Xnvcc ARG" "--kernel NAME" "--component NAME" "--check" "-c COMPONENT.plk" "--diagnostics-format" "--color" \
	"-v, --verbose" "--time" "--split-compile N" "--explain" "PLKC_CACHE" "PLK_HOME" "CUDA_HOME" "OBJCOPY" "NO_COLOR" "TMPDIR"
o=$("$PLKC" --version)
has "$o" "plkc 0.1.0" "CUDA toolkit" "(nvcc V" "libNVVM" "NVRTC" "nvJitLink" "LLVM 14"

# --explain takes E0390, e0390 or 0390; a code with no page lists its
# stage's codes, a malformed one the stages; both exit 2.
for c in E0390 e0390 0390; do
	cmp -s <("$PLKC" --explain $c) docs/errors/E0390.md || fail "--explain $c does not print docs/errors/E0390.md"
done
o=$("$PLKC" --explain E0391 2>&1) && fail "--explain E0391 exits 0"
has "$o" "no error E0391: plkc never reports it; the codes of its stage are:" "E0301" "E0390"
case "$o" in *E0101*) fail "--explain E0391 lists another stage's codes: $o" ;; esac
o=$("$PLKC" --explain E0999 2>&1) && fail "--explain E0999 exits 0"
has "$o" "no error E0999" "E03xx contracts and composition"
o=$("$PLKC" --explain E03 2>&1) && fail "--explain E03 exits 0"
has "$o" "\`E03\` is not an error code" "E01xx syntax" "E06xx command line"

# --emit=header of a file with two components says which it wrote.
cat components/hopper/store_bf16.plk "$fam/my_store.plk" | sed 's/source "/source "x/' >"$tmp/two.plk"
o=$("$PLKC" --emit=header "$tmp/two.plk" 2>&1 >"$tmp/two.h") || fail "two components: $o"
has "$o" "note: the header of component \`store_bf16\`, the first of 2" "--component NAME"
"$PLKC" --emit=header "$tmp/two.plk" --component my_store 2>/dev/null | grep -q PLK_MY_STORE_PLK_H ||
	fail "--component my_store"
o=$("$PLKC" --emit=header "$tmp/two.plk" --component nope 2>&1); [ $? -eq 1 ] || fail "--component nope"
has "$o" "no component named \`nope\`"

# --warn-spills: ptxas's spills as a warning naming each function and its
# bytes (attn_causal's 176-key kernel with its consumers' register budget
# cut from 240 to 168: it spills), none where nothing spills; the link
# succeeds either way, and without the flag says nothing.
sed 's/REGS = 240, LREGS = 24/REGS = 168, LREGS = 24/' examples/attn_causal.plk >"$tmp/spill.plk"
grep -q "REGS = 168" "$tmp/spill.plk" || fail "attn_causal.plk: no REGS = 240 to cut"
o=$("$PLKC" "$tmp/spill.plk" -I examples --kernel attn_causal_bn176 -arch sm_90a --warn-spills -o "$tmp/ac.cubin" 2>&1) ||
	fail "--warn-spills: the link failed: $o"
has "$o" "warning: ptxas spills registers for sm_90a" "= note: \`attn_causal_bn176\`: " "bytes stored and" "plkc -v"
o=$("$PLKC" "$tmp/spill.plk" -I examples --kernel attn_causal_bn176 -arch sm_90a -o "$tmp/ac.cubin" 2>&1)
case $o in *spills*) fail "spills said without --warn-spills: $o" ;; esac   # (stderr: LSan's notes may be there)
o=$("$PLKC" $G -arch sm_90a --warn-spills -o "$tmp/g.cubin" 2>&1) || fail "--warn-spills, gemm: $o"
case $o in *spills*) fail "--warn-spills on a kernel without spills: $o" ;; esac

# An arch plkc does not know (E0602, naming the ones it does); a file with
# nothing to build: no kernel (E0604, with the -c that compiles its
# components), -c of a file of a kernel alone, and -c of a recipe whose components
# all come from the files it uses (until 2026-12-05 it compiled the first
# of those without a word).
o=$("$PLKC" $G -arch sm_99 -o "$tmp/x.cubin" 2>&1); [ $? -eq 1 ] || fail "-arch sm_99: exit"
has "$o" "error[E0602]: unknown arch \`sm_99\`" "= note: known arches: sm_80, sm_90, sm_90a"
[ -e "$tmp/x.cubin" ] && fail "-arch sm_99 wrote a cubin"
o=$("$PLKC" tests/objects/add.plk -arch sm_90a -o "$tmp/x.cubin" 2>&1); [ $? -eq 1 ] || fail "no kernel: exit"
has "$o" "error[E0604]: \`tests/objects/add.plk\` declares no kernel" "help: to compile a component on its own, use \`plkc -c tests/objects/add.plk\`"
"$PLKC" tests/objects/add.plk --check || fail "--check of a file of components"
printf 'kernel k(A: tensor<bf16>[M]) {\n  grid tiles(1, 1)\n}\n' >"$tmp/k.plk"
o=$("$PLKC" -c "$tmp/k.plk" -arch sm_90a -o "$tmp/x.o" 2>&1); [ $? -eq 1 ] || fail "-c of kernels only: exit"
has "$o" "error[E0604]:" "k.plk\` declares no component to compile" "= help: to link its kernels, drop -c"
# -c of a recipe: its components are the files' it uses, not its own; one
# of them is compiled only when named
o=$("$PLKC" -c $G -arch sm_90a -o "$tmp/x.o" 2>&1); [ $? -eq 1 ] || fail "-c of a recipe: exit"
has "$o" "error[E0604]: \`$G\` declares no component of its own to compile" "= help: to link its kernels, drop -c" \
	"= help: to compile a component it uses, name it: \`--component tma_load_ab\`"
[ -e "$tmp/x.o" ] && fail "-c of a recipe wrote an object"
"$PLKC" -c $G --component tma_load_ab -arch sm_90a -o "$tmp/x.o" && [ -s "$tmp/x.o" ] || fail "-c --component of a used one"

# A plkc copied away from its data: E0611 names the cause (not nvcc's
# "plk.cuh: No such file"); PLK_HOME gives it back.
mkdir -p "$tmp/bin" && cp "$PLKC" "$tmp/bin/plkc"
o=$(cd "$tmp" && env -u PLK_HOME PLKC_CACHE="$tmp/cold" bin/plkc "$ROOT/$G" -o x.cubin 2>&1); [ $? -eq 1 ] || fail "copied plkc"
has "$o" "error[E0611]: cannot find PipeLink's standard library"
o=$(cd "$tmp" && env -u PLK_HOME bin/plkc g.plk --check 2>&1); [ $? -eq 1 ] || fail "copied plkc, use"
has "$o" "error[E0201]: cannot find file \`hopper/tma_load_ab.plk\`" "PipeLink's standard components were not found"
o=$(cd "$tmp" && PLK_HOME=/nonexistent PLKC_CACHE="$tmp/cold" bin/plkc "$ROOT/$G" -o x.cubin 2>&1)
has "$o" "PLK_HOME is \`/nonexistent\`, which holds no stdlib/plk.cuh"
(cd "$tmp" && PLK_HOME=$ROOT bin/plkc "$ROOT/$G" -o x.cubin) || fail "PLK_HOME=the tree"

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
exit 0
