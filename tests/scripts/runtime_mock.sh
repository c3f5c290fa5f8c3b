#!/bin/bash
# The runtime's CUDA side without a GPU: libplkrt, plk-run and plkrt.py run
# against tests/runtime/mock_cuda.c as libcuda.so.1 (host memory, kernels
# emulated on the host). Checks launch configuration, tensor-map encoding,
# the attribute calls, plk-run --check, and every load-time error message.
B=${1:-build}
export PYTHONDONTWRITEBYTECODE=1
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -f "$CUDA_HOME/include/cuda.h" ] || { echo "no cuda.h under $CUDA_HOME"; exit 77; }
out="$PWD/$B/runtime-mock"
rm -rf "$out" && mkdir -p "$out/mock" "$out/w" || exit 1
san=()
if [ -n "$PLK_SANITIZED" ]; then
	san=(OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
	     LDFLAGS="-fsanitize=address,undefined")
fi
make -s -C runtime B="$out/rt" CUDA_HOME="$CUDA_HOME" "${san[@]}" "$out/rt/plk-run" "$out/rt/libplkrt.so" \
	"$out/rt/mock_lifetime" "$out/rt/mock_comm" || exit 1
cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -shared -fPIC -Wl,-soname,libcuda.so.1 -I"$CUDA_HOME/include" \
	-o "$out/mock/libcuda.so.1" tests/runtime/mock_cuda.c || exit 1
export LD_LIBRARY_PATH="$out/mock" MOCK_CUDA_LOG="$out/w/log"
W="$out/w"
RUN="$out/rt/plk-run"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# has OUTPUT FRAGMENT...: every fragment occurs in OUTPUT
has() { local o=$1; shift; for f in "$@"; do printf '%s' "$o" | grep -qF -- "$f" || { fail "lacks '$f' in: $o"; return 1; }; done; }

printf 'MOCKCUBIN\ntma_scale 128 128,8,4,4,4\nadd_bias 1024 8,8,8,4\nhalf_bias 1024 8,8,8,4\n' >"$W/k.cubin"
printf 'NOBIN' >"$W/nobin.cubin"
# The GPU test's manifests (tests/runtime/*.manifest.json), with edits.
tma() {   # tma NAME [sed expressions]
	local name=$1; shift
	sed "$@" tests/runtime/tma.manifest.json >"$W/$name.manifest.json"
}
bias() {
	local name=$1; shift
	sed "$@" tests/runtime/bias.manifest.json >"$W/$name.manifest.json"
}
tma k -e ''
bias bias -e ''
bias half -e 's/"entry": "add_bias"/"entry": "half_bias"/'
tma cluster -e 's/"cluster": \[1, 1, 1\]/"cluster": [2, 1, 1]/'
tma tiles -e 's/"persistent"/"tiles"/' -e 's/"cluster": \[1, 1, 1\]/"cluster": [2, 1, 1]/'
tma noentry -e 's/"entry": "tma_scale"/"entry": "nope"/'
tma long -e 's/{ "name": "alpha", "kind": "f32" }/{ "name": "alpha", "kind": "f32" }, { "name": "beta", "kind": "f32" }/'
tma wide -e 's/"name": "M", "kind": "i32"/"name": "M", "kind": "i64"/'
tma bigblock -e 's/"block": \[128, 1, 1\]/"block": [512, 1, 1]/'
tma bigsmem -e 's/81920/232440/'
tma nobin -e 's/"k.cubin"/"nobin.cubin"/'
tma badjson -e 's/"box": \[64, 128\]/"box": [64, 128,]/'
tma ints -e 's/"block": \[128, 1, 1\]/"int32": ["(K * 4096)"], "block": [128, 1, 1]/'

