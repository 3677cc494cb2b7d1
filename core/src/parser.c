/*
** parser.c — hand-written recursive-descent parser for the whole KIP grammar
** (RC11 §3–§5): KQL FIND, KML UPSERT/UPDATE/MERGE/DELETE, META
** DESCRIBE/SEARCH/EXPORT. Produces the AST of kipint.h with source positions.
** Parameter placeholders (:name) are substituted as values in value positions
** of the token stream — never by text splicing. Errors: KIP_1001 (syntax),
** KIP_1002 (identifier), KIP_3001 (missing parameter), with line and column.
** Never recurses deeper than KIP_MAX_NESTING.
*/
#include "statement_ext.h"
#include "lexer.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct parser {
  kip_arena *a;
  kip_tok *t;
  size_t n, i;
  const json_t *params;
  kip_error *err;
  int depth;
  int failed;
  int scope; /* parsing a governance scope: placeholders bound to null are refused */
  int placeholders; /* placeholders taken whose value is not true, false or null */
} parser;

#define FAILED(P) ((P)->failed)

static kip_tok *peek(parser *P) { return &P->t[P->i]; }
static kip_tok *peek2(parser *P) { return &P->t[P->i + 1 < P->n ? P->i + 1 : P->n - 1]; }
static kip_tok *next(parser *P) {
  kip_tok *t = &P->t[P->i];
  if (P->i + 1 < P->n) P->i++;
  return t;
}

static int is_kw(const kip_tok *t, const char *kw) {
  return t->kind == T_IDENT && strcmp(t->str, kw) == 0;
}

static void fail(parser *P, const kip_tok *t, int code, const char *hint, const char *fmt, ...)
    KIP_PRINTF(5, 6);
static void fail(parser *P, const kip_tok *t, int code, const char *hint, const char *fmt, ...) {
  if (P->failed) return;
  P->failed = 1;
  char msg[600];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  kip_err_at(P->err, code, t->pos.line, t->pos.col, hint, "%s", msg);
}

/* "expected X, found Y" */
static void expected(parser *P, const char *what, const char *hint) {
  kip_tok *t = peek(P);
  char d[128];
  kip_tok_describe(t, d, sizeof d);
  if (t->kind == T_BADIDENT) {
    fail(P, t, KIP_E_IDENTIFIER, NULL, "invalid identifier '%s': identifiers must not start with a digit",
         t->str);
    return;
  }
  fail(P, t, KIP_E_SYNTAX, hint, "expected %s, found %s", what, d);
}

static int accept(parser *P, int kind) {
  if (peek(P)->kind == kind) {
    next(P);
    return 1;
  }
  return 0;
}

static int expect(parser *P, int kind, const char *what, const char *hint) {
  if (P->failed) return 0;
  if (accept(P, kind)) return 1;
  expected(P, what, hint);
  return 0;
}

static int accept_kw(parser *P, const char *kw) {
  if (is_kw(peek(P), kw)) {
    next(P);
    return 1;
  }
  return 0;
}

static int expect_kw(parser *P, const char *kw, const char *hint) {
  if (P->failed) return 0;
  if (accept_kw(P, kw)) return 1;
  char what[64];
  kip_snprintf(what, sizeof what, "'%s'", kw);
  expected(P, what, hint);
  return 0;
}

static int enter(parser *P) {
  if (++P->depth > KIP_MAX_NESTING) {
    if (!P->failed) {
      P->failed = 1;
      kip_tok *t = peek(P);
      kip_err_at(P->err, KIP_E_RESOURCE, t->pos.line, t->pos.col,
                 "Flatten the command: nesting is limited to 64 levels.",
                 "nesting deeper than %d levels", KIP_MAX_NESTING);
    }
    return 0;
  }
  return 1;
}
static void leave(parser *P) { P->depth--; }

static void *grow(void *arr, int n, size_t sz, int *cap) {
  if (n < *cap) return arr;
  *cap = *cap ? *cap * 2 : 4;
  void *p = realloc(arr, (size_t)*cap * sz);
  if (!p) abort();
  return p;
}

/* copy a malloc'd array into the arena */
static void *to_arena(parser *P, void *arr, int n, size_t sz) {
  if (n == 0) {
    free(arr);
    return NULL;
  }
  void *p = kip_alloc(P->a, (size_t)n * sz);
  memcpy(p, arr, (size_t)n * sz);
  free(arr);
  return p;
}

/* ------------------------------------------------------------- placeholders */
/* In a value position, ':' immediately followed by an identifier is a
** parameter placeholder. */
static int at_placeholder(parser *P) {
  kip_tok *t = peek(P), *u = peek2(P);
  return t->kind == T_COLON && u->kind == T_IDENT && u->adjacent;
}

static json_t *take_placeholder(parser *P) {
  kip_tok *colon = next(P);
  kip_tok *name = next(P);
  json_t *v = P->params ? json_object_get(P->params, name->str) : NULL;
  if (!v) {
    P->failed = 1;
    kip_err_at(P->err, KIP_E_REFERENCE, colon->pos.line, colon->pos.col,
               "Supply it in the request's \"parameters\" object (or the command's own parameters).",
               "parameter ':%s' is not supplied", name->str);
    return NULL;
  }
  if (kip_json_has_nul(v)) {
    P->failed = 1;
    kip_err_at(P->err, KIP_E_SYNTAX, colon->pos.line, colon->pos.col,
               "Remove the NUL character; KIP strings cannot contain U+0000.",
               "parameter ':%s' contains a NUL character (U+0000)", name->str);
    return NULL;
  }
  if (P->scope && json_is_null(v)) {
    /* an unbound identity must never satisfy a scope (null == null holds) */
    P->failed = 1;
    kip_err_at(P->err, KIP_E_DENIED, colon->pos.line, colon->pos.col,
               "Bind an unknown identity to a value no element has (the pipeline uses \"C:0\"), never to null.",
               "scope parameter ':%s' is null: a scope must not depend on an unbound identity", name->str);
    return NULL;
  }
  json_incref(v);
  if (!json_is_true(v) && !json_is_false(v) && !json_is_null(v)) P->placeholders++; /* (see ast_command) */
  return kip_arena_own(P->a, v);
}

/* ------------------------------------------------------------- JSON values */
static json_t *parse_value(parser *P);

static json_t *parse_object(parser *P) {
  if (!enter(P)) return NULL;
  expect(P, T_LBRACE, "'{'", NULL);
  json_t *obj = kip_arena_own(P->a, json_object());
  while (!FAILED(P) && peek(P)->kind != T_RBRACE) {
    kip_tok *k = peek(P);
    const char *key;
    if (k->kind == T_STRING || k->kind == T_IDENT) {
      key = k->str;
      next(P);
    } else {
      expected(P, "an object key (identifier or \"string\")", NULL);
      break;
    }
    if (!expect(P, T_COLON, "':' after object key", "Object fields are written key: value.")) break;
    json_t *v = parse_value(P);
    if (!v) break;
    json_object_set(obj, key, v);
    if (!accept(P, T_COMMA)) break;
  }
  expect(P, T_RBRACE, "',' or '}' in object", NULL);
  leave(P);
  return FAILED(P) ? NULL : obj;
}

static json_t *parse_array(parser *P) {
  if (!enter(P)) return NULL;
  expect(P, T_LBRACK, "'['", NULL);
  json_t *arr = kip_arena_own(P->a, json_array());
  while (!FAILED(P) && peek(P)->kind != T_RBRACK) {
    json_t *v = parse_value(P);
    if (!v) break;
    json_array_append(arr, v);
    if (!accept(P, T_COMMA)) break;
  }
  expect(P, T_RBRACK, "',' or ']' in array", NULL);
  leave(P);
  return FAILED(P) ? NULL : arr;
}

