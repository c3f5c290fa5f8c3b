#!/bin/bash
# Every component's source agrees with its contract, which is the only place
# its constants and ids are written: the source includes <NAME.plk.h>, the
# header `plkc --emit=header` writes (cparam defaults, ids, the entry's
# prototype), and nvcc compiles it with nothing else defined. A contract whose params or
# ports differ from the entry's signature is a "conflicting declaration"; an
# id the contract does not declare is undefined. A source that still defines
# a cparam or an id enum of its own fails too. With the sanitized build
# only the headers are made (nvcc's half is the same for both builds).
B=${1:-build}
NVCC=$(command -v nvcc || echo /usr/local/cuda/bin/nvcc)
[ -x "$NVCC" ] || { echo "skip: no nvcc"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
# CUTLASS's headers for a component written against CuTe (the nvidia-cutlass
# wheel, which .ci/run installs); without them those components are skipped
NVSHMEM=${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem as m; print(m.__path__[0])' 2>/dev/null)}
CUTE=$(python3 -c 'import cutlass_library, os; print(os.path.join(os.path.dirname(cutlass_library.__file__), "source", "include"))' 2>/dev/null)
fail=0 n=0 skipped=""
for plk in components/*/*.plk bench/components/*.plk; do
	src=$(sed -n 's/^ *source *"\(.*\)".*/\1/p' "$plk")
	[ -n "$src" ] || continue
	src=$(dirname "$plk")/$src
	arch=sm_90a
	grep -q 'needs' "$plk" || arch=sm_80
	name=$(basename "$plk" .plk)
	"$PLKC" --emit=header "$plk" >"$tmp/$name.plk.h" || { echo "$plk: --emit=header failed"; fail=1; continue; }
	for c in $(sed -n 's/^#ifndef \([A-Za-z_][A-Za-z0-9_]*\)$/\1/p' "$tmp/$name.plk.h" | grep -v '^PLK_'); do
		grep -qE "^[[:space:]]*#[[:space:]]*define[[:space:]]+$c\b" "$src" &&
			{ echo "$src: defines $c, a constant of its contract (the header supplies it)"; fail=1; }
	done
	grep -qE '\benum[[:space:]]*\{[[:space:]]*(PORT|FIELD|BUF|BAR)_' "$src" &&
		{ echo "$src: declares ids of its own (the header supplies them)"; fail=1; }
	grep -q "^#include <$name\.plk\.h>" "$src" ||
		{ echo "$src: does not include <$name.plk.h>"; fail=1; }
	n=$((n + 1))
	# nvcc's half does not depend on the plkc under test: once, with the plain build
	case $B in *san*) continue ;; esac
	sm=${arch#sm_}
	inc=()
	if grep -q '^#include <cute/' "$src"; then
		[ -f "$CUTE/cute/tensor.hpp" ] || { skipped="$skipped $name"; continue; }
		inc=(-I"$CUTE" -std=c++17)
	fi
	if grep -q '^ *engine nvshmem' "$plk"; then   # its headers, as plkc builds it (compiler/engine.c)
		[ -f "$NVSHMEM/include/nvshmem.h" ] || { skipped="$skipped $name"; continue; }
		inc=(-I"$NVSHMEM/include" -DNVSHMEM_ENABLE_ALL_DEVICE_INLINING -std=c++17)
	fi
	if ! "$NVCC" -rdc=true -ptx -gencode arch=compute_$sm,code=compute_$sm -Istdlib -I"$tmp" "${inc[@]}" \
		-o "$tmp/$name.ptx" "$src" 2>"$tmp/err"; then
		echo "$plk: its source disagrees with its contract:"; grep -m 5 error "$tmp/err"; fail=1
	fi
done
[ $n -gt 0 ] || { echo "no components found"; exit 1; }
echo "$n components checked${skipped:+; without CUTLASS's or NVSHMEM's headers (pip install nvidia-cutlass nvidia-nvshmem-cu13) not:$skipped}"
exit $fail
