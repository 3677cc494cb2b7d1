/*
** store_pg.h — the PostgreSQL side of the storage seam (store.h), private to
** the PostgreSQL store family (store_pg*.c; docs/postgresql.md, issue 40).
** A nexus is a schema `kip_<name>` of a database reached by a
** postgresql:// URL; its statements are libpq prepared statements behind the
** same row API as SQLite's (kip_step, kip_col_*, kip_bind_*).
**
** A kip_stmt of this store is a kip_pg_stmt pointer with its lowest bit set
** (PG_TAG): the row API (store_rows.c) tells the two stores' statements
** apart without a lookup, and an SQLite statement is never tagged.
*/
#ifndef KIP_STORE_PG_H
#define KIP_STORE_PG_H
#include <libpq-fe.h>
#include <stdint.h>

#include "store.h"

/* the row API's error code for a failed PostgreSQL statement (the failure
** itself is kept in the connection: kip_pg.sqlstate / message) */
#define KIP_PG_ERROR 1
/* a statement the server cancelled (deadline, the host's cancellation) */
#define KIP_PG_INTERRUPT 9

typedef struct kip_pg_stmt {
  kip_nexus *nx;
  char name[24];          /* the server-side prepared statement */
  char *sql;              /* the SQL text it was prepared from (the cache's key) */
  size_t sql_len;
  int nparams;
  unsigned *pmap;         /* the SQLite number ("?n") of each parameter $k, ascending */
  int npmap;
  unsigned *ptypes;       /* the parameters' types as the server inferred them (Oids) */
  char **values;          /* text-format parameter values (NULL = SQL NULL), owned */
  PGresult *res;          /* the result of the running execution */
  int executed, row, nrows;
  char **cells;           /* per column: what kip_col_text / blob decoded for the current row */
  size_t *cell_lens;      /* ... and its length (bytea and JSON strings may hold NUL bytes) */
  int ncells;
  int cells_row;
  int busy;               /* handed out by kip_prepare, not yet finished */
  int binary;             /* results in binary form (kip_stmt_binary_results), until finished */
  int beside_batch;       /* runs while a batch waits (kip_pg_runs_beside_batch) */
  uint64_t used;
} kip_pg_stmt;

#define PG_TAG ((uintptr_t)1)
#define PG_IS(st) (((uintptr_t)(st)) & PG_TAG)
#define PG_ST(st) ((kip_pg_stmt *)(((uintptr_t)(st)) & ~PG_TAG))
#define PG_KS(p) ((kip_stmt *)(((uintptr_t)(p)) | PG_TAG))

#define PG_CACHE_SLOTS 128

/* the write generation (store_tx.c bumps it as a writer commits) */
#define PG_GENERATION "SELECT coalesce((SELECT value::bigint FROM kip_info WHERE key = 'write_generation'), 0)"

