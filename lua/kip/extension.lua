--- kip.extension — the one mechanism for operator Lua (DESIGN.md §7;
--- docs/extending.md): every kind of extension — governance policies, ARG
--- steps, sleep phases, action handlers, connectors, embedders, judgment
--- hooks, CLI commands, MCP tools — is loaded, sandboxed, budgeted,
--- hot-reloaded and reported the same way.
---
--- A kind is declared once by the subsystem that calls it
--- (M.kind(name, {label=, globals=, check=})): the globals its files see
--- beside the sandbox's whitelisted libraries, and the shape of the value a
--- file returns. Its instruction budget is in M.BUDGETS, the one table of
--- budgets. An extension is a table (the value a file returned, checked and
--- normalised by its kind) carrying kind, name, path and source; a file's
--- extension is reloaded in place when its text changes (checked at most
--- once per M.INTERVAL seconds), a failed reload keeps the previous version
--- and is reported. Every call runs under the sandbox's limits, and a
--- failure names the kind, the extension, the function and the file's line.
---
---   local extension = require "kip.extension"
---   local h = assert(extension.load("handler", "/etc/kip/refund.lua", "refund"))
---   local ok, res = extension.call(h, "run", call)
local sandbox = require "kip.sandbox"

local M = {}

--- VM instructions one call of an extension may spend, by kind. A
--- connector's budget is per millisecond of its timeout.
M.BUDGETS = {
  policy = 1000000,            -- a pre_check/post_check (the pipeline adds 20 per byte of the request)
  arg_step = 50000000,         -- an ARG step per request
  sleep_phase = 2000000000,    -- a sleep phase per cycle (its wall-time and write budgets bound it first)
  handler = 2000000,           -- an action handler's run or compensate
  connector_per_ms = 20000,    -- a connector, per millisecond of its timeout
  embedder = 50000000,         -- a Lua embedder's embed(texts)
  hook = 50000000,             -- a judgment hook (ARG route/resolve/compare/propose, sleep classify/…)
  command = 500000000,         -- a CLI command an operator adds
  mcp_tool = 50000000,         -- an MCP tool an operator adds
  subsystem = 1000000,         -- an operator's subsystem file's main chunk
}

M.INTERVAL = 1 -- seconds between two checks of a file for changes

local KINDS = {}

--- Declare kind `name`: def = {label = "ARG step" (in messages),
--- globals = function(ext_name) -> table of extra globals (optional),
--- check = function(value, ext_name) -> normalised table | nil, message,
--- budget = kind key in M.BUDGETS (default name)}.
function M.kind(name, def)
  def.label = def.label or name
  def.budget = def.budget or name
  KINDS[name] = def
  return def
end

local function kind_of(kind)
  local k = KINDS[kind]
  if not k then error("unknown extension kind " .. tostring(kind), 3) end
  return k
end

local jit_ok, jit = pcall(require, "jit")
if not (jit_ok and type(jit) == "table" and jit.off) then jit = nil end

-- the budget hook does not fire inside compiled traces: functions handed
-- in by a host program run interpreted
local function interpreted(t)
  if not jit then return end
  for _, v in pairs(t) do if type(v) == "function" then jit.off(v, true) end end
end

local function finish(k, kind, name, value, path, source)
  local ext, err = k.check(value, name)
  if not ext then return nil, ("%s: %s"):format(path or (k.label .. " " .. tostring(name)), err) end
  if type(ext) ~= "table" then ext = { value = ext } end
  ext.__extension, ext.kind, ext.path, ext.source = true, kind, path, source
  ext.name = ext.name or name
  if not path then interpreted(ext) end
  return ext
end

--- the sandbox environment of an extension of `kind` called `name`
function M.env(kind, name)
  local k = kind_of(kind)
  return sandbox.env(k.label .. " " .. tostring(name), k.globals and k.globals(name) or nil)
end

