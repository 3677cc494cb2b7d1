/*
** kip_core.c — the Lua binding of libkipcore (module "kip.core"), built
** once for Lua 5.4 and once for LuaJIT from this single source.
**
**   core.open(path [, {capsule_dir=, busy_timeout_ms=, synchronous_full=, readonly=, cache_mb=}])
**       -> nexus | nil, message, code
**   nexus:call_json(request_text [, {readonly=, deadline_ms=, max_rows=, max_hops=}]) -> response_text
**   nexus:close()        (also __gc / __close; idempotent)
**   nexus:readonly() -> nil | "requested" | "not writable" (opened read-only because of permissions)
**   nexus:last_read_on_standby() -> boolean (PostgreSQL ?read=: the last readonly call's server)
**   nexus:sync_index([batch [, progress(done, total)]]) -> true | nil, message (index deferred bulk loads)
**   nexus:merge_index() -> true | nil, message (merge the SEARCH index: kip_merge_index)
**   nexus:guard_declare{type=, name=, mode=, capability=, owner=, hint=, unindexed=} / guard_drop(owner)
**       -> true | nil, message; nexus:guards([log_limit]) -> json text (kip_guard_declare ...)
**   core.parse(command [, params_json]) -> json text
**   core.describe(command [, params_json]) -> json text (policy request description)
**   nexus:call_json(request_json [, opts]) -> response json; opts: readonly,
**     deadline_ms, max_rows, max_hops, eligibility, eligibility_params,
**     forbidden_types, forbidden_predicates, write_protected, append_only, write_denied,
**     capabilities (list), maintenance (reason text) — the host's grants for declared guards, and the per-command
**     governance hooks before(index, command, params_json, description_json) / after(index, response_json),
**     and interrupted() -> true to cancel (polled every 20 ms at most)
**   nexus:call_command(command [, params_json [, opts]]) -> response json: one
**     command without the envelope (kip_call_command; bulk loads), same opts
**   core.explain(nexus, command [, params_json]) -> json text
**   core.json_decode(text [, unordered]) -> value    (exact 64-bit integers on Lua 5.4;
**                                   unordered: objects do not remember their key order)
**   core.json_encode(value [, pretty]) -> text   (object keys sorted: byte-stable output)
**   core.json_decode_request(text) -> value | nil, message, recovered_id
**   core.array_mt        metatable marking decoded arrays (so [] stays [])
**   core.null            sentinel for JSON null inside arrays/objects
**   core.sandbox_begin / sandbox_end / pattern   sandbox limits (kip_sandbox.c)
**   core.fold_key(text) -> duplicate key (NFKD, no marks, casefold, punctuation as spaces)
**   core.http_post_json(url, body [, {bearer=, timeout_ms=}]) -> status, reply | nil, message
**   core.monotonic_ms() -> milliseconds of a monotonic wall clock (for durations; os.clock is CPU time)
**   core.default_embeddings   the build's word vectors file (the local embedder)
**   nexus:set_embedder / embed_pending / reset_vectors / vector_status / embed   (kip_embedder.c)
*/
#include <jansson.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "kip_binding.h"

#ifndef KIP_DEFAULT_EMBEDDINGS
#define KIP_DEFAULT_EMBEDDINGS ""
#endif
#ifndef KIP_UI_VENDOR /* the inspector's npm packages in the build tree (docs/ui.md) */
#define KIP_UI_VENDOR ""
#endif

lnexus *kip_check_nexus(lua_State *L, int i) {
  lnexus *n = luaL_checkudata(L, i, NEXUS_MT);
  if (!n->nx) luaL_error(L, "attempt to use a closed nexus");
  n->L = L;
  return n;
}
#define check_nexus kip_check_nexus

static int opt_int(lua_State *L, int t, const char *k, int def) {
  if (lua_type(L, t) != LUA_TTABLE) return def;
  lua_getfield(L, t, k);
  int v = lua_isnumber(L, -1) ? (int)lua_tonumber(L, -1) : lua_toboolean(L, -1) ? 1 : def;
  lua_pop(L, 1);
  return v;
}

static int l_open(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  kip_open_options o;
  memset(&o, 0, sizeof o);
  if (lua_type(L, 2) == LUA_TTABLE) {
    lua_getfield(L, 2, "capsule_dir");
    o.capsule_dir = lua_tostring(L, -1); /* kept alive by the options table */
    lua_pop(L, 1);
    o.busy_timeout_ms = opt_int(L, 2, "busy_timeout_ms", 0);
    o.synchronous_full = opt_int(L, 2, "synchronous_full", 0);
    o.readonly = opt_int(L, 2, "readonly", 0);
    o.cache_mb = opt_int(L, 2, "cache_mb", 0);
  }
  lnexus *n = lua_newuserdata(L, sizeof *n); /* safe closed state first */
  n->nx = NULL;
  n->L = L;
  luaL_getmetatable(L, NEXUS_MT);
  lua_setmetatable(L, -2);
  kip_error err;
  if (kip_open(path, &o, &n->nx, &err)) {
    lua_pushnil(L);
    lua_pushfstring(L, "%s (hint: %s)", err.message, err.hint);
    lua_pushinteger(L, err.code);
    return 3;
  }
  return 1;
}

