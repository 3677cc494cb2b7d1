/*
** store_sqlfunc.c — KIP value semantics as SQL functions registered on every
** connection. Compiled KQL runs inside SQLite and calls these:
**
**   kip_attr(json, key)   typed value of a top-level key ("kv"): NULL for
**                         absent/null, INTEGER/REAL numbers, TEXT strings,
**                         BLOB holding JSON text for true/false/arrays/objects
**   kip_attrj(json, key)  JSON text of the value (projection) or NULL
**   kip_cmp(a, b, op)     typed comparison; numbers by value (3 == 3.0),
**                         strings by code point, cross-type ordering false;
**                         == / != treat null as a value; never returns NULL
**   kip_in(a, list)       IN: kip_cmp(a, item, ==) for an item of a JSON array
**   kip_contains / kip_starts / kip_ends / kip_regex (PCRE2, match limits)
**   kip_sum / kip_avg     aggregates over numbers only (null and non-numbers
**                         ignored)
**   kip_kv_json(kv)       JSON text of a kv value
**
** The key scanner works on the compact JSON the engine writes itself.
*/
#define PCRE2_CODE_UNIT_WIDTH 8
#include <pcre2.h>

#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_sqlite.h"

/* ------------------------------------------------------- JSON scanning */
static const char *skip_ws(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\n' || *p == '\t' || *p == '\r')) p++;
  return p;
}

static const char *skip_string(const char *p, const char *e) {
  /* p at opening quote; returns pointer after closing quote */
  p++;
  while (p < e) {
    if (*p == '\\') p += 2;
    else if (*p == '"') return p + 1;
    else p++;
  }
  return e;
}

static const char *skip_value(const char *p, const char *e) {
  p = skip_ws(p, e);
  if (p >= e) return e;
  if (*p == '"') return skip_string(p, e);
  if (*p == '{' || *p == '[') {
    int depth = 0;
    while (p < e) {
      char c = *p;
      if (c == '"') {
        p = skip_string(p, e);
        continue;
      }
      if (c == '{' || c == '[') depth++;
      else if (c == '}' || c == ']') {
        depth--;
        if (depth == 0) return p + 1;
      }
      p++;
    }
    return e;
  }
  while (p < e && *p != ',' && *p != '}' && *p != ']' && *p != ' ' && *p != '\n') p++;
  return p;
}

/* compare a raw JSON string token (with quotes) to key */
static int key_equals(const char *ks, const char *ke, const char *key, size_t klen) {
  /* ks at opening quote, ke after closing quote */
  const char *p = ks + 1, *end = ke - 1;
  if (!memchr(p, '\\', (size_t)(end - p))) return (size_t)(end - p) == klen && !memcmp(p, key, klen);
  json_t *v = json_loadb(ks, (size_t)(ke - ks), JSON_DECODE_ANY, NULL);
  int eq = v && json_is_string(v) && json_string_length(v) == klen && !memcmp(json_string_value(v), key, klen);
  json_decref(v);
  return eq;
}

/* Find top-level key in a JSON object text; returns value span or NULL. */
static const char *find_key(const char *s, size_t n, const char *key, size_t klen, size_t *vlen) {
  const char *p = s, *e = s + n;
  p = skip_ws(p, e);
  if (p >= e || *p != '{') return NULL;
  p++;
  for (;;) {
    p = skip_ws(p, e);
    if (p >= e || *p == '}') return NULL;
    if (*p != '"') return NULL;
    const char *ks = p;
    p = skip_string(p, e);
    const char *ke = p;
    p = skip_ws(p, e);
    if (p >= e || *p != ':') return NULL;
    p = skip_ws(p + 1, e);
    const char *vs = p;
    p = skip_value(p, e);
    if (key_equals(ks, ke, key, klen)) {
      *vlen = (size_t)(p - vs);
      return vs;
    }
    p = skip_ws(p, e);
    if (p < e && *p == ',') p++;
  }
}

