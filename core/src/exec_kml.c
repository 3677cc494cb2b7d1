/*
** exec_kml.c — bulk KML over compiled target selection: UPDATE (RC11 §4.3:
** ADD/MUL/CLAMP/COALESCE on the target's own state, null-skip per key,
** updated vs matched, LIMIT cap) and DELETE ATTRIBUTES | METADATA |
** PROPOSITIONS | CONCEPT ... DETACH (§4.2, transitive higher-order
** cascade). Runs inside the command's transaction: all or nothing.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "exec.h"

int kip_select_targets(kip_ctx *c, const ast_group *where, const char *target, kip_pos tpos, int64_t limit,
                          int64_t **ids, size_t *n) {
  kip_arena a;
  kip_arena_init(&a);
  kql C;
  kql_init(&C, c->nx, &a, c->err);
  kip_buf sql;
  kip_buf_init(&sql);
  int rc = kql_target_sql(&C, where, target, tpos, limit, &sql, 0);
  *ids = NULL;
  *n = 0;
  if (!rc) {
    sqlite3_stmt *st;
    int prc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
    if (prc != SQLITE_OK) rc = kip_store_error(c->nx, prc, c->err, "selecting targets");
    else {
      kql_bind_all(&C, st);
      size_t cap = 0;
      while ((prc = sqlite3_step(st)) == SQLITE_ROW) {
        if (*n == cap) {
          cap = cap ? cap * 2 : 64;
          *ids = realloc(*ids, cap * sizeof **ids);
        }
        (*ids)[(*n)++] = sqlite3_column_int64(st, 0);
        if ((int64_t)*n > c->nx->max_rows) {
          rc = kip_err(c->err, KIP_E_RESOURCE,
                       "Shard the sweep with a structural constraint (per predicate, type or domain) and a marker guard.",
                       "the pattern selects more than %lld targets (materialization cap)", (long long)c->nx->max_rows);
          break;
        }
      }
      if (!rc && prc != SQLITE_DONE) rc = kip_store_error(c->nx, prc, c->err, "selecting targets");
      kip_finish(c->nx, st);
    }
  }
  kip_buf_free(&sql);
  kql_free(&C);
  kip_arena_free(&a);
  return rc;
}

/* ------------------------------------------------------------- UPDATE */
/* the result of ADD/MUL as a JSON number; a result beyond the range of
** doubles is not a number JSON can hold: *overflow is set, NULL returned */
static json_t *num(double d, int as_int, int *overflow) {
  if (!isfinite(d)) {
    *overflow = 1;
    return NULL;
  }
  if (as_int && d >= -9.2e18 && d <= 9.2e18) return json_integer((json_int_t)d);
  return json_real(d);
}

/* evaluate an update expression on the element; NULL = null/skip (or an
** overflow, flagged in *overflow) */
static json_t *eval_update(const ast_expr *e, const kip_elem *el, int *overflow) {
  switch (e->kind) {
    case E_LIT: return json_is_null(e->lit) ? NULL : json_incref(e->lit);
    case E_PATH: {
      if (e->field == F_META && !strcmp(e->key, "_version")) return json_integer(el->version);
      json_t *v = json_object_get(e->field == F_ATTRS ? el->attrs : el->meta, e->key);
      return v && !json_is_null(v) ? json_incref(v) : NULL;
    }
    case E_FUNC: {
      json_t *x[3] = {NULL, NULL, NULL};
      for (int i = 0; i < e->nargs && i < 3; i++) x[i] = eval_update(e->args[i], el, overflow);
      json_t *r = NULL;
      if (e->op == FN_COALESCE) {
        r = x[0] ? json_incref(x[0]) : x[1] ? json_incref(x[1]) : NULL;
      } else {
        int ok = 1, all_int = 1;
        double d[3] = {0, 0, 0};
        for (int i = 0; i < e->nargs; i++) {
          if (!x[i] || !json_is_number(x[i])) ok = 0;
          else {
            d[i] = json_number_value(x[i]);
            if (!json_is_integer(x[i])) all_int = 0;
          }
        }
        if (ok) {
          if (e->op == FN_ADD) {
            long long s;
            if (all_int && !__builtin_add_overflow(json_integer_value(x[0]), json_integer_value(x[1]), &s))
              r = json_integer(s);
            else r = num(d[0] + d[1], 0, overflow);
          } else if (e->op == FN_MUL) {
            long long p;
            if (all_int && !__builtin_mul_overflow(json_integer_value(x[0]), json_integer_value(x[1]), &p))
              r = json_integer(p);
            else r = num(d[0] * d[1], 0, overflow);
          } else if (e->op == FN_CLAMP) {
            double v = d[0] < d[1] ? d[1] : d[0];
            if (v > d[2]) v = d[2];
            json_t *src = v == d[0] ? x[0] : v == d[1] ? x[1] : x[2];
            r = json_incref(src);
          }
        }
      }
      for (int i = 0; i < 3; i++) json_decref(x[i]);
      return r;
    }
    default: return NULL;
  }
}

