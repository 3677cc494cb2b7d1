/*
** store.h — the storage seam: the graph store and the nexus object as the
** layers above see them, with no SQLite type in sight. Statements are opaque
** `kip_stmt`s read through a small row API (kip_step, kip_col_*, kip_bind_*);
** the SQLite store implements it (store.c, store_rows.c …, which include
** store_sqlite.h), in the manner of SQLite's os.h in front of os_unix.c. A
** second backend is a new store and dialect behind these declarations.
*/
#ifndef KIP_STORE_H
#define KIP_STORE_H
#include "kipint.h"

struct sqlite3; /* the connection: only the store and its dialect look inside */

/* a prepared statement of the store (opaque) */
typedef struct kip_stmt kip_stmt;

/* kip_step results and the store's success code; any other value is a
** store error code for kip_store_error */
enum { KIP_STORE_OK = 0, KIP_ROW = 100, KIP_DONE = 101 };
/* kip_col_type values */
enum { KIP_COL_INT = 1, KIP_COL_REAL = 2, KIP_COL_TEXT = 3, KIP_COL_BLOB = 4, KIP_COL_NULL = 5 };

/* store_rows.c: the row API */
int kip_step(kip_stmt *st);
void kip_reset(kip_stmt *st);
int kip_col_type(kip_stmt *st, int i);
int64_t kip_col_int64(kip_stmt *st, int i);
double kip_col_double(kip_stmt *st, int i);
const char *kip_col_text(kip_stmt *st, int i); /* NUL-terminated, valid until the next step */
const void *kip_col_blob(kip_stmt *st, int i);
int kip_col_bytes(kip_stmt *st, int i);
int kip_bind_count(kip_stmt *st);
/* 1-based parameters; copy: 0 when the text outlives the statement's use */
int kip_bind_int64(kip_stmt *st, int i, int64_t v);
int kip_bind_double(kip_stmt *st, int i, double v);
int kip_bind_null(kip_stmt *st, int i);
int kip_bind_text(kip_stmt *st, int i, const char *s, int n, int copy);
/* bind malloc'd text; the statement frees it */
int kip_bind_text_owned(kip_stmt *st, int i, char *s, int n);
void kip_clear_bindings(kip_stmt *st);
/* bind malloc'd JSON text as a JSON value; the statement frees it */
int kip_bind_json_owned(kip_stmt *st, int i, char *s, int n);
/* A list of element ids as a table (id, pos), pos = 0, 1, … in the list's
** order, read from parameter ?1: a statement over many ids in one round
** trip. kip_store_ids_sql gives the table expression, kip_bind_ids binds
** the list to ?1. */
const char *kip_store_ids_sql(kip_nexus *nx);
int kip_bind_ids(kip_stmt *st, const int64_t *ids, size_t n);
/* the same from ?9004, for a statement whose ?1… are a governance scope's
** binds (kql_bind_all); kip_bind_ids_at(st, 9004, …) binds it */
const char *kip_store_ids_sql_high(kip_nexus *nx);
int kip_bind_ids_at(kip_stmt *st, int at, const int64_t *ids, size_t n);
/* st's results in the backend's binary form where it has one, until
** kip_finish: PostgreSQL then sends a bytea's bytes, not their hex text
** (a scan of every vector). Only integer, text and BLOB columns are read
** from such a statement. */
void kip_stmt_binary_results(kip_stmt *st);
/* bind n bytes (a BLOB; bytea on PostgreSQL), copied */
int kip_bind_blob(kip_stmt *st, int i, const void *p, int n);
/* the last store error code of the connection */
int kip_store_errcode(kip_nexus *nx);
/* a statement was interrupted (the code kip_store_error maps to KIP_4001/4002) */
int kip_store_interrupt_code(void);
/* rows the last write statement changed; rows every write statement of the
** connection changed */
int64_t kip_store_changes(kip_nexus *nx);
int64_t kip_store_total_changes(kip_nexus *nx);

#define KIP_SCHEMA_VERSION 11
/* a connection's page cache (kip_open_options.cache_mb), MiB */
#define KIP_DEFAULT_CACHE_MB 32
#define KIP_MAX_CACHE_MB 65536

