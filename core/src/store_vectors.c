/*
** store_vectors.c — the vector index of SEARCH MODE "semantic" | "hybrid"
** (RC11 §5.2.1; docs/search.md, docs/decisions.md "vector index"): kept in
** the nexus file and consistent with the graph.
**
** search_vector holds one int8-quantised unit vector per element, clustered
** by (kind of row, type or predicate, id) so WITH TYPE reads one range; the
** model and dimension are recorded in kip_info (vector_model, vector_dim).
** Every commit that changes an element's text (the search_dirty set the
** keyword index is synced from) changes its vector in the same transaction:
** with an in-transaction embedder (the local one) the vector is recomputed;
** otherwise the old vector is dropped and the element queued durably in
** search_vector_pending, to be embedded after commit (kip_embed_pending,
** which runs the embedder outside any transaction and writes a vector only
** if the element has not changed meanwhile). A nexus never holds a vector
** that disagrees with its element's current text, whatever crashes when.
**
** Both backends, through the row API: on PostgreSQL the same two tables
** live in the nexus's schema (store_pg_schema.c v6; vec a bytea), kept by
** the writer's commit before the SEARCH index's own sync (store_pg_search.c)
** and scanned by the client like SQLite's (docs/postgresql.md "Vectors").
*/
#include <math.h>
#include <stdlib.h>
#include <string.h>

#include "store.h"

#define EMBED_BATCH 64
#define ADOPT_AT_ONCE_MAX 20000
#define VECTORS_PER_REQUEST 512 /* a backlog too large to embed at open: embedded this many after each request */

/* what an element's text is made of (element_text), columns 5..8 of a row */
#define TEXT_COLUMNS_SQL \
  "coalesce(e.name, e.predicate), e.attributes, (SELECT name FROM element WHERE id = e.subject), " \
  "(SELECT name FROM element WHERE id = e.object)"
#define VECTOR_ROW_SQL(from)                                                                                \
  "SELECT d.id, e.id IS NOT NULL, e.predicate IS NOT NULL, coalesce(e.type, e.predicate), e.version, "      \
  TEXT_COLUMNS_SQL " FROM " from " d LEFT JOIN element e ON e.id = d.id"
/* a vector written: replacing the element's earlier one */
#define PUT_VECTOR_SQLITE "INSERT OR REPLACE INTO search_vector(prop, kind, id, vec) VALUES(?1, ?2, ?3, ?4)"
/* elements queued for embedding (SQLite reads WHERE true to parse the upsert) */
#define QUEUE_SQL(from) "INSERT INTO search_vector_pending(id) SELECT id FROM " from " WHERE true ON CONFLICT DO NOTHING"

/* the recorded model and dimension; model[0] == 0 when vectors are off.
** Read at every commit that changed text: the statement stays prepared
** (kip_prepare's cache) */
static int recorded_model(kip_nexus *nx, char *model, size_t n, int *dim) {
  model[0] = 0;
  *dim = 0;
  kip_stmt *st;
  int rc = kip_prepare(nx, "SELECT key, value FROM kip_info WHERE key IN ('vector_model', 'vector_dim')", -1, &st);
  if (rc != KIP_STORE_OK) return rc;
  while ((rc = kip_step(st)) == KIP_ROW) {
    const char *k = kip_col_text(st, 0), *v = kip_col_text(st, 1);
    if (!k || !v) continue;
    if (!strcmp(k, "vector_model")) snprintf(model, n, "%s", v);
    else *dim = atoi(v);
  }
  kip_finish(nx, st);
  return rc == KIP_DONE ? KIP_STORE_OK : rc;
}

static int embedder_matches(kip_nexus *nx, const char *model, int dim) {
  return nx->has_embedder && model[0] && !strcmp(nx->embedder.model, model) && nx->embedder.dim == dim;
}

/* quantise a vector to int8 of unit length; 0 when it is all zeros */
static int quantise(const float *v, int dim, signed char *out) {
  double norm = 0;
  for (int i = 0; i < dim; i++) norm += (double)v[i] * v[i];
  norm = sqrt(norm);
  if (!(norm > 1e-12) || !isfinite(norm)) return 0;
  for (int i = 0; i < dim; i++) {
    double x = v[i] / norm * 127.0;
    out[i] = (signed char)lrint(x > 127 ? 127 : x < -127 ? -127 : x);
  }
  return 1;
}

int kip_vector_embed(kip_nexus *nx, int n, const char *const *texts, float *out, kip_error *err) {
  char msg[512] = "";
  if (nx->embedder.embed(nx->embedder.ud, n, texts, out, msg, sizeof msg))
    return kip_err(err, KIP_E_INTERNAL, "Check the embedder's configuration and that its service is reachable.",
                   "the embedder \"%s\" failed: %s", nx->embedder.model, msg[0] ? msg : "no reason given");
  return 0;
}

