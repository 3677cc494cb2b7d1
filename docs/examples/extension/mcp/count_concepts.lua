-- The MCP tool count_concepts (docs/extending.md "MCP tools"): read-only,
-- so a read-only server offers it too. The agent's arguments arrive as
-- `args`; KIP goes through `nexus` as the server's caller.
return {
  description = "Count the concepts of one type in the memory.",
  inputSchema = { type = "object", properties = { type = { type = "string", description = "a concept type, e.g. Person" } },
    required = { "type" } },
  call = function(args, nexus)
    local r = nexus.execute("FIND(COUNT(?c)) WHERE { ?c {type: :t} }", { t = args.type })
    if r.error then return { error = r.error.message } end
    return { type = args.type, count = type(r.result) == "table" and r.result[1] or r.result }
  end,
}
