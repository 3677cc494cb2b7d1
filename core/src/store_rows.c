/*
** store_rows.c — the row API of the storage seam (store.h) over SQLite
** statements: stepping, reading columns, binding parameters. The layers
** above the store read every result through these calls and never see an
** sqlite3 type (docs/architecture.md "The storage seam").
*/
#include <stdlib.h>

#include "store_sqlite.h"

int kip_step(kip_stmt *st) { return sqlite3_step(SQ(st)); }
void kip_reset(kip_stmt *st) { sqlite3_reset(SQ(st)); }
int kip_col_type(kip_stmt *st, int i) { return sqlite3_column_type(SQ(st), i); }
int64_t kip_col_int64(kip_stmt *st, int i) { return sqlite3_column_int64(SQ(st), i); }
double kip_col_double(kip_stmt *st, int i) { return sqlite3_column_double(SQ(st), i); }
const char *kip_col_text(kip_stmt *st, int i) { return (const char *)sqlite3_column_text(SQ(st), i); }
const void *kip_col_blob(kip_stmt *st, int i) { return sqlite3_column_blob(SQ(st), i); }
int kip_col_bytes(kip_stmt *st, int i) { return sqlite3_column_bytes(SQ(st), i); }
int kip_bind_count(kip_stmt *st) { return sqlite3_bind_parameter_count(SQ(st)); }
int kip_bind_int64(kip_stmt *st, int i, int64_t v) { return sqlite3_bind_int64(SQ(st), i, v); }
int kip_bind_double(kip_stmt *st, int i, double v) { return sqlite3_bind_double(SQ(st), i, v); }
int kip_bind_null(kip_stmt *st, int i) { return sqlite3_bind_null(SQ(st), i); }
int kip_bind_text(kip_stmt *st, int i, const char *s, int n, int copy) {
  return sqlite3_bind_text(SQ(st), i, s, n, copy ? SQLITE_TRANSIENT : SQLITE_STATIC);
}
/* JSON values travel as BLOBs: the SQL functions tell them from strings (store_sqlfunc.c) */
int kip_bind_json_owned(kip_stmt *st, int i, char *s, int n) { return sqlite3_bind_blob(SQ(st), i, s, n, free); }
int kip_store_errcode(kip_nexus *nx) { return sqlite3_errcode(nx->db); }
int kip_store_interrupt_code(void) { return SQLITE_INTERRUPT; }
