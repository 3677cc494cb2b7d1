/*
** kip_compat.h — the only place that knows which Lua the binding is built
** for: maps the Lua 5.2+ API used by kip_core.c onto Lua 5.1 / LuaJIT.
*/
#ifndef KIP_COMPAT_H
#define KIP_COMPAT_H
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>

#if LUA_VERSION_NUM < 502
#ifndef luaL_newlib
#define luaL_newlib(L, l) (lua_newtable(L), luaL_register(L, NULL, l))
#endif
#define kip_rawlen(L, i) lua_objlen(L, i)
#ifndef lua_absindex
#define lua_absindex(L, i) ((i) > 0 || (i) <= LUA_REGISTRYINDEX ? (i) : lua_gettop(L) + (i) + 1)
#endif
#define kip_setfuncs(L, l) luaL_register(L, NULL, l)
static inline int kip_isinteger(lua_State *L, int i, long long *out) {
  if (lua_type(L, i) != LUA_TNUMBER) return 0;
  lua_Number n = lua_tonumber(L, i);
  if (n != (lua_Number)(long long)n || n > 9007199254740992.0 || n < -9007199254740992.0) return 0;
  *out = (long long)n;
  return 1;
}
static inline void kip_pushint(lua_State *L, long long v) { lua_pushnumber(L, (lua_Number)v); }
static inline void *kip_testudata(lua_State *L, int i, const char *tname) {
  void *p = lua_touserdata(L, i);
  if (!p || !lua_getmetatable(L, i)) return NULL;
  luaL_getmetatable(L, tname);
  int eq = lua_rawequal(L, -1, -2);
  lua_pop(L, 2);
  return eq ? p : NULL;
}
#else
#define kip_rawlen(L, i) lua_rawlen(L, i)
#define kip_setfuncs(L, l) luaL_setfuncs(L, l, 0)
static inline int kip_isinteger(lua_State *L, int i, long long *out) {
  if (!lua_isinteger(L, i)) return 0;
  *out = (long long)lua_tointeger(L, i);
  return 1;
}
static inline void kip_pushint(lua_State *L, long long v) { lua_pushinteger(L, (lua_Integer)v); }
#define kip_testudata(L, i, t) luaL_testudata(L, i, t)
#endif

#endif