/* set result to the kv value of a JSON value span */
static void result_kv(sqlite3_context *ctx, const char *v, size_t n) {
  if (n == 0) {
    sqlite3_result_null(ctx);
    return;
  }
  switch (v[0]) {
    case 'n': sqlite3_result_null(ctx); return;
    case '"': {
      if (!memchr(v + 1, '\\', n - 2)) {
        sqlite3_result_text(ctx, v + 1, (int)n - 2, SQLITE_TRANSIENT);
        return;
      }
      json_t *s = json_loadb(v, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
      if (s && json_is_string(s))
        sqlite3_result_text(ctx, json_string_value(s), (int)json_string_length(s), SQLITE_TRANSIENT);
      else
        sqlite3_result_null(ctx);
      json_decref(s);
      return;
    }
    case 't': case 'f': case '[': case '{':
      sqlite3_result_blob(ctx, v, (int)n, SQLITE_TRANSIENT);
      return;
    default: {
      char tmp[64];
      if (n >= sizeof tmp) {
        sqlite3_result_null(ctx);
        return;
      }
      memcpy(tmp, v, n);
      tmp[n] = 0;
      if (!strpbrk(tmp, ".eE")) {
        char *end;
        long long x = strtoll(tmp, &end, 10);
        if (*end == 0) {
          sqlite3_result_int64(ctx, x);
          return;
        }
      }
      sqlite3_result_double(ctx, strtod(tmp, NULL));
    }
  }
}

/* the JSON text of key argv[1] in object argv[0] (length in *vlen), or NULL
** when either is NULL or the key is absent: what kip_attr and kip_attrj read */
static const char *attr_value(sqlite3_value **argv, size_t *vlen) {
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  const char *k = (const char *)sqlite3_value_text(argv[1]);
  if (!s || !k) return NULL;
  return find_key(s, (size_t)sqlite3_value_bytes(argv[0]), k, (size_t)sqlite3_value_bytes(argv[1]), vlen);
}

static void fn_attr(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  size_t vlen;
  const char *v = attr_value(argv, &vlen);
  if (!v) sqlite3_result_null(ctx);
  else result_kv(ctx, v, vlen);
}

static void fn_attrj(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  size_t vlen;
  const char *v = attr_value(argv, &vlen);
  if (!v) sqlite3_result_null(ctx);
  else sqlite3_result_text(ctx, v, (int)vlen, SQLITE_TRANSIENT);
}

/* ------------------------------------------------------- comparisons */
enum { KC_EQ = 1, KC_NE, KC_LT, KC_LE, KC_GT, KC_GE };

static int is_num(sqlite3_value *v) {
  int t = sqlite3_value_type(v);
  return t == SQLITE_INTEGER || t == SQLITE_FLOAT;
}

/* -2 = incomparable, else -1/0/1 */
static int kv_order(sqlite3_value *a, sqlite3_value *b) {
  int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
  if (ta == SQLITE_NULL || tb == SQLITE_NULL) return -2;
  if (is_num(a) && is_num(b)) {
    if (ta == SQLITE_INTEGER && tb == SQLITE_INTEGER) {
      sqlite3_int64 x = sqlite3_value_int64(a), y = sqlite3_value_int64(b);
      return x < y ? -1 : x > y;
    }
    double x = sqlite3_value_double(a), y = sqlite3_value_double(b);
    return x < y ? -1 : x > y;
  }
  if (ta == SQLITE_TEXT && tb == SQLITE_TEXT) {
    int na = sqlite3_value_bytes(a), nb = sqlite3_value_bytes(b);
    const unsigned char *x = sqlite3_value_text(a), *y = sqlite3_value_text(b);
    int c = memcmp(x, y, (size_t)(na < nb ? na : nb));
    if (c) return c < 0 ? -1 : 1;
    return na < nb ? -1 : na > nb;
  }
  return -2;
}

static int kv_equal(sqlite3_value *a, sqlite3_value *b) {
  int ta = sqlite3_value_type(a), tb = sqlite3_value_type(b);
  if (ta == SQLITE_NULL || tb == SQLITE_NULL) return ta == tb;
  if (ta == SQLITE_BLOB && tb == SQLITE_BLOB) {
    int na = sqlite3_value_bytes(a), nb = sqlite3_value_bytes(b);
    return na == nb && !memcmp(sqlite3_value_blob(a), sqlite3_value_blob(b), (size_t)na);
  }
  return kv_order(a, b) == 0;
}

static void fn_cmp(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int op = sqlite3_value_int(argv[2]);
  int r = 0;
  if (op == KC_EQ) r = kv_equal(argv[0], argv[1]);
  else if (op == KC_NE) r = !kv_equal(argv[0], argv[1]);
  else {
    int c = kv_order(argv[0], argv[1]);
    if (c != -2) r = op == KC_LT ? c < 0 : op == KC_LE ? c <= 0 : op == KC_GT ? c > 0 : c >= 0;
  }
  sqlite3_result_int(ctx, r);
}

/* kip_in(a, list_json): IN(?x, [...]) — kip_cmp(a, item, ==) for any item
** of the JSON array text (a bound parameter, parsed once per statement
** through auxdata), so a long list is one call, not a deep OR tree. */
typedef struct in_item {
  int type;          /* SQLITE_NULL / INTEGER / FLOAT / TEXT / BLOB (compact JSON) */
  sqlite3_int64 i;
  double d;
  char *s;           /* text or compact JSON, malloc'd */
  size_t n;
} in_item;

typedef struct in_list {
  size_t n;
  in_item *v;
} in_list;

static void in_list_free(void *p) {
  in_list *l = p;
  for (size_t k = 0; k < l->n; k++) free(l->v[k].s);
  free(l->v);
  free(l);
}

static in_list *in_list_parse(const char *text, size_t len) {
  json_t *a = json_loadb(text, len, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
  if (!json_is_array(a)) {
    json_decref(a);
    return NULL;
  }
  in_list *l = calloc(1, sizeof *l);
  if (!l) abort();
  l->n = json_array_size(a);
  l->v = calloc(l->n ? l->n : 1, sizeof *l->v);
  if (!l->v) abort();
  for (size_t k = 0; k < l->n; k++) {
    json_t *x = json_array_get(a, k);
    in_item *it = &l->v[k];
    switch (json_typeof(x)) {
      case JSON_NULL: it->type = SQLITE_NULL; break;
      case JSON_INTEGER: it->type = SQLITE_INTEGER; it->i = json_integer_value(x); it->d = (double)it->i; break;
      case JSON_REAL: it->type = SQLITE_FLOAT; it->d = json_real_value(x); break;
      case JSON_STRING:
        it->type = SQLITE_TEXT;
        it->n = json_string_length(x);
        it->s = malloc(it->n + 1);
        if (!it->s) abort();
        memcpy(it->s, json_string_value(x), it->n + 1);
        break;
      default:
        it->type = SQLITE_BLOB;
        it->s = kip_json_dump(x);
        it->n = strlen(it->s);
    }
  }
  json_decref(a);
  return l;
}

/* kv_equal(a, item) */
static int in_item_equal(sqlite3_value *a, const in_item *it) {
  int ta = sqlite3_value_type(a);
  if (ta == SQLITE_NULL || it->type == SQLITE_NULL) return ta == it->type;
  if (is_num(a) && (it->type == SQLITE_INTEGER || it->type == SQLITE_FLOAT)) {
    if (ta == SQLITE_INTEGER && it->type == SQLITE_INTEGER) return sqlite3_value_int64(a) == it->i;
    return sqlite3_value_double(a) == it->d;
  }
  if (ta != it->type || (ta != SQLITE_TEXT && ta != SQLITE_BLOB)) return 0;
  size_t n = (size_t)sqlite3_value_bytes(a);
  const void *p = ta == SQLITE_TEXT ? (const void *)sqlite3_value_text(a) : sqlite3_value_blob(a);
  return n == it->n && (n == 0 || !memcmp(p, it->s, n));
}

static void fn_in(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  in_list *l = sqlite3_get_auxdata(ctx, 1);
  int fresh = !l;
  if (fresh && !(l = in_list_parse((const char *)sqlite3_value_text(argv[1]), (size_t)sqlite3_value_bytes(argv[1])))) {
    sqlite3_result_error(ctx, "kip_in: the list is not a JSON array", -1);
    return;
  }
  int r = 0;
  for (size_t k = 0; k < l->n && !r; k++) r = in_item_equal(argv[0], &l->v[k]);
  /* kept for the next rows of the statement (SQLite may free it at once) */
  if (fresh) sqlite3_set_auxdata(ctx, 1, l, in_list_free);
  sqlite3_result_int(ctx, r);
}

static void fn_strop(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  int which = *(int *)sqlite3_user_data(ctx);
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || sqlite3_value_type(argv[1]) != SQLITE_TEXT) {
    sqlite3_result_int(ctx, 0);
    return;
  }
  const char *s = (const char *)sqlite3_value_text(argv[0]);
  const char *t = (const char *)sqlite3_value_text(argv[1]);
  size_t ns = (size_t)sqlite3_value_bytes(argv[0]), nt = (size_t)sqlite3_value_bytes(argv[1]);
  int r = 0;
  if (which == 0) {
    if (nt == 0) r = 1;
    else
      for (size_t i = 0; i + nt <= ns && !r; i++) r = !memcmp(s + i, t, nt);
  } else if (which == 1) {
    r = nt <= ns && !memcmp(s, t, nt);
  } else {
    r = nt <= ns && !memcmp(s + ns - nt, t, nt);
  }
  sqlite3_result_int(ctx, r);
}

/* ----------------------------------------------------------------- REGEX */
#define REGEX_CACHE 16
struct kip_regex_cache {
  struct {
    char *pattern;
    pcre2_code *code;
    unsigned long long used;
  } e[REGEX_CACHE];
  unsigned long long tick;
  pcre2_match_context *mctx;
  pcre2_match_data *md;
};

static pcre2_code *regex_get(kip_nexus *nx, const char *pat, size_t n) {
  struct kip_regex_cache *c = nx->regex;
  if (!c) {
    c = nx->regex = calloc(1, sizeof *c);
    if (!c) return NULL;
    c->mctx = pcre2_match_context_create(NULL);
    pcre2_set_match_limit(c->mctx, 1000000);
    pcre2_set_depth_limit(c->mctx, 10000);
    c->md = pcre2_match_data_create(8, NULL);
  }
  int victim = 0;
  for (int i = 0; i < REGEX_CACHE; i++) {
    if (c->e[i].pattern && strlen(c->e[i].pattern) == n && !memcmp(c->e[i].pattern, pat, n)) {
      c->e[i].used = ++c->tick;
      return c->e[i].code;
    }
    if (c->e[i].used < c->e[victim].used) victim = i;
  }
  int ec;
  PCRE2_SIZE eo;
  pcre2_code *code = pcre2_compile((PCRE2_SPTR)pat, n, PCRE2_UTF | PCRE2_MATCH_INVALID_UTF, &ec, &eo, NULL);
  if (!code) {
    PCRE2_UCHAR buf[160];
    pcre2_get_error_message(ec, buf, sizeof buf);
    snprintf(nx->req->regex_msg, sizeof nx->req->regex_msg, "invalid REGEX pattern \"%.60s\" at offset %zu: %s", pat,
             (size_t)eo, (char *)buf);
    nx->req->regex_error = 1;
    return NULL;
  }
  free(c->e[victim].pattern);
  pcre2_code_free(c->e[victim].code);
  c->e[victim].pattern = malloc(n + 1);
  if (c->e[victim].pattern) {
    memcpy(c->e[victim].pattern, pat, n);
    c->e[victim].pattern[n] = 0;
  }
  c->e[victim].code = code;
  c->e[victim].used = ++c->tick;
  return code;
}

static void fn_regex(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  kip_nexus *nx = sqlite3_user_data(ctx);
  if (sqlite3_value_type(argv[0]) != SQLITE_TEXT || sqlite3_value_type(argv[1]) != SQLITE_TEXT) {
    sqlite3_result_int(ctx, 0);
    return;
  }
  pcre2_code *re = regex_get(nx, (const char *)sqlite3_value_text(argv[1]), (size_t)sqlite3_value_bytes(argv[1]));
  if (!re) {
    sqlite3_result_error(ctx, nx->req->regex_msg[0] ? nx->req->regex_msg : "REGEX failed", -1);
    return;
  }
  int rc = pcre2_match(re, (PCRE2_SPTR)sqlite3_value_text(argv[0]), (size_t)sqlite3_value_bytes(argv[0]), 0, 0,
                       nx->regex->md, nx->regex->mctx);
  if (rc == PCRE2_ERROR_MATCHLIMIT || rc == PCRE2_ERROR_DEPTHLIMIT) {
    snprintf(nx->req->regex_msg, sizeof nx->req->regex_msg, "REGEX exceeded its match budget (catastrophic backtracking?)");
    nx->req->regex_error = 1;
    sqlite3_result_error(ctx, nx->req->regex_msg, -1);
    return;
  }
  sqlite3_result_int(ctx, rc >= 0);
}

void kip_free_sql_state(kip_nexus *nx) {
  struct kip_regex_cache *c = nx->regex;
  if (!c) return;
  for (int i = 0; i < REGEX_CACHE; i++) {
    free(c->e[i].pattern);
    pcre2_code_free(c->e[i].code);
  }
  pcre2_match_context_free(c->mctx);
  pcre2_match_data_free(c->md);
  free(c);
  nx->regex = NULL;
}

/* ----------------------------------------------------------- aggregates */
typedef struct {
  long long isum;
  double rsum;
  long long n;
  int real, any;
} sumacc;

static void agg_step(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  sumacc *a = sqlite3_aggregate_context(ctx, sizeof *a);
  if (!a) return;
  int t = sqlite3_value_type(argv[0]);
  if (t == SQLITE_INTEGER && !a->real) {
    long long x = sqlite3_value_int64(argv[0]), r;
    if (__builtin_add_overflow(a->isum, x, &r)) {
      a->real = 1;
      a->rsum = (double)a->isum + (double)x;
    } else {
      a->isum = r;
    }
  } else if (t == SQLITE_INTEGER || t == SQLITE_FLOAT) {
    if (!a->real) {
      a->real = 1;
      a->rsum = (double)a->isum;
    }
    a->rsum += sqlite3_value_double(argv[0]);
  } else {
    return;
  }
  a->n++;
  a->any = 1;
}

static void sum_final(sqlite3_context *ctx) {
  sumacc *a = sqlite3_aggregate_context(ctx, 0);
  if (!a || !a->any) sqlite3_result_null(ctx);
  else if (a->real) sqlite3_result_double(ctx, a->rsum);
  else sqlite3_result_int64(ctx, a->isum);
}

static void avg_final(sqlite3_context *ctx) {
  sumacc *a = sqlite3_aggregate_context(ctx, 0);
  if (!a || !a->any) sqlite3_result_null(ctx);
  else sqlite3_result_double(ctx, (a->real ? a->rsum : (double)a->isum) / (double)a->n);
}

/* --------------------------------------------------------- kv -> JSON */
static void fn_kv_json(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  kip_buf b;
  kip_buf_init(&b);
  sqlite3_value *v = argv[0];
  switch (sqlite3_value_type(v)) {
    case SQLITE_NULL: kip_buf_adds(&b, "null"); break;
    case SQLITE_INTEGER: kip_buf_printf(&b, "%lld", (long long)sqlite3_value_int64(v)); break;
    case SQLITE_FLOAT: {
      json_t *r = json_real(sqlite3_value_double(v));
      kip_json_write(&b, r);
      json_decref(r);
      break;
    }
    case SQLITE_TEXT: kip_buf_json_str(&b, (const char *)sqlite3_value_text(v), (size_t)sqlite3_value_bytes(v)); break;
    default: kip_buf_add(&b, sqlite3_value_blob(v), (size_t)sqlite3_value_bytes(v)); break;
  }
  sqlite3_result_text(ctx, b.p ? b.p : "null", (int)b.len, SQLITE_TRANSIENT);
  kip_buf_free(&b);
}

/* kip_search_text(attributes, which, extra...): the text the SEARCH index
** holds for an element — which = 0: its heading, the attributes that name
** it in a few words (HEADING_KEYS); 1: every other string value in the
** attributes (nested ones too); then each non-NULL extra
** argument (endpoint names of a proposition); newline-separated. Used by the index
** triggers (store.c), so a write the engine did not make cannot bypass it. */
/* (the text starts at b->p + start: a newline between strings, none before the first) */
static void collect_strings(kip_buf *b, size_t start, const json_t *v, int depth) {
  if (depth > 32) return;
  if (json_is_string(v)) {
    if (b->len > start) kip_buf_addc(b, '\n');
    kip_buf_add(b, json_string_value(v), json_string_length(v));
  } else if (json_is_array(v)) {
    size_t i;
    json_t *x;
    json_array_foreach(v, i, x) collect_strings(b, start, x, depth + 1);
  } else if (json_is_object(v)) {
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) collect_strings(b, start, x, depth + 1);
  }
}

