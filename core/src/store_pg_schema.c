/*
** store_pg_schema.c — a PostgreSQL nexus's schema (docs/postgresql.md):
** the same tables as an SQLite nexus file (store_schema.c) in a schema
** `kip_<nexus>` of the database — `element` with its partial unique
** indexes, the capsule record, the id allocator, guards, the change log and
** the list of elements waiting for the SEARCH index, kept by triggers — and
** the functions compiled queries call, with the value semantics of
** store_sqlfunc.c (RC11 §3: type-strict equality, ordering within a type).
**
** A KIP value is a `json` here (store_pg_rows.c): kip_attr gives the value of
** a key as the engine wrote it, text and all. Attributes and metadata are
** `text` columns holding the engine's compact JSON byte for byte, so a
** nexus answers with the same bytes on both backends.
**
** Created in one transaction under the nexus's advisory lock; the version
** is the row `pg_schema_version` of kip_info.
**
** A link's endpoints exist (v4): checked once per statement over the rows
** it inserted, updated or deleted (transition tables), not by a foreign key
** — whose check per row, a query and a lock on the endpoint's row, was 40%
** of inserting a batch of links. The check is exact for every writer that
** holds the nexus's advisory lock (all of kipnexus's): no other writer
** runs between what a statement checks and its commit. (v5: the same
** checks, probing indexes where v4's hashed the table.)
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "store_pg.h"

#define PG_SCHEMA_VERSION 10

/* kip_cmp's parts (v9): the order of two JSON numbers as SQLite's gives it
** — two integers exactly, else as doubles — and of two JSON strings by code
** point, as -1, 0 or 1; then the op's answer from it (1 ==, 2 !=, 3 <, 4 <=,
** 5 >, 6 >=: only the taken branch is evaluated, once) */
#define PG_NUMBER_SIGN                                                                                       \
  "(CASE WHEN strpos(a::text, '.') + strpos(a::text, 'e') + strpos(a::text, 'E') + strpos(b::text, '.') + " \
  "strpos(b::text, 'e') + strpos(b::text, 'E') > 0 THEN btfloat8cmp((a::text)::float8, (b::text)::float8) "  \
  "ELSE numeric_cmp((a::text)::numeric, (b::text)::numeric) END)"
#define PG_STRING_SIGN "bttextcmp((a #>> '{}') COLLATE \"C\", (b #>> '{}') COLLATE \"C\")"
#define PG_BY_SIGN(c)                                                                                          \
  "CASE op WHEN 1 THEN " c " = 0 WHEN 2 THEN " c " <> 0 WHEN 3 THEN " c " < 0 WHEN 4 THEN " c " <= 0 WHEN 5 THEN " c \
  " > 0 ELSE " c " >= 0 END"


/* the indexes a bulk load into a (nearly) empty nexus drops and builds at
** its end (kip_store_defer_indexes): the element table's that no UPSERT looks
** up by, and the SEARCH index's words (the substring indexes too) */
#define SECONDARY_INDEXES                                                                      \
  "CREATE INDEX IF NOT EXISTS element_name ON element(name) WHERE name IS NOT NULL;\n"          \
  "CREATE INDEX IF NOT EXISTS element_ops ON element(object, predicate, subject) WHERE object IS NOT NULL;\n" \
  "CREATE INDEX IF NOT EXISTS element_pred ON element(predicate, subject, object) WHERE predicate IS NOT NULL;\n"
/* GIN indexes keep new entries in a pending list that every search reads
** whole until it is merged: at the default 4 MB, a substring SEARCH after a
** load by many commands took 40 ms in the lists against 0.16 ms without
** (v7: 64 kB, merged by the writer that fills it) */
#define GIN_PENDING " WITH (gin_pending_list_limit = 64)"
#define SEARCH_WORDS_INDEX "IF NOT EXISTS search_doc_words ON search_doc USING gin(doc)" GIN_PENDING
#define DROP_DEFERRED_INDEXES                                                                              \
  "DROP INDEX IF EXISTS element_name, element_ops, element_pred, search_doc_words, search_doc_name_trgm, " \
  "search_doc_heading_trgm"

