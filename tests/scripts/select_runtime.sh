#!/bin/bash
# A select's manifest read by the runtime, against the mock libcuda
# (tests/runtime/mock_cuda.c): examples/gemm_auto.plk's variants are
# launched as its rule says for each shape and the mock's 132 SMs,
# PLK_VARIANT forces one, and an unknown name is a load error that lists
# the variants. The manifest comes from --emit=manifest (no nvcc); the
# binary is any ELF image, whose functions the mock makes up by name.
B=${1:-build}
CUDA_HOME=${CUDA_HOME:-/usr/local/cuda}
[ -f "$CUDA_HOME/include/cuda.h" ] || { echo "skip: no cuda.h under $CUDA_HOME"; exit 77; }
out="$PWD/$B/select-runtime"
rm -rf "$out" && mkdir -p "$out/mock" "$out/w" || exit 1
san=()
if [ -n "$PLK_SANITIZED" ]; then
	san=(OPT="-O1 -g -fsanitize=address,undefined -fno-omit-frame-pointer -fno-sanitize-recover=undefined"
	     LDFLAGS="-fsanitize=address,undefined")
fi
make -s -C runtime B="$out/rt" CUDA_HOME="$CUDA_HOME" "${san[@]}" "$out/rt/plk-run" || exit 1
cc -std=c11 -D_GNU_SOURCE -O1 -g -Wall -shared -fPIC -Wl,-soname,libcuda.so.1 -I"$CUDA_HOME/include" \
	-o "$out/mock/libcuda.so.1" tests/runtime/mock_cuda.c || exit 1
W="$out/w"
"$PLKC" examples/gemm_auto.plk -arch sm_90a --emit=manifest -o "$W/ga.manifest.json" || exit 1
printf '\177ELF' >"$W/ga.cubin"
export LD_LIBRARY_PATH="$out/mock"
fails=0
fail() { echo "FAIL: $*"; fails=$((fails + 1)); }
# [CUBIN=gs] run M N K [env...]: plk-run once (gemm_auto, or gemm_swiglu_auto); prints the variant line and the launch the mock logged
run() {
	local m=$1 n=$2 k=$3; shift 3
	rm -f "$W/log"
	env MOCK_CUDA_LOG="$W/log" "$@" "$out/rt/plk-run" "$W/${CUBIN:-ga}.cubin" --dim M="$m" --dim N="$n" --dim K="$k" \
		--iters 1 --warmup 0 2>&1 | grep -E '^variant|plk-run:'
	grep -o 'launch [a-z0-9_]* grid [0-9]* [0-9]* [0-9]* block [0-9]*' "$W/log" 2>/dev/null | head -n 1
}
expect() {   # expect WHAT GOT WANT...
	local what=$1 got=$2; shift 2
	for w in "$@"; do
		printf '%s' "$got" | grep -qF -- "$w" || fail "$what: lacks '$w' in: $got"
	done
}
# M <= 16: skinny tiles, 64 rows of B by 16 of A (a launch of other kernel
# parameters: B's map first, C by pointer): 64 of them at N = 4096
expect "M=16" "$(run 16 4096 4096)" "variant gemm_skinny of gemm_auto" "launch gemm_skinny grid 64 1 1 block 384"
# C of odd width: no TMA map of C, register stores
expect "N=4095" "$(run 4096 4095 4096)" "variant gemm_odd of gemm_auto" "launch gemm_odd grid 132 1 1 block 384"
# 32 tiles of 64 x 128 fill a third of 132 SMs: K split 4 ways, 128 work items
expect "M=33" "$(run 33 4096 4096)" "variant gemm_small_sk of gemm_auto" "launch gemm_small_sk grid 128 1 1"
# 64 of them: one wave, no split
expect "M=128" "$(run 128 4096 4096)" "variant gemm_small of gemm_auto" "launch gemm_small grid 64 1 1 block 384"
# the split kernel's workspace: allocated and zeroed once (counters 256
# bytes + 32 tiles x 3 partials x 32 KiB), kept across launches of one
# shape, its counters zeroed again for another shape (plk-run: one
# argument set, a warm-up and a timed launch)
rm -f "$W/log"
MOCK_CUDA_LOG="$W/log" "$out/rt/plk-run" "$W/ga.cubin" --dim M=33 --dim N=4096 --dim K=4096 --iters 2 --warmup 1 \
	>/dev/null 2>&1 || fail "workspace: plk-run failed"