enum {
  ST_GET, ST_FIND_CONCEPT, ST_FIND_PROP, ST_INSERT_CONCEPT, ST_INSERT_PROP, ST_UPDATE,
  ST_DELETE, ST_IS_DEFINED, ST_REPOINT, ST_NEXT_REFERRER, ST_SEARCH_PENDING,
  ST_SEARCH_UNINDEX_TRIGRAM, ST_SEARCH_UNINDEX_WORD, ST_SEARCH_INDEX_WORD, ST_SEARCH_INDEX_TRIGRAM, ST_SEARCH_CLEAR,
  ST_NEXT_ID, ST_NEXT_EXTENT, ST_ID_RANGE_USED, ST_MARK_FRESH, ST_MARK_CHANGED, ST_CONCEPT_OF, ST_DATA_VERSION, ST_BEGIN_READ,
  ST_END_READ, ST_COUNT
};

/* The governance scope of a request (policy RESTRICT constraints): every
** element a query binds, traverses or touches must satisfy it. */
typedef struct kip_scope {
  const struct ast_expr *eligibility; /* boolean expression over ?e, or NULL */
  const char *const *forbidden_types;       /* NULL-terminated, or NULL */
  const char *const *forbidden_predicates;  /* NULL-terminated, or NULL */
  const char *eligibility_text;   /* what eligibility was parsed from, and its parameters' JSON (the */
  const char *eligibility_params; /* request's options: valid while it runs), or NULL: what is kept per
                                  ** scope is keyed by them (exec_plans.c) */
} kip_scope;

/* The state of the request running on a nexus (kip_call_json, or the
** nexus's own work between requests): its clock, budgets, scope, guards,
** hooks and cancellation — apart from the connection, so a request's
** limits never leak into the next one. */
typedef struct kip_request {
  char now[64];                  /* ISO-8601 timestamp of the current command */
  int64_t deadline_us;           /* monotonic deadline; 0 = none */
  int timed_out;                 /* set by the progress handler */
  int64_t max_rows;              /* materialization cap */
  int max_hops;                  /* hop cap */
  int regex_error;               /* set when REGEX got an invalid pattern */
  char regex_msg[512];
  const kip_scope *scope;        /* governance scope, or NULL */
  kip_stmt *scope_check;         /* "is element ?1 in scope", or NULL */
  const struct kip_command_hooks *hooks; /* interrupted(), or NULL */
  int64_t next_interrupt_check;  /* monotonic µs of the next interrupted() poll */
  int cancelled;                 /* the host cancelled the request */
  int defer_index;               /* the request defers the SEARCH index (bulk load) */
  int bulk;                      /* the running command is a bulk load's (request_bulk.c kip_bulk_begin) */
  const char *const *write_protected; /* write guards (kip_call_options) */
  const char *const *append_only;
  const char *const *capabilities; /* what the host granted the call (store_guard.c) */
  const char *maintenance;       /* maintenance call: guards bypassed and logged with this reason, or NULL */
  char guard_hit[256];           /* what the last refused write was (its type or predicate) */
  char guard_why[512];           /* a declared guard refused it: which and why ("" for the call's own lists) */
  char guard_hint[384];          /* that guard's hint */
} kip_request;

/* the SQL dialects a store can speak (kip_nexus.sql_dialect) */
enum { KIP_SQL_SQLITE, KIP_SQL_POSTGRESQL };

