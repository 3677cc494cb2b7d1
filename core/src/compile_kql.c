/*
** compile_kql.c — compiles KQL WHERE patterns (RC11 §3.4) to one SQL
** statement over the `element` table, executed by SQLite:
**   concept / proposition clause -> a table alias with equality predicates;
**   shared variables -> join conditions; predicate variables -> the
**   predicate column; hop ranges -> the kip_hops table-valued function (a
**   bounded BFS in C, dialect_sqlite_hops.c); OPTIONAL -> LEFT JOIN of a subquery; NOT ->
**   NOT EXISTS (correlated, private inner variables); UNION -> a compound
**   SELECT padded with NULL; FILTER -> WHERE using the SQL functions of
**   store_sqlfunc.c. FILTERs apply at the end of their segment (the items between
**   UNIONs); NOT sees only the variables bound before it.
** docs/query-compiler.md documents the mapping with worked examples.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

#define CFAIL(C) ((C)->failed || (C)->err->code)

void kql_init(kql *C, kip_nexus *nx, kip_arena *a, kip_error *err) {
  memset(C, 0, sizeof *C);
  C->nx = nx;
  C->dialect = kql_dialect(nx);
  C->a = a;
  C->err = err;
  C->binds = json_array();
}

const kip_dialect *kql_dialect(kip_nexus *nx) {
  switch (nx->sql_dialect) {
    case KIP_SQL_SQLITE: return &kip_dialect_sqlite;
    case KIP_SQL_POSTGRESQL: return &kip_dialect_pg;
  }
  return &kip_dialect_sqlite;
}

void kql_free(kql *C) {
  json_decref(C->binds);
  free(C->needs_row);
  free(C->checks);
}

void frame_init(frame *F, frame *outer) {
  memset(F, 0, sizeof *F);
  F->outer = outer;
  kip_buf_init(&F->from);
  kip_buf_init(&F->where);
}

void frame_free(frame *F) {
  kip_buf_free(&F->from);
  kip_buf_free(&F->where);
  free(F->vars);
  free(F->filters);
  free(F->facts);
  free(F->eqs);
}

char *kql_strf(kql *C, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[512];
  int n = kip_vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) n = 0;
  if ((size_t)n < sizeof tmp) return kip_strndup(C->a, tmp, (size_t)n);
  char *p = kip_alloc(C->a, (size_t)n + 1);
  va_start(ap, fmt);
  kip_vsnprintf(p, (size_t)n + 1, fmt, ap);
  va_end(ap);
  return p;
}

char *kql_quote(kql *C, const char *s) {
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_addc(&b, '\'');
  for (const char *p = s; *p; p++) {
    if (*p == '\'') kip_buf_addc(&b, '\'');
    kip_buf_addc(&b, *p);
  }
  kip_buf_addc(&b, '\'');
  char *r = kip_strndup(C->a, b.p, b.len);
  kip_buf_free(&b);
  return r;
}

static char *kql_bool(kql *C, frame *F, const ast_expr *e);

static char *fresh(kql *C, const char *prefix) { return kql_strf(C, "%s%d", prefix, ++C->alias); }

static char *bind(kql *C, const json_t *v) {
  json_array_append(C->binds, (json_t *)v);
  return C->dialect->param(C, json_array_size(C->binds));
}

void kql_bind_all(kql *C, kip_stmt *st) {
  size_t i;
  json_t *v;
  json_array_foreach(C->binds, i, v) {
    int k = (int)i + 1;
    switch (json_typeof(v)) {
      case JSON_STRING: kip_bind_text(st, k, json_string_value(v), (int)json_string_length(v), 1); break;
      case JSON_INTEGER: kip_bind_int64(st, k, json_integer_value(v)); break;
      case JSON_REAL: kip_bind_double(st, k, json_real_value(v)); break;
      case JSON_NULL: kip_bind_null(st, k); break;
      default: {
        char *s = kip_json_dump(v);
        kip_bind_json_owned(st, k, s, (int)strlen(s));
      }
    }
  }
}

static int fail_at(kql *C, kip_pos pos, int code, const char *hint, const char *fmt, ...) KIP_PRINTF(5, 6);
static int fail_at(kql *C, kip_pos pos, int code, const char *hint, const char *fmt, ...) {
  if (C->failed) return C->err->code;
  C->failed = 1;
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  return kip_err_at(C->err, code, pos.line, pos.col, hint, "%s", msg);
}

/* ---------------------------------------------------------- needs_row */
static int needs_row(kql *C, const char *name) {
  for (int i = 0; i < C->nneeds; i++)
    if (!strcmp(C->needs_row[i], name)) return 1;
  return 0;
}

static void note_row(kql *C, const char *name) {
  if (needs_row(C, name)) return;
  if (C->nneeds == C->capneeds) {
    C->capneeds = C->capneeds ? C->capneeds * 2 : 8;
    C->needs_row = realloc(C->needs_row, (size_t)C->capneeds * sizeof *C->needs_row);
    if (!C->needs_row) abort();
  }
  C->needs_row[C->nneeds++] = name;
}

void kql_note_expr(kql *C, const ast_expr *e) {
  if (!e) return;
  if (e->kind == E_PATH) note_row(C, e->var);
  for (int i = 0; i < e->nargs; i++) kql_note_expr(C, e->args[i]);
}

static void kql_note_group(kql *C, const ast_group *g) {
  for (int i = 0; g && i < g->n; i++) {
    const ast_where *w = g->items[i];
    if (w->kind == W_FILTER) kql_note_expr(C, w->filter);
    else if (w->group) kql_note_group(C, w->group);
  }
}

/* ------------------------------------------------------------- frames */
static void add_from(frame *F, const char *item) {
  if (F->nfrom++) kip_buf_adds(&F->from, ", ");
  kip_buf_adds(&F->from, item);
}

static void add_join(frame *F, const char *join) {
  F->left_join = 1;
  /* a LEFT JOIN needs something on its left */
  if (F->nfrom == 0) {
    kip_buf_adds(&F->from, "(SELECT 1) one");
    F->nfrom = 1;
  }
  kip_buf_addc(&F->from, ' ');
  kip_buf_adds(&F->from, join);
}

