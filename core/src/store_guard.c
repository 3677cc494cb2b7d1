/*
** store_guard.c — guards: the invariants a subsystem declares over what it
** owns (docs/security.md "Guards", DESIGN.md §8 "invariants live below the
** policies"). A guard is a row of the nexus's kip_guard table naming a
** concept type (every concept of it) or one concept (type and name); it
** covers those concepts and every proposition whose subject is one of them.
**
**   sealed       no insert, update or delete unless the call holds the
**                guard's capability (kip_call_options.capabilities)
**   append_only  inserts only by holders of the capability (by anyone when
**                the guard names none); never an update or a delete
**
** The core checks every row a command writes — inserts in store.c's
** insert_element, updates and deletes (whatever statement makes them) in the
** connection's TEMP triggers — so a guard holds over every interface, with
** or without policies. kip_call_options.maintenance bypasses them all; each
** write that only the bypass let through is recorded in kip_guard_log in the
** same transaction. Guards are declared by the host (kip_guard_declare: the
** subsystem's init, an operator), never by a KIP request, and read again
** when another connection has committed (PRAGMA data_version).
**
** A guard may also be unindexed: what it covers is kept out of the SEARCH
** indexes and vectors (records a subsystem keeps for itself, which no
** SEARCH is for, and which would only make every SEARCH read past them).
** Declaring it takes them out (store_search_sync.c kip_search_exclude);
** each sync then leaves them out of what it indexes; declaring it indexed
** again, or dropping it, marks them to be indexed.
*/
#include "store_sqlite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct guard_row {
  char *type;        /* concept type */
  char *name;        /* one concept of it, or NULL for all */
  char *capability;  /* who may write it (sealed) / insert it (append_only); NULL: nobody / anybody */
  char *owner;       /* the subsystem that declared it */
  char *hint;        /* what a refused writer should do instead, or NULL */
  int append_only;   /* 1: append_only, 0: sealed */
  int unindexed;     /* 1: what it covers is kept out of the SEARCH indexes */
} guard_row;

typedef struct bypass {
  char op;           /* 'i' insert, 'u' update, 'd' delete */
  int is_prop;
  int depth;         /* transaction depth it happened at (a savepoint rollback drops it) */
  int64_t id;        /* the element */
  char kind[128];    /* its type, or its predicate */
  char owner[64];
} bypass;

struct kip_guards {
  guard_row *v;
  int n;
  int64_t data_version; /* PRAGMA data_version when loaded */
  int64_t generation;   /* how many times they were (re)loaded: a host's cache key */
  int unindexed;        /* some guard is unindexed */
  bypass *log;          /* the transaction's bypassed writes, flushed before COMMIT */
  int nlog, caplog;
  int64_t dropped;      /* bypasses beyond the log's cap in this transaction */
};

#define MAX_LOGGED_BYPASSES 10000

static void rows_free(struct kip_guards *g) {
  for (int i = 0; i < g->n; i++) {
    free(g->v[i].type);
    free(g->v[i].name);
    free(g->v[i].capability);
    free(g->v[i].owner);
    free(g->v[i].hint);
  }
  free(g->v);
  g->v = NULL;
  g->n = 0;
}

static char *dup_col(kip_stmt *st, int i) {
  const unsigned char *s = (const unsigned char *)kip_col_text(st, i);
  if (!s || !*s) return NULL;
  char *d = strdup((const char *)s);
  if (!d) abort();
  return d;
}

/* PRAGMA data_version through the connection's prepared statement: it
** changes when another connection committed (a write transaction asks).
** On PostgreSQL the write generation, read once per transaction
** (kip_store_file_version): a round trip there */
static int64_t data_version(kip_nexus *nx) {
  if (nx->pg) {
    unsigned v = kip_store_file_version(nx);
    return v ? (int64_t)v : -1;
  }
  kip_stmt *st = nx->stmts[ST_DATA_VERSION];
  int64_t v = kip_step(st) == KIP_ROW ? kip_col_int64(st, 0) : -1;
  kip_reset(st);
  return v;
}