struct kip_nexus {
  struct sqlite3 *db;            /* the SQLite store's connection, or NULL */
  struct kip_pg *pg;             /* the PostgreSQL store's (store_pg.h), or NULL */
  kip_stmt *stmts[ST_COUNT];     /* persistent prepared statements */
  int tx_depth;                  /* 0 = autocommit; 1 = BEGIN; >1 = savepoints */
  int read_tx;                   /* the open transaction is a read transaction (kip_tx_begin_read) */
  /* type and predicate names found defined, valid while the file's data
  ** version is `defined_version` (kip_store_is_defined) */
  char *defined[64];
  unsigned defined_version;
  int tx_removed;                /* the outer write transaction deleted or repointed an element */
  int64_t tx_changes0;           /* sqlite3_total_changes64 when the outer write transaction began */
  int tx_upkeep;                 /* the open transaction is storage upkeep (kip_tx_commit_upkeep) */
  int privileged;                /* bootstrap: protected-core writes allowed */
  int readonly_file;             /* opened read-only */
  int readonly_fallback;         /* read-only because the file or its directory is not writable */
  struct kip_regex_cache *regex; /* compiled PCRE2 patterns (store_sqlfunc.c) */
  struct kip_stmt_slot *stmt_cache; /* prepared statements by SQL text (kip_prepare) */
  uint64_t stmt_clock;
  int64_t id_next;               /* next id of the transaction's run (store_ids.c) */
  int id_left;                   /* ids left in it; 0 = take a new run */
  int64_t id_taken;              /* ids the transaction took (units first, then extents) */
  int64_t id_expect;             /* elements the running command may create (kip_store_expect_ids) */
  int64_t fresh_lo, fresh_n;     /* the transaction's newest run of new ids not yet in search_dirty */
  int indexes_deferred;          /* a bulk load dropped the secondary indexes (store_schema.c) */
  int indexes_dropped_in_tx;     /* the open transaction dropped them: its rollback brings them back */
  int foreign_keys_off;          /* a bulk command switched the checks off (kip_store_foreign_keys) */
  uint64_t invalidations;        /* bumped by a rollback and at a bulk load's end: the caches of rows the
                                 ** layers above keep (exec_upsert.c's concept memo) drop themselves */
  struct kip_index_builder *index_builder; /* a bulk load's SEARCH index being built beside it (store_search_build.c) */
  int64_t indexed_beside;        /* elements the last adopted build indexed (store_search_build.c) */
  kip_embedder embedder;         /* for vectors (store_vectors.c), when has_embedder */
  int vectors_behind;            /* queued elements the in-transaction embedder catches up after requests */
  int has_embedder;
  int sql_dialect;               /* the SQL this store speaks: KIP_SQL_SQLITE / _POSTGRESQL (the compiler's table: compile.h) */
  /* what the layers above keep per nexus, in their own structs: owned and
  ** freed by them (kip_close); the store never looks inside */
  struct kip_exec_state *exec;   /* exec_upsert.c: the concepts bulk commands found or created */
  struct kip_plan_cache *plans;  /* exec_plans.c: compiled FIND plans by command text */
  struct kip_api_state *api;     /* request_bulk.c: the arena a bulk load's commands are parsed into */
  struct kip_guards *guards;     /* the declared guards (store_guard.c) */
  kip_request *req;              /* the running request's state: a call's own, or idle */
  kip_request idle;              /* the state between requests (open, index sync, embedding) */
  /* the hot standby that answers this nexus's readonly calls (request_replica.c) */
  struct kip_nexus *replica;
  int64_t replica_retry_us;      /* monotonic µs before which opening it is not tried again */
  int last_read_on_replica;      /* the last readonly call was answered by it */
};

/* The text SEARCH indexes for element `e`, by field: the name (concept name
** or predicate), the heading (aliases, title, keywords, tags) and the body
** (every other string attribute; for propositions the endpoint names). */
#define KIP_SEARCH_NAME_SQL "coalesce(e.name, e.predicate)"
#define KIP_SEARCH_HEADING_SQL "kip_search_text(e.attributes, 0)"
/* the body, given SQL for the names of e's subject and object */
#define KIP_SEARCH_BODY_OF(subject_name, object_name) \
  "kip_search_text(e.attributes, 1, " subject_name ", " object_name ")"
#define KIP_SEARCH_BODY_SQL \
  KIP_SEARCH_BODY_OF("(SELECT name FROM element WHERE id = e.subject)", "(SELECT name FROM element WHERE id = e.object)")
/* the SQLite handle (in-tree tools only: tests, the benchmark's raw-SQL side) */
struct sqlite3 *kip_store_db(kip_nexus *nx);

