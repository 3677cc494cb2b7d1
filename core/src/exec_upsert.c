/*
** exec_upsert.c — executes UPSERT statements (RC11 §4.1, §2.10–2.11):
** blocks in order, local handles (define before use), match-or-create by
** {type, name}, match-only {id:} / (id:), embedded and structural endpoint
** references, SET ATTRIBUTES shallow merge, additive SET PROPOSITIONS with
** per-item metadata, metadata precedence (inner over outer, explicit null
** wins), schema define-before-use (KIP_2001), reserved "_" keys (KIP_2002),
** EXPECT VERSION (KIP_3005) and the protected core (KIP_3004). Unchanged
** writes are no-ops (no _version bump), which makes re-runs idempotent.
*/
#include <stdlib.h>
#include <string.h>

#include "exec.h"

/* ------------------------------------------------------- handle table */
typedef struct hentry {
  const char *name;
  int64_t id;
  int is_prop;
} hentry;

typedef struct htab {
  hentry *e;
  size_t cap, n;
} htab;

static size_t hhash(const char *s) {
  size_t h = 1469598103934665603ULL;
  while (*s) h = (h ^ (unsigned char)*s++) * 1099511628211ULL;
  return h;
}

static hentry *hfind(htab *t, const char *name) {
  if (!t->cap) return NULL;
  for (size_t i = hhash(name) & (t->cap - 1);; i = (i + 1) & (t->cap - 1)) {
    if (!t->e[i].name) return NULL;
    if (!strcmp(t->e[i].name, name)) return &t->e[i];
  }
}

static void hput(htab *t, const char *name, int64_t id, int is_prop) {
  if ((t->n + 1) * 2 > t->cap) {
    size_t cap = t->cap ? t->cap * 2 : 64;
    hentry *e = calloc(cap, sizeof *e);
    if (!e) abort();
    for (size_t i = 0; i < t->cap; i++)
      if (t->e[i].name) {
        size_t j = hhash(t->e[i].name) & (cap - 1);
        while (e[j].name) j = (j + 1) & (cap - 1);
        e[j] = t->e[i];
      }
    free(t->e);
    t->e = e;
    t->cap = cap;
  }
  size_t i = hhash(name) & (t->cap - 1);
  while (t->e[i].name && strcmp(t->e[i].name, name)) i = (i + 1) & (t->cap - 1);
  if (!t->e[i].name) t->n++;
  t->e[i].name = name;
  t->e[i].id = id;
  t->e[i].is_prop = is_prop;
}

/* ------------------------------------------------------------- checks */
static int check_reserved(const json_t *meta, kip_pos pos, kip_error *err) {
  const char *k;
  json_t *v;
  if (!meta) return 0;
  json_object_foreach((json_t *)meta, k, v) {
    if (k[0] == '_')
      return kip_err_at(err, KIP_E_CONSTRAINT, pos.line, pos.col,
                        "Never write _-prefixed metadata: _version, _updated_at, _score and _merged_from are engine-maintained.",
                        "metadata key '%s' is reserved (engine-maintained)", k);
  }
  return 0;
}

/* the metadata an author wrote: every key but the engine's own `_` keys */
static json_t *author_metadata(const json_t *meta) {
  json_t *out = json_object();
  const char *k;
  json_t *v;
  json_object_foreach((json_t *)meta, k, v) if (k[0] != '_') json_object_set(out, k, v);
  return out;
}

