/*
** kip_embedder.c — the embedder methods of the Lua binding (docs/search.md):
**
**   nexus:set_embedder("local" [, path])                      built-in word vectors
**   nexus:set_embedder("http", {url=, model=, key_env=, dim=, timeout_ms=})
**   nexus:set_embedder({model=, dim=, embed=function(texts) -> {vec, ...}})  a Lua hook
**   nexus:set_embedder(nil)                                   none
**       -> true | nil, message
**   nexus:embed_pending([batch [, progress(done, total)]]) -> true | nil, message
**   nexus:reset_vectors() -> true | nil, message
**   nexus:vector_status() -> {model=, dim=, vectors=, pending=, embedder_matches=}
**   nexus:search_primary([mode]) -> "keyword" | "semantic": hybrid SEARCH's primary list
**   nexus:embed(texts) -> {vec, ...} | nil, message        (the nexus's embedder)
**   nexus:verify_vectors() -> {checked=, problems=, first=} | nil, message
**
** A Lua hook runs on the thread of the nexus method that needs it (a
** SEARCH inside call_json, embed_pending); its vectors are queued after
** commit like any remote embedder's (in_transaction = 0).
*/
#include <stdlib.h>
#include <string.h>

#include "kip_binding.h"

#ifndef KIP_DEFAULT_EMBEDDINGS
#define KIP_DEFAULT_EMBEDDINGS ""
#endif

typedef struct lua_hook {
  lnexus *owner;
  int ref; /* the embed function in the registry */
} lua_hook;

