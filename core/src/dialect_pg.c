/*
** dialect_pg.c — the PostgreSQL dialect of the KQL compiler (compile.h
** kip_dialect; docs/postgresql.md): the compiled SQL keeps SQLite's "?n"
** placeholders (the PostgreSQL store spells them "$n" when it prepares a
** statement, store_pg.c), and a hop range (RC11 §3.4.2) is a LATERAL
** recursive CTE with kip_hops's semantics (dialect_sqlite_hops.c): each node
** reachable from the start by a walk of min..max links, once; an unbounded
** range is a closure, which terminates on cycles because UNION keeps every
** node once. The value functions (kip_attr, kip_cmp, kip_in …) are SQL
** functions of the nexus's schema (store_pg_schema.c), so nothing is
** registered on the connection. Under a governance scope a walk crosses
** only the links and nodes inside it (kql_scope_cond, as kip_hops checks).
*/
#include "compile.h"

static char *param(kql *C, size_t n) { return kql_strf(C, "?%zu", n); }

static char *hop_table(kql *C, const char *start, const char *pred, int min, int max, int backward, const char *alias) {
  const char *from = backward ? "object" : "subject", *to = backward ? "subject" : "object";
  /* under a governance scope, a walk crosses only links and nodes inside it */
  char *link_in = kql_scope_cond(C, "e"), *node_in = kql_scope_cond(C, "n");
  const char *node_join = node_in ? kql_strf(C, " JOIN element n ON n.id = e.%s AND %s", to, node_in) : "";
  const char *link_and = link_in ? kql_strf(C, " AND %s", link_in) : "";
  char *step_w = kql_strf(C, "JOIN element e ON e.predicate = %s AND e.%s = w.node%s%s", pred, from, link_and, node_join);
  char *step_c = kql_strf(C, "JOIN element e ON e.predicate = %s AND e.%s = c.node%s%s", pred, from, link_and, node_join);
  if (max >= 0)
    return kql_strf(C,
                    "LATERAL (WITH RECURSIVE w(node, depth) AS (SELECT CAST(%s AS bigint), 0 UNION "
                    "SELECT e.%s, w.depth + 1 FROM w %s WHERE w.depth < %d) "
                    "SELECT DISTINCT node FROM w WHERE depth >= %d) %s",
                    start, to, step_w, max, min, alias);
  /* unbounded: the nodes min links away, then their closure */
  return kql_strf(C,
                  "LATERAL (WITH RECURSIVE w(node, depth) AS (SELECT CAST(%s AS bigint), 0 UNION "
                  "SELECT e.%s, w.depth + 1 FROM w %s WHERE w.depth < %d), c(node) AS (SELECT node FROM w "
                  "WHERE depth = %d UNION SELECT e.%s FROM c %s) SELECT node FROM c) %s",
                  start, to, step_w, min, min, to, step_c, alias);
}

static int register_functions(kip_nexus *nx) {
  (void)nx;
  return 0;
}

/* kip_in_scope as SQL: every element the element reaches through its
** endpoints (links about links, any depth) satisfies the scope */
static char *visible(kql *C, const char *id) {
  char *in = kql_scope_cond(C, "x");
  return kql_strf(C,
                  "NOT EXISTS (WITH RECURSIVE r(id) AS (SELECT CAST(%s AS bigint) UNION "
                  "SELECT v.id FROM r JOIN element e ON e.id = r.id CROSS JOIN LATERAL (VALUES (e.subject), (e.object)) "
                  "AS v(id) WHERE v.id IS NOT NULL) SELECT 1 FROM r JOIN element x ON x.id = r.id WHERE NOT coalesce(%s, false))",
                  id, in ? in : "true");
}

static char *column_value(kql *C, const char *sql) { return kql_strf(C, "to_json(%s)", sql); }

/* values sort by kip_key (store_pg_schema.c): numbers, then strings in
** code-point order, then other JSON — SQLite's order of its values */
static char *order_term(kql *C, const char *col, int desc) {
  return kql_strf(C, "%s IS NULL, kip_key(%s)%s", col, col, desc ? " DESC" : "");
}

const kip_dialect kip_dialect_pg = {
    .name = "postgresql", .param = param, .hop_table = hop_table, .register_functions = register_functions,
    .visible = visible, .not_indexed = "", .is = "IS NOT DISTINCT FROM", .is_not = "IS DISTINCT FROM", .column_value = column_value, .json_type = "json",
    .order_term = order_term, .order_wraps = 1, .group_by_rows = 1, .unlimited_null = 1,
    /* PostgreSQL allows one recursive term */
    .cascade_cte = "WITH RECURSIVE doomed(id) AS (SELECT CAST(?1 AS bigint) "
                   "UNION SELECT e.id FROM doomed d JOIN element e ON e.subject = d.id OR e.object = d.id) "};
