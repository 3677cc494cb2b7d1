--- kip.mind.gates — the promotion gates (seed 004 Stage-1 thresholds): read
--- from the nexus's `mind_gates` policy (policies/mind_gates.lua, hot
--- reloaded when the file changes), else these defaults; and the gate
--- check itself — a read-only report of whether a Knowledge item's
--- role-separated evidence meets its tier's gate.
local M = {}

M.DEFAULTS = {
  dao_tian = { target = "canonical", supporting = 3, verification = 2, teaching = 1, reviewer = true, counterexamples_block = true },
  dao_ren = { target = "promoted", supporting = 2, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
  shu = { target = "promoted", supporting = 1, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
  qi = { target = "promoted", supporting = 1, verification = 1, teaching = 0, reviewer = false, counterexamples_block = true },
}

--- the gates in force for nexus nx (and where they come from)
function M.current(nx)
  if nx.policies then
    for _, p in ipairs(nx.policies:list()) do
      if p.name == "mind_gates" and type(p.gates) == "table" then return p.gates, p.path end
    end
  end
  return M.DEFAULTS, "built-in defaults"
end

--- evaluate gate g on evidence counts {supporting, verification, teaching,
--- counterexample}; returns the report
function M.evaluate(g, counts, roles)
  local missing, ready = {}, true
  for _, role in ipairs { "supporting", "verification", "teaching" } do
    local need, have = g[role] or 0, counts[role] or 0
    if have < need then
      missing[role] = need - have
      ready = false
    end
  end
  local blocked = g.counterexamples_block and (counts.counterexample or 0) > 0
  if blocked then ready = false end
  local reviewer_ok = not g.reviewer
  for _, r in ipairs(roles or {}) do if r == "reviewer" then reviewer_ok = true end end
  return { ready = ready, target = g.target, missing = missing, blocked_by_counterexamples = blocked or false,
    reviewer_required = g.reviewer or false, reviewer_present = reviewer_ok, counts = counts, gate = g }
end

return M
