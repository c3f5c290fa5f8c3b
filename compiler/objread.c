/* objread.c: reading a component object back: its .plk.contract section
 * (format in object.c) and the LTO targets of its fatbin, whose arches
 * are cross-checked with those the section records. The fatbin (section
 * __nv_relfatbin) is a header { u32 magic 0xBA55ED50, u16 version, u16
 * header size, u64 body size } followed by entries { u16 kind (8: LTO-IR),
 * u16, u32 header size, u64 payload size, ..., u32 sm at 28, u64 flags at
 * 40 (0x100000: 'a' target, 0x200000: 'f' target) }. */
#include <errno.h>
#include <gelf.h>
#include <libelf.h>
#include <stdlib.h>
#include <string.h>
#include "plk.h"

/* ----------------------------------------------------- arch selection */

/* "sm_90a" -> 90 and 'a'; 0 when not an arch name. */
static int arch_num(const char *name, char *suffix)
{
	int sm = 0;
	*suffix = 0;
	if (!name || strncmp(name, "sm_", 3))
		return 0;
	const char *p = name + 3;
	while (*p >= '0' && *p <= '9')
		sm = sm * 10 + (*p++ - '0');
	if (*p == 'a' || *p == 'f')
		*suffix = *p++;
	return *p ? 0 : sm;
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
			return -1;
		uint64_t hs = rd(p + off + 6, 2), fs = rd(p + off + 8, 8);
		if (hs < 16 || fs > n - off || hs > n - off - fs)
			return -1;
		size_t e = off + hs, end = off + hs + fs;
		while (e < end) {
			if (end - e < 48)
				return -1;
			uint64_t kind = rd(p + e, 2), ehs = rd(p + e + 4, 4), psz = rd(p + e + 8, 8);
			if (ehs < 48 || ehs > end - e || psz > end - e - ehs)
				return -1;
			unsigned sm = (unsigned)rd(p + e + 28, 4);
			uint64_t fl = rd(p + e + 40, 8);
			if (kind == 8 && o->nlto < OBJ_MAX_ARCHES)
				o->lto[o->nlto++] = arena_printf(c->arena, "sm_%u%s", sm,
					fl & 0x100000 ? "a" : fl & 0x200000 ? "f" : "");
			else if (kind != 8)
				o->nother++;
			e += ehs + psz;
		}
		off = end;
	}
	return 0;
}

static const char *hdr_field(Ctx *c, const char *h, size_t n, const char *key)
{
	size_t kl = strlen(key);
	for (const char *p = h; p < h + n;) {
		const char *nl = memchr(p, '\n', (size_t)(h + n - p));
		if (!nl)
			nl = h + n;
		if ((size_t)(nl - p) > kl && !strncmp(p, key, kl) && p[kl] == ' ')
			return arena_strndup(c->arena, p + kl + 1, (size_t)(nl - p - (ptrdiff_t)kl - 1));
		p = nl + 1;
	}
	return NULL;
}

static int is_hex64(const char *s)
{
	if (!s || strlen(s) != 64)
		return 0;
	for (; *s; s++)
		if (!((*s >= '0' && *s <= '9') || (*s >= 'a' && *s <= 'f')))
			return 0;
	return 1;
}

