/*
** json.c — JSON text <-> jansson values for libkipcore. Writes compact JSON
** with insertion-ordered keys and the shortest decimal that round-trips each
** real (jansson's own dumper prints 0.8 as 0.80000000000000004); parses with
** exact 64-bit integers; shallow merge for SET ATTRIBUTES / WITH METADATA.
*/
#include "kipint.h"

#include <errno.h>
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

int kip_json_depth(const json_t *v) {
  int d = 0;
  if (json_is_array(v)) {
    for (size_t i = 0; i < json_array_size(v); i++) {
      int x = kip_json_depth(json_array_get(v, i));
      if (x > d) d = x;
    }
    return d + 1;
  }
  if (json_is_object(v)) {
    const char *k;
    json_t *x;
    json_object_foreach((json_t *)v, k, x) {
      int y = kip_json_depth(x);
      if (y > d) d = y;
    }
    return d + 1;
  }
  return 0;
}

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

/* ------------------------------------------------------- a fast reader
** jansson reads a document a character at a time through a stream: ~17 000
** instructions for a 110-byte request envelope, a quarter of a point
** lookup's cost (docs/performance.md). This reader takes the JSON requests
** are made of — objects, arrays, strings (valid UTF-8; escapes, surrogate
** pairs, U+0000), 64-bit integers, reals, literals — and builds the same
** jansson values jansson would; anything else (invalid UTF-8, a lone
** surrogate, an integer beyond 64 bits, a real out of range, nesting deeper
** than FAST_DEPTH, a NUL in a key, trailing text) makes it return NULL, and
** the caller reads the text with jansson, whose result and error messages
** are then the answer. tests: test_core.c test_json_fast (differential). */
#include <locale.h>

enum { FAST_DEPTH = 256 };

typedef struct {
  const unsigned char *p, *e;
  kip_buf tmp; /* a string being unescaped */
} fast_rd;

static void fast_ws(fast_rd *r) {
  while (r->p < r->e && (*r->p == ' ' || *r->p == '\t' || *r->p == '\n' || *r->p == '\r')) r->p++;
}

/* the string at r->p (after its opening quote) into r->tmp; 1, or 0 to give up */
/* after a member or an element: 1 at a ',' (another follows), 0 at the
** container's `close` (it ends), -1 at anything else; the mark is consumed */
static int fast_next(fast_rd *r, char close) {
  fast_ws(r);
  if (r->p < r->e && (*r->p == ',' || *r->p == close)) return *r->p++ == ',';
  return -1;
}

static int fast_string(fast_rd *r) {
  r->tmp.len = 0;
  const unsigned char *p = r->p, *e = r->e;
  for (;;) {
    const unsigned char *run = p;
    while (p < e && *p != '"' && *p != '\\' && *p >= 0x20 && *p < 0x80) p++;
    if (p > run) kip_buf_add(&r->tmp, (const char *)run, (size_t)(p - run));
    if (p >= e || *p < 0x20) return 0;
    if (*p == '"') {
      r->p = p + 1;
      return 1;
    }
    if (*p >= 0x80) {
      size_t n = kip_utf8_len(p, e); /* jansson's rules too */
      if (!n) return 0;
      kip_buf_add(&r->tmp, (const char *)p, n);
      p += n;
      continue;
    }
    /* an escape */
    if (e - p < 2) return 0;
    char c = (char)p[1];
    p += 2;
    switch (c) {
      case '"': kip_buf_addc(&r->tmp, '"'); break;
      case '\\': kip_buf_addc(&r->tmp, '\\'); break;
      case '/': kip_buf_addc(&r->tmp, '/'); break;
      case 'b': kip_buf_addc(&r->tmp, '\b'); break;
      case 'f': kip_buf_addc(&r->tmp, '\f'); break;
      case 'n': kip_buf_addc(&r->tmp, '\n'); break;
      case 'r': kip_buf_addc(&r->tmp, '\r'); break;
      case 't': kip_buf_addc(&r->tmp, '\t'); break;
      case 'u': {
        unsigned v, lo;
        if (!kip_hex4((const char *)p, (const char *)e, &v)) return 0;
        p += 4;
        if (v >= 0xDC00 && v <= 0xDFFF) return 0; /* a lone low surrogate */
        if (v >= 0xD800 && v <= 0xDBFF) {
          if (e - p < 6 || p[0] != '\\' || p[1] != 'u' || !kip_hex4((const char *)p + 2, (const char *)e, &lo) || lo < 0xDC00 || lo > 0xDFFF) return 0;
          p += 6;
          v = 0x10000 + ((v - 0xD800) << 10) + (lo - 0xDC00);
        }
        kip_buf_add_utf8(&r->tmp, v);
        break;
      }
      default: return 0;
    }
  }
}

