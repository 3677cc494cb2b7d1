/*
** scope.c — the governance scope of a request (kip_call_options:
** eligibility, forbidden_types, forbidden_predicates). Policies turn their
** RESTRICT constraints into a scope; the core enforces it as a hard gate:
** the KQL compiler adds kql_scope_cond() to every element row a query binds
** (FIND, UPDATE, DELETE, MERGE, EXPORT targets and every endpoint), SEARCH
** adds it to its candidates, hop traversal checks every link and node it
** crosses, and KML refuses to touch an existing element outside the scope.
**
** kip_scope_begin parses the eligibility expression (a FILTER body over ?e,
** its :placeholders bound from eligibility_params) and prepares the
** single-element check used outside compiled queries; kip_scope_end undoes
** both when the request ends.
*/
#include <string.h>

#include "compile.h"


static int has_scope(const kip_call_options *opt) {
  return opt && ((opt->eligibility && *opt->eligibility) || (opt->forbidden_types && opt->forbidden_types[0]) ||
                 (opt->forbidden_predicates && opt->forbidden_predicates[0]));
}

int kip_scope_begin(kip_nexus *nx, const kip_call_options *opt, kip_arena *a, kip_scope *S, kip_error *err) {
  memset(S, 0, sizeof *S);
  if (!has_scope(opt)) return 0;
  if (opt->eligibility && *opt->eligibility) {
    json_t *params = NULL;
    if (opt->eligibility_params && *opt->eligibility_params) {
      params = kip_json_parse(opt->eligibility_params, strlen(opt->eligibility_params), err);
      if (!params) return err->code;
      if (!json_is_object(params)) {
        json_decref(params);
        return kip_err(err, KIP_E_SYNTAX, NULL, "eligibility parameters must be a JSON object");
      }
      kip_arena_own(a, params);
    }
    S->eligibility = kip_parse_scope_expr(a, opt->eligibility, strlen(opt->eligibility), params, "e", err);
    if (!S->eligibility) {
      char msg[sizeof err->message];
      snprintf(msg, sizeof msg, "eligibility filter: %.700s", err->message);
      memcpy(err->message, msg, sizeof msg);
      return err->code;
    }
  }
  S->forbidden_types = opt->forbidden_types;
  S->forbidden_predicates = opt->forbidden_predicates;
  S->eligibility_text = opt->eligibility;
  S->eligibility_params = opt->eligibility_params;
  nx->req->scope = S;

  /* an element is in scope when it satisfies the scope and, for a link,
  ** so do both endpoints (a link to something hidden is hidden too); the
  ** check returns the endpoints that are links themselves, which
  ** kip_in_scope checks in turn (higher-order links, any depth):
  ** "SELECT <subject link>, <object link> FROM element e WHERE <scope(e)>
  **  AND <endpoints in scope> AND e.id = ?<last>" */
  kip_arena ca;
  kip_arena_init(&ca);
  kql C;
  kql_init(&C, nx, &ca, err);
  char *cond = kql_scope_cond(&C, "e");
  char *scond = kql_scope_cond(&C, "s"), *ocond = kql_scope_cond(&C, "o");
  int rc = C.failed ? err->code : 0;
  if (!rc) {
    kip_buf sql;
    kip_buf_init(&sql);
    kip_buf_printf(&sql,
                   "SELECT (SELECT s.id FROM element s WHERE s.id = e.subject AND s.type IS NULL),"
                   " (SELECT o.id FROM element o WHERE o.id = e.object AND o.type IS NULL)"
                   " FROM element e WHERE %s"
                   " AND (e.subject IS NULL OR EXISTS (SELECT 1 FROM element s WHERE s.id = e.subject AND %s))"
                   " AND (e.object IS NULL OR EXISTS (SELECT 1 FROM element o WHERE o.id = e.object AND %s))"
                   " AND e.id = ?%zu",
                   cond ? cond : "1 = 1", scond ? scond : "1 = 1", ocond ? ocond : "1 = 1", json_array_size(C.binds) + 1);
    int prc = kip_prepare(nx, sql.p, (int)sql.len, &nx->req->scope_check);
    if (prc != KIP_STORE_OK) rc = kip_store_error(nx, prc, err, "preparing the scope check");
    else kql_bind_all(&C, nx->req->scope_check);
    kip_buf_free(&sql);
  }
  kql_free(&C);
  kip_arena_free(&ca);
  if (rc) kip_scope_end(nx);
  return rc;
}

void kip_scope_end(kip_nexus *nx) {
  kip_finish(nx, nx->req->scope_check);
  nx->req->scope_check = NULL;
  nx->req->scope = NULL;
}

#define MAX_SCOPE_DEPTH 64 /* links about links about ... */

static int in_scope_at(kip_nexus *nx, int64_t id, int depth, kip_error *err) {
  kip_stmt *st = nx->req->scope_check;
  if (!st) return 1;
  if (depth > MAX_SCOPE_DEPTH) return 0; /* cannot be shown to be inside: outside */
  kip_bind_int64(st, kip_bind_count(st), id);
  int rc = kip_step(st);
  int64_t ends[2] = {0, 0};
  if (rc == KIP_ROW) {
    ends[0] = kip_col_int64(st, 0);
    ends[1] = kip_col_int64(st, 1);
  }
  kip_reset(st);
  if (rc == KIP_DONE) return 0;
  if (rc != KIP_ROW) {
    kip_store_error(nx, rc, err, "checking the scope");
    return -1;
  }
  for (int i = 0; i < 2; i++)
    if (ends[i]) {
      int in = in_scope_at(nx, ends[i], depth + 1, err);
      if (in != 1) return in;
    }
  return 1;
}

int kip_in_scope(kip_nexus *nx, int64_t id, kip_error *err) { return in_scope_at(nx, id, 0, err); }

/* the error for a write that would touch an element outside the scope; it
** names nothing, so the caller learns nothing about what lies outside */
int kip_scope_denied(kip_error *err, kip_pos pos) {
  return kip_err_at(err, KIP_E_DENIED, pos.line, pos.col,
                    "The caller's policy scope excludes an element this statement would touch.",
                    "this statement would touch an element outside the caller's scope");
}
