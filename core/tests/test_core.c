/*
** test_core.c — C unit tests of libkipcore: lexer, parser (positions, error
** codes, placeholders, limits), request envelope, store, UPSERT, the
** unconstrained-exploration guard, row caps and query plans.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

#include <sqlite3.h>

#include "ast.h"
#include "lexer.h"
#include "store.h"
#include "store_pg.h"

static int passed, failed;
#define CHECK(cond, ...)                                   \
  do {                                                     \
    if (cond) passed++;                                    \
    else {                                                 \
      failed++;                                            \
      printf("FAIL %s:%d: ", __FILE__, __LINE__);          \
      printf(__VA_ARGS__);                                 \
      printf("\n");                                        \
    }                                                      \
  } while (0)

static int parse_code(const char *text, const char *params, int *line, int *col) {
  kip_arena a;
  kip_arena_init(&a);
  kip_error e;
  json_t *p = params ? json_loads(params, 0, NULL) : NULL;
  ast_command *c = kip_parse(&a, text, strlen(text), p, &e);
  int code = c ? 0 : e.code;
  if (line) *line = e.line;
  if (col) *col = e.column;
  json_decref(p);
  kip_arena_free(&a);
  return code;
}

static void test_lexer(void) {
  kip_arena a;
  kip_arena_init(&a);
  kip_error e;
  size_t n;
  const char *src = "FIND(?x) // c\n\"a\\u00e9\\ud83d\\ude00\" -12 3.5e2 9223372036854775807 2fa";
  kip_tok *t = kip_lex(&a, src, strlen(src), &n, &e);
  CHECK(t != NULL, "lex failed: %s", e.message);
  if (t) {
    CHECK(t[0].kind == T_IDENT && !strcmp(t[0].str, "FIND"), "FIND ident");
    CHECK(t[2].kind == T_VAR && !strcmp(t[2].str, "x"), "variable");
    CHECK(t[4].kind == T_STRING && !strcmp(t[4].str, "a\xc3\xa9\xf0\x9f\x98\x80"), "unicode escapes");
    CHECK(t[4].pos.line == 2 && t[4].pos.col == 1, "position %d:%d", t[4].pos.line, t[4].pos.col);
    CHECK(t[5].kind == T_INT && t[5].ival == -12, "negative int");
    CHECK(t[6].kind == T_REAL && t[6].rval == 350.0, "real");
    CHECK(t[7].kind == T_INT && t[7].ival == INT64_MAX, "int64 max exact");
    CHECK(t[8].kind == T_BADIDENT, "digit identifier");
  }
  CHECK(kip_lex(&a, "\"open", 5, &n, &e) == NULL && e.code == KIP_E_SYNTAX, "unterminated string");
  CHECK(kip_lex(&a, "99999999999999999999", 20, &n, &e) == NULL && e.code == KIP_E_SYNTAX, "int overflow");
  kip_arena_free(&a);
  /* an arena reset between commands (a bulk load's, request.c) keeps its
  ** token array and chunks; a second text lexed before the reset gets an
  ** array of its own, and the first one's tokens stay intact */
  kip_arena_init(&a);
  const char *one = "FIND(?a) WHERE { ?a {type: \"T\"} }", *two = "UPSERT { CONCEPT ?b { {type: \"T\", name: \"b\"} } }";
  kip_tok *t1 = kip_lex(&a, one, strlen(one), &n, &e);
  kip_tok *t2 = kip_lex(&a, two, strlen(two), &n, &e);
  CHECK(t1 && t2 && t1 != t2 && !strcmp(t1[2].str, "a") && !strcmp(t2[3].str, "b"), "two texts, two token arrays");
  kip_arena_reset(&a);
  CHECK(a.spare != NULL && a.head == NULL && a.nblocks == 0, "the reset kept the chunks, freed the second array");
  kip_tok *t3 = kip_lex(&a, two, strlen(two), &n, &e);
  CHECK(t3 == t1 && !strcmp(t3[3].str, "b"), "the next text reuses the kept array");
  CHECK(kip_lex(&a, "\"open", 5, &n, &e) == NULL, "an error in a second text");
  kip_arena_reset(&a);
  CHECK(kip_lex(&a, "\"open", 5, &n, &e) == NULL && a.tokens == NULL, "an error drops the kept array");
  CHECK(kip_lex(&a, one, strlen(one), &n, &e) != NULL, "and the next text gets a new one");
  kip_arena_free(&a);
}

static void test_parser(void) {
  int line, col;
  CHECK(parse_code("FIND(?e.name) WHERE { ?e {type: \"E\"} }", NULL, 0, 0) == 0, "simple find");
  CHECK(parse_code("FIND(?e.name WHERE { ?e {type: \"E\"} }", NULL, &line, &col) == KIP_E_SYNTAX && line == 1 &&
            col == 14, "missing paren at 1:14, got %d:%d", line, col);
  CHECK(parse_code("FIDN(?e) WHERE {}", NULL, 0, 0) == KIP_E_SYNTAX, "misspelled keyword");
  CHECK(parse_code("FIND(?1e) WHERE { }", NULL, 0, 0) == KIP_E_IDENTIFIER, "digit variable");
  CHECK(parse_code("UPSERT { CONCEPT ?g { {type: \"E\", name: \"G\"} SET ATTRIBUTES { 2fa: true } } }", NULL, 0, 0) ==
            KIP_E_IDENTIFIER, "digit key");
  CHECK(parse_code("FIND(?e) WHERE { ?e {name: :n} }", "{\"n\": \"x\"}", 0, 0) == 0, "placeholder");
  CHECK(parse_code("FIND(?e) WHERE { ?e {name: :n} }", NULL, 0, 0) == KIP_E_REFERENCE, "missing placeholder");
  CHECK(parse_code("FIND(?e) WHERE { ?e {name: \":n\"} }", NULL, 0, 0) == 0, "placeholder inside string is literal");
  CHECK(parse_code("FIND(?o) WHERE { (?a, ?p{1,3}, ?o) }", NULL, 0, 0) == KIP_E_SYNTAX, "pred var with hops");
  CHECK(parse_code("DELETE CONCEPT ?s WHERE { ?s {type: \"S\"} }", NULL, 0, 0) == KIP_E_SYNTAX, "DETACH mandatory");
  CHECK(parse_code("UPSERT { CONCEPT ?s { {type: \"S\", name: \"x\"} SET ATTRIBUTES { t: ADD(1, 2) } } }", NULL, 0, 0) ==
            KIP_E_SYNTAX, "update expr in UPSERT");
  CHECK(parse_code("UPDATE ?e SET ATTRIBUTES { l: ADD(?s.attributes.t, 1) } WHERE { ?e {type: \"E\"} }", NULL, 0, 0) ==
            KIP_E_REFERENCE, "update operand on another variable");
  CHECK(parse_code("UPSERT { CONCEPT ?a { {type: \"A\", name: \"1\"} } } UPSERT { CONCEPT ?a { {type: \"A\", name: \"2\"} } }",
                   NULL, 0, 0) == 0, "several UPSERT statements");
  CHECK(parse_code("FIND(?a) WHERE { ?a {type: \"A\"} } FIND(?b) WHERE { ?b {type: \"B\"} }", NULL, 0, 0) ==
            KIP_E_SYNTAX, "two FINDs in one command");
  CHECK(parse_code("SEARCH CONCEPT :t WITH TYPE :ty MODE :m THRESHOLD :th LIMIT :l",
                   "{\"t\":\"x\",\"ty\":\"T\",\"m\":\"hybrid\",\"th\":0.5,\"l\":3}", 0, 0) == 0, "search placeholders");
  CHECK(parse_code("", NULL, 0, 0) == KIP_E_SYNTAX, "empty command");
  /* nesting limit */
  char deep[2000];
  strcpy(deep, "FIND(?a) WHERE { ");
  for (int i = 0; i < 70; i++) strcat(deep, "OPTIONAL { ");
  strcat(deep, "?a {type: \"A\"}");
  for (int i = 0; i < 70; i++) strcat(deep, " }");
  strcat(deep, " }");
  CHECK(parse_code(deep, NULL, 0, 0) == KIP_E_RESOURCE, "nesting limit");
}

static char *call(kip_nexus *nx, const char *req, int readonly) {
  kip_call_options o = {0};
  o.readonly = readonly;
  return kip_call_json(nx, req, strlen(req), &o);
}

/* call and check that the response contains `needle` (or equals it with exact) */
#define EXPECT(nx, req, ro, needle) expect_at(__LINE__, nx, req, ro, needle, 0)
#define EXPECT_EXACT(nx, req, ro, needle) expect_at(__LINE__, nx, req, ro, needle, 1)
static void expect_at(int line, kip_nexus *nx, const char *req, int ro, const char *needle, int exact) {
  char *r = call(nx, req, ro);
  int ok = r && (exact ? !strcmp(r, needle) : strstr(r, needle) != NULL);
  if (ok) passed++;
  else {
    failed++;
    printf("FAIL %s:%d: expected %s[%s] in %s\n", __FILE__, line, exact ? "exactly " : "", needle, r ? r : "(null)");
  }
  free(r);
}

/* a read-only SEARCH CONCEPT "text" LIMIT 3 whose response contains `needle` */
#define EXPECT_SEARCH(nx, text, needle) expect_search_at(__LINE__, nx, text, needle)
static void expect_search_at(int line, kip_nexus *nx, const char *text, const char *needle) {
  char req[300];
  snprintf(req, sizeof req, "{\"command\":\"SEARCH CONCEPT \\\"%s\\\" LIMIT 3\"}", text);
  expect_at(line, nx, req, 1, needle, 0);
}

static void remove_db(const char *path) {
  char side[600];
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
  unlink(path);
}

/* a fresh path for a nexus file (the file itself does not exist yet) */
static void temp_path(char *path) {
  int fd = mkstemp(path);
  if (fd >= 0) close(fd);
  unlink(path);
}

/* a fresh in-memory nexus, or NULL */
static kip_nexus *open_memory(void) {
  kip_nexus *nx;
  kip_error e;
  int rc = kip_open(":memory:", NULL, &nx, &e);
  CHECK(rc == 0, "open: %s", e.message);
  return rc ? NULL : nx;
}

/* a fresh nexus at a new temporary path (path is filled in), or NULL */
static kip_nexus *open_temp(char *path) {
  temp_path(path);
  kip_nexus *nx;
  kip_error e;
  int rc = kip_open(path, NULL, &nx, &e);
  CHECK(rc == 0, "open: %s", e.message);
  return rc ? NULL : nx;
}

static void test_nexus(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  temp_path(path);
  kip_nexus *nx;
  kip_error e;
  int rc = kip_open(path, NULL, &nx, &e);
  CHECK(rc == 0, "open: %s", e.message);
  if (rc) return;
  EXPECT_EXACT(nx, "{\"command\":\"FIND(?d.name) WHERE { ?d {type: \\\"Domain\\\", name: \\\"CoreSchema\\\"} }\"}", 0,
               "{\"result\":[\"CoreSchema\"]}");
  EXPECT(nx, "{\"command\":\"x\",\"commands\":[]}", 0, "KIP_1001");
  EXPECT(nx, "{\"command\":\"DESCRIBE PRIMER\",\"bogus\":1}", 0, "unknown field");
  char *r = call(nx, "{\"commands\":[\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"A\\\"} } }\","
                     "\"UPSERT { CONCEPT ?p { {type: \\\"Robot\\\", name: \\\"B\\\"} } }\",\"FIND(?p) WHERE {}\"]}", 0);
  CHECK(strstr(r, "\"upsert_concept_nodes\":[\"C:") && strstr(r, "KIP_2001") && !strstr(r, "FIND"),
        "batch stop on KML error: %s", r);
  free(r);
  EXPECT(nx, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"A\\\"} EXPECT VERSION 5 } }\"}", 0,
         "KIP_3005");
  EXPECT(nx, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"C\\\"} } }\",\"dry_run\":true}", 0,
         "\"upsert_concept_nodes\":[]");
  EXPECT_EXACT(nx, "{\"command\":\"FIND(?p) WHERE { ?p {type: \\\"Person\\\", name: \\\"C\\\"} }\"}", 0,
               "{\"result\":[],\"warnings\":[\"anchor {type: \\\"Person\\\", name: \\\"C\\\"} does not exist\"]}");
  EXPECT(nx, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"C\\\"} } }\"}", 1, "KIP_4004");
  /* a NOT inside a NOT whose frame binds nothing (fuzz_exec: UBSan on a
     zero offset from the empty frame's null variable list) */
  EXPECT(nx, "{\"command\":\"FIND(?e.name) WHERE { ?e {type: \\\"Person\\\"} NOT { ?k {type: \\\"Person\\\", "
             "name: \\\"A\\\"} ?e {type: \\\"Person\\\"} NOT { ?k {type: \\\"Person\\\", name: \\\"A\\\"} } } }\"}",
         1, "\"result\"");
  kip_close(nx);
  /* reopen: hashes recorded, nothing re-applied, data kept */
  rc = kip_open(path, NULL, &nx, &e);
  CHECK(rc == 0, "reopen: %s", e.message);
  if (!rc) {
    EXPECT_EXACT(nx, "{\"command\":\"FIND(COUNT(?p)) WHERE { ?p {type: \\\"Person\\\", name: \\\"A\\\"} }\"}", 0,
                 "{\"result\":1}");
    CHECK(kip_store_count(nx, "PRAGMA cache_size") == -32 * 1024, "default page cache: 32 MiB");
    kip_close(nx);
  }
  /* the page cache asked for, and a limit on it */
  kip_open_options o = {0};
  int64_t want[][2] = {{256, -256 * 1024}, {1 << 30, -65536LL * 1024}};
  for (int i = 0; i < 2; i++) {
    o.cache_mb = (int)want[i][0];
    if (kip_open(path, &o, &nx, &e) == 0) {
      int64_t got = kip_store_count(nx, "PRAGMA cache_size");
      CHECK(got == want[i][1], "cache_mb %lld: cache_size %lld", (long long)want[i][0], (long long)got);
      kip_close(nx);
    } else CHECK(0, "open with cache_mb: %s", e.message);
  }
  remove_db(path);
}

