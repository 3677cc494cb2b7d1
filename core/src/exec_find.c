/*
** exec_find.c — executes KQL FIND (RC11 §3, §6.2.2). Builds the final SQL
** around the compiled WHERE frame: solution dedup over the projected
** variables (GROUP BY their identities), implicit grouping for aggregates
** (over the deduplicated solutions), ORDER BY with nulls last, LIMIT +
** opaque CURSOR (exec_cursor.c), a row cap (KIP_4002), the exploration
** guard, and the columnar result rendered from the rows (exec_render.c).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "exec.h"

enum { R_ELEM = 1, R_ID, R_TEXT, R_JSON, R_META, R_KV };

struct proj {
  int render;
  int col, ncols;  /* first result column and count */
  int agg;         /* E_AGG */
};

static const char *agg_sql[] = {"", "COUNT", "kip_sum", "kip_avg", "min", "max"};

/* the outer call of aggregate FIND expression e (number i) over the inner
** column a<i>: COUNT(?x) of a variable that every solution binds counts
** the solutions, COUNT(*), which reads no column per row */
static void agg_call(kip_buf *b, frame *F, const ast_expr *e, int i) {
  const ast_expr *arg = e->args[0];
  cvar *v = arg->kind == E_VAR ? kql_lookup(F, arg->var) : NULL;
  if (e->op == AGG_COUNT && !e->distinct && v && !v->nullable) kip_buf_adds(b, "COUNT(*)");
  else kip_buf_printf(b, "%s(%sa%d)", agg_sql[e->op], e->distinct ? "DISTINCT " : "", i);
}

/* render columns of a projection into sel (comma-separated), returns count */
static int render_cols(kql *C, frame *F, const ast_expr *e, kip_buf *sel, int *render) {
  cvar *v = kql_lookup(F, e->var);
  if (!v) {
    kip_err_at(C->err, KIP_E_REFERENCE, e->pos.line, e->pos.col, "Bind the variable in the WHERE pattern.",
               "variable ?%s is not bound in WHERE", e->var);
    C->failed = 1;
    return -1;
  }
  if (v->kind == VK_PRED) {
    if (e->kind == E_PATH) {
      kip_err_at(C->err, KIP_E_SYNTAX, e->pos.line, e->pos.col, NULL, "?%s is a predicate variable and has no fields",
                 e->var);
      C->failed = 1;
      return -1;
    }
    *render = R_TEXT;
    kip_buf_adds(sel, v->expr);
    return 1;
  }
  char *r = kql_row(C, F, v);
  if (e->kind == E_VAR) {
    *render = R_ELEM;
    kip_buf_printf(sel,
                   "%s.id, %s.type, %s.name, %s.subject, %s.predicate, %s.object, %s.attributes, %s.metadata, "
                   "%s.version, %s.updated_at, (SELECT z.type IS NULL FROM element z WHERE z.id = %s.subject), "
                   "(SELECT z.type IS NULL FROM element z WHERE z.id = %s.object)",
                   r, r, r, r, r, r, r, r, r, r, r, r);
    return 12;
  }
  switch (e->field) {
    case F_ID: *render = R_ID; kip_buf_printf(sel, "%s.id, %s.type IS NULL", r, r); return 2;
    case F_TYPE: *render = R_TEXT; kip_buf_printf(sel, "%s.type", r); return 1;
    case F_NAME: *render = R_TEXT; kip_buf_printf(sel, "%s.name", r); return 1;
    case F_PREDICATE: *render = R_TEXT; kip_buf_printf(sel, "%s.predicate", r); return 1;
    case F_SUBJECT:
    case F_OBJECT:
      *render = R_TEXT;
      kip_buf_adds(sel, kql_kv(C, F, e));
      return 1;
    case F_ATTRS:
      *render = R_JSON;
      if (e->key) kip_buf_printf(sel, "kip_attrj(%s.attributes, %s)", r, kql_quote(C, e->key));
      else kip_buf_printf(sel, "%s.attributes", r);
      return 1;
    case F_META:
      if (!e->key) {
        *render = R_META;
        kip_buf_printf(sel, "%s.metadata, %s.version, %s.updated_at", r, r, r);
        return 3;
      }
      if (!strcmp(e->key, "_version")) { *render = R_KV; kip_buf_printf(sel, "%s.version", r); return 1; }
      if (!strcmp(e->key, "_updated_at")) { *render = R_TEXT; kip_buf_printf(sel, "%s.updated_at", r); return 1; }
      *render = R_JSON;
      if (!strcmp(e->key, "_score")) kip_buf_adds(sel, "NULL");
      else kip_buf_printf(sel, "kip_attrj(%s.metadata, %s)", r, kql_quote(C, e->key));
      return 1;
  }
  return -1;
}

