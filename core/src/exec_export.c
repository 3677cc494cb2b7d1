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
** Pages are read as a keyset (below): a paginated export of any size runs
** in bounded memory.
*/
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "exec.h"

#define EXPORT_DEFAULT_PAGE 1000
#define MAX_NESTING 64

typedef struct xelem {
  int64_t id;
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
  if (x->depth != y->depth) return x->depth - y->depth;
  return x->id < y->id ? -1 : x->id > y->id;
}

/* The export order is read in three runs, so that no page needs the whole
** set in memory: concepts by id, then first-order propositions (both
** endpoints concepts) by id — these two are read a page at a time after the
** last id taken (a keyset: the compiled query starts there and stops after
** the page), however large the set — then higher-order propositions by
** depth and id, the only run materialized (and capped). A cursor holds the
** run and the last id taken, or the offset into the third run. */
enum { RUN_CONCEPTS = KQL_PAGE_CONCEPTS, RUN_LINKS = KQL_PAGE_LINKS, RUN_HIGHER = KQL_PAGE_HIGHER, RUNS };
#define RUN_SHIFT 56
#define RUN_POS_MASK ((INT64_C(1) << RUN_SHIFT) - 1)
/* cursors of the earlier whole-set export (plain offsets) do not continue here */
#define EXPORT_CURSOR_SALT UINT64_C(0x6578706f72747632)

typedef struct export_query {
  kip_arena a;
  kql C[RUNS];
  kip_buf sql[RUNS];
  kql_page page[RUNS];
} export_query;

typedef struct xlist {
  xelem *v;
  size_t n, cap;
} xlist;

static void xlist_push(xlist *l, int64_t id, int depth) {
  if (l->n == l->cap) {
    l->cap = l->cap ? l->cap * 2 : 256;
    l->v = realloc(l->v, l->cap * sizeof *l->v);
    if (!l->v) abort();
  }
  l->v[l->n++] = (xelem){id, depth};
}

static int compile_runs(kip_ctx *c, const ast_export *x, export_query *X) {
  kip_arena_init(&X->a);
  int rc = 0;
  for (int r = 0; r < RUNS; r++) {
    kql_init(&X->C[r], c->nx, &X->a, c->err);
    kip_buf_init(&X->sql[r]);
    X->page[r].kind = r;
    if (!rc) rc = kql_target_page_sql(&X->C[r], x->where, x->target, x->target_pos, &X->page[r], &X->sql[r]);
  }
  return rc;
}

static void free_runs(export_query *X) {
  for (int r = 0; r < RUNS; r++) {
    kip_buf_free(&X->sql[r]);
    kql_free(&X->C[r]);
  }
  kip_arena_free(&X->a);
}

/* ids of run `run` above id `after`, at most `limit` (-1: all, capped),
** appended to out (depth 0; read_higher orders the third run) */
static int read_run(kip_ctx *c, export_query *X, int run, int64_t after, int64_t limit, xlist *out) {
  kip_stmt *st;
  int rc = 0, prc = kip_prepare(c->nx, X->sql[run].p, (int)X->sql[run].len, &st);
  if (prc != KIP_STORE_OK) return kip_store_error(c->nx, prc, c->err, "selecting the export set");
  kql_bind_all(&X->C[run], st);
  kip_bind_int64(st, (int)X->page[run].after, after);
  if (limit < 0 && kql_dialect(c->nx)->unlimited_null) kip_bind_null(st, (int)X->page[run].limit);
  else kip_bind_int64(st, (int)X->page[run].limit, limit);
  while ((prc = kip_step(st)) == KIP_ROW) {
    if (limit < 0 && (int64_t)out->n >= c->nx->req->max_rows) {
      rc = kip_err(c->err, KIP_E_RESOURCE, "Export a narrower pattern (per type, domain or predicate).",
                   "EXPORT matches more than %lld propositions over propositions (materialization cap)",
                   (long long)c->nx->req->max_rows);
      break;
    }
    xlist_push(out, kip_col_int64(st, 0), 0);
  }
  if (!rc && prc != KIP_DONE) rc = kip_store_error(c->nx, prc, c->err, "selecting the export set");
  kip_finish(c->nx, st);
  return rc;
}