/* the tables, in scripts of a few statements */
static const char *const TABLES[] = {
    "CREATE TABLE element(\n"
    "  id bigint PRIMARY KEY,\n"
    "  type text COLLATE \"C\", name text COLLATE \"C\",\n"
    "  subject bigint,\n"
    "  predicate text COLLATE \"C\",\n"
    "  object bigint,\n"
    "  attributes text NOT NULL DEFAULT '{}',\n"
    "  metadata text NOT NULL DEFAULT '{}',\n"
    "  version bigint NOT NULL DEFAULT 1,\n"
    "  updated_at text NOT NULL,\n"
    "  CHECK ((type IS NOT NULL AND name IS NOT NULL AND subject IS NULL AND predicate IS NULL AND object IS NULL)\n"
    "      OR (type IS NULL AND name IS NULL AND subject IS NOT NULL AND predicate IS NOT NULL AND object IS NOT NULL)));\n"
    "CREATE UNIQUE INDEX element_concept ON element(type, name) WHERE type IS NOT NULL;\n"
    "CREATE UNIQUE INDEX element_spo ON element(subject, predicate, object) WHERE subject IS NOT NULL;\n"
    SECONDARY_INDEXES
    "CREATE TABLE kip_capsule(name text PRIMARY KEY, hash text NOT NULL, applied_at text NOT NULL);\n"
    "CREATE TABLE kip_info(key text PRIMARY KEY, value text);\n"
    "CREATE TABLE kip_id_alloc(one int PRIMARY KEY CHECK (one = 1), counter bigint NOT NULL,\n"
    "  extents bigint NOT NULL DEFAULT 0, base_bits int, secret bigint);\n"
    "INSERT INTO kip_id_alloc(one, counter) VALUES(1, 0);\n"
    "CREATE TABLE search_dirty(id bigint PRIMARY KEY, fresh int NOT NULL DEFAULT 0);\n"
    "CREATE TABLE kip_guard(type text NOT NULL, name text NOT NULL DEFAULT '',\n"
    "  mode text NOT NULL CHECK (mode IN ('sealed', 'append_only')), capability text, owner text NOT NULL, hint text,\n"
    "  unindexed int NOT NULL DEFAULT 0, PRIMARY KEY (type, name));\n"
    "CREATE TABLE kip_guard_log(seq bigserial PRIMARY KEY, at text NOT NULL, op text NOT NULL, element text,\n"
    "  kind text NOT NULL, owner text NOT NULL, reason text NOT NULL);\n"
    "CREATE TABLE kip_changed(id bigint PRIMARY KEY, gen bigint NOT NULL, domain int NOT NULL DEFAULT 0);\n"
    "CREATE TABLE kip_changed_run(lo bigint PRIMARY KEY, hi bigint NOT NULL, gen bigint NOT NULL);\n"
    /* (the change log's function and trigger are FUNCTIONS') */,
    NULL};

/* the functions compiled queries call (store_sqlfunc.c's, over json);
** replaced at every open of an older build's schema */
/* v2: the SEARCH index (store_pg_search.c), everything listed for it */
static const char *const SEARCH_V2 =
    "CREATE TABLE search_doc(id bigint PRIMARY KEY, doc tsvector NOT NULL, name text, heading text);\n"
    "CREATE INDEX " SEARCH_WORDS_INDEX ";\n"
    "INSERT INTO search_dirty(id) SELECT id FROM element ON CONFLICT DO NOTHING;\n";

/* v6: the vectors of SEARCH MODE "semantic" | "hybrid" (store_vectors.c),
** one int8 unit vector per element, and the elements waiting for one */
static const char *const VECTORS_V6 =
    "CREATE TABLE IF NOT EXISTS search_vector(prop int NOT NULL, kind text COLLATE \"C\" NOT NULL,\n"
    "  id bigint PRIMARY KEY, vec bytea NOT NULL);\n"
    "CREATE INDEX IF NOT EXISTS search_vector_kind ON search_vector(prop, kind, id);\n"
    "CREATE TABLE IF NOT EXISTS search_vector_pending(id bigint PRIMARY KEY);\n";

