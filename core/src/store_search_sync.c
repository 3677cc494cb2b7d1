/*
** store_search_sync.c — keeping the SEARCH indexes in the writer's transaction:
** before every commit the elements recorded in search_dirty are re-indexed
** with one statement per index (FTS5 word and trigram) and their vectors
** written or queued (store_vectors.c); bulk loads defer it and index in
** batches afterwards (kip_sync_index); kip_merge_index merges each index
** into one segment (after bulk passes and in sleep cycles); what an
** unindexed guard covers (store_guard.c) is left out of every sync and
** taken out when the guard is declared (kip_search_exclude). Part of the
** store layer: the index is storage, SEARCH reads it (search_keyword.c,
** search_vector.c).
*/
#include <stdio.h>

#include "store_pg.h"
#include "store_sqlite.h"

/* ------------------------------------------------- unindexed guards */
/* the elements a guard covers: the concepts of its type (one of them when
** ?2 names it) and the propositions whose subject is one of them */
#define COVERED_SQL                                                                            \
  "SELECT id FROM element WHERE type = ?1 AND (?2 = '' OR name = ?2) UNION ALL SELECT p.id " \
  "FROM element c JOIN element p ON p.subject = c.id WHERE c.type = ?1 AND (?2 = '' OR c.name = ?2)"
/* the waiting elements an unindexed guard covers, no longer waiting (the
** SQLite list is read in id order: a probe of element per listed id) */
#define SKIP_SQLITE                                                                                      \
  "DELETE FROM search_dirty WHERE id IN (SELECT e.id FROM search_dirty d CROSS JOIN element e ON e.id = d.id " \
  "LEFT JOIN element s ON s.id = e.subject WHERE " KIP_UNINDEXED_SQL("kip_guard") ")"
#define SKIP_PG                                                                                          \
  "DELETE FROM search_dirty WHERE id IN (SELECT e.id FROM element e LEFT JOIN element s ON s.id = e.subject " \
  "WHERE e.id = ANY (ARRAY(SELECT id FROM search_dirty)) AND " KIP_UNINDEXED_SQL("kip_guard") ")"
/* what the index and the vectors hold of the elements listed in kip_covered
** (on SQLite a list like search_dirty, none of them fresh: the sync's own
** unindex statements read it) */
#define PURGE_SQLITE UNINDEX_TRIGRAM_SQL("kip_covered") ";" UNINDEX_WORD_SQL("kip_covered") ";"
#define PURGE_PG "DELETE FROM search_doc WHERE id IN (SELECT id FROM kip_covered);"
#define PURGE_BOTH                                                     \
  "DELETE FROM search_vector WHERE id IN (SELECT id FROM kip_covered);" \
  "DELETE FROM search_vector_pending WHERE id IN (SELECT id FROM kip_covered);" \
  "DELETE FROM search_dirty WHERE id IN (SELECT id FROM kip_covered)"

int kip_search_skip_unindexed(kip_nexus *nx, kip_error *err) {
  if (!kip_guards_unindexed(nx)) return 0;
  kip_stmt *st; /* (kept prepared: it runs at every commit of a nexus with such a guard) */
  int rc = kip_prepare(nx, nx->pg ? SKIP_PG : SKIP_SQLITE, -1, &st);
  if (rc == KIP_STORE_OK) {
    rc = kip_step(st) == KIP_DONE ? KIP_STORE_OK : kip_store_errcode(nx);
    kip_finish(nx, st);
  }
  return rc == KIP_STORE_OK ? 0 : kip_store_error(nx, rc, err, "leaving unindexed elements out of SEARCH");
}

