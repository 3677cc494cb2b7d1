/*
** store.c — the graph store on SQLite: opening a nexus file (WAL, busy
** timeout, foreign keys), the versioned schema and its forward migrations,
** persistent prepared statements, nested transactions (BEGIN IMMEDIATE /
** SAVEPOINT), and element CRUD with engine-maintained _version/_updated_at.
**
** Concepts and propositions live in one table `element` so that they share
** one id space (higher-order propositions are plain references) and ids are
** never reused (a keyed permutation of a counter: store_ids.c). Concept rows carry type+name, proposition
** rows carry subject+predicate+object; a CHECK keeps the two shapes apart.
*/
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

/* a write the running command's write guards refuse (KIP_4004) */
#define GUARD_HINT \
  "The governance policy protects these elements from this caller: use the operations that own them " \
  "(e.g. kip mind … for Knowledge)."
#define GUARD_MESSAGE "the write touches \"%s\", which the governance policy protects from this write while %s"

/* insert_element's answer when a write guard refuses an insert (err is
** filled): not a kip_code, so it cannot leave store.c */
#define GUARD_REFUSED (-1)

/* the error of a write a guard refused: a declared guard names itself */
static int guard_error(kip_nexus *nx, kip_error *err, const char *what) {
  if (nx->req->guard_why[0])
    return kip_err(err, KIP_E_DENIED, nx->req->guard_hint, "the write touches \"%s\": %s; refused while %s",
                   nx->req->guard_hit, nx->req->guard_why, what);
  return kip_err(err, KIP_E_DENIED, GUARD_HINT, GUARD_MESSAGE, nx->req->guard_hit, what);
}