static const char *const FUNCTIONS[] = {
    /* the SEARCH index's list is written and emptied by every commit:
    ** autovacuum cleans it at every thousand dead rows, not a fifth of it */
    "ALTER TABLE search_dirty SET (autovacuum_vacuum_threshold = 1000, autovacuum_vacuum_scale_factor = 0);\n",
    /* the change log and the SEARCH index's list, as store_schema.c's
    ** triggers keep them (v3: the generation read inline, not by a call) */
    "CREATE OR REPLACE FUNCTION kip_element_changed() RETURNS trigger LANGUAGE plpgsql AS $$\n"
    "DECLARE g bigint := (" PG_GENERATION ");\n"
    "BEGIN\n"
    "  IF TG_OP = 'UPDATE' THEN\n"
    "    INSERT INTO kip_changed(id, gen) VALUES (NEW.id, g) ON CONFLICT (id) DO UPDATE SET gen = excluded.gen;\n"
    "    IF NEW.attributes IS DISTINCT FROM OLD.attributes OR NEW.subject IS DISTINCT FROM OLD.subject\n"
    "       OR NEW.object IS DISTINCT FROM OLD.object THEN\n"
    "      INSERT INTO search_dirty(id) VALUES (NEW.id) ON CONFLICT DO NOTHING;\n"
    "    END IF;\n"
    "    RETURN NEW;\n"
    "  END IF;\n"
    "  INSERT INTO search_dirty(id) VALUES (OLD.id) ON CONFLICT DO NOTHING;\n"
    "  IF OLD.subject IS NOT NULL THEN\n"
    "    INSERT INTO kip_changed(id, gen, domain) VALUES (OLD.subject, g, (OLD.predicate = 'belongs_to_domain')::int)\n"
    "      ON CONFLICT (id) DO UPDATE SET gen = excluded.gen, domain = greatest(kip_changed.domain, excluded.domain);\n"
    "    INSERT INTO kip_changed(id, gen) VALUES (OLD.object, g) ON CONFLICT (id) DO UPDATE SET gen = excluded.gen;\n"
    "  END IF;\n"
    "  RETURN OLD;\n"
    "END $$;\n"
    "DROP TRIGGER IF EXISTS element_changed ON element;\n"
    "CREATE TRIGGER element_changed AFTER UPDATE OR DELETE ON element FOR EACH ROW EXECUTE FUNCTION kip_element_changed();\n",
    /* the endpoints of the links a statement wrote exist, and no link is
    ** left pointing at an element it deleted (v4; the file's comment).
    ** (Ids as arrays, probed in the primary key and the link indexes: a
    ** NOT EXISTS under an OR hashed the whole table, 70 ms a statement) */
    "CREATE OR REPLACE FUNCTION kip_links_written() RETURNS trigger LANGUAGE plpgsql AS $$\n"
    "DECLARE wanted bigint; found bigint; bad bigint;\n"
    "BEGIN\n"
    "  SELECT count(DISTINCT x) INTO wanted FROM (SELECT subject FROM kip_written WHERE subject IS NOT NULL\n"
    "    UNION ALL SELECT object FROM kip_written WHERE object IS NOT NULL) AS t(x);\n"
    "  IF wanted = 0 THEN RETURN NULL; END IF;\n"
    "  SELECT count(*) INTO found FROM element WHERE id = ANY (ARRAY(SELECT subject FROM kip_written\n"
    "    WHERE subject IS NOT NULL UNION SELECT object FROM kip_written WHERE object IS NOT NULL));\n"
    "  IF found < wanted THEN\n"
    "    SELECT n.id INTO bad FROM kip_written n WHERE n.subject IS NOT NULL\n"
    "      AND (NOT EXISTS (SELECT 1 FROM element e WHERE e.id = n.subject)\n"
    "        OR NOT EXISTS (SELECT 1 FROM element e WHERE e.id = n.object)) LIMIT 1;\n"
    "    RAISE EXCEPTION 'the link % names an element that does not exist', bad USING ERRCODE = 'foreign_key_violation';\n"
    "  END IF;\n"
    "  RETURN NULL;\n"
    "END $$;\n"
    "CREATE OR REPLACE FUNCTION kip_links_orphaned() RETURNS trigger LANGUAGE plpgsql AS $$\n"
    "DECLARE bad bigint;\n"
    "BEGIN\n"
    "  SELECT e.id INTO bad FROM element e WHERE e.subject = ANY (ARRAY(SELECT id FROM kip_deleted)) LIMIT 1;\n"
    "  IF bad IS NULL THEN\n"
    "    SELECT e.id INTO bad FROM element e WHERE e.object = ANY (ARRAY(SELECT id FROM kip_deleted)) LIMIT 1;\n"
    "  END IF;\n"
    "  IF bad IS NOT NULL THEN\n"
    "    RAISE EXCEPTION 'the link % names an element that was deleted', bad USING ERRCODE = 'foreign_key_violation';\n"
    "  END IF;\n"
    "  RETURN NULL;\n"
    "END $$;\n"
    "DROP TRIGGER IF EXISTS element_links_inserted ON element;\n"
    "DROP TRIGGER IF EXISTS element_links_updated ON element;\n"
    "DROP TRIGGER IF EXISTS element_links_deleted ON element;\n"
    "CREATE TRIGGER element_links_inserted AFTER INSERT ON element REFERENCING NEW TABLE AS kip_written\n"
    "  FOR EACH STATEMENT EXECUTE FUNCTION kip_links_written();\n"
    "CREATE TRIGGER element_links_updated AFTER UPDATE ON element REFERENCING NEW TABLE AS kip_written\n"
    "  FOR EACH STATEMENT EXECUTE FUNCTION kip_links_written();\n"
    "CREATE TRIGGER element_links_deleted AFTER DELETE ON element REFERENCING OLD TABLE AS kip_deleted\n"
    "  FOR EACH STATEMENT EXECUTE FUNCTION kip_links_orphaned();\n",
    /* a kv: NULL for an absent key or a JSON null */
    /* (one expression, so that the planner inlines it, that parses the
    ** attributes once: `->` gives a value's own text, "null" for a JSON
    ** null — schema v8; v7 read the key twice) */
    "CREATE OR REPLACE FUNCTION kip_attr(a text, k text) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT NULLIF((a::json -> k)::text, 'null')::json$$;\n"
    "CREATE OR REPLACE FUNCTION kip_attrj(a text, k text) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT (a::json -> k)::text$$;\n"
    /* a string kv's text, NULL for anything else */
    "CREATE OR REPLACE FUNCTION kip_str(a json) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT CASE WHEN json_typeof(a) = 'string' THEN a #>> '{}' END$$;\n"
    /* (v9: one RETURN expression. PL/pgSQL evaluates each statement and
    ** assignment apart, and v8 ran up to eight of them a call: a FILTER's
    ** comparison over 120 000 elements cost 84 ms beside reading the
    ** attribute, now 41; the same answers as v8's on every pair of 23 values
    ** of every JSON type, for every op) */
    "DROP FUNCTION IF EXISTS kip_num_cmp(json, json);\n" /* (v8's, unused) */
    "CREATE OR REPLACE FUNCTION kip_cmp(a json, b json, op int) RETURNS boolean LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$\n"
    "BEGIN\n"
    "  RETURN CASE\n"
    "    WHEN coalesce(json_typeof(a), 'null') = 'null' OR coalesce(json_typeof(b), 'null') = 'null' THEN\n"
    "      op <= 2 AND (coalesce(json_typeof(a), 'null') = coalesce(json_typeof(b), 'null')) = (op = 1)\n"
    "    WHEN json_typeof(a) <> json_typeof(b) THEN op = 2\n"
    "    WHEN json_typeof(a) = 'number' THEN " PG_BY_SIGN(PG_NUMBER_SIGN) "\n"
    "    WHEN json_typeof(a) = 'string' THEN " PG_BY_SIGN(PG_STRING_SIGN) "\n"
    "    ELSE op <= 2 AND (a::text = b::text) = (op = 1)\n"
    "  END;\n"
    "END $$;\n"
    "CREATE OR REPLACE FUNCTION kip_in(a json, list json) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT EXISTS (SELECT 1 FROM json_array_elements(list) x WHERE kip_cmp(a, x, 1))$$;\n"
    /* string operators: false unless both are strings */
    "CREATE OR REPLACE FUNCTION kip_contains_text(a text, b text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT coalesce(strpos(a, b) > 0 OR b = '', false)$$;\n"
    "CREATE OR REPLACE FUNCTION kip_starts_text(a text, b text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT coalesce(starts_with(a, b), false)$$;\n",
    "CREATE OR REPLACE FUNCTION kip_ends_text(a text, b text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT coalesce(length(b) <= length(a) AND right(a, length(b)) = b, false)$$;\n"
    "CREATE OR REPLACE FUNCTION kip_regex_text(a text, b text) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT coalesce(a ~ b, false)$$;\n"
    "CREATE OR REPLACE FUNCTION kip_contains(a json, b json) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT kip_contains_text(kip_str(a), kip_str(b))$$;\n"
    "CREATE OR REPLACE FUNCTION kip_starts(a json, b json) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT kip_starts_text(kip_str(a), kip_str(b))$$;\n"
    "CREATE OR REPLACE FUNCTION kip_ends(a json, b json) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT kip_ends_text(kip_str(a), kip_str(b))$$;\n"
    "CREATE OR REPLACE FUNCTION kip_regex(a json, b json) RETURNS boolean LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT kip_regex_text(kip_str(a), kip_str(b))$$;\n",
    /* SUM / AVG over numbers only: an integer sum while every number is an
    ** integer and it fits 64 bits, else a double sum (SQLite's arithmetic) */
    "DO $$BEGIN CREATE TYPE kip_sumacc AS (isum numeric, rsum float8, n bigint, is_real boolean);\n"
    "  EXCEPTION WHEN duplicate_object THEN NULL; END$$;\n"
    "CREATE OR REPLACE FUNCTION kip_sum_step(s kip_sumacc, v json) RETURNS kip_sumacc LANGUAGE plpgsql IMMUTABLE PARALLEL SAFE AS $$\n"
    "BEGIN\n"
    "  IF s IS NULL THEN s := ROW(0, 0, 0, false)::kip_sumacc; END IF;\n"
    "  IF v IS NULL OR json_typeof(v) <> 'number' THEN RETURN s; END IF;\n"
    "  IF NOT s.is_real AND v::text !~ '[.eE]' AND abs(s.isum + (v::text)::numeric) <= 9223372036854775807 THEN\n"
    "    s.isum := s.isum + (v::text)::numeric;\n"
    "  ELSE\n"
    "    IF NOT s.is_real THEN s.rsum := s.isum::float8; s.is_real := true; END IF;\n"
    "    s.rsum := s.rsum + (v::text)::float8;\n"
    "  END IF;\n"
    "  s.n := s.n + 1;\n"
    "  RETURN s;\n"
    "END $$;\n"
    "CREATE OR REPLACE FUNCTION kip_real(x double precision) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT (CASE WHEN x::text ~ '[.eE]' THEN x::text ELSE x::text || '.0' END)::json$$;\n"
    "CREATE OR REPLACE FUNCTION kip_sum_final(s kip_sumacc) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT CASE WHEN s IS NULL OR s.n = 0 THEN NULL WHEN s.is_real THEN kip_real(s.rsum) ELSE (s.isum::text)::json END$$;\n"
    "CREATE OR REPLACE FUNCTION kip_avg_final(s kip_sumacc) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT CASE WHEN s IS NULL OR s.n = 0 THEN NULL\n"
    "    ELSE kip_real((CASE WHEN s.is_real THEN s.rsum ELSE s.isum::float8 END) / s.n) END$$;\n"
    "CREATE OR REPLACE AGGREGATE kip_sum(json) (SFUNC = kip_sum_step, STYPE = kip_sumacc, FINALFUNC = kip_sum_final);\n"
    "CREATE OR REPLACE AGGREGATE kip_avg(json) (SFUNC = kip_sum_step, STYPE = kip_sumacc, FINALFUNC = kip_avg_final);\n"
    /* ORDER BY over values (dialect_pg.c order_term): numbers, then strings
    ** in code-point order, then other JSON by its text — SQLite's order */
    "DO $$BEGIN CREATE TYPE kip_key AS (r int, n numeric, t text COLLATE \"C\");\n"
    "  EXCEPTION WHEN duplicate_object THEN NULL; END$$;\n"
    "CREATE OR REPLACE FUNCTION kip_key(a json) RETURNS kip_key LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT CASE json_typeof(a) WHEN 'number' THEN ROW(1, (a::text)::numeric, NULL)::kip_key\n"
    "    WHEN 'string' THEN ROW(2, NULL, a #>> '{}')::kip_key WHEN 'null' THEN NULL\n"
    "    ELSE ROW(3, NULL, a::text)::kip_key END$$;\n"
    "CREATE OR REPLACE FUNCTION kip_key(a text) RETURNS kip_key LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT ROW(2, NULL, a)::kip_key$$;\n"
    "CREATE OR REPLACE FUNCTION kip_key(a bigint) RETURNS kip_key LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT ROW(1, a, NULL)::kip_key$$;\n"
    "CREATE OR REPLACE FUNCTION kip_key(a double precision) RETURNS kip_key LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT ROW(1, a::numeric, NULL)::kip_key$$;\n"
    /* min / max of values in that order (FIND … ORDER BY a value of a group) */
    "CREATE OR REPLACE FUNCTION kip_least(s json, v json) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT CASE WHEN v IS NULL OR json_typeof(v) = 'null' THEN s WHEN s IS NULL OR kip_key(v) < kip_key(s) THEN v ELSE s END$$;\n"
    "CREATE OR REPLACE FUNCTION kip_greatest(s json, v json) RETURNS json LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT CASE WHEN v IS NULL OR json_typeof(v) = 'null' THEN s WHEN s IS NULL OR kip_key(v) > kip_key(s) THEN v ELSE s END$$;\n"
    "CREATE OR REPLACE AGGREGATE min(json) (SFUNC = kip_least, STYPE = json);\n"
    "CREATE OR REPLACE AGGREGATE max(json) (SFUNC = kip_greatest, STYPE = json);\n",
    /* the text the SEARCH index holds of an element's attributes (store_sqlfunc.c
    ** kip_search_text): 0 the heading keys' strings, 1 every other string */
    /* (one JSON path per field: a walk of every value per key cost 3x) */
    "CREATE OR REPLACE FUNCTION kip_search_text(a text, which int) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT string_agg(x #>> '{}', E'\\n') FROM jsonb_path_query(CASE WHEN a LIKE '{%' AND a <> '{}' THEN a::jsonb END,\n"
    "    CASE WHEN which = 0 THEN 'strict $.keyvalue() ? (@.key == \"aliases\" || @.key == \"title\" || @.key == \"keywords\"\n"
    "      || @.key == \"tags\").value.** ? (@.type() == \"string\")'::jsonpath\n"
    "    ELSE 'strict $.keyvalue() ? (!(@.key == \"aliases\" || @.key == \"title\" || @.key == \"keywords\"\n"
    "      || @.key == \"tags\")).value.** ? (@.type() == \"string\")'::jsonpath END) x$$;\n"
    "CREATE OR REPLACE FUNCTION instr(a text, b text) RETURNS int LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT strpos(a, b)$$;\n"
    "CREATE OR REPLACE FUNCTION kip_kv_json(a json) RETURNS text LANGUAGE sql IMMUTABLE PARALLEL SAFE AS\n"
    "  $$SELECT coalesce(a::text, 'null')$$;\n",
    NULL};

