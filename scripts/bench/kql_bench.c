/*
** kql_bench.c — the KQL benchmark (scripts/bench/kql runs it).
**
** Generates a deterministic memory graph (default 100k concepts in 8 types,
** 500k propositions in 11 predicates, hub nodes, a 6-level topic tree,
** JSON attributes), loads it twice — through KIP UPSERT commands into one
** nexus and with hand-written INSERTs into a second nexus file with the
** identical schema — and then times each query both ways on the KIP-loaded
** file: KIP through kip_call_json (envelope, parse, compile, execute, JSON
** rendering) and the equivalent hand-written SQL through the SQLite C API
** (prepare, step, read every column). It prints medians and the ratio
** KIP / SQL; the same run, the same file, the same SQLite.
*/
#include <fcntl.h>
#include <math.h>
#include <sqlite3.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <jansson.h>

#include "bench_common.h"
#include "kip.h"
#include "store.h" /* kip_store_db: the raw-SQL side of the comparison */

/* ------------------------------------------------------------ generator */
/* (next_rand, rand_below; now_ms for timing: bench_common.h) */

typedef struct ctype {
  const char *name;
  int share; /* per mille of concepts */
  int64_t count, first;
} ctype;

static ctype types[] = {
    {"Person", 200, 0, 0}, {"Project", 50, 0, 0}, {"Topic", 100, 0, 0}, {"Document", 300, 0, 0},
    {"Event", 200, 0, 0},  {"Task", 100, 0, 0},   {"Org", 20, 0, 0},    {"Place", 30, 0, 0},
};
enum { PERSON, PROJECT, TOPIC, DOCUMENT, EVENT, TASK, ORG, PLACE, NTYPES };

typedef struct pred {
  const char *name;
  int subject, object, weight;
} pred;

static const pred preds[] = {
    {"knows", PERSON, PERSON, 16},   {"works_on", PERSON, PROJECT, 8}, {"about", DOCUMENT, TOPIC, 12},
    {"authored", PERSON, DOCUMENT, 12}, {"mentions", DOCUMENT, PERSON, 14}, {"involves", EVENT, PERSON, 14},
    {"part_of", TASK, PROJECT, 6},  {"depends_on", TASK, TASK, 6},    {"located_in", EVENT, PLACE, 6},
    {"member_of", PERSON, ORG, 6},  {"subtopic_of", TOPIC, TOPIC, 0},
};
#define NPREDS (int)(sizeof preds / sizeof *preds)

static const char *statuses[] = {"active", "archived", "draft", "done"};
static const char *words[] = {"alpha", "beta", "gamma", "delta", "ledger", "orbit", "harbor", "maple",
                              "quartz", "signal", "tundra", "velvet", "willow", "zephyr", "cobalt", "ember"};

typedef struct edge {
  int64_t s, o; /* concept indexes */
  int p;
} edge;

/* concept i (global index) of type t */
static void concept_name(char *out, size_t n, int64_t i) {
  for (int t = NTYPES - 1; t >= 0; t--)
    if (i >= types[t].first) {
      snprintf(out, n, "%s-%lld", types[t].name, (long long)(i - types[t].first));
      return;
    }
}
static int type_of(int64_t i) {
  for (int t = NTYPES - 1; t >= 0; t--)
    if (i >= types[t].first) return t;
  return 0;
}
static void concept_attrs(char *out, size_t n, int64_t i) {
  snprintf(out, n, "{\"rank\":%lld,\"status\":\"%s\",\"description\":\"%s %s %s item %lld\"}",
           (long long)(i * 7919 % 100), statuses[i % 4], words[i % 16], words[(i / 16) % 16],
           words[(i / 256) % 16], (long long)i);
}

/* pick a concept of type t; 20% of picks go to the first 1% (hubs) */
static int64_t pick(int t) {
  int64_t c = types[t].count, hubs = c / 100 > 0 ? c / 100 : 1;
  return types[t].first + (next_rand() % 5 == 0 ? rand_below(hubs) : rand_below(c));
}

static edge *generate(int64_t nconcepts, int64_t nlinks, int64_t *nout) {
  int64_t first = 0;
  for (int t = 0; t < NTYPES; t++) {
    types[t].count = nconcepts * types[t].share / 1000;
    types[t].first = first;
    first += types[t].count;
  }
  edge *L = malloc((size_t)nlinks * sizeof *L);
  int64_t n = 0;
  /* the topic tree: topic k's parent is (k-1)/4 -> ~6 levels for 10k topics */
  for (int64_t k = 1; k < types[TOPIC].count && n < nlinks; k++)
    L[n++] = (edge){types[TOPIC].first + k, types[TOPIC].first + (k - 1) / 4, NPREDS - 1};
  int total = 0;
  for (int p = 0; p < NPREDS; p++) total += preds[p].weight;
  while (n < nlinks) {
    int r = (int)rand_below(total), p = 0;
    while (r >= preds[p].weight) r -= preds[p++].weight;
    L[n++] = (edge){pick(preds[p].subject), pick(preds[p].object), p};
  }
  *nout = n;
  return L;
}

/* ------------------------------------------------------------ timing */
static int cmp_double(const void *a, const void *b) {
  double x = *(const double *)a, y = *(const double *)b;
  return x < y ? -1 : x > y;
}

static double mean(const double *v, int n) {
  double sum = 0;
  for (int i = 0; i < n; i++) sum += v[i];
  return n ? sum / n : 0;
}

static double median(double *v, int n) {
  qsort(v, (size_t)n, sizeof *v, cmp_double);
  return n % 2 ? v[n / 2] : (v[n / 2 - 1] + v[n / 2]) / 2;
}

/* ------------------------------------------------------------ KIP side */
static char *request(const char *command) {
  json_t *r = json_pack("{s:s}", "command", command);
  char *s = json_dumps(r, JSON_COMPACT);
  json_decref(r);
  return s;
}

/* run one request envelope; *ms (when not NULL) gets the engine's time only */
static kip_call_options *load_options; /* bulk loads may defer the search index */
static int import_only;                 /* --import-only */
static int singles = 500;               /* --singles: writes per round of single writes */

/* 1 when the response is not an error (reported on stderr); frees it */
static int response_ok(char *res, const char *what) {
  int ok = res && strncmp(res, "{\"error\"", 8) != 0;
  if (!ok) fprintf(stderr, "KIP error: %.400s\n  for: %.300s\n", res ? res : "(null)", what);
  kip_free(res);
  return ok;
}

static int kip_call_timed(kip_nexus *nx, const char *req, double *ms) {
  double a = now_ms();
  char *res = kip_call_json(nx, req, strlen(req), load_options);
  if (ms) *ms = now_ms() - a;
  return response_ok(res, req);
}

static int kip_run(kip_nexus *nx, const char *command, double *ms) {
  if (load_options) /* the import path: commands without an envelope, as kip import sends them */
    return response_ok(kip_call_command(nx, command, strlen(command), NULL, load_options), command);
  char *req = request(command);
  int ok = kip_call_timed(nx, req, ms);
  free(req);
  return ok;
}

/* KIP_BENCH_TRACE=1: the SQL statements of the import path and of the single writes by total time,
** from a statement's first step to its reset, timed with the bench's own
** clock (the profile callback's time comes from the VFS clock, which has
** millisecond resolution on unix); nested statements — FTS5's own — are
** counted both on their own and inside the statement that ran them */
typedef struct statement_time {
  char *sql;
  double ns, max_ms;
  long runs, slow; /* slow: runs over 1 ms (a write's tail) */
} statement_time;
static statement_time traced[256];
static int ntraced;

typedef struct running_statement {
  void *stmt;
  double start_ms;
} running_statement;
static running_statement running[64]; /* statements between their first step and their reset */
static int nrunning;

