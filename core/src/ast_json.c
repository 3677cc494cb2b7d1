/*
** ast_json.c — renders the parsed AST as JSON (used by `kip parse` and by
** tooling). Every node carries its source position as "at": [line, column].
** kip_parsed_json: a command parsed and rendered by a caller-chosen writer
** (the AST here, the policy view in request_describe.c), or its error.
*/
#include "statement_ext.h"

#include <string.h>

static void key(kip_buf *b, const char *k) {
  kip_buf_json_str(b, k, strlen(k));
  kip_buf_addc(b, ':');
}
static void str(kip_buf *b, const char *s) {
  if (s) kip_buf_json_str(b, s, strlen(s));
  else kip_buf_adds(b, "null");
}
static void at(kip_buf *b, kip_pos p) { kip_buf_printf(b, "\"at\":[%d,%d]", p.line, p.col); }

static void w_concept(kip_buf *b, const ast_concept *c);
static void w_prop(kip_buf *b, const ast_prop *p);

static void w_endpoint(kip_buf *b, const ast_endpoint *e) {
  switch (e->kind) {
    case EP_VAR:
      kip_buf_adds(b, "{\"var\":");
      str(b, e->var);
      kip_buf_addc(b, '}');
      break;
    case EP_CONCEPT: w_concept(b, e->concept); break;
    case EP_PROP: w_prop(b, e->prop); break;
    default: kip_buf_adds(b, "null");
  }
}

static void w_concept(kip_buf *b, const ast_concept *c) {
  kip_buf_adds(b, "{\"concept\":{");
  at(b, c->pos);
  if (c->var) { kip_buf_addc(b, ','); key(b, "var"); str(b, c->var); }
  if (c->id) { kip_buf_addc(b, ','); key(b, "id"); kip_json_write(b, c->id); }
  if (c->type) { kip_buf_addc(b, ','); key(b, "type"); kip_json_write(b, c->type); }
  if (c->name) { kip_buf_addc(b, ','); key(b, "name"); kip_json_write(b, c->name); }
  kip_buf_adds(b, "}}");
}

static void w_prop(kip_buf *b, const ast_prop *p) {
  kip_buf_adds(b, "{\"proposition\":{");
  at(b, p->pos);
  if (p->var) { kip_buf_addc(b, ','); key(b, "var"); str(b, p->var); }
  if (p->id) {
    kip_buf_addc(b, ',');
    key(b, "id");
    kip_json_write(b, p->id);
  } else {
    kip_buf_addc(b, ',');
    key(b, "subject");
    w_endpoint(b, &p->subject);
    kip_buf_addc(b, ',');
    key(b, "predicate");
    const ast_pred *pr = &p->pred;
    if (pr->kind == PRED_VAR) {
      kip_buf_adds(b, "{\"var\":");
      str(b, pr->var);
      kip_buf_addc(b, '}');
    } else {
      kip_buf_adds(b, "{\"names\":[");
      for (int i = 0; i < pr->nnames; i++) {
        if (i) kip_buf_addc(b, ',');
        str(b, pr->names[i]);
      }
      kip_buf_addc(b, ']');
      if (pr->kind == PRED_HOPS) {
        kip_buf_printf(b, ",\"min\":%d,\"max\":", pr->min);
        if (pr->max < 0) kip_buf_adds(b, "null");
        else kip_buf_printf(b, "%d", pr->max);
      }
      kip_buf_addc(b, '}');
    }
    kip_buf_addc(b, ',');
    key(b, "object");
    w_endpoint(b, &p->object);
  }
  kip_buf_adds(b, "}}");
}

static const char *field_names[] = {"", "id", "type", "name", "subject", "predicate", "object", "attributes", "metadata"};
static const char *op_names[] = {"", "||", "&&", "==", "!=", "<", "<=", ">", ">="};
static const char *fn_names[] = {"", "IN", "IS_NULL", "IS_NOT_NULL", "CONTAINS", "STARTS_WITH", "ENDS_WITH",
                                 "REGEX", "ADD", "MUL", "CLAMP", "COALESCE"};
