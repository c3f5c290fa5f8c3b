#!/bin/bash
# E0515: the variants of one select share the ABI tables, whose keys hold
# instance ids in 10 bits: 171 variants of 3 instances in 2 pingpong lanes
# are 1026 ids, refused before any object is built, and for the manifest
# alone too; 170 (1020) are not (their manifest is written: linking 170
# kernels would take minutes).
B=${1:-build}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# gen N: a select of N copies of examples/gemm_pingpong.plk's kernel
gen() {
	python3 - "$1" "$PWD" <<'PY'
import sys
n, root = int(sys.argv[1]), sys.argv[2]
src = open(root + "/examples/gemm_pingpong.plk").read()
k = src[src.index("kernel gemm_pingpong("):]
k = k[:k.index("\n}\n") + 3]
print("\n".join('use "%s/components/hopper/%s.plk"' % (root, c) for c in ("tma_load_ab", "wgmma_mainloop", "store_bf16_tma")))
for i in range(n):
    print(k.replace("kernel gemm_pingpong(", "kernel g%d(" % i))
print("select many(A: tensor<bf16>[M, K], B: tensor<bf16>[N, K], C: tensor<bf16>[M, N]) {")
for i in range(n - 1):
    print("  when M == %d: g%d" % (i + 1, i))
print("  else: g%d\n}" % (n - 1))
PY
}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
fail=0
gen 171 >"$tmp/many.plk"
out=$("$PLKC" "$tmp/many.plk" -arch sm_90a -o "$tmp/many.cubin" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q '^error\[E0515\]: 1026 instances (lanes counted) in one cubin, over the 1023' <<<"$out" ||
	{ echo "171 variants: exit $rc, not E0515:"; printf '%s\n' "$out" | head -n 8; fail=1; }
[ ! -e "$tmp/many.cubin" ] || { echo "171 variants: a cubin was written"; fail=1; }
out=$("$PLKC" "$tmp/many.plk" -arch sm_90a --emit=manifest -o "$tmp/many.json" 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q '^error\[E0515\]' <<<"$out" && [ ! -e "$tmp/many.json" ] ||
	{ echo "171 variants, --emit=manifest: exit $rc, not E0515 without a file:"; printf '%s\n' "$out" | head -n 8; fail=1; }
gen 170 >"$tmp/ok.plk"
out=$("$PLKC" "$tmp/ok.plk" -arch sm_90a --emit=manifest -o "$tmp/ok.json" 2>&1) ||
	{ echo "170 variants: --emit=manifest failed:"; printf '%s\n' "$out" | head -n 8; fail=1; }
n=$(python3 -c 'import json,sys; print(len(json.load(open(sys.argv[1]))["variants"]))' "$tmp/ok.json" 2>/dev/null)
[ "$n" = 170 ] || { echo "170 variants: the manifest lists ${n:-none}"; fail=1; }
exit $fail
