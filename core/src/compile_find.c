/*
** compile_find.c — the SQL of a KQL FIND (RC11 §3, §6.2.2) around the
** compiled WHERE frame (compile_kql.c): solution dedup over the projected
** variables (GROUP BY their identities), implicit grouping for aggregates
** (over the deduplicated solutions), ORDER BY with nulls last, and the
** projections the executor renders (exec_find.c; kip explain shows the SQL).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"

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

/* the dialect's GROUP BY names the rows the projection reads beside the
** variables' identities (each is one row per identity: the same groups) */
static void group_by_rows(kql *C, frame *F, const char **vars, int nv, kip_buf *keys) {
  if (!keys->len || !C->dialect->group_by_rows) return;
  for (int i = 0; i < nv; i++) {
    cvar *v = kql_lookup(F, vars[i]);
    if (v && v->row) kip_buf_printf(keys, ", %s.id", v->row);
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
      kip_buf_adds(&order, C->dialect->order_term(C, kql_strf(C, "ok%d", i), f->order[i].desc));
    }
    if (!rc) {
      group_by_rows(C, &F, vars, nv, &keys);
      int wrap = order.len && C->dialect->order_wraps;
      kip_buf_adds(sql, wrap ? "SELECT * FROM (SELECT " : "SELECT ");
      kip_buf_add(sql, sel.p, sel.len);
      append_from_where_group(sql, &F, &keys);
      if (wrap) kip_buf_adds(sql, ") AS q");
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
      kip_buf_adds(&order, C->dialect->order_term(C, kql_strf(C, "ok%d", i), f->order[i].desc));
    }
    if (!rc) {
      group_by_rows(C, &F, vars, nv, &keys);
      int wrap = order.len && C->dialect->order_wraps;
      kip_buf_adds(sql, wrap ? "SELECT * FROM (SELECT " : "SELECT ");
      kip_buf_add(sql, outer_sel.p, outer_sel.len);
      kip_buf_adds(sql, " FROM (SELECT ");
      kip_buf_add(sql, inner.p ? inner.p : "1", inner.p ? inner.len : 1);
      append_from_where_group(sql, &F, &keys);
      kip_buf_adds(sql, ") AS s");
      if (groups.len) {
        kip_buf_adds(sql, " GROUP BY ");
        kip_buf_add(sql, groups.p, groups.len);
      }
      if (wrap) kip_buf_adds(sql, ") AS q");
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
