/* objread.c: reading a component object back: its .plk.contract section
 * (format in object.c) and the LTO targets of its fatbin, whose arches
 * are cross-checked with those the section records, and the digest that
 * binds the contract to that code.
 *
 * Every file is hostile: the ELF is parsed here, not by a library, with
 * every offset and size checked against the file before it is used (a
 * NOBITS section has no bytes in the file, whatever its offset says), and
 * nothing is allocated beyond the file itself and lists of bounded length.
 * Objects are ELF64, little-endian, relocatable (what nvcc -c writes).
 *
 * The fatbin (section __nv_relfatbin) is a header { u32 magic 0xBA55ED50,
 * u16 version, u16 header size, u64 body size } followed by entries { u16
 * kind (8: LTO-IR), u16, u32 header size, u64 payload size, ..., u32 sm at
 * 28, u64 flags at 40 (0x100000: 'a' target, 0x200000: 'f' target) }. */
#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include "plk.h"

enum { OBJ_MAX_DEPS = 4096 };

/* ----------------------------------------------------- arch selection */

/* "sm_90a" -> 90 and 'a'; 0 when not an arch name. */
static int arch_num(const char *name, char *suffix)
{
	int sm = 0, nd = 0;
	*suffix = 0;
	if (!name || strncmp(name, "sm_", 3))
		return 0;
	const char *p = name + 3;
	while (*p >= '0' && *p <= '9' && nd < 6)
		sm = sm * 10 + (*p++ - '0'), nd++;
	if (*p == 'a' || *p == 'f')
		*suffix = *p++;
	return *p || !nd ? 0 : sm;
}

int object_arch_allowed(const Component *comp, const ArchInfo *a)
{
	char suf;
	int min = arch_num(comp->arch_min, &suf);
	if (min && a->sm < min)
		return 0;
	if (suf == 'a' && !a->arch_specific)
		return 0;
	for (int i = 0; i < comp->features.n; i++) {
		unsigned bit = feature_lookup(((Feature *)comp->features.v[i])->name);
		if (bit && !(a->features & bit))   /* unknown names are check.c's to report */
			return 0;
	}
	return 1;
}

const char *object_arch_flags(Ctx *c, const Component *comp)
{
	int n, m = 0;
	const ArchInfo *all = arch_all(&n);
	for (int i = 0; i < n; i++)
		m += object_arch_allowed(comp, &all[i]);
	const char *s = NULL;
	for (int i = 0, j = 0; i < n; i++)
		if (object_arch_allowed(comp, &all[i])) {
			j++;
			s = arena_printf(c->arena, "%s%s`-arch %s`", s ? s : "", !s ? "" : j == m ? " or " : ", ",
				all[i].name);
		}
	return s;
}

/* Can an LTO target named `have` ("sm_80", "sm_90a", "sm_100f") serve a
 * link for `want`? LTO-IR of a plain target serves later archs; an 'a'
 * target serves its own arch only; an 'f' target its family. */
static int target_serves(const char *have, const ArchInfo *want)
{
	char hs, ws;
	int h = arch_num(have, &hs), w = arch_num(want->name, &ws);
	if (!h || !w)
		return 0;
	if (hs == 'a')
		return h == w && ws == 'a';
	if (hs == 'f')
		return h / 10 == w / 10 && w >= h;
	return w >= h;
}

int object_default_arches(const Component *comp, const ArchInfo **out, int max)
{
	int n, m = 0;
	const ArchInfo *all = arch_all(&n);
	for (int i = 0; i < n && m < max; i++) {
		int served = 0;
		for (int j = 0; j < m && !all[i].arch_specific; j++)
			served |= !out[j]->arch_specific && target_serves(out[j]->name, &all[i]);
		if (object_arch_allowed(comp, &all[i]) && !served)
			out[m++] = &all[i];
	}
	return m;
}

/* ----------------------------------------------------- reading objects */

