/*
** store_elements.c — element rows (RC11 §2): concepts and propositions live
** in one table `element` so that they share one id space (higher-order
** propositions are plain references) and ids are never reused (a keyed
** permutation of a counter: store_ids.c). Concept rows carry type+name,
** proposition rows carry subject+predicate+object; a CHECK keeps the two
** shapes apart. Reads, inserts, updates, deletes and repoints with
** engine-maintained _version/_updated_at, the write guards' refusals, the
** memo of defined types and predicates, and element id text (C:<n>, P:<n>).
*/
#include "store_pg.h"
#include "store_sqlite.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* a write the running command's write guards refuse (KIP_4004) */
#define GUARD_HINT \
  "The governance policy protects these elements from this caller: use the operations that own them " \
  "(e.g. kip mind … for Knowledge)."
#define GUARD_MESSAGE "the write touches \"%s\", which the governance policy protects from this write while %s"

/* insert_element's answer when a write guard refuses an insert (err is
** filled): not a kip_code, so it cannot leave store.c */
#define GUARD_REFUSED (-1)

/* the error of a write a guard refused: a declared guard names itself */
int kip_store_guard_error(kip_nexus *nx, kip_error *err, const char *what) {
  if (nx->req->guard_why[0])
    return kip_err(err, KIP_E_DENIED, nx->req->guard_hint, "the write touches \"%s\": %s; refused while %s",
                   nx->req->guard_hit, nx->req->guard_why, what);
  return kip_err(err, KIP_E_DENIED, GUARD_HINT, GUARD_MESSAGE, nx->req->guard_hit, what);
}

void kip_elem_clear(kip_elem *e) {
  free(e->type);
  free(e->name);
  free(e->predicate);
  json_decref(e->attrs);
  json_decref(e->meta);
  memset(e, 0, sizeof *e);
}

static char *col_dup(kip_stmt *st, int i) {
  const char *s = kip_col_text(st, i);
  if (!s) return NULL;
  size_t n = (size_t)kip_col_bytes(st, i);
  char *p = malloc(n + 1);
  if (!p) return NULL;
  memcpy(p, s, n);
  p[n] = 0;
  return p;
}

static json_t *col_json(kip_stmt *st, int i) {
  const char *s = kip_col_text(st, i);
  json_t *v = s ? json_loadb(s, (size_t)kip_col_bytes(st, i), 0, NULL) : NULL;
  return v && json_is_object(v) ? v : (json_decref(v), json_object());
}

int kip_store_get(kip_nexus *nx, int64_t id, kip_elem *out, kip_error *err) {
  kip_stmt *st = nx->stmts[ST_GET];
  memset(out, 0, sizeof *out);
  kip_bind_int64(st, 1, id);
  int rc = kip_step(st);
  if (rc == KIP_ROW) {
    out->id = id;
    out->is_prop = kip_col_type(st, 1) == KIP_COL_NULL;
    out->type = col_dup(st, 1);
    out->name = col_dup(st, 2);
    out->subject = kip_col_int64(st, 3);
    out->predicate = col_dup(st, 4);
    out->object = kip_col_int64(st, 5);
    out->attrs = col_json(st, 6);
    out->meta = col_json(st, 7);
    out->version = kip_col_int64(st, 8);
    kip_reset(st);
    return 0;
  }
  kip_reset(st);
  if (rc == KIP_DONE) return KIP_E_NOT_FOUND;
  return kip_store_error(nx, rc, err, "reading an element");
}

static int step_id(kip_nexus *nx, kip_stmt *st, int64_t *id, kip_error *err, const char *what) {
  int rc = kip_step(st);
  if (rc == KIP_ROW) {
    *id = kip_col_int64(st, 0);
    kip_reset(st);
    return 0;
  }
  kip_reset(st);
  *id = 0;
  if (rc == KIP_DONE) return KIP_E_NOT_FOUND;
  return kip_store_error(nx, rc, err, what);
}

int kip_store_find_concept(kip_nexus *nx, const char *type, const char *name, int64_t *id, kip_error *err) {
  kip_stmt *st = nx->stmts[ST_FIND_CONCEPT];
  kip_bind_text(st, 1, type, -1, 0);
  kip_bind_text(st, 2, name, -1, 0);
  int rc = step_id(nx, st, id, err, "looking up a concept");
  kip_clear_bindings(st);
  return rc;
}

