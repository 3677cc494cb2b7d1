/*
** util.c — small infrastructure of libkipcore: the arena allocator that owns
** AST nodes, the growable byte buffer used to build SQL and JSON text, and the
** kip_error constructors (code table with names and default hints).
*/
#include "kipint.h"

#include <assert.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* ------------------------------------------------------------------ errors */
static const struct {
  int code;
  const char *name;
  const char *hint;
} code_table[] = {
    {KIP_E_SYNTAX, "InvalidSyntax",
     "Check parenthesis matching, keyword spelling, and statement structure. Ensure JSON data format is valid."},
    {KIP_E_IDENTIFIER, "InvalidIdentifier", "Identifiers must match regex [a-zA-Z_][a-zA-Z0-9_]*."},
    {KIP_E_TYPE, "TypeMismatch",
     "Execute DESCRIBE CONCEPT TYPES / DESCRIBE PROPOSITION TYPES to confirm names; they are case-sensitive."},
    {KIP_E_CONSTRAINT, "ConstraintViolation",
     "Never write _-prefixed metadata: it is engine-maintained."},
    {KIP_E_VALUE_TYPE, "InvalidValueType", "Correct the JSON value type."},
    {KIP_E_REFERENCE, "ReferenceError",
     "Define a handle or variable before referencing it."},
    {KIP_E_NOT_FOUND, "NotFound",
     "The target may have been deleted or never created. Use SEARCH or FIND to confirm it exists."},
    {KIP_E_DUPLICATE, "DuplicateExists", "Narrow the WHERE pattern until each variable matches one node."},
    {KIP_E_IMMUTABLE, "ImmutableTarget",
     "Operation prohibited: meta-types, core domains, the Domain type, belongs_to_domain and the identity and core_directives of $self/$system are protected."},
    {KIP_E_VERSION, "VersionConflict",
     "Re-read the element to get its fresh _version, re-apply your change, and retry."},
    {KIP_E_TIMEOUT, "ExecutionTimeout", "Optimize the query: lower LIMIT, reduce hops, UNION branches or regexes."},
    {KIP_E_RESOURCE, "ResourceExhausted", "Use LIMIT with CURSOR pagination, or narrow the pattern."},
    {KIP_E_INTERNAL, "InternalError", "Retry later; report it if it persists."},
    {KIP_E_DENIED, "PermissionDenied", "This caller may not perform the operation."},
};

const char *kip_code_name(int code) {
  for (size_t i = 0; i < sizeof code_table / sizeof code_table[0]; i++)
    if (code_table[i].code == code) return code_table[i].name;
  return "UnknownError";
}

static const char *default_hint(int code) {
  for (size_t i = 0; i < sizeof code_table / sizeof code_table[0]; i++)
    if (code_table[i].code == code) return code_table[i].hint;
  return "";
}

void kip_err_clear(kip_error *e) {
  if (!e) return;
  e->code = 0;
  e->line = e->column = 0;
  e->message[0] = e->hint[0] = 0;
}

static int verr(kip_error *e, int code, int line, int col, const char *hint, const char *fmt,
                va_list ap) {
  if (!e) return code;
  e->code = code;
  e->line = line;
  e->column = col;
  vsnprintf(e->message, sizeof e->message, fmt, ap);
  snprintf(e->hint, sizeof e->hint, "%s", hint ? hint : default_hint(code));
  return code;
}

int kip_err(kip_error *e, int code, const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verr(e, code, 0, 0, hint, fmt, ap);
  va_end(ap);
  return code;
}

int kip_err_at(kip_error *e, int code, int line, int col, const char *hint, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  verr(e, code, line, col, hint, fmt, ap);
  va_end(ap);
  return code;
}

/* ------------------------------------------------------------------- arena */
struct arena_chunk {
  struct arena_chunk *next;
  size_t used, cap;
  max_align_t data[]; /* payload */
};

void kip_arena_init(kip_arena *a) { memset(a, 0, sizeof *a); }

#define ARENA_CHUNK 16384

static void free_chunks(struct arena_chunk *c) {
  while (c) {
    struct arena_chunk *n = c->next;
    free(c);
    c = n;
  }
}

