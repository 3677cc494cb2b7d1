/*
** store_search_build.c — a bulk load's SEARCH index, built on a second thread.
**
** A bulk load (kip import, kip restore: UPSERT commands sent with
** defer_index) into a (nearly) empty nexus writes its elements on the
** caller's thread and leaves their SEARCH index to kip_sync_index — about
** half of the load's time, all of it SQLite's FTS5 work, on one core. The
** index builder does that work beside the writer instead: after every bulk
** command commits, the runs of new ids it wrote (kip_store_mark_fresh) go
** to a thread that reads their text from the committed file (its own read
** connection: WAL readers never wait for the writer) and indexes it into
** FTS5 tables of a scratch file (<nexus>-kipindex) created from the
** nexus's own definitions and started from a copy of its index. When the
** load ends (kip_store_end_bulk: kip_sync_index, or any other command) the
** finished index replaces the nexus's — its shadow tables are copied in one
** transaction by a connection of its own (so every connection's FTS5 sees
** another connection's commit and drops what it cached) — and the elements
** it covers leave search_dirty.
**
** Nothing depends on the builder finishing: search_dirty lists every new
** element as before, so an abandoned build (an error, the process dying,
** kip_close, another connection or a non-deferred sync having changed the
** index meanwhile) leaves the load to the ordinary pass. An element the
** load changed after the builder read it (its version differs) stays
** dirty and is indexed again by that pass. Not started for in-memory
** nexuses nor outside WAL mode. The builder holds an advisory lock (flock)
** on its scratch file while it lives: the next open removes a scratch file
** nobody holds (a killed load's), never a live builder's, and a second
** builder does not start beside a live one. Part of the store layer
** (store_search_sync.c keeps the index in step otherwise).
*/
#include <fcntl.h>
#include <pthread.h>
#include <stdio.h>
#include <sys/file.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "store_sqlite.h"

/* the index's shadow tables (FTS5: data, idx, config; the word index also
** keeps its content and column sizes, the trigram index neither — schema v7) */
static const char *const shadow_tables[] = {"search_word_data",    "search_word_idx",     "search_word_content",
                                            "search_word_docsize", "search_word_config",  "search_trigram_data",
                                            "search_trigram_idx",  "search_trigram_config"};
#define N_SHADOW (sizeof shadow_tables / sizeof *shadow_tables)

struct kip_index_builder {
  pthread_t thread;
  pthread_mutex_t lock;
  pthread_cond_t wake;
  /* under lock */
  int64_t *queue;        /* published runs: lo, hi pairs */
  size_t queued, queue_cap;
  int closing;           /* the writer sends no more runs: finish */
  int stop;              /* abandon as soon as possible */
  int failed;            /* the thread met an error: the build is not used */
  sqlite3 *side;         /* the thread's connection while open (for sqlite3_interrupt) */
  /* the writer's alone */
  int64_t *pending;      /* runs of the running transaction, published at its commit */
  size_t npending, pending_cap;
  int invalid;           /* the nexus's index changed meanwhile: do not use the build */
  int64_t data_version;  /* the nexus's PRAGMA data_version when the build started */
  char main_path[4096];
  char side_path[4112];
  int lock_fd;           /* the scratch file, locked while the builder lives */
};

static int push_run(int64_t **v, size_t *n, size_t *cap, int64_t lo, int64_t hi) {
  if (*n + 2 > *cap) {
    size_t c = *cap ? *cap * 2 : 256;
    int64_t *p = realloc(*v, c * sizeof *p);
    if (!p) return 0;
    *v = p;
    *cap = c;
  }
  (*v)[(*n)++] = lo;
  (*v)[(*n)++] = hi;
  return 1;
}

static int exec(sqlite3 *db, const char *sql) { return sqlite3_exec(db, sql, NULL, NULL, NULL); }