/* write the vectors of rows[0..n) (ids with texts) */
typedef struct pending_row {
  int64_t id, version;
  int prop;
  char *kind, *text;
} pending_row;

static void rows_free(pending_row *r, int n) {
  for (int i = 0; i < n; i++) {
    free(r[i].kind);
    free(r[i].text);
  }
}

/* ------------------------------------- a batch's vectors on PostgreSQL */
/* (a statement per kind of write for the whole batch: the row-by-row writes
** below, cheap in SQLite's process, cost two round trips an element on a
** server — a load of 100 000 elements waited 200 000 of them) */
#define PG_PUT_BATCH                                                                                    \
  "INSERT INTO search_vector(prop, kind, id, vec) SELECT x.prop, x.kind, x.id, decode(x.vec, 'hex') "    \
  "FROM json_to_recordset(CAST(?1 AS json)) AS x(prop int, kind text, id bigint, vec text) ORDER BY x.id " \
  "ON CONFLICT (id) DO UPDATE SET prop = excluded.prop, kind = excluded.kind, vec = excluded.vec"

static int cmp_id_version(const void *a, const void *b) {
  int64_t x = ((const int64_t *)a)[0], y = ((const int64_t *)b)[0];
  return (x > y) - (x < y);
}

/* run "head (the ids)", a statement over a list of ids; 0 or the store's code */
static int run_over_ids(kip_nexus *nx, const char *head, const int64_t *ids, size_t n) {
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_printf(&sql, "%s (SELECT id FROM %s j)", head, kip_store_ids_sql(nx));
  kip_stmt *st;
  int rc = kip_prepare(nx, sql.p, (int)sql.len, &st);
  kip_buf_free(&sql);
  if (rc != KIP_STORE_OK) return rc;
  kip_bind_ids(st, ids, n);
  rc = kip_step(st);
  kip_finish(nx, st);
  return rc == KIP_DONE ? KIP_STORE_OK : rc;
}

static int write_vectors_pg(kip_nexus *nx, pending_row *rows, int n, const float *vecs, int check_version,
                            signed char *q, kip_error *err) {
  int dim = nx->embedder.dim, rc = KIP_STORE_OK;
  int64_t *ids = malloc(sizeof *ids * (size_t)(n ? n : 1) * 3), *gone = ids + n, *done = ids + 2 * n;
  int64_t *versions = NULL; /* (id, version) pairs by id: the elements as they are now */
  size_t nversions = 0, ngone = 0, ndone = 0;
  if (!ids) abort();
  for (int i = 0; i < n; i++) ids[i] = rows[i].id;
  if (check_version && n > 0) {
    kip_buf sql;
    kip_buf_init(&sql);
    kip_buf_printf(&sql, "SELECT e.id, e.version FROM %s j JOIN element e ON e.id = j.id", kip_store_ids_sql(nx));
    kip_stmt *st;
    rc = kip_prepare(nx, sql.p, (int)sql.len, &st);
    kip_buf_free(&sql);
    if (rc == KIP_STORE_OK) {
      kip_bind_ids(st, ids, (size_t)n);
      versions = malloc(sizeof *versions * 2 * (size_t)n);
      if (!versions) abort();
      while (nversions < (size_t)n && (rc = kip_step(st)) == KIP_ROW) {
        versions[2 * nversions] = kip_col_int64(st, 0);
        versions[2 * nversions++ + 1] = kip_col_int64(st, 1);
      }
      if (rc == KIP_ROW || rc == KIP_DONE) rc = KIP_STORE_OK;
      kip_finish(nx, st);
      qsort(versions, nversions, sizeof *versions * 2, cmp_id_version);
    }
  }
  kip_buf put;
  kip_buf_init(&put);
  int puts = 0;
  for (int i = 0; rc == KIP_STORE_OK && i < n; i++) {
    int deleted = 0;
    if (check_version) { /* changed since it was read: it is queued again, leave it */
      int64_t key[2] = {rows[i].id, 0};
      const int64_t *now = bsearch(key, versions, nversions, sizeof *versions * 2, cmp_id_version);
      if (now && now[1] != rows[i].version) continue;
      deleted = !now; /* deleted meanwhile: no vector may outlive it */
    }
    if (!deleted && rows[i].kind && quantise(vecs + (size_t)i * (size_t)dim, dim, q)) {
      kip_buf_printf(&put, "%s{\"prop\":%d,\"id\":%lld,\"kind\":", puts++ ? "," : "[", rows[i].prop, (long long)rows[i].id);
      kip_buf_json_str(&put, rows[i].kind, strlen(rows[i].kind));
      kip_buf_adds(&put, ",\"vec\":\"");
      kip_buf_hex(&put, q, (size_t)dim);
      kip_buf_adds(&put, "\"}");
    } else {
      gone[ngone++] = rows[i].id;
    }
    done[ndone++] = rows[i].id;
  }
  free(versions);
  if (rc == KIP_STORE_OK && puts) {
    kip_buf_addc(&put, ']');
    kip_stmt *st;
    rc = kip_prepare(nx, PG_PUT_BATCH, -1, &st);
    if (rc == KIP_STORE_OK) {
      size_t len = put.len;
      kip_bind_json_owned(st, 1, kip_buf_detach(&put), (int)len);
      rc = kip_step(st) == KIP_DONE ? KIP_STORE_OK : kip_store_errcode(nx);
      kip_finish(nx, st);
    }
  }
  kip_buf_free(&put);
  if (rc == KIP_STORE_OK && ngone) rc = run_over_ids(nx, "DELETE FROM search_vector WHERE id IN", gone, ngone);
  if (rc == KIP_STORE_OK && ndone) rc = run_over_ids(nx, "DELETE FROM search_vector_pending WHERE id IN", done, ndone);
  free(ids);
  return rc == KIP_STORE_OK ? 0 : kip_store_error(nx, rc, err, "writing vectors");
}

