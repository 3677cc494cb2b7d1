/*
** kip_host.c — the `kip.host` Lua module of the kip executable: what the CLI
** needs from the terminal and that Lua lacks. Line editing and persistent
** history (GNU readline), tab completion through a Lua callback, isatty and
** the terminal width.
**
**   host.isatty(fd) -> bool
**   host.columns() -> integer (80 when unknown)
**   host.readline(prompt) -> line | nil at end of input
**   host.add_history(line); host.read_history(path); host.write_history(path, max)
**   host.set_completer(function(text, line_before) -> {candidates}) | nil
**
** and what a stdio server (kip mcp) needs to notice a cancellation or a
** departed client while a request runs: a line reader on fd 0 with its own
** buffer, so that "is a line waiting?" can be asked without blocking.
**
**   host.read_line() -> line | nil at end of input          (blocking; nil
**                                 too when stdout's reader goes away)
**   host.line_waiting() -> "line" | "eof" | nil             (never blocks)
**   host.output_broken() -> bool                             (stdout's reader is gone)
*/
#include <lauxlib.h>
#include <lua.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <errno.h>
#include <poll.h>
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

/* ------------------------------------------------------ stdin lines */
static char *inbuf;              /* bytes read from fd 0, not yet returned */
static size_t inlen, incap;
static int ineof;

/* read what fd 0 has (blocking if `block`); 0 on data, -1 on EOF or error */
static int fill(int block) {
  if (ineof) return -1;
  if (!block) {
    struct pollfd p = {0, POLLIN, 0};
    if (poll(&p, 1, 0) <= 0) return 0;
  }
  if (incap - inlen < 65536) {
    size_t cap = incap ? incap * 2 : 131072;
    while (cap - inlen < 65536) cap *= 2;
    char *nb = realloc(inbuf, cap);
    if (!nb) return -1;
    inbuf = nb;
    incap = cap;
  }
  ssize_t n;
  do n = read(0, inbuf + inlen, incap - inlen);
  while (n < 0 && errno == EINTR);
  if (n <= 0) {
    ineof = 1;
    return -1;
  }
  inlen += (size_t)n;
  return 0;
}

static int push_line(lua_State *L, char *nl) {
  size_t n = (size_t)(nl - inbuf);
  lua_pushlstring(L, inbuf, n > 0 && inbuf[n - 1] == '\r' ? n - 1 : n);
  memmove(inbuf, nl + 1, inlen - n - 1);
  inlen -= n + 1;
  return 1;
}

/* wait until fd 0 has input; 0, or -1 when stdout's reader went away meanwhile */
static int wait_input(void) {
  for (;;) {
    struct pollfd p[2] = {{0, POLLIN, 0}, {1, 0, 0}};
    int n = poll(p, 2, -1);
    if (n < 0 && errno == EINTR) continue;
    if (n < 0) return 0;
    if (p[1].revents & (POLLERR | POLLHUP | POLLNVAL)) return -1;
    if (p[0].revents) return 0;
  }
}

static int l_read_line(lua_State *L) {
  for (;;) {
    char *nl = inlen ? memchr(inbuf, '\n', inlen) : NULL;
    if (nl) return push_line(L, nl);
    if (!ineof && wait_input() < 0) return 0; /* nobody reads our answers: end of input */
    if (fill(1) < 0) {
      if (!inlen) return 0;
      lua_pushlstring(L, inbuf, inlen); /* a last line without newline */
      inlen = 0;
      return 1;
    }
  }
}

static int l_line_waiting(lua_State *L) {
  if (!(inlen && memchr(inbuf, '\n', inlen))) fill(0);
  if (inlen && memchr(inbuf, '\n', inlen)) lua_pushliteral(L, "line");
  else if (ineof) lua_pushliteral(L, "eof");
  else lua_pushnil(L);
  return 1;
}

static int l_output_broken(lua_State *L) {
  struct pollfd p = {1, POLLOUT, 0};
  int broken = poll(&p, 1, 0) > 0 && (p.revents & (POLLERR | POLLHUP | POLLNVAL));
  lua_pushboolean(L, broken);
  return 1;
}

int luaopen_kip_host(lua_State *L) {
  static const luaL_Reg funcs[] = {{"isatty", l_isatty},
                                   {"columns", l_columns},
                                   {"readline", l_readline},
                                   {"add_history", l_add_history},
                                   {"read_history", l_read_history},
                                   {"write_history", l_write_history},
                                   {"set_completer", l_set_completer},
                                   {"read_line", l_read_line},
                                   {"line_waiting", l_line_waiting},
                                   {"output_broken", l_output_broken},
                                   {NULL, NULL}};
  rl_readline_name = "kip";
  luaL_newlib(L, funcs);
  return 1;
}
