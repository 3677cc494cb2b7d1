--- kip.cli.commands — the commands of the KIP core itself: call, exec, mcp,
--- repl, policy, guards, parse, explain, run, version (docs/extending.md
--- "CLI commands" for the shape of an entry; the subsystems register their
--- own through kip.subsystems). Each entry: usage and summary (kip --help),
--- help (kip CMD --help), run(cli, args) -> exit status.
local kip = require "kip"
local core = kip.core

local commands = {}

commands.call = {
  usage = "call [--readonly] [FILE|-]", summary = "request JSON in, response JSON out (one line)",
  help = [[
usage: kip [--db PATH] call [--readonly] [governance options] [FILE|-]

Reads one execute_kip request object ({"command": ...} or {"commands": [...]},
optional "parameters" and "dry_run") from FILE or stdin and prints the
response object on one line. --readonly is execute_kip_readonly. Exits 0
whenever a response was produced (KIP errors are part of the response).
]],
  run = function(cli, args)
    local o, files = cli:parse(args, { { "--readonly" } }, { governance = true })
    local req = cli:read_all(files[1])
    local nx = cli:open_nexus(true)
    io.write(nx:call_json(req, { readonly = o.readonly or false }), "\n")
    nx:close()
    return 0
  end,
}

commands.exec = {
  usage = "exec [--readonly] [--json] [-p name=value]... 'KIP COMMAND'", summary = "run one command, human-readable output",
  help = [[
usage: kip [--db PATH] exec [--readonly] [--json] [--dry-run] [-p name=value]... [governance options] 'COMMAND'

Runs one KIP command. -p binds a :name placeholder; the value is parsed as
JSON when it is valid JSON (numbers, true, [..]) and is a string otherwise.
--json prints the raw response. Exit status 1 when the command failed.
]],
  run = function(cli, args)
    local o, text = cli:parse(args, { { "--readonly" }, { "--json" }, { "--dry-run" },
      { "-p", key = "params", value = "name=value", multi = true } }, { governance = true })
    text = text[#text]
    if not text then cli:die("exec needs a command (see kip exec --help)") end
    local params = cli:params(o.params)
    local nx = cli:open_nexus(true)
    local req = { command = text }
    if next(params) then req.parameters = params end
    if o.dry_run then req.dry_run = true end
    local out = nx:call_json(core.json_encode(req), { readonly = o.readonly or false })
    nx:close()
    if o.json then io.write(out, "\n") return 0 end
    local resp = core.json_decode(out)
    if resp.error then cli:print_error(resp.error) return 1 end
    local raw = kip.result_text(out) -- the engine's key order and number spelling
    io.write(raw and kip.pretty(raw) or core.json_encode(resp.result, true), "\n")
    if resp.next_cursor then io.write("next_cursor: ", resp.next_cursor, "\n") end
    for _, w in ipairs(resp.warnings or {}) do io.stderr:write("warning: ", w, "\n") end
    return 0
  end,
}

commands.mcp = {
  usage = "mcp [--readonly] [--no-reinforce] [governance options]", summary = "Model Context Protocol server on stdio",
  help = [[
usage: kip mcp [--db PATH] [--readonly] [--no-reinforce] [--max-response-bytes N] [governance options]

Serves the memory to an MCP client (Claude Desktop, Claude Code, Cursor, ...)
over stdio: JSON-RPC 2.0, one message per line. Tools execute_kip and
execute_kip_readonly (only the latter with --readonly); with the mind
model's schema also mind_context, mind_gate, mind_record, mind_distill
(docs/mind.md); with an ARG ontology also arg_request (docs/arg.md; not
with --readonly), answering as the caller --role/--tenant/--user name; the
tools of the operator's extension folders (--extensions DIR,
docs/extending.md); resources kip://syntax (the KIP syntax card) and
kip://primer (DESCRIBE PRIMER), and the prompt kip_grounding. Requests pass
the governance policies with channel "mcp". Logs go to stderr; the server
exits when stdin closes or stdout breaks.

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
  run = function(cli, args)
    local mcp = require "kip.mcp"
    -- a start-up failure is said on stderr and, since MCP clients often show
    -- only "connection closed", also as the answer to the client's first request
    local function fail(fmt, ...)
      local reason = string.format(fmt, ...)
      cli:stderr("kip mcp: %s", reason)
      mcp.refuse_startup(reason)
      os.exit(2)
    end
    local all = { cli.GLOBAL, cli.GOVERNANCE, { "--readonly" }, { "--no-reinforce" },
      { "--max-response-bytes", value = "a number of bytes (at least 1024)", check = function(v)
        local n = tonumber(v)
        if not n or n < 1024 then return nil, "a number of bytes (at least 1024)" end
        return n
      end } }
    local o, extra = require("kip.cli.options").parse(args, all, { command = "mcp" })
    if not o then fail("%s", extra) end
    if #extra > 0 then fail("mcp: unexpected argument %s (see kip mcp --help)", extra[1]) end
    cli.gov.ctx.channel = cli.gov.ctx.channel or "mcp"
    local nx = cli:open_nexus(true, fail)
    mcp.server(nx, { readonly = o.readonly, max_response_bytes = o.max_response_bytes,
      reinforce = o.no_reinforce and false or nil, host = require("kip.host") }):serve()
    nx:close()
    return 0
  end,
}

commands.repl = {
  usage = "repl [--readonly] [governance options]",
  summary = "interactive shell (also: kip with no command on a terminal);\nreads commands from stdin when it is not a terminal",
  help = [[
usage: kip [--db PATH] repl [--readonly] [governance options]

An interactive KIP shell: line editing and history (~/.local/state/kip/history),
one-line commands run on Enter, longer ones at a blank line or a trailing ";",
Tab completion of keywords,
types and predicates, FIND results as tables, errors with a caret.
Inside: :help, :params {json}, :readonly on|off, :json, :explain KQL,
:dry on|off, :quit. With stdin not a terminal it runs the commands it reads.
]],
  run = function(cli, args)
    local o, extra = cli:parse(args, { { "--readonly" } }, { governance = true })
    if #extra > 0 then cli:die("repl: unexpected argument %s (see kip repl --help)", extra[1]) end
    local nx = cli:open_nexus(true)
    local state = os.getenv("XDG_STATE_HOME")
    if not state or state == "" then state = (os.getenv("HOME") or ".") .. "/.local/state" end
    require("kip.cli.host").mkdir_p(state .. "/kip")
    local repl = require("kip.repl").new(nx, { readonly = o.readonly, history = state .. "/kip/history" })
    local failures = repl:loop()
    nx:close()
    -- a script piped into the shell learns that a command failed
    return (failures > 0 and not repl.tty) and 1 or 0
  end,
}

commands.policy = {
  usage = "policy list | check FILE | test FILE REQUEST.json", summary = "inspect governance policies",
  help = [[
usage: kip policy list [--policy-dir DIR]...
       kip policy check FILE.lua
       kip policy test FILE.lua REQUEST.json [--counterparty NAME] [--actor ID] [--channel NAME]

list   the policy files found (policy dirs, $KIP_POLICY_PATH, the extension
       folders' policies/, built-in)
check  load FILE in the policy sandbox and report errors (exit 1 on error)
test   run FILE's pre_check on every command of an execute_kip request and
       print each decision (nothing is executed)
]],
  run = function(cli, args)
    local policy = require "kip.policy"
    local _, pos = cli:parse(args, {}, { governance = true })
    local sub = pos[1]
    if sub == "list" then
      if pos[2] then cli:die("policy list: unexpected argument %s", pos[2]) end
      for _, dir in ipairs(kip.policy_dirs(cli.gov.dirs)) do
        for _, name in ipairs(require("kip.extension").available { dir }) do
          local path = dir .. "/" .. name .. ".lua"
          local p, err = policy.load_file(path)
          if p then print(("%-16s priority %-4d %s"):format(p.name, p.priority, path))
          else print(("%-16s ERROR         %s: %s"):format(name, path, err)) end
        end
      end
      return 0
    elseif sub == "check" then
      local file = pos[2] or cli:die("policy check needs a file")
      local p, err = policy.load_file(file)
      if not p then cli:stderr("%s", err) return 1 end
      print(("%s: ok (policy '%s', priority %d%s%s)"):format(file, p.name, p.priority,
        p.pre_check and ", pre_check" or "", p.post_check and ", post_check" or ""))
      return 0
    elseif sub == "test" then
      local file, reqfile = pos[2] or cli:die("policy test needs FILE.lua REQUEST.json"), pos[3] or cli:die("policy test needs REQUEST.json")
      local p, err = policy.load_file(file)
      if not p then cli:stderr("%s", err) return 1 end
      local req = core.json_decode(cli:read_all(reqfile))
      if type(req) ~= "table" then cli:die("%s is not a JSON request object", reqfile) end
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
          local ok, dec = policy.call(p, "pre_check", nil, r, policy.copy(cli.gov.ctx))
          out = { command = n, kind = r.kind, decision = ok and (dec or { state = "ALLOW" }) or { error = dec } }
        end
        print(core.json_encode(out, true))
      end
      return 0
    end
    cli:die("policy: expected list, check or test (see kip policy --help)")
  end,
}

commands.guards = {
  usage = "guards [--log N] [--json]",
  summary = "the guards subsystems declared (what the core refuses to\nwrite, and to whom), and the writes maintenance calls made",
  help = [[
usage: kip [--db PATH] guards [--log N] [--json]

Lists the guards declared in the nexus: what a subsystem owns and the core
refuses to write — over every interface, with or without policies — unless
the call holds the guard's capability (granted by the subsystem's own
commands, never by a header, a role or a request). sealed: no insert, update
or delete; append_only: inserted, never changed; "not searched": what it
covers is kept out of the SEARCH indexes (a subsystem's own records). --log
N also lists the newest N writes that maintenance calls (--maintenance
REASON) made through guards. docs/security.md "Guards".
]],
  run = function(cli, args)
    local o, extra = cli:parse(args, { { "--log", value = "a number of entries", check = "int" }, { "--json" } })
    if #extra > 0 then cli:die("guards: unexpected argument %s (kip guards --help)", extra[1]) end
    local nx = cli:open_nexus(false)
    local r = core.json_decode(nx.handle:guards(o.log or 0))
    nx:close()
    if r.error then cli:die("%s", r.error.message) end
    if o.json then print(core.json_encode(r.result, true)) return 0 end
    if #r.result.guards == 0 then print("no guards are declared in this nexus") end
    for _, g in ipairs(r.result.guards) do
      local what = g.name ~= core.null and (g.type .. " " .. g.name) or g.type
      print(("%-12s %-34s %-8s %s%s"):format(g.mode, what, g.owner,
        g.capability ~= core.null and ("capability " .. g.capability) or "no capability", g.unindexed and ", not searched" or ""))
    end
    for _, e in ipairs(r.result.log) do
      print(("%s  %-7s %-10s %-20s %s  (%s)"):format(e.at, e.op, tostring(e.element), e.kind, e.owner, e.reason))
    end
    return 0
  end,
}

commands.parse = {
  usage = "parse 'KIP COMMAND'", summary = "print the AST as JSON",
  help = "usage: kip parse 'COMMAND' [--params JSON]\n\nPrints the AST of a command as JSON (no database needed).\n",
  run = function(cli, args)
    local o, text = cli:parse(args, { { "--params", value = "a JSON object" } })
    text = text[#text]
    if not text then cli:die("parse needs a command") end
    local out = core.parse(text, o.params)
    local r = core.json_decode(out)
    if r.error then cli:print_error(r.error) io.write(out, "\n") return 1 end
    io.write(core.json_encode(r.result, true), "\n")
    return 0
  end,
}

commands.explain = {
  usage = "explain 'KQL'", summary = "print the generated SQL and the database's plan",
  help = "usage: kip [--db PATH] explain 'KQL' [-p name=value]...\n\nPrints the SQL the compiler generates and SQLite's query plan.\n",
  run = function(cli, args)
    local o, text = cli:parse(args, { { "-p", key = "params", value = "name=value", multi = true } })
    text = text[#text]
    if not text then cli:die("explain needs a KQL command") end
    local params = cli:params(o.params)
    local nx = cli:open_nexus()
    local r, err = nx:explain(text, next(params) and params or nil)
    nx:close()
    if not r then cli:print_error(err) return 1 end
    io.write(r.sql, "\n\nparameters: ", core.json_encode(r.parameters), "\n\nplan:\n")
    for _, p in ipairs(r.plan) do io.write("  ", p.detail, "\n") end
    return 0
  end,
}

commands.run = {
  usage = "run SCRIPT.lua [args...]", summary = "run a Lua script with `kip` preloaded",
  help = "usage: kip [--db PATH] run SCRIPT.lua [args...]\n\nRuns a Lua 5.4 script; `kip` is preloaded and KIP_DB holds the --db path.\n",
  raw = true, -- the script's own arguments are its own
  run = function(cli, args)
    local _, pos = cli:parse(args, {}, { stop_at_positional = true })
    local script = pos[1] or cli:die("run needs a script")
    local chunk, err = loadfile(script)
    if not chunk then cli:die("%s", err) end
    if cli.global.db then KIP_DB = cli.global.db end
    local sargs = { table.unpack(pos, 2) }
    arg = { [0] = script, table.unpack(sargs) }
    local ok, res = xpcall(chunk, debug.traceback, table.unpack(sargs))
    if not ok then cli:stderr("%s", res) return 1 end
    return math.type(res) == "integer" and res or 0
  end,
}

commands.version = {
  usage = "version", summary = "print the version",
  run = function() print("kip " .. kip.version) return 0 end,
}

return commands
