/*
** exec_search.c — SEARCH CONCEPT | PROPOSITION (RC11 §5.2): the executor.
**
** MODE "keyword" (default) ranks by BM25 over the word index plus substring
** matches (search_keyword.c); MODE "semantic" ranks by the cosine between
** the query's vector and the elements' vectors (search_vector.c), scored by
** its excess over chance; MODE "hybrid" keeps the primary list's order (the
** keyword list unless the nexus measured the semantic one better: kip search
** eval --apply) and adds the other list's elements after it, so it is
** never worse than its primary input at any LIMIT; it scores an element by
** its best evidence, max(keyword, semantic). Every mode's _score is on one scale
** (0 = no evidence, 1 = an exact match) and THRESHOLD applies to it: in
** hybrid, t keeps what either mode keeps at t. Schema definitions follow
** the instances unless the request targets the schema, and an episode that
** says again what an earlier hit said follows those that say something new.
** Kind, WITH TYPE and the
** request's governance scope filter the candidates *before* ranking (seed
** 003: vectors shortlist and rank, never widen the scope), and every
** returned hit is checked against the full scope once more.
**
** Semantic and hybrid need an embedder on the nexus (kip_set_embedder).
** Without one, or when it fails (a remote embedder is down), they answer
** by keyword search and say so in "warnings"; elements not embedded yet are
** counted in a warning too. Vectors made by another model than the
** configured one are refused (KIP_3005) until `kip reindex --vectors`.
*/
#include <stdlib.h>
#include <string.h>

#include "search.h"

#define SEARCH_DEFAULT_LIMIT 10

/* ---------------------------------------------------------------- modes */
typedef enum { MODE_KEYWORD, MODE_SEMANTIC, MODE_HYBRID } search_mode;

/* hybrid: the two best-first lists fused. The primary list's elements come
** first, in its order, then the other list's elements it lacks, in theirs:
** the first k hits always hold the primary's first k, so hybrid never
** recalls less than its primary input at any LIMIT, and the other list
** fills what the primary cannot find (rank fusion let a weak list push
** relevant hits out of the top k: docs/search.md "Hybrid"). The score is
** the element's best evidence, max(keyword score, semantic score), so
** THRESHOLD t keeps exactly what keyword or semantic would keep at t
** (docs/search.md "Scores"); the order stays the fusion's. */
static int by_fused_rank(const void *a, const void *b) {
  const search_hit *x = a, *y = b;
  if (x->fused != y->fused) return x->fused < y->fused ? -1 : 1;
  return (x->id > y->id) - (x->id < y->id);
}

static void fuse(const search_hits *primary, const search_hits *other, double threshold, int has_threshold,
                 search_hits *out) {
  for (int l = 0; l < 2; l++) {
    const search_hits *list = l ? other : primary;
    for (size_t i = 0; i < list->n; i++) {
      search_hits_push(out, list->v[i].id, list->v[i].score, list->v[i].raw);
      out->v[out->n - 1].fused = (double)l * 1e12 + (double)i; /* the position: primary first */
    }
  }
  if (!out->n) return;
  search_hits_sort_by_id(out);
  size_t w = 0;
  for (size_t i = 0; i < out->n; i++) {
    if (w && out->v[w - 1].id == out->v[i].id) { /* in both: its primary position, its best evidence */
      if (out->v[i].fused < out->v[w - 1].fused) out->v[w - 1].fused = out->v[i].fused;
      if (out->v[i].score > out->v[w - 1].score) out->v[w - 1].score = out->v[i].score;
    } else {
      out->v[w++] = out->v[i];
    }
  }
  out->n = w;
  w = 0;
  for (size_t i = 0; i < out->n; i++)
    if (!has_threshold || out->v[i].score >= threshold) out->v[w++] = out->v[i];
  out->n = w;
  if (out->n) qsort(out->v, out->n, sizeof *out->v, by_fused_rank);
}