static int write_vectors(kip_nexus *nx, pending_row *rows, int n, const float *vecs, int check_version, kip_error *err) {
  int dim = nx->embedder.dim;
  signed char *q = malloc((size_t)dim);
  if (!q) abort();
  if (nx->pg) {
    int rc = write_vectors_pg(nx, rows, n, vecs, check_version, q, err);
    free(q);
    return rc;
  }
  kip_stmt *put = NULL, *del = NULL, *ver = NULL, *done = NULL;
  int rc = kip_prepare(nx, PUT_VECTOR_SQLITE, -1, &put);
  if (rc == KIP_STORE_OK) rc = kip_prepare(nx, "DELETE FROM search_vector WHERE id = ?1", -1, &del);
  if (rc == KIP_STORE_OK) rc = kip_prepare(nx, "SELECT version FROM element WHERE id = ?1", -1, &ver);
  if (rc == KIP_STORE_OK) rc = kip_prepare(nx, "DELETE FROM search_vector_pending WHERE id = ?1", -1, &done);
  for (int i = 0; rc == KIP_STORE_OK && i < n; i++) {
    int gone = 0;
    if (check_version) { /* changed since it was read: it is queued again, leave it */
      kip_bind_int64(ver, 1, rows[i].id);
      int r = kip_step(ver);
      int same = r == KIP_ROW && kip_col_int64(ver, 0) == rows[i].version;
      kip_reset(ver);
      if (r != KIP_ROW && r != KIP_DONE) {
        rc = r;
        break;
      }
      if (!same && r == KIP_ROW) continue;
      gone = r == KIP_DONE; /* deleted meanwhile: no vector may outlive it */
    }
    kip_stmt *st = del;
    if (!gone && rows[i].kind && quantise(vecs + (size_t)i * (size_t)dim, dim, q)) {
      st = put;
      kip_bind_int64(put, 1, rows[i].prop);
      kip_bind_text(put, 2, rows[i].kind, -1, 0);
      kip_bind_int64(put, 3, rows[i].id);
      kip_bind_blob(put, 4, q, dim);
    } else {
      kip_bind_int64(del, 1, rows[i].id);
    }
    rc = kip_step(st);
    kip_reset(st);
    if (rc != KIP_DONE) break;
    kip_bind_int64(done, 1, rows[i].id);
    rc = kip_step(done);
    kip_reset(done);
    if (rc == KIP_DONE) rc = KIP_STORE_OK;
  }
  kip_finish(nx, put); /* cached: the commit of every write comes back here */
  kip_finish(nx, del);
  kip_finish(nx, ver);
  kip_finish(nx, done);
  free(q);
  return rc == KIP_STORE_OK || rc == KIP_DONE ? 0 : kip_store_error(nx, rc, err, "writing vectors");
}

/* the text an element is embedded from, one field per line: its name, its
** heading, its body — the SEARCH index's fields (kip_search_text), built
** here so that both backends embed the same bytes */
static char *element_text(kip_stmt *st) {
  kip_buf b;
  kip_buf_init(&b);
  const char *name = kip_col_text(st, 5), *attrs = kip_col_text(st, 6);
  size_t n = attrs ? (size_t)kip_col_bytes(st, 6) : 0;
  const char *ends[2] = {kip_col_text(st, 7), kip_col_text(st, 8)};
  if (name) kip_buf_adds(&b, name);
  kip_buf_addc(&b, '\n');
  kip_search_text_add(&b, attrs, n, 0, NULL, 0);
  kip_buf_addc(&b, '\n');
  kip_search_text_add(&b, attrs, n, 1, ends, 2);
  return kip_buf_detach(&b);
}

