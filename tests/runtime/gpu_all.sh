#!/bin/bash
# GPU tests of the runtime, for the GPU host (sm_90+ GPU, gcc, nvcc, python3
# with torch; compute-sanitizer when present). One command from the
# repository root:
#
#   bash tests/runtime/gpu_all.sh [WORKDIR]        (default build/runtime-gpu)
#
# Builds runtime/ (gcc + -lcuda), compiles tests/runtime/gpu_kernels.cu with
# nvcc (no plkc needed), writes their manifests, then runs plk-run (with
# --check), the Python tests (tests/runtime/gpu_runtime.py), one kernel
# from 4 threads and streams at once (gpu_threads.py), the pipelink custom
# op of a linked GEMM + SwiGLU under torch.compile and CUDA graphs
# (gpu_python.py: the kernel from PLK_PY_KERNEL, else
# .carry/python/gemm_swiglu.cubin that tests/runtime/gpu_prepare.sh links
# on the build host, else linked here by build/plkc), the selects of
# tests/gpu/gemm_auto_check.py (their cubins from gpu_prepare.sh), an i64
# param's long long expression (tests/gpu/wide.py) and, when available,
# compute-sanitizer: its API check on a load (no failing CUDA call) and
# memcheck, racecheck and synccheck on plk-run.
# PLK_KERNELS=DIR also runs plk-run --check on every plkc-linked
# DIR/*.cubin (with its manifest), all shape symbols 4096.
# Exit 0: all passed; 1: a failure; 77: no GPU here.
cd "$(dirname "$0")/../.." || exit 1
W=${1:-build/runtime-gpu}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
NVCC=${NVCC:-$CUDA_HOME/bin/nvcc}
export PATH="$CUDA_HOME/bin:$PATH"

if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no GPU (nvidia-smi -L failed)"
	exit 77
fi
nvidia-smi -L
mkdir -p "$W" && W=$(cd "$W" && pwd)
fail=0
step() {
	echo "== $*"
	if "$@"; then echo "-- ok"; else echo "-- FAIL (exit $?): $*"; fail=1; fi
}

echo "== build"
make -s -C runtime B="$W/rt" CUDA_HOME="$CUDA_HOME" all || { echo "FAIL: runtime build"; exit 1; }
"$NVCC" -arch=sm_90a -cubin -o "$W/k.cubin" tests/runtime/gpu_kernels.cu || { echo "FAIL: nvcc cubin"; exit 1; }
"$NVCC" -fatbin -gencode arch=compute_90a,code=sm_90a -gencode arch=compute_90a,code=compute_90a \
	-o "$W/k.fatbin" tests/runtime/gpu_kernels.cu || { echo "FAIL: nvcc fatbin"; exit 1; }

# The test kernels' manifests (shared with tests/scripts/runtime_mock.sh).
# tma: 80 KiB of dynamic shared memory (the kernel uses 17), over the
# 48 KiB default, so the attribute must have been set.
cp tests/runtime/tma.manifest.json tests/runtime/bias.manifest.json "$W/" || exit 1

RUN="$W/rt/plk-run"
step "$RUN" "$W/k.cubin" --manifest "$W/tma.manifest.json" --dim M=4096 --dim K=4096 --set alpha=2 --check \
	--flops "2 * M * K"
step "$RUN" "$W/k.fatbin" --manifest "$W/tma.manifest.json" --dim M=1000 --dim K=520 --set alpha=2 --check
step "$RUN" "$W/k.cubin" --manifest "$W/bias.manifest.json" --dim n=1000003 --set bias=1.5 --check

# Errors name the failing check.
expect_fail() {
	local want=$1; shift
	local out
	out=$("$@" 2>&1)
	if [ $? -ne 0 ] && printf '%s' "$out" | grep -qF -- "$want"; then return 0; fi
	echo "expected failure containing '$want', got: $out"
	return 1
}
step expect_fail "row stride of dim 0 is 1000 bytes" \
	"$RUN" "$W/k.cubin" --manifest "$W/tma.manifest.json" --dim M=64 --dim K=500 --set alpha=1
step expect_fail "shape symbol K has no value" \
	"$RUN" "$W/k.cubin" --manifest "$W/tma.manifest.json" --dim M=64 --set alpha=1

step env PLKRT_LIB="$W/rt/libplkrt.so" python3 tests/runtime/gpu_runtime.py "$W"
step env PLKRT_LIB="$W/rt/libplkrt.so" python3 tests/runtime/gpu_threads.py "$W"

# The custom op of a plkc-linked GEMM + SwiGLU: torch.compile(fullgraph=True)
# and CUDA graph replay against the fp32 reference.
py_kernel=${PLK_PY_KERNEL:-}
if [ -z "$py_kernel" ] && [ -f .carry/python/gemm_swiglu.cubin ]; then py_kernel=.carry/python/gemm_swiglu.cubin; fi
if [ -n "$py_kernel" ]; then
	step env PLKRT_LIB="$W/rt/libplkrt.so" python3 tests/runtime/gpu_python.py "$py_kernel"
