--- kip.arg.connectors — approved external connectors (seed 003 step 4
--- "bind to an approved external connector", step 9 "external retrieval
--- mode", Annex 7.4 "connector budgets"; docs/arg.md "External sources").
--- A connector is a Lua file returning function(call) -> {content=...}
--- where call = {source, connector, prompt, context, timeout_ms}; it runs
--- as an extension of kind "connector" (kip.extension: sandboxed,
--- hot-reloaded) with an instruction budget sized by its timeout, and a run
--- that exceeds the timeout is reported as TIMEOUT. Registered by the
--- ExternalSource's `connector` name:
---
---   arg.configure(nx, { connectors = { statuspage = "/etc/kip/statuspage.lua" } })
---
--- Results are ephemeral: they go into the bundle and the episode, never
--- into the graph. An unregistered connector gives status NOT_CONFIGURED
--- (the source is still named in the bundle, as provenance).
local core = require "kip.core"
local sandbox = require "kip.sandbox"
local extension = require "kip.extension"
local state = require "kip.state"

local M = {}

extension.kind("connector", {
  budget = "connector_per_ms",
  check = function(v)
    if type(v) == "function" then return { run = v } end
    if type(v) == "table" and type(v.run) == "function" then return v end
    return nil, "a connector file must return a function"
  end,
})

function M.register(nx, map)
  local st = state.of(nx, "arg")
  st.connectors = st.connectors or {}
  return extension.register(st.connectors, "connector", map)
end

--- fetch from source src; returns {status = OK|NOT_CONFIGURED|TIMEOUT|FAILED, content, error, at}
function M.fetch(nx, src, request, timeout_ms)
  local cs = state.of(nx, "arg").connectors
  local c = cs and cs[src.connector]
  local at = request.context and request.context.timestamp or nil
  if not c then return { status = "NOT_CONFIGURED", at = at } end
  local started = core.monotonic_ms() -- wall time: a host's connector may wait on a service
  local ok, res = extension.call(c, "run", timeout_ms * extension.BUDGETS.connector_per_ms, sandbox.copy {
    source = src.name, connector = src.connector, prompt = request.prompt, context = request.context,
    timeout_ms = timeout_ms })
  local took = core.monotonic_ms() - started
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