int kip_search_exclude(kip_nexus *nx, const char *type, const char *name, int excluded, kip_error *err) {
  const char *what = excluded ? "taking elements out of the SEARCH index" : "marking elements for the SEARCH index";
  if (kip_store_exec(nx,
                     nx->pg ? "CREATE TEMP TABLE IF NOT EXISTS kip_covered(id bigint PRIMARY KEY); DELETE FROM kip_covered"
                            : "CREATE TEMP TABLE IF NOT EXISTS kip_covered(id INTEGER PRIMARY KEY, fresh INTEGER NOT NULL DEFAULT 0); "
                              "DELETE FROM kip_covered",
                     err, what))
    return err->code;
  kip_stmt *st;
  int rc = kip_prepare(nx, "INSERT INTO kip_covered(id) SELECT id FROM (" COVERED_SQL ") c WHERE true ON CONFLICT DO NOTHING",
                       -1, &st);
  if (rc == KIP_STORE_OK) {
    kip_bind_text(st, 1, type, -1, 0);
    kip_bind_text(st, 2, name ? name : "", -1, 0);
    rc = kip_step(st) == KIP_DONE ? KIP_STORE_OK : kip_store_errcode(nx);
    kip_finish(nx, st);
  }
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, what);
  if (!excluded)
    return kip_store_exec(nx, "INSERT INTO search_dirty(id) SELECT id FROM kip_covered WHERE true ON CONFLICT DO NOTHING", err,
                          what);
  if (!nx->pg) kip_index_builder_invalidate(nx); /* this index changes: a build beside it would lose that */
  return kip_store_exec(nx, nx->pg ? PURGE_PG PURGE_BOTH : PURGE_SQLITE PURGE_BOTH, err, what);
}

/* ------------------------------------------------------------- the sync */
int kip_search_sync(kip_nexus *nx, kip_error *err) {
  if (nx->pg) return kip_pg_search_sync(nx, err);
  sqlite3_stmt *st = SQ(nx->stmts[ST_SEARCH_PENDING]);
  if (nx->readonly_file || !st) return 0; /* !st: still migrating; caught up when open completes */
  if (kip_store_mark_fresh(nx, err)) return err->code;
  if (kip_search_skip_unindexed(nx, err)) return err->code;
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  if (rc == SQLITE_DONE) return 0;
  if (rc != SQLITE_ROW) return kip_store_error(nx, rc, err, "updating the search index");
  kip_index_builder_invalidate(nx); /* this index changes: a build beside it would lose that */
  for (int i = ST_SEARCH_UNINDEX_TRIGRAM; i <= ST_SEARCH_CLEAR; i++) {
    if (i == ST_SEARCH_CLEAR && kip_vector_sync(nx, "search_dirty", err)) return err->code;
    st = SQ(nx->stmts[i]);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc != SQLITE_DONE) return kip_store_error(nx, rc, err, "updating the search index");
  }
  /* No write asks for a merge of the index's segments (automerge 0, schema
  ** v9). Each write leaves its documents in a new small segment, and FTS5's
  ** crisis merge folds a level once it holds 16 segments (crisismerge): the
  ** levels single writes fill hold small segments, so what a write merges
  ** is small; a level holding a load's large segments fills only after
  ** 16^k writes. The large segments are merged whole by a sleep cycle,
  ** `kip import` and `kip restore` (kip_merge_index). Asking for a share on
  ** every 4th write (schema v9-v11) put those merges in the writes right
  ** after a load: docs/search.md "Index upkeep". */
  return 0;
}

/* ---------------------------------------------------- deferred indexing */
#define SYNC_BATCH_SQL(from)                                                                  \
  UNINDEX_TRIGRAM_SQL(from) ";" UNINDEX_WORD_SQL(from) ";" INDEX_WORD_SQL(from) ";" INDEX_TRIGRAM_SQL(from) \
  "; DELETE FROM search_dirty WHERE id IN (SELECT id FROM " from ");"

int kip_merge_index(kip_nexus *nx, kip_error *err) {
  kip_err_clear(err);
  if (nx->readonly_file || nx->pg) return 0; /* PostgreSQL's GIN index merges its pending list itself */
  kip_index_builder_invalidate(nx);
  if (kip_tx_begin(nx, err)) return err->code;
  if (kip_store_exec(nx,
                     "INSERT INTO search_word(search_word) VALUES('optimize');"
                     "INSERT INTO search_trigram(search_trigram) VALUES('optimize')",
                     err, "merging the search index")) {
    kip_tx_rollback(nx);
    return err->code;
  }
  return kip_tx_commit_upkeep(nx, err);
}