/* does an unindexed guard (store_guard.c) cover element e (whose subject,
** for a proposition, is s)? `guards` names the kip_guard table */
#define KIP_UNINDEXED_SQL(guards)                                                       \
  "EXISTS (SELECT 1 FROM " guards " WHERE unindexed = 1 AND type = coalesce(s.type, e.type) " \
  "AND name IN ('', coalesce(s.name, e.name)))"
/* the statements that (re)index the elements listed in table `from`
** (store_search_sync.c, and the persistent statements of store.c) */
/* driven from that list by construction (CROSS JOIN), never a scan of `element` */
/* only elements that may be in the index are looked up to unindex: not the
** fresh ones (created since the last sync, store.c kip_store_mark_fresh),
** nor any above the highest id the index holds (e.g. changes marked before
** schema v6 had `fresh`). The trigram index keeps no copy of its text
** (schema v7): an element's trigrams are deleted with the text the word
** index kept of it, so they go first. */
#define UNINDEX_TRIGRAM_SQL(from)                                                                    \
  "INSERT INTO search_trigram(search_trigram, rowid, name, heading) SELECT 'delete', w.id, w.c0, w.c1 " \
  "FROM " from " d CROSS JOIN search_word_content w ON w.id = d.id WHERE NOT d.fresh"
#define UNINDEX_WORD_SQL(from)                                                                 \
  "DELETE FROM search_word WHERE rowid IN (SELECT id FROM " from " WHERE NOT fresh AND id <= " \
  "(SELECT coalesce(max(id), 0) FROM search_word_content))"
/* (the endpoint names joined, not looked up by subqueries: a bulk pass
** indexes hundreds of thousands of propositions). The rows come from
** `rows`, which names the element `e` (of table `elements`); the index
** builder (store_search_build.c) fills its own copy of the index with the same
** text, so the two statements are written once, here. */
#define INDEX_WORD_ROWS_SQL(into, rows, elements)                                                           \
  "INSERT INTO " into "(rowid, name, heading, body) SELECT e.id, " KIP_SEARCH_NAME_SQL ", "                 \
  KIP_SEARCH_HEADING_SQL ", " KIP_SEARCH_BODY_OF("s.name", "o.name") " FROM " rows " LEFT JOIN " elements \
  " s ON s.id = e.subject LEFT JOIN " elements " o ON o.id = e.object"
#define INDEX_WORD_SQL(from) INDEX_WORD_ROWS_SQL("search_word", from " d CROSS JOIN element e ON e.id = d.id", "element")
/* after INDEX_WORD_SQL: the name and heading it has just stored (`rows`
** names them `w`), not computed again */
#define INDEX_TRIGRAM_ROWS_SQL(into, rows) "INSERT INTO " into "(rowid, name, heading) SELECT w.id, w.c0, w.c1 FROM " rows
#define INDEX_TRIGRAM_SQL(from) \
  INDEX_TRIGRAM_ROWS_SQL("search_trigram", from " d CROSS JOIN search_word_content w ON w.id = d.id")


/* store.c: the single integer an SQL query returns, or -1 */
int64_t kip_store_count(kip_nexus *nx, const char *sql);
/* store.c: an SQL script on the nexus's connection (err filled on failure) */
int kip_store_exec(kip_nexus *nx, const char *sql, kip_error *err, const char *what);
/* store_schema.c: bring the file's schema to KIP_SCHEMA_VERSION (*created: it was empty) */
int kip_store_migrate(kip_nexus *nx, int *created, kip_error *err);

