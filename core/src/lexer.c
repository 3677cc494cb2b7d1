/*
** lexer.c — the KIP tokenizer. Turns command text into a token array with
** 1-based line/column positions. Handles // comments, JSON strings with all
** escapes (\uXXXX incl. surrogate pairs), exact 64-bit integers, reals,
** ?variables, and reports malformed input as KIP_1001 / KIP_1002.
*/
#include "lexer.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct lexer {
  kip_arena *a;
  const char *s, *end, *p;
  int line;
  const char *line_start;
  kip_error *err;
  const char *col_at; /* memo of col_of: position and column last computed */
  int col;
} lexer;

static int isid0(int c) { return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_'; }
static int isid(int c) { return isid0(c) || (c >= '0' && c <= '9'); }
static int isdig(int c) { return c >= '0' && c <= '9'; }

static int col_of(lexer *L, const char *p) {
  /* column counts UTF-8 code points, 1-based; tokens come in order, so
  ** counting resumes from the last position on the same line (linear in
  ** the text, however long its lines) */
  const char *q = L->line_start;
  int col = 1;
  if (L->col_at && L->col_at >= L->line_start && L->col_at <= p) {
    q = L->col_at;
    col = L->col;
  }
  for (; q < p; q++)
    if (((unsigned char)*q & 0xC0) != 0x80) col++;
  L->col_at = p;
  L->col = col;
  return col;
}

static int lex_error(lexer *L, const char *at, int code, const char *hint, const char *msg) {
  kip_err_at(L->err, code, L->line, col_of(L, at), hint, "%s", msg);
  return -1;
}

/* Decode a string starting at the opening quote; sets *tok fields. */
static int lex_string(lexer *L, kip_tok *t) {
  const char *start = L->p;
  const char *p = L->p + 1;
  { /* most strings hold no escape and no line break: copied once, into the arena */
    const char *q = p;
    while (q < L->end && *q != '"' && *q != '\\' && *q != '\n') q++;
    if (q < L->end && *q == '"') {
      t->kind = T_STRING;
      t->str = kip_strndup(L->a, p, (size_t)(q - p));
      t->slen = (size_t)(q - p);
      L->p = q + 1;
      return 0;
    }
  }
  kip_buf b;
  kip_buf_init(&b);
  for (;;) {
    if (p >= L->end) {
      kip_buf_free(&b);
      L->p = start;
      return lex_error(L, start, KIP_E_SYNTAX, "Close the string with a double quote (\").",
                       "unterminated string literal");
    }
    unsigned char c = (unsigned char)*p;
    if (c == '"') break;
    if (c == '\n') { /* raw newlines are tolerated inside strings */
      kip_buf_addc(&b, '\n');
      p++;
      L->line++;
      L->line_start = p;
      continue;
    }
    if (c != '\\') {
      const char *q = p;
      while (q < L->end && *q != '"' && *q != '\\' && *q != '\n') q++;
      kip_buf_add(&b, p, (size_t)(q - p));
      p = q;
      continue;
    }
    if (p + 1 >= L->end) { /* a trailing backslash: unterminated */
      p = L->end;
      continue;
    }
    char e = p[1];
    p += 2;
    switch (e) {
      case '"': kip_buf_addc(&b, '"'); break;
      case '\\': kip_buf_addc(&b, '\\'); break;
      case '/': kip_buf_addc(&b, '/'); break;
      case 'b': kip_buf_addc(&b, '\b'); break;
      case 'f': kip_buf_addc(&b, '\f'); break;
      case 'n': kip_buf_addc(&b, '\n'); break;
      case 'r': kip_buf_addc(&b, '\r'); break;
      case 't': kip_buf_addc(&b, '\t'); break;
      case 'u': {
        unsigned cp;
        if (!kip_hex4(p, L->end, &cp)) {
          kip_buf_free(&b);
          return lex_error(L, p - 2, KIP_E_SYNTAX, "Write \\u followed by exactly four hex digits.",
                           "invalid \\u escape in string literal");
        }
        p += 4;
        if (cp >= 0xD800 && cp <= 0xDBFF) {
          unsigned lo;
          if (p + 1 < L->end && p[0] == '\\' && p[1] == 'u' && kip_hex4(p + 2, L->end, &lo) &&
              lo >= 0xDC00 && lo <= 0xDFFF) {
            cp = 0x10000 + ((cp - 0xD800) << 10) + (lo - 0xDC00);
            p += 6;
          } else {
            cp = 0xFFFD; /* lone surrogate */
          }
        } else if (cp >= 0xDC00 && cp <= 0xDFFF) {
          cp = 0xFFFD;
        } else if (cp == 0) {
          /* C strings end at NUL: "Bob\u0000x" would be one key to a
          ** policy and another ("Bob") to the store */
          kip_buf_free(&b);
          return lex_error(L, p - 6, KIP_E_SYNTAX, "Remove the NUL character; KIP strings cannot contain U+0000.",
                           "string literal contains a NUL character (\\u0000)");
        }
        kip_buf_add_utf8(&b, cp);
        break;
      }
      default: {
        kip_buf_free(&b);
        char msg[64];
        snprintf(msg, sizeof msg, "invalid escape '\\%c' in string literal", (e >= 32 && e < 127) ? e : '?');
        return lex_error(L, p - 2, KIP_E_SYNTAX,
                         "Valid escapes are \\\" \\\\ \\/ \\b \\f \\n \\r \\t and \\uXXXX.", msg);
      }
    }
  }
  if (b.oom) {
    kip_buf_free(&b);
    return lex_error(L, start, KIP_E_RESOURCE, NULL, "out of memory");
  }
  t->kind = T_STRING;
  t->str = kip_strndup(L->a, b.p ? b.p : "", b.len);
  t->slen = b.len;
  kip_buf_free(&b);
  L->p = p + 1;
  return 0;
}

static int lex_number(lexer *L, kip_tok *t) {
  const char *p = L->p;
  const char *start = p;
  int is_real = 0;
  if (*p == '-' || *p == '+') p++;
  if (p >= L->end || !isdig((unsigned char)*p))
    return lex_error(L, start, KIP_E_SYNTAX, NULL, "a sign must be followed by digits");
  while (p < L->end && isdig((unsigned char)*p)) p++;
  if (p < L->end && *p == '.' && p + 1 < L->end && isdig((unsigned char)p[1])) {
    is_real = 1;
    p++;
    while (p < L->end && isdig((unsigned char)*p)) p++;
  }
  if (p < L->end && (*p == 'e' || *p == 'E')) {
    const char *q = p + 1;
    if (q < L->end && (*q == '+' || *q == '-')) q++;
    if (q < L->end && isdig((unsigned char)*q)) {
      is_real = 1;
      p = q;
      while (p < L->end && isdig((unsigned char)*p)) p++;
    }
  }
  if (p < L->end && isid((unsigned char)*p)) {
    /* 2fa, 9g: an identifier that starts with a digit */
    while (p < L->end && isid((unsigned char)*p)) p++;
    t->kind = T_BADIDENT;
    t->str = kip_strndup(L->a, start, (size_t)(p - start));
    t->slen = (size_t)(p - start);
    L->p = p;
    return 0;
  }
  char tmp[400];
  size_t n = (size_t)(p - start);
  if (n >= sizeof tmp) return lex_error(L, start, KIP_E_SYNTAX, NULL, "numeric literal too long");
  memcpy(tmp, start, n);
  tmp[n] = 0;
  if (is_real) {
    t->kind = T_REAL;
    t->rval = strtod(tmp, NULL);
    if (!isfinite(t->rval))
      return lex_error(L, start, KIP_E_SYNTAX, "Numbers must be finite 64-bit floating point (up to about 1.8e308).",
                       "numeric literal out of range (it would be infinite)");
  } else {
    errno = 0;
    long long v = strtoll(tmp, NULL, 10);
    if (errno == ERANGE)
      return lex_error(L, start, KIP_E_SYNTAX,
                       "Integers must fit in 64 bits; write larger numbers as reals (1e20) or strings.",
                       "integer literal out of 64-bit range");
    t->kind = T_INT;
    t->ival = v;
  }
  L->p = p;
  return 0;
}

/* Length of the valid UTF-8 prefix of [p, end) (kip_utf8_len) without NUL bytes. */
static size_t utf8_valid_prefix(const unsigned char *s, size_t n) {
  size_t i = 0;
  while (i < n) {
    if (s[i] == 0) return i;
    if (s[i] < 0x80) { i++; continue; }
    size_t k = kip_utf8_len(s + i, s + n);
    if (!k) return i;
    i += k;
  }
  return n;
}

kip_tok *kip_lex(kip_arena *a, const char *text, size_t len, size_t *ntok, kip_error *err) {
  lexer L = {a, text, text + len, text, 1, text, err, NULL, 0};
  size_t valid = utf8_valid_prefix((const unsigned char *)text, len);
  if (valid < len) {
    for (const char *q = text; q < text + valid; q++)
      if (*q == '\n') { L.line++; L.line_start = q + 1; }
    char msg[96];
    if (text[valid] == 0) snprintf(msg, sizeof msg, "command text contains a NUL character (U+0000)");
    else snprintf(msg, sizeof msg, "command text is not valid UTF-8 (byte 0x%02X)", (unsigned char)text[valid]);
    lex_error(&L, text + valid, KIP_E_SYNTAX,
              text[valid] == 0 ? "Remove the NUL character; KIP text cannot contain U+0000." : "Send the command as UTF-8 text.",
              msg);
    *ntok = 0;
    return NULL;
  }
  /* into the arena's token array when it is free (kept from the last
  ** command by kip_arena_reset), else into one of its own */
  int into_arena = !a->tokens_used;
  size_t cap = 64, n = 0;
  kip_tok *toks;
  if (into_arena && a->tokens) {
    toks = a->tokens;
    cap = a->tokens_bytes / sizeof *toks;
    a->tokens = NULL; /* back below, or freed on an error */
  } else if (!(toks = malloc(cap * sizeof *toks))) {
    abort();
  }
  int adjacent = 0;
  for (;;) {
    /* skip whitespace and comments */
    while (L.p < L.end) {
      char c = *L.p;
      if (c == '\n') {
        L.line++;
        L.p++;
        L.line_start = L.p;
        adjacent = 0;
      } else if (c == ' ' || c == '\t' || c == '\r' || c == '\f' || c == '\v') {
        L.p++;
        adjacent = 0;
      } else if (c == '/' && L.p + 1 < L.end && L.p[1] == '/') {
        while (L.p < L.end && *L.p != '\n') L.p++;
        adjacent = 0;
      } else if ((unsigned char)c == 0xEF && L.end - L.p >= 3 && (unsigned char)L.p[1] == 0xBB &&
                 (unsigned char)L.p[2] == 0xBF) {
        L.p += 3; /* BOM */
      } else {
        break;
      }
    }
    if (n + 1 >= cap) {
      cap *= 2;
      kip_tok *nt = realloc(toks, cap * sizeof *toks);
      if (!nt) abort();
      toks = nt;
    }
    kip_tok *t = &toks[n];
    memset(t, 0, sizeof *t);
    t->pos.line = L.line;
    t->pos.col = col_of(&L, L.p);
    t->start = L.p;
    t->adjacent = adjacent;
    adjacent = 1;
    if (L.p >= L.end) {
      t->kind = T_EOF;
      n++;
      break;
    }
    unsigned char c = (unsigned char)*L.p;
    int rc = 0;
    if (isid0(c)) {
      const char *q = L.p;
      while (q < L.end && isid((unsigned char)*q)) q++;
      t->kind = T_IDENT;
      t->str = kip_strndup(a, L.p, (size_t)(q - L.p));
      t->slen = (size_t)(q - L.p);
      L.p = q;
    } else if (c == '?') {
      const char *q = L.p + 1;
      if (q < L.end && isid0((unsigned char)*q)) {
        const char *r = q;
        while (r < L.end && isid((unsigned char)*r)) r++;
        t->kind = T_VAR;
        t->str = kip_strndup(a, q, (size_t)(r - q));
        t->slen = (size_t)(r - q);
        L.p = r;
      } else if (q < L.end && isdig((unsigned char)*q)) {
        const char *r = q;
        while (r < L.end && isid((unsigned char)*r)) r++;
        char msg[160];
        snprintf(msg, sizeof msg, "invalid variable name '?%.*s': it starts with a digit",
                 (int)((r - q) > 60 ? 60 : (r - q)), q);
        rc = lex_error(&L, L.p, KIP_E_IDENTIFIER,
                       "Variable names are ? followed by [a-zA-Z_][a-zA-Z0-9_]*, e.g. ?drug.", msg);
      } else {
        rc = lex_error(&L, L.p, KIP_E_SYNTAX, "Variables are written ?name, e.g. ?drug.",
                       "'?' must be followed by a variable name");
      }
    } else if (c == '"') {
      rc = lex_string(&L, t);
    } else if (isdig(c) || ((c == '-' || c == '+') && L.p + 1 < L.end && isdig((unsigned char)L.p[1]))) {
      rc = lex_number(&L, t);
    } else {
      const char *p = L.p;
      int two = L.end - p >= 2;
      int k = -1, w = 1;
      switch (c) {
        case '{': k = T_LBRACE; break;
        case '}': k = T_RBRACE; break;
        case '(': k = T_LPAREN; break;
        case ')': k = T_RPAREN; break;
        case '[': k = T_LBRACK; break;
        case ']': k = T_RBRACK; break;
        case ',': k = T_COMMA; break;
        case ':': k = T_COLON; break;
        case '.': k = T_DOT; break;
        case '|':
          if (two && p[1] == '|') { k = T_OR; w = 2; } else k = T_PIPE;
          break;
        case '&':
          if (two && p[1] == '&') { k = T_AND; w = 2; }
          break;
        case '!':
          if (two && p[1] == '=') { k = T_NE; w = 2; } else k = T_BANG;
          break;
        case '=':
          if (two && p[1] == '=') { k = T_EQ; w = 2; }
          break;
        case '<':
          if (two && p[1] == '=') { k = T_LE; w = 2; } else k = T_LT;
          break;
        case '>':
          if (two && p[1] == '=') { k = T_GE; w = 2; } else k = T_GT;
          break;
        default: break;
      }
      if (k < 0) {
        char msg[128];
        const char *hint = NULL;
        if (c == '\'') hint = "Strings are written with double quotes: \"text\".";
        else if (c == '=') hint = "Use == to compare; object fields use key: value.";
        else if (c == '&') hint = "Logical AND is written &&.";
        /* a character outside ASCII (the text is valid UTF-8 by now): name it
        ** and its code point — typographic quotes, ellipses and dashes come in
        ** with pasted text */
        int clen = c >= 0xF0 ? 4 : c >= 0xE0 ? 3 : c >= 0xC0 ? 2 : 1;
        if (c >= 32 && c < 127)
          snprintf(msg, sizeof msg, "unexpected character '%c'", c);
        else if (clen > 1 && p + clen <= L.end) {
          uint32_t cp = c & (0xFF >> (clen + 1));
          for (int i = 1; i < clen; i++) cp = (cp << 6) | ((unsigned char)p[i] & 0x3F);
          snprintf(msg, sizeof msg, "unexpected character '%.*s' (U+%04X) outside a string", clen, p, (unsigned)cp);
          hint = "KIP is written in ASCII outside strings: replace typographic quotes, dashes and ellipses (pasted text "
                 "brings them) with \" - ..., or put the text inside a \"string\".";
        } else
          snprintf(msg, sizeof msg, "unexpected byte 0x%02X", c);
        rc = lex_error(&L, p, KIP_E_SYNTAX, hint, msg);
      } else {
        t->kind = k;
        L.p += w;
      }
    }
    if (rc < 0) {
      free(toks);
      return NULL;
    }
    t->len = (size_t)(L.p - t->start);
    n++;
  }
  *ntok = n;
  if (!into_arena) return kip_arena_adopt(a, toks); /* a large command's tokens are not copied */
  a->tokens = toks;
  a->tokens_bytes = cap * sizeof *toks;
  a->tokens_used = 1;
  return toks;
}

void kip_tok_describe(const kip_tok *t, char *out, size_t n) {
  switch (t->kind) {
    case T_EOF: snprintf(out, n, "end of input"); break;
    case T_STRING: snprintf(out, n, "string \"%.40s%s\"", t->str, t->slen > 40 ? "..." : ""); break;
    case T_VAR: snprintf(out, n, "variable '?%.60s'", t->str); break;
    default: snprintf(out, n, "'%.*s'", (int)(t->len > 60 ? 60 : t->len), t->start); break;
  }
}