/* a statement over a JSON array of keys (json_to_recordset(?1)), each row
** it returns given to row(nx, st, ud); the array is consumed */
static int rows_for_keys(kip_nexus *nx, kip_buf *keys, const char *sql, void (*row)(kip_nexus *, kip_stmt *, void *),
                         void *ud, kip_error *err, const char *what) {
  kip_buf_addc(keys, ']');
  if (keys->oom) {
    kip_buf_free(keys);
    return kip_err(err, KIP_E_RESOURCE, NULL, "out of memory while %s", what);
  }
  kip_stmt *st;
  int rc = kip_prepare(nx, sql, -1, &st);
  if (rc != KIP_STORE_OK) {
    kip_buf_free(keys);
    return kip_store_error(nx, rc, err, what);
  }
  kip_bind_json_owned(st, 1, kip_buf_detach(keys), -1);
  while ((rc = kip_step(st)) == KIP_ROW) row(nx, st, ud);
  kip_finish(nx, st);
  return rc == KIP_DONE ? 0 : kip_store_error(nx, rc, err, what);
}

struct found_concepts {
  void (*found)(void *ud, const char *type, const char *name, int64_t id);
  void *ud;
};

static void concept_row(kip_nexus *nx, kip_stmt *st, void *ud) {
  (void)nx;
  struct found_concepts *f = ud;
  f->found(f->ud, kip_col_text(st, 1), kip_col_text(st, 2), kip_col_int64(st, 0));
}

int kip_store_find_concepts(kip_nexus *nx, int n, const char *const *types, const char *const *names,
                            void (*found)(void *ud, const char *type, const char *name, int64_t id), void *ud,
                            kip_error *err) {
  if (!nx->pg || n <= 0) return 0;
  kip_buf b;
  kip_buf_init(&b);
  for (int i = 0; i < n; i++) {
    kip_buf_adds(&b, i ? ",{\"t\":" : "[{\"t\":");
    kip_buf_json_str(&b, types[i], strlen(types[i]));
    kip_buf_adds(&b, ",\"n\":");
    kip_buf_json_str(&b, names[i], strlen(names[i]));
    kip_buf_addc(&b, '}');
  }
  struct found_concepts f = {found, ud};
  return rows_for_keys(nx, &b,
                       "SELECT e.id, e.type, e.name FROM json_to_recordset(?1) AS x(t text, n text) "
                       "JOIN element e ON e.type = x.t COLLATE \"C\" AND e.name = x.n COLLATE \"C\"",
                       concept_row, &f, err, "looking up concepts");
}

static void existing_prop_row(kip_nexus *nx, kip_stmt *st, void *ud) {
  (void)ud;
  kip_pg_batch_existing(nx, kip_col_int64(st, 0), kip_col_text(st, 1), kip_col_int64(st, 2), kip_col_int64(st, 3),
                        kip_col_text(st, 4), kip_col_text(st, 5));
}

int kip_store_link_met(kip_nexus *nx, int64_t s, const char *p, int64_t o) {
  return kip_pg_batching(nx) ? kip_pg_batch_met(nx, NULL, NULL, s, p, o, 0) : -1;
}

int kip_store_note_existing_props(kip_nexus *nx, int n, const int64_t *subjects, const char *const *predicates,
                                  const int64_t *objects, kip_error *err) {
  if (!kip_pg_batching(nx) || n <= 0) return 0;
  kip_buf b;
  kip_buf_init(&b);
  for (int i = 0; i < n; i++) {
    kip_buf_printf(&b, "%s{\"s\":%lld,\"o\":%lld,\"p\":", i ? "," : "[", (long long)subjects[i], (long long)objects[i]);
    kip_buf_json_str(&b, predicates[i], strlen(predicates[i]));
    kip_buf_addc(&b, '}');
  }
  return rows_for_keys(nx, &b,
                       "SELECT e.subject, e.predicate, e.object, e.id, e.attributes, e.metadata FROM json_to_recordset(?1) AS x(s bigint, p text, o bigint) "
                       "JOIN element e ON e.subject = x.s AND e.predicate = x.p COLLATE \"C\" AND e.object = x.o",
                       existing_prop_row, NULL, err, "looking up propositions");
}

