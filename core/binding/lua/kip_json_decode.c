/*
** kip_json_decode.c — JSON text straight into Lua values for core.json_decode
** (kip_core.c): one pass over the text, no intermediate tree. Every response
** of the engine reaches Lua through it, and a sleep cycle's whole-graph read
** is mostly decoding (docs/performance.md "Sleep cycle"): going through a
** jansson tree cost four fifths of that read.
**
** The values are those the jansson path produced: objects are tables (that
** remember their key order in the registry's weak KEY_ORDER table unless
** `ordered` is 0), arrays are tables with the ARRAY_MT metatable, integers
** are exact 64-bit Lua integers (a number beyond them is an error), other
** numbers are floats, null is the NULL light userdata. The text must be
** RFC 8259 JSON in UTF-8 (U+0000 allowed in strings); errors name the line
** and column.
*/
#include <errno.h>
#include <locale.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "kip_binding.h"

typedef struct parser {
  lua_State *L;
  const unsigned char *s, *p, *end;
  int ordered;
  int array_mt, key_order; /* stack indexes of the array metatable and KEY_ORDER */
  int depth;
  char *msg;
  size_t msgn;
  const unsigned char *err_at;
} parser;

static int fail(parser *P, const unsigned char *at, const char *what) {
  if (!P->err_at) {
    int line = 1, col = 1;
    for (const unsigned char *q = P->s; q < at && q < P->end; q++) {
      if (*q == '\n') line++, col = 1;
      else col++;
    }
    snprintf(P->msg, P->msgn, "invalid JSON at line %d column %d: %s", line, col, what);
    P->err_at = at;
  }
  return -1;
}

static void skip_ws(parser *P) {
  while (P->p < P->end && (*P->p == ' ' || *P->p == '\n' || *P->p == '\r' || *P->p == '\t')) P->p++;
}

/* length of the valid UTF-8 sequence at q (0: invalid) */
static int utf8_len(const unsigned char *q, const unsigned char *end) {
  unsigned c = q[0];
  int n;
  unsigned min;
  if (c < 0x80) return 1;
  if (c >= 0xC2 && c <= 0xDF) n = 2, min = 0x80;
  else if (c >= 0xE0 && c <= 0xEF) n = 3, min = 0x800;
  else if (c >= 0xF0 && c <= 0xF4) n = 4, min = 0x10000;
  else return 0;
  if (end - q < n) return 0;
  unsigned cp = c & (0xFF >> (n + 1));
  for (int i = 1; i < n; i++) {
    if ((q[i] & 0xC0) != 0x80) return 0;
    cp = (cp << 6) | (q[i] & 0x3F);
  }
  if (cp < min || cp > 0x10FFFF || (cp >= 0xD800 && cp <= 0xDFFF)) return 0;
  return n;
}

static int hex4(const unsigned char *q, unsigned *out) {
  unsigned v = 0;
  for (int i = 0; i < 4; i++) {
    unsigned c = q[i];
    v <<= 4;
    if (c >= '0' && c <= '9') v |= c - '0';
    else if (c >= 'a' && c <= 'f') v |= c - 'a' + 10;
    else if (c >= 'A' && c <= 'F') v |= c - 'A' + 10;
    else return -1;
  }
  *out = v;
  return 0;
}

static void add_utf8(luaL_Buffer *b, unsigned cp) {
  char u[4];
  int n;
  if (cp < 0x80) u[0] = (char)cp, n = 1;
  else if (cp < 0x800) u[0] = (char)(0xC0 | cp >> 6), u[1] = (char)(0x80 | (cp & 0x3F)), n = 2;
  else if (cp < 0x10000)
    u[0] = (char)(0xE0 | cp >> 12), u[1] = (char)(0x80 | ((cp >> 6) & 0x3F)), u[2] = (char)(0x80 | (cp & 0x3F)), n = 3;
  else
    u[0] = (char)(0xF0 | cp >> 18), u[1] = (char)(0x80 | ((cp >> 12) & 0x3F)), u[2] = (char)(0x80 | ((cp >> 6) & 0x3F)),
    u[3] = (char)(0x80 | (cp & 0x3F)), n = 4;
  luaL_addlstring(b, u, (size_t)n);
}