/* the unconstrained-exploration guard (RC11 §3.4.2) and row budgets */
static void test_limits(void) {
  kip_nexus *nx = open_memory();
  if (!nx) return;
  /* a chain of 10002 people: 10001 "prefers" links, written with plain SQL */
  int rc = sqlite3_exec(kip_store_db(nx),
                        "INSERT INTO element(type, name, updated_at) "
                        "  WITH RECURSIVE n(i) AS (VALUES(1) UNION ALL SELECT i + 1 FROM n WHERE i < 10002) "
                        "  SELECT 'Person', 'p' || i, '' FROM n;"
                        "INSERT INTO element(subject, predicate, object, updated_at) "
                        "  SELECT a.id, 'prefers', b.id, '' FROM element a JOIN element b ON b.name = 'p' || "
                        "  (CAST(substr(a.name, 2) AS INTEGER) + 1) WHERE a.type = 'Person' AND a.name LIKE 'p%';",
                        NULL, NULL, NULL);
  CHECK(rc == SQLITE_OK, "fixture: %s", sqlite3_errmsg(kip_store_db(nx)));
  EXPECT(nx, "{\"command\":\"FIND(?s, ?o)\\nWHERE { (?s, ?p, ?o) }\"}", 0,
         "\"code\":\"KIP_4002\"");
  EXPECT(nx, "{\"command\":\"FIND(?s, ?o)\\nWHERE { (?s, ?p, ?o) }\"}", 0, "\"line\":2,\"column\":9");
  EXPECT(nx, "{\"command\":\"FIND(?s.name) WHERE { (?s, ?p, ?o) } LIMIT 2\"}", 0, "\"next_cursor\"");
  EXPECT(nx, "{\"command\":\"FIND(?o.name) WHERE { ?s {type: \\\"Person\\\", name: \\\"p7\\\"} (?s, ?p, ?o) }\"}",
         0, "[\"p8\"]");
  EXPECT(nx, "{\"command\":\"FIND(COUNT(?l)) WHERE { ?l (?s, ?p, ?o) }\"}", 0, "{\"result\":100"); 
  /* a materialization cap smaller than the result */
  kip_call_options o = {.max_rows = 100};
  const char *q = "{\"command\":\"FIND(?p.name) WHERE { ?p {type: \\\"Person\\\"} }\"}";
  char *r = kip_call_json(nx, q, strlen(q), &o);
  CHECK(strstr(r, "KIP_4002") != NULL, "row cap: %s", r);
  free(r);
  kip_close(nx);
}

/* the first step of the plan of `kql` starts at its anchor ({type, name})
** and no step starts at every element of a type or scans */
static int plan_starts_at_anchor(kip_nexus *nx, const char *kql, char **plan) {
  *plan = kip_explain_json(nx, kql, strlen(kql), NULL);
  const char *r = *plan, *first = r ? strstr(r, "\"detail\":\"SEARCH t") : NULL;
  const char *via = first ? strstr(first, " USING ") : NULL;
  return via && (!strncmp(via, " USING COVERING INDEX element_concept (type=? AND name=?)", 57) ||
                 !strncmp(via, " USING INDEX element_concept (type=? AND name=?)", 48)) &&
         !strstr(r, "element_concept (type=?)\"") && !strstr(r, "SCAN t") && !strstr(r, "SCAN element");
}

/* RC11 leaves the order of a pattern's clauses free: each anchored shape of
** scripts/bench/kql with more than one clause, in every order of them,
** starts at the anchor under statistics that make the type look selective
** and the edges wide (issue 37: written type-first, the plan started at
** every element of the type) */
static void plans_in_every_order(kip_nexus *nx) {
  static const struct {
    const char *clauses[4];
    const char *tail; /* after the clauses, inside the braces */
  } shapes[] = {
      {{"?d {type: \"Person\"}", "(?d, \"prefers\", {type: \"Person\", name: \"x\"})"}, ""},
      {{"?o {type: \"Person\", name: \"x\"}", "(?p, \"prefers\", ?o)", "?p {type: \"Person\"}"}, ""},
      {{"?s {type: \"Person\", name: \"x\"}", "(?s, \"prefers\", ?o)", "?o {type: \"Person\"}"}, ""},
      {{"?s {type: \"Person\", name: \"x\"}", "(?s, ?p, ?o)", "?o {type: \"Person\"}"}, ""},
      {{"?t {type: \"Person\", name: \"x\"}", "(?t, \"prefers\"{1,3}, ?a)", "?a {type: \"Person\"}"}, ""},
      {{"?x {type: \"Person\", name: \"x\"}", "(?d, \"prefers\", ?x)", "(?p, \"prefers\", ?d)",
        "?p {type: \"Person\"}"},
       " FILTER(?p.attributes.rank < 30)"},
      {{"?p {type: \"Person\", name: \"x\"}", "(?p, \"prefers\", ?d)", "(?d, \"prefers\", ?t)"},
       " FILTER(?d.attributes.rank > 50)"},
  };
  static const int perms4[24][4] = {
      {0, 1, 2, 3}, {0, 1, 3, 2}, {0, 2, 1, 3}, {0, 2, 3, 1}, {0, 3, 1, 2}, {0, 3, 2, 1}, {1, 0, 2, 3}, {1, 0, 3, 2},
      {1, 2, 0, 3}, {1, 2, 3, 0}, {1, 3, 0, 2}, {1, 3, 2, 0}, {2, 0, 1, 3}, {2, 0, 3, 1}, {2, 1, 0, 3}, {2, 1, 3, 0},
      {2, 3, 0, 1}, {2, 3, 1, 0}, {3, 0, 1, 2}, {3, 0, 2, 1}, {3, 1, 0, 2}, {3, 1, 2, 0}, {3, 2, 0, 1}, {3, 2, 1, 0}};
  int tried = 0;
  for (size_t i = 0; i < sizeof shapes / sizeof *shapes; i++) {
    int n = 0;
    while (n < 4 && shapes[i].clauses[n]) n++;
    for (int k = 0; k < 24; k++) {
      int seen = 0, ok = 1;
      for (int j = 0; j < 4; j++) {
        ok &= j < n ? perms4[k][j] < n : j == n || perms4[k][j] > perms4[k][j - 1]; /* once per order of n */
        if (j < n) seen |= 1 << perms4[k][j];
      }
      if (!ok || seen != (1 << n) - 1) continue; /* a permutation of n clauses */
      kip_buf q;
      kip_buf_init(&q);
      kip_buf_adds(&q, "FIND(COUNT(?");
      kip_buf_adds(&q, i == 0 || i == 6 ? "d" : i == 1 || i == 5 ? "p" : i == 4 ? "a" : "o");
      kip_buf_adds(&q, ")) WHERE {");
      for (int j = 0; j < n; j++) kip_buf_printf(&q, " %s", shapes[i].clauses[perms4[k][j]]);
      kip_buf_printf(&q, "%s }", shapes[i].tail);
      char *plan = NULL;
      CHECK(plan_starts_at_anchor(nx, q.p, &plan), "clause order: %s starts elsewhere: %s", q.p,
            plan ? plan : "(null)");
      free(plan);
      kip_buf_free(&q);
      tried++;
    }
  }
  CHECK(tried == 2 + 5 * 6 + 24, "clause orders tried: %d", tried);
}

/* the compiler's SQL must use the store's indexes for the core access paths */
static void test_plans(void) {
  kip_nexus *nx = open_memory();
  if (!nx) return;
  static const struct {
    const char *kql, *plan;
  } cases[] = {
      {"FIND(?p) WHERE { ?p {type: \"Person\", name: \"x\"} }", "USING INDEX element_concept (type=? AND name=?)"},
      {"FIND(?p) WHERE { ?p {name: \"x\"} }", "USING INDEX element_name (name=?)"},
      {"FIND(?o) WHERE { ?s {type: \"Person\", name: \"x\"} (?s, \"prefers\", ?o) }",
       "INDEX element_pred (predicate=? AND subject=?)"},
      {"FIND(?s) WHERE { ?o {type: \"Person\", name: \"x\"} (?s, \"prefers\", ?o) }", "element_ops (object=? AND predicate=?)"},
      {"FIND(?p, ?o) WHERE { ?s {type: \"Person\", name: \"x\"} (?s, ?p, ?o) }", "element_spo (subject=?"},
      /* a range of names (either side, either bound) reads only those names */
      {"FIND(?p) WHERE { ?p {type: \"Person\"} FILTER(?p.name >= \"a-\" && ?p.name < \"a.\") }",
       "USING INDEX element_concept (type=? AND name>? AND name<?)"},
      {"FIND(?p) WHERE { ?p {type: \"Person\"} FILTER(\"b\" < ?p.name && \"c\" >= ?p.name) }",
       "USING INDEX element_concept (type=? AND name>? AND name<?)"},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *r = kip_explain_json(nx, cases[i].kql, strlen(cases[i].kql), NULL);
    CHECK(r && strstr(r, cases[i].plan) && !strstr(r, "SCAN element"), "plan of %s: expected [%s] in %s", cases[i].kql,
          cases[i].plan, r ? r : "(null)");
    free(r);
  }
  kip_close(nx);
  /* an anchored 2-hop ending in a type-only clause walks the edges from the
  ** anchor even when the statistics make the type look selective and the
  ** edge look wide (the trap of issue 12: the plan used to start at every
  ** element of the type) */
  char path[] = "/tmp/kip_plan_XXXXXX";
  nx = open_temp(path);
  if (!nx) return;
  kip_close(nx);
  sqlite3 *db;
  char *er = NULL;
  if (sqlite3_open(path, &db) == SQLITE_OK)
    sqlite3_exec(db,
                 "ANALYZE; DELETE FROM sqlite_stat1; INSERT INTO sqlite_stat1 VALUES"
                 "('element','element_concept','600000 334 1'),('element','element_ops','500000 5000 1000 1'),"
                 "('element','element_pred','500000 50000 5 1'),('element','element_spo','500000 5 2 1')",
                 NULL, NULL, &er);
  CHECK(er == NULL, "fake statistics: %s", er ? er : "");
  sqlite3_free(er);
  sqlite3_close(db);
  kip_error e;
  if (kip_open(path, NULL, &nx, &e)) {
    CHECK(0, "reopen: %s", e.message);
    return;
  }
  const char *anchored = "FIND(?d.name) WHERE { ?x {type: \"Person\", name: \"x\"} (?x, \"prefers\", ?s) "
                         "(?d, \"prefers\", ?s) ?d {type: \"Person\"} FILTER(?d.attributes.risk < 3) } "
                         "ORDER BY ?d.name LIMIT 20";
  char *r = kip_explain_json(nx, anchored, strlen(anchored), NULL);
  const char *first = r ? strstr(r, "\"detail\":\"") : NULL;
  const char *anchor_first = "\"detail\":\"SEARCH t1 USING COVERING INDEX element_concept (type=? AND name=?)";
  CHECK(first && !strncmp(first, anchor_first, strlen(anchor_first)) &&
            !strstr(r, "element_concept (type=?)\"") && !strstr(r, "SCAN "),
        "anchored plan starts at the anchor and never at a type: %s", r ? r : "(null)");
  free(r);
  plans_in_every_order(nx);
  /* the SEARCH index statements drive from the list of changed elements
  ** and reach everything else by primary key, whatever the statistics */
  const char *maintenance[] = {"EXPLAIN QUERY PLAN " INDEX_WORD_SQL("search_dirty"),
                               "EXPLAIN QUERY PLAN " INDEX_TRIGRAM_SQL("search_dirty")};
  for (int i = 0; i < 2; i++) {
    sqlite3_stmt *st;
    kip_buf plan;
    kip_buf_init(&plan);
    if (sqlite3_prepare_v2(kip_store_db(nx), maintenance[i], -1, &st, NULL) == SQLITE_OK) {
      while (sqlite3_step(st) == SQLITE_ROW) kip_buf_printf(&plan, "%s|", (const char *)sqlite3_column_text(st, 3));
      sqlite3_finalize(st);
    }
    const char *p = plan.p ? plan.p : "";
    CHECK(!strncmp(p, "SCAN d|", 7) && !strstr(p + 7, "SCAN") && strstr(p, "INTEGER PRIMARY KEY"),
          "index statement %d drives from search_dirty: %s", i, p);
    kip_buf_free(&plan);
  }
  kip_close(nx);
  remove_db(path);
}


/* Solutions are deduplicated (RC11 §3.3) only where the join can repeat
** them: an anchored pattern whose projected variables determine every row
** (the ego graph, a 1-hop from a named concept) compiles without GROUP BY;
** a pattern that can repeat a solution keeps it, and its answer has each
** solution once (compile_kql.c kql_rows_unique) */
static void test_unique_solutions(void) {
  kip_nexus *nx = open_memory();
  if (!nx) return;
  static const struct {
    const char *kql;
    int grouped;
  } cases[] = {
      {"FIND(?p, ?o.name) WHERE { ?s {type: \"Person\", name: \"x\"} (?s, ?p, ?o) }", 0},
      {"FIND(?o.name) WHERE { ?s {type: \"Person\", name: \"x\"} (?s, \"prefers\", ?o) }", 0},
      {"FIND(?o.name) WHERE { (?s, \"prefers\", ?o) ?s {type: \"Person\", name: \"x\"} }", 0},
      {"FIND(?s, ?o) WHERE { ?s {type: \"Person\"} (?s, \"prefers\", ?o) }", 0},
      {"FIND(?o.name) WHERE { ?s {type: \"Person\"} (?s, \"prefers\", ?o) }", 1},
      {"FIND(?o.name) WHERE { ?s {type: \"Person\", name: \"x\"} (?s, \"prefers\" | \"mentions\", ?o) }", 1},
      {"FIND(?s.name) WHERE { ?o {type: \"Person\", name: \"a\"} (?s, \"prefers\", ?o) (?s, \"mentions\", ?m) }", 1},
      {"FIND(?a.name) WHERE { ?s {type: \"Person\", name: \"x\"} (?s, \"prefers\"{1,2}, ?a) }", 1},
  };
  for (size_t i = 0; i < sizeof cases / sizeof *cases; i++) {
    char *r = kip_explain_json(nx, cases[i].kql, strlen(cases[i].kql), NULL);
    int grouped = r && strstr(r, " GROUP BY ") != NULL;
    CHECK(r && grouped == cases[i].grouped, "%s %s GROUP BY: %s", cases[i].kql, cases[i].grouped ? "needs" : "needs no",
          r ? r : "(null)");
    free(r);
  }
  char *r = call(nx,
                 "{\"command\": \"UPSERT { CONCEPT ?a { {type: \\\"Person\\\", name: \\\"a\\\"} } CONCEPT ?b { {type: "
                 "\\\"Person\\\", name: \\\"b\\\"} } CONCEPT ?x { {type: \\\"Person\\\", name: \\\"x\\\"} SET PROPOSIT"
                 "IONS { (\\\"prefers\\\", ?a), (\\\"mentions\\\", ?a), (\\\"prefers\\\", ?b) } } CONCEPT ?y { {type: "
                 "\\\"Person\\\", name: \\\"y\\\"} SET PROPOSITIONS { (\\\"prefers\\\", ?a), (\\\"mentions\\\", ?a) } "
                 "} }\"}",
                 0);
  CHECK(r && !strstr(r, "error"), "data: %s", r ? r : "(null)");
  free(r);
  /* x prefers a and b and mentions a; y prefers and mentions a */
  EXPECT_EXACT(nx, "{\"command\":\"FIND(COUNT(?o)) WHERE { ?s {type: \\\"Person\\\", name: \\\"x\\\"} (?s, ?p, ?o) }\"}",
               1, "{\"result\":2}");
  EXPECT_EXACT(nx, "{\"command\":\"FIND(?p, ?o.name) WHERE { ?s {type: \\\"Person\\\", name: \\\"x\\\"} (?s, ?p, ?o) } "
                   "ORDER BY ?p, ?o.name\"}",
               1, "{\"result\":[[\"mentions\",\"prefers\",\"prefers\"],[\"a\",\"a\",\"b\"]]}");
  EXPECT_EXACT(nx, "{\"command\":\"FIND(?o.name) WHERE { ?s {type: \\\"Person\\\"} (?s, \\\"prefers\\\", ?o) } "
                   "ORDER BY ?o.name\"}",
               1, "{\"result\":[\"a\",\"b\"]}");
  EXPECT_EXACT(nx, "{\"command\":\"FIND(?o.name) WHERE { ?s {type: \\\"Person\\\", name: \\\"x\\\"} "
                   "(?s, \\\"prefers\\\" | \\\"mentions\\\", ?o) } ORDER BY ?o.name\"}",
               1, "{\"result\":[\"a\",\"b\"]}");
  EXPECT_EXACT(nx, "{\"command\":\"FIND(?o.name) WHERE { ?s {type: \\\"Person\\\", name: \\\"y\\\"} "
                   "(?s, \\\"prefers\\\", ?o) } ORDER BY ?o.name\"}",
               1, "{\"result\":[\"a\"]}");
  /* COUNT of a variable every solution binds counts rows (COUNT(*)); of an
  ** OPTIONAL one, only the bound values */
  const char *count = "FIND(?p, COUNT(?l)) WHERE { ?l (?s, ?p, ?o) }";
  r = kip_explain_json(nx, count, strlen(count), NULL);
  CHECK(r && strstr(r, "COUNT(*)"), "COUNT of a bound variable: %s", r ? r : "(null)");
  free(r);
  EXPECT_EXACT(nx, "{\"command\":\"FIND(?s.name, COUNT(?o)) WHERE { ?s {type: \\\"Person\\\"} "
                   "OPTIONAL { (?s, \\\"prefers\\\", ?o) } } ORDER BY ?s.name\"}",
               1, "{\"result\":[[\"$self\",\"$system\",\"a\",\"b\",\"x\",\"y\"],[0,0,0,0,2,1]]}");
  EXPECT_EXACT(nx, "{\"command\":\"FIND(?s.name, COUNT(?o)) WHERE { ?s {type: \\\"Person\\\"} "
                   "(?s, \\\"prefers\\\", ?o) } ORDER BY COUNT(?o) DESC\"}",
               1, "{\"result\":[[\"x\",\"y\"],[2,1]]}");
  kip_close(nx);
}

