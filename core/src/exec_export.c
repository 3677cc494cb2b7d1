/*
** exec_export.c — EXPORT ?x WHERE {…} [LIMIT n] [CURSOR "…"] (RC11 §5.3).
**
** The target set comes from the KQL compiler like any KML target. It is
** ordered so that every page is an independently valid capsule when pages
** are applied in order: concepts first (by id), then propositions by
** higher-order depth (a link over links comes after the links it
** references) and id. A page is one UPSERT block: elements of the page are
** bound to local handles, everything else is referenced portably — a
** concept as {type, name}, a proposition as a nested structural clause
** (ids are not portable). Reserved `_` metadata is never written.
*/
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "exec.h"

#define EXPORT_DEFAULT_PAGE 1000
#define MAX_NESTING 64

typedef struct xelem {
  int64_t id;
  int is_prop;
  int depth; /* 0 for concepts and first-order links */
} xelem;

/* ---------------------------------------------------------- id hash map */
typedef struct idmap {
  int64_t *keys;
  int *vals;
  size_t cap, n;
} idmap;

static size_t slot(const idmap *m, int64_t k) {
  uint64_t h = (uint64_t)k * 0x9E3779B97F4A7C15ULL;
  size_t i = (size_t)(h >> 17) & (m->cap - 1);
  while (m->keys[i] && m->keys[i] != k) i = (i + 1) & (m->cap - 1);
  return i;
}

static int *idmap_get(const idmap *m, int64_t k) {
  if (!m->cap) return NULL;
  size_t i = slot(m, k);
  return m->keys[i] ? &m->vals[i] : NULL;
}

static void idmap_put(idmap *m, int64_t k, int v) {
  if ((m->n + 1) * 2 > m->cap) {
    idmap old = *m;
    m->cap = old.cap ? old.cap * 2 : 64;
    m->keys = calloc(m->cap, sizeof *m->keys);
    m->vals = calloc(m->cap, sizeof *m->vals);
    if (!m->keys || !m->vals) abort();
    m->n = 0;
    for (size_t i = 0; i < old.cap; i++)
      if (old.keys[i]) idmap_put(m, old.keys[i], old.vals[i]);
    free(old.keys);
    free(old.vals);
  }
  size_t i = slot(m, k);
  if (!m->keys[i]) m->n++;
  m->keys[i] = k;
  m->vals[i] = v;
}

static void idmap_free(idmap *m) {
  free(m->keys);
  free(m->vals);
}

static int too_deep(kip_ctx *c) {
  return kip_err(c->err, KIP_E_RESOURCE, NULL, "propositions nest deeper than %d levels", MAX_NESTING);
}

/* ---------------------------------------------------------- ordering */
/* higher-order depth of a proposition: 1 + the deepest proposition endpoint */
static int prop_depth(kip_ctx *c, int64_t id, idmap *memo, int guard, int *depth) {
  int *known = idmap_get(memo, id);
  if (known) {
    *depth = *known;
    return 0;
  }
  if (guard > MAX_NESTING) return too_deep(c);
  kip_elem e;
  int rc = kip_store_get(c->nx, id, &e, c->err);
  if (rc) return rc;
  int d = 0;
  int64_t ends[2] = {e.subject, e.object};
  for (int i = 0; i < 2 && !rc; i++) {
    kip_elem x;
    if ((rc = kip_store_get(c->nx, ends[i], &x, c->err))) break;
    int sub = -1;
    if (x.is_prop) rc = prop_depth(c, x.id, memo, guard + 1, &sub);
    kip_elem_clear(&x);
    if (!rc && sub + 1 > d) d = sub + 1;
  }
  kip_elem_clear(&e);
  if (!rc) {
    idmap_put(memo, id, d);
    *depth = d;
  }
  return rc;
}