/* replace the index in schema `to` by the one in schema `from` (same definitions) */
static int copy_index(sqlite3 *db, const char *to, const char *from) {
  char sql[320];
  for (size_t i = 0; i < N_SHADOW; i++) {
    snprintf(sql, sizeof sql, "DELETE FROM \"%s\".%s; INSERT INTO \"%s\".%s SELECT * FROM \"%s\".%s", to,
             shadow_tables[i], to, shadow_tables[i], from, shadow_tables[i]);
    int rc = exec(db, sql);
    if (rc != SQLITE_OK) return rc;
  }
  return SQLITE_OK;
}

/* the file as schema `as` of connection db */
static int attach(sqlite3 *db, const char *path, const char *as) {
  char sql[64];
  snprintf(sql, sizeof sql, "ATTACH ?1 AS %s", as);
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(db, sql, -1, &st, NULL);
  if (rc != SQLITE_OK) return rc;
  sqlite3_bind_text(st, 1, path, -1, SQLITE_STATIC);
  rc = sqlite3_step(st) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
  sqlite3_finalize(st);
  return rc;
}

static void remove_side_file(const char *path) {
  char other[4128];
  unlink(path);
  snprintf(other, sizeof other, "%s-journal", path);
  unlink(other);
}

/* the scratch file at path, created empty and locked for this builder;
** -1 when a live builder holds it */
static int claim_side_file(const char *path) {
  int fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0600);
  if (fd < 0) return -1;
  if (flock(fd, LOCK_EX | LOCK_NB) || ftruncate(fd, 0)) {
    close(fd);
    return -1;
  }
  char journal[4128];
  snprintf(journal, sizeof journal, "%s-journal", path);
  unlink(journal);
  return fd;
}

/* the scratch file is gone, then its lock (in that order: a process that
** finds the file unlocked may remove it) */
static void release_side_file(const char *path, int lock_fd) {
  remove_side_file(path);
  if (lock_fd >= 0) close(lock_fd);
}

void kip_index_builder_cleanup(const char *nexus_path) {
  char side[4112];
  if (!nexus_path || !nexus_path[0] || snprintf(side, sizeof side, "%s-kipindex", nexus_path) >= (int)sizeof side) return;
  int fd = open(side, O_RDWR | O_CLOEXEC);
  if (fd < 0) return; /* none */
  if (!flock(fd, LOCK_EX | LOCK_NB)) remove_side_file(side); /* nobody's: a killed load's */
  close(fd);
}

/* ------------------------------------------------------------- the thread */
/* the statements indexing the runs of new ids listed in temp.runs (lo,
** hi) from the nexus (schema m): one statement per index for all of them,
** as FTS5 writes a segment per statement */
#define RUNS "temp.runs r CROSS JOIN m.element e ON e.id BETWEEN r.lo AND r.hi"
#define BUILT_SQL "INSERT OR REPLACE INTO built(id, version) SELECT e.id, e.version FROM " RUNS
/* (what an unindexed guard covers stays out, as the sync leaves it out) */
#define WORD_SQL INDEX_WORD_ROWS_SQL("main.search_word", RUNS, "m.element") " WHERE NOT " KIP_UNINDEXED_SQL("m.kip_guard")
#define TRIGRAM_SQL \
  INDEX_TRIGRAM_ROWS_SQL("main.search_trigram", "temp.runs r CROSS JOIN main.search_word_content w ON w.id BETWEEN r.lo AND r.hi")

/* open the scratch file: the nexus's index definitions, a copy of its index */
static int open_side(struct kip_index_builder *b, sqlite3 **out) {
  sqlite3 *db; /* the file is ours, empty (claim_side_file) */
  int rc = sqlite3_open_v2(b->side_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc == SQLITE_OK) rc = exec(db, "PRAGMA journal_mode=OFF; PRAGMA synchronous=OFF; PRAGMA cache_size=-65536");
  if (rc == SQLITE_OK) rc = kip_register_search_text(db);
  if (rc == SQLITE_OK) rc = attach(db, b->main_path, "m");
  sqlite3_stmt *st = NULL;
  if (rc == SQLITE_OK) rc = exec(db, "PRAGMA m.cache_size=-32768; CREATE TEMP TABLE runs(lo INTEGER PRIMARY KEY, hi); BEGIN");
  if (rc == SQLITE_OK)
    rc = sqlite3_prepare_v2(db, "SELECT sql FROM m.sqlite_master WHERE name IN ('search_word', 'search_trigram')", -1,
                            &st, NULL);
  int tables = 0;
  while (rc == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW) {
    rc = exec(db, (const char *)sqlite3_column_text(st, 0));
    tables++;
  }
  if (st) sqlite3_finalize(st);
  if (rc == SQLITE_OK && tables != 2) rc = SQLITE_ERROR;
  if (rc == SQLITE_OK) rc = copy_index(db, "main", "m");
  if (rc == SQLITE_OK) rc = exec(db, "CREATE TABLE built(id INTEGER PRIMARY KEY, version INTEGER NOT NULL); COMMIT");
  *out = db;
  return rc;
}

