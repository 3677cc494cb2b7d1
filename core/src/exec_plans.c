/*
** exec_plans.c — compiled FIND plans kept per nexus by command text (issue
** 37, "per-command cost near SQLite's"): an agent sends the same query text
** again and again with other parameter values, and compiling it to SQL was
** a fifth of a point lookup's instructions. A plan is the compiled SQL, how
** its columns render, and for each bound value where it comes from — one of
** the request's parameters (the compiler bound the parameter's own value)
** or a constant of the text or the scope. It is kept only when that holds
** for every placeholder of the text: a parameter the compiler read another
** way (a LIMIT, an id parsed to a number, a list written into one value)
** makes the text uncacheable, and it is compiled every time.
**
** A plan is used for a request whose text, parameter types (the values of
** arrays and objects whole), governance scope and hop cap are the plan's,
** while the file's data version is the one it was made under (any commit,
** this connection's or another's, drops every plan: the schema checks it
** made hold until then); the schema checks that read a parameter (a
** `{type: :t}`) are made again for the request's value. Not inside a write
** transaction (what it wrote is not committed yet). KIP_PLAN_VERIFY=1 (the
** tests) compiles on every use too and aborts when the two differ.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "exec.h"

#define PLAN_SLOTS 64      /* plans kept per nexus, least recently used replaced */
#define PLAN_MAX_SQL 65536 /* a plan's SQL at most this long (bigger ones are compiled each time) */

typedef struct plan_bind {
  char *param;   /* the request's parameter whose value is bound, or NULL: */
  json_t *value; /* a constant (of the text or the scope) */
} plan_bind;

typedef struct plan_check {
  const char *meta; /* "$ConceptType" / "$PropositionType" (static strings of the compiler) */
  char *param;      /* the parameter whose value names it */
  kip_pos pos;
} plan_check;

typedef struct kip_plan {
  char *key; /* text, parameter types, scope key, hop cap; NULL: an empty slot */
  size_t keylen;
  uint64_t used;
  char *sql;
  size_t sqllen;
  proj *P;
  int nproj, aggregated;
  plan_bind *binds;
  int nbinds;
  plan_check *checks;
  int nchecks;
} kip_plan;

struct kip_plan_cache {
  kip_plan slot[PLAN_SLOTS];
  unsigned version; /* the file's data version the plans were made under */
  uint64_t clock;
};

static void plan_clear(kip_plan *p) {
  free(p->key);
  free(p->sql);
  free(p->P);
  for (int i = 0; i < p->nbinds; i++) {
    free(p->binds[i].param);
    json_decref(p->binds[i].value);
  }
  free(p->binds);
  for (int i = 0; i < p->nchecks; i++) free(p->checks[i].param);
  free(p->checks);
  memset(p, 0, sizeof *p);
}

static void plans_clear(struct kip_plan_cache *pc) {
  for (int i = 0; i < PLAN_SLOTS; i++) plan_clear(&pc->slot[i]);
}

void kip_plans_free(kip_nexus *nx) {
  if (!nx->plans) return;
  plans_clear(nx->plans);
  free(nx->plans);
  nx->plans = NULL;
}

/* the cache, emptied when the file changed since its plans were made;
** NULL when no plan may be used now */
static struct kip_plan_cache *cache(kip_ctx *c) {
  kip_nexus *nx = c->nx;
  if (!c->text || c->dry_run || (nx->tx_depth > 0 && !nx->read_tx)) return NULL;
  unsigned version = kip_store_file_version(nx);
  if (!version) return NULL;
  /* (a rollback leaves the file as it was, and a bulk load's end rebuilds
  ** indexes, not the schema: neither touches a plan) */
  if (nx->plans && nx->plans->version != version) plans_clear(nx->plans);
  if (!nx->plans && !(nx->plans = calloc(1, sizeof *nx->plans))) return NULL;
  nx->plans->version = version;
  return nx->plans;
}

static void add_number(kip_buf *k, size_t v) {
  char digits[24];
  int d = 0;
  do digits[d++] = (char)('0' + v % 10);
  while ((v /= 10));
  while (d) kip_buf_addc(k, digits[--d]);
}

/* a part of the key: its length, ':', the bytes (no part reads as another) */
static void add_part(kip_buf *k, const char *s, size_t n) {
  add_number(k, n);
  kip_buf_addc(k, ':');
  kip_buf_add(k, s, n);
}

