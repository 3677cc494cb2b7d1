--- kip.arg.handlers — operator-registered action handlers (seed 003 step 8,
--- Annex 7.4 "idempotency", "compensation"; docs/arg.md "Actions"). A
--- handler is a Lua file returning either function(call) -> result table,
--- or a table {run = function(call), compensate = function(call, result)}:
--- compensate undoes what run did when the post-check fails after it
--- (seed 003 Annex 7.4). call = {action, params, idempotency_key, caller,
--- context}: caller is the authenticated caller (role, tenant, user) — a
--- handler checks identifiers the engine could not resolve (an invoice's
--- tenant) against it. Handlers load into the same sandbox as policies
--- (whitelisted libraries, memory cap, instruction budget: a handler that
--- loops fails instead of hanging the request) and are registered under the
--- action's `handler` name:
---
---   arg.configure(nx, { handlers = { ["arg.actions.issue_refund"] = "/etc/kip/refund.lua" } })
---
--- Idempotency is the loop's (steps/action.lua): a request that repeats an
--- action already run returns its first result from the durable record
--- without calling the handler again.
local sandbox = require "kip.sandbox"

local M = {}

M.BUDGET = 2000000 -- instructions per handler call

local function entry(name, v, path)
  if type(v) == "function" then return { fn = v, name = name, path = path } end
  if type(v) == "table" and type(v.run) == "function" then
    if v.compensate ~= nil and type(v.compensate) ~= "function" then return nil, "compensate must be a function" end
    return { fn = v.run, compensate = v.compensate, name = name, path = path }
  end
  return nil, "a handler is a function or a table {run = function(call), compensate = function(call, result)}"
end

--- load handler files: map of handler name -> path, function or table;
--- returns nil, message on the first failure
function M.register(nx, map)
  nx._arg_handlers = nx._arg_handlers or {}
  for name, v in pairs(map or {}) do
    local h, err
    if type(v) == "string" then
      local loaded, lerr = sandbox.load_file(v, sandbox.env("handler " .. name), M.BUDGET)
      if not loaded then return nil, lerr end
      h, err = entry(name, loaded, v)
      if not h then return nil, v .. ": " .. err end
    else
      h, err = entry(name, v)
      if not h then return nil, "handler " .. name .. ": " .. err end
      if jit then -- the budget hook does not fire inside compiled traces
        jit.off(h.fn, true)
        if h.compensate then jit.off(h.compensate, true) end
      end
    end
    nx._arg_handlers[name] = h
  end
  return true
end

function M.find(nx, name) return nx._arg_handlers and nx._arg_handlers[name] or nil end

--- run handler h; returns ok, result-or-message
function M.call(h, call)
  local ok, res = sandbox.run(M.BUDGET, h.fn, sandbox.copy(call))
  if not ok then return false, ("handler %s failed: %s"):format(h.name, tostring(res):match("^[^\n]*")) end
  if type(res) ~= "table" then res = { result = res } end
  return true, res
end

--- undo what h's run did (its declared compensation); returns ok,
--- result-or-message; (false, "no compensation") when it declares none
function M.compensate(h, call, result)
  if not h.compensate then return false, ("handler %s declares no compensation"):format(h.name) end
  local ok, res = sandbox.run(M.BUDGET, h.compensate, sandbox.copy(call), sandbox.copy(result))
  if not ok then return false, ("compensation of %s failed: %s"):format(h.name, tostring(res):match("^[^\n]*")) end
  return true, type(res) == "table" and res or { result = res }
end

return M
