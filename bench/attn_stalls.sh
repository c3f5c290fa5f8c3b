#!/bin/bash
# Where an attention kernel's warps stall, instruction by instruction
# (Nsight Compute's warp state sampling), on the GPU host from the
# repository root:
#   bash bench/attn_stalls.sh DIR CONFIG:B,H,HKV,SQ,SKV ...
# One launch each (the 4th), clocks and caches as they are, with the
# SourceCounters and WarpStateStats sections; the SASS page of each report
# goes to $O/stalls_NAME.csv, and $O/attn_stalls.md gets, per kernel, the
# stall reasons' shares of all samples and the 40 instructions with the
# most samples (address, opcode and operands, samples, the top reason).
# The question it answers for the short work items (sliding window and
# documents at head dim 64): how many samples sit in an item's start (the
# Q wait, the first S and its softmax) and end (the last P V, the store)
# against its KV loop.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
D=$1
shift
: >"$O/attn_stalls.md"
for a in "$@"; do
	cfg=${a%%:*} shape=${a#*:}
	name="${cfg}_${shape//,/x}"
	ncu --clock-control none --cache-control none -k "regex:attn" --launch-skip 3 --launch-count 1 \
		--section SourceCounters --section WarpStateStats -f -o "$O/stalls_$name" \
		python3 bench/attn_profile.py "$D" "$cfg" ${shape//,/ } >"$O/ncu_stalls_$name.log" 2>&1 ||
		{ tail -n 5 "$O/ncu_stalls_$name.log"; failed=1; continue; }
	ncu -i "$O/stalls_$name.ncu-rep" --page source --print-source sass --csv >"$O/stalls_$name.csv" \
		2>>"$O/ncu_stalls_$name.log" || { tail -n 5 "$O/ncu_stalls_$name.log"; failed=1; continue; }
	python3 bench/stall_summary.py "$O/stalls_$name.csv" "$name" >>"$O/attn_stalls.md"
done
cat "$O/attn_stalls.md"
exit $failed
