--- kip.arg.handlers — operator-registered action handlers (seed 003 step 8,
--- Annex 7.4 "idempotency"; docs/arg.md "Actions"). A handler is a Lua file
--- returning function(call) -> result table, where call = {action, params,
--- idempotency_key, context}. It loads into the same sandbox as policies
--- (whitelisted libraries, memory cap, instruction budget: a handler that
--- loops fails instead of hanging the request) and is registered under the
--- action's `handler` name:
---
---   arg.configure(nx, { handlers = { ["arg.actions.issue_refund"] = "/etc/kip/refund.lua" } })
---
--- A call with an idempotency key that already ran returns the first
--- result again (per nexus, for the process lifetime; the episode registry
--- keeps the durable record).
local sandbox = require "kip.sandbox"

local M = {}

M.BUDGET = 2000000 -- instructions per handler call

--- load handler files: map of handler name -> path; returns nil, message on the first failure
function M.register(nx, map)
  nx._arg_handlers = nx._arg_handlers or {}
  for name, path in pairs(map or {}) do
    if type(path) == "function" then
      if jit then jit.off(path, true) end -- the budget hook does not fire inside compiled traces
      nx._arg_handlers[name] = { fn = path, name = name, done = {} }
    else
      local env = sandbox.env("handler " .. name)
      local fn, err = sandbox.load_file(path, env, M.BUDGET)
      if not fn then return nil, err end
      if type(fn) ~= "function" then return nil, path .. ": a handler file must return a function" end
      nx._arg_handlers[name] = { fn = fn, name = name, path = path, done = {} }
    end
  end
  return true
end

function M.find(nx, name) return nx._arg_handlers and nx._arg_handlers[name] or nil end

--- run handler h; returns ok, result-or-message
function M.call(h, call)
  local key = call.idempotency_key
  if key and h.done[key] then return true, h.done[key] end
  local ok, res = sandbox.run(M.BUDGET, h.fn, sandbox.copy(call))
  if not ok then return false, ("handler %s failed: %s"):format(h.name, tostring(res):match("^[^\n]*")) end
  if type(res) ~= "table" then res = { result = res } end
  if key then h.done[key] = res end
  return true, res
end

return M