static const char *stmt_sql[ST_COUNT] = {
    [ST_GET] = "SELECT id, type, name, subject, predicate, object, attributes, metadata, version FROM element WHERE id=?1",
    [ST_FIND_CONCEPT] = "SELECT id FROM element WHERE type=?1 AND name=?2",
    [ST_FIND_PROP] = "SELECT id FROM element WHERE subject=?1 AND predicate=?2 AND object=?3",
    /* inserts leave an existing element alone (the caller then merges into it) */
    [ST_INSERT_CONCEPT] = ("INSERT INTO element(id, type, name, attributes, metadata, version, updated_at) "
                           "VALUES(?9,?1,?2,?3,?4,1,?5) ON CONFLICT(type, name) WHERE type IS NOT NULL DO NOTHING"),
    [ST_INSERT_PROP] = ("INSERT INTO element(id, subject, predicate, object, attributes, metadata, version, updated_at) "
                        "VALUES(?9,?1,?2,?3,?4,?5,1,?6) "
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
    [ST_CONCEPT_OF] = "SELECT type, name FROM element WHERE id=?1",
    [ST_DATA_VERSION] = "PRAGMA data_version",
    [ST_BEGIN_READ] = "BEGIN",
    [ST_END_READ] = "COMMIT",
    /* segment merging: at most ?1 pages (store_search_sync.c) */
    [ST_SEARCH_MERGE_WORD] = "INSERT INTO search_word(search_word, rank) VALUES('merge', ?1)",
    [ST_SEARCH_MERGE_TRIGRAM] = "INSERT INTO search_trigram(search_trigram, rank) VALUES('merge', ?1)",
    [ST_NEXT_REFERRER] = ("SELECT min(id) FROM (SELECT min(id) AS id FROM element WHERE subject=?1 "
                          "UNION ALL SELECT min(id) FROM element WHERE object=?1) HAVING min(id) IS NOT NULL"),
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

int kip_store_open(kip_nexus *nx, const char *path, const kip_open_options *opt, int (*extra_functions)(kip_nexus *),
                   kip_error *err) {
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
  /* the secondary indexes a bulk load that did not end left away */
  if ((rc = kip_store_check_indexes(nx, err))) return rc;
  /* index what a migration or another tool wrote */
  if (!nx->readonly_file) {
    sqlite3_stmt *st = SQ(nx->stmts[ST_SEARCH_PENDING]);
    rc = sqlite3_step(st);
    sqlite3_reset(st);
    if (rc == SQLITE_ROW && ((rc = kip_tx_begin(nx, err)) || (rc = kip_tx_commit_upkeep(nx, err)))) return rc;
  }
  return 0;
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

static void defined_forget(kip_nexus *nx);

void kip_store_close(kip_nexus *nx) {
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
  defined_forget(nx);
  kip_guards_close(nx);
  kip_free_sql_state(nx);
  if (nx->db) sqlite3_close_v2(nx->db);
  nx->db = NULL;
}

int kip_store_error(kip_nexus *nx, int rc, kip_error *err, const char *what) {
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
  if (!strncmp(m, "KIP_4004: write-protected", 25)) return guard_error(nx, err, what);
  if (!strncmp(m, "KIP_4002: ", 10))
    return kip_err(err, KIP_E_RESOURCE, "Lower the hop range or anchor the path closer to its target.", "%s", m + 10);
  if (nx->req->regex_error)
    return kip_err(err, KIP_E_SYNTAX, "Check the REGEX pattern (PCRE2 syntax).", "%s", nx->req->regex_msg);
  return kip_err(err, KIP_E_INTERNAL, NULL, "database error while %s: %s", what,
                 nx->db ? sqlite3_errmsg(nx->db) : sqlite3_errstr(rc));
}

int64_t kip_store_count(kip_nexus *nx, const char *sql) {
  sqlite3_stmt *st;
  int64_t n = -1;
  if (sqlite3_prepare_v2(nx->db, sql, -1, &st, NULL) == SQLITE_OK && sqlite3_step(st) == SQLITE_ROW)
    n = sqlite3_column_int64(st, 0);
  sqlite3_finalize(st);
  return n;
}

/* ---------------------------------------------------------- transactions */
/* foreign key enforcement on this connection (outside transactions only:
** SQLite ignores the pragma inside one); 0 when it took effect */
int kip_store_foreign_keys(kip_nexus *nx, int on) {
  if (nx->tx_depth != 0 || !sqlite3_get_autocommit(nx->db)) return 1;
  if (sqlite3_exec(nx->db, on ? "PRAGMA foreign_keys=ON" : "PRAGMA foreign_keys=OFF", NULL, NULL, NULL) != SQLITE_OK)
    return 1;
  int64_t now = kip_store_count(nx, "PRAGMA foreign_keys");
  if (now == 0 || now == 1) nx->foreign_keys_off = !now;
  return now != on;
}

int kip_store_end_bulk(kip_nexus *nx, kip_error *err) {
  nx->concept_memo_stale = 1; /* a command that may delete or merge concepts */
  if (!nx->load_arena_busy) kip_arena_free(&nx->load_arena); /* the load's memory goes back */
  if (nx->foreign_keys_off && kip_store_foreign_keys(nx, 1))
    return kip_err(err, KIP_E_INTERNAL, "Close and reopen the nexus before using it again.",
                   "foreign key checks are still off after a bulk command and cannot be switched back on");
  kip_index_builder_close_queue(nx); /* it finishes while the indexes are built */
  int rc = kip_store_build_indexes(nx, err);
  kip_error built;
  if (kip_index_builder_finish(nx, &built) && !rc) {
    *err = built;
    rc = err->code;
  }
  return rc;
}

static int step_write(kip_nexus *nx, sqlite3_stmt *st, kip_error *err, const char *what);

int kip_tx_begin(kip_nexus *nx, kip_error *err) {
  char sql[48];
  if (nx->tx_depth == 0) snprintf(sql, sizeof sql, "BEGIN IMMEDIATE");
  else snprintf(sql, sizeof sql, "SAVEPOINT kip_sp%d", nx->tx_depth);
  if (kip_store_exec(nx, sql, err, "starting a transaction")) return err->code;
  if (nx->tx_depth == 0) nx->tx_changes0 = sqlite3_total_changes64(nx->db);
  nx->tx_depth++;
  /* the writer's lock is held: guards another process declared are current */
  if (nx->tx_depth == 1 && kip_guards_refresh(nx, err)) {
    kip_tx_rollback(nx);
    return err->code;
  }
  return 0;
}

/* a read transaction: every statement until kip_tx_end_read reads the same
** snapshot of the file (BEGIN DEFERRED takes no lock until the first read,
** and never the write lock); nested inside a transaction it is a no-op */
int kip_tx_begin_read(kip_nexus *nx, kip_error *err) {
  if (nx->tx_depth > 0) return 0;
  if (step_write(nx, SQ(nx->stmts[ST_BEGIN_READ]), err, "starting a read transaction")) return err->code;
  nx->tx_depth = 1;
  nx->read_tx = 1;
  return 0;
}

void kip_tx_end_read(kip_nexus *nx) {
  if (!nx->read_tx) return;
  sqlite3_step(SQ(nx->stmts[ST_END_READ]));
  sqlite3_reset(SQ(nx->stmts[ST_END_READ]));
  if (!sqlite3_get_autocommit(nx->db)) sqlite3_exec(nx->db, "ROLLBACK", NULL, NULL, NULL);
  nx->tx_depth = 0;
  nx->read_tx = 0;
}

/* a write transaction that changed rows counts one more write generation
** (kip_write_generation): a host learns whether anything changed since it
** last looked without reading the graph */
static int bump_write_generation(kip_nexus *nx, kip_error *err) {
  if (nx->tx_upkeep || sqlite3_total_changes64(nx->db) == nx->tx_changes0) return 0;
  return kip_store_exec(nx,
                        "INSERT INTO kip_info(key, value) VALUES('write_generation', 1) "
                        "ON CONFLICT(key) DO UPDATE SET value = CAST(value AS INTEGER) + 1",
                        err, "counting the write generation");
}

int64_t kip_write_generation(kip_nexus *nx) {
  sqlite3_stmt *st;
  if (kip_prepare_sq(nx, "SELECT CAST(value AS INTEGER) FROM kip_info WHERE key = 'write_generation'", -1, &st) != SQLITE_OK)
    return -1;
  int64_t g = sqlite3_step(st) == SQLITE_ROW ? sqlite3_column_int64(st, 0) : 0;
  kip_finish_sq(nx, st);
  return g;
}

int kip_tx_commit(kip_nexus *nx, kip_error *err) {
  if (nx->tx_depth == 1 && (kip_store_mark_fresh(nx, err) || (!nx->req->defer_index && kip_search_sync(nx, err)) ||
                            kip_guards_flush(nx, err) || bump_write_generation(nx, err))) {
    kip_tx_rollback(nx);
    return err->code;
  }
  char sql[48];
  if (nx->tx_depth == 1) snprintf(sql, sizeof sql, "COMMIT");
  else snprintf(sql, sizeof sql, "RELEASE kip_sp%d", nx->tx_depth - 1);
  if (kip_store_exec(nx, sql, err, "committing")) {
    kip_tx_rollback(nx);
    return err->code;
  }
  nx->tx_depth--;
  if (nx->tx_depth == 0) {
    nx->tx_upkeep = 0;
    kip_store_end_run(nx); /* a run of ids never outlives its transaction */
    kip_index_builder_publish(nx);
  }
  return 0;
}

int kip_tx_commit_upkeep(kip_nexus *nx, kip_error *err) {
  if (nx->tx_depth == 1) nx->tx_upkeep = 1;
  return kip_tx_commit(nx, err);
}

void kip_tx_rollback(kip_nexus *nx) {
  if (nx->tx_depth == 0) return;
  char sql[96];
  if (nx->tx_depth == 1) snprintf(sql, sizeof sql, "ROLLBACK");
  else snprintf(sql, sizeof sql, "ROLLBACK TO kip_sp%d; RELEASE kip_sp%d", nx->tx_depth - 1, nx->tx_depth - 1);
  int64_t saved = nx->req->deadline_us;
  nx->req->deadline_us = 0; /* a rollback must never be interrupted */
  sqlite3_exec(nx->db, sql, NULL, NULL, NULL);
  nx->req->deadline_us = saved;
  nx->tx_depth--;
  kip_guards_rolled_back(nx);
  kip_store_end_run(nx); /* the rollback may have returned its run to the counter */
  nx->concept_memo_stale = 1; /* it may hold concepts the rollback removed */
  if (nx->tx_depth == 0) { /* the elements of the run are gone */
    nx->tx_upkeep = 0;
    nx->fresh_n = 0;
    kip_index_builder_discard(nx);
  }
}

/* -------------------------------------------------------------- elements */
void kip_elem_clear(kip_elem *e) {
  free(e->type);
  free(e->name);
  free(e->predicate);
  json_decref(e->attrs);
  json_decref(e->meta);
  memset(e, 0, sizeof *e);
}

static char *col_dup(sqlite3_stmt *st, int i) {
  const unsigned char *s = sqlite3_column_text(st, i);
  if (!s) return NULL;
  size_t n = (size_t)sqlite3_column_bytes(st, i);
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

static json_t *col_json(sqlite3_stmt *st, int i) {
  const char *s = (const char *)sqlite3_column_text(st, i);
  json_t *v = s ? json_loadb(s, (size_t)sqlite3_column_bytes(st, i), 0, NULL) : NULL;
  return v && json_is_object(v) ? v : (json_decref(v), json_object());
}

int kip_store_get(kip_nexus *nx, int64_t id, kip_elem *out, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_GET]);
  memset(out, 0, sizeof *out);
  sqlite3_bind_int64(st, 1, id);
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    out->id = id;
    out->is_prop = sqlite3_column_type(st, 1) == SQLITE_NULL;
    out->type = col_dup(st, 1);
    out->name = col_dup(st, 2);
    out->subject = sqlite3_column_int64(st, 3);
    out->predicate = col_dup(st, 4);
    out->object = sqlite3_column_int64(st, 5);
    out->attrs = col_json(st, 6);
    out->meta = col_json(st, 7);
    out->version = sqlite3_column_int64(st, 8);
    sqlite3_reset(st);
    return 0;
  }
  sqlite3_reset(st);
  if (rc == SQLITE_DONE) return KIP_E_NOT_FOUND;
  return kip_store_error(nx, rc, err, "reading an element");
}

static int step_id(kip_nexus *nx, sqlite3_stmt *st, int64_t *id, kip_error *err, const char *what) {
  int rc = sqlite3_step(st);
  if (rc == SQLITE_ROW) {
    *id = sqlite3_column_int64(st, 0);
    sqlite3_reset(st);
    return 0;
  }
  sqlite3_reset(st);
  *id = 0;
  if (rc == SQLITE_DONE) return KIP_E_NOT_FOUND;
  return kip_store_error(nx, rc, err, what);
}

int kip_store_find_concept(kip_nexus *nx, const char *type, const char *name, int64_t *id, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_FIND_CONCEPT]);
  sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
  int rc = step_id(nx, st, id, err, "looking up a concept");
  sqlite3_clear_bindings(st);
  return rc;
}

