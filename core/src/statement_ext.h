/*
** statement_ext.h — what a statement kind added from outside the tree
** builds on (statements.h; docs/extending.md "Statement kinds"). Its folder
** (cmake -DKIP_STATEMENT_DIR=DIR) holds DIR/statements.h, which defines
**
**   #define KIP_EXTENSION_STATEMENTS(X) X(PING, "PING", ping, 0)
**
** (kind, keyword, function name, writes), and .c files defining, for each
** kind, the four functions below: parse the statement after its keyword
** into the stmt's own node (s->u.ext), write that node as JSON (`kip
** parse`), describe what it reads and writes to the policies, and execute
** it (exec.h: the result's JSON goes to c->out). An executor that reads
** elements honours the request's governance scope (kip_in_scope, compile.h)
** like every executor.
*/
#ifndef KIP_STATEMENT_EXT_H
#define KIP_STATEMENT_EXT_H

#include "ast.h"

typedef struct parser parser;
struct kip_description;

/* parser.c: the parser's helpers */
/* 1 (and consumed) when the next token is the identifier `keyword` */
int kip_parse_accept(parser *P, const char *keyword);
/* a value: a JSON literal or a :placeholder bound from the parameters;
** NULL after a syntax error (reported with line and column) */
json_t *kip_parse_value(parser *P);
/* 1 when the statement ends here (nothing follows in the command) */
int kip_parse_end(parser *P);
/* a syntax error at the next token: "expected <what>, found …" */
void kip_parse_error(parser *P, const char *hint, const char *what);
/* zeroed memory owned by the command (the AST's arena) */
void *kip_parse_alloc(parser *P, size_t n);

/* request_describe.c: what the statement reads, as policies see it: a
** concept type or a predicate it touches (either may be NULL) */
void kip_describe_reads(struct kip_description *d, const char *type, const char *predicate);

/* the functions of each kind added (X(KIND, keyword, fn, mutates)) */
#define KIP_STMT_EXT_DECL(K, kw, fn, m)                                              \
  void kip_parse_##fn(parser *P, ast_stmt *s);                                       \
  void kip_write_##fn(kip_buf *b, const ast_stmt *s);                                \
  void kip_describe_##fn(struct kip_description *d, json_t *writes, const ast_stmt *s);
KIP_EXTENSION_STATEMENTS(KIP_STMT_EXT_DECL)
#undef KIP_STMT_EXT_DECL

#endif
