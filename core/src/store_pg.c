/*
** store_pg.c — the PostgreSQL store's connection (docs/postgresql.md,
** issue 40): a postgresql:// URL and its nexus (`?nexus=NAME`, a schema
** `kip_NAME` of the database; `&read=URL`: a hot standby for readonly
** calls, request_replica.c, with the read-your-writes check here), the
** prepared statements by SQL text (the statement cache of kip_prepare, "?n"
** placeholders spelt "$n"), SQL scripts, and the server's failures mapped
** to KIP errors by SQLSTATE. The family's
** other files: store_pg_rows.c (the row API), store_pg_schema.c (the schema
** and the functions compiled queries call).
**
** Writers of one nexus are serialised by a transaction-level advisory lock
** on the nexus (store_tx.c): a write transaction sees the latest committed
** state and no other writer, as SQLite's BEGIN IMMEDIATE gives; readers do
** not wait (MVCC), and a read batch is one REPEATABLE READ snapshot.
*/
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_pg.h"

#define URL_HINT \
  "Write postgresql://USER@HOST:PORT/DATABASE?nexus=NAME (NAME: letters, digits and _; credentials from the URL, " \
  "PGPASSWORD or ~/.pgpass)."

int kip_store_is_url(const char *path) {
  return path && (!strncmp(path, "postgresql://", 13) || !strncmp(path, "postgres://", 11));
}

void kip_pg_keep_error(struct kip_pg *pg, const PGresult *res) {
  const char *state = res ? PQresultErrorField(res, PG_DIAG_SQLSTATE) : NULL;
  const char *msg = res ? PQresultErrorField(res, PG_DIAG_MESSAGE_PRIMARY) : NULL;
  snprintf(pg->sqlstate, sizeof pg->sqlstate, "%s", state ? state : (PQstatus(pg->conn) == CONNECTION_BAD ? "08006" : "XX000"));
  snprintf(pg->message, sizeof pg->message, "%s", msg ? msg : PQerrorMessage(pg->conn));
  size_t n = strlen(pg->message);
  while (n && (pg->message[n - 1] == '\n' || pg->message[n - 1] == ' ')) pg->message[--n] = 0;
}

/* ------------------------------------------------------------ the URL */
/* a URL parameter's value, %XX decoded; 0 when it does not fit or is malformed */
static int percent_decode(const char *p, size_t len, char *out, size_t cap) {
  size_t n = 0;
  for (size_t i = 0; i < len; i++) {
    int c = (unsigned char)p[i];
    if (c == '%') {
      if (i + 2 >= len || !isxdigit((unsigned char)p[i + 1]) || !isxdigit((unsigned char)p[i + 2])) return 0;
      char hex[3] = {p[i + 1], p[i + 2], 0};
      c = (int)strtol(hex, NULL, 16);
      i += 2;
    }
    if (n + 1 >= cap || c == 0) return 0;
    out[n++] = (char)c;
  }
  out[n] = 0;
  return 1;
}

