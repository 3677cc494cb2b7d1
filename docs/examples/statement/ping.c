/*
** ping.c — an example statement kind added from outside the tree
** (docs/extending.md "Statement kinds"): `PING` answers {"pong": true},
** `PING <value>` (a literal or a :placeholder) answers {"pong": <value>}.
** It reads no element, so no governance scope applies; it writes nothing.
*/
#include "exec.h"
#include "statement_ext.h"

typedef struct ast_ping {
  json_t *value; /* NULL: none given */
} ast_ping;

void kip_parse_ping(parser *P, ast_stmt *s) {
  ast_ping *p = kip_parse_alloc(P, sizeof *p);
  s->u.ext = p;
  if (!kip_parse_end(P)) p->value = kip_parse_value(P);
}

void kip_write_ping(kip_buf *b, const ast_stmt *s) {
  const ast_ping *p = s->u.ext;
  kip_buf_adds(b, ",\"value\":");
  if (p->value) kip_json_write(b, p->value);
  else kip_buf_adds(b, "null");
}

void kip_describe_ping(struct kip_description *d, json_t *writes, const ast_stmt *s) {
  (void)d;
  (void)writes;
  (void)s; /* it reads and writes no element */
}

int kip_exec_ping(kip_ctx *c, const ast_command *cmd) {
  const ast_ping *p = cmd->stmts[0]->u.ext;
  kip_buf_adds(c->out, "{\"pong\":");
  if (p->value) kip_json_write(c->out, p->value);
  else kip_buf_adds(c->out, "true");
  kip_buf_addc(c->out, '}');
  return 0;
}