# A good run: the grid, the attribute, the tensor map, the launch, --check.
o=$("$RUN" "$W/k.cubin" --dim M=1000 --dim K=520 --set alpha=2 --check --flops "2 * M * K" 2>&1) || fail "tma run: $o"
has "$o" "kernel tma_scale: grid 72x1x1, block 128x1x1, cluster 1x1x1, 81920 B dynamic smem, 72 work items, 132 SMs" \
	"M=1000 K=520" "check: Out written, all finite" "check: Out fully written and deterministic" "check: ok" \
	"median 0.5000 ms" "TFLOP/s"
log=$(cat "$W/log")
has "$log" "setattr tma_scale $(printf '%d' 8) 81920" \
	"tmap dtype 9 rank 2 dim 520 1000 stride 1040 box 64 128 swizzle 3 l2 3" \
	"launch tma_scale grid 72 1 1 block 128 1 1 cluster 1 1 1 smem 81920"
# A good load asks the driver about the manifest's parameters only: no
# failing call (compute-sanitizer's API check reports every one).
grep '^api-error' "$W/log" && fail "a good load made failing CUDA calls"
# The tensor map is encoded once: same pointers and shapes on every launch.
[ "$(grep -c '^tmap' "$W/log")" = 1 ] || fail "tensor map re-encoded: $(grep -c '^tmap' "$W/log") times"
: >"$W/log"
o=$("$RUN" "$W/k.cubin" --dim M=2048 --dim K=2048 --set alpha=1 --iters 3 --warmup 1 2>&1) || fail "big: $o"
has "$o" "grid 132x1x1" "512 work items" "over 3 runs (1 warm-up)"
[ "$(grep -c '^launch' "$W/log")" = 4 ] || fail "expected 4 launches: $(cat "$W/log")"

# What else the kernel computes in its int ("int32"): refused where it
# would wrap, before anything reaches the driver.
o=$("$RUN" "$W/k.cubin" --manifest "$W/ints.manifest.json" --dim M=64 --dim K=512 --set alpha=1 --iters 1 2>&1) \
	|| fail "int32: $o"
: >"$W/log"
o=$("$RUN" "$W/k.cubin" --manifest "$W/ints.manifest.json" --dim M=64 --dim K=524288 --set alpha=1 --iters 1 2>&1) &&
	fail "int32: K * 4096 = 2^31 launched"
has "$o" "kernel tma_scale computes (K * 4096) in 32-bit int, and here a product is 2147483648, past" \
	"(K = 524288)"
grep -q '^launch' "$W/log" && fail "int32: a launch reached the driver"

# Clusters: persistent fills the active clusters (the mock says 60 of 2);
# the work comes in whole clusters of tiles (1 tile row: 2 work items, one
# cluster; docs/abi.md, "Tile quads").
: >"$W/log"
o=$("$RUN" "$W/k.cubin" --manifest "$W/cluster.manifest.json" --dim M=2048 --dim K=2048 --set alpha=1 --iters 1 2>&1) \
	|| fail "cluster: $o"
has "$o" "grid 120x1x1, block 128x1x1, cluster 2x1x1"
has "$(cat "$W/log")" "launch tma_scale grid 120 1 1 block 128 1 1 cluster 2 1 1"
o=$("$RUN" "$W/k.cubin" --manifest "$W/tiles.manifest.json" --dim M=100 --dim K=64 --set alpha=1 --iters 1 2>&1) \
	|| fail "tiles: $o"
has "$o" "grid 2x1x1" "2 work items"

# A megakernel's manifest says "cooperative": the launch carries the
# attribute, and a grid that cannot be resident at once is refused by name.
bias coop -e 's/"block": \[256\],/"block": [256], "cooperative": true,/'
bias nocoop -e 's/"block": \[256\],/"block": [256], "cooperative": 1,/'
: >"$W/log"
o=$("$RUN" "$W/k.cubin" --manifest "$W/coop.manifest.json" --dim n=25600 --set bias=1 --iters 1 2>&1) || fail "coop: $o"
has "$(cat "$W/log")" "launch add_bias grid 100 1 1 block 256 1 1 cluster 1 1 1 smem 0 cooperative"
o=$("$RUN" "$W/k.cubin" --manifest "$W/coop.manifest.json" --dim n=256000 --set bias=1 --iters 1 2>&1) &&
	fail "coop: 1000 blocks launched cooperatively on 132 SMs"