const char *kip_pg_stmt_sql(int which) {
  switch (which) {
    case ST_MARK_FRESH:
      return "INSERT INTO search_dirty(id, fresh) SELECT id, 1 FROM element WHERE id BETWEEN ?1 AND ?2 "
             "ON CONFLICT (id) DO UPDATE SET fresh = 1";
    case ST_MARK_CHANGED:
      return "INSERT INTO kip_changed_run(lo, hi, gen) VALUES(?1, ?2, (" PG_GENERATION ")) "
             "ON CONFLICT (lo) DO UPDATE SET hi = greatest(kip_changed_run.hi, excluded.hi), gen = excluded.gen";
    /* the query itself: a call of the SQL function costs its executor's start, ~0.1 ms */
    case ST_DATA_VERSION: return PG_GENERATION;
    /* transactions are begun and ended by scripts (store_tx.c); the SEARCH
    ** index is kept by store_pg_search.c, not by SQLite's statements */
    case ST_BEGIN_READ: case ST_END_READ: case ST_SEARCH_UNINDEX_TRIGRAM: case ST_SEARCH_UNINDEX_WORD:
    case ST_SEARCH_INDEX_WORD: case ST_SEARCH_INDEX_TRIGRAM:
      return "SELECT 1";
    default: return NULL;
  }
}

