/*
** dialect_sqlite_hops.c — the kip_hops eponymous table-valued function: a bounded BFS over
** the endpoint indexes that implements KQL hop ranges "p"{m,n} (RC11
** §3.4.2). kip_hops(start, predicate, min, max, backward) yields each node
** reachable from start by a walk of k links, min <= k <= max, once. max < 0
** means unbounded: the closure is explored until no new node appears, and
** KIP_4002 is raised if that needs more than the hop cap. Under a request's
** governance scope, links and nodes outside it are never crossed. Cycles terminate
** (per-level dedup and a global visited set for the closure). A C function
** instead of a recursive CTE keeps SQLite 3.40's planner from rescanning the
** proposition table per hop (shared/notes/sqlite-performance.md, trap 1).
*/
#include <stdlib.h>
#include <string.h>

#include "compile.h"
#include "store_sqlite.h"

typedef struct idset {
  int64_t *v;
  size_t cap, n;
} idset;

static size_t h64(int64_t x) {
  uint64_t z = (uint64_t)x * 0x9E3779B97F4A7C15ULL;
  return (size_t)(z ^ (z >> 31));
}

static int set_add(idset *s, int64_t x) { /* 1 if added */
  if ((s->n + 1) * 2 > s->cap) {
    size_t cap = s->cap ? s->cap * 2 : 64;
    int64_t *v = malloc(cap * sizeof *v);
    if (!v) return -1;
    for (size_t i = 0; i < cap; i++) v[i] = 0;
    for (size_t i = 0; i < s->cap; i++)
      if (s->v[i]) {
        size_t j = h64(s->v[i]) & (cap - 1);
        while (v[j]) j = (j + 1) & (cap - 1);
        v[j] = s->v[i];
      }
    free(s->v);
    s->v = v;
    s->cap = cap;
  }
  size_t j = h64(x) & (s->cap - 1);
  while (s->v[j]) {
    if (s->v[j] == x) return 0;
    j = (j + 1) & (s->cap - 1);
  }
  s->v[j] = x;
  s->n++;
  return 1;
}

static void set_clear(idset *s) {
  if (s->v) memset(s->v, 0, s->cap * sizeof *s->v);
  s->n = 0;
}

typedef struct ivec {
  int64_t *v;
  size_t n, cap;
} ivec;

static int vec_push(ivec *a, int64_t x) {
  if (a->n == a->cap) {
    size_t cap = a->cap ? a->cap * 2 : 64;
    int64_t *v = realloc(a->v, cap * sizeof *v);
    if (!v) return -1;
    a->v = v;
    a->cap = cap;
  }
  a->v[a->n++] = x;
  return 0;
}

typedef struct hops_vtab {
  sqlite3_vtab base;
  kip_nexus *nx;
  sqlite3 *db;
  sqlite3_stmt *fwd, *bwd;
} hops_vtab;

typedef struct hops_cursor {
  sqlite3_vtab_cursor base;
  ivec out;
  size_t i;
} hops_cursor;

enum { COL_NODE, COL_START, COL_PRED, COL_MIN, COL_MAX, COL_DIR };

static int hops_connect(sqlite3 *db, void *aux, int argc, const char *const *argv, sqlite3_vtab **pp, char **err) {
  (void)argc;
  (void)argv;
  (void)err;
  int rc = sqlite3_declare_vtab(db, "CREATE TABLE x(node INTEGER, start HIDDEN, pred HIDDEN, min HIDDEN, max HIDDEN, dir HIDDEN)");
  if (rc != SQLITE_OK) return rc;
  hops_vtab *v = sqlite3_malloc(sizeof *v);
  if (!v) return SQLITE_NOMEM;
  memset(v, 0, sizeof *v);
  v->nx = aux;
  v->db = db;
  *pp = &v->base;
  return SQLITE_OK;
}

static int hops_disconnect(sqlite3_vtab *p) {
  hops_vtab *v = (hops_vtab *)p;
  sqlite3_finalize(v->fwd);
  sqlite3_finalize(v->bwd);
  sqlite3_free(v);
  return SQLITE_OK;
}

static int hops_best_index(sqlite3_vtab *tab, sqlite3_index_info *info) {
  (void)tab;
  int idx[6] = {-1, -1, -1, -1, -1, -1};
  for (int i = 0; i < info->nConstraint; i++) {
    const struct sqlite3_index_constraint *c = &info->aConstraint[i];
    if (c->iColumn >= COL_START && c->op == SQLITE_INDEX_CONSTRAINT_EQ) {
      if (!c->usable) return SQLITE_CONSTRAINT;
      idx[c->iColumn] = i;
    }
  }
  for (int col = COL_START; col <= COL_DIR; col++)
    if (idx[col] < 0) return SQLITE_CONSTRAINT;
  for (int col = COL_START; col <= COL_DIR; col++) {
    info->aConstraintUsage[idx[col]].argvIndex = col;
    info->aConstraintUsage[idx[col]].omit = 1;
  }
  info->estimatedCost = 50;
  info->estimatedRows = 25;
  return SQLITE_OK;
}

static int hops_open(sqlite3_vtab *p, sqlite3_vtab_cursor **pp) {
  (void)p;
  hops_cursor *c = sqlite3_malloc(sizeof *c);
  if (!c) return SQLITE_NOMEM;
  memset(c, 0, sizeof *c);
  *pp = &c->base;
  return SQLITE_OK;
}

static int hops_close(sqlite3_vtab_cursor *p) {
  hops_cursor *c = (hops_cursor *)p;
  free(c->out.v);
  sqlite3_free(c);
  return SQLITE_OK;
}

