#!/bin/bash
# Where an attention kernel's cycles go (Nsight Compute), on the GPU host
# from the repository root:
#   bash bench/attn_profile.sh DIR CONFIG:[cudnn:|flex:]B,H,HKV,SQ,SKV ...
# (each argument after DIR a configuration of DIR/configs.json and a shape,
# e.g. attn_causal_d128:2,16,16,8192,8192; cudnn: or flex: profiles that
# baseline of the same problem instead, the compiled FlexAttention's
# attention kernel by its Triton template's name). One launch each (the 4th),
# clocks and caches as they are: elapsed cycles, the SMs' active cycles
# min / mean / max (a max above the mean: imbalance, an idle tail), the
# tensor pipe's active share, instructions. Output: $O/attn_profile.md.
set -u
cd "$(dirname "$0")/.." || exit 1
. bench/gpu_lib.sh
D=$1
shift
# Counter names differ between ncu versions: take what this one has
# (gpu_lib.sh); the names with "tensor" go to the log.
have=$(ncu_counters)
grep -i tensor <<<"$have" >"$O/tensor_metrics.log"
tensor=$(tensor_counter "$have")
metrics="gpc__cycles_elapsed.max,sm__cycles_active.min,sm__cycles_active.avg,sm__cycles_active.max,smsp__inst_executed.sum"
[ -n "$tensor" ] && metrics="$metrics,$tensor.avg.pct_of_peak_sustained_active,$tensor.avg.pct_of_peak_sustained_elapsed"
echo "| kernel | shape | elapsed cycles | SM active min / mean / max (of elapsed) | tensor pipe (of active / of elapsed) | instructions |" >"$O/attn_profile.md"
echo "|---|---|---|---|---|---|" >>"$O/attn_profile.md"
for a in "$@"; do
	cfg=${a%%:*} rest=${a#*:}
	shape=${rest#cudnn:}
	flag=; ksel="regex:attn"
	[ "$shape" != "$rest" ] && { flag=--cudnn; ksel="regex:sdpa|fprop|fmha|flash|cudnn"; }
	case $rest in flex:*) shape=${rest#flex:}; flag=--flex; ksel="regex:triton_tem" ;; esac
	name="${cfg}${flag:+_${flag#--}}_${shape//,/x}"
	ncu --clock-control none --cache-control none -k "$ksel" --launch-skip 3 --launch-count 1 \
		--metrics "$metrics" --csv --page raw python3 bench/attn_profile.py "$D" "$cfg" ${shape//,/ } $flag \
		>"$O/ncu_$name.csv" 2>"$O/ncu_$name.log" || { tail -n 5 "$O/ncu_$name.log"; failed=1; continue; }
	python3 - "$O/ncu_$name.csv" "$name" "$shape" "$tensor" >>"$O/attn_profile.md" <<'PY'
import sys
sys.path.insert(0, "bench")
from ncu_csv import Launch, launches
v = (launches(sys.argv[1]) or [Launch({}, {})])[-1]
f = v.__getitem__   # f(metric): its value in base units, NaN if absent
t, el = sys.argv[4], f("gpc__cycles_elapsed.max")
pct = lambda x: "-" if x != x else "%.1f%%" % x   # nan: this ncu names no such counter
print("| %s (%s) | %s | %.0f | %.3f / %.3f / %.3f | %s / %s | %.3g |" % (
    sys.argv[2], v.text("Kernel Name")[:40], sys.argv[3], el, f("sm__cycles_active.min") / el,
    f("sm__cycles_active.avg") / el, f("sm__cycles_active.max") / el,
    pct(f(t + ".avg.pct_of_peak_sustained_active")), pct(f(t + ".avg.pct_of_peak_sustained_elapsed")),
    f("smsp__inst_executed.sum")))
PY
done
cat "$O/attn_profile.md"
exit $failed
