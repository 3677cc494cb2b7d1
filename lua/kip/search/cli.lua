--- kip.search.cli — `kip search eval FILE`: recall@k of every SEARCH mode on
--- the operator's own queries, and which mode to use (docs/search.md
--- "Measure it on your memory"). Registered by kip.search.subsystem.
local core = require "kip.core"

local commands = {}

commands.search = {
  usage = "search eval FILE.jsonl [--k 5,10] [--apply] [--json]",
  summary = "measure SEARCH on your own queries: recall@k per mode, the mode to use",
  help = [[
usage: kip [--db PATH] [--embedder SPEC] search eval FILE.jsonl [--k 5,10] [--apply] [--json] [--show]

Runs every query of FILE (one JSON object per line: {"query": "...",
"expect": ["element name", ...], "type": "WITH TYPE (optional)",
"propositions": false, "category": "optional label"}) in every SEARCH
mode and prints recall@k — the share of each query's expected elements
among its first k hits — for keyword, semantic and hybrid, also per
category when queries have one, and the mode to use on this nexus. Queries
run read-only, as the caller the governance options name.

Hybrid keeps one list whole, in its order (its primary: keyword unless
recorded otherwise), and adds the other's hits after it, so it never finds
less than its primary. --apply records in the nexus what measured best:
the mode of a SEARCH that names none (keyword until then) and the better of
keyword and semantic as hybrid's primary. --show prints each query's recall.
]],
  run = function(cli, args)
    local o, pos = cli:parse(args, { { "--k", value = "a list of numbers such as 5,10" }, { "--apply" }, { "--json" },
      { "--show" } }, { governance = true })
    if pos[1] ~= "eval" then cli:die("search: the subcommand is eval (kip search eval FILE.jsonl; kip search --help)") end
    local file = pos[2] or cli:die("search eval needs a query file (kip search --help)")
    local ks = {}
    for n in (o.k or "5,10"):gmatch("[^,]+") do
      local k = tonumber(n)
      if not k or k < 1 or k ~= math.floor(k) or k > 1000 then cli:die("--k needs whole numbers from 1 to 1000, not %s", n) end
      ks[#ks + 1] = math.floor(k)
    end
    local eval = require "kip.search.eval"
    local queries, err = eval.read(file)
    if not queries then cli:die("%s", err) end
    local nx = cli:open_nexus(true)
    local r, rerr = eval.run(nx, queries, { ks = ks, ctx = cli.gov.ctx })
    if not r then
      nx:close()
      cli:print_error(rerr)
      return 1
    end
    local before, default_before = nx.handle:search_primary(), nx.handle:search_default_mode()
    if o.apply then
      local ok, aerr = nx.handle:search_primary(r.primary)
      if ok then ok, aerr = nx.handle:search_default_mode(r.best) end
      if not ok then nx:close() cli:die("search eval --apply: %s", aerr) end
    end
    nx:close()
    r.primary_before, r.default_mode_before, r.applied = before, default_before, o.apply or false
    if o.json then -- recall maps keyed "5", "10" (a JSON object's keys are strings)
      local function keyed(t)
        local out = {}
        for m, per_k in pairs(t) do
          if type(per_k) == "table" then
            out[m] = {}
            for k, v in pairs(per_k) do out[m][tostring(k)] = v end
          else
            out[m] = per_k
          end
        end
        return out
      end
      r.modes = keyed(r.modes)
      for _, c in ipairs(r.categories) do c.modes = keyed(c.modes) end
      if o.show then
        for i, q in ipairs(r.per_query) do r.per_query[i] = keyed(q) end
      else
        r.per_query = nil
      end
      print(core.json_encode(r, true))
      return 0
    end
    local head = {}
    for _, k in ipairs(ks) do head[#head + 1] = "recall@" .. k end
    print(("%-26s %s"):format(r.queries .. " queries", table.concat(head, "  ")))
    local function rows(modes, indent)
      for _, m in ipairs(eval.MODES) do
        local cells = {}
        for _, k in ipairs(ks) do cells[#cells + 1] = ("%-9.3f"):format(modes[m][k]) end
        print(("%s%-" .. (26 - #indent) .. "s %s"):format(indent, m .. (m == "hybrid" and (" (" .. before .. " first)") or ""),
          table.concat(cells, "")))
      end
    end
    rows(r.modes, "  ")
    for _, c in ipairs(r.categories) do
      print(("  %s, %d queries"):format(c.name, c.queries))
      rows(c.modes, "    ")
    end
    if o.show then
      for _, q in ipairs(r.per_query) do
        local cells = {}
        for _, m in ipairs(eval.MODES) do cells[#cells + 1] = ("%s %.2f"):format(m:sub(1, 3), q[m][ks[1]]) end
        print(("  line %-4d %s  %s"):format(q.line, table.concat(cells, "  "), q.query))
      end
    end
    for _, w in ipairs(r.warnings) do cli:stderr("warning: %s", w) end
    print(("use: MODE \"%s\"%s"):format(r.best, r.best == default_before and " (the default here)" or ""))
    if o.apply then
      print(("recorded: a SEARCH without MODE uses %s%s; hybrid keeps the %s list whole%s"):format(r.best,
        r.best == default_before and "" or (" (was " .. default_before .. ")"), r.primary,
        r.primary == before and "" or (" (was " .. before .. ")")))
    elseif r.primary ~= before or r.best ~= default_before then
      print("kip search eval FILE --apply records it: the default mode, and the list hybrid keeps whole")
    end
    return 0
  end,
}

return commands