static int index_runs(sqlite3 *db, sqlite3_stmt *const st[4], const int64_t *runs, size_t n) {
  int rc = exec(db, "BEGIN; DELETE FROM temp.runs"); /* one snapshot of the nexus for the lot */
  for (size_t i = 0; rc == SQLITE_OK && i < n; i += 2) {
    sqlite3_bind_int64(st[0], 1, runs[i]);
    sqlite3_bind_int64(st[0], 2, runs[i + 1]);
    rc = sqlite3_step(st[0]) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_reset(st[0]);
  }
  for (int k = 1; k < 4 && rc == SQLITE_OK; k++) {
    rc = sqlite3_step(st[k]) == SQLITE_DONE ? SQLITE_OK : sqlite3_errcode(db);
    sqlite3_reset(st[k]);
  }
  if (rc == SQLITE_OK) return exec(db, "COMMIT");
  exec(db, "ROLLBACK");
  return rc;
}

static void *builder_main(void *arg) {
  struct kip_index_builder *b = arg;
  sqlite3 *db = NULL;
  sqlite3_stmt *st[4] = {NULL, NULL, NULL, NULL};
  int rc = open_side(b, &db);
  const char *sql[4] = {"INSERT OR REPLACE INTO temp.runs(lo, hi) VALUES(?1, ?2)", BUILT_SQL, WORD_SQL, TRIGRAM_SQL};
  for (int k = 0; k < 4 && rc == SQLITE_OK; k++) rc = sqlite3_prepare_v2(db, sql[k], -1, &st[k], NULL);
  pthread_mutex_lock(&b->lock);
  b->side = db;
  int64_t *runs = NULL;
  size_t cap = 0;
  while (rc == SQLITE_OK && !b->stop) {
    if (!b->queued && !b->closing) {
      pthread_cond_wait(&b->wake, &b->lock);
      continue;
    }
    if (!b->queued) break; /* closing, all indexed */
    int64_t *take = b->queue; /* the two buffers change places */
    size_t n = b->queued, take_cap = b->queue_cap;
    b->queue = runs;
    b->queue_cap = cap;
    b->queued = 0;
    runs = take;
    cap = take_cap;
    pthread_mutex_unlock(&b->lock);
    rc = index_runs(db, st, runs, n);
    pthread_mutex_lock(&b->lock);
  }
  int stopped = b->stop;
  pthread_mutex_unlock(&b->lock);
  free(runs);
  for (int k = 0; k < 4; k++) sqlite3_finalize(st[k]);
  /* merged into one segment per index, as kip_sync_index does after a bulk pass */
  if (rc == SQLITE_OK && !stopped)
    rc = exec(db, "INSERT INTO search_word(search_word) VALUES('optimize');"
                  "INSERT INTO search_trigram(search_trigram) VALUES('optimize'); DETACH m");
  pthread_mutex_lock(&b->lock);
  b->side = NULL;
  if (rc != SQLITE_OK || stopped) b->failed = 1;
  pthread_mutex_unlock(&b->lock);
  sqlite3_close_v2(db);
  return NULL;
}