--- Load the file at path as an extension of `kind` (name: default the
--- file's base name). Returns the extension, or nil, message.
function M.load(kind, path, name)
  local k = kind_of(kind)
  name = name or path:match("([^/]+)%.lua$") or path
  local value, text = sandbox.load_file(path, M.env(kind, name), M.BUDGETS[k.budget] or sandbox.DEFAULT_BUDGET)
  if value == nil then return nil, (tostring(text):gsub("^cannot read ", "cannot read " .. k.label .. " ")) end
  local ext, err = finish(k, kind, name, value, path, text)
  if ext then ext.checked = os.time() end
  return ext, err
end

--- An extension of `kind` from what a host program or a configuration
--- gives: a path ending in .lua (loaded sandboxed), the name of a Lua
--- module (trusted code the operator installed on the Lua path: what a hook
--- that calls a model or a service needs), or a value (a table or function,
--- checked by the kind). Every call runs under the kind's budget. Returns
--- the extension or nil, message.
function M.from(kind, spec, name)
  if type(spec) == "string" and spec:match("%.lua$") then return M.load(kind, spec, name) end
  local k = kind_of(kind)
  if type(spec) == "string" then
    if not spec:match("^[%w_][%w_.]*$") then
      return nil, ("%s %s: expected a file ending in .lua or a Lua module name"):format(k.label, spec)
    end
    local ok, mod = pcall(require, spec)
    if not ok then return nil, ("%s: cannot load module %s: %s"):format(k.label, spec, tostring(mod):match("^[^\n]*")) end
    return finish(k, kind, name or spec, mod, nil, nil)
  end
  if type(spec) == "table" and spec.__extension and spec.kind == kind then return spec end
  return finish(k, kind, name, spec, nil, nil)
end

--- Extensions of `kind` from a map name -> spec (M.from), into table
--- `into` by name; nil, message on the first that fails.
function M.register(into, kind, map)
  for name, spec in pairs(map or {}) do
    local ext, err = M.from(kind, spec, name)
    if not ext then return nil, err end
    into[name] = ext
  end
  return true
end

--- Reload a file's extension in place when its text changed (at most once
--- per M.INTERVAL seconds, or now with force). A reload that fails keeps the
--- previous version: the error is returned (and kept in ext.error). Returns
--- true when it changed.
function M.refresh(ext, force, log)
  if not ext.path or ext.in_set then return false end -- a set's members: the set reloads them (Set:reload)
  local now = os.time()
  if not force and ext.checked and now - ext.checked < M.INTERVAL then return false end
  ext.checked = now
  local text = sandbox.read_file(ext.path)
  if text == ext.source then return false end
  local fresh, err = M.load(ext.kind, ext.path, ext.name)
  if not fresh then
    ext.error = err
    ;(log or function(msg) io.stderr:write("kip: ", msg, "\n") end)(err .. " (keeping the previous version)")
    return false, err
  end
  for key in pairs(ext) do ext[key] = nil end
  for key, v in pairs(fresh) do ext[key] = v end
  return true
end

--- Call ext[fn](...) under the sandbox's limits (the newest version of a
--- file's extension). budget: default the kind's. Returns ok, first result;
--- or false, "<kind> '<name>' <fn> failed: <file:line: message>", full traceback.
function M.call(ext, fn, budget, ...)
  M.refresh(ext)
  local f = ext[fn]
  if f == nil then return true, nil end
  local k = KINDS[ext.kind]
  local ok, res = sandbox.run(budget or M.BUDGETS[k.budget] or sandbox.DEFAULT_BUDGET, f, ...)
  if not ok then
    local msg = tostring(res)
    return false, ("%s '%s' %s failed: %s"):format(k.label, tostring(ext.name), fn, msg:match("^[^\n]*")), msg
  end
  return true, res
end

--- A plain function that calls ext[fn] under the limits and raises the
--- failure (for callers that pcall a hook themselves).
function M.bind(ext, fn, budget)
  return function(...)
    local ok, res = M.call(ext, fn, budget, ...)
    if not ok then error(res, 0) end
    return res
  end
end

-- ------------------------------------------------------------ named sets
--- the path of name: a path as given, else the first dir holding name.lua
function M.find(dirs, name)
  if name:find("/") then return name end
  for _, d in ipairs(dirs) do
    local p = d .. "/" .. name .. ".lua"
    local f = io.open(p, "r")
    if f then f:close() return p end
  end
  return nil
end