int kip_store_find_prop(kip_nexus *nx, int64_t s, const char *p, int64_t o, int64_t *id, kip_error *err) {
  kip_stmt *st = nx->stmts[ST_FIND_PROP];
  kip_bind_int64(st, 1, s);
  kip_bind_text(st, 2, p, -1, 0);
  kip_bind_int64(st, 3, o);
  int rc = step_id(nx, st, id, err, "looking up a proposition");
  kip_clear_bindings(st);
  return rc;
}

/* The names found defined, remembered until the file changes (by this
** connection or another: SQLite's data version, read without a statement):
** every query checks its types and predicates, and most queries run
** between two writes. Only "defined" is remembered; a change of any row
** forgets them all. The pager learns of another process's commit when its
** next read begins, so a type another process has just removed can pass
** one more check and its query find nothing — as when the check and the
** query were two transactions. */
void kip_store_defined_forget(kip_nexus *nx) {
  for (size_t i = 0; i < sizeof nx->defined / sizeof *nx->defined; i++) {
    free(nx->defined[i]);
    nx->defined[i] = NULL;
  }
}

static char **defined_slot(kip_nexus *nx, const char *meta, const char *name) {
  unsigned version = kip_store_file_version(nx);
  if (!version) return NULL;
  if (version != nx->defined_version) {
    kip_store_defined_forget(nx);
    nx->defined_version = version;
  }
  unsigned h = (unsigned char)meta[1]; /* "$ConceptType" / "$PropositionType" */
  for (const char *p = name; *p; p++) h = h * 31u + (unsigned char)*p;
  return &nx->defined[h % (sizeof nx->defined / sizeof *nx->defined)];
}

unsigned kip_store_file_version(kip_nexus *nx) {
  if (nx->pg) { /* the write generation, plus one: never 0 (0 = unknown); it
                 ** holds while a transaction is open (a snapshot, or the
                 ** writer's lock: this writer bumps it when it commits) */
    struct kip_pg *pg = nx->pg;
    if (nx->tx_depth > 0 && pg->data_version_known) return pg->data_version;
    if (pg->may_assume && pg->deferred && pg->last_version) { /* checked with the first statement */
      pg->assumed = pg->data_version_known = 1;
      return pg->data_version = pg->last_version;
    }
    int64_t g = 0;
    kip_error ignored;
    if (step_id(nx, nx->stmts[ST_DATA_VERSION], &g, &ignored, "reading the write generation")) return 0;
    pg->last_version = pg->data_version = (unsigned)g + 1;
    pg->data_version_known = nx->tx_depth > 0;
    return pg->data_version;
  }
  unsigned version = 0;
  if (sqlite3_file_control(nx->db, "main", SQLITE_FCNTL_DATA_VERSION, &version) != SQLITE_OK) return 0;
  return version;
}

int kip_store_is_defined(kip_nexus *nx, const char *meta, const char *name, kip_error *err) {
  char **slot = defined_slot(nx, meta, name);
  if (slot && *slot && (*slot)[0] == meta[1] && !strcmp(*slot + 1, name)) return 1;
  kip_stmt *st = nx->stmts[ST_IS_DEFINED];
  int64_t one;
  kip_bind_text(st, 1, meta, -1, 0);
  kip_bind_text(st, 2, name, -1, 0);
  int rc = step_id(nx, st, &one, err, "checking the schema");
  kip_clear_bindings(st);
  if (rc == 0 && slot) {
    size_t n = strlen(name);
    char *entry = malloc(n + 2);
    if (entry) {
      entry[0] = meta[1];
      memcpy(entry + 1, name, n + 1);
      free(*slot);
      *slot = entry;
    }
  }
  if (rc == 0) return 1;
  if (rc == KIP_E_NOT_FOUND) return 0;
  return -1;
}

int kip_store_step_write(kip_nexus *nx, kip_stmt *st, kip_error *err, const char *what) {
  int rc = kip_step(st);
  kip_reset(st);
  kip_clear_bindings(st);
  if (rc == KIP_DONE) return 0;
  return kip_store_error(nx, rc, err, what);
}