/* ------------------------------------------------------------- the writer */
void kip_index_builder_start(kip_nexus *nx) {
  if (nx->index_builder || nx->readonly_file || nx->pg) return; /* an SQLite file's */
  const char *path = sqlite3_db_filename(nx->db, "main");
  if (!path || !path[0] || strlen(path) >= sizeof nx->index_builder->main_path) return; /* in memory */
  sqlite3_stmt *st;
  int wal = 0;
  if (sqlite3_prepare_v2(nx->db, "PRAGMA journal_mode", -1, &st, NULL) == SQLITE_OK) {
    wal = sqlite3_step(st) == SQLITE_ROW && !sqlite3_stricmp((const char *)sqlite3_column_text(st, 0), "wal");
    sqlite3_finalize(st);
  }
  if (!wal) return;
  struct kip_index_builder *b = calloc(1, sizeof *b);
  if (!b) return;
  snprintf(b->main_path, sizeof b->main_path, "%s", path);
  snprintf(b->side_path, sizeof b->side_path, "%s-kipindex", path);
  b->data_version = kip_store_count(nx, "PRAGMA data_version");
  b->lock_fd = b->data_version < 0 ? -1 : claim_side_file(b->side_path);
  if (b->lock_fd < 0) { /* another live load's builder: the ordinary pass */
    free(b);
    return;
  }
  pthread_mutex_init(&b->lock, NULL);
  pthread_cond_init(&b->wake, NULL);
  if (pthread_create(&b->thread, NULL, builder_main, b)) {
    pthread_mutex_destroy(&b->lock);
    pthread_cond_destroy(&b->wake);
    release_side_file(b->side_path, b->lock_fd);
    free(b);
    return;
  }
  nx->index_builder = b;
}

void kip_index_builder_record(kip_nexus *nx, int64_t lo, int64_t hi) {
  struct kip_index_builder *b = nx->index_builder;
  if (b && !push_run(&b->pending, &b->npending, &b->pending_cap, lo, hi)) b->invalid = 1;
}

void kip_index_builder_publish(kip_nexus *nx) {
  struct kip_index_builder *b = nx->index_builder;
  if (!b || !b->npending) return;
  pthread_mutex_lock(&b->lock);
  for (size_t i = 0; i < b->npending && !b->invalid; i += 2)
    if (!push_run(&b->queue, &b->queued, &b->queue_cap, b->pending[i], b->pending[i + 1])) b->invalid = 1;
  if (b->invalid) b->stop = 1;
  pthread_cond_signal(&b->wake);
  pthread_mutex_unlock(&b->lock);
  b->npending = 0;
}

void kip_index_builder_discard(kip_nexus *nx) {
  if (nx->index_builder) nx->index_builder->npending = 0;
}

void kip_index_builder_check(kip_nexus *nx) {
  struct kip_index_builder *b = nx->index_builder;
  if (b && kip_store_count(nx, "PRAGMA data_version") != b->data_version) kip_index_builder_invalidate(nx);
}

void kip_index_builder_invalidate(kip_nexus *nx) {
  struct kip_index_builder *b = nx->index_builder;
  if (!b) return;
  b->invalid = 1;
  pthread_mutex_lock(&b->lock);
  b->stop = 1;
  if (b->side) sqlite3_interrupt(b->side);
  pthread_cond_signal(&b->wake);
  pthread_mutex_unlock(&b->lock);
}

void kip_index_builder_close_queue(kip_nexus *nx) {
  struct kip_index_builder *b = nx->index_builder;
  if (!b) return;
  pthread_mutex_lock(&b->lock);
  b->closing = 1;
  pthread_cond_signal(&b->wake);
  pthread_mutex_unlock(&b->lock);
}

/* wait for the thread and forget the builder; 1 when its index is usable */
static int join(kip_nexus *nx, char *side_path, size_t n, int *lock_fd) {
  struct kip_index_builder *b = nx->index_builder;
  kip_index_builder_close_queue(nx);
  pthread_join(b->thread, NULL);
  int usable = !b->failed && !b->invalid;
  snprintf(side_path, n, "%s", b->side_path);
  *lock_fd = b->lock_fd;
  pthread_mutex_destroy(&b->lock);
  pthread_cond_destroy(&b->wake);
  free(b->queue);
  free(b->pending);
  free(b);
  nx->index_builder = NULL;
  return usable;
}

