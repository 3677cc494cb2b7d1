-- kip command-line interface. Run through the `kip` executable.
local kip = require "kip"
local core = kip.core

local VERSION = kip.version
local args = { ... }

local function stderr(...) io.stderr:write(string.format(...), "\n") end
local function die(fmt, ...) stderr("kip: " .. fmt, ...) os.exit(2) end

local HELP = {
  main = [[
kip — a governed memory brain for LLM agents (KIP v1.0-RC11)

usage: kip [--db PATH] <command> [options]

commands:
  call [--readonly] [FILE|-]     request JSON in, response JSON out (one line)
  exec [--readonly] [--json] [-p name=value]... 'KIP COMMAND'
                                 run one command, human-readable output
  mcp [--readonly] [governance options]
                                 Model Context Protocol server on stdio
  policy list | check FILE | test FILE REQUEST.json
                                 inspect governance policies
  import [--from N] [--batch-kb K] [-q] FILE.kip...
                                 apply capsules in batched transactions, with progress
  export [--domain NAME | --where 'PATTERN binding ?x'] [--page N] [-o FILE]
                                 write the memory (or a part) as capsules
  backup FILE                    online copy of the nexus file (writers keep going)
  repl [--readonly] [governance options]
                                 interactive shell (also: kip with no command on a terminal);
                                 reads commands from stdin when it is not a terminal
  parse 'KIP COMMAND'            print the AST as JSON
  explain 'KQL'                  print the generated SQL and SQLite's plan
  run SCRIPT.lua [args...]       run a Lua script with `kip` preloaded
  version                        print the version

options:
  --db PATH    the nexus file (default: $KIP_DB, else $XDG_DATA_HOME/kip/nexus.db)
  -h, --help   help (also `kip <command> --help`)

governance (call, exec, mcp, repl): requests pass the policies' pre- and post-checks.
  --policy NAME        use policy NAME (repeatable; default: default)
  --no-policies        run without policies
  --policy-dir DIR     search DIR for policy files first (repeatable; also
                       $KIP_POLICY_PATH, colon-separated); built-in: <home>/policies
  --actor ID, --counterparty NAME|C:<id>, --channel NAME, --role ROLE (repeatable)
                       the caller identity policies see (ctx)
]],
  call = [[
usage: kip [--db PATH] call [--readonly] [governance options] [FILE|-]

Reads one execute_kip request object ({"command": ...} or {"commands": [...]},
optional "parameters" and "dry_run") from FILE or stdin and prints the
response object on one line. --readonly is execute_kip_readonly. Exits 0
whenever a response was produced (KIP errors are part of the response).
]],
  exec = [[
usage: kip [--db PATH] exec [--readonly] [--json] [--dry-run] [-p name=value]... [governance options] 'COMMAND'

Runs one KIP command. -p binds a :name placeholder; the value is parsed as
JSON when it is valid JSON (numbers, true, [..]) and is a string otherwise.
--json prints the raw response. Exit status 1 when the command failed.
]],
  import = [[
usage: kip [--db PATH] import [--from N] [--batch-kb K] [-q] FILE.kip...

Applies capsule files. A file is split into its statements; statements are
applied in batches (about K KiB of text, default 200) of one transaction
each. A batch that fails is replayed statement by statement, so every bad
statement is reported as FILE:LINE and the good ones are applied. Importing
again is idempotent (UPSERT matches what exists); --from N starts at
statement N to resume a long import. On a terminal a progress line shows the
share done, statements, elements written, rate and ETA. Governance policies
do not apply (this is an operator tool). Exit status 1 when a statement failed.
]],
  export = [[
usage: kip [--db PATH] export [--domain NAME | --where 'PATTERN'] [--page N] [-o FILE]

Writes capsules (UPSERT statements that re-import anywhere) to stdout or FILE,
paged with EXPORT ... LIMIT N CURSOR (default 5000 elements per page):
  --domain NAME     the domain's members, the links among them, their
                    memberships and the Domain node (RC11 §5.3), preceded
                    by the type and predicate definitions they use
  --where 'PATTERN' a WHERE pattern binding ?x, e.g. '?x {type: "Person"}'
  (neither)         every concept (definitions first) and every link
]],
  repl = [[
usage: kip [--db PATH] repl [--readonly] [governance options]

An interactive KIP shell: line editing and history (~/.local/state/kip/history),
one-line commands run on Enter, longer ones at a blank line or a trailing ";",
Tab completion of keywords,
types and predicates, FIND results as tables, errors with a caret.
Inside: :help, :params {json}, :readonly on|off, :json, :explain KQL,
:dry on|off, :quit. With stdin not a terminal it runs the commands it reads.
]],
  backup = "usage: kip [--db PATH] backup FILE\n\nCopies the nexus to FILE with SQLite's online backup API; other connections may keep writing.\n",
  parse = "usage: kip parse 'COMMAND' [--params JSON]\n\nPrints the AST of a command as JSON (no database needed).\n",
  explain = "usage: kip [--db PATH] explain 'KQL' [-p name=value]...\n\nPrints the SQL the compiler generates and SQLite's query plan.\n",
  run = "usage: kip [--db PATH] run SCRIPT.lua [args...]\n\nRuns a Lua 5.4 script; `kip` is preloaded and KIP_DB holds the --db path.\n",
  mcp = [[
usage: kip [--db PATH] mcp [--readonly] [governance options]

Serves the memory to an MCP client (Claude Desktop, Claude Code, Cursor, ...)
over stdio: JSON-RPC 2.0, one message per line. Tools execute_kip and
execute_kip_readonly (only the latter with --readonly), resources
kip://syntax (the KIP syntax card) and kip://primer (DESCRIBE PRIMER), and
the prompt kip_grounding. Requests pass the governance policies with
channel "mcp". Logs go to stderr; the server exits when stdin closes.
Client configuration:
  { "mcpServers": { "kip": { "command": "kip", "args": ["mcp", "--db", "/path/memory.db"] } } }
]],
  policy = [[
usage: kip policy list [--policy-dir DIR]...
       kip policy check FILE.lua
       kip policy test FILE.lua REQUEST.json [--counterparty NAME] [--actor ID] [--channel NAME]

list   the policy files found (policy dirs, $KIP_POLICY_PATH, built-in)
check  load FILE in the policy sandbox and report errors (exit 1 on error)
test   run FILE's pre_check on every command of an execute_kip request and
       print each decision (nothing is executed)
]],
}

