/*
** lexer.h — tokens of KIP command text (see lexer.c).
*/
#ifndef KIP_LEXER_H
#define KIP_LEXER_H
#include "kipint.h"

enum {
  T_EOF = 0, T_IDENT, T_VAR, T_STRING, T_INT, T_REAL,
  T_LBRACE, T_RBRACE, T_LPAREN, T_RPAREN, T_LBRACK, T_RBRACK,
  T_COMMA, T_COLON, T_DOT, T_PIPE, T_OR, T_AND, T_BANG,
  T_EQ, T_NE, T_LT, T_LE, T_GT, T_GE,
  T_BADIDENT /* digit-started identifier: KIP_1002 where it is used */
};

typedef struct kip_tok {
  int kind;
  int adjacent;      /* no whitespace/comment between this and the previous token */
  kip_pos pos;
  const char *start; /* raw text */
  size_t len;
  const char *str;   /* decoded T_STRING / identifier / variable name (arena) */
  size_t slen;
  union {
    int64_t ival; /* T_INT */
    double rval;  /* T_REAL */
  };
} kip_tok;

/* Tokenize text into an arena array terminated by T_EOF. Returns NULL and
** fills err (KIP_1001/1002 with line/column) on a lexical error. */
kip_tok *kip_lex(kip_arena *a, const char *text, size_t len, size_t *ntok, kip_error *err);

/* Human description of a token for error messages ("'WHERE'", "end of input"). */
void kip_tok_describe(const kip_tok *t, char *out, size_t n);

#endif