elif [ -x build/plkc ] && build/plkc --version >/dev/null 2>&1; then
	step env PLKRT_LIB="$W/rt/libplkrt.so" PLKC="$PWD/build/plkc" python3 tests/runtime/gpu_python.py
else
	echo "== FAIL: gpu_python.py has no kernel: run tests/runtime/gpu_prepare.sh on the build host (.carry/python)"
	fail=1
fi

# The selects gemm_auto and gemm_swiglu_auto: each variant forced, and the
# rule's picks, against fp32 references (cubins from gpu_prepare.sh).
if [ -f .carry/python/gemm_auto.cubin ] && [ -f .carry/python/gemm_swiglu_auto.cubin ]; then
	step env PLKRT_LIB="$W/rt/libplkrt.so" python3 tests/gpu/gemm_auto_check.py .carry/python
else
	echo "== FAIL: gemm_auto_check.py has no cubins: run tests/runtime/gpu_prepare.sh on the build host (.carry/python)"
	fail=1
fi

# An i64 param's bound expression computed in long long, and the runtime's
# refusals past 64 and 32 bits (tests/cli/manifest_int64.plk, from gpu_prepare.sh).
if [ -f .carry/python/wide.cubin ]; then
	step env PLKRT_LIB="$W/rt/libplkrt.so" python3 tests/gpu/wide.py .carry/python/wide.cubin
else
	echo "== FAIL: wide.py has no cubin: run tests/runtime/gpu_prepare.sh on the build host (.carry/python)"
	fail=1
fi

# Kernels linked by plkc (on the build host), when PLK_KERNELS names their
# directory: plk-run --check on each with every shape symbol = 4096.
if [ -n "${PLK_KERNELS:-}" ]; then
	for bin in "$PLK_KERNELS"/*.cubin "$PLK_KERNELS"/*.fatbin; do
		[ -e "$bin" ] || continue
		man="${bin%.*}.manifest.json"
		[ -e "$man" ] || man="$bin.manifest.json"
		dims=$(python3 -c 'import json, re, sys
m = json.load(open(sys.argv[1]))
ex = [d for t in m.get("tensors", []) for d in t["dims"]] + [p["dim"] for p in m["params"] if "dim" in p]
syms = []
for e in ex:
    for s in re.findall(r"[A-Za-z_][A-Za-z0-9_]*", str(e)):
        if s not in ("ceil_div", "min", "max") and s not in syms:
            syms.append(s)
print(" ".join("--dim %s=4096" % s for s in syms))' "$man")
		step "$RUN" "$bin" --manifest "$man" $dims --check
	done
fi

if command -v compute-sanitizer >/dev/null; then
	# The API check: loading and launching makes no failing CUDA call (the
	# load-time check once asked cuFuncGetParamInfo past the last parameter).
	for m in tma bias; do
		if [ $m = tma ]; then args=(--dim M=1000 --dim K=520 --set alpha=2); else args=(--dim n=100003 --set bias=1); fi
		out=$(compute-sanitizer --tool memcheck --report-api-errors all "$RUN" "$W/k.cubin" \
			--manifest "$W/$m.manifest.json" "${args[@]}" --iters 1 --warmup 0 2>&1)
		rc=$?
		echo "== compute-sanitizer --report-api-errors all plk-run ($m)"
		if [ $rc -eq 0 ] && ! printf '%s\n' "$out" | grep -q "Program hit"; then echo "-- ok"
		else echo "-- FAIL (exit $rc)"; printf '%s\n' "$out" | grep -m 10 -A3 "Program hit\|ERROR"; fail=1; fi
	done
	for tool in memcheck racecheck synccheck; do
		for m in tma bias; do
			if [ $m = tma ]; then args=(--dim M=1000 --dim K=520 --set alpha=2); else args=(--dim n=100003 --set bias=1); fi
			out=$(compute-sanitizer --tool $tool --report-api-errors no --error-exitcode 3 "$RUN" "$W/k.cubin" \
				--manifest "$W/$m.manifest.json" "${args[@]}" --iters 1 --warmup 0 --check 2>&1)
			rc=$?
			echo "== compute-sanitizer --tool $tool plk-run ($m)"
			printf '%s\n' "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY|check:" | sed 's/^/   /'
			if [ $rc -eq 0 ]; then echo "-- ok"; else echo "-- FAIL (exit $rc)"; printf '%s\n' "$out" | tail -n 30; fail=1; fi
		done
	done
else
	echo "== compute-sanitizer not found: skipped"
fi

echo
if [ $fail -eq 0 ]; then echo "runtime GPU tests: all passed"; else echo "runtime GPU tests: FAILED"; fi
exit $fail