int kip_store_find_prop(kip_nexus *nx, int64_t s, const char *p, int64_t o, int64_t *id, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_FIND_PROP]);
  sqlite3_bind_int64(st, 1, s);
  sqlite3_bind_text(st, 2, p, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, o);
  int rc = step_id(nx, st, id, err, "looking up a proposition");
  sqlite3_clear_bindings(st);
  return rc;
}

/* The names found defined, remembered until the file changes (by this
** connection or another: SQLite's data version, read without a statement):
** every query checks its types and predicates, and most queries run
** between two writes. Only "defined" is remembered; a change of any row
** forgets them all. The pager learns of another process's commit when its
** next read begins, so a type another process has just removed can pass
** one more check and its query find nothing — as when the check and the
** query were two transactions. */
static void defined_forget(kip_nexus *nx) {
  for (size_t i = 0; i < sizeof nx->defined / sizeof *nx->defined; i++) {
    free(nx->defined[i]);
    nx->defined[i] = NULL;
  }
}

static char **defined_slot(kip_nexus *nx, const char *meta, const char *name) {
  unsigned version = 0;
  if (sqlite3_file_control(nx->db, "main", SQLITE_FCNTL_DATA_VERSION, &version) != SQLITE_OK) return NULL;
  if (version != nx->defined_version) {
    defined_forget(nx);
    nx->defined_version = version;
  }
  unsigned h = (unsigned char)meta[1]; /* "$ConceptType" / "$PropositionType" */
  for (const char *p = name; *p; p++) h = h * 31u + (unsigned char)*p;
  return &nx->defined[h % (sizeof nx->defined / sizeof *nx->defined)];
}