struct kip_pg {
  PGconn *conn;
  char nexus[64];         /* the nexus name of the URL (?nexus=), default "default" */
  char schema[72];        /* kip_<nexus> */
  char where[352];        /* the URL without its password, and the nexus: for messages */
  kip_pg_stmt *cache[PG_CACHE_SLOTS];
  uint64_t clock;
  unsigned next_name;
  char sqlstate[6];       /* of the last failure */
  char message[512];
  int64_t changes;        /* rows the last write statement changed */
  int64_t total_changes;  /* rows every write statement changed on this connection */
  int64_t synced_changes; /* total_changes when this write transaction's SEARCH sync last ran, -1 none */
  int64_t tx_changes0;    /* total_changes when the outer write transaction began */
  unsigned data_version;  /* the write generation read in the open transaction (kip_store_file_version) */
  int data_version_known; /* data_version holds for the transaction open now */
  const char *deferred;   /* a statement sent with the next one, in the same round trip (a read's BEGIN) */
  int draining;           /* a statement was sent without waiting for its result (a read's COMMIT) */
  /* the generation of a repeatable read (kip_tx_begin_read_repeatable):
  ** the last one seen is assumed, and read with its first statement */
  unsigned last_version;  /* the write generation last read (+1), 0 unknown */
  int may_assume;         /* the open read may assume it */
  int assumed;            /* it did: data_version is last_version, not read yet */
  int stale;              /* the generation read with the first statement was another */
  int unwrapped;          /* an assuming read running without a transaction: each statement's
                          ** own snapshot, the generation read after it (kip_pg_run) */
  int may_batch;          /* new elements may wait in a batch (store_pg_batch.c) */
  int batch_failed;       /* a batch inserted fewer rows than assumed: the command is void */
  int64_t batch_reruns;   /* commands run again because their batch failed (tests read it) */
  kip_buf batch[2];       /* the waiting concepts' and propositions' rows, COPY text */
  int64_t batch_rows[2];
  int64_t batch_last[2];  /* the id of each batch's last row */
  int batch_unsorted[2];  /* a row came after one with a greater id: sorted before it is sent */
  int64_t inflight_rows;  /* a batch statement sent without waiting: the rows it must insert (0 none) */
  struct kip_pg_seen *seen; /* the identities met in this command (open addressing on hash, 0 empty) */
  size_t seen_cap, seen_n;
  size_t seen_last;       /* the entry kip_pg_batch_met added last */
  unsigned seen_gen;      /* moves when the command updates, deletes or repoints an element */
  kip_buf seen_text;      /* the contents of the entries that have them */
  int trigrams;           /* search_doc has the pg_trgm indexes of lower(name), lower(heading) */
  /* reads routed to a hot standby (?read=, request_replica.c) */
  char read_url[2048];    /* its URL with the nexus, "" when none */
  int wrote;              /* this connection committed a write since it last read its WAL position */
  char wait_lsn[32];      /* that position: the standby serves this connection once it has replayed it */
  int64_t written_since_analyze; /* element rows this connection wrote since its last ANALYZE */
  int64_t analyzed_rows;  /* the element table's rows then */
};

/* an identity met in a command: its hash; for a link the command batched
** or found to exist, its id, its endpoints and its attributes' and
** metadata's text (at `text` in seen_text: attributes, a NUL,
** metadata), valid while seen_gen is `gen` (0 id: contents unknown) */
struct kip_pg_seen {
  uint64_t hash;
  int64_t id, s, o;
  size_t text, text_len;
  unsigned gen;
};

/* store_pg.c: the connection */
int kip_pg_open(kip_nexus *nx, const char *url, const kip_open_options *opt, int (*extra_functions)(kip_nexus *),
                kip_error *err);
void kip_pg_close(kip_nexus *nx);
int kip_pg_prepare(kip_nexus *nx, const char *sql, int len, kip_stmt **st);
void kip_pg_finish(kip_nexus *nx, kip_stmt *st);
kip_stmt *kip_pg_prepare_persistent(kip_nexus *nx, const char *sql);
int kip_pg_exec(kip_nexus *nx, const char *sql, kip_error *err, const char *what);
int64_t kip_pg_count(kip_nexus *nx, const char *sql);
int kip_pg_error(kip_nexus *nx, int rc, kip_error *err, const char *what);
/* the rows an INSERT, UPDATE or DELETE (with or without RETURNING) wrote; 0
** for anything else */
int64_t kip_pg_rows_written(PGresult *r);
/* round trips: the results of a statement sent without waiting are read
** before the connection is used again (kip_pg_drain); the statement
** deferred by kip_pg_defer travels with the next one. kip_pg_run executes
** a prepared statement, kip_pg_query a script, both after those. */
void kip_pg_drain(struct kip_pg *pg);
void kip_pg_defer(struct kip_pg *pg, const char *sql);
void kip_pg_send_without_waiting(struct kip_pg *pg, const char *sql);
PGresult *kip_pg_run(kip_nexus *nx, const char *name, int nparams, const char *const *values, int binary,
                     int beside_batch);
/* the generation an assuming read assumed, checked now if no statement
** checked it yet; 1 when it was stale */
int kip_pg_assumption_stale(kip_nexus *nx);
PGresult *kip_pg_query(struct kip_pg *pg, const char *sql);
/* ROLLBACK (outermost: what waits in a batch is dropped) or ROLLBACK TO */
void kip_pg_rollback(struct kip_pg *pg, const char *sql, int outermost);
/* keep a failed result's SQLSTATE and message in the connection */
void kip_pg_keep_error(struct kip_pg *pg, const PGresult *res);
/* the SQL text with SQLite's "?n" placeholders spelt "$k", numbered
** densely; *map (malloc'd, when map is not NULL) gives each $k's n */
char *kip_pg_placeholders(const char *sql, size_t len, size_t *out_len, unsigned **map, int *nmap);

