--- kip.arg.steps.bind — step 4 of seed 003, landing point: the bound
--- eligible set N_scope = policy scope ∩ attachments of L_final (visible
--- nodes of the ACTIVE labels routed to), the landing points inside it
--- (the primary label's nodes ranked by their step-2 score), the external
--- source to bind when RetrievalType = EXTERNAL, and the action-vs-info
--- decision: the action path only when the request asks to act now, an
--- action is bound to the primary label, and routing is confident —
--- otherwise Info or Clarify (never an invented action). The BindResult.
local params = require "kip.arg.params"

local M = {}

function M.run(st)
  local m, w, pol = st.snapshot, st.weaver, st.policy
  local b = { eligible = {}, landing = {}, path = "NONE", external = {} }
  st.bind = b
  if not w.primary then return end
  -- N_scope: visible nodes of the routed labels (and of the labels their
  -- deprecated sources redirect to, which are in L_final already)
  local seen = {}
  for _, l in ipairs(w.L_final) do
    for _, n in ipairs(m.labels[l].nodes) do
      -- a deprecated node (merged away) never answers: its redirect target does
      if not seen[n] and pol.visible_node(n) and m.nodes[n].lifecycle ~= "DEPRECATED" then
        seen[n] = true
        b.eligible[#b.eligible + 1] = n
      end
    end
    if m.labels[l].retrieval_type == "EXTERNAL" then
      for _, s in ipairs(m.labels[l].sources) do
        if pol.visible_source(s) then b.external[#b.external + 1] = { source = s, label = l } end
      end
    end
  end
  b.eligible_id = #b.eligible .. ":" .. table.concat(w.L_final, "|")
  -- landing points: eligible nodes of the primary label, best step-2 score first
  local score = st.node_scores or {}
  local land = {}
  for _, n in ipairs(m.labels[w.primary].nodes) do if seen[n] then land[#land + 1] = n end end
  table.sort(land, function(x, y)
    local sx, sy = score[x] or 0, score[y] or 0
    return sx > sy or (sx == sy and x < y)
  end)
  b.landing = land
  -- action or info
  local a = st.analysis
  local asked
  for _, it in ipairs(w.intents) do if it.act and it.label == w.primary then asked = true end end
  if #w.intents <= 1 and a.act then asked = true end
  if asked then
    local actions = m.labels[w.primary].actions
    b.path = "ACTION"
    if #actions == 0 then
      b.action = { status = "NO_ACTION", reason = "no action is bound to " .. w.primary }
    else
      local act = m.actions[actions[1]]
      local role = (st.request.context or {}).role
      local authorized = false
      for _, r in ipairs(act.required_roles) do if r == role then authorized = true end end
      if not authorized then
        b.action = { name = act.name, status = "UNAUTHORIZED",
          reason = ("role %s is not among %s"):format(tostring(role), table.concat(act.required_roles, ", ")) }
      else
        local values, missing = params.fill(act, a)
        b.action = { name = act.name, params = values, missing = missing,
          status = #missing == 0 and "BOUND" or "INCOMPLETE" }
      end
    end
  else
    b.path = (#b.external > 0 and #land == 0) and "EXTERNAL" or "INFO"
  end
end

return M
