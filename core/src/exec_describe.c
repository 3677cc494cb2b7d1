/*
** exec_describe.c — DESCRIBE (RC11 §5.1): PRIMER (identity from $self plus
** the domain map with member counts and key concept types per domain),
** DOMAINS, CONCEPT TYPES / PROPOSITION TYPES (paginated names), and
** CONCEPT TYPE "X" / PROPOSITION TYPE "X" (the definition node; KIP_2001 if
** undefined).
*/
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "exec.h"


#define ELEM_COLS                                                                                            \
  "e.id, e.type, e.name, e.subject, e.predicate, e.object, e.attributes, e.metadata, e.version, e.updated_at, " \
  "NULL, NULL"

static int prepare(kip_ctx *c, const char *sql, kip_stmt **st) {
  int rc = kip_prepare(c->nx, sql, -1, st);
  return rc == KIP_STORE_OK ? 0 : kip_store_error(c->nx, rc, c->err, "describing");
}

/* " AND <scope of alias>" or "" (binds into C) */
static const char *and_scope(kql *C, const char *alias) {
  char *cond = kql_scope_cond(C, alias);
  return cond ? kql_strf(C, " AND %s", cond) : "";
}

/* Domain summaries, restricted to the request's governance scope: hidden
** domains are left out and hidden members are not counted. */
static int domain_summaries(kip_ctx *c, kip_buf *b, int with_types, int64_t *count) {
  kip_stmt *st = NULL, *ty = NULL;
  kip_arena a;
  kip_arena_init(&a);
  kql D, T;
  kql_init(&D, c->nx, &a, c->err);
  kql_init(&T, c->nx, &a, c->err);
  char *dsql = kql_strf(&D,
                        "SELECT d.id, d.name, kip_attrj(d.attributes, 'description'), "
                        "(SELECT count(*) FROM element l JOIN element m ON m.id = l.subject "
                        "WHERE l.object = d.id AND l.predicate = 'belongs_to_domain'%s%s) "
                        "FROM element d WHERE d.type = 'Domain'%s ORDER BY d.name",
                        and_scope(&D, "l"), and_scope(&D, "m"), and_scope(&D, "d"));
  const char *tl = and_scope(&T, "l"), *tm = and_scope(&T, "m");
  char *tsql = kql_strf(&T,
                        "SELECT m.type, count(*) AS n FROM element l JOIN element m ON m.id = l.subject "
                        "WHERE l.object = ?%zu AND l.predicate = 'belongs_to_domain' AND m.type IS NOT NULL%s%s "
                        "GROUP BY m.type ORDER BY n DESC, m.type LIMIT 8",
                        json_array_size(T.binds) + 1, tl, tm);
  int rc = D.failed || T.failed ? c->err->code : prepare(c, dsql, &st);
  if (!rc && with_types) rc = prepare(c, tsql, &ty);
  if (!rc) {
    kql_bind_all(&D, st);
    if (ty) kql_bind_all(&T, ty);
  }
  int domain_param = (int)json_array_size(T.binds) + 1;
  kql_free(&D);
  kql_free(&T);
  kip_arena_free(&a);
  if (rc) {
    kip_finish(c->nx, st);
    return rc;
  }
  kip_buf_addc(b, '[');
  int64_t n = 0;
  while (kip_step(st) == KIP_ROW) {
    if (n++) kip_buf_addc(b, ',');
    kip_buf_adds(b, "{\"name\":");
    kip_buf_json_str(b, kip_col_text(st, 1), (size_t)kip_col_bytes(st, 1));
    kip_buf_adds(b, ",\"description\":");
    if (kip_col_type(st, 2) == KIP_COL_NULL) kip_buf_adds(b, "null");
    else kip_buf_add(b, kip_col_text(st, 2), (size_t)kip_col_bytes(st, 2));
    kip_buf_printf(b, ",\"member_count\":%lld", (long long)kip_col_int64(st, 3));
    if (ty) {
      kip_buf_adds(b, ",\"key_concept_types\":[");
      kip_bind_int64(ty, domain_param, kip_col_int64(st, 0));
      int k = 0;
      while (kip_step(ty) == KIP_ROW) {
        if (k++) kip_buf_addc(b, ',');
        kip_buf_adds(b, "{\"type\":");
        kip_buf_json_str(b, kip_col_text(ty, 0), (size_t)kip_col_bytes(ty, 0));
        kip_buf_printf(b, ",\"count\":%lld}", (long long)kip_col_int64(ty, 1));
      }
      kip_reset(ty); /* keeps the scope's bound values */
      kip_buf_addc(b, ']');
    }
    kip_buf_addc(b, '}');
  }
  kip_buf_addc(b, ']');
  kip_finish(c->nx, st);
  kip_finish(c->nx, ty);
  *count = n;
  return 0;
}

