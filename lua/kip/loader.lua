-- kip.loader — named Lua files found in directories (searched in order)
-- and reloaded when their content changes, checked at most once per
-- `interval` seconds: policies, mind-model gates, and the swappable modules
-- of the cognitive subsystems (DESIGN.md §7). A file that fails to load
-- leaves the previous version active and the error is reported.
local sandbox = require "kip.sandbox"

local M = {}
local Set = {}
Set.__index = Set

--- opts: names, dirs, load = function(path) -> object (with .source) | nil,
--- message; interval (s, default 1), clock (default os.time), log(message),
--- what ("policy" in messages).
function M.set(opts)
  local s = setmetatable({
    names = opts.names or {}, dirs = opts.dirs or {}, interval = opts.interval or 1, load = opts.load,
    what = opts.what or "module", objects = {}, errors = {}, checked = -math.huge, clock = opts.clock or os.time,
    log = opts.log or function(msg) io.stderr:write("kip: ", msg, "\n") end,
  }, Set)
  s:reload(true)
  return s
end

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

--- the loaded objects in the order of names (reloading first when due)
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

return M