/* the number of keys set, or -1 with err filled when a value overflows */
static int apply_assigns(const ast_assign *as, int n, const kip_elem *el, json_t *obj, kip_error *err) {
  int applied = 0;
  for (int i = 0; i < n; i++) {
    if (as[i].expr->kind == E_LIT) {
      json_object_set(obj, as[i].key, as[i].expr->lit);
      applied++;
      continue;
    }
    int overflow = 0;
    json_t *v = eval_update(as[i].expr, el, &overflow);
    if (overflow) {
      kip_err_at(err, KIP_E_VALUE_TYPE, as[i].pos.line, as[i].pos.col,
                 "Keep the values within the range of 64-bit floating point (about 1.8e308).",
                 "the new value of '%s' overflows: it is not a finite number", as[i].key);
      return -1;
    }
    if (!v) continue;
    json_object_set_new(obj, as[i].key, v);
    applied++;
  }
  return applied;
}

int kip_exec_update(kip_ctx *c, const ast_stmt *s) {
  const ast_update *u = &s->u.update;
  for (int i = 0; i < u->nmeta; i++)
    if (u->meta[i].key[0] == '_')
      return kip_err_at(c->err, KIP_E_CONSTRAINT, u->meta[i].pos.line, u->meta[i].pos.col, NULL,
                        "metadata key '%s' is reserved (engine-maintained)", u->meta[i].key);
  int64_t *ids;
  size_t n;
  int rc = kip_select_targets(c, u->where, u->target, u->target_pos, u->limit, &ids, &n);
  int64_t updated = 0;
  for (size_t i = 0; !rc && i < n; i++) {
    kip_elem el;
    if ((rc = kip_store_get(c->nx, ids[i], &el, c->err))) break;
    json_t *na = json_copy(el.attrs), *nm = json_copy(el.meta);
    int a1 = apply_assigns(u->attrs, u->nattrs, &el, na, c->err);
    int a2 = a1 < 0 ? 0 : apply_assigns(u->meta, u->nmeta, &el, nm, c->err);
    int applied = a1 + a2;
    if (a1 < 0 || a2 < 0) rc = c->err->code;
    else if (applied) {
      updated++;
      rc = kip_check_protected_change(c->nx, &el, na, nm, c->err);
      if (!rc && (!json_equal(na, el.attrs) || !json_equal(nm, el.meta)))
        rc = kip_store_update(c->nx, el.id, na, nm, c->err);
    }
    json_decref(na);
    json_decref(nm);
    kip_elem_clear(&el);
  }
  if (!rc) kip_buf_printf(c->out, "{\"updated\":%lld,\"matched\":%zu}", (long long)updated, n);
  free(ids);
  return rc;
}

/* ------------------------------------------------------------- DELETE */
/* an element (?1) and every proposition referencing it, transitively */
#define DOOMED_CTE                                                             \
  "WITH RECURSIVE doomed(id) AS (VALUES(?1) "                                  \
  "UNION SELECT e.id FROM doomed d JOIN element e ON e.subject = d.id "        \
  "UNION SELECT e.id FROM doomed d JOIN element e ON e.object = d.id) "

