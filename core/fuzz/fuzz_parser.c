/*
** fuzz_parser.c — libFuzzer target for the KIP lexer and parser.
**
** Feeds arbitrary bytes to kip_parse_json (lexer, placeholder substitution,
** recursive-descent parser, AST -> JSON) with and without a parameter set.
** The parser must return an AST or a KIP error for every input: no crash, no
** hang, no leak, no undefined behaviour. Build with -DKIP_FUZZ=ON (clang);
** run e.g. `build-fuzz/fuzz_parser -max_total_time=600 core/fuzz/corpus`.
*/
#include <stddef.h>
#include <stdint.h>
#include <string.h>

#include "kip.h"

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  static const char *params =
      "{\"n\":\"Ann\",\"k\":3,\"f\":1.5,\"b\":true,\"z\":null,\"a\":[1,\"x\"],\"o\":{\"k\":\"v\"}}";
  char *out = kip_parse_json((const char *)data, size, NULL);
  if (!out || out[0] != '{') __builtin_trap();
  kip_free(out);
  out = kip_parse_json((const char *)data, size, params);
  if (!out || out[0] != '{') __builtin_trap();
  kip_free(out);
  return 0;
}
