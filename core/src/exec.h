/*
** exec.h — statement executors of libkipcore. Each writes the statement's
** RC11 §6.2.2 result as JSON into `out` and returns 0, or returns a kip_code
** with err filled. KML executors run inside the caller's transaction.
*/
#ifndef KIP_EXEC_H
#define KIP_EXEC_H
#include "compile.h"

typedef struct kip_ctx {
  kip_nexus *nx;
  kip_error *err;
  int dry_run;
  kip_buf *out;          /* result JSON */
  char *next_cursor;     /* malloc'd when more results remain */
  kip_buf warnings;      /* comma-separated JSON strings for the response's "warnings" */
  const char *text;      /* the command's text and the request's parameters, when a plan */
  size_t len;            /* may be kept for them (exec_plans.c); NULL otherwise */
  const json_t *params;
} kip_ctx;

/* add a human-readable warning to the response (kipnexus extension: a
** "warnings" array next to "result" that clients may ignore) */
void kip_warn(kip_ctx *c, const char *fmt, ...) KIP_PRINTF(2, 3);

/* the executors: one per statement kind (statements.h), each runs the
** command's statement (UPSERT: all of its statements) */
#define KIP_STMT_EXEC(K, kw, fn, mutates) int kip_exec_##fn(kip_ctx *c, const ast_command *cmd);
KIP_STATEMENTS(KIP_STMT_EXEC)
#undef KIP_STMT_EXEC
/* the concepts a bulk load's commands found or created (exec_upsert.c) */
void kip_exec_state_free(kip_nexus *nx);
/* exec_plans.c: a FIND's SQL, projections and binds (kip_find_sql), from the
** plan kept for its text when there is one, else compiled (and kept when it
** may be); the plans kept for a nexus freed */
struct kql;
struct proj;
int kip_find_plan(kip_ctx *c, const ast_command *cmd, struct kql *C, kip_buf *sql, struct proj **P, int *aggregated);
void kip_plans_free(kip_nexus *nx);

/* exec_targets.c: the distinct ids ?target binds in a WHERE pattern, in id order
** (limit < 0: all), capped by the request's materialization budget. */
int kip_select_targets(kip_ctx *c, const ast_group *where, const char *target, kip_pos tpos, int64_t limit,
                       int64_t **ids, size_t *n);

/* exec_render.c, exec_cursor.c: rendering and cursors shared by FIND, DESCRIBE, SEARCH, EXPORT */
/* the element object from 12 columns starting at c (id, type, name, subject,
** predicate, object, attributes, metadata, version, updated_at, subject is
** a proposition, object is a proposition) */
void kip_write_element(kip_buf *b, kip_stmt *st, int c);
/* the same with the transient metadata._score of SEARCH results */

/* exec_render.c: pieces of an element's JSON from a row (column i) */
void kip_write_id(kip_buf *b, int64_t id, int is_prop);
void kip_write_text(kip_buf *b, kip_stmt *st, int i);
void kip_write_raw(kip_buf *b, kip_stmt *st, int i);
void kip_write_kv(kip_buf *b, kip_stmt *st, int i);
void kip_write_scored_element(kip_buf *b, kip_stmt *st, int c, const double *score);
/* metadata text + _version + _updated_at (+ _score when score is not NULL) */
void kip_write_metadata(kip_buf *b, const char *meta, size_t n, int64_t version, const char *updated_at,
                        const double *score);
/* fingerprint of a compiled query (SQL text + bound values) for cursors */
uint64_t kip_query_fingerprint(const char *sql, const json_t *binds);
/* opaque "k1.<offset>.<fingerprint>.<check>" tokens bound to one query */
char *kip_cursor_make(uint64_t fp, int64_t offset);
int kip_cursor_parse(const json_t *cur, uint64_t fp, int64_t *offset, kip_error *err);

/* exec_upsert.c helpers shared with other executors */
int kip_check_protected_change(kip_nexus *nx, const kip_elem *e, const json_t *new_attrs, const json_t *new_meta,
                               kip_error *err);

/* bootstrap.c */
int kip_bootstrap(kip_nexus *nx, const char *capsule_dir, kip_error *err);

#endif
