/*
** exec_pending.c — executors not yet implemented in this build. Each reports
** KIP_4003 with a message naming the statement, never a crash.
*/
#include "exec.h"

#define PENDING(fn, what)                                                                               \
  int fn(kip_ctx *c, const ast_stmt *s) {                                                               \
    return kip_err_at(c->err, KIP_E_INTERNAL, s->pos.line, s->pos.col, "This build does not support it yet.", \
                      "%s is not implemented yet", what);                                              \
  }

PENDING(kip_exec_merge, "MERGE")
PENDING(kip_exec_export, "EXPORT")