static const char *const HEADING_KEYS[] = {"aliases", "title", "keywords", "tags", NULL};

static int is_heading_key(const char *k) {
  for (int i = 0; HEADING_KEYS[i]; i++)
    if (!strcmp(k, HEADING_KEYS[i])) return 1;
  return 0;
}

/* the text appended to b (the SQL function's and the vectors' text, store_vectors.c) */
void kip_search_text_add(kip_buf *b, const char *attributes, size_t n, int which, const char *const *extra, int nextra) {
  /* most propositions carry no attributes: no JSON to parse */
  /* (the reader requests use: jansson's own sets up more than a small object costs to read) */
  json_t *attrs = attributes && (n > 2 || (n == 2 && strcmp(attributes, "{}"))) ? kip_json_parse_fast(attributes, n) : NULL;
  if (!attrs && attributes && n > 2) attrs = json_loadb(attributes, n, 0, NULL);
  size_t start = b->len;
  if (json_is_object(attrs)) {
    const char *k;
    json_t *x;
    json_object_foreach(attrs, k, x) if (is_heading_key(k) == (which == 0)) collect_strings(b, start, x, 1);
  }
  json_decref(attrs);
  for (int i = 0; i < nextra; i++) {
    if (!extra[i]) continue;
    if (b->len > start) kip_buf_addc(b, '\n');
    kip_buf_adds(b, extra[i]);
  }
}