/* The .plk.contract section's header and payload. */
static int parse_section(Ctx *c, Obj *o, const char *d, size_t n)
{
	const char *sep = NULL;
	for (size_t i = 0; i + 1 < n; i++)
		if (d[i] == '\n' && d[i + 1] == '\n') {
			sep = d + i;
			break;
		}
	if (n < 15 || strncmp(d, "plk.contract 1\n", 15) || !sep) {
		o->why = "its .plk.contract section has no valid header";
		return -1;
	}
	size_t hn = (size_t)(sep - d) + 1;
	o->component = hdr_field(c, d, hn, "component");
	o->toolkit = hdr_field(c, d, hn, "toolkit");
	o->flags = hdr_field(c, d, hn, "flags");
	const char *hash = hdr_field(c, d, hn, "hash"), *src = hdr_field(c, d, hn, "source"),
		*con = hdr_field(c, d, hn, "contract"), *len = hdr_field(c, d, hn, "length"),
		*arches = hdr_field(c, d, hn, "arches");
	if (!o->component || !o->toolkit || !o->flags || !is_hex64(hash) || !is_hex64(src) ||
	    !is_hex64(con) || !len || !arches) {
		o->why = "its .plk.contract header lacks a field";
		return -1;
	}
	memcpy(o->hash, hash, 65);
	memcpy(o->srchash, src, 65);
	memcpy(o->conhash, con, 65);
	char *endp;
	unsigned long long l = strtoull(len, &endp, 10);
	size_t avail = n - hn - 1;
	if (*endp || l != avail) {
		o->why = arena_printf(c->arena, "its contract is %zu bytes, its header says %s", avail, len);
		return -1;
	}
	o->payload = arena_strndup(c->arena, sep + 2, (size_t)l);
	o->plen = (size_t)l;
	char dig[65];
	sha256_of(o->payload, o->plen, dig);
	if (strcmp(dig, o->conhash) || strlen(o->payload) != o->plen) {
		o->why = "its contract does not match the digest recorded with it";
		return -1;
	}
	for (char *a = (char *)arches, *t; (t = strtok_r(a, " ", &a)) && o->narches < OBJ_MAX_ARCHES;)
		o->arches[o->narches++] = t;
	return 0;
}

int obj_same_set(const char **a, int na, const char **b, int nb)
{
	if (na != nb)
		return 0;
	for (int i = 0; i < na; i++) {
		int found = 0;
		for (int j = 0; j < nb && !found; j++)
			found = !strcmp(a[i], b[j]);
		if (!found)
			return 0;
	}
	return 1;
}

static ObjErr read_elf(Ctx *c, Obj *o)
{
	const unsigned char *p = (const unsigned char *)o->data;
	if (o->size < 4 || memcmp(p, ELFMAG, SELFMAG))
		return OBJ_NOTELF;
	if (elf_version(EV_CURRENT) == EV_NONE) {
		o->why = "libelf is unusable";
		return OBJ_CORRUPT;
	}
	Elf *e = elf_memory(o->data, o->size);
	if (!e) {
		o->why = arena_printf(c->arena, "libelf: %s", elf_errmsg(-1));
		return OBJ_CORRUPT;
	}
	ObjErr r = OBJ_CORRUPT;
	GElf_Ehdr eh;
	size_t shstr, nsec;
	if (elf_kind(e) != ELF_K_ELF || !gelf_getehdr(e, &eh)) {
		o->why = "its ELF header is damaged";
		goto out;
	}
	if (eh.e_type != ET_REL) {
		o->why = "it is not a relocatable object";
		goto out;
	}
	if (elf_getshdrnum(e, &nsec) || elf_getshdrstrndx(e, &shstr) ||
	    eh.e_shoff > o->size || (uint64_t)nsec * eh.e_shentsize > o->size - eh.e_shoff) {
		o->why = "its section table lies past the end of the file";
		goto out;
	}
	const unsigned char *fat = NULL, *con = NULL;
	size_t fatn = 0, conn = 0;
	for (Elf_Scn *s = NULL; (s = elf_nextscn(e, s));) {
		GElf_Shdr sh;
		if (!gelf_getshdr(s, &sh)) {
			o->why = arena_printf(c->arena, "libelf: %s", elf_errmsg(-1));
			goto out;
		}
		if (sh.sh_type != SHT_NOBITS && (sh.sh_offset > o->size || sh.sh_size > o->size - sh.sh_offset)) {
			o->why = "a section lies past the end of the file";
			goto out;
		}
		const char *name = elf_strptr(e, shstr, sh.sh_name);
		if (!name) {
			o->why = "its section names are damaged";
			goto out;
		}
		if (!strcmp(name, OBJ_SECTION)) {
			con = p + sh.sh_offset;
			conn = sh.sh_size;
		} else if (!strcmp(name, "__nv_relfatbin") || !strcmp(name, ".nv_fatbin")) {
			fat = p + sh.sh_offset;
			fatn = sh.sh_size;
		}
	}
	if (fat && scan_fatbin(c, o, fat, fatn)) {
		o->why = "its fatbin is damaged";
		goto out;
	}
	if (!con) {
		r = OBJ_NOCONTRACT;
		goto out;
	}
	if (parse_section(c, o, (const char *)con, conn))
		goto out;
	if (!obj_same_set(o->arches, o->narches, o->lto, o->nlto)) {
		o->why = "the arches recorded with its contract differ from the LTO targets it holds";
		goto out;
	}
	r = OBJ_OK;
out:
	elf_end(e);
	return r;
}

