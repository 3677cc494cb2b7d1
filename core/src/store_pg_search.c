/*
** store_pg_search.c — the SEARCH index of a PostgreSQL nexus (RC11 §5.2;
** docs/postgresql.md "Search"): one row per element in search_doc, a
** tsvector of the `english` configuration (Snowball stemming and
** stopwords) with the fields BM25F weighs on SQLite — the name weight A,
** the heading (aliases, title, keywords, tags) B, the body (every other
** string of the attributes; a proposition's endpoint names) C — and the
** name and heading as text for substring matches. Kept like SQLite's index:
** the elements written since the last sync wait in search_dirty (marked
** by the store and the element trigger) and are indexed again in the
** writer's transaction before its commit (store_tx.c), their vectors
** first (store_vectors.c). Ranked by search_keyword.c (ts_rank_cd).
*/
#include "store_pg.h"

/* the text of an element's fields, as store_sqlfunc.c's kip_search_text
** gives it to SQLite's index; the order of the strings does not matter
** to a tsvector */
/* (the waiting ids as an array: a probe of the primary key per id however
** the planner misjudges the list's size — a join planned from stale
** statistics scanned the whole index table at every commit) */
#define WAITING "ANY (ARRAY(SELECT id FROM search_dirty))"
/* only changed elements were indexed before: new ones (fresh) have no row.
** The body's words come from jsonb_to_tsvector (every string value but the
** heading keys', in C: the JSON-path walk of kip_search_text cost 40 us an
** element, two thirds of a load's indexing); the heading's text is kept
** for substring matches, so it is walked, where a heading key is written */
#define HEADING_KEYS "'{aliases,title,keywords,tags}'::text[]"
/* the index rows of the elements of `from` (element e, joined to what
** lists them) that `where` keeps; a field without text adds no
** to_tsvector call (a link has no heading, a concept no endpoint names: a
** fifth of the time of indexing a load) */
#define INDEX_ROWS(from, where)                                                                                     \
  "SELECT e.id AS id,\n"                                                                                            \
  "  setweight(to_tsvector('english', coalesce(e.name, e.predicate, '')), 'A') ||\n"                                \
  "  CASE WHEN h.heading IS NULL THEN ''::tsvector ELSE setweight(to_tsvector('english', h.heading), 'B') END ||\n"  \
  "  setweight(CASE WHEN e.attributes LIKE '{%' AND e.attributes <> '{}' THEN jsonb_to_tsvector('english',\n"       \
  "    e.attributes::jsonb - " HEADING_KEYS ", '[\"string\"]') ELSE ''::tsvector END ||\n"                           \
  "    CASE WHEN e.subject IS NULL THEN ''::tsvector\n"                                                             \
  "      ELSE to_tsvector('english', concat_ws(E'\\n', s.name, o.name)) END, 'C') AS doc,\n"                        \
  "  coalesce(e.name, e.predicate) AS name, h.heading AS heading\n"                                                 \
  "FROM " from " LEFT JOIN element s ON s.id = e.subject LEFT JOIN element o ON o.id = e.object\n"                  \
  "CROSS JOIN LATERAL (SELECT CASE WHEN e.attributes ~ '\"(aliases|title|keywords|tags)\"'\n"                     \
  "  THEN kip_search_text(e.attributes, 0) END AS heading) h" where
#define INDEX_INSERT(from, where) "INSERT INTO search_doc(id, doc, name, heading) " INDEX_ROWS(from, where)
#define INDEX_SCRIPT                                                                                                 \
  "DELETE FROM search_doc WHERE id = ANY (ARRAY(SELECT id FROM search_dirty WHERE fresh = 0));\n"                    \
  INDEX_INSERT("element e", "\nWHERE e.id = " WAITING) ";\n"                                                                                        \
  "DELETE FROM search_dirty"

int kip_store_pg_trigrams(kip_nexus *nx) { return nx->pg && nx->pg->trigrams; }

const char *const KIP_PG_SEARCH_SYNC =
    "CREATE OR REPLACE FUNCTION kip_search_sync() RETURNS void LANGUAGE plpgsql AS $$\nBEGIN\n" INDEX_SCRIPT
    ";\nEND $$;\n";

int kip_pg_search_sync(kip_nexus *nx, kip_error *err) {
  if (nx->readonly_file || !nx->stmts[ST_SEARCH_PENDING]) return 0;
  struct kip_pg *pg = nx->pg;
  int64_t before = kip_store_total_changes(nx);
  if (kip_store_mark_fresh(nx, err)) return err->code;
  /* nothing written since this transaction's last sync (the request's,
  ** then its COMMIT's): nothing to look for — a round trip saved */
  if (nx->tx_depth > 0 && pg->synced_changes == kip_store_total_changes(nx)) return 0;
  /* what unindexed guards cover is neither indexed nor embedded */
  if (kip_search_skip_unindexed(nx, err)) return err->code;
  /* the marks just written are rows of search_dirty: no need to ask */
  int rc = KIP_ROW;
  if (kip_store_total_changes(nx) == before) {
    kip_stmt *st = nx->stmts[ST_SEARCH_PENDING];
    rc = kip_step(st);
    kip_reset(st);
  }
  if (rc != KIP_DONE && rc != KIP_ROW) return kip_pg_error(nx, rc, err, "indexing for SEARCH");
  /* the vectors of what changed, from the list the sync empties
  ** (store_vectors.c), then the sync — a function: its statements are
  ** planned once per connection, where the script was planned at every
  ** commit (2 ms of a single-item UPSERT); queued vectors and the sync go
  ** in one round trip */
  if (rc == KIP_ROW && kip_vector_sync_then(nx, "search_dirty", "SELECT kip_search_sync()", err)) return err->code;
  if (nx->tx_depth > 0) pg->synced_changes = kip_store_total_changes(nx);
  return 0;
}

/* A bulk load whose indexes wait (kip_store_defer_indexes) does not list its
** new elements in search_dirty one run at a time — each listed row cost as
** much as its index row. At its end, what search_dirty lists (other
** writers', the load's updates) is indexed first; then the elements
** without an index row, listed in a temporary table, get their vectors
** and their rows. In the caller's transaction.
**
** The rows are made by CREATE TABLE AS, which the server may run in
** parallel workers (an INSERT never is; they read the transaction's own
** rows), into an unlogged table dropped before the commit, then copied
** into search_doc: at 100k/500k the rows took 3.4 s in three processes
** against 7.7 s in one, the copy 0.3 s. The workers cannot read a
** temporary table, so the rows' elements are found again as those without
** an index row — under the writer's lock, the same list. */
int kip_pg_search_index_load(kip_nexus *nx, kip_error *err) {
  if (kip_pg_search_sync(nx, err)) return err->code;
  if (kip_pg_exec(nx,
                  "CREATE TEMP TABLE kip_load_ids ON COMMIT DROP AS SELECT e.id FROM element e "
                  "WHERE NOT EXISTS (SELECT 1 FROM search_doc d WHERE d.id = e.id)",
                  err, "listing the load for SEARCH") ||
      kip_vector_sync(nx, "kip_load_ids", err))
    return err->code;
  return kip_pg_exec(nx,
                     "DROP TABLE kip_load_ids; CREATE UNLOGGED TABLE kip_load_docs AS "
                     INDEX_ROWS("element e", "\nWHERE NOT EXISTS (SELECT 1 FROM search_doc d WHERE d.id = e.id)") ";\n"
                     "INSERT INTO search_doc(id, doc, name, heading) SELECT id, doc, name, heading FROM kip_load_docs;\n"
                     "DROP TABLE kip_load_docs",
                     err, "indexing the load for SEARCH");
}