static int by_export_order(const void *a, const void *b) {
  const xelem *x = a, *y = b;
  if (x->is_prop != y->is_prop) return x->is_prop - y->is_prop;
  if (x->depth != y->depth) return x->depth - y->depth;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* the whole target set in export order, and the query fingerprint */
static int export_set(kip_ctx *c, const ast_export *x, xelem **out, size_t *n, uint64_t *fp) {
  kip_arena a;
  kip_arena_init(&a);
  kql C;
  kql_init(&C, c->nx, &a, c->err);
  kip_buf q, sql;
  kip_buf_init(&q);
  kip_buf_init(&sql);
  *out = NULL;
  *n = 0;
  int rc = kql_target_sql(&C, x->where, x->target, x->target_pos, -1, &q, 1);
  if (!rc) {
    *fp = kip_query_fingerprint(q.p, C.binds);
    /* per target: is it a link, does it have a link endpoint (needs a depth) */
    kip_buf_printf(&sql,
                   "WITH t(id, is_prop) AS (%s) "
                   "SELECT t.id, t.is_prop, "
                   "(SELECT type IS NULL FROM element WHERE id = e.subject) OR "
                   "(SELECT type IS NULL FROM element WHERE id = e.object) "
                   "FROM t JOIN element e ON e.id = t.id",
                   q.p);
    kip_stmt *st;
    int prc = kip_prepare(c->nx, sql.p, (int)sql.len, &st);
    if (prc != KIP_STORE_OK) rc = kip_store_error(c->nx, prc, c->err, "selecting the export set");
    else {
      kql_bind_all(&C, st);
      size_t cap = 0;
      idmap memo = {0};
      while (!rc && (prc = kip_step(st)) == KIP_ROW) {
        if ((int64_t)*n >= c->nx->req->max_rows) {
          rc = kip_err(c->err, KIP_E_RESOURCE, "Export a narrower pattern (per type, domain or predicate).",
                       "EXPORT matches more than %lld elements (materialization cap)", (long long)c->nx->req->max_rows);
          break;
        }
        if (*n == cap) {
          cap = cap ? cap * 2 : 256;
          *out = realloc(*out, cap * sizeof **out);
          if (!*out) abort();
        }
        xelem *e = &(*out)[(*n)++];
        e->id = kip_col_int64(st, 0);
        e->is_prop = (int)kip_col_int64(st, 1);
        e->depth = 0;
        if (e->is_prop && (int)kip_col_int64(st, 2)) rc = prop_depth(c, e->id, &memo, 0, &e->depth);
      }
      if (!rc && prc != KIP_DONE) rc = kip_store_error(c->nx, prc, c->err, "selecting the export set");
      kip_finish(c->nx, st);
      idmap_free(&memo);
    }
  }
  if (!rc && *n) qsort(*out, *n, sizeof **out, by_export_order);
  kip_buf_free(&q);
  kip_buf_free(&sql);
  kql_free(&C);
  kip_arena_free(&a);
  return rc;
}

/* ---------------------------------------------------------- capsule text */
static int plain_key(const char *k) {
  if (!((*k >= 'a' && *k <= 'z') || *k == '_')) return 0;
  for (const char *p = k; *p; p++)
    if (!((*p >= 'a' && *p <= 'z') || (*p >= '0' && *p <= '9') || *p == '_')) return 0;
  return strcmp(k, "true") && strcmp(k, "false") && strcmp(k, "null");
}

/* { key: value, ... } skipping reserved `_` keys when `skip_reserved`;
** returns the number of keys written */
static int write_object(kip_buf *b, const json_t *obj, int skip_reserved) {
  const char *k;
  json_t *v;
  int n = 0;
  json_object_foreach((json_t *)obj, k, v) {
    if (skip_reserved && k[0] == '_') continue;
    kip_buf_adds(b, n++ ? ", " : "{ ");
    if (plain_key(k)) kip_buf_adds(b, k);
    else kip_buf_json_str(b, k, strlen(k));
    kip_buf_adds(b, ": ");
    kip_json_write(b, v);
  }
  if (n) kip_buf_adds(b, " }");
  return n;
}

static void write_identity(kip_buf *b, const kip_elem *e) {
  kip_buf_adds(b, "{type: ");
  kip_buf_json_str(b, e->type, strlen(e->type));
  kip_buf_adds(b, ", name: ");
  kip_buf_json_str(b, e->name, strlen(e->name));
  kip_buf_addc(b, '}');
}

/* an endpoint: a local handle when the element is on this page, else a
** portable reference ({type, name} or a nested structural clause) */
static int write_ref(kip_ctx *c, kip_buf *b, int64_t id, const idmap *page, int guard) {
  if (idmap_get(page, id)) {
    kip_elem e;
    int rc = kip_store_get(c->nx, id, &e, c->err);
    if (rc) return rc;
    kip_buf_printf(b, "?%c%lld", e.is_prop ? 'p' : 'c', (long long)id);
    kip_elem_clear(&e);
    return 0;
  }
  if (guard > MAX_NESTING) return too_deep(c);
  kip_elem e;
  int rc = kip_store_get(c->nx, id, &e, c->err);
  if (rc) return rc;
  if (!e.is_prop) write_identity(b, &e);
  else {
    kip_buf_addc(b, '(');
    rc = write_ref(c, b, e.subject, page, guard + 1);
    if (!rc) {
      kip_buf_adds(b, ", ");
      kip_buf_json_str(b, e.predicate, strlen(e.predicate));
      kip_buf_adds(b, ", ");
      rc = write_ref(c, b, e.object, page, guard + 1);
    }
    kip_buf_addc(b, ')');
  }
  kip_elem_clear(&e);
  return rc;
}

static int write_block(kip_ctx *c, kip_buf *b, const kip_elem *e, const idmap *page) {
  int rc = 0;
  kip_buf_printf(b, "  %s ?%c%lld {\n    ", e->is_prop ? "PROPOSITION" : "CONCEPT", e->is_prop ? 'p' : 'c',
                 (long long)e->id);
  if (!e->is_prop) write_identity(b, e);
  else {
    kip_buf_addc(b, '(');
    rc = write_ref(c, b, e->subject, page, 0);
    if (!rc) {
      kip_buf_adds(b, ", ");
      kip_buf_json_str(b, e->predicate, strlen(e->predicate));
      kip_buf_adds(b, ", ");
      rc = write_ref(c, b, e->object, page, 0);
    }
    kip_buf_addc(b, ')');
  }
  if (json_object_size(e->attrs)) {
    kip_buf_adds(b, "\n    SET ATTRIBUTES ");
    write_object(b, e->attrs, 0);
  }
  kip_buf_adds(b, "\n  }\n");
  kip_buf meta;
  kip_buf_init(&meta);
  if (write_object(&meta, e->meta, 1)) {
    kip_buf_adds(b, "  WITH METADATA ");
    kip_buf_add(b, meta.p, meta.len);
    kip_buf_addc(b, '\n');
  }
  kip_buf_free(&meta);
  return rc;
}

int kip_exec_export(kip_ctx *c, const ast_stmt *s) {
  const ast_export *x = &s->u.exp;
  xelem *all;
  size_t n;
  uint64_t fp = 0;
  int64_t off = 0;
  int rc = export_set(c, x, &all, &n, &fp);
  if (!rc) rc = kip_cursor_parse(x->cursor, fp, &off, c->err);
  if (rc) {
    free(all);
    return rc;
  }
  int64_t page_size = x->limit >= 0 ? x->limit : EXPORT_DEFAULT_PAGE;
  size_t from = off < (int64_t)n ? (size_t)off : n;
  size_t to = page_size < (int64_t)(n - from) ? from + (size_t)page_size : n;

  idmap page = {0};
  for (size_t i = from; i < to; i++) idmap_put(&page, all[i].id, 1);
  kip_buf cap;
  kip_buf_init(&cap);
  int64_t nc = 0, np = 0;
  if (to > from) kip_buf_adds(&cap, "UPSERT {\n");
  for (size_t i = from; !rc && i < to; i++) {
    kip_elem e;
    if ((rc = kip_store_get(c->nx, all[i].id, &e, c->err))) break;
    rc = write_block(c, &cap, &e, &page);
    if (e.is_prop) np++;
    else nc++;
    kip_elem_clear(&e);
  }
  if (to > from) kip_buf_adds(&cap, "}\n");
  if (!rc) {
    kip_buf_adds(c->out, "{\"capsule\":");
    kip_buf_json_str(c->out, cap.p ? cap.p : "", cap.len);
    kip_buf_printf(c->out, ",\"concepts\":%lld,\"propositions\":%lld}", (long long)nc, (long long)np);
    if (to < n) c->next_cursor = kip_cursor_make(fp, (int64_t)to);
  }
  kip_buf_free(&cap);
  idmap_free(&page);
  free(all);
  return rc;
}
