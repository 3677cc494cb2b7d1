/*
** search.c — SEARCH CONCEPT | PROPOSITION (RC11 §5.2), keyword mode.
**
** Candidates come from the two FTS5 indexes maintained by triggers (store.c
** schema v2): the word index (every term token as a prefix, OR-ed, ranked
** by bm25 with name > aliases > body) and the trigram index (the whole term
** as a substring — partial words and scripts without spaces). Terms shorter
** than three characters that the word index cannot answer fall back to a
** bounded scan. Each candidate is then scored in [0,1] on its actual
** grounding fields — exact name 1.0 > exact alias > whole-term containment >
** token overlap — so exact name matches always rank first, and results are
** returned in descending score with the transient metadata._score.
** MODE "semantic" / "hybrid" degrade to keyword and say so in "warnings".
** Under a governance scope only elements inside it are candidates.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "exec.h"

#define SEARCH_DEFAULT_LIMIT 10
#define MAX_TOKENS 32
#define WORD_MATCH_FLOOR 0.5     /* the word index matched (folded diacritics, prefixes) */
#define TRIGRAM_MATCH_FLOOR 0.2  /* the trigram index matched (non-ASCII case folding) */

typedef struct term {
  char *lower;             /* the whole term, ASCII-lowercased */
  char *buf;               /* token storage */
  char *toks[MAX_TOKENS];
  int ntok;
} term;

static char *lower(const char *s) {
  size_t n = strlen(s);
  char *r = malloc(n + 1);
  if (!r) abort();
  for (size_t i = 0; i <= n; i++) r[i] = (char)tolower((unsigned char)s[i]);
  return r;
}

static void term_init(term *t, const char *text) {
  t->lower = lower(text);
  t->buf = strdup(t->lower);
  if (!t->buf) abort();
  t->ntok = 0;
  char *save = NULL;
  for (char *p = strtok_r(t->buf, " \t\n,;", &save); p && t->ntok < MAX_TOKENS; p = strtok_r(NULL, " \t\n,;", &save))
    t->toks[t->ntok++] = p;
}

static void term_free(term *t) {
  free(t->lower);
  free(t->buf);
}

/* a token is worth querying when it has a letter, digit or non-ASCII byte */
static int indexable(const char *s) {
  for (; *s; s++)
    if (isalnum((unsigned char)*s) || (unsigned char)*s >= 0x80) return 1;
  return 0;
}

/* FTS5 query strings: "tok1"* OR "tok2"* (word) and "whole term" (trigram) */
static void quote_fts(kip_buf *b, const char *s) {
  kip_buf_addc(b, '"');
  for (; *s; s++) {
    if (*s == '"') kip_buf_addc(b, '"');
    kip_buf_addc(b, *s);
  }
  kip_buf_addc(b, '"');
}

static size_t utf8_chars(const char *s) {
  size_t n = 0;
  for (; *s; s++) n += ((unsigned char)*s & 0xC0) != 0x80;
  return n;
}

/* ------------------------------------------------------------- scoring */
/* 1 when the match at p..p+n starts and ends on word boundaries, else 0.5 */
static double boundary_factor(const char *s, const char *p, size_t n) {
  int before = p == s || !isalnum((unsigned char)p[-1]);
  int after = !isalnum((unsigned char)p[n]);
  return before && after ? 1.0 : 0.5;
}

static double field_score(const char *text, const term *t, double exact, double contains) {
  if (!text || !*text) return 0;
  char *s = lower(text);
  double r = 0;
  const char *p;
  if (!strcmp(s, t->lower)) r = exact;
  else if ((p = strstr(s, t->lower)))
    r = contains * boundary_factor(s, p, strlen(t->lower)) *
        (0.6 + 0.4 * (double)strlen(t->lower) / (double)strlen(s));
  else if (t->ntok > 1) {
    int hit = 0;
    for (int i = 0; i < t->ntok; i++) hit += strstr(s, t->toks[i]) != NULL;
    r = contains * 0.5 * hit / t->ntok;
  }
  free(s);
  return r;
}

