/*
** store_pg_batch.c — new elements written a batch at a time on PostgreSQL
** (docs/postgresql.md "Round trips"; issue 40). An UPSERT that creates
** elements inserts each with `INSERT … ON CONFLICT DO NOTHING` and reads
** whether it was inserted; on a server each is a round trip. A write
** command may instead assume each such insert creates its element: the
** rows wait in the connection and go as one COPY per kind (concepts,
** then the propositions that may name them) before any other statement
** and before the commit (a full batch without waiting for its result: the
** next statement reads it). COPY has no ON CONFLICT (which was a third of
** an INSERT's time): an element that existed fails it on a unique index.
** That failure, or fewer rows inserted than assumed, makes the command
** void — its transaction is rolled back and request.c runs it again
** without assuming, one insert at a time, as an SQLite nexus runs it.
**
** The command's identities met so far are kept (kip_pg_batch_met), with
** the id, endpoints and contents of the links it batched or found to
** exist: a link said again with the same contents (compared byte for
** byte) is answered from there (kip_pg_batch_repeated) where looking it up
** would send the batch first.
*/
#include <stdlib.h>
#include <string.h>

#include "store_pg.h"

/* the batch's rows: COPY's text format per kind (a row a line, fields
** tab-separated, \N for NULL), in id order. COPY parses its rows faster
** than json_to_recordset a JSON array (100 000 links with the endpoint
** trigger: 0.81 s against 1.21 s); it runs the same constraints and
** statement triggers, and fails on an existing element as the INSERT did */
#define COPY_CONCEPTS "COPY element(id, type, name, attributes, metadata, version, updated_at) FROM STDIN"
#define COPY_PROPS "COPY element(id, subject, predicate, object, attributes, metadata, version, updated_at) FROM STDIN"

/* the rows go to the server in pieces of at most this many bytes */
#define COPY_CHUNK ((size_t)1 << 20)

/* a batch holds at most this many rows of a kind before it is sent */
#define BATCH_ROWS 2000

void kip_pg_batch_writes(kip_nexus *nx, int on) {
  struct kip_pg *pg = nx->pg;
  if (!pg) return;
  pg->may_batch = on;
  if (!on) { /* the command's transaction ended: it sent or dropped the batch */
    kip_pg_batch_discard(pg);
    return;
  }
  pg->batch_failed = 0;
  pg->seen_n = 0;
  pg->seen_text.len = 0;
  if (pg->seen) memset(pg->seen, 0, pg->seen_cap * sizeof *pg->seen);
}

void kip_pg_batch_discard(struct kip_pg *pg) {
  if (!pg->may_batch) { /* the command is over */
    free(pg->seen);
    pg->seen = NULL;
    pg->seen_cap = pg->seen_n = 0;
    kip_buf_free(&pg->seen_text);
  }
  for (int k = 0; k < 2; k++) {
    kip_buf_free(&pg->batch[k]);
    pg->batch_rows[k] = 0;
    pg->batch_unsorted[k] = 0;
  }
}

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  for (size_t i = 0; i < n; i++) h = (h ^ ((const unsigned char *)p)[i]) * 1099511628211ULL;
  return h;
}

static uint64_t identity_hash(const char *type, const char *name, int64_t s, const char *p, int64_t o) {
  uint64_t h = 14695981039346656037ULL;
  if (type) {
    h = fnv(fnv(fnv(h, "c", 1), type, strlen(type) + 1), name, strlen(name));
  } else {
    h = fnv(fnv(fnv(fnv(h, "p", 1), &s, sizeof s), p, strlen(p) + 1), &o, sizeof o);
  }
  return h ? h : 1;
}

/* the entry of hash h, or of the empty slot where it would go */
static size_t seen_slot(struct kip_pg *pg, uint64_t h) {
  size_t j = h & (pg->seen_cap - 1);
  while (pg->seen[j].hash && pg->seen[j].hash != h) j = (j + 1) & (pg->seen_cap - 1);
  return j;
}

int kip_pg_batch_met(kip_nexus *nx, const char *type, const char *name, int64_t s, const char *p, int64_t o, int add) {
  struct kip_pg *pg = nx->pg;
  uint64_t h = identity_hash(type, name, s, p, o);
  if (pg->seen_cap && pg->seen[seen_slot(pg, h)].hash) return 1;
  if (!add) return 0;
  if (2 * (pg->seen_n + 1) > pg->seen_cap) { /* grow, keeping it at most half full */
    size_t old_cap = pg->seen_cap;
    struct kip_pg_seen *old = pg->seen;
    pg->seen_cap = old_cap ? 2 * old_cap : 4096;
    pg->seen = calloc(pg->seen_cap, sizeof *pg->seen);
    if (!pg->seen) abort();
    for (size_t i = 0; i < old_cap; i++)
      if (old[i].hash) pg->seen[seen_slot(pg, old[i].hash)] = old[i];
    free(old);
  }
  size_t j = seen_slot(pg, h);
  pg->seen[j] = (struct kip_pg_seen){.hash = h};
  pg->seen_last = j;
  pg->seen_n++;
  return 0;
}