/* After a pass that built a large share of the index, merge it (see
** kip_merge_index): a bulk pass leaves large segments with merges pending.
** Merging costs time proportional to the whole index, so it runs only when
** the pass indexed at least a quarter of the elements. */
static int merge_index_after_bulk(kip_nexus *nx, int64_t indexed, kip_error *err) {
  int64_t all = kip_store_count(nx, "SELECT count(*) FROM element");
  if (indexed < 10000 || all < 0 || indexed * 4 < all) return 0;
  return kip_merge_index(nx, err);
}

static int sync_keywords(kip_nexus *nx, int64_t batch, void (*progress)(int64_t, int64_t, void *), void *ud, kip_error *err) {
  nx->indexed_beside = 0;
  if (kip_store_end_bulk(nx, err)) return err->code; /* the end of a bulk load */
  /* what an index builder indexed beside the load counts as done (store_search_build.c) */
  int64_t beside = nx->indexed_beside;
  int64_t total = kip_store_count(nx, "SELECT count(*) FROM search_dirty"), done = 0;
  if (total < 0) return kip_store_error(nx, kip_store_errcode(nx), err, "counting unindexed elements");
  if (nx->pg) batch = 0; /* one pass (store_pg_search.c): the batches below are SQLite's */
  if (total == 0) {
    if (progress && beside > 0) progress(beside, beside, ud);
    return 0;
  }
  if (batch <= 0 || batch >= total) { /* all at once: the commit indexes the dirty set */
    if (kip_tx_begin(nx, err) || kip_tx_commit_upkeep(nx, err)) return err->code;
    if (progress) progress(beside + total, beside + total, ud);
    return merge_index_after_bulk(nx, total, err);
  }
  if (kip_store_exec(nx, "CREATE TEMP TABLE IF NOT EXISTS kip_sync_batch(id INTEGER PRIMARY KEY, fresh INTEGER)", err, "indexing"))
    return err->code;
  char pick[160];
  snprintf(pick, sizeof pick,
           "DELETE FROM kip_sync_batch; INSERT INTO kip_sync_batch SELECT id, fresh FROM search_dirty ORDER BY id LIMIT %lld",
           (long long)batch);
  while (done < total) {
    if (kip_tx_begin(nx, err)) return err->code;
    int rc = kip_search_skip_unindexed(nx, err);
    if (!rc) rc = kip_store_exec(nx, pick, err, "indexing");
    int64_t n = rc ? 0 : kip_store_count(nx, "SELECT count(*) FROM kip_sync_batch");
    if (!rc && n > 0) rc = kip_store_exec(nx, SYNC_BATCH_SQL("kip_sync_batch"), err, "indexing");
    if (!rc && n > 0) rc = kip_vector_sync(nx, "kip_sync_batch", err);
    if (rc) {
      kip_tx_rollback(nx);
      return rc;
    }
    nx->req->defer_index = 1; /* this commit indexes exactly the batch */
    rc = kip_tx_commit_upkeep(nx, err);
    nx->req->defer_index = 0;
    if (rc) return rc;
    if (n <= 0) break;
    done += n;
    if (progress) progress(beside + (done < total ? done : total), beside + total, ud);
  }
  return merge_index_after_bulk(nx, done, err);
}

/* the end of a load (kip import, kip restore), kip reindex, the sleep
** cycle: the keyword index brought up to date, then the vectors the queue
** holds for an in-transaction embedder (a killed load's elements were
** queued when the next open indexed them before its embedder came) */
int kip_sync_index(kip_nexus *nx, int64_t batch, void (*progress)(int64_t, int64_t, void *), void *ud, kip_error *err) {
  kip_err_clear(err);
  if (nx->readonly_file) return 0;
  if (sync_keywords(nx, batch, progress, ud, err)) return err->code;
  return kip_vector_catch_up(nx, 0, err) < 0 ? err->code : 0;
}

int64_t kip_unindexed(kip_nexus *nx) {
  if (nx->pg) return nx->fresh_n > 0 || kip_store_count(nx, "SELECT count(*) FROM (SELECT 1 FROM search_dirty LIMIT 1) AS d") > 0;
  sqlite3_stmt *st = SQ(nx->stmts[ST_SEARCH_PENDING]);
  if (!st) return 0;
  if (nx->fresh_n > 0) return 1; /* new elements of the running transaction */
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  return rc == SQLITE_ROW;
}

