/*
** store_schema.c — the nexus file's versioned schema (user_version) and its
** forward migrations, applied in one transaction when a file is opened:
** v1 the element table and its indexes, v2 the SEARCH indexes (FTS5) and
** their change log, v3 the id allocator, v4 the stemmed word index and the
** vector index (store_vectors.c), v5 no insert trigger, v6 fresh marks,
** v7 a trigram index without a copy of its text, v8 guards (store_guard.c);
** and the secondary indexes a bulk load builds at its end.
*/
#include <stdio.h>

#include "store_sqlite.h"

/* --------------------------------------------------------------- schema */
/* the element table's secondary indexes: no write looks anything up through
** them (UPSERT finds concepts and propositions through the unique ones), so
** a bulk load into a (nearly) empty nexus builds them once at its end
** (kip_store_defer_indexes) */

#define SCHEMA_V1 \
    "CREATE TABLE element(\n" \
    "  id INTEGER PRIMARY KEY AUTOINCREMENT,\n" \
    "  type TEXT,\n" \
    "  name TEXT,\n" \
    "  subject INTEGER REFERENCES element(id),\n" \
    "  predicate TEXT,\n" \
    "  object INTEGER REFERENCES element(id),\n" \
    "  attributes TEXT NOT NULL DEFAULT '{}',\n" \
    "  metadata TEXT NOT NULL DEFAULT '{}',\n" \
    "  version INTEGER NOT NULL DEFAULT 1,\n" \
    "  updated_at TEXT NOT NULL,\n" \
    "  CHECK ((type IS NOT NULL AND name IS NOT NULL AND subject IS NULL AND predicate IS NULL AND object IS NULL)\n" \
    "      OR (type IS NULL AND name IS NULL AND subject IS NOT NULL AND predicate IS NOT NULL AND object IS NOT NULL))\n" \
    ");\n" \
    "CREATE UNIQUE INDEX element_concept ON element(type, name) WHERE type IS NOT NULL;\n" \
    "CREATE INDEX " ELEMENT_NAME_INDEX \
    "CREATE UNIQUE INDEX element_spo ON element(subject, predicate, object) WHERE subject IS NOT NULL;\n" \
    "CREATE INDEX " ELEMENT_OPS_INDEX \
    "CREATE INDEX " ELEMENT_PRED_INDEX \
    "CREATE TABLE kip_capsule(name TEXT PRIMARY KEY, hash TEXT NOT NULL, applied_at TEXT NOT NULL);\n" \
    "CREATE TABLE kip_info(key TEXT PRIMARY KEY, value TEXT);\n"

/* v2: the SEARCH index. A word index (FTS5 unicode61, diacritics folded,
** prefix queries) over name (concept name or predicate), aliases and body
** (every other string in attributes; for propositions also the endpoint
** names), and a trigram index over name and aliases (substrings, scripts
** without spaces). Triggers only record which elements changed in
** search_dirty (FTS5 flushes its buffers at every statement, so per-row
** index writes would cost ~10x); kip_search_sync() re-indexes the recorded
** elements with one statement per table before every commit — the index
** changes in the writer's transaction. Rows written by other tools (a plain
** sqlite3 shell) are recorded too and indexed at the next engine commit or
** open. */
#define SCHEMA_V2 \
    "CREATE VIRTUAL TABLE search_word USING fts5(name, aliases, body, tokenize = 'unicode61 remove_diacritics 2');\n" \
    "CREATE VIRTUAL TABLE search_trigram USING fts5(name, aliases, tokenize = 'trigram');\n" \
    "CREATE TABLE search_dirty(id INTEGER PRIMARY KEY);\n" \
    "CREATE TRIGGER element_search_insert AFTER INSERT ON element BEGIN " \
    "INSERT OR IGNORE INTO search_dirty(id) VALUES(new.id); END;\n" \
    "CREATE TRIGGER element_search_update AFTER UPDATE OF attributes, subject, object ON element BEGIN " \
    "INSERT OR IGNORE INTO search_dirty(id) VALUES(new.id); END;\n" \
    "CREATE TRIGGER element_search_delete AFTER DELETE ON element BEGIN " \
    "INSERT OR IGNORE INTO search_dirty(id) VALUES(old.id); END;\n" \
    "INSERT INTO search_dirty(id) SELECT id FROM element;\n"

/* v3: public ids from a keyed permutation of a counter (store_ids.c);
** base_bits and secret are chosen at the first allocation */
#define SCHEMA_V3 \
    "CREATE TABLE kip_id_alloc(one INTEGER PRIMARY KEY CHECK (one = 1), counter INTEGER NOT NULL,\n" \
    "  extents INTEGER NOT NULL DEFAULT 0, base_bits INTEGER, secret INTEGER);\n" \
    "INSERT INTO kip_id_alloc(one, counter) VALUES(1, 0);\n"

