#!/bin/bash
# The monoliths plkc writes (--emit=monolith) compile without a warning:
# every kernel and megakernel of every example, through nvcc's front end
# to PTX with warnings as errors. A monolith is a source for people to
# build, read and diff against the link; a role's unused split range or
# an unused helper is noise they would have to read past (nvcc's #550
# and #177 on 22 of them until 2026-12-05). Runs once, with the plain
# build (about a minute on two cores). Exit 0 pass, 1 fail, 77 skip.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
case $B in *san*) echo "the monoliths' nvcc check runs once, with the plain build"; exit 77 ;; esac
[ -x "$CUDA_HOME/bin/nvcc" ] || { echo "skip: no nvcc under $CUDA_HOME"; exit 77; }
# the comm stage's sources include NVSHMEM's headers (its wheel: .ci/run)
shmem=$(python3 -c 'import nvidia.nvshmem as m; print(list(m.__path__)[0])' 2>/dev/null)
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0 n=0 skipped=()
for f in examples/*.plk; do
	for k in $(sed -n 's/^\(kernel\|megakernel\) \([A-Za-z0-9_]*\)(.*/\2/p' "$f"); do
		arch=sm_90a
		grep -q sm80 <<<"$f" && arch=sm_80
		inc=()
		if grep -q '"../components/comm/' "$f"; then
			[ -n "$shmem" ] || { skipped+=("$f:$k"); continue; }
			inc=(-I "$shmem/include")
		fi
		b="$tmp/$(basename "$f" .plk)_$k"
		"$PLKC" "$f" --kernel "$k" -arch $arch --emit=monolith -o "$b.cu" 2>"$b.err" ||
			{ echo "FAIL: $f --kernel $k: --emit=monolith: $(head -n 3 "$b.err")"; fail=1; continue; }
		n=$((n + 1))
		"$CUDA_HOME/bin/nvcc" -gencode "arch=compute_${arch#sm_},code=compute_${arch#sm_}" -ptx -Werror all-warnings \
			-I. -Istdlib "${inc[@]}" -o "$b.ptx" "$b.cu" >"$b.log" 2>&1 ||
			{ echo "FAIL: $f --kernel $k: nvcc on its monolith:"; grep -E 'warning|error' "$b.log" | head -n 6; fail=1; }
	done
done
[ $n -gt 20 ] || { echo "FAIL: only $n monoliths found"; fail=1; }
[ ${#skipped[@]} -eq 0 ] || echo "note: no NVSHMEM headers (pip install nvidia-nvshmem-cu13): not built: ${skipped[*]}"
exit $fail
