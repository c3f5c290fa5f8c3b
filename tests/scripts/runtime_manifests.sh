#!/bin/bash
# Writer and reader agree: every example's manifest (plkc --emit=manifest)
# parses and resolves in the runtime for M = N = K = 4096 (the attention
# recipes: B = 2, H = 16, HKV = 8, SQ = SKV = 4096), tensor maps included;
# keys it does not know (the attention recipes' "hooks") are ignored. Needs plkc (skips without it).
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
	arch=sm_90a
	case $e in *sm80*) arch=sm_80 ;; esac
	m="$out/$(basename "$e" .plk).manifest.json"
	if ! "$B/plkc" "$e" -arch $arch --emit=manifest >"$m" 2>"$m.err"; then
		echo "FAIL: plkc $e --emit=manifest: $(head -c 2000 "$m.err")"; fails=$((fails + 1)); continue
	fi
	syms="M=4096 N=4096 K=4096"
	case $e in */attn_*) syms="B=2 H=16 HKV=8 SQ=4096 SKV=4096 QB=32 KVB=32" ;; esac
	# shellcheck disable=SC2086
	if ! o=$("$out/test_runtime" --manifest "$m" $syms 2>&1); then
		echo "FAIL: $e: $o"; fails=$((fails + 1)); continue
	fi
	printf '%s' "$o" | grep -q "work items, grid" || { echo "FAIL: $e: $o"; fails=$((fails + 1)); }
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "no examples"; exit 77; }
[ $fails -eq 0 ]
