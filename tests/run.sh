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
# Tests run PLK_TEST_JOBS at a time (default: the number of CPUs), each
# into a result file of its own; the results are printed in the order
# above once all have run: one line per failure or skip, then
# "N passed, N failed, N skipped". Component objects go to a cache of the
# tests' own (PLKC_TEST_CACHE, else build/test-cache), never the user's;
# plkc's cache takes concurrent writers.
export LC_ALL=C NO_COLOR=1
export PLKC_CACHE="${PLKC_TEST_CACHE:-$PWD/build/test-cache}"
jobs=${PLK_TEST_JOBS:-$(nproc 2>/dev/null || echo 1)}
res=$(mktemp -d) || exit 1
trap 'rm -rf "$res"' EXIT
n=0

# Each test writes "$res/N": a first line "ok", "bad NAME" or "skip NAME:
# REASON", then what a failure shows.
golden() {   # golden CMD FILE
	local exp="${2%.plk}.out" got
	got=$(timeout 20 bash -c "$(cat "$1")" _ "$2" 2>&1; echo "[exit $?]")
	if [ -n "$UPDATE" ]; then printf '%s\n' "$got" >"$exp"; echo ok; return; fi
	if [ ! -f "$exp" ]; then printf 'bad %s\nmissing %s\n' "$2" "$exp"; return; fi
	if [ "$got" == "$(cat "$exp")" ]; then echo ok
	else printf 'bad %s\n%s\n' "$2" "$(diff <(printf '%s\n' "$got") "$exp")"; fi
}
unit() {     # unit PROGRAM
	local out
	if out=$("$1" 2>&1); then echo ok; else printf 'bad unit/%s\n%s\n' "$(basename "$1")" "$out"; fi
}
script() {   # script FILE
	local out rc
	out=$(timeout 600 bash "$1" "$B" 2>&1); rc=$?
	case $rc in
	0) echo ok ;;
	77) printf 'skip %s: %s\n' "$1" "$(printf '%s\n' "$out" | tail -n 1)" ;;
	*) printf 'bad %s\n%s\n' "$1" "$out" ;;
	esac
}
# start TEST ARGS...: in the background once fewer than $jobs run
start() {
	while [ "$(jobs -rp | wc -l)" -ge "$jobs" ]; do wait -n; done
	( "$@" >"$res/$n" 2>&1 ) &
	n=$((n + 1))
}

for B in "${@:-build}"; do
	export PLKC="$PWD/$B/plkc"
	# the sanitizer build's pass (make test: build/san) builds the
	# runtime's tests with ASan + UBSan too (tests/scripts/runtime_*.sh)
	case $B in *san*) export PLK_SANITIZED=1 ;; *) unset PLK_SANITIZED ;; esac
	echo "== $B" >"$res/$n"; n=$((n + 1))
	for t in "$B"/unit/*; do
		[ -x "$t" ] && start unit "$t"
	done
	for cmd in tests/*/cmd; do
		for f in "$(dirname "$cmd")"/*.plk; do
			[ -e "$f" ] && start golden "$cmd" "$f"
		done
	done
	for s in tests/scripts/*.sh; do
		[ -e "$s" ] && start script "$s"
	done
	wait   # the next build dir's tests after this one's (B is the job's)
done
wait

pass=0 fail=0 skip=0
for ((i = 0; i < n; i++)); do
	IFS= read -r first <"$res/$i"
	case $first in
	"== "*) B=${first#== }; echo "$first" ;;
	ok) pass=$((pass + 1)) ;;
	skip\ *) skip=$((skip + 1)); echo "SKIP [$B] ${first#skip }" ;;
	bad\ *) fail=$((fail + 1)); echo "FAIL [$B] ${first#bad }"; tail -n +2 "$res/$i" | head -n 30 | sed 's/^/    /' ;;
	*) fail=$((fail + 1)); echo "FAIL [$B] a test wrote no result ($first)" ;;
	esac
done
echo "$pass passed, $fail failed, $skip skipped"
[ "$fail" -eq 0 ]