/* the key of a request: the text, then each parameter's name and type (an
** array's or an object's value whole: its length or members shape the SQL),
** then what the governance scope is made of and the hop cap */
static void request_key(kip_ctx *c, kip_buf *k) {
  add_part(k, c->text, c->len);
  if (c->params) {
    const char *name;
    json_t *v;
    json_object_foreach((json_t *)c->params, name, v) {
      add_part(k, name, strlen(name));
      if (json_is_array(v) || json_is_object(v)) {
        char *s = kip_json_dump(v);
        add_part(k, s, strlen(s));
        free(s);
      } else {
        kip_buf_addc(k, "osaifTFn"[json_typeof(v)]);
      }
    }
  }
  kip_buf_addc(k, '|');
  const kip_scope *S = c->nx->req->scope;
  if (S) { /* what the scope is made of: eligibility, its parameters, the forbidden lists */
    const char *e = S->eligibility_text ? S->eligibility_text : "", *ep = S->eligibility_params ? S->eligibility_params : "";
    add_part(k, e, strlen(e));
    add_part(k, ep, strlen(ep));
    for (const char *const *t = S->forbidden_types; t && *t; t++) {
      kip_buf_addc(k, 't');
      add_part(k, *t, strlen(*t));
    }
    for (const char *const *p = S->forbidden_predicates; p && *p; p++) {
      kip_buf_addc(k, 'p');
      add_part(k, *p, strlen(*p));
    }
  }
  kip_buf_addc(k, '|');
  add_number(k, (size_t)(c->nx->req->max_hops > 0 ? c->nx->req->max_hops : 0)); /* the hop cap */
}

/* the request's parameter whose value is v itself, or NULL; never for
** true, false and null — jansson shares one object for each, a literal's
** and a parameter's alike, and a parameter's type (in the key) is its value */
static const char *param_of(const json_t *params, const json_t *v) {
  const char *name;
  json_t *pv;
  if (!params || !v || json_is_true(v) || json_is_false(v) || json_is_null(v)) return NULL;
  json_object_foreach((json_t *)params, name, pv) {
    if (pv == v) return name;
  }
  return NULL;
}

static const char *param_named_by(const json_t *params, const char *s) {
  const char *name;
  json_t *pv;
  if (!params || !s) return NULL;
  json_object_foreach((json_t *)params, name, pv) {
    if (json_is_string(pv) && json_string_value(pv) == s) return name;
  }
  return NULL;
}

static char *dup0(const char *s) {
  char *d = strdup(s);
  if (!d) abort();
  return d;
}

/* keep what compiling this FIND made, when every placeholder of the text
** was bound as its own value */
static void keep(kip_ctx *c, struct kip_plan_cache *pc, const kip_buf *key, const kql *C, const kip_buf *sql,
                 const proj *P, int nproj, int aggregated, int placeholders) {
  if (sql->len > PLAN_MAX_SQL) return;
  size_t n = json_array_size(C->binds);
  int from_params = 0;
  for (size_t i = 0; i < n; i++) from_params += param_of(c->params, json_array_get(C->binds, i)) != NULL;
  if (from_params != placeholders) return; /* a parameter was read another way */
  kip_plan *p = &pc->slot[0];
  for (int i = 1; i < PLAN_SLOTS && p->key; i++)
    if (!pc->slot[i].key || pc->slot[i].used < p->used) p = &pc->slot[i];
  plan_clear(p);
  p->key = malloc(key->len);
  p->sql = malloc(sql->len + 1);
  p->P = malloc((size_t)(nproj ? nproj : 1) * sizeof *P);
  p->binds = calloc(n ? n : 1, sizeof *p->binds);
  p->checks = calloc((size_t)(C->nchecks ? C->nchecks : 1), sizeof *p->checks);
  if (!p->key || !p->sql || !p->P || !p->binds || !p->checks) abort();
  memcpy(p->key, key->p, key->len);
  p->keylen = key->len;
  memcpy(p->sql, sql->p, sql->len + 1);
  p->sqllen = sql->len;
  memcpy(p->P, P, (size_t)nproj * sizeof *P);
  p->nproj = nproj;
  p->aggregated = aggregated;
  for (size_t i = 0; i < n; i++) {
    json_t *v = json_array_get(C->binds, i);
    const char *name = param_of(c->params, v);
    if (name) p->binds[i].param = dup0(name);
    else if (!(p->binds[i].value = json_deep_copy(v))) abort();
  }
  p->nbinds = (int)n;
  for (int i = 0; i < C->nchecks; i++) {
    const char *name = param_named_by(c->params, C->checks[i].name);
    if (!name) continue; /* a name of the text: it holds until the file changes */
    p->checks[p->nchecks++] = (plan_check){C->checks[i].meta, dup0(name), C->checks[i].pos};
  }
  p->used = ++pc->clock;
}

