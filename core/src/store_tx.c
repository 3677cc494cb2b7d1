/*
** store_tx.c — the store's transactions: nested write transactions (BEGIN
** IMMEDIATE / SAVEPOINT) whose commit indexes for SEARCH, flushes the guard
** log and counts the write generation; read transactions over one
** snapshot; rollback, which nothing interrupts. On PostgreSQL a write
** transaction takes the nexus's advisory lock (one writer per nexus, as
** SQLite's write lock) and reads the generation under it in the same round
** trip, counts it in its COMMIT's (kip_pg_begin_write, kip_pg_committed),
** and a read transaction is a REPEATABLE READ snapshot.
*/
#include "store_pg.h"
#include "store_sqlite.h"

#include <stdio.h>

int kip_tx_begin(kip_nexus *nx, kip_error *err) {
  char sql[224];
  if (nx->pg && nx->pg->unwrapped) { /* a write inside a read without a transaction (kip_pg_run): the
                                      ** read is void, and repeated in one */
    nx->pg->stale = 1;
    return kip_err(err, KIP_E_INTERNAL, NULL, "a write began inside a read that assumed the write generation");
  }
  if (nx->tx_depth > 0) snprintf(sql, sizeof sql, "SAVEPOINT kip_sp%d", nx->tx_depth);
  else if (!nx->pg) snprintf(sql, sizeof sql, "BEGIN IMMEDIATE");
  if (nx->pg && nx->tx_depth == 0) {
    if (kip_pg_begin_write(nx, err)) return err->code;
  } else if (kip_store_exec(nx, sql, err, "starting a transaction")) {
    return err->code;
  }
  if (nx->tx_depth == 0) {
    nx->tx_changes0 = kip_store_total_changes(nx);
    nx->tx_removed = 0;
  }
  nx->tx_depth++;
  /* the writer's lock is held: guards another process declared are current */
  if (nx->tx_depth == 1 && kip_guards_refresh(nx, err)) {
    kip_tx_rollback(nx);
    return err->code;
  }
  return 0;
}

/* a read transaction: every statement until kip_tx_end_read reads the same
** snapshot of the file (BEGIN DEFERRED takes no lock until the first read,
** and never the write lock); nested inside a transaction it is a no-op.
** On PostgreSQL the BEGIN travels with the first statement and the COMMIT
** is not waited for: a read costs the round trips of its statements (a
** read that assumes the write generation sends neither: kip_pg_run) */
int kip_tx_begin_read(kip_nexus *nx, kip_error *err) {
  if (nx->tx_depth > 0) return 0;
  if (nx->pg) {
    kip_pg_defer(nx->pg, "BEGIN ISOLATION LEVEL REPEATABLE READ");
    nx->pg->data_version_known = 0;
  } else if (kip_store_step_write(nx, nx->stmts[ST_BEGIN_READ], err, "starting a read transaction")) {
    return err->code;
  }
  nx->tx_depth = 1;
  nx->read_tx = 1;
  return 0;
}

int kip_tx_begin_read_repeatable(kip_nexus *nx, kip_error *err) {
  if (kip_tx_begin_read(nx, err)) return err->code;
  if (nx->pg && nx->read_tx) nx->pg->may_assume = 1;
  return 0;
}

int kip_tx_end_read_stale(kip_nexus *nx) {
  int stale = nx->pg && nx->read_tx && nx->pg->may_assume && kip_pg_assumption_stale(nx);
  kip_tx_end_read(nx);
  return stale;
}

void kip_tx_end_read(kip_nexus *nx) {
  if (!nx->read_tx) return;
  if (nx->pg) {
    struct kip_pg *pg = nx->pg;
    if (pg->deferred) kip_pg_defer(pg, NULL); /* nothing was read: nothing began */
    else if (!pg->unwrapped) kip_pg_send_without_waiting(pg, "COMMIT");
    pg->may_assume = pg->assumed = pg->stale = pg->unwrapped = 0;
    nx->tx_depth = 0;
    nx->read_tx = 0;
    return;
  }
  sqlite3_step(SQ(nx->stmts[ST_END_READ]));
  sqlite3_reset(SQ(nx->stmts[ST_END_READ]));
  if (!sqlite3_get_autocommit(nx->db)) sqlite3_exec(nx->db, "ROLLBACK", NULL, NULL, NULL);
  nx->tx_depth = 0;
  nx->read_tx = 0;
}

/* a write transaction that changed rows counts one more write generation
** (kip_write_generation): a host learns whether anything changed since it
** last looked without reading the graph */
static int moves_generation(kip_nexus *nx) { return !nx->tx_upkeep && kip_store_total_changes(nx) != nx->tx_changes0; }

