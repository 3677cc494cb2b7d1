/*
** search_rank.c — the keyword score of SEARCH (RC11 §5.2.1 "keyword", the
** `_score` scale of §5.2.2): an FTS5 auxiliary function
**
**     kip_rank(search_word, w_name, w_heading, w_body) -> [0, 1]
**
** It is BM25 (k1 = 1.2, b = 0.75, the formula of FTS5's own bm25()) with
** per-column weights, normalised to a fixed scale so THRESHOLD means the
** same thing for every query:
**
**     score = Σ_t idf_t · sat_t  /  Σ_t idf_t
**     sat_t = tf_t / (tf_t + k1 · (1 − b + b · |d| / avgdl))      in [0, 1)
**
** where t ranges over the query's phrases (terms), tf_t is the weighted
** count of t in the row (Σ_column weight · occurrences) and idf_t =
** ln((N − n_t + 0.5) / (n_t + 0.5)) floored at a small positive value. It
** reads as "the idf-weighted share of the query this row covers, each term
** saturating with repetition", and orders rows exactly as BM25 does (it is
** BM25 divided by a constant of the query). Seed 002 §5.2; docs/search.md.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "search.h"

#define K1 1.2
#define B 0.75
#define MAX_WEIGHTS 8

/* per-query statistics, computed once (xSetAuxdata) */
typedef struct rank_query {
  int nphrase;
  double avgdl;
  double idf_sum;
  double idf[];
} rank_query;

static int count_hit(const Fts5ExtensionApi *api, Fts5Context *fts, void *ud) {
  (void)api;
  (void)fts;
  (*(sqlite3_int64 *)ud)++;
  return SQLITE_OK;
}

static int query_stats(const Fts5ExtensionApi *api, Fts5Context *fts, rank_query **out) {
  rank_query *q = api->xGetAuxdata(fts, 0);
  if (q) {
    *out = q;
    return SQLITE_OK;
  }
  int n = api->xPhraseCount(fts);
  q = sqlite3_malloc64(sizeof *q + (size_t)(n > 0 ? n : 1) * sizeof(double));
  if (!q) return SQLITE_NOMEM;
  memset(q, 0, sizeof *q);
  q->nphrase = n;
  sqlite3_int64 rows = 0, tokens = 0;
  int rc = api->xRowCount(fts, &rows);
  if (rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, -1, &tokens);
  q->avgdl = rows > 0 ? (double)tokens / (double)rows : 1;
  for (int i = 0; rc == SQLITE_OK && i < n; i++) {
    sqlite3_int64 hits = 0;
    rc = api->xQueryPhrase(fts, i, &hits, count_hit);
    double idf = log(((double)rows - (double)hits + 0.5) / ((double)hits + 0.5));
    q->idf[i] = idf > 1e-6 ? idf : 1e-6;
    q->idf_sum += q->idf[i];
  }
  if (rc == SQLITE_OK) rc = api->xSetAuxdata(fts, q, sqlite3_free);
  if (rc != SQLITE_OK) {
    sqlite3_free(q);
    return rc;
  }
  *out = q;
  return SQLITE_OK;
}

static void fn_rank(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nval, sqlite3_value **val) {
  rank_query *q;
  int rc = query_stats(api, fts, &q);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  double weight[MAX_WEIGHTS];
  int ncol = api->xColumnCount(fts);
  for (int c = 0; c < MAX_WEIGHTS; c++) weight[c] = c < nval ? sqlite3_value_double(val[c]) : 1.0;
  double *tf = calloc((size_t)(q->nphrase > 0 ? q->nphrase : 1), sizeof *tf);
  if (!tf) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  int ninst = 0;
  rc = api->xInstCount(fts, &ninst);
  for (int i = 0; rc == SQLITE_OK && i < ninst; i++) {
    int phrase, col, off;
    rc = api->xInst(fts, i, &phrase, &col, &off);
    if (rc == SQLITE_OK && phrase >= 0 && phrase < q->nphrase && col >= 0 && col < ncol)
      tf[phrase] += col < MAX_WEIGHTS ? weight[col] : 1.0;
  }
  int dl = 0;
  if (rc == SQLITE_OK) rc = api->xColumnSize(fts, -1, &dl);
  if (rc != SQLITE_OK) {
    free(tf);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  double norm = K1 * (1 - B + B * (double)dl / q->avgdl), score = 0;
  for (int i = 0; i < q->nphrase; i++)
    if (tf[i] > 0) score += q->idf[i] * tf[i] / (tf[i] + norm);
  free(tf);
  sqlite3_result_double(ctx, q->idf_sum > 0 ? score / q->idf_sum : 0);
}

int kip_register_rank_function(sqlite3 *db) {
  fts5_api *api = NULL;
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, "SELECT fts5(?1)", -1, &st, NULL);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_pointer(st, 1, (void *)&api, "fts5_api_ptr", NULL);
  sqlite3_step(st);
  rc = sqlite3_finalize(st);
  if (rc != SQLITE_OK || !api || api->iVersion < 2) return rc ? rc : SQLITE_ERROR;
  return api->xCreateFunction(api, "kip_rank", NULL, fn_rank, NULL);
}