/* the URL without ?nexus= and ?read= (libpq refuses parameters it does not
** know), the nexus name, the read URL (a hot standby's, with the nexus
** added; "" when none) and the URL as messages show it (no password) */
static int split_url(const char *url, char *conninfo, size_t cap, char *nexus, size_t ncap, char *read, size_t rcap,
                     char *shown, size_t scap, kip_error *err) {
  snprintf(nexus, ncap, "default");
  read[0] = 0;
  const char *q = strchr(url, '?');
  size_t base = q ? (size_t)(q - url) : strlen(url);
  if (base + 1 >= cap) return kip_err(err, KIP_E_INTERNAL, URL_HINT, "the PostgreSQL URL is too long");
  memcpy(conninfo, url, base);
  size_t n = base;
  conninfo[n] = 0;
  int first = 1;
  for (const char *p = q ? q + 1 : NULL; p && *p;) {
    const char *amp = strchr(p, '&');
    size_t len = amp ? (size_t)(amp - p) : strlen(p);
    if (len > 6 && !strncmp(p, "nexus=", 6)) {
      size_t vl = len - 6;
      if (vl == 0 || vl >= ncap - 8)
        return kip_err(err, KIP_E_INTERNAL, URL_HINT, "the nexus name of the PostgreSQL URL is empty or too long");
      for (size_t k = 0; k < vl; k++) {
        char c = p[6 + k];
        if (!((c >= 'a' && c <= 'z') || (c >= '0' && c <= '9') || c == '_'))
          return kip_err(err, KIP_E_INTERNAL, URL_HINT,
                         "the nexus name '%.*s' of the PostgreSQL URL has a character other than a-z, 0-9 and _",
                         (int)vl, p + 6);
      }
      snprintf(nexus, ncap, "%.*s", (int)vl, p + 6);
    } else if (len >= 5 && !strncmp(p, "read=", 5)) {
      if (!percent_decode(p + 5, len - 5, read, rcap - 80) || !kip_store_is_url(read) || strstr(read, "nexus="))
        return kip_err(err, KIP_E_INTERNAL,
                       "Write ?read=postgresql://USER@HOST:PORT/DATABASE (a hot standby of this server, without "
                       "?nexus=: the nexus is this URL's; percent-encode any & or ? of it).",
                       "the read URL of the PostgreSQL URL is not a postgresql:// URL without a nexus");
    } else if (len) {
      if (n + len + 2 >= cap) return kip_err(err, KIP_E_INTERNAL, URL_HINT, "the PostgreSQL URL is too long");
      conninfo[n++] = first ? '?' : '&';
      memcpy(conninfo + n, p, len);
      n += len;
      conninfo[n] = 0;
      first = 0;
    }
    p = amp ? amp + 1 : NULL;
  }
  if (read[0]) {
    size_t rl = strlen(read);
    snprintf(read + rl, rcap - rl, "%snexus=%s", strchr(read, '?') ? "&" : "?", nexus);
  }
  /* shown: scheme://user@host... with any :password removed */
  const char *auth = strstr(url, "://");
  const char *at = auth ? strchr(auth + 3, '@') : NULL;
  const char *colon = auth && at ? memchr(auth + 3, ':', (size_t)(at - auth - 3)) : NULL;
  if (colon) snprintf(shown, scap, "%.*s%.*s", (int)(colon - url), url, (int)(base - (size_t)(at - url)), at);
  else snprintf(shown, scap, "%.*s", (int)base, url);
  return 0;
}

/* ------------------------------------------------------- placeholders */
/* the placeholders of sql in order: SQLite's numbers ("?n", a bare "?" one
** more than the largest before it), each with its position; literals and
** quoted identifiers skipped. Calls f(ud, start, end, number) for each. */
static void each_placeholder(const char *sql, size_t len, void (*f)(void *, size_t, size_t, unsigned), void *ud) {
  unsigned next = 1;
  for (size_t i = 0; i < len; i++) {
    char c = sql[i];
    if (c == '\'' || c == '"') {
      size_t j = i + 1;
      while (j < len && !(sql[j] == c && (j + 1 >= len || sql[j + 1] != c))) j += sql[j] == c ? 2 : 1;
      i = j;
      continue;
    }
    if (c != '?') continue;
    size_t j = i + 1;
    unsigned v = 0;
    while (j < len && sql[j] >= '0' && sql[j] <= '9' && v < 100000) v = v * 10 + (unsigned)(sql[j++] - '0');
    if (j == i + 1) v = next;
    if (v >= next) next = v + 1;
    f(ud, i, j, v);
    i = j - 1;
  }
}

typedef struct numbers {
  unsigned *v;
  int n, cap;
} numbers;

static void collect_number(void *ud, size_t start, size_t end, unsigned v) {
  (void)start;
  (void)end;
  numbers *ns = ud;
  for (int k = 0; k < ns->n; k++)
    if (ns->v[k] == v) return;
  if (ns->n == ns->cap) {
    ns->cap = ns->cap ? ns->cap * 2 : 8;
    ns->v = realloc(ns->v, (size_t)ns->cap * sizeof *ns->v);
    if (!ns->v) abort();
  }
  int k = ns->n++;
  while (k > 0 && ns->v[k - 1] > v) { /* kept sorted */
    ns->v[k] = ns->v[k - 1];
    k--;
  }
  ns->v[k] = v;
}

typedef struct respell {
  const char *sql;
  size_t at;
  const numbers *ns;
  kip_buf out;
} respell;

static void write_number(void *ud, size_t start, size_t end, unsigned v) {
  respell *r = ud;
  kip_buf_add(&r->out, r->sql + r->at, start - r->at);
  int k = 0;
  while (r->ns->v[k] != v) k++;
  kip_buf_printf(&r->out, "$%d", k + 1);
  r->at = end;
}

