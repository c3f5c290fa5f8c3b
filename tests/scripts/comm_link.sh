#!/bin/bash
# The all-gather comm stage on NVSHMEM (docs/comm.md), linked without a
# GPU: examples/ag_gemm.plk links for sm_90a; its manifest names the
# engine (the runtime initialises it); the cubin defines NVSHMEM's device
# state once (nvshmemx_cumodule_init fills it in by name); the glue calls
# the push stage's prologue (-2, -2) before the tile loop and the flush
# after it; the tile order is the rank-rotated one (nvshmem_rank_order);
# the loader's wait is inlined (no plk_ call survives, the
# proxy fence is there). The push stage built alone (-c) carries `engine`
# and `prologue` in its contract and links from its object to the same
# cubin. examples/gemm_rs.plk links too (its engine, its order, its
# signal store), and examples/attn_ring.plk; ag_gemm and attn_ring link
# without ptxas serializing their wgmmas (no device library in the link
# but plkc's object of the state NVSHMEM's host looks up), and with
# --engine-lib, the library. Without NVSHMEM: E0219, naming where plkc looked.
# Exit 0 pass, 1 fail, 77 skip (no nvcc, or no NVSHMEM: pip install nvidia-nvshmem-cu13).
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -x "$CUDA_HOME/bin/nvcc" ] || { echo "skip: no nvcc under $CUDA_HOME"; exit 77; }
NV=${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem as m; print(m.__path__[0])' 2>/dev/null)}
[ -f "$NV/include/nvshmem.h" ] || { echo "skip: no NVSHMEM: pip install nvidia-nvshmem-cu13"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
no() { echo "FAIL: $*"; fail=1; }
export PLKC_CACHE=${PLKC_CACHE:-$tmp/cache}

"$PLKC" examples/ag_gemm.plk -arch sm_90a -o "$tmp/ag.cubin" 2>"$tmp/err" || { cat "$tmp/err"; exit 1; }
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); sys.exit(m.get("engines") != ["nvshmem"])' \
	"$tmp/ag.manifest.json" || no "the manifest does not say engines [nvshmem]: $(grep engines "$tmp/ag.manifest.json")"
"$PLKC" examples/gemm.plk -arch sm_90a -o "$tmp/g.cubin" || no "gemm does not link"
grep -q '"engines"' "$tmp/g.manifest.json" && no "gemm's manifest names an engine"
n=$(readelf -s -W "$tmp/ag.cubin" 2>/dev/null | awk '$5 == "GLOBAL" && $8 == "nvshmemi_device_state_d"' | wc -l)
[ "$n" = 1 ] || no "the cubin defines nvshmemi_device_state_d $n times, not once"

"$PLKC" examples/ag_gemm.plk -arch sm_90a --emit=glue-ll -o "$tmp/ag.ll" || no "--emit=glue-ll failed"
grep -qE 'call void @plk_nvshmem_ag_push\(i32 [0-9]+, .*i32 -2, i32 -2\)' "$tmp/ag.ll" || no "no prologue call of the push stage"
grep -qE 'call void @plk_nvshmem_ag_push\(i32 [0-9]+, .*i32 -1, i32 -1\)' "$tmp/ag.ll" || no "no flush call of the push stage"
# in the push stage's role: prologue call, then its tile loop's head, then its work item call
awk '/call void @plk_nvshmem_ag_push\(.*i32 -2, i32 -2\)/ { p = NR }
     p && !h && /^tile\.head/ { h = NR }
     h && /call void @plk_nvshmem_ag_push\(.*i32 %[^,]*, i32 %[^,]*\)$/ { ok = 1; exit }
     END { exit !ok }' "$tmp/ag.ll" || no "the prologue call is not before the push stage's tile loop"
n=$(grep -c 'call i32 @plk_nvshmem_rank_order_m(' "$tmp/ag.ll")
[ "$n" -ge 3 ] || no "the roles do not take their tiles from nvshmem_rank_order ($n calls)"
"$PLKC" examples/gemm.plk -arch sm_90a --emit=glue-ll -o "$tmp/g.ll" || no "gemm --emit=glue-ll failed"
grep -qE 'i32 -2, i32 -2\)' "$tmp/g.ll" && no "gemm's glue has a prologue call"

"$PLKC" examples/ag_gemm.plk -arch sm_90a --emit=ptx -o "$tmp/ag.ptx" || no "--emit=ptx failed"
grep -q 'fence.proxy.async.global' "$tmp/ag.ptx" || no "the ready hook's fence is not in the PTX"

# GEMM + reduce-scatter: the epilogue calls NVSHMEM; its own rows last (SHIFT = 1)
"$PLKC" examples/gemm_rs.plk -arch sm_90a -o "$tmp/rs.cubin" 2>"$tmp/err" || no "gemm_rs: $(cat "$tmp/err")"
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); sys.exit(m.get("engines") != ["nvshmem"])' \
	"$tmp/rs.manifest.json" || no "gemm_rs's manifest does not say engines [nvshmem]"
"$PLKC" examples/gemm_rs.plk -arch sm_90a --emit=map >"$tmp/rs.map" || no "gemm_rs --emit=map failed"
grep -q '^  cparams   SHIFT = 1$' "$tmp/rs.map" || no "gemm_rs's order is not SHIFT = 1: $(grep -A3 '^rot' "$tmp/rs.map")"
"$PLKC" examples/gemm_rs.plk -arch sm_90a --emit=ptx -o "$tmp/rs.ptx" || no "gemm_rs --emit=ptx failed"
grep -q 'st.release.sys.global.u64' "$tmp/rs.ptx" || no "gemm_rs's signal store is not in the PTX"

