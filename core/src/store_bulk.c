/*
** store_bulk.c — the store's side of a bulk load (kip import, kip restore:
** commands sent with defer_index; the API side is request_bulk.c): foreign
** key checks switched off for large commands, the element table's
** secondary indexes dropped while a load fills a (nearly) empty nexus and
** built again once at its end, and the end of a load — its SEARCH index
** built beside it (store_search_build.c) adopted, the caches above the
** store told (kip_nexus.invalidations).
*/
#include "store_sqlite.h"

#include <stdio.h>

/* foreign key enforcement on this connection (outside transactions only:
** SQLite ignores the pragma inside one); 0 when it took effect */
int kip_store_foreign_keys(kip_nexus *nx, int on) {
  if (nx->pg) return 1; /* PostgreSQL checks them in every command */
  if (nx->tx_depth != 0 || !sqlite3_get_autocommit(nx->db)) return 1;
  if (sqlite3_exec(nx->db, on ? "PRAGMA foreign_keys=ON" : "PRAGMA foreign_keys=OFF", NULL, NULL, NULL) != SQLITE_OK)
    return 1;
  int64_t now = kip_store_count(nx, "PRAGMA foreign_keys");
  if (now == 0 || now == 1) nx->foreign_keys_off = !now;
  return now != on;
}

int kip_store_end_bulk(kip_nexus *nx, kip_error *err) {
  nx->invalidations++; /* a command that may delete or merge concepts follows */
  if (nx->pg) return kip_pg_build_indexes(nx, err); /* no foreign key pragma nor index builder there */
  if (nx->foreign_keys_off && kip_store_foreign_keys(nx, 1))
    return kip_err(err, KIP_E_INTERNAL, "Close and reopen the nexus before using it again.",
                   "foreign key checks are still off after a bulk command and cannot be switched back on");
  kip_index_builder_close_queue(nx); /* it finishes while the indexes are built */
  int rc = kip_store_build_indexes(nx, err);
  kip_error built;
  if (kip_index_builder_finish(nx, &built) && !rc) {
    *err = built;
    rc = err->code;
  }
  return rc;
}

/* ------------------------------------------- deferred secondary indexes */
/* A bulk load inserts its elements in the order of the capsule, so every
** insert lands at a random place of each secondary index (by name, by
** object, by predicate); building an index once from the finished table
** sorts it instead — the way pg_restore and MySQL's DISABLE KEYS load. So
** the first bulk command (request.c) that writes at least as many
** elements as the nexus holds drops them in its transaction, and
** they stay away while only bulk commands follow on this connection. Any
** other command, kip_sync_index (the end of kip import / restore), closing
** and opening the nexus build them again. Meanwhile everything works — the
** unique indexes every UPSERT looks up by stay — but queries that would use
** them scan: other connections see that only during such a load. */
#define DROP_SECONDARY_INDEXES "DROP INDEX IF EXISTS element_name; DROP INDEX IF EXISTS element_ops; DROP INDEX IF EXISTS element_pred"
#define BUILD_SECONDARY_INDEXES \
  "CREATE INDEX IF NOT EXISTS " ELEMENT_NAME_INDEX "CREATE INDEX IF NOT EXISTS " ELEMENT_OPS_INDEX \
  "CREATE INDEX IF NOT EXISTS " ELEMENT_PRED_INDEX

int kip_store_defer_indexes(kip_nexus *nx, int64_t writes, kip_error *err) {
  if (!nx->indexes_deferred) {
    char sql[128];
    snprintf(sql, sizeof sql, "SELECT count(*) FROM (SELECT 1 FROM element LIMIT %lld) AS held", (long long)writes);
    int64_t held = kip_store_count(nx, sql);
    if (held < 0) return kip_store_error(nx, kip_store_errcode(nx), err, "counting elements");
    if (held >= writes) return 0;
  } else if (nx->pg) {
    return 0; /* dropped once per load: DROP INDEX locks the table there */
  }
  if (kip_store_exec(nx, nx->pg ? KIP_PG_DROP_DEFERRED_INDEXES : DROP_SECONDARY_INDEXES, err,
                     "deferring the element indexes"))
    return err->code;
  nx->indexes_deferred = nx->indexes_dropped_in_tx = 1;
  return 0;
}

int kip_store_build_indexes(kip_nexus *nx, kip_error *err) {
  if (nx->pg) return kip_pg_build_indexes(nx, err);
  if (!nx->indexes_deferred || nx->readonly_file) return 0;
  if (nx->tx_depth > 0) /* inside a caller's transaction: built with it, rolled back with it */
    return kip_store_exec(nx, BUILD_SECONDARY_INDEXES, err, "building the element indexes");
  /* a transaction of its own, not kip_tx_*: its commit must not index
  ** the SEARCH dirty set (kip_sync_index does that in batches) */
  if (kip_store_exec(nx, "BEGIN IMMEDIATE;" BUILD_SECONDARY_INDEXES "COMMIT", err, "building the element indexes")) {
    if (!sqlite3_get_autocommit(nx->db)) sqlite3_exec(nx->db, "ROLLBACK", NULL, NULL, NULL);
    return err->code;
  }
  nx->indexes_deferred = 0;
  return 0;
}
