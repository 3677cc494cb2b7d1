/*
** store.c — the graph store's connection to SQLite: opening a nexus file
** (WAL, busy timeout, foreign keys, read-only fallback), the persistent and
** cached prepared statements, the request clock and its interruption, and
** SQLite's failures mapped to KIP errors. The store family's other jobs:
** store_tx.c (transactions), store_elements.c (element rows), store_bulk.c
** (bulk loads), store_schema.c (the schema), store_rows.c (the row API).
*/
#include "store_pg.h"
#include "store_sqlite.h"

#include <errno.h>
#include <pthread.h>
#include <stdio.h>
#include <unistd.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

int64_t kip_now_us(void) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  return (int64_t)ts.tv_sec * 1000000 + ts.tv_nsec / 1000;
}

void kip_stamp_now(kip_nexus *nx) {
  struct timespec ts;
  clock_gettime(CLOCK_REALTIME, &ts);
  struct tm tm;
  gmtime_r(&ts.tv_sec, &tm);
  strftime(nx->req->now, sizeof nx->req->now, "%Y-%m-%dT%H:%M:%S", &tm);
  size_t n = strlen(nx->req->now);
  snprintf(nx->req->now + n, sizeof nx->req->now - n, ".%03dZ", (int)(ts.tv_nsec / 1000000) % 1000);
}

int kip_store_exec(kip_nexus *nx, const char *sql, kip_error *err, const char *what) {
  if (nx->pg) return kip_pg_exec(nx, sql, err, what);
  char *msg = NULL;
  int rc = sqlite3_exec(nx->db, sql, NULL, NULL, &msg);
  if (rc != SQLITE_OK) {
    kip_store_error(nx, rc, err, what);
    if (msg && err->code == KIP_E_INTERNAL) /* a recognised failure keeps its own words */
      snprintf(err->message, sizeof err->message, "%s: %s", what, msg);
    sqlite3_free(msg);
    return err->code;
  }
  return 0;
}

static const char *stmt_sql[ST_COUNT] = {
    [ST_GET] = "SELECT id, type, name, subject, predicate, object, attributes, metadata, version FROM element WHERE id=?1",
    [ST_FIND_CONCEPT] = "SELECT id FROM element WHERE type=?1 AND name=?2",
    [ST_FIND_PROP] = "SELECT id FROM element WHERE subject=?1 AND predicate=?2 AND object=?3",
    /* inserts leave an existing element alone (the caller then merges into it) */
    [ST_INSERT_CONCEPT] = ("INSERT INTO element(id, type, name, attributes, metadata, version, updated_at) "
                           "VALUES(?6,?1,?2,?3,?4,1,?5) ON CONFLICT(type, name) WHERE type IS NOT NULL DO NOTHING"),
    [ST_INSERT_PROP] = ("INSERT INTO element(id, subject, predicate, object, attributes, metadata, version, updated_at) "
                        "VALUES(?7,?1,?2,?3,?4,?5,1,?6) "
                        "ON CONFLICT(subject, predicate, object) WHERE subject IS NOT NULL DO NOTHING"),
    [ST_NEXT_ID] = "UPDATE kip_id_alloc SET counter = counter + 1 RETURNING counter - 1, base_bits, secret",
    [ST_NEXT_EXTENT] = "UPDATE kip_id_alloc SET extents = extents + 1 RETURNING extents - 1, base_bits, secret",
    [ST_ID_RANGE_USED] = "SELECT 1 FROM element WHERE id BETWEEN ?1 AND ?2 LIMIT 1",
    [ST_UPDATE] = "UPDATE element SET attributes=?2, metadata=?3, version=version+1, updated_at=?4 WHERE id=?1",
    [ST_DELETE] = "DELETE FROM element WHERE id=?1",
    [ST_IS_DEFINED] = "SELECT 1 FROM element WHERE type=?1 AND name=?2",
    [ST_REPOINT] = "UPDATE element SET subject=?2, object=?3, version=version+1, updated_at=?4 WHERE id=?1",
    [ST_SEARCH_PENDING] = "SELECT 1 FROM search_dirty LIMIT 1",
    [ST_SEARCH_UNINDEX_TRIGRAM] = UNINDEX_TRIGRAM_SQL("search_dirty"),
    [ST_SEARCH_UNINDEX_WORD] = UNINDEX_WORD_SQL("search_dirty"),
    [ST_SEARCH_INDEX_WORD] = INDEX_WORD_SQL("search_dirty"),
    [ST_SEARCH_INDEX_TRIGRAM] = INDEX_TRIGRAM_SQL("search_dirty"),
    [ST_SEARCH_CLEAR] = "DELETE FROM search_dirty",
    /* the run's rows, read back from the table (an element of the run already
    ** deleted needs no indexing; its delete mark finds nothing to unindex) */
    [ST_MARK_FRESH] = "INSERT OR REPLACE INTO search_dirty(id, fresh) SELECT id, 1 FROM element WHERE id BETWEEN ?1 AND ?2",
    /* the same run in the change log (store_changes.c) */
    [ST_MARK_CHANGED] = ("INSERT INTO kip_changed_run(lo, hi, gen) VALUES(?1, ?2, " CHANGE_GENERATION ") "
                         "ON CONFLICT(lo) DO UPDATE SET hi = max(hi, excluded.hi), gen = excluded.gen"),
    [ST_CONCEPT_OF] = "SELECT type, name FROM element WHERE id=?1",
    [ST_DATA_VERSION] = "PRAGMA data_version",
    [ST_BEGIN_READ] = "BEGIN",
    [ST_END_READ] = "COMMIT",
    /* segment merging: at most ?1 pages (store_search_sync.c) */
    [ST_NEXT_REFERRER] = ("SELECT min(id) FROM (SELECT min(id) AS id FROM element WHERE subject=?1 "
                          "UNION ALL SELECT min(id) FROM element WHERE object=?1) AS r HAVING min(id) IS NOT NULL"),
};

