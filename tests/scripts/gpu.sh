#!/bin/bash
# The GPU tests: correctness of every linked kernel against a reference
# (poisoned outputs, fresh random inputs), compute-sanitizer, and the
# benchmark (bench/gpu_run.sh; bench/README.md). They need an sm_90 GPU; on
# a machine without one they are skipped, saying which and where their last
# results are.
B=${1:-build}
if ! nvidia-smi -L >/dev/null 2>&1; then
	echo "no GPU here: skipped bench/gpu_run.sh (tests/link/gpu_run.sh, tests/runtime/gpu_all.sh:" \
	     "gpu_runtime.py, gpu_threads.py (4 threads x own stream x 200 calls), gpu_python.py" \
	     "(pipelink custom op: torch.compile fullgraph, CUDA graph replay), wide.py (i64 params), compute-sanitizer API check" \
	     "and memcheck/racecheck/synccheck; bench/linked_bench.py) and bench/gpu_lanes.sh (3 and 4" \
	     "pingpong lanes, sm_80 lanes); and, each after its prepare step on the build host:" \
	     "tests/gpu/mega_gpu.sh (megakernels: mega_chain.py, llama_decode.py, compute-sanitizer)," \
	     "tests/gpu/attn_python.py and attn_sanitize.py (attention variants), gemm_auto_check.py" \
	     "and gemm_split.sh (selects, split K), run_gemm.sh (the monolithic GEMMs)," \
	     "tests/gpu/comm_gpu.sh (all-gather GEMM and GEMM + reduce-scatter on NVSHMEM, world size 1 and every GPU; run at world size 1 only);" \
	     "last results: tests/link/gpu_output.txt, tests/runtime/gpu_output.txt," \
	     "tests/gpu/*_output.txt, bench/results/"
	exit 77
fi
case $B in *san*) echo "GPU tests run once, with the plain build"; exit 77 ;; esac
python3 bench/prepare.py --plkc "$B/plkc" --repeat 1 || exit 1
bash tests/runtime/gpu_prepare.sh "$B" || exit 1
PLK_GPU_OUT=$PWD/.carry/linktest bash tests/scripts/link_compositions.sh "$B" || exit 1
python3 bench/prepare.py --plkc "$B/plkc" --repeat 1 --set lanes --out .carry/lanes || exit 1
OUT="$B/gpu-out" bash bench/gpu_run.sh || exit 1
OUT="$B/gpu-out-lanes" bash bench/gpu_lanes.sh
