/*
** store_sqlite.h — the SQLite side of the storage seam (store.h): included
** only by the SQLite store (store*.c, store_sqlfunc.c, store_search_rank.c,
** store_search_sync.c, embed_*.c) and the SQLite dialect (dialect_sqlite*.c).
** A kip_stmt is an sqlite3_stmt; SQ() and KS() convert.
*/
#ifndef KIP_STORE_SQLITE_H
#define KIP_STORE_SQLITE_H
#include <sqlite3.h>

#include "store.h"

#define SQ(st) ((sqlite3_stmt *)(st))
#define KS(st) ((kip_stmt *)(st))

/* the statement cache (kip_prepare / kip_finish) for code that steps SQLite
** statements itself */
static inline int kip_prepare_sq(kip_nexus *nx, const char *sql, int len, sqlite3_stmt **st) {
  return kip_prepare(nx, sql, len, (kip_stmt **)st);
}
static inline void kip_finish_sq(kip_nexus *nx, sqlite3_stmt *st) { kip_finish(nx, KS(st)); }

/* the secondary indexes of `element`: created with the schema
** (store_schema.c), dropped and built again around a bulk load (store_bulk.c) */
#define ELEMENT_NAME_INDEX "element_name ON element(name) WHERE name IS NOT NULL;\n"
#define ELEMENT_OPS_INDEX "element_ops ON element(object, predicate, subject) WHERE object IS NOT NULL;\n"
#define ELEMENT_PRED_INDEX "element_pred ON element(predicate, subject, object) WHERE predicate IS NOT NULL;\n"

/* the write generation a change-log row carries (store_changes.c): the one
** the writing transaction started from (it is bumped at commit) */
#define CHANGE_GENERATION "coalesce((SELECT CAST(value AS INTEGER) FROM kip_info WHERE key = 'write_generation'), 0)"


#endif