void kip_index_builder_abandon(kip_nexus *nx) {
  if (!nx->index_builder) return;
  char side[4112];
  int lock_fd;
  kip_index_builder_invalidate(nx);
  join(nx, side, sizeof side, &lock_fd);
  release_side_file(side, lock_fd);
}

/* the built index replaces the nexus's, by a connection of its own (see
** the top), once nothing else has committed since the build started */
static int adopt_index(kip_nexus *nx, const char *main_path, const char *side_path, int64_t data_version) {
  sqlite3 *db;
  int rc = sqlite3_open_v2(main_path, &db, SQLITE_OPEN_READWRITE | SQLITE_OPEN_NOMUTEX, NULL);
  if (rc == SQLITE_OK) {
    sqlite3_busy_timeout(db, 5000);
    rc = attach(db, side_path, "kip_built");
  }
  if (rc == SQLITE_OK) rc = exec(db, "BEGIN IMMEDIATE");
  /* holding the write lock: nobody commits before this transaction ends */
  if (rc == SQLITE_OK && kip_store_count(nx, "PRAGMA data_version") != data_version) rc = SQLITE_ABORT;
  if (rc == SQLITE_OK) rc = copy_index(db, "main", "kip_built");
  /* every element built now has a document: whatever stays dirty is re-indexed, not added */
  if (rc == SQLITE_OK)
    rc = exec(db, "UPDATE main.search_dirty SET fresh = 0 WHERE fresh AND id IN (SELECT id FROM kip_built.built)");
  if (rc == SQLITE_OK) rc = exec(db, "COMMIT");
  if (rc != SQLITE_OK && db && !sqlite3_get_autocommit(db)) exec(db, "ROLLBACK");
  sqlite3_close_v2(db);
  return rc;
}

/* the elements whose current version was indexed leave search_dirty (and
** get their vectors, as at any commit that indexes them) */
static int settle_covered(kip_nexus *nx, const char *side_path, kip_error *err) {
  int rc = attach(nx->db, side_path, "kip_built");
  if (rc != SQLITE_OK) return kip_store_error(nx, rc, err, "adopting the search index");
  rc = kip_store_exec(nx,
                      "BEGIN IMMEDIATE; CREATE TEMP TABLE kip_covered(id INTEGER PRIMARY KEY);"
                      "INSERT INTO kip_covered SELECT b.id FROM kip_built.built b CROSS JOIN main.element e "
                      "ON e.id = b.id AND e.version = b.version",
                      err, "adopting the search index");
  if (!rc) rc = kip_vector_sync(nx, "temp.kip_covered", err);
  if (!rc)
    rc = kip_store_exec(nx, "DELETE FROM search_dirty WHERE id IN (SELECT id FROM temp.kip_covered); COMMIT", err,
                        "adopting the search index");
  if (!rc) nx->indexed_beside = sqlite3_changes64(nx->db);
  if (rc && !sqlite3_get_autocommit(nx->db)) sqlite3_exec(nx->db, "ROLLBACK", NULL, NULL, NULL);
  sqlite3_exec(nx->db, "DROP TABLE IF EXISTS temp.kip_covered; DETACH kip_built", NULL, NULL, NULL);
  return rc;
}

int kip_index_builder_finish(kip_nexus *nx, kip_error *err) {
  struct kip_index_builder *b = nx->index_builder;
  if (!b) return 0;
  nx->indexed_beside = 0;
  char main_path[4096], side_path[4112];
  int64_t data_version = b->data_version;
  snprintf(main_path, sizeof main_path, "%s", b->main_path);
  if (nx->tx_depth > 0) kip_index_builder_invalidate(nx); /* inside a caller's transaction: the ordinary pass */
  int lock_fd;
  int usable = join(nx, side_path, sizeof side_path, &lock_fd);
  int rc = 0;
  if (usable && adopt_index(nx, main_path, side_path, data_version) == SQLITE_OK) rc = settle_covered(nx, side_path, err);
  release_side_file(side_path, lock_fd);
  return rc;
}
