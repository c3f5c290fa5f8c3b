/* lexer.h: the lexer's state, shared by lexer.re and parser.y. */
#ifndef LEXER_H
#define LEXER_H
#include "plk.h"

enum { LEX_MAX_DEPTH = 256 };   /* brackets open at once; beyond: E0109 */

typedef struct Lexer {
	Ctx *c;
	int src;
	const char *start, *cur, *lim, *line_start;
	int line;
	int stop;                   /* an unrecoverable error: return END */
	int depth;                  /* brackets open */
	Span prev, last;            /* the two most recent tokens */
	Span open[LEX_MAX_DEPTH];   /* where each open bracket is */
	char open_ch[LEX_MAX_DEPTH];
	/* what the parser is building */
	Module *mod;
	Component *comp;            /* the component whose items are parsed */
	Kernel *kernel;             /* the kernel whose items are parsed */
	Smem *last_smem;            /* for `, align A` / `, live P` */
	Port *last_port;            /* for `handoff` / `split` */
	Vec pending_cparams, pending_kparams, pending_features;
	Vec *names;              /* where `early` / `zeroed` push their IDENTs */
} Lexer;

void lexer_init(Lexer *lx, Ctx *c, int src);
#endif
