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

-- tier promotion (raise): the gate of each tier above qi, reached from the
-- tier below it; stricter than the status gates (seed 004 "Promotion
-- Hierarchy": fewer entries, stronger evidence, stronger review)
M.RAISE_DEFAULTS = {
  shu = { from_tier = "qi", supporting = 2, verification = 2, teaching = 0, reviewer = false, counterexamples_block = true },
  dao_ren = { from_tier = "shu", supporting = 3, verification = 2, teaching = 0, reviewer = false, counterexamples_block = true },
  dao_tian = { from_tier = "dao_ren", supporting = 4, verification = 3, teaching = 1, reviewer = true, counterexamples_block = true },
}

-- who counts as a human caller (lifecycle authority, human provenance)
M.HUMAN_ROLES = { "operator", "reviewer" }

local function policy(nx)
  if nx.policies then
    for _, p in ipairs(nx.policies:list()) do
      if p.name == "mind_gates" and type(p.gates) == "table" then return p end
    end
  end
end

--- the status gates in force for nexus nx (and where they come from)
function M.current(nx)
  local p = policy(nx)
  if p then return p.gates, p.path end
  return M.DEFAULTS, "built-in defaults"
end

--- the raise gates in force (by target tier)
function M.raise_gates(nx)
  local p = policy(nx)
  return p and type(p.raise) == "table" and p.raise or M.RAISE_DEFAULTS
end

--- the gate that raises knowledge of tier `from` one tier up (with
--- to_tier), or nil at the top
function M.raise_gate(nx, from)
  for to, g in pairs(M.raise_gates(nx)) do
    if g.from_tier == from then
      local c = {}
      for k, v in pairs(g) do c[k] = v end
      c.to_tier, c.target = to, "candidate"
      return c
    end
  end
end

--- the roles that make a caller human: {role = true}
function M.human_roles(nx)
  local p = policy(nx)
  local list = p and type(p.human_roles) == "table" and p.human_roles or M.HUMAN_ROLES
  local set = {}
  for _, r in ipairs(list) do set[r] = true end
  return set
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