static json_t *fast_number(fast_rd *r) {
  const unsigned char *p = r->p, *e = r->e, *start = p;
  int real = 0;
  if (p < e && *p == '-') p++;
  if (p >= e) return NULL;
  if (*p == '0') p++;
  else if (*p >= '1' && *p <= '9') while (p < e && *p >= '0' && *p <= '9') p++;
  else return NULL;
  if (p < e && *p == '.') {
    real = 1;
    p++;
    if (p >= e || *p < '0' || *p > '9') return NULL;
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  if (p < e && (*p == 'e' || *p == 'E')) {
    real = 1;
    p++;
    if (p < e && (*p == '+' || *p == '-')) p++;
    if (p >= e || *p < '0' || *p > '9') return NULL;
    while (p < e && *p >= '0' && *p <= '9') p++;
  }
  char num[64];
  size_t len = (size_t)(p - start);
  if (len >= sizeof num) return NULL; /* jansson's own buffer decides */
  memcpy(num, start, len);
  num[len] = 0;
  r->p = p;
  errno = 0;
  if (!real) {
    long long v = strtoll(num, NULL, 10);
    if (errno == ERANGE) return NULL;
    return json_integer((json_int_t)v);
  }
  if (localeconv()->decimal_point[0] != '.') return NULL; /* jansson converts for the locale */
  double d = strtod(num, NULL);
  if (errno == ERANGE || !isfinite(d)) return NULL;
  return json_real(d);
}

static json_t *fast_value(fast_rd *r, int depth) {
  fast_ws(r);
  if (r->p >= r->e) return NULL;
  switch (*r->p) {
    case '{': {
      if (depth >= FAST_DEPTH) return NULL;
      r->p++;
      json_t *o = json_object();
      fast_ws(r);
      if (r->p < r->e && *r->p == '}') {
        r->p++;
        return o;
      }
      for (;;) {
        fast_ws(r);
        if (r->p >= r->e || *r->p != '"') break;
        r->p++;
        if (!fast_string(r) || r->tmp.oom || (r->tmp.len && memchr(r->tmp.p, 0, r->tmp.len))) break;
        /* the key, copied: the value's strings reuse r->tmp */
        char small[64], *key = small;
        size_t klen = r->tmp.len;
        if (klen >= sizeof small && !(key = malloc(klen + 1))) break;
        if (klen) memcpy(key, r->tmp.p, klen);
        key[klen] = 0;
        fast_ws(r);
        json_t *v = NULL;
        if (r->p < r->e && *r->p == ':') {
          r->p++;
          v = fast_value(r, depth + 1);
        }
        int bad = !v || json_object_setn_new_nocheck(o, key, klen, v);
        if (key != small) free(key);
        if (bad) break;
        int next = fast_next(r, '}');
        if (next > 0) continue;
        if (next == 0) return o;
        break;
      }
      json_decref(o);
      return NULL;
    }
    case '[': {
      if (depth >= FAST_DEPTH) return NULL;
      r->p++;
      json_t *a = json_array();
      fast_ws(r);
      if (r->p < r->e && *r->p == ']') {
        r->p++;
        return a;
      }
      for (;;) {
        json_t *v = fast_value(r, depth + 1);
        if (!v || json_array_append_new(a, v)) break;
        int next = fast_next(r, ']');
        if (next > 0) continue;
        if (next == 0) return a;
        break;
      }
      json_decref(a);
      return NULL;
    }
    case '"':
      r->p++;
      if (!fast_string(r) || r->tmp.oom) return NULL;
      return json_stringn_nocheck(r->tmp.p ? r->tmp.p : "", r->tmp.len);
    case 't':
      if (r->e - r->p >= 4 && !memcmp(r->p, "true", 4)) return r->p += 4, json_true();
      return NULL;
    case 'f':
      if (r->e - r->p >= 5 && !memcmp(r->p, "false", 5)) return r->p += 5, json_false();
      return NULL;
    case 'n':
      if (r->e - r->p >= 4 && !memcmp(r->p, "null", 4)) return r->p += 4, json_null();
      return NULL;
    default: return fast_number(r);
  }
}

json_t *kip_json_parse_fast(const char *s, size_t n) {
  fast_rd r = {(const unsigned char *)s, (const unsigned char *)s + n, {0}};
  kip_buf_init(&r.tmp);
  json_t *v = fast_value(&r, 0);
  free(r.tmp.p);
  if (v) {
    fast_ws(&r);
    if (r.p != r.e) { /* trailing text: jansson says what */
      json_decref(v);
      v = NULL;
    }
  }
  return v;
}

json_t *kip_json_parse(const char *s, size_t n, kip_error *err) {
  json_t *v = kip_json_parse_fast(s, n);
  if (v) return v;
  json_error_t je;
  v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
  if (!v && err)
    kip_err_at(err, KIP_E_SYNTAX, je.line, je.column, "Send a valid JSON document.",
               "invalid JSON: %s", je.text);
  return v;
}

/* ------------------------------------------------- requests from clients */
/* the text with lone surrogate escapes as \uFFFD and integers beyond
** 64 bits written as reals (what JSON.stringify produces for 1e19) */
static char *normalise(const char *s, size_t n, size_t *outlen) {
  kip_buf b;
  kip_buf_init(&b);
  const char *p = s, *e = s + n;
  while (p < e) {
    if (*p == '"') { /* a string: copy, mending lone surrogates */
      kip_buf_addc(&b, *p++);
      while (p < e && *p != '"') {
        unsigned hi, lo;
        if (*p == '\\' && p + 1 < e && p[1] == 'u' && kip_hex4(p + 2, e, &hi) && hi >= 0xD800 && hi <= 0xDFFF) {
          int paired = hi <= 0xDBFF && e - p >= 12 && p[6] == '\\' && p[7] == 'u' && kip_hex4(p + 8, e, &lo) &&
                       lo >= 0xDC00 && lo <= 0xDFFF;
          if (paired) {
            kip_buf_add(&b, p, 12);
            p += 12;
          } else {
            kip_buf_adds(&b, "\\uFFFD");
            p += 6;
          }
          continue;
        }
        if (*p == '\\' && p + 1 < e) kip_buf_addc(&b, *p++);
        kip_buf_addc(&b, *p++);
      }
      if (p < e) kip_buf_addc(&b, *p++);
    } else if (*p == '-' || (*p >= '0' && *p <= '9')) { /* a number */
      const char *q = p + (*p == '-');
      while (q < e && *q >= '0' && *q <= '9') q++;
      int integer = !(q < e && (*q == '.' || *q == 'e' || *q == 'E'));
      kip_buf_add(&b, p, (size_t)(q - p));
      size_t digits = (size_t)(q - p) - (*p == '-');
      if (integer && digits >= 19) { /* beyond int64? */
        char tmp[64];
        int big = digits > 19;
        if (!big) {
          snprintf(tmp, sizeof tmp, "%.*s", (int)(q - p), p);
          errno = 0;
          (void)strtoll(tmp, NULL, 10);
          big = errno == ERANGE;
        }
        if (big) kip_buf_adds(&b, ".0");
      }
      p = q;
    } else {
      kip_buf_addc(&b, *p++);
    }
  }
  *outlen = b.len;
  return kip_buf_detach(&b);
}

json_t *kip_json_parse_request(const char *s, size_t n, kip_error *err) {
  if (n >= 3 && (unsigned char)s[0] == 0xEF && (unsigned char)s[1] == 0xBB && (unsigned char)s[2] == 0xBF) {
    s += 3; /* a leading byte-order mark */
    n -= 3;
  }
  json_t *v = kip_json_parse_fast(s, n);
  if (v) return v;
  json_error_t je;
  v = json_loadb(s, n, JSON_DECODE_ANY | JSON_ALLOW_NUL, &je);
  if (v) return v;
  size_t m;
  char *t = normalise(s, n, &m);
  v = json_loadb(t, m, JSON_DECODE_ANY | JSON_ALLOW_NUL, NULL);
  free(t);
  if (!v && err)
    kip_err_at(err, KIP_E_SYNTAX, je.line, je.column, "Send a valid JSON document (UTF-8).", "invalid JSON: %s",
               je.text);
  return v;
}

/* the id value at p (after "id" and optional blanks): ':' then an integer
** or a string without escapes; NULL otherwise */
static json_t *id_value_at(const char *p, const char *e) {
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  if (p >= e || *p != ':') return NULL;
  p++;
  while (p < e && (*p == ' ' || *p == '\t' || *p == '\r' || *p == '\n')) p++;
  if (p < e && *p == '"') {
    const char *v = ++p;
    while (p < e && *p != '"' && *p != '\\' && (unsigned char)*p >= 0x20) p++;
    return p < e && *p == '"' ? json_stringn(v, (size_t)(p - v)) : NULL;
  }
  if (p < e && (*p == '-' || (*p >= '0' && *p <= '9'))) {
    char tmp[32];
    size_t k = 0;
    while (p < e && k < sizeof tmp - 1 && (*p == '-' || (*p >= '0' && *p <= '9'))) tmp[k++] = *p++;
    tmp[k] = 0;
    if (p < e && (*p == '.' || *p == 'e' || *p == 'E')) return NULL; /* not an integer id */
    errno = 0;
    long long x = strtoll(tmp, NULL, 10);
    return errno ? NULL : json_integer(x);
  }
  return NULL;
}

/* the top-level "id" (integer or plain string) of text that is not JSON, or NULL */
static json_t *recover_id(const char *s, size_t n) {
  const char *p = s, *e = s + n;
  int depth = 0;
  /* first the "id" key of the top-level object, following the structure */
  while (p < e) {
    char c = *p;
    if (c == '"') {
      const char *k = ++p;
      while (p < e && *p != '"') p += (*p == '\\') ? 2 : 1;
      if (p >= e) break;
      int is_id = depth == 1 && p - k == 2 && k[0] == 'i' && k[1] == 'd';
      p++;
      if (is_id) return id_value_at(p, e);
      continue;
    }
    if (c == '{' || c == '[') depth++;
    else if (c == '}' || c == ']') depth--;
    p++;
  }
  /* the structure itself is broken: the first "id": <value> anywhere */
  for (p = s; p + 4 <= e; p++)
    if (p[0] == '"' && p[1] == 'i' && p[2] == 'd' && p[3] == '"') {
      json_t *v = id_value_at(p + 4, e);
      if (v) return v;
    }
  return NULL;
}

json_t *kip_json_parse_client(const char *s, size_t n, json_t **id, kip_error *err) {
  if (id) *id = NULL;
  json_t *v = kip_json_parse_request(s, n, err);
  if (!v && id) *id = recover_id(s, n);
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
