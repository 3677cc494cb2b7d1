/*
** exec_merge.c — MERGE CONCEPT ?source INTO ?target (RC11 §4.4).
**
** Both variables must bind exactly one concept of the same type (KIP_3002 /
** KIP_3003 / KIP_2002). Every proposition referencing the source is
** repointed to the target keeping its id; when the repointed link would
** duplicate an existing (subject, predicate, object) link, the existing link
** survives, takes the missing attribute/metadata keys of the duplicate, and
** inherits every higher-order reference to it (recursively, since those
** references can collide in turn). Then the source's attributes fill the
** target's gaps, aliases are unioned with the source name appended,
** `_merged_from` records the provenance chain, and the source is deleted.
** Runs inside the command's transaction: all or nothing.
*/
#include <stdlib.h>
#include <string.h>

#include "exec.h"

typedef struct merge_stats {
  int64_t repointed, deduplicated;
  int depth;
} merge_stats;

#define MAX_COLLISION_DEPTH 256

/* copy keys of src missing from dst (reserved `_` keys excluded); returns the count */
static int fill_missing(json_t *dst, const json_t *src) {
  const char *k;
  json_t *v;
  int n = 0;
  json_object_foreach((json_t *)src, k, v) {
    if (k[0] == '_' || json_object_get(dst, k)) continue;
    json_object_set(dst, k, v);
    n++;
  }
  return n;
}

static int repoint_references(kip_ctx *c, int64_t from, int64_t to, merge_stats *ms);

/* the duplicate link `dup` collides with `keep`: keep survives, takes dup's
** missing keys and every reference to dup, and dup is removed */
static int absorb_link(kip_ctx *c, int64_t dup, int64_t keep, merge_stats *ms) {
  kip_elem d, k;
  int rc = kip_store_get(c->nx, dup, &d, c->err);
  if (rc) return rc;
  if ((rc = kip_store_get(c->nx, keep, &k, c->err))) {
    kip_elem_clear(&d);
    return rc;
  }
  json_t *na = json_copy(k.attrs), *nm = json_copy(k.meta);
  if (fill_missing(na, d.attrs) + fill_missing(nm, d.meta)) rc = kip_store_update(c->nx, keep, na, nm, c->err);
  json_decref(na);
  json_decref(nm);
  kip_elem_clear(&d);
  kip_elem_clear(&k);
  if (!rc) rc = repoint_references(c, dup, keep, ms);
  if (!rc) rc = kip_store_delete(c->nx, dup, c->err);
  if (!rc) ms->deduplicated++;
  return rc;
}

/* make every proposition that has `from` as subject or object use `to` */
static int repoint_references(kip_ctx *c, int64_t from, int64_t to, merge_stats *ms) {
  if (++ms->depth > MAX_COLLISION_DEPTH)
    return kip_err(c->err, KIP_E_RESOURCE, "Merge the nested propositions step by step.",
                   "higher-order link collisions nest deeper than %d levels", MAX_COLLISION_DEPTH);
  int rc;
  int64_t ref;
  while (!(rc = kip_store_next_referrer(c->nx, from, &ref, c->err))) {
    if (c->nx->req->scope) { /* never repoint or absorb a link the caller cannot see */
      int in = kip_in_scope(c->nx, ref, c->err);
      if (in <= 0) {
        rc = in < 0 ? c->err->code : kip_scope_denied(c->err, (kip_pos){0, 0});
        break;
      }
    }
    kip_elem l;
    if ((rc = kip_store_get(c->nx, ref, &l, c->err))) break;
    int64_t s = l.subject == from ? to : l.subject, o = l.object == from ? to : l.object, other;
    rc = kip_store_find_prop(c->nx, s, l.predicate, o, &other, c->err);
    kip_elem_clear(&l);
    if (rc == 0 && other != ref) {
      int in = c->nx->req->scope ? kip_in_scope(c->nx, other, c->err) : 1;
      rc = in < 0 ? c->err->code : !in ? kip_scope_denied(c->err, (kip_pos){0, 0}) : absorb_link(c, ref, other, ms);
    } else if (rc == KIP_E_NOT_FOUND) {
      rc = kip_store_repoint(c->nx, ref, s, o, c->err);
      ms->repointed++;
    }
    if (rc) break;
  }
  ms->depth--;
  return rc == KIP_E_NOT_FOUND ? 0 : rc;
}