void obj_fini(Obj *o)
{
	free(o->data);
	o->data = NULL;
}

static uint64_t rd(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

static int bad(Obj *o, const char *why)
{
	o->why = why;
	return -1;
}

/* LTO targets of a fatbin section. 0 ok, -1 malformed. */
static int scan_fatbin(Ctx *c, Obj *o, const unsigned char *p, size_t n)
{
	size_t off = 0;
	while (off + 16 <= n) {
		if (rd(p + off, 4) == 0) {           /* padding between fatbins */
			off += 8;
			continue;
		}
		if (rd(p + off, 4) != 0xBA55ED50u)
			return bad(o, "its fatbin is damaged");
		uint64_t hs = rd(p + off + 6, 2), fs = rd(p + off + 8, 8);
		if (hs < 16 || hs > n - off || fs > n - off - hs)
			return bad(o, "its fatbin is damaged");
		size_t e = off + hs, end = off + hs + fs;
		while (e < end) {
			if (end - e < 48)
				return bad(o, "its fatbin is damaged");
			uint64_t kind = rd(p + e, 2), ehs = rd(p + e + 4, 4), psz = rd(p + e + 8, 8);
			if (ehs < 48 || ehs > end - e || psz > end - e - ehs)
				return bad(o, "its fatbin is damaged");
			unsigned sm = (unsigned)rd(p + e + 28, 4);
			uint64_t fl = rd(p + e + 40, 8);
			if (kind == 8) {
				if (o->lto.n == OBJ_MAX_ARCHES)
					return bad(o, arena_printf(c->arena, "its fatbin holds more than %d LTO-IR entries",
						OBJ_MAX_ARCHES));
				vec_push(c->arena, &o->lto, arena_printf(c->arena, "sm_%u%s", sm,
					fl & 0x100000 ? "a" : fl & 0x200000 ? "f" : ""));
			} else
				o->nother++;
			e += ehs + psz;
		}
		off = end;
	}
	return 0;
}

/* ------------------------------------------------------- the section */

static int is_hex64(const char *s, size_t n)
{
	if (n != 64)
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= '0' && s[i] <= '9') || (s[i] >= 'a' && s[i] <= 'f')))
			return 0;
	return 1;
}

static int is_name(const char *s, size_t n)
{
	if (!n || n > 256 || (s[0] >= '0' && s[0] <= '9'))
		return 0;
	for (size_t i = 0; i < n; i++)
		if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= 'A' && s[i] <= 'Z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '_'))
			return 0;
	return 1;
}

/* The digest that binds the contract to the code: over the component's
 * name, its arches, the contract text and the fatbin's bytes. object.c
 * writes it; here it is checked. */
void obj_digest(const char *component, const char *arches, const char *contract, size_t clen,
                const void *fatbin, size_t fatn, char out[65])
{
	Sha256 s;
	sha256_init(&s);
	sha256_field(&s, "plk-object-digest", "2", 1);
	sha256_field(&s, "component", component, strlen(component));
	sha256_field(&s, "arches", arches, strlen(arches));
	sha256_field(&s, "contract", contract, clen);
	sha256_field(&s, "fatbin", fatbin, fatn);
	sha256_hex(&s, out);
}

/* The .plk.contract section's header and payload (format 2, object.c):
 * `key value` lines, each key once (`dep` any number of times), an empty
 * line, then exactly `length` bytes of contract. */