static const char *list(Ctx *c, const char **v, int n)
{
	const char *s = "";
	for (int i = 0; i < n; i++)
		s = arena_printf(c->arena, "%s%s%s", s, i ? ", " : "", v[i]);
	return n ? s : "none";
}

ObjErr obj_open(Ctx *c, const char *path, Span from, int quiet, Obj *o)
{
	memset(o, 0, sizeof *o);
	o->data = sys_read_file(path, &o->size);
	if (!o->data) {
		int err = errno;
		if (!quiet) {
			Diag *d = diag_new(c, DIAG_ERROR, "E0201", from, "cannot read object `%s`", path);
			diag_label(d, from, "named here");
			diag_note(d, "tried: %s (%s)", path, strerror(err));
			diag_help(d, "build it with `plkc -c COMPONENT.plk -o %s`", path);
			diag_end(c, d);
		}
		return OBJ_MISSING;
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
	default:   /* OBJ_NOCONTRACT */
		d = diag_new(c, DIAG_ERROR, "E0205", from, "object `%s` carries no contract", path);
		diag_label(d, from, "named here");
		diag_note(d, "it has no `%s` section%s", OBJ_SECTION,
			o->nlto ? arena_printf(c->arena, "; it holds LTO-IR for %s", list(c, o->lto, o->nlto)) : "");
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
	if (!m || c->nerrors != before || m->comps.n != 1 || m->uses.n || m->kernels.n ||
	    strcmp(((Component *)m->comps.v[0])->name, o->component)) {
		Diag *d = diag_new(c, DIAG_ERROR, "E0204", from, "object `%s` holds a malformed contract", path);
		diag_label(d, from, "named here");
		diag_note(d, "its %s section must hold exactly one component declaration, `%s`", OBJ_SECTION, o->component);
		diag_help(d, "rebuild it with `plkc -c COMPONENT.plk -o %s`", path);
		diag_end(c, d);
		return NULL;
	}
	Component *comp = m->comps.v[0];
	comp->object = arena_strdup(c->arena, path);
	if (!comp->file)
		comp->file = comp->object;
	return comp;
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
	for (int i = 0; i < o.nlto; i++)
		if (target_serves(o.lto[i], arch)) {
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
	diag_note(d, "it holds LTO-IR for: %s", list(c, o.lto, o.nlto));
	if (o.nother)
		diag_note(d, "its other %d fatbin entr%s (PTX or cubin) cannot take part in link-time optimisation",
			o.nother, o.nother == 1 ? "y" : "ies");
	if (object_arch_allowed(comp, arch))
		diag_help(d, "rebuild it for this arch: `plkc -c COMPONENT.plk -arch %s -o %s`", arch->name, path);
	else
		diag_help(d, "component `%s` requires arch >= %s%s: link for one of %s instead",
			comp->name, comp->arch_min ? comp->arch_min : "?", comp->features.n ? " and the features it needs" : "",
			list(c, o.lto, o.nlto));
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
		fprintf(out, "// object %s: LTO-IR for %s\n", path, list(c, o.lto, o.nlto));
		fprintf(out, "// built with nvcc %s %s\n", o.toolkit, o.flags);
		fprintf(out, "// hash %s\n", o.hash);
		fwrite(o.payload, 1, o.plen, out);
	}
	obj_fini(&o);
	return comp ? 0 : -1;
}
