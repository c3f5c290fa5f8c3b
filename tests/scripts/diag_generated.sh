#!/bin/bash
# Inputs too large to commit, generated here: a 1 MB line with an error at
# its end, and brackets nested 10,000 deep. Each must get its diagnostic
# (tests/diag-gen/NAME.out), exit 1, and finish quickly.
B=${1:-build}
dir="$B/diag-gen"
mkdir -p "$dir"
python3 - "$dir" <<'PY'
import sys
d = sys.argv[1]
pad = "1 + " * 262144                         # 1 MiB of a valid expression
open(d + "/long_line.plk", "w").write("kernel k() {\n  const X = " + pad + "1 $ 2\n}\n")
open(d + "/deep_parens.plk", "w").write("kernel k() {\n  const X = " + "(" * 10000 + "1" + ")" * 10000 + "\n}\n")
open(d + "/deep_braces.plk", "w").write("component c {\n  out p: " + "{ f: " * 10000 + "tile<bf16, 8 x 8>" + " }" * 10000 + "\n}\n")
open(d + "/long_sum.plk", "w").write("kernel k() {\n  const X = " + "1 + " * 100000 + "1\n}\n")
PY
fail=0
for f in long_line deep_parens deep_braces long_sum; do
	got=$(cd "$dir" && timeout 20 "$PLKC" --emit=ast "$f.plk" 2>&1 >/dev/null; echo "[exit $?]")
	exp="tests/diag-gen/$f.out"
	if [ -n "$UPDATE" ]; then printf '%s\n' "$got" >"$exp"; continue; fi
	if [ "$got" != "$(cat "$exp")" ]; then
		echo "diag-gen/$f differs:"; diff <(printf '%s\n' "$got") "$exp" | head -20; fail=1
	fi
done
exit $fail