static void render(kip_buf *b, kip_stmt *st, const proj *p) {
  int c = p->col;
  switch (p->render) {
    case R_ELEM: kip_write_element(b, st, c); break;
    case R_ID:
      if (kip_col_type(st, c) == KIP_COL_NULL) kip_buf_adds(b, "null");
      else kip_write_id(b, kip_col_int64(st, c), (int)kip_col_int64(st, c + 1));
      break;
    case R_TEXT: kip_write_text(b, st, c); break;
    case R_JSON: kip_write_raw(b, st, c); break;
    case R_META:
      if (kip_col_type(st, c) == KIP_COL_NULL) kip_buf_adds(b, "null");
      else
        kip_write_metadata(b, kip_col_text(st, c), (size_t)kip_col_bytes(st, c),
                           kip_col_int64(st, c + 1), kip_col_text(st, c + 2), NULL);
      break;
    case R_KV: kip_write_kv(b, st, c); break;
  }
}

/* ----------------------------------------------------------- cursors */
static int same_expr(const ast_expr *a, const ast_expr *b) {
  if (a->kind != b->kind || a->op != b->op || a->field != b->field || a->distinct != b->distinct) return 0;
  if ((a->var || b->var) && (!a->var || !b->var || strcmp(a->var, b->var))) return 0;
  if ((a->key || b->key) && (!a->key || !b->key || strcmp(a->key, b->key))) return 0;
  if (a->nargs != b->nargs) return 0;
  for (int i = 0; i < a->nargs; i++)
    if (!same_expr(a->args[i], b->args[i])) return 0;
  return 1;
}

static void collect_vars(const ast_expr *e, const char **vars, int *n, int cap) {
  if (e->kind == E_VAR || e->kind == E_PATH) {
    for (int i = 0; i < *n; i++)
      if (!strcmp(vars[i], e->var)) return;
    if (*n < cap) vars[(*n)++] = e->var;
  }
  for (int i = 0; i < e->nargs; i++) collect_vars(e->args[i], vars, n, cap);
}

static int refs_only(const ast_expr *e, const char **vars, int n) {
  if (e->kind == E_VAR || e->kind == E_PATH) {
    for (int i = 0; i < n; i++)
      if (!strcmp(vars[i], e->var)) return 1;
    return 0;
  }
  for (int i = 0; i < e->nargs; i++)
    if (!refs_only(e->args[i], vars, n)) return 0;
  return 1;
}

/* " FROM … WHERE … GROUP BY …" of the compiled frame (each part when present) */
static void append_from_where_group(kip_buf *sql, const frame *F, const kip_buf *keys) {
  if (F->nfrom) {
    kip_buf_adds(sql, " FROM ");
    kip_buf_add(sql, F->from.p, F->from.len);
  }
  if (F->where.len) {
    kip_buf_adds(sql, " WHERE ");
    kip_buf_add(sql, F->where.p, F->where.len);
  }
  if (keys->len) {
    kip_buf_adds(sql, " GROUP BY ");
    kip_buf_add(sql, keys->p, keys->len);
  }
}

