-- kip command-line interface, run through the `kip` executable: the global
-- options parsed once (kip.cli.host, kip.cli.options), then the command —
-- the core's (kip.cli.commands, kip.cli.data), a subsystem's or an
-- operator's (kip.subsystems) — with its own arguments. This file names no
-- subsystem: each registers its commands (docs/extending.md "CLI commands").
local kip = require "kip"
local host = require "kip.cli.host"
local subsystems = require "kip.subsystems"

local argv = { ... }
local cli = host.new()

-- the core's commands, in the order kip --help lists them (the subsystems'
-- and the operator's come after the first group)
local CORE = { (require "kip.cli.commands"), (require "kip.cli.data") }
local FIRST = { "call", "exec", "mcp", "policy", "import", "export", "dump", "restore", "backup" }
local LAST = { "guards", "reindex", "repl", "parse", "explain", "run", "version" }

local HEAD = [[
kip — a governed memory brain for LLM agents (KIP v1.0-RC11)

usage: kip [--db PATH] <command> [options]      (--db may also follow the command)

commands:
]]

local OPTIONS = [[

options:
  --db PATH    the nexus file (default: $KIP_DB, else $XDG_DATA_HOME/kip/nexus.db), or a
               nexus on a PostgreSQL server: postgresql://USER@HOST:PORT/DB?nexus=NAME
               (add &read=postgresql://USER@STANDBY:PORT/DB: readonly calls on a hot standby)
  --embedder local|none|URL|FILE.lua|FILE.kvec
               what makes vectors for SEARCH semantic/hybrid (default: $KIP_EMBEDDER, else
               the local word vectors when installed: $KIP_EMBEDDINGS or the built-in
               .kvec file); a URL is an OpenAI-compatible /v1/embeddings endpoint, with
               --embedder-model M ($KIP_EMBEDDER_MODEL), --embedder-key-env VAR
               ($KIP_EMBEDDER_KEY_ENV: the variable holding its key) and --embedder-dim N
               ($KIP_EMBEDDER_DIM: its dimension, so the nexus opens while the service is
               down; the nexus also remembers the dimension of the model it holds).
               A nexus keeps the vectors of one model: switching to another is explicit
               (kip reindex --vectors --switch-model)
  --cache-mb N the connection's page cache in MiB (default 32; 256 for import, restore
               and reindex, where a larger cache saves re-reading pages of the indexes)
  --extensions DIR
               an operator's extension folder (repeatable; also $KIP_EXTENSIONS,
               colon-separated): commands/, mcp/, arg_steps/, sleep_phases/, handlers/,
               connectors/ and policies/ of Lua files, loaded sandboxed and reloaded
               when they change (docs/extending.md); before the command name for its
               commands
  -h, --help   help (also `kip <command> --help`)
  --version    print the version

environment: KIP_DB, KIP_EMBEDDER, KIP_EMBEDDER_MODEL, KIP_EMBEDDER_KEY_ENV,
  KIP_EMBEDDER_DIM, KIP_EMBEDDINGS, KIP_EXTENSIONS (above), KIP_POLICY_PATH (below);
  KIP_ARG_ROUTE_URL, KIP_ARG_ROUTE_MODEL, KIP_ARG_ROUTE_KEY_ENV, KIP_ARG_ROUTE_TIMEOUT_MS
  (an OpenAI-compatible chat-completions endpoint as the ARG route hook, docs/arg.md);
  KIP_UI_VENDOR (where kip ui finds its drawing library, docs/ui.md);
  XDG_DATA_HOME (the default nexus), XDG_STATE_HOME (the REPL's history); KIP_STATE_DIR
  (where a nexus on a PostgreSQL server keeps this host's policy decision log, docs/postgresql.md)

governance (call, exec, mcp, repl, import and the subsystems' commands): requests pass the
policies' pre- and post-checks.
  --policy NAME        use policy NAME (repeatable; default: default)
  --no-policies        run without policies
  --policy-dir DIR     search DIR for policy files first (repeatable; also
                       $KIP_POLICY_PATH, colon-separated); built-in: <home>/policies
  --actor ID, --counterparty NAME|C:<id>, --channel NAME, --role ROLE (repeatable),
  --tenant T, --user ID
                       the authenticated caller identity policies and the ARG loop see (ctx)
  --maintenance REASON an operator's maintenance call: guards are bypassed and every
                       write only that let through is logged in the nexus (kip guards)
]]

-- every command: name -> entry (a built-in name wins over an operator's)
local function all_commands()
  local out = {}
  for _, group in ipairs(CORE) do for name, c in pairs(group) do c.name = name; out[name] = c end end
  for name, c in pairs(subsystems.commands()) do
    if out[name] then
      if c.subsystem == "operator" then
        io.stderr:write(("kip: the extension command %s is shadowed by the built-in one\n"):format(name))
      end
    else
      out[name] = c
    end
  end
  return out
end

-- one command in the two-column list of kip --help
local function help_entry(c)
  local usage, summary = c.usage or c.name, c.summary or ""
  local lines = {}
  for l in (summary .. "\n"):gmatch("([^\n]*)\n") do lines[#lines + 1] = l end
  local out = {}
  local first = usage:match("^[^\n]*")
  if #first <= 30 and not usage:find("\n") then
    out[1] = ("  %-31s%s"):format(first, lines[1] or "")
  else
    out[1] = "  " .. usage:gsub("\n", "\n  ")
    out[2] = (" "):rep(33) .. (lines[1] or "")
  end
  for i = 2, #lines do out[#out + 1] = (" "):rep(33) .. lines[i] end
  return table.concat(out, "\n") .. "\n"
end

local function main_help(commands)
  local parts, listed = { HEAD }, {}
  local function add(name)
    if commands[name] and not listed[name] then
      listed[name] = true
      parts[#parts + 1] = help_entry(commands[name])
    end
  end
  for _, n in ipairs(FIRST) do add(n) end
  local later = {}
  for _, n in ipairs(LAST) do later[n] = true end
  local rest = {}
  for n in pairs(commands) do if not listed[n] and not later[n] then rest[#rest + 1] = n end end
  -- the subsystems' in their registry order, then the operator's by name
  local order = {}
  for i, s in ipairs(subsystems.list()) do order[s.name] = i end
  table.sort(rest, function(a, b)
    local oa, ob = order[commands[a].subsystem] or math.huge, order[commands[b].subsystem] or math.huge
    if oa ~= ob then return oa < ob end
    return a < b
  end)
  for _, n in ipairs(rest) do add(n) end
  for _, n in ipairs(LAST) do add(n) end
  parts[#parts + 1] = OPTIONS
  return table.concat(parts)
end

-- the global options before the command (those after it are parsed with the command's own)
local g, pos = cli:parse(argv, { { "--version" } }, { stop_at_positional = true })
local commands = all_commands()
if g.help then io.write(main_help(commands)) return 0 end
if g.version then print("kip " .. kip.version) return 0 end
local name = pos[1]
if not name then
  if not (cli:isatty(0) and cli:isatty(1)) then
    io.write(main_help(commands))
    return 0
  end
  name = "repl"
end
local c = commands[name]
if not c then
  cli:stderr("kip: unknown command '%s'", name)
  io.stderr:write(main_help(commands))
  return 2
end
local args = { table.unpack(pos, 2) }
-- kip CMD --help (for a command that takes a script's arguments, only
-- before the script)
for _, a in ipairs(args) do
  if a == "--" or (c.raw and not require("kip.cli.options").is_option(a)) then break end
  if a == "-h" or a == "--help" then
    io.write(c.help or help_entry(c))
    return 0
  end
end
cli.command = name
return c.run(cli, args)