/* whether the nexus's tables exist, and its schema version (0: none) */
static int schema_version(kip_nexus *nx, int64_t *exists, int64_t *v, kip_error *err) {
  char sql[256];
  snprintf(sql, sizeof sql, "SELECT (to_regclass('%s.kip_info') IS NOT NULL)::int", nx->pg->schema);
  *exists = kip_pg_count(nx, sql);
  *v = 0;
  if (*exists > 0) {
    snprintf(sql, sizeof sql, "SELECT coalesce((SELECT value::bigint FROM %s.kip_info WHERE key = 'pg_schema_version'), 0)",
             nx->pg->schema);
    *v = kip_pg_count(nx, sql);
  }
  return *exists < 0 || *v < 0 ? kip_pg_error(nx, KIP_PG_ERROR, err, "reading the schema version") : 0;
}

/* the statements that build the substring indexes, in sql; 0 when the
** extension is not there (after `first`, a statement run before looking) */
static int trigram_indexes_sql(kip_nexus *nx, const char *first, char *sql, size_t cap) {
  char q[256];
  snprintf(q, sizeof q, "%sSELECT quote_ident(extnamespace::regnamespace::text) FROM pg_extension WHERE extname = 'pg_trgm'",
           first);
  PGresult *r = kip_pg_query(nx->pg, q);
  int ok = PQresultStatus(r) == PGRES_TUPLES_OK && PQntuples(r) == 1;
  if (ok)
    snprintf(sql, cap,
             "CREATE INDEX IF NOT EXISTS search_doc_name_trgm ON search_doc USING gin (lower(name) %s.gin_trgm_ops)" GIN_PENDING
             "; CREATE INDEX IF NOT EXISTS search_doc_heading_trgm ON search_doc USING gin (lower(heading) %s.gin_trgm_ops)"
             GIN_PENDING,
             PQgetvalue(r, 0, 0), PQgetvalue(r, 0, 0));
  PQclear(r);
  return ok;
}

