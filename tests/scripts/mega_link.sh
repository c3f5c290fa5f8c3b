#!/bin/bash
# A megakernel linked on the build host (docs/megakernel.md, "Linking"):
# the small chain of tests/gpu/mega/chain.plk links into a cubin with its
# entry; the manifest says cooperative, its grid, ops and workspace; the
# entry waits where the schedule says; libplkrt and plk-run load the real
# cubin and launch it cooperatively (tests/runtime/mock_cuda.c as the
# driver); its monolith is written and built by nvcc; kernels a
# megakernel cannot run yet are refused (E0379), and what it cannot emit
# (E0377); an f32 scalar reaches its op as it is; --emit=map prints its
# op kernel's link map. Exit 0 pass, 1 fail, 77 skip.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -x "$CUDA_HOME/bin/nvcc" ] || { echo "skip: no nvcc under $CUDA_HOME"; exit 77; }
tmp="$PWD/$B/mega-link"
rm -rf "$tmp" && mkdir -p "$tmp/mock" || exit 1
fail=0
no() { echo "FAIL: $*"; fail=1; }
sed 's/const L = 4, D = 2048, F = 8192/const L = 2, D = 256, F = 512/' tests/gpu/mega/chain.plk >"$tmp/chain.plk"
I=(-I "$PWD/tests/gpu/mega")

"$PLKC" "$tmp/chain.plk" "${I[@]}" -arch sm_90a -o "$tmp/chain.cubin" >"$tmp/log" 2>&1 || no "link: $(cat "$tmp/log")"
grep -qa ".text.chain" "$tmp/chain.cubin" || no "the cubin has no entry chain"
python3 - "$tmp/chain.manifest.json" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))
ops = m["megakernel"]["ops"]
want = {"cooperative": True, "block": [128, 1, 1], "grid": {"policy": "tiles", "tiles": [[132, 1], [1, 1]]}}
bad = [k for k, v in want.items() if m.get(k) != v]
ws = [p for p in m["params"] if p["kind"] == "workspace"]
if bad or len(ops) != 5 or [o["waits"] for o in ops][1:] != [["up0"], ["down0"], ["up[0]"], ["down[0]"]] \
        or len(ws) != 1 or ws[0]["zero"] != 256 or ws[0]["bytes"] != 256 + 2 * 512 * 2 + 2 * 256 * 2:
    print("FAIL: manifest:", bad, ops, ws)
    sys.exit(1)
PY
"$PLKC" "$tmp/chain.plk" "${I[@]}" -arch sm_90a --emit=glue-ll >"$tmp/glue.ll" 2>&1 || no "--emit=glue-ll: $(head -n 5 "$tmp/glue.ll")"
# matvec declares `early w`: each op's waits are left to its main (plk_wait_inputs), none in the entry
[ "$(grep -c '^; .*plk_mk_wp\[0\] = plk_cnt + [0-9]*, plk_mk_wt\[0\] = (plk_gen + 1u)' "$tmp/glue.ll")" = 4 ] ||
	no "the entry leaves $(grep -c '^; .*plk_mk_wp\[0\] = plk_cnt' "$tmp/glue.ll") waits to its ops, not 4"
[ "$(grep -c '^; .*plk_mk_wait(plk_cnt' "$tmp/glue.ll")" = 0 ] || no "the entry waits itself for an op that waits inside"
grep -q '^; .*plk_mk_wait(plk_mk_wp\[i\], plk_mk_wt\[i\]);' "$tmp/glue.ll" || no "plk_wait_inputs does not poll the op's waits"
[ "$(grep -c '^; .*plk_main(.*first, 132);' "$tmp/glue.ll")" = 5 ] || no "the entry runs $(grep -c '^; .*plk_main(' "$tmp/glue.ll") ops, not 5"
grep -q "define .*@plk_main(.*i32 %op.first, i32 %op.step)" "$tmp/glue.ll" || no "the op's main takes no first and step"
# every piece of the block's, not its first alone: the loop steps by op.step
grep -q "add i32 %tile, %op.step" "$tmp/glue.ll" || no "the op's main does not step through its pieces"

# --timeline: the entry stamps each op three times and the manifest adds the tensor it writes
"$PLKC" "$tmp/chain.plk" "${I[@]}" -arch sm_90a --timeline --emit=glue-ll >"$tmp/tl.ll" 2>&1 || no "--timeline: $(head -n 5 "$tmp/tl.ll")"
[ "$(grep -c '^; .*tl\[[012]\] = plk_mk_clock()' "$tmp/tl.ll")" = 15 ] || no "--timeline: not 3 stamps for each of 5 ops"
"$PLKC" "$tmp/chain.plk" "${I[@]}" -arch sm_90a --timeline --emit=manifest >"$tmp/tl.json" 2>&1 || no "--timeline manifest"
python3 -c 'import json, sys
m = json.load(open(sys.argv[1]))
t = [x for x in m["tensors"] if x["name"] == "timeline"]
p = [x["name"] for x in m["params"]]
sys.exit(not (t and t[0]["dims"] == [132, 5, 4] and p[-2:] == ["timeline", "plk_workspace"]))' "$tmp/tl.json" ||
	no "--timeline: the manifest lacks tensor timeline [132, 5, 4] before the workspace"