static const char *agg_names[] = {"", "COUNT", "SUM", "AVG", "MIN", "MAX"};

static void w_expr(kip_buf *b, const ast_expr *e) {
  kip_buf_addc(b, '{');
  at(b, e->pos);
  kip_buf_addc(b, ',');
  switch (e->kind) {
    case E_LIT: key(b, "value"); kip_json_write(b, e->lit); break;
    case E_VAR: key(b, "var"); str(b, e->var); break;
    case E_PATH:
      key(b, "var"); str(b, e->var);
      kip_buf_addc(b, ','); key(b, "field"); str(b, field_names[e->field]);
      if (e->key) { kip_buf_addc(b, ','); key(b, "key"); str(b, e->key); }
      break;
    case E_BIN: key(b, "op"); str(b, op_names[e->op]); break;
    case E_NOT: key(b, "op"); str(b, "!"); break;
    case E_FUNC: key(b, "call"); str(b, fn_names[e->op]); break;
    case E_AGG:
      key(b, "aggregate"); str(b, agg_names[e->op]);
      if (e->distinct) kip_buf_adds(b, ",\"distinct\":true");
      break;
  }
  if (e->nargs) {
    kip_buf_addc(b, ',');
    key(b, "args");
    kip_buf_addc(b, '[');
    for (int i = 0; i < e->nargs; i++) {
      if (i) kip_buf_addc(b, ',');
      w_expr(b, e->args[i]);
    }
    kip_buf_addc(b, ']');
  }
  kip_buf_addc(b, '}');
}

static void w_group(kip_buf *b, const ast_group *g) {
  kip_buf_addc(b, '[');
  for (int i = 0; g && i < g->n; i++) {
    const ast_where *w = g->items[i];
    if (i) kip_buf_addc(b, ',');
    switch (w->kind) {
      case W_CONCEPT: w_concept(b, w->concept); break;
      case W_PROP: w_prop(b, w->prop); break;
      case W_FILTER: kip_buf_adds(b, "{\"filter\":"); w_expr(b, w->filter); kip_buf_addc(b, '}'); break;
      default:
        kip_buf_addc(b, '{');
        key(b, w->kind == W_OPTIONAL ? "optional" : w->kind == W_NOT ? "not" : "union");
        w_group(b, w->group);
        kip_buf_addc(b, '}');
    }
  }
  kip_buf_addc(b, ']');
}

static void w_limit(kip_buf *b, int64_t limit, const json_t *cursor) {
  if (limit >= 0) kip_buf_printf(b, ",\"limit\":%lld", (long long)limit);
  if (cursor) { kip_buf_adds(b, ",\"cursor\":"); kip_json_write(b, cursor); }
}

static void w_assigns(kip_buf *b, const char *k, const ast_assign *as, int n) {
  kip_buf_addc(b, ',');
  key(b, k);
  kip_buf_addc(b, '{');
  for (int i = 0; i < n; i++) {
    if (i) kip_buf_addc(b, ',');
    key(b, as[i].key);
    w_expr(b, as[i].expr);
  }
  kip_buf_addc(b, '}');
}

/* each statement kind's fields (statements.h) */
static void write_find(kip_buf *b, const ast_stmt *s) {
  const ast_find *f = &s->u.find;
  kip_buf_adds(b, ",\"find\":[");
  for (int i = 0; i < f->nproj; i++) {
    if (i) kip_buf_addc(b, ',');
    w_expr(b, f->proj[i]);
  }
  kip_buf_adds(b, "],\"where\":");
  w_group(b, f->where);
  if (f->norder) {
    kip_buf_adds(b, ",\"order_by\":[");
    for (int i = 0; i < f->norder; i++) {
      if (i) kip_buf_addc(b, ',');
      kip_buf_adds(b, "{\"expr\":");
      w_expr(b, f->order[i].expr);
      kip_buf_printf(b, ",\"desc\":%s}", f->order[i].desc ? "true" : "false");
    }
    kip_buf_addc(b, ']');
  }
  w_limit(b, f->limit, f->cursor);
}