int kip_store_is_defined(kip_nexus *nx, const char *meta, const char *name, kip_error *err) {
  char **slot = defined_slot(nx, meta, name);
  if (slot && *slot && (*slot)[0] == meta[1] && !strcmp(*slot + 1, name)) return 1;
  sqlite3_stmt *st = SQ(nx->stmts[ST_IS_DEFINED]);
  int64_t one;
  sqlite3_bind_text(st, 1, meta, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
  int rc = step_id(nx, st, &one, err, "checking the schema");
  sqlite3_clear_bindings(st);
  if (rc == 0 && slot) {
    size_t n = strlen(name);
    char *entry = malloc(n + 2);
    if (entry) {
      entry[0] = meta[1];
      memcpy(entry + 1, name, n + 1);
      free(*slot);
      *slot = entry;
    }
  }
  if (rc == 0) return 1;
  if (rc == KIP_E_NOT_FOUND) return 0;
  return -1;
}

static int step_write(kip_nexus *nx, sqlite3_stmt *st, kip_error *err, const char *what) {
  int rc = sqlite3_step(st);
  sqlite3_reset(st);
  sqlite3_clear_bindings(st);
  if (rc == SQLITE_DONE) return 0;
  return kip_store_error(nx, rc, err, what);
}

/* an object's JSON text; none or an empty one is "{}" (most propositions
** carry no attributes: nothing to allocate) */
static int bind_json(sqlite3_stmt *st, int i, const json_t *v) {
  if (!v || (json_is_object(v) && json_object_size(v) == 0)) return sqlite3_bind_text(st, i, "{}", 2, SQLITE_STATIC);
  char *s = kip_json_dump(v);
  if (!s) return SQLITE_NOMEM;
  return sqlite3_bind_text(st, i, s, -1, free);
}

static int listed(const char *const *list, const char *kind) {
  for (; list && *list; list++)
    if (!strcmp(*list, kind)) return 1;
  return 0;
}

int kip_create_refused(kip_nexus *nx, const char *kind) { return kind && listed(nx->req->write_protected, kind); }

int kip_write_refused(kip_nexus *nx, char op, int64_t id, const char *type, const char *name, const char *predicate,
                      int64_t subject) {
  const char *kind = type ? type : predicate;
  nx->req->guard_why[0] = 0;
  if (kind && (listed(nx->req->write_protected, kind) || (op != 'i' && listed(nx->req->append_only, kind)))) {
    snprintf(nx->req->guard_hit, sizeof nx->req->guard_hit, "%s", kind);
    return 1;
  }
  return kip_guard_refused(nx, op, id, type, name, predicate, subject);
}

/* the last step of creating an element: the write guards, the insert, the
** mark for the SEARCH index; *id is the new id, or 0 when the element exists
** (its id goes back to the run); GUARD_REFUSED with err filled when a write
** guard refuses the insert */
static int insert_element(kip_nexus *nx, sqlite3_stmt *st, const char *type, const char *name, const char *predicate,
                          int64_t subject, int64_t nid, int64_t *id, kip_error *err, const char *what) {
  if (kip_write_refused(nx, 'i', nid, type, name, predicate, subject)) {
    sqlite3_reset(st);
    sqlite3_clear_bindings(st);
    kip_store_unuse_id(nx, nid);
    *id = 0;
    guard_error(nx, err, what);
    return GUARD_REFUSED;
  }
  int rc = step_write(nx, st, err, what);
  int inserted = !rc && sqlite3_changes(nx->db) > 0;
  *id = inserted ? nid : 0;
  if (!inserted) {
    kip_store_unuse_id(nx, nid);
    return rc;
  }
  if (nx->fresh_n > 0 && nid == nx->fresh_lo + nx->fresh_n) {
    nx->fresh_n++;
    return 0;
  }
  if ((rc = kip_store_mark_fresh(nx, err))) return rc;
  nx->fresh_lo = nid;
  nx->fresh_n = 1;
  return 0;
}

/* New elements wait for the SEARCH index in search_dirty like changed
** ones, marked `fresh` (never indexed: nothing to remove from the index
** first). A transaction's new ids come in runs (store_ids.c), so they are
** recorded a run at a time — one statement per run instead of one per
** element — before anything reads search_dirty: at commit and when the
** index is synced. */
int kip_store_mark_fresh(kip_nexus *nx, kip_error *err) {
  if (nx->fresh_n == 0) return 0;
  sqlite3_stmt *mark = SQ(nx->stmts[ST_MARK_FRESH]);
  sqlite3_bind_int64(mark, 1, nx->fresh_lo);
  sqlite3_bind_int64(mark, 2, nx->fresh_lo + nx->fresh_n - 1);
  kip_index_builder_record(nx, nx->fresh_lo, nx->fresh_lo + nx->fresh_n - 1);
  nx->fresh_n = 0;
  return step_write(nx, mark, err, "recording new elements for the search index");
}

int kip_store_insert_concept(kip_nexus *nx, const char *type, const char *name, const json_t *attrs,
                             const json_t *meta, int64_t *id, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_INSERT_CONCEPT]);
  int64_t nid;
  int rc = kip_store_next_id(nx, &nid, err);
  if (rc) return rc;
  sqlite3_bind_int64(st, 9, nid);
  sqlite3_bind_text(st, 1, type, -1, SQLITE_STATIC);
  sqlite3_bind_text(st, 2, name, -1, SQLITE_STATIC);
  bind_json(st, 3, attrs);
  bind_json(st, 4, meta);
  sqlite3_bind_text(st, 5, nx->req->now, -1, SQLITE_STATIC);
  rc = insert_element(nx, st, type, name, NULL, 0, nid, id, err, "creating a concept");
  int64_t found = 0;
  kip_error ignored;
  if (rc == GUARD_REFUSED) /* meeting the element writes nothing: then there is no insert to refuse */
    rc = !kip_store_find_concept(nx, type, name, &found, &ignored) && found ? 0 : err->code;
  return rc;
}