/* store_vectors.c: the vector index, kept in step at every commit (the
** elements listed in table `from`), and the embedder call */
int kip_vector_sync(kip_nexus *nx, const char *from, kip_error *err);
int kip_vector_sync_then(kip_nexus *nx, const char *from, const char *then, kip_error *err);
/* store_vectors.c: embed the queued elements with the attached in-transaction
** embedder (when it makes the recorded model's vectors and at most `limit`
** wait; limit <= 0: any number); how many stay queued, or -1 (err) */
int64_t kip_vector_catch_up(kip_nexus *nx, int64_t limit, kip_error *err);
/* store_vectors.c: after a request, a batch of a backlog kip_vector_catch_up
** left (vectors_behind); nothing inside a transaction or a bulk load */
void kip_vector_catch_up_some(kip_nexus *nx);
/* store_vectors.c: which list a hybrid SEARCH keeps whole (kip_info
** search_hybrid_primary; keyword unless the operator measured otherwise) */
enum { KIP_PRIMARY_KEYWORD, KIP_PRIMARY_SEMANTIC };
int kip_search_primary(kip_nexus *nx);
int kip_vector_embed(kip_nexus *nx, int n, const char *const *texts, float *out, kip_error *err);
void kip_vector_close(kip_nexus *nx);
/* kip_vector_status_get without counting the vectors (vectors = -1): what
** a SEARCH needs to know, cheaply */
int kip_vector_state(kip_nexus *nx, kip_vector_status *out, kip_error *err);

/* one element (concept or proposition) loaded from the store */
typedef struct kip_elem {
  int64_t id;
  int is_prop;
  char *type, *name, *predicate; /* malloc'd (NULL where not applicable) */
  int64_t subject, object;
  json_t *attrs, *meta;          /* parsed, owned */
  int64_t version;
} kip_elem;

void kip_elem_clear(kip_elem *e);

/* Prepare SQL through the nexus's statement cache (compiled KQL with the
** same shape yields the same SQL text, its values are bound parameters);
** hand the statement back with kip_finish, which resets it (so it never pins
** the WAL) or finalizes it if it was not cached. Returns an SQLite code. */
int kip_prepare(kip_nexus *nx, const char *sql, int len, kip_stmt **st);
void kip_finish(kip_nexus *nx, kip_stmt *st);



/* 1 when the host has cancelled the running request (polls its hook at
** most every 20 ms) */
int kip_interrupted(kip_nexus *nx);

/* store_ids.c: the next public id (inside the writer's transaction); the
** transaction's run of ids ends with it (commit or any rollback) */
int kip_store_next_id(kip_nexus *nx, int64_t *id, kip_error *err);
/* give back the id kip_store_next_id just returned (the insert wrote nothing) */
void kip_store_unuse_id(kip_nexus *nx, int64_t id);
/* store.c: 1 when a write guard refuses writing this row — the running
** call's lists (write_protected: any write; append_only: updates and
** deletes) by type or predicate, then the guards declared in the nexus
** (store_guard.c); op 'i' insert, 'u' update, 'd' delete; a concept is given
** by type and name, a proposition by predicate and subject. The kind is kept
** in req->guard_hit for the error */
int kip_write_refused(kip_nexus *nx, char op, int64_t id, const char *type, const char *name, const char *predicate,
                      int64_t subject);
/* the same question for an insert, without keeping the kind */
int kip_create_refused(kip_nexus *nx, const char *kind);

/* store_guard.c: the declared guards. open/close with the store; refresh
** re-reads them when another connection has committed (kip_tx_begin);
** kip_guard_refused answers for one row a command writes — op 'i' insert,
** 'u' update, 'd' delete; a concept by type and name, a proposition by
** predicate and subject — and keeps the reason in req->guard_why/hint
** (a maintenance call is let through and the write recorded); flush writes
** those records before COMMIT, rolled_back forgets the ones undone */
int kip_guards_open(kip_nexus *nx, kip_error *err);
void kip_guards_close(kip_nexus *nx);
int kip_guards_refresh(kip_nexus *nx, kip_error *err);
void kip_guards_moved(kip_nexus *nx, int64_t before, int64_t after);
int kip_guard_refused(kip_nexus *nx, char op, int64_t id, const char *type, const char *name, const char *predicate,
                      int64_t subject);
int kip_guards_flush(kip_nexus *nx, kip_error *err);
void kip_guards_rolled_back(kip_nexus *nx);
void kip_store_end_run(kip_nexus *nx);
/* store_ids.c: the running command may create up to n elements (0: it is
** over); one that may create more than a unit's worth starts with an extent */
void kip_store_expect_ids(kip_nexus *nx, int64_t n);