/* read up to max rows of `sql` (VECTOR_ROW_SQL) into rows; *n rows read */
static int read_rows(kip_stmt *st, pending_row *rows, int max, int *n) {
  *n = 0;
  int rc = KIP_DONE;
  while (*n < max && (rc = kip_step(st)) == KIP_ROW) {
    pending_row *r = &rows[(*n)++];
    r->id = kip_col_int64(st, 0);
    r->prop = (int)kip_col_int64(st, 2);
    r->kind = kip_col_int64(st, 1) ? strdup(kip_col_text(st, 3)) : NULL;
    r->version = kip_col_int64(st, 4);
    r->text = element_text(st);
  }
  return *n == max ? KIP_ROW : rc;
}

static int embed_rows(kip_nexus *nx, pending_row *rows, int n, float **vecs, kip_error *err) {
  *vecs = calloc((size_t)(n ? n : 1) * (size_t)nx->embedder.dim, sizeof **vecs);
  const char **texts = malloc(sizeof *texts * (size_t)(n ? n : 1));
  if (!*vecs || !texts) abort();
  for (int i = 0; i < n; i++) texts[i] = rows[i].text;
  int rc = n ? kip_vector_embed(nx, n, texts, *vecs, err) : 0;
  free(texts);
  return rc;
}

/* ------------------------------------------------ commit-time maintenance */
int kip_vector_sync(kip_nexus *nx, const char *from, kip_error *err) { return kip_vector_sync_then(nx, from, NULL, err); }

/* kip_vector_sync, then the statements `then` (a script; NULL none): on
** PostgreSQL where the elements are queued, in one round trip with them */
int kip_vector_sync_then(kip_nexus *nx, const char *from, const char *then, kip_error *err) {
  char model[128];
  int dim, rc = recorded_model(nx, model, sizeof model, &dim);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "reading the vector model");
  if (!model[0]) /* vectors are off in this nexus */
    return then ? kip_store_exec(nx, then, err, "indexing for SEARCH") : 0;
  kip_buf sql;
  kip_buf_init(&sql);
  if (!embedder_matches(nx, model, dim) || !nx->embedder.in_transaction) {
    kip_buf_printf(&sql, "DELETE FROM search_vector WHERE id IN (SELECT id FROM %s);" QUEUE_SQL("%s"), from, from);
    if (then) kip_buf_printf(&sql, "; %s", then);
    rc = kip_store_exec(nx, sql.p, err, "queueing elements for embedding");
    kip_buf_free(&sql);
    return rc;
  }
  kip_buf_printf(&sql, VECTOR_ROW_SQL("%s"), from);
  kip_stmt *st;
  rc = kip_prepare(nx, sql.p, (int)sql.len, &st);
  kip_buf_free(&sql);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "embedding");
  pending_row rows[EMBED_BATCH];
  int n = 0, r = 0;
  do {
    r = read_rows(st, rows, EMBED_BATCH, &n);
    if (r != KIP_ROW && r != KIP_DONE) {
      rows_free(rows, n);
      rc = kip_store_error(nx, r, err, "embedding");
      break;
    }
    float *vecs;
    rc = embed_rows(nx, rows, n, &vecs, err);
    if (!rc) rc = write_vectors(nx, rows, n, vecs, 0, err);
    free(vecs);
    rows_free(rows, n);
  } while (!rc && r == KIP_ROW);
  kip_finish(nx, st);
  if (!rc && then) rc = kip_store_exec(nx, then, err, "indexing for SEARCH");
  return rc;
}

/* ------------------------------------------------------------ public API */
static int record_model(kip_nexus *nx, kip_error *err) {
  kip_stmt *st;
  int rc = kip_prepare(nx, "INSERT INTO kip_info(key, value) VALUES('vector_model', ?1), ('vector_dim', ?2) "
                           "ON CONFLICT(key) DO UPDATE SET value = excluded.value", -1, &st);
  if (rc == KIP_STORE_OK) {
    char dim[16];
    snprintf(dim, sizeof dim, "%d", nx->embedder.dim);
    kip_bind_text(st, 1, nx->embedder.model, -1, 0);
    kip_bind_text(st, 2, dim, -1, 1);
    rc = kip_step(st);
    kip_finish(nx, st);
  }
  return rc == KIP_DONE ? 0 : kip_store_error(nx, rc, err, "recording the vector model");
}

