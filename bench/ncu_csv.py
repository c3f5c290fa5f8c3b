"""Nsight Compute's `--csv --page raw` output, read once for every GPU
script that tables it (bench/ncu_gemm.sh, ncu_l2.sh, profile.sh,
attn_profile.sh): one dict per profiled launch, metric name -> value.

The header row names the columns ("ID", "Kernel Name", the metrics);
the row under it gives each column's unit, and a value is returned in
its base unit (nanoseconds, bytes, counts: "usecond" and "Kbyte" are
scaled), so a table's arithmetic holds whatever unit ncu chose to
print. Numbers that ncu could not measure ("", "n/a") are NaN; text
columns (the kernel's name) are read with text().

    from ncu_csv import launches
    for v in launches(path):
        print(v.text("Kernel Name"), v["gpu__time_duration.sum"] / 1e3, "us")   # NaN if absent
"""
import csv

_TIME = {"nsecond": 1.0, "usecond": 1e3, "msecond": 1e6, "second": 1e9}
_PREFIX = {"K": 1e3, "M": 1e6, "G": 1e9, "T": 1e12}


def scale(unit):
    """The factor from `unit` to its base unit: 1e3 for "usecond" and
    "Kbyte", 1 for a base unit, a percentage or none."""
    u = unit.strip()
    if u in _TIME:
        return _TIME[u]
    if len(u) > 1 and u[0] in _PREFIX and u[1:2].islower():
        return _PREFIX[u[0]]
    return 1.0


class Launch(dict):
    """One profiled launch: launch[metric] is a float in base units (NaN
    where the metric is absent or unmeasured); text(column) the raw text."""

    def __init__(self, raw, units):
        super().__init__()
        self.raw = raw
        for k, s in raw.items():
            try:
                self[k] = float(s.replace(",", "")) * scale(units.get(k, ""))
            except ValueError:
                self[k] = float("nan")

    def __missing__(self, key):
        return float("nan")

    def text(self, column, default="?"):
        return self.raw.get(column, default)


def launches(path):
    """Every launch of a raw-page CSV, in order; [] where ncu wrote no
    table (its error is then in the log beside the CSV)."""
    rows = [r for r in csv.reader(open(path)) if r]
    head = next((i for i, r in enumerate(rows) if "ID" in r and "Kernel Name" in r), None)
    if head is None:
        return []
    names = rows[head]
    units = {}
    out = []
    for vals in rows[head + 1:]:
        raw = dict(zip(names, vals))
        if not raw.get("ID", "").strip().isdigit():
            units = {k: v for k, v in raw.items() if k != "ID"}   # the units row
            continue
        out.append(Launch(raw, units))
    return out