static void write_upsert(kip_buf *b, const ast_stmt *s) {
  const ast_upsert *u = &s->u.upsert;
  kip_buf_adds(b, ",\"blocks\":[");
  for (int i = 0; i < u->n; i++) {
    const ast_block *bl = u->blocks[i];
    if (i) kip_buf_addc(b, ',');
    kip_buf_addc(b, '{');
    key(b, bl->kind == B_CONCEPT ? "concept" : "proposition");
    if (bl->kind == B_CONCEPT) w_concept(b, bl->concept);
    else w_prop(b, bl->prop);
    if (bl->handle) { kip_buf_adds(b, ",\"handle\":"); str(b, bl->handle); }
    if (bl->has_expect) kip_buf_printf(b, ",\"expect_version\":%lld", (long long)bl->expect);
    if (bl->attrs) { kip_buf_adds(b, ",\"set_attributes\":"); kip_json_write(b, bl->attrs); }
    if (bl->nprops) {
      kip_buf_adds(b, ",\"set_propositions\":[");
      for (int j = 0; j < bl->nprops; j++) {
        if (j) kip_buf_addc(b, ',');
        kip_buf_adds(b, "{\"predicate\":");
        kip_json_write(b, bl->props[j].pred);
        kip_buf_adds(b, ",\"target\":");
        w_endpoint(b, &bl->props[j].target);
        if (bl->props[j].meta) { kip_buf_adds(b, ",\"metadata\":"); kip_json_write(b, bl->props[j].meta); }
        kip_buf_addc(b, '}');
      }
      kip_buf_addc(b, ']');
    }
    if (bl->meta) { kip_buf_adds(b, ",\"metadata\":"); kip_json_write(b, bl->meta); }
    kip_buf_addc(b, '}');
  }
  kip_buf_addc(b, ']');
  if (u->meta) { kip_buf_adds(b, ",\"metadata\":"); kip_json_write(b, u->meta); }
}

static void write_update(kip_buf *b, const ast_stmt *s) {
  const ast_update *u = &s->u.update;
  kip_buf_adds(b, ",\"target\":");
  str(b, u->target);
  if (u->has_attrs) w_assigns(b, "set_attributes", u->attrs, u->nattrs);
  if (u->has_meta) w_assigns(b, "set_metadata", u->meta, u->nmeta);
  kip_buf_adds(b, ",\"where\":");
  w_group(b, u->where);
  w_limit(b, u->limit, NULL);
}

static void write_merge(kip_buf *b, const ast_stmt *s) {
  kip_buf_adds(b, ",\"source\":");
  str(b, s->u.merge.source);
  kip_buf_adds(b, ",\"target\":");
  str(b, s->u.merge.target);
  kip_buf_adds(b, ",\"where\":");
  w_group(b, s->u.merge.where);
}

static void write_delete(kip_buf *b, const ast_stmt *s) {
  static const char *what[] = {"", "ATTRIBUTES", "METADATA", "PROPOSITIONS", "CONCEPT"};
  const ast_delete *d = &s->u.del;
  kip_buf_adds(b, ",\"delete\":");
  str(b, what[d->what]);
  if (d->nkeys || d->what <= DEL_METADATA) {
    kip_buf_adds(b, ",\"keys\":[");
    for (int i = 0; i < d->nkeys; i++) {
      if (i) kip_buf_addc(b, ',');
      str(b, d->keys[i]);
    }
    kip_buf_addc(b, ']');
  }
  kip_buf_adds(b, ",\"target\":");
  str(b, d->target);
  kip_buf_adds(b, ",\"where\":");
  w_group(b, d->where);
}

static void write_describe(kip_buf *b, const ast_stmt *s) {
  static const char *what[] = {"", "PRIMER", "DOMAINS", "CONCEPT TYPES", "CONCEPT TYPE", "PROPOSITION TYPES",
                               "PROPOSITION TYPE"};
  kip_buf_adds(b, ",\"describe\":");
  str(b, what[s->u.describe.what]);
  if (s->u.describe.name) { kip_buf_adds(b, ",\"name\":"); kip_json_write(b, s->u.describe.name); }
  w_limit(b, s->u.describe.limit, s->u.describe.cursor);
}