[ "$(grep -c '^memset' "$W/log")" = 1 ] && grep -q '^memset 3145984 bytes' "$W/log" ||
	fail "workspace: not one memset of 256 + 32 x 3 x 32768 bytes: $(grep '^memset' "$W/log" | tr '\n' ' ')"
# M <= 64 where 64 x 64 tiles fill at most a wave: 96 of them at N = 6144
expect "64x6144" "$(run 64 6144 4096)" "variant gemm_s64 of gemm_auto" "launch gemm_s64 grid 96 1 1 block 384"
# 1000 x 3000: 128 tiles of 128 x 192 fill one wave of 132 SMs, 192 of
# 128 x 128 would not; with B multicast in 2 x 1 clusters where a row of
# K is no whole 128-byte lines (K % 64 != 0): 64 pairs of CTAs, of which
# the mock's occupancy fits 60 (the grid is what
# cuOccupancyMaxActiveClusters allows: 120 CTAs)
expect "1000x3000x1008" "$(run 1000 3000 1008)" "variant gemm_n192_mc of gemm_auto" "launch gemm_n192_mc grid 120 1 1 block 384"
# ... and where K % 16 = 8 (every other row starts mid-sector) the
# 128 x 200 tiles in clusters of four: 30 clusters, one round of the 30
# the mock fits (120 CTAs)
expect "1000x3000" "$(run 1000 3000 1000)" "variant gemm_n200_q4 of gemm_auto" "launch gemm_n200_q4 grid 120 1 1 block 384"
expect "1000x3000x1024" "$(run 1000 3000 1024)" "variant gemm_n192 of gemm_auto" "launch gemm_n192 grid 128 1 1 block 384"
expect "1000x3000x2048" "$(run 1000 3000 2048)" "variant gemm_n192 of gemm_auto" "launch gemm_n192 grid 128 1 1 block 384"
# K % 64 != 0 over several waves: the multicast pairs whose rounds fill
# better, 128 x 192 at 3000^2 x 3024 (192 pairs: 3 rounds of 66, 97% full,
# against 144 of 128 x 256: 73%), 128 x 256 at 4096^2
expect "3000x3000x3024" "$(run 3000 3000 3024)" "variant gemm_n192_mc of gemm_auto" "launch gemm_n192_mc grid 120"
# K % 16 = 8: the fours where they take at most three rounds (3000^2: 90
# clusters), not past that (2048 x 8192: 164), nor over one row of
# clusters (M = 512), nor where more than one tile row in eight of their
# clusters' rows lies past M (M = 600: 5 of 8)
expect "3000x3000x3000" "$(run 3000 3000 3000)" "variant gemm_n200_q4 of gemm_auto" "launch gemm_n200_q4 grid 120"
expect "2048x8192x1000" "$(run 2048 8192 1000)" "variant gemm_wide_mc of gemm_auto"
expect "600x3000x1000" "$(run 600 3000 1000)" "variant gemm_n192_mc of gemm_auto"
expect "512x4096x1000" "$(run 512 4096 1000)" "variant gemm_n192_mc of gemm_auto"
expect "513x4096x1000" "$(run 513 4096 1000)" "variant gemm_n192_mc of gemm_auto"
expect "1024x4096x1000" "$(run 1024 4096 1000)" "variant gemm_n200_q4 of gemm_auto"
expect "4096x4096x4000" "$(run 4096 4096 4000)" "variant gemm_wide_mc of gemm_auto" "launch gemm_wide_mc grid 120"
# ... but not for one row of tiles: a pair's second CTA would compute rows past M
# (the pingpong tiles with B's L2 hint: at most 8 tile rows)
expect "128x14336x4000" "$(run 128 14336 4000)" "variant gemm_pp_ef of gemm_auto" "launch gemm_pp_ef grid 112"
expect "1024x14336x4000" "$(run 1024 14336 4000)" "variant gemm_n192_mc of gemm_auto"
expect "1000x14336x4096" "$(run 1000 14336 4096)" "variant gemm_pp_ef of gemm_auto" "launch gemm_pp_ef grid 132"
# 5 to 8 tile rows, the last partial, over at least 7 rounds of the 128 x 256 pairs: B multicast
expect "1000x128256x2048" "$(run 1000 128256 2048)" "variant gemm_wide_mc of gemm_auto" "launch gemm_wide_mc grid 120"
expect "1000x28000x2048" "$(run 1000 28000 2048)" "variant gemm_pp_ef of gemm_auto"   # 6.8 rounds
expect "512x128256x2048" "$(run 512 128256 2048)" "variant gemm_pp_ef of gemm_auto"   # 4 tile rows
expect "1024x128256x2048" "$(run 1024 128256 2048)" "variant gemm_pp_ef of gemm_auto"   # whole tile rows
# ... else, 8 tile rows with at most half the last in M: no pingpong tiles
expect "900x20000x2048" "$(run 900 20000 2048)" "variant gemm_wide of gemm_auto" "launch gemm_wide grid 132"
expect "960x4096x4096" "$(run 960 4096 4096)" "variant gemm_wide of gemm_auto"
expect "1000x20000x2048" "$(run 1000 20000 2048)" "variant gemm_pp_ef of gemm_auto"   # 104 of 128 rows in M
expect "700x8192x4096" "$(run 700 8192 4096)" "variant gemm_pp_ef of gemm_auto"   # 6 tile rows: not timed
# past 8 tile rows, at most 80 rows of the last in M, 4 rounds of 128 x 256 tiles or more
expect "1025x16384x4096" "$(run 1025 16384 4096)" "variant gemm_wide of gemm_auto" "launch gemm_wide grid 132"   # 4.4 rounds
expect "1500x128256x2048" "$(run 1500 128256 2048)" "variant gemm_pp of gemm_auto"   # 92 of 128 rows in M
expect "4000x14336x4096" "$(run 4000 14336 4096)" "variant gemm_wide of gemm_auto"   # 32 of 128 rows in M
expect "4224x14336x4096" "$(run 4224 14336 4096)" "variant gemm_pp of gemm_auto"   # M > 4096: not measured
# 256 < M < 512, the last 128-row tile row partial, K % 64 = 0: 64 x 256
# tiles (300 x 14336: 5 x 56 of them); not at whole tile rows (384), at M
# = 256 or 512, nor at K % 64 != 0; ahead of the 128 x 96 tiles' wave
# (300 x 4096: 5 x 16 tiles, where gemm_n96 took 3 x 43)
expect "300x14336x4096" "$(run 300 14336 4096)" "variant gemm_s256 of gemm_auto" "launch gemm_s256 grid 132 1 1 block 384"
expect "300x4096x4096" "$(run 300 4096 4096)" "variant gemm_s256 of gemm_auto" "launch gemm_s256 grid 80 1 1"
expect "257x14336x4096" "$(run 257 14336 4096)" "variant gemm_s256 of gemm_auto"
expect "511x14336x4096" "$(run 511 14336 4096)" "variant gemm_s256 of gemm_auto"
expect "384x14336x4096" "$(run 384 14336 4096)" "variant gemm_pp_ef of gemm_auto"
expect "512x14336x4096" "$(run 512 14336 4096)" "variant gemm_pp_ef of gemm_auto"
expect "300x14336x4104" "$(run 300 14336 4104)" "variant gemm_wide_mc of gemm_auto"
# 256 x 14336: 128 tiles of 128 x 224 (75 x 2 of 128 x 192 would not fit)
expect "256x14336" "$(run 256 14336 4096)" "variant gemm_n224 of gemm_auto" "launch gemm_n224 grid 128 1 1 block 384"
# 1200 x 3000: 10 x 16 tiles of 128 x 192 would not fit either, 10 x 12 of 128 x 256 do
expect "1200x3000" "$(run 1200 3000 1000)" "variant gemm_wide_mc of gemm_auto" "launch gemm_wide_mc grid 120 1 1 block 384"
# ... past K = 4096: up to it the pingpong lanes, filling both theirs
expect "1200x3000x8192" "$(run 1200 3000 8192)" "variant gemm_wide of gemm_auto" "launch gemm_wide grid 120 1 1 block 384"
expect "1200x3000x2048" "$(run 1200 3000 2048)" "variant gemm_pp of gemm_auto" "launch gemm_pp grid 132 1 1 block 384"
expect "2048^2x4096" "$(run 2048 2048 4096)" "variant gemm_pp of gemm_auto"
# 128 x 96 tiles: 128 of them fill a wave where 96 of 128 x 128 would not
expect "256x6144" "$(run 256 6144 4096)" "variant gemm_n96 of gemm_auto" "launch gemm_n96 grid 128 1 1 block 384"
# several waves whose last the 128 x 128 tiles would leave mostly empty:
# 128 x 192 tiles where their rounds x 3 are 5% under those tiles' x 2
# (3000 x 3000: 3 rounds of 384 against 5 of 576), not at 2000 x 3000 (2
# of 256 against 3 of 384: 630 against 600)
expect "3000x3000x3008" "$(run 3000 3000 3008)" "variant gemm_n192 of gemm_auto" "launch gemm_n192 grid 132 1 1"
expect "2000x3000x1024" "$(run 2000 3000 1024)" "variant gemm_pp of gemm_auto" "launch gemm_pp grid 132 1 1"
# several full rounds of 128 x 256 tiles (95% of the last round busy)
# where M N < 2^25 and K >= 4096: 4097 x 4096 (4 rounds of 132), 1024 x
# 16384 (3.9); not 2048 x 11008 (5.2 rounds), 8192 x 4096 (2^25), K 2048
expect "4097x4096x4096" "$(run 4097 4096 4096)" "variant gemm_wide of gemm_auto" "launch gemm_wide grid 132 1 1"
expect "1024x16384x4096" "$(run 1024 16384 4096)" "variant gemm_wide of gemm_auto" "launch gemm_wide grid 132 1 1"
expect "2048x11008x4096" "$(run 2048 11008 4096)" "variant gemm_pp of gemm_auto"
expect "8192x4096x14336" "$(run 8192 4096 14336)" "variant gemm_pp of gemm_auto"
expect "4096^2x2048" "$(run 4096 4096 2048)" "variant gemm_pp of gemm_auto"
# 8192^2: many waves either way: pingpong, persistent on 132 SMs
expect "8192" "$(run 8192 8192 8192)" "variant gemm_pp" "launch gemm_pp grid 132 1 1"
# the device's DRAM bandwidth: the mock's H200 (4916 GB/s) keeps the
# pingpong tiles at 8192 x 16384 x 8192 (M N = 2^27, M N K = 2^40); an
# H100's memory (3352 GB/s) takes the 128 x 256 tiles there and from
# M N K = 3 x 2^38 (8192 x 28672 x 4096: 7 x 2^37), not at 8192^3 nor at
# 8192 x 20480 x 4096 (5 x 2^37)
expect "big H200" "$(run 8192 16384 8192)" "variant gemm_pp of gemm_auto (SMS = 132, DRAM_GBPS = 4916)" \
	"launch gemm_pp grid 132 1 1"