/* attributes or metadata that the element table holds as "{}": none, or
** an empty object (most propositions carry no attributes) */
static int empty_json(const json_t *v) { return !v || (json_is_object(v) && json_object_size(v) == 0); }

/* an element's attributes or metadata as the element table holds them */
static char *json_text(const json_t *v) { return empty_json(v) ? strdup("{}") : kip_json_dump(v); }

int64_t kip_store_link_repeated(kip_nexus *nx, int64_t s, const char *p, int64_t o, const json_t *attrs,
                                const json_t *meta) {
  if (!kip_pg_batching(nx)) return 0;
  char *a = json_text(attrs), *m = json_text(meta);
  int64_t id = kip_pg_batch_repeated(nx, s, p, o, a, m);
  free(a);
  free(m);
  return id;
}

/* bound as the element table holds them; "{}" without allocating */
static int bind_json(kip_stmt *st, int i, const json_t *v) {
  if (empty_json(v)) return kip_bind_text(st, i, "{}", 2, 0);
  char *s = kip_json_dump(v);
  return s ? kip_bind_text_owned(st, i, s, -1) : SQLITE_NOMEM;
}

static int listed(const char *const *list, const char *kind) {
  for (; list && *list; list++)
    if (!strcmp(*list, kind)) return 1;
  return 0;
}

int kip_create_refused(kip_nexus *nx, const char *kind) { return kind && listed(nx->req->write_protected, kind); }

int kip_write_refused(kip_nexus *nx, char op, int64_t id, const char *type, const char *name, const char *predicate,
                      int64_t subject) {
  const char *kind = type ? type : predicate;
  nx->req->guard_why[0] = 0;
  if (kind && (listed(nx->req->write_protected, kind) || (op != 'i' && listed(nx->req->append_only, kind)))) {
    snprintf(nx->req->guard_hit, sizeof nx->req->guard_hit, "%s", kind);
    return 1;
  }
  return kip_guard_refused(nx, op, id, type, name, predicate, subject);
}

/* the last step of creating an element: the write guards, the insert, the
** mark for the SEARCH index; *id is the new id, or 0 when the element exists
** (its id goes back to the run); GUARD_REFUSED with err filled when a write
** guard refuses the insert */
static int insert_element(kip_nexus *nx, kip_stmt *st, const char *type, const char *name, const char *predicate,
                          int64_t subject, int64_t object, const json_t *battrs, const json_t *bmeta, int64_t nid,
                          int64_t *id, kip_error *err, const char *what) {
  if (kip_write_refused(nx, 'i', nid, type, name, predicate, subject)) {
    kip_reset(st);
    kip_clear_bindings(st);
    kip_store_unuse_id(nx, nid);
    *id = 0;
    kip_store_guard_error(nx, err, what);
    return GUARD_REFUSED;
  }
  int rc;
  if (kip_pg_batching(nx) && !kip_pg_batch_met(nx, type, name, subject, predicate, object, 1)) {
    /* assumed new; checked when the batch goes (store_pg_batch.c) */
    kip_clear_bindings(st);
    char *attrs = json_text(battrs), *meta = json_text(bmeta);
    if (type) kip_pg_batch_concept(nx, nid, type, name, attrs, meta);
    else kip_pg_batch_prop(nx, nid, subject, predicate, object, attrs, meta);
    free(attrs);
    free(meta);
    rc = kip_pg_batch_full(nx) && kip_pg_batch_send(nx->pg, 0) ? kip_pg_error(nx, KIP_PG_ERROR, err, what) : 0;
  } else {
    rc = kip_store_step_write(nx, st, err, what);
  }
  int inserted = !rc && kip_store_changes(nx) > 0;
  *id = inserted ? nid : 0;
  if (!inserted) {
    kip_store_unuse_id(nx, nid);
    return rc;
  }
  if (nx->fresh_n > 0 && nid == nx->fresh_lo + nx->fresh_n) {
    nx->fresh_n++;
    return 0;
  }
  if ((rc = kip_store_mark_fresh(nx, err))) return rc;
  nx->fresh_lo = nid;
  nx->fresh_n = 1;
  return 0;
}

