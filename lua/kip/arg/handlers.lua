--- kip.arg.handlers — operator-registered action handlers (seed 003 step 8,
--- Annex 7.4 "idempotency", "compensation"; docs/arg.md "Actions"). A
--- handler is a Lua file returning either function(call) -> result table,
--- or a table {run = function(call), compensate = function(call, result)}:
--- compensate undoes what run did when the post-check fails after it
--- (seed 003 Annex 7.4). call = {action, params, idempotency_key, caller,
--- context}: caller is the authenticated caller (role, tenant, user) — a
--- handler checks identifiers the engine could not resolve (an invoice's
--- tenant) against it. Handlers are extensions of kind "handler"
--- (kip.extension: the sandbox's whitelisted libraries, memory cap and
--- instruction budget — a handler that loops fails instead of hanging the
--- request — and hot reload) registered under the action's `handler` name:
---
---   arg.configure(nx, { handlers = { ["arg.actions.issue_refund"] = "/etc/kip/refund.lua" } })
---
--- Idempotency is the loop's (steps/action.lua): a request that repeats an
--- action already run returns its first result from the durable record
--- without calling the handler again.
local sandbox = require "kip.sandbox"
local extension = require "kip.extension"
local state = require "kip.state"

local M = {}

extension.kind("handler", {
  label = "handler",
  check = function(v)
    if type(v) == "function" then return { run = v } end
    if type(v) == "table" and type(v.run) == "function" then
      if v.compensate ~= nil and type(v.compensate) ~= "function" then return nil, "compensate must be a function" end
      return v
    end
    return nil, "a handler is a function or a table {run = function(call), compensate = function(call, result)}"
  end,
})

--- load handler files: map of handler name -> path, function or table;
--- returns nil, message on the first failure
function M.register(nx, map)
  local st = state.of(nx, "arg")
  st.handlers = st.handlers or {}
  return extension.register(st.handlers, "handler", map)
end

function M.find(nx, name) local h = state.of(nx, "arg").handlers return h and h[name] or nil end

--- run handler h; returns ok, result-or-message
function M.call(h, call)
  local ok, res = extension.call(h, "run", nil, sandbox.copy(call))
  if not ok then return false, res end
  if type(res) ~= "table" then res = { result = res } end
  return true, res
end

--- undo what h's run did (its declared compensation); returns ok,
--- result-or-message; (false, "no compensation") when it declares none
function M.compensate(h, call, result)
  extension.refresh(h)
  if not h.compensate then return false, ("handler %s declares no compensation"):format(h.name) end
  local ok, res = extension.call(h, "compensate", nil, sandbox.copy(call), sandbox.copy(result))
  if not ok then return false, res end
  return true, type(res) == "table" and res or { result = res }
end

return M
