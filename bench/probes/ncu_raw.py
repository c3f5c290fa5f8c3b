"""Turns `ncu --csv --page raw` output (stdin) into one `metric value`
line per metric, keeping those whose names contain any argument:
ncu ... --csv --page raw CMD | python3 bench/probes/ncu_raw.py pipe issue"""
import csv
import sys

rows = [r for r in csv.reader(sys.stdin) if len(r) > 3]
# the profiled program's own output may come first: the table starts at
# its header row, then a row of units
top = next((i for i, r in enumerate(rows) if "ID" in r and "Kernel Name" in r), None)
if top is None or len(rows) < top + 3:
    sys.exit("ncu_raw: no metrics in the input")
head, units = rows[top], rows[top + 1]
for vals in rows[top + 2:]:
    name = vals[head.index("Kernel Name")] if "Kernel Name" in head else "?"
    print("## " + name[:100])
    for h, u, v in zip(head, units, vals):
        if not sys.argv[1:] or any(k in h for k in sys.argv[1:]):
            print("%-80s %s %s" % (h, v, u))