local function default_db()
  local env = os.getenv("KIP_DB")
  if env and env ~= "" then return env end
  local base = os.getenv("XDG_DATA_HOME")
  if not base or base == "" then base = (os.getenv("HOME") or ".") .. "/.local/share" end
  local dir = base .. "/kip"
  os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'")
  return dir .. "/nexus.db"
end

-- global options
local db_path
local i = 1
while args[i] do
  local a = args[i]
  if a == "--db" then
    db_path = args[i + 1] or die("--db needs a path")
    i = i + 2
  elseif a:match("^%-%-db=") then
    db_path = a:sub(6)
    i = i + 1
  elseif a == "-h" or a == "--help" then
    io.write(HELP.main)
    return 0
  elseif a == "--version" then
    print("kip " .. VERSION)
    return 0
  else
    break
  end
end
local cmd = args[i]
local rest = {}
for j = i + 1, #args do rest[#rest + 1] = args[j] end

if not cmd then
  local ok, host = pcall(require, "kip.host")
  if not (ok and host.isatty(0) and host.isatty(1)) then
    io.write(HELP.main)
    return 0
  end
  cmd = "repl"
end
for _, a in ipairs(rest) do
  if (a == "-h" or a == "--help") and HELP[cmd] then
    io.write(HELP[cmd])
    return 0
  end
end