/* attributes, a NUL, metadata: what an entry's contents are compared as */
static void add_contents(kip_buf *b, const char *attrs, const char *meta) {
  kip_buf_adds(b, attrs ? attrs : "");
  kip_buf_addc(b, 0);
  kip_buf_adds(b, meta ? meta : "");
}

/* the entry kip_pg_batch_met added last: its id, endpoints and contents */
static void seen_known(struct kip_pg *pg, int64_t id, int64_t s, int64_t o, const char *attrs, const char *meta) {
  struct kip_pg_seen *e = &pg->seen[pg->seen_last];
  e->id = id;
  e->s = s;
  e->o = o;
  e->gen = pg->seen_gen;
  e->text = pg->seen_text.len;
  add_contents(&pg->seen_text, attrs, meta);
  e->text_len = pg->seen_text.len - e->text;
}

int64_t kip_pg_batch_repeated(kip_nexus *nx, int64_t s, const char *p, int64_t o, const char *attrs,
                              const char *meta) {
  struct kip_pg *pg = nx->pg;
  if (!pg || !pg->may_batch || pg->batch_failed || !pg->seen_cap || pg->seen_text.oom) return 0;
  const struct kip_pg_seen *e = &pg->seen[seen_slot(pg, identity_hash(NULL, NULL, s, p, o))];
  if (!e->hash || !e->id || e->gen != pg->seen_gen || e->s != s || e->o != o) return 0;
  /* the same text, byte for byte (a hash could collide) */
  kip_buf said;
  kip_buf_init(&said);
  add_contents(&said, attrs, meta);
  int same = !said.oom && said.len == e->text_len && !memcmp(said.p, pg->seen_text.p + e->text, said.len);
  kip_buf_free(&said);
  return same ? e->id : 0;
}

void kip_pg_batch_existing(kip_nexus *nx, int64_t s, const char *p, int64_t o, int64_t id, const char *attrs,
                           const char *meta) {
  if (!kip_pg_batch_met(nx, NULL, NULL, s, p, o, 1)) seen_known(nx->pg, id, s, o, attrs, meta);
}

void kip_pg_batch_changed(kip_nexus *nx) {
  if (nx->pg) nx->pg->seen_gen++;
}

int kip_pg_batching(kip_nexus *nx) { return nx->pg && nx->pg->may_batch && !nx->pg->batch_failed; }

/* a field of a COPY text row after its first (the id): a tab, then the text
** with its backslashes, tabs, newlines and carriage returns escaped; NULL
** as \N */
static void add_field(kip_buf *b, const char *s) {
  kip_buf_addc(b, '\t');
  if (!s) {
    kip_buf_adds(b, "\\N");
    return;
  }
  for (const char *p = s; *p; p++) {
    const char *esc = *p == '\\' ? "\\\\" : *p == '\t' ? "\\t" : *p == '\n' ? "\\n" : *p == '\r' ? "\\r" : NULL;
    if (esc) kip_buf_adds(b, esc);
    else kip_buf_addc(b, *p);
  }
}

/* a row of the batch of kind k (0 concepts, 1 propositions): opened with
** its id; closed with the fields both kinds have, counted as written */
static kip_buf *row_begin(struct kip_pg *pg, int k, int64_t id) {
  kip_buf *b = &pg->batch[k];
  if (pg->batch_rows[k]++ && id < pg->batch_last[k]) pg->batch_unsorted[k] = 1;
  pg->batch_last[k] = id;
  kip_buf_printf(b, "%lld", (long long)id);
  return b;
}

static void row_end(kip_nexus *nx, kip_buf *b, const char *attrs, const char *meta) {
  add_field(b, attrs);
  add_field(b, meta);
  kip_buf_adds(b, "\t1");
  add_field(b, nx->req->now);
  kip_buf_addc(b, '\n');
  nx->pg->changes = 1;
  nx->pg->total_changes++;
}

void kip_pg_batch_concept(kip_nexus *nx, int64_t id, const char *type, const char *name, const char *attrs,
                          const char *meta) {
  kip_buf *b = row_begin(nx->pg, 0, id);
  add_field(b, type);
  add_field(b, name);
  row_end(nx, b, attrs, meta);
}

