--- kip.arg.steps.action — step 8 of seed 003: execute the bound action.
--- Authorization is checked again here, against the action in the pinned
--- snapshot and the caller's role; only an action that exists, is bound to
--- the primary label and has every parameter runs, through the handler the
--- operator registered for its `handler` name (kip.arg.handlers, sandboxed
--- like policies, with an idempotency key). No handler registered: the
--- action is selected but not executed (status NOT_EXECUTED) unless
--- opts.execute_without_handler is set (evaluation); a failing handler is
--- reported (FAILED), never retried here. The ActionResult.
local handlers = require "kip.arg.handlers"

local M = {}

function M.run(st)
  local b = st.bind
  if b.path ~= "ACTION" or not b.action or b.action.status ~= "BOUND" then return end
  local m = st.snapshot
  local act = m.actions[b.action.name]
  local role = (st.request.context or {}).role
  local ok = false
  for _, r in ipairs(act and act.required_roles or {}) do if r == role then ok = true end end
  local r = { name = b.action.name, params = b.action.params, executed = false, idempotency_key = st.episode_id }
  st.action = r
  if not ok or act.label ~= st.weaver.primary then
    r.status, r.reason = "UNAUTHORIZED", "authorization re-check failed"
    return
  end
  if st.opts.replay then -- replay decides again, it never acts again
    r.status = "REPLAYED"
    return
  end
  local h = handlers.find(st.nx, act.handler)
  if not h then
    if st.opts.execute_without_handler then
      r.status, r.executed, r.trace = "EXECUTED", true, "no handler registered; executed as a dry run (evaluation)"
    else
      r.status, r.reason = "NOT_EXECUTED", "no handler is registered for " .. tostring(act.handler)
    end
    return
  end
  local okh, out = handlers.call(h, { action = act.name, params = r.params, idempotency_key = r.idempotency_key,
    context = st.request.context })
  if okh then
    r.status, r.executed, r.output = "EXECUTED", true, out
  else
    r.status, r.reason = "FAILED", out
    st.errors[#st.errors + 1] = { code = "ARG_ACTION_FAILED", step = "action", message = out,
      hint = "The action's handler failed; nothing was retried." }
  end
end

return M