has "$o" "CUDA_ERROR_COOPERATIVE_LAUNCH_TOO_LARGE" "cooperative: every block resident at once"
o=$("$RUN" "$W/k.cubin" --manifest "$W/nocoop.manifest.json" --dim n=256 --set bias=1 --iters 1 2>&1) &&
	fail "a non-boolean \"cooperative\" was accepted"
has "$o" '"cooperative" must be true or false'

# Plain pointers, an i64 scalar, a tiles grid; --check catches a kernel
# that leaves half of its output unwritten.
o=$("$RUN" "$W/k.cubin" --manifest "$W/bias.manifest.json" --dim n=1000 --set bias=0.5 --check 2>&1) || fail "bias: $o"
has "$o" "grid 4x1x1, block 256x1x1" "check: ok"
o=$("$RUN" "$W/k.cubin" --manifest "$W/half.manifest.json" --dim n=1000 --set bias=0.5 --check 2>&1) && fail "half passed"
has "$o" "check: FAIL: Y: 500 of 1000 elements differ after poisoning (first at 500)"
# a --dim whose bytes no host holds: refused, not wrapped to a small buffer
o=$("$RUN" "$W/k.cubin" --manifest "$W/bias.manifest.json" --dim n=4611686018427387904 --set bias=0.5 --check 2>&1) &&
	fail "a tensor of 2^64 bytes was accepted"
has "$o" "tensor X: its size overflows (check --dim)"

# No "binary": the manifest's stem + .cubin. Variants: the device's arch
# (the mock is sm_90) picks block and shared memory.
mkdir -p "$W/sub" && cp "$W/k.cubin" "$W/sub/v.cubin"
sed -e 's/"binary": "k.cubin", //' -e 's/"arch": \["sm_90a"\],/"arch": ["sm_80", "sm_90a"], "binary_was": 1,/' \
	-e 's/^}$/, "variants": [{"arch": "sm_80", "block": [64], "dynamic_smem": 1000}, {"arch": "sm_90a", "block": [96, 1, 1], "dynamic_smem": 50000}] }/' \
	"$W/k.manifest.json" >"$W/sub/v.manifest.json"
o=$(cd "$W/sub" && "$RUN" --manifest v.manifest.json --dim M=128 --dim K=64 --set alpha=1 --iters 1 2>&1) || fail "variants: $o"
has "$o" "block 96x1x1, cluster 1x1x1, 50000 B dynamic smem"

# plkc -o x.cubin writes x.cubin.manifest.json: found from either side.
cp "$W/k.cubin" "$W/sub/x.cubin" && cp "$W/k.manifest.json" "$W/sub/x.cubin.manifest.json"
sed -i 's/"binary": "k.cubin", //' "$W/sub/x.cubin.manifest.json"
o=$("$RUN" "$W/sub/x.cubin" --dim M=128 --dim K=64 --set alpha=1 --iters 1 2>&1) || fail "x.cubin: $o"
o=$("$RUN" --manifest "$W/sub/x.cubin.manifest.json" --dim M=128 --dim K=64 --set alpha=1 --iters 1 2>&1) \
	|| fail "x.cubin.manifest.json: $o"
o=$("$RUN" "$W/sub/none.cubin" --dim M=1 2>&1) && fail "none.cubin: no error"
has "$o" "cannot open $W/sub/none.manifest.json"

