/* mutate.c: one mutation of a file, chosen by a seed (scripts/mutate.sh).
 *
 *   mutate SEED IN OUT     writes IN, mutated, to OUT; prints what it did
 *
 * The mutations are those of a bad-input campaign: a flipped bit, bytes
 * deleted, a range duplicated, two tokens swapped, a token replaced by
 * another of the file, a number replaced by an extreme value (0, -1, 2^31,
 * 2^32, 2^62, 2^63 - 1, ...), a keyword or bracket inserted. A seed gives
 * the same mutation every time. */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static uint64_t rng;

static uint64_t next(void)   /* splitmix64 */
{
	uint64_t z = (rng += 0x9e3779b97f4a7c15ull);
	z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ull;
	z = (z ^ (z >> 27)) * 0x94d049bb133111ebull;
	return z ^ (z >> 31);
}

static size_t pick(size_t n) { return n ? (size_t)(next() % n) : 0; }

typedef struct Tok { size_t off, len; } Tok;

static int is_word(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || (c >= '0' && c <= '9') || c == '_'; }

/* words, numbers and single punctuation characters */
static size_t tokens(const char *s, size_t n, Tok *t, size_t max)
{
	size_t k = 0;
	for (size_t i = 0; i < n && k < max;) {
		if (s[i] == ' ' || s[i] == '\n' || s[i] == '\t') {
			i++;
			continue;
		}
		size_t j = i + 1;
		if (is_word((unsigned char)s[i]))
			while (j < n && is_word((unsigned char)s[j]))
				j++;
		t[k++] = (Tok){ i, j - i };
		i = j;
	}
	return k;
}

int main(int argc, char **argv)
{
	if (argc != 4) {
		fprintf(stderr, "usage: mutate SEED IN OUT\n");
		return 2;
	}
	rng = strtoull(argv[1], NULL, 10) * 0x2545F4914F6CDD1Dull + 1;
	FILE *f = fopen(argv[2], "rb");
	if (!f) {
		perror(argv[2]);
		return 1;
	}
	static char in[1 << 20], out[(1 << 20) * 2 + 256];
	size_t n = fread(in, 1, sizeof in, f), m = 0;
	fclose(f);
	static Tok t[1 << 16];
	size_t nt = tokens(in, n, t, sizeof t / sizeof t[0]);
	static const char *const extremes[] = { "0", "-1", "1", "2147483647", "2147483648", "4294967296",
		"4611686018427387904", "9223372036854775807", "-9223372036854775807", "1048576", "65536", "4096" };
	static const char *const inserts[] = { "component", "kernel", "use", "object", "{", "}", "(", ")", "[",
		"]", "<", ">", "->", ",", "x", "=", "*", "/", "%", "auto", "warps", "warpgroups", "regs", "smem",
		"barrier", "cluster", "require", "per", "handoff", "const", "grid", "raster", "tile", "frag",
		"tensormap", "ceil_div(", "min(", "max(", "\"", "//", "/*", "\n", "0x", "K", "MiB", "pingpong",
		"stages", "in", "out", "param", "source", "entry", "arch", "needs", "live", "align", "bytes" };
	int kind = (int)pick(8);
	memcpy(out, in, n);
	m = n;
	const char *what = "";
	if (kind == 0 && n) {                     /* a flipped bit */
		size_t i = pick(n);
		out[i] ^= (char)(1 << pick(8));
		what = "flip";
	} else if (kind == 1 && n) {              /* bytes deleted */
		size_t i = pick(n), len = 1 + pick(n - i < 32 ? n - i : 32);
		memmove(out + i, out + i + len, n - i - len);
		m = n - len;
		what = "delete";
	} else if (kind == 2 && n) {              /* a range duplicated */
		size_t i = pick(n), len = 1 + pick(n - i < 200 ? n - i : 200), at = pick(n + 1);
		memmove(out + at + len, out + at, n - at);
		memcpy(out + at, in + i, len);
		m = n + len;
		what = "duplicate";
	} else if ((kind == 3 || kind == 4) && nt > 1) {  /* tokens swapped, or one replaced by another */
		size_t a = pick(nt), b = pick(nt);
		if (a == b)                           /* two tokens, else a swap copies -len bytes */
			b = (a + 1) % nt;
		if (a > b) {
			size_t x = a;
			a = b;
			b = x;
		}
		Tok ta = t[a], tb = t[b];
		m = 0;
		memcpy(out, in, ta.off);
		m = ta.off;
		memcpy(out + m, in + tb.off, tb.len);
		m += tb.len;
		if (kind == 3) {                      /* swap: a's place gets b, b's place gets a */
			memcpy(out + m, in + ta.off + ta.len, tb.off - ta.off - ta.len);
			m += tb.off - ta.off - ta.len;
			memcpy(out + m, in + ta.off, ta.len);
			m += ta.len;
			memcpy(out + m, in + tb.off + tb.len, n - tb.off - tb.len);
			m += n - tb.off - tb.len;
		} else {
			memcpy(out + m, in + ta.off + ta.len, n - ta.off - ta.len);
			m += n - ta.off - ta.len;
		}
		what = kind == 3 ? "swap" : "replace";
	} else if (kind == 5 && nt) {             /* a number made extreme */
		size_t cand[4096], nc = 0;
		for (size_t i = 0; i < nt && nc < 4096; i++)
			if (in[t[i].off] >= '0' && in[t[i].off] <= '9')
				cand[nc++] = i;
		if (nc) {
			Tok tk = t[cand[pick(nc)]];
			const char *x = extremes[pick(sizeof extremes / sizeof *extremes)];
			size_t xl = strlen(x);
			memcpy(out, in, tk.off);
			memcpy(out + tk.off, x, xl);
			memcpy(out + tk.off + xl, in + tk.off + tk.len, n - tk.off - tk.len);
			m = n - tk.len + xl;
		}
		what = "extreme";
	} else {                                  /* a token inserted */
		const char *x = inserts[pick(sizeof inserts / sizeof *inserts)];
		size_t xl = strlen(x), at = nt ? t[pick(nt)].off : 0;
		memcpy(out, in, at);
		out[at] = ' ';
		memcpy(out + at + 1, x, xl);
		out[at + 1 + xl] = ' ';
		memcpy(out + at + 2 + xl, in + at, n - at);
		m = n + xl + 2;
		what = "insert";
	}
	f = fopen(argv[3], "wb");
	if (!f || fwrite(out, 1, m, f) != m || fclose(f)) {
		perror(argv[3]);
		return 1;
	}
	printf("%s\n", what);
	return 0;
}