/* the ranked hits of the request's mode; falls back to keyword with a
** warning when vectors cannot answer */
static int rank(kip_ctx *c, const ast_search *q, search_scope *sc, const char *text, search_mode mode, int64_t cap,
                search_hits *out) {
  if (mode == MODE_KEYWORD) return search_keyword(c, q, sc, text, cap, out);
  float *qv = NULL;
  int dim = 0;
  int rc = kip_vector_query(c, text, &qv, &dim);
  if (rc) return rc;
  if (!qv) return search_keyword(c, q, sc, text, cap, out); /* warned */
  if (mode == MODE_SEMANTIC) {
    rc = kip_vector_nearest(c, q, sc, qv, dim, cap, out);
    free(qv);
    return rc;
  }
  search_hits kw = {0}, vec = {0};
  ast_search loose = *q; /* each list uncut by THRESHOLD: it applies to the fused score */
  loose.has_threshold = 0;
  rc = search_keyword(c, &loose, sc, text, cap, &kw);
  if (!rc) rc = kip_vector_nearest(c, &loose, sc, qv, dim, cap, &vec);
  free(qv);
  if (!rc) {
    if (kip_search_primary(c->nx) != KIP_PRIMARY_SEMANTIC) fuse(&kw, &vec, q->threshold, q->has_threshold, out);
    else fuse(&vec, &kw, q->threshold, q->has_threshold, out);
  }
  free(kw.v);
  free(vec.v);
  return rc;
}

/* a statement over the first n hits' elements in one round trip: `columns`
** of element e (and j.pos, the hit's place) from the hits' id list j */
static int prepare_over_hits(kip_ctx *c, const search_hits *h, size_t n, const char *columns, const char *tail,
                             kip_stmt **st) {
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_printf(&sql, "SELECT %s FROM %s j JOIN element e ON e.id = j.id%s", columns, kip_store_ids_sql(c->nx), tail);
  int rc = kip_prepare(c->nx, sql.p, (int)sql.len, st);
  kip_buf_free(&sql);
  if (rc != KIP_STORE_OK) return kip_store_error(c->nx, rc, c->err, "searching");
  search_hits_bind_ids(*st, 1, h, n);
  return 0;
}

/* schema definitions ($ConceptType, $PropositionType) after the instances a
** question is about, keeping each group's order — unless the request
** targets the schema: WITH TYPE names a schema type, or the query is the
** definition's own name */
static int schema_last(kip_ctx *c, const ast_search *q, const char *text, search_hits *h) {
  if (q->propositions || h->n < 2 || (q->type && json_string_value(q->type)[0] == '$')) return 0;
  kip_stmt *st;
  int rc = prepare_over_hits(c, h, h->n, "j.pos, e.name", " WHERE e.type IN ('$ConceptType', '$PropositionType')", &st);
  if (rc) return rc;
  char *is_schema = calloc(h->n, 1);
  search_hit *schema = malloc(sizeof *schema * h->n);
  if (!schema || !is_schema) abort();
  while ((rc = kip_step(st)) == KIP_ROW) {
    int64_t pos = kip_col_int64(st, 0);
    if (pos >= 0 && (size_t)pos < h->n && !search_same_text(kip_col_text(st, 1), text)) is_schema[pos] = 1;
  }
  kip_finish(c->nx, st);
  if (rc != KIP_DONE) {
    free(is_schema);
    free(schema);
    return kip_store_error(c->nx, rc, c->err, "searching");
  }
  size_t w = 0, ns = 0;
  for (size_t i = 0; i < h->n; i++) {
    if (is_schema[i]) schema[ns++] = h->v[i];
    else h->v[w++] = h->v[i];
  }
  free(is_schema);
  memcpy(h->v + w, schema, ns * sizeof *schema);
  free(schema);
  return 0;
}

/* a text shorter than this is a label many elements share ("active"), not something said */
#define REPEAT_MIN_CHARS 24