/* whether SEARCH finds substrings by the trigram index (pg->trigrams), and
** whether a bulk load left its indexes dropped (it was stopped before its
** end: they are built at open, as an SQLite nexus builds them) */
static int substring_index_known(kip_nexus *nx, kip_error *err) {
  char sql[256];
  snprintf(sql, sizeof sql,
           "SELECT (to_regclass('%s.search_doc_heading_trgm') IS NOT NULL)::int + "
           "2 * (to_regclass('%s.element_pred') IS NULL OR to_regclass('%s.search_doc_words') IS NULL)::int",
           nx->pg->schema, nx->pg->schema, nx->pg->schema);
  int64_t v = kip_pg_count(nx, sql);
  if (v < 0) return kip_pg_error(nx, KIP_PG_ERROR, err, "reading the schema");
  nx->pg->trigrams = v & 1;
  nx->indexes_deferred = (v & 2) && !nx->readonly_file; /* built once the statements are prepared (store.c) */
  return 0;
}

/* ------------------------------------------------- a bulk load's indexes */
/* As on SQLite, the first bulk command that writes at least as many
** elements as the nexus holds drops the secondary indexes in its
** transaction (kip_store_defer_indexes, store_bulk.c), and its load's end
** builds them from the finished tables — sorted, where every insert into a
** B-tree or GIN index was a random probe. DROP INDEX locks the table until
** that first command commits; meanwhile other connections wait, afterwards
** their queries scan. */
const char *const KIP_PG_DROP_DEFERRED_INDEXES = DROP_DEFERRED_INDEXES;

