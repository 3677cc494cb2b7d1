/*
** store_changes.c — the change log (schema v10): which elements were
** written since a maintenance pass last took them, so that pass works from
** what changed instead of the whole graph (seed 001 "maintenance while
** sleeping"; the incremental sleep cycle of docs/sleep.md).
**
** Each row is an element id and the write generation (kip_write_generation)
** its transaction started from. Updates log themselves by trigger; a
** deleted link logs its two endpoints (the concepts whose neighbourhood
** changed: the link itself is gone, and the subject of a Domain link is
** marked); new elements are logged as runs of ids (kip_changed_run, a row
** per run) beside the search index's marks (kip_store_mark_fresh). The
** generation is bumped when a transaction commits, so the rows of every
** transaction committed before a reader saw generation G carry a
** generation below G, and a transaction still open then logs G itself: a
** pass that starts at G takes the rows below G and, when it is done,
** forgets exactly those — nothing written meanwhile is lost.
*/
#include <stdio.h>

#include "store_sqlite.h" /* CHANGE_GENERATION */

char *kip_changes_json(kip_nexus *nx, int64_t after, int64_t before, int64_t max, kip_error *err) {
  kip_err_clear(err);
  if (max < 0) max = 0;
  if (max > ((int64_t)1 << 50)) max = (int64_t)1 << 50;
  kip_stmt *st;
  /* one statement: one snapshot of the generation and the rows */
  int rc = kip_prepare(nx,
                          "SELECT g.v, c.id, c.is_prop, max(c.domain) FROM (SELECT " CHANGE_GENERATION " AS v) g "
                          "LEFT JOIN (SELECT k.id, k.gen, k.domain, e.subject IS NOT NULL AS is_prop FROM kip_changed k "
                          "JOIN element e ON e.id = k.id UNION ALL "
                          "SELECT e.id, r.gen, 0, e.subject IS NOT NULL FROM kip_changed_run r "
                          "JOIN element e ON e.id BETWEEN r.lo AND r.hi) c "
                          "ON c.gen >= ?1 AND c.gen < (CASE WHEN ?2 < 0 THEN g.v ELSE ?2 END) "
                          "GROUP BY g.v, c.id, c.is_prop ORDER BY c.id LIMIT ?3",
                          -1, &st);
  if (rc != KIP_STORE_OK) {
    kip_store_error(nx, rc, err, "reading the change log");
    return NULL;
  }
  kip_bind_int64(st, 1, after);
  kip_bind_int64(st, 2, before);
  kip_bind_int64(st, 3, max + 1);
  kip_buf b, domain;
  kip_buf_init(&b);
  kip_buf_init(&domain);
  int64_t generation = 0, n = 0, nd = 0;
  int truncated = 0;
  kip_buf_adds(&b, "{\"ids\":[");
  while ((rc = kip_step(st)) == KIP_ROW) {
    generation = kip_col_int64(st, 0);
    if (kip_col_type(st, 1) == KIP_COL_NULL) continue; /* nothing logged: the generation alone */
    if (n == max) {
      truncated = 1;
      break;
    }
    char id[32];
    kip_format_id(id, sizeof id, kip_col_int64(st, 1), (int)kip_col_int64(st, 2));
    kip_buf_printf(&b, "%s\"%s\"", n++ ? "," : "", id);
    if ((int)kip_col_int64(st, 3)) kip_buf_printf(&domain, "%s\"%s\"", nd++ ? "," : "", id);
  }
  kip_finish(nx, st);
  if (rc != KIP_ROW && rc != KIP_DONE) {
    kip_buf_free(&b);
    kip_buf_free(&domain);
    kip_store_error(nx, rc, err, "reading the change log");
    return NULL;
  }
  kip_buf_printf(&b, "],\"domain_changed\":[");
  if (domain.len) kip_buf_add(&b, domain.p, domain.len);
  kip_buf_free(&domain);
  kip_buf_printf(&b, "],\"generation\":%lld,\"truncated\":%s}", (long long)(before < 0 ? generation : before),
                 truncated ? "true" : "false");
  return kip_buf_detach(&b);
}

int kip_changes_forget(kip_nexus *nx, int64_t before, kip_error *err) {
  kip_err_clear(err);
  if (nx->readonly_file) return 0;
  if (kip_tx_begin(nx, err)) return err->code;
  char sql[128];
  snprintf(sql, sizeof sql, "DELETE FROM kip_changed WHERE gen < %lld; DELETE FROM kip_changed_run WHERE gen < %lld",
           (long long)before, (long long)before);
  if (kip_store_exec(nx, sql, err, "forgetting the change log")) {
    kip_tx_rollback(nx);
    return err->code;
  }
  return kip_tx_commit_upkeep(nx, err); /* not a write generation: nothing in the graph changed */
}
