/*
** exec_find.c — executes KQL FIND (RC11 §3, §6.2.2): the SQL from the
** compiler (compile_find.c), a row cap (KIP_4002), the exploration guard,
** warnings for missing anchors, LIMIT + opaque CURSOR (exec_cursor.c) and
** the columnar result rendered from the rows (exec_render.c).
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "exec.h"

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
  int prc = kip_prepare(c->nx, "SELECT count(*) FROM (SELECT 1 FROM element WHERE predicate IS NOT NULL LIMIT ?1) AS l",
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
  int rc = kip_find_plan(c, cmd, &C, &sql, &P, &aggregated);
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
