#!/bin/bash
# The megakernel's waits (compiler/mega_entry.c), modelled in Python on the
# schedules plkc writes into the manifests of tests/gpu/mega/chain.plk and
# examples/llama_decode.plk: blocks run their ops in schedule order, each
# op on a block with a piece of it: wait until every counter it waits for
# reaches (generation + 1) x pieces (u32, compared with wraparound), run,
# add its piece count. Blocks are stepped in random orders over several
# launches, from counters just below the u32 wrap. Checked: every launch
# ends (no block waits forever), an op's pieces start only when every
# piece of each op it reads from (directly or not) has ended in the same
# launch, and the generation moves on once per launch. Exit 0 pass.
B=${1:-build}
PLKC=${PLKC:-$PWD/$B/plkc}
command -v python3 >/dev/null || { echo "skip: no python3"; exit 77; }
tmp="$PWD/$B/mega-model"
rm -rf "$tmp" && mkdir -p "$tmp" || exit 1
"$PLKC" tests/gpu/mega/chain.plk -arch sm_90a --emit=manifest -o "$tmp/chain.json" || exit 1
"$PLKC" examples/llama_decode.plk -arch sm_90a --emit=manifest -o "$tmp/llama.json" || exit 1
python3 - "$tmp/chain.json" "$tmp/llama.json" <<'PY'
import json, random, sys

M32 = 1 << 32


def reached(v, target):   # (int)(v - target) >= 0, as the entry compares
    d = (v - target) % M32
    return d < (1 << 31)


def model(path, seed):
    man = json.load(open(path))
    B = man["megakernel"]["blocks"]
    ops = man["megakernel"]["ops"]
    index = {o["name"]: i for i, o in enumerate(ops)}
    waits = [[index[w] for w in o["waits"]] for o in ops]
    for i, w in enumerate(waits):
        assert all(j < i for j in w), f"{path}: op {ops[i]['name']} waits for a later op"
    # what each op reads from, transitively: its waits and theirs
    before = [set() for _ in ops]
    for i, w in enumerate(waits):
        for j in w:
            before[i] |= {j} | before[j]
    pieces = [o["pieces"] for o in ops]
    first = [o["first_block"] for o in ops]
    mine = [[(b - first[j]) % B < pieces[j] for j in range(len(ops))] for b in range(B)]
    count = [[((pieces[j] - 1 - (b - first[j]) % B) // B + 1) if mine[b][j] else 0 for j in range(len(ops))]
             for b in range(B)]
    assert all(sum(count[b][j] for b in range(B)) == pieces[j] for j in range(len(ops)))
    rng = random.Random(seed)
    gen = M32 // max(pieces) - 2    # the counters wrap during these launches
    cnt = [(gen * p) % M32 for p in pieces]
    arrivals = 0
    for launch in range(4):
        g = gen
        pc = [0] * B                # each block's next op
        started = [0] * B           # whether its current op has passed its waits
        done = [0] * len(ops)       # pieces ended this launch
        steps = 0
        while any(pc[b] <= len(ops) for b in range(B)):
            steps += 1
            if steps > 50 * B * (len(ops) + 1):
                sys.exit(f"{path}: launch {launch} hangs: blocks at ops {sorted(set(pc))[:8]}")
            b = rng.randrange(B)
            j = pc[b]
            if j > len(ops):
                continue
            if j == len(ops):       # the end: the last block moves the generation on
                arrivals += 1
                if arrivals == B:
                    arrivals = 0
                    gen = (gen + 1) % M32
                pc[b] += 1
                continue
            if not mine[b][j]:
                pc[b] += 1
                continue
            if not started[b]:
                if not all(reached(cnt[d], ((g + 1) * pieces[d]) % M32) for d in waits[j]):
                    continue        # spins; another block runs
                for d in before[j]:
                    if done[d] != pieces[d]:
                        sys.exit(f"{path}: {ops[j]['name']} started on block {b} before {ops[d]['name']} ended")
                started[b] = 1
                continue
            done[j] += count[b][j]
            cnt[j] = (cnt[j] + count[b][j]) % M32
            started[b] = 0
            pc[b] += 1
        if gen != (g + 1) % M32 or done != pieces:
            sys.exit(f"{path}: launch {launch}: generation {g} -> {gen}, pieces {done} of {pieces}")
    return len(ops), B


for seed, path in enumerate(sys.argv[1:] * 3):
    n, B = model(path, seed)
print(f"mega_model: chain and llama_decode schedules, 4 launches each x 3 orders, counters across the wrap: ok")
PY