H100=(MOCK_CUDA_MEM_KHZ=2619000 MOCK_CUDA_BUS_BITS=5120)
expect "big H100" "$(run 8192 16384 8192 "${H100[@]}")" "variant gemm_big of gemm_auto (SMS = 132, DRAM_GBPS = 3352)" \
	"launch gemm_big grid 132 1 1 block 384"
expect "8192 H100" "$(run 8192 8192 8192 "${H100[@]}")" "variant gemm_pp of gemm_auto (SMS = 132, DRAM_GBPS = 3352)"
expect "3 x 2^38 H100" "$(run 8192 16384 6144 "${H100[@]}")" "variant gemm_big of gemm_auto"
expect "3 x 2^38 - 2^33 H100" "$(run 8192 16384 6080 "${H100[@]}")" "variant gemm_pp of gemm_auto"
expect "8192x28672x4096 H100" "$(run 8192 28672 4096 "${H100[@]}")" "variant gemm_big of gemm_auto"
expect "8192x28672x4096 H200" "$(run 8192 28672 4096)" "variant gemm_pp of gemm_auto"
expect "8192x20480x4096 H100" "$(run 8192 20480 4096 "${H100[@]}")" "variant gemm_pp of gemm_auto"
# gemm_swiglu_auto: W on the tiles' 64-row side at M <= 16 where its
# `require N % 8 == 0` holds (2N / 64 = 448 tiles at N = 14336, persistent
# on 132 SMs); the 64 x 256 tiles at M = 17, and at N % 8 != 0, whose map
# of Y is refused
"$PLKC" examples/gemm_swiglu_auto.plk -arch sm_90a --emit=manifest -o "$W/gs.manifest.json" || exit 1
printf '\177ELF' >"$W/gs.cubin"
expect "swiglu M=16" "$(CUBIN=gs run 16 14336 4096)" "variant swiglu_skinny of gemm_swiglu_auto" \
	"launch swiglu_skinny grid 132 1 1 block 384"