int kip_store_insert_prop(kip_nexus *nx, int64_t s, const char *p, int64_t o, const json_t *attrs,
                          const json_t *meta, int64_t *id, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_INSERT_PROP]);
  int64_t nid;
  int rc = kip_store_next_id(nx, &nid, err);
  if (rc) return rc;
  sqlite3_bind_int64(st, 9, nid);
  sqlite3_bind_int64(st, 1, s);
  sqlite3_bind_text(st, 2, p, -1, SQLITE_STATIC);
  sqlite3_bind_int64(st, 3, o);
  bind_json(st, 4, attrs);
  bind_json(st, 5, meta);
  sqlite3_bind_text(st, 6, nx->req->now, -1, SQLITE_STATIC);
  rc = insert_element(nx, st, NULL, NULL, p, s, nid, id, err, "creating a proposition");
  int64_t found = 0;
  kip_error ignored;
  if (rc == GUARD_REFUSED) /* meeting the element writes nothing: then there is no insert to refuse */
    rc = !kip_store_find_prop(nx, s, p, o, &found, &ignored) && found ? 0 : err->code;
  return rc;
}

int kip_store_update(kip_nexus *nx, int64_t id, const json_t *attrs, const json_t *meta, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_UPDATE]);
  sqlite3_bind_int64(st, 1, id);
  bind_json(st, 2, attrs);
  bind_json(st, 3, meta);
  sqlite3_bind_text(st, 4, nx->req->now, -1, SQLITE_STATIC);
  return step_write(nx, st, err, "updating an element");
}

