/* arena.c: one allocator for everything a compilation builds; freed at once. */
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "plk.h"

typedef struct Block {
	struct Block *next;
	size_t used, cap;
	_Alignas(16) unsigned char data[];
} Block;

struct Arena {
	Block *head;
};

static void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p) {
		fputs("plkc: out of memory\n", stderr);
		abort();
	}
	return p;
}

Arena *arena_new(void)
{
	Arena *a = xmalloc(sizeof *a);
	a->head = NULL;
	return a;
}

void arena_free(Arena *a)
{
	if (!a)
		return;
	for (Block *b = a->head, *n; b; b = n) {
		n = b->next;
		free(b);
	}
	free(a);
}

/* -DPLK_ARENA_EXACT (a debugging build, with -fsanitize=address): every
 * allocation a block of its own size, so that a write past one is
 * caught, not lost inside a shared block. */
void *arena_alloc(Arena *a, size_t n)
{
	n = (n + 15) & ~(size_t)15;
	Block *b = a->head;
#ifdef PLK_ARENA_EXACT
	const int fresh = 1;
	const size_t cap = n;
#else
	const int fresh = !b || b->cap - b->used < n;
	const size_t cap = n > 65536 ? n : 65536;
#endif
	if (fresh) {
		b = xmalloc(sizeof *b + cap);
		b->cap = cap;
		b->used = 0;
		b->next = a->head;
		a->head = b;
	}
	void *p = b->data + b->used;
	b->used += n;
	memset(p, 0, n);
	return p;
}

char *arena_strndup(Arena *a, const char *s, size_t n)
{
	char *p = arena_alloc(a, n + 1);
	memcpy(p, s, n);
	p[n] = 0;
	return p;
}

char *arena_strdup(Arena *a, const char *s)
{
	return arena_strndup(a, s, strlen(s));
}

char *arena_printf(Arena *a, const char *fmt, ...)
{
	va_list ap, aq;
	va_start(ap, fmt);
	va_copy(aq, ap);
	int n = vsnprintf(NULL, 0, fmt, ap);
	va_end(ap);
	char *p = arena_alloc(a, (size_t)n + 1);
	vsnprintf(p, (size_t)n + 1, fmt, aq);
	va_end(aq);
	return p;
}

void vec_push(Arena *a, Vec *v, void *p)
{
	if (v->n == v->cap) {
		int cap = v->cap ? v->cap * 2 : 8;
		void **nv = arena_alloc(a, sizeof(void *) * (size_t)cap);
		if (v->n)
			memcpy(nv, v->v, sizeof(void *) * (size_t)v->n);
		v->v = nv;
		v->cap = cap;
	}
	v->v[v->n++] = p;
}

/* ------------------------------------------------------------ NameMap */

static uint32_t name_hash(const char *s)
{
	uint32_t h = 2166136261u;
	for (; *s; s++)
		h = (h ^ (unsigned char)*s) * 16777619u;
	return h;
}

void *namemap_get(const NameMap *m, const char *key)
{
	if (!m->cap)
		return NULL;
	for (uint32_t i = name_hash(key) & (uint32_t)(m->cap - 1);; i = (i + 1) & (uint32_t)(m->cap - 1)) {
		if (!m->keys[i])
			return NULL;
		if (!strcmp(m->keys[i], key))
			return m->vals[i];
	}
}

void namemap_put(Arena *a, NameMap *m, const char *key, void *val)
{
	if (2 * (m->n + 1) > m->cap) {          /* at most half full */
		NameMap g = { 0 };
		g.cap = m->cap ? m->cap * 2 : 64;
		g.keys = arena_alloc(a, sizeof *g.keys * (size_t)g.cap);
		g.vals = arena_alloc(a, sizeof *g.vals * (size_t)g.cap);
		for (int i = 0; i < m->cap; i++)
			if (m->keys[i])
				namemap_put(a, &g, m->keys[i], m->vals[i]);
		*m = g;
	}
	uint32_t i = name_hash(key) & (uint32_t)(m->cap - 1);
	while (m->keys[i] && strcmp(m->keys[i], key))
		i = (i + 1) & (uint32_t)(m->cap - 1);
	if (!m->keys[i])
		m->n++;
	m->keys[i] = key;
	m->vals[i] = val;
}