static void add_where(frame *F, const char *cond) {
  if (F->where.len) kip_buf_adds(&F->where, " AND ");
  kip_buf_adds(&F->where, cond);
}

/* the WHERE condition a = b, remembered for kql_rows_unique */
static void add_eq(kql *C, frame *F, const char *a, const char *b) {
  add_where(F, kql_strf(C, "%s = %s", a, b));
  if (F->neqs == F->capeqs) {
    F->capeqs = F->capeqs ? F->capeqs * 2 : 8;
    F->eqs = realloc(F->eqs, (size_t)F->capeqs * 2 * sizeof *F->eqs);
    if (!F->eqs) abort();
  }
  F->eqs[2 * F->neqs] = a;
  F->eqs[2 * F->neqs + 1] = b;
  F->neqs++;
}

/* the fact of this frame's element row alias, or NULL (an outer frame's row) */
static row_fact *fact_of(kql *C, frame *F, const char *alias) {
  char *id = kql_strf(C, "%s.id", alias);
  for (int i = 0; i < F->nfacts; i++)
    if (!strcmp(F->facts[i].id, id)) return &F->facts[i];
  return NULL;
}

static int known(const char **set, int n, const char *expr) {
  for (int i = 0; i < n; i++)
    if (!strcmp(set[i], expr)) return 1;
  return 0;
}

/* Functional dependencies over the join: starting from the keys, a row is
** determined when its id is known (equal to a known expression), when its
** clause fixes it ({type, name} is unique, so is an id), or, for a link,
** when its subject, predicate and object are known (element_spo is
** unique); a determined link makes its endpoints and predicate known.
** When every row is determined, the keys determine the whole join row. */
int kql_rows_unique(const frame *F, const char *const *keys, int nkeys) {
  /* a FROM item that is not an element row (a hop table, a UNION's derived
  ** table) has no fact, and LEFT JOINs do not count as FROM items */
  if (F->left_join || F->nfacts == 0 || F->nfrom != F->nfacts) return 0;
  int cap = nkeys + 2 * F->neqs + 4 * F->nfacts, n = 0, changed = 1;
  const char **set = malloc((size_t)cap * sizeof *set);
  if (!set) return 0;
  for (int i = 0; i < nkeys; i++) set[n++] = keys[i];
#define LEARN(e) (!known(set, n, (e)) ? (set[n++] = (e), changed = 1) : 0)
  while (changed) {
    changed = 0;
    for (int i = 0; i < F->neqs; i++) {
      const char *a = F->eqs[2 * i], *b = F->eqs[2 * i + 1];
      if (known(set, n, a)) LEARN(b);
      else if (known(set, n, b)) LEARN(a);
    }
    for (int i = 0; i < F->nfacts; i++) {
      const row_fact *f = &F->facts[i];
      if (!known(set, n, f->id) &&
          (f->fixed || (f->link && known(set, n, f->subject) && known(set, n, f->object) &&
                        (!f->predicate || known(set, n, f->predicate)))))
        LEARN(f->id);
      if (f->link && known(set, n, f->id)) {
        LEARN(f->subject);
        LEARN(f->object);
        if (f->predicate) LEARN(f->predicate);
      }
    }
  }
#undef LEARN
  int all = 1;
  for (int i = 0; i < F->nfacts && all; i++) all = known(set, n, F->facts[i].id);
  free(set);
  return all;
}

cvar *kql_lookup(frame *F, const char *name) {
  for (frame *f = F; f; f = f->outer)
    for (int i = f->nvars - 1; i >= 0; i--)
      if (!strcmp(f->vars[i].name, name)) return &f->vars[i];
  return NULL;
}

static cvar *local_lookup(frame *F, const char *name) {
  for (int i = F->nvars - 1; i >= 0; i--)
    if (!strcmp(F->vars[i].name, name)) return &F->vars[i];
  return NULL;
}

static int owns(frame *F, cvar *v) { return F->nvars > 0 && v >= F->vars && v < F->vars + F->nvars; }

static cvar *bind_var(frame *F, const char *name, int kind, char *expr, char *row, int nullable) {
  if (F->nvars == F->capvars) {
    F->capvars = F->capvars ? F->capvars * 2 : 8;
    F->vars = realloc(F->vars, (size_t)F->capvars * sizeof *F->vars);
    if (!F->vars) abort();
  }
  cvar *v = &F->vars[F->nvars++];
  v->name = name;
  v->kind = kind;
  v->expr = expr;
  v->row = row;
  v->nullable = nullable;
  return v;
}

static void add_element(kql *C, frame *F, const char *alias);

char *kql_row(kql *C, frame *F, cvar *v) {
  if (v->row && owns(F, v)) return v->row;
  if (v->row && !owns(F, v)) return v->row; /* outer row alias is visible in a correlated subquery */
  char *r = fresh(C, "t");
  if (owns(F, v) && v->nullable) {
    add_join(F, kql_strf(C, "LEFT JOIN element %s ON %s.id = %s", r, r, v->expr));
  } else {
    add_element(C, F, r);
    add_eq(C, F, kql_strf(C, "%s.id", r), v->expr);
  }
  if (owns(F, v)) v->row = r;
  else bind_var(F, v->name, v->kind, v->expr, r, v->nullable); /* local shadow with a row */
  return r;
}

/* ---------------------------------------------------------------- scope */
static void append_not_in(kql *C, kip_buf *b, const char *alias, const char *col, const char *const *names) {
  if (!names || !names[0]) return;
  if (b->len) kip_buf_adds(b, " AND ");
  kip_buf_printf(b, "(%s.%s IS NULL OR %s.%s NOT IN (", alias, col, alias, col);
  for (int i = 0; names[i]; i++) {
    json_t *v = json_string(names[i]);
    kip_buf_printf(b, "%s%s", i ? ", " : "", bind(C, v));
    json_decref(v);
  }
  kip_buf_adds(b, "))");
}

