#!/usr/bin/env python3
"""Nsight Compute's SASS page (CSV) of a warp-state-sampled kernel as a
short Markdown table: the stall reasons' shares of all samples and the
40 instructions with the most samples (address, instruction, samples,
top reason). bench/attn_stalls.sh and bench/gemm_stalls.sh call it on
the GPU host.

    python3 bench/stall_summary.py SASS_CSV TITLE
"""
import csv
import re
import sys


def main():
    if len(sys.argv) != 3:
        sys.exit(__doc__)
    rows = [r for r in csv.reader(open(sys.argv[1])) if r]
    head = next(i for i, r in enumerate(rows) if any("Source" == c or "Address" == c for c in r))
    cols, body = rows[head], rows[head + 1:]

    def col(pat):
        return next((i for i, c in enumerate(cols) if re.search(pat, c, re.I)), None)

    src, addr = col(r"^Source$"), col(r"^Address$")
    total = col(r"Warp Stall Sampling \(All")
    reasons = [i for i, c in enumerate(cols) if re.match(r"stall_|Stall ", c) and i != total]

    def num(r, i):
        return float(r[i].replace(",", "") or 0) if i is not None and i < len(r) else 0.0

    all_s = sum(num(r, total) for r in body) or 1.0
    print("## %s\n\n%d SASS lines, %.0f samples\n" % (sys.argv[2], len(body), all_s))
    by = sorted(((sum(num(r, i) for r in body), cols[i]) for i in reasons), reverse=True)
    print("| stall reason | share |\n|---|---|")
    for s, c in by[:12]:
        print("| %s | %.1f%% |" % (c, 100 * s / all_s))
    print("\n| address | instruction | samples | share | top reason |\n|---|---|---|---|---|")
    for r in sorted(body, key=lambda r: -num(r, total))[:40]:
        top = max(reasons, key=lambda i: num(r, i)) if reasons else None
        print("| %s | `%s` | %.0f | %.1f%% | %s |" % (
            r[addr] if addr is not None else "?", r[src][:70] if src is not None else "?",
            num(r, total), 100 * num(r, total) / all_s, cols[top] if top is not None else "-"))
    print()


if __name__ == "__main__":
    main()
