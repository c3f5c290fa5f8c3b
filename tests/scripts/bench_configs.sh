#!/bin/bash
# Every benchmark configuration (bench/configs.py, all sets) still applies
# its edits to its recipe and contracts, and type-checks and places with
# plkc --check: a stale edit fails here, not in a GPU session.
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
exec python3 bench/prepare.py --check --plkc "$PLKC"