static void fn_search_text(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  if (argc < 2) return;
  const char *text = (const char *)sqlite3_value_text(argv[0]);
  const char *extra[8];
  int nextra = 0;
  for (int i = 2; i < argc && nextra < 8; i++)
    extra[nextra++] = sqlite3_value_type(argv[i]) == SQLITE_TEXT ? (const char *)sqlite3_value_text(argv[i]) : NULL;
  kip_buf b;
  kip_buf_init(&b);
  kip_search_text_add(&b, text, text ? (size_t)sqlite3_value_bytes(argv[0]) : 0, sqlite3_value_int(argv[1]), extra, nextra);
  if (b.len) sqlite3_result_text(ctx, b.p, (int)b.len, SQLITE_TRANSIENT);
  else sqlite3_result_null(ctx);
  kip_buf_free(&b);
}

/* kip_write_refused(op, id, type, name, predicate, subject): the guard
** triggers' (store.c) question, answered by kip_write_refused */
static void fn_write_refused(sqlite3_context *ctx, int argc, sqlite3_value **argv) {
  (void)argc;
  const char *op = (const char *)sqlite3_value_text(argv[0]);
  sqlite3_result_int(ctx, kip_write_refused(sqlite3_user_data(ctx), op ? op[0] : 'u', sqlite3_value_int64(argv[1]),
                                            (const char *)sqlite3_value_text(argv[2]),
                                            (const char *)sqlite3_value_text(argv[3]),
                                            (const char *)sqlite3_value_text(argv[4]), sqlite3_value_int64(argv[5])));
}

