--- kip.arg.mcp — the ARG online loop as an MCP tool (docs/arg.md):
--- arg_request sends a user request with its structured context through
--- the loop and returns the ArgResult (outcome, route, bundle to answer
--- from, action result, episode id). Offered when the nexus has an ARG
--- ontology; it records an episode, so it is not offered read-only.
local core = require "kip.core"

local M = {}

M.TOOLS = {
  { name = "arg_request", title = "Route a user request through the governed ontology",
    description = "Send a user's request and its conversation context through the ARG online loop, as the caller "
      .. "this MCP server was configured for (its role, tenant and user come from the server's --role/--tenant/--user, "
      .. "never from the request). Returns an explicit outcome — ANSWER (answer only from result.bundle: each unit "
      .. "carries its title and chunk), ACTION (result.action ran and succeeded), CLARIFY or ABSTAIN (say "
      .. "result.message), REFUSE or REFOCUS (say result.message) — with the route (weaver.primary_label, flags) and the "
      .. "episode id for feedback.",
    inputSchema = { type = "object", properties = {
      prompt = { type = "string", description = "the user's request, verbatim" },
      context = { type = "object", description = "the conversation: channel, product, environment, timestamp, history "
        .. "(the last turns), request_id (a retried request with the same id returns the first result)" } },
      required = setmetatable({ "prompt" }, core.array_mt) } },
}

function M.ready(nx)
  local r = nx:execute('FIND(COUNT(?t)) WHERE { ?t {type: "$ConceptType", name: "ArgLabel"} }')
  local n = r.result
  return (type(n) == "table" and n[1] or n or 0) > 0
end

function M.list(readonly)
  if readonly then return {} end
  local out = {}
  for _, t in ipairs(M.TOOLS) do
    out[#out + 1] = { name = t.name, title = t.title, description = t.description, inputSchema = t.inputSchema,
      annotations = { readOnlyHint = false, destructiveHint = false, idempotentHint = false, openWorldHint = false } }
  end
  return out
end

function M.call(nx, name, args, ctx, readonly)
  if name ~= "arg_request" or readonly then return nil end
  local r, err = require("kip.arg").run(nx, { prompt = args.prompt, context = args.context }, { ctx = ctx })
  if not r then return core.json_encode({ error = err }), true end
  r.timings = nil
  return core.json_encode({ result = r }), false
end

return M