/* extra_functions: the SQL functions of the layers above (hop traversal,
** the scope check), registered before the schema is migrated and indexed —
** the store does not know the compiler */
int kip_store_open(kip_nexus *nx, const char *path, const kip_open_options *opt, int (*extra_functions)(kip_nexus *),
                   kip_error *err);
/* the store family's own (store_elements.c): step a write statement (its
** failure mapped to a KIP error); the error of a write a guard refused
** (KIP_4004, naming the guard); forget the memo of defined types and
** predicates */
int kip_store_step_write(kip_nexus *nx, kip_stmt *st, kip_error *err, const char *what);
int kip_store_guard_error(kip_nexus *nx, kip_error *err, const char *what);
void kip_store_defined_forget(kip_nexus *nx);
/* 1 when path names a PostgreSQL nexus (postgresql:// or postgres://) */
int kip_store_is_url(const char *path);
/* reads routed to a hot standby (PostgreSQL ?read=, request_replica.c): its
** URL with the nexus (NULL: none named); whether `replica` may answer nx's
** reads — it has replayed every write nx committed (read-your-writes; other
** connections' writes reach it with its replay lag); whether nx's server
** connection is lost */
const char *kip_store_read_url(kip_nexus *nx);
int kip_store_replica_fresh(kip_nexus *nx, kip_nexus *replica);
int kip_store_connection_lost(kip_nexus *nx);
void kip_store_close(kip_nexus *nx);

/* map an SQLite failure to a kip_error (busy, interrupt, constraint, ...) */
int kip_store_error(kip_nexus *nx, int rc, kip_error *err, const char *what);

/* record the transaction's pending new ids in search_dirty (store.c) */
int kip_store_mark_fresh(kip_nexus *nx, kip_error *err);
/* store_schema.c: a bulk command writing up to `writes` elements drops
** the element table's secondary indexes (in its transaction) when the nexus
** holds fewer, or they are already away; build_indexes builds them again
** when they are (0 or an error), check_indexes at open (a load that did not
** end) */
int kip_store_defer_indexes(kip_nexus *nx, int64_t writes, kip_error *err);
/* store_schema.c: 0 unless the file is an SQLite database of another
** program (tables, no kipnexus schema version): opening it must change
** nothing, not even its journal mode */
int kip_store_check_foreign(kip_nexus *nx, kip_error *err);
int kip_store_build_indexes(kip_nexus *nx, kip_error *err);
int kip_store_check_indexes(kip_nexus *nx, kip_error *err);
/* foreign key checks on (1) or off (0) for the connection, outside
** transactions only; 0 when done (request.c: bulk UPSERT commands) */
int kip_store_foreign_keys(kip_nexus *nx, int on);
/* before anything that is not a bulk command: what bulk commands left
** (foreign key checks switched off, if switching them back on failed; the
** deferred secondary indexes) is undone, or the call refused (0 / error) */
int kip_store_end_bulk(kip_nexus *nx, kip_error *err);
int kip_tx_begin(kip_nexus *nx, kip_error *err);
/* a read-only batch: one snapshot for all its statements */
int kip_tx_begin_read(kip_nexus *nx, kip_error *err);
void kip_tx_end_read(kip_nexus *nx);
/* a read transaction whose reads may be repeated: on PostgreSQL its
** decisions may rest on the write generation last seen, checked in the
** round trip of its first statement instead of one of its own. Ending it,
** kip_tx_end_read_stale returns 1 when that generation had moved: nothing
** it read is valid and the caller runs its reads again (request.c) */
int kip_tx_begin_read_repeatable(kip_nexus *nx, kip_error *err);
/* a write command that may be run again: on PostgreSQL the elements it
** creates may wait in a batch (store_pg_batch.c; a no-op on SQLite).
** kip_pg_batch_failed, after its transaction ended, says whether it must be
** run again with batching off (an element it assumed new existed) */
void kip_pg_batch_writes(kip_nexus *nx, int on);
/* a statement that reads no element a batch holds runs without sending it first */
void kip_pg_runs_beside_batch(kip_stmt *st);
/* a bulk load's indexes on PostgreSQL (store_pg_schema.c): what
** kip_store_defer_indexes drops there, and kip_store_build_indexes' work */
extern const char *const KIP_PG_DROP_DEFERRED_INDEXES;
int kip_pg_build_indexes(kip_nexus *nx, kip_error *err);
int kip_pg_batch_failed(kip_nexus *nx);
int kip_tx_end_read_stale(kip_nexus *nx);
/* the read in progress assumed a write generation that had moved
** (PostgreSQL): what it read is void, and the caller repeats it */
int kip_store_read_void(kip_nexus *nx);
/* index the elements changed since the last sync (search_dirty) for SEARCH;
** kip_tx_commit calls it before every outermost COMMIT */
int kip_search_sync(kip_nexus *nx, kip_error *err);
/* store_search_sync.c: what a guard declared unindexed covers (its type,
** or the concept of it named `name`: "" for all; and the propositions
** whose subject is one of them) taken out of the SEARCH indexes and
** vectors (excluded = 1), or marked to be indexed again (excluded = 0) */
int kip_search_exclude(kip_nexus *nx, const char *type, const char *name, int excluded, kip_error *err);
/* the elements an unindexed guard covers, read from the list of elements
** waiting for the index (search_dirty) before anything indexes or embeds
** them; nothing to do (and no statement) while no guard is unindexed */
int kip_search_skip_unindexed(kip_nexus *nx, kip_error *err);
/* store_guard.c: whether a declared guard keeps what it covers out of the
** SEARCH indexes (as this connection last read the guards) */
int kip_guards_unindexed(kip_nexus *nx);
int kip_tx_commit(kip_nexus *nx, kip_error *err);
/* commit a transaction of storage upkeep (search index, vectors): it does
** not count as a write generation (kip_write_generation) */
int kip_tx_commit_upkeep(kip_nexus *nx, kip_error *err);
/* 1 when elements wait in search_dirty (a deferred bulk load), else 0 */
int64_t kip_unindexed(kip_nexus *nx);
void kip_tx_rollback(kip_nexus *nx);
void kip_stamp_now(kip_nexus *nx);

