--- kip.arg.steps.traverse — steps 5-7 of seed 003: neighbour scoring, the
--- fast path and the bounded traversal that select the context bundle.
---
--- Step 5: the candidates are the landing points and their neighbours over
--- the movement edges (next_step, requires, explains, related_to,
--- redirects_to) — inside N_scope only; a node is scored by its step-2
--- relevance plus an edge prior. Step 6 (fast path, logged): when routing is
--- confident and one landing point dominates, the walk stops at the primary
--- label's nodes. Step 7: breadth-first over movement edges up to max_depth,
--- best first, stopping when the token budget or max_units is reached or
--- nothing scores; every secondary intent label contributes its best nodes.
--- Output: the TraversalResult and the InternalContextBundle.
local M = {}

M.EDGE_PRIOR = { next_step = 0.6, requires = 0.8, explains = 0.5, related_to = 0.3, redirects_to = 1.0 }

local function tokens(text) local n = 0; for _ in text:gmatch("%S+") do n = n + 1 end return math.ceil(n * 1.3) end

function M.run(st)
  local m, w, b = st.snapshot, st.weaver, st.bind
  local lim = st.limits
  local t = { visited = {}, path = {}, stop_reason = "NO_ROUTE", targets = {}, fast_path = false, tokens = 0 }
  st.traversal = t
  st.internal = {}
  if not w.primary or #b.eligible == 0 then
    t.stop_reason = w.primary and "EMPTY_ELIGIBLE_SET" or "NO_ROUTE"
    return
  end
  local inscope = {}
  for _, n in ipairs(b.eligible) do inscope[n] = true end
  local score = st.node_scores or {}
  local units, taken = {}, {}
  -- the label a neighbour is reached through: one of the routed labels it has
  local routed = {}
  for _, l in ipairs(w.L_final) do routed[l] = true end
  local function via_label(n)
    for _, l in ipairs(m.nodes[n].labels) do if routed[l] then return l end end
    for _, l in ipairs(m.nodes[n].labels) do if m.labels[l].lifecycle == "ACTIVE" then return l end end
    return m.nodes[n].labels[1]
  end
  local function take(n, label, via, s)
    if taken[n] or #units >= lim.max_units then return false end
    local cost = tokens(m.nodes[n].chunk) + tokens(m.nodes[n].title)
    if t.tokens + cost > lim.token_budget and #units > 0 then t.stop_reason = "TOKEN_BUDGET" return false end
    taken[n] = true
    t.tokens = t.tokens + cost
    units[#units + 1] = { node = n, label = label, via = via, score = math.floor((s or 0) * 1000 + 0.5) / 1000 }
    return true
  end
  -- step 6: fast path — a confident route whose best landing point clearly leads
  local land = b.landing
  local s1 = land[1] and score[land[1]] or 0
  local s2 = land[2] and score[land[2]] or 0
  if w.confidence >= lim.fast_path_confidence and s1 > 0 and s1 >= 2 * s2 then
    t.fast_path = true
  end
  -- the primary label's landing points, relevant ones first
  for _, n in ipairs(land) do take(n, w.primary, "landing", score[n]) end
  -- secondary intents: their labels' nodes, best first
  for _, l in ipairs(w.L_final) do
    if l ~= w.primary then
      local list = {}
      for _, n in ipairs(m.labels[l].nodes) do if inscope[n] then list[#list + 1] = n end end
      table.sort(list, function(x, y) return (score[x] or 0) > (score[y] or 0) or ((score[x] or 0) == (score[y] or 0) and x < y) end)
      for i = 1, math.min(#list, lim.per_intent) do take(list[i], l, "intent", score[list[i]]) end
    end
  end
  -- step 5 + 7: neighbours over movement edges, bounded, inside N_scope
  if not t.fast_path then
    local frontier = {}
    for _, u in ipairs(units) do frontier[#frontier + 1] = u.node end
    for depth = 1, lim.max_depth do
      local cands = {}
      for _, n in ipairs(frontier) do
        t.visited[#t.visited + 1] = n
        for _, e in ipairs(m.nodes[n].out) do
          if inscope[e.to] and not taken[e.to] then
            cands[#cands + 1] = { node = e.to, s = (score[e.to] or 0) + M.EDGE_PRIOR[e.predicate], edge = e.predicate, from = n }
          end
        end
      end
      table.sort(cands, function(x, y) return x.s > y.s or (x.s == y.s and x.node < y.node) end)
      frontier = {}
      for _, c in ipairs(cands) do
        if c.s >= lim.min_neighbor_score and take(c.node, via_label(c.node), c.edge, c.s) then
          t.path[#t.path + 1] = { from = c.from, edge = c.edge, to = c.node, depth = depth }
          frontier[#frontier + 1] = c.node
        end
      end
      if #frontier == 0 then break end
    end
  end
  if t.stop_reason == "NO_ROUTE" then t.stop_reason = t.fast_path and "FAST_PATH" or "EXHAUSTED" end
  for _, u in ipairs(units) do t.targets[#t.targets + 1] = u.node end
  st.internal = units
end

return M
