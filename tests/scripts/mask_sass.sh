#!/bin/bash
# What a mask hook costs a partial KV block, held where it is: the linked
# attention kernels' KV loops in SASS (bench/sass_loops.py), each partial-
# block path at most its bound a thread for a 128-key block (64 scores a
# thread): the sliding window's two compares with per-row bounds 311 (it
# was 484 with a subtraction per score, bench/results/2026-12-04-
# attention-mask-sass.md), the document mask's 293, causal's 195.
# Then bench/stall_regions.py on the linked sliding window kernel and a
# made-up sample page: one sample on every SASS instruction and ten more
# on each try-wait, so the KV loop's count is its length and its waits'
# ten each, and every ring barrier the kernel waits on is named from the
# manifest (`lkv.k -> core.k full`), none left as a bare offset but the
# glue's work-item ring.
# Needs nvdisasm (the nvidia-cuda-nvdisasm wheel; .ci/run installs it).
# Exit 0 pass, 1 fail, 77 skip.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
NVD=$(python3 -c 'import sys; sys.path.insert(0, "bench"); from sass_loops import find_nvdisasm
print(find_nvdisasm(None))' 2>/dev/null)
[ -n "$NVD" ] || { echo "skip: no nvdisasm (pip install nvidia-cuda-nvdisasm)"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
fail=0
# recipe, kernel, bound (64 scores a thread: 5, 5 and 3.5 instructions a score)
while read -r recipe kernel bound; do
	"$PLKC" "examples/$recipe.plk" -arch sm_90a --kernel "$kernel" -o "$tmp/$kernel.cubin" 2>"$tmp/$kernel.err" ||
		{ echo "$kernel: link failed:"; head -n 12 "$tmp/$kernel.err"; fail=1; continue; }
	python3 bench/sass_loops.py --nvdisasm "$NVD" --max-partial "$bound" "$tmp/$kernel.cubin" || fail=1
done <<'KERNELS'
attn_sliding attn_sliding 320
attn_document attn_document 320
attn_causal attn_causal_bn128 224
KERNELS
python3 - "$tmp" "$NVD" <<'PY' || fail=1
import csv, re, subprocess, sys
sys.path.insert(0, "bench")
import sass_loops
tmp, nvd = sys.argv[1], sys.argv[2]
ins, labels = sass_loops.parse(tmp + "/attn_sliding.cubin", [nvd, "-c"])
lo, hi = sass_loops.kv_loop(ins, labels)
with open(tmp + "/k.csv", "w", newline="") as f:
    w = csv.writer(f)
    w.writerow(["Kernel Name", "attn_sliding"])
    w.writerow(["Address", "Source", "Warp Stall Sampling (All Samples)"])
    for a, t in ins:
        w.writerow(["0x%x" % (0x7f0000000000 + a), "      " + t, 11 if "TRYWAIT" in t else 1])
out = subprocess.run([sys.executable, "bench/stall_regions.py", tmp + "/attn_sliding.cubin", tmp + "/attn_sliding.manifest.json",
                      tmp + "/k.csv"], capture_output=True, text=True, check=True).stdout
loop = re.search(r"\| KV loop \| (\d+) \|", out)
waits = re.findall(r"\| ((?:lq|lkv)\.\w+ -> core\.\w+ (?:full|empty)|mbarrier [^|]*) \| \d+", out)
ok = True
# the consumers' loop waits on full slots only: all its samples stay its own
want = sum(11 if "TRYWAIT" in t else 1 for _, t in ins[lo:hi + 1])
if not loop or int(loop.group(1)) != want:
    print("stall_regions: KV loop samples %s, expected %d" % (loop and loop.group(1), want)); ok = False
named = [x for x in waits if "->" in x]
bare = [x for x in waits if x.startswith("mbarrier") and "work-item ring" not in x]
if not any("lkv.k -> core.k full" == x for x in named) or bare:
    print("stall_regions: barriers named %s, unnamed %s" % (named, bare)); ok = False
if not ok:
    print(out)
sys.exit(0 if ok else 1)
PY
exit $fail
