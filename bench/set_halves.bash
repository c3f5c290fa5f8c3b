# Sourced by a bench script of two halves (bench/a_boxes.sh,
# bench/m_skip.sh): a bench/configs.py set linked on the build host,
# then timed on a GPU host. The script sets SET (the set), D (its folder)
# and MARK (a cubin the link writes into D), and passes its first
# argument: `link` links the set and ends the script; `run` checks that
# MARK is there, builds the runtime and names the GPU, then the script
# goes on; anything else is a usage error.
me=bench/$(basename "$0")
if [ "$1" = link ]; then
	exec python3 bench/prepare.py --set "$SET" --out "$D" --repeat 1
fi
[ "$1" = run ] || { echo "usage: bash $me link|run"; exit 2; }
[ -f "$D/$MARK" ] || { echo "no $D/$MARK: run 'bash $me link' on the build host"; exit 1; }
make -s -C runtime all || exit 1
nvidia-smi --query-gpu=name,clocks.max.sm --format=csv,noheader
