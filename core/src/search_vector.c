/*
** search_vector.c — vector candidates for SEARCH MODE "semantic" | "hybrid"
** (RC11 §5.2.1): the query is embedded by the nexus's embedder and compared
** by cosine with the int8 unit vectors of store_vectors.c in one exact scan
** of the eligible range — kind and WITH TYPE select a clustered range of
** search_vector; under a governance scope each row is joined to its element
** and the scope condition filters it before it is scored, so a vector never
** surfaces an element outside the scope (seed 003: vectors shortlist and
** rank, they never widen the scope). docs/decisions.md "vector index" has
** the measurements behind the exact scan.
**
** The score is the cosine's excess over the query's chance level, on the
** scale every mode shares (docs/search.md "Scores"): score = (cosine −
** chance) / (1 − chance), 0 for an element no more similar than chance
** (still ranked by its cosine: the order is the cosine's, only THRESHOLD
** drops what scores below it).
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

#define CHANCE_SAMPLE 4096 /* the kind's vectors a typed SEARCH samples for its chance level */
#define CHANCE_MIN 16      /* fewer eligible elements: no chance level */
#define CHANCE_SIGMAS 2.0

int kip_vector_query(kip_ctx *c, const char *text, float **out, int *dim) {
  kip_nexus *nx = c->nx;
  *out = NULL;
  kip_vector_status vs;
  kip_error e;
  if (kip_vector_state(nx, &vs, &e)) {
    *c->err = e;
    return e.code;
  }
  if (!nx->has_embedder) {
    kip_warn(c, "no embedder is configured for this nexus; keyword search was used (docs/search.md)");
    return 0;
  }
  if (!vs.model[0]) {
    kip_warn(c, "this nexus has no vectors yet; keyword search was used (kip reindex --vectors builds them)");
    return 0;
  }
  if (!vs.embedder_matches)
    return kip_err(c->err, KIP_E_VERSION,
                   "Configure the model the vectors were made with, or replace them (an explicit model change): "
                   "kip reindex --vectors --switch-model.",
                   "the nexus's vectors were made by \"%s\" (%d dimensions) but the configured embedder is \"%s\" (%d)",
                   vs.model, vs.dim, nx->embedder.model, nx->embedder.dim);
  float *v = calloc((size_t)vs.dim, sizeof *v);
  if (!v) abort();
  if (kip_vector_embed(nx, 1, &text, v, &e)) {
    kip_warn(c, "%s; keyword search was used", e.message);
    free(v);
    return 0;
  }
  double norm = 0;
  for (int i = 0; i < vs.dim; i++) norm += (double)v[i] * v[i];
  norm = sqrt(norm);
  if (!(norm > 1e-12) || !isfinite(norm)) {
    kip_warn(c, "the embedder found nothing it knows in the query; keyword search was used");
    free(v);
    return 0;
  }
  for (int i = 0; i < vs.dim; i++) v[i] = (float)(v[i] / norm);
  if (vs.pending > 0 && nx->req->scope) /* a count would include hidden elements */
    kip_warn(c, "some elements are not embedded yet and cannot be found by meaning until they are");
  else if (vs.pending > 0)
    kip_warn(c,
             "%lld element%s not embedded yet and cannot be found by meaning until they are (kip reindex --vectors, or "
             "the nexus's embedder catches up)",
             (long long)vs.pending, vs.pending == 1 ? " is" : "s are");
  *out = v;
  *dim = vs.dim;
  return 0;
}

/* Σ a·b and Σ b·b over int8 vectors (vectorised: this file is built with -O3) */
static void dot_int8(const int8_t *restrict a, const int8_t *restrict b, int n, int32_t *dot, int32_t *norm2) {
  int32_t d = 0, m = 0;
  for (int i = 0; i < n; i++) {
    d += (int16_t)a[i] * (int16_t)b[i];
    m += (int16_t)b[i] * (int16_t)b[i];
  }
  *dot = d;
  *norm2 = m;
}

/* a min-heap of the best `cap` hits by score */
typedef struct topk {
  search_hit *v;
  size_t n, cap;
} topk;

static void sift_down(topk *t, size_t i) {
  for (;;) {
    size_t l = 2 * i + 1, r = l + 1, m = i;
    if (l < t->n && t->v[l].score < t->v[m].score) m = l;
    if (r < t->n && t->v[r].score < t->v[m].score) m = r;
    if (m == i) return;
    search_hit x = t->v[i];
    t->v[i] = t->v[m];
    t->v[m] = x;
    i = m;
  }
}

static void offer(topk *t, int64_t id, double score) {
  if (t->n < t->cap) {
    size_t i = t->n++;
    t->v[i] = (search_hit){id, score, score, 0, 0, 0};
    while (i && t->v[(i - 1) / 2].score > t->v[i].score) {
      search_hit x = t->v[i];
      t->v[i] = t->v[(i - 1) / 2];
      t->v[(i - 1) / 2] = x;
      i = (i - 1) / 2;
    }
  } else if (score > t->v[0].score) {
    t->v[0] = (search_hit){id, score, score, 0, 0, 0};
    sift_down(t, 0);
  }
}

/* running sums of a query's cosines */
typedef struct cos_stats {
  double sum, sum2;
  int64_t n;
} cos_stats;

static void stats_add(cos_stats *cs, double cosine) {
  cs->sum += cosine;
  cs->sum2 += cosine * cosine;
  cs->n++;
}

static double cosine_of(const int8_t *qi, double qnorm, const signed char *v, int dim) {
  int32_t dot, norm2;
  dot_int8(qi, (const int8_t *)v, dim, &dot, &norm2);
  double cosine = norm2 > 0 && qnorm > 0 ? (double)dot / (qnorm * sqrt((double)norm2)) : 0;
  return cosine > 1 ? 1 : cosine;
}