/* the single concept ?var binds (KIP_3002 none, KIP_3003 several) */
static int bind_one(kip_ctx *c, const ast_merge *m, const char *var, kip_pos pos, kip_elem *out) {
  int64_t *ids;
  size_t n;
  int rc = kip_select_targets(c, m->where, var, pos, 2, &ids, &n);
  if (rc) return rc;
  int64_t id = n ? ids[0] : 0;
  free(ids);
  if (n == 0)
    return kip_err_at(c->err, KIP_E_NOT_FOUND, pos.line, pos.col, NULL, "?%s matches no concept", var);
  if (n > 1)
    return kip_err_at(c->err, KIP_E_DUPLICATE, pos.line, pos.col,
                      "MERGE works on one pair at a time: pin both sides by {type, name} or id.",
                      "?%s matches more than one element", var);
  if ((rc = kip_store_get(c->nx, id, out, c->err))) return rc;
  if (out->is_prop) {
    kip_elem_clear(out);
    return kip_err_at(c->err, KIP_E_CONSTRAINT, pos.line, pos.col, "MERGE CONCEPT merges concept nodes only.",
                      "?%s binds a proposition", var);
  }
  return 0;
}

/* the literal {type, name} clause binding ?var at the top of WHERE, if any */
static const ast_concept *literal_clause(const ast_group *where, const char *var) {
  for (int i = 0; i < where->n; i++) {
    const ast_where *w = where->items[i];
    if (w->kind == W_CONCEPT && w->concept->var && !strcmp(w->concept->var, var) &&
        json_is_string(w->concept->type) && json_is_string(w->concept->name))
      return w->concept;
  }
  return NULL;
}

/* The WHERE pattern had no solution. Name the side that is missing when
** both are literal {type, name} clauses, and when the source is gone but
** listed in the target's _merged_from, say the merge already happened. */
static void explain_no_solution(kip_ctx *c, const ast_merge *m) {
  const ast_concept *src = literal_clause(m->where, m->source), *tgt = literal_clause(m->where, m->target);
  if (!src || !tgt) return;
  kip_error quiet;
  int64_t tid;
  kip_elem t;
  /* a target outside the caller's scope is reported as missing, like a missing one */
  if (kip_store_find_concept(c->nx, json_string_value(tgt->type), json_string_value(tgt->name), &tid, &quiet) ||
      kip_in_scope(c->nx, tid, &quiet) != 1 || kip_store_get(c->nx, tid, &t, &quiet)) {
    kip_err_at(c->err, KIP_E_NOT_FOUND, m->target_pos.line, m->target_pos.col, NULL,
               "?%s matches no concept: {type: \"%.200s\", name: \"%.200s\"} does not exist", m->target,
               json_string_value(tgt->type), json_string_value(tgt->name));
    return;
  }
  char entry[600];
  snprintf(entry, sizeof entry, "%.290s:%.290s", json_string_value(src->type), json_string_value(src->name));
  kip_err_at(c->err, KIP_E_NOT_FOUND, m->source_pos.line, m->source_pos.col, NULL,
             "?%s matches no concept: {type: \"%.200s\", name: \"%.200s\"} does not exist", m->source,
             json_string_value(src->type), json_string_value(src->name));
  json_t *v;
  size_t i;
  json_array_foreach(json_object_get(t.meta, "_merged_from"), i, v) {
    if (json_is_string(v) && !strcmp(json_string_value(v), entry)) {
      snprintf(c->err->hint, sizeof c->err->hint,
               "Already merged: %.200s is listed in _merged_from of {type: \"%.100s\", name: \"%.100s\"}; "
               "treat this as success.", entry, t.type, t.name);
      break;
    }
  }
  kip_elem_clear(&t);
}

/* a definition node still in use cannot disappear into another one */
static int check_definition_unused(kip_ctx *c, const kip_elem *src, kip_pos pos) {
  const char *sql = !strcmp(src->type, "$ConceptType")       ? "SELECT count(*) FROM element WHERE type=?1"
                    : !strcmp(src->type, "$PropositionType") ? "SELECT count(*) FROM element WHERE predicate=?1"
                                                             : NULL;
  if (!sql) return 0;
  kip_stmt *st;
  int prc = kip_prepare(c->nx, sql, -1, &st);
  if (prc != KIP_STORE_OK) return kip_store_error(c->nx, prc, c->err, "checking definition use");
  kip_bind_text(st, 1, src->name, -1, 0);
  int64_t uses = kip_step(st) == KIP_ROW ? kip_col_int64(st, 0) : 0;
  kip_finish(c->nx, st);
  if (!uses) return 0;
  return kip_err_at(c->err, KIP_E_CONSTRAINT, pos.line, pos.col,
                    "Move the instances to the surviving definition first (UPSERT them under the new name, then "
                    "DELETE the old ones); then merge the definitions.",
                    "cannot merge definition {type: \"%s\", name: \"%s\"}: %lld elements still use it", src->type,
                    src->name, (long long)uses);
}