int kip_find_sql(kql *C, const ast_find *f, kip_buf *sql, proj **projs_out, int *aggregated_out) {
  frame F;
  frame_init(&F, NULL);
  for (int i = 0; i < f->nproj; i++) {
    kql_note_expr(C, f->proj[i]);
    if (f->proj[i]->kind == E_VAR) { /* whole objects need rows */
      ast_expr fake = *f->proj[i];
      fake.kind = E_PATH;
      kql_note_expr(C, &fake);
    }
  }
  for (int i = 0; i < f->norder; i++) kql_note_expr(C, f->order[i].expr);
  int rc = kql_group(C, &F, f->where);
  proj *P = calloc((size_t)f->nproj, sizeof *P);
  int aggregated = 0;
  for (int i = 0; i < f->nproj; i++) aggregated |= f->proj[i]->kind == E_AGG;
  const char *vars[256];
  int nv = 0;
  for (int i = 0; i < f->nproj; i++) collect_vars(f->proj[i], vars, &nv, 256);
  kip_buf sel, keys, order, inner;
  kip_buf_init(&sel);
  kip_buf_init(&keys);
  kip_buf_init(&order);
  kip_buf_init(&inner);
  int col = 0;
  const char *keyexprs[256];
  for (int i = 0; !rc && i < nv; i++) {
    cvar *v = kql_lookup(&F, vars[i]);
    if (!v) {
      const ast_expr *where = NULL;
      for (int j = 0; j < f->nproj && !where; j++) where = f->proj[j];
      rc = kip_err_at(C->err, KIP_E_REFERENCE, where->pos.line, where->pos.col,
                      "Bind every FIND variable in the WHERE pattern.", "variable ?%s is not bound in WHERE", vars[i]);
      break;
    }
    if (i) kip_buf_adds(&keys, ", ");
    kip_buf_adds(&keys, v->expr);
    keyexprs[i] = v->expr;
  }
  /* solutions need no deduplication (§3.3) when the keys determine every
  ** row of the join: the GROUP BY (a sort over the whole match, or a
  ** comparison per row) can go */
  if (!rc && kql_rows_unique(&F, keyexprs, nv)) keys.len = 0;
  int unique = !rc && keys.len == 0;
  if (!rc && !aggregated) {
    for (int i = 0; i < f->nproj && !rc; i++) {
      if (col) kip_buf_adds(&sel, ", ");
      P[i].col = col;
      P[i].ncols = render_cols(C, &F, f->proj[i], &sel, &P[i].render);
      if (P[i].ncols < 0) rc = C->err->code;
      col += P[i].ncols;
    }
    for (int i = 0; i < f->norder && !rc; i++) {
      const ast_expr *e = f->order[i].expr;
      if (e->kind == E_AGG) {
        rc = kip_err_at(C->err, KIP_E_SYNTAX, e->pos.line, e->pos.col, NULL,
                        "ORDER BY an aggregate requires that aggregate in FIND");
        break;
      }
      char *kv = kql_kv(C, &F, e);
      if (!kv) {
        rc = C->err->code;
        break;
      }
      int own = unique || refs_only(e, vars, nv);
      kip_buf_printf(&sel, ", %s(%s) AS ok%d", own ? "" : (f->order[i].desc ? "max" : "min"), kv, i);
      if (i) kip_buf_adds(&order, ", ");
      kip_buf_printf(&order, "ok%d IS NULL, ok%d%s", i, i, f->order[i].desc ? " DESC" : "");
    }
    if (!rc) {
      kip_buf_adds(sql, "SELECT ");
      kip_buf_add(sql, sel.p, sel.len);
      append_from_where_group(sql, &F, &keys);
      if (order.len) {
        kip_buf_adds(sql, " ORDER BY ");
        kip_buf_add(sql, order.p, order.len);
      }
    }
  } else if (!rc) {
    /* inner: distinct solutions with group values and aggregate arguments */
    kip_buf outer_sel, groups;
    kip_buf_init(&outer_sel);
    kip_buf_init(&groups);
    int ic = 0;
    for (int i = 0; i < f->nproj && !rc; i++) {
      const ast_expr *e = f->proj[i];
      if (e->kind == E_AGG) {
        char *arg = kql_kv(C, &F, e->args[0]);
        if (!arg) {
          rc = C->err->code;
          break;
        }
        kip_buf_printf(&inner, "%s%s AS a%d", ic++ ? ", " : "", arg, i);
        P[i].render = R_KV;
        P[i].ncols = 1;
        P[i].agg = e->op;
        P[i].col = col++;
        if (P[i].col) kip_buf_adds(&outer_sel, ", ");
        agg_call(&outer_sel, &F, e, i);
      } else {
        kip_buf tmp;
        kip_buf_init(&tmp);
        P[i].ncols = render_cols(C, &F, e, &tmp, &P[i].render);
        if (P[i].ncols < 0) {
          kip_buf_free(&tmp);
          rc = C->err->code;
          break;
        }
        /* split the render columns into aliased inner columns */
        P[i].col = col;
        char *cols = tmp.p;
        int depth = 0, k = 0;
        char *start = cols;
        for (char *p = cols;; p++) {
          if (*p == '(') depth++;
          else if (*p == ')') depth--;
          if ((*p == ',' && depth == 0) || *p == 0) {
            kip_buf_printf(&inner, "%s%.*s AS p%d_%d", ic++ ? ", " : "", (int)(p - start), start, i, k);
            kip_buf_printf(&outer_sel, "%sp%d_%d", col ? ", " : "", i, k);
            kip_buf_printf(&groups, "%sp%d_%d", groups.len ? ", " : "", i, k);
            col++;
            k++;
            if (*p == 0) break;
            start = p + 1;
            while (*start == ' ') start++;
          }
        }
        kip_buf_free(&tmp);
      }
    }
    for (int i = 0; i < f->norder && !rc; i++) {
      const ast_expr *e = f->order[i].expr;
      int found = -1;
      for (int j = 0; j < f->nproj && found < 0; j++)
        if (same_expr(e, f->proj[j])) found = j;
      if (found >= 0 && P[found].render != R_ELEM) {
        if (P[found].agg) {
          kip_buf_adds(&outer_sel, ", ");
          agg_call(&outer_sel, &F, f->proj[found], found);
          kip_buf_printf(&outer_sel, " AS ok%d", i);
        } else {
          kip_buf_printf(&outer_sel, ", p%d_0 AS ok%d", found, i);
        }
      } else if (e->kind == E_AGG) {
        rc = kip_err_at(C->err, KIP_E_SYNTAX, e->pos.line, e->pos.col, NULL,
                        "ORDER BY an aggregate requires the same aggregate in FIND");
        break;
      } else {
        char *kv = kql_kv(C, &F, e);
        if (!kv) {
          rc = C->err->code;
          break;
        }
        kip_buf_printf(&inner, "%s%s AS o%d", ic++ ? ", " : "", kv, i);
        kip_buf_printf(&outer_sel, ", %s(o%d) AS ok%d", f->order[i].desc ? "max" : "min", i, i);
      }
      if (i) kip_buf_adds(&order, ", ");
      kip_buf_printf(&order, "ok%d IS NULL, ok%d%s", i, i, f->order[i].desc ? " DESC" : "");
    }
    if (!rc) {
      kip_buf_adds(sql, "SELECT ");
      kip_buf_add(sql, outer_sel.p, outer_sel.len);
      kip_buf_adds(sql, " FROM (SELECT ");
      kip_buf_add(sql, inner.p ? inner.p : "1", inner.p ? inner.len : 1);
      append_from_where_group(sql, &F, &keys);
      kip_buf_adds(sql, ")");
      if (groups.len) {
        kip_buf_adds(sql, " GROUP BY ");
        kip_buf_add(sql, groups.p, groups.len);
      }
      if (order.len) {
        kip_buf_adds(sql, " ORDER BY ");
        kip_buf_add(sql, order.p, order.len);
      }
      aggregated = groups.len ? 1 : 2; /* 2 = single group (scalars) */
    }
    kip_buf_free(&outer_sel);
    kip_buf_free(&groups);
  }
  kip_buf_free(&sel);
  kip_buf_free(&keys);
  kip_buf_free(&order);
  kip_buf_free(&inner);
  frame_free(&F);
  *projs_out = P;
  *aggregated_out = aggregated;
  return rc;
}