static json_t *parse_value(parser *P) {
  if (FAILED(P)) return NULL;
  kip_tok *t = peek(P);
  switch (t->kind) {
    case T_LBRACE: return parse_object(P);
    case T_LBRACK: return parse_array(P);
    case T_STRING: next(P); return kip_arena_own(P->a, json_stringn(t->str, t->slen));
    case T_INT: next(P); return kip_arena_own(P->a, json_integer(t->ival));
    case T_REAL: next(P); return kip_arena_own(P->a, json_real(t->rval));
    case T_COLON:
      if (at_placeholder(P)) return take_placeholder(P);
      break;
    case T_IDENT:
      if (!strcmp(t->str, "true")) { next(P); return kip_arena_own(P->a, json_true()); }
      if (!strcmp(t->str, "false")) { next(P); return kip_arena_own(P->a, json_false()); }
      if (!strcmp(t->str, "null")) { next(P); return kip_arena_own(P->a, json_null()); }
      if (!strcmp(t->str, "ADD") || !strcmp(t->str, "MUL") || !strcmp(t->str, "CLAMP") ||
          !strcmp(t->str, "COALESCE")) {
        fail(P, t, KIP_E_SYNTAX, "Use UPDATE ... SET ATTRIBUTES { k: ADD(...) } for computed values.",
             "update expression %s(...) is only valid in UPDATE; UPSERT values are plain JSON", t->str);
        return NULL;
      }
      break;
    default: break;
  }
  expected(P, "a value (string, number, true/false/null, object, array or :placeholder)", NULL);
  return NULL;
}

static json_t *parse_string_value(parser *P, const char *what) {
  kip_tok *t = peek(P);
  json_t *v = parse_value(P);
  if (v && !json_is_string(v)) {
    fail(P, t, KIP_E_VALUE_TYPE, NULL, "%s must be a string", what);
    return NULL;
  }
  return v;
}

/* LIMIT n, EXPECT VERSION n: non-negative integer or placeholder */
static int parse_count(parser *P, const char *what, int64_t *out) {
  kip_tok *t = peek(P);
  json_t *v = NULL;
  if (t->kind == T_INT) {
    next(P);
    *out = t->ival;
  } else if (at_placeholder(P)) {
    v = take_placeholder(P);
    if (!v) return 0;
    if (json_is_integer(v)) *out = json_integer_value(v);
    else if (json_is_real(v) && json_real_value(v) == floor(json_real_value(v)) &&
             fabs(json_real_value(v)) < 9e15)
      *out = (int64_t)json_real_value(v);
    else {
      fail(P, t, KIP_E_VALUE_TYPE, NULL, "%s must be an integer", what);
      return 0;
    }
  } else {
    char w[96];
    snprintf(w, sizeof w, "an integer after %s", what);
    expected(P, w, NULL);
    return 0;
  }
  if (*out < 0) {
    fail(P, t, KIP_E_SYNTAX, NULL, "%s must not be negative", what);
    return 0;
  }
  return 1;
}

/* CURSOR "token" | :param (null parameter = no cursor) */
static json_t *parse_cursor(parser *P, kip_pos *pos) {
  kip_tok *t = peek(P);
  *pos = t->pos;
  json_t *v = parse_value(P);
  if (!v) return NULL;
  if (json_is_null(v)) return NULL;
  if (!json_is_string(v)) {
    fail(P, t, KIP_E_VALUE_TYPE, NULL, "CURSOR must be a string token from a previous next_cursor");
    return NULL;
  }
  return v;
}

/* ---------------------------------------------------------- concept clause */
static ast_concept *parse_concept(parser *P, const char *var, int upsert) {
  kip_tok *open = peek(P);
  ast_concept *c = kip_alloc(P->a, sizeof *c);
  c->pos = open->pos;
  c->var = var;
  if (!enter(P)) return NULL;
  expect(P, T_LBRACE, "'{'", NULL);
  while (!FAILED(P) && peek(P)->kind != T_RBRACE) {
    kip_tok *k = peek(P);
    if (k->kind == T_BADIDENT) {
      expected(P, "a key", NULL);
      break;
    }
    if (k->kind != T_IDENT && k->kind != T_STRING) {
      expected(P, "'id', 'type' or 'name'", NULL);
      break;
    }
    next(P);
    json_t **slot = NULL;
    if (!strcmp(k->str, "id")) slot = &c->id;
    else if (!strcmp(k->str, "type")) slot = &c->type;
    else if (!strcmp(k->str, "name")) slot = &c->name;
    else {
      fail(P, k, KIP_E_SYNTAX, "A concept clause is {type: \"T\", name: \"N\"} or {id: \"C:1\"}.",
           "unknown key '%s' in concept clause (allowed: id, type, name)", k->str);
      break;
    }
    if (!expect(P, T_COLON, "':'", NULL)) break;
    char what[64];
    kip_snprintf(what, sizeof what, "concept %s", k->str);
    json_t *v = parse_string_value(P, what);
    if (!v) break;
    if (*slot) {
      fail(P, k, KIP_E_SYNTAX, NULL, "duplicate key '%s' in concept clause", k->str);
      break;
    }
    *slot = v;
    if (!accept(P, T_COMMA)) break;
  }
  expect(P, T_RBRACE, "',' or '}' in concept clause", NULL);
  leave(P);
  if (FAILED(P)) return NULL;
  if (!c->id && !c->type && !c->name) {
    fail(P, open, KIP_E_SYNTAX, "Write {type: \"T\", name: \"N\"}, {type: \"T\"}, {name: \"N\"} or {id: \"C:1\"}.",
         "empty concept clause");
    return NULL;
  }
  if (upsert && !c->id && !(c->type && c->name)) {
    fail(P, open, KIP_E_SYNTAX, "UPSERT identifies a concept by {type: \"T\", name: \"N\"} or {id: \"C:1\"}.",
         "concept identity in UPSERT needs both type and name (or an id)");
    return NULL;
  }
  return c;
}

/* ------------------------------------------------------ proposition clause */
static ast_prop *parse_prop(parser *P, const char *var, int upsert);

static int parse_endpoint(parser *P, ast_endpoint *ep, int upsert) {
  kip_tok *t = peek(P);
  ep->pos = t->pos;
  if (t->kind == T_VAR) {
    next(P);
    kip_tok *u = peek(P);
    if ((u->kind == T_LBRACE || u->kind == T_LPAREN)) {
      fail(P, t, KIP_E_SYNTAX,
           "Bind the endpoint in its own clause first (?x {type: \"T\"}), then use ?x here.",
           "a variable cannot be attached to an embedded endpoint clause");
      return 0;
    }
    ep->kind = EP_VAR;
    ep->var = t->str;
    return 1;
  }
  if (t->kind == T_LBRACE) {
    ep->kind = EP_CONCEPT;
    ep->concept = parse_concept(P, NULL, upsert);
    return ep->concept != NULL;
  }
  if (t->kind == T_LPAREN) {
    ep->kind = EP_PROP;
    ep->prop = parse_prop(P, NULL, upsert);
    return ep->prop != NULL;
  }
  expected(P, upsert ? "an endpoint (?handle, {type, name}, {id} or (...))"
                     : "an endpoint (?var, {concept clause} or (proposition clause))",
           NULL);
  return 0;
}

static int parse_hops(parser *P, ast_pred *pr) {
  kip_tok *open = next(P); /* { */
  int64_t m = 0, n = -1;
  if (peek(P)->kind != T_INT) {
    expected(P, "a hop count", "Hop ranges are {m,n}, {m,} or {n}.");
    return 0;
  }
  m = next(P)->ival;
  if (accept(P, T_COMMA)) {
    if (peek(P)->kind == T_INT) n = next(P)->ival;
    else n = -1;
  } else {
    n = m;
  }
  if (!expect(P, T_RBRACE, "'}' closing the hop range", "Hop ranges are {m,n}, {m,} or {n}.")) return 0;
  if (m > 1000000 || n > 1000000 || (n >= 0 && n < m)) {
    fail(P, open, KIP_E_SYNTAX, "Write {m,n} with 0 <= m <= n.", "invalid hop range {%lld,%lld}",
         (long long)m, (long long)n);
    return 0;
  }
  pr->kind = PRED_HOPS;
  pr->min = (int)m;
  pr->max = (int)n;
  return 1;
}

