#!/bin/bash
# --split-compile N: ptxas compiles a link's kernels on N threads. The
# same SASS as one thread (a select of several kernels, a megakernel) and
# the same manifest; a count outside 1..1024, or none, is a usage error.
# Exit 0 pass, 1 fail, 77 skip.
. "$(dirname "$0")/common.bash"
need_nvcc
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
NVD=$(python3 -c 'import sys; sys.path.insert(0, "bench"); from sass_loops import find_nvdisasm
print(find_nvdisasm(None))' 2>/dev/null)
[ -n "$NVD" ] || echo "note: no nvdisasm (pip install nvidia-cuda-nvdisasm): the SASS not compared"

mkdir -p "$tmp/1" "$tmp/3"   # one file name in both: the manifest names its cubin
for e in gemm_swiglu_auto llama_decode; do
	"$PLKC" examples/$e.plk -arch sm_90a -o "$tmp/1/$e.cubin" 2>"$tmp/log" || { fail "$e: $(head -5 "$tmp/log")"; continue; }
	"$PLKC" examples/$e.plk -arch sm_90a --split-compile 3 -o "$tmp/3/$e.cubin" 2>"$tmp/log" ||
		{ fail "$e --split-compile 3: $(head -5 "$tmp/log")"; continue; }
	cmp -s "$tmp/1/$e.manifest.json" "$tmp/3/$e.manifest.json" || fail "$e: --split-compile changed the manifest"
	if [ -n "$NVD" ]; then
		"$NVD" -c "$tmp/1/$e.cubin" >"$tmp/$e.1.sass" && "$NVD" -c "$tmp/3/$e.cubin" >"$tmp/$e.3.sass" ||
			{ fail "$e: nvdisasm"; continue; }
		[ "$(grep -c '^\s*/\*[0-9a-f]*\*/' "$tmp/$e.1.sass")" -gt 1000 ] || fail "$e: no SASS to compare"
		cmp -s "$tmp/$e.1.sass" "$tmp/$e.3.sass" || fail "$e: --split-compile 3 changed the SASS"
	fi
done

for v in 0 -1 x 1025 ""; do
	o=$("$PLKC" examples/gemm.plk --split-compile "$v" --check 2>&1)
	r=$?
	[ $r = 2 ] || fail "--split-compile '$v': exit $r, not 2"
	case "$o" in
	*"--split-compile takes a number of threads from 1 to 1024, not \`$v\`"* | \
	*"--split-compile needs a number of threads, e.g. --split-compile 8"*) ;;
	*) fail "--split-compile '$v': $o" ;;
	esac
done
[ $fails = 0 ] && echo "link_split: the same SASS and manifests on 3 threads; bad counts refused"
exit $((fails > 0))
