#!/bin/bash
# bench/ncu_csv.py, the reader of Nsight Compute's raw CSV that the GPU
# scripts table, on the build host: a fabricated CSV (ncu's own lines
# before the table, a units row, one launch in scaled units, one with
# n/a and empty values). Checked: one dict per launch, the units row
# none; values in base units (usecond -> ns, Mbyte and Kbyte -> bytes);
# n/a, empty and absent metrics NaN; text() gives the kernel's name; a
# file without a table gives no launches. Then each bench script that
# reads through it (ncu_gemm.sh, ncu_l2.sh, profile.sh, attn_profile.sh)
# runs its table code on the CSV and prints rows.
# Exit 0 pass, 1 fail, 77 skip.
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/raw.csv" <<'CSV'
==PROF== Connected to process 1234
"ID","Process ID","Process Name","Host Name","Kernel Name","Context","Stream","gpu__time_duration.sum","dram__bytes_read.sum","launch__shared_mem_per_block_dynamic","gpc__cycles_elapsed.max","sm__cycles_active.avg","lts__t_requests_srcunit_tex.sum","launch__grid_size","launch__block_size","launch__cluster_dim_x","launch__cluster_dim_y","launch__registers_per_thread","sm__cycles_active.min","sm__cycles_active.max"
"","","","","","","","usecond","Mbyte","Kbyte","cycle","cycle","request","","","","","register/thread","cycle","cycle"
"0","1","python3","h","nvjet_sm90_tst_200x128","1","7","13.2","98.1","226.492","24000","17760","1,234,567","120","384","4","1","168","0","20400"
"1","1","python3","h","second","1","7","n/a","","0","100","50","","1","32","1","1","8","50","50"
CSV
echo "==ERROR== no kernels were profiled" >"$tmp/none.csv"
python3 - bench "$tmp" <<'PY' || exit 1
import math, sys
sys.path.insert(0, sys.argv[1])
from ncu_csv import launches
bad = []
def check(cond, what):
    if not cond:
        bad.append(what)
        print("FAIL:", what)
ls = launches(sys.argv[2] + "/raw.csv")
check(len(ls) == 2, "two launches, the units row none: %d" % len(ls))
a, b = ls
check(a.text("Kernel Name") == "nvjet_sm90_tst_200x128", "text(): %r" % a.text("Kernel Name"))
check(abs(a["gpu__time_duration.sum"] - 13200) < 1e-6, "usecond -> ns: %r" % a["gpu__time_duration.sum"])
check(abs(a["dram__bytes_read.sum"] - 98.1e6) < 1e-3, "Mbyte -> bytes: %r" % a["dram__bytes_read.sum"])
check(abs(a["launch__shared_mem_per_block_dynamic"] - 226492) < 1e-6, "Kbyte -> bytes")
check(a["lts__t_requests_srcunit_tex.sum"] == 1234567, "thousands separators, a count unscaled")
check(a["gpc__cycles_elapsed.max"] == 24000, "cycles unscaled")
check(math.isnan(b["gpu__time_duration.sum"]) and math.isnan(b["dram__bytes_read.sum"]), "n/a and empty: NaN")
check(math.isnan(a["no_such_metric.sum"]), "an absent metric: NaN")
check(launches(sys.argv[2] + "/none.csv") == [], "no table: no launches")
print("bench_ncu_csv: %d checks failed" % len(bad))
sys.exit(1 if bad else 0)
PY
# each script's table code (its python3 heredoc) on the CSV: rows, no error
# (each with the arguments its script passes: the shape, a label, a counter name)
for s in ncu_gemm:1000x3000x1000 ncu_l2:1000x3000x1000: profile:cfg:sm__pipe_tensor_cycles_active \
	attn_profile:cfg:2,16,16,8192,8192:; do
	IFS=: read -r -a args <<<"$s:"
	name=${args[0]}
	sed -n "/<<'PY'$/,/^PY$/p" "bench/$name.sh" | sed '1d;$d' >"$tmp/$name.py"
	out=$(python3 "$tmp/$name.py" "$tmp/raw.csv" "${args[@]:1}" 2>&1) || { echo "FAIL: $name.sh: $out"; exit 1; }
	grep -q '^| ' <<<"$out" || { echo "FAIL: $name.sh printed no row: $out"; exit 1; }
	echo "$name.sh: $(grep -c '^| ' <<<"$out") rows"
done