static int parse_pred(parser *P, ast_pred *pr, int upsert) {
  kip_tok *t = peek(P);
  pr->pos = t->pos;
  if (t->kind == T_VAR) {
    if (upsert) {
      fail(P, t, KIP_E_SYNTAX, NULL, "a predicate variable is not allowed in UPSERT; write the predicate name");
      return 0;
    }
    next(P);
    pr->kind = PRED_VAR;
    pr->var = t->str;
    kip_tok *u = peek(P);
    if (u->kind == T_LBRACE || u->kind == T_PIPE) {
      fail(P, u, KIP_E_SYNTAX,
           "Hop ranges and alternatives apply to literal predicates only, e.g. \"follows\"{1,3}.",
           "predicate variable ?%s cannot carry %s", t->str,
           u->kind == T_LBRACE ? "a hop range" : "alternatives");
      return 0;
    }
    return 1;
  }
  const char *names[64];
  int nn = 0;
  for (;;) {
    kip_tok *s = peek(P);
    json_t *v = NULL;
    if (s->kind == T_STRING || at_placeholder(P)) {
      v = parse_string_value(P, "predicate");
      if (!v) return 0;
    } else if (s->kind == T_VAR && nn > 0) {
      fail(P, s, KIP_E_SYNTAX, NULL, "predicate variable cannot be used in alternatives");
      return 0;
    } else {
      expected(P, "a predicate (\"name\" or ?var)", NULL);
      return 0;
    }
    if (nn == 64) {
      fail(P, s, KIP_E_RESOURCE, NULL, "too many predicate alternatives (max 64)");
      return 0;
    }
    names[nn++] = kip_strndup(P->a, json_string_value(v), json_string_length(v));
    if (!accept(P, T_PIPE)) break;
    if (upsert) {
      fail(P, s, KIP_E_SYNTAX, NULL, "predicate alternatives are not allowed in UPSERT");
      return 0;
    }
  }
  pr->names = kip_alloc(P->a, (size_t)nn * sizeof *pr->names);
  memcpy(pr->names, names, (size_t)nn * sizeof *names);
  pr->nnames = nn;
  pr->kind = nn > 1 ? PRED_ALT : PRED_LITERAL;
  if (peek(P)->kind == T_LBRACE) {
    if (upsert || nn > 1) {
      fail(P, peek(P), KIP_E_SYNTAX, NULL, "a hop range is not allowed %s",
           upsert ? "in UPSERT" : "together with alternatives");
      return 0;
    }
    return parse_hops(P, pr);
  }
  return 1;
}

static ast_prop *parse_prop(parser *P, const char *var, int upsert) {
  kip_tok *open = peek(P);
  if (!enter(P)) return NULL;
  ast_prop *pr = kip_alloc(P->a, sizeof *pr);
  pr->pos = open->pos;
  pr->var = var;
  expect(P, T_LPAREN, "'('", NULL);
  if (is_kw(peek(P), "id") && peek2(P)->kind == T_COLON) {
    next(P);
    next(P);
    pr->id = parse_string_value(P, "proposition id");
  } else if (!FAILED(P)) {
    if (parse_endpoint(P, &pr->subject, upsert) &&
        expect(P, T_COMMA, "',' after the subject", "A proposition clause is (subject, \"predicate\", object).") &&
        parse_pred(P, &pr->pred, upsert) &&
        expect(P, T_COMMA, "',' after the predicate", "A proposition clause is (subject, \"predicate\", object)."))
      parse_endpoint(P, &pr->object, upsert);
  }
  expect(P, T_RPAREN, "')' closing the proposition clause", NULL);
  leave(P);
  return FAILED(P) ? NULL : pr;
}

/* ------------------------------------------------------------- expressions */
static ast_expr *new_expr(parser *P, int kind, kip_pos pos) {
  ast_expr *e = kip_alloc(P->a, sizeof *e);
  e->kind = kind;
  e->pos = pos;
  return e;
}

static const struct {
  const char *name;
  int field;
} fields[] = {{"id", F_ID},           {"type", F_TYPE},     {"name", F_NAME},
              {"subject", F_SUBJECT}, {"predicate", F_PREDICATE}, {"object", F_OBJECT},
              {"attributes", F_ATTRS}, {"metadata", F_META}};

/* ?var [. field [. key]] */
static ast_expr *parse_path(parser *P) {
  kip_tok *v = next(P);
  if (!accept(P, T_DOT)) {
    ast_expr *e = new_expr(P, E_VAR, v->pos);
    e->var = v->str;
    return e;
  }
  kip_tok *f = peek(P);
  if (f->kind != T_IDENT) {
    expected(P, "a field after '.' (id, type, name, subject, predicate, object, attributes, metadata)", NULL);
    return NULL;
  }
  next(P);
  ast_expr *e = new_expr(P, E_PATH, v->pos);
  e->var = v->str;
  for (size_t i = 0; i < sizeof fields / sizeof fields[0]; i++)
    if (!strcmp(fields[i].name, f->str)) e->field = fields[i].field;
  if (!e->field) {
    fail(P, f, KIP_E_SYNTAX,
         "Dot paths are ?x.id, ?x.type, ?x.name, ?x.subject, ?x.predicate, ?x.object, ?x.attributes.<key>, ?x.metadata.<key>.",
         "unknown field '%s' in ?%s.%s", f->str, v->str, f->str);
    return NULL;
  }
  if ((e->field == F_ATTRS || e->field == F_META) && accept(P, T_DOT)) {
    kip_tok *k = peek(P);
    if (k->kind == T_IDENT || k->kind == T_STRING) {
      next(P);
      e->key = k->str;
    } else {
      expected(P, "an attribute or metadata key after '.'", NULL);
      return NULL;
    }
  }
  if (peek(P)->kind == T_DOT) {
    fail(P, peek(P), KIP_E_SYNTAX, "Project the whole value (?x.attributes.key) and navigate it client-side.",
         "nested paths below ?%s.%s are not supported", v->str, f->str);
    return NULL;
  }
  return e;
}

static ast_expr *parse_expr(parser *P);

static const struct {
  const char *name;
  int fn, minargs, maxargs;
} funcs[] = {{"IN", FN_IN, 2, 2},           {"IS_NULL", FN_IS_NULL, 1, 1},
             {"IS_NOT_NULL", FN_IS_NOT_NULL, 1, 1}, {"CONTAINS", FN_CONTAINS, 2, 2},
             {"STARTS_WITH", FN_STARTS_WITH, 2, 2}, {"ENDS_WITH", FN_ENDS_WITH, 2, 2},
             {"REGEX", FN_REGEX, 2, 2}};

static const struct {
  const char *name;
  int agg;
} aggs[] = {{"COUNT", AGG_COUNT}, {"SUM", AGG_SUM}, {"AVG", AGG_AVG}, {"MIN", AGG_MIN}, {"MAX", AGG_MAX}};

static ast_expr *parse_call_args(parser *P, ast_expr *e, int minargs, int maxargs, const char *name,
                                 ast_expr *(*arg)(parser *)) {
  expect(P, T_LPAREN, "'('", NULL);
  ast_expr **args = NULL;
  int n = 0, cap = 0;
  while (!FAILED(P) && peek(P)->kind != T_RPAREN) {
    ast_expr *x = arg(P);
    if (!x) break;
    args = grow(args, n, sizeof *args, &cap);
    args[n++] = x;
    if (!accept(P, T_COMMA)) break;
  }
  expect(P, T_RPAREN, "',' or ')' in argument list", NULL);
  e->args = to_arena(P, args, n, sizeof *args);
  e->nargs = n;
  if (!FAILED(P) && (n < minargs || n > maxargs))
    fail(P, peek(P), KIP_E_SYNTAX, NULL, "%s takes %d argument%s, got %d", name, minargs,
         minargs == 1 ? "" : "s", n);
  return FAILED(P) ? NULL : e;
}

