#!/bin/bash
# Every component's source agrees with its contract: the header that
# `plkc --emit=header` writes (ids and the entry's prototype) is included
# before the source, and nvcc compiles the pair. A contract whose params or
# ports differ from the entry's signature is a "conflicting declaration".
B=${1:-build}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "skip: no nvcc"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for plk in components/*/*.plk; do
	src=$(sed -n 's/^ *source *"\(.*\)".*/\1/p' "$plk")
	[ -n "$src" ] || continue
	arch=sm_90a
	grep -q 'needs' "$plk" || arch=sm_80
	name=$(basename "$plk" .plk)
	"$PLKC" --emit=header "$plk" >"$tmp/$name.plk.h" || { echo "$plk: --emit=header failed"; fail=1; continue; }
	printf '#include "%s.plk.h"\n#include "%s/%s"\n' "$name" "$PWD/$(dirname "$plk")" "$src" >"$tmp/$name.cu"
	sm=${arch#sm_}
	if ! "$NVCC" -rdc=true -ptx -gencode arch=compute_$sm,code=compute_$sm -Istdlib -I"$tmp" \
		-o "$tmp/$name.ptx" "$tmp/$name.cu" 2>"$tmp/err"; then
		echo "$plk: its source disagrees with its contract:"; grep -m 5 error "$tmp/err"; fail=1
	fi
	n=$((n + 1))
done
[ $n -gt 0 ] || { echo "no components found"; exit 1; }
echo "$n components checked"
exit $fail
