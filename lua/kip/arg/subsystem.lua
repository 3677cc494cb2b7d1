--- kip.arg.subsystem — what the ARG subsystem (seed 003; docs/arg.md) adds
--- to the front ends, registered in kip.subsystems: `kip arg …`, the
--- arg_request MCP tool (when the nexus has an ARG ontology), the POST
--- /kip/arg route, policies/arg.lua in every governed nexus, and
--- nx:arg / nx:arg_feedback.
local M = { name = "arg" }

M.commands = "kip.arg.cli"
M.mcp = "kip.arg.mcp"

M.policies = { "arg" }

M.methods = {
  --- nx:arg{prompt=, context={…}} → ArgResult (outcome, route, bundle, episode_id), or nil, error
  arg = function(nx, request, opts) return require("kip.arg").run(nx, request, opts) end,
  --- nx:arg_feedback(episode_id, {verified = true|false, note = …})
  arg_feedback = function(nx, episode_id, feedback, opts) return require("kip.arg").feedback(nx, episode_id, feedback, opts) end,
}

-- POST /kip/arg {prompt, context}: the caller is the authenticated one the
-- HTTP front end passes, never the body
M.http = {
  arg = function(nx, caller, req)
    if type(req) ~= "table" then
      return 400, { error = { code = "ARG_REQUEST_INVALID", name = "InvalidRequest", message = "the body must be an object",
        hint = 'Send {"prompt": "...", "context": {"channel": "...", ...}}; the caller is the X-KIP-Roles/Tenant/User identity.' } }
    end
    local r, err = require("kip.arg").run(nx, { prompt = req.prompt, context = req.context }, { ctx = caller })
    if not r then
      local status = (err.code == "ARG_REQUEST_INVALID" and 400) or (err.code == "ARG_BIND_NO_ONTOLOGY" and 404)
        or ((err.code == "ARG_IDENTITY_UNKNOWN" or err.code == "ARG_IDENTITY_AMBIGUOUS") and 403) or 500
      return status, { error = err }
    end
    return 200, { result = r }
  end,
}

return M
