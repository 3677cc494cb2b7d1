/*
** fuzz_exec.c — libFuzzer target for parser + compiler + executor.
**
** Opens one in-memory nexus with a small fixture graph (people, events, a
** higher-order link, a cycle) and runs every input as a KIP command inside a
** dry_run request (a rolled-back transaction), so the fixture never changes
** and each input is reproducible on its own. An input starting with '{' is
** instead sent as a raw request envelope with the readonly option (fuzzing
** the envelope parser without letting KML mutate the fixture); one starting
** with '!' runs the rest under a governance scope (eligibility filter and
** forbidden types), fuzzing scope compilation and enforcement. Tight
** deadline, row and hop budgets keep every run bounded.
*/
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <jansson.h>

#include "kip.h"

int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

static kip_nexus *nx;
static const kip_call_options budget = {.deadline_ms = 250, .max_rows = 2000, .max_hops = 6};

static const char fixture[] =
    "UPSERT {"
    " CONCEPT ?t { {type: \"$ConceptType\", name: \"Tool\"} SET ATTRIBUTES { description: \"A tool\" } }"
    " CONCEPT ?ua { {type: \"$PropositionType\", name: \"uses\"} }"
    " CONCEPT ?lk { {type: \"$PropositionType\", name: \"likes\"} }"
    " CONCEPT ?a { {type: \"Person\", name: \"Ann\"} SET ATTRIBUTES { age: 31, aliases: [\"Annie\"], tags: [\"x\"] } }"
    " CONCEPT ?b { {type: \"Person\", name: \"Bob\"} SET ATTRIBUTES { age: 42 }"
    "   SET PROPOSITIONS { (\"likes\", ?a) WITH METADATA { confidence: 0.8 } } }"
    " CONCEPT ?h { {type: \"Tool\", name: \"Hammer\"} SET ATTRIBUTES { weight: 1.5, description: \"heavy\" } }"
    " CONCEPT ?s { {type: \"Person\", name: \"Sec\"} SET PROPOSITIONS { (\"likes\", ?h) } } WITH METADATA { access_level: \"private\" }"
    " CONCEPT ?a2 { {type: \"Person\", name: \"Ann\"} SET PROPOSITIONS { (\"uses\", ?h), (\"likes\", ?b) } }"
    " PROPOSITION ?ho { (?a2, \"likes\", (?b, \"likes\", ?a)) }"
    " CONCEPT ?e { {type: \"Event\", name: \"Meeting\"} SET ATTRIBUTES { event_class: \"Meeting\","
    "   start_time: \"2025-01-01T10:00:00Z\", content_summary: \"met\" }"
    "   SET PROPOSITIONS { (\"involves\", ?a), (\"involves\", ?b) } }"
    "}";

int LLVMFuzzerInitialize(int *argc, char ***argv) {
  (void)argc; (void)argv;
  kip_error err;
  if (kip_open(":memory:", NULL, &nx, &err) != 0) {
    fprintf(stderr, "fuzz_exec: cannot open nexus: %s\n", err.message);
    abort();
  }
  json_t *req = json_pack("{s:s}", "command", fixture);
  char *text = json_dumps(req, 0);
  char *res = kip_call_json(nx, text, strlen(text), NULL);
  if (!res || strstr(res, "\"error\"")) {
    fprintf(stderr, "fuzz_exec: fixture failed: %s\n", res ? res : "(null)");
    abort();
  }
  kip_free(res); free(text); json_decref(req);
  return 0;
}

static const char *const forbidden[] = {"Tool", NULL};

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  char *res;
  kip_call_options opt = budget;
  if (size > 0 && data[0] == '!') {
    opt.eligibility = "?e.metadata.access_level != \"private\" || ?e.name == :who";
    opt.eligibility_params = "{\"who\":\"Ann\"}";
    opt.forbidden_types = forbidden;
    data++;
    size--;
  }
  if (size > 0 && data[0] == '{') {
    kip_call_options ro = opt;
    ro.readonly = 1;
    res = kip_call_json(nx, (const char *)data, size, &ro);
  } else {
    json_t *s = json_stringn((const char *)data, size);
    if (!s) return 0; /* not UTF-8: cannot arrive through a JSON envelope */
    json_t *req = json_pack("{s:o,s:b,s:{s:s,s:i}}", "command", s, "dry_run", 1,
                            "parameters", "n", "Ann", "k", 2);
    char *text = json_dumps(req, 0);
    res = kip_call_json(nx, text, strlen(text), &opt);
    free(text); json_decref(req);
  }
  if (!res || res[0] != '{') __builtin_trap();
  kip_free(res);
  return 0;
}
