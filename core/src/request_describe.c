/*
** request_describe.c — the structured description of a command that
** governance policies inspect (kip_describe_json). Built from the AST with
** parameters already bound, never by re-reading the text:
**
**   { "kind": "FIND" | "UPSERT" | "UPDATE" | "MERGE" | "DELETE" | "DESCRIBE"
**             | "SEARCH" | "EXPORT",
**     "statements": <n>, "mutates": <bool>,
**     "reads":  { "types": [..], "predicates": [..] },
**     "writes": { "concepts": [{type, name | id, attributes, metadata}],
**                 "propositions": [{subject, predicate, object, attributes, metadata}],
**                 "update_keys": {attributes: [..], metadata: [..]},   (UPDATE)
**                 "update_values": {attributes: {key: value | [literals]},
**                                   metadata: {..}},                     (UPDATE)
**                 "delete": "ATTRIBUTES" | "METADATA" | "PROPOSITIONS" | "CONCEPT",
**                 "delete_keys": [..],                                  (DELETE)
**                 "merge": {source, target} } }                          (MERGE)
**
** Endpoints are {type, name} | {id} | {handle} (an UPSERT local handle) |
** {var} (a query variable) | a nested {subject, predicate, object}. The
** contract is documented in docs/policies.md.
*/
#include <string.h>

#include "statement_ext.h"

typedef struct kip_description {
  json_t *types, *preds;  /* arrays of distinct names */
  json_t *concepts, *props;
} desc;

static void add_name(json_t *arr, const json_t *name) {
  if (!json_is_string(name)) return;
  size_t i;
  json_t *v;
  json_array_foreach(arr, i, v) if (json_equal(v, name)) return;
  json_array_append(arr, (json_t *)name);
}

void kip_describe_reads(desc *d, const char *type, const char *predicate) {
  json_t *t = type ? json_string(type) : NULL, *p = predicate ? json_string(predicate) : NULL;
  if (t) add_name(d->types, t);
  if (p) add_name(d->preds, p);
  json_decref(t);
  json_decref(p);
}

static void add_cname(json_t *arr, const char *name) {
  json_t *s = json_string(name);
  add_name(arr, s);
  json_decref(s);
}

static json_t *endpoint(desc *d, const ast_endpoint *e, int upsert);

static json_t *concept_ref(desc *d, const ast_concept *c) {
  json_t *o = json_object();
  if (c->id) json_object_set(o, "id", c->id);
  if (c->type) {
    json_object_set(o, "type", c->type);
    add_name(d->types, c->type);
  }
  if (c->name) json_object_set(o, "name", c->name);
  return o;
}

static void pred_names(desc *d, const ast_pred *p, json_t *o) {
  if (p->kind == PRED_VAR) {
    json_object_set_new(o, "predicate", json_pack("{s:s}", "var", p->var));
    return;
  }
  for (int i = 0; i < p->nnames; i++) add_cname(d->preds, p->names[i]);
  if (p->nnames == 1) json_object_set_new(o, "predicate", json_string(p->names[0]));
  else {
    json_t *alts = json_array();
    for (int i = 0; i < p->nnames; i++) json_array_append_new(alts, json_string(p->names[i]));
    json_object_set_new(o, "predicate", alts);
  }
}

static json_t *prop_ref(desc *d, const ast_prop *p, int upsert) {
  json_t *o = json_object();
  if (p->id) {
    json_object_set(o, "id", p->id);
    return o;
  }
  json_object_set_new(o, "subject", endpoint(d, &p->subject, upsert));
  pred_names(d, &p->pred, o);
  json_object_set_new(o, "object", endpoint(d, &p->object, upsert));
  return o;
}

static json_t *endpoint(desc *d, const ast_endpoint *e, int upsert) {
  switch (e->kind) {
    case EP_VAR: return json_pack("{s:s}", upsert ? "handle" : "var", e->var);
    case EP_CONCEPT: return concept_ref(d, e->concept);
    case EP_PROP: return prop_ref(d, e->prop, upsert);
  }
  return json_null();
}

