#!/bin/bash
# A name in a kernel's run-time expression means one thing in the glue,
# the monolith and the manifest (graph_name): an integer scalar or shape
# symbol, else a recipe const, never a tensor's map or pointer. Before,
# the monolith took any kernel parameter first, so `const a = 1` in
# `tiles(... * a, ...)` came out as `* p0`, tma_load_ab's map of A (its
# param `a`), while the glue used 1. No nvcc needed: the IR and C text.
# Exit 0 pass, 1 fail.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
cat >"$tmp/k.plk" <<'PLK'
use "hopper/tma_load_ab.plk"
use "hopper/wgmma_mainloop.plk"
use "hopper/store_bf16_tma.plk"

kernel gemm(A: tensor<bf16>[M, K], B: tensor<bf16>[N, K], C: tensor<bf16>[M, N]) {
  const BM = 128, BN = 256, BK = 64, a = 1
  const WG = 2, WARPS = 4 * WG
  grid persistent, tiles(ceil_div(M, BM) * a, ceil_div(N, BN))

  load  = tma_load_ab(a = A, b = B)
  mma   = wgmma_mainloop()
  store = store_bf16_tma(c = C)

  load.ab -> mma.ab [stages = auto]
  mma.acc -> store.acc
}
PLK
mono=$("$PLKC" "$tmp/k.plk" -arch sm_90a --emit=monolith -o - 2>&1) || no "--emit=monolith: $(head -n 5 <<<"$mono")"
grep -q 'tiles_m = ((((p[0-9]*) + (128) - 1) / (128)) \* 1)' <<<"$mono" ||
	no "the monolith's tile rows do not multiply by the const a = 1: $(grep 'tiles_m =' <<<"$mono")"
"$PLKC" "$tmp/k.plk" -arch sm_90a --emit=glue-ll -o "$tmp/k.ll" 2>"$tmp/err" || no "--emit=glue-ll: $(head -n 5 "$tmp/err")"
man=$("$PLKC" "$tmp/k.plk" -arch sm_90a --emit=manifest -o - 2>&1) || no "--emit=manifest: $(head -n 5 <<<"$man")"
grep -q '"ceil_div(M, 128) \* 1"\|(ceil_div(M, 128) \* 1)' <<<"$man" ||
	no "the manifest's grid does not read a as 1: $(grep -o '"tiles[^]]*]' <<<"$man" | head -n 2)"
exit $fail
