/*
** search.c — SEARCH CONCEPT | PROPOSITION (RC11 §5.2), keyword mode.
** Grounding fields: concept name, attributes.aliases, attributes.description
** and other top-level string attributes; for propositions the predicate
** name, its $PropositionType description and the endpoint names. Scores are
** in [0,1] (exact name 1.0 > exact alias > whole-term containment > token
** overlap), returned in descending order with the transient metadata._score.
** "semantic" and "hybrid" degrade to keyword (no embedding model here).
** This build scans candidate rows (narrowed by WITH TYPE); an FTS5 index is
** the planned replacement for large graphs.
*/
#include <ctype.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

void kip_write_metadata(kip_buf *b, const char *meta, size_t n, int64_t version, const char *updated_at);

static char *lower(const char *s) {
  size_t n = strlen(s);
  char *r = malloc(n + 1);
  for (size_t i = 0; i <= n; i++) r[i] = (char)tolower((unsigned char)s[i]);
  return r;
}

/* score one text field against the term */
static double field_score(const char *text, const char *term, char **toks, int ntok, double exact, double contains) {
  if (!text || !*text) return 0;
  char *t = lower(text);
  double s = 0;
  if (!strcmp(t, term)) s = exact;
  else if (strstr(t, term)) s = contains * (0.6 + 0.4 * (double)strlen(term) / (double)strlen(t));
  else if (ntok > 1) {
    int hit = 0;
    for (int i = 0; i < ntok; i++) hit += strstr(t, toks[i]) != NULL;
    s = contains * 0.5 * hit / ntok;
  }
  free(t);
  return s;
}

typedef struct hit {
  int64_t id;
  double score;
} hit;

static int by_score(const void *a, const void *b) {
  const hit *x = a, *y = b;
  return x->score < y->score ? 1 : x->score > y->score ? -1 : (x->id > y->id) - (x->id < y->id);
}