int kip_check_protected_change(kip_nexus *nx, const kip_elem *e, const json_t *new_attrs, const json_t *new_meta,
                               kip_error *err) {
  if (nx->privileged || e->is_prop) return 0;
  int prot = kip_protection(e->type, e->name);
  if (prot == PROT_CORE) {
    int attrs_changed = !json_equal(e->attrs, (json_t *)new_attrs), meta_changed = 0;
    if (!attrs_changed && new_meta) {
      json_t *a = author_metadata(e->meta), *b = author_metadata(new_meta);
      meta_changed = !json_equal(a, b);
      json_decref(a);
      json_decref(b);
    }
    if (attrs_changed || meta_changed)
      return kip_err(err, KIP_E_IMMUTABLE,
                     "Protected structures (meta-types, Domain, belongs_to_domain, core domains) cannot be modified; "
                     "write to your own concepts instead (rewriting identical values is allowed).",
                     "{type: \"%s\", name: \"%s\"} is a protected structure; its %s cannot change", e->type,
                     e->name, attrs_changed ? "attributes" : "metadata");
  }
  if (prot == PROT_ACTOR) {
    json_t *a = json_object_get(e->attrs, "core_directives");
    json_t *b = json_object_get(new_attrs, "core_directives");
    if (!(a == NULL && b == NULL) && !(a && b && json_equal(a, b)))
      return kip_err(err, KIP_E_IMMUTABLE,
                     "Ordinary attributes of $self/$system may evolve; core_directives may not.",
                     "core_directives of {type: \"Person\", name: \"%s\"} are protected", e->name);
  }
  return 0;
}

static int walk_reserved(const ast_upsert *u, kip_error *err) {
  if (check_reserved(u->meta, u->n ? u->blocks[0]->pos : (kip_pos){0, 0}, err)) return err->code;
  for (int i = 0; i < u->n; i++) {
    const ast_block *b = u->blocks[i];
    if (check_reserved(b->meta, b->pos, err)) return err->code;
    for (int j = 0; j < b->nprops; j++)
      if (check_reserved(b->props[j].meta, b->props[j].pos, err)) return err->code;
  }
  return 0;
}

/* ---------------------------------------------------------- resolution */
/* "type\x1fname" -> id of concepts found or created, and its keys */
typedef struct concept_table {
  htab map;
  kip_arena keys;
} concept_table;

/* a table that stops growing here: a few tens of MB, however large the load */
#define CONCEPT_TABLE_MAX (1 << 18)

/* The concepts a bulk load's commands (kip import's batches,
** request_bulk.c) found or created, kept from one command to the next: a
** load names the same endpoints in batch after batch, and each is then
** looked up once per load instead of once per batch. It stays true while
** only bulk commands follow on this connection and nobody else writes:
** UPSERT never deletes or renames a concept, and what could — any other
** command, a rollback — bumps the store's invalidations (kip_store_end_bulk,
** kip_tx_rollback); another connection's commit changes PRAGMA
** data_version, read inside the command's write transaction. Used only
** without a governance scope (the entries were not checked against one).
** It is the exec layer's state of a nexus (kip_nexus.exec). */
struct kip_exec_state {
  concept_table t;
  int64_t data_version;
  uint64_t invalidations; /* the store's when the memo was made */
};

static void concept_table_free(concept_table *t) {
  free(t->map.e);
  kip_arena_free(&t->keys);
}

void kip_exec_state_free(kip_nexus *nx) {
  if (!nx->exec) return;
  concept_table_free(&nx->exec->t);
  free(nx->exec);
  nx->exec = NULL;
}

/* the memo for this command, or NULL when it is not a bulk command */
static concept_table *concept_memo(kip_nexus *nx) {
  if (!nx->req->bulk || nx->req->scope) return NULL;
  unsigned version = kip_store_file_version(nx);
  if (!version) return NULL;
  if (nx->exec && (nx->exec->invalidations != nx->invalidations || nx->exec->data_version != version))
    kip_exec_state_free(nx);
  if (!nx->exec && (nx->exec = calloc(1, sizeof *nx->exec))) {
    nx->exec->data_version = version;
    nx->exec->invalidations = nx->invalidations;
  }
  return nx->exec ? &nx->exec->t : NULL;
}

typedef struct upsert_state {
  kip_ctx *c;
  htab handles;
  htab defined[2];                /* types / predicates known to be defined (a bulk UPSERT names few) */
  concept_table own;              /* the concepts this command found or created */
  concept_table *concepts;        /* &own, or the bulk load's memo */
  kip_buf key;                    /* (the key being looked up) */
  int exists[2];                  /* the last concept / proposition written existed already */
  int prefetched;                 /* every concept the command names by {type, name} was looked up
                                  ** (prefetch_concepts): one it did not find is new */
  json_t *concept_ids, *prop_ids; /* id arrays for the response */
} upsert_state;