/* (re)read kip_guard into the cache */
static int load(kip_nexus *nx, kip_error *err) {
  struct kip_guards *g = nx->guards;
  kip_stmt *st;
  int rc = kip_prepare(nx, "SELECT type, name, mode, capability, owner, hint, unindexed FROM kip_guard ORDER BY type, name",
                       -1, &st);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "reading the guards");
  rows_free(g);
  g->unindexed = 0;
  int cap = 0;
  while ((rc = kip_step(st)) == KIP_ROW) {
    if (g->n == cap) {
      cap = cap ? cap * 2 : 16;
      g->v = realloc(g->v, (size_t)cap * sizeof *g->v);
      if (!g->v) abort();
    }
    guard_row *r = &g->v[g->n++];
    r->type = dup_col(st, 0);
    r->name = dup_col(st, 1);
    const unsigned char *mode = (const unsigned char *)kip_col_text(st, 2);
    r->append_only = mode && !strcmp((const char *)mode, "append_only");
    r->capability = dup_col(st, 3);
    r->owner = dup_col(st, 4);
    r->hint = dup_col(st, 5);
    r->unindexed = kip_col_int64(st, 6) != 0;
    g->unindexed |= r->unindexed;
    if (!r->type) r->type = strdup("");
  }
  kip_finish(nx, st);
  if (rc != KIP_DONE) return kip_store_error(nx, rc, err, "reading the guards");
  g->data_version = data_version(nx);
  g->generation++;
  return 0;
}

int kip_guards_open(kip_nexus *nx, kip_error *err) {
  nx->guards = calloc(1, sizeof *nx->guards);
  if (!nx->guards) return kip_err(err, KIP_E_RESOURCE, NULL, "out of memory");
  return load(nx, err);
}

void kip_guards_close(kip_nexus *nx) {
  if (!nx->guards) return;
  rows_free(nx->guards);
  free(nx->guards->log);
  free(nx->guards);
  nx->guards = NULL;
}

int kip_guards_refresh(kip_nexus *nx, kip_error *err) {
  struct kip_guards *g = nx->guards;
  if (!g) return 0;
  int64_t v = data_version(nx);
  if (v >= 0 && v == g->data_version) return 0;
  /* another connection committed: the guards change only when kip_guard
  ** did, which a reload finds (a few rows) */
  return load(nx, err);
}

/* this writer's commit moved the write generation from `before` to
** `after` (PostgreSQL, kip_pg_committed): guards read at `before` still
** hold — they change only through kip_guard_declare and kip_guard_drop,
** which reload after their commit */
void kip_guards_moved(kip_nexus *nx, int64_t before, int64_t after) {
  if (nx->guards && nx->guards->data_version == before) nx->guards->data_version = after;
}

int kip_guards_unindexed(kip_nexus *nx) { return nx->guards && nx->guards->unindexed; }

int64_t kip_guards_generation(kip_nexus *nx) {
  kip_error err;
  if (!nx->guards || kip_guards_refresh(nx, &err)) return -1;
  return nx->guards->generation;
}

static int holds(const kip_request *req, const char *capability) {
  if (!capability) return 0;
  for (const char *const *c = req->capabilities; c && *c; c++)
    if (!strcmp(*c, capability)) return 1;
  return 0;
}

static void record_bypass(kip_nexus *nx, char op, int64_t id, int is_prop, const char *kind, const char *owner) {
  struct kip_guards *g = nx->guards;
  if (g->nlog >= MAX_LOGGED_BYPASSES) {
    g->dropped++;
    return;
  }
  if (g->nlog == g->caplog) {
    g->caplog = g->caplog ? g->caplog * 2 : 64;
    g->log = realloc(g->log, (size_t)g->caplog * sizeof *g->log);
    if (!g->log) abort();
  }
  bypass *b = &g->log[g->nlog++];
  b->op = op;
  b->is_prop = is_prop;
  b->depth = nx->tx_depth;
  b->id = id;
  snprintf(b->kind, sizeof b->kind, "%s", kind ? kind : "");
  snprintf(b->owner, sizeof b->owner, "%s", owner ? owner : "");
}

/* the type and name of concept `id` (NULLs when it is not a concept);
** malloc'd */
static void concept_of(kip_nexus *nx, int64_t id, char **type, char **name) {
  *type = *name = NULL;
  kip_stmt *st = nx->stmts[ST_CONCEPT_OF];
  kip_bind_int64(st, 1, id);
  if (kip_step(st) == KIP_ROW) {
    *type = dup_col(st, 0);
    *name = dup_col(st, 1);
  }
  kip_reset(st);
}