/* PostgreSQL numbers its parameters densely ($1..$n, each typed): SQLite's
** numbers, which may leave gaps (?9002), map to them in order (*map: the
** SQLite number of each $k, malloc'd) */
char *kip_pg_placeholders(const char *sql, size_t len, size_t *out_len, unsigned **map, int *nmap) {
  numbers ns = {0};
  each_placeholder(sql, len, collect_number, &ns);
  respell r = {sql, 0, &ns, {0}};
  kip_buf_init(&r.out);
  each_placeholder(sql, len, write_number, &r);
  kip_buf_add(&r.out, sql + r.at, len - r.at);
  *out_len = r.out.len;
  if (map) {
    *map = ns.v;
    *nmap = ns.n;
  } else {
    free(ns.v);
  }
  return kip_buf_detach(&r.out);
}

/* ---------------------------------------------------------- round trips */
/* send the pipeline's sync, read the first result of each of the n
** statements sent before it (NULL when the connection broke), and leave
** pipeline mode */
static void pipeline_results(struct kip_pg *pg, PGresult **out, int n) {
  PQpipelineSync(pg->conn);
  PGresult *r;
  for (int i = 0; i < n; i++) {
    out[i] = NULL;
    while ((r = PQgetResult(pg->conn))) {
      if (!out[i]) out[i] = r;
      else PQclear(r);
    }
  }
  while ((r = PQgetResult(pg->conn))) {
    int sync = PQresultStatus(r) == PGRES_PIPELINE_SYNC;
    PQclear(r);
    if (sync) break;
  }
  PQexitPipelineMode(pg->conn);
}

void kip_pg_drain(struct kip_pg *pg) {
  kip_pg_batch_result(pg);
  if (!pg->draining) return;
  pg->draining = 0;
  PGresult *r;
  while ((r = PQgetResult(pg->conn))) PQclear(r);
}

void kip_pg_defer(struct kip_pg *pg, const char *sql) { pg->deferred = sql; }

void kip_pg_send_without_waiting(struct kip_pg *pg, const char *sql) {
  kip_pg_drain(pg);
  pg->deferred = NULL;
  if (PQsendQuery(pg->conn, sql)) pg->draining = 1;
}

/* the rows waiting in a batch go before any other statement */
static int flush_batch(struct kip_pg *pg) {
  /* (a batch that failed voids the transaction: nothing more runs in it
  ** until it is rolled back, kip_pg_rollback) */
  return pg->batch_failed || ((pg->batch_rows[0] || pg->batch_rows[1]) && kip_pg_batch_send(pg, 1));
}

void kip_pg_rollback(struct kip_pg *pg, const char *sql, int outermost) {
  kip_pg_drain(pg);
  if (outermost) kip_pg_batch_discard(pg);
  else if (flush_batch(pg)) return; /* the transaction is void: the outermost rollback follows */
  pg->synced_changes = -1;
  PQclear(PQexec(pg->conn, sql));
}

/* a generation read: the value plus one, 0 when it could not be read */
static unsigned generation_of(PGresult *r) {
  if (PQresultStatus(r) != PGRES_TUPLES_OK || PQntuples(r) < 1 || PQgetisnull(r, 0, 0)) return 0;
  return (unsigned)atoll(PQgetvalue(r, 0, 0)) + 1;
}

/* the assumed generation against one read: a mismatch marks the read
** stale (the caller repeats it) */
static void check_assumption(struct kip_pg *pg, unsigned read) {
  pg->assumed = 0;
  if (read) pg->last_version = read;
  if (read != pg->data_version) pg->stale = 1;
}

/* A read that assumes the last generation seen runs without a
** transaction: no BEGIN, no COMMIT, each statement in its own snapshot
** and the generation read after it in the same round trip. Every write
** that changes rows bumps the generation as it commits, and a later
** snapshot sees whatever an earlier one did: when each read after a
** statement is the assumed one, nothing was committed between the
** assumption (read before the first statement) and the last statement,
** so all of them read the state the assumption names — one snapshot, as
** REPEATABLE READ gives, without its two statements. Otherwise the read is
** stale and repeated in a transaction. */
static int unwrap(struct kip_pg *pg) {
  if (pg->deferred && pg->assumed) {
    pg->deferred = NULL; /* the read's BEGIN: not sent */
    pg->unwrapped = 1;
  }
  return pg->unwrapped;
}

