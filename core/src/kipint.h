/*
** kipint.h — internal definitions shared by the files of libkipcore:
** the arena allocator, the string builder, error helpers, limits and the
** AST produced by parser.c and consumed by the executors and the compiler.
*/
#ifndef KIPINT_H
#define KIPINT_H

#include <stddef.h>
#include <stdint.h>
#include <stdarg.h>
#include <jansson.h>
#include "kip.h"
#include "statements.h"

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
void kip_json_write_error(kip_buf *b, const kip_error *e);
/* Shallow-merge src keys into dst (new reference returned). */
json_t *kip_json_merge(const json_t *dst, const json_t *src);

/* ---- source positions ---- */
typedef struct kip_pos {
  int line, col;
} kip_pos;

/* ---- AST ---- */
typedef struct ast_concept {
  kip_pos pos;
  const char *var; /* binding variable or NULL */
  json_t *id;      /* string values or NULL when absent */
  json_t *type;
  json_t *name;
} ast_concept;

enum { PRED_LITERAL, PRED_ALT, PRED_HOPS, PRED_VAR };
typedef struct ast_pred {
  int kind;
  kip_pos pos;
  const char **names; /* literal / alternatives / hop predicate */
  int nnames;
  int min, max;       /* hops; max < 0 = unbounded */
  const char *var;    /* predicate variable */
} ast_pred;

enum { EP_VAR = 1, EP_CONCEPT, EP_PROP };
struct ast_prop;
typedef struct ast_endpoint {
  int kind;
  kip_pos pos;
  const char *var;          /* EP_VAR: query variable or UPSERT handle */
  ast_concept *concept;     /* EP_CONCEPT */
  struct ast_prop *prop;    /* EP_PROP */
} ast_endpoint;

typedef struct ast_prop {
  kip_pos pos;
  const char *var; /* binding variable or NULL */
  json_t *id;      /* (id: "...") form when non-NULL */
  ast_endpoint subject, object;
  ast_pred pred;
} ast_prop;

/* path fields */
enum { F_NONE, F_ID, F_TYPE, F_NAME, F_SUBJECT, F_PREDICATE, F_OBJECT, F_ATTRS, F_META };
/* expression kinds */
enum { E_LIT = 1, E_VAR, E_PATH, E_BIN, E_NOT, E_FUNC, E_AGG, E_LIST };
/* binary operators */
enum { OP_OR = 1, OP_AND, OP_EQ, OP_NE, OP_LT, OP_LE, OP_GT, OP_GE };
/* functions: filter functions and update expressions */
enum {
  FN_IN = 1, FN_IS_NULL, FN_IS_NOT_NULL, FN_CONTAINS, FN_STARTS_WITH, FN_ENDS_WITH, FN_REGEX,
  FN_ADD, FN_MUL, FN_CLAMP, FN_COALESCE
};
/* aggregates */
enum { AGG_COUNT = 1, AGG_SUM, AGG_AVG, AGG_MIN, AGG_MAX };

typedef struct ast_expr {
  int kind;
  kip_pos pos;
  json_t *lit;          /* E_LIT */
  const char *var;      /* E_VAR, E_PATH */
  int field;            /* E_PATH */
  const char *key;      /* E_PATH on attributes/metadata; NULL = whole object */
  int op;               /* E_BIN operator, E_FUNC function, E_AGG aggregate */
  int distinct;         /* COUNT(DISTINCT ...) */
  struct ast_expr **args;
  int nargs;
} ast_expr;

enum { W_CONCEPT = 1, W_PROP, W_FILTER, W_OPTIONAL, W_NOT, W_UNION };
struct ast_group;
typedef struct ast_where {
  int kind;
  kip_pos pos;
  ast_concept *concept;
  ast_prop *prop;
  ast_expr *filter;
  struct ast_group *group;
} ast_where;

typedef struct ast_group {
  kip_pos pos;
  ast_where **items;
  int n;
} ast_group;

typedef struct ast_order {
  ast_expr *expr;
  int desc;
} ast_order;