int kip_guard_refused(kip_nexus *nx, char op, int64_t id, const char *type, const char *name, const char *predicate,
                      int64_t subject) {
  struct kip_guards *g = nx->guards;
  if (!g || g->n == 0 || nx->privileged) return 0;
  char *stype = NULL, *sname = NULL;
  if (!type && subject) { /* a proposition: the guard of its subject */
    concept_of(nx, subject, &stype, &sname);
    type = stype;
    name = sname;
  }
  int refused = 0;
  if (type) {
    const char *kind = predicate ? predicate : type;
    for (int i = 0; i < g->n && !refused; i++) {
      const guard_row *r = &g->v[i];
      if (strcmp(r->type, type) || (r->name && (!name || strcmp(r->name, name)))) continue;
      int insert = op == 'i';
      int allowed = r->append_only ? insert && (!r->capability || holds(nx->req, r->capability))
                                   : holds(nx->req, r->capability);
      if (allowed) continue;
      if (nx->req->maintenance) {
        record_bypass(nx, op, id, predicate != NULL, kind, r->owner);
        continue;
      }
      refused = 1;
      snprintf(nx->req->guard_hit, sizeof nx->req->guard_hit, "%s", kind);
      char what[320];
      if (predicate) snprintf(what, sizeof what, "a \"%s\" link of %s", predicate, type);
      else snprintf(what, sizeof what, "%s", type);
      const char *owner = r->owner ? r->owner : "its owner";
      if (!r->append_only)
        snprintf(nx->req->guard_why, sizeof nx->req->guard_why, "%s is sealed by %s: %s%s%s", what, owner,
                 r->capability ? "writing it needs the capability \"" : "no call may write it",
                 r->capability ? r->capability : "", r->capability ? "\"" : "");
      else if (insert)
        snprintf(nx->req->guard_why, sizeof nx->req->guard_why,
                 "%s is append-only, owned by %s: adding one needs the capability \"%s\"", what, owner,
                 r->capability ? r->capability : "");
      else
        snprintf(nx->req->guard_why, sizeof nx->req->guard_why, "%s is append-only, owned by %s: it is never changed or deleted",
                 what, owner);
      snprintf(nx->req->guard_hint, sizeof nx->req->guard_hint, "%s",
               r->hint ? r->hint : "Write it through the operations of the subsystem that owns it.");
    }
  }
  free(stype);
  free(sname);
  return refused;
}

int kip_guards_flush(kip_nexus *nx, kip_error *err) {
  struct kip_guards *g = nx->guards;
  if (!g || (g->nlog == 0 && g->dropped == 0)) return 0;
  kip_stmt *st;
  int rc = kip_prepare(nx, "INSERT INTO kip_guard_log(at, op, element, kind, owner, reason) VALUES(?1, ?2, ?3, ?4, ?5, ?6)", -1, &st);
  if (rc != KIP_STORE_OK) return kip_store_error(nx, rc, err, "logging maintenance writes");
  const char *reason = nx->req->maintenance ? nx->req->maintenance : "maintenance";
  for (int i = 0; i < g->nlog && rc == KIP_STORE_OK; i++) {
    const bypass *b = &g->log[i];
    const char *op = b->op == 'i' ? "insert" : b->op == 'u' ? "update" : "delete";
    kip_bind_text(st, 1, nx->req->now, -1, 0);
    kip_bind_text(st, 2, op, -1, 0);
    char eid[32];
    kip_format_id(eid, sizeof eid, b->id, b->is_prop);
    kip_bind_text(st, 3, eid, -1, 1);
    kip_bind_text(st, 4, b->kind, -1, 0);
    kip_bind_text(st, 5, b->owner, -1, 0);
    kip_bind_text(st, 6, reason, -1, 0);
    rc = kip_step(st) == KIP_DONE ? KIP_STORE_OK : kip_store_errcode(nx);
    kip_reset(st);
  }
  if (rc == KIP_STORE_OK && g->dropped) {
    char more[96];
    snprintf(more, sizeof more, "%lld more bypassed write(s) not listed", (long long)g->dropped);
    kip_bind_text(st, 1, nx->req->now, -1, 0);
    kip_bind_text(st, 2, "more", -1, 0);
    kip_bind_null(st, 3);
    kip_bind_text(st, 4, more, -1, 1);
    kip_bind_text(st, 5, "", -1, 0);
    kip_bind_text(st, 6, reason, -1, 0);
    rc = kip_step(st) == KIP_DONE ? KIP_STORE_OK : kip_store_errcode(nx);
  }
  kip_finish(nx, st);
  g->nlog = 0;
  g->dropped = 0;
  return rc == KIP_STORE_OK ? 0 : kip_store_error(nx, rc, err, "logging maintenance writes");
}