int kip_reset_vectors(kip_nexus *nx, kip_error *err) {
  kip_err_clear(err);
  if (!nx->has_embedder)
    return kip_err(err, KIP_E_INTERNAL, "Configure an embedder first (docs/search.md).", "the nexus has no embedder");
  if (nx->readonly_file) return kip_err(err, KIP_E_DENIED, "Open the nexus read-write.", "the nexus is read-only");
  if (kip_tx_begin(nx, err)) return err->code;
  int rc = record_model(nx, err);
  if (!rc)
    rc = kip_store_exec(nx,
                        "DELETE FROM search_vector; INSERT INTO search_vector_pending(id) SELECT e.id FROM element e "
                        "LEFT JOIN element s ON s.id = e.subject WHERE NOT " KIP_UNINDEXED_SQL("kip_guard")
                        " ON CONFLICT DO NOTHING",
                        err, "queueing elements for embedding");
  if (rc) {
    kip_tx_rollback(nx);
    return rc;
  }
  nx->req->defer_index = 1; /* nothing to index: do not embed the dirty set now */
  rc = kip_tx_commit_upkeep(nx, err);
  nx->req->defer_index = 0;
  return rc;
}

/* embed the queue, at most max_total elements (0: all), in transactions of batch */
static int embed_queue(kip_nexus *nx, int64_t batch, int64_t max_total, void (*progress)(int64_t, int64_t, void *),
                       void *ud, kip_error *err) {
  kip_err_clear(err);
  if (!nx->has_embedder)
    return kip_err(err, KIP_E_INTERNAL, "Configure an embedder first (docs/search.md).", "the nexus has no embedder");
  if (nx->readonly_file) return 0;
  char model[128];
  int dim, rc = recorded_model(nx, model, sizeof model, &dim);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "reading the vector model");
  if (!model[0] && kip_reset_vectors(nx, err)) return err->code; /* the first model: adopted */
  if (model[0] && !embedder_matches(nx, model, dim))
    return kip_err(err, KIP_E_VERSION,
                   "Replacing them is an explicit model change: kip reindex --vectors --switch-model (Lua: "
                   "nx:reindex_vectors{switch_model = true}); or configure the model they were made with.",
                   "the nexus's vectors were made by \"%s\" (%d dimensions); the configured embedder makes \"%s\" (%d)",
                   model, dim, nx->embedder.model, nx->embedder.dim);
  if (batch <= 0) batch = 256;
  if (batch > 4096) batch = 4096;
  int64_t total = kip_store_count(nx, "SELECT count(*) FROM search_vector_pending"), done = 0;
  pending_row *rows = calloc((size_t)batch, sizeof *rows);
  if (!rows) abort();
  kip_buf sql;
  kip_buf_init(&sql);
  kip_buf_printf(&sql, VECTOR_ROW_SQL("(SELECT id FROM search_vector_pending WHERE id > ?1 ORDER BY id LIMIT %lld)"),
                 (long long)batch);
  int64_t after = INT64_MIN;
  rc = 0;
  while (!rc) {
    kip_stmt *st;
    int r = kip_prepare(nx, sql.p, -1, &st);
    int n = 0;
    if (r == KIP_STORE_OK) {
      kip_bind_int64(st, 1, after);
      r = read_rows(st, rows, (int)batch, &n);
      kip_finish(nx, st); /* reset: no read transaction stays open while embedding */
    }
    if (r != KIP_ROW && r != KIP_DONE) {
      rc = kip_store_error(nx, r, err, "reading elements to embed");
      rows_free(rows, n);
      break;
    }
    if (!n) break;
    after = rows[n - 1].id;
    float *vecs;
    rc = embed_rows(nx, rows, n, &vecs, err);
    if (!rc && !(rc = kip_tx_begin(nx, err))) {
      rc = write_vectors(nx, rows, n, vecs, 1, err);
      if (rc) kip_tx_rollback(nx);
      else rc = kip_tx_commit_upkeep(nx, err);
    }
    free(vecs);
    rows_free(rows, n);
    done += n;
    if (!rc && progress) progress(done < total ? done : total, total, ud);
    if (max_total > 0 && done >= max_total) break;
  }
  kip_buf_free(&sql);
  free(rows);
  return rc;
}

