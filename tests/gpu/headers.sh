#!/bin/sh
# Write every component's header (`plkc --emit=header`: cparam defaults,
# ids, entry prototype) into DIR. The builds here include component sources
# directly, and each source includes its header: give nvcc -IDIR.
# Usage: tests/gpu/headers.sh DIR   (plkc: $PLKC, default build/plkc)
[ -n "$1" ] || { echo "usage: $0 DIR" >&2; exit 2; }
mkdir -p "$1" && D=$(cd "$1" && pwd) || exit 1
P=${PLKC:-$(dirname "$0")/../../build/plkc}
case $P in /*) ;; *) P=$PWD/$P ;; esac
cd "$(dirname "$0")/../.." || exit 1
[ -x "$P" ] || { echo "$0: no plkc at $P: build it first (make)" >&2; exit 1; }
for f in components/*/*.plk; do
  "$P" --emit=header "$f" > "$D/$(basename "$f" .plk).plk.h" || exit 1
done