PGresult *kip_pg_query(struct kip_pg *pg, const char *sql) {
  kip_pg_drain(pg);
  if (flush_batch(pg)) return NULL;
  if (unwrap(pg)) { /* a script cannot share a pipeline: it, then the generation */
    PGresult *r = PQexec(pg->conn, sql);
    PGresult *g = PQexec(pg->conn, PG_GENERATION);
    check_assumption(pg, generation_of(g));
    PQclear(g);
    return r;
  }
  if (!pg->deferred) return PQexec(pg->conn, sql);
  kip_buf b; /* a script: the deferred statement leads it */
  kip_buf_init(&b);
  kip_buf_printf(&b, "%s; %s", pg->deferred, sql);
  kip_buf_addc(&b, 0);
  pg->deferred = NULL;
  PGresult *r = PQexec(pg->conn, b.p);
  kip_buf_free(&b);
  return r;
}

PGresult *kip_pg_run(kip_nexus *nx, const char *name, int nparams, const char *const *values, int binary,
                     int beside_batch) {
  struct kip_pg *pg = nx->pg;
  kip_pg_drain(pg);
  if (beside_batch ? pg->batch_failed : flush_batch(pg)) return NULL;
  int unwrapped = unwrap(pg);
  if (!pg->deferred && !unwrapped) return PQexecPrepared(pg->conn, name, nparams, values, NULL, NULL, binary);
  if (!PQenterPipelineMode(pg->conn)) return NULL;
  /* the deferred statement and the statement; or the statement and the
  ** generation of an unwrapped read */
  const char *first = pg->deferred;
  pg->deferred = NULL;
  PGresult *got[2] = {NULL, NULL};
  if (first) PQsendQueryParams(pg->conn, first, 0, NULL, NULL, NULL, NULL, 0);
  PQsendQueryPrepared(pg->conn, name, nparams, values, NULL, NULL, binary);
  if (unwrapped) PQsendQueryPrepared(pg->conn, PG_ST(nx->stmts[ST_DATA_VERSION])->name, 0, NULL, NULL, NULL, 0);
  pipeline_results(pg, got, 2);
  if (unwrapped) {
    check_assumption(pg, generation_of(got[1]));
    PQclear(got[1]);
    return got[0];
  }
  if (PQresultStatus(got[0]) != PGRES_COMMAND_OK) { /* the statement did not run */
    PQclear(got[1]);
    return got[0];
  }
  PQclear(got[0]);
  return got[1];
}

/* A write transaction's BEGIN, the nexus's writer lock and the write
** generation read under it, in one round trip. The generation holds for
** the whole transaction: every writer takes the lock before it counts one. */
int kip_pg_begin_write(kip_nexus *nx, kip_error *err) {
  struct kip_pg *pg = nx->pg;
  char sql[384];
  snprintf(sql, sizeof sql,
           "BEGIN ISOLATION LEVEL READ COMMITTED; SELECT pg_advisory_xact_lock(hashtextextended('%s', 7)); " PG_GENERATION,
           pg->schema);
  PGresult *r = kip_pg_query(pg, sql);
  if (PQresultStatus(r) != PGRES_TUPLES_OK) {
    kip_pg_keep_error(pg, r);
    PQclear(r);
    PQclear(PQexec(pg->conn, "ROLLBACK")); /* (a lock wait interrupted leaves the block open) */
    return kip_pg_error(nx, KIP_PG_ERROR, err, "starting a transaction");
  }
  unsigned v = generation_of(r);
  PQclear(r);
  pg->synced_changes = -1;
  pg->data_version = v;
  pg->data_version_known = v != 0;
  return 0;
}

/* After this writer's COMMIT the generation it moved to is known — the
** one read under its lock, plus one when it counted one — so the next read
** assumes it (and checks it in its own round trip), the guards read under
** the old one still hold (kip_guards_moved), and so do the types and
** predicates found defined, unless the transaction deleted something (an
** UPSERT only adds: a definition found stays found). */
void kip_pg_committed(kip_nexus *nx, int moved) {
  struct kip_pg *pg = nx->pg;
  if (!pg->data_version_known) {
    pg->last_version = 0;
    return;
  }
  unsigned before = pg->data_version, after = before + (moved ? 1u : 0u);
  pg->last_version = after;
  kip_guards_moved(nx, before, after);
  if (!nx->tx_removed && nx->defined_version == before) nx->defined_version = after;
}

