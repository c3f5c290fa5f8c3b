/* fuzz_object.c: libFuzzer target for the object reader (objread.c).
 * Any file must give an object or one error: never a crash, an over-read,
 * a huge allocation, a leak or undefined behaviour. Each input is read as
 * an object file (the ELF, the fatbin, the contract section, the digest),
 * then as a contract section on its own (the header parser and, when the
 * section is whole, the contract's parse), since random ELF rarely gets a
 * digest right.
 *
 * Three builds of this file: the fuzzer (scripts/fuzz.sh object), REPLAY
 * (files on the command line, tests/scripts/fuzz_replay.sh) and SEEDS,
 * which writes the ELF seeds into a directory: small objects, whole and
 * damaged in the ways that were found (a NOBITS contract or fatbin at a
 * huge offset, a cut section table, e_shnum 0xFFFF, extended numbering),
 * so that no binary is committed. Text seeds are in tests/fuzz/objects/. */
#include "../../compiler/objread.c"

static FILE *sink(void)
{
	static FILE *f;      /* diagnostics are rendered, then dropped */
	if (!f)
		f = fopen("/dev/null", "w");
	return f;
}

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
	Ctx c;
	ctx_init(&c, sink());
	Obj o;
	memset(&o, 0, sizeof o);
	o.data = malloc(size + 1);
	if (o.data) {
		memcpy(o.data, data, size);
		o.data[size] = 0;
		o.size = size;
		ObjErr r = read_elf(&c, &o);
		if (r == OBJ_OK)
			obj_component(&c, &o, "fuzz.o", span_none);
		obj_fini(&o);
	}
	Obj s;
	memset(&s, 0, sizeof s);
	if (parse_section(&c, &s, (const char *)data, size) == 0)
		obj_component(&c, &s, "fuzz.o", span_none);
	ctx_fini(&c);
	return 0;
}

#ifdef REPLAY
int main(int argc, char **argv)
{
	for (int i = 1; i < argc; i++) {
		size_t n;
		char *buf = sys_read_file(argv[i], PLK_MAX_OBJECT, &n);
		if (!buf) {
			perror(argv[i]);
			return 1;
		}
		LLVMFuzzerTestOneInput((const uint8_t *)buf, n);
		free(buf);
	}
	printf("replayed %d objects\n", argc - 1);
	return 0;
}
#endif

#ifdef SEEDS
/* ------------------------------------------------------------ the seeds */

typedef struct Buf { unsigned char b[4096]; size_t n; } Buf;

static void put(Buf *b, const void *p, size_t n)
{
	memcpy(b->b + b->n, p, n);
	b->n += n;
}

static void le(unsigned char *p, uint64_t v, int n)
{
	for (int i = 0; i < n; i++)
		p[i] = (unsigned char)(v >> (8 * i));
}

static const char contract[] =
	"component seed(N = 4) {\n"
	"  source \"seed.cu\"\n"
	"  entry plk_seed\n"
	"  arch >= sm_90a\n"
	"  warps 1\n"
	"  cluster 2 x N / 2\n"
	"  out t: tile<bf16, 64 x N * 16, sw128>\n"
	"  in k: tile<bf16, 64 x 64, sw128> per N split ahead(N / 4)\n"
	"  regs next: N * 4\n"
	"  out o: frag<f32, 64 x (N * 16 + 8), wgmma_acc> merge softmax\n"
	"}\n";

/* the fatbin: its header, one LTO-IR entry for sm_90a, 16 bytes of "IR" */
static size_t fatbin(unsigned char *f)
{
	memset(f, 0, 96);
	le(f, 0xBA55ED50u, 4);
	le(f + 4, 1, 2);
	le(f + 6, 16, 2);
	le(f + 8, 64 + 16, 8);
	unsigned char *e = f + 16;
	le(e, 8, 2);                 /* kind: LTO-IR */
	le(e + 4, 64, 4);            /* entry header size */
	le(e + 8, 16, 8);            /* payload size */
	le(e + 28, 90, 4);           /* sm */
	le(e + 40, 0x100000, 8);     /* 'a' */
	memcpy(e + 64, "not really LTOIR", 16);
	return 96;
}

/* The contract section: header then payload; digest over fat. */
static size_t section(char *out, size_t cap, const unsigned char *fat, size_t fatn, int version)
{
	char con[65], dig[65];
	sha256_of(contract, strlen(contract), con);
	obj_digest("seed", "sm_90a", contract, strlen(contract), fat, fatn, dig);
	return (size_t)snprintf(out, cap,
		"plk.contract %d\ncomponent seed\narches sm_90a\n"
		"hash 0000000000000000000000000000000000000000000000000000000000000000\n"
		"source 1111111111111111111111111111111111111111111111111111111111111111\n"
		"contract %s\ndigest %s\ntoolkit V13.0.88\nflags -std=c++17 -DN=4\n"
		"dep 2222222222222222222222222222222222222222222222222222222222222222 seed.cu\n"
		"length %zu\n\n%s", version, con, dig, strlen(contract), contract);
}