int kip_store_get(kip_nexus *nx, int64_t id, kip_elem *out, kip_error *err); /* 0 / KIP_E_NOT_FOUND */
int kip_store_find_concept(kip_nexus *nx, const char *type, const char *name, int64_t *id, kip_error *err);
/* PostgreSQL: whether substrings of names and headings are found by an
** index (pg_trgm) — else by a scan (search_keyword.c) */
int kip_store_pg_trigrams(kip_nexus *nx);
/* the concepts of a list that exist, looked up in one statement where a
** statement is a round trip (PostgreSQL; 0 and nothing reported on SQLite,
** whose lookups one at a time cost less): found(ud, type, name, id) for
** each; 0 or a KIP error */
int kip_store_find_concepts(kip_nexus *nx, int n, const char *const *types, const char *const *names,
                            void (*found)(void *ud, const char *type, const char *name, int64_t id), void *ud,
                            kip_error *err);
/* the same for propositions by (subject, predicate, object): each that
** exists is recorded as met (kip_pg_batch_met), so that a batch does not
** assume it new */
int kip_store_note_existing_props(kip_nexus *nx, int n, const int64_t *subjects, const char *const *predicates,
                                  const int64_t *objects, kip_error *err);
int kip_store_find_prop(kip_nexus *nx, int64_t s, const char *p, int64_t o, int64_t *id, kip_error *err);
/* while a command's new elements wait in a batch (PostgreSQL): 1 when the
** link was met already — it existed (kip_store_note_existing_props) or the
** command wrote it — 0 when not; -1 when no batch tells (SQLite) */
int kip_store_link_met(kip_nexus *nx, int64_t s, const char *p, int64_t o);
/* the id of a link this command wrote in a batch, or found to exist
** (kip_store_note_existing_props), with exactly these attributes and
** metadata, nothing updated since: writing it again changes nothing, and
** it is not looked up (which would send the batch first); 0 when not known
** (SQLite, another link, other contents) */
int64_t kip_store_link_repeated(kip_nexus *nx, int64_t s, const char *p, int64_t o, const json_t *attrs,
                                const json_t *meta);
