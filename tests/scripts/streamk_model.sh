#!/bin/bash
# The stream-K partition of split(auto) (compiler/glue.c, stream_body;
# compiler/abi.c, abi_streamk_source), modelled in Python over many
# (tiles, K tiles per tile, blocks): every K tile is walked once; each
# tile is finished by exactly one block, which holds its end; the blocks
# it sums from (j0 .. c - 1, j0 from the glue's formula) are exactly those
# that store a partial of it; a block stores at most one partial, and
# stores it before it waits for anything (segments walked last first), so
# no block waits on a block that is itself waiting.
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
python3 - <<'PY'
import sys
bad = 0
for tiles in range(1, 40):
    for per in range(1, 24):
        total = tiles * per
        for G in range(1, min(total, 140) + 1, 1 if total < 200 else 7):
            walked = [0] * total
            finisher, partials, waits = {}, {}, {}
            for c in range(G):
                start, end = c * total // G, (c + 1) * total // G
                it, order = end, []
                while it > start:                       # last segment first
                    tile = (it - 1) // per
                    tstart = tile * per
                    segb = max(start, tstart)
                    first, last = segb == tstart, it == tstart + per
                    for k in range(segb, it):
                        walked[k] += 1
                    if not last:
                        partials.setdefault(tile, []).append(c)
                        order.append("store")
                    else:
                        assert tile not in finisher, (tiles, per, G, tile)
                        finisher[tile] = c
                        if not first:
                            j0 = ((tile * per + 1) * G + total - 1) // total - 1
                            waits[tile] = list(range(j0, c))
                            order.append("wait")
                    it = segb
                if order.count("store") > 1 or ("store" in order and order.index("store") != 0):
                    bad += 1
                    print("block", c, "stores", order, "for", tiles, per, G)
            if walked != [1] * total or sorted(finisher) != list(range(tiles)):
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
