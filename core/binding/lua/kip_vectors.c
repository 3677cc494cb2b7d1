/*
** kip_vectors.c — small dense-vector helpers for Lua modules that rank a
** bounded set of items by similarity (the ARG router's semantic
** approximator, lua/kip/arg/semantic.lua; seed 003 §0.2 "vectors are
** bounded approximators"). Vectors are packed once into a float32 string
** so a request scores n items with one C loop instead of n*dim Lua steps.
**
**   core.pack_f32(vectors)                -> packed string (n*dim floats), dim
**   core.dot_top(packed, dim, q, min, k)  -> { {index, score}... } best first,
**                                            at most k, score > min
*/
#include <stdlib.h>
#include <string.h>

#include "kip_binding.h"

static int l_pack_f32(lua_State *L) {
  luaL_checktype(L, 1, LUA_TTABLE);
  size_t n = (size_t)kip_rawlen(L, 1), dim = 0;
  float *out = NULL;
  for (size_t i = 1; i <= n; i++) {
    lua_rawgeti(L, 1, (int)i);
    size_t d = lua_istable(L, -1) ? (size_t)kip_rawlen(L, -1) : 0;
    if (i == 1) {
      dim = d;
      out = dim ? malloc(n * dim * sizeof *out) : NULL;
      if (!out) return luaL_error(L, "pack_f32: item 1 is not a vector (or out of memory)");
    }
    if (d != dim) {
      free(out);
      return luaL_error(L, "pack_f32: item %d has %d dimensions, expected %d", (int)i, (int)d, (int)dim);
    }
    for (size_t k = 1; k <= d; k++) {
      lua_rawgeti(L, -1, (int)k);
      out[(i - 1) * dim + (k - 1)] = (float)lua_tonumber(L, -1);
      lua_pop(L, 1);
    }
    lua_pop(L, 1);
  }
  lua_pushlstring(L, out ? (const char *)out : "", n * dim * sizeof(float));
  free(out);
  lua_pushinteger(L, (lua_Integer)dim);
  return 2;
}

typedef struct scored {
  int index;
  float score;
} scored;

static int by_score(const void *a, const void *b) {
  const scored *x = a, *y = b;
  if (x->score != y->score) return x->score < y->score ? 1 : -1;
  return x->index - y->index;
}

static int l_dot_top(lua_State *L) {
  size_t len;
  const char *packed = luaL_checklstring(L, 1, &len);
  lua_Integer dim = luaL_checkinteger(L, 2);
  luaL_checktype(L, 3, LUA_TTABLE);
  float min = (float)luaL_optnumber(L, 4, 0.0);
  lua_Integer k = luaL_optinteger(L, 5, 10);
  if (dim <= 0 || len % ((size_t)dim * sizeof(float))) return luaL_error(L, "dot_top: the packed size does not match dim");
  if ((lua_Integer)kip_rawlen(L, 3) != dim) return luaL_error(L, "dot_top: the query has %d dimensions, expected %d",
                                                            (int)kip_rawlen(L, 3), (int)dim);
  float *q = malloc((size_t)dim * sizeof *q);
  size_t n = len / ((size_t)dim * sizeof(float));
  scored *out = malloc((n ? n : 1) * sizeof *out);
  if (!q || !out) {
    free(q);
    free(out);
    return luaL_error(L, "out of memory");
  }
  for (lua_Integer i = 0; i < dim; i++) {
    lua_rawgeti(L, 3, (int)(i + 1));
    q[i] = (float)lua_tonumber(L, -1);
    lua_pop(L, 1);
  }
  size_t m = 0;
  for (size_t i = 0; i < n; i++) {
    const char *row = packed + i * (size_t)dim * sizeof(float);
    float s = 0;
    for (lua_Integer j = 0; j < dim; j++) {
      float v;
      memcpy(&v, row + (size_t)j * sizeof v, sizeof v);
      s += q[j] * v;
    }
    if (s > min) out[m++] = (scored){(int)i + 1, s};
  }
  qsort(out, m, sizeof *out, by_score);
  if (k >= 0 && (size_t)k < m) m = (size_t)k;
  lua_createtable(L, (int)m, 0);
  for (size_t i = 0; i < m; i++) {
    lua_createtable(L, 2, 0);
    lua_pushinteger(L, out[i].index);
    lua_rawseti(L, -2, 1);
    lua_pushnumber(L, out[i].score);
    lua_rawseti(L, -2, 2);
    lua_rawseti(L, -2, (int)i + 1);
  }
  free(q);
  free(out);
  return 1;
}

static const luaL_Reg vector_funcs[] = {{"pack_f32", l_pack_f32}, {"dot_top", l_dot_top}, {NULL, NULL}};

void kip_open_vectors(lua_State *L);
void kip_open_vectors(lua_State *L) { kip_setfuncs(L, vector_funcs); }
