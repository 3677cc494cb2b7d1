-- kip.policy — governance policies (ARG Policy Manager): loading policy files
-- into a sandbox, hot reload, running their hooks under an instruction
-- budget, and composing their decisions.
--
-- A policy file returns kip.policy{ name=, priority=, pre_check=, post_check= }
-- (docs/policies.md). It runs in its own environment with whitelisted
-- libraries only: string (without dump), table, math, utf8, lpeg, json
-- {encode, decode}, os.time/clock/date, and the basic functions that cannot
-- reach outside (no io, os.execute, require, load, dofile, debug,
-- getmetatable, collectgarbage). Every hook call has an instruction budget,
-- a memory cap and a string-pattern step budget (the last two bound what
-- one C call can spend: kip_sandbox.c); a hook that fails, loops, exceeds a
-- limit or returns garbage refuses the request (fail closed) with an error
-- naming the policy and the line.
local core = require "kip.core"

local M = {}

M.STATES = { ALLOW = 1, ALLOW_WITH_REFOCUS = 2, RESTRICT = 3, BLOCK = 4 }
M.MODES = { normal = 1, prudent = 2, refocus = 3, refusal = 4 }
M.DEFAULT_BUDGET = 1000000 -- VM instructions per hook call
M.MEMORY_CAP = 64 * 1024 * 1024 -- bytes a hook call may grow the Lua heap by
M.PATTERN_STEPS = 20000000 -- string-pattern matching steps per hook call (C-level time)
M.MAX_REP = 16 * 1024 * 1024 -- longest string string.rep may build in a sandbox

local has_lpeg, lpeg = pcall(require, "lpeg")
local jit_ok, jit = pcall(require, "jit")
if not (jit_ok and type(jit) == "table" and jit.off) then jit = nil end

--- The constructor policy files call: validates and tags the table.
function M.new(def)
  if type(def) ~= "table" then error("kip.policy{...} expects a table", 2) end
  if type(def.name) ~= "string" or def.name == "" then error("a policy needs a name", 2) end
  if def.pre_check ~= nil and type(def.pre_check) ~= "function" then error("pre_check must be a function", 2) end
  if def.post_check ~= nil and type(def.post_check) ~= "function" then error("post_check must be a function", 2) end
  if def.priority ~= nil and type(def.priority) ~= "number" then error("priority must be a number", 2) end
  def.priority = def.priority or 100
  def.__kip_policy = true
  return def
end

local function copy(t, seen)
  if type(t) ~= "table" then return t end
  seen = seen or {}
  if seen[t] then return seen[t] end
  local c = {}
  seen[t] = c
  for k, v in pairs(t) do c[copy(k, seen)] = copy(v, seen) end
  return setmetatable(c, getmetatable(t) == core.array_mt and core.array_mt or nil)
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

-- Run fn(...) under every sandbox limit; returns ok, result-or-message.
local function budgeted(budget, fn, ...)
  used, limit = 0, budget
  local host_index = string_mt.__index
  string_mt.__index = SAFE_STRING
  core.sandbox_begin(M.MEMORY_CAP, M.PATTERN_STEPS)
  debug.sethook(count_hook, "", STEP)
  local ok, res = xpcall(fn, on_error, ...)
  debug.sethook()
  core.sandbox_end()
  string_mt.__index = host_index
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

local function sandbox_env(name)
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
        error("setmetatable: __gc and __close are not allowed in policies", 2)
      end
      return setmetatable(t, mt)
    end,
    tonumber = tonumber, tostring = tostring, type = type, unpack = table.unpack or unpack,
    xpcall = guarded(xpcall),
    print = function(...) -- policies log to stderr, never to stdout (protocol channels)
      local parts = {}
      for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
      io.stderr:write("[policy ", name, "] ", table.concat(parts, "\t"), "\n")
    end,
  }
  env._G = env
  env.kip = { policy = M.new, null = core.null }
  return env
end

local function read_file(path)
  local f, err = io.open(path, "rb")
  if not f then return nil, err end
  local text = f:read("a") or f:read("*a")
  f:close()
  return text
end

--- Load one policy file into a sandbox. Returns the policy table or nil, message.
function M.load_file(path, budget)
  local text, err = read_file(path)
  if not text then return nil, "cannot read policy " .. path .. ": " .. tostring(err) end
  if text:sub(1, 4) == "\27Lua" or text:sub(1, 3) == "\27LJ" then
    return nil, path .. ": precompiled bytecode is not accepted"
  end
  local name = path:match("([^/]+)%.lua$") or path
  local env = sandbox_env(name)
  local chunk, cerr
  if setfenv then
    chunk, cerr = loadstring(text, "@" .. path)
    if chunk then setfenv(chunk, env) end
  else
    chunk, cerr = load(text, "@" .. path, "t", env)
  end
  if not chunk then return nil, cerr end
  if jit then jit.off(chunk, true) end -- hooks do not fire inside compiled traces
  local ok, p = budgeted(budget or M.DEFAULT_BUDGET, chunk)
  if not ok then return nil, tostring(p):match("^[^\n]*") end
  if type(p) ~= "table" or not p.__kip_policy then
    return nil, path .. ": a policy file must return kip.policy{...}"
  end
  p.path, p.source = path, text
  return p
end

--- Call a hook of policy p; returns ok, value-or-error-message.
function M.call(p, hook, budget, ...)
  local fn = p[hook]
  if not fn then return true, nil end
  local ok, res = budgeted(budget or p.budget or M.DEFAULT_BUDGET, fn, ...)
  if not ok then
    -- the first line names the file and line; the traceback goes to the log
    local msg = tostring(res)
    return false, ("policy '%s' %s failed: %s"):format(p.name, hook, msg:match("^[^\n]*")), msg
  end
  return true, res
