--- kip.arg.result — the ArgResult of the online loop (seed 003 Annex 7.1;
--- docs/arg/*.schema.json): the outcome with the PolicyDecision,
--- WeaverOutput, BindResult, TraversalResult, FinalContextBundle (with what
--- a caller answers from), ActionResult and flags, built from the loop's
--- state; and the message for outcomes without an answer. Used by the loop
--- (kip.arg.loop) and by the registry when it records an episode.
local core = require "kip.core"

local M = {}

-- lists stay JSON arrays when empty (docs/arg/*.schema.json)
local function arrays(t, paths)
  for _, p in ipairs(paths) do
    local parent, key = t, nil
    for part in p:gmatch("[^.]+") do
      if key then parent = type(parent) == "table" and parent[key] or nil end
      key = part
    end
    if type(parent) == "table" then
      if key == "*" then
        for _, v in ipairs(parent) do if type(v) == "table" then setmetatable(v, core.array_mt) end end
      elseif parent[key] == nil or type(parent[key]) == "table" then
        parent[key] = setmetatable(parent[key] or {}, core.array_mt)
      end
    end
  end
  return t
end
M.LIST_FIELDS = { "flags", "errors", "bundle", "claims", "policy.reasons", "policy.constraints.forbidden_audiences",
  "policy.constraints.forbidden_labels", "candidates.raw", "candidates.filtered", "candidates.corrections",
  "weaver.L_final", "weaver.L_final_ids", "weaver.flags", "weaver.intents", "weaver.validator.reasons",
  "weaver.validator.checked", "bind.landing", "bind.external", "bind.action.missing", "traversal.visited",
  "traversal.path", "traversal.targets", "analysis.corrections" }

-- the ArgResult (Annex 7.1 objects; docs/arg/*.schema.json)
function M.build(st)
  local w, b = st.weaver or { flags = {} }, st.bind or {}
  local flags = {}
  for _, f in ipairs(w.flags or {}) do flags[#flags + 1] = f end
  if st.policy and st.policy.state ~= "ALLOW" and st.policy.state ~= "RESTRICT" then flags[#flags + 1] = "POLICY_" .. st.policy.state end
  for _, f in ipairs(st.flags or {}) do flags[#flags + 1] = f end -- execution flags (the Active Check's LOW_COVERAGE)
  if #(st.claims or {}) > 0 then flags[#flags + 1] = "AUTHORITY_CLAIM" end
  if st.veto then flags[#flags + 1] = "POST_CHECK_" .. st.veto.outcome end
  local r = {
    outcome = st.outcome,
    decided_at = st.decided_at,
    episode_id = st.episode_id,
    ontology_version = st.snapshot.version,
    policy = st.policy and st.policy.decision or nil,
    candidates = st.candidates,
    weaver = {
      L_final = w.L_final, L_final_ids = w.L_final_ids, primary_label = w.primary,
      label_signature = w.label_signature, label_path = w.label_path, retrieval_type = w.retrieval_type,
      confidence = w.confidence and math.floor(w.confidence * 1000 + 0.5) / 1000 or 0,
      rival = w.rival, coverage = w.coverage, foreign = w.foreign, hedge = w.hedge, intents = w.intents, validator = w.validator, flags = w.flags,
      redirected_from = w.redirected_from, hidden_label = w.hidden_label, draft_label = w.draft_label,
      hook = w.hook,
    },
    bind = { eligible_set = b.eligible_id, eligible = #(b.eligible or {}), landing = b.landing, path = b.path or "NONE",
      action = b.action, external = b.external },
    traversal = st.traversal,
    bundle = M.bundle(st),
    action = st.action,
    caller = st.caller and { role = st.caller.role, tenant = st.caller.tenant, user = st.caller.user } or nil,
    claims = st.claims,
    post_check = st.veto and { outcome = st.veto.outcome, stage = st.veto.stage, reasons = st.veto.reasons } or nil,
    info = st.info,
    coverage = st.coverage,
    flags = flags,
    errors = st.errors,
    timings = st.timings,
    analysis = { corrections = st.analysis.corrections, act = st.analysis.act, clauses = #st.analysis.clauses },
  }
  r.message = M.message(r, st)
  return arrays(r, M.LIST_FIELDS)
end

--- the FinalContextBundle with what a caller answers from: each unit's
--- title and chunk (or the connector's content) and its provenance (label,
--- ontology version, element id) — no second read needed
function M.bundle(st)
  local out, m = {}, st.snapshot
  for i, u in ipairs(st.bundle or {}) do
    local n = m.nodes[u.node]
    local x = {}
    for k, v in pairs(u) do x[k] = v end
    if n then
      x.title, x.chunk = n.title, n.chunk
      x.provenance = { id = n.id, label = u.label, ontology_version = m.version }
    elseif m.sources[u.node] then
      x.provenance = { id = m.sources[u.node].id, label = u.label, connector = u.connector, fetched_at = u.fetched_at,
        ontology_version = m.version }
    end
    out[i] = x
  end
  return out
end

--- what to tell the caller for outcomes without an answer
function M.message(r, st)
  local o = r.outcome
  local pm = st.snapshot.profile
  if o == "REFUSE" then
    local why = r.post_check and r.post_check.reasons or (r.policy or {}).reasons or {}
    return "I can't help with that request. " .. table.concat(why, "; ")
  elseif o == "REFOCUS" then
    return pm.refocus_message
  elseif o == "CLARIFY" then
    local a = r.bind.action
    if r.post_check and r.post_check.outcome == "CLARIFY" then
      return "Please confirm: " .. table.concat(r.post_check.reasons or {}, "; ")
    end
    if a and a.status == "AMBIGUOUS" then
      return ("Which of these do you want: %s?"):format(table.concat(a.candidates or {}, ", "))
    end
    if r.weaver.hedge then
      return ("You gave alternatives (\"%s\"); which one should I do?"):format(r.weaver.hedge:gsub("^%s+", ""):gsub("%s+$", ""))
    end
    if a and a.status == "MISMATCH" then
      return ("You asked for something %s does not do (%s); which operation do you want?"):format(tostring(a.name), a.reason)
    end
    if a and a.status == "LOW_CONFIDENCE" then
      return ("Do you want me to run %s? Please confirm what you need."):format(tostring(a.name))
    end
    if r.action and r.action.status == "IN_PROGRESS" then return "That action is already being run; please check back shortly." end
    if a and a.missing and #a.missing > 0 then
      return ("To run %s I need: %s."):format(a.name, table.concat(a.missing, ", "))
    end
    if r.weaver.validator and r.weaver.validator.ok == false then
      return "These requests conflict (" .. table.concat(r.weaver.validator.reasons, "; ") .. "); which one do you want?"
    end
    return "Could you tell me more about what you need help with?"
  elseif o == "ABSTAIN" then
    local a = r.bind.action
    local x = r.action
    if r.post_check then return "I can't complete that: " .. table.concat(r.post_check.reasons or {}, "; ") end
    if x and x.status == "NOT_EXECUTED" then return "I could not run " .. x.name .. ": it is not connected here." end
    if x and (x.status == "FAILED" or x.status == "COMPENSATED" or x.status == "COMPENSATION_FAILED") then
      return "I tried to run " .. x.name .. " and it did not complete (" .. tostring(x.reason or x.status) .. ")."
    end
    if a and a.status == "UNAUTHORIZED" then return "I can't run " .. (a.name or "that action") .. " for your role." end
    if a and a.status == "NO_ACTION" then return "I have no action that does this." end
    return "I don't have information about that."
  end
  return nil
end

return M