/* ---------------------------------------- unconstrained exploration guard */
static int binds_var(const ast_where *w, const char *v) {
  if (w->kind == W_CONCEPT) return w->concept->var && !strcmp(w->concept->var, v);
  if (w->kind != W_PROP) return 0;
  const ast_prop *p = w->prop;
  return (p->var && !strcmp(p->var, v)) || (p->subject.kind == EP_VAR && !strcmp(p->subject.var, v)) ||
         (p->object.kind == EP_VAR && !strcmp(p->object.var, v));
}

static int constrained_elsewhere(const ast_group *g, const ast_where *self, const char *v) {
  for (int i = 0; i < g->n; i++)
    if (g->items[i] != self && binds_var(g->items[i], v)) return 1;
  return 0;
}

/* the first (?s, ?p, ?o) clause whose endpoints and binding variable no
** sibling clause constrains (top level and UNION branches, which have their
** own scope), or NULL */
static const ast_prop *unconstrained_exploration(const ast_group *g) {
  for (int i = 0; i < g->n; i++) {
    const ast_where *w = g->items[i];
    if (w->kind == W_UNION) {
      const ast_prop *p = unconstrained_exploration(w->group);
      if (p) return p;
    }
    if (w->kind != W_PROP) continue;
    const ast_prop *p = w->prop;
    if (p->id || p->pred.kind != PRED_VAR || p->subject.kind != EP_VAR || p->object.kind != EP_VAR) continue;
    if (constrained_elsewhere(g, w, p->subject.var) || constrained_elsewhere(g, w, p->object.var) ||
        (p->var && constrained_elsewhere(g, w, p->var)))
      continue;
    return p;
  }
  return NULL;
}