/* create an element; *id = 0 when one with this identity exists (nothing written) */
int kip_store_insert_concept(kip_nexus *nx, const char *type, const char *name, const json_t *attrs,
                             const json_t *meta, int64_t *id, kip_error *err);
int kip_store_insert_prop(kip_nexus *nx, int64_t s, const char *p, int64_t o, const json_t *attrs,
                          const json_t *meta, int64_t *id, kip_error *err);
/* write new attributes/metadata; bumps _version and _updated_at */
int kip_store_update(kip_nexus *nx, int64_t id, const json_t *attrs, const json_t *meta, kip_error *err);
int kip_store_delete(kip_nexus *nx, int64_t id, kip_error *err);
/* give a proposition new endpoints; bumps _version and _updated_at */
int kip_store_repoint(kip_nexus *nx, int64_t id, int64_t subject, int64_t object, kip_error *err);
/* the lowest-id proposition having `id` as subject or object (KIP_E_NOT_FOUND if none) */
int kip_store_next_referrer(kip_nexus *nx, int64_t id, int64_t *referrer, kip_error *err);
/* 1 when {type: meta, name: name} exists ("$ConceptType"/"$PropositionType") */
int kip_store_is_defined(kip_nexus *nx, const char *meta, const char *name, kip_error *err);
/* the file's data version: moves with every commit, this connection's or
** another's (0 when it cannot be read) — what caches of the schema's state
** above the store compare (exec_plans.c) */
unsigned kip_store_file_version(kip_nexus *nx);

/* public ids: "C:<n>" / "P:<n>" */
void kip_format_id(char *out, size_t n, int64_t id, int is_prop);
/* parse a public id; returns 1 and sets id/is_prop, 0 if malformed */
int kip_parse_id(const char *s, int64_t *id, int *is_prop);

/* the protected core (RC11 §4.2.4, KIP_3004) */
enum { PROT_NONE = 0, PROT_CORE = 1, PROT_ACTOR = 2 };
int kip_protection(const char *type, const char *name);

/* store_sqlfunc.c: register KIP value semantics as SQL functions */
int kip_register_sql_functions(kip_nexus *nx);
/* store_sqlfunc.c: kip_search_text(attributes, which, extra...)'s text appended to b
** (n: the attributes' length; extra: NULL entries skipped) */
void kip_search_text_add(kip_buf *b, const char *attributes, size_t n, int which, const char *const *extra, int nextra);
/* store_sqlfunc.c: kip_search_text alone, on another connection (store_search_build.c) */
int kip_register_search_text(struct sqlite3 *db);

/* store_search_build.c: a bulk load's SEARCH index built on a second thread.
** start: a bulk command deferred the element indexes (request.c); record:
** a run of new ids of the running transaction (kip_store_mark_fresh);
** publish / discard: at its commit / rollback; check: at each further bulk
** command (another connection committed: the build is not used);
** invalidate: the index is about to change here; close_queue: no more
** runs; finish: the end of the load (kip_store_end_bulk) — the build
** replaces the index, or the ordinary pass does the work; abandon: close. */
void kip_index_builder_start(kip_nexus *nx);
void kip_index_builder_record(kip_nexus *nx, int64_t lo, int64_t hi);
void kip_index_builder_publish(kip_nexus *nx);
void kip_index_builder_discard(kip_nexus *nx);
void kip_index_builder_check(kip_nexus *nx);
void kip_index_builder_invalidate(kip_nexus *nx);
void kip_index_builder_close_queue(kip_nexus *nx);
int kip_index_builder_finish(kip_nexus *nx, kip_error *err);
void kip_index_builder_abandon(kip_nexus *nx);
/* remove the scratch file a killed load's builder left beside the nexus
** file at nexus_path (one a live builder holds is left alone) */
void kip_index_builder_cleanup(const char *nexus_path);
/* store_search_rank.c: the FTS5 ranking function kip_rank() of keyword SEARCH */
int kip_register_rank_function(struct sqlite3 *db);
void kip_free_sql_state(kip_nexus *nx);

/* monotonic clock in microseconds */
int64_t kip_now_us(void);

#endif
