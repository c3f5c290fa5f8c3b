#!/usr/bin/env python3
"""A megakernel's timeline as an SVG picture (docs/megakernel.md, "Timeline").

A megakernel linked with `plkc --timeline` writes its tensor `timeline`
[blocks, ops, 4] (i64): for each block and each op it ran, when it began
to wait, when it started, when it ended (ns, %globaltimer) and its SM.
draw() makes one row per SM, one colour per op kernel, the waits grey;
op_times() the time each op adds to the step: from the last end of any
op before it to its own last end, the median over the ops of one name
(`qkv[3]` and `qkv[4]` are both `qkv`), optionally only over those whose
index lies in [first, last] (a decode step's middle layers).

    python3 bench/timeline_svg.py --selftest OUT.svg    (made-up data: the picture's format)
    python3 bench/timeline_svg.py --ops T.json [FIRST LAST]
        (T.json: tests/gpu/llama_decode.py --timeline-json; a table of op_times)
"""
import json
import re
import statistics
import sys
from xml.sax.saxutils import escape

PALETTE = ["#4e79a7", "#f28e2b", "#59a14f", "#e15759", "#76b7b2", "#edc948", "#b07aa1", "#ff9da7",
           "#9c755f", "#bab0ac"]


def draw(rows, ops, path, title=""):
    """rows: [blocks][ops][4] ints (wait, start, end, sm; all 0: not run);
    ops: the manifest's megakernel ops (name, kernel) in schedule order."""
    spans = [(b, j) + tuple(r[:4]) for b, blk in enumerate(rows) for j, r in enumerate(blk) if r[2] > 0]
    if not spans:
        raise ValueError("the timeline is empty: was the megakernel linked with --timeline?")
    t0 = min(s[2] for s in spans)
    t1 = max(s[4] for s in spans)
    sms = sorted({s[5] for s in spans})
    row_of = {sm: i for i, sm in enumerate(sms)}
    kernels = []
    for o in ops:
        if o["kernel"] not in kernels:
            kernels.append(o["kernel"])
    colour = {k: PALETTE[i % len(PALETTE)] for i, k in enumerate(kernels)}
    width, left, top, rh = 1200.0, 60.0, 40.0, 4.0
    scale = (width - left - 10) / max(1, t1 - t0)
    height = top + rh * len(sms) + 40 + 14 * ((len(kernels) + 5) // 6)
    out = [f'<svg xmlns="http://www.w3.org/2000/svg" width="{width:.0f}" height="{height:.0f}" '
           f'font-family="sans-serif" font-size="11">',
           f'<text x="{left}" y="16">{escape(title)} ({(t1 - t0) / 1e3:.1f} us, {len(sms)} SMs; grey: waiting)</text>',
           f'<text x="4" y="{top + 8}">SM</text>']
    for b, j, w, s, e, sm in spans:
        y = top + rh * row_of[sm]
        if s > w:
            out.append(f'<rect x="{left + (w - t0) * scale:.2f}" y="{y:.1f}" width="{(s - w) * scale:.2f}" '
                       f'height="{rh - 0.5}" fill="#d0d0d0"/>')
        out.append(f'<rect x="{left + (s - t0) * scale:.2f}" y="{y:.1f}" width="{max(0.2, (e - s) * scale):.2f}" '
                   f'height="{rh - 0.5}" fill="{colour[ops[j]["kernel"]]}"><title>{escape(ops[j]["name"])} on block {b}, '
                   f'{(e - s) / 1e3:.2f} us</title></rect>')
    ty = top + rh * len(sms) + 16
    for i in range(0, 11):   # a tick each tenth
        x = left + (t1 - t0) * scale * i / 10
        out.append(f'<text x="{x:.1f}" y="{ty}" text-anchor="middle">{(t1 - t0) * i / 10 / 1e3:.{1 if t1 - t0 < 1e5 else 0}f}</text>')
    out.append(f'<text x="{left + (width - left) / 2:.0f}" y="{ty + 12}" text-anchor="middle">us</text>')
    for i, k in enumerate(kernels):
        x, y = left + 180 * (i % 6), ty + 28 + 14 * (i // 6)
        out.append(f'<rect x="{x}" y="{y - 9}" width="10" height="10" fill="{colour[k]}"/>'
                   f'<text x="{x + 14}" y="{y}">{escape(k)}</text>')
    out.append("</svg>")
    with open(path, "w") as f:
        f.write("\n".join(out) + "\n")
    return t1 - t0


def op_times(rows, names, first=None, last=None):
    """{op name without its [index]: median us it adds}, in schedule order."""
    ends = [max((blk[j][2] for blk in rows if len(blk) > j and blk[j][2] > 0), default=0) for j in range(len(names))]
    out = {}
    for j, name in enumerate(names):
        m = re.fullmatch(r"(.*)\[(\d+)\]", name)
        base, idx = (m.group(1), int(m.group(2))) if m else (name, None)
        if j == 0 or not ends[j] or (idx is not None and ((first is not None and idx < first) or
                                                          (last is not None and idx > last))):
            continue
        out.setdefault(base, []).append((ends[j] - max(ends[:j])) / 1e3)
    return {k: statistics.median(v) for k, v in out.items()}


def selftest(path):
    ops = [{"name": f"op{j}", "kernel": ["load", "mix", "store"][j % 3]} for j in range(6)]
    rows = [[[0, 0, 0, 0] for _ in ops] for _ in range(8)]
    for b in range(8):
        t = 1000 * b
        for j in range(6):
            if (b + j) % 4 == 3:
                continue   # no piece of op j on block b
            rows[b][j] = [t, t + 300, t + 1300, b]
            t += 1500
    span = draw(rows, ops, path, "selftest")
    import xml.etree.ElementTree as ET
    root = ET.parse(path).getroot()
    rects = [r for r in root if r.tag.endswith("rect")]
    # 36 runs (each block skips the ops j with (b + j) % 4 == 3), a wait and a run each, 3 legend
    # swatches; from block 0's first wait (0) to block 7's last end (7000 + 3 x 1500 + 1300)
    assert span == 12800, span
    assert len(rects) == 36 * 2 + 3, len(rects)
    assert sum(1 for r in rects if r.get("fill") == "#d0d0d0") == 36
    print(f"timeline_svg: selftest wrote {path}: {len(rects)} rectangles, {span / 1e3:.1f} us")
    # two "layers" of two ops on two blocks: a[0] ends at 2000, b[0] at 5000,
    # a[1] at 6000 (adds 1000), b[1] at 10000 (adds 4000)
    names = ["a[0]", "b[0]", "a[1]", "b[1]"]
    two = [[[0, 0, 2000, 0], [0, 2000, 4000, 0], [0, 5000, 6000, 0], [0, 6000, 9000, 0]],
           [[0, 0, 1500, 1], [0, 2000, 5000, 1], [0, 0, 0, 0], [0, 6000, 10000, 1]]]
    t = op_times(two, names)
    assert t == {"b": 3.5, "a": 1.0}, t   # b: (3000 + 4000) / 2; a[0], the first op, adds nothing
    assert op_times(two, names, 1, 1) == {"a": 1.0, "b": 4.0}
    print("timeline_svg: selftest op_times ok")


def print_ops(path, first=None, last=None):
    d = json.load(open(path))
    t = op_times(d["rows"], d["ops"], first, last)
    print("| " + " | ".join(t) + " |")
    print("|" + "---|" * len(t))
    print("| " + " | ".join("%.2f" % v for v in t.values()) + " |")


if __name__ == "__main__":
    if len(sys.argv) == 3 and sys.argv[1] == "--selftest":
        selftest(sys.argv[2])
    elif len(sys.argv) in (3, 5) and sys.argv[1] == "--ops":
        print_ops(sys.argv[2], *(int(x) for x in sys.argv[3:]))
    else:
        sys.exit(__doc__)