/* what an episode says: the longest top-level string attribute (an RC11
** Event's content_summary) of an element with a `start_time`, hashed
** (FNV-1a); 0 for anything else — the same description on two concepts is
** what the sleep cycle's duplicate probes look for, never to be pushed down */
static uint64_t said_text_hash(const char *attrs) {
  /* (most hits of most nexuses are not episodes: no parse for them) */
  json_t *a = attrs && strstr(attrs, "\"start_time\"") ? json_loads(attrs, 0, NULL) : NULL;
  if (!a) return 0;
  if (!json_is_string(json_object_get(a, "start_time"))) {
    json_decref(a);
    return 0;
  }
  const char *best = NULL;
  size_t best_len = 0;
  const char *key;
  json_t *v;
  json_object_foreach(a, key, v) {
    if (json_is_string(v) && json_string_length(v) > best_len) {
      best = json_string_value(v);
      best_len = json_string_length(v);
    }
  }
  uint64_t h = 0;
  if (best && best_len >= REPEAT_MIN_CHARS) {
    h = 1469598103934665603ull;
    for (size_t i = 0; i < best_len; i++) h = (h ^ (unsigned char)best[i]) * 1099511628211ull;
  }
  json_decref(a);
  return h;
}

/* the texts (said_text_hash) of the first n hits; 0 where not an episode */
static int said_texts(kip_ctx *c, const search_hits *h, size_t n, uint64_t *text) {
  kip_stmt *st;
  /* (only episodes can repeat: the others' attributes are not read) */
  int rc = prepare_over_hits(c, h, n, "j.pos, e.attributes", " WHERE e.attributes LIKE '%\"start_time\"%'", &st);
  if (rc) return rc;
  memset(text, 0, n * sizeof *text);
  while ((rc = kip_step(st)) == KIP_ROW) {
    int64_t pos = kip_col_int64(st, 0);
    if (pos >= 0 && (size_t)pos < n) text[pos] = said_text_hash(kip_col_text(st, 1));
  }
  kip_finish(c->nx, st);
  return rc == KIP_DONE ? 0 : kip_store_error(c->nx, rc, c->err, "searching");
}

/* the placement over the texts of the first n hits, until `limit` distinct
** ones are placed: the indexes of the hits that say something new
** (fresh[0..*nf)) and of the repeats (again[0..*na)); returns how many hits
** it read */
static size_t place(const uint64_t *text, size_t n, int64_t limit, uint64_t *said, size_t *fresh, size_t *nf,
                    size_t *again, size_t *na) {
  size_t ns = 0, i = 0;
  *nf = *na = 0;
  for (; i < n && (int64_t)*nf < limit; i++) {
    int repeat = 0;
    for (size_t k = 0; text[i] && k < ns && !repeat; k++) repeat = said[k] == text[i];
    if (repeat) again[(*na)++] = i;
    else {
      if (text[i]) said[ns++] = text[i];
      fresh[(*nf)++] = i;
    }
  }
  return i;
}

/* the same thing said again ("I read a review of Piranesi" in ten
** conversations) takes one place among the first results: an episode whose text
** (said_text_hash) an earlier hit already said follows the hits that say
** something new, in its order, until `limit` distinct ones are placed —
** measured on the conversational sets (docs/search.md). The texts of the
** first 2 × limit hits are read first, all of them only when those do not
** place `limit` (a question's hits are up to max(100, 10 × LIMIT)) */
static int repeats_last(kip_ctx *c, search_hits *h, int64_t limit) {
  if (h->n < 2 || limit < 1 || search_cue_off("repeats")) return 0;
  uint64_t *text = malloc(sizeof *text * h->n), *said = malloc(sizeof *said * h->n);
  size_t *fresh = malloc(sizeof *fresh * h->n), *again = malloc(sizeof *again * h->n), nf, na, read = 0;
  search_hit *v = malloc(sizeof *v * h->n);
  if (!text || !said || !fresh || !again || !v) abort();
  size_t n = (uint64_t)limit * 2 < h->n ? (size_t)limit * 2 : h->n;
  int rc = said_texts(c, h, n, text);
  if (!rc) read = place(text, n, limit, said, fresh, &nf, again, &na);
  if (!rc && (int64_t)nf < limit && n < h->n && !(rc = said_texts(c, h, h->n, text)))
    read = place(text, h->n, limit, said, fresh, &nf, again, &na);
  if (!rc) { /* the distinct hits, the repeats, then the rest as they were */
    size_t w = 0;
    for (size_t k = 0; k < nf; k++) v[w++] = h->v[fresh[k]];
    for (size_t k = 0; k < na; k++) v[w++] = h->v[again[k]];
    memcpy(v + w, h->v + read, (h->n - read) * sizeof *v);
    memcpy(h->v, v, h->n * sizeof *v);
  }
  free(text);
  free(said);
  free(fresh);
  free(again);
  free(v);
  return rc;
}