static int neighbours(hops_vtab *v, int backward, int64_t node, sqlite3_value *pred, ivec *into) {
  sqlite3_stmt **sp = backward ? &v->bwd : &v->fwd;
  int rc;
  if (!*sp) {
    const char *sql = backward ? "SELECT subject, id FROM element WHERE object=?1 AND predicate=?2"
                               : "SELECT object, id FROM element WHERE subject=?1 AND predicate=?2";
    rc = sqlite3_prepare_v3(v->db, sql, -1, SQLITE_PREPARE_PERSISTENT, sp, NULL);
    if (rc != SQLITE_OK) return rc;
  }
  sqlite3_bind_int64(*sp, 1, node);
  sqlite3_bind_value(*sp, 2, pred);
  while ((rc = sqlite3_step(*sp)) == SQLITE_ROW) {
    int64_t to = sqlite3_column_int64(*sp, 0);
    if (v->nx->req->scope_check) { /* the governance scope: never cross a link or node outside it */
      kip_error e;
      int a = kip_in_scope(v->nx, sqlite3_column_int64(*sp, 1), &e), b = a == 1 ? kip_in_scope(v->nx, to, &e) : a;
      if (a < 0 || b < 0) {
        rc = SQLITE_ERROR;
        break;
      }
      if (!a || !b) continue;
    }
    if (vec_push(into, to)) {
      rc = SQLITE_NOMEM;
      break;
    }
  }
  sqlite3_reset(*sp);
  return rc == SQLITE_DONE ? SQLITE_OK : rc;
}

static int hops_filter(sqlite3_vtab_cursor *p, int idxNum, const char *idxStr, int argc, sqlite3_value **argv) {
  (void)idxNum;
  (void)idxStr;
  hops_cursor *c = (hops_cursor *)p;
  hops_vtab *v = (hops_vtab *)p->pVtab;
  c->out.n = 0;
  c->i = 0;
  if (argc < 5 || sqlite3_value_type(argv[0]) == SQLITE_NULL) return SQLITE_OK;
  int64_t start = sqlite3_value_int64(argv[0]);
  sqlite3_value *pred = argv[1];
  int lo = sqlite3_value_int(argv[2]), hi = sqlite3_value_int(argv[3]), backward = sqlite3_value_int(argv[4]);
  int cap = v->nx->req->max_hops > 0 ? v->nx->req->max_hops : KIP_DEFAULT_MAX_HOPS;
  idset emitted = {0}, seen = {0};
  ivec level = {0}, next = {0};
  int rc = SQLITE_OK;
  vec_push(&level, start);
  int last = hi >= 0 ? hi : lo; /* level-set walk up to here */
  for (int depth = 0; rc == SQLITE_OK && level.n; depth++) {
    if (depth >= lo)
      for (size_t i = 0; i < level.n; i++)
        if (set_add(&emitted, level.v[i]) == 1) vec_push(&c->out, level.v[i]);
    if (depth == last) break;
    next.n = 0;
    for (size_t i = 0; i < level.n && rc == SQLITE_OK; i++) rc = neighbours(v, backward, level.v[i], pred, &next);
    set_clear(&seen);
    level.n = 0;
    for (size_t i = 0; i < next.n; i++)
      if (set_add(&seen, next.v[i]) == 1) vec_push(&level, next.v[i]);
  }
  if (hi < 0 && rc == SQLITE_OK) {
    /* unbounded: closure from the nodes at depth lo, each node once */
    for (int depth = lo; rc == SQLITE_OK && level.n; depth++) {
      next.n = 0;
      for (size_t i = 0; i < level.n && rc == SQLITE_OK; i++) rc = neighbours(v, backward, level.v[i], pred, &next);
      level.n = 0;
      for (size_t i = 0; i < next.n; i++)
        if (set_add(&emitted, next.v[i]) == 1) {
          vec_push(&level, next.v[i]);
          vec_push(&c->out, next.v[i]);
        }
      if (level.n && depth + 1 > cap) {
        sqlite3_free(p->pVtab->zErrMsg);
        p->pVtab->zErrMsg = sqlite3_mprintf("KIP_4002: path exceeds the hop cap of %d", cap);
        rc = SQLITE_ERROR;
      }
    }
  }
  free(emitted.v);
  free(seen.v);
  free(level.v);
  free(next.v);
  return rc;
}

static int hops_next(sqlite3_vtab_cursor *p) {
  ((hops_cursor *)p)->i++;
  return SQLITE_OK;
}

static int hops_eof(sqlite3_vtab_cursor *p) {
  hops_cursor *c = (hops_cursor *)p;
  return c->i >= c->out.n;
}

static int hops_column(sqlite3_vtab_cursor *p, sqlite3_context *ctx, int col) {
  hops_cursor *c = (hops_cursor *)p;
  if (col == COL_NODE) sqlite3_result_int64(ctx, c->out.v[c->i]);
  else sqlite3_result_null(ctx);
  return SQLITE_OK;
}

static int hops_rowid(sqlite3_vtab_cursor *p, sqlite3_int64 *rowid) {
  *rowid = (sqlite3_int64)((hops_cursor *)p)->i;
  return SQLITE_OK;
}

static sqlite3_module hops_module = {
    .iVersion = 0,
    .xCreate = NULL, /* eponymous-only */
    .xConnect = hops_connect,
    .xBestIndex = hops_best_index,
    .xDisconnect = hops_disconnect,
    .xDestroy = hops_disconnect,
    .xOpen = hops_open,
    .xClose = hops_close,
    .xFilter = hops_filter,
    .xNext = hops_next,
    .xEof = hops_eof,
    .xColumn = hops_column,
    .xRowid = hops_rowid,
};

int kip_register_hops(kip_nexus *nx) { return sqlite3_create_module(nx->db, "kip_hops", &hops_module, nx); }