/* the string at P->p (just after its opening quote), pushed */
static int parse_string(parser *P) {
  const unsigned char *start = P->p, *q = P->p;
  /* the common case: no escapes, pushed straight from the text */
  while (q < P->end && *q != '"' && *q != '\\') {
    if (*q < 0x20) return fail(P, q, "control character in a string");
    if (*q < 0x80) q++;
    else {
      int n = utf8_len(q, P->end);
      if (!n) return fail(P, q, "invalid UTF-8 in a string");
      q += n;
    }
  }
  if (q >= P->end) return fail(P, start - 1, "unterminated string");
  if (*q == '"') {
    lua_pushlstring(P->L, (const char *)start, (size_t)(q - start));
    P->p = q + 1;
    return 0;
  }
  luaL_Buffer b;
  luaL_buffinit(P->L, &b);
  luaL_addlstring(&b, (const char *)start, (size_t)(q - start));
  while (q < P->end && *q != '"') {
    if (*q == '\\') {
      if (P->end - q < 2) return fail(P, q, "unterminated escape");
      unsigned char e = q[1];
      q += 2;
      switch (e) {
        case '"': luaL_addchar(&b, '"'); break;
        case '\\': luaL_addchar(&b, '\\'); break;
        case '/': luaL_addchar(&b, '/'); break;
        case 'b': luaL_addchar(&b, '\b'); break;
        case 'f': luaL_addchar(&b, '\f'); break;
        case 'n': luaL_addchar(&b, '\n'); break;
        case 'r': luaL_addchar(&b, '\r'); break;
        case 't': luaL_addchar(&b, '\t'); break;
        case 'u': {
          unsigned cp, lo;
          if (P->end - q < 4 || hex4(q, &cp)) return fail(P, q - 2, "invalid \\u escape");
          q += 4;
          if (cp >= 0xD800 && cp <= 0xDBFF) {
            if (P->end - q < 6 || q[0] != '\\' || q[1] != 'u' || hex4(q + 2, &lo) || lo < 0xDC00 || lo > 0xDFFF)
              return fail(P, q - 6, "invalid Unicode surrogate pair");
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            q += 6;
          } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
            return fail(P, q - 6, "lone Unicode low surrogate");
          }
          add_utf8(&b, cp);
          break;
        }
        default: return fail(P, q - 2, "invalid escape");
      }
    } else if (*q < 0x20) {
      return fail(P, q, "control character in a string");
    } else if (*q < 0x80) {
      luaL_addchar(&b, (char)*q++);
    } else {
      int n = utf8_len(q, P->end);
      if (!n) return fail(P, q, "invalid UTF-8 in a string");
      luaL_addlstring(&b, (const char *)q, (size_t)n);
      q += n;
    }
  }
  if (q >= P->end) return fail(P, start - 1, "unterminated string");
  luaL_pushresult(&b);
  P->p = q + 1;
  return 0;
}

static int parse_number(parser *P) {
  const unsigned char *q = P->p, *start = P->p;
  int real = 0;
  if (*q == '-') q++;
  if (q >= P->end) return fail(P, start, "invalid number");
  if (*q == '0') q++;
  else if (*q >= '1' && *q <= '9') while (q < P->end && *q >= '0' && *q <= '9') q++;
  else return fail(P, start, "invalid number");
  if (q < P->end && *q == '.') {
    real = 1;
    q++;
    if (q >= P->end || *q < '0' || *q > '9') return fail(P, start, "invalid number");
    while (q < P->end && *q >= '0' && *q <= '9') q++;
  }
  if (q < P->end && (*q == 'e' || *q == 'E')) {
    real = 1;
    q++;
    if (q < P->end && (*q == '+' || *q == '-')) q++;
    if (q >= P->end || *q < '0' || *q > '9') return fail(P, start, "invalid number");
    while (q < P->end && *q >= '0' && *q <= '9') q++;
  }
  char small[64], *buf = small;
  size_t n = (size_t)(q - start);
  int boxed = 0;
  if (n >= sizeof small) {
    if (!real) return fail(P, start, "too big integer");
    /* a long real (many digits, then perhaps an exponent): all of it, in a
    ** buffer the collector frees (on the stack until the number is pushed) */
    buf = lua_newuserdata(P->L, n + 1);
    boxed = 1;
  }
  memcpy(buf, start, n);
  buf[n] = 0;
  errno = 0;
  if (!real) {
    long long v = strtoll(buf, NULL, 10);
    if (errno == ERANGE) return fail(P, start, "too big integer");
    kip_pushint(P->L, v);
  } else {
    const char *dp = localeconv()->decimal_point;
    if (dp && dp[0] != '.' && dp[0]) {
      char *dot = strchr(buf, '.');
      if (dot) *dot = dp[0];
    }
    double v = strtod(buf, NULL);
    if (isinf(v)) return fail(P, start, "real number overflow");
    lua_pushnumber(P->L, v);
    if (boxed) lua_remove(P->L, -2);
  }
  P->p = q;
  return 0;
}

static int literal(parser *P, const char *word) {
  size_t n = strlen(word);
  if ((size_t)(P->end - P->p) < n || memcmp(P->p, word, n)) return fail(P, P->p, "invalid token");
  P->p += n;
  return 0;
}

static int parse_value(parser *P);