static int l_close(lua_State *L) {
  lnexus *n = luaL_checkudata(L, 1, NEXUS_MT);
  n->L = L; /* a Lua embedder lets go of its function on this thread */
  if (n->nx) kip_close(n->nx);
  n->nx = NULL;
  return 0;
}

/* nexus:sync_index([batch [, progress(done, total)]]) -> true | nil, message
** Index for SEARCH what bulk loads deferred (call option defer_index). */
/* true, or nil and the error's message, for a call that returned rc */
static int push_done(lua_State *L, int rc, const kip_error *e) {
  if (rc) {
    lua_pushnil(L);
    lua_pushstring(L, e->message);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

/* a progress(done, total) Lua function at stack index fn (0 = none): a
** failing reporter stops nothing (shared with kip_embedder.c) */
void kip_lua_progress(int64_t done, int64_t total, void *ud) {
  kip_lua_progress_fn *p = ud;
  if (!p->fn) return;
  lua_pushvalue(p->L, p->fn);
  kip_pushint(p->L, done);
  kip_pushint(p->L, total);
  if (lua_pcall(p->L, 2, 0, 0) != LUA_OK) lua_pop(p->L, 1);
}

static int l_sync_index(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  long long batch = 0;
  if (!lua_isnoneornil(L, 2) && !kip_isinteger(L, 2, &batch)) return luaL_argerror(L, 2, "batch must be an integer");
  kip_lua_progress_fn p = {L, lua_isfunction(L, 3) ? 3 : 0};
  kip_error e;
  return push_done(L, kip_sync_index(n->nx, (int64_t)batch, kip_lua_progress, &p, &e), &e);
}

/* nexus:merge_index() -> true | nil, message (kip_merge_index) */
static int l_merge_index(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  kip_error e;
  return push_done(L, kip_merge_index(n->nx, &e), &e);
}

/* nexus:readonly() -> nil | "requested" | "not writable" */
static int l_readonly(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  int r = kip_nexus_readonly(n->nx);
  if (r == 0) lua_pushnil(L);
  else lua_pushstring(L, r == 1 ? "requested" : "not writable");
  return 1;
}

/* nexus:last_read_on_standby() -> true when the last readonly call was
** answered by the hot standby of ?read= (docs/postgresql.md) */
static int l_last_read_on_standby(lua_State *L) {
  lua_pushboolean(L, kip_last_read_on_standby(check_nexus(L, 1)->nx));
  return 1;
}

static int l_tostring(lua_State *L) {
  lnexus *n = luaL_checkudata(L, 1, NEXUS_MT);
  if (n->nx) lua_pushfstring(L, "kip.Nexus (%p)", (void *)n->nx);
  else lua_pushliteral(L, "kip.Nexus (closed)");
  return 1;
}

/* a string field of the options table (kept alive by the table), or NULL */
static const char *opt_str(lua_State *L, int t, const char *k) {
  if (lua_type(L, t) != LUA_TTABLE) return NULL;
  lua_getfield(L, t, k);
  const char *v = lua_type(L, -1) == LUA_TSTRING ? lua_tostring(L, -1) : NULL;
  lua_pop(L, 1);
  return v;
}

/* a NULL-terminated array from a list of strings in the options table
** (the strings stay owned by the table); free() it after the call */
static const char **opt_strlist(lua_State *L, int t, const char *k) {
  if (lua_type(L, t) != LUA_TTABLE) return NULL;
  lua_getfield(L, t, k);
  const char **out = NULL;
  if (lua_type(L, -1) == LUA_TTABLE) {
    size_t n = (size_t)kip_rawlen(L, -1);
    out = calloc(n + 1, sizeof *out);
    if (!out) luaL_error(L, "out of memory");
    size_t w = 0;
    for (size_t i = 1; i <= n; i++) {
      lua_rawgeti(L, -1, (lua_Integer)i);
      if (lua_type(L, -1) == LUA_TSTRING) out[w++] = lua_tostring(L, -1);
      lua_pop(L, 1);
    }
  }
  lua_pop(L, 1);
  return out;
}

/* ---------------------------------------------- governance hooks (Lua) */
/* opts.before(index, command, params_json, description_json) -> options table | nil, {code=, message=, hint=}
** (description_json: the parsed command described for policies, nil when it does not parse)
** opts.after(index, response_json) -> replacement JSON text | nil
** Both run under lua_pcall; a failing hook refuses the command (fail closed). */
typedef struct lhooks {
  lua_State *L;
  int before, after;       /* stack indices of the functions, 0 = none */
  int interrupted;         /* stack index of opts.interrupted, 0 = none */
  const char **lists[512]; /* forbidden-name arrays to free after the call */
  int nlists;
} lhooks;

static void set_error(kip_error *err, int code, const char *hint, const char *msg) {
  memset(err, 0, sizeof *err);
  err->code = code;
  snprintf(err->message, sizeof err->message, "%s", msg);
  snprintf(err->hint, sizeof err->hint, "%s", hint ? hint : "");
}

static void hook_error(kip_error *err, const char *what, const char *msg) {
  char m[700];
  snprintf(m, sizeof m, "%s failed: %.600s", what, msg ? msg : "(no message)");
  set_error(err, KIP_E_DENIED, "The governance policy failed; the request was refused (fail closed).", m);
}

static int hook_before(void *ud, int index, const char *command, size_t len, const char *params_json,
                       const char *description_json, kip_call_options *o, kip_error *err) {
  lhooks *h = ud;
  lua_State *L = h->L;
  if (!h->before) return 0;
  luaL_checkstack(L, 8, "policy hooks");
  lua_pushvalue(L, h->before);
  lua_pushinteger(L, index + 1);
  lua_pushlstring(L, command, len);
  if (params_json) lua_pushstring(L, params_json);
  else lua_pushnil(L);
  if (description_json) lua_pushstring(L, description_json);
  else lua_pushnil(L);
  if (lua_pcall(L, 4, 2, 0) != LUA_OK) {
    hook_error(err, "policy pre-check", lua_tostring(L, -1));
    lua_pop(L, 1);
    return 1;
  }
  if (lua_type(L, -2) != LUA_TTABLE) { /* refused: nil, {code, message, hint} */
    int code = KIP_E_DENIED;
    const char *msg = "refused by the governance policy", *hint = "";
    if (lua_type(L, -1) == LUA_TTABLE) {
      lua_getfield(L, -1, "code");
      if (lua_isnumber(L, -1)) code = (int)lua_tointeger(L, -1);
      lua_pop(L, 1);
      const char *m = opt_str(L, lua_gettop(L), "message"), *hh = opt_str(L, lua_gettop(L), "hint");
      if (m) msg = m;
      if (hh) hint = hh;
    }
    set_error(err, code, hint, msg);
    lua_pop(L, 2);
    return 1;
  }
  lua_pop(L, 1);
  int t = lua_gettop(L); /* the options table stays on the stack: its strings stay alive */
  o->readonly = o->readonly || opt_int(L, t, "readonly", 0);
  o->deadline_ms = opt_int(L, t, "deadline_ms", o->deadline_ms);
  o->max_rows = opt_int(L, t, "max_rows", (int)o->max_rows);
  o->max_hops = opt_int(L, t, "max_hops", o->max_hops);
  o->write_denied = opt_int(L, t, "write_denied", o->write_denied);
  const char *e = opt_str(L, t, "eligibility");
  if (e) o->eligibility = e;
  const char *ep = opt_str(L, t, "eligibility_params");
  if (ep) o->eligibility_params = ep;
  const char **ft = opt_strlist(L, t, "forbidden_types"), **fp = opt_strlist(L, t, "forbidden_predicates");
  if (ft && h->nlists < 512) o->forbidden_types = h->lists[h->nlists++] = ft;
  else free(ft);
  if (fp && h->nlists < 512) o->forbidden_predicates = h->lists[h->nlists++] = fp;
  else free(fp);
  const char **wp = opt_strlist(L, t, "write_protected"), **ao = opt_strlist(L, t, "append_only");
  if (wp && h->nlists < 512) o->write_protected = h->lists[h->nlists++] = wp;
  else free(wp);
  if (ao && h->nlists < 512) o->append_only = h->lists[h->nlists++] = ao;
  else free(ao);
  return 0;
}

static char *hook_after(void *ud, int index, const char *response_json) {
  lhooks *h = ud;
  lua_State *L = h->L;
  if (!h->after) return NULL;
  luaL_checkstack(L, 4, "policy hooks");
  lua_pushvalue(L, h->after);
  lua_pushinteger(L, index + 1);
  lua_pushstring(L, response_json);
  char *out = NULL;
  if (lua_pcall(L, 2, 1, 0) != LUA_OK) {
    kip_error err;
    hook_error(&err, "policy post-check", lua_tostring(L, -1));
    json_t *r = json_pack("{s:{s:s,s:s,s:s,s:s}}", "error", "code", "KIP_4004", "name", kip_code_name(KIP_E_DENIED),
                          "message", err.message, "hint", err.hint);
    out = json_dumps(r, JSON_COMPACT);
    json_decref(r);
  } else if (lua_type(L, -1) == LUA_TSTRING) {
    out = strdup(lua_tostring(L, -1));
  }
  lua_pop(L, 1);
  return out;
}

/* opts.interrupted() -> true to cancel the request (a failing hook cancels nothing) */
static int hook_interrupted(void *ud) {
  lhooks *h = ud;
  lua_State *L = h->L;
  if (!h->interrupted) return 0;
  luaL_checkstack(L, 2, "interrupt hook");
  lua_pushvalue(L, h->interrupted);
  int cancel = 0;
  if (lua_pcall(L, 0, 1, 0) == LUA_OK) cancel = lua_toboolean(L, -1);
  lua_pop(L, 1);
  return cancel;
}

/* the call options in the Lua table at index oi, and the hooks they name;
** call_end frees what call_begin allocated */
typedef struct lcall {
  kip_call_options o;
  lhooks h;
  kip_command_hooks hooks;
  const char **ft, **fp, **wp, **ao, **caps;
} lcall;

static void call_begin(lua_State *L, int oi, lcall *c) {
  memset(c, 0, sizeof *c);
  kip_call_options *o = &c->o;
  o->readonly = opt_int(L, oi, "readonly", 0);
  o->deadline_ms = opt_int(L, oi, "deadline_ms", 0);
  o->max_rows = opt_int(L, oi, "max_rows", 0);
  o->max_hops = opt_int(L, oi, "max_hops", 0);
  o->max_command_bytes = opt_int(L, oi, "max_command_bytes", 0);
  o->defer_index = opt_int(L, oi, "defer_index", 0);
  o->eligibility = opt_str(L, oi, "eligibility");
  o->eligibility_params = opt_str(L, oi, "eligibility_params");
  o->write_denied = opt_int(L, oi, "write_denied", 0);
  o->atomic = opt_int(L, oi, "atomic", 0);
  o->forbidden_types = c->ft = opt_strlist(L, oi, "forbidden_types");
  o->forbidden_predicates = c->fp = opt_strlist(L, oi, "forbidden_predicates");
  o->write_protected = c->wp = opt_strlist(L, oi, "write_protected");
  o->append_only = c->ao = opt_strlist(L, oi, "append_only");
  o->capabilities = c->caps = opt_strlist(L, oi, "capabilities");
  o->maintenance = opt_str(L, oi, "maintenance");
  c->hooks = (kip_command_hooks){&c->h, hook_before, hook_after, hook_interrupted};
  if (lua_type(L, oi) == LUA_TTABLE) {
    lua_getfield(L, oi, "before");
    lua_getfield(L, oi, "after");
    lua_getfield(L, oi, "interrupted");
    c->h.L = L;
    c->h.before = lua_isfunction(L, -3) ? lua_gettop(L) - 2 : 0;
    c->h.after = lua_isfunction(L, -2) ? lua_gettop(L) - 1 : 0;
    c->h.interrupted = lua_isfunction(L, -1) ? lua_gettop(L) : 0;
    if (c->h.before || c->h.after || c->h.interrupted) o->hooks = &c->hooks;
  }
}

/* push the response, free the call's allocations */
static int call_end(lua_State *L, lcall *c, char *resp) {
  for (int i = 0; i < c->h.nlists; i++) free(c->h.lists[i]);
  free(c->ft);
  free(c->fp);
  free(c->wp);
  free(c->ao);
  free(c->caps);
  if (!resp) return luaL_error(L, "out of memory");
  lua_pushstring(L, resp);
  kip_free(resp);
  return 1;
}

/* nexus:guard_declare{type=, name=, mode=, capability=, owner=, hint=, unindexed=}
** -> true | nil, message (kip_guard_declare) */
static int l_guard_declare(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  lua_getfield(L, 2, "unindexed");
  int unindexed = lua_toboolean(L, -1);
  lua_pop(L, 1);
  kip_guard g = {opt_str(L, 2, "type"), opt_str(L, 2, "name"), opt_str(L, 2, "mode"),
                 opt_str(L, 2, "capability"), opt_str(L, 2, "owner"), opt_str(L, 2, "hint"), unindexed};
  kip_error e;
  return push_done(L, kip_guard_declare(n->nx, &g, &e), &e);
}

/* nexus:guard_drop(owner) -> true | nil, message */
static int l_guard_drop(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  kip_error e;
  return push_done(L, kip_guard_drop(n->nx, luaL_checkstring(L, 2), &e), &e);
}

/* nexus:guards_generation() -> integer (kip_guards_generation) */
static int l_guards_generation(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  kip_pushint(L, kip_guards_generation(n->nx));
  return 1;
}

/* nexus:write_generation() -> integer (kip_write_generation) */
static int l_write_generation(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  kip_pushint(L, kip_write_generation(n->nx));
  return 1;
}

/* push text s the core returned (if_null when it is NULL) and free it */
static int push_owned_text(lua_State *L, char *s, const char *if_null) {
  lua_pushstring(L, s ? s : if_null);
  kip_free(s);
  return 1;
}

/* nexus:changes(after, before, max) -> JSON text | nil, message (kip_changes_json) */
static int l_changes(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  kip_error e;
  char *s = kip_changes_json(n->nx, luaL_checkinteger(L, 2), luaL_optinteger(L, 3, -1), luaL_optinteger(L, 4, 100000), &e);
  if (!s) return push_done(L, e.code ? e.code : KIP_E_INTERNAL, &e);
  return push_owned_text(L, s, NULL);
}

/* nexus:forget_changes(before) -> true | nil, message (kip_changes_forget) */
static int l_forget_changes(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  kip_error e;
  return push_done(L, kip_changes_forget(n->nx, luaL_checkinteger(L, 2), &e), &e);
}

/* nexus:guards([log_limit]) -> JSON text (kip_guards_json) */
static int l_guards(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  char *s = kip_guards_json(n->nx, (int)luaL_optinteger(L, 2, 0));
  if (!s) return luaL_error(L, "out of memory");
  return push_owned_text(L, s, NULL);
}

static int l_call_json(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  size_t len;
  const char *req = luaL_checklstring(L, 2, &len);
  lcall c;
  call_begin(L, 3, &c);
  return call_end(L, &c, kip_call_json(n->nx, req, len, &c.o));
}

static int l_call_command(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  size_t len;
  const char *cmd = luaL_checklstring(L, 2, &len);
  const char *params = luaL_optstring(L, 3, NULL);
  lcall c;
  call_begin(L, 4, &c);
  return call_end(L, &c, kip_call_command(n->nx, cmd, len, params, &c.o));
}

/* core.parse / core.describe (command [, params_json]) -> JSON text */
static int push_static(lua_State *L, char *(*fn)(const char *, size_t, const char *)) {
  size_t len;
  const char *cmd = luaL_checklstring(L, 1, &len);
  return push_owned_text(L, fn(cmd, len, luaL_optstring(L, 2, NULL)), "null");
}

static int l_parse(lua_State *L) { return push_static(L, kip_parse_json); }
static int l_describe(lua_State *L) { return push_static(L, kip_describe_json); }

/* core.statements() -> {{keyword = "FIND", writes = false}, ...}: the
** statement kinds of this core (the REPL completes and highlights them) */
static int l_statements(lua_State *L) {
  lua_newtable(L);
  int writes;
  const char *kw;
  for (int i = 0; (kw = kip_statement_kind(i, &writes)) != NULL; i++) {
    lua_createtable(L, 0, 2);
    lua_pushstring(L, kw);
    lua_setfield(L, -2, "keyword");
    lua_pushboolean(L, writes);
    lua_setfield(L, -2, "writes");
    lua_rawseti(L, -2, i + 1);
  }
  return 1;
}

static int l_explain(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  size_t len;
  const char *cmd = luaL_checklstring(L, 2, &len);
  return push_owned_text(L, kip_explain_json(n->nx, cmd, len, luaL_optstring(L, 3, NULL)), "null");
}

/* ------------------------------------------------------------------ JSON */
#define ARRAY_MT KIP_ARRAY_MT
/* registry: a weak-keyed table mapping each decoded JSON object to the list
** of its keys in document order, so that decode -> change -> encode keeps
** the order the engine wrote (json_encode emits the remaining keys sorted) */
#define KEY_ORDER KIP_KEY_ORDER

/* jansson value -> Lua value; 0, or -1 (nothing useful pushed) when it
** nests deeper than the decoder allows */
#define DECODE_MAX_DEPTH KIP_JSON_DECODE_MAX_DEPTH

static int push_json(lua_State *L, json_t *v, int depth, int ordered) {
  if (depth > DECODE_MAX_DEPTH || !lua_checkstack(L, 8)) return -1;
  switch (json_typeof(v)) {
    case JSON_OBJECT: {
      const char *k;
      json_t *x;
      size_t n = json_object_size(v);
      lua_createtable(L, 0, (int)n);
      json_object_foreach(v, k, x) {
        if (push_json(L, x, depth + 1, ordered)) return -1;
        lua_setfield(L, -2, k);
      }
      if (ordered && n >= 2) { /* remember the key order */
        lua_getfield(L, LUA_REGISTRYINDEX, KEY_ORDER);
        lua_pushvalue(L, -2);
        lua_createtable(L, (int)n, 0);
        int i = 1;
        json_object_foreach(v, k, x) {
          lua_pushstring(L, k);
          lua_rawseti(L, -2, i++);
        }
        lua_rawset(L, -3);
        lua_pop(L, 1);
      }
      break;
    }
    case JSON_ARRAY: {
      lua_createtable(L, (int)json_array_size(v), 0);
      for (size_t i = 0; i < json_array_size(v); i++) {
        if (push_json(L, json_array_get(v, i), depth + 1, ordered)) return -1;
        lua_rawseti(L, -2, (int)i + 1);
      }
      luaL_getmetatable(L, ARRAY_MT);
      lua_setmetatable(L, -2);
      break;
    }
    case JSON_STRING: lua_pushlstring(L, json_string_value(v), json_string_length(v)); break;
    case JSON_INTEGER: kip_pushint(L, (long long)json_integer_value(v)); break;
    case JSON_REAL: lua_pushnumber(L, json_real_value(v)); break;
    case JSON_TRUE: lua_pushboolean(L, 1); break;
    case JSON_FALSE: lua_pushboolean(L, 0); break;
    case JSON_NULL: lua_pushlightuserdata(L, NULL); break;
  }
  return 0;
}

/* core.json_decode(text [, unordered]) -> value | nil, message. Each object
** of two or more keys remembers its key order unless `unordered` (bulk reads
** that are never re-encoded: a sleep cycle's snapshot) */
static int l_json_decode(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  char msg[200];
  if (kip_lua_json_decode(L, s, len, !lua_toboolean(L, 2), msg, sizeof msg)) {
    lua_pushnil(L);
    lua_pushstring(L, msg);
    return 2;
  }
  return 1;
}

/* core.json_decode_request(text) -> value | nil, message, id
** Lenient decoding of what a client sent (kip_json_parse_client): BOM, big
** integers and lone surrogates are accepted; when the text is still not
** JSON, the top-level "id" is recovered if it can be, so a JSON-RPC error
** can be matched to its request. */
static int l_json_decode_request(lua_State *L) {
  size_t len;
  const char *s = luaL_checklstring(L, 1, &len);
  kip_error e;
  json_t *id = NULL;
  json_t *v = kip_json_parse_client(s, len, &id, &e);
  if (!v) {
    lua_pushnil(L);
    lua_pushfstring(L, "invalid JSON at line %d column %d: %s", e.line, e.column, e.message);
    if (id) push_json(L, id, 0, 1);
    else lua_pushnil(L);
    json_decref(id);
    return 3;
  }
  int top = lua_gettop(L);
  int rc = push_json(L, v, 0, 1);
  if (rc) { /* too deep for Lua: still say which request it was */
    lua_settop(L, top);
    lua_pushnil(L);
    lua_pushfstring(L, "JSON nests deeper than %d levels", DECODE_MAX_DEPTH);
    json_t *rid = json_is_object(v) ? json_object_get(v, "id") : NULL;
    if (rid && (json_is_string(rid) || json_is_integer(rid))) push_json(L, rid, 0, 1);
    else lua_pushnil(L);
    json_decref(v);
    return 3;
  }
  json_decref(v);
  return 1;
}

/* Lua value -> jansson value. Never raises while a tree is half built:
** on failure it returns NULL with *why set (the caller frees nothing that
** was not returned, and raises afterwards). Cycles end at the depth cap. */
#define ENCODE_MAX_DEPTH 128

static int cmp_keys(const void *a, const void *b) { return strcmp(*(const char *const *)a, *(const char *const *)b); }

/* a copy of o with its keys inserted in sorted order (o is released) */
static json_t *sorted_object(json_t *o) {
  size_t n = json_object_size(o);
  if (n < 2) return o;
  const char **keys = malloc(n * sizeof *keys);
  if (!keys) return o;
  size_t k = 0;
  const char *key;
  json_t *x;
  json_object_foreach(o, key, x) keys[k++] = key;
  qsort(keys, n, sizeof *keys, cmp_keys);
  json_t *out = json_object();
  for (size_t j = 0; j < n; j++) json_object_set(out, keys[j], json_object_get(o, keys[j]));
  free(keys);
  json_decref(o);
  return out;
}

static json_t *to_json(lua_State *L, int i, int depth, const char **why) {
  if (depth > ENCODE_MAX_DEPTH) {
    *why = "value nests deeper than 128 levels (or contains a cycle); cannot encode it as JSON";
    return NULL;
  }
  if (!lua_checkstack(L, 8)) {
    *why = "value nests too deep to encode as JSON";
    return NULL;
  }
  i = lua_absindex(L, i);
  switch (lua_type(L, i)) {
    case LUA_TNIL: return json_null();
    case LUA_TLIGHTUSERDATA: return json_null();
    case LUA_TBOOLEAN: return json_boolean(lua_toboolean(L, i));
    case LUA_TNUMBER: {
      long long x;
      if (kip_isinteger(L, i, &x)) return json_integer(x);
      lua_Number d = lua_tonumber(L, i);
      if (d != d || d - d != 0) { /* NaN, +-inf: JSON has no spelling for them */
        *why = "cannot encode a non-finite number (NaN or infinity) as JSON";
        return NULL;
      }
      return json_real(d);
    }
    case LUA_TSTRING: {
      size_t n;
      const char *s = lua_tolstring(L, i, &n);
      json_t *v = json_stringn(s, n);
      if (!v) *why = "cannot encode a string that is not valid UTF-8 as JSON";
      return v;
    }
    case LUA_TTABLE: {
      int is_array = 0;
      if (lua_getmetatable(L, i)) {
        luaL_getmetatable(L, ARRAY_MT);
        is_array = lua_rawequal(L, -1, -2);
        lua_pop(L, 2);
      }
      size_t n = kip_rawlen(L, i);
      if (n > 0) is_array = 1;
      if (is_array) {
        json_t *a = json_array();
        for (size_t k = 1; k <= n; k++) {
          lua_rawgeti(L, i, (int)k);
          json_t *x = to_json(L, -1, depth + 1, why);
          lua_pop(L, 1);
          if (!x) {
            json_decref(a);
            return NULL;
          }
          json_array_append_new(a, x);
        }
        return a;
      }
      /* keys in the order they were decoded in, the others sorted: the same
      ** table always encodes to the same bytes */
      json_t *o = json_object();
      lua_pushnil(L);
      while (lua_next(L, i)) {
        if (lua_type(L, -2) == LUA_TSTRING) {
          json_t *x = to_json(L, -1, depth + 1, why);
          if (!x) {
            lua_pop(L, 2);
            json_decref(o);
            return NULL;
          }
          json_object_set_new(o, lua_tostring(L, -2), x);
        }
        lua_pop(L, 1);
      }
      o = sorted_object(o);
      lua_getfield(L, LUA_REGISTRYINDEX, KEY_ORDER);
      lua_pushvalue(L, i);
      lua_rawget(L, -2);
      if (lua_istable(L, -1)) { /* decoded keys first, in their order */
        json_t *ordered = json_object();
        size_t nk = kip_rawlen(L, -1);
        for (size_t k = 1; k <= nk; k++) {
          lua_rawgeti(L, -1, (int)k);
          const char *key = lua_tostring(L, -1);
          json_t *x = key ? json_object_get(o, key) : NULL;
          if (x) json_object_set(ordered, key, x);
          lua_pop(L, 1);
        }
        const char *key;
        json_t *x;
        json_object_foreach(o, key, x) if (!json_object_get(ordered, key)) json_object_set(ordered, key, x);
        json_decref(o);
        o = ordered;
      }
      lua_pop(L, 2);
      return o;
    }
    default: *why = "cannot encode this Lua type as JSON"; return NULL;
  }
}

static int l_json_encode(lua_State *L) {
  luaL_checkany(L, 1);
  const char *why = NULL;
  json_t *v = to_json(L, 1, 0, &why);
  if (!v) return luaL_error(L, "%s", why ? why : "cannot encode value");
  char *s = lua_toboolean(L, 2) ? json_dumps(v, JSON_ENCODE_ANY | JSON_INDENT(2)) : kip_json_format(v);
  json_decref(v);
  if (!s) return luaL_error(L, "cannot encode value");
  lua_pushstring(L, s);
  free(s);
  return 1;
}

/* nexus:backup(path [, progress(done_pages, total_pages)]) -> true | nil, message
** An online copy through SQLite's backup API, a few hundred pages at a time,
** so writers in other connections and processes keep going meanwhile. */
static void on_backup_progress(int done, int total, void *ud) { kip_lua_progress(done, total, ud); }

static int l_backup(lua_State *L) {
  lnexus *n = check_nexus(L, 1);
  const char *path = luaL_checkstring(L, 2);
  kip_lua_progress_fn p = {L, lua_isfunction(L, 3) ? 3 : 0};
  kip_error err;
  if (kip_backup(n->nx, path, on_backup_progress, &p, &err)) {
    lua_pushnil(L);
    lua_pushstring(L, err.message);
    return 2;
  }
  lua_pushboolean(L, 1);
  return 1;
}

static const luaL_Reg nexus_methods[] = {
    {"call_json", l_call_json}, {"call_command", l_call_command}, {"backup", l_backup}, {"readonly", l_readonly}, {"last_read_on_standby", l_last_read_on_standby}, {"sync_index", l_sync_index},
    {"merge_index", l_merge_index}, {"guard_declare", l_guard_declare}, {"guard_drop", l_guard_drop},
    {"guards", l_guards}, {"guards_generation", l_guards_generation}, {"write_generation", l_write_generation}, {"changes", l_changes}, {"forget_changes", l_forget_changes}, {"close", l_close},         {NULL, NULL}};
/* core.fold_key(text) -> the duplicate key (kip_fold_key) */
static int l_fold_key(lua_State *L) {
  char *k = kip_fold_key(luaL_checkstring(L, 1));
  lua_pushstring(L, k);
  kip_free(k);
  return 1;
}

/* core.monotonic_ms() -> a monotonic wall clock in milliseconds (fractional):
** what a wait took (a hook's call), which os.clock (CPU time) does not see */
static int l_monotonic_ms(lua_State *L) {
  struct timespec ts;
  clock_gettime(CLOCK_MONOTONIC, &ts);
  lua_pushnumber(L, (lua_Number)ts.tv_sec * 1000.0 + (lua_Number)ts.tv_nsec / 1e6);
  return 1;
}

/* core.http_post_json(url, body [, {bearer=, timeout_ms=}]) -> status, reply
** | nil, message (kip_http_post_json: any HTTP status is returned; nil only
** when no reply came) */
static int l_http_post_json(lua_State *L) {
  const char *url = luaL_checkstring(L, 1), *body = luaL_checkstring(L, 2), *bearer = NULL;
  int timeout_ms = 0;
  if (lua_istable(L, 3)) {
    lua_getfield(L, 3, "bearer");
    bearer = lua_tostring(L, -1);
    lua_getfield(L, 3, "timeout_ms");
    timeout_ms = (int)lua_tointeger(L, -1);
  }
  char *reply = NULL, msg[512] = "";
  size_t len = 0;
  long status = 0;
  if (kip_http_post_json(url, body, bearer, timeout_ms, &reply, &len, &status, msg, sizeof msg)) {
    lua_pushnil(L);
    lua_pushstring(L, msg);
    return 2;
  }
  lua_pushinteger(L, (lua_Integer)status);
  lua_pushlstring(L, reply, len);
  free(reply);
  return 2;
}

static const luaL_Reg funcs[] = {{"open", l_open}, {"fold_key", l_fold_key}, {"http_post_json", l_http_post_json}, {"monotonic_ms", l_monotonic_ms},           {"parse", l_parse}, {"describe", l_describe}, {"statements", l_statements},
                                 {"explain", l_explain},     {"json_decode", l_json_decode},
                                 {"json_encode", l_json_encode}, {"json_decode_request", l_json_decode_request},
                                 {NULL, NULL}};

void kip_open_sandbox(lua_State *L); /* kip_sandbox.c */
void kip_open_vectors(lua_State *L); /* kip_vectors.c */
void kip_open_capsule_scan(lua_State *L); /* kip_capsule_scan.c */

int luaopen_kip_core(lua_State *L);
int luaopen_kip_core(lua_State *L) {
  if (luaL_newmetatable(L, NEXUS_MT)) {
    lua_newtable(L);
    kip_setfuncs(L, nexus_methods);
    kip_setfuncs(L, kip_embedder_methods);
    lua_setfield(L, -2, "__index");
    lua_pushcfunction(L, l_close);
    lua_setfield(L, -2, "__gc");
    lua_pushcfunction(L, l_close);
    lua_setfield(L, -2, "__close");
    lua_pushcfunction(L, l_tostring);
    lua_setfield(L, -2, "__tostring");
  }
  lua_pop(L, 1);
  lua_getfield(L, LUA_REGISTRYINDEX, KEY_ORDER);
  if (!lua_istable(L, -1)) {
    lua_newtable(L);
    lua_createtable(L, 0, 1);
    lua_pushliteral(L, "k");
    lua_setfield(L, -2, "__mode");
    lua_setmetatable(L, -2);
    lua_setfield(L, LUA_REGISTRYINDEX, KEY_ORDER);
  }
  lua_pop(L, 1);
  luaL_newmetatable(L, ARRAY_MT);
  lua_pushliteral(L, "array");
  lua_setfield(L, -2, "__name");
  lua_pop(L, 1);
  luaL_newlib(L, funcs);
  kip_open_sandbox(L);
  kip_open_vectors(L);
  kip_open_capsule_scan(L);
  luaL_getmetatable(L, ARRAY_MT);
  lua_setfield(L, -2, "array_mt");
  lua_pushlightuserdata(L, NULL);
  lua_setfield(L, -2, "null");
  lua_pushstring(L, KIP_VERSION);
  lua_setfield(L, -2, "version");
  lua_pushstring(L, KIP_DEFAULT_EMBEDDINGS);
  lua_setfield(L, -2, "default_embeddings");
  lua_pushstring(L, KIP_UI_VENDOR);
  lua_setfield(L, -2, "ui_vendor");
  return 1;
}