o=$("$PLKC" tests/check/e0378_const_tensor_written.plk --timeline -arch sm_90a --check 2>&1)
[ $? -eq 1 ] && grep -q "declares no megakernel: --timeline" <<<"$o" || no "--timeline without a megakernel: $o"
python3 bench/timeline_svg.py --selftest "$tmp/tl.svg" >/dev/null || no "bench/timeline_svg.py --selftest failed"

# the runtime on the real cubin, the driver a mock: a cooperative launch of 132 blocks
make -s -C runtime B="$tmp/rt" CUDA_HOME="$CUDA_HOME" "$tmp/rt/plk-run" "$tmp/rt/libplkrt.so" || exit 1
cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -shared -fPIC -Wl,-soname,libcuda.so.1 -I"$CUDA_HOME/include" \
	-o "$tmp/mock/libcuda.so.1" tests/runtime/mock_cuda.c || exit 1
o=$(LD_LIBRARY_PATH="$tmp/mock" MOCK_CUDA_LOG="$tmp/mock.log" "$tmp/rt/plk-run" "$tmp/chain.cubin" --iters 1 --warmup 0 2>&1) ||
	no "plk-run: $o"
grep -q "launch chain grid 132 1 1 block 128 1 1 cluster 1 1 1 smem 0 cooperative" "$tmp/mock.log" ||
	no "no cooperative launch of 132 blocks: $(cat "$tmp/mock.log")"

# the decode step of examples/llama_decode.plk: 81 ops of five kernels, each kernel's main once;
# the ops whose components declare `early` wait inside (plk_wait_inputs), the others before their
# main; the workspace zeroed through Cnt (attn_decode's `zeroed cnt`, the first buffer: 16 x 8 u32)
# after the counters (4 x (81 + 2) bytes, to 512)
# The op mains keep their weight loads in registers: a spill there waits
# for the loads it stores (2026-12-04-decode-tagged-norm-once.md: 156
# bytes in the MLP's main, after an edit of another op, cost 5%), so none
# may spill but the head's 4-byte reload and the entry's own, around its calls.
"$PLKC" examples/llama_decode.plk -arch sm_90a --warn-spills -o "$tmp/llama.cubin" >"$tmp/llog" 2>&1 ||
	no "llama_decode: $(cat "$tmp/llog")"
grep -qa ".text.llama_decode" "$tmp/llama.cubin" || no "the cubin has no entry llama_decode"
grep "note: \`plk_main_" "$tmp/llog" | grep -v "plk_main_head\`: 0 bytes stored and 4 loaded" | grep . &&
	no "an op's main spills (plkc -v says where)"
python3 - "$tmp/llama.manifest.json" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))
ops = m["megakernel"]["ops"]
kernels = sorted({o["kernel"] for o in ops})
ws = [p for p in m["params"] if p["kind"] == "workspace"]
if len(ops) != 81 or kernels != ["attn", "down", "head", "mlp", "qkv"] or ops[-1]["pieces"] != 4008 \
        or ops[1]["waits"] != ["qkv[0]"] or m["block"] != [256, 1, 1] or [p["zero"] for p in ws] != [512 + 512]:
    print("FAIL: llama_decode manifest:", len(ops), kernels, ops[-1], ops[1], m["block"], ws)
    sys.exit(1)
PY

# every op of the step waits inside its main (its components read `early`
# params first): attn's older cache rows too, which no op writes, as qkv
# writes the token's k and v to KN and VN and attn appends them
"$PLKC" examples/llama_decode.plk -arch sm_90a --emit=schedule >"$tmp/lsched" 2>&1 || no "llama_decode --emit=schedule: $(head -n 5 "$tmp/lsched")"
[ "$(grep -c 'inside its main' "$tmp/lsched")" = 80 ] ||
	no "$(grep -c 'inside its main' "$tmp/lsched") of llama_decode's ops wait inside their main, not 80 (all but qkv[0])"
grep -A2 '^  1 attn\[0\] = attn' "$tmp/lsched" | grep -q 'writes KC\[0\], VC\[0\]' || no "attn[0] does not append to KC[0], VC[0]"

# the monolith (--emit=monolith): the same op kernels' sources as one unit,
# each op kernel's body a noinline main, under the same entry; one nvcc call
# builds it into a cubin with the entry's resources
"$PLKC" "$tmp/chain.plk" "${I[@]}" -arch sm_90a --emit=monolith -o "$tmp/chain.mono.cu" >"$tmp/mlog" 2>&1 ||
	no "--emit=monolith: $(cat "$tmp/mlog")"