/* Concepts the command found or created, by {type, name}: a bulk UPSERT
** names the same endpoints again and again. Nothing in an UPSERT deletes
** or renames a concept, and a command is one transaction, so an entry stays
** true until the command ends (a bulk load's, longer: struct
** kip_exec_state). Only concepts the caller may see are entered. */
static hentry *known_concept(upsert_state *U, const char *type, const char *name) {
  U->key.len = 0;
  kip_buf_adds(&U->key, type);
  kip_buf_addc(&U->key, '\x1f');
  kip_buf_adds(&U->key, name);
  kip_buf_addc(&U->key, '\0');
  return U->key.oom ? NULL : hfind(&U->concepts->map, U->key.p);
}

static void remember_concept(upsert_state *U, const char *type, const char *name, int64_t id) {
  if (known_concept(U, type, name) || U->key.oom || U->concepts->map.n >= CONCEPT_TABLE_MAX) return;
  hput(&U->concepts->map, kip_strndup(&U->concepts->keys, U->key.p, U->key.len - 1), id, 0);
}

static int check_defined(upsert_state *U, const char *meta, const char *name, kip_pos pos) {
  htab *known = &U->defined[meta[1] == 'P']; /* "$PropositionType" / "$ConceptType" */
  if (hfind(known, name)) return 0;
  int d = kip_store_is_defined(U->c->nx, meta, name, U->c->err);
  if (d < 0) return U->c->err->code;
  if (d) {
    hput(known, name, 0, 0); /* a definition cannot disappear inside an UPSERT */
    return 0;
  }
  int concept = !strcmp(meta, "$ConceptType");
  return kip_err_at(U->c->err, KIP_E_TYPE, pos.line, pos.col,
                    concept ? "Define it first: UPSERT { CONCEPT ?t { {type: \"$ConceptType\", name: \"...\"} } }, or check the case (DESCRIBE CONCEPT TYPES)."
                            : "Define it first: UPSERT { CONCEPT ?p { {type: \"$PropositionType\", name: \"...\"} } }, or check the case (DESCRIBE PROPOSITION TYPES).",
                    "%s '%s' is not defined", concept ? "concept type" : "predicate", name);
}

static int resolve_endpoint(upsert_state *U, const ast_endpoint *ep, int64_t *id, int *is_prop);

/* Under a governance scope an UPSERT may not change an existing element
** outside it (KIP_4004, naming nothing), nor create an element of a
** forbidden type/predicate. */
static int scope_guard(upsert_state *U, int64_t id, kip_pos pos) {
  kip_nexus *nx = U->c->nx;
  if (!nx->req->scope) return 0;
  int r = kip_in_scope(nx, id, U->c->err);
  if (r < 0) return U->c->err->code;
  return r ? 0 : kip_scope_denied(U->c->err, pos);
}

/* A reference to an element outside the scope is answered exactly as a
** reference to a missing one: 1 when `id` is visible, 0 when hidden. */
static int visible(upsert_state *U, int64_t id, int *out) {
  *out = 1;
  if (!U->c->nx->req->scope) return 0;
  int r = kip_in_scope(U->c->nx, id, U->c->err);
  if (r < 0) return U->c->err->code;
  *out = r;
  return 0;
}

static int forbidden(upsert_state *U, const char *const *list, const char *name) {
  for (int i = 0; U->c->nx->req->scope && list && list[i]; i++)
    if (!strcmp(list[i], name)) return 1;
  return 0;
}

static int scope_forbids(upsert_state *U, const char *const *list, const char *name, kip_pos pos) {
  return forbidden(U, list, name) ? kip_scope_denied(U->c->err, pos) : 0;
}

/* the governance scope's lists of types / predicates it may not create */
static const char *const *forbidden_types(upsert_state *U) {
  return U->c->nx->req->scope ? U->c->nx->req->scope->forbidden_types : NULL;
}
static const char *const *forbidden_predicates(upsert_state *U) {
  return U->c->nx->req->scope ? U->c->nx->req->scope->forbidden_predicates : NULL;
}