/* RC11 §3.4.2: a fully unconstrained (?s, ?p, ?o) listing without LIMIT is
** refused once the graph holds more than KIP_EXPLORATION_THRESHOLD
** propositions. Aggregations (e.g. a count per predicate) are exempt: they
** return summaries, and the deadline still bounds their scan. */
static int check_bounded_exploration(kip_ctx *c, const ast_find *f, int aggregated) {
  if (f->limit >= 0 || aggregated) return 0;
  const ast_prop *p = unconstrained_exploration(f->where);
  if (!p) return 0;
  kip_stmt *st;
  int prc = kip_prepare(c->nx, "SELECT count(*) FROM (SELECT 1 FROM element WHERE predicate IS NOT NULL LIMIT ?1)",
                               -1, &st);
  if (prc != KIP_STORE_OK) return kip_store_error(c->nx, prc, c->err, "counting propositions");
  kip_bind_int64(st, 1, KIP_EXPLORATION_THRESHOLD + 1);
  int64_t n = kip_step(st) == KIP_ROW ? kip_col_int64(st, 0) : 0;
  kip_finish(c->nx, st);
  if (n <= KIP_EXPLORATION_THRESHOLD) return 0;
  return kip_err_at(c->err, KIP_E_RESOURCE, p->pos.line, p->pos.col,
                    "Constrain an endpoint (by id, {type, name} or a variable bound by another clause) or add LIMIT "
                    "(with CURSOR to page).",
                    "unconstrained exploration (?%s, ?%s, ?%s) over more than %d propositions needs a LIMIT",
                    p->subject.var, p->pred.var, p->object.var,
                    KIP_EXPLORATION_THRESHOLD);
}

/* ------------------------------------------------------ missing anchors */
/* An empty answer whose pattern names an element that does not exist (or
** is outside the caller's scope, which reads the same) says so in
** `warnings`, so an agent can tell "no answer" from "wrong name". Anchors
** are the top-level clauses bound by identity: {type, name}, {id}, also as
** link endpoints. */
static void warn_if_missing_concept(kip_ctx *c, const ast_concept *cc) {
  kip_error quiet;
  int64_t id = 0;
  int found = 0;
  if (cc->id) {
    int64_t v;
    int is_prop;
    kip_elem e;
    if (kip_parse_id(json_string_value(cc->id), &v, &is_prop) && !is_prop && kip_store_get(c->nx, v, &e, &quiet) == 0) {
      found = !e.is_prop;
      id = v;
      kip_elem_clear(&e);
    }
  } else if (json_is_string(cc->type) && json_is_string(cc->name)) {
    found = kip_store_find_concept(c->nx, json_string_value(cc->type), json_string_value(cc->name), &id, &quiet) == 0;
  } else {
    return; /* not an anchor */
  }
  if (found && kip_in_scope(c->nx, id, &quiet) == 1) return;
  if (cc->id) kip_warn(c, "anchor {id: \"%.200s\"} does not exist", json_string_value(cc->id));
  else
    kip_warn(c, "anchor {type: \"%.200s\", name: \"%.200s\"} does not exist", json_string_value(cc->type),
             json_string_value(cc->name));
}

static void warn_missing_in_prop(kip_ctx *c, const ast_prop *pr) {
  const ast_endpoint *ends[2] = {&pr->subject, &pr->object};
  for (int i = 0; i < 2; i++) {
    if (ends[i]->kind == EP_CONCEPT) warn_if_missing_concept(c, ends[i]->concept);
    else if (ends[i]->kind == EP_PROP) warn_missing_in_prop(c, ends[i]->prop);
  }
}

