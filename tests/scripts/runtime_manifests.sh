#!/bin/bash
# Writer and reader agree: every example's manifest (plkc --emit=manifest)
# parses and resolves in the runtime for M = N = K = 4096 (the attention
# recipes: B = 2, H = 16, HKV = 8, SQ = SKV = 4096), tensor maps included;
# keys it does not know (the attention recipes' "hooks", the link map's
# "instances") are ignored. Needs plkc (skips without it); every example
# must pass.
B=${1:-build}
[ -x "$B/plkc" ] || { echo "no $B/plkc"; exit 77; }
out="$PWD/$B/runtime-manifests"
mkdir -p "$out" || exit 1
san=()
if [ -n "$PLK_SANITIZED" ]; then
	san=(OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
	     LDFLAGS="-fsanitize=address,undefined")
fi
make -s -C runtime B="$out" "${san[@]}" "$out/test_runtime" || exit 1
fails=0 n=0
for e in examples/*.plk; do
	[ -e "$e" ] || continue
	n=$((n + 1))
	arch=sm_90a
	case $e in *sm80*) arch=sm_80 ;; esac
	m="$out/$(basename "$e" .plk).manifest.json"
	if ! "$B/plkc" "$e" -arch $arch --emit=manifest >"$m" 2>"$m.err"; then
		echo "FAIL: plkc $e --emit=manifest: $(head -c 2000 "$m.err")"; fails=$((fails + 1)); continue
	fi
	syms="M=4096 N=4096 K=4096"
	case $e in
	*/attn_ring.plk) syms="B=2 H=16 HKV=8 SQ=4096 SKV=4096 KB=32" ;;   # the signals: SKV / 128
	*/attn_*) syms="B=2 H=16 HKV=8 SQ=4096 SKV=4096 QB=32 KVB=32" ;;
	*/ag_gemm.plk) syms="$syms MB=32" ;;              # the signals: M / 128
	*/gemm_rs.plk) syms="$syms MP=1024 NS=512" ;;     # 4 GPUs' share; signals
	esac
	# shellcheck disable=SC2086
	if ! o=$("$out/test_runtime" --manifest "$m" $syms 2>&1); then
		echo "FAIL: $e: $o"; fails=$((fails + 1)); continue
	fi
	printf '%s' "$o" | grep -q "work items, grid" || { echo "FAIL: $e: $o"; fails=$((fails + 1)); }
done
[ $n -gt 0 ] || { echo "no examples in examples/"; exit 1; }
# bare names where the manifest takes an expression: a scalar alone as the
# grid's tiles ("T"), a const alone as a tensor's size and in a `require`
n=$((n + 1))
m="$out/manifest_bare_names.manifest.json"
if ! "$B/plkc" tests/cli/manifest_bare_names.plk -arch sm_90a --emit=manifest >"$m" 2>"$m.err" ||
   ! o=$("$out/test_runtime" --manifest "$m" M=256 N=4096 T=7 2>&1) ||
   ! printf '%s' "$o" | grep -q "7 work items"; then
	echo "FAIL: tests/cli/manifest_bare_names.plk: $(head -c 2000 "$m.err") ${o:-}"; fails=$((fails + 1))
fi
# a linked kernel's manifest carries its link map ("instances" with each
# object's digest): the runtime reads it as well
if command -v nvcc >/dev/null 2>&1 || [ -x "${CUDA_HOME:-/usr/local/cuda}/bin/nvcc" ]; then
	n=$((n + 1))
	if ! "$B/plkc" examples/gemm.plk -arch sm_90a -o "$out/linked.cubin" 2>"$out/linked.err"; then
		echo "FAIL: link of examples/gemm.plk: $(head -c 2000 "$out/linked.err")"; fails=$((fails + 1))
	elif ! grep -q '"object": "[0-9a-f]\{64\}"' "$out/linked.manifest.json" ||
	     ! o=$("$out/test_runtime" --manifest "$out/linked.manifest.json" M=4096 N=4096 K=4096 2>&1); then
		echo "FAIL: the linked manifest: $o"; fails=$((fails + 1))
	fi
fi
echo "$((n - fails)) of $n manifests load"
[ $fails -eq 0 ]
