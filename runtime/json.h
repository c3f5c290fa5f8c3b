/* json.h: a small JSON reader (RFC 8259) for the kernel manifest.
 * The whole document becomes a tree; every node belongs to the document
 * and is freed with it. */
#ifndef PLK_JSON_H
#define PLK_JSON_H

#include <stddef.h>
#include <stdint.h>

typedef enum { PJ_NULL, PJ_BOOL, PJ_NUM, PJ_STR, PJ_ARR, PJ_OBJ } pj_kind;

typedef struct pj_val {
	pj_kind k;
	int b;                  /* PJ_BOOL */
	double num;             /* PJ_NUM */
	int64_t i;              /* PJ_NUM, when is_int */
	int is_int;             /* an integer literal that fits int64 */
	char *s;                /* PJ_STR (NUL-terminated UTF-8; may hold NULs) */
	size_t slen;
	struct pj_val *items;   /* PJ_ARR, PJ_OBJ: n values */
	char **keys;            /* PJ_OBJ: n keys */
	int n;
} pj_val;

/* Parses text[0..len). NULL on error, with "line L, column C: what" in err. */
pj_val *pj_parse(const char *text, size_t len, char *err, size_t errlen);
void pj_free(pj_val *v);

/* The value under key (the last one, if repeated); NULL if absent or v is
 * not an object. */
const pj_val *pj_get(const pj_val *v, const char *key);
const char *pj_kind_name(pj_kind k);

#endif
