#!/bin/bash
# bench/mono_lto.py on the build host: a recipe's monolith built again
# through LTO (nvcc -rdc=true, nvJitLink -lto) into NAME.monolto.cubin
# with the kernel's entry, configs.json gaining NAME_lto once however
# often it runs, and a monolith that does not compile a non-zero exit
# that leaves configs.json as it was. Exit 0 pass, 1 fail, 77 skip.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -x "$CUDA_HOME/bin/nvcc" ] || { echo "skip: no nvcc under $CUDA_HOME"; exit 77; }
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp="$PWD/$B/bench-mono-lto"
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }
"$PLKC" examples/gemm_skinny.plk -arch sm_90a -o "$tmp/sk.cubin" >"$tmp/log" 2>&1 || no "link: $(cat "$tmp/log")"
"$PLKC" examples/gemm_skinny.plk -arch sm_90a --emit=monolith -o "$tmp/sk.mono.cu" >"$tmp/log" 2>&1 ||
	no "--emit=monolith: $(cat "$tmp/log")"
echo '[{"name": "sk", "arch": "sm_90a", "kind": "gemm", "cubin": "sk.cubin", "mono": "sk.mono.cubin",
  "manifest": "sk.manifest.json"}]' >"$tmp/configs.json"
for run in 1 2; do
	python3 bench/mono_lto.py --dir "$tmp" >"$tmp/out" 2>&1 || no "run $run: $(tail -n 5 "$tmp/out")"
done
grep -qa ".text.gemm_skinny" "$tmp/sk.monolto.cubin" 2>/dev/null || no "sk.monolto.cubin has no entry gemm_skinny"
python3 -c 'import json, sys
c = json.load(open(sys.argv[1]))
sys.exit(not ([x["name"] for x in c] == ["sk", "sk_lto"] and c[1]["mono"] == "sk.monolto.cubin"))' "$tmp/configs.json" ||
	no "configs.json is not [sk, sk_lto]: $(cat "$tmp/configs.json")"
cp "$tmp/configs.json" "$tmp/before.json"
echo 'this is not CUDA' >"$tmp/sk.mono.cu"
python3 bench/mono_lto.py --dir "$tmp" >"$tmp/out" 2>&1 && no "a monolith that does not compile exited 0"
cmp -s "$tmp/configs.json" "$tmp/before.json" || no "a failed run changed configs.json"
exit $fail