static int parse_section(Ctx *c, Obj *o, const char *d, size_t n)
{
	static const char magic[] = "plk.contract ";
	size_t ml = sizeof magic - 1;
	if (n < ml + 2 || memcmp(d, magic, ml))
		return bad(o, "its .plk.contract section has no valid header");
	if (!memcmp(d + ml, "1\n", 2))
		return bad(o, "it was built by an older plkc (contract format 1), whose objects bind no digest");
	if (memcmp(d + ml, "2\n", 2))
		return bad(o, "its .plk.contract section has a format this plkc does not know");
	static const char *const keys[] = { "component", "arches", "hash", "source", "contract", "digest",
		"toolkit", "flags", "length" };
	enum { K_COMP, K_ARCHES, K_HASH, K_SOURCE, K_CONTRACT, K_DIGEST, K_TOOLKIT, K_FLAGS, K_LENGTH, NKEYS };
	const char *val[NKEYS] = { 0 };
	size_t vlen[NKEYS] = { 0 };
	size_t p = ml + 2;
	for (;;) {
		const char *nl = memchr(d + p, '\n', n - p);
		if (!nl)
			return bad(o, "its .plk.contract header does not end");
		size_t ll = (size_t)(nl - (d + p));
		if (ll == 0) {          /* the empty line */
			p++;
			break;
		}
		const char *line = d + p, *sp = memchr(line, ' ', ll);
		if (!sp || memchr(line, 0, ll) || memchr(line, '\r', ll))
			return bad(o, "its .plk.contract header has a malformed line");
		size_t kl = (size_t)(sp - line), vl = ll - kl - 1;
		const char *v = sp + 1;
		if (kl == 3 && !memcmp(line, "dep", 3)) {
			if (vl < 66 || !is_hex64(v, 64) || v[64] != ' ')
				return bad(o, "its .plk.contract header has a malformed `dep` line");
			if (o->deps.n == OBJ_MAX_DEPS)
				return bad(o, "its .plk.contract header lists too many files");
			ObjDep *dp = arena_alloc(c->arena, sizeof *dp);
			memcpy(dp->hash, v, 64);
			dp->path = arena_strndup(c->arena, v + 65, vl - 65);
			vec_push(c->arena, &o->deps, dp);
		} else {
			for (int k = 0; k < NKEYS; k++)
				if (strlen(keys[k]) == kl && !memcmp(line, keys[k], kl)) {
					if (val[k])
						return bad(o, arena_printf(c->arena, "its .plk.contract header says `%s` twice",
							keys[k]));
					val[k] = v;
					vlen[k] = vl;
				}
		}                       /* other keys: a later plkc's, ignored */
		p += ll + 1;
	}
	for (int k = 0; k < NKEYS; k++)
		if (!val[k])
			return bad(o, arena_printf(c->arena, "its .plk.contract header lacks `%s`", keys[k]));
	if (!is_name(val[K_COMP], vlen[K_COMP]) || !is_hex64(val[K_HASH], vlen[K_HASH]) ||
	    !is_hex64(val[K_SOURCE], vlen[K_SOURCE]) || !is_hex64(val[K_CONTRACT], vlen[K_CONTRACT]) ||
	    !is_hex64(val[K_DIGEST], vlen[K_DIGEST]))
		return bad(o, "its .plk.contract header has a malformed field");
	/* length: decimal digits only, no sign, no spaces, no leading zero */
	uint64_t l = 0;
	const char *lv = val[K_LENGTH];
	size_t ln = vlen[K_LENGTH];
	int lok = ln > 0 && ln <= 12 && (lv[0] != '0' || ln == 1);
	for (size_t i = 0; lok && i < ln; i++) {
		lok = lv[i] >= '0' && lv[i] <= '9';
		l = l * 10 + (uint64_t)(lv[i] - '0');
	}
	size_t avail = n - p;
	if (!lok || l != avail)
		return bad(o, arena_printf(c->arena, "its contract is %zu bytes, its header says `%.*s`", avail,
			(int)(ln > 24 ? 24 : ln), lv));
	o->component = arena_strndup(c->arena, val[K_COMP], vlen[K_COMP]);
	o->toolkit = arena_strndup(c->arena, val[K_TOOLKIT], vlen[K_TOOLKIT]);
	o->flags = arena_strndup(c->arena, val[K_FLAGS], vlen[K_FLAGS]);
	o->arches_text = arena_strndup(c->arena, val[K_ARCHES], vlen[K_ARCHES]);
	memcpy(o->hash, val[K_HASH], 64);
	memcpy(o->srchash, val[K_SOURCE], 64);
	memcpy(o->conhash, val[K_CONTRACT], 64);
	memcpy(o->digest, val[K_DIGEST], 64);
	o->payload = arena_strndup(c->arena, d + p, avail);
	o->plen = avail;
	char dig[65];
	sha256_of(o->payload, o->plen, dig);
	if (strcmp(dig, o->conhash) || memchr(d + p, 0, avail))
		return bad(o, "its contract does not match the digest recorded with it");
	char *a = arena_strdup(c->arena, o->arches_text);
	for (char *t; (t = strtok_r(a, " ", &a));) {
		char suf;
		if (!arch_num(t, &suf))
			return bad(o, "its .plk.contract header names an arch that is not one");
		if (o->arches.n == OBJ_MAX_ARCHES)
			return bad(o, "its .plk.contract header names too many arches");
		for (int i = 0; i < o->arches.n; i++)
			if (!strcmp(o->arches.v[i], t))
				return bad(o, "its .plk.contract header names an arch twice");
		vec_push(c->arena, &o->arches, t);
	}
	return 0;
}

