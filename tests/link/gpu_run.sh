#!/bin/bash
# On the GPU host: runs the tests/link compositions linked on the build
# host (and their monoliths) against the host reference, then under
# compute-sanitizer. DIR holds sm_90a_link_{two,three}.cubin and
# mono_{two,three}.cubin (PLK_TEST_OUT=DIR build/unit/test_link OBJDIR;
# build/unit/test_glue sm_90a two|three monolith | nvcc -arch=sm_90a -cubin).
set -u
DIR=${1:?usage: gpu_run.sh DIR}
CUDA=${CUDA_HOME:-/usr/local/cuda}
here=$(cd "$(dirname "$0")" && pwd)
gcc -O2 -I"$CUDA/include" -o "$DIR/gpu_check" "$here/gpu_check.c" -L"$CUDA/lib64" -lcuda -lm || exit 1
fail=0
for k in sm_90a_link mono; do
	for c in two three; do
		f="$DIR/${k}_$c.cubin"
		[ $k = mono ] && f="$DIR/mono_$c.cubin"
		"$DIR/gpu_check" "$f" $c 320 256 256 7 || fail=1      # persistent: 80 tiles on 7 blocks
		"$DIR/gpu_check" "$f" $c 64 64 32 132 || fail=1       # more blocks than tiles
	done
done
CS="$CUDA/bin/compute-sanitizer"
for t in memcheck racecheck synccheck; do
	for c in two three; do
		"$CS" --tool $t --error-exitcode 9 "$DIR/gpu_check" "$DIR/sm_90a_link_$c.cubin" $c 128 128 128 3 2>&1 | tail -n 1
		[ "${PIPESTATUS[0]}" -eq 0 ] || { echo "$t $c: FAIL"; fail=1; }
	done
done
exit $fail
