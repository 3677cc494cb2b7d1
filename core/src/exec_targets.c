/*
** exec_targets.c — the targets of a bulk KML statement (UPDATE, DELETE,
** EXPORT): the WHERE clause compiled (KQL, the governance scope included)
** to the distinct ids of the target variable, capped by LIMIT.
*/
#include <stdlib.h>
#include <string.h>

#include "exec.h"

int kip_select_targets(kip_ctx *c, const ast_group *where, const char *target, kip_pos tpos, int64_t limit,
                          int64_t **ids, size_t *n) {
  kip_arena a;
  kip_arena_init(&a);
  kql C;
  kql_init(&C, c->nx, &a, c->err);
  kip_buf sql;
  kip_buf_init(&sql);
  int rc = kql_target_sql(&C, where, target, tpos, limit, &sql, 0);
  *ids = NULL;
  *n = 0;
  if (!rc) {
    kip_stmt *st;
    int prc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
    if (prc != KIP_STORE_OK) rc = kip_store_error(c->nx, prc, c->err, "selecting targets");
    else {
      kql_bind_all(&C, st);
      size_t cap = 0;
      while ((prc = kip_step(st)) == KIP_ROW) {
        if (*n == cap) {
          cap = cap ? cap * 2 : 64;
          *ids = realloc(*ids, cap * sizeof **ids);
        }
        (*ids)[(*n)++] = kip_col_int64(st, 0);
        if ((int64_t)*n > c->nx->req->max_rows) {
          rc = kip_err(c->err, KIP_E_RESOURCE,
                       "Shard the sweep with a structural constraint (per predicate, type or domain) and a marker guard.",
                       "the pattern selects more than %lld targets (materialization cap)", (long long)c->nx->req->max_rows);
          break;
        }
      }
      if (!rc && prc != KIP_DONE) rc = kip_store_error(c->nx, prc, c->err, "selecting targets");
      kip_finish(c->nx, st);
    }
  }
  kip_buf_free(&sql);
  kql_free(&C);
  kip_arena_free(&a);
  return rc;
}

