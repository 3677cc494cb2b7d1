--- kip.arg.mcp — the ARG online loop as an MCP tool (docs/arg.md):
--- arg_request sends a user request with its structured context through
--- the loop and returns the ArgResult (outcome, route, bundle to answer
--- from, action result, episode id). Offered when the nexus has an ARG
--- ontology; it records an episode, so it is not offered read-only.
local core = require "kip.core"

local M = {}

M.TOOLS = {
  { name = "arg_request", title = "Route a user request through the governed ontology",
    description = "Send a user's request and its context (role, workspace, user, channel) through the ARG online loop. "
      .. "Returns an explicit outcome — ANSWER (answer only from result.bundle), ACTION (result.action was run), "
      .. "CLARIFY or ABSTAIN (say result.message), REFUSE or REFOCUS (say result.message) — with the route "
      .. "(weaver.primary_label, flags) and the episode id for feedback.",
    inputSchema = { type = "object", properties = {
      prompt = { type = "string", description = "the user's request, verbatim" },
      context = { type = "object", description = "role (customer | workspace_admin | support_agent | billing_admin | security_officer), "
        .. "workspace, user, channel, product, environment, timestamp, history" } },
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