static void write_search(kip_buf *b, const ast_stmt *s) {
  const ast_search *q = &s->u.search;
  kip_buf_printf(b, ",\"search\":\"%s\",\"term\":", q->propositions ? "PROPOSITION" : "CONCEPT");
  kip_json_write(b, q->term);
  if (q->type) { kip_buf_adds(b, ",\"type\":"); kip_json_write(b, q->type); }
  if (q->mode) { kip_buf_adds(b, ",\"mode\":"); kip_json_write(b, q->mode); }
  if (q->has_threshold) {
    json_t *t = json_real(q->threshold);
    kip_buf_adds(b, ",\"threshold\":");
    kip_json_write(b, t);
    json_decref(t);
  }
  w_limit(b, q->limit, NULL);
}

static void write_export(kip_buf *b, const ast_stmt *s) {
  kip_buf_adds(b, ",\"target\":");
  str(b, s->u.exp.target);
  kip_buf_adds(b, ",\"where\":");
  w_group(b, s->u.exp.where);
  w_limit(b, s->u.exp.limit, s->u.exp.cursor);
}

static void (*const writers[S_KINDS])(kip_buf *b, const ast_stmt *s) = {
#define KIP_STMT_WRITE(K, kw, fn, m) [S_##K] = write_##fn,
    KIP_CORE_STATEMENTS(KIP_STMT_WRITE)
#undef KIP_STMT_WRITE
#define KIP_STMT_WRITE_EXT(K, kw, fn, m) [S_##K] = kip_write_##fn,
    KIP_EXTENSION_STATEMENTS(KIP_STMT_WRITE_EXT)
#undef KIP_STMT_WRITE_EXT
};

static void w_stmt(kip_buf *b, const ast_stmt *s) {
  kip_buf_addc(b, '{');
  key(b, "statement");
  str(b, kip_stmt_kind_name(s->kind));
  kip_buf_addc(b, ',');
  at(b, s->pos);
  if (s->kind > S_NONE && s->kind < S_KINDS) writers[s->kind](b, s);
  kip_buf_addc(b, '}');
}

void kip_ast_write(kip_buf *b, const ast_command *cmd) {
  kip_buf_adds(b, "{\"statements\":[");
  for (int i = 0; i < cmd->n; i++) {
    if (i) kip_buf_addc(b, ',');
    w_stmt(b, cmd->stmts[i]);
  }
  kip_buf_printf(b, "],\"kml\":%s}", cmd->is_kml ? "true" : "false");
}

/* Parse a command with its parameters (JSON object text or NULL) and
** return {"result": <render(cmd)>} or {"error": {...}}: the shape of
** kip_parse_json and kip_describe_json. */
char *kip_parsed_json(const char *command, size_t len, const char *params_json,
                      void (*render)(kip_buf *b, const ast_command *cmd, const json_t *params)) {
  kip_error err;
  kip_err_clear(&err);
  kip_buf b;
  kip_buf_init(&b);
  json_t *params = NULL;
  if (params_json && *params_json) {
    params = kip_json_parse(params_json, strlen(params_json), &err);
    if (params && !json_is_object(params))
      kip_err(&err, KIP_E_SYNTAX, NULL, "parameters must be a JSON object");
  }
  if (!err.code) {
    kip_arena a;
    kip_arena_init(&a);
    ast_command *cmd = kip_parse(&a, command, len, params, &err);
    if (cmd) {
      kip_buf_adds(&b, "{\"result\":");
      render(&b, cmd, params);
      kip_buf_addc(&b, '}');
    }
    kip_arena_free(&a);
  }
  if (err.code) {
    kip_buf_adds(&b, "{\"error\":");
    kip_json_write_error(&b, &err);
    kip_buf_addc(&b, '}');
  }
  json_decref(params);
  return kip_buf_detach(&b);
}
