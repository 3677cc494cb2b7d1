--- kip.arg.connectors — approved external connectors (seed 003 step 4
--- "bind to an approved external connector", step 9 "external retrieval
--- mode", Annex 7.4 "connector budgets"; docs/arg.md "External sources").
--- A connector is a Lua file returning function(call) -> {content=...}
--- where call = {source, connector, prompt, context, timeout_ms}; it runs
--- sandboxed with an instruction budget sized by its timeout, and a run
--- that exceeds the timeout is reported as TIMEOUT. Registered by the
--- ExternalSource's `connector` name:
---
---   arg.configure(nx, { connectors = { statuspage = "/etc/kip/statuspage.lua" } })
---
--- Results are ephemeral: they go into the bundle and the episode, never
--- into the graph. An unregistered connector gives status NOT_CONFIGURED
--- (the source is still named in the bundle, as provenance).
local sandbox = require "kip.sandbox"

local M = {}

M.INSTRUCTIONS_PER_MS = 20000

function M.register(nx, map)
  nx._arg_connectors = nx._arg_connectors or {}
  for name, path in pairs(map or {}) do
    if type(path) == "function" then
      if jit then jit.off(path, true) end -- the budget hook does not fire inside compiled traces
      nx._arg_connectors[name] = { fn = path, name = name }
    else
      local env = sandbox.env("connector " .. name)
      local fn, err = sandbox.load_file(path, env)
      if not fn then return nil, err end
      if type(fn) ~= "function" then return nil, path .. ": a connector file must return a function" end
      nx._arg_connectors[name] = { fn = fn, name = name, path = path }
    end
  end
  return true
end

--- fetch from source src; returns {status = OK|NOT_CONFIGURED|TIMEOUT|FAILED, content, error, at}
function M.fetch(nx, src, request, timeout_ms)
  local c = nx._arg_connectors and nx._arg_connectors[src.connector]
  local at = request.context and request.context.timestamp or nil
  if not c then return { status = "NOT_CONFIGURED", at = at } end
  local started = os.clock()
  local ok, res = sandbox.run(timeout_ms * M.INSTRUCTIONS_PER_MS, c.fn, sandbox.copy {
    source = src.name, connector = src.connector, prompt = request.prompt, context = request.context,
    timeout_ms = timeout_ms })
  local took = (os.clock() - started) * 1000
  if not ok then
    local msg = tostring(res):match("^[^\n]*")
    local timeout = msg:find("instruction") or msg:find("budget") or took > timeout_ms
    return { status = timeout and "TIMEOUT" or "FAILED", error = msg, at = at }
  end
  if took > timeout_ms then return { status = "TIMEOUT", error = ("took %.0f ms"):format(took), at = at } end
  if type(res) ~= "table" then res = { content = res } end
  return { status = "OK", content = res.content, at = res.at or at }
end

return M