static int lookup_by_id(upsert_state *U, const json_t *idv, int want_prop, kip_pos pos, int64_t *id) {
  const char *s = json_string_value(idv);
  int64_t v;
  int p;
  kip_elem e;
  if (kip_parse_id(s, &v, &p) && p == want_prop) {
    int rc = kip_store_get(U->c->nx, v, &e, U->c->err);
    if (rc == 0) {
      int ok = e.is_prop == want_prop, seen = 1;
      kip_elem_clear(&e);
      if (ok && (rc = visible(U, v, &seen))) return rc;
      if (ok && seen) {
        *id = v;
        return 0;
      }
    } else if (rc != KIP_E_NOT_FOUND) {
      return rc;
    }
  }
  return kip_err_at(U->c->err, KIP_E_NOT_FOUND, pos.line, pos.col, NULL, "no %s with id \"%s\"",
                    want_prop ? "proposition" : "concept", s);
}

static int resolve_concept(upsert_state *U, const ast_concept *cc, int64_t *id) {
  if (cc->id) return lookup_by_id(U, cc->id, 0, cc->pos, id);
  const char *type = json_string_value(cc->type), *name = json_string_value(cc->name);
  int rc = check_defined(U, "$ConceptType", type, cc->pos);
  if (rc) return rc;
  hentry *known = known_concept(U, type, name);
  if (known) {
    *id = known->id;
    return 0;
  }
  rc = kip_store_find_concept(U->c->nx, type, name, id, U->c->err);
  int seen = 1;
  if (!rc && (rc = visible(U, *id, &seen))) return rc;
  if (rc == KIP_E_NOT_FOUND || !seen)
    return kip_err_at(U->c->err, KIP_E_NOT_FOUND, cc->pos.line, cc->pos.col,
                      "Referenced targets must already exist: create it in an earlier CONCEPT block or command.",
                      "concept {type: \"%s\", name: \"%s\"} does not exist", type, name);
  if (!rc) remember_concept(U, type, name, *id);
  return rc;
}

static int resolve_prop(upsert_state *U, const ast_prop *pr, int64_t *id) {
  if (pr->id) return lookup_by_id(U, pr->id, 1, pr->pos, id);
  int64_t s, o;
  int sp, op, rc;
  if ((rc = resolve_endpoint(U, &pr->subject, &s, &sp))) return rc;
  if ((rc = resolve_endpoint(U, &pr->object, &o, &op))) return rc;
  const char *pred = pr->pred.names[0];
  if ((rc = check_defined(U, "$PropositionType", pred, pr->pred.pos))) return rc;
  rc = kip_store_find_prop(U->c->nx, s, pred, o, id, U->c->err);
  int seen = 1;
  if (!rc && (rc = visible(U, *id, &seen))) return rc;
  if (rc == KIP_E_NOT_FOUND || !seen)
    return kip_err_at(U->c->err, KIP_E_NOT_FOUND, pr->pos.line, pr->pos.col,
                      "A referenced proposition must already exist; create it with a PROPOSITION block first.",
                      "proposition (%s, \"%s\", %s) does not exist", pr->subject.kind == EP_VAR ? pr->subject.var : "...",
                      pred, pr->object.kind == EP_VAR ? pr->object.var : "...");
  return rc;
}

static int resolve_endpoint(upsert_state *U, const ast_endpoint *ep, int64_t *id, int *is_prop) {
  switch (ep->kind) {
    case EP_VAR: {
      hentry *h = hfind(&U->handles, ep->var);
      if (!h)
        return kip_err_at(U->c->err, KIP_E_REFERENCE, ep->pos.line, ep->pos.col,
                          "Define the handle in an earlier CONCEPT or PROPOSITION block of the same UPSERT.",
                          "handle ?%s is not defined before this use", ep->var);
      *id = h->id;
      *is_prop = h->is_prop;
      return 0;
    }
    case EP_CONCEPT: *is_prop = 0; return resolve_concept(U, ep->concept, id);
    case EP_PROP: *is_prop = 1; return resolve_prop(U, ep->prop, id);
  }
  return kip_err(U->c->err, KIP_E_INTERNAL, NULL, "bad endpoint");
}