[ "$(grep -c '^extern "C" __device__ __noinline__ void plk_main(' "$tmp/chain.mono.cu")" = 1 ] ||
	no "the chain's monolith does not define its op kernel's main once"
[ "$(grep -c '^[[:space:]]*plk_main(.*first, 132);' "$tmp/chain.mono.cu")" = 5 ] || no "the monolith's entry does not run 5 ops"
grep -q '^extern "C" __global__ void __launch_bounds__(128, 1)$' "$tmp/chain.mono.cu" || no "the monolith has no entry"
(cd "$PWD" && "$CUDA_HOME/bin/nvcc" -gencode arch=compute_90a,code=sm_90a -cubin -I. -Istdlib -I tests/gpu/mega \
	-o "$tmp/chain.mono.cubin" "$tmp/chain.mono.cu" >"$tmp/nvlog" 2>&1) || no "nvcc on the monolith: $(tail -n 20 "$tmp/nvlog")"
grep -qa ".text.chain" "$tmp/chain.mono.cubin" || no "the monolith's cubin has no entry chain"
"$PLKC" examples/llama_decode.plk -arch sm_90a --emit=monolith -o "$tmp/llama.mono.cu" >"$tmp/mlog" 2>&1 ||
	no "llama_decode --emit=monolith: $(cat "$tmp/mlog")"
[ "$(grep -c '^extern "C" __device__ __noinline__ void plk_main_' "$tmp/llama.mono.cu")" = 5 ] ||
	no "llama_decode's monolith does not define five op mains"

# a megakernel's f32 scalar passes to an op's f32 parameter as it is: the
# entry truncated it through (long long) before (E0389 now refuses it in
# an expression or for an integer parameter: tests/mega/e0389_*)
mkdir -p "$tmp/fs"
cat >"$tmp/fs/fs.plk" <<'PLK'
component fs {
  source "fs.cu"; entry plk_fs
  arch >= sm_90
  warps 1
  param y: ptr<f32>
  param s: f32
}
kernel k(Y: tensor<f32>[N], S: f32) {
  grid tiles(1, 1)
  f = fs(y = Y, s = S)
}
megakernel m(Y: tensor<f32>[4], scale: f32) {
  grid blocks(132)
  op a = k(Y = Y, S = scale)
}
PLK
cat >"$tmp/fs/fs.cu" <<'CU'
#include "plk.cuh"
PLK_ENTRY void plk_fs(int inst, float *y, float s, int tile_m, int tile_n)
{
	if (tile_m == 0 && threadIdx.x == 0)
		y[0] = s;
}
CU
"$PLKC" "$tmp/fs/fs.plk" -arch sm_90a --emit=glue-ll -o "$tmp/fs/fs.ll" >"$tmp/fs/log" 2>&1 || no "f32 scalar: $(cat "$tmp/fs/log")"
grep -q '^; .*plk_main((void \*)((char \*)p0 + 0ull), (float)(p1), 4, first, 132);' "$tmp/fs/fs.ll" ||
	no "the f32 scalar does not reach the op as it is: $(grep '^; .*plk_main(' "$tmp/fs/fs.ll")"

o=$("$PLKC" tests/mega/gemm_mlp.plk -arch sm_90a -o "$tmp/gemm.cubin" 2>&1)
[ $? -eq 1 ] && grep -q "error\[E0379\]" <<<"$o" || no "a tensor-map op was not refused (E0379): $o"
o=$("$PLKC" "$tmp/chain.plk" "${I[@]}" -arch sm_90a -arch sm_100a -o "$tmp/two.cubin" 2>&1)
[ $? -eq 1 ] && grep -q "error\[E0377\]: megakernel \`chain\` is linked for one arch, not 2" <<<"$o" || no "two arches: $o"
o=$("$PLKC" "$tmp/chain.plk" "${I[@]}" -arch sm_90a --emit=graph 2>&1)
[ $? -eq 1 ] && grep -q "error\[E0377\]: --emit=graph shows one kernel" <<<"$o" || no "--emit=graph: $o"
# --emit=map: each op kernel's link map, its objects' digests those the
# linked manifest records
"$PLKC" "$tmp/chain.plk" "${I[@]}" -arch sm_90a --emit=map -o "$tmp/chain.map" 2>"$tmp/err" || no "--emit=map: $(cat "$tmp/err")"
grep -q '^link map of mv for sm_90a$' "$tmp/chain.map" && grep -q '^m = matvec$' "$tmp/chain.map" ||
	no "--emit=map: not mv's map: $(head -n 5 "$tmp/chain.map")"
d=$(awk '/^  digest/ { print $2 }' "$tmp/chain.map")
[ -n "$d" ] && grep -q "$d" "$tmp/chain.manifest.json" || no "--emit=map: digest '$d' not the manifest's"
[ ! -e "$tmp/gemm.cubin" ] && [ ! -e "$tmp/two.cubin" ] || no "a refused link wrote a file"
exit $fail
