# Reads ptxas -v output (plkc -v's nvJitLink log, or nvcc -Xptxas -v) and
# prints "FUNCTION STORED LOADED" for each function that spills. (The one
# exception it had, attn_causal's 176-key kernel keeping two tile counts
# in local memory, went with the row sums on the tensor cores; the callers
# name attn_dense_bn176's under split(auto), 12 bytes outside its loops.)
/Function properties for/ { f = $NF }
/bytes spill stores/ {   # "N bytes spill stores, M bytes spill loads", prefixed or not
	for (i = 3; i < NF; i++) {
		if ($i == "spill" && $(i + 1) ~ /^stores/) st = $(i - 2)
		if ($i == "spill" && $(i + 1) ~ /^loads/) ld = $(i - 2)
	}
	if (st == 0 && ld == 0)
		next
	print f, st, ld
}