/* ---------------------------------------------------------- writing */
/* Create or merge an element. For new ones `create` does the insert. */
static int merge_existing(upsert_state *U, int64_t id, const json_t *attrs, const json_t *meta, int has_expect,
                          int64_t expect, kip_pos epos) {
  kip_elem e;
  int rc = scope_guard(U, id, epos);
  if (rc) return rc;
  rc = kip_store_get(U->c->nx, id, &e, U->c->err);
  if (rc) return rc == KIP_E_NOT_FOUND ? kip_err(U->c->err, KIP_E_INTERNAL, NULL, "element vanished") : rc;
  if (has_expect && e.version != expect) {
    char idb[32];
    kip_format_id(idb, sizeof idb, id, e.is_prop);
    if (expect == 0)
      rc = kip_err_at(U->c->err, KIP_E_VERSION, epos.line, epos.col, NULL,
                      "EXPECT VERSION 0 (create-only) but %s already exists (_version %lld)", idb,
                      (long long)e.version);
    else
      rc = kip_err_at(U->c->err, KIP_E_VERSION, epos.line, epos.col, NULL,
                      "EXPECT VERSION %lld but %s has _version %lld; the whole UPSERT was aborted",
                      (long long)expect, idb, (long long)e.version);
    kip_elem_clear(&e);
    return rc;
  }
  json_t *na = kip_json_merge(e.attrs, attrs);
  json_t *nm = kip_json_merge(e.meta, meta);
  rc = kip_check_protected_change(U->c->nx, &e, na, nm, U->c->err);
  if (!rc && (!json_equal(na, e.attrs) || !json_equal(nm, e.meta)))
    rc = kip_store_update(U->c->nx, id, na, nm, U->c->err);
  json_decref(na);
  json_decref(nm);
  kip_elem_clear(&e);
  return rc;
}

/* Whether to try the insert before looking the element up: when the
** previous element of its kind in this command was new (a load writes new
** ones in long runs, a re-run or an update existing ones) — or, where a
** batch knows (`met`: kip_store_link_met), when this one was not met —
** and only where creating it would be allowed; an insert that meets the
** element writes nothing and gives its id back. */
static int insert_first(upsert_state *U, int kind, int met, const char *const *forbid, const char *type_or_pred,
                        int has_expect, int64_t expect) {
  return !(met < 0 ? U->exists[kind] : met) && !(has_expect && expect != 0) && !forbidden(U, forbid, type_or_pred) &&
         !kip_create_refused(U->c->nx, type_or_pred);
}

static int upsert_link(upsert_state *U, int64_t s, const char *pred, int64_t o, const json_t *attrs,
                       const json_t *meta, int has_expect, int64_t expect, kip_pos pos, kip_pos epos, int64_t *out) {
  int64_t id = 0;
  int rc = 0, met = kip_store_link_met(U->c->nx, s, pred, o);
  if (met > 0 && !has_expect && !U->c->nx->req->scope &&
      (id = kip_store_link_repeated(U->c->nx, s, pred, o, attrs, meta))) { /* said again in this command */
    U->exists[1] = 1;
    if (out) *out = id;
    return 0;
  }
  if (insert_first(U, 1, met, forbidden_predicates(U), pred, has_expect, expect))
    rc = kip_store_insert_prop(U->c->nx, s, pred, o, attrs, meta, &id, U->c->err);
  int created = !rc && id;
  if (!rc && !created) rc = kip_store_find_prop(U->c->nx, s, pred, o, &id, U->c->err);
  if (rc == KIP_E_NOT_FOUND) {
    if (has_expect && expect != 0)
      return kip_err_at(U->c->err, KIP_E_VERSION, epos.line, epos.col, NULL,
                        "EXPECT VERSION %lld but the proposition does not exist", (long long)expect);
    if ((rc = scope_forbids(U, forbidden_predicates(U), pred, pos))) return rc;
    rc = kip_store_insert_prop(U->c->nx, s, pred, o, attrs, meta, &id, U->c->err);
    created = 1;
  } else if (rc == 0 && !created) {
    rc = merge_existing(U, id, attrs, meta, has_expect, expect, epos);
  }
  if (!rc && created && s == o) {
    char idb[32];
    kip_format_id(idb, sizeof idb, s, 0);
    kip_warn(U->c, "self-loop: the \"%s\" link at line %d points from %s to itself", pred, pos.line, idb);
  }
  U->exists[1] = !created;
  if (!rc && out) *out = id;
  return rc;
}

