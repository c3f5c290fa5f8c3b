"""The GPU's SM clock, power, temperature and clock event reasons while a
benchmark runs, from nvidia-smi sampling every 100 ms in the background.

A row of a benchmark table that moves from one run to the next with the
same cubin and the same pick (run 16's GEMM + SwiGLU at 8192 x 8192 x
2048, 2026-12-07-shape-suite-run16-h100.md) is either the kernel or the
card's clock; the readings taken while the row was timed say which.

    smi = Sampler()            # starts nvidia-smi (no readings without it)
    t0 = time.monotonic()
    ...                        # the timed launches
    r = smi.between(t0, time.monotonic())
    print(summary(r))          # "1980 MHz (1755-1980), 690 W"
    smi.close()

PLK_BENCH_SMI replaces the command (tests/scripts/bench_smi.sh gives it
a fake one); it must print FIELDS' values comma-separated, one reading a
line. Needs no torch: tests run it on the build host.
"""
import os
import shlex
import statistics
import subprocess
import threading
import time

FIELDS = "clocks.sm,power.draw,temperature.gpu,clocks_event_reasons.active"


def _gpu_index():
    """nvidia-smi's index of the GPU torch sees as device 0: the first of
    CUDA_VISIBLE_DEVICES where it is a number, else 0 (nvidia-smi counts
    in PCI order, CUDA fastest first: the same where the GPUs are alike)."""
    first = os.environ.get("CUDA_VISIBLE_DEVICES", "").split(",")[0].strip()
    return first if first.isdigit() else "0"


def parse(line):
    """One reading from a line of FIELDS' values: (MHz, W, C, reasons), a
    field nvidia-smi cannot read ("[N/A]") as NaN; None where the line is
    no reading (a header, an error message, too few fields)."""
    f = [x.strip() for x in line.split(",")]
    if len(f) != 4:
        return None
    try:
        mhz = float(f[0])
    except ValueError:
        return None

    def num(s):
        try:
            return float(s)
        except ValueError:
            return float("nan")
    return (mhz, num(f[1]), num(f[2]), f[3])


class Sampler:
    """nvidia-smi's readings from construction to close(), each with the
    host's monotonic time of its arrival. Where the command cannot start
    or prints no readings, there are none: a caller prints '-'."""

    def __init__(self, cmd=None, period_ms=100):
        if cmd is None:
            cmd = os.environ.get("PLK_BENCH_SMI") or (
                "nvidia-smi -i %s --query-gpu=%s --format=csv,noheader,nounits -lms %d"
                % (_gpu_index(), FIELDS, period_ms))
        self._readings = []
        self._lock = threading.Lock()
        self._thread = None
        try:
            self._proc = subprocess.Popen(shlex.split(cmd), stdout=subprocess.PIPE, stderr=subprocess.DEVNULL,
                                          text=True)
        except OSError:
            self._proc = None
            return
        self._thread = threading.Thread(target=self._read, daemon=True)
        self._thread.start()

    def _read(self):
        for line in self._proc.stdout:
            r = parse(line)
            if r:
                with self._lock:
                    self._readings.append((time.monotonic(),) + r)

    def between(self, t0, t1):
        """The readings that arrived in [t0, t1] (time.monotonic()), each
        (MHz, W, C, reasons)."""
        with self._lock:
            return [r[1:] for r in self._readings if t0 <= r[0] <= t1]

    def close(self):
        if self._proc:
            self._proc.terminate()
            try:
                self._proc.wait(timeout=2)
            except subprocess.TimeoutExpired:
                self._proc.kill()
                self._proc.wait()
        if self._thread:
            self._thread.join(timeout=2)


def summary(readings):
    """The median SM clock, its range and the median power of readings:
    '1980 MHz (1755-1980), 690 W'; '-' for none."""
    if not readings:
        return "-"
    mhz = [r[0] for r in readings]
    w = [r[1] for r in readings if r[1] == r[1]]
    return "%.0f MHz (%.0f-%.0f)%s" % (statistics.median(mhz), min(mhz), max(mhz),
                                       ", %.0f W" % statistics.median(w) if w else "")