static ast_expr *parse_primary(parser *P) {
  kip_tok *t = peek(P);
  if (t->kind == T_LPAREN) {
    next(P);
    ast_expr *e = parse_expr(P);
    expect(P, T_RPAREN, "')'", NULL);
    return FAILED(P) ? NULL : e;
  }
  if (t->kind == T_VAR) return parse_path(P);
  if (t->kind == T_IDENT && peek2(P)->kind == T_LPAREN) {
    for (size_t i = 0; i < sizeof funcs / sizeof funcs[0]; i++)
      if (!strcmp(funcs[i].name, t->str)) {
        next(P);
        ast_expr *e = new_expr(P, E_FUNC, t->pos);
        e->op = funcs[i].fn;
        return parse_call_args(P, e, funcs[i].minargs, funcs[i].maxargs, funcs[i].name, parse_expr);
      }
    fail(P, t, KIP_E_SYNTAX,
         "FILTER functions: IN, IS_NULL, IS_NOT_NULL, CONTAINS, STARTS_WITH, ENDS_WITH, REGEX.",
         "unknown function '%s'", t->str);
    return NULL;
  }
  json_t *v = parse_value(P);
  if (!v) return NULL;
  ast_expr *e = new_expr(P, E_LIT, t->pos);
  e->lit = v;
  return e;
}

static ast_expr *parse_unary(parser *P) {
  kip_tok *t = peek(P);
  if (t->kind == T_BANG) {
    next(P);
    if (!enter(P)) return NULL;
    ast_expr *x = parse_unary(P);
    leave(P);
    if (!x) return NULL;
    ast_expr *e = new_expr(P, E_NOT, t->pos);
    e->args = kip_alloc(P->a, sizeof *e->args);
    e->args[0] = x;
    e->nargs = 1;
    return e;
  }
  ast_expr *l = parse_primary(P);
  if (!l) return NULL;
  int op = 0;
  switch (peek(P)->kind) {
    case T_EQ: op = OP_EQ; break;
    case T_NE: op = OP_NE; break;
    case T_LT: op = OP_LT; break;
    case T_LE: op = OP_LE; break;
    case T_GT: op = OP_GT; break;
    case T_GE: op = OP_GE; break;
    default: return l;
  }
  kip_tok *ot = next(P);
  ast_expr *r = parse_primary(P);
  if (!r) return NULL;
  ast_expr *e = new_expr(P, E_BIN, ot->pos);
  e->op = op;
  e->args = kip_alloc(P->a, 2 * sizeof *e->args);
  e->args[0] = l;
  e->args[1] = r;
  e->nargs = 2;
  return e;
}

static ast_expr *parse_binary_chain(parser *P, int tok, int op, ast_expr *(*sub)(parser *)) {
  ast_expr *l = sub(P);
  int terms = 1;
  while (l && peek(P)->kind == tok) {
    kip_tok *ot = next(P);
    if (++terms > KIP_MAX_CHAIN_TERMS) { /* the tree is left-deep: this bounds its depth */
      fail(P, ot, KIP_E_RESOURCE, "Split the filter, or test membership with IN(?x.name, [...]).",
           "more than %d operands joined by '%s' in one expression", KIP_MAX_CHAIN_TERMS, op == OP_AND ? "&&" : "||");
      return NULL;
    }
    ast_expr *r = sub(P);
    if (!r) return NULL;
    ast_expr *e = new_expr(P, E_BIN, ot->pos);
    e->op = op;
    e->args = kip_alloc(P->a, 2 * sizeof *e->args);
    e->args[0] = l;
    e->args[1] = r;
    e->nargs = 2;
    l = e;
  }
  return l;
}

static ast_expr *parse_and(parser *P) { return parse_binary_chain(P, T_AND, OP_AND, parse_unary); }

static ast_expr *parse_expr(parser *P) {
  if (!enter(P)) return NULL;
  ast_expr *e = parse_binary_chain(P, T_OR, OP_OR, parse_and);
  leave(P);
  return e;
}

/* FIND / ORDER BY item: ?v, ?v.path, AGG([DISTINCT] ?v[.path]) */
static ast_expr *parse_projection(parser *P) {
  kip_tok *t = peek(P);
  if (t->kind == T_VAR) return parse_path(P);
  if (t->kind == T_IDENT) {
    for (size_t i = 0; i < sizeof aggs / sizeof aggs[0]; i++)
      if (!strcmp(aggs[i].name, t->str)) {
        next(P);
        ast_expr *e = new_expr(P, E_AGG, t->pos);
        e->op = aggs[i].agg;
        if (!expect(P, T_LPAREN, "'(' after aggregate", NULL)) return NULL;
        if (accept_kw(P, "DISTINCT")) e->distinct = 1;
        if (peek(P)->kind != T_VAR) {
          expected(P, "a variable or dot path inside the aggregate", NULL);
          return NULL;
        }
        ast_expr *x = parse_path(P);
        if (!x) return NULL;
        e->args = kip_alloc(P->a, sizeof *e->args);
        e->args[0] = x;
        e->nargs = 1;
        if (!expect(P, T_RPAREN, "')' closing the aggregate", NULL)) return NULL;
        return e;
      }
  }
  if (t->kind == T_BADIDENT) {
    expected(P, "a variable", NULL);
    return NULL;
  }
  expected(P, "a variable (?x), a dot path (?x.name) or an aggregate (COUNT(?x))", NULL);
  return NULL;
}

/* ------------------------------------------------------------- WHERE group */
static ast_group *parse_group(parser *P) {
  kip_tok *open = peek(P);
  if (!enter(P)) return NULL;
  if (!expect(P, T_LBRACE, "'{' opening the pattern block", NULL)) {
    leave(P);
    return NULL;
  }
  ast_group *g = kip_alloc(P->a, sizeof *g);
  g->pos = open->pos;
  ast_where **items = NULL;
  int n = 0, cap = 0;
  while (!FAILED(P) && peek(P)->kind != T_RBRACE) {
    kip_tok *t = peek(P);
    ast_where *w = kip_alloc(P->a, sizeof *w);
    w->pos = t->pos;
    if (t->kind == T_VAR) {
      kip_tok *u = peek2(P);
      if (u->kind == T_LBRACE) {
        next(P);
        w->kind = W_CONCEPT;
        w->concept = parse_concept(P, t->str, 0);
      } else if (u->kind == T_LPAREN) {
        next(P);
        w->kind = W_PROP;
        w->prop = parse_prop(P, t->str, 0);
      } else {
        next(P);
        expected(P, "'{' or '(' after the variable",
                 "Bind a variable with ?x {type: \"T\"} or ?l (?s, \"p\", ?o).");
      }
    } else if (t->kind == T_LBRACE) {
      w->kind = W_CONCEPT;
      w->concept = parse_concept(P, NULL, 0);
    } else if (t->kind == T_LPAREN) {
      w->kind = W_PROP;
      w->prop = parse_prop(P, NULL, 0);
    } else if (is_kw(t, "FILTER")) {
      next(P);
      w->kind = W_FILTER;
      if (expect(P, T_LPAREN, "'(' after FILTER", NULL)) {
        w->filter = parse_expr(P);
        expect(P, T_RPAREN, "')' closing FILTER", NULL);
      }
    } else if (is_kw(t, "OPTIONAL") || is_kw(t, "NOT") || is_kw(t, "UNION")) {
      next(P);
      w->kind = is_kw(t, "OPTIONAL") ? W_OPTIONAL : is_kw(t, "NOT") ? W_NOT : W_UNION;
      w->group = parse_group(P);
    } else {
      expected(P, "a pattern (?x {...}, (...), FILTER, OPTIONAL, NOT, UNION) or '}'", NULL);
    }
    if (FAILED(P)) break;
    items = grow(items, n, sizeof *items, &cap);
    items[n++] = w;
  }
  expect(P, T_RBRACE, "'}' closing the pattern block", NULL);
  leave(P);
  g->items = to_arena(P, items, n, sizeof *items);
  g->n = n;
  return FAILED(P) ? NULL : g;
}