expect "swiglu M=17" "$(CUBIN=gs run 17 14336 4096)" "variant swiglu_small of gemm_swiglu_auto" "launch swiglu_small"
expect "swiglu N=4100" "$(CUBIN=gs run 16 4100 4096)" "parameter y (tensor map of Y): row stride of dim 0 is 8200 bytes"
# swiglu_wide in two branches of the rule, one kernel entry: one wave of
# its tiles (1000 x 1504: 8 x 12 tiles), and large problems under 4 TB/s
# (16384 x 14336 x 4096: M 2N = 2^28.8, M 2N K = 1.75 x 2^40) where the
# mock's H200 keeps the pingpong tiles; 8192 x 14336 x 4096 (0.88 x 2^40)
# stays with them on the H100 too
expect "swiglu one wave" "$(CUBIN=gs run 1000 1504 1024)" "variant swiglu_wide of gemm_swiglu_auto" \
	"launch swiglu_wide grid 96 1 1"
expect "swiglu big H100" "$(CUBIN=gs run 16384 14336 4096 "${H100[@]}")" \
	"variant swiglu_wide of gemm_swiglu_auto (SMS = 132, DRAM_GBPS = 3352)" "launch swiglu_wide grid 132 1 1"
expect "swiglu big H200" "$(CUBIN=gs run 16384 14336 4096)" "variant swiglu_pp of gemm_swiglu_auto" \
	"launch swiglu_pp grid 132 1 1"