--- the names of the .lua files in dirs (sorted, each once)
function M.available(dirs)
  local seen, out = {}, {}
  for _, d in ipairs(dirs) do
    local p = io.popen("ls -1 '" .. d:gsub("'", "'\\''") .. "' 2>/dev/null")
    if p then
      for f in p:lines() do
        local n = f:match("^(.+)%.lua$")
        if n and not seen[n] then seen[n] = true; out[#out + 1] = n end
      end
      p:close()
    end
  end
  table.sort(out)
  return out
end

local Set = {}
Set.__index = Set

--- A set of named extensions of `kind` found in dirs (searched in order)
--- and reloaded when their files change, checked at most once per
--- `interval` seconds. opts: kind, names, dirs, interval (s, default
--- M.INTERVAL), clock (default os.time), log(message), load(path) (default
--- M.load(kind, path)). A file that fails to load leaves the previous
--- version active and the error is reported.
function M.set(opts)
  local k = kind_of(opts.kind)
  local load = opts.load or function(path) return M.load(opts.kind, path) end
  local s = setmetatable({
    names = opts.names or {}, dirs = opts.dirs or {}, interval = opts.interval or M.INTERVAL,
    load = function(path)
      local obj, err = load(path)
      if obj then obj.in_set = true end -- reloaded here, reported through the set's log
      return obj, err
    end,
    what = k.label, objects = {}, errors = {}, checked = -math.huge, clock = opts.clock or os.time,
    log = opts.log or function(msg) io.stderr:write("kip: ", msg, "\n") end,
  }, Set)
  s:reload(true)
  return s
end

--- Reload changed files. force: regardless of the interval. Returns true
--- when something changed.
function Set:reload(force)
  local now = self.clock()
  if not force and now - self.checked < self.interval then return false end
  self.checked = now
  local loaded, changed = {}, false
  for _, name in ipairs(self.names) do
    local old = self.objects[name]
    local path = M.find(self.dirs, name)
    if not path then
      local have = M.available(self.dirs)
      self.errors[name] = self.what .. " '" .. name .. "' not found in " .. table.concat(self.dirs, ", ")
        .. (#have > 0 and ("; available: " .. table.concat(have, ", ")) or "")
      if force then self.log(self.errors[name]) end
      loaded[name] = old
    else
      local text = sandbox.read_file(path)
      if old and text == old.source then
        loaded[name] = old
      else
        local obj, err = self.load(path)
        if obj then
          loaded[name] = obj
          self.errors[name] = nil
          changed = true
        else
          loaded[name] = old
          self.errors[name] = err
          self.log(err .. (old and " (keeping the previous version)" or ""))
        end
      end
    end
  end
  self.objects = loaded
  return changed
end

--- the loaded extensions in the order of names (reloading first when due)
function Set:list()
  self:reload(false)
  local out = {}
  for _, name in ipairs(self.names) do
    if self.objects[name] then out[#out + 1] = self.objects[name] end
  end
  return out
end

--- the first name that could not be loaded at all, with why
function Set:missing()
  for _, name in ipairs(self.names) do
    if not self.objects[name] then return self.errors[name] or (self.what .. " '" .. name .. "' is not loaded") end
  end
end

-- ------------------------------------------------------------ shapes
--- check helpers for kinds: a function, or a table with the named functions
function M.is_function_or_table(value, field)
  if type(value) == "function" then return { [field] = value } end
  if type(value) == "table" and type(value[field]) == "function" then return value end
  return nil, ("must return a function or a table with %s = function"):format(field)
end

--- a table whose every value is a function (judgment hooks)
function M.functions_only(value)
  if type(value) ~= "table" then return nil, "must return a table of functions" end
  for key, v in pairs(value) do
    if type(v) ~= "function" then return nil, ("%s is a %s, not a function"):format(tostring(key), type(v)) end
  end
  return value
end

-- judgment hooks of every subsystem share one kind: a table of functions,
-- each called under the hook budget (M.hooks)
M.kind("hook", { label = "hook", check = M.functions_only })

--- Judgment hooks from a table of functions, a file path (…lua) or nil:
--- a table of plain functions that run under the hook budget and raise on
--- failure (the callers pcall them and flag the item). Returns hooks or
--- nil, message.
function M.hooks(spec, name)
  if spec == nil then return {} end
  local ext, err = M.from("hook", spec, name or "hooks")
  if not ext then return nil, err end
  local out = {}
  for key, v in pairs(ext) do
    if type(v) == "function" then out[key] = M.bind(ext, key) end
  end
  return out
end

return M
