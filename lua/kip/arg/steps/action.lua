--- kip.arg.steps.action — step 8 of seed 003: execute the bound action,
--- after the post-check (steps/check.lua) let the decision stand.
--- Authorization is checked again here, against the action in the pinned
--- snapshot and the authenticated caller's role; only an action that
--- exists, is bound to the primary label and has every parameter runs,
--- through the handler the operator registered for its `handler` name
--- (kip.arg.handlers, sandboxed like policies).
---
--- Honest and durable (Annex 7.4 "idempotency", "compensation"):
---   * the idempotency key is derived from the caller and a request id the
---     client supplies (context.request_id), else from the caller, the action
---     and its parameters within IDEMPOTENCY_WINDOW_S; a request whose key
---     already ran returns the first result (status EXECUTED, replayed_from
---     naming the first episode) instead of running again — across
---     processes, through the ArgActionRun record claimed before the handler
---     runs (EXPECT VERSION 0: one claimant wins);
---   * no handler registered: NOT_EXECUTED (unless opts.execute_without_handler,
---     an evaluation's dry run); a failing handler: FAILED, never retried here;
---   * after the handler, the post-check sees the execution; a veto runs the
---     handler's declared compensation (COMPENSATED, or COMPENSATION_FAILED);
---   * the outcome is ACTION only when the handler ran and succeeded
---     (kip.arg.decide); the episode stores status, output and timings.
local handlers = require "kip.arg.handlers"
local registry = require "kip.arg.registry"
local core = require "kip.core"

local M = {}

M.IDEMPOTENCY_WINDOW_S = 600

-- a hash in letters only (kip.ids): a key of hex digits can hold a run of
-- 13 to 19 digits that passes the Luhn check, which the default policy's
-- secret scan takes for a payment card number and refuses to store (the run
-- record then failed and the action was not run, for the 10-minute windows
-- whose key happened to hold one)
local function hash(text) return require("kip.ids").letters(require("kip.arg.snapshot").hash(text)) end

--- the idempotency key of running action `name` with `params` for state st
function M.key(st, name, params)
  local c = st.caller or {}
  local who = table.concat({ tostring(c.role), tostring(c.tenant), tostring(c.user), tostring(c.actor) }, "|")
  local rid = (st.request.body or {}).request_id
  if type(rid) == "string" and rid ~= "" then
    return "act-" .. hash(who .. "|" .. rid) .. hash(rid .. "|" .. name .. "|" .. who), nil
  end
  local now = st.opts.now or os.time()
  local bucket = math.floor(now / M.IDEMPOTENCY_WINDOW_S)
  local body = who .. "|" .. name .. "|" .. core.json_encode(params or {})
  local function k(b) return "act-" .. hash(body .. "|" .. b) .. hash(b .. "|" .. body) end
  return k(bucket), k(bucket - 1) -- a retry just after a window's end finds the run of the one before
end

function M.run(st)
  local b = st.bind
  if st.veto or b.path ~= "ACTION" or not b.action or b.action.status ~= "BOUND" then return end
  local m = st.snapshot
  local act = m.actions[b.action.name]
  local role = st.caller and st.caller.role
  local ok = false
  for _, r in ipairs(act and act.required_roles or {}) do if r == role then ok = true end end
  local key, previous = M.key(st, b.action.name, b.action.params)
  local r = { name = b.action.name, params = b.action.params, executed = false, idempotency_key = key, timings = {} }
  st.action = r
  if not ok or act.label ~= st.weaver.primary then
    r.status, r.reason = "UNAUTHORIZED", "authorization re-check failed"
    return
  end
  if st.opts.replay then -- replay decides again, it never acts again
    r.status = st.opts.replay_action_status or "REPLAYED"
    r.executed = r.status == "EXECUTED"
    return
  end
  local h = handlers.find(st.nx, act.handler)
  if not h and not st.opts.execute_without_handler then
    r.status, r.reason = "NOT_EXECUTED", "no handler is registered for " .. tostring(act.handler)
    return
  end
  local durable = st.opts.record ~= false
  local ctx = st.ctx
  if durable then
    local expect = 0
    for i, k in ipairs { key, previous } do
      local prior = registry.action_run(st.nx, ctx, k)
      if prior then
        if prior.status == "EXECUTED" then
          r.status, r.executed, r.output, r.replayed_from = "EXECUTED", true, prior.output, prior.episode
          r.idempotency_key = k
          return
        end
        local stale = prior.status == "RUNNING" and (tonumber(prior.claimed_at_s) or 0) + M.IDEMPOTENCY_WINDOW_S < os.time()
        if prior.status == "RUNNING" and not stale then
          r.status, r.reason = "IN_PROGRESS", "the same action is being run by an earlier request (" .. tostring(prior.episode) .. ")"
          return
        end
        -- a failed, undone or abandoned run of this key is tried again
        if i == 1 then expect = prior._version or 0 end
      end
    end
    local claimed, cerr = registry.claim_action(st.nx, ctx, key, { status = "RUNNING", action = r.name,
      episode = st.episode_id, claimed_at = os.date("!%Y-%m-%dT%H:%M:%SZ"), claimed_at_s = os.time() }, expect)
    if claimed == false then
      r.status, r.reason = "IN_PROGRESS", "another request claimed this action first"
      return
    elseif not claimed then
      r.status, r.reason = "FAILED", "the action run could not be recorded: " .. tostring(cerr and cerr.message)
      st.errors[#st.errors + 1] = { code = "ARG_ACTION_FAILED", step = "action", message = r.reason,
        hint = "Nothing was executed." }
      return
    end
  end
  local call = { action = act.name, params = r.params, idempotency_key = key, caller = st.caller,
    context = st.request.body }
  local t0 = core.monotonic_ms() -- wall time: a handler may wait on a service
  if not h then
    r.status, r.executed, r.dry_run = "EXECUTED", true, true
    r.trace = "no handler registered; executed as a dry run (evaluation)"
  else
    local okh, out = handlers.call(h, call)
    if okh then
      r.status, r.executed, r.output = "EXECUTED", true, out
    else
      r.status, r.reason = "FAILED", out
      st.errors[#st.errors + 1] = { code = "ARG_ACTION_FAILED", step = "action", message = out,
        hint = "The action's handler failed; nothing was retried." }
    end
  end
  r.timings.handler_ms = core.monotonic_ms() - t0
  -- the post-check sees what ran; a veto undoes it
  if r.executed then
    local v = require("kip.arg.steps.check").verdict(st, "executed")
    if v and v.outcome then
      st.veto = { outcome = v.outcome, reasons = v.reasons, stage = "executed" }
      if h then
        local okc, cres = handlers.compensate(h, call, r.output)
        r.compensation = cres
        r.status = okc and "COMPENSATED" or "COMPENSATION_FAILED"
        if not okc then
          st.errors[#st.errors + 1] = { code = "ARG_ACTION_COMPENSATION_FAILED", step = "action", message = tostring(cres),
            hint = "The action ran and the post-check refused it afterwards; undo it by hand." }
        end
      else
        r.status = "COMPENSATED"
      end
      r.executed = false
    end
  end
  if durable then
    registry.finish_action(st.nx, ctx, key, { status = r.status, action = r.name, episode = st.episode_id,
      output = r.output, reason = r.reason, finished_at = os.date("!%Y-%m-%dT%H:%M:%SZ"), handler_ms = r.timings.handler_ms })
  end
end

return M