int kip_exec_search(kip_ctx *c, const ast_stmt *s) {
  const ast_search *q = &s->u.search;
  char *term = lower(json_string_value(q->term));
  char *tokbuf = strdup(term);
  char *toks[32];
  int ntok = 0;
  for (char *p = strtok(tokbuf, " \t,;"); p && ntok < 32; p = strtok(NULL, " \t,;")) toks[ntok++] = p;
  const char *type = q->type ? json_string_value(q->type) : NULL;
  const char *sql =
      q->propositions
          ? "SELECT e.id, e.predicate, kip_attrj(p.attributes, 'description'), s.name, o.name, e.attributes "
            "FROM element e LEFT JOIN element p ON p.type = '$PropositionType' AND p.name = e.predicate "
            "LEFT JOIN element s ON s.id = e.subject LEFT JOIN element o ON o.id = e.object "
            "WHERE e.predicate IS NOT NULL AND (?1 IS NULL OR e.predicate = ?1)"
          : "SELECT e.id, e.name, e.attributes FROM element e WHERE e.type IS NOT NULL AND (?1 IS NULL OR e.type = ?1)";
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(c->nx->db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) {
    free(term);
    free(tokbuf);
    return kip_store_error(c->nx, rc, c->err, "searching");
  }
  if (type) sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
  hit *hits = NULL;
  size_t n = 0, cap = 0;
  while ((rc = sqlite3_step(st)) == SQLITE_ROW) {
    double score = 0;
    if (!q->propositions) {
      score = field_score((const char *)sqlite3_column_text(st, 1), term, toks, ntok, 1.0, 0.8);
      json_t *attrs = json_loads((const char *)sqlite3_column_text(st, 2), 0, NULL);
      const char *k;
      json_t *v;
      json_object_foreach(attrs, k, v) {
        double f = 0;
        if (!strcmp(k, "aliases") && json_is_array(v)) {
          size_t i;
          json_t *a;
          json_array_foreach(v, i, a) if (json_is_string(a)) {
            double x = field_score(json_string_value(a), term, toks, ntok, 0.95, 0.75);
            if (x > f) f = x;
          }
        } else if (json_is_string(v)) {
          f = field_score(json_string_value(v), term, toks, ntok, 0.6, !strcmp(k, "description") ? 0.5 : 0.4);
        }
        if (f > score) score = f;
      }
      json_decref(attrs);
    } else {
      score = field_score((const char *)sqlite3_column_text(st, 1), term, toks, ntok, 1.0, 0.8);
      json_t *d = sqlite3_column_type(st, 2) == SQLITE_NULL ? NULL
                                                            : json_loads((const char *)sqlite3_column_text(st, 2), JSON_DECODE_ANY, NULL);
      double f = d && json_is_string(d) ? field_score(json_string_value(d), term, toks, ntok, 0.6, 0.5) : 0;
      json_decref(d);
      if (f > score) score = f;
      for (int col = 3; col <= 4; col++) {
        f = field_score((const char *)sqlite3_column_text(st, col), term, toks, ntok, 0.7, 0.5);
        if (f > score) score = f;
      }
    }
    if (score <= 0 || (q->has_threshold && score < q->threshold)) continue;
    if (n == cap) {
      cap = cap ? cap * 2 : 64;
      hits = realloc(hits, cap * sizeof *hits);
    }
    hits[n].id = sqlite3_column_int64(st, 0);
    hits[n].score = score > 1 ? 1 : score;
    n++;
  }
  sqlite3_finalize(st);
  free(term);
  free(tokbuf);
  if (rc != SQLITE_DONE) {
    free(hits);
    return kip_store_error(c->nx, rc, c->err, "searching");
  }
  if (n) qsort(hits, n, sizeof *hits, by_score);
  size_t limit = q->limit >= 0 ? (size_t)q->limit : 10;
  if (n > limit) n = limit;
  rc = sqlite3_prepare_v2(c->nx->db,
                          "SELECT e.id, e.type, e.name, e.subject, e.predicate, e.object, e.attributes, '{}', 0, '', "
                          "(SELECT z.type IS NULL FROM element z WHERE z.id = e.subject), "
                          "(SELECT z.type IS NULL FROM element z WHERE z.id = e.object), e.metadata, e.version, e.updated_at "
                          "FROM element e WHERE e.id = ?1",
                          -1, &st, NULL);
  if (rc != SQLITE_OK) {
    free(hits);
    return kip_store_error(c->nx, rc, c->err, "searching");
  }
  kip_buf_addc(c->out, '[');
  for (size_t i = 0; i < n; i++) {
    sqlite3_bind_int64(st, 1, hits[i].id);
    if (sqlite3_step(st) != SQLITE_ROW) {
      sqlite3_reset(st);
      continue;
    }
    kip_buf el;
    kip_buf_init(&el);
    kip_write_element(&el, st, 0);
    /* replace the placeholder metadata with the real one plus _score */
    char *m = strstr(el.p, ",\"metadata\":{");
    if (i) kip_buf_addc(c->out, ',');
    kip_buf_add(c->out, el.p, (size_t)(m - el.p));
    kip_buf_adds(c->out, ",\"metadata\":");
    kip_buf meta;
    kip_buf_init(&meta);
    kip_write_metadata(&meta, (const char *)sqlite3_column_text(st, 12), (size_t)sqlite3_column_bytes(st, 12),
                       sqlite3_column_int64(st, 13), (const char *)sqlite3_column_text(st, 14));
    meta.len--; /* drop '}' */
    kip_buf_add(c->out, meta.p, meta.len);
    json_t *sc = json_real(hits[i].score);
    kip_buf_adds(c->out, ",\"_score\":");
    kip_json_write(c->out, sc);
    json_decref(sc);
    kip_buf_adds(c->out, "}}");
    kip_buf_free(&meta);
    kip_buf_free(&el);
    sqlite3_reset(st);
  }
  kip_buf_addc(c->out, ']');
  sqlite3_finalize(st);
  free(hits);
  return 0;
}