/* under a governance scope, every element a cascade would remove must be
** inside it (a DETACH must not remove a link to something the caller cannot see) */
static int cascade_in_scope(kip_ctx *c, int64_t id, kip_pos pos) {
  if (!c->nx->scope) return 0;
  static const char *sql =
      DOOMED_CTE "SELECT id FROM doomed";
  sqlite3_stmt *st;
  int prc = kip_prepare(c->nx, sql, -1, &st);
  if (prc != SQLITE_OK) return kip_store_error(c->nx, prc, c->err, "computing the cascade");
  sqlite3_bind_int64(st, 1, id);
  int rc = 0;
  while (!rc && (prc = sqlite3_step(st)) == SQLITE_ROW) {
    int in = kip_in_scope(c->nx, sqlite3_column_int64(st, 0), c->err);
    if (in < 0) rc = c->err->code;
    else if (!in) rc = kip_scope_denied(c->err, pos);
  }
  if (!rc && prc != SQLITE_DONE) rc = kip_store_error(c->nx, prc, c->err, "computing the cascade");
  kip_finish(c->nx, st);
  return rc;
}

/* delete an element and every proposition that references it, transitively */
static int cascade_delete(kip_ctx *c, int64_t id, int64_t *concepts, int64_t *props) {
  static const char *sql =
      DOOMED_CTE
      "SELECT count(*) FILTER (WHERE e.type IS NULL), count(*) FILTER (WHERE e.type IS NOT NULL) "
      "FROM doomed d JOIN element e ON e.id = d.id";
  static const char *del =
      DOOMED_CTE
      "DELETE FROM element WHERE id IN (SELECT id FROM doomed)";
  sqlite3_stmt *st;
  int prc = kip_prepare(c->nx, sql, -1, &st);
  if (prc != SQLITE_OK) return kip_store_error(c->nx, prc, c->err, "computing the cascade");
  sqlite3_bind_int64(st, 1, id);
  if ((prc = sqlite3_step(st)) == SQLITE_ROW) {
    *props += sqlite3_column_int64(st, 0);
    *concepts += sqlite3_column_int64(st, 1);
  }
  kip_finish(c->nx, st);
  if (prc != SQLITE_ROW) return kip_store_error(c->nx, prc, c->err, "computing the cascade");
  prc = kip_prepare(c->nx, del, -1, &st);
  if (prc != SQLITE_OK) return kip_store_error(c->nx, prc, c->err, "deleting");
  sqlite3_bind_int64(st, 1, id);
  prc = sqlite3_step(st);
  kip_finish(c->nx, st);
  return prc == SQLITE_DONE ? 0 : kip_store_error(c->nx, prc, c->err, "deleting");
}

/* KIP_3004 when link `l` (a belongs_to_domain) wires a protected structure
** into its domain: the Genesis wiring is part of the protected core */
static int genesis_wiring(kip_ctx *c, const kip_elem *l, kip_pos pos) {
  kip_elem subj;
  int rc = kip_store_get(c->nx, l->subject, &subj, c->err);
  if (rc) return rc;
  if (!subj.is_prop && kip_protection(subj.type, subj.name) != PROT_NONE)
    rc = kip_err_at(c->err, KIP_E_IMMUTABLE, pos.line, pos.col,
                    "The Genesis wiring of protected structures cannot be removed.",
                    "the belongs_to_domain link of {type: \"%s\", name: \"%s\"} is protected", subj.type, subj.name);
  kip_elem_clear(&subj);
  return rc;
}

/* a DELETE whose target matched nothing: an {id} target must exist (KIP_3002);
** an identity-bound or pattern target is an idempotent success, said in warnings */
static int delete_found_nothing(kip_ctx *c, const ast_delete *d) {
  for (int i = 0; i < d->where->n; i++) {
    const ast_where *w = d->where->items[i];
    const char *var = w->kind == W_CONCEPT ? w->concept->var : w->kind == W_PROP ? w->prop->var : NULL;
    const json_t *idv = w->kind == W_CONCEPT ? w->concept->id : w->kind == W_PROP ? w->prop->id : NULL;
    if (var && idv && !strcmp(var, d->target))
      return kip_err_at(c->err, KIP_E_NOT_FOUND, d->target_pos.line, d->target_pos.col,
                        "The target may have been deleted or never created. Use SEARCH or FIND to confirm it exists.",
                        "no %s with id \"%s\"", w->kind == W_PROP ? "proposition" : "concept", json_string_value(idv));
  }
  kip_warn(c, "?%s matched nothing: nothing was deleted", d->target);
  return 0;
}

