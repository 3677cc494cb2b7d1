-- kip.sandbox — running operator-supplied Lua under limits: governance
-- policies, mind-model gates, and the pluggable steps, handlers and hooks
-- of the cognitive subsystems (DESIGN.md §7: one sandbox, one loader).
--
-- Sandboxed code runs in its own environment with whitelisted libraries
-- only: string (without dump), table, math, utf8, lpeg, json {encode,
-- decode}, os.time/clock/date, and the basic functions that cannot reach
-- outside (no io, os.execute, require, load, dofile, debug, getmetatable,
-- collectgarbage). Every call has an instruction budget, a memory cap and a
-- string-pattern step budget (the last two bound what one C call can spend:
-- core/binding/lua/kip_sandbox.c); pcall/xpcall inside cannot swallow an exhausted
-- budget.
local core = require "kip.core"

local M = {}

M.DEFAULT_BUDGET = 1000000 -- VM instructions per call
M.MEMORY_CAP = 64 * 1024 * 1024 -- bytes a call may grow the Lua heap by
M.PATTERN_STEPS = 20000000 -- string-pattern matching steps per call (C-level time)
M.MAX_REP = 16 * 1024 * 1024 -- longest string string.rep may build

local has_lpeg, lpeg = pcall(require, "lpeg")
local jit_ok, jit = pcall(require, "jit")
if not (jit_ok and type(jit) == "table" and jit.off) then jit = nil end

local array_mt = core.array_mt
local function copy(t, seen)
  if type(t) ~= "table" then return t end
  seen = seen or {}
  if seen[t] then return seen[t] end
  local c = {}
  seen[t] = c
  for k, v in pairs(t) do
    if type(k) == "table" then k = copy(k, seen) end
    if type(v) == "table" then v = copy(v, seen) end
    c[k] = v
  end
  if getmetatable(t) == array_mt then setmetatable(c, array_mt) end
  return c
end
M.copy = copy

local pack = table.pack or function(...) return { n = select("#", ...), ... } end
local unpack = table.unpack or unpack
local STEP = 1000
-- raised by the instruction hook; the sandbox's pcall/xpcall re-raise it so
-- a policy cannot swallow its own budget exhaustion
local BUDGET = setmetatable({}, { __tostring = function() return "instruction budget exceeded" end })

-- Run fn(...) with an instruction budget; returns ok, first result (or the
-- error carrying a traceback that names the policy file and line). One hook
-- function and one handler serve every call (no per-call closures).
local used, limit = 0, 0
local function count_hook()
  used = used + STEP
  if used > limit then error(BUDGET, 0) end
end
local MEMORY_MSG = ("memory cap exceeded (%d MiB)"):format(math.floor(M.MEMORY_CAP / (1024 * 1024)))
local function on_error(e)
  if e == BUDGET then return ("instruction budget exceeded (%d instructions)\n%s"):format(limit, debug.traceback()) end
  return debug.traceback(tostring(e), 2)
end

-- The string library of sandboxed code: no dump, string.rep bounded, and
-- the pattern functions with a step budget (core.pattern, kip_sandbox.c).
-- It is also the strings' metatable __index while a hook runs, so that
-- ("x"):find(...) is bounded too.
local SAFE_STRING = {}
for k, v in pairs(string) do if k ~= "dump" then SAFE_STRING[k] = v end end
for k, v in pairs(core.pattern) do SAFE_STRING[k] = v end
function SAFE_STRING.rep(s, n, sep)
  local len = #tostring(s) + (sep and #tostring(sep) or 0)
  if type(n) == "number" and n > 0 and len * n > M.MAX_REP then
    error(("string.rep: result longer than %d bytes"):format(M.MAX_REP), 2)
  end
  return string.rep(s, n, sep)
end
M.SAFE_STRING = SAFE_STRING
local string_mt = getmetatable("")