-- governance options shared by call and exec; returns true when rest[j] was one
local gov = { policies = {}, dirs = {}, none = false, ctx = {} }
local function governance_option(j)
  local a, v = rest[j], rest[j + 1]
  local function need() return v or die("%s needs a value", a) end
  if a == "--policy" then gov.policies[#gov.policies + 1] = need() return 2
  elseif a == "--no-policies" then gov.none = true return 1
  elseif a == "--policy-dir" then gov.dirs[#gov.dirs + 1] = need() return 2
  elseif a == "--actor" then gov.ctx.actor = need() return 2
  elseif a == "--counterparty" then gov.ctx.counterparty = need() return 2
  elseif a == "--channel" then gov.ctx.channel = need() return 2
  elseif a == "--role" then gov.ctx.roles = gov.ctx.roles or {}; gov.ctx.roles[#gov.ctx.roles + 1] = need() return 2
  end
  return 0
end

local function open_nexus(governed)
  local policies
  if governed and not gov.none then policies = #gov.policies > 0 and gov.policies or { "default" } end
  local nx, err = kip.open { path = db_path or default_db(), policies = policies, policy_dirs = gov.dirs, ctx = gov.ctx }
  if not nx then die("cannot open nexus: %s", err) end
  return nx
end

local function read_all(path)
  local f, err
  if path == nil or path == "-" then f = io.stdin else f, err = io.open(path, "rb") end
  if not f then die("cannot read %s: %s", path, err) end
  local s = f:read("a")
  if f ~= io.stdin then f:close() end
  return s
end

local function parse_param(spec, params)
  local k, v = spec:match("^([%a_][%w_]*)=(.*)$")
  if not k then die("bad parameter '%s' (expected name=value)", spec) end
  local decoded = core.json_decode(v)
  if decoded == nil then decoded = v end
  params[k] = decoded
end

local function print_error(e)
  local where = e.line and string.format(" (line %d, column %d)", e.line, e.column) or ""
  stderr("%s %s%s: %s", e.code or "?", e.name or "", where, e.message or "")
  if e.hint and e.hint ~= "" then stderr("  hint: %s", e.hint) end
end

local commands = {}

function commands.version() print("kip " .. VERSION) return 0 end

function commands.call()
  local readonly, file = false, nil
  local j = 1
  while rest[j] do
    local a = rest[j]
    local g = governance_option(j)
    if g > 0 then j = j + g - 1
    elseif a == "--readonly" then readonly = true
    elseif a:sub(1, 1) == "-" and a ~= "-" then die("call: unknown option %s", a)
    else file = a end
    j = j + 1
  end
  local req = read_all(file)
  local nx = open_nexus(true)
  io.write(nx:call_json(req, { readonly = readonly }), "\n")
  nx:close()
  return 0
end

function commands.exec()
  local readonly, json, dry, params, text = false, false, false, {}, nil
  local j = 1
  while rest[j] do
    local a = rest[j]
    local g = governance_option(j)
    if g > 0 then j = j + g - 1
    elseif a == "--readonly" then readonly = true
    elseif a == "--json" then json = true
    elseif a == "--dry-run" then dry = true
    elseif a == "-p" then parse_param(rest[j + 1] or die("-p needs name=value"), params) j = j + 1
    elseif a:sub(1, 1) == "-" and #a > 1 then die("exec: unknown option %s", a)
    else text = a end
    j = j + 1
  end
  if not text then die("exec needs a command (see kip exec --help)") end
  local nx = open_nexus(true)
  local req = { command = text }
  if next(params) then req.parameters = params end
  if dry then req.dry_run = true end
  local out = nx:call_json(core.json_encode(req), { readonly = readonly })
  nx:close()
  if json then io.write(out, "\n") return 0 end
  local resp = core.json_decode(out)
  if resp.error then print_error(resp.error) return 1 end
  io.write(core.json_encode(resp.result, true), "\n")
  if resp.next_cursor then io.write("next_cursor: ", resp.next_cursor, "\n") end
  for _, w in ipairs(resp.warnings or {}) do io.stderr:write("warning: ", w, "\n") end
  return 0
end

-- progress on a terminal: "\r<label> 45% 12000/26000 statements 3100/s ETA 5s"
local function progress_reporter(total_bytes)
  local host_ok, host = pcall(require, "kip.host")
  local tty = host_ok and host.isatty(2)
  local t0, last = os.time(), -1
  return tty, function(done_bytes, statements, elements, final)
    if not tty then return end
    local now = os.time()
    if not final and now == last then return end
    last = now
    local dt = math.max(now - t0, 1)
    local pct = total_bytes > 0 and done_bytes * 100 // total_bytes or 100
    local eta = done_bytes > 0 and (total_bytes - done_bytes) * dt // done_bytes or 0
    io.stderr:write(("\r  %3d%%  %d statements  %d elements  %d elements/s  ETA %ds   "):format(
      pct, statements, elements, elements // dt, eta))
    if final then io.stderr:write("\n") end
  end
end

function commands.import()
  local capsule = require "kip.capsule"
  local files, from, batch_bytes, quiet = {}, 1, 200 * 1024, false
  local j = 1
  while rest[j] do
    local a = rest[j]
    if a == "--from" then from = tonumber(rest[j + 1]) or die("--from needs a statement number") j = j + 1
    elseif a == "--batch-kb" then batch_bytes = (tonumber(rest[j + 1]) or die("--batch-kb needs a number")) * 1024 j = j + 1
    elseif a == "--quiet" or a == "-q" then quiet = true
    elseif a:sub(1, 1) == "-" then die("import: unknown option %s", a)
    else files[#files + 1] = a end
    j = j + 1
  end
  if #files == 0 then die("import needs at least one .kip file") end
  local nx = open_nexus()
  local failed = 0
  local limit = { max_command_bytes = 256 * 1024 * 1024 }
  for _, file in ipairs(files) do
    local text = read_all(file)
    local stmts = capsule.split(text)
    local tty, report = progress_reporter(#text)
    if quiet then tty, report = false, function() end end
    local applied, elements, errors = 0, 0, 0
    local function run(list)
      local parts = {}
      for k, st in ipairs(list) do parts[k] = st.text end
      local resp = core.json_decode(nx:call_json(core.json_encode { command = table.concat(parts, "\n") }, limit))
      return resp
    end
    local function count(r)
      return #r.upsert_concept_nodes + #r.upsert_proposition_links
    end
    -- batches of whole statements, one transaction each; a failing batch is
    -- replayed statement by statement so every error is reported with file:line
    local k = from
    while k <= #stmts do
      local batch, size = {}, 0
      while k <= #stmts and (#batch == 0 or size + #stmts[k].text <= batch_bytes) do
        batch[#batch + 1] = stmts[k]
        size = size + #stmts[k].text
        k = k + 1
      end
      local resp = run(batch)
      if resp.error then
        for _, st in ipairs(batch) do
          local r = run { st }
          if r.error then
            errors = errors + 1
            local e = r.error
            if tty then io.stderr:write("\r\27[K") end
            stderr("%s:%d: %s %s", file, st.line + (e.line or 1) - 1, e.code, e.message)
            if e.hint and e.hint ~= "" then stderr("  hint: %s", e.hint) end
          else
            applied, elements = applied + 1, elements + count(r.result)
          end
        end
      else
        applied, elements = applied + #batch, elements + count(resp.result)
      end
      report(stmts[k] and stmts[k].offset - 1 or #text, applied, elements, false)
    end
    report(#text, applied, elements, true)
    stderr("%s: %d statements applied, %d failed, %d elements written (statements %d..%d of %d)", file, applied,
      errors, elements, math.min(from, #stmts), #stmts, #stmts)
    if errors > 0 then failed = failed + 1 end
  end
  nx:close()
  return failed > 0 and 1 or 0
end

function commands.export()
  local where, domain, page, out = nil, nil, 5000, nil
  local j = 1
  while rest[j] do
    local a = rest[j]
    if a == "--where" then where = rest[j + 1] or die("--where needs a pattern binding ?x") j = j + 1
    elseif a == "--domain" then domain = rest[j + 1] or die("--domain needs a name") j = j + 1
    elseif a == "--page" then page = tonumber(rest[j + 1]) or die("--page needs a number") j = j + 1
    elseif a == "-o" then out = rest[j + 1] or die("-o needs a file") j = j + 1
    else die("export: unknown option %s", a) end
    j = j + 1
  end
  local nx = open_nexus()
  local sink = out and (io.open(out, "w") or die("cannot write %s", out)) or io.stdout
  local total_c, total_p = 0, 0
  local function export(pattern, params)
    local cursor
    repeat
      local p = { c = cursor or core.null }
      for k, v in pairs(params or {}) do p[k] = v end
      local r = nx:execute("EXPORT ?x WHERE { " .. pattern .. " } LIMIT " .. page .. " CURSOR :c", p)
      if r.error then print_error(r.error) os.exit(1) end
      if r.result.capsule ~= "" then
        sink:write(("// page: %d concepts, %d propositions\n"):format(r.result.concepts, r.result.propositions))
        sink:write(r.result.capsule, "\n")
      end
      total_c, total_p = total_c + r.result.concepts, total_p + r.result.propositions
      cursor = r.next_cursor
    until not cursor
  end
  sink:write(("// kipnexus export %s\n"):format(os.date("!%Y-%m-%dT%H:%M:%SZ")))
  if where then
    export(where)
  elseif domain then
    -- the definitions the domain's content uses first, so the capsule imports
    -- into a fresh nexus (RC11 §5.3: schema is not implied)
    local D = '{type: "Domain", name: :d}'
    local function distinct(cmd)
      local r = nx:execute(cmd, { d = domain })
      if r.error then print_error(r.error) os.exit(1) end
      local seen, out = {}, {}
      for _, v in ipairs(r.result) do
        if not seen[v] then seen[v] = true; out[#out + 1] = v end
      end
      return out
    end
    for _, t in ipairs(distinct('FIND(?m.type) WHERE { (?m, "belongs_to_domain", ' .. D .. ') }')) do
      export('?x {type: "$ConceptType", name: :t}', { t = t })
    end
    local preds = distinct('FIND(?p) WHERE { (?s, "belongs_to_domain", ' .. D .. ') (?o, "belongs_to_domain", '
      .. D .. ') (?s, ?p, ?o) }')
    for _, p in ipairs(preds) do export('?x {type: "$PropositionType", name: :p}', { p = p }) end
    -- RC11 §5.3: members, the links among them, their memberships, the domain node
    export([[(?x, "belongs_to_domain", {type: "Domain", name: :d})
      UNION { (?s, "belongs_to_domain", {type: "Domain", name: :d}) (?o, "belongs_to_domain", {type: "Domain", name: :d}) ?x (?s, ?p, ?o) }
      UNION { ?x (?m, "belongs_to_domain", {type: "Domain", name: :d}) }
      UNION { ?x {type: "Domain", name: :d} }]], { d = domain })
  else
    -- everything: the concepts of each type (definitions first), then all links
    local types, cursor = {}, nil
    repeat
      local r = nx:execute("DESCRIBE CONCEPT TYPES LIMIT 500 CURSOR :c", { c = cursor or core.null })
      if r.error then print_error(r.error) os.exit(1) end
      for _, t in ipairs(r.result) do types[#types + 1] = t end
      cursor = r.next_cursor
    until not cursor
    table.sort(types, function(a, b) return (a:sub(1, 1) == "$" and 0 or 1) .. a < (b:sub(1, 1) == "$" and 0 or 1) .. b end)
    for _, t in ipairs(types) do export("?x {type: :t}", { t = t }) end
    export("?x (?s, ?p, ?o)")
  end
  if out then sink:close() end
  stderr("exported %d concepts, %d propositions", total_c, total_p)
  nx:close()
  return 0
end

function commands.backup()
  local file = rest[1] or die("backup needs a destination file")
  local nx = open_nexus()
  local host_ok, host = pcall(require, "kip.host")
  local tty = host_ok and host.isatty(2)
  local ok, err = nx.handle:backup(file, function(done, total)
    if tty then io.stderr:write(("\r  %d/%d pages"):format(done, total)) end
  end)
  if tty then io.stderr:write("\n") end
  nx:close()
  if not ok then stderr("kip: %s", err) return 1 end
  stderr("backed up to %s", file)
  return 0
end

function commands.parse()
  local text, params
  local j = 1
  while rest[j] do
    if rest[j] == "--params" then params = rest[j + 1] j = j + 1 else text = rest[j] end
    j = j + 1
  end
  if not text then die("parse needs a command") end
  local out = core.parse(text, params)
  local r = core.json_decode(out)
  if r.error then print_error(r.error) io.write(out, "\n") return 1 end
  io.write(core.json_encode(r.result, true), "\n")
  return 0
end

function commands.explain()
  local text, params = nil, {}
  local j = 1
  while rest[j] do
    if rest[j] == "-p" then parse_param(rest[j + 1] or die("-p needs name=value"), params) j = j + 1
    else text = rest[j] end
    j = j + 1
  end
  if not text then die("explain needs a KQL command") end
  local nx = open_nexus()
  local r, err = nx:explain(text, next(params) and params or nil)
  nx:close()
  if not r then print_error(err) return 1 end
  io.write(r.sql, "\n\nparameters: ", core.json_encode(r.parameters), "\n\nplan:\n")
  for _, p in ipairs(r.plan) do io.write("  ", p.detail, "\n") end
  return 0
end

function commands.run()
  local script = rest[1] or die("run needs a script")
  local chunk, err = loadfile(script)
  if not chunk then die("%s", err) end
  if db_path then KIP_DB = db_path end
  local sargs = {}
  for j = 2, #rest do sargs[#sargs + 1] = rest[j] end
  arg = { [0] = script, table.unpack(sargs) }
  local ok, res = xpcall(chunk, debug.traceback, table.unpack(sargs))
  if not ok then stderr("%s", res) return 1 end
  return math.type(res) == "integer" and res or 0
end

function commands.mcp()
  local readonly = false
  local j = 1
  while rest[j] do
    local g = governance_option(j)
    if g > 0 then j = j + g
    elseif rest[j] == "--readonly" then readonly = true; j = j + 1
    else die("mcp: unknown option %s", rest[j]) end
  end
  gov.ctx.channel = gov.ctx.channel or "mcp"
  local nx = open_nexus(true)
  local mcp = require "kip.mcp"
  mcp.server(nx, { readonly = readonly }):serve()
  nx:close()
  return 0
end

function commands.repl()
  local readonly = false
  local j = 1
  while rest[j] do
    local g = governance_option(j)
    if g > 0 then j = j + g
    elseif rest[j] == "--readonly" then readonly = true; j = j + 1
    else die("repl: unknown option %s", rest[j]) end
  end
  local nx = open_nexus(true)
  local state = os.getenv("XDG_STATE_HOME")
  if not state or state == "" then state = (os.getenv("HOME") or ".") .. "/.local/state" end
  os.execute("mkdir -p '" .. (state .. "/kip"):gsub("'", "'\\''") .. "'")
  require("kip.repl").new(nx, { readonly = readonly, history = state .. "/kip/history" }):loop()
  nx:close()
  return 0
end

function commands.policy()
  local policy = require "kip.policy"
  local sub = rest[1]
  if sub == "list" then
    local j = 2
    while rest[j] do
      local g = governance_option(j)
      if g == 0 then die("policy list: unknown option %s", rest[j]) end
      j = j + g
    end
    for _, dir in ipairs(kip.policy_dirs(gov.dirs)) do
      local ls = io.popen("ls -1 '" .. dir:gsub("'", "'\\''") .. "' 2>/dev/null")
      for f in ls:lines() do
        local name = f:match("^(.+)%.lua$")
        if name then
          local p, err = policy.load_file(dir .. "/" .. f)
          if p then print(("%-16s priority %-4d %s"):format(p.name, p.priority, dir .. "/" .. f))
          else print(("%-16s ERROR         %s: %s"):format(name, dir .. "/" .. f, err)) end
        end
      end
      ls:close()
    end
    return 0
  elseif sub == "check" then
    local file = rest[2] or die("policy check needs a file")
    local p, err = policy.load_file(file)
    if not p then stderr("%s", err) return 1 end
    print(("%s: ok (policy '%s', priority %d%s%s)"):format(file, p.name, p.priority,
      p.pre_check and ", pre_check" or "", p.post_check and ", post_check" or ""))
    return 0
  elseif sub == "test" then
    local file, reqfile = rest[2] or die("policy test needs FILE.lua REQUEST.json"), rest[3] or die("policy test needs REQUEST.json")
    local j = 4
    while rest[j] do
      local g = governance_option(j)
      if g == 0 then die("policy test: unknown option %s", rest[j]) end
      j = j + g
    end
    local p, err = policy.load_file(file)
    if not p then stderr("%s", err) return 1 end
    local req = core.json_decode(read_all(reqfile))
    if type(req) ~= "table" then die("%s is not a JSON request object", reqfile) end
    local cmds = req.commands or { req.command }
    for n, c in ipairs(cmds) do
      local text = type(c) == "table" and c.command or c
      local params = type(c) == "table" and c.parameters or req.parameters
      local d = core.json_decode(core.describe(text, params and core.json_encode(params) or nil))
      local out
      if d.error then out = { command = n, error = d.error }
      else
        local r = d.result
        r.command, r.readonly = text, false
        local ok, dec = policy.call(p, "pre_check", nil, r, policy.copy(gov.ctx))
        out = { command = n, kind = r.kind, decision = ok and (dec or { state = "ALLOW" }) or { error = dec } }
      end
      print(core.json_encode(out, true))
    end
    return 0
  end
  die("policy: expected list, check or test (see kip policy --help)")
end

local fn = commands[cmd]
if not fn then
  stderr("kip: unknown command '%s'", cmd)
  io.stderr:write(HELP.main)
  return 2
end
return fn()
