#!/bin/bash
# bench/probes/*.cu: each probe builds with the nvcc command its header
# gives (the line ` *   nvcc ...`), its output sent to a scratch folder.
# A probe is run by hand on a GPU host when a question needs it, so
# nothing else would notice one that no longer compiles. tma_rows must
# hold its TMA stores too (the `oob` table's store column).
# Exit 0 pass, 1 fail, 77 skip.
command -v nvcc >/dev/null || { echo "skip: no nvcc"; exit 77; }
root=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0
for f in "$root"/bench/probes/*.cu; do
	name=$(basename "$f" .cu)
	cmd=$(grep -m1 -E '^ \*   nvcc ' "$f" | sed -E 's/^ \*   //')
	[ -n "$cmd" ] || { echo "FAIL $name: no ' *   nvcc ...' line in its header"; fail=1; continue; }
	# the header's -o target and source path, made this checkout's and the scratch folder's
	cmd=$(printf '%s' "$cmd" | sed -E "s#-o [^ ]+#-o $tmp/$name.out#; s# bench/probes/# $root/bench/probes/#")
	if ! (cd "$tmp" && eval "$cmd") >"$tmp/$name.log" 2>&1; then
		echo "FAIL $name: $cmd"; sed 's/^/  /' "$tmp/$name.log" | head -20; fail=1; continue
	fi
	n=$((n + 1))
done
# the store column of `tma_rows oob`: a cubin of it holds UTMASTG (needs
# nvdisasm, the nvidia-cuda-nvdisasm wheel that .ci/run installs)
nd=$(cd "$root" && python3 -c 'import sys; sys.path.insert(0, "bench"); from sass_loops import find_nvdisasm
print(find_nvdisasm(None))' 2>/dev/null)
if [ -z "$nd" ]; then
	echo "note: no nvdisasm, tma_rows's TMA stores not looked for"
elif nvcc -O3 -std=c++17 -gencode arch=compute_90a,code=sm_90a -cubin -o "$tmp/t.cubin" \
	"$root/bench/probes/tma_rows.cu" >/dev/null 2>&1; then
	grep -q UTMASTG < <("$nd" -c "$tmp/t.cubin") || { echo "FAIL tma_rows: no UTMASTG (TMA store) in its SASS"; fail=1; }
else
	echo "FAIL tma_rows: no cubin"; fail=1
fi
[ $fail = 0 ] && echo "$n probes build"
exit $fail