static void walk_group(desc *d, const ast_group *g) {
  for (int i = 0; g && i < g->n; i++) {
    const ast_where *w = g->items[i];
    if (w->kind == W_CONCEPT) json_decref(concept_ref(d, w->concept));
    else if (w->kind == W_PROP) json_decref(prop_ref(d, w->prop, 0));
    else if (w->group) walk_group(d, w->group);
  }
}

/* effective metadata of a block: statement-level defaults, block on top */
static json_t *block_meta(const ast_upsert *u, const json_t *own) {
  if (!u->meta) return own ? json_incref((json_t *)own) : json_object();
  return own ? kip_json_merge(u->meta, own) : json_copy(u->meta);
}

static void describe_blocks(desc *d, const ast_upsert *u) {
  for (int i = 0; i < u->n; i++) {
    const ast_block *b = u->blocks[i];
    json_t *meta = block_meta(u, b->meta);
    json_t *o = b->kind == B_CONCEPT ? concept_ref(d, b->concept) : prop_ref(d, b->prop, 1);
    if (b->handle) json_object_set_new(o, "handle", json_string(b->handle));
    json_object_set_new(o, "attributes", b->attrs ? json_incref(b->attrs) : json_object());
    json_object_set(o, "metadata", meta);
    json_array_append_new(b->kind == B_CONCEPT ? d->concepts : d->props, o);
    for (int k = 0; k < b->nprops; k++) {
      const ast_setprop *sp = &b->props[k];
      json_t *subject = b->handle ? json_pack("{s:s}", "handle", b->handle)
                                  : (b->kind == B_CONCEPT ? concept_ref(d, b->concept) : prop_ref(d, b->prop, 1));
      add_name(d->preds, sp->pred);
      json_t *pm = sp->meta ? kip_json_merge(meta, sp->meta) : json_incref(meta);
      json_array_append_new(d->props, json_pack("{s:o,s:O,s:o,s:o,s:o}", "subject", subject, "predicate", sp->pred,
                                                "object", endpoint(d, &sp->target, 1), "attributes", json_object(),
                                                "metadata", pm));
    }
    json_decref(meta);
  }
}

static json_t *assign_keys(const ast_assign *as, int n) {
  json_t *a = json_array();
  for (int i = 0; i < n; i++) json_array_append_new(a, json_string(as[i].key));
  return a;
}

/* the literal values an expression writes (parameters bound): the literal
** itself, or the list of literals inside an update expression */
static void collect_literals(const ast_expr *e, json_t *out) {
  if (!e) return;
  if (e->kind == E_LIT) json_array_append(out, e->lit);
  for (int i = 0; i < e->nargs; i++) collect_literals(e->args[i], out);
}

static json_t *assign_values(const ast_assign *as, int n) {
  json_t *o = json_object();
  for (int i = 0; i < n; i++) {
    if (as[i].expr && as[i].expr->kind == E_LIT) {
      json_object_set(o, as[i].key, as[i].expr->lit);
    } else {
      json_t *lits = json_array();
      collect_literals(as[i].expr, lits);
      json_object_set_new(o, as[i].key, lits);
    }
  }
  return o;
}

static const char *delete_names[] = {"", "ATTRIBUTES", "METADATA", "PROPOSITIONS", "CONCEPT"};

/* each statement kind's reads and writes (statements.h), into d and writes */
static void describe_find(desc *d, json_t *writes, const ast_stmt *s) {
  (void)writes;
  walk_group(d, s->u.find.where);
}

static void describe_upsert(desc *d, json_t *writes, const ast_stmt *s) {
  (void)writes;
  describe_blocks(d, &s->u.upsert);
}