int kip_store_read_void(kip_nexus *nx) { return nx->pg && nx->pg->stale; }

int kip_pg_assumption_stale(kip_nexus *nx) {
  struct kip_pg *pg = nx->pg;
  if (pg->assumed) { /* nothing was read: the generation, outside the snapshot (a later one is as good) */
    kip_pg_stmt *g = PG_ST(nx->stmts[ST_DATA_VERSION]);
    kip_pg_drain(pg);
    PGresult *r = PQexecPrepared(pg->conn, g->name, 0, NULL, NULL, NULL, 0);
    check_assumption(pg, generation_of(r));
    PQclear(r);
  }
  int stale = pg->stale;
  pg->stale = 0;
  return stale;
}

/* ---------------------------------------------------------- statements */
static kip_pg_stmt *prepare_new(kip_nexus *nx, const char *sql, size_t n) {
  struct kip_pg *pg = nx->pg;
  size_t pn;
  unsigned *map = NULL;
  int nmap = 0;
  char *text = kip_pg_placeholders(sql, n, &pn, &map, &nmap);
  kip_pg_stmt *st = calloc(1, sizeof *st);
  if (!st) abort();
  st->nx = nx;
  st->row = -1;
  st->pmap = map;
  st->npmap = nmap;
  snprintf(st->name, sizeof st->name, "kip%u", ++pg->next_name);
  /* the statement and its description in one round trip */
  kip_pg_drain(pg);
  PGresult *got[2] = {NULL, NULL};
  if (PQenterPipelineMode(pg->conn)) {
    PQsendPrepare(pg->conn, st->name, text, 0, NULL);
    PQsendDescribePrepared(pg->conn, st->name);
    pipeline_results(pg, got, 2);
  }
  free(text);
  PGresult *r = got[0] && PQresultStatus(got[0]) != PGRES_COMMAND_OK ? got[0] : got[1];
  if (PQresultStatus(r) != PGRES_COMMAND_OK) {
    kip_pg_keep_error(pg, r);
    PQclear(got[0]);
    PQclear(got[1]);
    free(st->pmap);
    free(st);
    return NULL;
  }
  PQclear(got[0]);
  st->nparams = PQnparams(r);
  st->ptypes = calloc((size_t)(st->nparams ? st->nparams : 1), sizeof *st->ptypes);
  st->values = calloc((size_t)(st->nparams ? st->nparams : 1), sizeof *st->values);
  if (!st->ptypes || !st->values) abort();
  for (int k = 0; k < st->nparams; k++) st->ptypes[k] = PQparamtype(r, k);
  PQclear(r);
  st->sql = malloc(n + 1);
  if (!st->sql) abort();
  memcpy(st->sql, sql, n);
  st->sql[n] = 0;
  st->sql_len = n;
  return st;
}

static void deallocate(struct kip_pg *pg, kip_pg_stmt *st) {
  if (!st) return;
  if (pg->conn) kip_pg_drain(pg);
  if (pg->conn && PQstatus(pg->conn) == CONNECTION_OK && PQtransactionStatus(pg->conn) != PQTRANS_INERROR) {
    char sql[48];
    snprintf(sql, sizeof sql, "DEALLOCATE %s", st->name);
    PQclear(PQexec(pg->conn, sql));
  }
  kip_pg_stmt_free(st);
}

int kip_pg_prepare(kip_nexus *nx, const char *sql, int len, kip_stmt **out) {
  struct kip_pg *pg = nx->pg;
  size_t n = len < 0 ? strlen(sql) : (size_t)len;
  int victim = -1;
  for (int i = 0; i < PG_CACHE_SLOTS; i++) {
    kip_pg_stmt *c = pg->cache[i];
    if (c && !c->busy && c->sql_len == n && !memcmp(c->sql, sql, n)) {
      c->busy = 1;
      c->used = ++pg->clock;
      *out = PG_KS(c);
      return KIP_STORE_OK;
    }
    if (!c || (!c->busy && (victim < 0 || (pg->cache[victim] && c->used < pg->cache[victim]->used)))) {
      if (victim < 0 || pg->cache[victim]) victim = i;
    }
  }
  kip_pg_stmt *st = prepare_new(nx, sql, n);
  *out = NULL;
  if (!st) return KIP_PG_ERROR;
  st->busy = 1;
  st->used = ++pg->clock;
  if (victim >= 0) {
    deallocate(pg, pg->cache[victim]);
    pg->cache[victim] = st;
  }
  *out = PG_KS(st);
  return KIP_STORE_OK;
}