int obj_same_set(const char *const *a, int na, const char *const *b, int nb)
{
	if (na != nb)
		return 0;
	/* as multisets: every name as often in a as in b */
	for (int i = 0; i < na; i++) {
		int ka = 0, kb = 0;
		for (int j = 0; j < na; j++)
			ka += !strcmp(a[i], a[j]);
		for (int j = 0; j < nb; j++)
			kb += !strcmp(a[i], b[j]);
		if (ka != kb)
			return 0;
	}
	return 1;
}

/* ------------------------------------------------------------- the ELF */

enum { EH_SIZE = 64, SH_SIZE = 64, SHT_STRTAB_ = 3, SHT_NOBITS_ = 8, ET_REL_ = 1, SHN_XINDEX_ = 0xffff };

typedef struct Sec { uint64_t name, type, off, size, link; } Sec;

static Sec sec_at(const unsigned char *p)
{
	return (Sec){ rd(p, 4), rd(p + 4, 4), rd(p + 24, 8), rd(p + 32, 8), rd(p + 40, 4) };
}

/* The bytes of a section, NULL when it has none in the file. */
static const unsigned char *sec_bytes(const Obj *o, const Sec *s)
{
	if (s->type == SHT_NOBITS_ || s->off > o->size || s->size > o->size - s->off)
		return NULL;
	return (const unsigned char *)o->data + s->off;
}

