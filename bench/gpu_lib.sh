# Shared by the GPU scripts (bench/gpu_run.sh, gpu_lanes.sh, gpu_ab.sh,
# energy.sh, profile.sh), sourced from the repository root: logs go to $O
# ($OUT, or build/gpu-out).
O=${OUT:-build/gpu-out}
mkdir -p "$O"
CUDA=${CUDA_HOME:-/usr/local/cuda}
CS=$CUDA/bin/compute-sanitizer
export PATH="$CUDA/bin:$PATH"
RUN=build/runtime/plk-run
summary=()
failed=0

build_runtime() {
	make -s -C runtime all >"$O/runtime-build.log" 2>&1 || { cat "$O/runtime-build.log"; return 1; }
}

step() {   # step NAME CMD...: runs CMD, log in $O/NAME.log
	local name=$1
	shift
	local t0=$SECONDS
	"$@" >"$O/$name.log" 2>&1
	local rc=$?
	[ $rc -eq 0 ] || failed=1
	summary+=("$(printf '%-28s %s (%ds)' "$name" "$([ $rc -eq 0 ] && echo ok || echo "FAIL rc=$rc")" $((SECONDS - t0)))")
	tail -n 3 "$O/$name.log"
	return $rc
}

# [TO=SECONDS] [PLK_MAX_BLOCKS=N] sanitize CONFIG DIMS...: memcheck and
# racecheck on $B/CONFIG.cubin (plk-run --check at the given dims); a
# deadlock shows as the timeout.
sanitize() {
	local cfg=$1
	shift
	local dims=()
	for d in "$@"; do dims+=(--dim "$d"); done
	for tool in memcheck racecheck; do
		${TO:+timeout $TO} "$CS" --tool $tool --report-api-errors no --error-exitcode 9 "$RUN" "$B/$cfg.cubin" --manifest "$B/$cfg.manifest.json" \
			"${dims[@]}" --iters 1 --warmup 0 --check || return 1
	done
}

# Nsight Compute's counter names differ between versions: ncu_counters
# prints those this one has (the device's own list, else gh100's), and
# tensor_counter HAVE the tensor pipe's active cycles among them: the wgmma
# (gmma) pipe's on sm_90 where it is named, else the whole pipe's
# (CUDA 13.0's ncu: sm__pipe_tensor_cycles_active); empty if none.
ncu_counters() {
	local have
	have=$(ncu --query-metrics 2>/dev/null | awk '{print $1}')
	[ -n "$have" ] || have=$(ncu --query-metrics --chip gh100 2>/dev/null | awk '{print $1}')
	printf '%s\n' "$have"
}
tensor_counter() {
	local t
	t=$(grep -E '^sm__pipe_tensor_op_gmma_cycles_active$|^sm__pipe_tensor_op_hmma_cycles_active$|^sm__pipe_tensor_cycles_active$' \
		<<<"$1" | head -1)
	[ -n "$t" ] || t=$(grep -E '^sm__pipe_.*tensor.*cycles_active$' <<<"$1" | head -1)
	printf '%s' "$t"
}

# The summary and the exit status (1 if any step failed). The logs go
# into one $O/logs.tgz: the GPU host returns few files.
finish() {
	echo
	printf '%s\n' "${summary[@]}"
	(cd "$O" && tar czf logs.tgz -- *.log *.sass *.csv 2>/dev/null; rm -f -- *.log *.sass)
	exit $failed
}

# cublas_script FILE M N K: a Python script that runs cuBLAS's bf16 GEMM
# (M x K) @ (N x K)^T eight times, for ncu to pick a launch of
cublas_script() {
	cat >"$1" <<PY
import torch
a = torch.randn($2, $4, device="cuda", dtype=torch.bfloat16)
b = torch.randn($3, $4, device="cuda", dtype=torch.bfloat16)
for _ in range(8):
    c = a @ b.t()
torch.cuda.synchronize()
PY
}
