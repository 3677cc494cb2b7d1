/*
** compile.h — the KQL compiler (compile_kql.c): WHERE patterns to one SQL
** statement over the element table.
*/
#ifndef KIP_COMPILE_H
#define KIP_COMPILE_H
#include "ast.h"
#include "store.h"

enum { VK_ELEM = 1, VK_PRED };

typedef struct cvar {
  const char *name;
  int kind;        /* VK_ELEM (expr = element id) or VK_PRED (expr = predicate name) */
  char *expr;      /* SQL expression */
  char *row;       /* alias of the joined element row, or NULL */
  int nullable;    /* may be NULL (OPTIONAL / UNION) */
} cvar;

/* What the compiler knows of one element row of a frame's FROM, for
** deciding whether its rows are distinct solutions (kql_rows_unique) */
typedef struct row_fact {
  const char *id;        /* "tN.id" */
  const char *subject;   /* a link clause's "tN.subject", "tN.object" and, */
  const char *object;    /* unless one predicate name fixes it, "tN.predicate"; */
  const char *predicate; /* NULL for rows that are not link clauses */
  int link;              /* a (?s, p, ?o) clause's row: unique per (subject, predicate, object) */
  int fixed;             /* at most one row whatever else is known: {type, name} or an id */
} row_fact;

typedef struct frame {
  struct frame *outer; /* correlated scope (NOT EXISTS), or NULL */
  cvar *vars;
  int nvars, capvars;
  kip_buf from, where;
  int nfrom;
  ast_expr **filters;  /* FILTERs deferred to the end of the segment */
  int nfilters, capfilters;
  row_fact *facts;     /* one per element row in FROM */
  int nfacts, capfacts;
  const char **eqs;    /* pairs of SQL expressions the WHERE makes equal */
  int neqs, capeqs;
  int left_join;       /* FROM holds a LEFT JOIN */
} frame;

typedef struct kip_dialect kip_dialect;

typedef struct kql {
  kip_nexus *nx;
  const kip_dialect *dialect; /* the SQL the store speaks (kql_dialect) */
  kip_arena *a;
  kip_error *err;
  int alias;
  json_t *binds;       /* bound parameter values (kv encoding), ?1.. */
  const char **needs_row;
  int nneeds, capneeds;
  int failed;
  const char **reached; /* the group being compiled: kql_plan_order */
  /* the schema checks the compile made ("is this type / predicate
  ** defined"): a plan reused for other parameter values makes those that
  ** read a parameter again (exec_plans.c) */
  struct kql_check {
    const char *meta; /* "$ConceptType" or "$PropositionType" */
    const char *name; /* the name checked (a parameter's string when it came from one) */
    kip_pos pos;
  } *checks;
  int nchecks, capchecks;
} kql;

void kql_init(kql *C, kip_nexus *nx, kip_arena *a, kip_error *err);
void kql_free(kql *C);
void frame_init(frame *F, frame *outer);
void frame_free(frame *F);
/* record variables used with fields/whole objects (need an element row) */
void kql_note_expr(kql *C, const ast_expr *e);
/* compile a WHERE group into F (top level) */
int kql_group(kql *C, frame *F, const ast_group *g);
/* compile_parts.c: how many parts of the top-level pattern `g` (clauses
** joined by shared variables or a FILTER comparing them) no name or id
** anchors; *a and *b: where the first two of them start. kql_group refuses
** a pattern with two or more (KIP_4002): every pairing would be a solution */
int kql_unanchored_parts(const ast_group *g, kip_pos *a, kip_pos *b);
/* 0 when `name` is defined as a `meta` ("$ConceptType" / "$PropositionType"),
** else KIP_E_TYPE at pos (err filled) or a database error */
int kql_check_defined(kip_nexus *nx, const char *meta, const char *name, kip_pos pos, kip_error *err);
/* the order in which to compile g's items (order: g->n indices): within
** each run of clauses between OPTIONAL, NOT and UNION, those a name, an id
** or an already bound variable anchors first, then along the edges from
** them — whatever order they were written in (RC11 leaves it free); and in
** *reached (malloc'ed, NULL-terminated, or NULL) the variables edges connect
** to an anchor: a type-only clause on one of them is a filter, never where
** the plan starts */
void kql_plan_order(const ast_group *g, frame *F, int *order, const char ***reached);
cvar *kql_lookup(frame *F, const char *name);
/* 1 when no two rows of F's join can give the same values of the SQL
** expressions keys (the solutions' identities): every row of F is then a
** distinct solution and needs no deduplication (RC11 §3.3) */
int kql_rows_unique(const frame *F, const char *const *keys, int nkeys);
/* SQL text of an expression as a KIP value (kv) / as a 0-1 boolean */
char *kql_kv(kql *C, frame *F, const ast_expr *e);
/* ensure a row alias for an element variable */
char *kql_row(kql *C, frame *F, cvar *v);
char *kql_strf(kql *C, const char *fmt, ...) KIP_PRINTF(2, 3);
char *kql_quote(kql *C, const char *s);
/* the request's scope as an SQL condition on element row `alias` (binds
** its values), or NULL when the request has no scope */
char *kql_scope_cond(kql *C, const char *alias);
/* bind all values of C->binds to a prepared statement starting at ?1 */
void kql_bind_all(kql *C, kip_stmt *st);
/* compile a statement's WHERE and select DISTINCT ids of the target var */
int kql_target_sql(kql *C, const ast_group *where, const char *target, kip_pos tpos, int64_t limit, kip_buf *sql,
                   int with_kind);