/* what the arena owns besides its chunks and token array */
static void free_owned(kip_arena *a) {
  for (size_t i = 0; i < a->nrefs; i++) json_decref(a->refs[i]);
  for (size_t i = 0; i < a->nblocks; i++) free(a->blocks[i]);
  a->nrefs = a->nblocks = 0;
}

void kip_arena_free(kip_arena *a) {
  free_owned(a);
  free_chunks(a->head);
  free_chunks(a->spare);
  free(a->refs);
  free(a->blocks);
  free(a->tokens);
  memset(a, 0, sizeof *a);
}

void kip_arena_reset(kip_arena *a) {
  free_owned(a);
  while (a->head) {
    struct arena_chunk *c = a->head;
    a->head = c->next;
    if (c->cap != ARENA_CHUNK) { /* one large allocation */
      free(c);
      continue;
    }
    c->next = a->spare;
    a->spare = c;
  }
  a->tokens_used = 0;
}

void *kip_alloc(kip_arena *a, size_t n) {
  n = (n + 15) & ~(size_t)15;
  struct arena_chunk *c = a->head;
  if (!c || c->cap - c->used < n) {
    size_t cap = n > ARENA_CHUNK ? n : ARENA_CHUNK;
    if (cap == ARENA_CHUNK && a->spare) {
      c = a->spare;
      a->spare = c->next;
    } else if (!(c = malloc(sizeof *c + cap))) {
      abort(); /* out of memory in the parser: nothing sane to do */
    }
    c->next = a->head;
    c->used = 0;
    c->cap = cap;
    a->head = c;
  }
  void *p = (char *)c->data + c->used;
  c->used += n;
  memset(p, 0, n);
  return p;
}