static int hook_embed(void *ud, int n, const char *const *texts, float *out, char *msg, size_t msglen) {
  lua_hook *h = ud;
  lua_State *L = h->owner->L;
  int dim = 0;
  lua_rawgeti(L, LUA_REGISTRYINDEX, h->ref);
  lua_getfield(L, -1, "dim");
  dim = (int)lua_tointeger(L, -1);
  lua_pop(L, 1);
  lua_getfield(L, -1, "embed");
  lua_createtable(L, n, 0);
  for (int i = 0; i < n; i++) {
    lua_pushstring(L, texts[i] ? texts[i] : "");
    lua_rawseti(L, -2, i + 1);
  }
  if (lua_pcall(L, 1, 2, 0) != LUA_OK) {
    snprintf(msg, msglen, "%s", lua_tostring(L, -1) ? lua_tostring(L, -1) : "error in the embed function");
    lua_pop(L, 2);
    return 1;
  }
  int rc = 0;
  if (!lua_istable(L, -2)) {
    snprintf(msg, msglen, "%s", lua_isstring(L, -1) ? lua_tostring(L, -1) : "the embed function returned no vectors");
    rc = 1;
  }
  for (int i = 0; !rc && i < n; i++) {
    lua_rawgeti(L, -2, i + 1);
    if (!lua_istable(L, -1) || (int)kip_rawlen(L, -1) != dim) {
      snprintf(msg, msglen, "the embed function's vector %d is not a list of %d numbers", i + 1, dim);
      rc = 1;
    }
    for (int d = 0; !rc && d < dim; d++) {
      lua_rawgeti(L, -1, d + 1);
      out[(size_t)i * (size_t)dim + (size_t)d] = (float)lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pop(L, 3); /* results and the hook table */
  return rc;
}

static void hook_release(void *ud) {
  lua_hook *h = ud;
  luaL_unref(h->owner->L, LUA_REGISTRYINDEX, h->ref);
  free(h);
}

static int fail(lua_State *L, const kip_error *e) {
  lua_pushnil(L);
  if (e->hint[0]) lua_pushfstring(L, "%s (hint: %s)", e->message, e->hint);
  else lua_pushstring(L, e->message);
  return 2;
}

static int l_set_embedder(lua_State *L) {
  lnexus *n = kip_check_nexus(L, 1);
  kip_embedder e;
  kip_error err;
  memset(&e, 0, sizeof e);
  int rc = 0;
  if (lua_isnoneornil(L, 2)) {
    rc = kip_set_embedder(n->nx, NULL, &err);
  } else if (lua_type(L, 2) == LUA_TSTRING && !strcmp(lua_tostring(L, 2), "local")) {
    const char *path = luaL_optstring(L, 3, getenv("KIP_EMBEDDINGS") ? getenv("KIP_EMBEDDINGS") : KIP_DEFAULT_EMBEDDINGS);
    rc = kip_embedder_open_local(path, &e, &err);
    if (!rc) rc = kip_set_embedder(n->nx, &e, &err);
  } else if (lua_type(L, 2) == LUA_TSTRING && !strcmp(lua_tostring(L, 2), "http")) {
    luaL_checktype(L, 3, LUA_TTABLE);
    lua_getfield(L, 3, "url");
    lua_getfield(L, 3, "model");
    lua_getfield(L, 3, "key_env");
    lua_getfield(L, 3, "dim");
    lua_getfield(L, 3, "timeout_ms");
    rc = kip_embedder_open_http(lua_tostring(L, -5), lua_tostring(L, -4), lua_tostring(L, -3), (int)lua_tointeger(L, -2),
                                (int)lua_tointeger(L, -1), &e, &err);
    lua_pop(L, 5);
    if (!rc) rc = kip_set_embedder(n->nx, &e, &err);
  } else if (lua_istable(L, 2)) {
    lua_getfield(L, 2, "model");
    lua_getfield(L, 2, "dim");
    lua_getfield(L, 2, "embed");
    int ok = lua_isstring(L, -3) && lua_isnumber(L, -2) && lua_isfunction(L, -1);
    if (ok) {
      snprintf(e.model, sizeof e.model, "%s", lua_tostring(L, -3));
      e.dim = (int)lua_tointeger(L, -2);
    }
    lua_pop(L, 3);
    if (!ok) return luaL_argerror(L, 2, "an embedder table needs model (string), dim (integer) and embed (function)");
    lua_hook *h = malloc(sizeof *h);
    if (!h) return luaL_error(L, "out of memory");
    h->owner = n;
    lua_pushvalue(L, 2);
    h->ref = luaL_ref(L, LUA_REGISTRYINDEX);
    e.embed = hook_embed;
    e.ud = h;
    e.release = hook_release;
    rc = kip_set_embedder(n->nx, &e, &err);
  } else {
    return luaL_argerror(L, 2, "expected \"local\", \"http\", an embedder table or nil");
  }
  if (rc) return fail(L, &err);
  lua_pushboolean(L, 1);
  return 1;
}

static int l_embed_pending(lua_State *L) {
  lnexus *n = kip_check_nexus(L, 1);
  long long batch = 0;
  if (!lua_isnoneornil(L, 2) && !kip_isinteger(L, 2, &batch)) return luaL_argerror(L, 2, "batch must be an integer");
  kip_lua_progress_fn p = {L, lua_isfunction(L, 3) ? 3 : 0};
  kip_error err;
  if (kip_embed_pending(n->nx, (int64_t)batch, kip_lua_progress, &p, &err)) return fail(L, &err);
  lua_pushboolean(L, 1);
  return 1;
}

static int l_reset_vectors(lua_State *L) {
  lnexus *n = kip_check_nexus(L, 1);
  kip_error err;
  if (kip_reset_vectors(n->nx, &err)) return fail(L, &err);
  lua_pushboolean(L, 1);
  return 1;
}

/* a setting of what SEARCH measured: read it, or (with a value) record it
** first; -> the value | nil, message */
static int measured_setting(lua_State *L, const char *(*get)(kip_nexus *),
                            int (*set)(kip_nexus *, const char *, kip_error *)) {
  lnexus *n = kip_check_nexus(L, 1);
  if (!lua_isnoneornil(L, 2)) {
    kip_error err;
    if (set(n->nx, luaL_checkstring(L, 2), &err)) return fail(L, &err);
  }
  lua_pushstring(L, get(n->nx));
  return 1;
}

/* nexus:search_primary([mode]) -> "keyword" | "semantic": hybrid's primary list */
static int l_search_primary(lua_State *L) { return measured_setting(L, kip_search_primary_name, kip_search_set_primary); }

/* nexus:search_default_mode([mode]) -> the mode of a SEARCH that names none */
static int l_search_default_mode(lua_State *L) {
  return measured_setting(L, kip_search_default_mode, kip_search_set_default_mode);
}

static int l_vector_status(lua_State *L) {
  lnexus *n = kip_check_nexus(L, 1);
  kip_vector_status s;
  kip_error err;
  if (kip_vector_status_get(n->nx, &s, &err)) return fail(L, &err);
  lua_createtable(L, 0, 5);
  lua_pushstring(L, s.model);
  lua_setfield(L, -2, "model");
  kip_pushint(L, s.dim);
  lua_setfield(L, -2, "dim");
  kip_pushint(L, s.vectors);
  lua_setfield(L, -2, "vectors");
  kip_pushint(L, s.pending);
  lua_setfield(L, -2, "pending");
  lua_pushboolean(L, s.embedder_matches);
  lua_setfield(L, -2, "embedder_matches");
  return 1;
}

static int l_verify_vectors(lua_State *L) {
  lnexus *n = kip_check_nexus(L, 1);
  kip_vector_check c;
  kip_error err;
  if (kip_vector_verify(n->nx, &c, &err)) return fail(L, &err);
  lua_createtable(L, 0, 3);
  kip_pushint(L, c.checked);
  lua_setfield(L, -2, "checked");
  kip_pushint(L, c.problems);
  lua_setfield(L, -2, "problems");
  lua_pushstring(L, c.first);
  lua_setfield(L, -2, "first");
  return 1;
}

static int l_embed(lua_State *L) {
  lnexus *n = kip_check_nexus(L, 1);
  luaL_checktype(L, 2, LUA_TTABLE);
  int count = (int)kip_rawlen(L, 2);
  const char **texts = calloc((size_t)(count ? count : 1), sizeof *texts);
  if (!texts) return luaL_error(L, "out of memory");
  for (int i = 0; i < count; i++) {
    lua_rawgeti(L, 2, i + 1);
    texts[i] = lua_tostring(L, -1); /* kept alive by the table */
    lua_pop(L, 1);
    if (!texts[i]) {
      free(texts);
      return luaL_argerror(L, 2, "texts must be strings");
    }
  }
  float *out = NULL;
  int dim = 0;
  kip_error err;
  int rc = kip_embed_texts(n->nx, count, texts, &out, &dim, &err);
  free(texts);
  if (rc) return fail(L, &err);
  lua_createtable(L, count, 0);
  for (int i = 0; i < count; i++) {
    lua_createtable(L, dim, 0);
    for (int d = 0; d < dim; d++) {
      lua_pushnumber(L, out[(size_t)i * (size_t)dim + (size_t)d]);
      lua_rawseti(L, -2, d + 1);
    }
    lua_rawseti(L, -2, i + 1);
  }
  free(out);
  return 1;
}

const luaL_Reg kip_embedder_methods[] = {{"set_embedder", l_set_embedder}, {"embed_pending", l_embed_pending},
                                         {"reset_vectors", l_reset_vectors}, {"vector_status", l_vector_status}, {"search_primary", l_search_primary},
                                         {"search_default_mode", l_search_default_mode},
                                         {"embed", l_embed},                 {"verify_vectors", l_verify_vectors},
                                         {NULL, NULL}};