/* after a member or an element: 1 at ',' (another follows), 0 at `close`
** (the container ends), -1 otherwise */
static int next_item(parser *P, unsigned char close, const char *expected) {
  skip_ws(P);
  if (P->p < P->end && (*P->p == ',' || *P->p == close)) return *P->p++ == ',';
  return fail(P, P->p, expected);
}

static int parse_object(parser *P) {
  lua_State *L = P->L;
  P->p++; /* { */
  lua_createtable(L, 0, 4);
  int obj = lua_gettop(L), keys = 0, n = 0;
  if (P->ordered) {
    lua_createtable(L, 4, 0);
    keys = lua_gettop(L);
  }
  skip_ws(P);
  if (P->p < P->end && *P->p == '}') {
    P->p++;
    if (keys) lua_pop(L, 1);
    return 0;
  }
  for (;;) {
    skip_ws(P);
    if (P->p >= P->end || *P->p != '"') return fail(P, P->p, "string or '}' expected");
    P->p++;
    if (parse_string(P)) return -1;
    skip_ws(P);
    if (P->p >= P->end || *P->p != ':') return fail(P, P->p, "':' expected");
    P->p++;
    if (keys) { /* a repeated key keeps its first place */
      lua_pushvalue(L, -1);
      lua_rawget(L, obj);
      int fresh = lua_isnil(L, -1);
      lua_pop(L, 1);
      if (fresh) {
        lua_pushvalue(L, -1);
        lua_rawseti(L, keys, ++n);
      }
    } else {
      n++;
    }
    if (parse_value(P)) return -1;
    lua_rawset(L, obj);
    int more = next_item(P, '}', "',' or '}' expected");
    if (more < 0) return -1;
    if (!more) break;
  }
  if (keys) {
    if (n >= 2) { /* KEY_ORDER[obj] = keys */
      lua_pushvalue(L, obj);
      lua_insert(L, keys);
      lua_rawset(L, P->key_order);
    } else {
      lua_pop(L, 1);
    }
  }
  return 0;
}

static int parse_array(parser *P) {
  lua_State *L = P->L;
  P->p++; /* [ */
  lua_createtable(L, 0, 0);
  int arr = lua_gettop(L), n = 0;
  lua_pushvalue(L, P->array_mt);
  lua_setmetatable(L, arr);
  skip_ws(P);
  if (P->p < P->end && *P->p == ']') {
    P->p++;
    return 0;
  }
  for (;;) {
    if (parse_value(P)) return -1;
    lua_rawseti(L, arr, ++n);
    int more = next_item(P, ']', "',' or ']' expected");
    if (more <= 0) return more;
  }
}

static int parse_value(parser *P) {
  skip_ws(P);
  if (P->p >= P->end) return fail(P, P->p, "unexpected end of input");
  switch (*P->p) {
    case '{':
    case '[': {
      if (++P->depth > KIP_JSON_DECODE_MAX_DEPTH) {
        snprintf(P->msg, P->msgn, "JSON nests deeper than %d levels", KIP_JSON_DECODE_MAX_DEPTH);
        P->err_at = P->p;
        return -1;
      }
      if (!lua_checkstack(P->L, 8)) return fail(P, P->p, "nests too deep for the Lua stack");
      int rc = *P->p == '{' ? parse_object(P) : parse_array(P);
      P->depth--;
      return rc;
    }
    case '"': P->p++; return parse_string(P);
    case 't': if (literal(P, "true")) return -1; lua_pushboolean(P->L, 1); return 0;
    case 'f': if (literal(P, "false")) return -1; lua_pushboolean(P->L, 0); return 0;
    case 'n': if (literal(P, "null")) return -1; lua_pushlightuserdata(P->L, NULL); return 0;
    default:
      if (*P->p == '-' || (*P->p >= '0' && *P->p <= '9')) return parse_number(P);
      return fail(P, P->p, "invalid token");
  }
}

int kip_lua_json_decode(lua_State *L, const char *text, size_t len, int ordered, char *msg, size_t msgn) {
  int top = lua_gettop(L);
  luaL_checkstack(L, 16, "json_decode");
  luaL_getmetatable(L, KIP_ARRAY_MT);
  lua_getfield(L, LUA_REGISTRYINDEX, KIP_KEY_ORDER);
  parser P = {L, (const unsigned char *)text, (const unsigned char *)text, (const unsigned char *)text + len, ordered,
              top + 1, top + 2, 0, msg, msgn, NULL};
  if (parse_value(&P) == 0) {
    skip_ws(&P);
    if (P.p == P.end) {
      lua_replace(L, top + 1);
      lua_settop(L, top + 1);
      return 0;
    }
    fail(&P, P.p, "end of input expected");
  }
  lua_settop(L, top);
  return -1;
}
