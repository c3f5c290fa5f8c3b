/* driver.h: what plkc's command line shares between its three files:
 * main.c (the pipeline, stage by stage), cli.c (the options) and
 * output.c (every file plkc writes: atomically, and named in -MD's
 * dependency file). */
#ifndef PLK_DRIVER_H
#define PLK_DRIVER_H

#include "plk.h"

/* --emit=KIND: the stage whose result plkc writes (EMIT_DEFAULT: link) */
typedef enum {
	EMIT_DEFAULT, EMIT_AST, EMIT_GRAPH, EMIT_DOT, EMIT_PLACEMENT, EMIT_GLUE_LL,
	EMIT_PTX, EMIT_CUBIN, EMIT_MONOLITH, EMIT_CONTRACT, EMIT_MANIFEST, EMIT_HEADER, EMIT_MAP,
	EMIT_SCHEDULE
} Emit;

/* --emit=KIND: the names, by Emit */
extern const char *const emit_names[];

typedef struct Options {
	const char *input;
	const char *out;             /* -o; "-": stdout */
	const char *manifest;        /* --manifest FILE */
	const char *kernel;          /* --kernel NAME: one of several */
	const char *component;       /* --component NAME: one of several */
	const char *depfile;         /* -MF FILE */
	int md;                      /* -MD */
	const char *arches[8];
	int narches;
	Emit emit;
	int check_only, compile_only;
	int timeline;                /* --timeline: a megakernel records each block's pieces */
	Vec targets;                 /* const char*: files written, the dependency file's targets */
	Vec outs;                    /* Out*: text outputs being written (out_open) */
} Options;

/* ---------------------------------------------------------------- cli.c */

extern const char cli_usage[];              /* --help */
/* "plkc: MESSAGE (see plkc --help)" on stderr; 2, the bad command line's status */
int cli_bad_usage(const char *fmt, const char *arg);
/* argv into o (and c's flags: -I, -D, -Xnvcc, -v, diagnostics); 0, or 2 */
int cli_parse(Ctx *c, Options *o, int argc, char **argv);

/* ------------------------------------------------------------- output.c */

/* The linked binary's path: -o, stdout ("-") for --emit=cubin, else
 * KERNEL.cubin (KERNEL.fatbin for several arches); NULL: no binary. */
const char *out_binary_path(Ctx *c, const Options *o, const char *kernel, int narches);
/* 2 when a binary would go to stdout without --manifest, or to a terminal */
int out_check_stdout(Ctx *c, const Options *o);
void out_cannot_write(Ctx *c, const char *path);     /* E0603, with errno's reason */
/* A text output: collected in memory, written atomically by out_close
 * (stdout for NULL or "-"). NULL after E0603. */
FILE *out_open(Ctx *c, Options *o, const char *path);
int out_close(Ctx *c, Options *o, FILE *f, const char *path);     /* 0: all written */
const char *out_with_ext(Ctx *c, const char *out, const char *ext);   /* k.cubin -> k.EXT */
/* E0606 when out is a file this build reads */
int out_refuse_input(Ctx *c, const Options *o, const Program *p, const char *out);
int out_depfile(Ctx *c, Options *o, const Program *p);           /* -MD */
/* A binary and its manifest (written by fn, given the binary's name as
 * the manifest records it), both or neither; the binary alone to stdout. */
typedef int (*ManifestFn)(Ctx *c, const void *ud, const char *binary, FILE *f);
int out_linked(Ctx *c, Options *o, const char *out, const void *bin, size_t size, ManifestFn fn, const void *ud);

#endif
