/*
** nexus.c — the public kip_nexus object: open (store + bootstrap), close,
** and the parse entry point of kip.h.
*/
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "api.h"

/* the SQL functions the compiled queries call: hop traversal
** (dialect_sqlite_hops.c) and the governance scope check (scope.c) */
static int register_query_functions(kip_nexus *nx) {
  return kql_dialect(nx)->register_functions(nx);
}

int kip_open(const char *path, const kip_open_options *opt, kip_nexus **out, kip_error *err) {
  kip_error tmp;
  if (!err) err = &tmp;
  kip_err_clear(err);
  *out = NULL;
  if (!path || !*path) return kip_err(err, KIP_E_INTERNAL, "Pass a database file path.", "no database path given");
  kip_nexus *nx = calloc(1, sizeof *nx);
  if (!nx) return kip_err(err, KIP_E_RESOURCE, NULL, "out of memory");
  nx->req = &nx->idle;
  nx->req->max_hops = KIP_DEFAULT_MAX_HOPS;
  nx->req->max_rows = KIP_DEFAULT_MAX_ROWS;
  int rc = kip_store_open(nx, path, opt, register_query_functions, err);
  if (!rc) rc = kip_bootstrap(nx, opt ? opt->capsule_dir : NULL, err);
  if (rc) {
    kip_store_close(nx);
    free(nx);
    return rc;
  }
  *out = nx;
  return 0;
}

void kip_close(kip_nexus *nx) {
  if (!nx) return;
  if (nx->tx_depth) {
    nx->tx_depth = 1;
    kip_tx_rollback(nx);
  }
  kip_replica_close(nx);
  kip_vector_close(nx);
  kip_exec_state_free(nx);
  kip_plans_free(nx);
  kip_api_state_free(nx);
  kip_store_close(nx);
  free(nx);
}


static void render_ast(kip_buf *b, const ast_command *cmd, const json_t *params) {
  (void)params;
  kip_ast_write(b, cmd);
}

char *kip_parse_json(const char *command, size_t len, const char *params_json) {
  return kip_parsed_json(command, len, params_json, render_ast);
}

int kip_nexus_readonly(const kip_nexus *nx) { return nx->readonly_fallback ? 2 : nx->readonly_file ? 1 : 0; }