enum { S_NULL, S_STR, S_CON, S_FAT, NSEC };
typedef struct Elf { Buf b; size_t shoff; size_t off[NSEC], size[NSEC]; unsigned type[NSEC]; } Elf;

/* An ELF64 relocatable object: header, names, contract, fatbin, section table. */
static void make(Elf *e, int version)
{
	static const char names[] = "\0.shstrtab\0.plk.contract\0__nv_relfatbin";
	unsigned char fat[96];
	char sec[1024];
	size_t fatn = fatbin(fat), secn = section(sec, sizeof sec, fat, fatn, version);
	memset(e, 0, sizeof *e);
	unsigned char h[64] = { 0x7f, 'E', 'L', 'F', 2, 1, 1 };
	le(h + 16, 1, 2);            /* ET_REL */
	le(h + 18, 62, 2);           /* x86-64 */
	le(h + 20, 1, 4);
	le(h + 52, 64, 2);
	le(h + 58, 64, 2);
	le(h + 60, NSEC, 2);
	le(h + 62, S_STR, 2);
	put(&e->b, h, 64);
	e->off[S_STR] = e->b.n, e->size[S_STR] = sizeof names, e->type[S_STR] = 3;
	put(&e->b, names, sizeof names);
	e->off[S_CON] = e->b.n, e->size[S_CON] = secn, e->type[S_CON] = 1;
	put(&e->b, sec, secn);
	e->off[S_FAT] = e->b.n, e->size[S_FAT] = fatn, e->type[S_FAT] = 1;
	put(&e->b, fat, fatn);
	while (e->b.n % 8)
		e->b.b[e->b.n++] = 0;
	e->shoff = e->b.n;
	le(e->b.b + 40, e->shoff, 8);
	static const unsigned name_off[NSEC] = { 0, 1, 11, 25 };
	for (int i = 0; i < NSEC; i++) {
		unsigned char s[64] = { 0 };
		if (i) {
			le(s, name_off[i], 4);
			le(s + 4, e->type[i], 4);
			le(s + 24, e->off[i], 8);
			le(s + 32, e->size[i], 8);
		}
		put(&e->b, s, 64);
	}
}

static unsigned char *shdr(Elf *e, int i)
{
	return e->b.b + e->shoff + 64 * i;
}

static void save(const char *dir, const char *name, const void *p, size_t n)
{
	char path[4096];
	snprintf(path, sizeof path, "%s/%s", dir, name);
	if (sys_write_file(path, p, n)) {
		perror(path);
		exit(1);
	}
}

int main(int argc, char **argv)
{
	if (argc != 2) {
		fprintf(stderr, "usage: %s DIR\n", argv[0]);
		return 2;
	}
	const char *dir = argv[1];
	Elf e;
	make(&e, 2);
	save(dir, "whole.o", e.b.b, e.b.n);
	make(&e, 1);
	save(dir, "format1.o", e.b.b, e.b.n);
	make(&e, 2);                 /* a NOBITS contract at a huge offset */
	le(shdr(&e, S_CON) + 4, 8, 4);
	le(shdr(&e, S_CON) + 24, 0x7fffffff00000000ull, 8);
	save(dir, "nobits_contract.o", e.b.b, e.b.n);
	make(&e, 2);                 /* the same for the fatbin */
	le(shdr(&e, S_FAT) + 4, 8, 4);
	le(shdr(&e, S_FAT) + 24, 0x7fffffff00000000ull, 8);
	save(dir, "nobits_fatbin.o", e.b.b, e.b.n);
	make(&e, 2);                 /* the section table cut off */
	save(dir, "cut_table.o", e.b.b, e.b.n - 40);
	make(&e, 2);                 /* e_shnum 0xFFFF */
	le(e.b.b + 60, 0xffff, 2);
	save(dir, "shnum_ffff.o", e.b.b, e.b.n);
	make(&e, 2);                 /* extended numbering: the count in section 0 */
	le(e.b.b + 60, 0, 2);
	le(shdr(&e, S_NULL) + 32, NSEC, 8);
	save(dir, "shnum_extended.o", e.b.b, e.b.n);
	make(&e, 2);                 /* code changed under its contract */
	e.b.b[e.off[S_FAT] + 16 + 64] ^= 1;
	save(dir, "code_changed.o", e.b.b, e.b.n);
	make(&e, 2);                 /* a section's size past the end */
	le(shdr(&e, S_CON) + 32, 0xffffffffffffff00ull, 8);
	save(dir, "huge_size.o", e.b.b, e.b.n);
	make(&e, 2);                 /* names not NUL-ended */
	e.b.b[e.off[S_STR] + e.size[S_STR] - 1] = 'x';
	save(dir, "names_open.o", e.b.b, e.b.n);
	make(&e, 2);                 /* the contract section alone, as text */
	save(dir, "section.txt", e.b.b + e.off[S_CON], e.size[S_CON]);
	printf("wrote 11 seeds to %s\n", dir);
	return 0;
}
#endif