/* the kind's eligible vectors, optionally of one type, optionally at most `limit` */
static int vectors_stmt(kip_ctx *c, const ast_search *q, search_scope *sc, int with_type, int limit, kip_stmt **st) {
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_adds(&sql, "SELECT v.id, v.vec FROM search_vector v");
  if (sc->cond) {
    kip_buf_adds(&sql, " JOIN element e ON e.id = v.id");
    if (q->propositions) kip_buf_adds(&sql, " LEFT JOIN element s ON s.id = e.subject LEFT JOIN element o ON o.id = e.object");
  }
  kip_buf_adds(&sql, with_type ? " WHERE v.prop = ?9004 AND v.kind = ?9002" : " WHERE v.prop = ?9004");
  if (sc->cond) kip_buf_printf(&sql, " AND %s", sc->cond);
  if (limit > 0) kip_buf_printf(&sql, " LIMIT %d", limit);
  int rc = kip_prepare(c->nx, sql.p, (int)sql.len, st);
  kip_buf_free(&sql);
  if (rc != KIP_STORE_OK) return kip_store_error(c->nx, rc, c->err, "searching vectors");
  kip_stmt_binary_results(*st); /* every vector of the range: their bytes, not their text */
  search_bind_filter(sc, q, *st);
  kip_bind_int64(*st, 9004, q->propositions ? 1 : 0);
  return 0;
}

/* the chance level of a query: what it scores against the memory at large.
** Most of a memory is unrelated to any one question, so chance = mean + 2σ of
** the query's cosines with the eligible elements of its kind — every one
** when the scan covered the kind (no WITH TYPE: *cs already holds them),
** else the first CHANCE_SAMPLE of the kind. Under a scope only eligible
** elements count, so hidden ones never move a score. Fewer than CHANCE_MIN
** elements: no level (0). */
static int chance_level(kip_ctx *c, const ast_search *q, search_scope *sc, const int8_t *qi, double qnorm, int dim,
                        cos_stats *cs, double *level) {
  *level = 0;
  if (q->type) { /* the scan saw one type: sample the kind */
    memset(cs, 0, sizeof *cs);
    kip_stmt *st;
    int rc = vectors_stmt(c, q, sc, 0, CHANCE_SAMPLE, &st);
    if (rc) return rc;
    while ((rc = kip_step(st)) == KIP_ROW) {
      const signed char *v = kip_col_blob(st, 1);
      if (kip_col_bytes(st, 1) == dim && v) stats_add(cs, cosine_of(qi, qnorm, v, dim));
    }
    kip_finish(c->nx, st);
    if (rc != KIP_DONE) return kip_store_error(c->nx, rc, c->err, "searching vectors");
  }
  if (cs->n < CHANCE_MIN) return 0;
  double mean = cs->sum / (double)cs->n, var = cs->sum2 / (double)cs->n - mean * mean;
  *level = mean + CHANCE_SIGMAS * sqrt(var > 0 ? var : 0);
  *level = *level < 0 ? 0 : *level > 0.95 ? 0.95 : *level;
  return 0;
}

/* the query quantised like the stored vectors (integer dot products), and its norm */
static int8_t *quantise(const float *qv, int dim, double *qnorm) {
  int8_t *qi = malloc(sizeof *qi * (size_t)dim);
  if (!qi) abort();
  int64_t qnorm2 = 0;
  for (int i = 0; i < dim; i++) {
    qi[i] = (int8_t)lrintf(qv[i] * 127.0f); /* |qv[i]| <= 1: unit length */
    qnorm2 += (int64_t)qi[i] * qi[i];
  }
  *qnorm = sqrt((double)qnorm2);
  return qi;
}

int kip_vector_nearest(kip_ctx *c, const ast_search *q, search_scope *sc, const float *qv, int dim, int64_t cap,
                       search_hits *h) {
  kip_stmt *st;
  int rc = vectors_stmt(c, q, sc, q->type != NULL, 0, &st);
  if (rc) return rc;
  topk t = {malloc(sizeof(search_hit) * (size_t)(cap > 0 ? cap : 1)), 0, (size_t)(cap > 0 ? cap : 1)};
  if (!t.v) abort();
  double qnorm;
  int8_t *qi = quantise(qv, dim, &qnorm);
  cos_stats cs = {0, 0, 0};
  while ((rc = kip_step(st)) == KIP_ROW) {
    const signed char *v = kip_col_blob(st, 1);
    if (kip_col_bytes(st, 1) != dim || !v || qnorm == 0) continue;
    double cosine = cosine_of(qi, qnorm, v, dim);
    stats_add(&cs, cosine);
    if (cosine > 0) offer(&t, kip_col_int64(st, 0), cosine);
  }
  kip_finish(c->nx, st);
  double chance = 0;
  if (rc == KIP_DONE) rc = chance_level(c, q, sc, qi, qnorm, dim, &cs, &chance);
  else rc = kip_store_error(c->nx, rc, c->err, "searching vectors");
  free(qi);
  if (rc) {
    free(t.v);
    return rc;
  }
  /* scores: the cosine's excess over chance; the order stays the cosine's */
  for (size_t i = 0; i < t.n; i++) {
    double score = (t.v[i].score - chance) / (1 - chance);
    score = score > 1 ? 1 : score < 0 ? 0 : score;
    if (q->has_threshold && score < q->threshold) continue;
    search_hits_push(h, t.v[i].id, score, t.v[i].score);
  }
  free(t.v);
  search_hits_sort(h);
  return 0;
}
