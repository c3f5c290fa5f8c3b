#!/bin/bash
# The stream-K partition of split(auto) (compiler/glue_split.c,
# glue_stream_body; compiler/abi.c, abi_streamk_source), modelled in
# Python over many (tiles, K tiles per tile, blocks): the full rounds'
# tiles whole, the rest streamed; every K tile is walked once; each tile
# is finished by exactly one block, which holds its end; the blocks it
# sums from (j0 .. c - 1, j0 from the glue's formula) are exactly those
# that store a partial of it; a block stores at most one partial, and
# stores it before it waits for anything (segments walked last first), so
# no block waits on a block that is itself waiting; every block walks
# the same number of K tiles, give or take one.
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
python3 - <<'PY'
import sys
bad = 0
for tiles in range(1, 40):
    for per in range(1, 24):
        for G in range(1, min(tiles * per, 140) + 1, 1 if tiles * per < 200 else 7):
            R = tiles // G
            rest = tiles - R * G                        # tiles streamed: [0, rest)
            total = rest * per
            walked = [0] * (tiles * per)
            finisher, partials, waits, work = {}, {}, {}, []
            for c in range(G):
                start, end = c * total // G, (c + 1) * total // G
                top = (end - 1) // per
                nsk = top - start // per + 1 if start < end else 0
                order, n = [], 0
                for q in range(nsk + R):                # the glue's segment q
                    sk = q < nsk
                    tile = top - q if sk else rest + c + (q - nsk) * G
                    tstart, tend = tile * per, tile * per + per
                    segb = start if sk and start > tstart else tstart
                    sege = end if sk and end < tend else tend
                    first, last = segb == tstart, sege == tend
                    for k in range(segb, sege):
                        walked[k] += 1
                    n += sege - segb
                    if not last:
                        partials.setdefault(tile, []).append(c)
                        order.append("store")
                    else:
                        assert tile not in finisher, (tiles, per, G, tile)
                        finisher[tile] = c
                        if not first:
                            j0 = ((tile * per + 1) * G + total - 1) // total - 1
                            waits[tile] = [j for j in range(j0, c)  # the blocks that walk some
                                           if j * total // G < (j + 1) * total // G]
                            order.append("wait")
                if order.count("store") > 1 or ("store" in order and order.index("store") != 0):
                    bad += 1
                    print("block", c, "stores", order, "for", tiles, per, G)
                work.append(n)
            if max(work) - min(work) > 1:
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