/* v4: the word index stems (FTS5 porter over unicode61) and its middle
** column is the heading (aliases, title, keywords, tags); the vector index
** (store_vectors.c): int8 unit vectors clustered by kind and type, and the
** durable queue of elements waiting for a remote embedder. Everything is
** re-indexed at the first commit. */
#define SCHEMA_V4 \
    "DROP TABLE search_word;\n" \
    "CREATE VIRTUAL TABLE search_word USING fts5(name, heading, body, tokenize = 'porter unicode61 remove_diacritics 2');\n" \
    "DROP TABLE search_trigram;\n" \
    "CREATE VIRTUAL TABLE search_trigram USING fts5(name, heading, tokenize = 'trigram');\n" \
    "CREATE TABLE search_vector(prop INTEGER NOT NULL, kind TEXT NOT NULL, id INTEGER NOT NULL, vec BLOB NOT NULL,\n" \
    "  PRIMARY KEY (prop, kind, id)) WITHOUT ROWID;\n" \
    "CREATE UNIQUE INDEX search_vector_id ON search_vector(id);\n" \
    "CREATE TABLE search_vector_pending(id INTEGER PRIMARY KEY);\n" \
    "INSERT OR IGNORE INTO search_dirty(id) SELECT id FROM element;\n"

/* v5: inserts mark themselves for the SEARCH index (store.c
** insert_element): an insert trigger made SQLite keep a statement journal
** for every insert, a quarter of a bulk load's work */
#define SCHEMA_V5 "DROP TRIGGER element_search_insert;\n"

/* v6: search_dirty tells new elements (fresh: never indexed, nothing to
** remove from the index) from changed ones; store.c records new ones a run
** of ids at a time */
#define SCHEMA_V6 "ALTER TABLE search_dirty ADD COLUMN fresh INTEGER NOT NULL DEFAULT 0;\n"

/* v7: the trigram index is only matched (never ranked, its columns never
** read), so it keeps no copy of its text (content='') nor column sizes
** (columnsize=0): two rows fewer per element in every write, and a changed
** element's trigrams are deleted with the text the word index kept
** (UNINDEX_TRIGRAM_SQL). Refilled from that copy. */
#define SCHEMA_V7 \
    "DROP TABLE search_trigram;\n" \
    "CREATE VIRTUAL TABLE search_trigram USING fts5(name, heading, tokenize = 'trigram', content = '', columnsize = 0);\n" \
    "INSERT INTO search_trigram(rowid, name, heading) SELECT id, c0, c1 FROM search_word_content;\n"

/* v8: guards, the invariants subsystems declare over what they own
** (store_guard.c), and the log of the writes a maintenance call made
** through them */
#define SCHEMA_V8 \
    "CREATE TABLE kip_guard(type TEXT NOT NULL, name TEXT NOT NULL DEFAULT '',\n" \
    "  mode TEXT NOT NULL CHECK (mode IN ('sealed', 'append_only')), capability TEXT, owner TEXT NOT NULL, hint TEXT,\n" \
    "  PRIMARY KEY (type, name)) WITHOUT ROWID;\n" \
    "CREATE TABLE kip_guard_log(seq INTEGER PRIMARY KEY, at TEXT NOT NULL, op TEXT NOT NULL, element TEXT,\n" \
    "  kind TEXT NOT NULL, owner TEXT NOT NULL, reason TEXT NOT NULL);\n"

/* v9: the search indexes merge no segments by themselves (FTS5
** automerge 0): each write merges a bounded share (store_search_sync.c) */
#define SCHEMA_V9 \
    "INSERT INTO search_word(search_word, rank) VALUES('automerge', 0);\n" \
    "INSERT INTO search_trigram(search_trigram, rank) VALUES('automerge', 0);\n"

/* v10: the change log (store_changes.c): the elements written since a
** maintenance pass (a sleep cycle) last took them, each with the write
** generation its transaction started from. Updates and deletes log
** themselves (a deleted link logs its endpoints: the concepts whose
** neighbourhood changed; `domain` marks the subject of a deleted
** belongs_to_domain link: its Domain changed); inserts are logged as runs
** of ids (kip_changed_run, one row per run: ST_MARK_CHANGED beside the
** search index's marks), not by a trigger (an insert trigger costs a
** statement journal per insert) nor a row per element (a tenth of a bulk
** load). */
#define SCHEMA_V10 \
    "CREATE TABLE kip_changed(id INTEGER PRIMARY KEY, gen INTEGER NOT NULL, domain INTEGER NOT NULL DEFAULT 0);\n" \
    "CREATE TABLE kip_changed_run(lo INTEGER PRIMARY KEY, hi INTEGER NOT NULL, gen INTEGER NOT NULL);\n" \
    "CREATE TRIGGER element_changed_update AFTER UPDATE ON element BEGIN " \
    "INSERT INTO kip_changed(id, gen) VALUES(new.id, " CHANGE_GENERATION ") " \
    "ON CONFLICT(id) DO UPDATE SET gen = excluded.gen; END;\n" \
    "CREATE TRIGGER element_changed_delete AFTER DELETE ON element WHEN old.subject IS NOT NULL BEGIN " \
    "INSERT INTO kip_changed(id, gen, domain) SELECT x, " CHANGE_GENERATION ", d FROM " \
    "(SELECT old.subject AS x, old.predicate = 'belongs_to_domain' AS d UNION ALL SELECT old.object, 0) " \
    "WHERE x IS NOT NULL ON CONFLICT(id) DO UPDATE SET gen = excluded.gen, domain = max(domain, excluded.domain); END;\n"

