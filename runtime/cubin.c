/* cubin.c: the parameter count of a kernel in a cubin, read from its ELF
 * `.nv.info.ENTRY` section, so that the load-time check never has to ask
 * the driver about a parameter past the last one (cuFuncGetParamInfo
 * answers CUDA_ERROR_INVALID_VALUE there, which compute-sanitizer's API
 * check reports as an error on every load). Pure: no CUDA calls.
 *
 * `.nv.info.ENTRY` is a list of 4-byte-aligned attribute records:
 *
 *   u8 format, u8 attribute, then for format 4 (EIFMT_SVAL) a u16 size
 *   and that many bytes; every other format holds a u16 value
 *
 * EIATTR_KPARAM_INFO (0x17) has one record per parameter: u32 index,
 * u16 ordinal, u16 offset, u32 flags (size in bytes in bits 18-31). */
#include "plan.h"

#include <stdio.h>
#include <string.h>

#define EIFMT_SVAL 4
#define EIATTR_KPARAM_INFO 0x17

static uint64_t rd(const unsigned char *p, int n)
{
	uint64_t v = 0;
	for (int i = n - 1; i >= 0; i--)
		v = v << 8 | p[i];
	return v;
}

/* The section named name: its bytes in *sec and *len; 0 when found. */
static int elf_section(const unsigned char *img, size_t size, const char *name, const unsigned char **sec,
                       size_t *len)
{
	if (size < 64 || memcmp(img, "\177ELF", 4) || img[4] != 2 || img[5] != 1)
		return -1;   /* 64-bit little-endian ELF only: what cubins are */
	uint64_t shoff = rd(img + 0x28, 8), shent = rd(img + 0x3a, 2), shnum = rd(img + 0x3c, 2),
	         shstr = rd(img + 0x3e, 2);
	if (shent < 64 || shstr >= shnum || shoff > size || shnum > (size - shoff) / shent)
		return -1;
	const unsigned char *strsh = img + shoff + shstr * shent;
	uint64_t stroff = rd(strsh + 0x18, 8), strsize = rd(strsh + 0x20, 8);
	if (stroff > size || strsize > size - stroff)
		return -1;
	size_t nlen = strlen(name);
	for (uint64_t i = 0; i < shnum; i++) {
		const unsigned char *sh = img + shoff + i * shent;
		uint64_t n = rd(sh, 4), off = rd(sh + 0x18, 8), sz = rd(sh + 0x20, 8);
		if (n >= strsize || strsize - n <= nlen || memcmp(img + stroff + n, name, nlen + 1))
			continue;
		if (off > size || sz > size - off)
			return -1;
		*sec = img + off;
		*len = (size_t)sz;
		return 0;
	}
	return -1;
}

int plk_cubin_param_count(const void *image, size_t size, const char *entry)
{
	char name[256];
	const unsigned char *s;
	size_t len;
	if (!image || snprintf(name, sizeof name, ".nv.info.%s", entry) >= (int)sizeof name
	    || elf_section(image, size, name, &s, &len))
		return -1;
	int count = 0, found = 0;
	for (size_t at = 0; at + 4 <= len;) {
		unsigned fmt = s[at], attr = s[at + 1];
		size_t n = fmt == EIFMT_SVAL ? (size_t)rd(s + at + 2, 2) : 0;
		if (n > len - at - 4)
			return -1;
		if (fmt == EIFMT_SVAL && attr == EIATTR_KPARAM_INFO && n >= 8) {
			int ordinal = (int)rd(s + at + 8, 2);
			if (ordinal + 1 > count)
				count = ordinal + 1;
			found = 1;
		}
		at += 4 + n;
	}
	return found ? count : -1;
}