static int parse_where(parser *P, ast_group **out) {
  if (!expect_kw(P, "WHERE", "Every query and bulk statement needs WHERE { ... }.")) return 0;
  *out = parse_group(P);
  return *out != NULL;
}

/* [LIMIT n] [CURSOR c] in any order */
static void parse_limit_cursor(parser *P, int64_t *limit, json_t **cursor, int allow_cursor) {
  for (;;) {
    if (is_kw(peek(P), "LIMIT")) {
      next(P);
      if (!parse_count(P, "LIMIT", limit)) return;
    } else if (allow_cursor && is_kw(peek(P), "CURSOR")) {
      next(P);
      kip_pos pos;
      *cursor = parse_cursor(P, &pos);
      if (FAILED(P)) return;
    } else {
      return;
    }
  }
}

/* ---------------------------------------------------------------- FIND */
static void parse_find(parser *P, ast_stmt *s) {
  ast_find *f = &s->u.find;
  f->limit = -1;
  expect(P, T_LPAREN, "'(' after FIND", "FIND(?x, ?y.name) WHERE { ... }");
  ast_expr **proj = NULL;
  int n = 0, cap = 0;
  while (!FAILED(P) && peek(P)->kind != T_RPAREN) {
    ast_expr *e = parse_projection(P);
    if (!e) break;
    proj = grow(proj, n, sizeof *proj, &cap);
    proj[n++] = e;
    if (!accept(P, T_COMMA)) break;
  }
  if (!FAILED(P) && n == 0) {
    fail(P, peek(P), KIP_E_SYNTAX, "List at least one variable: FIND(?x) WHERE { ... }.",
         "FIND needs at least one expression");
  }
  expect(P, T_RPAREN, "',' or ')' after FIND expression", NULL);
  f->proj = to_arena(P, proj, n, sizeof *proj);
  f->nproj = n;
  if (FAILED(P)) return;
  if (!parse_where(P, &f->where)) return;
  if (is_kw(peek(P), "ORDER")) {
    next(P);
    if (!expect_kw(P, "BY", "ORDER BY ?x.name ASC")) return;
    ast_order *ord = NULL;
    int no = 0, co = 0;
    do {
      ast_expr *e = parse_projection(P);
      if (!e) break;
      ord = grow(ord, no, sizeof *ord, &co);
      ord[no].expr = e;
      ord[no].desc = 0;
      if (accept_kw(P, "DESC")) ord[no].desc = 1;
      else accept_kw(P, "ASC");
      no++;
    } while (accept(P, T_COMMA));
    f->order = to_arena(P, ord, no, sizeof *ord);
    f->norder = no;
  }
  if (FAILED(P)) return;
  parse_limit_cursor(P, &f->limit, &f->cursor, 1);
}

/* -------------------------------------------------------------- UPSERT */
static json_t *parse_with_metadata(parser *P) {
  /* caller has seen WITH */
  next(P);
  if (!expect_kw(P, "METADATA", "WITH METADATA { source: \"...\" }")) return NULL;
  if (peek(P)->kind == T_COLON && at_placeholder(P)) {
    kip_tok *t = peek(P);
    json_t *v = parse_value(P);
    if (v && !json_is_object(v)) {
      fail(P, t, KIP_E_VALUE_TYPE, NULL, "WITH METADATA parameter must be an object");
      return NULL;
    }
    return v;
  }
  return parse_object(P);
}

static json_t *parse_attr_object(parser *P, const char *what) {
  if (at_placeholder(P)) {
    kip_tok *t = peek(P);
    json_t *v = parse_value(P);
    if (v && !json_is_object(v)) {
      fail(P, t, KIP_E_VALUE_TYPE, NULL, "%s parameter must be an object", what);
      return NULL;
    }
    return v;
  }
  return parse_object(P);
}

static void parse_set_propositions(parser *P, ast_block *b) {
  expect(P, T_LBRACE, "'{' after SET PROPOSITIONS", NULL);
  ast_setprop *items = NULL;
  int n = 0, cap = 0;
  while (!FAILED(P) && peek(P)->kind != T_RBRACE) {
    kip_tok *open = peek(P);
    if (!expect(P, T_LPAREN, "'(' starting a (\"predicate\", target) item",
                "SET PROPOSITIONS { (\"predicate\", ?handle) }"))
      break;
    items = grow(items, n, sizeof *items, &cap);
    ast_setprop *sp = &items[n++];
    memset(sp, 0, sizeof *sp);
    sp->pos = open->pos;
    sp->pred = parse_string_value(P, "predicate");
    if (!sp->pred) break;
    if (!expect(P, T_COMMA, "',' after the predicate", NULL)) break;
    if (!parse_endpoint(P, &sp->target, 1)) break;
    if (!expect(P, T_RPAREN, "')' closing the item", NULL)) break;
    if (is_kw(peek(P), "WITH")) sp->meta = parse_with_metadata(P);
    accept(P, T_COMMA);
  }
  expect(P, T_RBRACE, "'}' closing SET PROPOSITIONS", NULL);
  b->props = to_arena(P, items, n, sizeof *items);
  b->nprops = n;
}

static ast_block *parse_block(parser *P) {
  kip_tok *t = peek(P);
  ast_block *b = kip_alloc(P->a, sizeof *b);
  b->pos = t->pos;
  b->kind = is_kw(t, "CONCEPT") ? B_CONCEPT : B_PROP;
  next(P);
  if (peek(P)->kind == T_VAR) b->handle = next(P)->str;
  else if (b->kind == B_CONCEPT) {
    expected(P, "a handle (?name) after CONCEPT", "CONCEPT ?drug { {type: \"Drug\", name: \"Aspirin\"} ... }");
    return NULL;
  }
  if (!enter(P)) return NULL;
  expect(P, T_LBRACE, "'{' opening the block", NULL);
  if (FAILED(P)) return NULL;
  if (b->kind == B_CONCEPT) {
    if (peek(P)->kind != T_LBRACE) {
      expected(P, "the concept identity {type: \"T\", name: \"N\"} or {id: \"C:1\"}", NULL);
      return NULL;
    }
    b->concept = parse_concept(P, b->handle, 1);
  } else {
    if (peek(P)->kind != T_LPAREN) {
      expected(P, "the proposition identity (subject, \"predicate\", object) or (id: \"P:1\")", NULL);
      return NULL;
    }
    b->prop = parse_prop(P, b->handle, 1);
  }
  if (FAILED(P)) return NULL;
  if (is_kw(peek(P), "EXPECT")) {
    next(P);
    b->expect_pos = peek(P)->pos;
    if (expect_kw(P, "VERSION", "EXPECT VERSION <n>") && parse_count(P, "EXPECT VERSION", &b->expect))
      b->has_expect = 1;
  }
  int seen_attrs = 0, seen_props = 0;
  while (!FAILED(P) && is_kw(peek(P), "SET")) {
    kip_tok *set = next(P);
    if (is_kw(peek(P), "ATTRIBUTES")) {
      next(P);
      if (seen_attrs++) {
        fail(P, set, KIP_E_SYNTAX, "Merge both into one SET ATTRIBUTES block.", "duplicate SET ATTRIBUTES");
        break;
      }
      b->attrs = parse_attr_object(P, "SET ATTRIBUTES");
    } else if (b->kind == B_CONCEPT && is_kw(peek(P), "PROPOSITIONS")) {
      next(P);
      if (seen_props++) {
        fail(P, set, KIP_E_SYNTAX, "Merge both into one SET PROPOSITIONS block.", "duplicate SET PROPOSITIONS");
        break;
      }
      parse_set_propositions(P, b);
    } else {
      expected(P, b->kind == B_CONCEPT ? "ATTRIBUTES or PROPOSITIONS after SET" : "ATTRIBUTES after SET",
               b->kind == B_PROP ? "A PROPOSITION block only takes SET ATTRIBUTES." : NULL);
    }
  }
  if (!FAILED(P) && is_kw(peek(P), "EXPECT"))
    fail(P, peek(P), KIP_E_SYNTAX, "Place EXPECT VERSION right after the identity clause.",
         "EXPECT VERSION must come before SET clauses");
  expect(P, T_RBRACE, "'}' closing the block (or SET ATTRIBUTES / SET PROPOSITIONS)", NULL);
  leave(P);
  if (FAILED(P)) return NULL;
  if (is_kw(peek(P), "WITH")) b->meta = parse_with_metadata(P);
  return FAILED(P) ? NULL : b;
}