char *kip_strndup(kip_arena *a, const char *s, size_t n) {
  char *p = kip_alloc(a, n + 1);
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

json_t *kip_arena_own(kip_arena *a, json_t *v) {
  if (!v) return NULL;
  if (a->nrefs == a->caprefs) {
    size_t cap = a->caprefs ? a->caprefs * 2 : 16;
    json_t **r = realloc(a->refs, cap * sizeof *r);
    if (!r) abort();
    a->refs = r;
    a->caprefs = cap;
  }
  a->refs[a->nrefs++] = v;
  return v;
}

void *kip_arena_adopt(kip_arena *a, void *block) {
  if (a->nblocks == a->capblocks) {
    size_t cap = a->capblocks ? a->capblocks * 2 : 4;
    void **b = realloc(a->blocks, cap * sizeof *b);
    if (!b) abort();
    a->blocks = b;
    a->capblocks = cap;
  }
  a->blocks[a->nblocks++] = block;
  return block;
}

/* ------------------------------------------------------------------ buffer */
void kip_buf_init(kip_buf *b) { memset(b, 0, sizeof *b); }
void kip_buf_free(kip_buf *b) {
  free(b->p);
  memset(b, 0, sizeof *b);
}

static int buf_reserve(kip_buf *b, size_t extra) {
  if (b->oom) return 0;
  if (b->len + extra + 1 <= b->cap) return 1;
  size_t cap = b->cap ? b->cap : 256;
  while (cap < b->len + extra + 1) cap *= 2;
  char *p = realloc(b->p, cap);
  if (!p) {
    b->oom = 1;
    return 0;
  }
  b->p = p;
  b->cap = cap;
  return 1;
}

void kip_buf_add(kip_buf *b, const char *s, size_t n) {
  if (!buf_reserve(b, n)) return;
  memcpy(b->p + b->len, s, n);
  b->len += n;
  b->p[b->len] = 0;
}
void kip_buf_adds(kip_buf *b, const char *s) { kip_buf_add(b, s, strlen(s)); }
void kip_buf_addc(kip_buf *b, char c) { kip_buf_add(b, &c, 1); }

/* vsnprintf's contract, several times faster for the conversions the
** compiler and the response writers use (%s %.*s %c %d %i %u %x with the
** length modifiers l, ll and z, and %%), with no flags, width or precision
** otherwise; any other format goes to vsnprintf whole. SQL text and JSON
** responses are built from hundreds of these per request: vsnprintf was a
** fifth of a point lookup's instructions. */
static int fast_format(const char *fmt) {
  for (const char *f = fmt; (f = strchr(f, '%')); f++) {
    f++;
    if (*f == '%' || *f == 's' || *f == 'c') continue;
    if (f[0] == '.' && f[1] == '*' && f[2] == 's') {
      f += 2;
      continue;
    }
    if (*f == 'l') f += f[1] == 'l' ? 2 : 1;
    else if (*f == 'z') f++;
    if (*f != 'd' && *f != 'i' && *f != 'u' && *f != 'x') return 0;
  }
  return 1;
}

int kip_vsnprintf(char *dst, size_t cap, const char *fmt, va_list ap) {
  if (!fast_format(fmt)) return vsnprintf(dst, cap, fmt, ap);
  size_t n = 0;
#define PUT(c)                      \
  do {                              \
    char c_ = (c); /* evaluated once */ \
    if (n + 1 < cap) dst[n] = c_;  \
    n++;                            \
  } while (0)
  for (const char *f = fmt; *f; f++) {
    if (*f != '%') { /* a run of literal text: copied at once */
      const char *pct = strchr(f, '%');
      size_t len = pct ? (size_t)(pct - f) : strlen(f);
      if (n < cap) memcpy(dst + n, f, n + len < cap ? len : cap - n - 1);
      n += len;
      f += len - 1;
      continue;
    }
    f++;
    if (*f == '%') {
      PUT('%');
    } else if (*f == 'c') {
      PUT((char)va_arg(ap, int));
    } else if (*f == 's' || *f == '.') {
      int prec = -1;
      if (*f == '.') {
        prec = va_arg(ap, int);
        f += 2;
      }
      const char *s = va_arg(ap, const char *);
      if (!s) s = "(null)";
      size_t len = prec >= 0 ? strnlen(s, (size_t)prec) : strlen(s);
      if (n < cap) memcpy(dst + n, s, n + len < cap ? len : cap - n - 1);
      n += len;
    } else {
      int mod = 0; /* 0 int, 1 long, 2 long long, 3 size_t */
      if (*f == 'l') mod = f[1] == 'l' ? (f += 2, 2) : (f++, 1);
      else if (*f == 'z') mod = (f++, 3);
      unsigned long long u;
      int neg = 0, base = *f == 'x' ? 16 : 10;
      if (*f == 'd' || *f == 'i') {
        long long v = mod == 0 ? va_arg(ap, int) : mod == 1 ? va_arg(ap, long) : mod == 2 ? va_arg(ap, long long)
                                                                                          : (long long)va_arg(ap, size_t);
        neg = v < 0;
        u = neg ? 0ULL - (unsigned long long)v : (unsigned long long)v;
      } else {
        u = mod == 0 ? va_arg(ap, unsigned) : mod == 1 ? va_arg(ap, unsigned long)
                                          : mod == 2 ? va_arg(ap, unsigned long long) : va_arg(ap, size_t);
      }
      char digits[24];
      int k = 0;
      do {
        digits[k++] = "0123456789abcdef"[u % (unsigned)base];
        u /= (unsigned)base;
      } while (u);
      if (neg) PUT('-');
      while (k) PUT(digits[--k]);
    }
  }
  if (cap) dst[n < cap ? n : cap - 1] = 0;
#undef PUT
  return (int)n;
}

int kip_snprintf(char *dst, size_t cap, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  int n = kip_vsnprintf(dst, cap, fmt, ap);
  va_end(ap);
  return n;
}

void kip_buf_printf(kip_buf *b, const char *fmt, ...) {
  va_list ap;
  va_start(ap, fmt);
  char tmp[256];
  int n = kip_vsnprintf(tmp, sizeof tmp, fmt, ap);
  va_end(ap);
  if (n < 0) return;
  if ((size_t)n < sizeof tmp) {
    kip_buf_add(b, tmp, (size_t)n);
    return;
  }
  if (!buf_reserve(b, (size_t)n)) return;
  va_start(ap, fmt);
  kip_vsnprintf(b->p + b->len, (size_t)n + 1, fmt, ap);
  va_end(ap);
  b->len += (size_t)n;
}

void kip_buf_add_utf8(kip_buf *b, unsigned cp) {
  char u[4];
  int n;
  if (cp < 0x80) { u[0] = (char)cp; n = 1; }
  else if (cp < 0x800) { u[0] = (char)(0xC0 | (cp >> 6)); u[1] = (char)(0x80 | (cp & 0x3F)); n = 2; }
  else if (cp < 0x10000) {
    u[0] = (char)(0xE0 | (cp >> 12)); u[1] = (char)(0x80 | ((cp >> 6) & 0x3F));
    u[2] = (char)(0x80 | (cp & 0x3F)); n = 3;
  } else {
    u[0] = (char)(0xF0 | (cp >> 18)); u[1] = (char)(0x80 | ((cp >> 12) & 0x3F));
    u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)); u[3] = (char)(0x80 | (cp & 0x3F)); n = 4;
  }
  kip_buf_add(b, u, (size_t)n);
}