int kip_exec_delete(kip_ctx *c, const ast_stmt *s) {
  const ast_delete *d = &s->u.del;
  if (d->what == DEL_METADATA)
    for (int i = 0; i < d->nkeys; i++)
      if (d->keys[i][0] == '_')
        return kip_err_at(c->err, KIP_E_CONSTRAINT, s->pos.line, s->pos.col, NULL,
                          "metadata key '%s' is reserved (engine-maintained) and cannot be deleted", d->keys[i]);
  int64_t *ids;
  size_t n;
  int rc = kip_select_targets(c, d->where, d->target, d->target_pos, -1, &ids, &n);
  int64_t uc = 0, up = 0, dc = 0, dp = 0;
  if (!rc && n == 0 && (d->what == DEL_CONCEPT || d->what == DEL_PROPOSITIONS)) rc = delete_found_nothing(c, d);
  if (!rc && (d->what == DEL_ATTRIBUTES || d->what == DEL_METADATA)) {
    for (size_t i = 0; !rc && i < n; i++) {
      kip_elem el;
      if ((rc = kip_store_get(c->nx, ids[i], &el, c->err))) break;
      json_t *na = json_copy(el.attrs), *nm = json_copy(el.meta);
      int removed = 0;
      for (int k = 0; k < d->nkeys; k++)
        removed += json_object_del(d->what == DEL_ATTRIBUTES ? na : nm, d->keys[k]) == 0;
      if (removed) {
        rc = kip_check_protected_change(c->nx, &el, na, nm, c->err);
        if (!rc) rc = kip_store_update(c->nx, el.id, na, nm, c->err);
        if (el.is_prop) up++;
        else uc++;
      }
      json_decref(na);
      json_decref(nm);
      kip_elem_clear(&el);
    }
    if (!rc) kip_buf_printf(c->out, "{\"updated_concepts\":%lld,\"updated_propositions\":%lld}", (long long)uc, (long long)up);
  } else if (!rc) {
    int want_prop = d->what == DEL_PROPOSITIONS;
    /* validate every target first: kind and protection */
    for (size_t i = 0; !rc && i < n; i++) {
      kip_elem el;
      if ((rc = kip_store_get(c->nx, ids[i], &el, c->err))) break;
      if (el.is_prop != want_prop) {
        char idb[32];
        kip_format_id(idb, sizeof idb, el.id, el.is_prop);
        rc = kip_err_at(c->err, KIP_E_CONSTRAINT, d->target_pos.line, d->target_pos.col,
                        want_prop ? "Use DELETE CONCEPT ?x DETACH for concepts." : "Use DELETE PROPOSITIONS ?l for links.",
                        "?%s bound %s, which is a %s", d->target, idb, el.is_prop ? "proposition" : "concept");
      } else if (!c->nx->privileged && kip_protection(el.type, el.name) != PROT_NONE) {
        rc = kip_err_at(c->err, KIP_E_IMMUTABLE, d->target_pos.line, d->target_pos.col, NULL,
                        "{type: \"%s\", name: \"%s\"} is protected and cannot be deleted", el.type, el.name);
      } else if (!c->nx->privileged && want_prop && !strcmp(el.predicate, "belongs_to_domain")) {
        rc = genesis_wiring(c, &el, d->target_pos);
      }
      kip_elem_clear(&el);
      if (!rc) rc = cascade_in_scope(c, ids[i], d->target_pos);
    }
    for (size_t i = 0; !rc && i < n; i++) {
      kip_elem el;
      int g = kip_store_get(c->nx, ids[i], &el, c->err);
      if (g == KIP_E_NOT_FOUND) continue; /* already removed by an earlier cascade */
      if (g) {
        rc = g;
        break;
      }
      kip_elem_clear(&el);
      rc = cascade_delete(c, ids[i], &dc, &dp);
    }
    if (!rc) {
      if (want_prop) kip_buf_printf(c->out, "{\"deleted_propositions\":%lld}", (long long)dp);
      else kip_buf_printf(c->out, "{\"deleted_concepts\":%lld,\"deleted_propositions\":%lld}", (long long)dc, (long long)dp);
    }
  }
  free(ids);
  return rc;
}