/* the load indexed for SEARCH first (search_doc without its index), then
** every index built, in one transaction; the planner's statistics after */
int kip_pg_build_indexes(kip_nexus *nx, kip_error *err) {
  if (!nx->indexes_deferred || nx->readonly_file) return 0;
  int own = nx->tx_depth == 0;
  if (own && kip_tx_begin(nx, err)) return err->code;
  char trigrams[512];
  int rc = kip_pg_search_index_load(nx, err), with_trigrams = 0;
  if (!rc) rc = kip_pg_exec(nx, SECONDARY_INDEXES "CREATE INDEX " SEARCH_WORDS_INDEX, err, "building the element indexes");
  if (!rc && (with_trigrams = trigram_indexes_sql(nx, "", trigrams, sizeof trigrams)))
    rc = kip_pg_exec(nx, trigrams, err, "building the substring index");
  if (own) {
    if (rc) kip_tx_rollback(nx);
    else rc = kip_tx_commit_upkeep(nx, err);
  }
  if (rc) return rc;
  nx->indexes_deferred = 0;
  nx->pg->trigrams = with_trigrams;
  if (own) kip_pg_after_commit(nx, -1);
  return 0;
}

/* substrings of names and headings found by trigrams (pg_trgm, a trusted
** extension of postgresql-contrib: a database owner may create it), the
** index built where the extension is or can be; without it SEARCH scans
** (search_keyword.c). Inside the migration's transaction: a savepoint
** keeps a refusal from undoing the rest */
static int substring_index(kip_nexus *nx, kip_error *err) {
  if (kip_pg_exec(nx, "SAVEPOINT kip_trgm", err, "creating the substring index")) return err->code;
  char sql[512];
  int ok = trigram_indexes_sql(nx, "CREATE EXTENSION IF NOT EXISTS pg_trgm WITH SCHEMA public; ", sql, sizeof sql);
  kip_error ignored;
  if (ok && !kip_pg_exec(nx, sql, &ignored, "creating the substring index"))
    return kip_pg_exec(nx, "RELEASE kip_trgm", err, "creating the substring index");
  return kip_pg_exec(nx, "ROLLBACK TO kip_trgm; RELEASE kip_trgm", err, "creating the substring index");
}

