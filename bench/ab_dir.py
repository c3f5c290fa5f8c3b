#!/usr/bin/env python3
"""An A/B directory for bench/attn_bench.py from a prepared one.

    python3 bench/ab_dir.py SRC DST SUFFIX

SRC/configs.json (bench/prepare.py) holds configurations X and X + SUFFIX
(e.g. attn_sliding_d64 and attn_sliding_d64_ahead). DST/configs.json
gets one entry per pair, named X, whose linked kernel is X + SUFFIX's and
whose "monolith" is X's linked kernel: attn_bench.py's linked/mono column
is then the time of X over the time of X + SUFFIX (above 1: the variant
is faster), both checked against the fp32 reference as any row. Paths
point into SRC; nothing is copied.
"""
import json
import os
import sys


def main():
    if len(sys.argv) != 4:
        sys.exit(__doc__)
    src, dst, suffix = sys.argv[1:]
    cfgs = json.load(open(os.path.join(src, "configs.json")))
    by_name = {c["name"]: c for c in cfgs}
    rel = os.path.relpath(src, dst)
    out = []
    for c in cfgs:
        v = by_name.get(c["name"] + suffix)
        if c["name"].endswith(suffix) or not v:
            continue
        out.append(dict(c, cubin=os.path.join(rel, v["cubin"]), mono=os.path.join(rel, c["cubin"]),
                        manifest=os.path.join(rel, v["manifest"])))
    if not out:
        sys.exit("ab_dir: no pair X, X%s in %s" % (suffix, src))
    os.makedirs(dst, exist_ok=True)
    json.dump(out, open(os.path.join(dst, "configs.json"), "w"), indent=1)
    print("%d pairs: %s" % (len(out), ", ".join(c["name"] for c in out)))


if __name__ == "__main__":
    main()