/* the same, one keyset page of one kind of target (EXPORT): ids above the
** value bound at number page->after, at most the value bound at number
** page->limit of them, in id order (the compiled binds hold 0 and -1: all) */
enum { KQL_PAGE_CONCEPTS, KQL_PAGE_LINKS, KQL_PAGE_HIGHER };
typedef struct kql_page {
  int kind;            /* concepts; propositions between concepts; propositions over propositions */
  size_t after, limit; /* set by the compiler */
} kql_page;
int kql_target_page_sql(kql *C, const ast_group *where, const char *target, kip_pos tpos, kql_page *page,
                        kip_buf *sql);

/* compile_find.c: the SQL of a FIND and how each projection's columns are
** rendered (exec_find.c renders them; kip explain shows the SQL). A
** projection starts at result column col and spans ncols columns. */
enum { R_ELEM = 1, R_ID, R_TEXT, R_JSON, R_META, R_KV };
typedef struct proj {
  int render; /* R_* */
  int col, ncols;
  int agg; /* E_AGG */
} proj;
int kip_find_sql(kql *C, const ast_find *f, kip_buf *sql, proj **projs_out, int *aggregated_out);

/* The SQL dialect the compiler emits for (DESIGN.md §3 "dialect"): what a
** backend spells its own way, and the functions it provides to compiled
** queries (kip_attr, kip_cmp, kip_in, kip_visible … keep their names across
** backends; how a backend defines them is its own business). A second
** backend (PostgreSQL) is a new store behind store.h plus a new dialect. */
struct kip_dialect {
  const char *name;
  /* the placeholder of bound value number n (1-based): "?n" in SQLite */
  char *(*param)(kql *C, size_t n);
  /* the table expression yielding column `node` for every element reachable
  ** from `start` by min..max links of predicate `pred` (a placeholder),
  ** backward: against link direction (RC11 §3.4.2 hop ranges) */
  char *(*hop_table)(kql *C, const char *start, const char *pred, int min, int max, int backward, const char *alias);
  /* register what compiled queries call on the connection (hop traversal,
  ** kip_visible); 0 on success */
  int (*register_functions)(kip_nexus *nx);
  /* "element `id` is inside the request's governance scope, and so are
  ** its endpoints, transitively" (scope.c kip_in_scope) */
  char *(*visible)(kql *C, const char *id);
  /* the prefix that keeps a column's index from driving a plan ("+" in
  ** SQLite; PostgreSQL's planner has no such hint and needs none: "") */
  const char *not_indexed;
  /* null-safe equality and inequality ("IS" / "IS NOT" in SQLite) */
  const char *is, *is_not;
  /* an operand of the value functions (kip_cmp, kip_in, kip_contains …)
  ** that is a column, not a value of the attributes: SQLite's values are
  ** dynamically typed, PostgreSQL's functions take json */
  char *(*column_value)(kql *C, const char *sql);
  /* the type a whole attributes or metadata object is cast to as a value */
  const char *json_type;
  /* one ORDER BY term over result column `col` (nulls last); wrap: the
  ** ordered query must be a subquery first (its terms are expressions
  ** over output columns, which PostgreSQL allows only from a subquery) */
  char *(*order_term)(kql *C, const char *col, int desc);
  int order_wraps;
  /* GROUP BY must name the joined rows whose columns a projection reads
  ** (PostgreSQL infers functional dependence only from a primary key) */
  int group_by_rows;
  /* a LIMIT without a bound is NULL (PostgreSQL), not -1 (SQLite) */
  int unlimited_null;
  /* the element (?1) and every proposition that references it,
  ** transitively: a WITH clause defining doomed(id) (exec_delete.c) */
  const char *cascade_cte;
};
/* the dialect of the SQL nexus nx's store speaks */
const kip_dialect *kql_dialect(kip_nexus *nx);

/* dialect_sqlite.c */
extern const kip_dialect kip_dialect_sqlite;
/* dialect_pg.c */
extern const kip_dialect kip_dialect_pg;
/* dialect_sqlite_hops.c: the kip_hops table-valued function */
int kip_register_hops(kip_nexus *nx);

/* scope.c: the governance scope (not a store concern) */
/* 1 when element id is inside the request's scope (always without one),
** 0 when outside, -1 on a database error (err filled) */
int kip_in_scope(kip_nexus *nx, int64_t id, kip_error *err);

/* scope.c: the governance scope of a request (see kip_call_options) */
int kip_scope_begin(kip_nexus *nx, const kip_call_options *opt, kip_arena *a, kip_scope *S, kip_error *err);
void kip_scope_end(kip_nexus *nx);

int kip_scope_denied(kip_error *err, kip_pos pos);

#endif