# Errors name the call, the CUDA error and the parameter.
err() {   # err MANIFEST FRAGMENT...
	local m=$1; shift
	local o
	o=$("$RUN" "$W/k.cubin" --manifest "$W/$m.manifest.json" --dim M=128 --dim K=64 --set alpha=1 2>&1) \
		&& { fail "$m: no error"; return; }
	has "$o" "$@"
}
err noentry 'cuModuleGetFunction: no kernel "nope" in the binary' "CUDA_ERROR_NOT_FOUND"
err long "kernel tma_scale takes 5 parameters; the manifest lists 6"
err wide "parameter 2 (M, i64) is 4 bytes in the binary, 8 in the manifest"
# A CUDA error the mock cannot name still carries its name (from cuda.h).
o=$(MOCK_CUDA_LAUNCH_ERROR=719 "$RUN" "$W/k.cubin" --dim M=128 --dim K=64 --set alpha=1 2>&1) && fail "launch error: none"
has "$o" "cuLaunchKernelEx(tma_scale, grid 1x1x1" "CUDA_ERROR_LAUNCH_FAILED"
# The parameter count of a real cubin, from its .nv.info (no driver call).
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
if [ -x "$NVCC" ]; then
	"$NVCC" -arch=sm_90a -cubin -o "$W/real.cubin" tests/runtime/gpu_kernels.cu || fail "nvcc of gpu_kernels.cu"
	make -s -C runtime B="$out/rt" CUDA_HOME="$CUDA_HOME" "${san[@]}" "$out/rt/test_runtime" || fail "test_runtime build"
	[ "$("$out/rt/test_runtime" --cubin-params "$W/real.cubin" tma_scale)" = 5 ] || fail "tma_scale: not 5 parameters"
	[ "$("$out/rt/test_runtime" --cubin-params "$W/real.cubin" add_bias)" = 4 ] || fail "add_bias: not 4 parameters"
fi
err bigblock "block of 512 threads, but the binary allows at most 128"
err bigsmem "232440 bytes of dynamic + 16 static shared memory; the device allows 232448 per block"
err badjson "badjson.manifest.json): manifest: bad JSON: line 10, column 89: unexpected character ']'"
o=$("$RUN" "$W/nobin.cubin" --manifest "$W/nobin.manifest.json" --dim M=1 2>&1) && fail "nobin: no error"
has "$o" "cuModuleLoadData: the device is sm_90, the binary is for sm_90a: CUDA_ERROR_NO_BINARY_FOR_GPU"
o=$("$RUN" "$W/k.cubin" --dim M=64 --dim K=500 --set alpha=1 2>&1) && fail "K=500: no error"
has "$o" "parameter a (tensor map of A): row stride of dim 0 is 1000 bytes, not a multiple of 16"
o=$("$RUN" "$W/k.cubin" --dim M=64 --set alpha=1 2>&1) && fail "no K: no error"
has "$o" "shape symbol K has no value"
o=$("$RUN" "$W/k.cubin" --dim M=64 --dim K=64 2>&1) && fail "no alpha: no error"
has "$o" "parameter alpha (f32) has no value"
o=$("$RUN" "$W/k.cubin" --dim M=64 --dim K=64 --dim Q=1 --set alpha=1 2>&1) && fail "Q: no error"
has "$o" "kernel tma_scale has no shape symbol Q"

# An argument set freed after its kernel's unload (a garbage collector's
# order): the kernel is freed with its last set (ASan in the sanitizer pass).
o=$("$out/rt/mock_lifetime" 2>&1) || fail "lifetime: $o"
has "$o" "lifetime ok"