int kip_store_delete(kip_nexus *nx, int64_t id, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_DELETE]);
  sqlite3_bind_int64(st, 1, id);
  return step_write(nx, st, err, "deleting an element");
}

int kip_store_repoint(kip_nexus *nx, int64_t id, int64_t subject, int64_t object, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_REPOINT]);
  sqlite3_bind_int64(st, 1, id);
  sqlite3_bind_int64(st, 2, subject);
  sqlite3_bind_int64(st, 3, object);
  sqlite3_bind_text(st, 4, nx->req->now, -1, SQLITE_STATIC);
  return step_write(nx, st, err, "repointing a proposition");
}

int kip_store_next_referrer(kip_nexus *nx, int64_t id, int64_t *referrer, kip_error *err) {
  sqlite3_stmt *st = SQ(nx->stmts[ST_NEXT_REFERRER]);
  sqlite3_bind_int64(st, 1, id);
  return step_id(nx, st, referrer, err, "finding references");
}

/* ------------------------------------------------------------------- ids */
void kip_format_id(char *out, size_t n, int64_t id, int is_prop) {
  kip_snprintf(out, n, "%c:%lld", is_prop ? 'P' : 'C', (long long)id);
}

int kip_parse_id(const char *s, int64_t *id, int *is_prop) {
  if (!s || (s[0] != 'C' && s[0] != 'P') || s[1] != ':' || s[2] < '1' || s[2] > '9') return 0;
  int64_t v = 0;
  for (const char *p = s + 2; *p; p++) {
    if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10) return 0;
    v = v * 10 + (*p - '0');
  }
  *id = v;
  *is_prop = s[0] == 'P';
  return 1;
}

/* ------------------------------------------------------- protected core */
int kip_protection(const char *type, const char *name) {
  if (!type || !name) return PROT_NONE;
  if (!strcmp(type, "$ConceptType") &&
      (!strcmp(name, "$ConceptType") || !strcmp(name, "$PropositionType") || !strcmp(name, "Domain")))
    return PROT_CORE;
  if (!strcmp(type, "$PropositionType") && !strcmp(name, "belongs_to_domain")) return PROT_CORE;
  if (!strcmp(type, "Domain") && (!strcmp(name, "CoreSchema") || !strcmp(name, "Unsorted") ||
                                  !strcmp(name, "Archived") || !strcmp(name, "System")))
    return PROT_CORE;
  if (!strcmp(type, "Person") && (!strcmp(name, "$self") || !strcmp(name, "$system"))) return PROT_ACTOR;
  return PROT_NONE;
}
