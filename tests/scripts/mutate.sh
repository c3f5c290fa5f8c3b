#!/bin/bash
# A small fixed-seed bad-input campaign (scripts/mutate.sh): 150 mutations
# of the examples and their components through $B/plkc (in make test also
# build/san/plkc, ASan + UBSan); none may crash, hang or make a sanitizer
# report. Well under a minute.
B=${1:-build}
[ -x "$B/plkc" ] || { echo "no $B/plkc"; exit 77; }
scripts/mutate.sh 150 20261201 "$B/plkc"
