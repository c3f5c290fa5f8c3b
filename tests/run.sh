#!/bin/bash
# tests/run.sh BUILD_DIR...: run every test against each BUILD_DIR/plkc
# (make test passes build and build/san, the ASan + UBSan build).
#
#   unit:    BUILD_DIR/unit/*          one C program per module; exit 0 = pass
#   golden:  tests/<suite>/cmd         a command run on each tests/<suite>/*.plk
#            ($PLKC is plkc, $1 the file); stdout+stderr and the exit status
#            must equal tests/<suite>/<name>.out. UPDATE=1 rewrites the .out files.
#   scripts: tests/scripts/*.sh        one test each; exit 0 pass, 77 skip.
#
# Prints one line per failure, then "N passed, N failed, N skipped".
# Component objects go to a cache of the tests' own (PLKC_TEST_CACHE, else
# build/test-cache), never the user's.
export LC_ALL=C NO_COLOR=1
export PLKC_CACHE="${PLKC_TEST_CACHE:-$PWD/build/test-cache}"
pass=0 fail=0 skip=0
ok()   { pass=$((pass + 1)); }
bad()  { fail=$((fail + 1)); echo "FAIL [$B] $1"; [ -n "$2" ] && printf '%s\n' "$2" | head -n 30 | sed 's/^/    /'; }
skipped() { skip=$((skip + 1)); echo "SKIP [$B] $1${2:+: $2}"; }

for B in "${@:-build}"; do
export PLKC="$PWD/$B/plkc"
echo "== $B"

for t in "$B"/unit/*; do
	[ -x "$t" ] || continue
	if out=$("$t" 2>&1); then ok; else bad "unit/$(basename "$t")" "$out"; fi
done

for cmd in tests/*/cmd; do
	suite=$(dirname "$cmd")
	for f in "$suite"/*.plk; do
		[ -e "$f" ] || continue
		exp="${f%.plk}.out"
		got=$(timeout 20 bash -c "$(cat "$cmd")" _ "$f" 2>&1; echo "[exit $?]")
		if [ -n "$UPDATE" ]; then printf '%s\n' "$got" >"$exp"; ok; continue; fi
		if [ ! -f "$exp" ]; then bad "$f" "missing $exp"; continue; fi
		if [ "$got" == "$(cat "$exp")" ]; then ok
		else bad "$f" "$(diff <(printf '%s\n' "$got") "$exp")"; fi
	done
done

for s in tests/scripts/*.sh; do
	[ -e "$s" ] || continue
	out=$(timeout 600 bash "$s" "$B" 2>&1); rc=$?
	case $rc in
	0) ok ;;
	77) skipped "$s" "$(printf '%s\n' "$out" | tail -n 1)" ;;
	*) bad "$s" "$out" ;;
	esac
done

done

echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
