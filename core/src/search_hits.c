/*
** search_hits.c — what every SEARCH mode shares (RC11 §5.2): the ranked
** hit lists (push, order, one hit per id) and the eligibility filter that
** kind, WITH TYPE and the request's governance scope put on the candidates
** *before* ranking (seed 003: vectors shortlist and rank, never widen the
** scope). The executor (exec_search.c) and the modes (search_keyword.c,
** search_vector.c) call it; it calls none of them.
*/
#include <stdlib.h>

#include "search.h"

/* ------------------------------------------------------------ hit lists */
void search_hits_bind_ids(kip_stmt *st, int at, const search_hits *h, size_t n) {
  int64_t *ids = malloc(sizeof *ids * (n ? n : 1));
  if (!ids) abort();
  for (size_t i = 0; i < n; i++) ids[i] = h->v[i].id;
  kip_bind_ids_at(st, at, ids, n);
  free(ids);
}

void search_hits_push(search_hits *h, int64_t id, double score, double raw) {
  if (h->n == h->cap) {
    h->cap = h->cap ? h->cap * 2 : 64;
    h->v = realloc(h->v, h->cap * sizeof *h->v);
    if (!h->v) abort();
  }
  h->v[h->n++] = (search_hit){id, score, raw, 0, 0, 0};
}

static int by_id(const void *a, const void *b) {
  const search_hit *x = a, *y = b;
  return (x->id > y->id) - (x->id < y->id);
}

static int by_score(const void *a, const void *b) {
  const search_hit *x = a, *y = b;
  if (x->score != y->score) return x->score < y->score ? 1 : -1;
  if (x->raw != y->raw) return x->raw < y->raw ? 1 : -1;
  if (x->size != y->size) return x->size < y->size ? 1 : -1;
  return (x->id > y->id) - (x->id < y->id);
}

void search_hits_sort(search_hits *h) {
  if (h->n) qsort(h->v, h->n, sizeof *h->v, by_score);
}

void search_hits_sort_by_id(search_hits *h) {
  if (h->n) qsort(h->v, h->n, sizeof *h->v, by_id);
}

void search_hits_dedup(search_hits *h) {
  if (!h->n) return;
  search_hits_sort_by_id(h);
  size_t w = 0;
  for (size_t i = 0; i < h->n; i++) {
    if (w && h->v[w - 1].id == h->v[i].id) {
      if (h->v[i].score > h->v[w - 1].score) h->v[w - 1].score = h->v[i].score;
      if (h->v[i].raw > h->v[w - 1].raw) h->v[w - 1].raw = h->v[i].raw;
      if (h->v[i].size > h->v[w - 1].size) h->v[w - 1].size = h->v[i].size;
    } else {
      h->v[w++] = h->v[i];
    }
  }
  h->n = w;
  search_hits_sort(h);
}

/* ---------------------------------------------------------- eligibility */
int search_scope_init(search_scope *sc, kip_ctx *c, const ast_search *q) {
  kip_arena_init(&sc->a);
  kql_init(&sc->C, c->nx, &sc->a, c->err);
  sc->cond = kql_scope_cond(&sc->C, "e");
  if (sc->cond && q->propositions) { /* a link to something hidden is hidden too */
    char *scond = kql_scope_cond(&sc->C, "s"), *ocond = kql_scope_cond(&sc->C, "o");
    sc->cond = kql_strf(&sc->C, "%s AND (s.id IS NULL OR %s) AND (o.id IS NULL OR %s)", sc->cond, scond, ocond);
  }
  return sc->C.failed ? c->err->code : 0;
}

void search_scope_free(search_scope *sc) {
  kql_free(&sc->C);
  kip_arena_free(&sc->a);
}

void search_add_filter(kip_buf *sql, const search_scope *sc, const ast_search *q) {
  kip_buf_adds(sql, q->propositions ? "e.predicate IS NOT NULL AND (CAST(?9002 AS TEXT) IS NULL OR e.predicate = ?9002)"
                                    : "e.type IS NOT NULL AND (CAST(?9002 AS TEXT) IS NULL OR e.type = ?9002)");
  if (sc->cond) kip_buf_printf(sql, " AND %s", sc->cond);
}

void search_bind_filter(search_scope *sc, const ast_search *q, kip_stmt *st) {
  kql_bind_all(&sc->C, st);
  if (q->type) kip_bind_text(st, 9002, json_string_value(q->type), -1, 0);
}