char *kql_scope_cond(kql *C, const char *alias) {
  const kip_scope *S = C->nx->req->scope;
  if (!S) return NULL;
  kip_buf b;
  kip_buf_init(&b);
  if (S->eligibility) {
    frame T;
    frame_init(&T, NULL);
    bind_var(&T, "e", VK_ELEM, kql_strf(C, "%s.id", alias), (char *)alias, 0);
    char *x = kql_bool(C, &T, S->eligibility);
    frame_free(&T);
    if (x) kip_buf_printf(&b, "(%s)", x);
  }
  append_not_in(C, &b, alias, "type", S->forbidden_types);
  append_not_in(C, &b, alias, "predicate", S->forbidden_predicates);
  char *r = b.len ? kql_strf(C, "%s", b.p) : NULL;
  kip_buf_free(&b);
  return r;
}

/* a new element row in FROM, restricted to the scope */
static void add_element(kql *C, frame *F, const char *alias) {
  add_from(F, kql_strf(C, "element %s", alias));
  if (F->nfacts == F->capfacts) {
    F->capfacts = F->capfacts ? F->capfacts * 2 : 8;
    F->facts = realloc(F->facts, (size_t)F->capfacts * sizeof *F->facts);
    if (!F->facts) abort();
  }
  F->facts[F->nfacts++] = (row_fact){.id = kql_strf(C, "%s.id", alias)};
  char *cond = kql_scope_cond(C, alias);
  if (cond) add_where(F, cond);
}

/* --------------------------------------------------------------- schema */
static int check_defined(kql *C, const char *meta, const char *name, kip_pos pos) {
  if (C->nchecks == C->capchecks) {
    C->capchecks = C->capchecks ? 2 * C->capchecks : 4;
    C->checks = realloc(C->checks, (size_t)C->capchecks * sizeof *C->checks);
    if (!C->checks) abort();
  }
  C->checks[C->nchecks++] = (struct kql_check){meta, name, pos};
  if (C->failed) return C->err->code;
  int rc = kql_check_defined(C->nx, meta, name, pos, C->err);
  if (rc) C->failed = 1;
  return rc;
}

int kql_check_defined(kip_nexus *nx, const char *meta, const char *name, kip_pos pos, kip_error *err) {
  int d = kip_store_is_defined(nx, meta, name, err);
  if (d < 0) return err->code;
  if (d) return 0;
  int concept = !strcmp(meta, "$ConceptType");
  return kip_err_at(err, KIP_E_TYPE, pos.line, pos.col,
                    concept ? "Check the type name with DESCRIBE CONCEPT TYPES (names are case-sensitive)."
                            : "Check the predicate with DESCRIBE PROPOSITION TYPES (names are case-sensitive).",
                    "%s '%s' is not defined", concept ? "concept type" : "predicate", name);
}

/* ------------------------------------------------------------ clauses */
static char *compile_prop(kql *C, frame *F, const ast_prop *pr);

static char *id_condition(kql *C, const char *r, const json_t *idv, int want_prop) {
  int64_t id;
  int p;
  if (!kip_parse_id(json_string_value(idv), &id, &p) || p != want_prop) return kql_strf(C, "1 = 0");
  return kql_strf(C, "%s.id = %lld AND %s.%s IS NOT NULL", r, (long long)id, r, want_prop ? "subject" : "type");
}

/* the row alias of a concept or link clause: the row of its variable when
** an earlier clause bound it (non-null from here on), else a fresh element
** row bound to the variable; NULL after an error (a predicate variable) */
static char *element_row(kql *C, frame *F, const char *var, cvar *v, kip_pos pos, const char *what) {
  if (v) {
    if (v->kind != VK_ELEM) {
      fail_at(C, pos, KIP_E_SYNTAX, NULL, "?%s is a predicate variable, not %s", var, what);
      return NULL;
    }
    char *r = kql_row(C, F, v);
    if (v->nullable) add_where(F, kql_strf(C, "%s IS NOT NULL", v->expr));
    return r;
  }
  char *r = fresh(C, "t");
  add_element(C, F, r);
  if (var) bind_var(F, var, VK_ELEM, kql_strf(C, "%s.id", r), r, 0);
  return r;
}

static int reached(const kql *C, const char *var) {
  for (const char **r = C->reached; var && r && *r; r++)
    if (!strcmp(*r, var)) return 1;
  return 0;
}

static char *compile_concept(kql *C, frame *F, const ast_concept *cc) {
  if (cc->type && check_defined(C, "$ConceptType", json_string_value(cc->type), cc->pos)) return NULL;
  cvar *v = cc->var ? kql_lookup(F, cc->var) : NULL;
  char *r = element_row(C, F, cc->var, v, cc->pos, "a concept");
  if (!r) return NULL;
  if (cc->id) add_where(F, id_condition(C, r, cc->id, 0));
  /* a type-only clause on a variable that edges connect to an anchor —
  ** before or after the clause — is a filter, never a driver: the unary +
  ** keeps SQLite from starting at every element of the type, whatever its
  ** statistics say (the plan walks the edge from the anchor) */
  int filter_only = v && !cc->name && !cc->id && reached(C, cc->var);
  if (cc->type) add_where(F, kql_strf(C, "%s%s.type = %s", filter_only ? C->dialect->not_indexed : "", r, bind(C, cc->type)));
  else add_where(F, kql_strf(C, "%s.type IS NOT NULL", r));
  if (cc->name) add_where(F, kql_strf(C, "%s.name = %s", r, bind(C, cc->name)));
  row_fact *f = (cc->type && cc->name) || cc->id ? fact_of(C, F, r) : NULL;
  if (f) f->fixed = 1;
  return r;
}