/* concept row: id, name, attributes */
static double score_concept(sqlite3_stmt *st, const term *t) {
  double score = field_score((const char *)sqlite3_column_text(st, 1), t, 1.0, 0.8);
  json_t *attrs = json_loads((const char *)sqlite3_column_text(st, 2), 0, NULL);
  const char *k;
  json_t *v;
  json_object_foreach(attrs, k, v) {
    double f = 0;
    if (!strcmp(k, "aliases") && json_is_array(v)) {
      size_t i;
      json_t *a;
      json_array_foreach(v, i, a) if (json_is_string(a)) {
        double x = field_score(json_string_value(a), t, 0.95, 0.75);
        if (x > f) f = x;
      }
    } else if (json_is_string(v)) {
      f = field_score(json_string_value(v), t, 0.6, !strcmp(k, "description") ? 0.5 : 0.4);
    }
    if (f > score) score = f;
  }
  json_decref(attrs);
  return score;
}

/* proposition row: id, predicate, predicate description, subject name, object name */
static double score_proposition(sqlite3_stmt *st, const term *t) {
  double score = field_score((const char *)sqlite3_column_text(st, 1), t, 1.0, 0.8);
  json_t *d = sqlite3_column_type(st, 2) == SQLITE_NULL
                  ? NULL
                  : json_loads((const char *)sqlite3_column_text(st, 2), JSON_DECODE_ANY, NULL);
  double f = d && json_is_string(d) ? field_score(json_string_value(d), t, 0.6, 0.5) : 0;
  json_decref(d);
  if (f > score) score = f;
  for (int col = 3; col <= 4; col++) {
    f = field_score((const char *)sqlite3_column_text(st, col), t, 0.7, 0.5);
    if (f > score) score = f;
  }
  return score;
}

/* ------------------------------------------------------------- candidates */
typedef struct hit {
  int64_t id;
  double score; /* reported: at least the index floor */
  double raw;   /* the scorer's own value: orders hits of equal score */
} hit;

typedef struct hits {
  hit *v;
  size_t n, cap;
} hits;

#define CONCEPT_COLS "SELECT e.id, e.name, e.attributes FROM "
#define CONCEPT_WHERE "e.type IS NOT NULL AND (?9002 IS NULL OR e.type = ?9002)"
#define PROP_COLS "SELECT e.id, e.predicate, kip_attrj(p.attributes, 'description'), s.name, o.name FROM "
#define PROP_JOINS                                                                             \
  " LEFT JOIN element p ON p.type = '$PropositionType' AND p.name = e.predicate"               \
  " LEFT JOIN element s ON s.id = e.subject LEFT JOIN element o ON o.id = e.object"
#define PROP_WHERE "e.predicate IS NOT NULL AND (?9002 IS NULL OR e.predicate = ?9002)"

/* the request's governance scope on candidates `e` (binds ?1..?k), or NULL */
typedef struct search_scope {
  kip_arena a;
  kql C;
  char *cond;
} search_scope;