static int primer(kip_ctx *c) {
  kip_buf *b = c->out;
  kip_stmt *st;
  int rc = prepare(c, "SELECT attributes FROM element WHERE type = 'Person' AND name = '$self'", &st);
  if (rc) return rc;
  json_t *self = NULL;
  if (kip_step(st) == KIP_ROW)
    self = json_loads(kip_col_text(st, 0), 0, NULL);
  kip_finish(c->nx, st);
  json_t *id = json_object();
  static const char *keys[] = {"name", "handle", "person_class", "persona", "identity_narrative", "core_mission",
                               "capabilities", "values", "strengths", "weaknesses", "behavior_preferences"};
  for (size_t i = 0; self && i < sizeof keys / sizeof keys[0]; i++) {
    json_t *v = json_object_get(self, keys[i]);
    if (v) json_object_set(id, keys[i], v);
  }
  /* the SEARCH modes this nexus serves: semantic and hybrid need an
  ** embedder (without one they answer by keyword, with a warning) */
  json_t *modes = c->nx->has_embedder ? json_pack("[s,s,s]", "keyword", "semantic", "hybrid") : json_pack("[s]", "keyword");
  json_t *eng = json_pack("{s:s, s:s, s:s, s:o, s:s}", "name", "kipnexus", "version", KIP_VERSION, "protocol",
                          KIP_PROTOCOL, "search_modes", modes, "note",
                          "My memory is a KIP Cognitive Nexus; I query it with FIND/SEARCH/DESCRIBE and write with UPSERT/UPDATE/MERGE/DELETE.");
  json_object_set_new(id, "engine", eng);
  kip_buf_adds(b, "{\"identity\":");
  kip_json_write(b, id);
  json_decref(id);
  json_decref(self);
  kip_buf_adds(b, ",\"domain_map\":");
  int64_t n = 0;
  if ((rc = domain_summaries(c, b, 1, &n))) return rc;
  kip_buf_printf(b, ",\"total_domains\":%lld}", (long long)n);
  return 0;
}

static int type_list(kip_ctx *c, const ast_describe *d, const char *meta) {
  uint64_t fp = !strcmp(meta, "$ConceptType") ? 0x5eed0001ULL : 0x5eed0002ULL;
  int64_t off;
  int rc = kip_cursor_parse(d->cursor, fp, &off, c->err);
  if (rc) return rc;
  kip_stmt *st;
  if ((rc = prepare(c, "SELECT name FROM element WHERE type = ?1 ORDER BY id LIMIT ?2 OFFSET ?3", &st))) return rc;
  int64_t limit = d->limit >= 0 ? d->limit : c->nx->req->max_rows;
  kip_bind_text(st, 1, meta, -1, 0);
  kip_bind_int64(st, 2, limit + 1);
  kip_bind_int64(st, 3, off);
  kip_buf_addc(c->out, '[');
  int64_t n = 0;
  int more = 0;
  while (kip_step(st) == KIP_ROW) {
    if (n == limit) {
      more = 1;
      break;
    }
    if (n++) kip_buf_addc(c->out, ',');
    kip_buf_json_str(c->out, kip_col_text(st, 0), (size_t)kip_col_bytes(st, 0));
  }
  kip_buf_addc(c->out, ']');
  kip_finish(c->nx, st);
  if (more) c->next_cursor = kip_cursor_make(fp, off + n);
  return 0;
}

static int type_node(kip_ctx *c, const ast_describe *d, const char *meta) {
  kip_stmt *st;
  int rc = prepare(c, "SELECT " ELEM_COLS " FROM element e WHERE e.type = ?1 AND e.name = ?2", &st);
  if (rc) return rc;
  kip_bind_text(st, 1, meta, -1, 0);
  kip_bind_text(st, 2, json_string_value(d->name), -1, 0);
  if (kip_step(st) == KIP_ROW) kip_write_element(c->out, st, 0);
  else
    rc = kip_err(c->err, KIP_E_TYPE,
                 !strcmp(meta, "$ConceptType") ? "List the defined types with DESCRIBE CONCEPT TYPES (case-sensitive)."
                                                : "List the defined predicates with DESCRIBE PROPOSITION TYPES (case-sensitive).",
                 "%s '%s' is not defined", !strcmp(meta, "$ConceptType") ? "concept type" : "predicate",
                 json_string_value(d->name));
  kip_finish(c->nx, st);
  return rc;
}

int kip_exec_describe(kip_ctx *c, const ast_command *cmd) {
  const ast_stmt *s = cmd->stmts[0];
  const ast_describe *d = &s->u.describe;
  int64_t n;
  switch (d->what) {
    case D_PRIMER: return primer(c);
    case D_DOMAINS: return domain_summaries(c, c->out, 0, &n);
    case D_CONCEPT_TYPES: return type_list(c, d, "$ConceptType");
    case D_PROP_TYPES: return type_list(c, d, "$PropositionType");
    case D_CONCEPT_TYPE: return type_node(c, d, "$ConceptType");
    case D_PROP_TYPE: return type_node(c, d, "$PropositionType");
  }
  return kip_err(c->err, KIP_E_INTERNAL, NULL, "unknown DESCRIBE");
}