# The engine (docs/comm.md) against a mock NVSHMEM: a kernel whose
# manifest names it launches only once attached; its errors by name.
if grep -q '^#define PLK_NVSHMEM\b\|-DPLK_NVSHMEM' <(make -s -n -C runtime B="$out/rt" "$out/rt/comm.o" -W comm.cc 2>/dev/null); then
	mkdir -p "$out/mocknv/lib"
	cc -std=c11 -O1 -g -Wall -shared -fPIC -Wl,-soname,libnvshmem_host.so.3 -o "$out/mocknv/lib/libnvshmem_host.so.3" \
		tests/runtime/mock_nvshmem.c || fail "mock NVSHMEM does not build"
	for mode in ok init-fails module-fails; do
		rm -f "$W/nvlog"
		o=$(NVSHMEM_HOME="$out/mocknv" MOCK_NVSHMEM_LOG="$W/nvlog" MOCK_NVSHMEM_FAIL=${mode%-fails} \
			"$out/rt/mock_comm" "$mode" 2>&1) || fail "comm $mode: $o"
		has "$o" "comm ok"
	done
	# every function plkrt opens is one the real host library exports (a
	# function of the static device library, as nvshmemi_init_thread is,
	# passed the mock and failed on the GPU host), and the mock defines
	# only such functions
	nv=${NVSHMEM_HOME:-$(python3 -c 'import nvidia.nvshmem as m; print(m.__path__[0])' 2>/dev/null)}
	real=$nv/lib/libnvshmem_host.so.3
	if [ -f "$real" ] && command -v nm >/dev/null; then
		exported=$(nm -D --defined-only "$real" | awk '{print $3}' | sed 's/@.*//')
		for f in $(grep -o 'SYM([a-z_>-]*, "[a-z_]*"' runtime/comm.cc | cut -d'"' -f2) \
			$(grep -o '^[a-z].* \**\(nvshmem[a-z_]*\)(' tests/runtime/mock_nvshmem.c | grep -o 'nvshmem[a-z_]*'); do
			printf '%s\n' "$exported" | grep -qx "$f" || fail "NVSHMEM's host library ($real) does not export $f"
		done
	else
		echo "note: no NVSHMEM host library to check plkrt's functions against"
	fi
	rm -f "$W/nvlog"
	NVSHMEM_HOME="$out/mocknv" MOCK_NVSHMEM_LOG="$W/nvlog" "$out/rt/mock_comm" ok >/dev/null 2>&1
	has "$(cat "$W/nvlog" 2>/dev/null)" "set_attr_uniqueid_args 0 1 5a" "hostlib_init_attr flags 8" "malloc 512" \
		"cumodule_init module" "barrier_all_on_stream" "free" "cumodule_finalize module" "finalize"
	# a kernel's module state goes back to NVSHMEM before its module is
	# unloaded, or at the engine's end if that comes first: once, before
	# the engine's own finalize
	for mode in ok fini-first; do
		rm -f "$W/nvlog"
		NVSHMEM_HOME="$out/mocknv" MOCK_NVSHMEM_LOG="$W/nvlog" "$out/rt/mock_comm" $mode >/dev/null 2>&1 ||
			fail "comm $mode: mock_comm failed"
		order=$(grep -E '^(cumodule_finalize|hostlib_finalize|finalize)' "$W/nvlog" 2>/dev/null | cut -d' ' -f1 | tr '\n' ' ')
		[ "$order" = "cumodule_finalize finalize " ] || fail "comm $mode: module finalize, then the engine's: got '$order'"
	done
	o=$(NVSHMEM_HOME="$out/none" LD_LIBRARY_PATH="$out/mock" "$out/rt/mock_comm" ok 2>&1) && fail "no NVSHMEM: no error"
	if command -v python3 >/dev/null && [ -z "$PLK_SANITIZED" ]; then
		for f in "" init; do
			rm -f "$W/nvlog"
			o=$(NVSHMEM_HOME="$out/mocknv" MOCK_NVSHMEM_LOG="$W/nvlog" MOCK_NVSHMEM_FAIL=$f \
				PLKRT_LIB="$out/rt/libplkrt.so" python3 tests/runtime/mock_comm.py "$W" 2>&1) || fail "comm python ${f:-ok}: $o"
			has "$o" "comm python ok"
		done
		has "$(cat "$W/nvlog" 2>/dev/null)" "hostlib_init_attr flags 8"
	fi