static ObjErr read_elf(Ctx *c, Obj *o)
{
	const unsigned char *p = (const unsigned char *)o->data;
	if (o->size < 4 || memcmp(p, "\177ELF", 4))
		return OBJ_NOTELF;
	o->why = "its ELF header is damaged";
	if (o->size < EH_SIZE)
		return OBJ_CORRUPT;
	if (p[4] != 2 || p[5] != 1 || p[6] != 1) {
		o->why = "it is not a 64-bit little-endian ELF object";
		return OBJ_CORRUPT;
	}
	if (rd(p + 16, 2) != ET_REL_) {
		o->why = "it is not a relocatable object";
		return OBJ_CORRUPT;
	}
	uint64_t shoff = rd(p + 40, 8), shentsize = rd(p + 58, 2), shnum = rd(p + 60, 2), shstrndx = rd(p + 62, 2);
	o->why = "its section table lies past the end of the file";
	if (shoff == 0 || shoff > o->size || o->size - shoff < SH_SIZE)
		return OBJ_CORRUPT;
	if (shentsize != SH_SIZE) {
		o->why = "its section headers have a size other than ELF64's";
		return OBJ_CORRUPT;
	}
	Sec s0 = sec_at(p + shoff);
	if (shnum == 0)              /* extended numbering: the count in section 0 */
		shnum = s0.size;
	if (shstrndx == SHN_XINDEX_)
		shstrndx = s0.link;
	if (shnum > (o->size - shoff) / SH_SIZE)
		return OBJ_CORRUPT;      /* the table is cut off, or claims more than the file holds */
	if (shstrndx == 0 || shstrndx >= shnum) {
		o->why = "its section names are damaged";
		return OBJ_CORRUPT;
	}
	Sec st = sec_at(p + shoff + shstrndx * SH_SIZE);
	const unsigned char *names = sec_bytes(o, &st);
	if (!names || st.type != SHT_STRTAB_ || st.size == 0 || names[st.size - 1] != 0) {
		o->why = "its section names are damaged";
		return OBJ_CORRUPT;
	}
	const unsigned char *fat = NULL, *con = NULL;
	size_t fatn = 0, conn = 0;
	for (uint64_t i = 1; i < shnum; i++) {
		Sec s = sec_at(p + shoff + i * SH_SIZE);
		if (s.type != SHT_NOBITS_ && !sec_bytes(o, &s)) {
			o->why = "a section lies past the end of the file";
			return OBJ_CORRUPT;
		}
		if (s.name >= st.size) {
			o->why = "its section names are damaged";
			return OBJ_CORRUPT;
		}
		const char *name = (const char *)names + s.name;   /* NUL-ended: the table ends in one */
		int is_con = !strcmp(name, OBJ_SECTION);
		int is_fat = !strcmp(name, "__nv_relfatbin") || !strcmp(name, ".nv_fatbin");
		if (!is_con && !is_fat)
			continue;
		const unsigned char *b = sec_bytes(o, &s);
		if (!b) {
			o->why = arena_printf(c->arena, "its %s section has no bytes in the file (NOBITS)", name);
			return OBJ_CORRUPT;
		}
		if ((is_con && con) || (is_fat && fat)) {
			o->why = arena_printf(c->arena, "it has two %s sections", is_con ? OBJ_SECTION : "fatbin");
			return OBJ_CORRUPT;
		}
		if (is_con)
			con = b, conn = s.size;
		else
			fat = b, fatn = s.size;
	}
	if (fat && scan_fatbin(c, o, fat, fatn))
		return OBJ_CORRUPT;
	o->fatbin = fat;
	o->fatn = fatn;
	if (!con)
		return OBJ_NOCONTRACT;
	if (parse_section(c, o, (const char *)con, conn))
		return OBJ_CORRUPT;
	char dig[65];             /* first: a contract moved onto other code is that, whatever else differs */
	obj_digest(o->component, o->arches_text, o->payload, o->plen, fat ? fat : (const unsigned char *)"",
		fatn, dig);
	if (strcmp(dig, o->digest))
		return OBJ_MISMATCH;
	if (!obj_same_set((const char **)o->arches.v, o->arches.n, (const char **)o->lto.v, o->lto.n)) {
		o->why = "the arches recorded with its contract differ from the LTO targets it holds";
		return OBJ_CORRUPT;
	}
	return OBJ_OK;
}

static const char *list(Ctx *c, const Vec *v)
{
	const char *s = "";
	for (int i = 0; i < v->n; i++)
		s = arena_printf(c->arena, "%s%s%s", s, i ? ", " : "", (const char *)v->v[i]);
	return v->n ? s : "none";
}

