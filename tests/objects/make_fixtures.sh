#!/bin/sh
# tests/objects/make_fixtures.sh [PLKC]: rebuilds the two committed
# component objects, whose section changes with plkc's contract format:
#   only90.elf  only90.plk for sm_90a alone (E0206's example)
#   stale.elf   stale.plk when stale.cu said `inst + 1` (E0208's example)
#   spec.elf    spec.plk for N = 4 (E0214's example)
#   swapped.elf spec.elf's code under stale.elf's contract (E0215's)
# Each is built in a directory of its own from relative names, so that no
# path of this machine ends up in it.
set -e
PLKC=${1:-$(dirname "$0")/../../build/plkc}
PLKC=$(cd "$(dirname "$PLKC")" && pwd)/$(basename "$PLKC")
cd "$(dirname "$0")"
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT
mkdir "$tmp/a" "$tmp/b" "$tmp/c"
cp only90.plk only90.cu "$tmp/a/"
(cd "$tmp/a" && "$PLKC" -c only90.plk -arch sm_90a -o only90.elf)
cp stale.plk "$tmp/b/"
sed 's/return inst + 2;.*/return inst + 1;/' stale.cu >"$tmp/b/stale.cu"
(cd "$tmp/b" && "$PLKC" -c stale.plk -arch sm_80 -o stale.elf)
cp spec.plk spec.cu "$tmp/c/"
(cd "$tmp/c" && "$PLKC" -c spec.plk -arch sm_80 -o spec.elf)
objcopy --dump-section .plk.contract="$tmp/sec" "$tmp/b/stale.elf" "$tmp/junk.o"
objcopy --update-section .plk.contract="$tmp/sec" "$tmp/c/spec.elf" "$tmp/swapped.elf"
cp "$tmp/a/only90.elf" "$tmp/b/stale.elf" "$tmp/c/spec.elf" "$tmp/swapped.elf" .