/* aliases := target aliases ∪ source aliases ∪ {source name}, order kept */
static void union_aliases(json_t *attrs, const json_t *src_aliases, const char *src_name) {
  json_t *cur = json_object_get(attrs, "aliases");
  json_t *out = json_is_array(cur) ? json_copy(cur) : json_array();
  json_t *add = json_is_array(src_aliases) ? json_copy((json_t *)src_aliases) : json_array();
  json_array_append_new(add, json_string(src_name));
  size_t i, j;
  json_t *v, *w;
  json_array_foreach(add, i, v) {
    int seen = 0;
    json_array_foreach(out, j, w) seen |= json_equal(v, w);
    if (!seen) json_array_append(out, v);
  }
  json_decref(add);
  json_object_set_new(attrs, "aliases", out);
}

static void append_unique(json_t *arr, json_t *v) {
  size_t i;
  json_t *w;
  json_array_foreach(arr, i, w) if (json_equal(v, w)) return;
  json_array_append(arr, v);
}

int kip_exec_merge(kip_ctx *c, const ast_command *cmd) {
  const ast_stmt *s = cmd->stmts[0];
  const ast_merge *m = &s->u.merge;
  kip_elem src, tgt;
  int rc = bind_one(c, m, m->source, m->source_pos, &src);
  if (rc == KIP_E_NOT_FOUND) explain_no_solution(c, m);
  if (rc) return rc;
  if ((rc = bind_one(c, m, m->target, m->target_pos, &tgt))) {
    kip_elem_clear(&src);
    return rc;
  }
  merge_stats ms = {0, 0, 0};
  int filled = 0;
  if (src.id == tgt.id) goto done; /* same node: no-op success */
  if (strcmp(src.type, tgt.type)) {
    rc = kip_err_at(c->err, KIP_E_CONSTRAINT, s->pos.line, s->pos.col, "Only concepts of the same type can be merged.",
                    "type mismatch: ?%s is a \"%s\", ?%s is a \"%s\"", m->source, src.type, m->target, tgt.type);
    goto done;
  }
  if (!c->nx->privileged) {
    const kip_elem *prot = kip_protection(src.type, src.name) ? &src : kip_protection(tgt.type, tgt.name) ? &tgt : NULL;
    if (prot) {
      rc = kip_err_at(c->err, KIP_E_IMMUTABLE, s->pos.line, s->pos.col, NULL,
                      "{type: \"%s\", name: \"%s\"} is protected and cannot take part in a MERGE", prot->type,
                      prot->name);
      goto done;
    }
  }
  if ((rc = check_definition_unused(c, &src, m->source_pos))) goto done;
  if ((rc = repoint_references(c, src.id, tgt.id, &ms))) goto done;

  json_t *na = json_copy(tgt.attrs), *nm = json_copy(tgt.meta);
  json_t *src_aliases = json_incref(json_object_get(src.attrs, "aliases"));
  json_object_del(src.attrs, "aliases");
  filled = fill_missing(na, src.attrs);
  json_t *aliases_before = json_incref(json_object_get(na, "aliases"));
  union_aliases(na, src_aliases, src.name);
  filled += !json_equal(aliases_before, json_object_get(na, "aliases")); /* aliases is a filled key too */
  json_decref(aliases_before);
  json_decref(src_aliases);
  json_t *trail = json_is_array(json_object_get(nm, "_merged_from")) ? json_copy(json_object_get(nm, "_merged_from"))
                                                                      : json_array();
  size_t i;
  json_t *v;
  json_array_foreach(json_object_get(src.meta, "_merged_from"), i, v) append_unique(trail, v);
  char entry[1024];
  snprintf(entry, sizeof entry, "%s:%s", src.type, src.name);
  json_t *e = json_string(entry);
  append_unique(trail, e);
  json_decref(e);
  json_object_set_new(nm, "_merged_from", trail);
  rc = kip_store_delete(c->nx, src.id, c->err);
  if (!rc) rc = kip_store_update(c->nx, tgt.id, na, nm, c->err);
  json_decref(na);
  json_decref(nm);
done:
  if (!rc)
    kip_buf_printf(c->out,
                   "{\"merged\":true,\"links_repointed\":%lld,\"links_deduplicated\":%lld,\"attributes_filled\":%d}",
                   (long long)ms.repointed, (long long)ms.deduplicated, filled);
  kip_elem_clear(&src);
  kip_elem_clear(&tgt);
  return rc;
}
