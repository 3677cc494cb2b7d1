/*
** host.c — the `kip.host` Lua module of the kip executable: what the CLI
** needs from the terminal and that Lua lacks. Line editing and persistent
** history (GNU readline), tab completion through a Lua callback, isatty and
** the terminal width.
**
**   host.isatty(fd) -> bool
**   host.columns() -> integer (80 when unknown)
**   host.readline(prompt) -> line | nil at end of input
**   host.add_history(line); host.read_history(path); host.write_history(path, max)
**   host.set_completer(function(text, line_before) -> {candidates}) | nil
*/
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/ioctl.h>
#include <unistd.h>

#include <readline/history.h>
#include <readline/readline.h>

int luaopen_kip_host(lua_State *L);

static lua_State *completer_L; /* the CLI is single-threaded */
static int completer_ref = LUA_NOREF;
static char **matches;
static size_t nmatches, next_match;

static int l_isatty(lua_State *L) {
  lua_pushboolean(L, isatty((int)luaL_checkinteger(L, 1)));
  return 1;
}

static int l_columns(lua_State *L) {
  struct winsize w;
  int cols = ioctl(STDOUT_FILENO, TIOCGWINSZ, &w) == 0 && w.ws_col > 0 ? w.ws_col : 80;
  lua_pushinteger(L, cols);
  return 1;
}

static int l_readline(lua_State *L) {
  const char *prompt = luaL_optstring(L, 1, "");
  char *line = readline(prompt);
  if (!line) return 0;
  lua_pushstring(L, line);
  free(line);
  return 1;
}

static int l_add_history(lua_State *L) {
  const char *line = luaL_checkstring(L, 1);
  if (*line) add_history(line);
  return 0;
}

static int l_read_history(lua_State *L) {
  lua_pushboolean(L, read_history(luaL_checkstring(L, 1)) == 0);
  return 1;
}

static int l_write_history(lua_State *L) {
  const char *path = luaL_checkstring(L, 1);
  int ok = write_history(path) == 0;
  if (ok && lua_isinteger(L, 2)) history_truncate_file(path, (int)lua_tointeger(L, 2));
  lua_pushboolean(L, ok);
  return 1;
}

static void clear_matches(void) {
  for (size_t i = next_match; i < nmatches; i++) free(matches[i]);
  free(matches);
  matches = NULL;
  nmatches = next_match = 0;
}

/* readline's generator: the Lua completer is called once per word */
static char *generate(const char *text, int state) {
  if (state == 0) {
    clear_matches();
    lua_State *L = completer_L;
    lua_rawgeti(L, LUA_REGISTRYINDEX, completer_ref);
    lua_pushstring(L, text);
    lua_pushlstring(L, rl_line_buffer, (size_t)rl_point);
    if (lua_pcall(L, 2, 1, 0) == LUA_OK && lua_istable(L, -1)) {
      size_t n = (size_t)lua_rawlen(L, -1);
      matches = calloc(n ? n : 1, sizeof *matches);
      for (size_t i = 1; matches && i <= n; i++) {
        lua_rawgeti(L, -1, (lua_Integer)i);
        if (lua_type(L, -1) == LUA_TSTRING) matches[nmatches++] = strdup(lua_tostring(L, -1));
        lua_pop(L, 1);
      }
    }
    lua_pop(L, 1);
  }
  return next_match < nmatches ? matches[next_match++] : NULL; /* readline frees it */
}

static char **complete(const char *text, int start, int end) {
  (void)start;
  (void)end;
  rl_attempted_completion_over = 1; /* no filename completion */
  return rl_completion_matches(text, generate);
}

static int l_set_completer(lua_State *L) {
  if (completer_ref != LUA_NOREF) luaL_unref(L, LUA_REGISTRYINDEX, completer_ref);
  completer_ref = LUA_NOREF;
  rl_attempted_completion_function = NULL;
  if (lua_isfunction(L, 1)) {
    lua_pushvalue(L, 1);
    completer_ref = luaL_ref(L, LUA_REGISTRYINDEX);
    completer_L = L;
    rl_attempted_completion_function = complete;
    rl_basic_word_break_characters = " \t\n(){},:\"";
  }
  return 0;
}

int luaopen_kip_host(lua_State *L) {
  static const luaL_Reg funcs[] = {{"isatty", l_isatty},
                                   {"columns", l_columns},
                                   {"readline", l_readline},
                                   {"add_history", l_add_history},
                                   {"read_history", l_read_history},
                                   {"write_history", l_write_history},
                                   {"set_completer", l_set_completer},
                                   {NULL, NULL}};
  rl_readline_name = "kip";
  luaL_newlib(L, funcs);
  return 1;
}
