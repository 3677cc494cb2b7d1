/*
** exec_context.c — the execution context a statement runs in (kip_ctx,
** exec.h): what an executor adds to the response beside its result. Its
** own file so the executors below the request layer never call up into
** request.c (scripts/check-layers reads the calls).
*/
#include <stdarg.h>
#include <stdio.h>
#include <string.h>

#include "exec.h"

void kip_warn(kip_ctx *c, const char *fmt, ...) {
  char msg[512];
  va_list ap;
  va_start(ap, fmt);
  vsnprintf(msg, sizeof msg, fmt, ap);
  va_end(ap);
  if (c->warnings.len) kip_buf_addc(&c->warnings, ',');
  kip_buf_json_str(&c->warnings, msg, strlen(msg));
}