end

-- ------------------------------------------------------------ composition
local function list_union(a, b)
  if not a then return b and copy(b) end
  if not b then return a end
  local seen, out = {}, {}
  for _, l in ipairs { a, b } do
    for _, v in ipairs(l) do
      if not seen[v] then seen[v] = true; out[#out + 1] = v end
    end
  end
  return out
end

local function min_num(a, b)
  if a == nil then return b end
  if b == nil then return a end
  return math.min(a, b)
end

--- Compose decisions: the most restrictive state wins, constraints
--- intersect, reasons accumulate. Returns the combined decision.
function M.compose(decisions)
  local out = { state = "ALLOW", response_mode = "normal", reasons = {}, warnings = {}, constraints = {} }
  local c = out.constraints
  local elig = {}
  for _, d in ipairs(decisions) do
    local s = d.state or "ALLOW"
    if (M.STATES[s] or 0) > M.STATES[out.state] then out.state = s end
    local m = d.response_mode or "normal"
    if (M.MODES[m] or 0) > M.MODES[out.response_mode] then out.response_mode = m end
    for _, r in ipairs(d.reasons or {}) do out.reasons[#out.reasons + 1] = r end
    for _, w in ipairs(d.warnings or {}) do out.warnings[#out.warnings + 1] = w end
    local k = d.constraints or {}
    if k.eligibility then elig[#elig + 1] = "(" .. k.eligibility .. ")" end
    c.forbidden_types = list_union(c.forbidden_types, k.forbidden_types)
    c.forbidden_predicates = list_union(c.forbidden_predicates, k.forbidden_predicates)
    if k.write_allowed == false then c.write_allowed = false end
    if k.budgets then
      c.budgets = c.budgets or {}
      for _, key in ipairs { "max_hops", "max_rows", "deadline_ms" } do
        c.budgets[key] = min_num(c.budgets[key], k.budgets[key])
      end
    end
    if k.params then
      c.params = c.params or {}
      for key, v in pairs(k.params) do c.params[key] = v end
    end
  end
  if #elig > 0 then c.eligibility = table.concat(elig, " && ") end
  return out
end

--- Validate a decision returned by a hook; returns decision or nil, message.
function M.check_decision(p, d)
  if d == nil then return { state = "ALLOW" } end
  if type(d) ~= "table" then return nil, ("policy '%s' returned %s, not a decision table"):format(p.name, type(d)) end
  if d.state ~= nil and not M.STATES[d.state] then
    return nil, ("policy '%s' returned an unknown state %q"):format(p.name, tostring(d.state))
  end
  if d.response_mode ~= nil and not M.MODES[d.response_mode] then
    return nil, ("policy '%s' returned an unknown response_mode %q"):format(p.name, tostring(d.response_mode))
  end
  return d
end

-- ------------------------------------------------------------ the set
local Set = {}
Set.__index = Set

--- A set of named policies found in dirs (searched in order), reloaded when
--- their files change (checked at most once per `interval` seconds).
function M.set(opts)
  local s = setmetatable({
    names = opts.names or { "default" }, dirs = opts.dirs or {}, interval = opts.interval or 1,
    budget = opts.budget or M.DEFAULT_BUDGET, policies = {}, errors = {}, checked = -math.huge,
    clock = opts.clock or os.time, log = opts.log or function(msg) io.stderr:write("kip: ", msg, "\n") end,
  }, Set)
  s:reload(true)
  return s
end

local function find(dirs, name)
  if name:find("/") then return name end
  for _, d in ipairs(dirs) do
    local p = d .. "/" .. name .. ".lua"
    local f = io.open(p, "r")
    if f then f:close() return p end
  end
  return nil
end

--- Reload changed files; a file that fails to load keeps the previous
--- version active and the error is reported. force: reload regardless of time.
function Set:reload(force)
  local now = self.clock()
  if not force and now - self.checked < self.interval then return end
  self.checked = now
  local loaded = {}
  for _, name in ipairs(self.names) do
    local old = self.policies[name]
    local path = find(self.dirs, name)
    if not path then
      self.errors[name] = "policy '" .. name .. "' not found in " .. table.concat(self.dirs, ", ")
      if force then self.log(self.errors[name]) end
      loaded[name] = old
    else
      local text = read_file(path)
      if old and text == old.source then
        loaded[name] = old
      else
        local p, err = M.load_file(path, self.budget)
        if p then
          loaded[name] = p
          self.errors[name] = nil
        else
          loaded[name] = old
          self.errors[name] = err
          self.log(err .. (old and " (keeping the previous version)" or ""))
        end
      end
    end
  end
  self.policies = loaded
  self.sorted = nil
end

--- Active policies in priority order (lower first).
function Set:list()
  self:reload(false)
  if self.sorted then return self.sorted end
  local out = {}
  for _, name in ipairs(self.names) do
    if self.policies[name] then out[#out + 1] = self.policies[name] end
  end
  table.sort(out, function(a, b)
    if a.priority ~= b.priority then return a.priority < b.priority end
    return a.name < b.name
  end)
  self.sorted = out
  return out
end

--- A policy that could not be loaded at all makes every request fail closed.
function Set:missing()
  for _, name in ipairs(self.names) do
    if not self.policies[name] then return self.errors[name] or ("policy '" .. name .. "' is not loaded") end
  end
end

return M
