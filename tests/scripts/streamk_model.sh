#!/bin/bash
# The stream-K partition of split(auto), checked on the schedule plkc
# writes: plk_glue_stream_seg (compiler/abi.c, abi_stream_seg_source) is
# taken from `--emit=monolith`, built for the host (its two reads of the
# block's index and count replaced by arguments) and called over many
# (tiles, K tiles per tile, blocks), with each role's loops modelled as
# the glue builds them (glue_split.c, glue_stream_body: segments q <
# s[COUNT] first; glue.c, glue_role_body: then tiles c + k G while a full
# round is left)
# and the reduction's formulas as abi_streamk_source writes them. Checked:
# every K tile is walked once; each tile is finished by exactly one
# block, which holds its end; the blocks it sums from (j0 .. c - 1, j0
# from the reduction's formula, blocks with empty ranges skipped) are
# exactly those that store a partial of it; a block stores at most one
# partial, and stores it before it waits for anything (segments walked
# last first), so no block waits on a block that is itself waiting; the
# blocks that stream walk the same number of K tiles, give or take one,
# at most ABI_STREAM_WAYS of them a leftover tile on average.
# Exit 0 pass, 1 fail, 77 skip.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
CC=${CC:-cc}
command -v "$CC" >/dev/null || { echo "skip: no C compiler"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
"$PLKC" --emit=monolith -arch sm_90a tests/check/split_auto_grid.plk -o "$tmp/m.cu" || exit 1
python3 - "$tmp" "$CC" <<'PY'
import ctypes, re, subprocess, sys
tmp, cc = sys.argv[1], sys.argv[2]
text = open(tmp + "/m.cu").read()
m = re.search(r"void plk_glue_stream_seg\(int q, int ntiles, int per, int \*s\)\n\{\n(.*?)\n\}\n", text, re.S)
if not m:
    print("no plk_glue_stream_seg in the monolith"); sys.exit(1)
body = m.group(1)
body, n1 = re.subn(r'asm volatile\("mov\.u32 %0, %%ctaid\.x;" : "=r"\(c\)\);', "c = blk;", body)
body, n2 = re.subn(r'asm volatile\("mov\.u32 %0, %%nctaid\.x;" : "=r"\(G\)\);', "G = grid;", body)
if n1 != 1 or n2 != 1:
    print("the helper's reads of ctaid/nctaid have changed: update this test"); sys.exit(1)
hdr = open("compiler/stages.h").read()
names = re.search(r"enum \{ (ABI_SEG_COUNT,.*?) \};", hdr, re.S).group(1).replace("\n", " ").split(",")
idx = {n.strip(): i for i, n in enumerate(names)}
ways = int(re.search(r"#define ABI_STREAM_WAYS (\d+)", hdr).group(1))
open(tmp + "/seg.c", "w").write("#include <stdbool.h>\nvoid seg(int blk, int grid, int q, int ntiles, int per, int *s)\n{\n"
                                 + body + "\n}\n")
subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", tmp + "/seg.so", tmp + "/seg.c"], check=True)
lib = ctypes.CDLL(tmp + "/seg.so")
S = (ctypes.c_int * idx["ABI_SEG_N"])()
bad = 0
for tiles in range(1, 40):
    for per in range(1, 24):
        for G in range(1, min(tiles * per, 140) + 1, 1 if tiles * per < 200 else 7):
            walked = [0] * (tiles * per)
            finisher, partials, waits, work, nstream = {}, {}, {}, [], None
            for c in range(G):
                n = 0
                order, q = [], 0
                while True:                              # the streamed segments' loop
                    lib.seg(c, G, q, tiles, per, S)
                    if q >= S[idx["ABI_SEG_COUNT"]]:
                        break
                    tile, st = S[idx["ABI_SEG_TILE"]], S[idx["ABI_SEG_STREAMED"]]
                    kf, kc = S[idx["ABI_SEG_KFIRST"]], S[idx["ABI_SEG_KCOUNT"]]
                    first, last = S[idx["ABI_SEG_FIRST"]], S[idx["ABI_SEG_LAST"]]
                    Gs, total = S[idx["ABI_SEG_BLOCKS"]], S[idx["ABI_SEG_TOTAL"]]
                    nstream = Gs
                    if not (0 <= tile < tiles and kc > 0 and 0 <= kf and kf + kc <= per):
                        bad += 1
                        print("segment out of range", tiles, per, G, c, q, tile, kf, kc)
                        break
                    for k in range(tile * per + kf, tile * per + kf + kc):
                        walked[k] += 1
                    n += kc
                    if first != (kf == 0) or last != (kf + kc == per):
                        bad += 1
                    if not last:
                        partials.setdefault(tile, []).append(c)
                        order.append("store")
                    else:
                        if tile in finisher:
                            bad += 1
                            print("tile", tile, "finished twice", tiles, per, G)
                        finisher[tile] = c
                        if not first:                    # abi_streamk_source's j0 and its skip
                            j0 = ((st * per + 1) * Gs + total - 1) // total - 1
                            waits[tile] = [j for j in range(j0, c) if j * total // Gs < (j + 1) * total // Gs]
                            order.append("wait")
                    q += 1
                t = c
                while t - c + G <= tiles:                # the whole tiles' loop
                    for k in range(t * per, t * per + per):
                        walked[k] += 1
                    if t in finisher:
                        bad += 1
                    finisher[t] = c
                    n += per
                    t += G
                if order.count("store") > 1 or ("store" in order and order.index("store") != 0):
                    bad += 1
                    print("block", c, "stores", order, "for", tiles, per, G)
                work.append(n)
            rest = tiles % G
            if nstream is not None:
                if nstream > min(G, ways * rest):
                    bad += 1
                    print("streams on", nstream, "blocks", tiles, per, G)
                sw = work[:nstream]
                if max(sw) - min(sw) > 1:
                    bad += 1
                    print("uneven", work, tiles, per, G)
            if walked != [1] * (tiles * per) or sorted(finisher) != list(range(tiles)):
                bad += 1
                print("coverage", tiles, per, G)
            for t, js in waits.items():
                if sorted(partials.get(t, [])) != js:
                    bad += 1
                    print("tile", t, "waits for", js, "partials from", partials.get(t), tiles, per, G)
            for t in partials:
                if t not in waits:
                    bad += 1
                    print("tile", t, "has partials but no sum", tiles, per, G)
print("stream-K model:", "ok" if not bad else "%d failures" % bad)
sys.exit(1 if bad else 0)
PY