static int trace_statement(unsigned type, void *ctx, void *stmt, void *arg) {
  (void)ctx;
  (void)arg;
  int r = nrunning - 1;
  while (r >= 0 && running[r].stmt != stmt) r--;
  if (type == SQLITE_TRACE_STMT) { /* also at the start of each trigger program: keep the first */
    if (r < 0 && nrunning < 64) running[nrunning++] = (running_statement){stmt, now_ms()};
    return 0;
  }
  if (r < 0) return 0;
  double ms = now_ms() - running[r].start_ms;
  running[r] = running[--nrunning];
  const char *sql = sqlite3_sql((sqlite3_stmt *)stmt);
  if (!sql) sql = "(a statement without text)";
  int i = 0;
  while (i < ntraced && strcmp(traced[i].sql, sql)) i++;
  if (i == ntraced) {
    if (ntraced == 255) return 0;
    traced[ntraced].sql = strdup(sql);
    traced[ntraced].ns = traced[ntraced].max_ms = 0;
    traced[ntraced].slow = 0;
    traced[ntraced++].runs = 0;
  }
  traced[i].ns += ms * 1e6;
  traced[i].runs++;
  if (ms > traced[i].max_ms) traced[i].max_ms = ms;
  if (ms > 1) traced[i].slow++;
  return 0;
}

static void trace_statements(sqlite3 *db) {
  nrunning = 0;
  sqlite3_trace_v2(db, SQLITE_TRACE_STMT | SQLITE_TRACE_PROFILE, trace_statement, NULL);
}

static int by_time(const void *a, const void *b) {
  double d = ((const statement_time *)b)->ns - ((const statement_time *)a)->ns;
  return d > 0 ? 1 : d < 0 ? -1 : 0;
}

static void print_traced(const char *what) {
  qsort(traced, (size_t)ntraced, sizeof *traced, by_time);
  fprintf(stderr, "%s, SQL statements by total time (ms, runs, runs over 1 ms, the slowest run's ms):\n", what);
  for (int i = 0; i < ntraced && i < 20; i++)
    fprintf(stderr, "%10.1f ms %8ld %6ld %8.2f  %.110s\n", traced[i].ns / 1e6, traced[i].runs, traced[i].slow,
            traced[i].max_ms, traced[i].sql);
  for (int i = 0; i < ntraced; i++) free(traced[i].sql);
  ntraced = 0;
}

#define IMPORT_BATCH (4 << 20) /* lua/kip/transfer.lua M.BATCH_BYTES */

/* load the graph as UPSERT commands of about cap bytes each (one transaction
** each): 240 KiB like an agent's largest command, or kip import's batch */
static int kip_load(kip_nexus *nx, int64_t nconcepts, const edge *L, int64_t nlinks, size_t cap) {
  const char *schema_fmt = "UPSERT { CONCEPT ?t { {type: \"%s\", name: \"%s\"} } }";
  char buf[256];
  for (int t = 0; t < NTYPES; t++) {
    snprintf(buf, sizeof buf, schema_fmt, "$ConceptType", types[t].name);
    if (!kip_run(nx, buf, NULL)) return 0;
  }
  for (int p = 0; p < NPREDS; p++) {
    snprintf(buf, sizeof buf, schema_fmt, "$PropositionType", preds[p].name);
    if (!kip_run(nx, buf, NULL)) return 0;
  }
  char *cmd = malloc(cap + 1024);
  char name[64], attrs[256];
  for (int64_t i = 0; i < nconcepts;) {
    size_t len = (size_t)snprintf(cmd, cap, "UPSERT {\n");
    for (; i < nconcepts && len < cap - 600; i++) {
      concept_name(name, sizeof name, i);
      concept_attrs(attrs, sizeof attrs, i);
      len += (size_t)snprintf(cmd + len, cap + 1024 - len,
                              "CONCEPT ?c%lld { {type: \"%s\", name: \"%s\"} SET ATTRIBUTES %s }\n", (long long)i,
                              types[type_of(i)].name, name, attrs);
    }
    len += (size_t)snprintf(cmd + len, cap + 1024 - len, "}\nWITH METADATA { source: \"bench\" }");
    if (!kip_run(nx, cmd, NULL)) return 0;
  }
  char sn[64], on[64];
  for (int64_t i = 0; i < nlinks;) {
    size_t len = (size_t)snprintf(cmd, cap, "UPSERT {\n");
    for (; i < nlinks && len < cap - 600; i++) {
      concept_name(sn, sizeof sn, L[i].s);
      concept_name(on, sizeof on, L[i].o);
      len += (size_t)snprintf(cmd + len, cap + 1024 - len,
                              "PROPOSITION { ({type: \"%s\", name: \"%s\"}, \"%s\", {type: \"%s\", name: \"%s\"}) }\n",
                              types[type_of(L[i].s)].name, sn, preds[L[i].p].name, types[type_of(L[i].o)].name, on);
    }
    len += (size_t)snprintf(cmd + len, cap + 1024 - len, "}");
    if (!kip_run(nx, cmd, NULL)) return 0;
  }
  free(cmd);
  return 1;
}

/* ------------------------------------------------------------ raw side */
static int raw_exec(sqlite3 *db, const char *sql) {
  char *msg = NULL;
  if (sqlite3_exec(db, sql, NULL, NULL, &msg) != SQLITE_OK) {
    fprintf(stderr, "SQL error: %s\n", msg);
    sqlite3_free(msg);
    return 0;
  }
  return 1;
}

/* what the engine does before each commit: index the changed elements */
static const char *index_sync =
    "INSERT INTO search_trigram(search_trigram, rowid, name, heading) SELECT 'delete', w.id, w.c0, w.c1 "
    "FROM search_dirty d CROSS JOIN search_word_content w ON w.id = d.id;"
    "DELETE FROM search_word WHERE rowid IN (SELECT id FROM search_dirty);"
    "INSERT INTO search_word(rowid, name, heading, body) SELECT e.id, coalesce(e.name, e.predicate), "
    "kip_search_text(e.attributes, 0), kip_search_text(e.attributes, 1, (SELECT name FROM element WHERE id = "
    "e.subject), (SELECT name FROM element WHERE id = e.object)) FROM search_dirty d CROSS JOIN element e ON e.id = d.id;"
    "INSERT INTO search_trigram(rowid, name, heading) SELECT e.id, coalesce(e.name, e.predicate), "
    "kip_search_text(e.attributes, 0) FROM search_dirty d CROSS JOIN element e ON e.id = d.id;"
    "DELETE FROM search_dirty;";

static int raw_commit(sqlite3 *db) { return raw_exec(db, index_sync) && raw_exec(db, "COMMIT"); }

/* hand-written inserts mark each new row for the index sync, as a plain
** SQLite program would (the schema has no insert trigger; the engine
** records a transaction's new ids a run at a time, store.c) */
static sqlite3_stmt *raw_marker(sqlite3 *db) {
  sqlite3_stmt *m = NULL;
  sqlite3_prepare_v2(db, "INSERT OR IGNORE INTO search_dirty(id) VALUES(?1)", -1, &m, NULL);
  return m;
}

static void raw_mark(sqlite3_stmt *m, int64_t id) {
  sqlite3_bind_int64(m, 1, id);
  sqlite3_step(m);
  sqlite3_reset(m);
}

/* the row the last insert made, marked; nothing when it inserted nothing */
static void raw_mark_insert(sqlite3_stmt *m, sqlite3 *db) {
  if (sqlite3_changes(db) > 0) raw_mark(m, sqlite3_last_insert_rowid(db));
}