/* a persistent statement of the store (nx->stmts): outside the cache */
kip_stmt *kip_pg_prepare_persistent(kip_nexus *nx, const char *sql) {
  kip_pg_stmt *st = prepare_new(nx, sql, strlen(sql));
  return st ? PG_KS(st) : NULL;
}

void kip_pg_finish(kip_nexus *nx, kip_stmt *stmt) {
  if (!stmt) return;
  kip_pg_stmt *st = PG_ST(stmt);
  kip_pg_reset(st);
  kip_pg_clear_bindings(st);
  st->binary = 0;
  for (int i = 0; i < PG_CACHE_SLOTS; i++)
    if (nx->pg->cache[i] == st) {
      st->busy = 0;
      return;
    }
  deallocate(nx->pg, st);
}

/* ------------------------------------------------------------- scripts */
int64_t kip_pg_rows_written(PGresult *r) {
  const char *tag = PQcmdStatus(r), *n = PQcmdTuples(r);
  if (!tag || !n || !*n || (strncmp(tag, "INSERT", 6) && strncmp(tag, "UPDATE", 6) && strncmp(tag, "DELETE", 6) && strncmp(tag, "COPY", 4)))
    return 0;
  return atoll(n);
}

int kip_pg_exec(kip_nexus *nx, const char *sql, kip_error *err, const char *what) {
  struct kip_pg *pg = nx->pg;
  PGresult *r = kip_pg_query(pg, sql);
  ExecStatusType s = PQresultStatus(r);
  if (s == PGRES_COMMAND_OK || s == PGRES_TUPLES_OK) {
    pg->total_changes += kip_pg_rows_written(r);
    PQclear(r);
    return 0;
  }
  kip_pg_keep_error(pg, r);
  PQclear(r);
  return kip_pg_error(nx, KIP_PG_ERROR, err, what);
}

int64_t kip_pg_count(kip_nexus *nx, const char *sql) {
  size_t n;
  char *text = kip_pg_placeholders(sql, strlen(sql), &n, NULL, NULL);
  PGresult *r = kip_pg_query(nx->pg, text);
  free(text);
  int64_t v = -1;
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) > 0 && !PQgetisnull(r, 0, 0)) v = atoll(PQgetvalue(r, 0, 0));
  else if (PQresultStatus(r) != PGRES_TUPLES_OK) kip_pg_keep_error(nx->pg, r);
  PQclear(r);
  return v;
}

int kip_pg_error(kip_nexus *nx, int rc, kip_error *err, const char *what) {
  struct kip_pg *pg = nx->pg;
  const char *s = pg->sqlstate, *m = pg->message;
  if (nx->req->cancelled)
    return kip_err(err, KIP_E_TIMEOUT, "The client cancelled the request; nothing of this command was written.",
                   "the request was cancelled while %s", what);
  if (rc == KIP_PG_INTERRUPT || nx->req->timed_out)
    return kip_err(err, KIP_E_TIMEOUT, NULL, "execution exceeded the time budget while %s", what);
  if (!strncmp(m, "KIP_4004: write-protected", 25)) return kip_store_guard_error(nx, err, what);
  if (!strncmp(m, "KIP_4002: ", 10))
    return kip_err(err, KIP_E_RESOURCE, "Lower the hop range or anchor the path closer to its target.", "%s", m + 10);
  if (nx->req->regex_error)
    return kip_err(err, KIP_E_SYNTAX, "Check the REGEX pattern (PCRE2 syntax).", "%s", nx->req->regex_msg);
  if (!strncmp(s, "08", 2) || !strcmp(s, "57P01") || !strcmp(s, "57P02") || !strcmp(s, "57P03"))
    return kip_err(err, KIP_E_INTERNAL,
                   "The PostgreSQL server closed the connection or is restarting; nothing of this command was applied. "
                   "Retry once the server is up.",
                   "lost the connection to %s while %s: %s", pg->where, what, m);
  if (!strcmp(s, "40001") || !strcmp(s, "40P01") || !strcmp(s, "55P03"))
    return kip_err(err, KIP_E_TIMEOUT, "Another writer holds the nexus; retry shortly.",
                   "the nexus is busy while %s: %s", what, m);
  if (!strcmp(s, "25006"))
    return kip_err(err, KIP_E_DENIED,
                   "This connection is read-only (a standby, or the nexus was opened read-only): send writes to the "
                   "primary's URL.",
                   "the nexus is read-only while %s", what);
  if (!strcmp(s, "42501"))
    return kip_err(err, KIP_E_DENIED, "Grant the URL's user the rights on the nexus's schema, or connect as its owner.",
                   "permission denied on %s while %s: %s", pg->where, what, m);
  if (!strncmp(s, "53", 2) || !strncmp(s, "54", 2))
    return kip_err(err, KIP_E_RESOURCE, "The server ran out of a resource: lower LIMIT or the batch size, or ask its operator.",
                   "the server's resources are exhausted while %s: %s", what, m);
  return kip_err(err, KIP_E_INTERNAL, NULL, "database error while %s: %s (SQLSTATE %s)", what, m, s);
}

