/*
** main.c — the `kip` executable: embeds Lua 5.4 with kip.core preloaded,
** locates the kipnexus home (lua/, policies/, capsules/) — $KIP_HOME, the
** install prefix next to the binary, or the source tree it was built from —
** and runs lua/kip/cli.lua inside a protected call with a traceback.
** kip.host (core/binding/lua/kip_host.c) adds readline, isatty and the terminal width.
** Symbols are exported so C Lua modules (lpeg, ...) load.
*/
#include <lauxlib.h>
#include <lua.h>
#include <lualib.h>
#include <limits.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

int luaopen_kip_core(lua_State *L);
int luaopen_kip_host(lua_State *L);

#ifndef KIP_SOURCE_DIR
#define KIP_SOURCE_DIR "."
#endif
#ifndef KIP_DATA_SUBDIR
#define KIP_DATA_SUBDIR "share/kipnexus"
#endif

static int has_cli(const char *home) {
  char p[PATH_MAX];
  int k = snprintf(p, sizeof p, "%s/lua/kip/cli.lua", home);
  return k > 0 && (size_t)k < sizeof p && access(p, R_OK) == 0;
}

static int find_home(char *out, size_t n) {
  const char *env = getenv("KIP_HOME");
  if (env && has_cli(env)) {
    snprintf(out, n, "%s", env);
    return 1;
  }
  char exe[PATH_MAX];
  ssize_t len = readlink("/proc/self/exe", exe, sizeof exe - 1);
  if (len > 0) {
    exe[len] = 0;
    char *slash = strrchr(exe, '/');
    if (slash) {
      *slash = 0; /* <prefix>/bin */
      int k = snprintf(out, n, "%s/../%s", exe, KIP_DATA_SUBDIR);
      if (k > 0 && (size_t)k < n && has_cli(out)) return 1;
    }
  }
  snprintf(out, n, "%s", KIP_SOURCE_DIR);
  return has_cli(out);
}

static int traceback(lua_State *L) {
  const char *msg = lua_tostring(L, 1);
  if (!msg) msg = lua_pushfstring(L, "(error object is a %s value)", luaL_typename(L, 1));
  luaL_traceback(L, L, msg, 1);
  return 1;
}

struct args {
  int argc;
  char **argv;
  int status;
};

static int pmain(lua_State *L) {
  struct args *a = lua_touserdata(L, 1);
  luaL_openlibs(L);
  luaL_requiref(L, "kip.core", luaopen_kip_core, 0);
  lua_pop(L, 1);
  luaL_requiref(L, "kip.host", luaopen_kip_host, 0);
  lua_pop(L, 1);
  char home[PATH_MAX];
  if (!find_home(home, sizeof home))
    return luaL_error(L, "cannot find the kipnexus Lua modules (set KIP_HOME to the directory holding lua/kip/cli.lua)");
  lua_pushstring(L, home);
  lua_setglobal(L, "KIP_HOME");
  /* package.path: <home>/lua first */
  lua_getglobal(L, "package");
  lua_getfield(L, -1, "path");
  lua_pushfstring(L, "%s/lua/?.lua;%s/lua/?/init.lua;%s", home, home, lua_tostring(L, -1));
  lua_setfield(L, -3, "path");
  lua_pop(L, 2);
  lua_createtable(L, a->argc, 1);
  for (int i = 0; i < a->argc; i++) {
    lua_pushstring(L, a->argv[i]);
    lua_rawseti(L, -2, i);
  }
  lua_setglobal(L, "arg");
  char cli[PATH_MAX + 32];
  snprintf(cli, sizeof cli, "%s/lua/kip/cli.lua", home);
  if (luaL_loadfile(L, cli) != LUA_OK) return lua_error(L);
  for (int i = 1; i < a->argc; i++) lua_pushstring(L, a->argv[i]);
  lua_call(L, a->argc - 1, 1);
  a->status = lua_isinteger(L, -1) ? (int)lua_tointeger(L, -1) : 0;
  return 0;
}

int main(int argc, char **argv) {
  /* a file-size limit (ulimit -f) must become a write error the command
  ** reports (and rolls back), not a silent death by SIGXFSZ */
  signal(SIGXFSZ, SIG_IGN);
  lua_State *L = luaL_newstate();
  if (!L) {
    fputs("kip: cannot create Lua state\n", stderr);
    return 70;
  }
  struct args a = {argc, argv, 0};
  lua_pushcfunction(L, traceback);
  lua_pushcfunction(L, pmain);
  lua_pushlightuserdata(L, &a);
  int rc = lua_pcall(L, 1, 0, 1);
  if (rc != LUA_OK) {
    fprintf(stderr, "kip: %s\n", lua_tostring(L, -1));
    a.status = 70;
  }
  lua_close(L);
  return a.status;
}