/* v11: a guard may keep what it covers out of the SEARCH indexes
** (store_guard.c, store_search_sync.c) */
#define SCHEMA_V11 "ALTER TABLE kip_guard ADD COLUMN unindexed INTEGER NOT NULL DEFAULT 0;\n"

/* migrations[i] brings user_version i to i+1 */
static const char *const migrations[] = {SCHEMA_V1, SCHEMA_V2, SCHEMA_V3, SCHEMA_V4, SCHEMA_V5, SCHEMA_V6,
                                         SCHEMA_V7, SCHEMA_V8, SCHEMA_V9, SCHEMA_V10, SCHEMA_V11};

static int user_version(kip_nexus *nx, int *v) {
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(nx->db, "PRAGMA user_version", -1, &st, NULL);
  if (rc != SQLITE_OK) return rc;
  rc = sqlite3_step(st);
  *v = rc == SQLITE_ROW ? sqlite3_column_int(st, 0) : 0;
  sqlite3_finalize(st);
  return rc == SQLITE_ROW ? SQLITE_OK : rc;
}

int kip_store_check_foreign(kip_nexus *nx, kip_error *err) {
  /* one statement, one snapshot: another process may be creating a nexus in
  ** the same new file right now (its tables and version commit together) */
  sqlite3_stmt *st;
  int rc = sqlite3_prepare_v2(nx->db, "SELECT (SELECT user_version FROM pragma_user_version) = 0 "
                                      "AND EXISTS (SELECT 1 FROM sqlite_master)", -1, &st, NULL);
  if (rc == SQLITE_OK) rc = sqlite3_step(st);
  int foreign = rc == SQLITE_ROW && sqlite3_column_int(st, 0);
  sqlite3_finalize(st);
  if (rc != SQLITE_ROW) return kip_store_error(nx, rc, err, "reading the schema version");
  if (!foreign) return 0;
  return kip_err(err, KIP_E_INTERNAL,
                 "Check the --db path (or $KIP_DB): point it at a nexus file, or at a path that does not exist yet to "
                 "create one there.",
                 "the file is an SQLite database of another program (it has tables but no kipnexus schema); it was "
                 "left unchanged");
}

int kip_store_migrate(kip_nexus *nx, int *created, kip_error *err) {
  int v = 0;
  int rc = user_version(nx, &v);
  if (rc != SQLITE_OK) return kip_store_error(nx, rc, err, "reading the schema version");
  if (v == KIP_SCHEMA_VERSION) return 0;
  if (v > KIP_SCHEMA_VERSION)
    return kip_err(err, KIP_E_INTERNAL, "Upgrade kipnexus to open this file.",
                   "database schema version %d is newer than this build supports (%d)", v, KIP_SCHEMA_VERSION);
  if (nx->readonly_file)
    return kip_err(err, KIP_E_INTERNAL, "Open it once read-write to initialise it.",
                   "database is not initialised and was opened read-only");
  if ((rc = kip_tx_begin(nx, err))) return rc;
  rc = user_version(nx, &v); /* another process may have won the race */
  if (rc != SQLITE_OK) {
    kip_tx_rollback(nx);
    return kip_store_error(nx, rc, err, "reading the schema version");
  }
  *created = v == 0;
  for (; v < KIP_SCHEMA_VERSION; v++) {
    if (kip_store_exec(nx, migrations[v], err, "migrating the schema")) {
      kip_tx_rollback(nx);
      return err->code;
    }
    char sql[64];
    snprintf(sql, sizeof sql, "PRAGMA user_version=%d", v + 1);
    if (kip_store_exec(nx, sql, err, "migrating the schema")) {
      kip_tx_rollback(nx);
      return err->code;
    }
  }
  return kip_tx_commit(nx, err);
}

int kip_store_check_indexes(kip_nexus *nx, kip_error *err) {
  if (nx->readonly_file) return 0;
  int64_t present = kip_store_count(nx, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
                                        "name IN ('element_name', 'element_ops', 'element_pred')");
  if (present < 0) return kip_store_error(nx, sqlite3_errcode(nx->db), err, "checking the element indexes");
  nx->indexes_deferred = present < 3;
  return kip_store_build_indexes(nx, err);
}