/* ------------------------------------------------- reads on a standby */
const char *kip_store_read_url(kip_nexus *nx) { return nx->pg && nx->pg->read_url[0] ? nx->pg->read_url : NULL; }

int kip_store_replica_fresh(kip_nexus *nx, kip_nexus *replica) {
  struct kip_pg *pg = nx->pg;
  if (pg->wrote) { /* where the server's WAL is now: at or after this connection's last commit */
    PGresult *r = kip_pg_query(pg, "SELECT pg_current_wal_lsn()::text");
    int ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
    if (ok) snprintf(pg->wait_lsn, sizeof pg->wait_lsn, "%s", PQgetvalue(r, 0, 0));
    PQclear(r);
    if (!ok) return 0; /* (the primary answers, and reports what failed) */
    pg->wrote = 0;
  }
  if (!pg->wait_lsn[0]) return 1;
  char sql[112];
  snprintf(sql, sizeof sql, "SELECT coalesce(pg_last_wal_replay_lsn() >= '%s'::pg_lsn, false)::int", pg->wait_lsn);
  if (kip_pg_count(replica, sql) != 1) return 0;
  pg->wait_lsn[0] = 0; /* replayed: no need to ask again until this connection writes */
  return 1;
}

int kip_store_connection_lost(kip_nexus *nx) { return nx->pg && PQstatus(nx->pg->conn) != CONNECTION_OK; }

void kip_pg_after_commit(kip_nexus *nx, int64_t rows) {
  struct kip_pg *pg = nx->pg;
  pg->wrote = 1; /* a read routed to a standby waits for this (kip_store_replica_fresh) */
  if (rows < 0) pg->written_since_analyze = pg->analyzed_rows + 5000;
  else pg->written_since_analyze += rows;
  if (nx->indexes_deferred) return;
  /* (when the table doubled instead — 8 ANALYZEs in a load of 120 000
  ** elements where a fifth takes 23, 2.1 s less — the queries after a
  ** load of 600 000 ran on statistics of half the table: hub 1-hop 1.6x,
  ** grouped count 1.8x slower; docs/postgresql.md) */
  if (pg->written_since_analyze < 5000 || pg->written_since_analyze * 5 < pg->analyzed_rows) return;
  PGresult *r = kip_pg_query(pg, "ANALYZE element; SELECT reltuples::bigint FROM pg_class WHERE oid = 'element'::regclass");
  if (PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1) pg->analyzed_rows = atoll(PQgetvalue(r, 0, 0));
  PQclear(r); /* (a failure leaves the statistics to autovacuum) */
  /* every element written passed through the SEARCH index's list: its dead
  ** rows, until a vacuum, are scanned by every commit's sync (a single-item
  ** write after a load of 600 000 took 18 ms). Its own statement: VACUUM
  ** runs outside any transaction */
  PQclear(kip_pg_query(pg, "VACUUM search_dirty"));
  pg->written_since_analyze = 0;
}

/* -------------------------------------------------------- open / close */
static void quiet_notices(void *arg, const char *message) {
  (void)arg;
  (void)message;
}