int kip_register_search_text(sqlite3 *db) {
  return sqlite3_create_function(db, "kip_search_text", -1, SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS,
                                 NULL, fn_search_text, NULL, NULL);
}

int kip_register_sql_functions(kip_nexus *nx) {
  static int which[3] = {0, 1, 2};
  sqlite3 *db = nx->db;
  int f = SQLITE_UTF8 | SQLITE_DETERMINISTIC | SQLITE_INNOCUOUS;
  int rc = 0;
  rc |= sqlite3_create_function(db, "kip_attr", 2, f, NULL, fn_attr, NULL, NULL);
  rc |= sqlite3_create_function(db, "kip_attrj", 2, f, NULL, fn_attrj, NULL, NULL);
  rc |= sqlite3_create_function(db, "kip_cmp", 3, f, NULL, fn_cmp, NULL, NULL);
  rc |= sqlite3_create_function(db, "kip_in", 2, f, NULL, fn_in, NULL, NULL);
  rc |= sqlite3_create_function(db, "kip_contains", 2, f, &which[0], fn_strop, NULL, NULL);
  rc |= sqlite3_create_function(db, "kip_starts", 2, f, &which[1], fn_strop, NULL, NULL);
  rc |= sqlite3_create_function(db, "kip_ends", 2, f, &which[2], fn_strop, NULL, NULL);
  rc |= sqlite3_create_function(db, "kip_regex", 2, SQLITE_UTF8 | SQLITE_DETERMINISTIC, nx, fn_regex, NULL, NULL);
  rc |= sqlite3_create_function(db, "kip_sum", 1, f, NULL, NULL, agg_step, sum_final);
  rc |= sqlite3_create_function(db, "kip_avg", 1, f, NULL, NULL, agg_step, avg_final);
  rc |= sqlite3_create_function(db, "kip_kv_json", 1, f, NULL, fn_kv_json, NULL, NULL);
  rc |= kip_register_search_text(db);
  rc |= sqlite3_create_function(db, "kip_write_refused", 6, SQLITE_UTF8, nx, fn_write_refused, NULL, NULL);
  return rc;
}