#define PG_BUMP                                                                                                        \
  "INSERT INTO kip_info(key, value) VALUES('write_generation', '1') "                                                  \
  "ON CONFLICT(key) DO UPDATE SET value = (kip_info.value::bigint + 1)::text"

static int bump_write_generation(kip_nexus *nx, kip_error *err) {
  if (nx->pg || !moves_generation(nx)) return 0; /* (PostgreSQL: with the COMMIT, kip_tx_commit) */
  return kip_store_exec(nx,
                        "INSERT INTO kip_info(key, value) VALUES('write_generation', 1) "
                        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                        err, "counting the write generation");
}

int64_t kip_write_generation(kip_nexus *nx) {
  kip_stmt *st;
  if (kip_prepare(nx, "SELECT CAST(value AS BIGINT) FROM kip_info WHERE key = 'write_generation'", -1, &st) != KIP_STORE_OK)
    return -1;
  int64_t g = kip_step(st) == KIP_ROW ? kip_col_int64(st, 0) : 0;
  kip_finish(nx, st);
  return g;
}

int kip_tx_commit(kip_nexus *nx, kip_error *err) {
  if (nx->tx_depth == 1 && (kip_store_mark_fresh(nx, err) || (!nx->req->defer_index && kip_search_sync(nx, err)) ||
                            kip_guards_flush(nx, err) || bump_write_generation(nx, err))) {
    kip_tx_rollback(nx);
    return err->code;
  }
  char sql[48];
  if (nx->tx_depth == 1) snprintf(sql, sizeof sql, "COMMIT");
  else snprintf(sql, sizeof sql, "RELEASE kip_sp%d", nx->tx_depth - 1);
  /* on PostgreSQL the write generation is counted in the COMMIT's round
  ** trip (a failing count aborts the transaction: the COMMIT is not run) */
  int moved = nx->tx_depth == 1 && moves_generation(nx);
  int64_t written = nx->tx_depth == 1 ? kip_store_total_changes(nx) - nx->tx_changes0 : 0;
  if (kip_store_exec(nx, nx->pg && moved ? PG_BUMP "; COMMIT" : sql, err, "committing")) {
    kip_tx_rollback(nx);
    return err->code;
  }
  if (nx->pg && nx->tx_depth == 1) kip_pg_committed(nx, moved);
  if (nx->pg && written > 0) kip_pg_after_commit(nx, written);
  nx->tx_depth--;
  if (nx->tx_depth == 0) {
    nx->indexes_dropped_in_tx = 0;
    nx->tx_upkeep = 0;
    kip_store_end_run(nx); /* a run of ids never outlives its transaction */
    kip_index_builder_publish(nx);
  }
  return 0;
}

int kip_tx_commit_upkeep(kip_nexus *nx, kip_error *err) {
  if (nx->tx_depth == 1) nx->tx_upkeep = 1;
  return kip_tx_commit(nx, err);
}

void kip_tx_rollback(kip_nexus *nx) {
  if (nx->tx_depth == 0) return;
  char sql[96];
  if (nx->tx_depth == 1) snprintf(sql, sizeof sql, "ROLLBACK");
  else snprintf(sql, sizeof sql, "ROLLBACK TO kip_sp%d; RELEASE kip_sp%d", nx->tx_depth - 1, nx->tx_depth - 1);
  int64_t saved = nx->req->deadline_us;
  nx->req->deadline_us = 0; /* a rollback must never be interrupted */
  if (nx->pg && nx->tx_depth == 1 && nx->pg->deferred) kip_pg_defer(nx->pg, NULL); /* nothing began */
  else if (nx->pg) kip_pg_rollback(nx->pg, sql, nx->tx_depth == 1);
  else sqlite3_exec(nx->db, sql, NULL, NULL, NULL);
  nx->req->deadline_us = saved;
  nx->tx_depth--;
  kip_guards_rolled_back(nx);
  kip_store_end_run(nx); /* the rollback may have returned its run to the counter */
  nx->invalidations++; /* caches above may hold concepts the rollback removed */
  /* and the types and predicates found defined may have been defined by
  ** what was undone (the file's version does not say so: nothing committed) */
  kip_store_defined_forget(nx);
  if (nx->tx_depth == 0 && nx->indexes_dropped_in_tx) /* a bulk command's DROP INDEX undone */
    nx->indexes_deferred = nx->indexes_dropped_in_tx = 0;
  if (nx->tx_depth == 0) { /* the elements of the run are gone */
    nx->tx_upkeep = 0;
    nx->fresh_n = 0;
    kip_index_builder_discard(nx);
  }
}
