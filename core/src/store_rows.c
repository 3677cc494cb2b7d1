/*
** store_rows.c — the row API of the storage seam (store.h): stepping,
** reading columns, binding parameters. The layers above the store read
** every result through these calls and never see a backend's type
** (docs/architecture.md "The storage seam"). An SQLite statement is an
** sqlite3_stmt; a PostgreSQL one is tagged (store_pg.h PG_IS) and served by
** store_pg_rows.c.
*/
#include <stdlib.h>

#include "store_pg.h"
#include "store_sqlite.h"

int kip_step(kip_stmt *st) { return PG_IS(st) ? kip_pg_step(PG_ST(st)) : sqlite3_step(SQ(st)); }
void kip_reset(kip_stmt *st) {
  if (PG_IS(st)) kip_pg_reset(PG_ST(st));
  else sqlite3_reset(SQ(st));
}
void kip_clear_bindings(kip_stmt *st) {
  if (PG_IS(st)) kip_pg_clear_bindings(PG_ST(st));
  else sqlite3_clear_bindings(SQ(st));
}
int kip_col_type(kip_stmt *st, int i) { return PG_IS(st) ? kip_pg_col_type(PG_ST(st), i) : sqlite3_column_type(SQ(st), i); }
int64_t kip_col_int64(kip_stmt *st, int i) {
  return PG_IS(st) ? kip_pg_col_int64(PG_ST(st), i) : sqlite3_column_int64(SQ(st), i);
}
double kip_col_double(kip_stmt *st, int i) {
  return PG_IS(st) ? kip_pg_col_double(PG_ST(st), i) : sqlite3_column_double(SQ(st), i);
}
const char *kip_col_text(kip_stmt *st, int i) {
  return PG_IS(st) ? kip_pg_col_text(PG_ST(st), i) : (const char *)sqlite3_column_text(SQ(st), i);
}
const void *kip_col_blob(kip_stmt *st, int i) {
  return PG_IS(st) ? kip_pg_col_blob(PG_ST(st), i) : sqlite3_column_blob(SQ(st), i);
}
int kip_col_bytes(kip_stmt *st, int i) { return PG_IS(st) ? kip_pg_col_bytes(PG_ST(st), i) : sqlite3_column_bytes(SQ(st), i); }
/* the largest parameter number */
int kip_bind_count(kip_stmt *st) {
  if (!PG_IS(st)) return sqlite3_bind_parameter_count(SQ(st));
  return PG_ST(st)->npmap ? (int)PG_ST(st)->pmap[PG_ST(st)->npmap - 1] : 0;
}
int kip_bind_int64(kip_stmt *st, int i, int64_t v) {
  return PG_IS(st) ? kip_pg_bind_int64(PG_ST(st), i, v) : sqlite3_bind_int64(SQ(st), i, v);
}
int kip_bind_double(kip_stmt *st, int i, double v) {
  return PG_IS(st) ? kip_pg_bind_double(PG_ST(st), i, v) : sqlite3_bind_double(SQ(st), i, v);
}
int kip_bind_null(kip_stmt *st, int i) { return PG_IS(st) ? kip_pg_bind_null(PG_ST(st), i) : sqlite3_bind_null(SQ(st), i); }
int kip_bind_text(kip_stmt *st, int i, const char *s, int n, int copy) {
  if (PG_IS(st)) return kip_pg_bind_text(PG_ST(st), i, s, n);
  return sqlite3_bind_text(SQ(st), i, s, n, copy ? SQLITE_TRANSIENT : SQLITE_STATIC);
}
int kip_bind_text_owned(kip_stmt *st, int i, char *s, int n) {
  if (!PG_IS(st)) return sqlite3_bind_text(SQ(st), i, s, n, free);
  int rc = kip_pg_bind_text(PG_ST(st), i, s, n);
  free(s);
  return rc;
}
/* JSON values travel as BLOBs: the SQL functions tell them from strings (store_sqlfunc.c) */
int kip_bind_json_owned(kip_stmt *st, int i, char *s, int n) {
  if (!PG_IS(st)) return sqlite3_bind_blob(SQ(st), i, s, n, free);
  int rc = kip_pg_bind_json(PG_ST(st), i, s, n);
  free(s);
  return rc;
}
/* the list in parameter P as a table (id, pos) */
#define IDS_SQL_PG(P)                                                                                             \
  "(SELECT CAST(x AS bigint) AS id, pos - 1 AS pos FROM json_array_elements_text(CAST(" P " AS json)) "          \
  "WITH ORDINALITY AS t(x, pos))"
#define IDS_SQL_SQLITE(P) "(SELECT CAST(value AS INTEGER) AS id, CAST(key AS INTEGER) AS pos FROM json_each(" P "))"
const char *kip_store_ids_sql(kip_nexus *nx) { return nx->pg ? IDS_SQL_PG("?1") : IDS_SQL_SQLITE("?1"); }
const char *kip_store_ids_sql_high(kip_nexus *nx) { return nx->pg ? IDS_SQL_PG("?9004") : IDS_SQL_SQLITE("?9004"); }
int kip_bind_ids(kip_stmt *st, const int64_t *ids, size_t n) { return kip_bind_ids_at(st, 1, ids, n); }
int kip_bind_ids_at(kip_stmt *st, int at, const int64_t *ids, size_t n) {
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_addc(&b, '[');
  for (size_t i = 0; i < n; i++) kip_buf_printf(&b, "%s%lld", i ? "," : "", (long long)ids[i]);
  kip_buf_addc(&b, ']');
  size_t len = b.len;
  char *p = kip_buf_detach(&b);
  /* (JSON text: a JSON parameter on PostgreSQL, a string for SQLite's json_each — as a BLOB it would read JSONB) */
  return PG_IS(st) ? kip_bind_json_owned(st, at, p, (int)len) : kip_bind_text_owned(st, at, p, (int)len);
}
void kip_stmt_binary_results(kip_stmt *st) {
  if (PG_IS(st)) PG_ST(st)->binary = 1;
}
int kip_bind_blob(kip_stmt *st, int i, const void *p, int n) {
  return PG_IS(st) ? kip_pg_bind_bytea(PG_ST(st), i, p, n) : sqlite3_bind_blob(SQ(st), i, p, n, SQLITE_TRANSIENT);
}
int kip_store_errcode(kip_nexus *nx) { return nx->pg ? KIP_PG_ERROR : sqlite3_errcode(nx->db); }
int kip_store_interrupt_code(void) { return SQLITE_INTERRUPT; }
int64_t kip_store_changes(kip_nexus *nx) { return nx->pg ? nx->pg->changes : sqlite3_changes64(nx->db); }
int64_t kip_store_total_changes(kip_nexus *nx) { return nx->pg ? nx->pg->total_changes : sqlite3_total_changes64(nx->db); }