static void warn_missing_anchors(kip_ctx *c, const ast_group *where) {
  for (int i = 0; where && i < where->n; i++) {
    const ast_where *w = where->items[i];
    if (w->kind == W_CONCEPT) warn_if_missing_concept(c, w->concept);
    else if (w->kind == W_PROP) warn_missing_in_prop(c, w->prop);
  }
}

int kip_exec_find(kip_ctx *c, const ast_command *cmd) {
  const ast_stmt *s = cmd->stmts[0];
  const ast_find *f = &s->u.find;
  kip_arena a;
  kip_arena_init(&a);
  kql C;
  kql_init(&C, c->nx, &a, c->err);
  kip_buf sql;
  kip_buf_init(&sql);
  proj *P = NULL;
  int aggregated = 0;
  int rc = kip_find_sql(&C, f, &sql, &P, &aggregated);
  if (!rc) rc = check_bounded_exploration(c, f, aggregated);
  uint64_t fp = 0;
  int64_t offset = 0;
  if (!rc) {
    /* cursors exist only for paged queries: skip the fingerprint otherwise */
    if (f->cursor || f->limit >= 0) fp = kip_query_fingerprint(sql.p, C.binds);
    rc = kip_cursor_parse(f->cursor, fp, &offset, c->err);
  }
  int64_t limit = f->limit;
  int64_t cap = c->nx->req->max_rows;
  if (!rc && aggregated != 2) {
    int64_t fetch = limit >= 0 && limit < cap ? limit + 1 : cap + 1;
    kip_buf_printf(&sql, " LIMIT %lld OFFSET %lld", (long long)fetch, (long long)offset);
  }
  kip_stmt *st = NULL;
  if (!rc) {
    int prc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
    if (prc != KIP_STORE_OK) rc = kip_store_error(c->nx, prc, c->err, "preparing the query");
  }
  if (!rc && c->dry_run) {
    kip_buf_adds(c->out, "{\"dry_run\":true,\"valid\":true}");
  } else if (!rc) {
    kql_bind_all(&C, st);
    kip_buf *cols = calloc((size_t)f->nproj, sizeof *cols);
    int64_t n = 0;
    int more = 0, src;
    while ((src = kip_step(st)) == KIP_ROW) {
      if (aggregated != 2 && ((limit >= 0 && n == limit) || n == cap)) {
        more = 1;
        break;
      }
      for (int i = 0; i < f->nproj; i++) {
        kip_buf_addc(&cols[i], n ? ',' : '[');
        render(&cols[i], st, &P[i]);
      }
      n++;
    }
    if (src != KIP_ROW && src != KIP_DONE) rc = kip_store_error(c->nx, src, c->err, "running the query");
    else if (more && (limit < 0 || limit > cap))
      rc = kip_err(c->err, KIP_E_RESOURCE, "Add LIMIT (and page with CURSOR) or narrow the pattern.",
                   "the query matches more than %lld solutions (materialization cap)", (long long)cap);
    if (!rc) {
      if (aggregated == 2) {
        /* scalars: one row */
        if (f->nproj > 1) kip_buf_addc(c->out, '[');
        for (int i = 0; i < f->nproj; i++) {
          if (i) kip_buf_addc(c->out, ',');
          if (cols[i].len) kip_buf_add(c->out, cols[i].p + 1, cols[i].len - 1);
          else kip_buf_adds(c->out, "null");
        }
        if (f->nproj > 1) kip_buf_addc(c->out, ']');
      } else {
        if (f->nproj > 1) kip_buf_addc(c->out, '[');
        for (int i = 0; i < f->nproj; i++) {
          if (i) kip_buf_addc(c->out, ',');
          if (cols[i].len) {
            kip_buf_add(c->out, cols[i].p, cols[i].len);
            kip_buf_addc(c->out, ']');
          } else {
            kip_buf_adds(c->out, "[]");
          }
        }
        if (f->nproj > 1) kip_buf_addc(c->out, ']');
        if (more) c->next_cursor = kip_cursor_make(fp, offset + n);
        if (n == 0 && offset == 0) warn_missing_anchors(c, f->where);
      }
    }
    for (int i = 0; i < f->nproj; i++) kip_buf_free(&cols[i]);
    free(cols);
  }
  kip_finish(c->nx, st);
  free(P);
  kip_buf_free(&sql);
  kql_free(&C);
  kip_arena_free(&a);
  return rc;
}

/* kip explain: the SQL of a FIND (or the target selection of a bulk
** statement) and SQLite's query plan for it. */