/* Elements queued while no in-transaction embedder was attached (a nexus
** opened without one, a killed load indexed at the next open before its
** embedder came): embedded now by the attached one when it makes the
** recorded model's vectors. Returns how many are left queued (0: none), or
** -1 with err filled. limit: embed only when at most that many wait. */
int64_t kip_vector_catch_up(kip_nexus *nx, int64_t limit, kip_error *err) {
  if (!nx->has_embedder || !nx->embedder.in_transaction || nx->readonly_file || nx->tx_depth) return 0;
  char model[128];
  int dim, rc = recorded_model(nx, model, sizeof model, &dim);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "reading the vector model"), -1;
  if (!model[0] || !embedder_matches(nx, model, dim)) return 0; /* off, or another model's: an explicit switch */
  int64_t waiting = kip_store_count(nx, "SELECT count(*) FROM search_vector_pending");
  if (waiting <= 0) return 0;
  if (limit > 0 && waiting > limit) { /* too many to wait for now: a batch after each request */
    nx->vectors_behind = 1;
    return waiting;
  }
  if (kip_embed_pending(nx, 0, NULL, NULL, err)) return -1;
  nx->vectors_behind = 0;
  return 0;
}

int kip_embed_pending(kip_nexus *nx, int64_t batch, void (*progress)(int64_t, int64_t, void *), void *ud,
                      kip_error *err) {
  return embed_queue(nx, batch, 0, progress, ud, err);
}

void kip_vector_catch_up_some(kip_nexus *nx) {
  if (!nx->vectors_behind || nx->tx_depth || nx->req->defer_index) return;
  kip_error err;
  if (embed_queue(nx, VECTORS_PER_REQUEST, VECTORS_PER_REQUEST, NULL, NULL, &err) ||
      kip_store_count(nx, "SELECT count(*) FROM (SELECT 1 FROM search_vector_pending LIMIT 1) AS q") <= 0)
    nx->vectors_behind = 0; /* done, or failing: kip reindex --vectors says why */
}

/* ------------------------------------- what the operator measured (kip search eval) */
/* kip_info's value of key, copied into out ("" when absent) */
static void info_value(kip_nexus *nx, const char *key, char *out, size_t n) {
  out[0] = 0;
  kip_stmt *st;
  if (kip_prepare(nx, "SELECT value FROM kip_info WHERE key = ?1", -1, &st) != KIP_STORE_OK) return;
  kip_bind_text(st, 1, key, -1, 0);
  if (kip_step(st) == KIP_ROW && kip_col_text(st, 0)) snprintf(out, n, "%s", kip_col_text(st, 0));
  kip_finish(nx, st);
}

static int set_info(kip_nexus *nx, const char *key, const char *value, kip_error *err) {
  if (nx->readonly_file) return kip_err(err, KIP_E_DENIED, "Open the nexus read-write.", "the nexus is read-only");
  if (kip_tx_begin(nx, err)) return err->code;
  kip_stmt *st;
  int rc = kip_prepare(nx, "INSERT INTO kip_info(key, value) VALUES(?1, ?2) ON CONFLICT(key) DO UPDATE SET value = excluded.value",
                       -1, &st);
  if (rc == KIP_STORE_OK) {
    kip_bind_text(st, 1, key, -1, 0);
    kip_bind_text(st, 2, value, -1, 0);
    rc = kip_step(st) == KIP_DONE ? KIP_STORE_OK : kip_store_errcode(nx);
    kip_finish(nx, st);
  }
  if (rc != KIP_STORE_OK) {
    kip_tx_rollback(nx);
    return kip_store_error(nx, rc, err, "recording what SEARCH measured");
  }
  return kip_tx_commit_upkeep(nx, err);
}

int kip_search_primary(kip_nexus *nx) {
  char v[16];
  info_value(nx, "search_hybrid_primary", v, sizeof v);
  return strcmp(v, "semantic") ? KIP_PRIMARY_KEYWORD : KIP_PRIMARY_SEMANTIC;
}

const char *kip_search_primary_name(kip_nexus *nx) {
  return kip_search_primary(nx) == KIP_PRIMARY_SEMANTIC ? "semantic" : "keyword";
}

int kip_search_set_primary(kip_nexus *nx, const char *mode, kip_error *err) {
  kip_err_clear(err);
  if (!mode || (strcmp(mode, "keyword") && strcmp(mode, "semantic")))
    return kip_err(err, KIP_E_VALUE_TYPE, "Give \"keyword\" or \"semantic\" (kip search eval says which measured better).",
                   "the primary list of hybrid SEARCH is keyword or semantic, not \"%s\"", mode ? mode : "(none)");
  return set_info(nx, "search_hybrid_primary", mode, err);
}

const char *kip_search_default_mode(kip_nexus *nx) {
  char v[16];
  info_value(nx, "search_default_mode", v, sizeof v);
  return !strcmp(v, "semantic") ? "semantic" : !strcmp(v, "hybrid") ? "hybrid" : "keyword";
}