typedef struct ast_find {
  ast_expr **proj;
  int nproj;
  ast_group *where;
  ast_order *order;
  int norder;
  int64_t limit;   /* -1 = none */
  json_t *cursor;  /* string or NULL */
  kip_pos limit_pos, cursor_pos;
} ast_find;

typedef struct ast_setprop {
  kip_pos pos;
  json_t *pred; /* string */
  ast_endpoint target;
  json_t *meta; /* object or NULL */
} ast_setprop;

enum { B_CONCEPT = 1, B_PROP };
typedef struct ast_block {
  int kind;
  kip_pos pos;
  const char *handle;
  ast_concept *concept;
  ast_prop *prop;
  int has_expect;
  int64_t expect;
  kip_pos expect_pos;
  json_t *attrs; /* object or NULL */
  ast_setprop *props;
  int nprops;
  json_t *meta; /* object or NULL */
} ast_block;

typedef struct ast_upsert {
  ast_block **blocks;
  int n;
  json_t *meta; /* statement-level default metadata or NULL */
} ast_upsert;

typedef struct ast_assign {
  kip_pos pos;
  const char *key;
  ast_expr *expr;
} ast_assign;

typedef struct ast_update {
  const char *target;
  kip_pos target_pos;
  ast_assign *attrs;
  int nattrs, has_attrs;
  ast_assign *meta;
  int nmeta, has_meta;
  ast_group *where;
  int64_t limit;
} ast_update;

typedef struct ast_merge {
  const char *source, *target;
  kip_pos source_pos, target_pos;
  ast_group *where;
} ast_merge;

enum { DEL_ATTRIBUTES = 1, DEL_METADATA, DEL_PROPOSITIONS, DEL_CONCEPT };
typedef struct ast_delete {
  int what;
  const char **keys;
  int nkeys;
  const char *target;
  kip_pos target_pos;
  ast_group *where;
} ast_delete;

enum { D_PRIMER = 1, D_DOMAINS, D_CONCEPT_TYPES, D_CONCEPT_TYPE, D_PROP_TYPES, D_PROP_TYPE };
typedef struct ast_describe {
  int what;
  json_t *name;
  int64_t limit;
  json_t *cursor;
} ast_describe;

typedef struct ast_search {
  int propositions;
  json_t *term, *type, *mode;
  int has_threshold;
  double threshold;
  int64_t limit;
} ast_search;

typedef struct ast_export {
  const char *target;
  kip_pos target_pos;
  ast_group *where;
  int64_t limit;
  json_t *cursor;
} ast_export;

typedef struct ast_stmt {
  int kind;
  kip_pos pos;
  union {
    ast_find find;
    ast_upsert upsert;
    ast_update update;
    ast_merge merge;
    ast_delete del;
    ast_describe describe;
    ast_search search;
    ast_export exp;
  } u;
} ast_stmt;

typedef struct ast_command {
  ast_stmt **stmts;
  int n;
  int is_kml;     /* UPSERT / UPDATE / MERGE / DELETE */
  const char *text;
  size_t len;
} ast_command;

const char *kip_stmt_kind_name(int kind);

/* parser.c: parse text with parameters (JSON object or NULL). Returns NULL on
** error (err filled: KIP_1001/1002 with position, or KIP_3001 for a missing
** parameter). */
ast_command *kip_parse(kip_arena *a, const char *text, size_t len, const json_t *params,
                       kip_error *err);
/* parser.c: a standalone FILTER-style boolean expression over ?<var> only
** (the eligibility scope). NULL on error. */
ast_expr *kip_parse_scope_expr(kip_arena *a, const char *text, size_t len, const json_t *params, const char *var,
                               kip_error *err);
/* ast_json.c: parse a command and render {"result": render(cmd)} or {"error"} */
char *kip_parsed_json(const char *command, size_t len, const char *params_json,
                      void (*render)(kip_buf *b, const ast_command *cmd, const json_t *params));
/* request_describe.c: the description policies see (kip_describe_json's
** result object) of a parsed command */
void kip_render_description(kip_buf *b, const ast_command *cmd, const json_t *params);
/* ast_json.c */
void kip_ast_write(kip_buf *b, const ast_command *cmd);

#endif
