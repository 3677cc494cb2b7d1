-- kip command-line interface. Run through the `kip` executable.
local kip = require "kip"
local core = kip.core

local VERSION = kip.version
local args = { ... }

local function stderr(...) io.stderr:write(string.format(...), "\n") end
-- the kip executable preloads kip.host (readline, isatty)
local function isatty(fd) return require("kip.host").isatty(fd) end
local function die(fmt, ...) stderr("kip: " .. fmt, ...) os.exit(2) end

local HELP = {
  arg = require("kip.arg.cli").HELP,
  main = [[
kip — a governed memory brain for LLM agents (KIP v1.0-RC11)

usage: kip [--db PATH] <command> [options]      (--db may also follow the command)

commands:
  call [--readonly] [FILE|-]     request JSON in, response JSON out (one line)
  exec [--readonly] [--json] [-p name=value]... 'KIP COMMAND'
                                 run one command, human-readable output
  mcp [--readonly] [--no-reinforce] [governance options]
                                 Model Context Protocol server on stdio
  policy list | check FILE | test FILE REQUEST.json
                                 inspect governance policies
  import [--from N] [--batch-kb K] [-q] [governance options] FILE.kip...
                                 apply capsules in batched transactions, with progress
                                 (the policies' content checks apply: secrets are refused)
  export [--domain NAME | --where 'PATTERN binding ?x'] [--page N] [-o FILE]
                                 write the memory (or a part) as capsules
  dump [selection] [-o FILE.jsonl]   logical backup as JSON lines (one capsule page per line)
  restore FILE.jsonl             apply a dump
  backup FILE                    online copy of the nexus file (writers keep going)
  mind init|anchor|policy|record|distill|link|unlink|gate|promote|raise|demote|retire|restore|update|
       publish-anchor|import|context|events
                                 the mind model: evidence, gated knowledge, context (docs/mind.md)
  arg init|profile|ask|eval|replay|log|feedback|offline|candidates|review|publish|versions|rollback|metrics
                                 the ARG loops: routed, governed requests with explicit
                                 outcomes, episodes and replay; versioned ontology changes (docs/arg.md)
  guards [--log N] [--json]      the guards subsystems declared (what the core refuses to
                                 write, and to whom), and the writes maintenance calls made
  sleep [--now ISO] [--dry-run] [--phase P]... [--if-needed | --check] [--json] [-q]
                                 run a $system maintenance (sleep) cycle (docs/sleep.md)
  reindex [--vectors] [--all] [--batch N] [-q]
                                 bring the SEARCH index up to date; --vectors builds the
                                 vectors of semantic/hybrid SEARCH (resumable, with progress)
  repl [--readonly] [governance options]
                                 interactive shell (also: kip with no command on a terminal);
                                 reads commands from stdin when it is not a terminal
  parse 'KIP COMMAND'            print the AST as JSON
  explain 'KQL'                  print the generated SQL and SQLite's plan
  run SCRIPT.lua [args...]       run a Lua script with `kip` preloaded
  version                        print the version

options:
  --db PATH    the nexus file (default: $KIP_DB, else $XDG_DATA_HOME/kip/nexus.db)
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
  -h, --help   help (also `kip <command> --help`)
  --version    print the version

environment: KIP_DB, KIP_EMBEDDER, KIP_EMBEDDER_MODEL, KIP_EMBEDDER_KEY_ENV,
  KIP_EMBEDDER_DIM, KIP_EMBEDDINGS (above), KIP_POLICY_PATH (below);
  XDG_DATA_HOME (the default nexus), XDG_STATE_HOME (the REPL's history)

governance (call, exec, mcp, repl): requests pass the policies' pre- and post-checks.
  --policy NAME        use policy NAME (repeatable; default: default)
  --no-policies        run without policies
  --policy-dir DIR     search DIR for policy files first (repeatable; also
                       $KIP_POLICY_PATH, colon-separated); built-in: <home>/policies
  --actor ID, --counterparty NAME|C:<id>, --channel NAME, --role ROLE (repeatable),
  --tenant T, --user ID
                       the authenticated caller identity policies and the ARG loop see (ctx)
  --maintenance REASON an operator's maintenance call: guards are bypassed and every
                       write only that let through is logged in the nexus (kip guards)
]],
  sleep = [[
usage: kip [--db PATH] sleep [--now ISO] [--dry-run] [--phase P]... [--if-needed | --check] [--measure] [--hooks FILE.lua]
                             [--log FILE.jsonl] [--json] [-q] [governance options]

Runs one $system sleep cycle: SleepTasks, the Unsorted inbox, orphans, stale
Events, duplicates, contradictions, memory-strength decay, Domain health, TTL
reclamation, then a SleepCycle report and $system's maintenance_log. Every
write is KIP issued by actor $system through the policies. Deterministic: no
judgment hook is configured from the command line, so what no rule decides is
flagged in the report, never guessed (--hooks plugs judgment in). A second
run right after writes nothing but the report. An interrupted cycle resumes
with its own clock when run again.

  --now ISO      the cycle's clock (default: now), e.g. 2026-11-20T00:00:00Z
  --dry-run      list the KIP commands the cycle would send; change nothing
  --phase P      run only these phases (repeatable): assess tasks unsorted orphans
                 events duplicates contradictions decay domains ttl finalize
  --if-needed    run only when a health threshold is crossed (Unsorted > 20,
                 orphans > 10, stale Events > 30, pending SleepTasks >= 10);
                 when nothing changed since the last cycle its record decides,
                 else the store counts, cheapest first, until one is crossed
  --check        say whether a cycle is needed and why (the metrics with
                 --json), change nothing; exit 0 needed, 3 not needed. When the
                 memory changed since the last cycle the store counts the four
                 trigger metrics; --measure reads the graph for all of them
  --hooks FILE   a Lua file returning judgment hooks {classify=, consolidate=,
                 duplicates=, contradiction=, domain=, task=} (docs/sleep.md)
  --log FILE     write every decision (phase, reason, KIP command, parameters)
                 and every flagged item as JSON lines, to audit or replay the cycle

A nexus whose memory did not change since the last cycle, with nothing due
(no Event turned stale, nothing expired), skips the phases: the cycle
records its decay epoch and the last cycle's findings, which still stand.
The terminal report groups the flagged items by kind (at most 60 lines);
--json, --log and the SleepCycle record hold every item.
  --json         print the report as JSON
  -q, --quiet    no per-phase progress
]],
  mind = [[
usage: kip [--db PATH] mind SUBCOMMAND [options] [governance options]

The mind model (docs/mind.md): evidence, knowledge in tiers dao_tian >
dao_ren > shu > qi, promotion only through deterministic gates, typed
context. Who you are is the host's: --user/--actor (default: your account)
and --role. Agents record and distill; every change of status, tier or
anchor needs a human role (--role operator, or reviewer; `kip mind policy`
lists them), canonical needs --role reviewer. One Evidence fills one role;
teaching evidence is a human's. Results are JSON.

  init                                   apply the schema capsule (once)
  anchor                                 this directory's anchors (global, repo, worktree)
  policy                                 the promotion gates in force
  record --content TEXT --domain D --provenance runtime|research|human [--field F]
         [--source-ref REF] [--tag T]... [--anchor global|repo|worktree] [--name N]
  distill --statement S --tier qi|shu|dao_ren|dao_tian --domain D --evidence REF...
         [--field F] [--content TEXT] [--scope TEXT] [--anchor K] [--name N] [--reason R]
  link NAME [--supporting REF]... [--verification REF]... [--teaching REF]... [--reason R]
                                         add evidence without changing the status
  gate NAME                              is its gate met? (read-only)
  promote NAME [--verification REF]... [--teaching REF]... [--supporting REF]... [--reason R]
                                         its tier's status gate (human)
  raise NAME [--verification REF]... [--teaching REF]... [--supporting REF]... [--reason R]
                                         tier promotion qi > shu > dao_ren > dao_tian, one step,
                                         through the raise gate; it restarts as candidate (human)
  demote NAME --counterexample REF... --reason R [--retire]
  unlink NAME --evidence REF --as supporting|verification|teaching|counterexample --reason R
         [--verification REF]...         withdraw a link; a counterexample only with new
                                         verification recorded after it (human)
  retire NAME --reason R
  restore NAME --reason R                retired -> candidate, the one way out of retired (human)
  update NAME [--statement S] [--content C] [--scope S] --reason R
                                         edit the text; a new statement sends trusted knowledge
                                         back to candidate
  import FILE.kip                        bring knowledge exported with kip export --domain
                                         MindModel (human)
  publish-anchor NAME [--reason R]       worktree -> repo -> global
  context [QUERY] [--limit N] [--dao-tian-limit N] [--include-evidence] [--include-inactive]
  events NAME                            the history of a knowledge item

domains: project, agent, skill, global
]],
  reindex = [[
usage: kip [--db PATH] [--embedder SPEC] reindex [--vectors] [--all] [--switch-model] [--yes] [--batch N] [-q]

Indexes for SEARCH what bulk loads left unindexed. With --vectors, also
embeds every element waiting for a vector (every element with --all), in
transactions of N elements (default 256), with a progress line on a
terminal. Interrupted, it resumes where it stopped when run again. Prints
the vector status at the end.

  --switch-model  the nexus's vectors were made by another model than the
                  configured embedder's: drop them all and embed every element
                  with the configured one. Asks for confirmation on a terminal
                  (--yes does not ask); never happens without this option
  --batch N       elements per transaction (default 256)
  -q, --quiet     no progress and no status line
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
usage: kip [--db PATH] import [--from N] [--batch-kb K] [-q|--quiet] [governance options] FILE.kip...

Applies capsule files (- reads stdin). A file is read 16 MiB at a time and
split into its statements, so memory stays flat whatever its size;
statements are applied in batches (about K KiB of text, default 4096) of
one transaction each. A batch that fails is replayed statement by statement, so every bad
statement is reported as FILE:LINE and the good ones are applied. Importing
again is idempotent (UPSERT matches what exists); --from N starts at
statement N to resume a long import. On a terminal a progress line shows the
share done, statements, elements written, rate and ETA; the SEARCH index is
built once at the end. The policies' content checks apply (the default
policy refuses statements carrying secrets, reported like any bad statement)
but not their scopes: the importer is the operator (--no-policies skips the
policies). Exit status 1 when a statement failed.
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
  dump = [[
usage: kip [--db PATH] dump [--domain NAME | --where 'PATTERN'] [--page N] [-o FILE.jsonl]

A logical backup: a header line {"kipnexus_dump": 1, ...}, then one JSON line
per EXPORT page {"capsule": "<UPSERT text>", "concepts": n, "propositions": m}
(the selection options are those of kip export; default: everything).
Restore it into any nexus with kip restore. Ids and _version are not kept
(they are the engine's bookkeeping); kip backup makes an exact copy.
]],
  restore = "usage: kip [--db PATH] restore FILE.jsonl\n\nApplies a kip dump, page by page (idempotent: restoring twice changes nothing).\n",
  backup = "usage: kip [--db PATH] backup FILE\n\nCopies the nexus to FILE with SQLite's online backup API; other connections may keep writing.\n",
  parse = "usage: kip parse 'COMMAND' [--params JSON]\n\nPrints the AST of a command as JSON (no database needed).\n",
  explain = "usage: kip [--db PATH] explain 'KQL' [-p name=value]...\n\nPrints the SQL the compiler generates and SQLite's query plan.\n",
  run = "usage: kip [--db PATH] run SCRIPT.lua [args...]\n\nRuns a Lua 5.4 script; `kip` is preloaded and KIP_DB holds the --db path.\n",
  mcp = [[
usage: kip mcp [--db PATH] [--readonly] [--no-reinforce] [--max-response-bytes N] [governance options]

Serves the memory to an MCP client (Claude Desktop, Claude Code, Cursor, ...)
over stdio: JSON-RPC 2.0, one message per line. Tools execute_kip and
execute_kip_readonly (only the latter with --readonly); with the mind
model's schema also mind_context, mind_gate, mind_record, mind_distill
(docs/mind.md); with an ARG ontology also arg_request (docs/arg.md; not
with --readonly), answering as the caller --role/--tenant/--user name; resources
kip://syntax (the KIP syntax card) and kip://primer (DESCRIBE PRIMER), and
the prompt kip_grounding. Requests pass the governance policies with
channel "mcp". Logs go to stderr; the server exits when stdin closes or
stdout breaks.

Links returned to the agent were used: each regains memory strength (at
most once a day; docs/sleep.md "Memory strength"), unless --no-reinforce or
--readonly.

A response larger than --max-response-bytes (default 262144, sized for a
model's context) is replaced by a KIP_4002 error that says how to page
(LIMIT / CURSOR). A start-up failure (bad option, unopenable nexus) is
printed on stderr and answered to the client's first request.

Client configuration:
  { "mcpServers": { "kip": { "command": "kip", "args": ["mcp", "--db", "/path/memory.db"] } } }
]],
  guards = [[
usage: kip [--db PATH] guards [--log N] [--json]

Lists the guards declared in the nexus: what a subsystem owns and the core
refuses to write — over every interface, with or without policies — unless
the call holds the guard's capability (granted by the subsystem's own
commands, never by a header, a role or a request). sealed: no insert, update
or delete; append_only: inserted, never changed. --log N also lists the
newest N writes that maintenance calls (--maintenance REASON) made through
guards. docs/security.md "Guards".
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

local function mkdir_p(dir)
  os.execute("mkdir -p '" .. dir:gsub("'", "'\\''") .. "'")
end

local function default_db()
  local env = os.getenv("KIP_DB")
  if env and env ~= "" then return env end
  local base = os.getenv("XDG_DATA_HOME")
  if not base or base == "" then base = (os.getenv("HOME") or ".") .. "/.local/share" end
  local dir = base .. "/kip"
  mkdir_p(dir)
  return dir .. "/nexus.db"
end

-- global options
local db_path, cache_mb
-- bulk commands read and write index pages all over the file: a larger page
-- cache saves re-reading them (docs/performance.md "Import")
local BULK_CACHE_MB = { import = 256, restore = 256, reindex = 256 }
local function cache_option(v)
  local n = tonumber(v)
  if not n or n ~= math.floor(n) or n < 1 or n > 65536 then die("--cache-mb needs a number of MiB from 1 to 65536, not %s", tostring(v)) end
  return n
end
local EMBEDDER_OPTS = { ["--embedder"] = "spec", ["--embedder-model"] = "model", ["--embedder-key-env"] = "key_env",
  ["--embedder-dim"] = "dim" }
local embedder_opts = {}
local i = 1
while args[i] do
  local a = args[i]
  if a == "--db" then
    db_path = args[i + 1] or die("--db needs a path")
    i = i + 2
  elseif a:match("^%-%-db=") then
    db_path = a:sub(6)
    i = i + 1
  elseif EMBEDDER_OPTS[a] then
    embedder_opts[EMBEDDER_OPTS[a]] = args[i + 1] or die("%s needs a value", a)
    i = i + 2
  elseif a == "--cache-mb" then
    cache_mb = cache_option(args[i + 1])
    i = i + 2
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
-- global options are accepted after the subcommand too ("kip mcp --db PATH",
-- as MCP client configurations write it); a script's own arguments (kip run
-- SCRIPT.lua ...) are left alone
do
  local j, script_seen = i + 1, false
  while args[j] do
    local a = args[j]
    if not script_seen and a == "--db" then
      db_path = args[j + 1] or die("--db needs a path")
      j = j + 2
    elseif not script_seen and a:match("^%-%-db=") then
      db_path = a:sub(6)
      j = j + 1
    elseif not script_seen and EMBEDDER_OPTS[a] then
      embedder_opts[EMBEDDER_OPTS[a]] = args[j + 1] or die("%s needs a value", a)
      j = j + 2
    elseif not script_seen and a == "--cache-mb" then
      cache_mb = cache_option(args[j + 1])
      j = j + 2
    else
      if cmd == "run" and not a:match("^%-") then script_seen = true end
      rest[#rest + 1] = a
      j = j + 1
    end
  end
end

if not cmd then
  if not (isatty(0) and isatty(1)) then
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
local gov = { policies = {}, dirs = {}, none = false, ctx = {}, call = {} }
local function governance_option(j)
  local a, v = rest[j], rest[j + 1]
  local function need() return v or die("%s needs a value", a) end
  if a == "--policy" then gov.policies[#gov.policies + 1] = need() return 2
  elseif a == "--no-policies" then gov.none = true return 1
  elseif a == "--policy-dir" then gov.dirs[#gov.dirs + 1] = need() return 2
  elseif a == "--actor" then gov.ctx.actor = need() return 2
  elseif a == "--counterparty" then gov.ctx.counterparty = need() return 2
  elseif a == "--channel" then gov.ctx.channel = need() return 2
  elseif a == "--role" or a == "--caller-role" then
    gov.ctx.roles = gov.ctx.roles or {}; gov.ctx.roles[#gov.ctx.roles + 1] = need() return 2
  elseif a == "--tenant" then gov.ctx.tenant = need() return 2
  elseif a == "--user" then gov.ctx.user = need() return 2
  elseif a == "--maintenance" then
    -- an operator's maintenance call: the guards subsystems declared are
    -- bypassed, and every write that only this let through is logged in the
    -- nexus with the reason given (kip guards --log)
    local reason = need()
    local who = os.getenv("USER") or os.getenv("LOGNAME") or "?"
    gov.call.maintenance = ("%s (kip %s, user %s)"):format(reason, cmd, who)
    io.stderr:write("kip: maintenance mode: guards are bypassed; each such write is logged in the nexus (kip guards --log)\n")
    return 2
  end
  return 0
end

-- fail(fmt, ...) reports a failure to open and exits (default: die)
local function open_nexus(governed, fail)
  local policies
  if governed and not gov.none then policies = #gov.policies > 0 and gov.policies or { "default" } end
  local path = db_path or default_db()
  local embedder = require("kip.search.embedder").from_options(embedder_opts)
  -- a policy that fails to load while the nexus opens is reported once, below;
  -- later (a hot reload) as it happens
  local opening = true
  local nx, err = kip.open { path = path, policies = policies, policy_dirs = gov.dirs, ctx = gov.ctx, embedder = embedder,
    cache_mb = cache_mb or BULK_CACHE_MB[cmd], call = gov.call,
    on_policy_error = function(msg) if not opening then io.stderr:write("kip: ", msg, "\n") end end }
  opening = false
  if not nx then (fail or die)("cannot open the nexus %s: %s", path, tostring(err)) end
  -- a policy named on the command line that cannot load: stop here, naming what there is
  local missing = nx.policies and nx.policies:missing()
  if missing then
    nx:close()
    ;(fail or die)("%s (%s)", missing, missing:find("not found in", 1, true)
      and "kip policy list; --policy-dir DIR adds a directory" or "kip policy check FILE shows why")
  end
  if nx.embedder_unreachable then io.stderr:write("kip: warning: ", nx.embedder_unreachable, "\n") end
  if nx:readonly() == "not writable" then
    io.stderr:write("kip: ", nx.path, " is not writable: opened read-only (reads work, writes are refused)\n")
  end
  return nx
end

-- import and restore write what an operator brings in: through the
-- policies' content checks (secrets are refused) as the operator, who is
-- not narrowed by scopes (ctx.operator is set here only, never from a
-- request or a header)
local function open_operator_nexus()
  gov.ctx.operator = true
  gov.ctx.channel = gov.ctx.channel or "import"
  return open_nexus(true)
end

-- a file to read (stdin for nil or -); dies when it cannot be opened
local function open_input(path)
  local f, err
  if path == nil or path == "-" then f = io.stdin else f, err = io.open(path, "rb") end
  if not f then die("cannot read %s: %s", path, err) end
  return f
end

local function read_all(path)
  local f = open_input(path)
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

function commands.guards()
  local log, json = 0, false
  local j = 1
  while rest[j] do
    local a = rest[j]
    if a == "--log" then
      log = math.tointeger(tonumber(rest[j + 1] or "")) or die("--log needs a number of entries")
      j = j + 1
    elseif a == "--json" then json = true
    else die("guards: unknown option %s (kip guards --help)", a) end
    j = j + 1
  end
  local nx = open_nexus(false)
  local r = core.json_decode(nx.handle:guards(log))
  nx:close()
  if r.error then die("%s", r.error.message) end
  if json then print(core.json_encode(r.result, true)) return 0 end
  if #r.result.guards == 0 then print("no guards are declared in this nexus") end
  for _, g in ipairs(r.result.guards) do
    local what = g.name ~= core.null and (g.type .. " " .. g.name) or g.type
    print(("%-12s %-34s %-8s %s"):format(g.mode, what, g.owner,
      g.capability ~= core.null and ("capability " .. g.capability) or "no capability"))
  end
  for _, e in ipairs(r.result.log) do
    print(("%s  %-7s %-10s %-20s %s  (%s)"):format(e.at, e.op, tostring(e.element), e.kind, e.owner, e.reason))
  end
  return 0
end

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
  local raw = kip.result_text(out) -- the engine's key order and number spelling
  io.write(raw and kip.pretty(raw) or core.json_encode(resp.result, true), "\n")
  if resp.next_cursor then io.write("next_cursor: ", resp.next_cursor, "\n") end
  for _, w in ipairs(resp.warnings or {}) do io.stderr:write("warning: ", w, "\n") end
  return 0
end

-- progress on a terminal: "\r<label> 45% 12000/26000 statements 3100/s ETA 5s"
local function progress_reporter(total_bytes)
  local tty = isatty(2)
  local t0, last = os.time(), -1
  return tty, function(done_bytes, statements, elements, final)
    if not tty then return end
    local now = os.time()
    if not final and now == last then return end
    last = now
    local dt = math.max(now - t0, 1)
    -- a stream of unknown size (stdin) shows no share and no ETA
    local pct = total_bytes > 0 and ("%3d%%"):format(done_bytes * 100 // total_bytes) or "   -"
    local eta = (total_bytes > 0 and done_bytes > 0) and ("ETA %ds"):format((total_bytes - done_bytes) * dt // done_bytes) or ""
    io.stderr:write(("\r  %s  %d statements  %d elements  %d elements/s  %s   "):format(
      pct, statements, elements, elements // dt, eta))
    if final then io.stderr:write("\n") end
  end
end

-- progress and errors of a bulk apply, reported on stderr. source: capsule
-- text, or { file = handle, size = bytes } read as a stream
local function apply_reporting(nx, source, label, from, batch_bytes, quiet)
  local transfer = require "kip.transfer"
  local size = type(source) == "string" and #source or source.size
  local tty, report = progress_reporter(size)
  if quiet then tty, report = false, function() end end
  local opts = {
    from = from, batch_bytes = batch_bytes,
    on_error = function(line, e)
      if tty then io.stderr:write("\r\27[K") end
      stderr("%s:%d: %s %s", label, line, e.code, e.message)
      if e.hint and e.hint ~= "" then stderr("  hint: %s", e.hint) end
    end,
    on_progress = function(done, applied, elements) report(done, applied, elements, false) end,
    on_index = function(done, total)
      if tty then io.stderr:write(("\r  indexing for SEARCH %d/%d elements   "):format(done, total), done >= total and "\n" or "") end
    end,
  }
  local st
  if type(source) == "string" then st = transfer.apply(nx, source, opts)
  else st = transfer.apply_stream(nx, source.file, opts) end
  report(size, st.applied, st.elements, true)
  if st.index_error then stderr("%s: indexing for SEARCH failed: %s (it resumes at the next write)", label, st.index_error) end
  return st
end

-- a capsule file (or - for stdin) opened for streaming, with its size when known
local function capsule_source(path)
  local f = open_input(path)
  local size = 0
  if f ~= io.stdin then
    size = f:seek("end") or 0
    f:seek("set", 0)
  end
  return { file = f, size = size }
end

function commands.import()
  local files, from, batch_bytes, quiet = {}, 1, nil, false
  local j = 1
  while rest[j] do
    local a, g = rest[j], 0
    if a == "--from" then from = tonumber(rest[j + 1]) or die("--from needs a statement number") j = j + 1
    elseif a == "--batch-kb" then batch_bytes = (tonumber(rest[j + 1]) or die("--batch-kb needs a number")) * 1024 j = j + 1
    elseif a == "--quiet" or a == "-q" then quiet = true
    else
      g = governance_option(j)
      if g > 0 then j = j + g - 1
      elseif a:sub(1, 1) == "-" and a ~= "-" then die("import: unknown option %s", a)
      else files[#files + 1] = a end
    end
    j = j + 1
  end
  if #files == 0 then die("import needs at least one .kip file") end
  local nx = open_operator_nexus()
  local failed = 0
  for _, file in ipairs(files) do
    local source = capsule_source(file)
    local st = apply_reporting(nx, source, file, from, batch_bytes, quiet)
    if source.file ~= io.stdin then source.file:close() end
    stderr("%s: %d statements applied, %d failed, %d elements written (statements %d..%d of %d)", file, st.applied,
      st.failed, st.elements, st.from, st.statements, st.statements)
    if st.failed > 0 then failed = failed + 1 end
  end
  nx:close()
  return failed > 0 and 1 or 0
end

-- the selection options of export and dump
local function selection_options(name)
  local sel, page, out = {}, 5000, nil
  local j = 1
  while rest[j] do
    local a = rest[j]
    if a == "--where" then sel.where = rest[j + 1] or die("--where needs a pattern binding ?x") j = j + 1
    elseif a == "--domain" then sel.domain = rest[j + 1] or die("--domain needs a name") j = j + 1
    elseif a == "--page" then page = tonumber(rest[j + 1]) or die("--page needs a number") j = j + 1
    elseif a == "-o" then out = rest[j + 1] or die("-o needs a file") j = j + 1
    else die("%s: unknown option %s", name, a) end
    j = j + 1
  end
  return sel, page, out
end

local function export_to(kind)
  local transfer = require "kip.transfer"
  local sel, page, out = selection_options(kind)
  local nx = open_nexus()
  if sel.domain then -- a domain that does not exist exports nothing: say so rather than write an empty file
    local r = nx:execute('FIND(COUNT(?d)) WHERE { ?d {type: "Domain", name: :n} }', { n = sel.domain })
    local n = type(r.result) == "table" and r.result[1] or r.result
    if n == 0 then
      nx:close()
      die("%s --domain %s: no such domain (kip exec 'DESCRIBE DOMAINS' lists them; names are case-sensitive)", kind, sel.domain)
    end
  end
  local sink = out and (io.open(out, "w") or die("cannot write %s", out)) or io.stdout
  local stamp = os.date("!%Y-%m-%dT%H:%M:%SZ")
  if kind == "dump" then
    sink:write(core.json_encode { kipnexus_dump = 1, version = core.version, protocol = "KIP v1.0-RC11", created_at = stamp }, "\n")
  else
    sink:write(("// kipnexus export %s\n"):format(stamp))
  end
  local totals, err = transfer.export(nx, sel, page, function(r)
    if kind == "dump" then
      sink:write(core.json_encode { capsule = r.capsule, concepts = r.concepts, propositions = r.propositions }, "\n")
    else
      sink:write(("// page: %d concepts, %d propositions\n"):format(r.concepts, r.propositions), r.capsule, "\n")
    end
  end)
  if out then sink:close() end
  nx:close()
  if not totals then print_error(err) return 1 end
  stderr("%s %d concepts, %d propositions", kind == "dump" and "dumped" or "exported", totals.concepts, totals.propositions)
  return 0
end

function commands.export() return export_to("export") end
function commands.dump() return export_to("dump") end

function commands.restore()
  local file
  local j = 1
  while rest[j] do
    local g = governance_option(j)
    if g > 0 then j = j + g
    elseif rest[j]:sub(1, 1) == "-" then die("restore: unknown option %s", rest[j])
    else file = file or rest[j]; j = j + 1 end
  end
  if not file then die("restore needs a dump file (kip dump)") end
  local nx = open_operator_nexus()
  local n, failed, applied, elements = 0, 0, 0, 0
  for line in io.lines(file) do
    n = n + 1
    local rec, err = core.json_decode(line)
    if type(rec) ~= "table" then
      stderr("%s:%d: not a JSON line: %s", file, n, tostring(err))
      failed = failed + 1
    elseif n == 1 then
      if not rec.kipnexus_dump then die("%s is not a kip dump (no header line)", file) end
    elseif type(rec.capsule) == "string" then
      local st = apply_reporting(nx, rec.capsule, file .. " record " .. n, 1, nil, true)
      failed, applied, elements = failed + st.failed, applied + st.applied, elements + st.elements
    end
  end
  nx:close()
  stderr("%s: %d records, %d statements applied, %d failed, %d elements written", file, n - 1, applied, failed, elements)
  return failed > 0 and 1 or 0
end

function commands.backup()
  local file = rest[1] or die("backup needs a destination file")
  local dir = file:match("^(.*)/[^/]*$")
  if dir and dir ~= "" and not io.open(dir .. "/.", "r") and os.execute("test -d '" .. dir:gsub("'", "'\\''") .. "'") ~= true then
    die("backup: the directory %s does not exist; create it first (mkdir -p %s)", dir, dir)
  end
  local nx = open_nexus()
  local tty = isatty(2)
  local ok, err = nx.handle:backup(file, function(done, total)
    if tty then io.stderr:write(("\r  %d/%d pages"):format(done, total)) end
  end)
  if tty then io.stderr:write("\n") end
  nx:close()
  if not ok then stderr("kip: %s", err) return 1 end
  stderr("backed up to %s", file)
  return 0
end

function commands.reindex()
  local vectors, all, batch, quiet, switch, yes = false, false, 256, false, false, false
  local j = 1
  while rest[j] do
    local a = rest[j]
    if a == "--vectors" then vectors = true
    elseif a == "--all" then all = true
    elseif a == "--switch-model" then switch = true
    elseif a == "--yes" or a == "-y" then yes = true
    elseif a == "-q" or a == "--quiet" then quiet = true
    elseif a == "--batch" then
      batch = math.tointeger(tonumber(rest[j + 1] or "")) or die("--batch needs a number of elements")
      if batch < 1 then die("--batch needs a positive number of elements") end
      j = j + 1
    else die("reindex: unknown option %s (kip reindex --help)", a) end
    j = j + 1
  end
  local nx = open_nexus()
  if nx:readonly() then die("%s is read-only: nothing can be indexed", nx.path) end
  local tty = isatty(2) and not quiet
  local function progress(what)
    local t0, last = os.time(), -1
    return function(done, total)
      if not tty then return end
      local now = os.time()
      if now == last and done < total then return end
      last = now
      local dt = math.max(now - t0, 1)
      io.stderr:write(("\r  %s %3d%%  %d/%d elements  %d elements/s   "):format(
        what, total > 0 and done * 100 // total or 100, done, total, done // dt))
      if done >= total then io.stderr:write("\n") end
    end
  end
  local ok, err = nx.handle:sync_index(50000, progress("keyword index"))
  if not ok then nx:close() die("reindex: %s", err) end
  if vectors then
    if not nx.embedder then
      local why = nx.embedder_unreachable or "no embedder is configured (--embedder, docs/search.md)"
      nx:close()
      die("reindex --vectors: %s", why)
    end
    local st = switch and not yes and nx:vector_status() -- only a question needs the counts
    if st and st.model ~= "" and not st.embedder_matches then
      local question = ("Drop the %d vectors made by %q and embed every element with the configured embedder? [y/N] "):format(
        st.vectors, st.model)
      if not (isatty(0) and isatty(2)) then
        nx:close()
        die("reindex --switch-model replaces the %d vectors made by %q: confirm with --yes", st.vectors, st.model)
      end
      io.stderr:write(question)
      local answer = io.read("l") or ""
      if not answer:match("^[yY]") then nx:close() stderr("kip: nothing changed") return 1 end
    end
    ok, err = nx:reindex_vectors { all = all, switch_model = switch, batch = batch, progress = progress("vectors") }
    if not ok then
      nx:close()
      die("reindex --vectors: %s%s", err, tostring(err):find("were made by", 1, true) and "" or " (run it again to resume)")
    end
  end
  local st = nx:vector_status()
  nx:close()
  if not quiet then
    if st.model == "" then stderr("vectors: none (kip reindex --vectors builds them)")
    else
      stderr("vectors: %d (model %s, %d dimensions), %d waiting%s", st.vectors, st.model, st.dim, st.pending,
        st.embedder_matches and "" or "; the configured embedder makes another model's vectors")
    end
  end
  return 0
end

local SLEEP_REPORT_GROUPS = 60 -- flag lines of the terminal report

function commands.sleep()
  local opts, json_out, quiet, if_needed, log_file, check_only = { phases = nil }, false, false, false, nil, false
  local j = 1
  while rest[j] do
    local a = rest[j]
    local g = governance_option(j)
    if g > 0 then j = j + g
    else
      if a == "--now" then opts.now = rest[j + 1] or die("--now needs an ISO-8601 time") j = j + 1
      elseif a == "--dry-run" then opts.dry_run = true
      elseif a == "--phase" then
        opts.phases = opts.phases or {}
        opts.phases[#opts.phases + 1] = rest[j + 1] or die("--phase needs a phase name")
        j = j + 1
      elseif a == "--if-needed" then if_needed = true
      elseif a == "--check" then check_only = true
      elseif a == "--measure" then opts.measure = true
      elseif a == "--hooks" then
        local file = rest[j + 1] or die("--hooks needs a Lua file")
        local chunk, err = loadfile(file)
        if not chunk then die("--hooks: %s", err) end
        local ok, hooks = pcall(chunk)
        if not ok or type(hooks) ~= "table" then die("--hooks: %s must return a table of hook functions", file) end
        opts.hooks = hooks
        j = j + 1
      elseif a == "--log" then log_file = rest[j + 1] or die("--log needs a file") j = j + 1
      elseif a == "--json" then json_out = true
      elseif a == "-q" or a == "--quiet" then quiet = true
      else die("sleep: unknown option %s (kip sleep --help)", a) end
      j = j + 1
    end
  end
  local sleep = require "kip.sleep"
  local DECIDED_BY = { recorded = "nothing changed since the last cycle: its record decides",
    counted = "counted by the store", measured = "measured over the graph" }
  local nx = open_nexus(true)
  if check_only then
    local ok, needed, why, m, how = pcall(sleep.check, nx, opts)
    nx:close()
    if not ok then die("sleep: %s", tostring(needed)) end
    if json_out then
      print(core.json_encode { needed = needed, why = setmetatable(why, core.array_mt), metrics = m, decided_by = how })
    else
      print(("%s (%s)"):format(needed and ("needed: " .. table.concat(why, ", ")) or "not needed: no health threshold crossed",
        DECIDED_BY[how]))
    end
    return needed and 0 or 3
  end
  if if_needed then
    opts.until_needed = true -- whether, not how much: the first threshold crossed decides
    local ok, needed, why, _, how = pcall(sleep.check, nx, opts)
    if not ok then nx:close() die("sleep: %s", tostring(needed)) end
    if not needed then
      nx:close()
      if not quiet then
        stderr("sleep: not needed (no health threshold crossed; %s)", DECIDED_BY[how])
      end
      return 0
    end
    opts.trigger = "threshold: " .. table.concat(why, ", ")
  end
  opts.trigger = opts.trigger or "manual"
  -- the audit names who started the cycle: --user/--actor and roles, else the account
  opts.caller = { actor = gov.ctx.user or gov.ctx.actor or os.getenv("USER") or os.getenv("LOGNAME"), roles = gov.ctx.roles }
  if not quiet and not json_out then
    opts.progress = function(name, title, counts, secs)
      local parts = {}
      for k, v in pairs(type(counts) == "table" and counts or {}) do parts[#parts + 1] = k .. "=" .. tostring(v) end
      table.sort(parts)
      io.stderr:write(("  %-15s %-40s %6.2fs  %s\n"):format(name, title, secs, table.concat(parts, " ")))
    end
  end
  local ok, report = pcall(sleep.run, nx, opts)
  nx:close()
  if not ok then die("sleep: %s", tostring(report)) end
  if log_file then
    local f, err = io.open(log_file, "a")
    if not f then die("--log: %s", err) end
    for _, d in ipairs(report.decisions or {}) do
      f:write(core.json_encode { now = report.now, phase = d.phase, why = d.why, command = d.command, parameters = d.parameters }, "\n")
    end
    for _, fl in ipairs(report.flagged or {}) do
      f:write(core.json_encode { now = report.now, phase = fl.phase, flagged = fl.name, reason = fl.reason, kind = fl.kind }, "\n")
    end
    f:close()
  end
  if json_out then
    print(core.json_encode(report))
  else
    if opts.dry_run then
      for _, p in ipairs(report.planned or {}) do
        print(("-- [%s] %s"):format(p.phase, p.why or ""))
        print(p.command)
        if p.parameters and next(p.parameters) then print("-- parameters: " .. core.json_encode(p.parameters)) end
      end
    end
    if not quiet then
      stderr("sleep cycle %s: %d write(s), %d flagged, %d error(s)%s", report.now, report.writes or 0,
        #(report.flagged or {}), #(report.errors or {}), opts.dry_run and " (dry run: nothing changed)" or "")
      local m = report.metrics_after or report.metrics_before
      if m and m.links_with_strength and m.links_with_strength > 0 then
        stderr("  memory strength: average %.3f over %d link(s); %d weak (below %.2f)%s",
          m.average_memory_strength or 0, m.links_with_strength, m.weak_links or 0, require("kip.sleep.cycle").DEFAULTS.weak_strength,
          m.memory_strength_as_of and (" (as of " .. m.memory_strength_as_of .. ")") or "")
      end
      -- flags of one kind on one line, the largest groups first: a cycle that
      -- flags 40 000 items prints at most SLEEP_REPORT_GROUPS lines of them
      local groups = report.flag_groups or require("kip.sleep.cycle").group_flags(report.flagged or {}, 3)
      local total = 0
      for _, g in ipairs(groups) do total = total + g.count end
      if report.unchanged_since then
        stderr("  nothing changed since the cycle of %s and nothing is due: its phases were skipped; its %d flagged item(s) stand",
          report.unchanged_since, total)
      end
      local shown, items = 0, 0
      for _, g in ipairs(groups) do
        if shown == SLEEP_REPORT_GROUPS then break end
        shown, items = shown + 1, items + g.count
        if g.count == 1 then
          stderr("  flagged [%s] %s: %s", g.phase or "", g.examples[1], g.reason)
        else
          stderr("  flagged [%s] %d× %s — e.g. %s", g.phase or "", g.count, g.kind, table.concat(g.examples, ", "))
        end
      end
      if shown < #groups then
        stderr("  … %d more kind(s), %d item(s): every item is in kip sleep --json, --log FILE and the SleepCycle record",
          #groups - shown, total - items)
      end
    end
  end
  return #(report.errors or {}) > 0 and 1 or 0
end

-- kip mind: flags of each subcommand -> option fields (multi: repeatable)
local MIND_FLAGS = {
  record = { ["--content"] = "content", ["--domain"] = "domain", ["--field"] = "field", ["--provenance"] = "provenance",
    ["--source-ref"] = "source_ref", ["--tag"] = { "tags" }, ["--anchor"] = "anchor", ["--name"] = "name" },
  distill = { ["--statement"] = "statement", ["--tier"] = "tier", ["--domain"] = "domain", ["--field"] = "field",
    ["--evidence"] = { "supporting" }, ["--content"] = "content", ["--scope"] = "scope_constraints", ["--anchor"] = "anchor",
    ["--name"] = "name", ["--reason"] = "reason" },
  gate = {},
  link = { ["--verification"] = { "verification" }, ["--teaching"] = { "teaching" }, ["--supporting"] = { "supporting" },
    ["--reason"] = "reason" },
  promote = { ["--verification"] = { "verification" }, ["--teaching"] = { "teaching" }, ["--supporting"] = { "supporting" },
    ["--reason"] = "reason" },
  raise = { ["--verification"] = { "verification" }, ["--teaching"] = { "teaching" }, ["--supporting"] = { "supporting" },
    ["--reason"] = "reason" },
  unlink = { ["--evidence"] = "evidence", ["--as"] = "role", ["--verification"] = { "verification" }, ["--reason"] = "reason" },
  restore = { ["--reason"] = "reason" },
  update = { ["--statement"] = "statement", ["--content"] = "content", ["--scope"] = "scope_constraints", ["--reason"] = "reason" },
  import = {},
  demote = { ["--counterexample"] = { "counterexamples" }, ["--reason"] = "reason", ["--retire"] = true },
  retire = { ["--reason"] = "reason" },
  ["publish-anchor"] = { ["--reason"] = "reason" },
  context = { ["--limit"] = "limit", ["--dao-tian-limit"] = "dao_tian_limit", ["--include-evidence"] = true,
    ["--include-inactive"] = true },
  events = {},
}

function commands.mind()
  local mind = require "kip.mind"
  local sub = rest[1]
  if not sub then io.write(HELP.mind) return 2 end
  if sub == "anchor" then print(core.json_encode(mind.anchors(), true)) return 0 end
  local flags = MIND_FLAGS[sub]
  if not flags and sub ~= "init" and sub ~= "policy" then die("mind: unknown subcommand %s (kip mind --help)", sub) end
  local o, positional = {}, {}
  local j = 2
  while rest[j] do
    local a = rest[j]
    local g = governance_option(j)
    if g > 0 then j = j + g
    elseif flags and flags[a] == true then o[a:sub(3):gsub("%-", "_")] = true j = j + 1
    elseif flags and type(flags[a]) == "table" then
      local k = flags[a][1]
      o[k] = o[k] or {}
      table.insert(o[k], rest[j + 1] or die("%s needs a value", a))
      j = j + 2
    elseif flags and flags[a] then o[flags[a]] = rest[j + 1] or die("%s needs a value", a) j = j + 2
    elseif a:sub(1, 2) == "--" then die("mind %s: unknown option %s (kip mind --help)", sub, a)
    else positional[#positional + 1] = a j = j + 1 end
  end
  for _, k in ipairs { "limit", "dao_tian_limit" } do
    if o[k] then o[k] = math.tointeger(tonumber(o[k])) or die("--%s needs a whole number", k:gsub("_", "-")) end
  end
  local nx = open_nexus(true)
  -- the audit names the caller: --user/--actor, else the account running kip
  if not gov.ctx.user and not gov.ctx.actor then gov.ctx.actor = os.getenv("USER") or os.getenv("LOGNAME") end
  o.ctx = gov.ctx
  local result, err
  if sub == "init" then
    result, err = mind.init(nx)
    if result then result = { applied = "capsules/mind", ready = mind.ready(nx) } end
  elseif sub == "policy" then
    local g, from = mind.gates(nx)
    local gates = require "kip.mind.gates"
    local roles = {}
    for r in pairs(gates.human_roles(nx)) do roles[#roles + 1] = r end
    table.sort(roles)
    result = { gates = g, raise = gates.raise_gates(nx), human_roles = roles, from = from }
  elseif not mind.ready(nx) then
    err = { code = "KIP_2001", message = "this nexus has no mind schema", hint = "Run `kip mind init` once." }
  elseif sub == "context" then
    o.query = table.concat(positional, " ")
    result, err = mind.context(nx, o)
  elseif sub == "import" then
    local path = positional[1] or die("mind import needs a capsule file")
    o.text = read_all(path)
    o.on_error = function(line, e) stderr("%s:%d: %s %s", path, line, e.code or "", e.message or "") end
    result, err = mind.import(nx, o)
    if result and result.failed > 0 then
      err = { code = "KIP_4003", message = ("%d statement(s) failed, %d applied"):format(result.failed, result.applied) }
      result = nil
    end
  else
    if sub ~= "record" and sub ~= "distill" and sub ~= "import" then
      o.name = positional[1] or die("mind %s needs the knowledge name", sub)
    end
    if sub == "demote" and o.retire then o.target = "retired" end
    local fn = mind[(sub:gsub("%-", "_"))]
    result, err = fn(nx, o)
  end
  nx:close()
  if not result then
    if type(err) == "table" then
      stderr("%s %s", err.code or "error", err.message or "")
      if err.hint and err.hint ~= "" then stderr("  hint: %s", err.hint) end
    else stderr("kip mind: %s", tostring(err)) end
    return 1
  end
  print(core.json_encode(result, true))
  return 0
end

function commands.arg()
  return require("kip.arg.cli").run(rest, { stderr = stderr, die = die, open_nexus = open_nexus,
    governance_option = governance_option, isatty = isatty })
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

-- options of the long-running front ends: --readonly and the governance options
-- the options of the interactive front ends: governance, --readonly and
-- extra(j) for their own (returns how many arguments it took, 0 if none);
-- fail(fmt, ...) reports an unknown option (default: die)
local function frontend_options(name, extra, fail)
  local readonly = false
  local j = 1
  while rest[j] do
    local g = governance_option(j)
    if g == 0 and extra then g = extra(j) end
    if g > 0 then j = j + g
    elseif rest[j] == "--readonly" then readonly = true; j = j + 1
    else (fail or die)("%s: unknown option %s (see kip %s --help)", name, rest[j], name) end
  end
  return readonly
end

function commands.mcp()
  local mcp = require "kip.mcp"
  -- a start-up failure is said on stderr and, since MCP clients often show
  -- only "connection closed", also as the answer to the client's first request
  local function fail(fmt, ...)
    local reason = string.format(fmt, ...)
    stderr("kip mcp: %s", reason)
    mcp.refuse_startup(reason)
    os.exit(2)
  end
  local max_response, reinforce
  local readonly = frontend_options("mcp", function(j)
    if rest[j] == "--no-reinforce" then
      reinforce = false
      return 1
    end
    if rest[j] ~= "--max-response-bytes" then return 0 end
    max_response = tonumber(rest[j + 1] or "")
    if not max_response or max_response < 1024 then fail("--max-response-bytes needs a number of bytes (at least 1024)") end
    return 2
  end, fail)
  gov.ctx.channel = gov.ctx.channel or "mcp"
  local nx = open_nexus(true, fail)
  mcp.server(nx, { readonly = readonly, max_response_bytes = max_response, reinforce = reinforce, host = require("kip.host") }):serve()
  nx:close()
  return 0
end

function commands.repl()
  local readonly = frontend_options("repl")
  local nx = open_nexus(true)
  local state = os.getenv("XDG_STATE_HOME")
  if not state or state == "" then state = (os.getenv("HOME") or ".") .. "/.local/state" end
  mkdir_p(state .. "/kip")
  local repl = require("kip.repl").new(nx, { readonly = readonly, history = state .. "/kip/history" })
  local failures = repl:loop()
  nx:close()
  -- a script piped into the shell learns that a command failed
  return (failures > 0 and not repl.tty) and 1 or 0
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