/* public ids: unique, never reused, and not in creation order (store_ids.c) */
static int64_t create_one(kip_nexus *nx, int i) {
  char req[256];
  snprintf(req, sizeof req, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"p%d\\\"} } }\"}", i);
  char *r = kip_call_json(nx, req, strlen(req), NULL);
  const char *c = strstr(r, "\"C:");
  int64_t id = c ? strtoll(c + 3, NULL, 10) : -1;
  free(r);
  return id;
}

static void test_ids(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  enum { N = 3000 };
  static int64_t ids[N];
  int increasing = 0, dup = 0, range = 1;
  for (int i = 0; i < N; i++) {
    ids[i] = create_one(nx, i);
    if (ids[i] < 1024 || ids[i] >= (1 << 17)) range = 0;
    if (i && ids[i] > ids[i - 1]) increasing++;
    for (int j = 0; j < i && !dup; j++) dup = ids[j] == ids[i];
  }
  CHECK(!dup, "ids are unique");
  CHECK(range, "ids of 3000 one-element commands stay below 2^17 (units of 16 in every other block)");
  CHECK(increasing > N * 3 / 10 && increasing < N * 7 / 10, "ids are not in creation order (%d of %d rising)",
        increasing, N - 1);
  /* the elements of one command get consecutive ids */
  const char *three = "{\"command\":\"UPSERT { CONCEPT ?a { {type: \\\"Person\\\", name: \\\"x1\\\"} } "
                      "CONCEPT ?b { {type: \\\"Person\\\", name: \\\"x2\\\"} } "
                      "CONCEPT ?c { {type: \\\"Person\\\", name: \\\"x3\\\"} } }\"}";
  char *r = kip_call_json(nx, three, strlen(three), NULL);
  long long a = 0, b = 0, c = 0;
  const char *p = strstr(r, "[\"C:");
  CHECK(p && sscanf(p, "[\"C:%lld\",\"C:%lld\",\"C:%lld\"]", &a, &b, &c) == 3 && b == a + 1 && c == b + 1,
        "one command, consecutive ids: %s", r);
  free(r);
  /* units (blocks k0, k0+2, ...) are left to small commands: one that names
  ** more elements than a unit holds starts with an extent (k0+1, k0+3, ...) */
  int k0 = (int)kip_store_count(nx, "SELECT base_bits FROM kip_id_alloc");
  kip_buf big;
  kip_buf_init(&big);
  kip_buf_adds(&big, "{\"command\":\"UPSERT {");
  for (int i = 0; i < 20; i++) kip_buf_printf(&big, " CONCEPT ?b%d { {type: \\\"Person\\\", name: \\\"big%d\\\"} }", i, i);
  kip_buf_adds(&big, " }\"}");
  r = kip_call_json(nx, big.p, big.len, NULL);
  kip_buf_free(&big);
  long long first = 0;
  p = strstr(r, "[\"C:");
  int parsed = p && sscanf(p, "[\"C:%lld", &first) == 1 && first > 0;
  int block_first = 0, block_three = 0; /* block j holds [2^j, 2^(j+1)) */
  while (parsed && (first >> (block_first + 1))) block_first++;
  while (a > 0 && (a >> (block_three + 1))) block_three++;
  CHECK(parsed && (block_first - k0) % 2 == 1 && (block_three - k0) % 2 == 0,
        "a 20-element command starts with an extent (block %d), a 3-element one with a unit (block %d), k0 %d: %s",
        block_first, block_three, k0, r);
  free(r);
  kip_close(nx);
  /* a nexus whose ids went up to 5000 before the allocator existed: new ids lie above */
  sqlite3 *db;
  if (sqlite3_open(path, &db) == SQLITE_OK) {
    sqlite3_exec(db, "UPDATE kip_id_alloc SET base_bits = NULL, secret = NULL;"
                     "UPDATE sqlite_sequence SET seq = 5000 WHERE name = 'element'", NULL, NULL, NULL);
    sqlite3_close(db);
  }
  if (!kip_open(path, NULL, &nx, &e)) {
    int64_t id = create_one(nx, N + 1);
    CHECK(id >= 8192, "after migration new ids lie above every old id: %lld", (long long)id);
    kip_close(nx);
  }
  remove_db(path);
}

/* write guards (kip_call_options.write_protected / append_only): every row
** a command writes is checked — by name, by id, in cascades — reads are not */
static char *call_guarded(kip_nexus *nx, const char *req, const char *const *protected_, const char *const *append) {
  kip_call_options o;
  memset(&o, 0, sizeof o);
  o.write_protected = protected_;
  o.append_only = append;
  return kip_call_json(nx, req, strlen(req), &o);
}