static int progress_handler(void *ud) {
  kip_nexus *nx = ud;
  if (nx->req->deadline_us && kip_now_us() > nx->req->deadline_us) {
    nx->req->timed_out = 1;
    return 1;
  }
  return kip_interrupted(nx);
}

int kip_interrupted(kip_nexus *nx) {
  if (nx->req->cancelled) return 1;
  if (!nx->req->hooks || !nx->req->hooks->interrupted) return 0;
  int64_t now = kip_now_us();
  if (now < nx->req->next_interrupt_check) return 0;
  nx->req->next_interrupt_check = now + 20000;
  int64_t saved = nx->req->deadline_us;
  nx->req->deadline_us = 0;
  nx->req->cancelled = nx->req->hooks->interrupted(nx->req->hooks->ud) != 0;
  nx->req->deadline_us = saved;
  return nx->req->cancelled;
}

/* 1 when path can be opened read-write: the file (if it exists) and its
** directory (WAL needs -wal/-shm beside it) are writable */
static int writable_path(const char *path) {
  if (access(path, F_OK) == 0 && access(path, W_OK) != 0) return 0;
  char dir[4096];
  const char *slash = strrchr(path, '/');
  if (!slash) snprintf(dir, sizeof dir, ".");
  else if (slash == path) snprintf(dir, sizeof dir, "/");
  else snprintf(dir, sizeof dir, "%.*s", (int)(slash - path), path);
  return access(dir, W_OK) == 0 || access(path, F_OK) != 0;
}

