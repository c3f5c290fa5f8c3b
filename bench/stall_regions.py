#!/usr/bin/env python3
"""Where an attention kernel's warp-stall samples fall, by region.

    python3 bench/stall_regions.py CUBIN MANIFEST STALLS_CSV [...]

(CUBIN, MANIFEST, CSV) triples: the linked kernel, its manifest and the
SASS page of its Nsight Compute report (bench/attn_stalls.sh writes it).
Build host; needs nvdisasm (bench/sass_loops.py finds it).

Per kernel: the samples inside the KV loop (the innermost loop with the
softmax, as sass_loops.py finds it), before it and after it; the samples
of the try-wait spins on each mbarrier, named by the manifest's rings
(`lkv.k -> core.k full`: the consumer waits for data; `empty`: the
producer waits for a slot); and the samples on the named barriers. The
question: how much of the consumers' time is a work item's start and end
(before and after the KV loop) and not its KV blocks.
"""
import csv
import os
import re
import sys
from collections import Counter

sys.path.insert(0, os.path.dirname(__file__))
import sass_loops  # noqa: E402
import json  # noqa: E402


def barrier_names(manifest):
    """Shared-memory offset of each ring's mbarrier -> its name."""
    names = {}
    for r in manifest["placement"].get("rings", []):
        for kind in ("full", "empty"):
            for s in range(r["stages"]):
                names[r[kind + "_bar"] + 8 * s] = "%s -> %s %s" % (r["from"], r["to"], kind)
    return names


def stalls(path):
    rows = [r for r in csv.reader(open(path)) if r]
    head = next(i for i, r in enumerate(rows) if "Address" in r)
    cols, body = rows[head], rows[head + 1:]
    a, s = cols.index("Address"), cols.index("Source")
    n = cols.index("Warp Stall Sampling (All Samples)")
    return [(int(r[a], 16), r[s].strip(), int(float(r[n] or 0))) for r in body]


def report(cubin, manifest, csvpath, disasm):
    ins, labels = sass_loops.parse(cubin, disasm)
    lo, hi = sass_loops.kv_loop(ins, labels)
    lo, hi = ins[lo][0], ins[hi][0]
    rows = stalls(csvpath)
    base = rows[0][0]
    bars = barrier_names(json.load(open(manifest)))
    region, waits, named = Counter(), Counter(), Counter()
    total = sum(n for _, _, n in rows)
    for i, (addr, text, n) in enumerate(rows):
        off = addr - base
        # a try-wait spin: the TRYWAIT and the branch (and YIELD) within
        # three instructions after it carry the wait's samples
        bar = None
        for _, t, _ in rows[max(0, i - 3):i + 1]:
            m = re.search(r"TRYWAIT P\d+, \[[^\]]*?\+(0x[0-9a-f]+)\]", t)
            if m:
                bar = int(m.group(1), 16)
        if bar is not None and re.search(r"TRYWAIT|BRA|YIELD", text):
            # past the rings' barriers: the glue's own (the dynamic
            # scheduler's ring of work items)
            name = bars.get(bar, "mbarrier 0x%x%s" % (bar, " (the work-item ring)" if bars and bar > max(bars) else ""))
            waits[name] += n
            if name.endswith("empty"):
                region["producer waits"] += n
                continue
        if "BAR.SYNC" in text or (i and "BAR.SYNC" in rows[i - 1][1]):
            named["named barrier (BAR.SYNC and the instruction after)"] += n
        if "WARPGROUP.DEPBAR" in text:
            named["wgmma wait (WARPGROUP.DEPBAR)"] += n
        region["KV loop" if lo <= off <= hi else "before the loop" if off < lo else "after the loop"] += n
    print("### %s\n" % os.path.basename(cubin))
    print("KV loop at 0x%x-0x%x; %d samples\n" % (lo, hi, total))
    print("| where | samples | share |\n|---|---|---|")
    for k in ("KV loop", "before the loop", "after the loop", "producer waits"):
        print("| %s | %d | %.1f%% |" % (k, region[k], 100.0 * region[k] / total))
    consumer = region["KV loop"] + region["before the loop"] + region["after the loop"]
    if consumer:
        print("\nOutside the KV loop (consumers and the producers' work, not their empty-slot "
              "waits): %.1f%% of those samples\n" % (100.0 * (consumer - region["KV loop"]) / consumer))
    print("| wait | samples | share |\n|---|---|---|")
    for k, v in (waits + named).most_common():
        print("| %s | %d | %.1f%% |" % (k, v, 100.0 * v / total))
    print()


def main():
    args = sys.argv[1:]
    if not args or len(args) % 3:
        sys.exit(__doc__)
    disasm = [sass_loops.find_nvdisasm(None), "-c"]
    for i in range(0, len(args), 3):
        report(args[i], args[i + 1], args[i + 2], disasm)


if __name__ == "__main__":
    main()