/* Run one candidate query — FROM `from` WHERE `match` (?9001 = arg) AND the
** kind/type filter (?9002) AND the scope, then `tail` (?9003 = cap) — and
** score its rows; `floor` is the score of an index match the byte-level
** scorer cannot see (folded diacritics, non-ASCII case). */
static int collect(kip_ctx *c, const ast_search *q, search_scope *sc, const char *from, const char *match,
                   const char *tail, const char *arg, const term *t, int64_t cap, double floor, hits *h) {
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_printf(&sql, "%s%s%s WHERE %s AND %s%s%s%s", q->propositions ? PROP_COLS : CONCEPT_COLS, from,
                 q->propositions ? PROP_JOINS : "", match, q->propositions ? PROP_WHERE : CONCEPT_WHERE,
                 sc->cond ? " AND " : "", sc->cond ? sc->cond : "", tail);
  sqlite3_stmt *st;
  int rc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
  kip_buf_free(&sql);
  if (rc != SQLITE_OK) return kip_store_error(c->nx, rc, c->err, "searching");
  kql_bind_all(&sc->C, st);
  sqlite3_bind_text(st, 9001, arg, -1, SQLITE_STATIC);
  if (q->type) sqlite3_bind_text(st, 9002, json_string_value(q->type), -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 9003, cap);
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    double raw = q->propositions ? score_proposition(st, t) : score_concept(st, t), score = raw;
    if (score < floor) score = floor;
    if (score <= 0 || (q->has_threshold && score < q->threshold)) continue;
    if (h->n == h->cap) {
      h->cap = h->cap ? h->cap * 2 : 64;
      h->v = realloc(h->v, h->cap * sizeof *h->v);
      if (!h->v) abort();
    }
    h->v[h->n].id = sqlite3_column_int64(st, 0);
    h->v[h->n].score = score > 1 ? 1 : score;
    h->v[h->n].raw = raw;
    h->n++;
  }
  kip_finish(c->nx, st);
  return rc == SQLITE_DONE ? 0 : kip_store_error(c->nx, rc, c->err, "searching");
}

static int fts_query(kip_ctx *c, const ast_search *q, search_scope *sc, const char *table, const char *match,
                     const term *t, int64_t cap, double floor, hits *h) {
  char from[64], cond[64], tail[96];
  snprintf(from, sizeof from, "%s f JOIN element e ON e.id = f.rowid", table);
  snprintf(cond, sizeof cond, "%s MATCH ?9001", table);
  snprintf(tail, sizeof tail, " ORDER BY bm25(%s, 10.0, 8.0, 1.0) LIMIT ?9003", table);
  return collect(c, q, sc, from, cond, tail, match, t, cap, floor, h);
}