int kip_pg_migrate(kip_nexus *nx, int *created, kip_error *err) {
  struct kip_pg *pg = nx->pg;
  char sql[512];
  *created = 0;
  int64_t exists, v;
  if (schema_version(nx, &exists, &v, err)) return err->code;
  if (v == PG_SCHEMA_VERSION) return substring_index_known(nx, err);
  if (v > PG_SCHEMA_VERSION)
    return kip_err(err, KIP_E_INTERNAL, "Upgrade kipnexus to open this nexus.",
                   "the nexus %s has schema version %lld, newer than this build supports (%d)", pg->where, (long long)v,
                   PG_SCHEMA_VERSION);
  if (nx->readonly_file)
    return kip_err(err, KIP_E_INTERNAL, "Open it once read-write to initialise it.",
                   "the nexus %s is not initialised and was opened read-only", pg->where);
  snprintf(sql, sizeof sql,
           "BEGIN; SELECT pg_advisory_xact_lock(hashtextextended('%s', 7)); CREATE SCHEMA IF NOT EXISTS %s",
           pg->schema, pg->schema);
  if (kip_pg_exec(nx, sql, err, "creating the nexus's schema")) return err->code;
  /* under the lock: another process may have created or migrated it meanwhile */
  int rc = schema_version(nx, &exists, &v, err);
  if (!rc && !exists) {
    *created = 1;
    for (int i = 0; !rc && TABLES[i]; i++) rc = kip_pg_exec(nx, TABLES[i], err, "creating the nexus's tables");
  }
  if (!rc && v < 2) rc = kip_pg_exec(nx, SEARCH_V2, err, "creating the SEARCH index");
  if (!rc && v < 6) rc = kip_pg_exec(nx, VECTORS_V6, err, "creating the vector index");
  /* v10: a guard may keep what it covers out of the SEARCH indexes (store_guard.c) */
  if (!rc && exists && v < 10)
    rc = kip_pg_exec(nx, "ALTER TABLE kip_guard ADD COLUMN IF NOT EXISTS unindexed int NOT NULL DEFAULT 0", err,
                     "updating the nexus's tables");
  /* v4: the endpoints are checked per statement (FUNCTIONS' triggers) */
  if (!rc && exists && v < 4)
    rc = kip_pg_exec(nx, "ALTER TABLE element DROP CONSTRAINT IF EXISTS element_subject_fkey, "
                         "DROP CONSTRAINT IF EXISTS element_object_fkey", err, "updating the nexus's tables");
  if (!rc && exists && v >= 2 && v < 7)
    rc = kip_pg_exec(nx, "ALTER INDEX IF EXISTS search_doc_words SET (gin_pending_list_limit = 64); "
                         "ALTER INDEX IF EXISTS search_doc_name_trgm SET (gin_pending_list_limit = 64); "
                         "ALTER INDEX IF EXISTS search_doc_heading_trgm SET (gin_pending_list_limit = 64)",
                     err, "updating the SEARCH index");
  for (int i = 0; !rc && FUNCTIONS[i]; i++) rc = kip_pg_exec(nx, FUNCTIONS[i], err, "creating the nexus's functions");
  if (!rc) rc = kip_pg_exec(nx, KIP_PG_SEARCH_SYNC, err, "creating the nexus's functions");
  if (!rc && v < 3) rc = substring_index(nx, err);
  if (!rc) {
    snprintf(sql, sizeof sql,
             "INSERT INTO kip_info(key, value) VALUES('pg_schema_version', '%d') "
             "ON CONFLICT (key) DO UPDATE SET value = excluded.value; COMMIT",
             PG_SCHEMA_VERSION);
    rc = kip_pg_exec(nx, sql, err, "creating the nexus's schema");
  }
  if (rc) PQclear(PQexec(pg->conn, "ROLLBACK"));
  return rc ? rc : substring_index_known(nx, err);
}
