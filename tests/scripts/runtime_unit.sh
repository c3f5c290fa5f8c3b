#!/bin/bash
# The runtime's pure part (manifest, JSON, expressions, binding, grid,
# tensor-map arguments): builds and runs runtime's own test binary. Under
# `make test`'s sanitizer pass (PLK_SANITIZED=1) it is built with ASan+UBSan.
B=${1:-build}
out="$PWD/$B/runtime"
san=()
if [ -n "$PLK_SANITIZED" ]; then
	san=(OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
	     LDFLAGS="-fsanitize=address,undefined")
fi
[ -f /usr/local/cuda/include/cuda.h ] || [ -n "$CUDA_HOME" ] || { echo "no cuda.h (set CUDA_HOME)"; exit 77; }
make -s -C runtime B="$out" "${san[@]}" "$out/test_runtime" || exit 1
exec "$out/test_runtime"