else
	echo "note: libplkrt built without NVSHMEM's headers: engine checks skipped (pip install nvidia-nvshmem-cu13)"
fi

# The Python module: loading, introspection and load errors (no torch needed).
if command -v python3 >/dev/null && [ -z "$PLK_SANITIZED" ]; then
	cat >"$W/t.py" <<'PY'
import os, sys
sys.path.insert(0, "runtime/python")
import plkrt
W = sys.argv[1]
k = plkrt.load(os.path.join(W, "k.cubin"))
assert k.name == "tma_scale", k.name
assert [t["name"] for t in k.tensors] == ["A", "Out"]
assert k.tensors[0] == {"name": "A", "dtype": "bf16", "elem_bytes": 2, "dims": ["M", "K"]}, k.tensors[0]
assert k.symbols == ["M", "K"], k.symbols
assert [(p["name"], p["kind"], p["free"]) for p in k.params] == [
    ("a", "tensormap", False), ("out", "ptr", False), ("M", "i32", False), ("K", "i32", False),
    ("alpha", "f32", True)], k.params
assert k.sm_count == 132
assert repr(k) == "<pipelink.Kernel tma_scale(A: bf16[M, K], Out: bf16[M, K])>", repr(k)
k.close()
k2 = plkrt.load(None, os.path.join(W, "bias.manifest.json"))   # binary from the manifest
assert k2.name == "add_bias"
for m, want in (("long", "takes 5 parameters"), ("noentry", "CUDA_ERROR_NOT_FOUND")):
    try:
        plkrt.load(None, os.path.join(W, m + ".manifest.json"))
    except plkrt.PlkError as e:
        assert want in str(e), e
    else:
        sys.exit(m + ": no error")
print("python ok")
PY
	o=$(PLKRT_LIB="$out/rt/libplkrt.so" python3 "$W/t.py" "$W" 2>&1) || fail "python: $o"
	has "$o" "python ok"
	o=$(PLKRT_LIB="$out/rt/libplkrt.so" python3 tests/runtime/mock_python.py "$W" 2>&1) || fail "mock python: $o"
	has "$o" "mock python ok"
	# pipelink: threads, custom ops, linking through plkc (when built).
	o=$(PLKRT_LIB="$out/rt/libplkrt.so" python3 tests/runtime/mock_pipelink.py "$W" ${PLKC:+"$PLKC"} 2>&1) ||
		fail "mock pipelink: $o"
	has "$o" "mock pipelink ok"
	# Without libcuda.so.1 (no driver), the message says so.
	if ! ldconfig -p 2>/dev/null | grep -q 'libcuda.so.1 '; then
		o=$(env -u LD_LIBRARY_PATH PLKRT_LIB="$out/rt/libplkrt.so" python3 -c '
import sys; sys.path.insert(0, "python"); import pipelink
try: pipelink.load("x.cubin")
except pipelink.PlkError as e: print(e)' 2>&1)
		has "$o" "cannot load the CUDA driver library libcuda.so.1, which $out/rt/libplkrt.so needs" \
			"Is an NVIDIA driver installed?"
	fi
	# No libplkrt anywhere: the places tried and what to do.
	alone=$(mktemp -d) && cp -r python/pipelink "$alone/"
	o=$(cd "$alone" && env -u PLKRT_LIB -u PLKC PATH=/usr/bin:/bin python3 -c '
import pipelink
try: pipelink.load("x.cubin")
except pipelink.PlkError as e: print(e)' 2>&1)
	has "$o" "cannot find libplkrt.so (tried $alone/pipelink/libplkrt.so," "make install PREFIX=DIR" "PLKRT_LIB"
	rm -rf "$alone"
fi

[ $fails -eq 0 ] || { echo "$fails failure(s)"; exit 1; }
exit 0