/* match-or-create a concept by {type, name} (its type is defined) */
static int upsert_concept(upsert_state *U, const ast_block *b, const char *type, const char *name, const json_t *meta,
                          int64_t *id) {
  kip_ctx *c = U->c;
  hentry *known = known_concept(U, type, name);
  int rc = 0, created = 0;
  if (known) *id = known->id;
  else if (U->prefetched) rc = KIP_E_NOT_FOUND; /* looked up with the command's others, and not found */
  else {
    if (insert_first(U, 0, -1, forbidden_types(U), type, b->has_expect, b->expect))
      rc = kip_store_insert_concept(c->nx, type, name, b->attrs, meta, id, c->err);
    created = !rc && *id;
    if (!rc && !created) rc = kip_store_find_concept(c->nx, type, name, id, c->err);
  }
  if (rc == KIP_E_NOT_FOUND) {
    if (b->has_expect && b->expect != 0)
      return kip_err_at(c->err, KIP_E_VERSION, b->expect_pos.line, b->expect_pos.col, NULL,
                        "EXPECT VERSION %lld but {type: \"%s\", name: \"%s\"} does not exist", (long long)b->expect,
                        type, name);
    if ((rc = scope_forbids(U, forbidden_types(U), type, b->concept->pos))) return rc;
    rc = kip_store_insert_concept(c->nx, type, name, b->attrs, meta, id, c->err);
    created = 1;
  } else if (rc == 0 && !created) {
    rc = merge_existing(U, *id, b->attrs, meta, b->has_expect, b->expect, b->expect_pos);
  }
  if (!known) U->exists[0] = !created;
  /* one it found passed the scope guard; one it created under a scope may
  ** be out of the caller's sight (a later reference checks) */
  if (!rc && !(created && c->nx->req->scope)) remember_concept(U, type, name, *id);
  return rc;
}

static int exec_concept_block(upsert_state *U, const ast_block *b, const json_t *stmt_meta) {
  const ast_concept *cc = b->concept;
  json_t *meta = kip_json_merge(stmt_meta, b->meta);
  int64_t id = 0;
  int rc = 0;
  if (cc->id) {
    rc = lookup_by_id(U, cc->id, 0, cc->pos, &id);
    if (!rc) rc = merge_existing(U, id, b->attrs, meta, b->has_expect, b->expect, b->expect_pos);
  } else {
    const char *type = json_string_value(cc->type), *name = json_string_value(cc->name);
    /* the prime mover defines itself */
    if (!(strcmp(type, "$ConceptType") == 0 && strcmp(name, "$ConceptType") == 0))
      rc = check_defined(U, "$ConceptType", type, cc->pos);
    if (!rc) rc = upsert_concept(U, b, type, name, meta, &id);
  }
  if (!rc) {
    if (b->handle) hput(&U->handles, b->handle, id, 0);
    for (int i = 0; !rc && i < b->nprops; i++) {
      const ast_setprop *sp = &b->props[i];
      const char *pred = json_string_value(sp->pred);
      int64_t target;
      int tprop;
      rc = check_defined(U, "$PropositionType", pred, sp->pos);
      if (!rc) rc = resolve_endpoint(U, &sp->target, &target, &tprop);
      if (!rc) {
        json_t *im = kip_json_merge(meta, sp->meta);
        rc = upsert_link(U, id, pred, target, NULL, im, 0, 0, sp->pos, sp->pos, NULL);
        json_decref(im);
      }
    }
  }
  if (!rc) {
    char idb[32];
    kip_format_id(idb, sizeof idb, id, 0);
    json_array_append_new(U->concept_ids, json_string(idb));
  }
  json_decref(meta);
  return rc;
}

