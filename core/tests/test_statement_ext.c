/*
** test_statement_ext.c — a statement kind added from outside the tree
** (docs/extending.md "Statement kinds"): this program links a core built
** with -DKIP_STATEMENT_DIR=docs/examples/statement, whose PING statement
** must parse, print as JSON, describe itself to policies, run through
** kip_call_json like every statement, and appear in the syntax errors'
** hints — without any file of core/ naming it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include "kip.h"

static int failures, passes;
#define CHECK(cond, ...)                          \
  do {                                            \
    if (cond) passes++;                           \
    else {                                        \
      failures++;                                 \
      fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__); \
      fprintf(stderr, __VA_ARGS__);               \
      fprintf(stderr, "\n");                      \
    }                                             \
  } while (0)

static void expect(kip_nexus *nx, const char *request, const char *want) {
  char *r = kip_call_json(nx, request, strlen(request), NULL);
  CHECK(r && strstr(r, want), "%s: expected %s in %s", request, want, r ? r : "(null)");
  kip_free(r);
}

int main(void) {
  char path[] = "/tmp/kip_stmt_ext_XXXXXX";
  int fd = mkstemp(path);
  if (fd < 0) return 1;
  close(fd);
  unlink(path);
  kip_nexus *nx;
  kip_error e;
  if (kip_open(path, NULL, &nx, &e)) {
    fprintf(stderr, "open: %s\n", e.message);
    return 1;
  }
  expect(nx, "{\"command\": \"PING\"}", "{\"result\":{\"pong\":true}}");
  expect(nx, "{\"command\": \"PING \\\"hello\\\"\"}", "{\"result\":{\"pong\":\"hello\"}}");
  expect(nx, "{\"command\": \"PING :v\", \"parameters\": {\"v\": [1, 2]}}", "{\"result\":{\"pong\":[1,2]}}");
  expect(nx, "{\"command\": \"PING :missing\"}", "KIP_3001");
  expect(nx, "{\"command\": \"PNG\"}", "Did you mean PING?");
  expect(nx, "{\"command\": \"HELLO\"}", "or PING.");
  expect(nx, "{\"command\": \"PING 1 2\"}", "after the end of the PING statement");
  /* read-only: allowed on the read-only interface */
  kip_call_options ro = {0};
  ro.readonly = 1;
  char *r = kip_call_json(nx, "{\"command\": \"PING\"}", 19, &ro);
  CHECK(r && strstr(r, "\"pong\""), "read-only PING: %s", r ? r : "(null)");
  kip_free(r);
  char *ast = kip_parse_json("PING 42", 7, NULL);
  CHECK(ast && strstr(ast, "\"statement\":\"PING\"") && strstr(ast, "\"value\":42"), "kip parse: %s", ast ? ast : "");
  kip_free(ast);
  char *d = kip_describe_json("PING", 4, NULL);
  CHECK(d && strstr(d, "\"kind\":\"PING\"") && strstr(d, "\"mutates\":false"), "describe: %s", d ? d : "");
  kip_free(d);
  /* the core's statements are untouched */
  expect(nx, "{\"command\": \"DESCRIBE PRIMER\"}", "\"result\"");
  kip_close(nx);
  unlink(path);
  char wal[64];
  snprintf(wal, sizeof wal, "%s-wal", path);
  unlink(wal);
  snprintf(wal, sizeof wal, "%s-shm", path);
  unlink(wal);
  printf("%d passed, %d failed\n", passes, failures);
  return failures ? 1 : 0;
}