/* New elements wait for the SEARCH index in search_dirty like changed
** ones, marked `fresh` (never indexed: nothing to remove from the index
** first). A transaction's new ids come in runs (store_ids.c), so they are
** recorded a run at a time — one statement per run instead of one per
** element — before anything reads search_dirty: at commit and when the
** index is synced. */
int kip_store_mark_fresh(kip_nexus *nx, kip_error *err) {
  if (nx->fresh_n == 0) return 0;
  kip_stmt *mark = nx->stmts[ST_MARK_FRESH];
  kip_bind_int64(mark, 1, nx->fresh_lo);
  kip_bind_int64(mark, 2, nx->fresh_lo + nx->fresh_n - 1);
  kip_index_builder_record(nx, nx->fresh_lo, nx->fresh_lo + nx->fresh_n - 1);
  kip_stmt *log = nx->stmts[ST_MARK_CHANGED];
  kip_bind_int64(log, 1, nx->fresh_lo);
  kip_bind_int64(log, 2, nx->fresh_lo + nx->fresh_n - 1);
  nx->fresh_n = 0;
  /* (a PostgreSQL load whose indexes wait lists what it wrote at its end,
  ** kip_pg_build_indexes: a mark reads the rows, sending the batch first) */
  int rc = nx->pg && nx->indexes_deferred ? 0 : kip_store_step_write(nx, mark, err, "recording new elements for the search index");
  if (rc) kip_reset(log);
  return rc ? rc : kip_store_step_write(nx, log, err, "recording new elements in the change log");
}

int kip_store_insert_concept(kip_nexus *nx, const char *type, const char *name, const json_t *attrs,
                             const json_t *meta, int64_t *id, kip_error *err) {
  kip_stmt *st = nx->stmts[ST_INSERT_CONCEPT];
  int64_t nid;
  int rc = kip_store_next_id(nx, &nid, err);
  if (rc) return rc;
  kip_bind_int64(st, 6, nid);
  kip_bind_text(st, 1, type, -1, 0);
  kip_bind_text(st, 2, name, -1, 0);
  bind_json(st, 3, attrs);
  bind_json(st, 4, meta);
  kip_bind_text(st, 5, nx->req->now, -1, 0);
  rc = insert_element(nx, st, type, name, NULL, 0, 0, attrs, meta, nid, id, err, "creating a concept");
  int64_t found = 0;
  kip_error ignored;
  if (rc == GUARD_REFUSED) /* meeting the element writes nothing: then there is no insert to refuse */
    rc = !kip_store_find_concept(nx, type, name, &found, &ignored) && found ? 0 : err->code;
  return rc;
}

int kip_store_insert_prop(kip_nexus *nx, int64_t s, const char *p, int64_t o, const json_t *attrs,
                          const json_t *meta, int64_t *id, kip_error *err) {
  kip_stmt *st = nx->stmts[ST_INSERT_PROP];
  int64_t nid;
  int rc = kip_store_next_id(nx, &nid, err);
  if (rc) return rc;
  kip_bind_int64(st, 7, nid);
  kip_bind_int64(st, 1, s);
  kip_bind_text(st, 2, p, -1, 0);
  kip_bind_int64(st, 3, o);
  bind_json(st, 4, attrs);
  bind_json(st, 5, meta);
  kip_bind_text(st, 6, nx->req->now, -1, 0);
  rc = insert_element(nx, st, NULL, NULL, p, s, o, attrs, meta, nid, id, err, "creating a proposition");
  int64_t found = 0;
  kip_error ignored;
  if (rc == GUARD_REFUSED) /* meeting the element writes nothing: then there is no insert to refuse */
    rc = !kip_store_find_prop(nx, s, p, o, &found, &ignored) && found ? 0 : err->code;
  return rc;
}