size_t kip_utf8_len(const unsigned char *p, const unsigned char *e) {
  unsigned c = p[0];
  size_t k;
  unsigned lo = 0x80, hi = 0xBF;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) k = 1;
  else if (c >= 0xE0 && c <= 0xEF) { k = 2; if (c == 0xE0) lo = 0xA0; if (c == 0xED) hi = 0x9F; }
  else if (c >= 0xF0 && c <= 0xF4) { k = 3; if (c == 0xF0) lo = 0x90; if (c == 0xF4) hi = 0x8F; }
  else return 0;
  if ((size_t)(e - p) <= k) return 0;
  if (p[1] < lo || p[1] > hi) return 0;
  for (size_t j = 2; j <= k; j++)
    if ((p[j] & 0xC0) != 0x80) return 0;
  return k + 1;
}

int kip_hex4(const char *p, const char *e, unsigned *out) {
  if (e - p < 4) return 0;
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    char c = p[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= (unsigned)(c - '0');
    else if (c >= 'a' && c <= 'f') v |= (unsigned)(c - 'a' + 10);
    else if (c >= 'A' && c <= 'F') v |= (unsigned)(c - 'A' + 10);
    else return 0;
  }
  *out = v;
  return 1;
}

void kip_buf_hex(kip_buf *b, const void *p, size_t n) {
  static const char hex[] = "0123456789abcdef";
  const unsigned char *u = p;
  for (size_t i = 0; i < n; i++) {
    kip_buf_addc(b, hex[u[i] >> 4]);
    kip_buf_addc(b, hex[u[i] & 15]);
  }
}

void kip_buf_json_str(kip_buf *b, const char *s, size_t n) {
  static const char hex[] = "0123456789abcdef";
  kip_buf_addc(b, '"');
  size_t run = 0;
  for (size_t i = 0; i < n; i++) {
    unsigned char c = (unsigned char)s[i];
    if (c >= 0x20 && c != '"' && c != '\\') continue;
    kip_buf_add(b, s + run, i - run);
    run = i + 1;
    switch (c) {
      case '"': kip_buf_add(b, "\\\"", 2); break;
      case '\\': kip_buf_add(b, "\\\\", 2); break;
      case '\n': kip_buf_add(b, "\\n", 2); break;
      case '\r': kip_buf_add(b, "\\r", 2); break;
      case '\t': kip_buf_add(b, "\\t", 2); break;
      case '\b': kip_buf_add(b, "\\b", 2); break;
      case '\f': kip_buf_add(b, "\\f", 2); break;
      default: {
        char u[6] = {'\\', 'u', '0', '0', hex[c >> 4], hex[c & 15]};
        kip_buf_add(b, u, 6);
      }
    }
  }
  kip_buf_add(b, s + run, n - run);
  kip_buf_addc(b, '"');
}

char *kip_buf_detach(kip_buf *b) {
  if (b->oom) {
    kip_buf_free(b);
    return NULL;
  }
  if (!b->p) {
    char *p = malloc(1);
    if (p) *p = 0;
    return p;
  }
  char *p = b->p;
  memset(b, 0, sizeof *b);
  return p;
}

void kip_free(void *p) { free(p); }