static int exec_prop_block(upsert_state *U, const ast_block *b, const json_t *stmt_meta) {
  const ast_prop *pr = b->prop;
  json_t *meta = kip_json_merge(stmt_meta, b->meta);
  int64_t id = 0;
  int rc;
  if (pr->id) {
    rc = lookup_by_id(U, pr->id, 1, pr->pos, &id);
    if (!rc) rc = merge_existing(U, id, b->attrs, meta, b->has_expect, b->expect, b->expect_pos);
  } else {
    int64_t s, o;
    int sp, op;
    const char *pred = pr->pred.names[0];
    rc = resolve_endpoint(U, &pr->subject, &s, &sp);
    if (!rc) rc = resolve_endpoint(U, &pr->object, &o, &op);
    if (!rc) rc = check_defined(U, "$PropositionType", pred, pr->pred.pos);
    if (!rc) rc = upsert_link(U, s, pred, o, b->attrs, meta, b->has_expect, b->expect, pr->pos, b->expect_pos, &id);
  }
  if (!rc) {
    if (b->handle) hput(&U->handles, b->handle, id, 1);
    char idb[32];
    kip_format_id(idb, sizeof idb, id, 1);
    json_array_append_new(U->prop_ids, json_string(idb));
  }
  json_decref(meta);
  return rc;
}

static void found_concept(void *ud, const char *type, const char *name, int64_t id) {
  remember_concept(ud, type, name, id);
}

/* the concepts the command names by {type, name} — its CONCEPT blocks and
** the endpoints of its PROPOSITION blocks — that exist already, looked up
** together where a lookup is a round trip (kip_store_find_concepts): a
** load's links name their endpoints again and again. Only without a
** governance scope (what is remembered is not checked against one). Sent
** PREFETCH_MAX keys at a time: a command of kip import (megabytes) names
** more, and a key left out would be looked up alone — and a link between
** endpoints it did not know would be assumed new unchecked. */
#define PREFETCH_MAX 20000

/* the {type, name} a concept reference names as strings, or 0 (an id, a
** parameter of another type) */
static int named_concept(const ast_concept *cc, const char **type, const char **name) {
  if (!cc || cc->id || !json_is_string(cc->type) || !json_is_string(cc->name)) return 0;
  *type = json_string_value(cc->type);
  *name = json_string_value(cc->name);
  return 1;
}

/* the keys one prefetch statement sends: concepts by {type, name}, or
** links by (subject, predicate, object) */
typedef struct prefetch {
  upsert_state *U;
  int n;
  const char **types, **names, **preds;
  int64_t *subjects, *objects;
} prefetch;

static int send_concepts(prefetch *P) {
  int rc = P->n ? kip_store_find_concepts(P->U->c->nx, P->n, P->types, P->names, found_concept, P->U, P->U->c->err) : 0;
  P->n = 0;
  return rc;
}

static int send_links(prefetch *P) {
  int rc = P->n ? kip_store_note_existing_props(P->U->c->nx, P->n, P->subjects, P->preds, P->objects, P->U->c->err) : 0;
  P->n = 0;
  return rc;
}

static int want_concept(prefetch *P, const ast_concept *cc) {
  const char *type, *name;
  if (!named_concept(cc, &type, &name) || known_concept(P->U, type, name)) return 0;
  P->types[P->n] = type;
  P->names[P->n++] = name;
  return P->n == PREFETCH_MAX ? send_concepts(P) : 0;
}

/* then the links between concepts it knows: those that exist are not
** assumed new by a batch of inserts */
static int want_link(prefetch *P, const ast_prop *pr) {
  const char *st, *sn, *ot, *on;
  if (!pr || pr->id || pr->subject.kind != EP_CONCEPT || pr->object.kind != EP_CONCEPT ||
      !named_concept(pr->subject.concept, &st, &sn) || !named_concept(pr->object.concept, &ot, &on))
    return 0;
  hentry *hs = known_concept(P->U, st, sn);
  if (!hs) return 0;
  int64_t s = hs->id;
  hentry *ho = known_concept(P->U, ot, on);
  if (!ho) return 0;
  P->subjects[P->n] = s;
  P->objects[P->n] = ho->id;
  P->preds[P->n++] = pr->pred.names[0];
  return P->n == PREFETCH_MAX ? send_links(P) : 0;
}