expect "swiglu under 2^40 H100" "$(CUBIN=gs run 8192 14336 4096 "${H100[@]}")" "variant swiglu_pp of gemm_swiglu_auto"
# a last tile row with at most 96 of its 128 rows in M, M > 256: the wide tiles
expect "swiglu 900 rows" "$(CUBIN=gs run 900 14336 4096)" "variant swiglu_wide of gemm_swiglu_auto"   # 4 in M
expect "swiglu 1500 rows" "$(CUBIN=gs run 1500 8192 4096)" "variant swiglu_wide of gemm_swiglu_auto"   # 92 in M
expect "swiglu 1000 rows" "$(CUBIN=gs run 1000 14336 4096)" "variant swiglu_pp of gemm_swiglu_auto"   # 104 in M
expect "swiglu 200 rows" "$(CUBIN=gs run 200 14336 4096)" "variant swiglu_pp of gemm_swiglu_auto"   # M <= 256
expect "swiglu variants" "$(CUBIN=gs run 16 14336 4096 PLK_VARIANT=nope)" \
	"its variants: swiglu_skinny, swiglu_small, swiglu_wide_mc, swiglu_wide, swiglu_pp"
# forced there, swiglu_skinny is refused by its own `require N % 8 == 0`,
# and nothing is launched
expect "swiglu forced N=4100" "$(CUBIN=gs run 16 4100 4096 PLK_VARIANT=swiglu_skinny)" \
	"kernel swiglu_skinny requires (N % 8) == 0, and here (N % 8) = 4"
! grep -q '^launch' "$W/log" 2>/dev/null || fail "swiglu forced N=4100: a kernel was launched: $(cat "$W/log")"
# forced
expect "PLK_VARIANT" "$(run 128 4096 4096 PLK_VARIANT=gemm_wide)" "variant gemm_wide" "launch gemm_wide grid 16 1 1"
expect "unknown PLK_VARIANT" "$(run 128 4096 4096 PLK_VARIANT=gemm_nope)" \
	'gemm_auto has no variant "gemm_nope" (PLK_VARIANT or plk_force_variant); its variants: gemm_skinny, gemm_odd, gemm_small_sk, gemm_s64, gemm_small, gemm_s256, gemm_n96, gemm_n200_q4, gemm_n192_mc, gemm_wide_mc, gemm_n192, gemm_n224, gemm_wide, gemm_big, gemm_pp_ef, gemm_pp'
# growing the workspace inside a stream capture is refused by name (cuMemAlloc
# cannot be captured), and nothing is launched
cap=$(MOCK_CUDA_CAPTURING=1 MOCK_CUDA_LOG="$W/caplog" "$out/rt/plk-run" "$W/ga.cubin" --dim M=33 --dim N=4096 \
	--dim K=4096 --iters 1 --warmup 0 2>&1)