int kip_search_set_default_mode(kip_nexus *nx, const char *mode, kip_error *err) {
  kip_err_clear(err);
  if (!mode || (strcmp(mode, "keyword") && strcmp(mode, "semantic") && strcmp(mode, "hybrid")))
    return kip_err(err, KIP_E_VALUE_TYPE, "Give \"keyword\", \"semantic\" or \"hybrid\" (kip search eval says which measured best).",
                   "a SEARCH mode is keyword, semantic or hybrid, not \"%s\"", mode ? mode : "(none)");
  return set_info(nx, "search_default_mode", mode, err);
}

int kip_set_embedder(kip_nexus *nx, const kip_embedder *e, kip_error *err) {
  kip_err_clear(err);
  if (nx->has_embedder && nx->embedder.release) nx->embedder.release(nx->embedder.ud);
  nx->has_embedder = 0;
  if (!e) return 0;
  if (!e->embed || e->dim <= 0 || e->dim > 8192 || !e->model[0]) {
    if (e->release) e->release(e->ud);
    return kip_err(err, KIP_E_VALUE_TYPE, "An embedder needs a model id, a dimension in 1..8192 and an embed function.",
                   "invalid embedder \"%s\" (dimension %d)", e->model, e->dim);
  }
  nx->embedder = *e;
  nx->has_embedder = 1;
  if (nx->readonly_file) return 0;
  char model[128];
  int dim, rc = recorded_model(nx, model, sizeof model, &dim);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "reading the vector model");
  if (model[0]) /* a mismatch is reported by SEARCH until reindexed; a backlog is caught up */
    return kip_vector_catch_up(nx, ADOPT_AT_ONCE_MAX, err) < 0 ? err->code : 0;
  if (kip_reset_vectors(nx, err)) return err->code;
  if (e->in_transaction && kip_store_count(nx, "SELECT count(*) FROM search_vector_pending") <= ADOPT_AT_ONCE_MAX)
    return kip_embed_pending(nx, 0, NULL, NULL, err);
  return 0;
}

int kip_embed_texts(kip_nexus *nx, int n, const char *const *texts, float **out, int *dim, kip_error *err) {
  kip_err_clear(err);
  *out = NULL;
  *dim = 0;
  if (!nx->has_embedder)
    return kip_err(err, KIP_E_INTERNAL, "Configure an embedder first (docs/search.md).", "the nexus has no embedder");
  int d = nx->embedder.dim;
  float *v = calloc((size_t)(n > 0 ? n : 1) * (size_t)d, sizeof *v);
  if (!v) abort();
  if (n > 0 && kip_vector_embed(nx, n, texts, v, err)) {
    free(v);
    return err->code;
  }
  for (int i = 0; i < n; i++) {
    float *x = v + (size_t)i * (size_t)d;
    double norm = 0;
    for (int k = 0; k < d; k++) norm += (double)x[k] * x[k];
    norm = sqrt(norm);
    for (int k = 0; k < d && norm > 1e-12 && isfinite(norm); k++) x[k] = (float)(x[k] / norm);
  }
  *out = v;
  *dim = d;
  return 0;
}

/* the status; counting every vector only when asked (a SEARCH needs the
** model and whether anything is pending, cheaply: vectors = -1) */
static int vector_status(kip_nexus *nx, kip_vector_status *out, int count_vectors, kip_error *err) {
  kip_err_clear(err);
  memset(out, 0, sizeof *out);
  int rc = recorded_model(nx, out->model, sizeof out->model, &out->dim);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "reading the vector model");
  out->vectors = count_vectors ? kip_store_count(nx, "SELECT count(*) FROM search_vector") : -1;
  out->pending = count_vectors ? kip_store_count(nx, "SELECT count(*) FROM search_vector_pending")
                               : kip_store_count(nx, "SELECT count(*) FROM (SELECT 1 FROM search_vector_pending LIMIT 1000000) AS q");
  out->embedder_matches = embedder_matches(nx, out->model, out->dim);
  return 0;
}

int kip_vector_state(kip_nexus *nx, kip_vector_status *out, kip_error *err) {
  return vector_status(nx, out, 0, err);
}

int kip_vector_status_get(kip_nexus *nx, kip_vector_status *out, kip_error *err) {
  return vector_status(nx, out, 1, err);
}

/* ------------------------------------------------------------ verification */
#define VERIFY_ROW_SQL                                                                                            \
  "SELECT e.id, 1, e.predicate IS NOT NULL, coalesce(e.type, e.predicate), e.version, " TEXT_COLUMNS_SQL           \
  ", v.vec, v.prop, v.kind, p.id IS NOT NULL FROM element e LEFT JOIN search_vector v ON v.id = e.id "           \
  "LEFT JOIN search_vector_pending p ON p.id = e.id WHERE e.id > ?1 ORDER BY e.id LIMIT 256"

