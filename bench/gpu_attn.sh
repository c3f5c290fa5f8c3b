#!/bin/bash
# The attention GPU session, on the H200 from the repository root, after
# the build host ran `python3 bench/prepare.py --set attention --out
# .carry/attn` (every configuration linked, and its monolith built):
#   1. compute-sanitizer memcheck, racecheck and synccheck on every linked
#      attention kernel at small, odd shapes (tests/gpu/attn_sanitize.py),
#      instrumenting our kernels only (SANITIZE=TOOLS for some tools,
#      SAN_MAX_BLOCKS=N for a second pass of each on N blocks);
#   2. the SASS of the linked causal core: HGMMA present, no local memory;
#   3. bench/attn_bench.py: correctness against the fp32 reference, then
#      linked vs monolithic vs cuDNN / flash SDPA and FlexAttention.
# Logs in $OUT (or build/gpu-out); a summary last.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
nvidia-smi -L
build_runtime || exit 1
A=${ATTN_DIR:-.carry/attn}
# torch's caching allocator off: each tensor its own allocation of its
# exact size, so that memcheck sees a read past a tensor's end that the
# pool's 512-byte rounding would hide (the document mask read start[]
# past its end for the last q block's padding rows until 2026-12-05)
# SAN_MAX_BLOCKS=N: each tool once more on N blocks (PLK_MAX_BLOCKS, so a
# block takes several work items: what a kernel that reads ahead carries
# from one item to the next).
for tool in ${SANITIZE-memcheck racecheck synccheck}; do
	for mb in "" ${SAN_MAX_BLOCKS:-}; do
		step sanitize-attn-$tool${mb:+-b$mb} timeout ${STO:-600} env ${mb:+PLK_MAX_BLOCKS=$mb} \
			PYTORCH_NO_CUDA_MEMORY_CACHING=1 "$CS" --tool $tool --report-api-errors no --error-exitcode 9 \
			--kernel-name kns=attn python3 tests/gpu/attn_sanitize.py "$A"
	done
done
sass() {
	cuobjdump -sass "$A/attn_causal_d128.cubin" >"$O/attn_causal_d128.sass" || return 1
	local n l
	n=$(grep -c HGMMA "$O/attn_causal_d128.sass")
	l=$(grep -c 'LDL\|STL' "$O/attn_causal_d128.sass")
	echo "HGMMA instructions in the linked causal attention: $n; local loads/stores: $l"
	[ "$n" -gt 0 ] && [ "$l" -eq 0 ]
}
[ -z "${NOSASS:-}" ] && step sass-attn sass
step attn-bench env PYTHONUNBUFFERED=1 python3 bench/attn_bench.py --dir "$A" ${QUICK:+--quick} ${ONLY:+--only "$ONLY"} \
	--out "$O/attention.md"
cat "$O/attention.md" 2>/dev/null
finish