static int prefetch_concepts(upsert_state *U, const ast_command *cmd) {
  if (!U->c->nx->pg || U->c->nx->req->scope) return 0;
  prefetch P = {U, 0, malloc(PREFETCH_MAX * sizeof *P.types), malloc(PREFETCH_MAX * sizeof *P.names),
                malloc(PREFETCH_MAX * sizeof *P.preds), malloc(PREFETCH_MAX * sizeof *P.subjects),
                malloc(PREFETCH_MAX * sizeof *P.objects)};
  if (!P.types || !P.names || !P.preds || !P.subjects || !P.objects) abort();
  int rc = 0;
  for (int pass = 0; pass < 2 && !rc; pass++) {
    for (int i = 0; i < cmd->n && !rc; i++) {
      const ast_upsert *u = &cmd->stmts[i]->u.upsert;
      for (int j = 0; j < u->n && !rc; j++) {
        const ast_block *b = u->blocks[j];
        if (pass == 1) rc = b->kind == B_PROP ? want_link(&P, b->prop) : 0;
        else if (b->kind == B_CONCEPT) rc = want_concept(&P, b->concept);
        else if (b->prop && !b->prop->id) {
          if (b->prop->subject.kind == EP_CONCEPT) rc = want_concept(&P, b->prop->subject.concept);
          if (!rc && b->prop->object.kind == EP_CONCEPT) rc = want_concept(&P, b->prop->object.concept);
        }
      }
    }
    if (!rc) rc = pass == 0 ? send_concepts(&P) : send_links(&P);
  }
  U->prefetched = !rc;
  free(P.types);
  free(P.names);
  free(P.preds);
  free(P.subjects);
  free(P.objects);
  return rc;
}

int kip_exec_upsert(kip_ctx *c, const ast_command *cmd) {
  upsert_state U;
  memset(&U, 0, sizeof U);
  U.c = c;
  U.exists[0] = U.exists[1] = 1; /* the first of each kind is looked up: an update writes no id run */
  U.concepts = concept_memo(c->nx);
  if (!U.concepts) U.concepts = &U.own;
  kip_buf_init(&U.key);
  U.concept_ids = json_array();
  U.prop_ids = json_array();
  int64_t named = 0; /* the elements it names: one per block (SET PROPOSITIONS may add more) */
  for (int i = 0; i < cmd->n; i++) named += cmd->stmts[i]->u.upsert.n;
  kip_store_expect_ids(c->nx, named);
  int rc = prefetch_concepts(&U, cmd);
  for (int i = 0; !rc && i < cmd->n; i++) {
    const ast_upsert *u = &cmd->stmts[i]->u.upsert;
    if ((rc = walk_reserved(u, c->err))) break;
    U.handles.n = 0;
    if (U.handles.cap) memset(U.handles.e, 0, U.handles.cap * sizeof *U.handles.e);
    for (int j = 0; !rc && j < u->n; j++) {
      const ast_block *b = u->blocks[j];
      if (kip_interrupted(c->nx)) /* a long UPSERT stops when the client goes away */
        rc = kip_store_error(c->nx, kip_store_interrupt_code(), c->err, "writing");
      else rc = b->kind == B_CONCEPT ? exec_concept_block(&U, b, u->meta) : exec_prop_block(&U, b, u->meta);
    }
  }
  if (!rc) {
    kip_buf_printf(c->out, "{\"blocks\":%d,\"upsert_concept_nodes\":", cmd->n);
    if (c->dry_run) kip_buf_adds(c->out, "[],\"upsert_proposition_links\":[]}");
    else {
      kip_json_write(c->out, U.concept_ids);
      kip_buf_adds(c->out, ",\"upsert_proposition_links\":");
      kip_json_write(c->out, U.prop_ids);
      kip_buf_addc(c->out, '}');
    }
  }
  kip_store_expect_ids(c->nx, 0);
  free(U.handles.e);
  concept_table_free(&U.own);
  kip_buf_free(&U.key);
  free(U.defined[0].e);
  free(U.defined[1].e);
  json_decref(U.concept_ids);
  json_decref(U.prop_ids);
  return rc;
}
