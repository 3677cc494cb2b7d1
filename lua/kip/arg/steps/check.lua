--- kip.arg.steps.check — the Policy Post-Check of seed 003 (§1.1 "MUST run
--- post-check before emitting a response and before any write", step 8
--- "re-check action authorization", step 9 "Policy Post-Check before
--- emitting the final response", step 10 "post-check (and memory guard
--- rules) before writing", Annex 7.4 "compensation"; docs/arg.md
--- "Post-check").
---
--- It runs once the decision is complete and before anything acts: the
--- proposed outcome, the bundle units with their text, audiences and
--- provenance, the action with its parameters and their tenancy bindings
--- (kip.arg.tenancy), and the registry writes the request will make. Every
--- policy's arg_post_check(req, decision, ctx) sees it (policies/arg.lua is
--- always among them) and may answer
---   nil                                   the decision stands
---   {state = "BLOCK", reasons}            veto: REFUSE, nothing runs
---   {outcome = "ABSTAIN" | "CLARIFY", reasons}   veto with a milder outcome
---   {confirm = true, reasons}             the action needs the caller's confirmation: CLARIFY
---   {drop_units = {node...}, reasons}     redaction: those units leave the bundle
--- A policy that fails vetoes (fail closed). After an action ran, the same
--- hook sees it again with stage = "executed" and the handler's output; a
--- veto then runs the handler's compensation (steps/action.lua).
local policy = require "kip.policy"
local tenancy = require "kip.arg.tenancy"
local params = require "kip.arg.params"

local M = {}

local function units(st)
  local m, out = st.snapshot, {}
  for _, u in ipairs(st.bundle or {}) do
    local n, src = m.nodes[u.node], m.sources[u.node]
    local labels, auds = (n or src or {}).labels or {}, {}
    for _, l in ipairs(labels) do auds[#auds + 1] = m.labels[l] and m.labels[l].audience or "" end
    out[#out + 1] = { node = u.node, label = u.label, source = u.source, title = n and n.title or nil,
      chunk = n and n.chunk or nil, audience = n and n.audience or nil, labels = labels, label_audiences = auds,
      content = u.content }
  end
  return out
end

--- the decision as the post-check sees it; stage "decision" | "executed"
function M.decision(st, stage)
  local outcome = require("kip.arg.loop").decide(st)
  local w, b = st.weaver or {}, st.bind or {}
  local action
  local a = st.action or b.action
  if b.path == "ACTION" and a and a.name and a.params then
    local own_only = {}
    for name, spec in pairs(((st.snapshot.actions or {})[a.name] or {}).params or {}) do
      if params.callers_own(type(spec) == "table" and spec.description) then own_only[name] = true end
    end
    action = { name = a.name, params = a.params, status = a.status, output = a.output,
      bindings = tenancy.bind_params(st.snapshot.profile, st.caller, a.params, st.hooks.resolve, own_only) }
  end
  return { stage = stage, outcome = outcome, primary_label = w.primary, retrieval_type = w.retrieval_type,
    confidence = w.confidence, bundle = units(st), action = action,
    writes = st.opts.record ~= false and { episode = true, info_unit = outcome == "ANSWER" or outcome == "ACTION" } or {} }
end

--- run every policy's arg_post_check over the decision; returns the
--- verdict {outcome, reasons, drop, confirm} or nil when it stands
function M.verdict(st, stage)
  local d = M.decision(st, stage)
  local req = {} -- each policy gets its own deep copy below
  for k, v in pairs(st.policy_request or {}) do req[k] = v end
  req.stage = stage
  local ctx = policy.copy(st.ctx or {})
  local drop, reasons, out = {}, {}, nil
  local log = { stage = stage, checked = {} }
  for _, p in ipairs(require("kip.arg.steps.policy").policies(st.nx)) do
    if p.arg_post_check then
      log.checked[#log.checked + 1] = p.name
      local ok, r = policy.call(p, "arg_post_check", nil, policy.copy(req), policy.copy(d), ctx)
      if not ok then
        st.errors[#st.errors + 1] = { code = "ARG_POLICY_FAILED", step = "post_check", message = r,
          hint = "A governance policy's post-check failed; the request is refused (fail closed)." }
        r = { state = "BLOCK", reasons = { r } }
      end
      if type(r) == "table" then
        for _, x in ipairs(type(r.reasons) == "table" and r.reasons or {}) do reasons[#reasons + 1] = tostring(x) end
        if r.state == "BLOCK" then out = { outcome = "REFUSE" }
        elseif (r.outcome == "ABSTAIN" or r.outcome == "CLARIFY") and not (out and out.outcome == "REFUSE") then
          out = { outcome = r.outcome }
        elseif r.confirm and not out then out = { outcome = "CLARIFY", confirm = true } end
        for _, n in ipairs(type(r.drop_units) == "table" and r.drop_units or {}) do drop[#drop + 1] = tostring(n) end
      end
      if out and out.outcome == "REFUSE" then break end
    end
  end
  local array = require("kip.core").array_mt
  log.reasons = setmetatable(reasons, array)
  setmetatable(log.checked, array)
  if out then log.veto = out.outcome end
  if #drop > 0 then log.dropped = setmetatable(drop, array) end
  st.post_check = st.post_check or {}
  st.post_check[#st.post_check + 1] = log
  if not out and #drop == 0 then return nil end
  return { outcome = out and out.outcome, confirm = out and out.confirm, reasons = reasons, drop = drop }
end

function M.run(st)
  local v = M.verdict(st, "decision")
  if not v then return end
  if #v.drop > 0 then
    local gone = {}
    for _, n in ipairs(v.drop) do gone[n] = true end
    local kept = {}
    for _, u in ipairs(st.bundle or {}) do if not gone[u.node] then kept[#kept + 1] = u end end
    st.bundle = kept
    st.flags = st.flags or {}
    st.flags[#st.flags + 1] = "POST_CHECK_REDACTED"
  end
  if v.outcome then st.veto = { outcome = v.outcome, reasons = v.reasons, confirm = v.confirm, stage = "decision" } end
end

return M
