#!/bin/bash
# scripts/mutate.sh [COUNT] [SEED] [PLKC]: a bad-input campaign over the
# examples and the components they use. Each input is one mutation
# (scripts/mutate.c: a flipped bit, bytes deleted or duplicated, tokens
# swapped or replaced, a number made extreme, a token inserted) of one
# file, in a copy of the tree; plkc (default build/san/plkc, ASan + UBSan)
# then checks the recipe that uses it (`--check`; every fourth input also
# `--emit=glue-ll` or `--emit=monolith`, which go further) for an arch
# chosen by the seed. Fails on any sanitizer report, crash (a signal) or
# hang (10 s); plkc's errors are the expected outcome. Failing inputs are
# kept in build/mutate/. Prints "N inputs: ...". tests/scripts/mutate.sh
# runs a small fixed-seed campaign in make test.
count=${1:-1000}
seed=${2:-1}
PLKC=${3:-build/san/plkc}
cd "$(dirname "$0")/.."
PLKC=$(cd "$(dirname "$PLKC")" && pwd)/$(basename "$PLKC")
[ -x "$PLKC" ] || { echo "mutate: no $PLKC (make test builds build/san/plkc)"; exit 2; }
out=build/mutate
mkdir -p "$out"
cc -O2 -o "$out/mutate" scripts/mutate.c || exit 2
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir -p "$tmp/tree"
cp -r examples "$tmp/tree/"
mkdir -p "$tmp/tree/components"
for d in components/*/; do
	mkdir -p "$tmp/tree/$d"
	cp "$d"*.plk "$tmp/tree/$d"
done
cp -r "$tmp/tree" "$tmp/orig"
# (recipe, file) pairs: each example, and each file it uses
pairs=()
for e in examples/*.plk; do
	pairs+=("$e $e")
	for u in $(sed -n 's/^use "\(.*\)"$/\1/p' "$e"); do
		pairs+=("$e examples/$u")
	done
done
export ASAN_OPTIONS=detect_leaks=1 LSAN_OPTIONS=suppressions=$PWD/tests/lsan.supp
archs=(sm_90a sm_80 sm_100a)
fails=0 errors=0 oks=0
declare -A kinds
for ((i = 0; i < count; i++)); do
	s=$((seed + i))
	read -r rec file <<<"${pairs[s % ${#pairs[@]}]}"
	kind=$("$out/mutate" "$s" "$tmp/orig/$file" "$tmp/tree/$file") || exit 2
	kinds[$kind]=$((${kinds[$kind]:-0} + 1))
	arch=${archs[$(((s / ${#pairs[@]}) % 3))]}
	case $((s % 4)) in
	2) emit=(--emit=glue-ll) ;;
	3) emit=(--emit=monolith) ;;
	*) emit=(--check) ;;
	esac
	o=$(cd "$tmp/tree" && timeout 10 "$PLKC" "$rec" -arch "$arch" "${emit[@]}" 2>&1 >/dev/null)
	rc=$?
	why=""
	if [ $rc -eq 124 ]; then why="hang"
	elif [ $rc -ge 128 ]; then why="signal $((rc - 128))"
	elif grep -qE 'AddressSanitizer|LeakSanitizer|UndefinedBehaviorSanitizer|runtime error:' <<<"$o"; then why="sanitizer"
	elif [ $rc -ne 0 ] && [ $rc -ne 1 ]; then why="exit $rc"
	fi
	if [ -n "$why" ]; then
		fails=$((fails + 1))
		keep="$out/fail-$s-$(basename "$file")"
		cp "$tmp/tree/$file" "$keep"
		echo "FAIL seed $s ($kind of $file, $rec -arch $arch ${emit[*]}): $why; input kept in $keep"
		printf '%s\n' "$o" | grep -E 'ERROR|runtime error|SUMMARY|#[0-9] ' | head -n 12 | sed 's/^/    /'
	elif [ $rc -eq 0 ]; then oks=$((oks + 1))
	else errors=$((errors + 1))
	fi
	cp "$tmp/orig/$file" "$tmp/tree/$file"
done
summary=""
for k in "${!kinds[@]}"; do summary="$summary $k ${kinds[$k]},"; done
echo "$count inputs (seeds $seed..$((seed + count - 1));${summary%,}): $oks accepted, $errors rejected with errors, $fails failed"
[ $fails -eq 0 ]