/* join an endpoint to the SQL expression col (e.g. "t3.subject") */
static int endpoint_join(kql *C, frame *F, const ast_endpoint *ep, const char *col) {
  if (ep->kind == EP_VAR) {
    cvar *v = kql_lookup(F, ep->var);
    if (v) {
      if (v->kind != VK_ELEM)
        return fail_at(C, ep->pos, KIP_E_SYNTAX, NULL, "?%s is a predicate variable and cannot be an endpoint", ep->var);
      add_eq(C, F, col, v->expr);
      return 0;
    }
    v = bind_var(F, ep->var, VK_ELEM, kql_strf(C, "%s", col), NULL, 0);
    if (C->nx->req->scope) { /* a scoped endpoint needs its row; a link endpoint, its own endpoints checked */
      char *r = kql_row(C, F, v);
      add_where(F, kql_strf(C, "(%s.type IS NOT NULL OR %s)", r, C->dialect->visible(C, kql_strf(C, "%s.id", r))));
    } else if (needs_row(C, ep->var)) {
      kql_row(C, F, v);
    }
    return 0;
  }
  char *a = ep->kind == EP_CONCEPT ? compile_concept(C, F, ep->concept) : compile_prop(C, F, ep->prop);
  if (!a) return C->err->code;
  add_eq(C, F, col, kql_strf(C, "%s.id", a));
  return 0;
}

static char *compile_hops(kql *C, frame *F, const ast_prop *pr) {
  const ast_pred *pd = &pr->pred;
  if (pr->var)
    return fail_at(C, pr->pos, KIP_E_SYNTAX, "Bind links of single hops only: ?l (?a, \"p\", ?b).",
                   "link variable ?%s cannot bind a multi-hop path", pr->var), (char *)NULL;
  if (check_defined(C, "$PropositionType", pd->names[0], pd->pos)) return NULL;
  if (pd->max > C->nx->req->max_hops || pd->min > C->nx->req->max_hops) {
    fail_at(C, pd->pos, KIP_E_RESOURCE, "Lower the upper bound of the hop range.",
            "hop range {%d,%d} exceeds the hop cap of %d", pd->min, pd->max, C->nx->req->max_hops);
    return NULL;
  }
  const ast_endpoint *s = &pr->subject, *o = &pr->object;
  int s_anchor = s->kind != EP_VAR || kql_lookup(F, s->var);
  int o_anchor = o->kind != EP_VAR || kql_lookup(F, o->var);
  int forward = s_anchor || !o_anchor;
  const ast_endpoint *from = forward ? s : o, *to = forward ? o : s;
  char *start;
  if (from->kind == EP_VAR) {
    cvar *v = kql_lookup(F, from->var);
    if (!v) { /* nothing anchors the path: start from every element */
      char *r = fresh(C, "t");
      add_element(C, F, r);
      v = bind_var(F, from->var, VK_ELEM, kql_strf(C, "%s.id", r), r, 0);
    }
    if (v->kind != VK_ELEM) {
      fail_at(C, from->pos, KIP_E_SYNTAX, NULL, "?%s is a predicate variable and cannot be an endpoint", from->var);
      return NULL;
    }
    start = v->expr;
  } else {
    char *a = from->kind == EP_CONCEPT ? compile_concept(C, F, from->concept) : compile_prop(C, F, from->prop);
    if (!a) return NULL;
    start = kql_strf(C, "%s.id", a);
  }
  char *h = fresh(C, "h");
  json_t *pv = json_string(pd->names[0]);
  char *pb = bind(C, pv);
  json_decref(pv);
  add_from(F, C->dialect->hop_table(C, start, pb, pd->min, pd->max, !forward, h));
  if (endpoint_join(C, F, to, kql_strf(C, "%s.node", h))) return NULL;
  return h;
}

static char *compile_prop(kql *C, frame *F, const ast_prop *pr) {
  const ast_pred *pd = &pr->pred;
  if (!pr->id && pd->kind == PRED_HOPS && !(pd->min == 1 && pd->max == 1)) return compile_hops(C, F, pr);
  cvar *v = pr->var ? kql_lookup(F, pr->var) : NULL;
  char *r = element_row(C, F, pr->var, v, pr->pos, "a link");
  if (!r) return NULL;
  row_fact *f = fact_of(C, F, r);
  if (pr->id) {
    if (f) f->fixed = 1;
    add_where(F, id_condition(C, r, pr->id, 1));
    if (C->nx->req->scope) add_where(F, C->dialect->visible(C, kql_strf(C, "%s.id", r))); /* its endpoints are not joined */
    return r;
  }
  if (pd->kind == PRED_VAR) {
    cvar *p = kql_lookup(F, pd->var);
    if (p) {
      if (p->kind != VK_PRED) {
        fail_at(C, pd->pos, KIP_E_SYNTAX, NULL, "?%s is bound to an element, not a predicate", pd->var);
        return NULL;
      }
      add_eq(C, F, kql_strf(C, "%s.predicate", r), p->expr);
    } else {
      add_where(F, kql_strf(C, "%s.predicate IS NOT NULL", r));
      bind_var(F, pd->var, VK_PRED, kql_strf(C, "%s.predicate", r), NULL, 0);
    }
  } else {
    kip_buf b;
    kip_buf_init(&b);
    for (int i = 0; i < pd->nnames; i++) {
      if (check_defined(C, "$PropositionType", pd->names[i], pd->pos)) {
        kip_buf_free(&b);
        return NULL;
      }
      json_t *pv = json_string(pd->names[i]);
      if (i) kip_buf_adds(&b, ", ");
      kip_buf_adds(&b, bind(C, pv));
      json_decref(pv);
    }
    add_where(F, pd->nnames == 1 ? kql_strf(C, "%s.predicate = %s", r, b.p) : kql_strf(C, "%s.predicate IN (%s)", r, b.p));
    kip_buf_free(&b);
  }
  char *subject = kql_strf(C, "%s.subject", r), *object = kql_strf(C, "%s.object", r);
  if (f) {
    f->link = 1;
    f->subject = subject;
    f->object = object;
    f->predicate = pd->kind != PRED_VAR && pd->nnames == 1 ? NULL : kql_strf(C, "%s.predicate", r);
  }
  if (endpoint_join(C, F, &pr->subject, subject)) return NULL;
  if (endpoint_join(C, F, &pr->object, object)) return NULL;
  return r;
}

/* ---------------------------------------------------------- expressions */
static const int kc_of[] = {0, 0, 0, 1, 2, 3, 4, 5, 6}; /* OP_* -> kip_cmp op */