ObjErr obj_open(Ctx *c, const char *path, Span from, int quiet, Obj *o)
{
	memset(o, 0, sizeof *o);
	o->data = sys_read_file(path, PLK_MAX_OBJECT, &o->size);
	if (!o->data) {
		int err = errno;
		if (!quiet && !input_refused(c, from, "object", path, err, PLK_MAX_OBJECT)) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0201", from, "cannot read object `%s`", path);
			diag_label(d, from, "named here");
			diag_note(d, "tried: %s (%s)", path, sys_strerror(err));
			diag_help(d, "build it with `plkc -c COMPONENT.plk -o %s`", path);
			diag_end(c, d);
		}
		return err == ENOENT ? OBJ_MISSING : OBJ_UNREADABLE;
	}
	ObjErr r = read_elf(c, o);
	if (r == OBJ_OK || quiet)
		return r;
	Diag *d;
	switch (r) {
	case OBJ_NOTELF: {
		int text = 1;
		for (size_t i = 0; i < o->size && i < 256; i++)
			text &= o->data[i] == '\n' || o->data[i] == '\t' || o->data[i] == '\r' ||
				((unsigned char)o->data[i] >= 0x20 && o->data[i] != 0x7f) || (o->data[i] & 0x80);
		d = diag_new(c, DIAG_ERROR, "E0207", from, "`%s` is not an ELF object", path);
		diag_label(d, from, "named here");
		diag_note(d, o->size < 4 ? "it is %zu bytes long" : "it does not start with the ELF magic bytes (%zu bytes, %s)",
			o->size, text ? "text" : "binary");
		if (text && o->size)
			diag_help(d, "it looks like text: a `.plk` declaration is imported with `use`, without `object`");
		else
			diag_help(d, "component objects come from `plkc -c COMPONENT.plk -o OBJECT.o`");
		break;
	}
	case OBJ_CORRUPT:
		d = diag_new(c, DIAG_ERROR, "E0204", from, "object `%s` is corrupted or truncated", path);
		diag_label(d, from, "named here");
		diag_note(d, "%s (%zu bytes)", o->why ? o->why : "unreadable", o->size);
		diag_help(d, "rebuild it with `plkc -c COMPONENT.plk -o %s`", path);
		break;
	case OBJ_MISMATCH:
		d = diag_new(c, DIAG_ERROR, "E0215", from, "the code in object `%s` is not the code its contract was built with",
			path);
		diag_label(d, from, "named here");
		diag_note(d, "the digest `plkc -c` recorded over the contract of `%s` and its LTO-IR does not match them",
			o->component);
		diag_note(d, "its contract section was copied from another object, or its code changed or was damaged");
		diag_help(d, "rebuild it with `plkc -c COMPONENT.plk -o %s`", path);
		break;
	default:   /* OBJ_NOCONTRACT */
		d = diag_new(c, DIAG_ERROR, "E0205", from, "object `%s` carries no contract", path);
		diag_label(d, from, "named here");
		diag_note(d, "it has no `%s` section%s", OBJ_SECTION,
			o->lto.n ? arena_printf(c->arena, "; it holds LTO-IR for %s", list(c, &o->lto)) : "");
		diag_help(d, "plkc links objects built by `plkc -c COMPONENT.plk -o %s`, which records what the component requires and promises", path);
		break;
	}
	diag_end(c, d);
	obj_fini(o);
	return r;
}

/* Parses the contract text of a valid object into its Component. */
static Component *obj_component(Ctx *c, Obj *o, const char *path, Span from)
{
	int before = c->nerrors;
	int src = ctx_add_source(c, arena_printf(c->arena, "%s(%s)", path, OBJ_SECTION), o->payload, o->plen);
	Module *m = src < 0 ? NULL : parse_source(c, src);
	Component *comp = m && m->comps.n == 1 ? m->comps.v[0] : NULL;
	int64_t v;
	for (int i = 0; comp && i < comp->cparams.n; i++)   /* bound: each constant a number */
		if (object_value(((CParam *)comp->cparams.v[i])->def, &v))
			comp = NULL;
	if (!comp || c->nerrors != before || m->uses.n || m->kernels.n || strcmp(comp->name, o->component)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0204", from, "object `%s` holds a malformed contract", path);
		diag_label(d, from, "named here");
		diag_note(d, "its %s section must hold exactly one component declaration, `%s`, with a number for each constant",
			OBJ_SECTION, o->component);
		diag_help(d, "rebuild it with `plkc -c COMPONENT.plk -o %s`", path);
		diag_end(c, d);
		return NULL;
	}
	comp->object = arena_strdup(c->arena, path);
	comp->digest = arena_strdup(c->arena, o->digest);
	if (!comp->file)
		comp->file = comp->object;
	return comp;
}