--- Run fn(...) under every sandbox limit (instructions, memory, pattern
--- steps); returns ok, result-or-message (the message names file and line).
local depth = 0
function M.run(budget, fn, ...)
  -- a sandboxed call may lead to another (an operator's sleep phase writes,
  -- the policies check the write): the inner one runs under its own limits,
  -- then the outer one's are put back (its instruction count continues)
  local outer_used, outer_limit = used, limit
  depth = depth + 1
  used, limit = 0, budget
  local host_index = string_mt.__index
  string_mt.__index = SAFE_STRING
  core.sandbox_begin(M.MEMORY_CAP, M.PATTERN_STEPS)
  debug.sethook(count_hook, "", STEP)
  local ok, res = xpcall(fn, on_error, ...)
  debug.sethook()
  core.sandbox_end()
  string_mt.__index = host_index
  depth = depth - 1
  if depth > 0 then
    used, limit = outer_used, outer_limit
    core.sandbox_begin(M.MEMORY_CAP, M.PATTERN_STEPS)
    debug.sethook(count_hook, "", STEP)
  end
  -- a memory error skips the message handler; say which limit it was
  if not ok and res == "not enough memory" then res = MEMORY_MSG end
  return ok, res
end

local function guarded(protected)
  return function(...)
    local r = pack(protected(...))
    if not r[1] and r[2] == BUDGET then error(BUDGET, 0) end
    return unpack(r, 1, r.n)
  end
end

--- A fresh environment for sandboxed code called `name`: whitelisted
--- libraries only; `extra` fields (e.g. the kip table) are added.
function M.env(name, extra)
  local env = {
    string = copy(SAFE_STRING), table = copy(table), math = copy(math), utf8 = utf8 and copy(utf8) or nil,
    lpeg = has_lpeg and lpeg or nil,
    json = { encode = core.json_encode, decode = core.json_decode, null = core.null },
    os = { time = os.time, clock = os.clock, date = os.date },
    assert = assert, error = error, ipairs = ipairs, next = next, pairs = pairs, pcall = guarded(pcall),
    rawequal = rawequal, rawget = rawget, rawlen = rawlen, rawset = rawset, select = select,
    setmetatable = function(t, mt)
      if type(t) ~= "table" then error("setmetatable: only tables", 2) end
      -- finalizers would run later, outside any budget
      if type(mt) == "table" and (rawget(mt, "__gc") ~= nil or rawget(mt, "__close") ~= nil) then
        error("setmetatable: __gc and __close are not allowed in sandboxed code", 2)
      end
      return setmetatable(t, mt)
    end,
    tonumber = tonumber, tostring = tostring, type = type, unpack = table.unpack or unpack,
    xpcall = guarded(xpcall),
    print = function(...) -- policies log to stderr, never to stdout (protocol channels)
      local parts = {}
      for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
      io.stderr:write("[", name, "] ", table.concat(parts, "\t"), "\n")
    end,
  }
  env._G = env
  for k, v in pairs(extra or {}) do env[k] = v end
  return env
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("a") or f:read("*a")
  f:close()
  return text
end
M.read_file = read_file

--- Load a Lua file into environment env and run its main chunk under the
--- limits. Returns the value it returns and its source text, or nil, message
--- (also when it returns nothing).
function M.load_file(path, env, budget)
  local text, err = read_file(path)
  if not text then return nil, "cannot read " .. path .. ": " .. tostring(err) end
  if text:sub(1, 4) == "\27Lua" or text:sub(1, 3) == "\27LJ" then
    return nil, path .. ": precompiled bytecode is not accepted"
  end
  local chunk, cerr
  if setfenv then
    chunk, cerr = loadstring(text, "@" .. path)
    if chunk then setfenv(chunk, env) end
  else
    chunk, cerr = load(text, "@" .. path, "t", env)
  end
  if not chunk then return nil, cerr end
  if jit then jit.off(chunk, true) end -- hooks do not fire inside compiled traces
  local ok, v = M.run(budget or M.DEFAULT_BUDGET, chunk)
  if not ok then return nil, tostring(v):match("^[^\n]*") end
  if v == nil then return nil, path .. ": the file returns nothing" end
  return v, text
end

return M
