# Reads ptxas -v output (plkc -v's nvJitLink log, or nvcc -Xptxas -v) and
# prints "FUNCTION STORED LOADED" for each function that spills, but one:
# attn_causal's 176-key kernel keeps the grid's two tile counts, computed
# before the roles' setmaxnreg, in local memory and reloads them once per
# work item (8-12 bytes stored, 40 loaded; its SASS, docs/attention.md);
# it runs 1.07-1.10x its 128-key form. A bigger spill there still prints.
/Function properties for/ { f = $NF }
/bytes spill stores/ {   # "N bytes spill stores, M bytes spill loads", prefixed or not
	for (i = 3; i < NF; i++) {
		if ($i == "spill" && $(i + 1) ~ /^stores/) st = $(i - 2)
		if ($i == "spill" && $(i + 1) ~ /^loads/) ld = $(i - 2)
	}
	if (st == 0 && ld == 0)
		next
	if (f == "attn_causal_bn176" && st <= 16 && ld <= 48)
		next
	print f, st, ld
}
