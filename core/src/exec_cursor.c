/*
** exec_cursor.c — paging cursors (RC11 §3.4): an opaque token binding the
** offset to a fingerprint of the compiled query and its bound values, so a
** cursor only continues the query that made it.
*/
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "exec.h"

static uint64_t fnv(uint64_t h, const void *p, size_t n) {
  const unsigned char *s = p;
  for (size_t i = 0; i < n; i++) h = (h ^ s[i]) * 1099511628211ULL;
  return h;
}

uint64_t kip_query_fingerprint(const char *sql, const json_t *binds) {
  uint64_t h = fnv(1469598103934665603ULL, sql, strlen(sql));
  char *b = kip_json_dump(binds);
  h = fnv(h, b, strlen(b));
  free(b);
  return h;
}

char *kip_cursor_make(uint64_t fp, int64_t offset) {
  char buf[64];
  uint32_t check = (uint32_t)(fnv(fp, &offset, sizeof offset) >> 7);
  snprintf(buf, sizeof buf, "k1.%llx.%016llx.%08x", (unsigned long long)offset, (unsigned long long)fp, check);
  return strdup(buf);
}

int kip_cursor_parse(const json_t *cur, uint64_t fp, int64_t *offset, kip_error *err) {
  *offset = 0;
  if (!cur) return 0;
  const char *s = json_string_value(cur);
  unsigned long long off, f;
  unsigned check;
  char tail;
  if (sscanf(s, "k1.%llx.%16llx.%8x%c", &off, &f, &check, &tail) != 3 || off > (unsigned long long)INT64_MAX ||
      (uint32_t)(fnv(f, &(int64_t){(int64_t)off}, sizeof(int64_t)) >> 7) != check)
    return kip_err(err, KIP_E_SYNTAX, "Pass the next_cursor value of a previous response unchanged.",
                   "malformed CURSOR token \"%.60s\"", s);
  if (f != fp)
    return kip_err(err, KIP_E_SYNTAX, "A cursor only continues the query that produced it (same text and parameters).",
                   "CURSOR token belongs to a different query");
  *offset = (int64_t)off;
  return 0;
}

/* ------------------------------------------------------------ FIND */
