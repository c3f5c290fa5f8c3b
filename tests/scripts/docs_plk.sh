#!/bin/bash
# Every ```plk block of docs/*.md and README.md compiles (plkc --check for
# sm_90a): the pages show the language as it is. Recipes name components
# the way examples/ does (`use "../components/..."`), found through
# `-I examples`. docs/errors/ is explain_docs.sh's: its examples must fail.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
out="$B/docs-plk"
rm -rf "$out" && mkdir -p "$out" || exit 1
fail=0 n=0
for doc in README.md docs/*.md; do
	base=$(basename "$doc" .md)
	awk -v dir="$out" -v base="$base" '
		/^```plk$/ { on = 1; k++; f = sprintf("%s/%s-%d.plk", dir, base, k); printf "" > f; next }
		/^```/ { if (on) close(f); on = 0; next }
		on { print >> f }' "$doc"
done
for f in "$out"/*.plk; do
	[ -e "$f" ] || continue
	n=$((n + 1))
	if ! o=$("$PLKC" "$f" --check -arch sm_90a -I examples 2>&1); then
		echo "FAIL: the block in $(basename "$f" .plk | sed 's/-\([0-9]*\)$/.md, block \1/') does not compile:"
		printf '%s\n' "$o" | head -n 20
		fail=1
	fi
done
[ $n -gt 0 ] || { echo "no \`\`\`plk blocks in docs/"; exit 1; }
exit $fail