expect "capture" "$cap" "CUDA_ERROR_STREAM_CAPTURE_UNSUPPORTED" "launch once at this shape before the capture"
! grep -q '^launch' "$W/caplog" 2>/dev/null || fail "capture: a kernel was launched: $(cat "$W/caplog")"
# the pipelink package (tests/runtime/fake_torch): variants, the pick, forcing
make -s -C runtime B="$out/rt" CUDA_HOME="$CUDA_HOME" "${san[@]}" "$out/rt/libplkrt.so" || exit 1
if command -v python3 >/dev/null && [ -z "$PLK_SANITIZED" ]; then
	o=$(PLKRT_LIB="$out/rt/libplkrt.so" MOCK_CUDA_LOG="$W/pylog" python3 - "$W" 2>&1 <<'PY'
import os, sys
sys.path[:0] = ["tests/runtime/fake_torch", "python"]
import pipelink, torch
W = sys.argv[1]
k = pipelink.load(os.path.join(W, "ga.cubin"))
assert k.variants == ("gemm_skinny", "gemm_odd", "gemm_small_sk", "gemm_s64", "gemm_small", "gemm_s256", "gemm_n96",
                      "gemm_n200_q4",
                      "gemm_n192_mc", "gemm_wide_mc", "gemm_n192", "gemm_n224", "gemm_wide", "gemm_big", "gemm_pp_ef", "gemm_pp"), k.variants
assert k.dram_gbps == 4916, k.dram_gbps
bf = torch.bfloat16
def call(M, N, K, k=k):
    k(A=torch.empty((M, K), dtype=bf, device="cuda"), B=torch.empty((N, K), dtype=bf, device="cuda"),
      C=torch.empty((M, N), dtype=bf, device="cuda"))
    return k.variant()
assert call(1000, 3000, 1000) == "gemm_n200_q4"
assert call(1024, 14336, 4000) == "gemm_n192_mc"
assert call(1200, 3000, 1000) == "gemm_wide_mc"
assert call(1200, 3000, 2048) == "gemm_pp"
assert call(128, 4096, 4096) == "gemm_small"
# the split kernel: its workspace zeroed when new, then only its
# counters for another shape (the pylog's memsets, checked below)
for shape in ((33, 4096, 14336), (33, 4096, 14336), (33, 4096, 4096), (33, 4096, 4096)):
    assert call(*shape) == "gemm_small_sk"
assert call(16, 4096, 4096) == "gemm_skinny"
assert call(4096, 4095, 4096) == "gemm_odd"
assert call(4096, 4096, 4096) == "gemm_wide"
assert call(2048, 2048, 2048) == "gemm_pp"
assert call(1000, 14336, 4096) == "gemm_pp_ef"
assert call(300, 14336, 4096) == "gemm_s256"
k.force_variant("gemm_wide")
assert call(128, 4096, 4096) == "gemm_wide"
k.force_variant(None)
assert call(128, 4096, 4096) == "gemm_small"
try:
    k.force_variant("gemm_nope")
    raise SystemExit("an unknown variant was accepted")
except pipelink.PlkError as e:
    assert 'no variant "gemm_nope"' in str(e), str(e)
os.environ["PLK_VARIANT"] = "gemm_wide"   # read at load
k2 = pipelink.load(os.path.join(W, "ga.cubin"))
assert call(128, 4096, 4096, k2) == "gemm_wide"
print("python ok")
PY
) || fail "python: $o"
	expect "python" "$o" "python ok"
	grep -q "launch gemm_wide" "$W/pylog" && grep -q "launch gemm_pp " "$W/pylog" && grep -q "launch gemm_pp_ef " "$W/pylog" && grep -q "launch gemm_small_sk" "$W/pylog" &&
		grep -q "launch gemm_skinny" "$W/pylog" && grep -q "launch gemm_odd" "$W/pylog" &&
		grep -q "launch gemm_n192_mc grid 120 1 1 block 384 1 1 cluster 2 1 1 " "$W/pylog" &&
		grep -q "launch gemm_n200_q4 grid 120 1 1 block 384 1 1 cluster 4 1 1 " "$W/pylog" &&
		grep -q "launch gemm_wide_mc grid 120 1 1 block 384 1 1 cluster 2 1 1 " "$W/pylog" &&
		[ "$(grep '^memset' "$W/pylog" | tr '\n' ' ')" = "memset 3145984 bytes memset 256 bytes " ] ||
		fail "python: launches and memsets: $(cat "$W/pylog")"
fi
[ "$fails" -eq 0 ]