void kip_guards_rolled_back(kip_nexus *nx) {
  struct kip_guards *g = nx->guards;
  if (!g) return;
  while (g->nlog > 0 && g->log[g->nlog - 1].depth > nx->tx_depth) g->nlog--;
  if (nx->tx_depth == 0) {
    g->nlog = 0;
    g->dropped = 0;
  }
}

/* ------------------------------------------------------------ public API */
static int valid_text(const char *s, size_t max) { return s && *s && strlen(s) <= max; }

int kip_guard_declare(kip_nexus *nx, const kip_guard *guard, kip_error *err) {
  kip_error tmp;
  if (!err) err = &tmp;
  kip_err_clear(err);
  if (nx->readonly_file)
    return kip_err(err, KIP_E_DENIED, "Open the nexus read-write to declare guards.", "the nexus is open read-only");
  if (!guard || !valid_text(guard->type, 255) || (guard->name && !valid_text(guard->name, 1024)) ||
      !valid_text(guard->owner, 63) || (guard->capability && !valid_text(guard->capability, 255)))
    return kip_err(err, KIP_E_SYNTAX, "A guard needs a type, an owner (up to 63 bytes) and optionally a name and a capability.",
                   "invalid guard declaration");
  const char *mode = guard->mode ? guard->mode : "sealed";
  if (strcmp(mode, "sealed") && strcmp(mode, "append_only"))
    return kip_err(err, KIP_E_SYNTAX, "Use \"sealed\" or \"append_only\".", "unknown guard mode \"%.64s\"", mode);
  int rc = kip_tx_begin(nx, err);
  if (rc) return rc;
  const char *name = guard->name ? guard->name : "";
  int unindexed = guard->unindexed != 0;
  /* was what it covers kept out of the index until now? */
  int was = 0;
  kip_stmt *st;
  rc = kip_prepare(nx, "SELECT unindexed FROM kip_guard WHERE type = ?1 AND name = ?2", -1, &st);
  if (rc == KIP_STORE_OK) {
    kip_bind_text(st, 1, guard->type, -1, 0);
    kip_bind_text(st, 2, name, -1, 0);
    int r = kip_step(st);
    if (r == KIP_ROW) was = kip_col_int64(st, 0) != 0;
    else if (r != KIP_DONE) rc = kip_store_errcode(nx);
    kip_finish(nx, st);
  }
  if (rc == KIP_STORE_OK)
    rc = kip_prepare(nx, "INSERT INTO kip_guard(type, name, mode, capability, owner, hint, unindexed) "
                         "VALUES(?1, ?2, ?3, ?4, ?5, ?6, ?7) "
                         "ON CONFLICT(type, name) DO UPDATE SET mode = excluded.mode, capability = excluded.capability, "
                         "owner = excluded.owner, hint = excluded.hint, unindexed = excluded.unindexed", -1, &st);
  if (rc == KIP_STORE_OK) {
    kip_bind_text(st, 1, guard->type, -1, 0);
    kip_bind_text(st, 2, name, -1, 0);
    kip_bind_text(st, 3, mode, -1, 0);
    if (guard->capability) kip_bind_text(st, 4, guard->capability, -1, 0);
    kip_bind_text(st, 5, guard->owner, -1, 0);
    if (guard->hint) kip_bind_text(st, 6, guard->hint, -1, 0);
    kip_bind_int64(st, 7, unindexed);
    rc = kip_step(st) == KIP_DONE ? KIP_STORE_OK : kip_store_errcode(nx);
    kip_finish(nx, st);
  }
  if (rc != KIP_STORE_OK) {
    kip_store_error(nx, rc, err, "declaring a guard");
    kip_tx_rollback(nx);
    return err->code;
  }
  /* in the same transaction: the index follows the declaration */
  if (unindexed != was && kip_search_exclude(nx, guard->type, name, unindexed, err)) {
    kip_tx_rollback(nx);
    return err->code;
  }
  if ((rc = kip_tx_commit(nx, err))) return rc;
  return load(nx, err);
}

/* every unindexed guard of `owner`, its elements marked to be indexed
** again (the guards are about to go) */
static int reindex_owned(kip_nexus *nx, const char *owner, kip_error *err) {
  struct kip_guards *g = nx->guards;
  for (int i = 0; g && i < g->n; i++) {
    const guard_row *r = &g->v[i];
    if (r->unindexed && r->owner && !strcmp(r->owner, owner) && kip_search_exclude(nx, r->type, r->name, 0, err))
      return err->code;
  }
  return 0;
}

