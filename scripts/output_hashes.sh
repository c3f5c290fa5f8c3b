#!/bin/bash
# scripts/output_hashes.sh [PLKC]: one line per output plkc makes from the
# examples and the benchmark configurations, "sha256  what". Run it before
# and after a change that must not change behaviour and diff the two lists.
#
# Covers, for every example and every arch: each --emit kind (errors too:
# their text is hashed), the linked cubin and its manifest; every
# component's generated header; every bench/configs.py configuration's
# cubin, manifest and monolith source.
export LC_ALL=C NO_COLOR=1
PLKC=${1:-build/plkc}
cd "$(dirname "$0")/.."
tmp=$(mktemp -d); trap 'rm -rf "$tmp"' EXIT
h() { sha256sum | cut -c1-64; }
for ex in examples/*.plk; do
	for arch in sm_80 sm_90a sm_100a; do
		for emit in ast graph dot placement glue-ll monolith manifest; do
			echo "$("$PLKC" "$ex" -arch $arch --emit=$emit 2>&1 | h)  $ex $arch --emit=$emit"
		done
		if "$PLKC" "$ex" -arch $arch -o "$tmp/k.cubin" >"$tmp/log" 2>&1; then
			echo "$(h <"$tmp/k.cubin")  $ex $arch cubin"
			echo "$(h <"$tmp/k.manifest.json")  $ex $arch manifest.json"
		else
			echo "$(h <"$tmp/log")  $ex $arch cubin (error)"
		fi
		rm -f "$tmp"/k.*
	done
done
for c in components/*/*.plk bench/components/*.plk; do
	echo "$("$PLKC" "$c" --emit=header 2>&1 | h)  $c --emit=header"
done
if command -v python3 >/dev/null; then
	python3 bench/prepare.py --hashes --plkc "$PLKC" --out "$tmp/bench"
fi
