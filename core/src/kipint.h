/*
** kipint.h — internal definitions shared by every file of libkipcore:
** the arena allocator, the string builder, JSON and error helpers, limits
** and source positions. The AST is ast.h's.
*/
#ifndef KIPINT_H
#define KIPINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <jansson.h>
#include "kip.h"

/* ---- limits (RC11 leaves these to the engine; documented in docs/) ---- */
#define KIP_MAX_COMMAND_BYTES (256 * 1024)
#define KIP_MAX_NESTING 64
/* a parameter value nests at most this deep, so that the capsule EXPORT
** writes for it (the value inside UPSERT, CONCEPT and SET ATTRIBUTES)
** re-imports within KIP_MAX_NESTING */
#define KIP_MAX_VALUE_DEPTH 62
#define KIP_MAX_CHAIN_TERMS 4096 /* operands of one && or || chain in an expression */
#define KIP_MAX_BATCH 256
#define KIP_DEFAULT_MAX_HOPS 10
#define KIP_DEFAULT_MAX_ROWS 100000
#define KIP_DEFAULT_DEADLINE_MS 30000
/* FIND with an unconstrained (?s, ?p, ?o) and no LIMIT is refused (KIP_4002)
** above this many propositions */
#define KIP_EXPLORATION_THRESHOLD 10000

#if defined(__GNUC__)
#define KIP_PRINTF(a, b) __attribute__((format(printf, a, b)))
#else
#define KIP_PRINTF(a, b)
#endif

/* ---- errors ---- */
int kip_err(kip_error *e, int code, const char *hint, const char *fmt, ...) KIP_PRINTF(4, 5);
int kip_err_at(kip_error *e, int code, int line, int col, const char *hint, const char *fmt, ...)
    KIP_PRINTF(6, 7);
void kip_err_clear(kip_error *e);

/* ---- arena: bump allocator owning AST nodes, strings and json refs ---- */
typedef struct kip_arena {
  struct arena_chunk *head; /* newest chunk */
  struct arena_chunk *spare; /* chunks kip_arena_reset kept for the next use */
  json_t **refs;            /* json values decref'd when the arena is freed */
  size_t nrefs, caprefs;
  void **blocks;            /* malloc'd blocks freed with the arena */
  size_t nblocks, capblocks;
  void *tokens;             /* the lexer's token array (lexer.c), kept by kip_arena_reset */
  size_t tokens_bytes;      /* its size */
  int tokens_used;          /* it holds the tokens of a text lexed since the last reset */
} kip_arena;
void kip_arena_init(kip_arena *a);
void kip_arena_free(kip_arena *a);
/* empty the arena for its next use, keeping its memory (a bulk load's
** commands: request.c) */
void kip_arena_reset(kip_arena *a);
void *kip_alloc(kip_arena *a, size_t n);             /* zeroed */
char *kip_strndup(kip_arena *a, const char *s, size_t n);
json_t *kip_arena_own(kip_arena *a, json_t *v);     /* takes the reference */
void *kip_arena_adopt(kip_arena *a, void *block);   /* frees a malloc'd block with the arena */

/* ---- growable byte buffer ---- */
typedef struct kip_buf {
  char *p;
  size_t len, cap;
  int oom;
} kip_buf;
void kip_buf_init(kip_buf *b);
void kip_buf_free(kip_buf *b);
void kip_buf_add(kip_buf *b, const char *s, size_t n);
void kip_buf_adds(kip_buf *b, const char *s);
void kip_buf_add_utf8(kip_buf *b, unsigned cp); /* code point cp as UTF-8 */
/* the length of the valid UTF-8 sequence at p (RFC 3629: no overlongs, no
** surrogates, nothing above U+10FFFF), 0 when there is none before e */
size_t kip_utf8_len(const unsigned char *p, const unsigned char *e);
/* n bytes at p appended as lowercase hex digits */
void kip_buf_hex(kip_buf *b, const void *p, size_t n);
/* the four hex digits at p (before e) into *out; 0 when they are not */
int kip_hex4(const char *p, const char *e, unsigned *out);
void kip_buf_addc(kip_buf *b, char c);
void kip_buf_printf(kip_buf *b, const char *fmt, ...) KIP_PRINTF(2, 3);
/* vsnprintf, fast for plain %s %.*s %c %d %u %x (l, ll, z) and %% */
int kip_vsnprintf(char *dst, size_t cap, const char *fmt, va_list ap);
int kip_snprintf(char *dst, size_t cap, const char *fmt, ...) KIP_PRINTF(3, 4);
void kip_buf_json_str(kip_buf *b, const char *s, size_t n); /* quoted + escaped */
char *kip_buf_detach(kip_buf *b);                           /* NUL-terminated, caller frees */

/* ---- JSON helpers (json.c) ---- */
void kip_json_write(kip_buf *b, const json_t *v);  /* compact, shortest round-trip reals */
char *kip_json_dump(const json_t *v);              /* malloc'd */
int kip_json_has_nul(const json_t *v);              /* 1 when a string inside contains U+0000 */
int kip_json_depth(const json_t *v);                 /* 0 for scalars, 1 + deepest child for containers */
/* JSON text from a client: a leading BOM is skipped, integers beyond 64
** bits are read as reals, lone surrogate escapes as U+FFFD */
json_t *kip_json_parse_request(const char *s, size_t n, kip_error *err);
json_t *kip_json_parse(const char *s, size_t n, kip_error *err);
/* the same value as jansson for the JSON it reads fast, else NULL (then ask jansson) */
json_t *kip_json_parse_fast(const char *s, size_t n);
void kip_json_write_error(kip_buf *b, const kip_error *e);
/* Shallow-merge src keys into dst (new reference returned). */
json_t *kip_json_merge(const json_t *dst, const json_t *src);

/* ---- source positions ---- */
typedef struct kip_pos {
  int line, col;
} kip_pos;

#endif