int object_value(const Expr *e, int64_t *out)
{
	if (e && e->k == EX_BIN && e->op == '-' && e->a && e->a->k == EX_NEG && e->a->a &&
	    e->a->a->k == EX_NUM && e->a->a->num == INT64_MAX && e->b && e->b->k == EX_NUM && e->b->num == 1) {
		*out = INT64_MIN;   /* contract_print's spelling of it */
		return 0;
	}
	int neg = e && e->k == EX_NEG;
	if (neg)
		e = e->a;
	if (!e || e->k != EX_NUM)
		return -1;
	*out = neg ? -e->num : e->num;
	return 0;
}

int object_serves(const Component *obj, const int64_t *cvals)
{
	for (int i = 0; i < obj->cparams.n; i++) {
		int64_t v;
		if (object_value(((CParam *)obj->cparams.v[i])->def, &v) || v != cvals[i])
			return 0;
	}
	return 1;
}

/* ----------------------------------------------------- stage entries */

Component *object_read_contract(Ctx *c, const char *path, Span from)
{
	Obj o;
	if (obj_open(c, path, from, 0, &o))
		return NULL;
	Component *comp = obj_component(c, &o, path, from);
	obj_fini(&o);
	return comp;
}

int object_check_arch(Ctx *c, const char *path, const ArchInfo *arch, Span from)
{
	Obj o;
	if (obj_open(c, path, from, 0, &o))
		return -1;
	for (int i = 0; i < o.lto.n; i++)
		if (target_serves(o.lto.v[i], arch)) {
			obj_fini(&o);
			return 0;
		}
	/* Whether a rebuild can help depends on what the contract allows. */
	Component *comp = obj_component(c, &o, path, from);
	if (!comp) {
		obj_fini(&o);
		return -1;
	}
	Diag *d = diag_new(c, DIAG_ERROR, "E0206", from, "object `%s` has no LTO target for %s", path, arch->name);
	diag_label(d, from, "named here");
	diag_note(d, "it holds LTO-IR for: %s", list(c, &o.lto));
	if (o.nother)
		diag_note(d, "its other %d fatbin entr%s (PTX or cubin) cannot take part in link-time optimisation",
			o.nother, o.nother == 1 ? "y" : "ies");
	if (object_arch_allowed(comp, arch))
		diag_help(d, "rebuild it for this arch: `plkc -c COMPONENT.plk -arch %s -o %s`", arch->name, path);
	else
		diag_help(d, "component `%s` requires arch >= %s%s: link for one of %s instead",
			comp->name, comp->arch_min ? comp->arch_min : "?", comp->features.n ? " and the features it needs" : "",
			list(c, &o.lto));
	diag_end(c, d);
	obj_fini(&o);
	return -1;
}

int object_emit_contract(Ctx *c, const char *path, FILE *out)
{
	Obj o;
	if (obj_open(c, path, span_none, 0, &o))
		return -1;
	Component *comp = obj_component(c, &o, path, span_none);
	if (comp) {
		fprintf(out, "// object %s: LTO-IR for %s\n", path, list(c, &o.lto));
		fprintf(out, "// built with nvcc %s %s\n", o.toolkit, o.flags);
		fprintf(out, "// hash %s\n", o.hash);
		fprintf(out, "// digest %s\n", o.digest);
		fwrite(o.payload, 1, o.plen, out);
	}
	obj_fini(&o);
	return comp ? 0 : -1;
}
