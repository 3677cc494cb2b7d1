--- kip.cli.host — what every `kip` command is given (docs/extending.md "CLI
--- commands"): the global and governance options parsed once by
--- kip.cli.options, opening the nexus with them, and the terminal's helpers
--- (die, stderr, print_error, read_all). A command's run(cli, o, args)
--- receives one Host as `cli`.
local kip = require "kip"
local core = kip.core
local options = require "kip.cli.options"

local M = {}
local Host = {}
Host.__index = Host

local function stderr(...) io.stderr:write(string.format(...), "\n") end

local function mkdir_p(dir)
  os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'")
end
M.mkdir_p = mkdir_p

local function default_db()
  local env = os.getenv("KIP_DB")
  if env and env ~= "" then return env end
  local base = os.getenv("XDG_DATA_HOME")
  if not base or base == "" then base = (os.getenv("HOME") or ".") .. "/.local/share" end
  local dir = base .. "/kip"
  mkdir_p(dir)
  return dir .. "/nexus.db"
end

-- bulk commands read and write index pages all over the file: a larger page
-- cache saves re-reading them (docs/performance.md "Import")
M.BULK_CACHE_MB = { import = 256, restore = 256, reindex = 256 }

function M.new()
  local h = setmetatable({ global = { embedder = {}, extensions = {} },
    gov = { policies = {}, dirs = {}, none = false, ctx = {}, call = {} } }, Host)
  local g, gov = h.global, h.gov
  -- options every command accepts, before or after its name
  h.GLOBAL = {
    { "--db", value = "a path", into = g },
    { "--embedder", value = "a value", key = "spec", into = g.embedder },
    { "--embedder-model", value = "a value", key = "model", into = g.embedder },
    { "--embedder-key-env", value = "a value", key = "key_env", into = g.embedder },
    { "--embedder-dim", value = "a value", key = "dim", into = g.embedder },
    { "--cache-mb", value = "a number of MiB from 1 to 65536", key = "cache_mb", into = g, check = function(v)
      local n = tonumber(v)
      if not n or n ~= math.floor(n) or n < 1 or n > 65536 then return nil, "a number of MiB from 1 to 65536" end
      return n
    end },
    { "--extensions", value = "a directory", apply = function(dir)
      g.extensions[#g.extensions + 1] = dir
      require("kip.subsystems").add_dirs { dir }
    end },
  }
  -- the caller and the policies (call, exec, mcp, repl, sleep, mind, arg, ...)
  h.GOVERNANCE = {
    { "--policy", value = "a value", multi = true, key = "policies", into = gov },
    { "--no-policies", key = "none", into = gov },
    { "--policy-dir", value = "a value", multi = true, key = "dirs", into = gov },
    { "--actor", value = "a value", into = gov.ctx },
    { "--counterparty", value = "a value", into = gov.ctx },
    { "--channel", value = "a value", into = gov.ctx },
    { "--role", "--caller-role", value = "a value", multi = true, key = "roles", into = gov.ctx },
    { "--tenant", value = "a value", into = gov.ctx },
    { "--user", value = "a value", into = gov.ctx },
    -- an operator's maintenance call: the guards subsystems declared are
    -- bypassed, and every write that only this let through is logged in the
    -- nexus with the reason given (kip guards --log)
    { "--maintenance", value = "a reason", apply = function(reason)
      local who = os.getenv("USER") or os.getenv("LOGNAME") or "?"
      gov.call.maintenance = ("%s (kip %s, user %s)"):format(reason, h.command or "?", who)
      io.stderr:write("kip: maintenance mode: guards are bypassed; each such write is logged in the nexus (kip guards --log)\n")
    end },
  }
  return h
end

Host.stderr = function(_, ...) stderr(...) end
function Host:die(fmt, ...)
  stderr("kip: " .. fmt, ...)
  os.exit(2)
end
function Host.isatty(_, fd) return require("kip.host").isatty(fd) end

--- Parse args against `defs` plus the global options (and the governance
--- options when governance is true); dies naming the culprit. opts as
--- kip.cli.options.parse (command defaults to this command's name).
function Host:parse(args, defs, opts)
  opts = opts or {}
  local all = { self.GLOBAL, defs or {} }
  if opts.governance then all[#all + 1] = self.GOVERNANCE end
  opts.command = opts.command or self.command
  local o, positional = options.parse(args, all, opts)
  if not o then self:die("%s", positional) end
  return o, positional
end

--- the nexus path the command works on
function Host:db_path() return self.global.db or default_db() end

--- Open the nexus with the global and governance options. governed: the
--- policies apply (default set unless --policy/--no-policies).
--- fail(fmt, ...) reports a failure to open and exits (default: die).
function Host:open_nexus(governed, fail)
  fail = fail or function(...) self:die(...) end
  local gov = self.gov
  local policies
  if governed and not gov.none then policies = #gov.policies > 0 and gov.policies or { "default" } end
  local path = self:db_path()
  local embedder = require("kip.search.embedder").from_options(self.global.embedder)
  -- a policy that fails to load while the nexus opens is reported once, below;
  -- later (a hot reload) as it happens
  local opening = true
  local nx, err = kip.open { path = path, policies = policies, policy_dirs = gov.dirs, ctx = gov.ctx, embedder = embedder,
    cache_mb = self.global.cache_mb or M.BULK_CACHE_MB[self.command], call = gov.call,
    on_policy_error = function(msg) if not opening then io.stderr:write("kip: ", msg, "\n") end end }
  opening = false
  -- (a URL's password is never shown)
  if not nx then fail("cannot open the nexus %s: %s", (path:gsub("^(%a+://[^/@:]*):[^/@]*@", "%1@")), tostring(err)) end
  -- a policy named on the command line that cannot load: stop here, naming what there is
  local missing = nx.policies and nx.policies:missing()
  if missing then
    nx:close()
    fail("%s (%s)", missing, missing:find("not found in", 1, true)
      and "kip policy list; --policy-dir DIR adds a directory" or "kip policy check FILE shows why")
  end
  if nx.embedder_unreachable then io.stderr:write("kip: warning: ", nx.embedder_unreachable, "\n") end
  if nx:readonly() == "not writable" then
    io.stderr:write("kip: ", (nx.path:gsub("^(%a+://[^/@:]*):[^/@]*@", "%1@")),
      " is not writable (a read-only file, or a standby server): opened read-only (reads work, writes are refused)\n")
  end
  return nx
end

--- import and restore write what an operator brings in: through the
--- policies' content checks (secrets are refused) as the operator, who is
--- not narrowed by scopes (ctx.operator is set here only, never from a
--- request or a header)
function Host:open_operator_nexus()
  self.gov.ctx.operator = true
  self.gov.ctx.channel = self.gov.ctx.channel or "import"
  return self:open_nexus(true)
end

--- the caller the audit names: --user/--actor, else the account running kip
function Host:audit_caller()
  local ctx = self.gov.ctx
  if not ctx.user and not ctx.actor then ctx.actor = os.getenv("USER") or os.getenv("LOGNAME") end
  return ctx
end

--- a file to read (stdin for nil or -); dies when it cannot be opened
function Host:open_input(path)
  local f, err
  if path == nil or path == "-" then f = io.stdin else f, err = io.open(path, "rb") end
  if not f then self:die("cannot read %s: %s", path, err) end
  return f
end

function Host:read_all(path)
  local f = self:open_input(path)
  local s = f:read("a")
  if f ~= io.stdin then f:close() end
  return s
end

--- the parameters of -p name=value options (a list): each value is JSON
--- when it parses, else a string
function Host:params(specs)
  local params = {}
  for _, spec in ipairs(specs or {}) do
    local k, v = spec:match("^([%a_][%w_]*)=(.*)$")
    if not k then self:die("bad parameter '%s' (expected name=value)", spec) end
    local decoded = core.json_decode(v)
    if decoded == nil then decoded = v end
    params[k] = decoded
  end
  return params
end

--- a KIP error on stderr: code, name, line and column, message, hint
function Host.print_error(_, e)
  local where = e.line and string.format(" (line %d, column %d)", e.line, e.column) or ""
  stderr("%s %s%s: %s", e.code or "?", e.name or "", where, e.message or "")
  if e.hint and e.hint ~= "" then stderr("  hint: %s", e.hint) end
end

return M
