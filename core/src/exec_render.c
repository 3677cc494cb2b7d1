/*
** exec_render.c — elements as RC11 JSON (§6.2.2): ids as C:/P: strings,
** attributes and metadata in the engine's key order, the engine-managed
** _version/_updated_at (and SEARCH's transient _score) — shared by FIND,
** DESCRIBE, SEARCH and EXPORT.
*/
#include <stdlib.h>
#include <string.h>

#include "exec.h"

void kip_write_id(kip_buf *b, int64_t id, int is_prop) {
  char s[32];
  kip_format_id(s, sizeof s, id, is_prop);
  kip_buf_json_str(b, s, strlen(s));
}

void kip_write_text(kip_buf *b, kip_stmt *st, int i) {
  if (kip_col_type(st, i) == KIP_COL_NULL) kip_buf_adds(b, "null");
  else kip_buf_json_str(b, kip_col_text(st, i), (size_t)kip_col_bytes(st, i));
}

void kip_write_raw(kip_buf *b, kip_stmt *st, int i) {
  if (kip_col_type(st, i) == KIP_COL_NULL) kip_buf_adds(b, "null");
  else kip_buf_add(b, kip_col_text(st, i), (size_t)kip_col_bytes(st, i));
}

void kip_write_kv(kip_buf *b, kip_stmt *st, int i) {
  switch (kip_col_type(st, i)) {
    case KIP_COL_NULL: kip_buf_adds(b, "null"); break;
    case KIP_COL_INT: kip_buf_printf(b, "%lld", (long long)kip_col_int64(st, i)); break;
    case KIP_COL_REAL: {
      json_t *r = json_real(kip_col_double(st, i));
      kip_json_write(b, r);
      json_decref(r);
      break;
    }
    case KIP_COL_TEXT: kip_write_text(b, st, i); break;
    default: kip_buf_add(b, kip_col_blob(st, i), (size_t)kip_col_bytes(st, i));
  }
}

/* metadata text + _version + _updated_at (+ the transient _score of SEARCH) */
void kip_write_metadata(kip_buf *b, const char *meta, size_t n, int64_t version, const char *updated_at,
                        const double *score) {
  while (n && meta[n - 1] != '}') n--;
  if (n < 2) {
    meta = "{}";
    n = 2;
  }
  kip_buf_add(b, meta, n - 1);
  int empty = 1;
  for (size_t i = 1; i + 1 < n; i++)
    if (meta[i] != ' ') {
      empty = 0;
      break;
    }
  kip_buf_printf(b, "%s\"_version\":%lld,\"_updated_at\":", empty ? "" : ",", (long long)version);
  kip_buf_json_str(b, updated_at ? updated_at : "", updated_at ? strlen(updated_at) : 0);
  if (score) {
    json_t *v = json_real(*score);
    kip_buf_adds(b, ",\"_score\":");
    kip_json_write(b, v);
    json_decref(v);
  }
  kip_buf_addc(b, '}');
}

void kip_write_element(kip_buf *b, kip_stmt *st, int c) { kip_write_scored_element(b, st, c, NULL); }

void kip_write_scored_element(kip_buf *b, kip_stmt *st, int c, const double *score) {
  if (kip_col_type(st, c) == KIP_COL_NULL) {
    kip_buf_adds(b, "null");
    return;
  }
  int64_t id = kip_col_int64(st, c);
  int is_prop = kip_col_type(st, c + 1) == KIP_COL_NULL;
  kip_buf_adds(b, "{\"id\":");
  kip_write_id(b, id, is_prop);
  if (!is_prop) {
    kip_buf_adds(b, ",\"type\":");
    kip_write_text(b, st, c + 1);
    kip_buf_adds(b, ",\"name\":");
    kip_write_text(b, st, c + 2);
  } else {
    kip_buf_adds(b, ",\"subject\":");
    kip_write_id(b, kip_col_int64(st, c + 3), (int)kip_col_int64(st, c + 10));
    kip_buf_adds(b, ",\"predicate\":");
    kip_write_text(b, st, c + 4);
    kip_buf_adds(b, ",\"object\":");
    kip_write_id(b, kip_col_int64(st, c + 5), (int)kip_col_int64(st, c + 11));
  }
  kip_buf_adds(b, ",\"attributes\":");
  kip_write_raw(b, st, c + 6);
  kip_buf_adds(b, ",\"metadata\":");
  kip_write_metadata(b, kip_col_text(st, c + 7), (size_t)kip_col_bytes(st, c + 7),
                     kip_col_int64(st, c + 8), kip_col_text(st, c + 9), score);
  kip_buf_addc(b, '}');
}

