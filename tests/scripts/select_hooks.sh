#!/bin/bash
# A select whose variants connect one hook provider with other constants
# (select_hooks.plk: `causal` at BM = 128 and 192) links into one cubin:
# each specialization is an object of its own, its hooks' functions
# renamed NAME__<8 hex> (docs/language.md, "Variants"; it was E0364), and
# the manifest's link map gives each variant's `causal` its own digest
# (the link itself fails on a symbol defined twice or called unrenamed).
# On the GPU both variants run correct and memcheck-clean:
# tests/gpu/select_hooks_output.txt.
. "$(dirname "$0")/common.bash"
fail=0
"$PLKC" tests/scripts/select_hooks.plk -arch sm_90a -v -o "$tmp/s.cubin" >"$tmp/log" 2>&1 ||
	{ echo "the link failed:"; grep -v "^time" "$tmp/log" | head -n 20; exit 1; }
n=$(sed -n 's/^plkc: object of `causal`: //p' "$tmp/log" | sort -u | wc -l)
[ "$n" -eq 2 ] || { echo "$n objects of causal, not 2:"; grep "object of .causal" "$tmp/log"; fail=1; }
python3 - "$tmp/s.manifest.json" <<'PY' || fail=1
import json, sys
m = json.load(open(sys.argv[1]))
d = {v["name"]: [i["object"] for i in v["instances"] if i["component"] == "causal"] for v in m["variants"]}
ok = sorted(d) == ["attn_causal", "attn_causal_bm192"] and all(len(x) == 1 for x in d.values()) \
    and d["attn_causal"] != d["attn_causal_bm192"]
print("" if ok else "the variants' causal digests: %s" % d, end="")
sys.exit(0 if ok else 1)
PY
exit $fail