static void test_write_guards(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?t { {type: \\\"$ConceptType\\\", name: \\\"Secret\\\"} } "
                "CONCEPT ?u { {type: \\\"$ConceptType\\\", name: \\\"Log\\\"} } }\"}", 0));
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?s { {type: \\\"Secret\\\", name: \\\"s1\\\"} SET ATTRIBUTES { v: 1 } } "
                "CONCEPT ?l { {type: \\\"Log\\\", name: \\\"l1\\\"} } }\"}", 0));
  const char *const prot[] = {"Secret", NULL}, *const app[] = {"Log", NULL};
  char *r = call_guarded(nx, "{\"command\":\"FIND(?s.attributes.v) WHERE { ?s {type: \\\"Secret\\\"} }\"}", prot, app);
  CHECK(strstr(r, "\"result\":[1]") != NULL, "guarded types stay readable: %s", r);
  free(r);
  r = call_guarded(nx, "{\"command\":\"UPDATE ?s SET ATTRIBUTES { v: 2 } WHERE { ?s {type: \\\"Secret\\\"} }\"}", prot, app);
  CHECK(strstr(r, "KIP_4004") && strstr(r, "Secret"), "update refused, naming the type: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"FIND(?s.id) WHERE { ?s {type: \\\"Secret\\\"} }\"}", 0);
  char id[64] = "";
  const char *q = strstr(r, "\"C:");
  if (q) sscanf(q + 1, "%63[^\"]", id);
  free(r);
  char req[512];
  snprintf(req, sizeof req, "{\"command\":\"DELETE CONCEPT ?s DETACH WHERE { ?s {id: \\\"%s\\\"} }\"}", id);
  r = call_guarded(nx, req, prot, app);
  CHECK(strstr(r, "KIP_4004") != NULL, "delete by id refused: %s", r);
  free(r);
  r = call_guarded(nx, "{\"command\":\"UPSERT { CONCEPT ?l { {type: \\\"Log\\\", name: \\\"l2\\\"} } }\"}", prot, app);
  CHECK(strstr(r, "upsert_concept_nodes") != NULL, "append-only: inserts pass: %s", r);
  free(r);
  r = call_guarded(nx, "{\"command\":\"UPDATE ?l SET ATTRIBUTES { x: 1 } WHERE { ?l {type: \\\"Log\\\", name: \\\"l1\\\"} }\"}", prot, app);
  CHECK(strstr(r, "KIP_4004") != NULL, "append-only: updates refused: %s", r);
  free(r);
  r = call_guarded(nx, "{\"command\":\"UPSERT { CONCEPT ?s { {type: \\\"Secret\\\", name: \\\"s2\\\"} } }\"}", prot, app);
  CHECK(strstr(r, "KIP_4004") && strstr(r, "\\\"Secret\\\"") && strstr(r, "creating a concept"),
        "insert of a protected type refused, naming it: %s", r);
  free(r);
  const char *const prot_pred[] = {"belongs_to_domain", NULL};
  r = call_guarded(nx, "{\"command\":\"UPSERT { CONCEPT ?l { {type: \\\"Log\\\", name: \\\"l3\\\"} "
                       "SET PROPOSITIONS { (\\\"belongs_to_domain\\\", {type: \\\"Domain\\\", name: \\\"CoreSchema\\\"}) } } }\"}",
                   prot_pred, NULL);
  CHECK(strstr(r, "KIP_4004") && strstr(r, "creating a proposition"), "insert of a protected predicate refused: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"FIND(COUNT(?x)) WHERE { ?x {type: \\\"Log\\\", name: \\\"l3\\\"} }\"}", 0);
  CHECK(strstr(r, "\"result\":0") != NULL, "the refused command wrote nothing (its concept rolled back): %s", r);
  free(r);
  r = call(nx, "{\"command\":\"FIND(?s.attributes.v, ?s.metadata._version) WHERE { ?s {type: \\\"Secret\\\"} }\"}", 0);
  CHECK(strstr(r, "[[1],[1]]") != NULL, "nothing written: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"UPDATE ?s SET ATTRIBUTES { v: 3 } WHERE { ?s {type: \\\"Secret\\\"} }\"}", 0);
  CHECK(strstr(r, "\"updated\":1") != NULL, "without guards the write passes: %s", r);
  free(r);
  kip_close(nx);
  remove_db(path);
}

/* kip_call_command: one command without the envelope answers as the
** envelope does */
static void test_call_command(void) {
  kip_nexus *nx = open_memory();
  if (!nx) return;
  const char *up = "UPSERT { CONCEPT ?p { {type: \"Person\", name: :n} SET ATTRIBUTES { note: \"a\\\"b\" } } }";
  char *r = kip_call_command(nx, up, strlen(up), "{\"n\":\"Ann\"}", NULL);
  CHECK(strstr(r, "\"upsert_concept_nodes\":[\"C:") != NULL, "command with parameters: %s", r);
  free(r);
  const char *find = "FIND(?p.attributes.note) WHERE { ?p {type: \"Person\", name: \"Ann\"} }";
  r = kip_call_command(nx, find, strlen(find), NULL, NULL);
  char *env = call(nx, "{\"command\":\"FIND(?p.attributes.note) WHERE { ?p {type: \\\"Person\\\", name: \\\"Ann\\\"} }\"}", 0);
  CHECK(!strcmp(r, env) && strstr(r, "a\\\"b"), "same response as the envelope: %s / %s", r, env);
  free(r);
  free(env);
  r = kip_call_command(nx, up, strlen(up), "[1]", NULL);
  CHECK(strstr(r, "KIP_1001") && strstr(r, "parameters"), "parameters must be an object: %s", r);
  free(r);
  r = kip_call_command(nx, up, strlen(up), "{bad", NULL);
  CHECK(strstr(r, "KIP_1001") != NULL, "parameters must be JSON: %s", r);
  free(r);
  const char nul[] = "FIND(?p) WHERE { ?p {type: \"Per\0son\"} }";
  r = kip_call_command(nx, nul, sizeof nul - 1, NULL, NULL);
  CHECK(strstr(r, "KIP_1001") != NULL, "NUL in the command refused: %s", r);
  free(r);
  kip_call_options ro;
  memset(&ro, 0, sizeof ro);
  ro.readonly = 1;
  r = kip_call_command(nx, up, strlen(up), "{\"n\":\"Bo\"}", &ro);
  CHECK(strstr(r, "KIP_4004") != NULL, "readonly refuses KML: %s", r);
  free(r);
  kip_close(nx);
}

/* close nx, rewrite its file with raw SQL into an older schema (a file an
** earlier version left), and open it again: the migration runs; NULL (and
** the file removed) when the open fails */
static kip_nexus *reopen_downgraded(kip_nexus *nx, const char *path, const char *downgrade) {
  kip_error e;
  kip_close(nx);
  sqlite3 *db;
  if (sqlite3_open(path, &db) == SQLITE_OK) {
    sqlite3_exec(db, downgrade, NULL, NULL, NULL);
    sqlite3_close(db);
  }
  if (kip_open(path, NULL, &nx, &e)) {
    CHECK(0, "reopen: %s", e.message);
    remove_db(path);
    return NULL;
  }
  return nx;
}

/* schemas v5 and v6: a v4 file (insert trigger, search_dirty without
** `fresh`) is migrated, and inserts still reach the SEARCH index */
static void test_migration_v5(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  nx = reopen_downgraded(nx, path,
                         "DROP TABLE search_dirty; CREATE TABLE search_dirty(id INTEGER PRIMARY KEY);"
                         "CREATE TRIGGER element_search_insert AFTER INSERT ON element BEGIN "
                         "INSERT OR IGNORE INTO search_dirty(id) VALUES(new.id); END;"
                         "DROP TABLE kip_guard; DROP TABLE kip_guard_log; DROP TRIGGER element_changed_update; "
                         "DROP TRIGGER element_changed_delete; DROP TABLE kip_changed; DROP TABLE kip_changed_run; PRAGMA user_version=4");
  if (!nx) return;
  int64_t n = kip_store_count(nx, "SELECT count(*) FROM sqlite_master WHERE name = 'element_search_insert'");
  int64_t v = kip_store_count(nx, "PRAGMA user_version");
  int64_t fresh = kip_store_count(nx, "SELECT count(*) FROM pragma_table_info('search_dirty') WHERE name = 'fresh'");
  CHECK(n == 0 && fresh == 1 && v == KIP_SCHEMA_VERSION, "v4 -> v6: trigger dropped (%lld), fresh column (%lld), version %lld",
        (long long)n, (long long)fresh, (long long)v);
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"Quillon\\\"} } }\"}", 0));
  EXPECT(nx, "{\"command\":\"SEARCH CONCEPT \\\"quillon\\\" LIMIT 3\"}", 0, "Quillon");
  kip_close(nx);
  remove_db(path);
}

/* schema v7: a v6 file's trigram index (a copy of its text, column sizes)
** is rebuilt without them from the word index's copy; substrings are found
** as before, a changed element's old substrings go, the indexes check out */
static void test_migration_v7(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  const char *up = "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"%s\\\"} "
                   "SET ATTRIBUTES { aliases: [\\\"%s\\\"] } } }\"}";
  char req[400];
  snprintf(req, sizeof req, up, "Quillonian", "Oldnickname");
  free(call(nx, req, 0));
  snprintf(req, sizeof req, up, "Zarnowski", "Zed");
  free(call(nx, req, 0));
  nx = reopen_downgraded(nx, path,
                         "DROP TABLE search_trigram;"
                         "CREATE VIRTUAL TABLE search_trigram USING fts5(name, heading, tokenize = 'trigram');"
                         "INSERT INTO search_trigram(rowid, name, heading) SELECT id, c0, c1 FROM search_word_content;"
                         "DROP TABLE kip_guard; DROP TABLE kip_guard_log; DROP TRIGGER element_changed_update; "
                         "DROP TRIGGER element_changed_delete; DROP TABLE kip_changed; DROP TABLE kip_changed_run; PRAGMA user_version=6");
  if (!nx) return;
  CHECK(kip_store_count(nx, "PRAGMA user_version") == KIP_SCHEMA_VERSION, "v6 -> v7");
  CHECK(kip_store_count(nx, "SELECT count(*) FROM sqlite_master WHERE name IN ('search_trigram_content', "
                            "'search_trigram_docsize')") == 0,
        "the trigram index keeps no copy of its text nor column sizes");
  EXPECT_SEARCH(nx, "llonia", "Quillonian"); /* inside a word: trigrams only */
  EXPECT_SEARCH(nx, "dnickn", "Quillonian");
  snprintf(req, sizeof req, up, "Quillonian", "Newmoniker");
  free(call(nx, req, 0));
  EXPECT_SEARCH(nx, "dnickn", "\"result\":[]");
  CHECK(kip_store_count(nx, "SELECT count(*) FROM search_trigram WHERE search_trigram MATCH '\"dnickn\"'") == 0 &&
            kip_store_count(nx, "SELECT count(*) FROM search_trigram WHERE search_trigram MATCH '\"llonia\"'") == 1,
        "the old trigrams left the index, the name's stayed");
  EXPECT_SEARCH(nx, "wmonik", "Quillonian");
  EXPECT_SEARCH(nx, "rnowsk", "Zarnowski");
  /* a question's digit runs of any length are read as dates without overflow */
  EXPECT_SEARCH(nx, "Quillonian in 99999999999999999999 May 9999999999-99999", "Quillonian");
  free(call(nx, "{\"command\":\"DELETE CONCEPT ?p DETACH WHERE { ?p {type: \\\"Person\\\", name: \\\"Zarnowski\\\"} }\"}", 0));
  EXPECT_SEARCH(nx, "rnowsk", "\"result\":[]");
  CHECK(kip_store_count(nx, "SELECT count(*) FROM search_trigram WHERE search_trigram MATCH '\"rnowsk\"'") == 0,
        "a deleted element's trigrams left the index");
  CHECK(kip_store_exec(nx, "INSERT INTO search_trigram(search_trigram) VALUES('integrity-check');"
                           "INSERT INTO search_word(search_word) VALUES('integrity-check')",
                       &e, "checking") == 0,
        "the indexes check out: %s", e.message);
  kip_close(nx);
  remove_db(path);
}

/* re-indexing: only elements at or below the highest indexed id are looked
** up to unindex; updates of old and of the newest element, a deferred
** (import) batch changed before its indexing pass, and a delete */
static int64_t word_docs(kip_nexus *nx, const char *token);

/* the search indexes merge no segments by themselves (automerge 0) and no
** write asks for a merge: FTS5's crisis merge alone bounds the segments
** (16 a level), and the index stays exact through many small writes,
** updates and deletes */
static void test_search_merging(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  CHECK(kip_store_count(nx, "SELECT v FROM search_word_config WHERE k = 'automerge'") == 0 &&
            kip_store_count(nx, "SELECT v FROM search_trigram_config WHERE k = 'automerge'") == 0,
        "both search indexes: automerge 0");
  char req[400];
  for (int i = 0; i < 300; i++) {
    snprintf(req, sizeof req,
             "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"M%d\\\"} "
             "SET ATTRIBUTES { description: \\\"merge word%d\\\" } } }\"}",
             i % 120, i);
    free(call(nx, req, 0));
  }
  free(call(nx, "{\"command\":\"DELETE CONCEPT ?p DETACH WHERE { ?p {type: \\\"Person\\\", name: \\\"M7\\\"} }\"}", 0));
  kip_error e;
  CHECK(kip_store_exec(nx, "INSERT INTO search_word(search_word) VALUES('integrity-check');"
                           "INSERT INTO search_trigram(search_trigram) VALUES('integrity-check')",
                       &e, "checking") == 0,
        "after 300 small writes: both indexes pass FTS5's integrity check: %s", e.message);
  CHECK(word_docs(nx, "word299") == 1 && word_docs(nx, "word7") == 0 && word_docs(nx, "word127") == 0,
        "the newest text of each element is what is indexed");
  int64_t segments = kip_store_count(nx, "SELECT count(DISTINCT segid) FROM search_word_idx");
  CHECK(segments > 0 && segments < 48, "300 writes' segments folded by the crisis merge: %lld segments",
        (long long)segments);
  kip_close(nx);
  unlink(path);
}

static void test_search_reindex(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  const char *up = "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"%s\\\"} "
                   "SET ATTRIBUTES { description: \\\"%s\\\" } } }\"}";
  char req[400];
  const char *rows[][2] = {{"Quillon", "alphaword"}, {"Zarnow", "betaword"}, {"Quillon", "gammaword"},
                           {"Zarnow", "deltaword"}};
  for (int i = 0; i < 4; i++) {
    snprintf(req, sizeof req, up, rows[i][0], rows[i][1]);
    free(call(nx, req, 0));
  }
  const char *gone[] = {"alphaword", "betaword"}, *found[][2] = {{"gammaword", "Quillon"}, {"deltaword", "Zarnow"}};
  for (int i = 0; i < 2; i++) {
    EXPECT_SEARCH(nx, gone[i], "\"result\":[]");
    EXPECT_SEARCH(nx, found[i][0], found[i][1]);
  }
  /* a deferred batch: new elements written, one changed again, then indexed */
  kip_call_options defer = {0};
  defer.defer_index = 1;
  const char *batch[] = {"Ysolde", "epsilonword", "Ysolde", "zetaword", "Quillon", "etaword"};
  for (int i = 0; i < 6; i += 2) {
    snprintf(req, sizeof req, up, batch[i], batch[i + 1]);
    free(kip_call_json(nx, req, strlen(req), &defer));
  }
  CHECK(kip_sync_index(nx, 0, NULL, NULL, &e) == 0, "sync: %s", e.message);
  EXPECT_SEARCH(nx, "epsilonword", "\"result\":[]");
  EXPECT_SEARCH(nx, "gammaword", "\"result\":[]");
  EXPECT_SEARCH(nx, "zetaword", "Ysolde");
  EXPECT_SEARCH(nx, "etaword", "Quillon");
  /* the newest element deleted, then an older one changed */
  free(call(nx, "{\"command\":\"DELETE CONCEPT ?p DETACH WHERE { ?p {type: \\\"Person\\\", name: \\\"Ysolde\\\"} }\"}", 0));
  EXPECT_SEARCH(nx, "zetaword", "\"result\":[]");
  snprintf(req, sizeof req, up, "Zarnow", "thetaword");
  free(call(nx, req, 0));
  EXPECT_SEARCH(nx, "deltaword", "\"result\":[]");
  EXPECT_SEARCH(nx, "thetaword", "Zarnow");
  kip_close(nx);
  remove_db(path);
}

/* Bulk UPSERT commands (defer_index) run without SQLite's foreign key
** checks and leave them on (or, when that failed, the next other command
** switches them on); new elements wait in search_dirty marked fresh
** (recorded a run of ids at a time), changed ones not; a failed command
** leaves no marks */
static void test_bulk_writes(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  kip_call_options defer = {0};
  defer.defer_index = 1;
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?k { {type: \\\"$PropositionType\\\", name: \\\"knows\\\"} } }\"}", 0));
  kip_buf cmd;
  kip_buf_init(&cmd);
  kip_buf_adds(&cmd, "UPSERT { CONCEPT ?hub { {type: \"Person\", name: \"Hub\"} SET ATTRIBUTES { description: \"hubword\" } }");
  for (int i = 0; i < 600; i++) /* over 64 KiB: the checks are switched off */
    kip_buf_printf(&cmd, " CONCEPT ?c%d { {type: \"Person\", name: \"P%d\"} SET ATTRIBUTES { description: \"bulkword%d\" }"
                         " SET PROPOSITIONS { (\"knows\", ?hub) } }", i, i, i);
  kip_buf_adds(&cmd, " }\nUPSERT { CONCEPT ?x { {type: \"Person\", name: \"P3\"} SET ATTRIBUTES { description: \"againword\" } } }");
  kip_buf_addc(&cmd, 0);
  char *r = kip_call_command(nx, cmd.p, strlen(cmd.p), NULL, &defer);
  CHECK(strstr(r, "\"error\"") == NULL, "bulk command: %.300s", r);
  free(r);
  CHECK(kip_store_count(nx, "PRAGMA foreign_keys") == 1, "foreign keys back on after a bulk command");
  CHECK(kip_store_count(nx, "SELECT count(*) FROM pragma_foreign_key_check") == 0, "no dangling link");
  int64_t fresh = kip_store_count(nx, "SELECT count(*) FROM search_dirty WHERE fresh");
  CHECK(fresh == 1201, "601 concepts and 600 links wait as fresh: %lld", (long long)fresh);
  /* a bulk command that fails half-way: rolled back, no marks, checks on */
  kip_buf bad;
  kip_buf_init(&bad);
  for (int i = 0; i < 800; i++) /* over 64 KiB too */
    kip_buf_printf(&bad, "UPSERT { CONCEPT ?n { {type: \"Person\", name: \"Q%d\"} SET ATTRIBUTES { description: \"lostword\" } } }\n", i);
  kip_buf_adds(&bad, "UPSERT { PROPOSITION ?l { ({type: \"Person\", name: \"Missing\"}, \"knows\", {type: \"Person\", name: \"Hub\"}) } }");
  kip_buf_addc(&bad, 0);
  r = kip_call_command(nx, bad.p, strlen(bad.p), NULL, &defer);
  kip_buf_free(&bad);
  CHECK(strstr(r, "\"error\"") != NULL, "link to a missing concept refused: %.200s", r);
  free(r);
  CHECK(kip_store_count(nx, "PRAGMA foreign_keys") == 1, "foreign keys back on after a failed bulk command");
  CHECK(kip_store_count(nx, "SELECT count(*) FROM search_dirty") == 1201, "the failed command left no marks");
  CHECK(kip_sync_index(nx, 0, NULL, NULL, &e) == 0, "sync: %s", e.message);
  EXPECT_SEARCH(nx, "bulkword599", "P599");
  EXPECT_SEARCH(nx, "againword", "P3");
  r = call(nx, "{\"command\":\"SEARCH CONCEPT \\\"bulkword3\\\" LIMIT 20\"}", 1);
  CHECK(r && !strstr(r, "\"P3\""), "P3's first text left the index: %.200s", r ? r : "");
  free(r);
  /* a change to an indexed element waits as changed (not fresh) */
  const char *later = "UPSERT { CONCEPT ?x { {type: \"Person\", name: \"P5\"} SET ATTRIBUTES { description: \"laterword\" } } }";
  free(kip_call_command(nx, later, strlen(later), NULL, &defer));
  CHECK(kip_store_count(nx, "SELECT count(*) FROM search_dirty WHERE NOT fresh") == 1 &&
            kip_store_count(nx, "SELECT count(*) FROM search_dirty WHERE fresh") == 0,
        "a changed element waits as changed");
  CHECK(kip_sync_index(nx, 0, NULL, NULL, &e) == 0, "sync: %s", e.message);
  EXPECT_SEARCH(nx, "laterword", "P5");
  r = call(nx, "{\"command\":\"SEARCH CONCEPT \\\"bulkword5\\\" LIMIT 20\"}", 1);
  CHECK(r && !strstr(r, "\"P5\""), "P5's old text left the index: %.200s", r ? r : "");
  free(r);
  /* switching the checks back on failed after a bulk command (simulated:
  ** switched off, never on): the next other command switches them on first */
  CHECK(kip_store_foreign_keys(nx, 0) == 0 && kip_store_count(nx, "PRAGMA foreign_keys") == 0, "checks left off");
  EXPECT_SEARCH(nx, "laterword", "P5");
  CHECK(kip_store_count(nx, "PRAGMA foreign_keys") == 1, "the next command switched them back on");
  kip_buf_free(&cmd);
  kip_close(nx);
  remove_db(path);
}

/* A bulk load's commands remember the concepts they found or created from
** one command to the next (exec_upsert.c struct kip_concept_memo), and only
** while that stays true: a concept a rolled-back bulk command created, one
** another command deleted on the same connection, and one another
** connection deleted are not found through it. */
static void expect_bulk(kip_nexus *nx, const char *command, const char *want, const char *what) {
  kip_call_options defer = {0};
  defer.defer_index = 1;
  char *r = kip_call_command(nx, command, strlen(command), NULL, &defer);
  CHECK(r && strstr(r, want), "%s: %.300s", what, r ? r : "");
  free(r);
}

static void test_bulk_concept_memo(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?k { {type: \\\"$PropositionType\\\", name: \\\"knows\\\"} } }\"}", 0));
  expect_bulk(nx, "UPSERT { CONCEPT ?a { {type: \"Person\", name: \"A\"} } CONCEPT ?b { {type: \"Person\", name: \"B\"} } }",
              "\"result\"", "a bulk command creates A and B");
  CHECK(nx->exec != NULL, "the bulk command left its concepts for the next one");
  expect_bulk(nx, "UPSERT { PROPOSITION ?l { ({type: \"Person\", name: \"A\"}, \"knows\", {type: \"Person\", name: \"B\"}) } }",
              "\"upsert_proposition_links\":[\"", "the next one links them");
  /* rolled back: C was created, then the command failed */
  expect_bulk(nx, "UPSERT { CONCEPT ?c { {type: \"Person\", name: \"C\"} } }\n"
                  "UPSERT { PROPOSITION ?l { ({type: \"Person\", name: \"Missing\"}, \"knows\", {type: \"Person\", name: \"A\"}) } }",
              "does not exist", "a failing bulk command");
  expect_bulk(nx, "UPSERT { PROPOSITION ?l { ({type: \"Person\", name: \"C\"}, \"knows\", {type: \"Person\", name: \"A\"}) } }",
              "concept {type: \\\"Person\\\", name: \\\"C\\\"} does not exist", "C left with the rollback");
  /* deleted by another command on the same connection */
  free(call(nx, "{\"command\":\"DELETE CONCEPT ?p DETACH WHERE { ?p {type: \\\"Person\\\", name: \\\"B\\\"} }\"}", 0));
  expect_bulk(nx, "UPSERT { PROPOSITION ?l { ({type: \"Person\", name: \"A\"}, \"knows\", {type: \"Person\", name: \"B\"}) } }",
              "name: \\\"B\\\"} does not exist", "B deleted by a DELETE");
  expect_bulk(nx, "UPSERT { CONCEPT ?b { {type: \"Person\", name: \"B\"} } }", "\"result\"", "B again");
  /* deleted by another connection between two bulk commands */
  kip_nexus *other;
  kip_error e;
  CHECK(kip_open(path, NULL, &other, &e) == 0, "second connection: %s", e.message);
  char *r = call(other, "{\"command\":\"DELETE CONCEPT ?p DETACH WHERE { ?p {type: \\\"Person\\\", name: \\\"B\\\"} }\"}", 0);
  CHECK(r && strstr(r, "\"result\""), "the other connection deletes B: %.200s", r ? r : "");
  free(r);
  kip_close(other);
  expect_bulk(nx, "UPSERT { PROPOSITION ?l { ({type: \"Person\", name: \"A\"}, \"knows\", {type: \"Person\", name: \"B\"}) } }",
              "name: \\\"B\\\"} does not exist", "B deleted by another connection");
  CHECK(kip_store_count(nx, "SELECT count(*) FROM pragma_foreign_key_check") == 0, "no dangling link");
  kip_close(nx);
  remove_db(path);
}

/* A bulk load into an (almost) empty nexus builds the element table's
** secondary indexes once at its end: the first bulk command drops them in
** its transaction, they stay away while bulk commands follow, and any other
** command, kip_sync_index, closing or opening builds them again; answers
** are the same meanwhile; a failed bulk command rolls the drop back; a bulk
** command smaller than the nexus keeps them */
static int64_t secondary_indexes(kip_nexus *nx) {
  return kip_store_count(nx, "SELECT count(*) FROM sqlite_master WHERE type = 'index' AND "
                             "name IN ('element_name', 'element_ops', 'element_pred')");
}

/* a bulk command (over 64 KiB): n people from `from` on, each knowing Hub;
** fail: then a link from a concept that does not exist */
static char *bulk_people(kip_nexus *nx, int from, int n, int fail) {
  kip_call_options defer = {0};
  defer.defer_index = 1;
  defer.max_command_bytes = 4 << 20; /* kip import's batches */
  kip_buf cmd;
  kip_buf_init(&cmd);
  kip_buf_adds(&cmd, "UPSERT { CONCEPT ?hub { {type: \"Person\", name: \"Hub\"} }");
  for (int i = from; i < from + n; i++)
    kip_buf_printf(&cmd, " CONCEPT ?c%d { {type: \"Person\", name: \"P%d\"} SET ATTRIBUTES { description: \"word%d\" }"
                         " SET PROPOSITIONS { (\"knows\", ?hub) } }", i, i, i);
  kip_buf_adds(&cmd, " }");
  if (fail)
    kip_buf_adds(&cmd, "\nUPSERT { PROPOSITION ?l { ({type: \"Person\", name: \"Missing\"}, \"knows\", ?hub) } }");
  kip_buf_addc(&cmd, 0);
  char *r = kip_call_command(nx, cmd.p, strlen(cmd.p), NULL, &defer);
  kip_buf_free(&cmd);
  return r;
}

static void test_deferred_indexes(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  const char *knows = "{\"command\":\"UPSERT { CONCEPT ?k { {type: \\\"$PropositionType\\\", name: \\\"knows\\\"} } }\"}";
  const char *who = "{\"command\":\"FIND(COUNT(?p)) WHERE { (?p, \\\"knows\\\", {type: \\\"Person\\\", name: \\\"Hub\\\"}) }\"}";
  free(call(nx, knows, 0));
  char *r = bulk_people(nx, 0, 600, 0);
  CHECK(strstr(r, "\"error\"") == NULL, "first bulk command: %.300s", r);
  free(r);
  CHECK(secondary_indexes(nx) == 0, "the first bulk command into an empty nexus drops the secondary indexes");
  kip_nexus *reader; /* another connection meanwhile: same answers, without them */
  kip_open_options ro = {0};
  ro.readonly = 1;
  CHECK(kip_open(path, &ro, &reader, &e) == 0, "read-only open: %s", e.message);
  EXPECT(reader, who, 1, "600");
  kip_close(reader);
  r = bulk_people(nx, 600, 600, 0); /* smaller than the nexus, but the load goes on */
  CHECK(strstr(r, "\"error\"") == NULL, "second bulk command: %.300s", r);
  free(r);
  CHECK(secondary_indexes(nx) == 0, "they stay away while bulk commands follow");
  EXPECT(nx, who, 1, "1200");
  CHECK(secondary_indexes(nx) == 3, "any other command builds them again");
  r = bulk_people(nx, 1200, 600, 0);
  free(r);
  CHECK(secondary_indexes(nx) == 3, "a bulk command smaller than the nexus keeps them");
  kip_close(nx);
  remove_db(path);

  /* a failed bulk command: the drop is rolled back with it */
  nx = open_temp(path);
  if (!nx) return;
  free(call(nx, knows, 0));
  r = bulk_people(nx, 0, 600, 1);
  CHECK(strstr(r, "\"error\"") != NULL, "link from a missing concept refused: %.200s", r);
  free(r);
  CHECK(secondary_indexes(nx) == 3, "the failed bulk command left them");
  CHECK(kip_store_count(nx, "SELECT count(*) FROM element WHERE name GLOB 'P[0-9]*'") == 0, "and wrote nothing");
  /* kip_sync_index (the end of kip import) builds them */
  free(bulk_people(nx, 0, 600, 0));
  CHECK(secondary_indexes(nx) == 0, "dropped by the next bulk command");
  CHECK(kip_sync_index(nx, 0, NULL, NULL, &e) == 0, "sync: %s", e.message);
  CHECK(secondary_indexes(nx) == 3, "built by the index pass");
  EXPECT_SEARCH(nx, "word599", "P599");
  /* a load that never ended (its process died): the next open builds them */
  free(bulk_people(nx, 600, 1200, 0));
  CHECK(secondary_indexes(nx) == 0, "dropped again");
  nx->indexes_deferred = 0; /* as if the process had died: nothing of it builds them */
  kip_close(nx);
  CHECK(kip_open(path, NULL, &nx, &e) == 0, "reopen: %s", e.message);
  CHECK(secondary_indexes(nx) == 3, "the next open builds them");
  EXPECT(nx, who, 1, "1800");
  /* and closing builds them after a load that did not call kip_sync_index */
  r = bulk_people(nx, 1800, 3000, 0);
  CHECK(strstr(r, "\"error\"") == NULL, "larger bulk command: %.300s", r);
  free(r);
  CHECK(secondary_indexes(nx) == 0, "a bulk command larger than the nexus drops them");
  kip_close(nx);
  CHECK(kip_open(path, &ro, &nx, &e) == 0, "read-only open: %s", e.message);
  CHECK(secondary_indexes(nx) == 3, "closing built them");
  kip_close(nx);
  remove_db(path);
}

/* a bulk load's SEARCH index built on a second thread (store_search_build.c):
** whichever way the load ends, every element has exactly its current text
** in both indexes, and the build is used only when nothing else changed
** the index meanwhile */
static int64_t word_docs(kip_nexus *nx, const char *token) {
  char sql[200];
  snprintf(sql, sizeof sql, "SELECT count(*) FROM search_word WHERE search_word MATCH '\"%s\"'", token);
  return kip_store_count(nx, sql);
}

static void check_index_exact(kip_nexus *nx, const char *what) {
  kip_error e;
  CHECK(kip_store_exec(nx, "INSERT INTO search_word(search_word) VALUES('integrity-check');"
                           "INSERT INTO search_trigram(search_trigram) VALUES('integrity-check')",
                       &e, "checking") == 0,
        "%s: both indexes pass FTS5's integrity check: %s", what, e.message);
  CHECK(kip_store_count(nx, "SELECT count(*) FROM search_dirty") == 0, "%s: nothing left to index", what);
  CHECK(kip_store_count(nx, "SELECT count(*) FROM search_word_content") == kip_store_count(nx, "SELECT count(*) FROM element"),
        "%s: one document per element", what);
}

static int side_file_exists(const char *path) {
  char side[600];
  snprintf(side, sizeof side, "%s-kipindex", path);
  return access(side, F_OK) == 0;
}

static void record_progress(int64_t done, int64_t total, void *ud) {
  ((int64_t *)ud)[0] = done;
  ((int64_t *)ud)[1] = total;
}

/* the first bulk command of a load into a new nexus: P0..P599, each knowing the Hub */
static void begin_load(kip_nexus *nx) {
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?k { {type: \\\"$PropositionType\\\", name: \\\"knows\\\"} } }\"}", 0));
  free(bulk_people(nx, 0, 600, 0));
}

static void test_index_builder(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_call_options defer = {0};
  defer.defer_index = 1;
  kip_error e;
  /* 1. a load that changes some of its own elements again; kip_sync_index ends it */
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  begin_load(nx);
  CHECK(nx->index_builder != NULL, "the first bulk command into an empty nexus starts the builder");
  free(bulk_people(nx, 600, 600, 0));
  const char *change = "UPSERT { CONCEPT ?p { {type: \"Person\", name: \"P5\"} SET ATTRIBUTES { description: \"quux\", "
                       "aliases: [\"Fiver\"] } } }";
  char *r = kip_call_command(nx, change, strlen(change), NULL, &defer);
  CHECK(strstr(r, "\"error\"") == NULL, "a bulk command changing P5: %.300s", r);
  free(r);
  int64_t seen[2] = {0, 0};
  CHECK(kip_sync_index(nx, 0, record_progress, seen, &e) == 0, "sync: %s", e.message);
  CHECK(nx->index_builder == NULL && nx->indexed_beside >= 1199, "the build was used (%lld elements)",
        (long long)nx->indexed_beside);
  CHECK(seen[0] == seen[1] && seen[1] >= nx->indexed_beside, "progress counts it as done (%lld/%lld)",
        (long long)seen[0], (long long)seen[1]);
  CHECK(!side_file_exists(path), "its scratch file is gone");
  check_index_exact(nx, "after a load");
  EXPECT_SEARCH(nx, "word1199", "P1199");
  EXPECT_SEARCH(nx, "quux", "P5");
  EXPECT_SEARCH(nx, "Fiver", "P5");
  CHECK(word_docs(nx, "word5") == 0, "P5's old text left the index");
  EXPECT(nx, "{\"command\":\"SEARCH PROPOSITION \\\"P1199\\\" LIMIT 3\"}", 1, "knows");
  kip_close(nx);
  remove_db(path);

  /* 2. another connection writes during the load: the build is not used */
  nx = open_temp(path);
  if (!nx) return;
  begin_load(nx);
  kip_nexus *other;
  CHECK(kip_open(path, NULL, &other, &e) == 0, "second connection: %s", e.message);
  EXPECT(other, "{\"command\":\"UPSERT { CONCEPT ?o { {type: \\\"Person\\\", name: \\\"Outsider\\\"} SET ATTRIBUTES "
                "{ description: \\\"outsiderword\\\" } } }\"}", 0, "upsert_concept_nodes");
  kip_close(other);
  free(bulk_people(nx, 600, 600, 0));
  CHECK(kip_sync_index(nx, 0, NULL, NULL, &e) == 0, "sync: %s", e.message);
  CHECK(nx->indexed_beside == 0, "the build was not used");
  check_index_exact(nx, "after another connection's write");
  EXPECT_SEARCH(nx, "outsiderword", "Outsider");
  EXPECT_SEARCH(nx, "word1199", "P1199");
  kip_close(nx);
  remove_db(path);

  /* 3. a failed bulk command, then another command ends the load */
  nx = open_temp(path);
  if (!nx) return;
  begin_load(nx);
  r = bulk_people(nx, 600, 600, 1);
  CHECK(strstr(r, "\"error\"") != NULL, "the failing bulk command fails: %.200s", r);
  free(r);
  EXPECT(nx, "{\"command\":\"FIND(COUNT(?p)) WHERE { ?p {type: \\\"Person\\\"} }\"}", 1, "603"); /* $self, $system, Hub, P0..P599 */
  CHECK(nx->index_builder == NULL && nx->indexed_beside >= 600, "a read ended the load and used the build (%lld)",
        (long long)nx->indexed_beside);
  check_index_exact(nx, "after a failed command");
  EXPECT_SEARCH(nx, "word599", "P599");
  CHECK(word_docs(nx, "word600") == 0, "nothing of the failed command is indexed");

  /* 4. closed during a load: the build is dropped, the ordinary pass indexes the load */
  free(bulk_people(nx, 600, 1200, 0));
  CHECK(nx->index_builder != NULL, "a larger load starts another build");
  kip_close(nx);
  CHECK(!side_file_exists(path), "closing removes the scratch file");
  CHECK(kip_open(path, NULL, &nx, &e) == 0, "reopen: %s", e.message);
  CHECK(kip_sync_index(nx, 0, NULL, NULL, &e) == 0, "sync: %s", e.message);
  check_index_exact(nx, "after a load closed midway");
  EXPECT_SEARCH(nx, "word1799", "P1799");
  kip_close(nx);
  remove_db(path);

  /* 5. the scratch file cannot be made: the ordinary pass indexes the load */
  nx = open_temp(path);
  if (!nx) return;
  char side[600];
  snprintf(side, sizeof side, "%s-kipindex", path);
  CHECK(mkdir(side, 0700) == 0, "a directory in the scratch file's place");
  begin_load(nx);
  CHECK(kip_sync_index(nx, 0, NULL, NULL, &e) == 0, "sync: %s", e.message);
  CHECK(nx->indexed_beside == 0, "the build failed and was not used");
  check_index_exact(nx, "after a failed build");
  EXPECT_SEARCH(nx, "word599", "P599");
  kip_close(nx);
  rmdir(side);
  remove_db(path);
}

/* EXPORT pages a set larger than the materialization cap: concepts, then
** links between concepts (both read a page at a time after the last id),
** then links over links (the only run held whole); the pages applied in
** order to an empty nexus reproduce the set */
static int export_all(kip_nexus *nx, const char *pattern, int page, int64_t max_rows, kip_nexus *into, int *pages) {
  kip_call_options o = {0};
  o.max_rows = max_rows;
  o.readonly = 1;
  char *cursor = NULL;
  int total = 0;
  *pages = 0;
  for (;;) {
    json_t *req = json_object();
    char cmd[300];
    snprintf(cmd, sizeof cmd, "EXPORT ?x WHERE { %s } LIMIT %d%s", pattern, page, cursor ? " CURSOR :c" : "");
    json_object_set_new(req, "command", json_string(cmd));
    if (cursor) json_object_set_new(req, "parameters", json_pack("{s:s}", "c", cursor));
    char *text = json_dumps(req, 0);
    json_decref(req);
    char *r = kip_call_json(nx, text, strlen(text), &o);
    free(text);
    json_t *resp = json_loads(r, 0, NULL);
    json_t *res = json_object_get(resp, "result");
    if (!res) {
      CHECK(0, "export page: %s", r);
      free(r);
      json_decref(resp);
      free(cursor);
      return -1;
    }
    free(r);
    total += (int)(json_integer_value(json_object_get(res, "concepts")) +
                   json_integer_value(json_object_get(res, "propositions")));
    (*pages)++;
    const char *capsule = json_string_value(json_object_get(res, "capsule"));
    if (into && capsule && *capsule) {
      kip_call_options w = {0};
      char *ar = kip_call_command(into, capsule, strlen(capsule), NULL, &w);
      CHECK(ar && !strstr(ar, "\"error\""), "applying page %d: %.300s", *pages, ar ? ar : "(null)");
      free(ar);
    }
    free(cursor);
    const char *next = json_string_value(json_object_get(resp, "next_cursor"));
    cursor = next ? strdup(next) : NULL;
    json_decref(resp);
    if (!cursor) break;
  }
  return total;
}

static void test_export_paging(void) {
  char path[] = "/tmp/kip_test_XXXXXX", path2[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_nexus *into = open_temp(path2);
  if (!into) {
    kip_close(nx);
    remove_db(path);
    return;
  }
  /* 30 people in a chain of 29 knows links, and 3 links over links */
  kip_buf b;
  kip_buf_init(&b);
  kip_buf_adds(&b, "UPSERT {\n"
                  "CONCEPT ?g { {type: \"$ConceptType\", name: \"Gadget\"} }\n"
                  "CONCEPT ?w { {type: \"$PropositionType\", name: \"wired_to\"} }\n");
  for (int i = 0; i < 30; i++) kip_buf_printf(&b, "CONCEPT ?p%d { {type: \"Gadget\", name: \"G%02d\"} }\n", i, i);
  for (int i = 1; i < 30; i++) kip_buf_printf(&b, "PROPOSITION ?k%d { (?p%d, \"wired_to\", ?p%d) }\n", i, i - 1, i);
  for (int i = 1; i <= 3; i++) kip_buf_printf(&b, "PROPOSITION ?h%d { (?p0, \"wired_to\", ?k%d) }\n", i, i);
  kip_buf_adds(&b, "}");
  kip_call_options w = {0};
  char *r = kip_call_command(nx, b.p, b.len, NULL, &w);
  CHECK(r && !strstr(r, "\"error\""), "setup: %.300s", r ? r : "(null)");
  free(r);
  kip_buf_free(&b);
  int pages, n;
  /* every page size, including pages that end exactly where a run ends */
  int sizes[] = {1, 7, 29, 30, 59, 62, 1000};
  for (size_t k = 0; k < sizeof sizes / sizeof *sizes; k++) {
    n = export_all(nx, "?x {type: \"Gadget\"} UNION { ?x (?s, \"wired_to\", ?o) }", sizes[k], 10, NULL, &pages);
    CHECK(n == 62, "LIMIT %d: %d exported (want 62)", sizes[k], n);
    CHECK(pages == (62 + sizes[k] - 1) / sizes[k], "LIMIT %d: %d pages", sizes[k], pages);
  }
  /* the pages re-import in order (the schema first) */
  n = export_all(nx, "?x {type: \"$ConceptType\", name: \"Gadget\"} UNION { ?x {type: \"$PropositionType\", name: \"wired_to\"} }",
                 10, 0, into, &pages);
  CHECK(n == 2, "schema page: %d", n);
  n = export_all(nx, "?x {type: \"Gadget\"} UNION { ?x (?s, \"wired_to\", ?o) }", 4, 10, into, &pages);
  CHECK(n == 62, "re-import export: %d", n);
  EXPECT_EXACT(into, "{\"command\":\"FIND(COUNT(?l)) WHERE { ?l (?s, \\\"wired_to\\\", ?o) }\"}", 1, "{\"result\":32}");
  /* the held run keeps its cap: 3 links over links, cap 2 */
  kip_call_options capped = {0};
  capped.max_rows = 2;
  const char *req = "{\"command\":\"EXPORT ?x WHERE { ?x (?s, \\\"wired_to\\\", ?o) } LIMIT 100\"}";
  r = kip_call_json(nx, req, strlen(req), &capped);
  CHECK(r && strstr(r, "KIP_4002") && strstr(r, "over propositions"), "higher-order cap: %.300s", r ? r : "(null)");
  free(r);
  /* a cursor continues only its own query */
  r = call(nx, "{\"command\":\"EXPORT ?x WHERE { ?x {type: \\\"Gadget\\\"} } LIMIT 5\"}", 1);
  json_t *resp = json_loads(r, 0, NULL);
  const char *cur = json_string_value(json_object_get(resp, "next_cursor"));
  CHECK(cur != NULL, "next_cursor: %s", r);
  if (cur) {
    char other[400];
    snprintf(other, sizeof other,
             "{\"command\":\"EXPORT ?x WHERE { ?x {type: \\\"Domain\\\"} } LIMIT 5 CURSOR :c\",\"parameters\":{\"c\":\"%s\"}}",
             cur);
    EXPECT(nx, other, 1, "different query");
  }
  json_decref(resp);
  free(r);
  kip_close(nx);
  kip_close(into);
  remove_db(path);
  remove_db(path2);
}

/* guards (store_guard.c): a sealed type refuses every write of its concepts
** and of the links they are the subject of, whatever the statement, unless
** the call holds the capability; an append-only type takes inserts only (by
** the capability's holders) and never changes; a maintenance call passes and
** is logged, in the same transaction (a rolled-back one logs nothing);
** meeting an existing element is no insert; another connection sees a
** declaration at its next write */
/* an unindexed guard keeps what it covers (its concepts and their links)
** out of the SEARCH index: declared, what was indexed goes; written after,
** nothing is indexed; declared indexed again, or dropped, all is indexed */
static int64_t indexed_notes(kip_nexus *nx) {
  return kip_store_count(nx, "SELECT count(*) FROM search_word_content w JOIN element e ON e.id = w.id "
                             "LEFT JOIN element s ON s.id = e.subject WHERE coalesce(s.type, e.type) = 'Note'");
}

static void test_guard_unindexed(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?t { {type: \\\"$ConceptType\\\", name: \\\"Note\\\"} } "
                "CONCEPT ?a { {type: \\\"Note\\\", name: \\\"zebracorn one\\\"} SET PROPOSITIONS { "
                "(\\\"belongs_to_domain\\\", {type: \\\"Domain\\\", name: \\\"Unsorted\\\"}) } } }\"}", 0));
  EXPECT_SEARCH(nx, "zebracorn", "zebracorn one");
  CHECK(indexed_notes(nx) == 2, "a note and its link indexed: %lld", (long long)indexed_notes(nx));
  kip_guard g = {"Note", NULL, "append_only", NULL, "spec", NULL, 1};
  CHECK(kip_guard_declare(nx, &g, &e) == 0, "declare unindexed: %s", e.message);
  CHECK(indexed_notes(nx) == 0, "declared: nothing of it indexed (%lld)", (long long)indexed_notes(nx));
  EXPECT_SEARCH(nx, "zebracorn", "\"result\":[]");
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?a { {type: \\\"Note\\\", name: \\\"zebracorn two\\\"} SET PROPOSITIONS { "
                "(\\\"belongs_to_domain\\\", {type: \\\"Domain\\\", name: \\\"Unsorted\\\"}) } } }\"}", 0));
  CHECK(indexed_notes(nx) == 0 && kip_store_count(nx, "SELECT count(*) FROM search_dirty") == 0,
        "written after: not indexed, not waiting (%lld)", (long long)indexed_notes(nx));
  EXPECT_SEARCH(nx, "zebracorn", "\"result\":[]");
  EXPECT(nx, "{\"command\":\"FIND(COUNT(?n)) WHERE { ?n {type: \\\"Note\\\"} }\"}", 1, "\"result\":2");
  char *j = kip_guards_json(nx, 0);
  CHECK(j && strstr(j, "\"unindexed\":true"), "listed unindexed: %s", j ? j : "(null)");
  kip_free(j);
  g.unindexed = 0;
  CHECK(kip_guard_declare(nx, &g, &e) == 0 && indexed_notes(nx) == 4, "declared indexed again: all indexed (%lld)",
        (long long)indexed_notes(nx));
  EXPECT_SEARCH(nx, "zebracorn", "zebracorn two");
  g.unindexed = 1;
  CHECK(kip_guard_declare(nx, &g, &e) == 0 && indexed_notes(nx) == 0, "unindexed again (%lld)", (long long)indexed_notes(nx));
  CHECK(kip_guard_drop(nx, "spec", &e) == 0 && indexed_notes(nx) == 4, "dropped: all indexed (%lld)",
        (long long)indexed_notes(nx));
  kip_close(nx);
  remove_db(path);
}

static void test_guards(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  free(call(nx, "{\"commands\":[\"UPSERT { CONCEPT ?t { {type: \\\"$ConceptType\\\", name: \\\"Vault\\\"} } "
                "CONCEPT ?u { {type: \\\"$ConceptType\\\", name: \\\"Ledger\\\"} } }\","
                "\"UPSERT { CONCEPT ?v { {type: \\\"Vault\\\", name: \\\"a\\\"} SET ATTRIBUTES { n: 1 } "
                "SET PROPOSITIONS { (\\\"belongs_to_domain\\\", {type: \\\"Domain\\\", name: \\\"Unsorted\\\"}) } } }\"]}", 0));
  kip_guard sealed = {"Vault", NULL, "sealed", "vault.write", "spec", "use the vault API", 0};
  kip_guard ledger = {"Ledger", NULL, "append_only", "ledger.add", "spec", NULL, 0};
  CHECK(kip_guard_declare(nx, &sealed, &e) == 0 && kip_guard_declare(nx, &ledger, &e) == 0, "declare: %s", e.message);
  kip_guard bad = {"Vault", NULL, "frozen", NULL, "spec", NULL, 0};
  CHECK(kip_guard_declare(nx, &bad, &e) == KIP_E_SYNTAX && strstr(e.message, "frozen"), "unknown mode refused");
  /* a second connection, opened before nothing: sees them at its first write */
  kip_nexus *other;
  CHECK(kip_open(path, NULL, &other, &e) == 0, "open a second connection");
  const char *writes[] = {
      "{\"command\":\"UPSERT { CONCEPT ?v { {type: \\\"Vault\\\", name: \\\"a\\\"} SET ATTRIBUTES { n: 2 } } }\"}",
      "{\"command\":\"UPSERT { CONCEPT ?v { {type: \\\"Vault\\\", name: \\\"b\\\"} } }\"}",
      "{\"command\":\"UPDATE ?v SET ATTRIBUTES { n: 3 } WHERE { ?v {type: \\\"Vault\\\"} }\"}",
      "{\"command\":\"DELETE PROPOSITIONS ?l WHERE { ?l ({type: \\\"Vault\\\", name: \\\"a\\\"}, ?p, ?o) }\"}",
      "{\"command\":\"DELETE CONCEPT ?v DETACH WHERE { ?v {type: \\\"Vault\\\", name: \\\"a\\\"} }\"}",
      "{\"command\":\"UPSERT { CONCEPT ?v { {type: \\\"Vault\\\", name: \\\"a\\\"} SET PROPOSITIONS { (\\\"belongs_to_domain\\\", {type: \\\"Domain\\\", name: \\\"Archived\\\"}) } } }\"}",
  };
  for (size_t i = 0; i < sizeof writes / sizeof *writes; i++) {
    char *r = call(other, writes[i], 0);
    CHECK(strstr(r, "KIP_4004") && strstr(r, "sealed by spec") && strstr(r, "use the vault API"), "sealed write %zu: %s", i, r);
    free(r);
  }
  /* meeting the element as it is writes nothing: no insert to refuse */
  EXPECT(other, "{\"command\":\"UPSERT { CONCEPT ?v { {type: \\\"Vault\\\", name: \\\"a\\\"} SET ATTRIBUTES { n: 1 } } }\"}", 0,
         "upsert_concept_nodes");
  /* the capability lets a call write */
  const char *const caps[] = {"vault.write", NULL};
  kip_call_options o = {0};
  o.capabilities = caps;
  char *r = kip_call_json(nx, writes[0], strlen(writes[0]), &o);
  CHECK(!strstr(r, "error"), "the capability writes: %s", r);
  free(r);
  /* append-only: inserts by the capability's holders, never a change */
  const char *add = "{\"command\":\"UPSERT { CONCEPT ?l { {type: \\\"Ledger\\\", name: \\\"e1\\\"} SET ATTRIBUTES { v: 1 } } }\"}";
  const char *change = "{\"command\":\"UPDATE ?l SET ATTRIBUTES { v: 2 } WHERE { ?l {type: \\\"Ledger\\\"} }\"}";
  EXPECT(nx, add, 0, "adding one needs the capability");
  const char *const lcaps[] = {"ledger.add", NULL};
  o.capabilities = lcaps;
  r = kip_call_json(nx, add, strlen(add), &o);
  CHECK(!strstr(r, "error"), "an append-only insert with the capability: %s", r);
  free(r);
  r = kip_call_json(nx, change, strlen(change), &o);
  CHECK(strstr(r, "never changed or deleted") != NULL, "an append-only row never changes: %s", r);
  free(r);
  /* maintenance passes and is logged; a rolled-back maintenance call is not */
  kip_call_options m = {0};
  m.maintenance = "spec: repair";
  const char *dry = "{\"command\":\"UPDATE ?l SET ATTRIBUTES { v: 5 } WHERE { ?l {type: \\\"Ledger\\\"} }\",\"dry_run\":true}";
  r = kip_call_json(nx, dry, strlen(dry), &m);
  free(r);
  CHECK(kip_store_count(nx, "SELECT count(*) FROM kip_guard_log") == 0, "a rolled-back maintenance call logs nothing");
  r = kip_call_json(nx, change, strlen(change), &m);
  CHECK(!strstr(r, "error"), "maintenance passes: %s", r);
  free(r);
  CHECK(kip_store_count(nx, "SELECT count(*) FROM kip_guard_log WHERE reason = 'spec: repair' AND op = 'update'") == 1,
        "the maintenance write is logged");
  char *g = kip_guards_json(nx, 5);
  CHECK(strstr(g, "\"owner\":\"spec\"") && strstr(g, "spec: repair"), "kip_guards_json: %s", g);
  free(g);
  CHECK(kip_guard_drop(nx, "spec", &e) == 0, "drop");
  EXPECT(other, writes[1], 0, "upsert_concept_nodes"); /* no guard left */
  kip_close(other);
  kip_close(nx);
  remove_db(path);
}

/* the write generation counts write transactions that changed rows, in
** the file, across connections; reads and no-op writes leave it */
static void test_write_generation(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  int64_t g0 = kip_write_generation(nx);
  CHECK(g0 >= 0, "a generation after the bootstrap (%lld)", (long long)g0);
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"Ann\\\"} } }\"}", 0));
  CHECK(kip_write_generation(nx) == g0 + 1, "a write counts one");
  free(call(nx, "{\"command\":\"FIND(?p) WHERE { ?p {type: \\\"Person\\\"} }\"}", 0));
  free(call(nx, "{\"command\":\"UPDATE ?p SET ATTRIBUTES { n: 1 } WHERE { ?p {type: \\\"Person\\\", name: \\\"Nobody\\\"} }\"}", 0));
  CHECK(kip_write_generation(nx) == g0 + 1, "a read and a write that matched nothing count nothing");
  kip_nexus *other;
  CHECK(kip_open(path, NULL, &other, &e) == 0, "open a second connection");
  if (other) {
    free(call(other, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"Bo\\\"} } }\"}", 0));
    kip_close(other);
  }
  CHECK(kip_write_generation(nx) == g0 + 2, "another connection's write counts too");
  kip_close(nx);
  remove_db(path);
}

/* the change log: what writes touched, by the generation their
** transaction started from; a deleted link logs its endpoints (its
** subject marked when it was a Domain link); forgetting takes exactly
** what was logged before a generation */
static int changes_has(const char *json, const char *id) {
  char q[48];
  snprintf(q, sizeof q, "\"%s\"", id);
  return strstr(json, q) != NULL;
}

static void test_change_log(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  kip_error e;
  CHECK(kip_changes_forget(nx, kip_write_generation(nx), &e) == 0, "forget the bootstrap's");
  int64_t g0 = kip_write_generation(nx);
  char *r = kip_changes_json(nx, 0, -1, 100, &e);
  CHECK(r && strstr(r, "\"ids\":[]") && strstr(r, "\"truncated\":false"), "nothing logged: %s", r ? r : e.message);
  free(r);
  char *w = call(nx, "{\"command\":\"UPSERT { CONCEPT ?a { {type: \\\"Person\\\", name: \\\"Ann\\\"} "
                     "SET PROPOSITIONS { (\\\"belongs_to_domain\\\", {type: \\\"Domain\\\", name: \\\"Unsorted\\\"}) } } }\"}", 0);
  free(w);
  char *ids = call(nx, "{\"command\":\"FIND(?a.id, ?l.id, ?d.id) WHERE { ?a {type: \\\"Person\\\", name: \\\"Ann\\\"} "
                       "?l (?a, \\\"belongs_to_domain\\\", ?d) }\"}", 0);
  char a[32] = "", l[32] = "", d[32] = "";
  CHECK(ids && sscanf(ids, "{\"result\":[[\"%31[^\"]\"],[\"%31[^\"]\"],[\"%31[^\"]\"]]", a, l, d) == 3, "ids: %s", ids);
  free(ids);
  r = kip_changes_json(nx, 0, -1, 100, &e);
  CHECK(r && changes_has(r, a) && changes_has(r, l) && !changes_has(r, d), "new elements logged: %s", r);
  CHECK(r && strstr(r, "\"domain_changed\":[]"), "no Domain link deleted yet: %s", r);
  free(r);
  r = kip_changes_json(nx, 0, g0, 100, &e);
  CHECK(r && strstr(r, "\"ids\":[]"), "nothing before g0: %s", r);
  free(r);
  r = kip_changes_json(nx, 0, -1, 1, &e);
  CHECK(r && strstr(r, "\"truncated\":true"), "max 1 of 2: %s", r);
  free(r);
  int64_t g1 = kip_write_generation(nx);
  CHECK(kip_changes_forget(nx, g1, &e) == 0 && kip_write_generation(nx) == g1, "forgetting is not a write generation");
  free(call(nx, "{\"command\":\"DELETE PROPOSITIONS ?l WHERE { ?l ({type: \\\"Person\\\", name: \\\"Ann\\\"}, "
                "\\\"belongs_to_domain\\\", ?d) }\"}", 0));
  r = kip_changes_json(nx, 0, -1, 100, &e);
  CHECK(r && changes_has(r, a) && changes_has(r, d) && !changes_has(r, l), "a deleted link logs its endpoints: %s", r);
  char want[64];
  snprintf(want, sizeof want, "\"domain_changed\":[\"%s\"]", a);
  CHECK(r && strstr(r, want), "the subject of a deleted Domain link is marked: %s", r);
  free(r);
  int64_t g2 = kip_write_generation(nx);
  free(call(nx, "{\"command\":\"UPDATE ?a SET ATTRIBUTES { n: 1 } WHERE { ?a {type: \\\"Person\\\", name: \\\"Ann\\\"} }\"}", 0));
  r = kip_changes_json(nx, g2, -1, 100, &e);
  CHECK(r && changes_has(r, a) && !changes_has(r, d), "an update since g2 logs the element: %s", r);
  free(r);
  CHECK(kip_changes_forget(nx, g2, &e) == 0, "forget before g2");
  r = kip_changes_json(nx, 0, -1, 100, &e);
  CHECK(r && changes_has(r, a) && !changes_has(r, d), "what was logged since g2 stays: %s", r);
  free(r);
  kip_close(nx);
  remove_db(path);
}

/* exec_plans.c: a FIND's plan kept by its text and used for other
** parameter values — the same answers and errors as compiling it again */
static char *call_scoped(kip_nexus *nx, const char *req, const char *eligibility) {
  kip_call_options o = {0};
  o.eligibility = eligibility;
  return kip_call_json(nx, req, strlen(req), &o);
}

#define FIND_BY_NAME "{\"command\":\"FIND(?p.name) WHERE { ?p {type: :t, name: :n} }\",\"parameters\":{\"t\":\"%s\",\"n\":\"%s\"}}"

static void test_plan_cache(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  kip_nexus *nx = open_temp(path);
  if (!nx) return;
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?a { {type: \\\"Person\\\", name: \\\"Ann\\\"} SET ATTRIBUTES { age: 30 } } "
                "CONCEPT ?b { {type: \\\"Person\\\", name: \\\"Bob\\\"} SET ATTRIBUTES { age: 40, hidden: true } } }\"}", 0));
  char req[512];
  const char *names[] = {"Ann", "Bob", "Cid", "Ann"};
  const char *want[] = {"{\"result\":[\"Ann\"]}", "{\"result\":[\"Bob\"]}", "{\"result\":[]", "{\"result\":[\"Ann\"]}"};
  for (int i = 0; i < 4; i++) { /* the same text, other values: the kept plan binds each */
    snprintf(req, sizeof req, FIND_BY_NAME, "Person", names[i]);
    char *r = call(nx, req, 1);
    CHECK(r && !strncmp(r, want[i], strlen(want[i])), "%s: %s", names[i], r);
    free(r);
  }
  /* a type read from a parameter is checked for each value */
  snprintf(req, sizeof req, FIND_BY_NAME, "Nope", "Ann");
  char *r = call(nx, req, 1);
  CHECK(r && strstr(r, "concept type 'Nope' is not defined") && strstr(r, "\"column\":26"), "type checked again: %s", r);
  free(r);
  /* another type of value is another plan ("n": 5 is not a name) */
  r = call(nx, "{\"command\":\"FIND(?p.name) WHERE { ?p {type: :t, name: :n} }\",\"parameters\":{\"t\":\"Person\",\"n\":5}}", 1);
  CHECK(r && strstr(r, "KIP_2003"), "a number for a name: %s", r);
  free(r);
  /* a parameter read another way (LIMIT) is compiled every time, and right */
  for (int lim = 1; lim <= 2; lim++) {
    snprintf(req, sizeof req, "{\"command\":\"FIND(?p.name) WHERE { ?p {type: \\\"Person\\\"} } ORDER BY ?p.name DESC LIMIT :l\","
                              "\"parameters\":{\"l\":%d}}", lim);
    r = call(nx, req, 1);
    CHECK(r && strstr(r, lim == 1 ? "[\"Bob\"]" : "[\"Bob\",\"Ann\"]"), "LIMIT %d: %s", lim, r);
    free(r);
  }
  /* a FILTER value from a parameter */
  const char *ages[] = {"35", "25"};
  const char *adults[] = {"[\"Bob\"]", "[\"Ann\",\"Bob\"]"};
  for (int i = 0; i < 2; i++) {
    snprintf(req, sizeof req, "{\"command\":\"FIND(?p.name) WHERE { ?p {type: \\\"Person\\\"} FILTER(?p.attributes.age > :a) } "
                              "ORDER BY ?p.name\",\"parameters\":{\"a\":%s}}", ages[i]);
    r = call(nx, req, 1);
    CHECK(r && strstr(r, adults[i]), "age > %s: %s", ages[i], r);
    free(r);
  }
  /* a plan made without a scope is not one with it */
  snprintf(req, sizeof req, FIND_BY_NAME, "Person", "Bob");
  r = call_scoped(nx, req, "IS_NULL(?e.attributes.hidden)");
  CHECK(r && !strncmp(r, "{\"result\":[]", 12), "the scope hides Bob: %s", r);
  free(r);
  /* an id read from a parameter (parsed to a number: not cacheable), beside
  ** a literal false and an unused parameter false — jansson's one shared
  ** object: the literal must not count as that parameter's value */
  r = call(nx, "{\"command\":\"FIND(?p.id) WHERE { ?p {type: \\\"Person\\\"} FILTER(?p.attributes.age > 0) } "
               "ORDER BY ?p.name\"}", 1);
  char ann[32] = "", bob[32] = "";
  CHECK(r && sscanf(r, "{\"result\":[\"%31[^\"]\",\"%31[^\"]\"]", ann, bob) == 2, "ids: %s", r);
  free(r);
  const char *ids[] = {ann, bob}, *who[] = {"[\"Ann\"]", "[\"Bob\"]"};
  for (int i = 0; i < 2; i++) {
    snprintf(req, sizeof req, "{\"command\":\"FIND(?p.name) WHERE { ?p {id: :x} FILTER(?p.attributes.age != false) }\","
                              "\"parameters\":{\"x\":\"%s\",\"y\":false}}", ids[i]);
    r = call(nx, req, 1);
    CHECK(r && strstr(r, who[i]), "id %s: %s", ids[i], r);
    free(r);
  }
  /* the hop cap is part of what a plan was made under */
  const char *hops = "{\"command\":\"FIND(?a.name) WHERE { ?p {type: \\\"Person\\\", name: :n} "
                     "(?p, \\\"knows\\\"{1,5}, ?a) }\",\"parameters\":{\"n\":\"Ann\"}}";
  kip_call_options wide = {0}, narrow = {0};
  wide.max_hops = 10;
  narrow.max_hops = 2;
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?t { {type: \\\"$PropositionType\\\", name: \\\"knows\\\"} } }\"}", 0));
  r = kip_call_json(nx, hops, strlen(hops), &wide);
  CHECK(r && strstr(r, "{\"result\":[]"), "hops within 10: %s", r);
  free(r);
  r = kip_call_json(nx, hops, strlen(hops), &wide);
  free(r);
  r = kip_call_json(nx, hops, strlen(hops), &narrow);
  CHECK(r && strstr(r, "exceeds the hop cap of 2"), "the narrower cap refuses it: %s", r);
  free(r);
  /* a commit drops the plans: a type no longer defined is an error again */
  snprintf(req, sizeof req, "{\"command\":\"FIND(?p.name) WHERE { ?p {type: :t} }\",\"parameters\":{\"t\":\"Pet\"}}");
  free(call(nx, "{\"command\":\"UPSERT { CONCEPT ?t { {type: \\\"$ConceptType\\\", name: \\\"Pet\\\"} } }\"}", 0));
  r = call(nx, req, 1);
  CHECK(r && strstr(r, "{\"result\":[]"), "Pet defined: %s", r);
  free(r);
  free(call(nx, "{\"command\":\"DELETE CONCEPT ?t DETACH WHERE { ?t {type: \\\"$ConceptType\\\", name: \\\"Pet\\\"} }\"}", 0));
  r = call(nx, req, 1);
  CHECK(r && strstr(r, "concept type 'Pet' is not defined"), "Pet no longer defined: %s", r);
  free(r);
  kip_close(nx);
  remove_db(path);
}

/* kip_vsnprintf against the C library, truncation included */
static void format_both(size_t cap, const char *fmt, ...) {
  char a[128], b[128];
  va_list ap, aq;
  va_start(ap, fmt);
  va_copy(aq, ap);
  int na = kip_vsnprintf(a, cap, fmt, ap), nb = vsnprintf(b, cap, fmt, aq);
  va_end(aq);
  va_end(ap);
  CHECK(na == nb && (!cap || !strcmp(a, b)), "kip_vsnprintf(%zu, \"%s\"): %d [%s], libc %d [%s]", cap, fmt, na,
        cap ? a : "", nb, cap ? b : "");
}

static void test_format(void) {
  size_t caps[] = {128, 1, 5, 12};
  for (size_t i = 0; i < sizeof caps / sizeof *caps; i++) {
    size_t c = caps[i];
    format_both(c, "%s.type = %s", "t12", "?3");
    format_both(c, "%d %i %u %x %%", -42, 2147483647, 4000000000u, 255u);
    format_both(c, "%ld|%lld|%llu|%zu|%lx", -9000000000L, (long long)INT64_MIN, (unsigned long long)UINT64_MAX,
                (size_t)123456789, 0xdeadbeefUL);
    format_both(c, "[%.*s] %c", 3, "abcdef", 'z');
    format_both(c, "%.*s|", 10, "ab");
    format_both(c, "%5d|%-4s|%.2f|%g", 7, "x", 1.5, 0.1); /* the library's path */
    format_both(c, "no conversions");
    format_both(c, "%s", "");
  }
  format_both(0, "%s and %d", "abc", 12);
}

/* the fast JSON reader gives exactly jansson's value (keys in the same
** order, the same types) or gives up: tricky documents, then random ones
** made by mutating valid requests */
static int same_as_jansson(const char *s, size_t n) {
  json_t *fast = kip_json_parse_fast(s, n);
  json_t *slow = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
  int ok = 1;
  if (fast) {
    char *a = kip_json_dump(fast), *b = slow ? kip_json_dump(slow) : NULL;
    ok = slow && json_equal(fast, slow) && !strcmp(a, b);
    /* a real stays a real, an integer an integer */
    free(a);
    free(b);
  }
  json_decref(fast);
  json_decref(slow);
  return ok;
}

static void test_json_fast(void) {
  const char *docs[] = {
    "{\"command\":\"FIND(?c) WHERE { ?c {type: :t} }\",\"parameters\":{\"t\":\"Stop\",\"n\":3}}",
    "{}", "[]", "[1,-0,0.5,-1.25e3,1E+2,2e-3]", "\"\\u00e9\\ud83d\\ude00\\n\\t\\\"\\\\\\/\"", "\"caf\xc3\xa9 \xe6\x97\xa5\xf0\x9f\x98\x80\"",
    "{\"a\":1,\"a\":2,\"b\":[true,false,null]}", "  {\"x\" : [ 1 , { \"y\" : \"z\" } ] }  ", "9223372036854775807",
    "-9223372036854775808", "9223372036854775808", "1e400", "1e-400", "01", "1.", ".5", "-", "+1", "\"\\u0000\"",
    "{\"\\u0000\":1}", "\"\\ud800\"", "\"\\udc00\"", "\"\xc0\xaf\"", "\"\xed\xa0\x80\"", "\"\xf4\x90\x80\x80\"", "\"a\x01\"",
    "[1,]", "{\"a\":1,}", "{\"a\"}", "{1:2}", "tru", "nul", "[1] x", "", " ", "\"unterminated", "[[[[[[[[]]]]]]]]",
    "{\"k\":\"\\q\"}", "\"\\u12g4\"", "123456789012345678901234567890", "0.1", "1.7976931348623157e308",
  };
  int bad = 0;
  for (size_t i = 0; i < sizeof docs / sizeof *docs; i++)
    if (!same_as_jansson(docs[i], strlen(docs[i]))) {
      bad++;
      fprintf(stderr, "fast JSON differs from jansson on: %s\n", docs[i]);
    }
  CHECK(bad == 0, "the fast reader agrees with jansson on the tricky documents (%d differ)", bad);
  /* deep nesting past the fast reader's limit: jansson's answer */
  char deep[1200];
  memset(deep, '[', 600);
  memset(deep + 600, ']', 600);
  CHECK(kip_json_parse_fast(deep, sizeof deep) == NULL, "nesting past FAST_DEPTH is left to jansson");
  /* random mutations of valid documents */
  const char *seeds[] = {docs[0], docs[3], docs[4], docs[5], docs[6], docs[7]};
  const char alphabet[] = "{}[],:\"\\0123456789.eE+-tfnulrsaxyz \t\n\xc3\xa9\xf0\x9f\x98\x80";
  unsigned seed = 12345;
  int accepted = 0;
  bad = 0;
  for (int i = 0; i < 200000; i++) {
    const char *src = seeds[i % (sizeof seeds / sizeof *seeds)];
    char buf[256];
    size_t n = strlen(src);
    memcpy(buf, src, n);
    int edits = 1 + (int)((seed = seed * 1103515245u + 12345u) >> 16) % 3;
    for (int k = 0; k < edits; k++) {
      seed = seed * 1103515245u + 12345u;
      size_t at = (seed >> 16) % (n + 1);
      char c = alphabet[((seed >> 4) & 0xFFF) % (sizeof alphabet - 1)];
      switch ((seed >> 28) % 3) {
        case 0: if (at < n) buf[at] = c; break;                                    /* replace */
        case 1: if (n < sizeof buf - 1) { memmove(buf + at + 1, buf + at, n - at); buf[at] = c; n++; } break; /* insert */
        default: if (at < n) { memmove(buf + at, buf + at + 1, n - at - 1); n--; } /* delete */
      }
    }
    json_t *f = kip_json_parse_fast(buf, n);
    if (f) accepted++;
    json_decref(f);
    if (!same_as_jansson(buf, n)) {
      if (bad++ < 5) fprintf(stderr, "fast JSON differs from jansson on: %.*s\n", (int)n, buf);
    }
  }
  CHECK(bad == 0, "200 000 mutated documents: the fast reader agrees with jansson (%d differ, %d read fast)", bad, accepted);
  CHECK(accepted > 20000, "the mutations include documents the fast reader reads (%d)", accepted);
  json_t *env = kip_json_parse_fast(docs[0], strlen(docs[0]));
  CHECK(env != NULL, "a request envelope is read fast");
  json_decref(env);
}

/* PostgreSQL (test_core --pg URL, run by tests/pg_specs.py): a read that
** assumes the write generation runs its statements without a transaction
** (store_pg.c, kip_pg_run), each in its own snapshot; a write another
** connection commits before or between them makes the read stale (it is
** then repeated in a transaction), and none leaves it fresh */
static int64_t count_elements(kip_nexus *nx) {
  kip_stmt *st;
  if (kip_prepare(nx, "SELECT count(*) FROM element", -1, &st) != KIP_STORE_OK) return -1;
  int64_t n = kip_step(st) == KIP_ROW ? kip_col_int64(st, 0) : -1;
  kip_finish(nx, st);
  return n;
}

/* one assuming read of two statements; `write_at` 0: no write, 1: another
** connection writes before the first statement, 2: between them */
static int assuming_read_stale(kip_nexus *nx, kip_nexus *other, int write_at, int *seen_write) {
  kip_error e;
  static int n;
  char w[160];
  snprintf(w, sizeof w, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"W%d\\\"} } }\"}", ++n);
  free(call(nx, "{\"command\":\"FIND(?p) WHERE { ?p {type: \\\"Person\\\"} }\"}", 0)); /* the generation, seen */
  CHECK(kip_tx_begin_read_repeatable(nx, &e) == 0, "begin an assuming read");
  kip_store_file_version(nx); /* what a compile asks: assumed, not read */
  if (write_at == 1) free(call(other, w, 0));
  int64_t a = count_elements(nx);
  if (write_at == 2) free(call(other, w, 0));
  int64_t b = count_elements(nx);
  *seen_write = a != b;
  return kip_tx_end_read_stale(nx);
}

/* two connections to a fresh nexus `name`<pid> on the server at base; 0
** (reported) when either cannot open */
static int open_pg_pair(const char *base, const char *name, kip_nexus **nx, kip_nexus **other) {
  char url[512];
  snprintf(url, sizeof url, "%s%snexus=%s%d", base, strchr(base, '?') ? "&" : "?", name, (int)getpid());
  kip_error e;
  *nx = *other = NULL;
  CHECK(kip_open(url, NULL, nx, &e) == 0, "open: %s", e.message);
  CHECK(*nx && kip_open(url, NULL, other, &e) == 0, "open a second connection: %s", e.message);
  if (*nx && *other) return 1;
  if (*nx) kip_close(*nx);
  return 0;
}

/* closes both and drops the nexus's schema */
static void close_pg_pair(kip_nexus *nx, kip_nexus *other, const char *name) {
  kip_error e;
  kip_close(nx);
  char drop[96];
  snprintf(drop, sizeof drop, "DROP SCHEMA kip_%s%d CASCADE", name, (int)getpid());
  CHECK(kip_store_exec(other, drop, &e, "dropping the test's nexus") == 0, "drop the nexus: %s", e.message);
  kip_close(other);
}

static void test_unwrapped_reads(const char *base) {
  kip_nexus *nx, *other;
  kip_error e;
  if (!open_pg_pair(base, "unwrapped", &nx, &other)) return;
  free(call(other, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"Ann\\\"} } }\"}", 0));
  int seen;
  CHECK(assuming_read_stale(nx, other, 0, &seen) == 0 && !seen, "no write: the assumption holds");
  CHECK(assuming_read_stale(nx, other, 1, &seen) == 1, "a write before the first statement: stale");
  CHECK(assuming_read_stale(nx, other, 2, &seen) == 1 && seen, "a write between the statements: stale");
  CHECK(assuming_read_stale(nx, other, 0, &seen) == 0, "the generation it read is assumed next");
  /* a write begun inside such a read voids it, and the read is repeated in a transaction */
  free(call(nx, "{\"command\":\"FIND(?p) WHERE { ?p {type: \\\"Person\\\"} }\"}", 0));
  CHECK(kip_tx_begin_read_repeatable(nx, &e) == 0, "begin an assuming read");
  kip_store_file_version(nx);
  count_elements(nx);
  CHECK(kip_tx_begin(nx, &e) != 0, "no write inside it");
  CHECK(kip_tx_end_read_stale(nx) == 1, "and it is repeated");
  EXPECT(nx, "{\"command\":\"FIND(COUNT(?p)) WHERE { ?p {type: \\\"Person\\\"} }\"}", 0, "\"result\":5");
  close_pg_pair(nx, other, "unwrapped");
}

/* a write command's new elements go to the server as COPY rows
** (store_pg_batch.c): any text arrives byte for byte without the command
** being run again one insert at a time — which would also write the right
** bytes, so only the count of re-runs tells that the batch's own encoding
** failed; a batch that meets an element another connection wrote is run again */
static void test_batch_texts(const char *base) {
  kip_nexus *nx, *other;
  if (!open_pg_pair(base, "batch", &nx, &other)) return;
  /* (the texts as parameters: what the batch carries, with no KIP or JSON escapes in between) */
  static const char *const names[] = {"tab\there", "line\nbreak", "cr\rhere", "back\\slash", "\\N",
                                      "\\.", "quote\"d", "\xc3\xbc" "n\xc3\xaf" "c \xe5\x90\x8d", "end\\"};
  enum { N = sizeof names / sizeof *names };
  kip_buf cmd;
  kip_buf_init(&cmd);
  kip_buf_adds(&cmd, "UPSERT { ");
  for (int i = 0; i < N; i++)
    kip_buf_printf(&cmd, "CONCEPT ?c%d { {type: \"Person\", name: :n%d} SET ATTRIBUTES { note: :n%d } } ", i, i, i);
  for (int i = 1; i < N; i++)
    kip_buf_printf(&cmd, "PROPOSITION ?l%d { (?c%d, \"mentions\", ?c%d) SET ATTRIBUTES { note: :n%d } } ", i, i - 1, i, i);
  kip_buf_adds(&cmd, "} WITH METADATA { source: \"test\", author: \"$system\" }");
  kip_buf_addc(&cmd, 0);
  json_t *params = json_object();
  for (int i = 0; i < N; i++) {
    char key[8];
    snprintf(key, sizeof key, "n%d", i);
    json_object_set_new(params, key, json_string(names[i]));
  }
  json_t *req = json_pack("{s:s, s:O}", "command", cmd.p, "parameters", params);
  char *text = json_dumps(req, JSON_COMPACT);
  char *r = call(nx, text, 0);
  CHECK(r && !strstr(r, "\"error\""), "the texts are written: %s", r ? r : "(null)");
  free(r);
  free(text);
  json_decref(req);
  CHECK(nx->pg->batch_reruns == 0, "by the batch, not run again (%lld re-runs: %s)", (long long)nx->pg->batch_reruns,
        nx->pg->message);
  /* each text read back by another connection, byte for byte */
  for (int i = 0; i < N; i++) {
    char key[8];
    snprintf(key, sizeof key, "n%d", i);
    req = json_pack("{s:s, s:{s:s}}", "command", "FIND(?p.name, ?p.attributes.note) WHERE { ?p {type: \"Person\", name: :n} }",
                    "parameters", "n", names[i]);
    text = json_dumps(req, JSON_COMPACT);
    r = call(other, text, 1);
    json_t *got = r ? json_loads(r, 0, NULL) : NULL;
    json_t *want = json_pack("[[s], [s]]", names[i], names[i]);
    CHECK(got && json_equal(json_object_get(got, "result"), want), "text %d read back: %s", i, r ? r : "(null)");
    json_decref(want);
    json_decref(got);
    free(r);
    free(text);
    json_decref(req);
  }
  EXPECT(other, "{\"command\":\"FIND(COUNT(?l)) WHERE { ?l (?s, \\\"mentions\\\", ?o) }\"}", 0, "\"result\":8");
  /* a command larger than an id extent: its rows come in more than one
  ** run of ids, not all in order, and go sorted (the inserts walk the
  ** primary key in order), each one once */
  kip_buf big;
  kip_buf_init(&big);
  kip_buf_adds(&big, "{\"command\":\"UPSERT { ");
  for (int i = 0; i < 2100; i++) kip_buf_printf(&big, "CONCEPT ?c%d { {type: \\\"Person\\\", name: \\\"B%d\\\"} } ", i, i);
  for (int i = 1; i < 2100; i++) kip_buf_printf(&big, "PROPOSITION ?l%d { (?c%d, \\\"mentions\\\", ?c%d) } ", i, i - 1, i);
  kip_buf_adds(&big, "}\"}");
  kip_buf_addc(&big, 0);
  r = call(nx, big.p, 0);
  CHECK(r && !strstr(r, "\"error\""), "a large command is written: %.200s", r ? r : "(null)");
  free(r);
  kip_buf_free(&big);
  CHECK(nx->pg->batch_reruns == 0, "by its batches (%lld re-runs: %s)", (long long)nx->pg->batch_reruns, nx->pg->message);
  EXPECT(other, "{\"command\":\"FIND(COUNT(?l)) WHERE { ?l (?s, \\\"mentions\\\", ?o) }\"}", 0, "\"result\":2107");
  /* a batch larger than a piece of COPY data (1 MiB): sent in pieces, whole */
  char *longtext = malloc(400001);
  if (!longtext) abort();
  for (int i = 0; i < 400000; i++) longtext[i] = (char)('a' + i % 26);
  longtext[400000] = 0;
  req = json_pack("{s:s, s:{s:s}}", "command",
                  "UPSERT { CONCEPT ?a { {type: \"Person\", name: \"L1\"} SET ATTRIBUTES { note: :t } } "
                  "CONCEPT ?b { {type: \"Person\", name: \"L2\"} SET ATTRIBUTES { note: :t } } "
                  "CONCEPT ?c { {type: \"Person\", name: \"L3\"} SET ATTRIBUTES { note: :t } } }",
                  "parameters", "t", longtext);
  text = json_dumps(req, JSON_COMPACT);
  r = call(nx, text, 0);
  CHECK(r && !strstr(r, "\"error\""), "long texts are written: %.200s", r ? r : "(null)");
  free(r);
  free(text);
  json_decref(req);
  CHECK(nx->pg->batch_reruns == 0, "by a batch sent in pieces (%lld re-runs: %s)", (long long)nx->pg->batch_reruns,
        nx->pg->message);
  r = call(other, "{\"command\":\"FIND(?p.attributes.note) WHERE { ?p {type: \\\"Person\\\", name: \\\"L3\\\"} }\"}", 1);
  json_t *got = r ? json_loads(r, 0, NULL) : NULL;
  json_t *note = json_array_get(json_object_get(got, "result"), 0);
  CHECK(note && json_is_string(note) && !strcmp(json_string_value(note), longtext), "and read back whole");
  json_decref(got);
  free(r);
  free(longtext);
  /* a link the other connection wrote, named by handles (not looked up
  ** ahead): the batch fails on it, and the command runs again */
  free(call(other, "{\"command\":\"UPSERT { CONCEPT ?a { {type: \\\"Person\\\", name: \\\"Early\\\"} } "
                   "CONCEPT ?b { {type: \\\"Person\\\", name: \\\"Late\\\"} } PROPOSITION ?l { (?a, \\\"mentions\\\", ?b) } }\"}", 0));
  r = call(nx, "{\"command\":\"UPSERT { CONCEPT ?a { {type: \\\"Person\\\", name: \\\"Early\\\"} } "
               "CONCEPT ?b { {type: \\\"Person\\\", name: \\\"Late\\\"} } "
               "PROPOSITION ?l { (?a, \\\"mentions\\\", ?b) SET ATTRIBUTES { n: 2 } } }\"}", 0);
  CHECK(r && !strstr(r, "\"error\""), "written again: %s", r ? r : "(null)");
  free(r);
  CHECK(nx->pg->batch_reruns == 1, "once, one insert at a time (%lld re-runs)", (long long)nx->pg->batch_reruns);
  EXPECT(other, "{\"command\":\"FIND(?l.attributes.n) WHERE { ?l ({type: \\\"Person\\\", name: \\\"Early\\\"}, \\\"mentions\\\", ?o) }\"}", 0,
         "\"result\":[2]");
  kip_buf_free(&cmd);
  close_pg_pair(nx, other, "batch");
}

int main(int argc, char **argv) {
  if (argc == 3 && !strcmp(argv[1], "--pg")) {
    test_unwrapped_reads(argv[2]);
    test_batch_texts(argv[2]);
    printf("%d passed, %d failed (PostgreSQL)\n", passed, failed);
    return failed ? 1 : 0;
  }
  test_json_fast();
  test_format();
  test_call_command();
  test_write_generation();
  test_change_log();
  test_guards();
  test_guard_unindexed();
  test_migration_v5();
  test_migration_v7();
  test_search_reindex();
  test_search_merging();
  test_export_paging();
  test_bulk_writes();
  test_bulk_concept_memo();
  test_deferred_indexes();
  test_index_builder();
  test_write_guards();
  test_lexer();
  test_parser();
  test_nexus();
  test_limits();
  test_plans();
  test_plan_cache();
  test_unique_solutions();
  test_ids();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
