--- kip.subsystems — the registry of subsystems (DESIGN.md §7;
--- docs/extending.md): each subsystem describes what it adds to the front
--- ends — CLI commands, MCP tools, HTTP routes, policies every governed
--- nexus runs, Nexus methods — in one descriptor, so the CLI, the MCP
--- server, the HTTP module and the Lua facade name no subsystem. An
--- operator adds commands, MCP tools, ARG steps, sleep phases, policies,
--- handlers and connectors from folders of their own (M.add_dirs; the
--- CLI's --extensions DIR, $KIP_EXTENSIONS, kip.open{extensions = {DIR}}):
---
---   DIR/commands/NAME.lua      a `kip NAME` command           (kind "command")
---   DIR/mcp/NAME.lua           an MCP tool                     (kind "mcp_tool")
---   DIR/arg_steps/NAME.lua     an ARG step, swapped or added   (kind "arg_step")
---   DIR/sleep_phases/NAME.lua  a sleep phase, added            (kind "sleep_phase")
---   DIR/handlers/NAME.lua      an action handler               (kind "handler")
---   DIR/connectors/NAME.lua    a connector                     (kind "connector")
---   DIR/policies/NAME.lua      a policy (a policy directory)   (kind "policy")
---
--- A descriptor (a module named in M.BUILTIN) returns:
---   { name = "sleep",
---     commands = { sleep = {usage=, summary=, help=, run = function(cli, args) -> status} },
---     mcp = { ready = function(nx), list = function(readonly), call = function(nx, name, args, ctx, readonly),
---             after = function(nx, response_text) },
---     (commands and mcp may be module names, loaded when a front end asks:
---     `require "kip"` loads no CLI and no MCP code)
---     http = { route = function(nx, caller, body) -> status, response table },
---     policies = { "name" }, methods = { name = function(nx, ...) } }
local extension = require "kip.extension"

local M = {}

--- the subsystems shipped with kipnexus, in the order their commands are listed
M.BUILTIN = { "kip.mind.subsystem", "kip.arg.subsystem", "kip.sleep.subsystem", "kip.search.subsystem",
  "kip.ui.subsystem" }

--- the kinds an operator's folder holds, by subfolder
M.FOLDERS = { commands = "command", mcp = "mcp_tool", arg_steps = "arg_step", sleep_phases = "sleep_phase",
  handlers = "handler", connectors = "connector" }

local descriptors
--- the built-in descriptors (loaded once)
function M.list()
  if not descriptors then
    descriptors = {}
    for _, mod in ipairs(M.BUILTIN) do descriptors[#descriptors + 1] = require(mod) end
  end
  return descriptors
end

-- a descriptor's part: given, or the module it names
local function part(v)
  if type(v) == "string" then return require(v) end
  return v
end

-- ------------------------------------------------------------ operator folders
local dirs, seen_dir = {}, {}
local env_read = false

local function env_dirs()
  if env_read then return end
  env_read = true
  for d in (os.getenv("KIP_EXTENSIONS") or ""):gmatch("[^:]+") do M.add_dirs { d } end
end

--- add operator extension folders (searched in the order added)
function M.add_dirs(list)
  for _, d in ipairs(list or {}) do
    d = d:gsub("/+$", "")
    if not seen_dir[d] then
      seen_dir[d] = true
      dirs[#dirs + 1] = d
    end
  end
end

--- the operator's extension folders
function M.dirs()
  env_dirs()
  return dirs
end

--- the operator's policy directories (DIR/policies of each folder)
function M.policy_dirs()
  local out = {}
  for _, d in ipairs(M.dirs()) do out[#out + 1] = d .. "/policies" end
  return out
end

local loaded = {} -- path -> extension (refreshed when its file changes)

--- The operator's extensions of `kind` from every folder (a name in an
--- earlier folder wins), each loaded once and hot-reloaded after. A file
--- that fails to load is reported through log (default stderr) and left
--- out. Returns a list of extensions in name order.
function M.extensions(kind, log)
  log = log or function(msg) io.stderr:write("kip: ", msg, "\n") end
  local sub
  for folder, k in pairs(M.FOLDERS) do if k == kind then sub = folder end end
  if not sub then error("no operator folder holds extensions of kind " .. tostring(kind), 2) end
  local out, taken = {}, {}
  for _, d in ipairs(M.dirs()) do
    local folder = d .. "/" .. sub
    for _, name in ipairs(extension.available { folder }) do
      if not taken[name] then
        taken[name] = true
        local path = folder .. "/" .. name .. ".lua"
        local ext = loaded[path]
        if ext then
          extension.refresh(ext, false, log)
        else
          local err
          ext, err = extension.load(kind, path, name)
          if ext then loaded[path] = ext else log(err) end
        end
        if ext then out[#out + 1] = ext end
      end
    end
  end
  return out
end

-- ------------------------------------------------------------ what the front ends ask
--- every CLI command: name -> {usage, summary, help, run, subsystem}
function M.commands()
  local operator = require "kip.operator" -- the kind "command"
  local out = {}
  for _, s in ipairs(M.list()) do
    for name, c in pairs(part(s.commands) or {}) do
      c.name, c.subsystem = name, s.name
      out[name] = c
    end
  end
  for _, ext in ipairs(M.extensions("command")) do
    if not out[ext.name] then
      local c = operator.command(ext)
      c.name, c.subsystem = ext.name, "operator"
      out[ext.name] = c
    end
  end
  return out
end

--- the MCP tool providers: built-in subsystems' and one for the operator's tools
function M.mcp_providers()
  local operator = require "kip.operator" -- the kind "mcp_tool"
  local out = {}
  for _, s in ipairs(M.list()) do
    if s.mcp then out[#out + 1] = part(s.mcp) end
  end
  local tools = M.extensions("mcp_tool")
  if #tools > 0 then out[#out + 1] = operator.mcp_provider(tools) end
  return out
end

--- the policies every governed nexus runs beside its own (each subsystem's)
function M.policies()
  local out = {}
  for _, s in ipairs(M.list()) do
    for _, p in ipairs(s.policies or {}) do out[#out + 1] = p end
  end
  return out
end

-- the descriptors' maps under `field` merged (name -> value), made once:
-- the descriptors do not change while the process runs
local merged = {}
local function merge(field)
  if not merged[field] then
    local out = {}
    for _, s in ipairs(M.list()) do
      for name, v in pairs(s[field] or {}) do out[name] = v end
    end
    merged[field] = out
  end
  return merged[field]
end

--- methods the subsystems add to every Nexus: name -> function(nx, ...)
function M.methods() return merge("methods") end

--- the HTTP route handlers: name -> function(nx, caller, body)
function M.http_routes() return merge("http") end

return M