/* the write guards of an update or delete where no trigger checks them (a
** PostgreSQL nexus: SQLite's TEMP triggers call back into the engine,
** store.c): the row as it is, and a link given a new subject as created
** under it; 1 with err filled when refused */
static int checked_without_trigger(kip_nexus *nx, char op, int64_t id, int64_t new_subject, kip_error *err,
                                   const char *what) {
  if (!nx->pg) return 0;
  kip_pg_batch_changed(nx);
  kip_elem e;
  kip_error ignored;
  if (kip_store_get(nx, id, &e, &ignored)) return 0; /* nothing there: the write changes nothing */
  int refused = kip_write_refused(nx, op, id, e.type, e.name, e.predicate, e.subject) ||
                (new_subject && new_subject != e.subject && kip_write_refused(nx, 'i', id, NULL, NULL, e.predicate, new_subject));
  kip_elem_clear(&e);
  if (refused) kip_store_guard_error(nx, err, what);
  return refused;
}

int kip_store_update(kip_nexus *nx, int64_t id, const json_t *attrs, const json_t *meta, kip_error *err) {
  if (checked_without_trigger(nx, 'u', id, 0, err, "updating an element")) return err->code;
  kip_stmt *st = nx->stmts[ST_UPDATE];
  kip_bind_int64(st, 1, id);
  bind_json(st, 2, attrs);
  bind_json(st, 3, meta);
  kip_bind_text(st, 4, nx->req->now, -1, 0);
  return kip_store_step_write(nx, st, err, "updating an element");
}

int kip_store_delete(kip_nexus *nx, int64_t id, kip_error *err) {
  if (checked_without_trigger(nx, 'd', id, 0, err, "deleting an element")) return err->code;
  kip_stmt *st = nx->stmts[ST_DELETE];
  nx->tx_removed = 1;
  kip_bind_int64(st, 1, id);
  return kip_store_step_write(nx, st, err, "deleting an element");
}

int kip_store_repoint(kip_nexus *nx, int64_t id, int64_t subject, int64_t object, kip_error *err) {
  if (checked_without_trigger(nx, 'u', id, subject, err, "repointing a proposition")) return err->code;
  kip_stmt *st = nx->stmts[ST_REPOINT];
  nx->tx_removed = 1;
  kip_bind_int64(st, 1, id);
  kip_bind_int64(st, 2, subject);
  kip_bind_int64(st, 3, object);
  kip_bind_text(st, 4, nx->req->now, -1, 0);
  return kip_store_step_write(nx, st, err, "repointing a proposition");
}

int kip_store_next_referrer(kip_nexus *nx, int64_t id, int64_t *referrer, kip_error *err) {
  kip_stmt *st = nx->stmts[ST_NEXT_REFERRER];
  kip_bind_int64(st, 1, id);
  return step_id(nx, st, referrer, err, "finding references");
}

/* ------------------------------------------------------------------- ids */
void kip_format_id(char *out, size_t n, int64_t id, int is_prop) {
  kip_snprintf(out, n, "%c:%lld", is_prop ? 'P' : 'C', (long long)id);
}

int kip_parse_id(const char *s, int64_t *id, int *is_prop) {
  if (!s || (s[0] != 'C' && s[0] != 'P') || s[1] != ':' || s[2] < '1' || s[2] > '9') return 0;
  int64_t v = 0;
  for (const char *p = s + 2; *p; p++) {
    if (*p < '0' || *p > '9' || v > (INT64_MAX - 9) / 10) return 0;
    v = v * 10 + (*p - '0');
  }
  *id = v;
  *is_prop = s[0] == 'P';
  return 1;
}

/* ------------------------------------------------------- protected core */
int kip_protection(const char *type, const char *name) {
  if (!type || !name) return PROT_NONE;
  if (!strcmp(type, "$ConceptType") &&
      (!strcmp(name, "$ConceptType") || !strcmp(name, "$PropositionType") || !strcmp(name, "Domain")))
    return PROT_CORE;
  if (!strcmp(type, "$PropositionType") && !strcmp(name, "belongs_to_domain")) return PROT_CORE;
  if (!strcmp(type, "Domain") && (!strcmp(name, "CoreSchema") || !strcmp(name, "Unsorted") ||
                                  !strcmp(name, "Archived") || !strcmp(name, "System")))
    return PROT_CORE;
  if (!strcmp(type, "Person") && (!strcmp(name, "$self") || !strcmp(name, "$system"))) return PROT_ACTOR;
  return PROT_NONE;
}
