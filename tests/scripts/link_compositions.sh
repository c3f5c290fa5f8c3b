#!/bin/bash
# Links the tests/link compositions (two and three components) for sm_80,
# sm_90a and sm_100a with component objects built by nvcc, checks the
# linked PTX (build/unit/test_link OBJDIR), builds the same compositions
# as monoliths with one nvcc call each, and parses their manifests.
# Skips (77) without nvcc; without python3 it runs the rest and then skips
# (77, saying so), since the manifests' JSON went unchecked. With PLK_GPU_OUT=DIR it also leaves the sm_90a
# linked and monolithic cubins in DIR for tests/link/gpu_run.sh.
B=${1:-build}
CUDA=${CUDA_HOME:-/usr/local/cuda}
NVCC=$CUDA/bin/nvcc
[ -x "$NVCC" ] || NVCC=$(command -v nvcc) || { echo "skip: no nvcc"; exit 77; }
for t in test_link test_glue; do
	[ -x "$B/unit/$t" ] || { echo "$B/unit/$t is not built (make unit)"; exit 1; }
done
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
GEN="-gencode arch=compute_80,code=lto_80 -gencode arch=compute_90a,code=lto_90a -gencode arch=compute_100a,code=lto_100a"
for c in fill sum sum_acc store; do
	"$NVCC" -rdc=true -c -Istdlib $GEN "tests/link/$c.cu" -o "$tmp/$c.o" || { echo "FAIL: nvcc $c.cu"; exit 1; }
done
export LSAN_OPTIONS="suppressions=$PWD/tests/lsan.supp${LSAN_OPTIONS:+:$LSAN_OPTIONS}"
[ -n "$PLK_GPU_OUT" ] && mkdir -p "$PLK_GPU_OUT" && export PLK_TEST_OUT="$PLK_GPU_OUT"
"$B/unit/test_link" "$tmp" || { echo "FAIL: test_link"; exit 1; }
for arch in sm_80 sm_90a sm_100a; do
	for comp in two three; do
		"$B/unit/test_glue" $arch $comp monolith >"$tmp/m.cu" || { echo "FAIL: monolith $arch $comp"; exit 1; }
		"$NVCC" -arch=$arch -cubin -I. -Istdlib -o "$tmp/m.cubin" "$tmp/m.cu" ||
			{ echo "FAIL: nvcc monolith $arch $comp"; exit 1; }
		[ -n "$PLK_GPU_OUT" ] && [ $arch = sm_90a ] && cp "$tmp/m.cubin" "$PLK_GPU_OUT/mono_$comp.cubin"
		"$B/unit/test_glue" $arch $comp manifest >"$tmp/m.json" || { echo "FAIL: manifest $arch $comp"; exit 1; }
		if command -v python3 >/dev/null; then
			python3 -c 'import json, sys; json.load(open(sys.argv[1]))' "$tmp/m.json" ||
				{ echo "FAIL: manifest $arch $comp is not JSON"; cat "$tmp/m.json"; exit 1; }
		else
			nojson=1
		fi
	done
done
[ -z "$nojson" ] || { echo "skip: no python3: the manifests' JSON was not checked"; exit 77; }
echo ok
