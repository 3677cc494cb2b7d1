/*
** exec_explain.c — kip explain: the SQL a KQL command compiles to and
** SQLite's query plan for it (docs/query-compiler.md).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

char *kip_explain_json(kip_nexus *nx, const char *command, size_t len, const char *params_json) {
  kip_error err;
  kip_err_clear(&err);
  kip_buf out, sql;
  kip_buf_init(&out);
  kip_buf_init(&sql);
  kip_arena a;
  kip_arena_init(&a);
  json_t *params = params_json && *params_json ? kip_json_parse(params_json, strlen(params_json), &err) : NULL;
  kql C;
  kql_init(&C, nx, &a, &err);
  ast_command *cmd = err.code ? NULL : kip_parse(&a, command, len, params, &err);
  if (cmd) {
    const ast_stmt *s = cmd->stmts[0];
    proj *P = NULL;
    int agg;
    switch (s->kind) {
      case S_FIND: kip_find_sql(&C, &s->u.find, &sql, &P, &agg); break;
      case S_UPDATE: kql_target_sql(&C, s->u.update.where, s->u.update.target, s->u.update.target_pos, s->u.update.limit, &sql, 0); break;
      case S_DELETE: kql_target_sql(&C, s->u.del.where, s->u.del.target, s->u.del.target_pos, -1, &sql, 1); break;
      case S_EXPORT: kql_target_sql(&C, s->u.exp.where, s->u.exp.target, s->u.exp.target_pos, -1, &sql, 1); break;
      default: /* a valid command, but no single SQL statement to show */
        kip_err(&err, KIP_E_CONSTRAINT,
                "explain shows the SQL of FIND, UPDATE, DELETE and EXPORT; SEARCH is ranked by the engine (BM25F, vectors: "
                "docs/search.md), DESCRIBE and UPSERT/MERGE run no compiled query. Explain a FIND that selects the same "
                "elements.",
                "%s has no compiled query to explain", kip_stmt_kind_name(s->kind));
    }
    free(P);
  }
  if (!err.code) {
    kip_buf_adds(&out, "{\"result\":{\"sql\":");
    kip_buf_json_str(&out, sql.p, sql.len);
    kip_buf_adds(&out, ",\"parameters\":");
    kip_json_write(&out, C.binds);
    kip_buf_adds(&out, ",\"plan\":[");
    kip_buf q;
    kip_buf_init(&q);
    /* SQLite's plan rows (id, parent, detail), or PostgreSQL's EXPLAIN: a
    ** line of text per row, numbered */
    int pg = nx->sql_dialect == KIP_SQL_POSTGRESQL;
    kip_buf_adds(&q, pg ? "EXPLAIN " : "EXPLAIN QUERY PLAN ");
    kip_buf_add(&q, sql.p, sql.len);
    kip_stmt *st;
    if (kip_prepare(nx, q.p, (int)q.len, &st) == KIP_STORE_OK) {
      kql_bind_all(&C, st);
      int n = 0;
      while (kip_step(st) == KIP_ROW) {
        if (n) kip_buf_addc(&out, ',');
        n++;
        if (pg) kip_buf_printf(&out, "{\"id\":%d,\"parent\":0,\"detail\":", n);
        else kip_buf_printf(&out, "{\"id\":%d,\"parent\":%d,\"detail\":", (int)kip_col_int64(st, 0), (int)kip_col_int64(st, 1));
        kip_write_text(&out, st, pg ? 0 : 3);
        kip_buf_addc(&out, '}');
      }
      kip_finish(nx, st);
    } else {
      kip_store_error(nx, kip_store_errcode(nx), &err, "explaining the query");
    }
    kip_buf_free(&q);
    kip_buf_adds(&out, "]}}");
  }
  if (err.code) {
    kip_buf_free(&out);
    kip_buf_adds(&out, "{\"error\":");
    kip_json_write_error(&out, &err);
    kip_buf_addc(&out, '}');
  }
  json_decref(params);
  kql_free(&C);
  kip_arena_free(&a);
  kip_buf_free(&sql);
  return kip_buf_detach(&out);
}