static char *path_kv(kql *C, frame *F, cvar *v, const ast_expr *e) {
  if (v->kind != VK_ELEM) {
    fail_at(C, e->pos, KIP_E_SYNTAX, "A predicate variable holds the predicate name; use it without a dot path.",
            "?%s is a predicate variable and has no fields", e->var);
    return NULL;
  }
  char *r = kql_row(C, F, v);
  switch (e->field) {
    case F_ID: return kql_strf(C, "(CASE WHEN %s.type IS NULL THEN 'P:' ELSE 'C:' END || %s.id)", r, r);
    case F_TYPE: return kql_strf(C, "%s.type", r);
    case F_NAME: return kql_strf(C, "%s.name", r);
    case F_PREDICATE: return kql_strf(C, "%s.predicate", r);
    case F_SUBJECT:
    case F_OBJECT:
      return kql_strf(C, "(SELECT CASE WHEN z.type IS NULL THEN 'P:' ELSE 'C:' END || z.id FROM element z WHERE z.id = %s.%s)",
                      r, e->field == F_SUBJECT ? "subject" : "object");
    case F_ATTRS:
      if (!e->key) return kql_strf(C, "CAST(%s.attributes AS %s)", r, C->dialect->json_type);
      return kql_strf(C, "kip_attr(%s.attributes, %s)", r, kql_quote(C, e->key));
    case F_META:
      if (!e->key) return kql_strf(C, "CAST(%s.metadata AS %s)", r, C->dialect->json_type);
      if (!strcmp(e->key, "_version")) return kql_strf(C, "%s.version", r);
      if (!strcmp(e->key, "_updated_at")) return kql_strf(C, "%s.updated_at", r);
      if (!strcmp(e->key, "_score")) return kql_strf(C, "NULL");
      return kql_strf(C, "kip_attr(%s.metadata, %s)", r, kql_quote(C, e->key));
  }
  return NULL;
}

char *kql_kv(kql *C, frame *F, const ast_expr *e) {
  if (CFAIL(C)) return NULL;
  switch (e->kind) {
    case E_LIT: return bind(C, e->lit);
    case E_VAR:
    case E_PATH: {
      cvar *v = kql_lookup(F, e->var);
      if (!v) {
        fail_at(C, e->pos, KIP_E_REFERENCE, "Bind the variable in a WHERE pattern before using it.",
                "variable ?%s is not bound in this scope", e->var);
        return NULL;
      }
      if (e->kind == E_VAR) return v->expr;
      return path_kv(C, F, v, e);
    }
    case E_AGG:
      fail_at(C, e->pos, KIP_E_SYNTAX, "Aggregates belong in FIND (and ORDER BY).", "aggregate not allowed here");
      return NULL;
    default: return kql_bool(C, F, e);
  }
}

/* an operand of a value function as the dialect passes it: a column
** (a variable, or a field that is not inside attributes or metadata) is
** not a value of the attributes, whose type the functions take */
static char *value_operand(kql *C, const ast_expr *e, char *sql) {
  if (!sql) return NULL;
  int column = e->kind == E_VAR ||
               (e->kind == E_PATH && !((e->field == F_ATTRS || e->field == F_META) && e->key &&
                                       strcmp(e->key, "_version") && strcmp(e->key, "_updated_at")));
  return column ? C->dialect->column_value(C, sql) : sql;
}

static int is_text_field(const ast_expr *e, cvar *v) {
  if (e->kind == E_VAR) return v && v->kind == VK_PRED;
  return e->kind == E_PATH && (e->field == F_NAME || e->field == F_TYPE || e->field == F_PREDICATE);
}

/* ---------------------------------------------------- && / || chains */
/* An associative chain a || b || c ... (a left-deep tree from the parser)
** compiles flat, in groups of CHAIN_GROUP operands per parenthesis, so
** neither SQLite's parser stack nor its expression depth grows with the
** chain, and the text is built in linear time. */
#define CHAIN_GROUP 64

typedef struct expr_list {
  const ast_expr **v;
  size_t n, cap;
} expr_list;

static void push_expr(expr_list *l, const ast_expr *e) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 16;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
    if (!l->v) abort();
  }
  l->v[l->n++] = e;
}

/* the operands of the chain rooted at e, in source order */
static void chain_operands(const ast_expr *e, int op, expr_list *out) {
  expr_list rights = {0};
  while (e->kind == E_BIN && e->op == op) {
    push_expr(&rights, e->args[1]);
    e = e->args[0];
  }
  push_expr(out, e);
  for (size_t i = rights.n; i-- > 0;) {
    const ast_expr *r = rights.v[i];
    if (r->kind == E_BIN && r->op == op) chain_operands(r, op, out); /* (a || b) on the right: parenthesised */
    else push_expr(out, r);
  }
  free(rights.v);
}

static char *join_group(kql *C, char **terms, size_t n, const char *sep) {
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_addc(&b, '(');
  for (size_t i = 0; i < n; i++) {
    if (i) kip_buf_adds(&b, sep);
    kip_buf_adds(&b, terms[i]);
  }
  kip_buf_addc(&b, ')');
  char *r = kip_strndup(C->a, b.p, b.len);
  kip_buf_free(&b);
  return r;
}

static char *compile_chain(kql *C, frame *F, const ast_expr *e) {
  const char *sep = e->op == OP_AND ? " AND " : " OR ";
  expr_list ops = {0};
  chain_operands(e, e->op, &ops);
  char **terms = malloc(ops.n * sizeof *terms);
  if (!terms) abort();
  size_t n = 0;
  for (size_t i = 0; i < ops.n; i++) {
    char *t = kql_bool(C, F, ops.v[i]);
    if (!t) break;
    terms[n++] = t;
  }
  char *r = NULL;
  if (n == ops.n) {
    while (n > CHAIN_GROUP) { /* n terms -> ceil(n / CHAIN_GROUP) groups */
      size_t m = 0;
      for (size_t i = 0; i < n; i += CHAIN_GROUP)
        terms[m++] = join_group(C, terms + i, n - i < CHAIN_GROUP ? n - i : CHAIN_GROUP, sep);
      n = m;
    }
    r = join_group(C, terms, n, sep);
  }
  free(terms);
  free(ops.v);
  return r;
}

