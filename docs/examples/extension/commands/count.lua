-- `kip count TYPE [--json]`: how many concepts of a type the memory holds
-- (docs/extending.md "CLI commands"). Sandboxed: it reads through
-- cmd.nexus, as the caller the command line names, under the policies.
return {
  summary = "count the concepts of a type",
  usage = "count TYPE [--json]",
  options = { { "--json" } },
  run = function(cmd)
    local t = cmd.args[1]
    if not t then cmd.stderr("count needs a type, e.g. kip count Person") return 2 end
    local r = cmd.nexus.execute("FIND(COUNT(?c)) WHERE { ?c {type: :t} }", { t = t })
    if r.error then cmd.stderr(r.error.message) return 1 end
    local n = type(r.result) == "table" and r.result[1] or r.result
    if cmd.options.json then cmd.print(json.encode { type = t, count = n })
    else cmd.print(("%d %s"):format(n, t)) end
    return 0
  end,
}
