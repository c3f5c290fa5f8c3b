#!/bin/bash
# bench/smi.py, the benchmarks' clock sampler, on the build host: a fake
# nvidia-smi (PLK_BENCH_SMI) prints six readings 20 ms apart and a last
# one once the test has closed its first window, with a header, an [N/A]
# power and an error line among them. Checked: only readings are kept,
# each with the time it arrived; between() returns those of its window
# and none outside it; summary() gives the median and range; an [N/A]
# power leaves the clock in and the power out; a command that cannot
# start gives no readings and no exception; close() ends the command.
# Exit 0 pass, 1 fail, 77 skip.
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
cat >"$tmp/smi" <<'SH'
#!/bin/sh
echo "clocks.sm [MHz], power.draw [W], temperature.gpu, clocks_event_reasons.active"
for mhz in 1980 1980 1755 1980 1830; do
	echo "$mhz, 690.5, 61, 0x0000000000000000"
	sleep 0.02
done
echo "Failed to read power"
echo "1410, [N/A], 62, 0x0000000000000004"
while [ ! -e "$SMI_GO" ]; do sleep 0.01; done   # the test's first window closed
echo "1095, 300.0, 60, 0x0000000000000000"
exec sleep 30
SH
chmod +x "$tmp/smi"
SMI_GO="$tmp/go" PLK_BENCH_SMI="$tmp/smi" python3 - "$(dirname "$0")/../../bench" "$tmp/go" <<'PY'
import math, sys, time
sys.path.insert(0, sys.argv[1])
import smi

bad = []
def check(cond, what):
    if not cond:
        bad.append(what)
        print("FAIL:", what)

# parse: readings only
check(smi.parse("1980, 690.5, 61, 0x0") == (1980.0, 690.5, 61.0, "0x0"), "a reading parses")
check(smi.parse("clocks.sm [MHz], power.draw [W], temperature.gpu, reasons") is None, "the header is no reading")
check(smi.parse("Failed to read power") is None, "an error line is no reading")
r = smi.parse("1410, [N/A], 62, 0x4")
check(r is not None and r[0] == 1410.0 and math.isnan(r[1]), "[N/A] power: the clock kept, the power NaN")
check(smi.summary([]) == "-", "no readings: '-'")

def wait_for(n, t0, limit=10.0):
    """now, once n readings have arrived since t0 (or the limit passed)"""
    end = time.monotonic() + limit
    while len(s.between(t0, time.monotonic())) < n and time.monotonic() < end:
        time.sleep(0.01)
    return time.monotonic()

t0 = time.monotonic()
s = smi.Sampler()
t1 = wait_for(6, t0)        # the five readings and the [N/A] one
open(sys.argv[2], "w").close()   # then the fake prints the last
t2 = wait_for(7, t0)
first = s.between(t0, t1)
later = s.between(t1, t2)
s.close()
check(s._proc.poll() is not None, "close() ends the command")
check([x[0] for x in first] == [1980, 1980, 1755, 1980, 1830, 1410], "the first window's clocks: %s" % first)
check([x[0] for x in later] == [1095], "the second window's: %s" % later)
check(s.between(t2 + 1, t2 + 2) == [], "nothing outside the readings' times")
check(smi.summary(first) == "1905 MHz (1410-1980), 690 W", "summary: %r" % smi.summary(first))
check(smi.summary(later) == "1095 MHz (1095-1095), 300 W", "summary of one: %r" % smi.summary(later))
check(smi.summary([(1410.0, float("nan"), 62.0, "0x4")]) == "1410 MHz (1410-1410)", "no power: clock only")

n = smi.Sampler(cmd="/nonexistent/nvidia-smi --query-gpu=clocks.sm")
check(n.between(0, time.monotonic()) == [], "a command that cannot start: no readings")
n.close()
print("bench_smi: %d checks failed" % len(bad))
sys.exit(1 if bad else 0)
PY