static char *kql_bool(kql *C, frame *F, const ast_expr *e) {
  if (CFAIL(C)) return NULL;
  switch (e->kind) {
    case E_BIN: {
      if (e->op == OP_AND || e->op == OP_OR) return compile_chain(C, F, e);
      const ast_expr *l = e->args[0], *r = e->args[1];
      char *a = kql_kv(C, F, l), *b = kql_kv(C, F, r);
      if (!a || !b) return NULL;
      char *cmp = kql_strf(C, "kip_cmp(%s, %s, %d)", value_operand(C, l, a), value_operand(C, r, b), kc_of[e->op]);
      /* indexable forms for text columns (name, type, predicate) against string literals */
      cvar *lv = (l->kind == E_VAR || l->kind == E_PATH) ? kql_lookup(F, l->var) : NULL;
      cvar *rv = (r->kind == E_VAR || r->kind == E_PATH) ? kql_lookup(F, r->var) : NULL;
      if ((is_text_field(l, lv) && r->kind == E_LIT && json_is_string(r->lit)) ||
          (is_text_field(r, rv) && l->kind == E_LIT && json_is_string(l->lit))) {
        if (e->op == OP_EQ || e->op == OP_NE)
          return kql_strf(C, "(%s %s %s)", a, e->op == OP_EQ ? C->dialect->is : C->dialect->is_not, b);
        /* a range: the plain comparison beside kip_cmp, for an index to drive
        ** (a range of names scans only those names). kip_cmp holds only when
        ** both sides are text, in byte order — the order of the column (its
        ** collation is binary in SQLite, "C" in PostgreSQL) — so the plain
        ** comparison holds too, and the conjunction answers as kip_cmp alone
        ** does, NULLs included (NULL AND false is false, under NOT too). */
        /* (the literal bound once more: PostgreSQL types a placeholder by
        ** its first use, text here, json in kip_cmp) */
        static const char *sql_op[] = {[OP_LT] = "<", [OP_LE] = "<=", [OP_GT] = ">", [OP_GE] = ">="};
        int left = l->kind == E_LIT;
        char *lit = bind(C, left ? l->lit : r->lit);
        return kql_strf(C, "(%s %s %s AND %s)", left ? lit : a, sql_op[e->op], left ? b : lit, cmp);
      }
      return cmp;
    }
    case E_NOT: {
      char *a = kql_bool(C, F, e->args[0]);
      return a ? kql_strf(C, "(NOT %s)", a) : NULL;
    }
    case E_FUNC: {
      if (e->op == FN_IS_NULL || e->op == FN_IS_NOT_NULL) {
        char *a = kql_kv(C, F, e->args[0]);
        return a ? kql_strf(C, "(%s IS %sNULL)", a, e->op == FN_IS_NULL ? "" : "NOT ") : NULL;
      }
      if (e->op == FN_IN) {
        const ast_expr *list = e->args[1];
        if (list->kind != E_LIT || !json_is_array(list->lit)) {
          fail_at(C, list->pos, KIP_E_SYNTAX, "IN(?x.attr, [\"a\", \"b\"])", "IN needs an array as its second argument");
          return NULL;
        }
        char *a = kql_kv(C, F, e->args[0]);
        if (!a) return NULL;
        if (json_array_size(list->lit) == 0) return kql_strf(C, "1 = 0");
        /* one call with the whole list as one parameter (a JSON value): constant depth */
        return kql_strf(C, "kip_in(%s, %s)", value_operand(C, e->args[0], a), bind(C, list->lit));
      }
      static const char *fname[] = {[FN_CONTAINS] = "kip_contains", [FN_STARTS_WITH] = "kip_starts",
                                    [FN_ENDS_WITH] = "kip_ends", [FN_REGEX] = "kip_regex"};
      if (e->op >= FN_CONTAINS && e->op <= FN_REGEX) {
        char *a = kql_kv(C, F, e->args[0]), *b = kql_kv(C, F, e->args[1]);
        return a && b ? kql_strf(C, "%s(%s, %s)", fname[e->op], value_operand(C, e->args[0], a), value_operand(C, e->args[1], b))
                      : NULL;
      }
      fail_at(C, e->pos, KIP_E_SYNTAX, "Update expressions are valid only in UPDATE ... SET.",
              "function not allowed in FILTER");
      return NULL;
    }
    default: {
      char *a = kql_kv(C, F, e);
      json_t *t = json_true();
      char *b = bind(C, t);
      json_decref(t);
      return a ? kql_strf(C, "kip_cmp(%s, %s, 1)", value_operand(C, e, a), b) : NULL;
    }
  }
}

/* -------------------------------------------------------------- groups */
static int compile_items(kql *C, frame *F, const ast_group *g);

static void flush_filters(kql *C, frame *F) {
  for (int i = 0; i < F->nfilters && !CFAIL(C); i++) {
    char *s = kql_bool(C, F, F->filters[i]);
    if (s) add_where(F, s);
  }
  F->nfilters = 0;
}

static char *frame_select(kql *C, frame *F, const char **names, int n, int *kinds) {
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_adds(&b, "SELECT ");
  for (int i = 0; i < n; i++) {
    cvar *v = local_lookup(F, names[i]);
    if (i) kip_buf_adds(&b, ", ");
    if (v) {
      kip_buf_adds(&b, v->expr);
      if (kinds) kinds[i] = v->kind;
    } else {
      kip_buf_adds(&b, "NULL");
    }
    kip_buf_printf(&b, " AS v_%s", names[i]);
  }
  if (n == 0) kip_buf_adds(&b, "1 AS one");
  if (F->nfrom) {
    kip_buf_adds(&b, " FROM ");
    kip_buf_add(&b, F->from.p, F->from.len);
  }
  if (F->where.len) {
    kip_buf_adds(&b, " WHERE ");
    kip_buf_add(&b, F->where.p, F->where.len);
  }
  char *s = kip_strndup(C->a, b.p, b.len);
  kip_buf_free(&b);
  return s;
}

