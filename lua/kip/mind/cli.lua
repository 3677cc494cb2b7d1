--- kip.mind.cli — `kip mind …`: the mind model from the command line
--- (seed 004; docs/mind.md): evidence, gated knowledge, promotion, context.
--- Registered by kip.mind.subsystem.
local core = require "kip.core"

local commands = {}

-- kip mind: flags of each subcommand -> option fields ({field}: repeatable; true: a flag)
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


-- the option table of a subcommand (kip.cli.options)
local function defs_of(flags)
  local defs = {}
  for name, f in pairs(flags) do
    if f == true then defs[#defs + 1] = { name }
    elseif type(f) == "table" then defs[#defs + 1] = { name, key = f[1], value = "a value", multi = true }
    else defs[#defs + 1] = { name, key = f, value = "a value",
      check = (f == "limit" or f == "dao_tian_limit") and "int" or nil } end
  end
  return defs
end

commands.mind = {
  usage = "mind init|anchor|policy|record|distill|link|unlink|gate|promote|raise|demote|retire|restore|update|\n"
    .. "     publish-anchor|import|context|events",
  summary = "the mind model: evidence, gated knowledge, context (docs/mind.md)",
  help = [[
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
  run = function(cli, args)
    local mind = require "kip.mind"
    local sub = args[1]
    if not sub then io.write(commands.mind.help) return 2 end
    if sub == "anchor" then print(core.json_encode(mind.anchors(), true)) return 0 end
    local flags = MIND_FLAGS[sub]
    if not flags and sub ~= "init" and sub ~= "policy" then cli:die("mind: unknown subcommand %s (kip mind --help)", sub) end
    local o, positional = cli:parse(args, defs_of(flags or {}), { governance = true, from = 2, command = "mind " .. sub })
    local nx = cli:open_nexus(true)
    -- the audit names the caller: --user/--actor, else the account running kip
    o.ctx = cli:audit_caller()
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
      local path = positional[1] or cli:die("mind import needs a capsule file")
      o.text = cli:read_all(path)
      o.on_error = function(line, e) cli:stderr("%s:%d: %s %s", path, line, e.code or "", e.message or "") end
      result, err = mind.import(nx, o)
      if result and result.failed > 0 then
        err = { code = "KIP_4003", message = ("%d statement(s) failed, %d applied"):format(result.failed, result.applied) }
        result = nil
      end
    else
      if sub ~= "record" and sub ~= "distill" and sub ~= "import" then
        o.name = positional[1] or cli:die("mind %s needs the knowledge name", sub)
      end
      if sub == "demote" and o.retire then o.target = "retired" end
      local fn = mind[(sub:gsub("%-", "_"))]
      result, err = fn(nx, o)
    end
    nx:close()
    if not result then
      if type(err) == "table" then
        cli:stderr("%s %s", err.code or "error", err.message or "")
        if err.hint and err.hint ~= "" then cli:stderr("  hint: %s", err.hint) end
      else cli:stderr("kip mind: %s", tostring(err)) end
      return 1
    end
    print(core.json_encode(result, true))
    return 0
  end,
}

return commands