static void describe_update(desc *d, json_t *writes, const ast_stmt *s) {
  walk_group(d, s->u.update.where);
  json_object_set_new(writes, "update_keys",
                      json_pack("{s:o,s:o}", "attributes", assign_keys(s->u.update.attrs, s->u.update.nattrs),
                                "metadata", assign_keys(s->u.update.meta, s->u.update.nmeta)));
  json_object_set_new(writes, "update_values",
                      json_pack("{s:o,s:o}", "attributes", assign_values(s->u.update.attrs, s->u.update.nattrs),
                                "metadata", assign_values(s->u.update.meta, s->u.update.nmeta)));
}

static void describe_merge(desc *d, json_t *writes, const ast_stmt *s) {
  walk_group(d, s->u.merge.where);
  json_object_set_new(writes, "merge", json_pack("{s:s,s:s}", "source", s->u.merge.source, "target", s->u.merge.target));
}

static void describe_delete(desc *d, json_t *writes, const ast_stmt *s) {
  const ast_delete *x = &s->u.del;
  walk_group(d, x->where);
  json_object_set_new(writes, "delete", json_string(delete_names[x->what]));
  json_t *keys = json_array();
  for (int k = 0; k < x->nkeys; k++) json_array_append_new(keys, json_string(x->keys[k]));
  json_object_set_new(writes, "delete_keys", keys);
}

static void describe_describe(desc *d, json_t *writes, const ast_stmt *s) {
  (void)writes;
  if (s->u.describe.what == D_CONCEPT_TYPE) add_name(d->types, s->u.describe.name);
  if (s->u.describe.what == D_PROP_TYPE) add_name(d->preds, s->u.describe.name);
}

static void describe_search(desc *d, json_t *writes, const ast_stmt *s) {
  (void)writes;
  if (s->u.search.type) add_name(s->u.search.propositions ? d->preds : d->types, s->u.search.type);
}

static void describe_export(desc *d, json_t *writes, const ast_stmt *s) {
  (void)writes;
  walk_group(d, s->u.exp.where);
}

static void (*const describers[S_KINDS])(desc *d, json_t *writes, const ast_stmt *s) = {
#define KIP_STMT_DESCRIBE(K, kw, fn, m) [S_##K] = describe_##fn,
    KIP_CORE_STATEMENTS(KIP_STMT_DESCRIBE)
#undef KIP_STMT_DESCRIBE
#define KIP_STMT_DESCRIBE_EXT(K, kw, fn, m) [S_##K] = kip_describe_##fn,
    KIP_EXTENSION_STATEMENTS(KIP_STMT_DESCRIBE_EXT)
#undef KIP_STMT_DESCRIBE_EXT
};

static json_t *describe(const ast_command *cmd, json_t *params) {
  desc d = {json_array(), json_array(), json_array(), json_array()};
  json_t *writes = json_object();
  for (int i = 0; i < cmd->n; i++) {
    const ast_stmt *s = cmd->stmts[i];
    if (s->kind > S_NONE && s->kind < S_KINDS) describers[s->kind](&d, writes, s);
  }
  json_object_set_new(writes, "concepts", d.concepts);
  json_object_set_new(writes, "propositions", d.props);
  return json_pack("{s:s,s:i,s:b,s:o,s:{s:o,s:o},s:o}", "kind", kip_stmt_kind_name(cmd->stmts[0]->kind), "statements",
                   cmd->n, "mutates", cmd->is_kml, "parameters", params ? json_incref(params) : json_object(), "reads", "types",
                   d.types, "predicates", d.preds, "writes", writes);
}

void kip_render_description(kip_buf *b, const ast_command *cmd, const json_t *params) {
  json_t *d = describe(cmd, (json_t *)params);
  kip_json_write(b, d);
  json_decref(d);
}

char *kip_describe_json(const char *command, size_t len, const char *params_json) {
  return kip_parsed_json(command, len, params_json, kip_render_description);
}