/* OPTIONAL { (?a, "p", ?b) } with an endpoint bound outside: a plain LEFT
** JOIN seeks the link per outer row through the endpoint index. (The general
** form below, a LEFT JOIN of a subquery, is materialized by SQLite and
** scanned per outer row without statistics.) Returns 0 when the group is not
** of this shape, 1 when compiled, -1 on error. */
static int optional_single_link(kql *C, frame *F, const ast_group *g) {
  if (C->nx->req->scope) return 0; /* the endpoint's row must be checked inside the optional part */
  if (g->n != 1 || g->items[0]->kind != W_PROP) return 0;
  const ast_prop *pr = g->items[0]->prop;
  const ast_pred *pd = &pr->pred;
  int literal = pd->kind == PRED_LITERAL || pd->kind == PRED_ALT || (pd->kind == PRED_HOPS && pd->min == 1 && pd->max == 1);
  if (pr->id || !literal || pr->subject.kind != EP_VAR || pr->object.kind != EP_VAR) return 0;
  if (!strcmp(pr->subject.var, pr->object.var) || (pr->var && kql_lookup(F, pr->var))) return 0;
  cvar *s = kql_lookup(F, pr->subject.var), *o = kql_lookup(F, pr->object.var);
  if ((!s && !o) || (s && s->kind != VK_ELEM) || (o && o->kind != VK_ELEM)) return 0;
  kip_buf on;
  kip_buf_init(&on);
  char *r = fresh(C, "t");
  for (int i = 0; i < pd->nnames; i++) {
    if (check_defined(C, "$PropositionType", pd->names[i], pd->pos)) {
      kip_buf_free(&on);
      return -1;
    }
    json_t *pv = json_string(pd->names[i]);
    kip_buf_printf(&on, "%s%s", i ? ", " : "", bind(C, pv));
    json_decref(pv);
  }
  char *cond = pd->nnames == 1 ? kql_strf(C, "%s.predicate = %s", r, on.p) : kql_strf(C, "%s.predicate IN (%s)", r, on.p);
  if (s) cond = kql_strf(C, "%s AND %s.subject = %s", cond, r, s->expr);
  if (o) cond = kql_strf(C, "%s AND %s.object = %s", cond, r, o->expr);
  kip_buf_free(&on);
  add_join(F, kql_strf(C, "LEFT JOIN element %s ON %s", r, cond));
  if (pr->var) bind_var(F, pr->var, VK_ELEM, kql_strf(C, "%s.id", r), r, 1);
  const ast_endpoint *free_end = s ? &pr->object : &pr->subject;
  if (!s || !o) {
    cvar *v = bind_var(F, free_end->var, VK_ELEM, kql_strf(C, "%s.%s", r, s ? "object" : "subject"), NULL, 1);
    if (needs_row(C, free_end->var)) kql_row(C, F, v);
  }
  return 1;
}

static int compile_optional(kql *C, frame *F, const ast_where *w) {
  int fast = optional_single_link(C, F, w->group);
  if (fast) return fast < 0 ? C->err->code : 0;
  frame I;
  frame_init(&I, NULL);
  int rc = compile_items(C, &I, w->group);
  if (!rc && I.nvars) {
    const char **names = malloc((size_t)I.nvars * sizeof *names);
    int n = 0;
    for (int i = 0; i < I.nvars; i++) {
      int dup = 0;
      for (int j = 0; j < n; j++) dup |= !strcmp(names[j], I.vars[i].name);
      if (!dup) names[n++] = I.vars[i].name;
    }
    char *sel = frame_select(C, &I, names, n, NULL);
    char *o = fresh(C, "o");
    kip_buf on;
    kip_buf_init(&on);
    for (int i = 0; i < n; i++) {
      cvar *outer = kql_lookup(F, names[i]);
      if (!outer) continue;
      if (on.len) kip_buf_adds(&on, " AND ");
      kip_buf_printf(&on, "%s.v_%s = %s", o, names[i], outer->expr);
    }
    add_join(F, kql_strf(C, "LEFT JOIN (%s) %s ON %s", sel, o, on.len ? on.p : "1 = 1"));
    kip_buf_free(&on);
    for (int i = 0; i < n; i++) {
      if (kql_lookup(F, names[i])) continue;
      cvar *iv = local_lookup(&I, names[i]);
      cvar *v = bind_var(F, names[i], iv->kind, kql_strf(C, "%s.v_%s", o, names[i]), NULL, 1);
      if (v->kind == VK_ELEM && needs_row(C, names[i])) kql_row(C, F, v);
    }
    free(names);
  }
  frame_free(&I);
  return rc;
}

static int compile_not(kql *C, frame *F, const ast_where *w) {
  frame I;
  frame_init(&I, F);
  int rc = compile_items(C, &I, w->group);
  if (!rc) {
    char *sel = frame_select(C, &I, NULL, 0, NULL);
    add_where(F, kql_strf(C, "NOT EXISTS (%s)", sel));
  }
  frame_free(&I);
  return rc;
}

static int compile_union(kql *C, frame *F, const ast_where *w) {
  flush_filters(C, F);
  if (CFAIL(C)) return C->err->code;
  frame B;
  frame_init(&B, NULL);
  int rc = compile_items(C, &B, w->group);
  if (rc) {
    frame_free(&B);
    return rc;
  }
  int left_empty = F->nfrom == 0 && F->nvars == 0;
  /* union of variable names, in order */
  int cap = F->nvars + B.nvars + 1, n = 0;
  const char **names = malloc((size_t)cap * sizeof *names);
  int *kinds = calloc((size_t)cap, sizeof *kinds);
  int *bk = calloc((size_t)cap, sizeof *bk);
  for (int s = 0; s < 2; s++) {
    frame *src = s ? &B : F;
    for (int i = 0; i < src->nvars; i++) {
      int dup = 0;
      for (int j = 0; j < n; j++) dup |= !strcmp(names[j], src->vars[i].name);
      if (!dup) names[n++] = src->vars[i].name;
    }
  }
  char *right = frame_select(C, &B, names, n, bk);
  char *left = left_empty ? NULL : frame_select(C, F, names, n, kinds);
  for (int i = 0; i < n; i++) {
    if (!kinds[i]) kinds[i] = bk[i];
    else if (bk[i] && bk[i] != kinds[i])
      rc = fail_at(C, w->pos, KIP_E_SYNTAX, NULL,
                   "?%s is a predicate variable in one UNION branch and an element in the other", names[i]);
  }
  char *u = fresh(C, "u");
  char *src = left ? kql_strf(C, "(%s UNION %s) %s", left, right, u) : kql_strf(C, "(%s) %s", right, u);
  /* reset F to the derived table */
  kip_buf_free(&F->from);
  kip_buf_free(&F->where);
  F->nfrom = 0;
  F->nvars = 0;
  F->nfacts = 0;
  F->neqs = 0;
  add_from(F, src);
  for (int i = 0; !rc && i < n; i++) {
    cvar *v = bind_var(F, names[i], kinds[i], kql_strf(C, "%s.v_%s", u, names[i]), NULL, 1);
    if (v->kind == VK_ELEM && needs_row(C, names[i])) kql_row(C, F, v);
  }
  free(names);
  free(kinds);
  free(bk);
  frame_free(&B);
  return rc ? rc : (CFAIL(C) ? C->err->code : 0);
}