/* the whole third run (higher-order propositions) in (depth, id) order */
static int read_higher(kip_ctx *c, export_query *X, xlist *out) {
  int rc = read_run(c, X, RUN_HIGHER, 0, -1, out);
  idmap memo = {0};
  for (size_t i = 0; !rc && i < out->n; i++) rc = prop_depth(c, out->v[i].id, &memo, 0, &out->v[i].depth);
  idmap_free(&memo);
  if (!rc && out->n) qsort(out->v, out->n, sizeof *out->v, by_export_order);
  return rc;
}

/* the page of at most `size` elements from cursor position `pos`, and the
** position after it (-1 when nothing follows) */
static int export_page(kip_ctx *c, export_query *X, int64_t pos, int64_t size, xlist *page, int64_t *next) {
  int run = (int)(pos >> RUN_SHIFT);
  int64_t after = pos & RUN_POS_MASK;
  int rc = 0;
  *next = -1;
  for (; !rc && run < RUNS; run++, after = 0) {
    int64_t need = size - (int64_t)page->n;
    if (run == RUN_HIGHER) {
      xlist all = {0};
      rc = read_higher(c, X, &all);
      size_t from = after < (int64_t)all.n ? (size_t)after : all.n, to = from;
      while (!rc && to < all.n && (int64_t)(to - from) < need) xlist_push(page, all.v[to].id, all.v[to].depth), to++;
      if (!rc && to < all.n) *next = ((int64_t)RUN_HIGHER << RUN_SHIFT) | (int64_t)to;
      free(all.v);
      break;
    }
    /* one more than needed: whether the run goes on after the page */
    size_t had = page->n;
    rc = read_run(c, X, run, after, need + 1, page);
    if (!rc && (int64_t)(page->n - had) > need) {
      page->n--;
      *next = ((int64_t)run << RUN_SHIFT) | (page->n > had ? page->v[page->n - 1].id : after);
      break;
    }
    if (!rc && (int64_t)page->n == size) {
      /* full at the end of a run: a later run may still have elements */
      xlist peek = {0};
      for (int r = run + 1; !rc && r < RUNS && !peek.n; r++) rc = read_run(c, X, r, 0, 1, &peek);
      if (!rc && peek.n) *next = (int64_t)(run + 1) << RUN_SHIFT;
      free(peek.v);
      break;
    }
  }
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

int kip_exec_export(kip_ctx *c, const ast_command *cmd) {
  const ast_stmt *s = cmd->stmts[0];
  const ast_export *x = &s->u.exp;
  export_query X;
  int64_t pos = 0, next = -1;
  xlist list = {0};
  int rc = compile_runs(c, x, &X);
  if (!rc) {
    uint64_t fp = kip_query_fingerprint(X.sql[0].p, X.C[0].binds) ^ EXPORT_CURSOR_SALT;
    rc = kip_cursor_parse(x->cursor, fp, &pos, c->err);
    if (!rc && (pos >> RUN_SHIFT) >= RUNS)
      rc = kip_err(c->err, KIP_E_SYNTAX, "Pass the next_cursor value of a previous response unchanged.",
                   "CURSOR token is not an EXPORT position");
    int64_t page_size = x->limit >= 0 ? x->limit : EXPORT_DEFAULT_PAGE;
    if (!rc) rc = export_page(c, &X, pos, page_size, &list, &next);
    if (!rc && next >= 0) c->next_cursor = kip_cursor_make(fp, next);
  }
  free_runs(&X);
  idmap page = {0};
  for (size_t i = 0; !rc && i < list.n; i++) idmap_put(&page, list.v[i].id, 1);
  kip_buf cap;
  kip_buf_init(&cap);
  int64_t nc = 0, np = 0;
  if (!rc && list.n) kip_buf_adds(&cap, "UPSERT {\n");
  for (size_t i = 0; !rc && i < list.n; i++) {
    kip_elem e;
    if ((rc = kip_store_get(c->nx, list.v[i].id, &e, c->err))) break;
    rc = write_block(c, &cap, &e, &page);
    if (e.is_prop) np++;
    else nc++;
    kip_elem_clear(&e);
  }
  if (!rc && list.n) kip_buf_adds(&cap, "}\n");
  if (!rc) {
    kip_buf_adds(c->out, "{\"capsule\":");
    kip_buf_json_str(c->out, cap.p ? cap.p : "", cap.len);
    kip_buf_printf(c->out, ",\"concepts\":%lld,\"propositions\":%lld}", (long long)nc, (long long)np);
  } else if (c->next_cursor) {
    free(c->next_cursor);
    c->next_cursor = NULL;
  }
  kip_buf_free(&cap);
  idmap_free(&page);
  free(list.v);
  return rc;
}