/* open read-only; when even reading needs a write (a WAL file without its
** -shm in an unwritable place), open it immutable */
static int open_readonly(kip_nexus *nx, const char *path) {
  int rc = sqlite3_open_v2(path, &nx->db, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READONLY, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_exec(nx->db, "SELECT count(*) FROM sqlite_master", NULL, NULL, NULL);
  if (rc == SQLITE_OK) return 0;
  sqlite3_close(nx->db);
  nx->db = NULL;
  char *uri = sqlite3_mprintf("file:%s?immutable=1", path);
  rc = sqlite3_open_v2(uri, &nx->db, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READONLY | SQLITE_OPEN_URI, NULL);
  sqlite3_free(uri);
  return rc;
}

/* SQLite keeps process-wide memory statistics unless told otherwise: every
** allocation of every connection then takes one global mutex, which a bulk
** load's two threads (store_search_build.c) fight over — measured: the writer
** a third slower, the indexing thread a quarter. kipnexus turns them off
** when it is the first to use SQLite in the process (sqlite3_config is
** refused once SQLite is initialized); a host that needs
** sqlite3_memory_used() or a soft heap limit initializes SQLite before its
** first kip_open and keeps them. */
/* Statement journals stay in memory (they hold what one statement changed,
** and spilling them to files cost a load ~10 %) while temporary B-trees go
** to disk past the page cache (temp_store=FILE below). */
static pthread_once_t sqlite_configured = PTHREAD_ONCE_INIT;
static void configure_sqlite(void) {
  sqlite3_config(SQLITE_CONFIG_MEMSTATUS, 0);
  sqlite3_config(SQLITE_CONFIG_STMTJRNL_SPILL, -1);
}

/* index what a migration or another tool wrote (both stores, at open) */
static int index_what_waits(kip_nexus *nx, kip_error *err) {
  if (nx->readonly_file) return 0;
  kip_stmt *st = nx->stmts[ST_SEARCH_PENDING];
  int rc = kip_step(st);
  kip_reset(st);
  if (rc == KIP_ROW && ((rc = kip_tx_begin(nx, err)) || (rc = kip_tx_commit_upkeep(nx, err)))) return rc;
  return 0;
}

/* the persistent statements of a PostgreSQL nexus: the same SQL where the
** two dialects agree (store_pg_schema.c kip_pg_stmt_sql gives the rest) */
static int prepare_pg_statements(kip_nexus *nx, kip_error *err) {
  for (int i = 0; i < ST_COUNT; i++) {
    const char *sql = kip_pg_stmt_sql(i);
    if (!(nx->stmts[i] = kip_pg_prepare_persistent(nx, sql ? sql : stmt_sql[i])))
      return kip_pg_error(nx, KIP_PG_ERROR, err, "preparing statements");
  }
  /* a run of ids for a transaction and its record in the change log read no
  ** element a batch may hold (runs never overlap): they leave it waiting */
  kip_pg_runs_beside_batch(nx->stmts[ST_NEXT_ID]);
  kip_pg_runs_beside_batch(nx->stmts[ST_NEXT_EXTENT]);
  kip_pg_runs_beside_batch(nx->stmts[ST_ID_RANGE_USED]);
  kip_pg_runs_beside_batch(nx->stmts[ST_MARK_CHANGED]);
  /* the indexes a bulk load that did not end left away */
  return kip_guards_open(nx, err) || kip_pg_build_indexes(nx, err) || index_what_waits(nx, err) ? err->code : 0;
}

int kip_store_open(kip_nexus *nx, const char *path, const kip_open_options *opt, int (*extra_functions)(kip_nexus *),
                   kip_error *err) {
  if (kip_store_is_url(path))
    return kip_pg_open(nx, path, opt, extra_functions, err) ? err->code : prepare_pg_statements(nx, err);
  pthread_once(&sqlite_configured, configure_sqlite);
  nx->readonly_file = opt && opt->readonly;
  if (!nx->readonly_file && !writable_path(path)) nx->readonly_file = nx->readonly_fallback = 1;
  int rc = nx->readonly_file ? open_readonly(nx, path)
                             : sqlite3_open_v2(path, &nx->db, SQLITE_OPEN_NOMUTEX | SQLITE_OPEN_READWRITE | SQLITE_OPEN_CREATE, NULL);
  if (rc != SQLITE_OK) {
    kip_err(err, KIP_E_INTERNAL, nx->readonly_file ? "Check that the path exists and is readable." : "Check that the path exists and is writable.",
            "cannot open database '%s': %s", path, nx->db ? sqlite3_errmsg(nx->db) : sqlite3_errstr(rc));
    return err->code;
  }
  sqlite3_extended_result_codes(nx->db, 1);
  sqlite3_busy_timeout(nx->db, opt && opt->busy_timeout_ms > 0 ? opt->busy_timeout_ms : 30000);
  sqlite3_progress_handler(nx->db, 2000, progress_handler, nx);
  if ((rc = kip_store_check_foreign(nx, err))) return rc;
  if (!nx->readonly_file) {
    /* switching a new file to WAL needs an exclusive lock; when another
    ** process is bootstrapping the same new file, SQLite answers BUSY at once
    ** (waiting could deadlock), so wait here, up to the busy timeout */
    int timeout_ms = opt && opt->busy_timeout_ms > 0 ? opt->busy_timeout_ms : 30000;
    int64_t until = kip_now_us() + (int64_t)timeout_ms * 1000;
    for (;;) {
      rc = sqlite3_exec(nx->db, "PRAGMA journal_mode=WAL", NULL, NULL, NULL);
      if ((rc & 0xff) != SQLITE_BUSY && (rc & 0xff) != SQLITE_LOCKED) break;
      if (kip_now_us() > until) break;
      sqlite3_sleep(10);
    }
    if (rc != SQLITE_OK) return kip_store_error(nx, rc, err, "enabling WAL");
  }
  char sql[224];
  int cache_mb = opt && opt->cache_mb > 0 ? opt->cache_mb : KIP_DEFAULT_CACHE_MB;
  if (cache_mb > KIP_MAX_CACHE_MB) cache_mb = KIP_MAX_CACHE_MB;
  snprintf(sql, sizeof sql,
           "PRAGMA synchronous=%s; PRAGMA foreign_keys=ON; PRAGMA wal_autocheckpoint=4000; PRAGMA cache_size=-%d; "
           "PRAGMA temp_store=FILE",
           opt && opt->synchronous_full ? "FULL" : "NORMAL", cache_mb * 1024);
  if (kip_store_exec(nx, sql, err, "configuring the connection")) return err->code;
  if (kip_register_sql_functions(nx) || kip_register_rank_function(nx->db) || (extra_functions && extra_functions(nx))) return kip_err(err, KIP_E_INTERNAL, NULL, "cannot register SQL functions");
  int created = 0;
  if ((rc = kip_store_migrate(nx, &created, err))) return rc;
  for (int i = 0; i < ST_COUNT; i++) {
    rc = sqlite3_prepare_v3(nx->db, stmt_sql[i], -1, SQLITE_PREPARE_PERSISTENT, (sqlite3_stmt **)&nx->stmts[i], NULL);
    if (rc != SQLITE_OK) return kip_store_error(nx, rc, err, "preparing statements");
  }
  /* the write guards — the call's own lists (kip_call_options.write_protected
  ** / append_only) and the guards declared in the nexus (store_guard.c):
  ** TEMP triggers of this connection, so every row a command changes or
  ** deletes is checked, whichever statement does it (a proposition given a
  ** new subject is checked as created under it); inserts have one statement
  ** each, checked in insert_element (a trigger on them would make SQLite
  ** keep a statement journal for every insert) */
  if (!nx->readonly_file &&
      (kip_store_exec(nx,
               "CREATE TEMP TRIGGER kip_guard_update BEFORE UPDATE ON main.element "
               "WHEN kip_write_refused('u', OLD.id, OLD.type, OLD.name, OLD.predicate, OLD.subject) "
               "OR (NEW.subject IS NOT OLD.subject AND kip_write_refused('i', NEW.id, NULL, NULL, NEW.predicate, NEW.subject)) "
               "BEGIN SELECT RAISE(ABORT, 'KIP_4004: write-protected'); END;"
               "CREATE TEMP TRIGGER kip_guard_delete BEFORE DELETE ON main.element "
               "WHEN kip_write_refused('d', OLD.id, OLD.type, OLD.name, OLD.predicate, OLD.subject) "
               "BEGIN SELECT RAISE(ABORT, 'KIP_4004: write-protected'); END;",
               err, "installing the write guards") ||
       kip_guards_open(nx, err)))
    return err->code;
  /* the secondary indexes a bulk load that did not end left away, and its
  ** index builder's scratch file */
  if ((rc = kip_store_check_indexes(nx, err))) return rc;
  if (!nx->readonly_file) kip_index_builder_cleanup(sqlite3_db_filename(nx->db, "main"));
  return index_what_waits(nx, err);
}

/* ------------------------------------------------------ statement cache */
#define STMT_CACHE_SLOTS 64

struct kip_stmt_slot {
  char *sql;
  size_t len;
  sqlite3_stmt *st;
  int busy;
  uint64_t used;
};

struct sqlite3 *kip_store_db(kip_nexus *nx) { return nx ? nx->db : NULL; }

int kip_prepare(kip_nexus *nx, const char *sql, int len, kip_stmt **out) {
  if (nx->pg) return kip_pg_prepare(nx, sql, len, out);
  sqlite3_stmt **st = (sqlite3_stmt **)out;
  size_t n = len < 0 ? strlen(sql) : (size_t)len;
  if (!nx->stmt_cache) nx->stmt_cache = calloc(STMT_CACHE_SLOTS, sizeof *nx->stmt_cache);
  struct kip_stmt_slot *c = nx->stmt_cache, *victim = NULL;
  for (int i = 0; c && i < STMT_CACHE_SLOTS; i++) {
    if (c[i].st && !c[i].busy && c[i].len == n && !memcmp(c[i].sql, sql, n)) {
      c[i].busy = 1;
      c[i].used = ++nx->stmt_clock;
      *st = c[i].st;
      return SQLITE_OK;
    }
    if (!c[i].busy && (!victim || !c[i].st || (victim->st && c[i].used < victim->used))) victim = &c[i];
  }
  int rc = sqlite3_prepare_v3(nx->db, sql, (int)n, SQLITE_PREPARE_PERSISTENT, st, NULL);
  if (rc != SQLITE_OK || !victim || !*st) return rc;
  char *copy = malloc(n + 1);
  if (!copy) return rc; /* uncached; kip_finish finalizes it */
  memcpy(copy, sql, n);
  copy[n] = 0;
  sqlite3_finalize(victim->st);
  free(victim->sql);
  *victim = (struct kip_stmt_slot){copy, n, *st, 1, ++nx->stmt_clock};
  return rc;
}

void kip_finish(kip_nexus *nx, kip_stmt *stmt) {
  if (PG_IS(stmt)) {
    kip_pg_finish(nx, stmt);
    return;
  }
  sqlite3_stmt *st = SQ(stmt);
  if (!st) return;
  for (int i = 0; nx->stmt_cache && i < STMT_CACHE_SLOTS; i++)
    if (nx->stmt_cache[i].st == st) {
      sqlite3_reset(st);
      sqlite3_clear_bindings(st);
      nx->stmt_cache[i].busy = 0;
      return;
    }
  sqlite3_finalize(st);
}

static void stmt_cache_free(kip_nexus *nx) {
  for (int i = 0; nx->stmt_cache && i < STMT_CACHE_SLOTS; i++) {
    sqlite3_finalize(nx->stmt_cache[i].st);
    free(nx->stmt_cache[i].sql);
  }
  free(nx->stmt_cache);
  nx->stmt_cache = NULL;
}

void kip_store_close(kip_nexus *nx) {
  if (nx->pg) {
    kip_error ignored;
    kip_pg_build_indexes(nx, &ignored); /* after a bulk load's last command (kip_store_defer_indexes) */
    kip_store_defined_forget(nx);
    kip_guards_close(nx);
    kip_free_sql_state(nx);
    kip_pg_close(nx);
    return;
  }
  stmt_cache_free(nx);
  if (nx->db && !nx->readonly_file) {
    kip_error ignored;
    kip_index_builder_abandon(nx); /* what it did not index stays listed in search_dirty */
    kip_store_build_indexes(nx, &ignored); /* after a bulk load's last command (kip_store_defer_indexes) */
    /* refresh planner statistics where they went stale (bounded work; skipped
    ** when another writer holds the lock) */
    sqlite3_busy_timeout(nx->db, 50);
    sqlite3_exec(nx->db, "PRAGMA analysis_limit=1000; PRAGMA optimize", NULL, NULL, NULL);
  }
  for (int i = 0; i < ST_COUNT; i++) sqlite3_finalize(SQ(nx->stmts[i]));
  kip_store_defined_forget(nx);
  kip_guards_close(nx);
  kip_free_sql_state(nx);
  if (nx->db) sqlite3_close_v2(nx->db);
  nx->db = NULL;
}

int kip_store_error(kip_nexus *nx, int rc, kip_error *err, const char *what) {
  if (nx->pg) return kip_pg_error(nx, rc, err, what);
  int prim = rc & 0xff;
  if (nx->req->cancelled)
    return kip_err(err, KIP_E_TIMEOUT, "The client cancelled the request; nothing of this command was written.",
                   "the request was cancelled while %s", what);
  if (prim == SQLITE_INTERRUPT || nx->req->timed_out)
    return kip_err(err, KIP_E_TIMEOUT, NULL, "execution exceeded the time budget while %s", what);
  if (prim == SQLITE_BUSY || prim == SQLITE_LOCKED)
    return kip_err(err, KIP_E_TIMEOUT, "Another writer holds the database; retry shortly.",
                   "database is busy while %s", what);
  if (prim == SQLITE_FULL || (prim == SQLITE_IOERR && errno == EFBIG))
    return kip_err(err, KIP_E_RESOURCE, "Free disk space (or raise the file-size limit) and retry; this command was rolled back.",
                   "the disk or the file-size limit is full while %s", what);
  if (prim == SQLITE_NOMEM)
    return kip_err(err, KIP_E_RESOURCE, "Lower LIMIT or the batch size; the process ran out of memory.",
                   "out of memory while %s", what);
  if (prim == SQLITE_TOOBIG)
    return kip_err(err, KIP_E_RESOURCE, "Keep large content outside the graph and store a reference to it.",
                   "a value is larger than the storage allows while %s", what);
  if (prim == SQLITE_READONLY)
    return kip_err(err, KIP_E_DENIED,
                   "The nexus file or its directory is not writable: fix the permissions or the mount to change it; reads still work.",
                   "the nexus is read-only while %s", what);
  if (prim == SQLITE_NOTADB)
    return kip_err(err, KIP_E_INTERNAL,
                   "Check the --db path (or $KIP_DB): point it at a nexus file, or at a path that does not exist yet to "
                   "create one there.",
                   "the file is not a kipnexus database (not an SQLite file) while %s", what);
  if (prim == SQLITE_CORRUPT)
    return kip_err(err, KIP_E_INTERNAL,
                   "Restore the nexus from a backup (kip backup makes one); PRAGMA integrity_check shows the damage.",
                   "the nexus file is damaged while %s: %s", what, sqlite3_errstr(rc));
  if (prim == SQLITE_IOERR || prim == SQLITE_CANTOPEN)
    return kip_err(err, KIP_E_INTERNAL, "Check the disk, the file system and the file's permissions; this command was rolled back.",
                   "I/O error while %s: %s", what, sqlite3_errstr(rc));
  const char *m = nx->db ? sqlite3_errmsg(nx->db) : "";
  if (!strncmp(m, "KIP_4004: write-protected", 25)) return kip_store_guard_error(nx, err, what);
  if (!strncmp(m, "KIP_4002: ", 10))
    return kip_err(err, KIP_E_RESOURCE, "Lower the hop range or anchor the path closer to its target.", "%s", m + 10);
  if (nx->req->regex_error)
    return kip_err(err, KIP_E_SYNTAX, "Check the REGEX pattern (PCRE2 syntax).", "%s", nx->req->regex_msg);
  return kip_err(err, KIP_E_INTERNAL, NULL, "database error while %s: %s", what,
                 nx->db ? sqlite3_errmsg(nx->db) : sqlite3_errstr(rc));
}

int64_t kip_store_count(kip_nexus *nx, const char *sql) {
  if (nx->pg) return kip_pg_count(nx, sql);
  sqlite3_stmt *st;
  int64_t n = -1;
  if (sqlite3_prepare_v2(nx->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}
