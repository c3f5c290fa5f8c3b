#!/bin/bash
# Energy per launch, on the GPU host from the repository root:
#   [DIR=CUBINS] bash bench/energy.sh CONFIG...     (default CUBINS .carry/bench)
# Each configuration's linked kernel runs alone, 1000 launches after 100
# warm-up ones, at M=8192 N=14336 K=4096 (the SwiGLU shape; GEMM configs
# get N = 28672), while nvidia-smi samples the power and the SM clock
# every 100 ms; then cuBLAS on the same GEMM the same way. The mean of the
# samples above 300 W (the kernel's window) times the median launch time
# is the energy of one launch. The H200 runs these kernels at its power
# limit, so a kernel is faster only by spending less energy per tile.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
B=${DIR:-.carry/bench}   # not B: the runtime's Makefile reads B from the environment
build_runtime || exit 1
mean() {   # mean power and clock of the samples above 300 W in $1
	awk -F', ' '$2 > 300 { w += $2; c += $3; n++ } END { if (n) printf "%.0f %.0f %d", w / n, c / n, n; else print "0 0 0" }' "$1"
}
measure() {   # measure NAME MS_COMMAND...: runs the command under sampling
	local name=$1
	shift
	nvidia-smi --query-gpu=timestamp,power.draw,clocks.sm --format=csv,noheader,nounits -lms 100 >"$O/power_$name.csv" &
	local smi=$!
	local ms
	ms=$("$@")
	kill $smi
	wait $smi 2>/dev/null
	read -r w c n <<<"$(mean "$O/power_$name.csv")"
	awk -v k="$name" -v ms="$ms" -v w="$w" -v c="$c" -v n="$n" \
		'BEGIN { printf "| %s | %s | %s | %s | %s | %.3f |\n", k, ms, w, c, n, w * ms / 1000 }'
}
plk() {   # the median ms of 1000 launches of config $1
	local n
	n=$(python3 -c "import json, sys; c = {c['name']: c for c in json.load(open(sys.argv[1]))}[sys.argv[2]]
print(28672 if c['kind'] == 'gemm' else 14336)" "$B/configs.json" "$1") || return 1
	build/runtime/plk-run "$B/$1.cubin" --manifest "$B/$1.manifest.json" --dim M=8192 --dim N=$n --dim K=4096 \
		--iters 1000 --warmup 100 | sed -n 's/.*median \([0-9.]*\) ms.*/\1/p'
}
cublas() {
	python3 - <<'PY'
import torch
a = torch.randn(8192, 4096, device="cuda", dtype=torch.bfloat16)
b = torch.randn(28672, 4096, device="cuda", dtype=torch.bfloat16)
for _ in range(100):
    c = a @ b.t()
ev = [(torch.cuda.Event(enable_timing=True), torch.cuda.Event(enable_timing=True)) for _ in range(1000)]
for s, e in ev:
    s.record(); c = a @ b.t(); e.record()
torch.cuda.synchronize()
t = sorted(s.elapsed_time(e) for s, e in ev)
print("%.4f" % t[len(t) // 2])
PY
}
echo "| kernel | ms (median of 1000) | W (mean) | SM MHz (mean) | samples | J per launch |"
echo "|---|---|---|---|---|---|"
for cfg in "$@"; do
	measure "$cfg" plk "$cfg"
done
measure cublas_gemm_8192x28672x4096 cublas