/* hand-written load into an identical schema: same rows, same indexes and
** search triggers, transactions of the same size as the KIP commands */
static int raw_load(sqlite3 *db, int64_t nconcepts, const edge *L, int64_t nlinks) {
  sqlite3_stmt *ins, *find, *link_ins, *def, *mark = raw_marker(db);
  sqlite3_prepare_v2(db,
                     "INSERT INTO element(type, name, attributes, metadata, version, updated_at) "
                     "VALUES(?1, ?2, ?3, '{\"source\":\"bench\"}', 1, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                     -1, &ins, NULL);
  sqlite3_prepare_v2(db, "SELECT id FROM element WHERE type = ?1 AND name = ?2", -1, &find, NULL);
  sqlite3_prepare_v2(db,
                     "INSERT OR IGNORE INTO element(subject, predicate, object, attributes, metadata, version, "
                     "updated_at) VALUES(?1, ?2, ?3, '{}', '{}', 1, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                     -1, &link_ins, NULL);
  sqlite3_prepare_v2(db,
                     "INSERT OR IGNORE INTO element(type, name, version, updated_at) VALUES(?1, ?2, 1, '')", -1,
                     &def, NULL);
  char name[64], attrs[256];
  raw_exec(db, "BEGIN");
  for (int t = 0; t < NTYPES; t++) {
    sqlite3_bind_text(def, 1, "$ConceptType", -1, SQLITE_STATIC);
    sqlite3_bind_text(def, 2, types[t].name, -1, SQLITE_STATIC);
    sqlite3_step(def);
    sqlite3_reset(def);
    raw_mark_insert(mark, db);
  }
  for (int p = 0; p < NPREDS; p++) {
    sqlite3_bind_text(def, 1, "$PropositionType", -1, SQLITE_STATIC);
    sqlite3_bind_text(def, 2, preds[p].name, -1, SQLITE_STATIC);
    sqlite3_step(def);
    sqlite3_reset(def);
    raw_mark_insert(mark, db);
  }
  raw_exec(db, "COMMIT");
  const int per_tx = 1000;
  for (int64_t i = 0; i < nconcepts; i++) {
    if (i % per_tx == 0) raw_exec(db, "BEGIN");
    concept_name(name, sizeof name, i);
    concept_attrs(attrs, sizeof attrs, i);
    sqlite3_bind_text(ins, 1, types[type_of(i)].name, -1, SQLITE_STATIC);
    sqlite3_bind_text(ins, 2, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 3, attrs, -1, SQLITE_TRANSIENT);
    if (sqlite3_step(ins) != SQLITE_DONE) fprintf(stderr, "raw insert: %s\n", sqlite3_errmsg(db));
    sqlite3_reset(ins);
    raw_mark_insert(mark, db);
    if (i % per_tx == per_tx - 1 || i == nconcepts - 1) raw_commit(db);
  }
  for (int64_t i = 0; i < nlinks; i++) {
    if (i % (per_tx * 2) == 0) raw_exec(db, "BEGIN");
    int64_t ids[2];
    int64_t ends[2] = {L[i].s, L[i].o};
    for (int k = 0; k < 2; k++) {
      concept_name(name, sizeof name, ends[k]);
      sqlite3_bind_text(find, 1, types[type_of(ends[k])].name, -1, SQLITE_STATIC);
      sqlite3_bind_text(find, 2, name, -1, SQLITE_TRANSIENT);
      ids[k] = sqlite3_step(find) == SQLITE_ROW ? sqlite3_column_int64(find, 0) : 0;
      sqlite3_reset(find);
    }
    sqlite3_bind_int64(link_ins, 1, ids[0]);
    sqlite3_bind_text(link_ins, 2, preds[L[i].p].name, -1, SQLITE_STATIC);
    sqlite3_bind_int64(link_ins, 3, ids[1]);
    if (sqlite3_step(link_ins) != SQLITE_DONE) fprintf(stderr, "raw link: %s\n", sqlite3_errmsg(db));
    sqlite3_reset(link_ins);
    raw_mark_insert(mark, db);
    if (i % (per_tx * 2) == per_tx * 2 - 1 || i == nlinks - 1) raw_commit(db);
  }
  sqlite3_finalize(ins);
  sqlite3_finalize(find);
  sqlite3_finalize(link_ins);
  sqlite3_finalize(def);
  sqlite3_finalize(mark);
  return 1;
}

/* the hand-written side at its best: one statement prepared once per query
** shape and reused (what a program on SQLite's C API does), bound, stepped to
** the end with every column read, reset */
static sqlite3_stmt *raw_prepare(sqlite3 *db, const char *sql) {
  sqlite3_stmt *st;
  if (sqlite3_prepare_v2(db, sql, -1, &st, NULL) != SQLITE_OK) {
    fprintf(stderr, "SQL error: %s\n  in: %s\n", sqlite3_errmsg(db), sql);
    exit(1);
  }
  return st;
}

static int64_t raw_run(sqlite3_stmt *st, const char **params, int nparams) {
  for (int i = 0; i < nparams; i++) sqlite3_bind_text(st, i + 1, params[i], -1, SQLITE_STATIC);
  int64_t rows = 0;
  volatile size_t sink = 0;
  while (sqlite3_step(st) == SQLITE_ROW) {
    rows++;
    for (int c = 0; c < sqlite3_column_count(st); c++) sink += (size_t)sqlite3_column_bytes(st, c);
  }
  sqlite3_reset(st);
  (void)sink;
  return rows;
}

/* ------------------------------------------------------------ queries */
typedef struct bench_query {
  const char *label;
  const char *kip;      /* printf format with up to two %s (names) */
  const char *sql;      /* hand-written equivalent; ?1.. bound to the names */
  int nparams;
} bench_query;

#define ANCHORED_2HOP_SQL                                                                                      \
  "SELECT DISTINCT p.id, p.name, json_extract(p.attributes, '$.rank') AS r FROM element x "                    \
  "JOIN element a ON a.object = x.id AND a.predicate = 'about' "                                               \
  "JOIN element b ON b.object = a.subject AND b.predicate = 'authored' JOIN element p ON p.id = b.subject "    \
  "WHERE x.type = 'Topic' AND x.name = ?1 AND p.type = 'Person' AND json_extract(p.attributes, '$.rank') < 30 " \
  "ORDER BY r LIMIT 20"
/* as a hand-writer who knows SQLite's planner writes it: the unary + keeps
** the type from driving (SQLite's averages make a type look more selective
** than the edges of one hub) */
#define HUB_MEMBERS_SQL                                                                                      \
  "SELECT DISTINCT p.id, p.name FROM element o JOIN element l ON l.object = o.id AND l.predicate = 'member_of' " \
  "JOIN element p ON p.id = l.subject WHERE o.type = 'Org' AND o.name = ?1 AND +p.type = 'Person'"

static const bench_query queries[] = {
    {"point lookup (type, name)", "FIND(?p) WHERE { ?p {type: \"Person\", name: :a} }",
     "SELECT id, type, name, attributes, metadata, version, updated_at FROM element WHERE type = 'Person' AND name = ?1",
     1},
    {"1-hop from a hub", "FIND(?o.name) WHERE { ?s {type: \"Person\", name: :a} (?s, \"knows\", ?o) }",
     "SELECT DISTINCT o.id, o.name FROM element s JOIN element l ON l.subject = s.id AND l.predicate = 'knows' "
     "JOIN element o ON o.id = l.object WHERE s.type = 'Person' AND s.name = ?1",
     1},
    {"2-hop + filter + order + limit",
     "FIND(?d.name, ?d.attributes.rank) WHERE { ?p {type: \"Person\", name: :a} (?p, \"authored\", ?d) "
     "(?d, \"about\", ?t) FILTER(?d.attributes.rank > 50) } ORDER BY ?d.attributes.rank DESC LIMIT 20",
     "SELECT DISTINCT d.id, d.name, json_extract(d.attributes, '$.rank') AS r FROM element p "
     "JOIN element a ON a.subject = p.id AND a.predicate = 'authored' JOIN element d ON d.id = a.object "
     "JOIN element b ON b.subject = d.id AND b.predicate = 'about' "
     "WHERE p.type = 'Person' AND p.name = ?1 AND json_extract(d.attributes, '$.rank') > 50 ORDER BY r DESC LIMIT 20",
     1},
    {"grouped count per predicate", "FIND(?p, COUNT(?l)) WHERE { ?l (?s, ?p, ?o) }",
     "SELECT predicate, count(*) FROM element WHERE predicate IS NOT NULL GROUP BY predicate", 0},
    {"1..5-hop ancestry", "FIND(?a.name) WHERE { ?t {type: \"Topic\", name: :a} (?t, \"subtopic_of\"{1,5}, ?a) }",
     "WITH RECURSIVE up(id, depth) AS (SELECT id, 0 FROM element WHERE type = 'Topic' AND name = ?1 "
     "UNION SELECT l.object, up.depth + 1 FROM up JOIN element l ON l.subject = up.id AND l.predicate = "
     "'subtopic_of' WHERE up.depth < 5) SELECT DISTINCT e.id, e.name FROM up JOIN element e ON e.id = up.id "
     "WHERE up.depth >= 1",
     1},
    {"ego graph (predicate variable)", "FIND(?p, ?o.name) WHERE { ?s {type: \"Person\", name: :a} (?s, ?p, ?o) }",
     "SELECT DISTINCT l.predicate, o.id, o.name FROM element s JOIN element l ON l.subject = s.id "
     "JOIN element o ON o.id = l.object WHERE s.type = 'Person' AND s.name = ?1",
     1},
    {"NOT-exists orphans (count)",
     "FIND(COUNT(?e)) WHERE { ?e {type: \"Event\"} NOT { (?e, \"involves\", ?x) } }",
     "SELECT count(*) FROM element e WHERE e.type = 'Event' AND NOT EXISTS "
     "(SELECT 1 FROM element l WHERE l.subject = e.id AND l.predicate = 'involves')",
     0},
    {"keyword SEARCH (top 10)", "SEARCH CONCEPT :a LIMIT 10",
     "SELECT e.id, e.type, e.name, e.attributes, e.metadata FROM search_word f JOIN element e ON e.id = f.rowid "
     "WHERE search_word MATCH ?1 AND e.type IS NOT NULL ORDER BY bm25(search_word, 3.0, 2.0, 1.0) LIMIT 10",
     1},
    {"anchored 2-hop into a type",
     "FIND(?p.name, ?p.attributes.rank) WHERE { ?x {type: \"Topic\", name: :a} (?d, \"about\", ?x) "
     "(?p, \"authored\", ?d) ?p {type: \"Person\"} FILTER(?p.attributes.rank < 30) } "
     "ORDER BY ?p.attributes.rank LIMIT 20",
     ANCHORED_2HOP_SQL, 1},
    {"1-hop into a hub (all members)", "FIND(?p.name) WHERE { ?o {type: \"Org\", name: :a} (?p, \"member_of\", ?o) }",
     "SELECT DISTINCT p.id, p.name FROM element o JOIN element l ON l.object = o.id AND l.predicate = 'member_of' "
     "JOIN element p ON p.id = l.subject WHERE o.type = 'Org' AND o.name = ?1",
     1},
    {"orphans: Places with no link",
     "FIND(COUNT(?e)) WHERE { ?e {type: \"Place\"} NOT { (?e, ?p, ?x) } NOT { (?y, ?q, ?e) } }",
     "SELECT count(*) FROM element e WHERE e.type = 'Place' AND NOT EXISTS (SELECT 1 FROM element l "
     "WHERE l.subject = e.id) AND NOT EXISTS (SELECT 1 FROM element l WHERE l.object = e.id)",
     0},
    /* the same shapes with a type-only clause, written first and last (RC11
    ** leaves the order of clauses free; the plan must not depend on it) */
    {"1-hop into a hub, type clause first",
     "FIND(?p.name) WHERE { ?p {type: \"Person\"} (?p, \"member_of\", {type: \"Org\", name: :a}) }",
     HUB_MEMBERS_SQL, 1},
    {"1-hop into a hub, type clause last",
     "FIND(?p.name) WHERE { (?p, \"member_of\", {type: \"Org\", name: :a}) ?p {type: \"Person\"} }",
     HUB_MEMBERS_SQL, 1},
    {"anchored 2-hop into a type, type first",
     "FIND(?p.name, ?p.attributes.rank) WHERE { ?p {type: \"Person\"} (?p, \"authored\", ?d) "
     "(?d, \"about\", ?x) ?x {type: \"Topic\", name: :a} FILTER(?p.attributes.rank < 30) } "
     "ORDER BY ?p.attributes.rank LIMIT 20",
     ANCHORED_2HOP_SQL, 1},
};
#define NQUERIES (int)(sizeof queries / sizeof *queries)

static void arguments_for(int q, int run, char *kip_arg, char *sql_arg, size_t n) {
  int64_t i;
  switch (q) {
    case 0: i = rand_below(types[PERSON].count); snprintf(kip_arg, n, "Person-%lld", (long long)i); break;
    case 1: case 2: case 5:
      i = run % (types[PERSON].count / 100); /* hubs */
      snprintf(kip_arg, n, "Person-%lld", (long long)i);
      break;
    case 4:
      i = types[TOPIC].count - 1 - run % 100; /* leaves */
      snprintf(kip_arg, n, "Topic-%lld", (long long)i);
      break;
    case 7: snprintf(kip_arg, n, "%s", words[run % 16]); break;
    case 8: case 13: /* topic hubs */
      i = run % (types[TOPIC].count / 100 > 0 ? types[TOPIC].count / 100 : 1);
      snprintf(kip_arg, n, "Topic-%lld", (long long)i);
      break;
    case 9: case 11: case 12: /* org hubs */
      i = run % (types[ORG].count / 100 > 0 ? types[ORG].count / 100 : 1);
      snprintf(kip_arg, n, "Org-%lld", (long long)i);
      break;
    default: kip_arg[0] = 0;
  }
  if (q == 7) snprintf(sql_arg, n, "\"%.100s\"*", kip_arg);
  else snprintf(sql_arg, n, "%s", kip_arg);
}

/* ------------------------------------------------------------ results */
#define NLOADS 7
static const char *load_labels[NLOADS] = {
    "bulk UPSERT, indexed per command",    "single-command UPSERT (1 tx each)",
    "single UPSERT concept + link (1 tx)", "many items in one command (items/s)",
    "bulk load, indexed once (import)",    "single UPSERT, index merged (sleep)",
    "concept + link, file in OS cache"};

typedef struct results {
  double load_kip[NLOADS], load_sql[NLOADS]; /* rates per second */
  double q_kip[NQUERIES], q_sql[NQUERIES];  /* median ms */
  double single[NLOADS][6]; /* single writes: KIP mean, median, p99, SQL mean, median, p99 (ms) */
  double q_kip_mean[NQUERIES], q_sql_mean[NQUERIES], q_kip_max[NQUERIES], q_sql_max[NQUERIES];
  /* with --scale: the base size's files stay open for single writes
  ** alternated between the sizes (alternate_sizes) */
  kip_nexus *nx, *rx;
  char kpath[512], rpath[512];
  int64_t projects, linked; /* links made by alternated rounds */
} results;

/* many items in one command: one UPSERT of `n` tasks each with a part_of
** link, in its own transaction; the same rows by hand in one transaction */
/* items in the one large command: what issue 37 measures (an agent's or an
** importer's command that is not kip import) */
#define MANY_ITEMS 10000

static void many_items(kip_nexus *nx, sqlite3 *rdb, int n, int round, double *kip_rate, double *sql_rate) {
  size_t cap = (size_t)n * 200 + 256;
  char *cmd = malloc(cap);
  size_t len = (size_t)snprintf(cmd, cap, "UPSERT {\n");
  int64_t projects = types[PROJECT].count;
  for (int i = 0; i < n; i++)
    len += (size_t)snprintf(cmd + len, cap - len,
                            "CONCEPT ?m%d { {type: \"Task\", name: \"Many-%d-%d\"} SET ATTRIBUTES { rank: %d } "
                            "SET PROPOSITIONS { (\"part_of\", {type: \"Project\", name: \"Project-%lld\"}) } }\n",
                            i, round, i, i % 100, (long long)(i % projects));
  snprintf(cmd + len, cap - len, "} WITH METADATA { source: \"bench\" }");
  double ms;
  { /* a command this large needs the call's byte limit raised (256 KiB by default) */
    json_t *env = json_pack("{s:s}", "command", cmd);
    char *req = json_dumps(env, JSON_COMPACT);
    json_decref(env);
    kip_call_options o = {0};
    o.max_command_bytes = (int64_t)strlen(cmd) + 1;
    double t0 = now_ms();
    char *res = kip_call_json(nx, req, strlen(req), &o);
    ms = now_ms() - t0;
    response_ok(res, "the many-items command");
    free(req);
  }
  *kip_rate = 2.0 * n / ms * 1e3;
  free(cmd);
  sqlite3_stmt *ins, *find, *link, *mark = raw_marker(rdb);
  sqlite3_prepare_v2(rdb,
                     "INSERT INTO element(type, name, attributes, metadata, version, updated_at) "
                     "VALUES('Task', ?1, ?2, '{\"source\":\"bench\"}', 1, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                     -1, &ins, NULL);
  sqlite3_prepare_v2(rdb, "SELECT id FROM element WHERE type = 'Project' AND name = ?1", -1, &find, NULL);
  sqlite3_prepare_v2(rdb,
                     "INSERT INTO element(subject, predicate, object, attributes, metadata, version, updated_at) "
                     "VALUES(?1, 'part_of', ?2, '{}', '{\"source\":\"bench\"}', 1, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                     -1, &link, NULL);
  double a = now_ms();
  raw_exec(rdb, "BEGIN IMMEDIATE");
  char name[64], attrs[64];
  for (int i = 0; i < n; i++) {
    snprintf(name, sizeof name, "Many-%d-%d", round, i);
    snprintf(attrs, sizeof attrs, "{\"rank\":%d}", i % 100);
    sqlite3_bind_text(ins, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(ins, 2, attrs, -1, SQLITE_TRANSIENT);
    sqlite3_step(ins);
    sqlite3_reset(ins);
    int64_t id = sqlite3_last_insert_rowid(rdb);
    raw_mark(mark, id);
    snprintf(name, sizeof name, "Project-%lld", (long long)(i % projects));
    sqlite3_bind_text(find, 1, name, -1, SQLITE_TRANSIENT);
    int64_t pid = sqlite3_step(find) == SQLITE_ROW ? sqlite3_column_int64(find, 0) : 0;
    sqlite3_reset(find);
    sqlite3_bind_int64(link, 1, id);
    sqlite3_bind_int64(link, 2, pid);
    sqlite3_step(link);
    sqlite3_reset(link);
    raw_mark_insert(mark, rdb);
  }
  raw_commit(rdb);
  *sql_rate = 2.0 * n / (now_ms() - a) * 1e3;
  sqlite3_finalize(ins);
  sqlite3_finalize(find);
  sqlite3_finalize(link);
  sqlite3_finalize(mark);
}

/* the kernel's page cache of files (MiB; -1 unknown): a page SQLite's own
** cache misses is a memory copy when the kernel holds it and a disk read
** when not (some virtual machines keep very little) */
static long long os_cached_mib(void) {
  FILE *f = fopen("/proc/meminfo", "r");
  char line[128];
  long long kb = -1;
  while (f && fgets(line, sizeof line, f))
    if (sscanf(line, "Cached: %lld kB", &kb) == 1) break;
  if (f) fclose(f);
  return kb < 0 ? -1 : kb / 1024;
}

/* Both files leave the kernel's page cache before a round of single writes
** (WAL checkpointed, file synced, POSIX_FADV_DONTNEED): what a page miss of
** SQLite's own cache costs must not depend on which file the run wrote
** last (the hand-written load runs after KIP's, and a kernel that keeps
** little would keep only its pages). Each side starts from its own page
** cache, warm from its load, and reads the rest from disk. With warm, both
** files are instead read whole into the kernel's cache (a memory much
** smaller than the machine's RAM, in a process that has run a while): a
** miss is then a copy from memory, never a disk read. */
static void settle_os_cache(sqlite3 *db, int warm) {
  sqlite3_wal_checkpoint_v2(db, NULL, SQLITE_CHECKPOINT_TRUNCATE, NULL, NULL);
  const char *path = sqlite3_db_filename(db, "main");
  int fd = path ? open(path, O_RDONLY) : -1;
  if (fd < 0) return;
  fsync(fd);
  if (warm) {
    static char buf[1 << 20];
    while (read(fd, buf, sizeof buf) > 0) {
    }
  } else {
    posix_fadvise(fd, 0, 0, POSIX_FADV_DONTNEED);
  }
  close(fd);
}

/* single-command upserts: one concept (and optionally one link) per
** request/transaction; the tag names the round's concepts (new names in
** each round). Write i links to project (first + i * stride) mod projects. */
typedef enum single_kind {
  ONE_CONCEPT,   /* a concept */
  LINK_UNCACHED, /* a concept and a link, both files dropped from the kernel's cache */
  LINK_CACHED    /* a concept and a link, both files read whole into it */
} single_kind;

typedef struct link_targets {
  int64_t projects, first, stride;
} link_targets;

/* the keyword SEARCH's median over the 16 words (each run once untimed
** first), as the index stands: segments as the writes left them, or merged */
static double search_median(kip_nexus *nx) {
  double t[16];
  for (int w = 0; w < 16; w++) {
    char req[160];
    snprintf(req, sizeof req, "{\"command\": \"SEARCH CONCEPT :a LIMIT 10\", \"parameters\": {\"a\": \"%s\"}}", words[w]);
    if (!kip_call_timed(nx, req, NULL) || !kip_call_timed(nx, req, &t[w])) return -1;
  }
  return median(t, 16);
}

/* the last round's KIP mean, median, p99 and SQL mean, median, p99 (ms) */
static double last_single[6];

static void single_upserts(kip_nexus *nx, sqlite3 *rdb, single_kind kind, int tag, link_targets to,
                           double *kip_rate, double *sql_rate) {
  int with_link = kind != ONE_CONCEPT;
  double *ks = malloc(sizeof(double) * (size_t)singles), *rs = malloc(sizeof(double) * (size_t)singles);
  sqlite3_stmt *up, *find, *link, *mark = raw_marker(rdb);
  sqlite3_prepare_v2(rdb,
                     "INSERT INTO element(type, name, attributes, metadata, version, updated_at) "
                     "VALUES('Task', ?1, ?2, '{\"source\":\"bench\"}', 1, strftime('%Y-%m-%dT%H:%M:%fZ')) "
                     "ON CONFLICT(type, name) WHERE type IS NOT NULL DO UPDATE SET attributes = "
                     "json_patch(attributes, excluded.attributes), version = version + 1 RETURNING id",
                     -1, &up, NULL);
  sqlite3_prepare_v2(rdb, "SELECT id FROM element WHERE type = 'Project' AND name = ?1", -1, &find, NULL);
  sqlite3_prepare_v2(rdb,
                     "INSERT OR IGNORE INTO element(subject, predicate, object, attributes, metadata, version, updated_at) "
                     "VALUES(?1, 'part_of', ?2, '{}', '{\"source\":\"bench\"}', 1, strftime('%Y-%m-%dT%H:%M:%fZ'))",
                     -1, &link, NULL);
  char cmd[512], name[64], pname[64];
  settle_os_cache(kip_store_db(nx), kind == LINK_CACHED);
  settle_os_cache(rdb, kind == LINK_CACHED);
  int kmiss0 = 0, rmiss0 = 0, hi, kmiss1, rmiss1;
  sqlite3_db_status(kip_store_db(nx), SQLITE_DBSTATUS_CACHE_MISS, &kmiss0, &hi, 0);
  sqlite3_db_status(rdb, SQLITE_DBSTATUS_CACHE_MISS, &rmiss0, &hi, 0);
  if (getenv("KIP_BENCH_TRACE")) trace_statements(kip_store_db(nx));
  for (int i = 0; i < singles; i++) {
    snprintf(name, sizeof name, "Single-%d-%d", tag, i);
    snprintf(pname, sizeof pname, "Project-%lld", (long long)((to.first + i * to.stride) % to.projects));
    if (with_link)
      snprintf(cmd, sizeof cmd,
               "UPSERT { CONCEPT ?t { {type: \"Task\", name: \"%s\"} SET ATTRIBUTES { rank: %d, status: \"new\" } "
               "SET PROPOSITIONS { (\"part_of\", {type: \"Project\", name: \"%s\"}) } } } WITH METADATA { source: \"bench\" }",
               name, i, pname);
    else
      snprintf(cmd, sizeof cmd,
               "UPSERT { CONCEPT ?t { {type: \"Task\", name: \"%s\"} SET ATTRIBUTES { rank: %d, status: \"new\" } } } "
               "WITH METADATA { source: \"bench\" }",
               name, i);
    kip_run(nx, cmd, &ks[i]);
    char attrs[64];
    snprintf(attrs, sizeof attrs, "{\"rank\":%d,\"status\":\"new\"}", i);
    double a = now_ms();
    raw_exec(rdb, "BEGIN IMMEDIATE");
    sqlite3_bind_text(up, 1, name, -1, SQLITE_TRANSIENT);
    sqlite3_bind_text(up, 2, attrs, -1, SQLITE_TRANSIENT);
    int64_t id = sqlite3_step(up) == SQLITE_ROW ? sqlite3_column_int64(up, 0) : 0;
    sqlite3_reset(up);
    raw_mark(mark, id);
    if (with_link) {
      sqlite3_bind_text(find, 1, pname, -1, SQLITE_TRANSIENT);
      int64_t pid = sqlite3_step(find) == SQLITE_ROW ? sqlite3_column_int64(find, 0) : 0;
      sqlite3_reset(find);
      sqlite3_bind_int64(link, 1, id);
      sqlite3_bind_int64(link, 2, pid);
      sqlite3_step(link);
      sqlite3_reset(link);
      raw_mark_insert(mark, rdb);
    }
    raw_commit(rdb);
    rs[i] = now_ms() - a;
  }
  if (getenv("KIP_BENCH_TRACE")) {
    sqlite3_trace_v2(kip_store_db(nx), 0, NULL, NULL);
    char what[64];
    snprintf(what, sizeof what, "single upserts round %d", tag);
    print_traced(what);
  }
  sqlite3_db_status(kip_store_db(nx), SQLITE_DBSTATUS_CACHE_MISS, &kmiss1, &hi, 0);
  sqlite3_db_status(rdb, SQLITE_DBSTATUS_CACHE_MISS, &rmiss1, &hi, 0);
  last_single[0] = mean(ks, singles);
  last_single[3] = mean(rs, singles);
  *kip_rate = 1e3 / median(ks, singles); /* sorts */
  *sql_rate = 1e3 / median(rs, singles);
  last_single[1] = 1e3 / *kip_rate;
  last_single[2] = ks[(int)(singles * 0.99)];
  last_single[4] = 1e3 / *sql_rate;
  last_single[5] = rs[(int)(singles * 0.99)];
  if (getenv("KIP_BENCH_SPLIT")) {
    double kmean = 0, rmean = 0;
    for (int i = 0; i < singles; i++) kmean += ks[i] / singles, rmean += rs[i] / singles;
    fprintf(stderr,
            "single upserts round %d: page-cache misses per write %.1f (SQL %.1f); the OS caches %lld MiB of files; "
            "mean %.3f ms (SQL %.3f) against the median's %.3f (SQL %.3f)\n",
            tag, (double)(kmiss1 - kmiss0) / singles, (double)(rmiss1 - rmiss0) / singles, os_cached_mib(), kmean,
            rmean, 1e3 / *kip_rate, 1e3 / *sql_rate);
  }
  sqlite3_finalize(up);
  sqlite3_finalize(find);
  sqlite3_finalize(link);
  sqlite3_finalize(mark);
  free(ks);
  free(rs);
}

/* remove a database file's -wal and -shm, and the file itself when asked */
static void remove_db(const char *path, int with_file) {
  char side[640];
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
  if (with_file) unlink(path);
}

/* close a size's two files (run_size with hold) and remove them */
static void close_size(results *R, int keep) {
  kip_close(R->nx);
  kip_close(R->rx);
  R->nx = R->rx = NULL;
  if (keep) fprintf(stderr, "kept: %s and the hand-written side's %s\n", R->kpath, R->rpath);
  remove_db(R->kpath, !keep);
  remove_db(R->rpath, !keep);
}

/* load and measure one graph size; hold: leave both files open in R (the
** caller closes them, close_size) */
static int run_size(int64_t nconcepts, int64_t nlinks, int runs, const char *dir, int keep, int hold, results *R) {
  char *kpath = R->kpath, *rpath = R->rpath;
  snprintf(kpath, sizeof R->kpath, "%s/kip-bench-%d-%lld.db", dir, (int)getpid(), (long long)nconcepts);
  snprintf(rpath, sizeof R->rpath, "%s/kip-bench-raw-%d-%lld.db", dir, (int)getpid(), (long long)nconcepts);
  int64_t ngen;
  edge *L = generate(nconcepts, nlinks, &ngen);
  fprintf(stderr, "graph: %lld concepts, %lld propositions (generated, seed fixed): loading...\n", (long long)nconcepts,
          (long long)ngen);
  kip_nexus *nx, *rx;
  kip_error err;
  if (kip_open(kpath, NULL, &nx, &err) || kip_open(rpath, NULL, &rx, &err)) {
    fprintf(stderr, "open: %s\n", err.message);
    return 0;
  }
  double total = (double)(nconcepts + ngen);
  /* the import path first, into a scratch file: UPSERT commands that defer
  ** the search index, then one indexing pass (kip import does this) */
  {
    char bpath[600];
    snprintf(bpath, sizeof bpath, "%s-bulk", kpath);
    kip_nexus *bx;
    kip_open_options bulk_open = {0};
    bulk_open.cache_mb = 256; /* what kip import opens with */
    if (kip_open(bpath, &bulk_open, &bx, &err)) return 0;
    kip_call_options defer;
    memset(&defer, 0, sizeof defer);
    defer.defer_index = 1;
    defer.max_command_bytes = 64 << 20;
    if (getenv("KIP_BENCH_TRACE")) trace_statements(kip_store_db(bx));
    double t0 = now_ms();
    load_options = &defer;
    int ok = kip_load(bx, nconcepts, L, ngen, IMPORT_BATCH);
    load_options = NULL;
    double t_written = now_ms();
    if (!ok || kip_sync_index(bx, 0, NULL, NULL, &err)) return 0;
    R->load_kip[4] = total / (now_ms() - t0) * 1e3;
    if (getenv("KIP_BENCH_SPLIT"))
      fprintf(stderr, "bulk load: %.0f ms writing, %.0f ms indexing\n", t_written - t0, now_ms() - t_written);
    if (getenv("KIP_BENCH_TRACE")) print_traced("import path");
    kip_close(bx);
    if (import_only && keep) fprintf(stderr, "kept: %s\n", bpath);
    else remove_db(bpath, 1);
    if (import_only) {
      kip_close(nx);
      kip_close(rx);
      remove_db(kpath, 1);
      remove_db(rpath, 1);
      free(L);
      return 1;
    }
  }
  double t0 = now_ms();
  if (!kip_load(nx, nconcepts, L, ngen, 240 * 1024)) return 0;
  double kip_load_ms = now_ms() - t0;
  t0 = now_ms();
  raw_load(kip_store_db(rx), nconcepts, L, ngen);
  double raw_load_ms = now_ms() - t0;
  R->load_kip[0] = total / kip_load_ms * 1e3;
  R->load_sql[0] = total / raw_load_ms * 1e3;
  R->load_sql[4] = R->load_sql[0];
  sqlite3 *rdb = kip_store_db(rx);
  /* both files start each round of writes from the same state: WAL
  ** checkpointed away, out of the kernel's cache or (the last round of
  ** links) wholly in it (settle_os_cache) */
  fprintf(stderr, "single upserts...\n");
  /* the links go to the first projects (hubs among them), the same in each round */
  R->projects = types[PROJECT].count;
  link_targets first = {R->projects, 0, 1};
  single_upserts(nx, rdb, ONE_CONCEPT, 0, first, &R->load_kip[1], &R->load_sql[1]);
  memcpy(R->single[1], last_single, sizeof last_single);
  single_upserts(nx, rdb, LINK_UNCACHED, 1, first, &R->load_kip[2], &R->load_sql[2]);
  memcpy(R->single[2], last_single, sizeof last_single);
  single_upserts(nx, rdb, LINK_CACHED, 3, first, &R->load_kip[6], &R->load_sql[6]);
  memcpy(R->single[6], last_single, sizeof last_single);
  double kr[3], sr[3];
  for (int r = 0; r < 3; r++) many_items(nx, rdb, MANY_ITEMS, r, &kr[r], &sr[r]);
  R->load_kip[3] = median(kr, 3);
  R->load_sql[3] = median(sr, 3);
  /* single writes again after what a sleep cycle does to the index (both
  ** files: the same FTS5 merge) */
  double unmerged = search_median(nx);
  kip_error merr;
  if (kip_merge_index(nx, &merr)) fprintf(stderr, "merge_index: %s\n", merr.message);
  raw_exec(rdb, "INSERT INTO search_word(search_word) VALUES('optimize');"
                "INSERT INTO search_trigram(search_trigram) VALUES('optimize')");
  fprintf(stderr, "keyword SEARCH top 10 (KIP, median of 16 words): %.3f ms with the segments the writes left, %.3f ms merged\n",
          unmerged, search_median(nx));
  single_upserts(nx, rdb, ONE_CONCEPT, 2, first, &R->load_kip[5], &R->load_sql[5]);
  memcpy(R->single[5], last_single, sizeof last_single);

  fprintf(stderr, "queries...\n");
  sqlite3 *db = kip_store_db(nx);
  double *kt = malloc(sizeof(double) * (size_t)runs), *st = malloc(sizeof(double) * (size_t)runs);
  for (int q = 0; q < NQUERIES; q++) {
    char karg[128], sarg[128];
    sqlite3_stmt *sq = raw_prepare(db, queries[q].sql);
    for (int r = -3; r < runs; r++) { /* 3 warm-up runs */
      arguments_for(q, r < 0 ? 0 : r, karg, sarg, sizeof karg);
      const char *p[1] = {sarg};
      /* the value as a parameter (":a"), as agents send it: the same text
      ** each run, like the hand-written SQL's prepared statement */
      json_t *env = queries[q].nparams ? json_pack("{s:s,s:{s:s}}", "command", queries[q].kip, "parameters", "a", karg)
                                       : json_pack("{s:s}", "command", queries[q].kip);
      char *req = json_dumps(env, JSON_COMPACT);
      json_decref(env);
      /* each side runs this argument once untimed right before its timed
      ** run (the pages it reads and its own code warm, as in a steady
      ** state), and which side goes first alternates from run to run: a
      ** side timed right after its own warm-up is not favoured by the order
      ** (before, only the SQL warmed up and the SQL was always timed right
      ** after KIP, which read the same pages — worth up to 2× on a hub's
      ** 1-hop, measured: docs/performance.md) */
      double k = 0, b, c = 0;
      for (int side = 0; side < 2; side++) {
        if ((side + r) % 2 == 0) {
          if (!kip_call_timed(nx, req, NULL) || !kip_call_timed(nx, req, &k)) {
            free(req);
            return 0;
          }
        } else {
          raw_run(sq, p, queries[q].nparams);
          b = now_ms();
          raw_run(sq, p, queries[q].nparams);
          c = now_ms() - b;
        }
      }
      free(req);
      if (r >= 0) {
        kt[r] = k;
        st[r] = c;
      }
    }
    sqlite3_finalize(sq);
    R->q_kip_mean[q] = mean(kt, runs);
    R->q_sql_mean[q] = mean(st, runs);
    R->q_kip[q] = median(kt, runs); /* sorts: the tail is the last */
    R->q_sql[q] = median(st, runs);
    R->q_kip_max[q] = kt[runs - 1];
    R->q_sql_max[q] = st[runs - 1];
  }
  free(kt);
  free(st);
  free(L);
  R->nx = nx;
  R->rx = rx;
  if (!hold) close_size(R, keep);
  return 1;
}

/* --scale: the three kinds of single writes once more, alternated between
** the two sizes (both sizes' files open side by side): run one after the
** other, the sizes are measured many minutes apart, and on a shared
** machine that drift is as large as the growth being measured. A first
** pass warms both sides' caches and is not counted; a rate is the median
** of ALTERNATIONS rounds' medians, a growth the median of the ALTERNATIONS
** ratios of a round at the larger size to the round at the base size
** before it (pairs a few seconds apart: what drifts between passes
** cancels). Each round links to projects no round of its size linked to
** before (while there are any), spread over all of them: a round that
** found its targets in SQLite's page cache would not measure reads of the
** file. */
#define SPREAD 7919 /* a prime: i * SPREAD mod projects visits every project */
#define ALTERNATIONS 5
static void alternate_sizes(results *A, results *B) {
  static const single_kind kinds[3] = {ONE_CONCEPT, LINK_UNCACHED, LINK_CACHED};
  static const char *labels[3] = {"single-command UPSERT (1 tx each)", "concept + link, file not cached",
                                  "concept + link, file in OS cache"};
  double rate[2][3][2][ALTERNATIONS]; /* size, kind, KIP / SQL, round */
  fprintf(stderr, "single writes, the two sizes alternated...\n");
  for (int r = -1; r < ALTERNATIONS; r++)
    for (int z = 0; z < 2; z++) {
      results *R = z ? B : A;
      for (int k = 0; k < 3; k++) {
        double kr, sr;
        link_targets to = {R->projects, R->linked * SPREAD % R->projects, SPREAD};
        if (kinds[k] != ONE_CONCEPT) R->linked += singles;
        single_upserts(R->nx, kip_store_db(R->rx), kinds[k], 100 + 10 * (r + 1) + k, to, &kr, &sr);
        if (r < 0) continue;
        rate[z][k][0][r] = kr;
        rate[z][k][1][r] = sr;
      }
    }
  printf("\nsingle writes, the sizes alternated (median of %d rounds of %d)\n", ALTERNATIONS, singles);
  printf("%-36s %10s %10s %6s | %10s %10s %6s | %8s %8s\n", "load (rate)", "KIP", "SQL", "ratio", "KIP x", "SQL x",
         "ratio", "grow KIP", "grow SQL");
  for (int k = 0; k < 3; k++) {
    double m[2][2], grow[2], pair[ALTERNATIONS];
    for (int side = 0; side < 2; side++) {
      for (int r = 0; r < ALTERNATIONS; r++) pair[r] = rate[0][k][side][r] / rate[1][k][side][r];
      grow[side] = median(pair, ALTERNATIONS);
      for (int z = 0; z < 2; z++) m[z][side] = median(rate[z][k][side], ALTERNATIONS); /* sorts: after the pairs */
    }
    printf("%-36s %8.0f/s %8.0f/s %6.2f | %8.0f/s %8.0f/s %6.2f | %8.2f %8.2f\n", labels[k], m[0][0], m[0][1],
           m[0][1] / m[0][0], m[1][0], m[1][1], m[1][1] / m[1][0], grow[0], grow[1]);
  }
  printf("(a rate: the median of the rounds' medians; grow: the median of the ratios of a round at the\n"
         " larger size to the round at the base size before it)\n");
}

int main(int argc, char **argv) {
  int64_t nconcepts = 100000, nlinks = 500000;
  int runs = 21, scale = 0;
  const char *dir = "/tmp";
  int keep = 0;
  for (int i = 1; i < argc; i++) {
    if (!strcmp(argv[i], "--concepts") && i + 1 < argc) nconcepts = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--links") && i + 1 < argc) nlinks = atoll(argv[++i]);
    else if (!strcmp(argv[i], "--runs") && i + 1 < argc) runs = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--scale") && i + 1 < argc) scale = atoi(argv[++i]);
    else if (!strcmp(argv[i], "--dir") && i + 1 < argc) dir = argv[++i];
    else if (!strcmp(argv[i], "--keep")) keep = 1;
    else if (!strcmp(argv[i], "--import-only")) import_only = 1;
    else if (!strcmp(argv[i], "--singles") && i + 1 < argc && atoi(argv[i + 1]) > 0) singles = atoi(argv[++i]);
    else {
      printf("usage: bench_kql [--concepts N] [--links M] [--scale K] [--runs R] [--singles S] [--dir TMPDIR] [--keep]\n"
             "                 [--import-only]\n"
             "  --runs R     samples per query median (default 21)\n"
             "  --singles S  writes per round of single writes (default 500)\n"
             "  --scale K    also run at K times the size and print the growth between the sizes;\n"
             "               single writes are then measured once more with the two sizes alternated\n"
             "  --keep       keep the database files (KIP-loaded and hand-written) and print their paths\n"
             "  --import-only  time only the import path (stderr), e.g. to profile it; with --keep\n"
             "                 its file is kept\n"
             "environment: KIP_BENCH_SPLIT=1 prints where loads spend their time (writing / indexing,\n"
             "  page-cache misses and mean time of single writes, and how much the OS caches);\n"
             "  KIP_BENCH_TRACE=1 the SQL statements of the import path and of each round of single\n"
             "  writes by total time (the tracing itself slows them)\n");
      return strcmp(argv[i], "--help") ? 2 : 0;
    }
  }
  if (runs < 3) runs = 3;
  results A = {0}, B = {0};
  int two = scale > 1 && !import_only;
  if (!run_size(nconcepts, nlinks, runs, dir, keep, two, &A)) return 1;
  if (import_only) {
    fprintf(stderr, "import path: %.0f elements/s\n", A.load_kip[4]);
    return 0;
  }
  if (two) {
    for (int t = 0; t < NTYPES; t++) types[t].count = types[t].first = 0;
    rng = BENCH_SEED;
    if (!run_size(nconcepts * scale, nlinks * scale, runs, dir, keep, 1, &B)) return 1;
  }
  printf("graph: %lld concepts, %lld propositions", (long long)nconcepts, (long long)nlinks);
  if (two) printf("; and x%d: %lld / %lld", scale, (long long)(nconcepts * scale), (long long)(nlinks * scale));
  printf("\n\n%-36s %10s %10s %6s", "load (rate)", "KIP", "SQL", "ratio");
  if (two) printf(" | %10s %10s %6s | %8s %8s", "KIP x", "SQL x", "ratio", "grow KIP", "grow SQL");
  printf("\n");
  for (int l = 0; l < NLOADS; l++) {
    printf("%-36s %8.0f/s %8.0f/s %6.2f", load_labels[l], A.load_kip[l], A.load_sql[l], A.load_sql[l] / A.load_kip[l]);
    if (two)
      printf(" | %8.0f/s %8.0f/s %6.2f | %8.2f %8.2f", B.load_kip[l], B.load_sql[l], B.load_sql[l] / B.load_kip[l],
             A.load_kip[l] / B.load_kip[l], A.load_sql[l] / B.load_sql[l]);
    printf("\n");
  }
  printf("\n%-36s %8s %8s %8s %8s %8s %8s", "single writes (ms, right after the load)", "KIP mean", "median", "p99",
         "SQL mean", "median", "p99");
  if (two) printf(" | %8s %8s %8s %8s %8s %8s", "KIP mean", "median", "p99", "SQL mean", "median", "p99");
  printf("\n");
  for (int l = 1; l < NLOADS; l++) {
    if (l == 3 || l == 4) continue; /* not single writes */
    printf("%-41s", load_labels[l]);
    for (int k = 0; k < 6; k++) printf(" %8.3f", A.single[l][k]);
    if (two) {
      printf(" |");
      for (int k = 0; k < 6; k++) printf(" %8.3f", B.single[l][k]);
    }
    printf("\n");
  }
  printf("\n%-36s %10s %10s %6s", "query (median)", "KIP ms", "SQL ms", "ratio");
  if (two) printf(" | %10s %10s %6s | %8s %8s", "KIP ms x", "SQL ms x", "ratio", "grow KIP", "grow SQL");
  printf("\n");
  for (int q = 0; q < NQUERIES; q++) {
    printf("%-36s %10.3f %10.3f %6.2f", queries[q].label, A.q_kip[q], A.q_sql[q], A.q_kip[q] / A.q_sql[q]);
    if (two)
      printf(" | %10.3f %10.3f %6.2f | %8.2f %8.2f", B.q_kip[q], B.q_sql[q], B.q_kip[q] / B.q_sql[q],
             B.q_kip[q] / A.q_kip[q], B.q_sql[q] / A.q_sql[q]);
    printf("\n");
  }
  printf("\n%-36s %10s %10s %10s %10s", "query (mean, slowest run)", "KIP mean", "KIP max", "SQL mean", "SQL max");
  if (two) printf(" | %10s %10s %10s %10s", "KIP mean x", "KIP max x", "SQL mean x", "SQL max x");
  printf("\n");
  for (int q = 0; q < NQUERIES; q++) {
    printf("%-36s %10.3f %10.3f %10.3f %10.3f", queries[q].label, A.q_kip_mean[q], A.q_kip_max[q], A.q_sql_mean[q],
           A.q_sql_max[q]);
    if (two) printf(" | %10.3f %10.3f %10.3f %10.3f", B.q_kip_mean[q], B.q_kip_max[q], B.q_sql_mean[q], B.q_sql_max[q]);
    printf("\n");
  }
  if (two) {
    alternate_sizes(&A, &B);
    close_size(&A, keep);
    close_size(&B, keep);
  }
  printf("\nratio = KIP time / SQL time (for rates: SQL rate / KIP rate): below 1, KIP is faster.\n");
  if (two) printf("grow = time (or 1/rate) at x%d divided by the base size's.\n", scale);
  return 0;
}
