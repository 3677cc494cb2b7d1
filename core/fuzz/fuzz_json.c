/*
** fuzz_json.c — libFuzzer target for the fast JSON reader of requests
** (json.c kip_json_parse_fast), differential against jansson: for every
** input the fast reader either gives up or gives exactly the value jansson
** reads (same types, same keys in the same order). Build with -DKIP_FUZZ=ON
** (clang); run e.g. `build-san/fuzz_json -max_total_time=600`.
*/
#include <stdlib.h>
#include <string.h>

#include "kipint.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  json_t *fast = kip_json_parse_fast((const char *)data, size);
  if (!fast) return 0;
  json_t *slow = json_loadb((const char *)data, size, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
  if (!slow || !json_equal(fast, slow)) __builtin_trap();
  char *a = kip_json_dump(fast), *b = kip_json_dump(slow);
  if (strcmp(a, b)) __builtin_trap(); /* key order, integer or real */
  free(a);
  free(b);
  json_decref(fast);
  json_decref(slow);
  return 0;
}