static kip_plan *lookup(struct kip_plan_cache *pc, const kip_buf *key) {
  for (int i = 0; i < PLAN_SLOTS; i++) {
    kip_plan *p = &pc->slot[i];
    if (p->key && p->keylen == key->len && !memcmp(p->key, key->p, key->len)) return p;
  }
  return NULL;
}

/* the plan's SQL, projections and this request's binds into sql, *P and
** C->binds; its schema checks made for this request's values (an error:
** the compiler's own, at the placeholder's position) */
static int use(kip_ctx *c, kip_plan *p, kql *C, kip_buf *sql, proj **P, int *aggregated) {
  for (int i = 0; i < p->nchecks; i++) {
    json_t *v = json_object_get(c->params, p->checks[i].param);
    int rc = kql_check_defined(c->nx, p->checks[i].meta, json_string_value(v), p->checks[i].pos, c->err);
    if (rc) return rc;
  }
  for (int i = 0; i < p->nbinds; i++) {
    json_t *v = p->binds[i].param ? json_object_get(c->params, p->binds[i].param) : p->binds[i].value;
    json_array_append(C->binds, v);
  }
  kip_buf_add(sql, p->sql, p->sqllen);
  *P = malloc((size_t)(p->nproj ? p->nproj : 1) * sizeof **P);
  if (!*P) abort();
  memcpy(*P, p->P, (size_t)p->nproj * sizeof **P);
  *aggregated = p->aggregated;
  return 0;
}

/* KIP_PLAN_VERIFY: the plan used and a fresh compile must agree */
static void verify(kip_ctx *c, const ast_find *f, const kip_plan *p, const kql *C, const kip_buf *sql) {
  kip_arena a;
  kip_arena_init(&a);
  kip_error err;
  kip_err_clear(&err);
  kql F;
  kql_init(&F, c->nx, &a, &err);
  kip_buf fsql;
  kip_buf_init(&fsql);
  proj *FP = NULL;
  int agg = 0;
  int rc = kip_find_sql(&F, f, &fsql, &FP, &agg);
  /* (a read that assumed a generation another writer moved is void: it
  ** is repeated, and what its compile found says nothing) */
  int same = !rc && fsql.len == sql->len && !memcmp(fsql.p, sql->p, sql->len) && agg == p->aggregated &&
             json_array_size(F.binds) == json_array_size(C->binds) && !memcmp(FP, p->P, (size_t)p->nproj * sizeof *FP);
  for (size_t i = 0; same && i < json_array_size(F.binds); i++)
    same = json_equal(json_array_get(F.binds, i), json_array_get(C->binds, i));
  if (rc && kip_store_read_void(c->nx)) same = 1;
  if (!same) {
    fprintf(stderr, "KIP_PLAN_VERIFY: the kept plan differs from a fresh compile of %.*s\n", (int)c->len, c->text);
    abort();
  }
  free(FP);
  kip_buf_free(&fsql);
  kql_free(&F);
  kip_arena_free(&a);
}

int kip_find_plan(kip_ctx *c, const ast_command *cmd, kql *C, kip_buf *sql, proj **P, int *aggregated) {
  const ast_find *f = &cmd->stmts[0]->u.find;
  struct kip_plan_cache *pc = cache(c);
  if (!pc) return kip_find_sql(C, f, sql, P, aggregated);
  kip_buf key;
  kip_buf_init(&key);
  request_key(c, &key);
  kip_plan *p = lookup(pc, &key);
  int rc;
  if (p) {
    p->used = ++pc->clock;
    rc = use(c, p, C, sql, P, aggregated);
    if (!rc && getenv("KIP_PLAN_VERIFY")) verify(c, f, p, C, sql);
  } else {
    rc = kip_find_sql(C, f, sql, P, aggregated);
    if (!rc) keep(c, pc, &key, C, sql, *P, f->nproj, *aggregated, cmd->placeholders);
  }
  kip_buf_free(&key);
  return rc;
}
