#!/bin/bash
# GPU host: the megakernel tests (docs/megakernel.md) on what
# tests/gpu/mega_prepare.sh linked: tests/gpu/mega_chain.py at every size;
# tests/gpu/llama_decode.py on the reduced model and at KV 2048 (16 steps,
# timed against its monolith) and timed at KV 512, 2048, 8192, and its timeline drawn ($OUT/*.svg);
# then compute-sanitizer memcheck,
# racecheck and synccheck on the small chain (plk-run --check: outputs
# written, poisoned, run again and bit-identical) and the reduced model.
# A reduced model that fails skips the full ones (a hang costs TMO each).
# Exit 0: all passed.
#   [TMO=SECONDS] bash tests/gpu/mega_gpu.sh [DIR]   (default .carry/mega; each
#   run killed after TMO seconds, default 300)
cd "$(dirname "$0")/../.." || exit 1
D=${1:-.carry/mega}
B=$PWD/build/runtime
make -s -C runtime B="$B" all || exit 1
export PLKRT_LIB="$B/libplkrt.so" PYTHONFAULTHANDLER=1
T=${TMO:-300}
fail=0
san() {   # san CUBIN ARGS...: memcheck, racecheck and synccheck under plk-run
	local k=$1 tool out rc sum
	shift
	for tool in memcheck racecheck synccheck; do
		out=$(timeout "$T" compute-sanitizer --tool $tool --report-api-errors no \
			"$B/plk-run" "$D/$k" "$@" --iters 1 --warmup 0 2>&1)
		rc=$?
		sum=$(printf '%s\n' "$out" | grep -E "ERROR SUMMARY|RACECHECK SUMMARY" | tail -n 1)
		echo "$k $* $tool: rc $rc, $(printf '%s\n' "$out" | grep -E '^check' | tail -n 1) $sum"
		[ $rc -eq 0 ] && printf '%s' "$sum" | grep -qE "(0 errors|0 hazards)" || { fail=1; printf '%s\n' "$out" | tail -n 20; }
	done
}
timeout "$T" python3 tests/gpu/mega_chain.py "$D"/small "$D"/l4 "$D"/l16 || fail=1
san small/chain.cubin --check
if timeout "$T" python3 tests/gpu/llama_decode.py "$D"/llama_small --steps 4; then
	timeout "$T" python3 tests/gpu/llama_decode.py "$D"/llama_kv2048 --steps 16 --time --against "$D"/llama_kv2048_mono ||
		fail=1
	timeout "$T" python3 tests/gpu/llama_decode.py "$D"/llama_kv2048_cute --steps 4 --time || fail=1
	timeout "$T" python3 tests/gpu/llama_decode.py "$D"/llama_kv2048_timeline --steps 1 \
		--timeline "${OUT:-.}/llama_decode_timeline.svg" || fail=1
	for kv in 512 8192; do
		timeout "$T" python3 tests/gpu/llama_decode.py "$D"/llama_kv$kv --steps 2 --time || fail=1
	done
	# (without --check: the model reads the KV cache it appends to, which
	# --check would poison before its second run)
	san llama_small/llama_decode.cubin --set Pos=100
	san llama_small/llama_decode.cubin --set Pos=37   # a KV range in no multiple of the warps' 32 rows
else
	fail=1
	echo "SKIP: the full models and the model's sanitizer runs (the reduced model failed)"
fi
[ $fail -eq 0 ] && echo "mega_gpu: all passed" || echo "mega_gpu: FAILED"
exit $fail