static int render(kip_ctx *c, const search_hits *h, size_t n) {
  kip_stmt *st;
  int rc = prepare_over_hits(c, h, n,
                             "e.id, e.type, e.name, e.subject, e.predicate, e.object, e.attributes, "
                             "e.metadata, e.version, e.updated_at, "
                             "(SELECT z.type IS NULL FROM element z WHERE z.id = e.subject), "
                             "(SELECT z.type IS NULL FROM element z WHERE z.id = e.object), j.pos",
                             " ORDER BY j.pos", &st);
  if (rc) return rc;
  kip_buf_addc(c->out, '[');
  int first = 1;
  while ((rc = kip_step(st)) == KIP_ROW) {
    int64_t pos = kip_col_int64(st, 12);
    if (pos < 0 || (size_t)pos >= n) continue;
    if (!first) kip_buf_addc(c->out, ',');
    first = 0;
    kip_write_scored_element(c->out, st, 0, &h->v[pos].score);
  }
  kip_buf_addc(c->out, ']');
  kip_finish(c->nx, st);
  return rc == KIP_DONE ? 0 : kip_store_error(c->nx, rc, c->err, "searching");
}

int kip_exec_search(kip_ctx *c, const ast_command *cmd) {
  const ast_stmt *s = cmd->stmts[0];
  const ast_search *q = &s->u.search;
  const char *m = q->mode ? json_string_value(q->mode) : kip_search_default_mode(c->nx);
  search_mode mode = !strcmp(m, "semantic") ? MODE_SEMANTIC : !strcmp(m, "hybrid") ? MODE_HYBRID : MODE_KEYWORD;
  if (kip_unindexed(c->nx))
    kip_warn(c, "elements written by a bulk load are not indexed yet; SEARCH may miss them until the load finishes "
                "(kip reindex indexes them now)");
  /* WITH TYPE naming no defined type matches nothing: say so, as FIND says
  ** an anchor does not exist */
  if (q->type && json_is_string(q->type)) {
    const char *meta = q->propositions ? "$PropositionType" : "$ConceptType";
    int d = kip_store_is_defined(c->nx, meta, json_string_value(q->type), c->err);
    if (d < 0) return c->err->code;
    if (!d)
      kip_warn(c, "WITH TYPE \"%.200s\" names no defined %s: nothing can match (DESCRIBE %s lists them)",
               json_string_value(q->type), q->propositions ? "predicate" : "concept type",
               q->propositions ? "PROPOSITION TYPES" : "CONCEPT TYPES");
  }
  int64_t limit = q->limit >= 0 ? q->limit : SEARCH_DEFAULT_LIMIT;
  int64_t cap = limit * 10 < 100 ? 100 : limit * 10;
  if (cap > c->nx->req->max_rows) cap = c->nx->req->max_rows;
  search_hits h = {0};
  search_scope sc;
  int rc = search_scope_init(&sc, c, q);
  if (!rc) rc = rank(c, q, &sc, json_string_value(q->term), mode, cap, &h);
  search_scope_free(&sc);
  if (!rc) rc = schema_last(c, q, json_string_value(q->term), &h);
  if (!rc) rc = repeats_last(c, &h, limit);
  /* the full check (links about links, any depth) on what is returned */
  if (!rc && c->nx->req->scope) {
    size_t w = 0;
    for (size_t i = 0; i < h.n && w < (size_t)limit; i++) {
      int in = kip_in_scope(c->nx, h.v[i].id, c->err);
      if (in < 0) {
        rc = c->err->code;
        break;
      }
      if (in) h.v[w++] = h.v[i];
    }
    h.n = w;
  }
  if (!rc) rc = render(c, &h, h.n < (size_t)limit ? h.n : (size_t)limit);
  free(h.v);
  return rc;
}