/* handles are unique within a statement: sorted by (handle, position), so a
** load of thousands of blocks is checked in O(n log n); the reported
** duplicate is the earliest block whose handle an earlier block already
** took */
typedef struct handle_ix {
  const char *handle;
  int i;
} handle_ix;

static int cmp_handle_ix(const void *a, const void *b) {
  const handle_ix *x = a, *y = b;
  int c = strcmp(x->handle, y->handle);
  return c ? c : (x->i > y->i) - (x->i < y->i);
}

static void check_unique_handles(parser *P, ast_upsert *u) {
  handle_ix *v = malloc(sizeof *v * (size_t)(u->n ? u->n : 1));
  if (!v) abort();
  int m = 0;
  for (int i = 0; i < u->n; i++)
    if (u->blocks[i]->handle) v[m++] = (handle_ix){u->blocks[i]->handle, i};
  qsort(v, (size_t)m, sizeof *v, cmp_handle_ix);
  int dup = -1, first = -1;
  for (int k = 1; k < m; k++)
    if (!strcmp(v[k].handle, v[k - 1].handle) && (k < 2 || strcmp(v[k].handle, v[k - 2].handle)) &&
        (dup < 0 || v[k].i < dup)) {
      dup = v[k].i;
      first = v[k - 1].i;
    }
  free(v);
  if (dup < 0) return;
  kip_tok fake = {0};
  fake.pos = u->blocks[dup]->pos;
  fail(P, &fake, KIP_E_REFERENCE, "Give each block its own handle name.",
       "handle ?%s is defined twice in one UPSERT (first at line %d)", u->blocks[dup]->handle,
       u->blocks[first]->pos.line);
}

static void parse_upsert(parser *P, ast_stmt *s) {
  ast_upsert *u = &s->u.upsert;
  expect(P, T_LBRACE, "'{' after UPSERT", "UPSERT { CONCEPT ?x { ... } }");
  ast_block **blocks = NULL;
  int n = 0, cap = 0;
  while (!FAILED(P) && peek(P)->kind != T_RBRACE) {
    kip_tok *t = peek(P);
    if (!is_kw(t, "CONCEPT") && !is_kw(t, "PROPOSITION")) {
      expected(P, "CONCEPT, PROPOSITION or '}'", NULL);
      break;
    }
    ast_block *b = parse_block(P);
    if (!b) break;
    blocks = grow(blocks, n, sizeof *blocks, &cap);
    blocks[n++] = b;
  }
  expect(P, T_RBRACE, "'}' closing UPSERT", NULL);
  u->blocks = to_arena(P, blocks, n, sizeof *blocks);
  u->n = n;
  if (!FAILED(P) && is_kw(peek(P), "WITH")) u->meta = parse_with_metadata(P);
  if (!FAILED(P)) check_unique_handles(P, u);
}

/* -------------------------------------------------------------- UPDATE */
static ast_expr *parse_update_value(parser *P);

static ast_expr *parse_update_value(parser *P) {
  kip_tok *t = peek(P);
  if (!enter(P)) return NULL;
  ast_expr *e = NULL;
  static const struct {
    const char *name;
    int fn, nargs;
  } ufn[] = {{"ADD", FN_ADD, 2}, {"MUL", FN_MUL, 2}, {"CLAMP", FN_CLAMP, 3}, {"COALESCE", FN_COALESCE, 2}};
  if (t->kind == T_IDENT && peek2(P)->kind == T_LPAREN) {
    for (size_t i = 0; i < 4; i++)
      if (!strcmp(ufn[i].name, t->str)) {
        next(P);
        e = new_expr(P, E_FUNC, t->pos);
        e->op = ufn[i].fn;
        e = parse_call_args(P, e, ufn[i].nargs, ufn[i].nargs, ufn[i].name, parse_update_value);
        leave(P);
        return e;
      }
    fail(P, t, KIP_E_SYNTAX, "Update expressions: ADD(a, b), MUL(a, b), CLAMP(x, lo, hi), COALESCE(x, default).",
         "unknown update function '%s'", t->str);
  } else if (t->kind == T_VAR) {
    e = parse_path(P);
  } else {
    json_t *v = parse_value(P);
    if (v) {
      e = new_expr(P, E_LIT, t->pos);
      e->lit = v;
    }
  }
  leave(P);
  return FAILED(P) ? NULL : e;
}

static int check_update_paths(parser *P, ast_expr *e, const char *target) {
  if (!e) return 1;
  if (e->kind == E_VAR || e->kind == E_PATH) {
    if (strcmp(e->var, target) != 0) {
      kip_tok fake = {0};
      fake.pos = e->pos;
      fail(P, &fake, KIP_E_REFERENCE,
           "Update operands may only read the target's own state (e.g. ?t.metadata.confidence).",
           "update expression reads ?%s, but only paths on ?%s are allowed", e->var, target);
      return 0;
    }
    if (e->kind == E_VAR || !e->key || (e->field != F_ATTRS && e->field != F_META)) {
      kip_tok fake = {0};
      fake.pos = e->pos;
      fail(P, &fake, KIP_E_SYNTAX, "Use ?t.attributes.<key> or ?t.metadata.<key>.",
           "update operands must be attribute or metadata paths on ?%s", target);
      return 0;
    }
  }
  for (int i = 0; i < e->nargs; i++)
    if (!check_update_paths(P, e->args[i], target)) return 0;
  return 1;
}

static void parse_assignments(parser *P, ast_assign **out, int *nout, const char *target) {
  expect(P, T_LBRACE, "'{'", NULL);
  ast_assign *items = NULL;
  int n = 0, cap = 0;
  while (!FAILED(P) && peek(P)->kind != T_RBRACE) {
    kip_tok *k = peek(P);
    if (k->kind != T_IDENT && k->kind != T_STRING) {
      expected(P, "a key", NULL);
      break;
    }
    next(P);
    if (!expect(P, T_COLON, "':'", NULL)) break;
    ast_expr *e = parse_update_value(P);
    if (!e || !check_update_paths(P, e, target)) break;
    items = grow(items, n, sizeof *items, &cap);
    items[n].pos = k->pos;
    items[n].key = k->str;
    items[n].expr = e;
    n++;
    if (!accept(P, T_COMMA)) break;
  }
  expect(P, T_RBRACE, "',' or '}'", NULL);
  *out = to_arena(P, items, n, sizeof *items);
  *nout = n;
}

static void parse_update(parser *P, ast_stmt *s) {
  ast_update *u = &s->u.update;
  u->limit = -1;
  kip_tok *t = peek(P);
  if (t->kind != T_VAR) {
    expected(P, "the target variable after UPDATE", "UPDATE ?x SET ATTRIBUTES { ... } WHERE { ... }");
    return;
  }
  next(P);
  u->target = t->str;
  u->target_pos = t->pos;
  while (!FAILED(P) && is_kw(peek(P), "SET")) {
    kip_tok *set = next(P);
    if (accept_kw(P, "ATTRIBUTES")) {
      if (u->has_attrs++) fail(P, set, KIP_E_SYNTAX, NULL, "duplicate SET ATTRIBUTES");
      else parse_assignments(P, &u->attrs, &u->nattrs, u->target);
    } else if (accept_kw(P, "METADATA")) {
      if (u->has_meta++) fail(P, set, KIP_E_SYNTAX, NULL, "duplicate SET METADATA");
      else parse_assignments(P, &u->meta, &u->nmeta, u->target);
    } else {
      expected(P, "ATTRIBUTES or METADATA after SET", NULL);
    }
  }
  if (FAILED(P)) return;
  if (!u->has_attrs && !u->has_meta) {
    expected(P, "SET ATTRIBUTES or SET METADATA", "UPDATE ?x SET ATTRIBUTES { k: v } WHERE { ... }");
    return;
  }
  if (!parse_where(P, &u->where)) return;
  parse_limit_cursor(P, &u->limit, NULL, 0);
}

