#!/bin/bash
# A megakernel on the command line (docs/megakernel.md): --check passes and
# writes nothing; --emit=schedule to -o FILE writes what stdout shows; a
# build whose ops take tensor maps is refused (E0379) and writes nothing,
# and does not build the op kernels on their own; --kernel picks a
# megakernel, or one op's kernel.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
tmp=$(mktemp -d) || exit 1
trap 'rm -rf "$tmp"' EXIT
f=tests/mega/gemm_mlp.plk
fail=0
no() { echo "FAIL: $*"; fail=1; }

out=$("$PLKC" "$f" --check -arch sm_90a 2>&1) || no "--check exited $?: $out"
[ -z "$out" ] || no "--check printed: $out"

"$PLKC" "$f" --emit=schedule -arch sm_90a >"$tmp/stdout" 2>&1 || no "--emit=schedule exited $?"
"$PLKC" "$f" --emit=schedule -arch sm_90a -o "$tmp/sched.txt" || no "--emit=schedule -o exited $?"
cmp -s "$tmp/stdout" "$tmp/sched.txt" || no "--emit=schedule -o differs from stdout"
grep -q "^  1 down = gemm: 64 pieces" "$tmp/sched.txt" || no "schedule lacks op down: $(head -n 12 "$tmp/sched.txt")"

(cd "$tmp" && "$PLKC" "$OLDPWD/$f" -arch sm_90a -o mlp.cubin >log 2>&1); rc=$?
[ $rc -eq 1 ] || no "a plain build exited $rc, not 1"
grep -q "error\[E0379\]" "$tmp/log" || no "a plain build did not report E0379: $(head -n 5 "$tmp/log")"
left=$(cd "$tmp" && ls | grep -v '^log$\|^stdout$\|^sched.txt$')
[ -z "$left" ] || no "a refused build wrote: $left"

"$PLKC" "$f" --kernel mlp --emit=schedule -arch sm_90a >/dev/null 2>&1 || no "--kernel mlp --emit=schedule failed"
"$PLKC" "$f" --kernel gemm --emit=placement -arch sm_90a >"$tmp/pl" 2>&1 || no "--kernel gemm --emit=placement failed"
grep -q "threads" "$tmp/pl" || no "op kernel's placement: $(head -n 3 "$tmp/pl")"
out=$("$PLKC" "$f" --kernel mpl --emit=schedule -arch sm_90a 2>&1); rc=$?
[ $rc -eq 1 ] && grep -q "no kernel, select or megakernel named \`mpl\`" <<<"$out" || no "--kernel mpl: rc $rc: $out"
exit $fail
