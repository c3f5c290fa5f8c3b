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
	python3 - "$O/stalls_$name.csv" "$name" >>"$O/attn_stalls.md" <<'PY'
import csv, re, sys
rows = [r for r in csv.reader(open(sys.argv[1])) if r]
head = next(i for i, r in enumerate(rows) if any("Source" == c or "Address" == c for c in r))
cols, body = rows[head], rows[head + 1:]
def col(pat):
    return next((i for i, c in enumerate(cols) if re.search(pat, c, re.I)), None)
src, addr = col(r"^Source$"), col(r"^Address$")
total = col(r"Warp Stall Sampling \(All")
reasons = [i for i, c in enumerate(cols) if re.match(r"stall_|Stall ", c) and i != total]
num = lambda r, i: float(r[i].replace(",", "") or 0) if i is not None and i < len(r) else 0.0
all_s = sum(num(r, total) for r in body) or 1.0
print("## %s\n\n%d SASS lines, %.0f samples\n" % (sys.argv[2], len(body), all_s))
by = sorted(((sum(num(r, i) for r in body), cols[i]) for i in reasons), reverse=True)
print("| stall reason | share |\n|---|---|")
for s, c in by[:12]:
    print("| %s | %.1f%% |" % (c, 100 * s / all_s))
print("\n| address | instruction | samples | share | top reason |\n|---|---|---|---|---|")
for r in sorted(body, key=lambda r: -num(r, total))[:40]:
    top = max(reasons, key=lambda i: num(r, i)) if reasons else None
    print("| %s | `%s` | %.0f | %.1f%% | %s |" % (r[addr] if addr is not None else "?", r[src][:70] if src is not None else "?",
          num(r, total), 100 * num(r, total) / all_s, cols[top] if top is not None else "-"))
print()
PY
done
cat "$O/attn_stalls.md"
exit $failed
