/*
** dialect_sqlite.c — the SQLite dialect of the KQL compiler (compile.h
** kip_dialect; DESIGN.md §3): "?n" placeholders, hop ranges through the
** kip_hops table-valued function (dialect_sqlite_hops.c), and the SQL
** function kip_visible(id) — kip_in_scope (scope.c) inside compiled queries,
** used on rows that may be links whose own endpoints the query does not
** join (endpoint rows, links bound by id). The value functions compiled
** queries call (kip_attr, kip_cmp, kip_in …) are the store's (store_sqlfunc.c).
*/
#include "compile.h"
#include "store_sqlite.h"

static char *param(kql *C, size_t n) { return kql_strf(C, "?%zu", n); }

static char *hop_table(kql *C, const char *start, const char *pred, int min, int max, int backward, const char *alias) {
  return kql_strf(C, "kip_hops(%s, %s, %d, %d, %d) %s", start, pred, min, max, backward ? 1 : 0, alias);
}

/* a database error fails the statement */
static void fn_visible(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  kip_nexus *nx = sqlite3_user_data(ctx);
  kip_error e;
  kip_err_clear(&e);
  int in = kip_in_scope(nx, sqlite3_value_int64(argv[0]), &e);
  if (in < 0) sqlite3_result_error(ctx, e.message, -1);
  else sqlite3_result_int(ctx, in);
}

static int register_functions(kip_nexus *nx) {
  return kip_register_hops(nx) ||
         sqlite3_create_function(nx->db, "kip_visible", 1, SQLITE_UTF8, nx, fn_visible, NULL, NULL) != SQLITE_OK;
}

static char *column_value(kql *C, const char *sql) {
  (void)C;
  return (char *)sql;
}

static char *visible(kql *C, const char *id) { return kql_strf(C, "kip_visible(%s)", id); }

static char *order_term(kql *C, const char *col, int desc) {
  return kql_strf(C, "%s IS NULL, %s%s", col, col, desc ? " DESC" : "");
}

const kip_dialect kip_dialect_sqlite = {
    .name = "sqlite", .param = param, .hop_table = hop_table, .register_functions = register_functions,
    .visible = visible, .not_indexed = "+", .is = "IS", .is_not = "IS NOT", .column_value = column_value, .json_type = "BLOB", .order_term = order_term,
    .order_wraps = 0, .group_by_rows = 0,
    .cascade_cte = "WITH RECURSIVE doomed(id) AS (VALUES(?1) "
                   "UNION SELECT e.id FROM doomed d JOIN element e ON e.subject = d.id "
                   "UNION SELECT e.id FROM doomed d JOIN element e ON e.object = d.id) "};