/* --------------------------------------------------------------- MERGE */
static void parse_merge(parser *P, ast_stmt *s) {
  ast_merge *m = &s->u.merge;
  if (!expect_kw(P, "CONCEPT", "MERGE CONCEPT ?source INTO ?target WHERE { ... }")) return;
  kip_tok *a = peek(P);
  if (!expect(P, T_VAR, "the source variable", NULL)) return;
  m->source = a->str;
  m->source_pos = a->pos;
  if (!expect_kw(P, "INTO", "MERGE CONCEPT ?source INTO ?target WHERE { ... }")) return;
  kip_tok *b = peek(P);
  if (!expect(P, T_VAR, "the target variable", NULL)) return;
  m->target = b->str;
  m->target_pos = b->pos;
  parse_where(P, &m->where);
}

/* -------------------------------------------------------------- DELETE */
static void parse_delete(parser *P, ast_stmt *s) {
  ast_delete *d = &s->u.del;
  kip_tok *t = peek(P);
  if (accept_kw(P, "ATTRIBUTES")) d->what = DEL_ATTRIBUTES;
  else if (accept_kw(P, "METADATA")) d->what = DEL_METADATA;
  else if (accept_kw(P, "PROPOSITIONS")) d->what = DEL_PROPOSITIONS;
  else if (accept_kw(P, "CONCEPT")) d->what = DEL_CONCEPT;
  else {
    expected(P, "ATTRIBUTES, METADATA, PROPOSITIONS or CONCEPT after DELETE", NULL);
    return;
  }
  (void)t;
  if (d->what == DEL_ATTRIBUTES || d->what == DEL_METADATA) {
    expect(P, T_LBRACE, "'{' with the keys to delete", "DELETE ATTRIBUTES {\"key\"} FROM ?x WHERE { ... }");
    const char **keys = NULL;
    int n = 0, cap = 0;
    while (!FAILED(P) && peek(P)->kind != T_RBRACE) {
      kip_tok *k = peek(P);
      const char *key = NULL;
      if (k->kind == T_IDENT) {
        next(P);
        key = k->str;
      } else {
        json_t *v = parse_string_value(P, "key");
        if (!v) break;
        key = kip_strndup(P->a, json_string_value(v), json_string_length(v));
      }
      keys = grow(keys, n, sizeof *keys, &cap);
      keys[n++] = key;
      if (!accept(P, T_COMMA)) break;
    }
    expect(P, T_RBRACE, "',' or '}'", NULL);
    d->keys = to_arena(P, keys, n, sizeof *keys);
    d->nkeys = n;
    if (!expect_kw(P, "FROM", "DELETE ATTRIBUTES {\"key\"} FROM ?x WHERE { ... }")) return;
  }
  kip_tok *v = peek(P);
  if (!expect(P, T_VAR, "the target variable", NULL)) return;
  d->target = v->str;
  d->target_pos = v->pos;
  if (d->what == DEL_CONCEPT &&
      !expect_kw(P, "DETACH",
                 "DETACH is mandatory: DELETE CONCEPT ?x DETACH WHERE { ... } removes the node and all its links."))
    return;
  parse_where(P, &d->where);
}

/* ------------------------------------------------------------ DESCRIBE */
static void parse_describe(parser *P, ast_stmt *s) {
  ast_describe *d = &s->u.describe;
  d->limit = -1;
  const char *hint = "DESCRIBE PRIMER | DOMAINS | CONCEPT TYPES | CONCEPT TYPE \"T\" | PROPOSITION TYPES | PROPOSITION TYPE \"p\"";
  if (accept_kw(P, "PRIMER")) d->what = D_PRIMER;
  else if (accept_kw(P, "DOMAINS")) d->what = D_DOMAINS;
  else if (accept_kw(P, "CONCEPT") || is_kw(peek(P), "PROPOSITION")) {
    int prop = 0;
    if (accept_kw(P, "PROPOSITION")) prop = 1;
    if (accept_kw(P, "TYPES")) {
      d->what = prop ? D_PROP_TYPES : D_CONCEPT_TYPES;
      parse_limit_cursor(P, &d->limit, &d->cursor, 1);
    } else if (accept_kw(P, "TYPE")) {
      d->what = prop ? D_PROP_TYPE : D_CONCEPT_TYPE;
      d->name = parse_string_value(P, "type name");
    } else {
      expected(P, "TYPES or TYPE", hint);
    }
  } else {
    expected(P, "PRIMER, DOMAINS, CONCEPT or PROPOSITION after DESCRIBE", hint);
  }
}

/* -------------------------------------------------------------- SEARCH */
static void parse_search(parser *P, ast_stmt *s) {
  ast_search *q = &s->u.search;
  q->limit = -1;
  if (accept_kw(P, "PROPOSITION")) q->propositions = 1;
  else if (!expect_kw(P, "CONCEPT", "SEARCH CONCEPT \"term\" [WITH TYPE \"T\"] [LIMIT n]")) return;
  q->term = parse_string_value(P, "search term");
  while (!FAILED(P)) {
    kip_tok *t = peek(P);
    if (is_kw(t, "WITH")) {
      next(P);
      if (!expect_kw(P, "TYPE", "SEARCH CONCEPT \"term\" WITH TYPE \"T\"")) return;
      q->type = parse_string_value(P, "WITH TYPE");
    } else if (is_kw(t, "MODE")) {
      next(P);
      kip_tok *m = peek(P);
      q->mode = parse_string_value(P, "MODE");
      if (q->mode && strcmp(json_string_value(q->mode), "keyword") &&
          strcmp(json_string_value(q->mode), "semantic") && strcmp(json_string_value(q->mode), "hybrid"))
        fail(P, m, KIP_E_SYNTAX, "MODE is \"keyword\", \"semantic\" or \"hybrid\".", "unknown search mode \"%s\"",
             json_string_value(q->mode));
    } else if (is_kw(t, "THRESHOLD")) {
      next(P);
      kip_tok *v = peek(P);
      json_t *x = parse_value(P);
      if (!x) return;
      if (!json_is_number(x) || json_number_value(x) < 0 || json_number_value(x) > 1) {
        fail(P, v, KIP_E_VALUE_TYPE, NULL, "THRESHOLD must be a number between 0 and 1");
        return;
      }
      q->has_threshold = 1;
      q->threshold = json_number_value(x);
    } else if (is_kw(t, "LIMIT")) {
      next(P);
      parse_count(P, "LIMIT", &q->limit);
    } else {
      break;
    }
  }
}

/* -------------------------------------------------------------- EXPORT */
static void parse_export(parser *P, ast_stmt *s) {
  ast_export *x = &s->u.exp;
  x->limit = -1;
  kip_tok *v = peek(P);
  if (!expect(P, T_VAR, "the variable to export", "EXPORT ?x WHERE { ... }")) return;
  x->target = v->str;
  x->target_pos = v->pos;
  if (!parse_where(P, &x->where)) return;
  parse_limit_cursor(P, &x->limit, &x->cursor, 1);
}

/* ------------------------------------- helpers of kinds added from outside */
/* statement_ext.h: what a statement kind added from outside the tree parses with */
int kip_parse_accept(parser *P, const char *keyword) { return !P->failed && accept_kw(P, keyword); }
json_t *kip_parse_value(parser *P) { return P->failed ? NULL : parse_value(P); }
int kip_parse_end(parser *P) { return peek(P)->kind == T_EOF; }
void kip_parse_error(parser *P, const char *hint, const char *what) { expected(P, what, hint); }
void *kip_parse_alloc(parser *P, size_t n) { return kip_alloc(P->a, n); }