void kip_pg_batch_prop(kip_nexus *nx, int64_t id, int64_t s, const char *p, int64_t o, const char *attrs,
                       const char *meta) {
  seen_known(nx->pg, id, s, o, attrs, meta);
  kip_buf *b = row_begin(nx->pg, 1, id);
  kip_buf_printf(b, "\t%lld", (long long)s);
  add_field(b, p);
  kip_buf_printf(b, "\t%lld", (long long)o);
  row_end(nx, b, attrs, meta);
}

int kip_pg_batch_full(kip_nexus *nx) {
  return nx->pg->batch_rows[0] >= BATCH_ROWS || nx->pg->batch_rows[1] >= BATCH_ROWS;
}

/* the result of the batch statement sent without waiting: fewer rows than
** assumed, or a failure, void the command (batch_failed) */
void kip_pg_batch_result(struct kip_pg *pg) {
  if (!pg->inflight_rows) return;
  int64_t want = pg->inflight_rows;
  pg->inflight_rows = 0;
  PGresult *r = PQgetResult(pg->conn), *more;
  int64_t got = PQresultStatus(r) == PGRES_COMMAND_OK ? kip_pg_rows_written(r) : -1;
  if (got != want) {
    pg->batch_failed = 1;
    if (got < 0) kip_pg_keep_error(pg, r);
  }
  PQclear(r);
  while ((more = PQgetResult(pg->conn))) PQclear(more);
}

/* the rows of batch b in id order (a row is a line that starts with its id):
** the inserts walk the primary key's B-tree in order */
typedef struct batch_row {
  int64_t id;
  const char *p;
  size_t n;
} batch_row;

static int by_row_id(const void *a, const void *b) {
  int64_t x = ((const batch_row *)a)->id, y = ((const batch_row *)b)->id;
  return (x > y) - (x < y);
}

static void sort_rows(kip_buf *b, int64_t n) {
  batch_row *r = malloc(sizeof *r * (size_t)n);
  if (!r) abort();
  int64_t i = 0;
  for (const char *p = b->p, *end = b->p + b->len; p < end && i < n; i++) {
    const char *eol = memchr(p, '\n', (size_t)(end - p));
    r[i] = (batch_row){strtoll(p, NULL, 10), p, (size_t)(eol ? eol + 1 - p : end - p)};
    p += r[i].n;
  }
  qsort(r, (size_t)i, sizeof *r, by_row_id);
  kip_buf sorted;
  kip_buf_init(&sorted);
  for (int64_t j = 0; j < i; j++) kip_buf_add(&sorted, r[j].p, r[j].n);
  free(r);
  kip_buf_free(b);
  *b = sorted;
}

/* send what waits, the concepts before the propositions that may name
** them. The last statement is not waited for unless `wait`: the command
** goes on building the next batch while the server inserts this one, and
** the next statement reads its result first (kip_pg_drain). Returns 0, or
** 1 when a batch known by then did not insert every row it assumed
** (batch_failed set: the command is void) */
int kip_pg_batch_send(struct kip_pg *pg, int wait) {
  static const char *const SQL[2] = {COPY_CONCEPTS, COPY_PROPS};
  for (int k = 0; k < 2; k++) {
    kip_pg_drain(pg);
    if (!pg->batch_rows[k] || pg->batch_failed) continue;
    kip_buf *b = &pg->batch[k];
    if (pg->batch_unsorted[k] && !b->oom) sort_rows(b, pg->batch_rows[k]);
    /* (the COPY's start is a round trip: the server answers that it
    ** takes rows; its end is not waited for) */
    PGresult *r = b->oom || !PQsendQuery(pg->conn, SQL[k]) ? NULL : PQgetResult(pg->conn);
    int copying = PQresultStatus(r) == PGRES_COPY_IN, sent = copying;
    for (size_t at = 0; sent && at < b->len; at += COPY_CHUNK) /* (PQputCopyData takes an int length) */
      sent = PQputCopyData(pg->conn, b->p + at, (int)(b->len - at < COPY_CHUNK ? b->len - at : COPY_CHUNK)) == 1;
    if (!sent || PQputCopyEnd(pg->conn, NULL) != 1) {
      pg->batch_failed = 1;
      kip_pg_keep_error(pg, copying ? NULL : r);
      if (copying) PQputCopyEnd(pg->conn, "kipnexus: the batch could not be sent");
      PQclear(r);
      pg->draining = 1; /* what the server answers is read and dropped */
      continue;
    }
    PQclear(r);
    pg->inflight_rows = pg->batch_rows[k];
  }
  kip_pg_batch_discard(pg);
  if (wait) kip_pg_drain(pg);
  return pg->batch_failed;
}

int kip_pg_batch_failed(kip_nexus *nx) {
  struct kip_pg *pg = nx->pg;
  if (!pg || !pg->batch_failed) return 0;
  pg->batch_failed = 0;
  pg->batch_reruns++;
  return 1;
}
