#!/bin/bash
# Every error code that plkc can emit has docs/errors/CODE.md; --explain
# prints it; and its ```plk example, compiled, reports exactly that code.
B=${1:-build}
tmp="$B/explain"
mkdir -p "$tmp"
fail=0
codes=$(grep -ohE '"E0[0-9]{3}"' compiler/*.c grammar/*.y grammar/*.re | tr -d '"' | sort -u)
[ -n "$codes" ] || { echo "no error codes found in the sources"; exit 1; }
for code in $codes; do
	[ -f "docs/errors/$code.md" ] || { echo "$code: emitted by plkc but docs/errors/$code.md is missing"; fail=1; }
done
for doc in docs/errors/E*.md; do
	code=$(basename "$doc" .md)
	if ! diff -q <("$PLKC" --explain "$code") "$doc" >/dev/null; then
		echo "$code: plkc --explain does not print $doc"; fail=1; continue
	fi
	ex="$tmp/$code.plk"
	awk '/^```plk$/{on=1; next} /^```$/{if(on){exit}} on' "$doc" >"$ex"
	[ -s "$ex" ] || continue
	args=$(sed -n 's/^<!-- args: \(.*\) -->$/\1/p' "$doc")
	out=$(cd "$tmp" && timeout 60 "$PLKC" "$code.plk" ${args:--arch sm_90a -o "$code.cubin"} 2>&1)
	rc=$?
	if [ $rc -ne 1 ] || ! grep -q "error\[$code\]" <<<"$out"; then
		echo "$code: its example exited $rc without error[$code]:"; printf '%s\n' "$out" | head -n 12; fail=1
	fi
done
exit $fail