static int by_id(const void *a, const void *b) {
  const hit *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

static int by_score(const void *a, const void *b) {
  const hit *x = a, *y = b;
  if (x->score != y->score) return x->score < y->score ? 1 : -1;
  if (x->raw != y->raw) return x->raw < y->raw ? 1 : -1;
  return (x->id > y->id) - (x->id < y->id);
}

static int find_candidates(kip_ctx *c, const ast_search *q, search_scope *sc, const term *t, int64_t cap, hits *h) {
  kip_buf word;
  kip_buf_init(&word);
  for (int i = 0; i < t->ntok; i++) {
    if (!indexable(t->toks[i])) continue;
    if (word.len) kip_buf_adds(&word, " OR ");
    quote_fts(&word, t->toks[i]);
    kip_buf_addc(&word, '*');
  }
  int rc = 0;
  if (word.len) rc = fts_query(c, q, sc, "search_word", word.p, t, cap, WORD_MATCH_FLOOR, h);
  kip_buf_free(&word);
  size_t chars = utf8_chars(t->lower);
  if (!rc && chars >= 3) {
    kip_buf tri;
    kip_buf_init(&tri);
    quote_fts(&tri, t->lower);
    rc = fts_query(c, q, sc, "search_trigram", tri.p, t, cap, TRIGRAM_MATCH_FLOOR, h);
    kip_buf_free(&tri);
  } else if (!rc && chars > 0 && h->n == 0) {
    /* too short for trigrams: a bounded scan */
    rc = collect(c, q, sc, "element e",
                 q->propositions ? "instr(lower(e.predicate), ?9001)"
                                 : "(instr(lower(e.name), ?9001) OR instr(lower(e.attributes), ?9001))",
                 " LIMIT ?9003", t->lower, t, cap, 0, h);
  }
  if (rc || !h->n) return rc;
  /* the same element may come from both indexes */
  qsort(h->v, h->n, sizeof *h->v, by_id);
  size_t w = 0;
  for (size_t i = 0; i < h->n; i++) {
    if (w && h->v[w - 1].id == h->v[i].id) {
      if (h->v[i].score > h->v[w - 1].score) h->v[w - 1].score = h->v[i].score;
      if (h->v[i].raw > h->v[w - 1].raw) h->v[w - 1].raw = h->v[i].raw;
    } else {
      h->v[w++] = h->v[i];
    }
  }
  h->n = w;
  qsort(h->v, h->n, sizeof *h->v, by_score);
  return 0;
}

int kip_exec_search(kip_ctx *c, const ast_stmt *s) {
  const ast_search *q = &s->u.search;
  if (q->mode && strcmp(json_string_value(q->mode), "keyword"))
    kip_warn(c, "MODE \"%s\" is not available in this build (no embedding model); keyword search was used",
             json_string_value(q->mode));
  if (kip_unindexed(c->nx))
    kip_warn(c, "elements written by a bulk load are not indexed yet; SEARCH may miss them until the load finishes "
                "(kip reindex indexes them now)");
  int64_t limit = q->limit >= 0 ? q->limit : SEARCH_DEFAULT_LIMIT;
  int64_t cap = limit * 10 < 100 ? 100 : limit * 10;
  if (cap > c->nx->max_rows) cap = c->nx->max_rows;
  term t;
  term_init(&t, json_string_value(q->term));
  hits h = {NULL, 0, 0};
  search_scope sc;
  kip_arena_init(&sc.a);
  kql_init(&sc.C, c->nx, &sc.a, c->err);
  sc.cond = kql_scope_cond(&sc.C, "e");
  if (sc.cond && q->propositions) { /* a link to something hidden is hidden too */
    char *scond = kql_scope_cond(&sc.C, "s"), *ocond = kql_scope_cond(&sc.C, "o");
    sc.cond = kql_strf(&sc.C, "%s AND (s.id IS NULL OR %s) AND (o.id IS NULL OR %s)", sc.cond, scond, ocond);
  }
  int rc = sc.C.failed ? c->err->code : find_candidates(c, q, &sc, &t, cap, &h);
  kql_free(&sc.C);
  kip_arena_free(&sc.a);
  term_free(&t);
  if (rc) {
    free(h.v);
    return rc;
  }
  /* the full check (links about links, any depth) on what is returned */
  if (c->nx->scope) {
    size_t w = 0;
    for (size_t i = 0; i < h.n && w < (size_t)limit; i++) {
      int in = kip_in_scope(c->nx, h.v[i].id, c->err);
      if (in < 0) {
        free(h.v);
        return c->err->code;
      }
      if (in) h.v[w++] = h.v[i];
    }
    h.n = w;
  }
  size_t n = h.n < (size_t)limit ? h.n : (size_t)limit;
  sqlite3_stmt *st;
  int prc = kip_prepare(c->nx, "SELECT e.id, e.type, e.name, e.subject, e.predicate, e.object, e.attributes, "
                               "e.metadata, e.version, e.updated_at, "
                               "(SELECT z.type IS NULL FROM element z WHERE z.id = e.subject), "
                               "(SELECT z.type IS NULL FROM element z WHERE z.id = e.object) "
                               "FROM element e WHERE e.id = ?1",
                               -1, &st);
  if (prc != SQLITE_OK) {
    free(h.v);
    return kip_store_error(c->nx, prc, c->err, "searching");
  }
  kip_buf_addc(c->out, '[');
  int first = 1;
  for (size_t i = 0; i < n; i++) {
    sqlite3_bind_int64(st, 1, h.v[i].id);
    if (sqlite3_step(st) == SQLITE_ROW) {
      if (!first) kip_buf_addc(c->out, ',');
      first = 0;
      kip_write_scored_element(c->out, st, 0, &h.v[i].score);
    }
    sqlite3_reset(st);
  }
  kip_buf_addc(c->out, ']');
  kip_finish(c->nx, st);
  free(h.v);
  return 0;
}