# context-parallel attention (examples/attn_ring.plk): links, names its
# engine; without the device library in the link (every call inlined)
# ptxas has nothing to serialize and keeps setmaxnreg, for it and ag_gemm,
# the cubin defining NVSHMEM's device state and the device library's
# version once (the latter from an LTO object plkc builds, engine.c)
"$PLKC" examples/attn_ring.plk -arch sm_90a -o "$tmp/ring.cubin" 2>"$tmp/err" || no "attn_ring: $(cat "$tmp/err")"
python3 -c 'import json, sys; m = json.load(open(sys.argv[1])); sys.exit(m.get("engines") != ["nvshmem"])' \
	"$tmp/ring.manifest.json" || no "attn_ring's manifest does not say engines [nvshmem]"
for ex in ag_gemm attn_ring; do
	"$PLKC" "examples/$ex.plk" -arch sm_90a -v -o "$tmp/$ex-inl.cubin" >"$tmp/inl.log" 2>&1 ||
		{ no "$ex -v: $(tail -n 5 "$tmp/inl.log")"; continue; }
	grep -E "C75(04|09|20)" "$tmp/inl.log" && no "$ex: ptxas serializes wgmmas or drops setmaxnreg"
	for sym in nvshmemi_device_state_d nvshmemi_device_lib_version_d; do   # nvshmemx_cumodule_init looks both up
		n=$(readelf -s -W "$tmp/$ex-inl.cubin" 2>/dev/null | awk -v s=$sym '$5 == "GLOBAL" && $8 == s' | wc -l)
		[ "$n" = 1 ] || no "$ex: the cubin defines $sym $n times, not once"
	done
done

# the state object plkc builds is cached; a damaged entry is built again,
# never linked, and the cubin is the same
f=$(ls "$PLKC_CACHE"/nvshmem-state-*.o 2>/dev/null | head -n 1)
if [ -z "$f" ]; then
	no "no NVSHMEM state object in the cache ($PLKC_CACHE)"
else
	printf 'X' | dd of="$f" bs=1 seek=300 conv=notrunc 2>/dev/null
	"$PLKC" examples/ag_gemm.plk -arch sm_90a -o "$tmp/ag-again.cubin" 2>"$tmp/err" || no "ag_gemm after a damaged cache entry: $(cat "$tmp/err")"
	cmp -s "$tmp/ag.cubin" "$tmp/ag-again.cubin" || no "a damaged cached state object changed the cubin"
	# entry: "plkc-engine-state SHA256\n" (83 bytes), then the object of that sha256
	[ "$(head -c 82 "$f" | cut -d' ' -f2)" = "$(tail -c +84 "$f" | sha256sum | cut -d' ' -f1)" ] ||
		no "the damaged cache entry was not written again"
fi

# --engine-lib: the device library in the link instead (for calls its
# headers do not inline), its state defined once all the same
"$PLKC" examples/ag_gemm.plk -arch sm_90a --engine-lib -o "$tmp/ag-lib.cubin" 2>"$tmp/err" || no "ag_gemm --engine-lib: $(cat "$tmp/err")"
n=$(readelf -s -W "$tmp/ag-lib.cubin" 2>/dev/null | awk '$5 == "GLOBAL" && $8 == "nvshmemi_device_state_d"' | wc -l)
[ "$n" = 1 ] || no "ag_gemm --engine-lib: the cubin defines nvshmemi_device_state_d $n times, not once"
cmp -s "$tmp/ag.cubin" "$tmp/ag-lib.cubin" && no "--engine-lib links the same cubin as without it"

# the stage as its owner ships it
"$PLKC" -c components/comm/nvshmem_ag_push.plk -arch sm_90a -o "$tmp/push.o" || no "-c nvshmem_ag_push failed"
"$PLKC" --emit=contract "$tmp/push.o" >"$tmp/contract" || no "--emit=contract of the object failed"
grep -qx '  engine nvshmem' "$tmp/contract" && grep -qx '  prologue' "$tmp/contract" ||
	no "the object's contract lacks engine/prologue: $(cat "$tmp/contract")"
sed "s|^use \"../components/comm/nvshmem_ag_push.plk\"|use object \"$tmp/push.o\"|" examples/ag_gemm.plk >"$tmp/ag_obj.plk"
sed -i "s|\"\.\./components/|\"$PWD/components/|" "$tmp/ag_obj.plk"
"$PLKC" "$tmp/ag_obj.plk" -arch sm_90a -o "$tmp/ag_obj.cubin" 2>"$tmp/err" || no "ag_gemm from the shipped object: $(cat "$tmp/err")"
cmp -s "$tmp/ag.cubin" "$tmp/ag_obj.cubin" || no "the shipped object links another cubin"

# no engine installed: E0219 at the clause, where plkc looked
out=$(NVSHMEM_HOME=/nonexistent/nvshmem PLKC_CACHE="$tmp/cold" "$PLKC" examples/ag_gemm.plk -arch sm_90a -o "$tmp/x.cubin" 2>&1)
[ $? = 1 ] && grep -q 'error\[E0219\]: cannot find nvshmem, which component `nvshmem_ag_push` calls' <<<"$out" &&
	grep -q 'NVSHMEM_HOME=/nonexistent/nvshmem' <<<"$out" && grep -q 'pip install nvidia-nvshmem-cu13' <<<"$out" &&
	[ "$(grep -c 'error\[E0219\]' <<<"$out")" = 1 ] ||
	no "without NVSHMEM: $out"
[ -e "$tmp/x.cubin" ] && no "a cubin was written without NVSHMEM"
[ $fail = 0 ] && echo "comm_link: ag_gemm links (its engine's calls inlined, or with the device library), prologue and wait in place"
exit $fail
