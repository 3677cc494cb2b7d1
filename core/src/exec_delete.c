/*
** exec_delete.c — DELETE ATTRIBUTES | METADATA | PROPOSITIONS | CONCEPT ...
** DETACH (RC11 §4.2) with the transitive higher-order cascade, the scope
** checked on everything a cascade removes, the protected Genesis wiring.
** Runs inside the command's transaction: all or nothing.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* under a governance scope, every element a cascade would remove must be
** inside it (a DETACH must not remove a link to something the caller cannot see) */
/* the cascade of an element (?1) followed by `rest` */
static int prepare_cascade(kip_ctx *c, const char *rest, kip_stmt **st) {
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_adds(&b, kql_dialect(c->nx)->cascade_cte);
  kip_buf_adds(&b, rest);
  int prc = kip_prepare(c->nx, b.p, (int)b.len, st);
  kip_buf_free(&b);
  return prc;
}

static int cascade_in_scope(kip_ctx *c, int64_t id, kip_pos pos) {
  if (!c->nx->req->scope) return 0;
  kip_stmt *st;
  int prc = prepare_cascade(c, "SELECT id FROM doomed", &st);
  if (prc != KIP_STORE_OK) return kip_store_error(c->nx, prc, c->err, "computing the cascade");
  kip_bind_int64(st, 1, id);
  int rc = 0;
  while (!rc && (prc = kip_step(st)) == KIP_ROW) {
    int in = kip_in_scope(c->nx, kip_col_int64(st, 0), c->err);
    if (in < 0) rc = c->err->code;
    else if (!in) rc = kip_scope_denied(c->err, pos);
  }
  if (!rc && prc != KIP_DONE) rc = kip_store_error(c->nx, prc, c->err, "computing the cascade");
  kip_finish(c->nx, st);
  return rc;
}

/* delete an element and every proposition that references it, transitively */
/* the write guards over every element the cascade removes, where the store
** does not check its deletes itself (SQLite's triggers do: store.c) */
static int cascade_guarded(kip_ctx *c, int64_t id) {
  if (!c->nx->pg) return 0;
  kip_stmt *st;
  int prc = prepare_cascade(c, "SELECT e.id, e.type, e.name, e.predicate, e.subject FROM doomed d JOIN element e ON e.id = d.id",
                            &st);
  if (prc != KIP_STORE_OK) return kip_store_error(c->nx, prc, c->err, "computing the cascade");
  kip_bind_int64(st, 1, id);
  int refused = 0;
  while (!refused && (prc = kip_step(st)) == KIP_ROW)
    refused = kip_write_refused(c->nx, 'd', kip_col_int64(st, 0), kip_col_text(st, 1), kip_col_text(st, 2),
                                kip_col_text(st, 3), kip_col_int64(st, 4));
  kip_finish(c->nx, st);
  if (refused) return kip_store_guard_error(c->nx, c->err, "deleting");
  return prc == KIP_DONE ? 0 : kip_store_error(c->nx, prc, c->err, "computing the cascade");
}

static int cascade_delete(kip_ctx *c, int64_t id, int64_t *concepts, int64_t *props) {
  kip_stmt *st;
  int prc = prepare_cascade(c,
                            "SELECT count(*) FILTER (WHERE e.type IS NULL), count(*) FILTER (WHERE e.type IS NOT NULL) "
                            "FROM doomed d JOIN element e ON e.id = d.id",
                            &st);
  if (prc != KIP_STORE_OK) return kip_store_error(c->nx, prc, c->err, "computing the cascade");
  kip_bind_int64(st, 1, id);
  if ((prc = kip_step(st)) == KIP_ROW) {
    *props += kip_col_int64(st, 0);
    *concepts += kip_col_int64(st, 1);
  }
  kip_finish(c->nx, st);
  if (prc != KIP_ROW) return kip_store_error(c->nx, prc, c->err, "computing the cascade");
  if (cascade_guarded(c, id)) return c->err->code;
  c->nx->tx_removed = 1; /* (the caches of what is defined outlive no deletion: kip_pg_committed) */
  prc = prepare_cascade(c, "DELETE FROM element WHERE id IN (SELECT id FROM doomed)", &st);
  if (prc != KIP_STORE_OK) return kip_store_error(c->nx, prc, c->err, "deleting");
  kip_bind_int64(st, 1, id);
  prc = kip_step(st);
  kip_finish(c->nx, st);
  return prc == KIP_DONE ? 0 : kip_store_error(c->nx, prc, c->err, "deleting");
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

int kip_exec_delete(kip_ctx *c, const ast_command *cmd) {
  const ast_stmt *s = cmd->stmts[0];
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