int kip_pg_open(kip_nexus *nx, const char *url, const kip_open_options *opt, int (*extra_functions)(kip_nexus *),
                kip_error *err) {
  char conninfo[2048], shown[256];
  struct kip_pg *pg = calloc(1, sizeof *pg);
  if (!pg) return kip_err(err, KIP_E_RESOURCE, NULL, "out of memory");
  pg->synced_changes = -1;
  nx->pg = pg;
  nx->sql_dialect = KIP_SQL_POSTGRESQL;
  if (split_url(url, conninfo, sizeof conninfo, pg->nexus, sizeof pg->nexus, pg->read_url, sizeof pg->read_url, shown,
                sizeof shown, err))
    return err->code;
  snprintf(pg->where, sizeof pg->where, "%s (nexus %s)", shown, pg->nexus);
  snprintf(pg->schema, sizeof pg->schema, "kip_%s", pg->nexus);
  pg->conn = PQconnectdb(conninfo);
  if (PQstatus(pg->conn) != CONNECTION_OK) {
    char m[400];
    snprintf(m, sizeof m, "%s", PQerrorMessage(pg->conn));
    size_t n = strlen(m);
    while (n && (m[n - 1] == '\n' || m[n - 1] == ' ')) m[--n] = 0;
    return kip_err(err, KIP_E_INTERNAL,
                   "Check that the server runs and accepts this user from here (host, port, pg_hba.conf, password in "
                   "PGPASSWORD or ~/.pgpass).",
                   "cannot connect to %s: %s", shown, m);
  }
  PQsetNoticeProcessor(pg->conn, quiet_notices, NULL);
  if (strcmp(PQparameterStatus(pg->conn, "server_encoding") ? PQparameterStatus(pg->conn, "server_encoding") : "", "UTF8"))
    return kip_err(err, KIP_E_INTERNAL, "Create the database with ENCODING 'UTF8' (createdb -E UTF8 -T template0 NAME).",
                   "the database of %s is not UTF-8 (server_encoding %s)", shown,
                   PQparameterStatus(pg->conn, "server_encoding") ? PQparameterStatus(pg->conn, "server_encoding") : "?");
  if (PQserverVersion(pg->conn) < 130000)
    return kip_err(err, KIP_E_INTERNAL, "Use PostgreSQL 13 or later.", "the server of %s is PostgreSQL %d", shown,
                   PQserverVersion(pg->conn) / 10000);
  /* a hot standby serves reads only: opened read-only, as an SQLite file
  ** that cannot be written is (kip_nexus_readonly 2) */
  int64_t standby = kip_pg_count(nx, "SELECT pg_is_in_recovery()::int");
  if (standby < 0) return kip_pg_error(nx, KIP_PG_ERROR, err, "asking the server whether it is a standby");
  nx->readonly_file = (opt && opt->readonly) || standby;
  nx->readonly_fallback = standby && !(opt && opt->readonly);
  /* plans made once per statement (force_generic_plan): a custom plan
  ** costs more to make than a point lookup costs to run, and the statements
  ** compiled queries prepare are shaped by the compiler to anchor where the
  ** query is bound (docs/postgresql.md "Round trips and plans") */
  char setup[320];
  snprintf(setup, sizeof setup,
           "SET client_min_messages = warning; SET search_path = %s; SET default_transaction_read_only = %s; "
           "SET plan_cache_mode = force_generic_plan",
           pg->schema, nx->readonly_file ? "on" : "off");
  if (kip_pg_exec(nx, setup, err, "configuring the connection")) return err->code;
  int created = 0;
  if (kip_pg_migrate(nx, &created, err)) return err->code;
  if (extra_functions && extra_functions(nx)) return kip_err(err, KIP_E_INTERNAL, NULL, "cannot register the query functions");
  return 0;
}

void kip_pg_close(kip_nexus *nx) {
  struct kip_pg *pg = nx->pg;
  if (!pg) return;
  for (int i = 0; i < PG_CACHE_SLOTS; i++) kip_pg_stmt_free(pg->cache[i]);
  for (int i = 0; i < ST_COUNT; i++) {
    if (nx->stmts[i]) kip_pg_stmt_free(PG_ST(nx->stmts[i]));
    nx->stmts[i] = NULL;
  }
  if (pg->conn) PQfinish(pg->conn);
  kip_pg_batch_discard(pg);
  free(pg);
  nx->pg = NULL;
}