static int compile_items(kql *C, frame *F, const ast_group *g) {
  const char **outer = C->reached;
  int *order = g && g->n ? malloc((size_t)g->n * sizeof *order) : NULL;
  if (g && g->n && !order) abort();
  kql_plan_order(g, F, order, &C->reached);
  for (int i = 0; g && i < g->n && !CFAIL(C); i++) {
    const ast_where *w = g->items[order[i]];
    switch (w->kind) {
      case W_CONCEPT: compile_concept(C, F, w->concept); break;
      case W_PROP: compile_prop(C, F, w->prop); break;
      case W_FILTER:
        if (F->nfilters == F->capfilters) {
          F->capfilters = F->capfilters ? F->capfilters * 2 : 4;
          F->filters = realloc(F->filters, (size_t)F->capfilters * sizeof *F->filters);
          if (!F->filters) abort();
        }
        F->filters[F->nfilters++] = w->filter;
        break;
      case W_OPTIONAL: compile_optional(C, F, w); break;
      case W_NOT: compile_not(C, F, w); break;
      case W_UNION: compile_union(C, F, w); break;
    }
  }
  free(C->reached);
  free(order);
  C->reached = outer;
  if (!CFAIL(C)) flush_filters(C, F);
  return CFAIL(C) ? (C->err->code ? C->err->code : KIP_E_INTERNAL) : 0;
}

int kql_group(kql *C, frame *F, const ast_group *g) {
  kip_pos a, b;
  if (!F->outer && kql_unanchored_parts(g, &a, &b) >= 2)
    return fail_at(C, b, KIP_E_RESOURCE,
                   "Connect the parts through a shared variable, anchor one of them with a name or an id, "
                   "or send them as separate queries.",
                   "the pattern has parts that share no variable and that no name or id anchors (the clauses at "
                   "line %d column %d and line %d column %d): every pairing of their matches would be a solution",
                   a.line, a.col, b.line, b.col);
  kql_note_group(C, g);
  return compile_items(C, F, g);
}

/* ------------------------------------------------- target selection */
/* a proposition row over at least one proposition (higher-order) */
#define HIGHER_ORDER_SQL(row)                                                                    \
  "((SELECT type IS NULL FROM element WHERE id = " row ".subject) OR "                            \
  "(SELECT type IS NULL FROM element WHERE id = " row ".object))"

static int target_sql(kql *C, const ast_group *where, const char *target, kip_pos tpos, int64_t limit, kip_buf *sql,
                      int with_kind, kql_page *page) {
  frame F;
  frame_init(&F, NULL);
  if (with_kind || page) note_row(C, target);
  int rc = kql_group(C, &F, where);
  if (!rc) {
    cvar *v = kql_lookup(&F, target);
    if (!v) rc = fail_at(C, tpos, KIP_E_REFERENCE, "Bind the target variable in the WHERE pattern.",
                         "target variable ?%s is not bound in WHERE", target);
    else if (v->kind != VK_ELEM)
      rc = fail_at(C, tpos, KIP_E_SYNTAX, NULL, "?%s is a predicate variable, not an element", target);
    else {
      kip_buf_printf(sql, "SELECT DISTINCT %s", v->expr);
      if (with_kind) kip_buf_printf(sql, ", %s.type IS NULL", kql_row(C, &F, v));
      kip_buf_adds(sql, " FROM ");
      kip_buf_add(sql, F.from.p ? F.from.p : "(SELECT 1)", F.from.p ? F.from.len : 10);
      kip_buf_printf(sql, " WHERE %s IS NOT NULL", v->expr);
      if (F.where.len) {
        kip_buf_adds(sql, " AND ");
        kip_buf_add(sql, F.where.p, F.where.len);
      }
      if (page) {
        const char *row = kql_row(C, &F, v);
        json_t *zero = json_integer(0), *all = json_integer(-1);
        if (page->kind == KQL_PAGE_CONCEPTS) kip_buf_printf(sql, " AND %s.type IS NOT NULL", row);
        else
          kip_buf_printf(sql, " AND %s.type IS NULL AND %s" HIGHER_ORDER_SQL("%s"), row,
                         page->kind == KQL_PAGE_LINKS ? "NOT " : "", row, row);
        kip_buf_printf(sql, " AND %s > %s ORDER BY 1 LIMIT ", v->expr, bind(C, zero));
        page->after = json_array_size(C->binds);
        kip_buf_adds(sql, bind(C, all));
        page->limit = json_array_size(C->binds);
        json_decref(zero);
        json_decref(all);
      } else {
        kip_buf_adds(sql, " ORDER BY 1");
        if (limit >= 0) kip_buf_printf(sql, " LIMIT %lld", (long long)limit);
      }
    }
  }
  frame_free(&F);
  return rc;
}

int kql_target_sql(kql *C, const ast_group *where, const char *target, kip_pos tpos, int64_t limit, kip_buf *sql,
                   int with_kind) {
  return target_sql(C, where, target, tpos, limit, sql, with_kind, NULL);
}

int kql_target_page_sql(kql *C, const ast_group *where, const char *target, kip_pos tpos, kql_page *page,
                        kip_buf *sql) {
  return target_sql(C, where, target, tpos, -1, sql, 0, page);
}
