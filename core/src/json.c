/*
** json.c — JSON text <-> jansson values for libkipcore. Writes compact JSON
** with insertion-ordered keys and the shortest decimal that round-trips each
** real (jansson's own dumper prints 0.8 as 0.80000000000000004); parses with
** exact 64-bit integers; shallow merge for SET ATTRIBUTES / WITH METADATA.
*/
#include "kipint.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static void write_real(kip_buf *b, double d) {
  if (!isfinite(d)) {
    kip_buf_adds(b, "null");
    return;
  }
  char tmp[40];
  for (int prec = 1; prec <= 17; prec++) {
    snprintf(tmp, sizeof tmp, "%.*g", prec, d);
    if (strtod(tmp, NULL) == d) break;
  }
  /* keep it a real on re-read: 2 -> 2.0 */
  if (!strpbrk(tmp, ".eEn")) strcat(tmp, ".0");
  kip_buf_adds(b, tmp);
}

void kip_json_write(kip_buf *b, const json_t *v) {
  if (!v) {
    kip_buf_adds(b, "null");
    return;
  }
  switch (json_typeof(v)) {
    case JSON_OBJECT: {
      const char *k;
      json_t *x;
      int first = 1;
      kip_buf_addc(b, '{');
      json_object_foreach((json_t *)v, k, x) {
        if (!first) kip_buf_addc(b, ',');
        first = 0;
        kip_buf_json_str(b, k, strlen(k));
        kip_buf_addc(b, ':');
        kip_json_write(b, x);
      }
      kip_buf_addc(b, '}');
      break;
    }
    case JSON_ARRAY: {
      kip_buf_addc(b, '[');
      for (size_t i = 0; i < json_array_size(v); i++) {
        if (i) kip_buf_addc(b, ',');
        kip_json_write(b, json_array_get(v, i));
      }
      kip_buf_addc(b, ']');
      break;
    }
    case JSON_STRING: kip_buf_json_str(b, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: kip_buf_printf(b, "%lld", (long long)json_integer_value(v)); break;
    case JSON_REAL: write_real(b, json_real_value(v)); break;
    case JSON_TRUE: kip_buf_adds(b, "true"); break;
    case JSON_FALSE: kip_buf_adds(b, "false"); break;
    case JSON_NULL: kip_buf_adds(b, "null"); break;
  }
}

char *kip_json_format(const json_t *v) { return kip_json_dump(v); }

int kip_json_has_nul(const json_t *v) {
  switch (json_typeof(v)) {
    case JSON_STRING: return memchr(json_string_value(v), 0, json_string_length(v)) != NULL;
    case JSON_ARRAY:
      for (size_t i = 0; i < json_array_size(v); i++)
        if (kip_json_has_nul(json_array_get(v, i))) return 1;
      return 0;
    case JSON_OBJECT: {
      const char *k;
      json_t *x;
      json_object_foreach((json_t *)v, k, x) if (kip_json_has_nul(x)) return 1;
      return 0;
    }
    default: return 0;
  }
}

char *kip_json_dump(const json_t *v) {
  kip_buf b;
  kip_buf_init(&b);
  kip_json_write(&b, v);
  return kip_buf_detach(&b);
}

json_t *kip_json_parse(const char *s, size_t n, kip_error *err) {
  json_error_t je;
  json_t *v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
  if (!v && err)
    kip_err_at(err, KIP_E_SYNTAX, je.line, je.column, "Send a valid JSON document.",
               "invalid JSON: %s", je.text);
  return v;
}

void kip_json_write_error(kip_buf *b, const kip_error *e) {
  kip_buf_adds(b, "{\"code\":");
  char code[16];
  snprintf(code, sizeof code, "KIP_%04d", e->code);
  kip_buf_json_str(b, code, strlen(code));
  kip_buf_adds(b, ",\"name\":");
  const char *nm = kip_code_name(e->code);
  kip_buf_json_str(b, nm, strlen(nm));
  kip_buf_adds(b, ",\"message\":");
  kip_buf_json_str(b, e->message, strlen(e->message));
  kip_buf_adds(b, ",\"hint\":");
  kip_buf_json_str(b, e->hint, strlen(e->hint));
  if (e->line > 0) kip_buf_printf(b, ",\"line\":%d,\"column\":%d", e->line, e->column);
  kip_buf_addc(b, '}');
}

json_t *kip_json_merge(const json_t *dst, const json_t *src) {
  json_t *out = dst ? json_copy((json_t *)dst) : json_object();
  if (src) json_object_update(out, (json_t *)src);
  return out;
}