int kip_guard_drop(kip_nexus *nx, const char *owner, kip_error *err) {
  kip_error tmp;
  if (!err) err = &tmp;
  kip_err_clear(err);
  if (!valid_text(owner, 63)) return kip_err(err, KIP_E_SYNTAX, "Name the owner whose guards to drop.", "no owner given");
  int rc = kip_guards_refresh(nx, err);
  if (rc || (rc = kip_tx_begin(nx, err))) return rc;
  if (reindex_owned(nx, owner, err)) {
    kip_tx_rollback(nx);
    return err->code;
  }
  kip_stmt *st;
  rc = kip_prepare(nx, "DELETE FROM kip_guard WHERE owner = ?1", -1, &st);
  if (rc == KIP_STORE_OK) {
    kip_bind_text(st, 1, owner, -1, 0);
    rc = kip_step(st) == KIP_DONE ? KIP_STORE_OK : kip_store_errcode(nx);
    kip_finish(nx, st);
  }
  if (rc != KIP_STORE_OK) {
    kip_store_error(nx, rc, err, "dropping guards");
    kip_tx_rollback(nx);
    return err->code;
  }
  if ((rc = kip_tx_commit(nx, err))) return rc;
  return load(nx, err);
}

static void add_text_or_null(kip_buf *b, const char *key, const unsigned char *v, int comma) {
  if (comma) kip_buf_addc(b, ',');
  kip_buf_json_str(b, key, strlen(key));
  kip_buf_addc(b, ':');
  if (v && *v) kip_buf_json_str(b, (const char *)v, strlen((const char *)v));
  else kip_buf_adds(b, "null");
}

char *kip_guards_json(kip_nexus *nx, int log_limit) {
  kip_buf b;
  kip_buf_init(&b);
  kip_error err;
  kip_err_clear(&err);
  if (kip_guards_refresh(nx, &err)) {
    kip_buf_adds(&b, "{\"error\":");
    kip_json_write_error(&b, &err);
    kip_buf_addc(&b, '}');
    return kip_buf_detach(&b);
  }
  kip_buf_adds(&b, "{\"result\":{\"guards\":[");
  const struct kip_guards *g = nx->guards;
  for (int i = 0; g && i < g->n; i++) {
    const guard_row *r = &g->v[i];
    kip_buf_adds(&b, i ? ",{" : "{");
    add_text_or_null(&b, "type", (const unsigned char *)r->type, 0);
    add_text_or_null(&b, "name", (const unsigned char *)r->name, 1);
    add_text_or_null(&b, "mode", (const unsigned char *)(r->append_only ? "append_only" : "sealed"), 1);
    add_text_or_null(&b, "capability", (const unsigned char *)r->capability, 1);
    add_text_or_null(&b, "owner", (const unsigned char *)r->owner, 1);
    add_text_or_null(&b, "hint", (const unsigned char *)r->hint, 1);
    kip_buf_adds(&b, r->unindexed ? ",\"unindexed\":true}" : ",\"unindexed\":false}");
  }
  kip_buf_adds(&b, "],\"log\":[");
  kip_stmt *st;
  if (log_limit > 0 &&
      kip_prepare(nx, "SELECT at, op, element, kind, owner, reason FROM kip_guard_log ORDER BY seq DESC LIMIT ?1", -1, &st) == KIP_STORE_OK) {
    kip_bind_int64(st, 1, log_limit);
    for (int k = 0; kip_step(st) == KIP_ROW; k++) {
      kip_buf_adds(&b, k ? ",{" : "{");
      add_text_or_null(&b, "at", (const unsigned char *)kip_col_text(st, 0), 0);
      add_text_or_null(&b, "op", (const unsigned char *)kip_col_text(st, 1), 1);
      add_text_or_null(&b, "element", (const unsigned char *)kip_col_text(st, 2), 1);
      add_text_or_null(&b, "kind", (const unsigned char *)kip_col_text(st, 3), 1);
      add_text_or_null(&b, "owner", (const unsigned char *)kip_col_text(st, 4), 1);
      add_text_or_null(&b, "reason", (const unsigned char *)kip_col_text(st, 5), 1);
      kip_buf_addc(&b, '}');
    }
    kip_finish(nx, st);
  }
  kip_buf_adds(&b, "]}}");
  return kip_buf_detach(&b);
}