/* ----------------------------------------------------------- statements */
/* each statement kind's keyword, parser and whether it writes (statements.h) */
static const struct {
  const char *keyword;
  void (*parse)(parser *P, ast_stmt *s);
  int mutates;
} statements[S_KINDS] = {
#define KIP_STMT_PARSE(K, kw, fn, m) [S_##K] = {kw, parse_##fn, m},
    KIP_CORE_STATEMENTS(KIP_STMT_PARSE)
#undef KIP_STMT_PARSE
#define KIP_STMT_PARSE_EXT(K, kw, fn, m) [S_##K] = {kw, kip_parse_##fn, m},
    KIP_EXTENSION_STATEMENTS(KIP_STMT_PARSE_EXT)
#undef KIP_STMT_PARSE_EXT
};

const char *kip_statement_kind(int i, int *writes) {
  int k = S_NONE + 1 + i;
  if (i < 0 || k >= S_KINDS) return NULL;
  if (writes) *writes = statements[k].mutates;
  return statements[k].keyword;
}

const char *kip_stmt_kind_name(int kind) { return kind > S_NONE && kind < S_KINDS ? statements[kind].keyword : "?"; }

static int edit_distance(const char *a, const char *b) {
  int la = (int)strlen(a), lb = (int)strlen(b);
  if (la > 30 || lb > 30) return 99;
  int d[31][31];
  for (int i = 0; i <= la; i++) d[i][0] = i;
  for (int j = 0; j <= lb; j++) d[0][j] = j;
  for (int i = 1; i <= la; i++)
    for (int j = 1; j <= lb; j++) {
      int c = d[i - 1][j - 1] + (a[i - 1] != b[j - 1]);
      if (d[i - 1][j] + 1 < c) c = d[i - 1][j] + 1;
      if (d[i][j - 1] + 1 < c) c = d[i][j - 1] + 1;
      /* transposition */
      if (i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] && d[i - 2][j - 2] + 1 < c)
        c = d[i - 2][j - 2] + 1;
      d[i][j] = c;
    }
  return d[la][lb];
}

static ast_stmt *parse_stmt(parser *P) {
  kip_tok *t = peek(P);
  ast_stmt *s = kip_alloc(P->a, sizeof *s);
  s->pos = t->pos;
  for (int k = S_NONE + 1; k < S_KINDS; k++) {
    if (!is_kw(t, statements[k].keyword)) continue;
    next(P);
    s->kind = k;
    statements[k].parse(P, s);
    return FAILED(P) ? NULL : s;
  }
  char d[128];
  kip_tok_describe(t, d, sizeof d);
  if (t->kind == T_IDENT) {
    char up[64];
    size_t i;
    for (i = 0; i < sizeof up - 1 && t->str[i]; i++)
      up[i] = (t->str[i] >= 'a' && t->str[i] <= 'z') ? (char)(t->str[i] - 32) : t->str[i];
    up[i] = 0;
    int best = -1, bd = 3;
    for (int k = S_NONE + 1; k < S_KINDS; k++) {
      int dd = edit_distance(up, statements[k].keyword);
      if (dd < bd) {
        bd = dd;
        best = k;
      }
    }
    if (best >= 0) {
      char hint[160];
      snprintf(hint, sizeof hint, "Did you mean %s? Keywords are upper-case.", statements[best].keyword);
      fail(P, t, KIP_E_SYNTAX, hint, "unknown statement keyword '%s'", t->str);
      return NULL;
    }
  }
  char hint[200];
  int at = snprintf(hint, sizeof hint, "A command starts with");
  for (int k = S_NONE + 1; k < S_KINDS && at > 0 && (size_t)at < sizeof hint; k++)
    at += snprintf(hint + at, sizeof hint - (size_t)at, "%s %s%s", k == S_NONE + 1 ? "" : k == S_KINDS - 1 ? " or" : ",",
                   statements[k].keyword, k == S_KINDS - 1 ? "." : "");
  fail(P, t, KIP_E_SYNTAX, hint, "expected a statement, found %s", d);
  return NULL;
}

ast_command *kip_parse(kip_arena *a, const char *text, size_t len, const json_t *params, kip_error *err) {
  size_t ntok = 0;
  kip_err_clear(err);
  kip_tok *toks = kip_lex(a, text, len, &ntok, err);
  if (!toks) return NULL;
  parser P = {a, toks, ntok, 0, params, err, 0, 0, 0, 0};
  ast_command *cmd = kip_alloc(a, sizeof *cmd);
  cmd->text = text;
  cmd->len = len;
  ast_stmt **stmts = NULL;
  int n = 0, cap = 0;
  if (peek(&P)->kind == T_EOF) {
    fail(&P, peek(&P), KIP_E_SYNTAX, "Send a KIP command such as DESCRIBE PRIMER.", "empty command");
  }
  while (!FAILED(&P) && peek(&P)->kind != T_EOF) {
    ast_stmt *s = parse_stmt(&P);
    if (!s) break;
    stmts = grow(stmts, n, sizeof *stmts, &cap);
    stmts[n++] = s;
    if (s->kind != S_UPSERT && peek(&P)->kind != T_EOF) {
      char d[128];
      kip_tok_describe(peek(&P), d, sizeof d);
      fail(&P, peek(&P), KIP_E_SYNTAX,
           "Send one statement per command (several UPSERT blocks may be concatenated); use \"commands\" for batches.",
           "unexpected %s after the end of the %s statement", d, kip_stmt_kind_name(s->kind));
    }
  }
  if (!FAILED(&P) && n > 1)
    for (int i = 0; i < n; i++)
      if (stmts[i]->kind != S_UPSERT) {
        kip_tok fake = {0};
        fake.pos = stmts[i]->pos;
        fail(&P, &fake, KIP_E_SYNTAX, "Use the \"commands\" array to send several statements.",
             "only UPSERT statements may be concatenated in one command");
        break;
      }
  cmd->stmts = to_arena(&P, stmts, n, sizeof *stmts);
  cmd->n = n;
  cmd->placeholders = P.placeholders;
  if (FAILED(&P)) return NULL;
  cmd->is_kml = statements[cmd->stmts[0]->kind].mutates;
  return cmd;
}

/* A standalone FILTER expression (the eligibility scope of a request): the
** text of a FILTER body, placeholders bound from params. Every variable must
** be ?<var>; anything after the expression is a syntax error. */
static int only_var(parser *P, const ast_expr *e, const char *var) {
  if (!e) return 1;
  if ((e->kind == E_VAR || e->kind == E_PATH) && strcmp(e->var, var)) {
    kip_tok fake = {0};
    fake.pos = e->pos;
    fail(P, &fake, KIP_E_REFERENCE, NULL, "the scope expression may only use ?%s, not ?%s", var, e->var);
    return 0;
  }
  if (e->kind == E_AGG) {
    kip_tok fake = {0};
    fake.pos = e->pos;
    fail(P, &fake, KIP_E_SYNTAX, NULL, "aggregates are not allowed in a scope expression");
    return 0;
  }
  for (int i = 0; i < e->nargs; i++)
    if (!only_var(P, e->args[i], var)) return 0;
  return 1;
}

ast_expr *kip_parse_scope_expr(kip_arena *a, const char *text, size_t len, const json_t *params, const char *var,
                               kip_error *err) {
  size_t ntok = 0;
  kip_err_clear(err);
  kip_tok *toks = kip_lex(a, text, len, &ntok, err);
  if (!toks) return NULL;
  parser P = {a, toks, ntok, 0, params, err, 0, 0, 1, 0};
  ast_expr *e = parse_expr(&P);
  if (e && !FAILED(&P) && peek(&P)->kind != T_EOF) {
    char d[128];
    kip_tok_describe(peek(&P), d, sizeof d);
    fail(&P, peek(&P), KIP_E_SYNTAX, "Write one boolean expression, as in a FILTER.", "unexpected %s after the expression",
         d);
  }
  if (FAILED(&P) || !e || !only_var(&P, e, var)) return NULL;
  return e;
}
