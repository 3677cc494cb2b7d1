/*
** store_search_rank.c — the keyword score of SEARCH (RC11 §5.2.1 "keyword", the
** `_score` scale of §5.2.2): an FTS5 auxiliary function
**
**     kip_rank(search_word, w_name, w_heading, w_body, private) -> [0, 1]
**
** It is BM25F (k1 = 1.2, b = 0.75): each column's term count is weighted
** and normalised by that column's length against its average — a length
** above the average lowers it, a length below does not raise it — the sum
** saturates, and the result is normalised to a fixed scale so THRESHOLD
** means the same thing for every query:
**
**     tf_t  = Σ_c w_c · n_{t,c} / (1 − b + b · max(len_c, avglen_c) / avglen_c)
**
** (Shortness is not evidence: with BM25's own len_c, a text shorter than
** the average counts its words more, and for any b > 0 the shortest of
** the texts that hold the same words comes first — in a memory of
** conversations, the small talk: "Piranesi? sounds good" over the turn
** that says what the book was. A long text still counts a word less, so a
** document that says everything does not come first by saying it at
** length. Measured: docs/search.md "Length normalisation".)
**     score = Σ_t idf_t · tf_t / (k1 + tf_t)  /  Σ_t idf_t
**
** where t ranges over the query's terms (FTS5 phrases) and idf_t =
** ln((N − n_t + 0.5) / (n_t + 0.5)) floored at a small positive value. It
** reads as "the idf-weighted share of the query this row covers, each term
** saturating with repetition".
**
** With private = 1 (the request has a governance scope) the score uses no
** statistic of the whole index — idf_t = 1 and fixed average lengths —
** because document frequencies and lengths counted over hidden elements
** would let scores reveal them (docs/security.md). Seed 002 §5.2;
** docs/search.md.
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store_sqlite.h"

#define K1 1.2
#define B 0.75
#define MAX_COLS 8

/* average column lengths assumed without index statistics (private mode):
** a short name, a few heading words, a paragraph of body */
static const double PRIVATE_AVGLEN[MAX_COLS] = {2, 4, 32, 32, 32, 32, 32, 32};

/* per-query statistics, computed once (xSetAuxdata) */
typedef struct rank_query {
  int nphrase, ncol;
  double avglen[MAX_COLS];
  double idf_sum;
  double idf[];
} rank_query;

static int count_hit(const Fts5ExtensionApi *api, Fts5Context *fts, void *ud) {
  (void)api;
  (void)fts;
  (*(sqlite3_int64 *)ud)++;
  return SQLITE_OK;
}

static int query_stats(const Fts5ExtensionApi *api, Fts5Context *fts, int private_mode, rank_query **out) {
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
  q->ncol = api->xColumnCount(fts);
  if (q->ncol > MAX_COLS) q->ncol = MAX_COLS;
  int rc = SQLITE_OK;
  sqlite3_int64 rows = 0;
  if (!private_mode) rc = api->xRowCount(fts, &rows);
  for (int c = 0; c < q->ncol; c++) {
    sqlite3_int64 tokens = 0;
    if (!private_mode && rc == SQLITE_OK) rc = api->xColumnTotalSize(fts, c, &tokens);
    q->avglen[c] = private_mode || rows <= 0 ? PRIVATE_AVGLEN[c] : (double)tokens / (double)rows;
    if (q->avglen[c] <= 0) q->avglen[c] = 1;
  }
  for (int i = 0; rc == SQLITE_OK && i < n; i++) {
    double idf = 1;
    if (!private_mode) {
      sqlite3_int64 hits = 0;
      rc = api->xQueryPhrase(fts, i, &hits, count_hit);
      idf = log(((double)rows - (double)hits + 0.5) / ((double)hits + 0.5));
      if (idf < 1e-6) idf = 1e-6;
    }
    q->idf[i] = idf;
    q->idf_sum += idf;
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
  int private_mode = nval > 3 && sqlite3_value_int(val[3]);
  rank_query *q;
  int rc = query_stats(api, fts, private_mode, &q);
  if (rc != SQLITE_OK) {
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  double norm[MAX_COLS];
  for (int c = 0; rc == SQLITE_OK && c < q->ncol; c++) {
    int len = 0;
    rc = api->xColumnSize(fts, c, &len);
    double w = c < nval && c < 3 ? sqlite3_value_double(val[c]) : 1.0;
    double longer = (double)len > q->avglen[c] ? (double)len : q->avglen[c];
    norm[c] = w / (1 - B + B * longer / q->avglen[c]);
  }
  double *tf = calloc((size_t)(q->nphrase > 0 ? q->nphrase : 1), sizeof *tf);
  if (!tf) {
    sqlite3_result_error_nomem(ctx);
    return;
  }
  int ninst = 0;
  if (rc == SQLITE_OK) rc = api->xInstCount(fts, &ninst);
  for (int i = 0; rc == SQLITE_OK && i < ninst; i++) {
    int phrase, col, off;
    rc = api->xInst(fts, i, &phrase, &col, &off);
    if (rc == SQLITE_OK && phrase >= 0 && phrase < q->nphrase && col >= 0 && col < q->ncol) tf[phrase] += norm[col];
  }
  if (rc != SQLITE_OK) {
    free(tf);
    sqlite3_result_error_code(ctx, rc);
    return;
  }
  double score = 0;
  for (int i = 0; i < q->nphrase; i++)
    if (tf[i] > 0) score += q->idf[i] * tf[i] / (K1 + tf[i]);
  free(tf);
  sqlite3_result_double(ctx, q->idf_sum > 0 ? score / q->idf_sum : 0);
}

/* kip_size(search_word) -> the row's length in tokens, all its fields:
** how much the text says, which orders hits of equal score (the length
** prior: search_keyword.c) */
static void fn_size(const Fts5ExtensionApi *api, Fts5Context *fts, sqlite3_context *ctx, int nval,
                    sqlite3_value **val) {
  (void)nval;
  (void)val;
  int n = 0, rc = api->xColumnSize(fts, -1, &n);
  if (rc != SQLITE_OK) sqlite3_result_error_code(ctx, rc);
  else sqlite3_result_int(ctx, n);
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
  rc = api->xCreateFunction(api, "kip_rank", NULL, fn_rank, NULL);
  return rc == SQLITE_OK ? api->xCreateFunction(api, "kip_size", NULL, fn_size, NULL) : rc;
}
