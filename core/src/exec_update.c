/*
** exec_update.c — UPDATE (RC11 §4.3): ADD/MUL/CLAMP/COALESCE on the
** target's own state, null-skip per key, updated vs matched, LIMIT cap.
** Runs inside the command's transaction: all or nothing.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

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

int kip_exec_update(kip_ctx *c, const ast_command *cmd) {
  const ast_stmt *s = cmd->stmts[0];
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