static void note_problem(kip_vector_check *out, int64_t id, const char *what) {
  if (!out->problems++) snprintf(out->first, sizeof out->first, "element %lld: %s", (long long)id, what);
}

int kip_vector_verify(kip_nexus *nx, kip_vector_check *out, kip_error *err) {
  kip_err_clear(err);
  memset(out, 0, sizeof *out);
  char model[128];
  int dim, rc = recorded_model(nx, model, sizeof model, &dim);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "reading the vector model");
  if (!model[0]) return 0;
  if (!embedder_matches(nx, model, dim))
    return kip_err(err, KIP_E_VERSION, "Configure the embedder the vectors were made with.",
                   "the vectors were made by \"%s\"; the nexus's embedder cannot check them", model);
  kip_stmt *st;
  rc = kip_prepare(nx, VERIFY_ROW_SQL, -1, &st);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "verifying vectors");
  signed char *q = malloc((size_t)dim);
  pending_row rows[256];
  struct {
    signed char *vec;
    int has, prop, pending;
    char *kind;
  } got[256];
  if (!q) abort();
  int64_t after = INT64_MIN;
  for (;;) {
    int n = 0;
    kip_bind_int64(st, 1, after);
    while (n < 256 && (rc = kip_step(st)) == KIP_ROW) {
      pending_row *r = &rows[n];
      r->id = kip_col_int64(st, 0);
      r->prop = (int)kip_col_int64(st, 2);
      r->kind = strdup(kip_col_text(st, 3));
      r->text = element_text(st);
      int null_vec = kip_col_type(st, 9) == KIP_COL_NULL;
      got[n].has = !null_vec && kip_col_bytes(st, 9) == dim;
      got[n].vec = NULL;
      if (got[n].has) {
        got[n].vec = malloc((size_t)dim);
        if (!got[n].vec) abort();
        memcpy(got[n].vec, kip_col_blob(st, 9), (size_t)dim);
      }
      if (!null_vec && !got[n].has) note_problem(out, r->id, "a vector of the wrong size");
      got[n].prop = (int)kip_col_int64(st, 10);
      got[n].kind = kip_col_text(st, 11) ? strdup(kip_col_text(st, 11)) : NULL;
      got[n].pending = (int)kip_col_int64(st, 12);
      n++;
    }
    kip_reset(st);
    if (rc != KIP_ROW && rc != KIP_DONE) {
      rows_free(rows, n);
      for (int i = 0; i < n; i++) free(got[i].vec), free(got[i].kind);
      rc = kip_store_error(nx, rc, err, "verifying vectors");
      break;
    }
    if (!n) {
      rc = 0;
      break;
    }
    after = rows[n - 1].id;
    float *vecs;
    rc = embed_rows(nx, rows, n, &vecs, err);
    for (int i = 0; i < n; i++) {
      if (!rc) {
        out->checked++;
        int nonzero = quantise(vecs + (size_t)i * (size_t)dim, dim, q);
        if (got[i].has && got[i].pending) note_problem(out, rows[i].id, "has a vector and is also queued");
        else if (got[i].has && (!nonzero || got[i].prop != rows[i].prop || !got[i].kind || strcmp(got[i].kind, rows[i].kind)))
          note_problem(out, rows[i].id, "its vector row does not match the element");
        else if (got[i].has) {
          for (int d = 0; d < dim; d++)
            if (abs(got[i].vec[d] - q[d]) > 1) {
              note_problem(out, rows[i].id, "its vector does not match its current text");
              break;
            }
        } else if (!got[i].pending && nonzero) note_problem(out, rows[i].id, "has no vector and is not queued");
      }
      free(got[i].vec);
      free(got[i].kind);
    }
    free(vecs);
    rows_free(rows, n);
    if (rc) break;
  }
  kip_finish(nx, st);
  free(q);
  if (!rc) {
    int64_t orphans = kip_store_count(nx, "SELECT count(*) FROM search_vector v WHERE NOT EXISTS (SELECT 1 FROM element e WHERE e.id = v.id)");
    if (orphans > 0) {
      out->problems += orphans;
      if (!out->first[0]) snprintf(out->first, sizeof out->first, "%lld vectors of deleted elements", (long long)orphans);
    }
  }
  return rc;
}

void kip_vector_close(kip_nexus *nx) {
  if (nx->has_embedder && nx->embedder.release) nx->embedder.release(nx->embedder.ud);
  nx->has_embedder = 0;
}
