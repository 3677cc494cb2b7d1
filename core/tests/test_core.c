/*
** test_core.c — C unit tests of libkipcore: lexer, parser (positions, error
** codes, placeholders, limits), request envelope, store and UPSERT.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kipint.h"
#include "lexer.h"

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

static void test_nexus(void) {
  char path[] = "/tmp/kip_test_XXXXXX";
  int fd = mkstemp(path);
  close(fd);
  unlink(path);
  kip_nexus *nx;
  kip_error e;
  int rc = kip_open(path, NULL, &nx, &e);
  CHECK(rc == 0, "open: %s", e.message);
  if (rc) return;
  char *r = call(nx, "{\"command\":\"FIND(?d.name) WHERE { ?d {type: \\\"Domain\\\", name: \\\"CoreSchema\\\"} }\"}", 0);
  CHECK(!strcmp(r, "{\"result\":[\"CoreSchema\"]}"), "genesis: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"x\",\"commands\":[]}", 0);
  CHECK(strstr(r, "KIP_1001") != NULL, "command and commands: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"DESCRIBE PRIMER\",\"bogus\":1}", 0);
  CHECK(strstr(r, "unknown field") != NULL, "unknown field: %s", r);
  free(r);
  r = call(nx, "{\"commands\":[\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"A\\\"} } }\","
               "\"UPSERT { CONCEPT ?p { {type: \\\"Robot\\\", name: \\\"B\\\"} } }\",\"FIND(?p) WHERE {}\"]}", 0);
  CHECK(strstr(r, "\"upsert_concept_nodes\":[\"C:") && strstr(r, "KIP_2001") && !strstr(r, "FIND"),
        "batch stop on KML error: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"A\\\"} EXPECT VERSION 5 } }\"}", 0);
  CHECK(strstr(r, "KIP_3005") != NULL, "version conflict: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"C\\\"} } }\",\"dry_run\":true}", 0);
  CHECK(strstr(r, "\"upsert_concept_nodes\":[]") != NULL, "dry run: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"FIND(?p) WHERE { ?p {type: \\\"Person\\\", name: \\\"C\\\"} }\"}", 0);
  CHECK(!strcmp(r, "{\"result\":[]}"), "dry run wrote nothing: %s", r);
  free(r);
  r = call(nx, "{\"command\":\"UPSERT { CONCEPT ?p { {type: \\\"Person\\\", name: \\\"C\\\"} } }\"}", 1);
  CHECK(strstr(r, "KIP_4004") != NULL, "readonly: %s", r);
  free(r);
  kip_close(nx);
  /* reopen: hashes recorded, nothing re-applied, data kept */
  rc = kip_open(path, NULL, &nx, &e);
  CHECK(rc == 0, "reopen: %s", e.message);
  if (!rc) {
    r = call(nx, "{\"command\":\"FIND(COUNT(?p)) WHERE { ?p {type: \\\"Person\\\", name: \\\"A\\\"} }\"}", 0);
    CHECK(!strcmp(r, "{\"result\":1}"), "persisted: %s", r);
    free(r);
    kip_close(nx);
  }
  char side[600];
  snprintf(side, sizeof side, "%s-wal", path);
  unlink(side);
  snprintf(side, sizeof side, "%s-shm", path);
  unlink(side);
  unlink(path);
}

int main(void) {
  test_lexer();
  test_parser();
  test_nexus();
  printf("%d passed, %d failed\n", passed, failed);
  return failed ? 1 : 0;
}