/* after a commit that wrote `rows` rows: the planner's statistics taken
** again, and the SEARCH index's list vacuumed, when this connection wrote
** a fifth of the table since it last did (a bulk load; autovacuum would, a
** minute later) — not while a bulk load's indexes are away, but once at
** its end (rows -1: now) */
void kip_pg_after_commit(kip_nexus *nx, int64_t rows);
int kip_pg_begin_write(kip_nexus *nx, kip_error *err);
void kip_pg_committed(kip_nexus *nx, int moved);

/* store_pg_batch.c: new elements sent a batch at a time */
void kip_pg_batch_discard(struct kip_pg *pg);
int kip_pg_batching(kip_nexus *nx);
/* whether an element of this identity was met in this command already —
** batched, or found to exist (then it is written one statement at a time:
** it meets that one); recorded as met when `add` */
int kip_pg_batch_met(kip_nexus *nx, const char *type, const char *name, int64_t s, const char *p, int64_t o, int add);
void kip_pg_batch_concept(kip_nexus *nx, int64_t id, const char *type, const char *name, const char *attrs,
                          const char *meta);
void kip_pg_batch_prop(kip_nexus *nx, int64_t id, int64_t s, const char *p, int64_t o, const char *attrs,
                       const char *meta);
int kip_pg_batch_full(kip_nexus *nx);
int kip_pg_batch_send(struct kip_pg *pg, int wait);
void kip_pg_batch_result(struct kip_pg *pg);
/* the id of a link this command batched, or found to exist, with these
** attributes and metadata (their text) when no element was updated, deleted or repointed
** since: writing it again would change nothing; 0 when not known */
int64_t kip_pg_batch_repeated(kip_nexus *nx, int64_t s, const char *p, int64_t o, const char *attrs,
                              const char *meta);
/* a link found to exist, with its id and contents: met */
void kip_pg_batch_existing(kip_nexus *nx, int64_t s, const char *p, int64_t o, int64_t id, const char *attrs,
                           const char *meta);
/* an element was updated, deleted or repointed: batched rows' contents are no longer known */
void kip_pg_batch_changed(kip_nexus *nx);

/* store_pg_rows.c: the row API over a prepared statement */
int kip_pg_step(kip_pg_stmt *st);
void kip_pg_reset(kip_pg_stmt *st);
void kip_pg_clear_bindings(kip_pg_stmt *st);
void kip_pg_stmt_free(kip_pg_stmt *st);
int kip_pg_col_type(kip_pg_stmt *st, int i);
int64_t kip_pg_col_int64(kip_pg_stmt *st, int i);
double kip_pg_col_double(kip_pg_stmt *st, int i);
const char *kip_pg_col_text(kip_pg_stmt *st, int i);
const void *kip_pg_col_blob(kip_pg_stmt *st, int i);
int kip_pg_col_bytes(kip_pg_stmt *st, int i);
int kip_pg_bind_int64(kip_pg_stmt *st, int i, int64_t v);
int kip_pg_bind_double(kip_pg_stmt *st, int i, double v);
int kip_pg_bind_null(kip_pg_stmt *st, int i);
int kip_pg_bind_text(kip_pg_stmt *st, int i, const char *s, int n);
int kip_pg_bind_json(kip_pg_stmt *st, int i, const char *s, int n);
int kip_pg_bind_bytea(kip_pg_stmt *st, int i, const void *p, int n);

/* store_pg_search.c: index the elements waiting in search_dirty (by the
** function KIP_PG_SEARCH_SYNC creates, one of the schema's) */
extern const char *const KIP_PG_SEARCH_SYNC;
int kip_pg_search_sync(kip_nexus *nx, kip_error *err);

/* store_pg_schema.c: create or check the nexus's schema and the functions
** compiled queries call (*created: it was empty) */
int kip_pg_migrate(kip_nexus *nx, int *created, kip_error *err);
/* store_pg_search.c: a bulk load indexed for SEARCH at its end */
int kip_pg_search_index_load(kip_nexus *nx, kip_error *err);
/* the persistent statements' SQL where it differs from SQLite's (NULL: the same) */
const char *kip_pg_stmt_sql(int which);

#endif
