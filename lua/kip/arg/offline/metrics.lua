--- kip.arg.offline.metrics — derived metrics of the offline loop (seed 003
--- §3.7 "outcomes", §3.8 "derived metrics"): per ontology version, the
--- outcome categories (answered, action succeeded/failed, clarified,
--- abstained, refused, refocused, misrouted by feedback), coverage and
--- abstain/clarify rates by label and by cluster, action success by binding,
--- and regression indicators between consecutive versions (a label whose
--- clarify or abstain rate rose on the requests asked under both).
--- Versioned and attributable: every figure names the version it was
--- measured under.
local M = {}

M.REGRESSION = 0.1 -- a rate rise above this between versions is flagged

local function rate(a, b) return b > 0 and math.floor(a / b * 1000 + 0.5) / 1000 or 0 end

function M.run(ds, m)
  local by_version = {}
  for _, e in ipairs(ds.episodes) do
    local v = tostring(e.version or "?")
    local x = by_version[v]
    if not x then
      x = { version = e.version, requests = 0, outcomes = {}, labels = {}, clusters = {}, actions = {}, misrouted = 0 }
      by_version[v] = x
    end
    x.requests = x.requests + 1
    x.outcomes[e.outcome or "?"] = (x.outcomes[e.outcome or "?"] or 0) + 1
    if e.feedback and e.feedback.label and e.feedback.label ~= e.primary then x.misrouted = x.misrouted + 1 end
    local label = e.primary or (e.candidates[1] and e.candidates[1].label)
    if label then
      local l = x.labels[label] or { requests = 0, answered = 0, clarified = 0, abstained = 0, actions = 0 }
      x.labels[label] = l
      l.requests = l.requests + 1
      if e.outcome == "ANSWER" then l.answered = l.answered + 1
      elseif e.outcome == "CLARIFY" then l.clarified = l.clarified + 1
      elseif e.outcome == "ABSTAIN" then l.abstained = l.abstained + 1
      elseif e.outcome == "ACTION" then l.actions = l.actions + 1 end
      local cluster = m.labels[label] and m.labels[label].cluster or "?"
      local c = x.clusters[cluster] or { requests = 0, clarified = 0, abstained = 0 }
      x.clusters[cluster] = c
      c.requests = c.requests + 1
      if e.outcome == "CLARIFY" then c.clarified = c.clarified + 1 elseif e.outcome == "ABSTAIN" then c.abstained = c.abstained + 1 end
    end
    if e.action then
      local a = x.actions[e.action] or { selected = 0, confirmed = 0, failed = 0 }
      x.actions[e.action] = a
      a.selected = a.selected + 1
      if e.feedback then
        if e.feedback.verified then a.confirmed = a.confirmed + 1 else a.failed = a.failed + 1 end
      end
    end
  end
  local versions = {}
  for _, x in pairs(by_version) do
    for _, l in pairs(x.labels) do
      l.clarify_rate, l.abstain_rate = rate(l.clarified, l.requests), rate(l.abstained, l.requests)
    end
    for _, c in pairs(x.clusters) do
      c.clarify_rate, c.abstain_rate = rate(c.clarified, c.requests), rate(c.abstained, c.requests)
    end
    local covered = 0
    for _, l in ipairs(m.label_names) do if x.labels[l] then covered = covered + 1 end end
    x.coverage = rate(covered, #m.label_names)
    versions[#versions + 1] = x
  end
  table.sort(versions, function(a, b) return (tonumber(a.version) or 0) < (tonumber(b.version) or 0) end)
  -- regressions compare like with like: the same requests (same text, same
  -- caller) asked under both versions, each label's clarify and abstain rates
  -- over those requests only — two versions that saw different traffic are
  -- not compared, and two with the same content give the same decisions
  local function key(e)
    local c = e.caller or {}
    return table.concat({ e.prompt or "", tostring(c.role or ""), tostring(c.tenant or ""), tostring(c.user or "") }, "\0")
  end
  local newest = {} -- version -> request key -> the newest episode
  for _, e in ipairs(ds.episodes) do
    if e.prompt then
      local v = tostring(e.version or "?")
      newest[v] = newest[v] or {}
      newest[v][key(e)] = e
    end
  end
  local regressions, comparisons = {}, {}
  for i = 2, #versions do
    local prev, cur = versions[i - 1], versions[i]
    local a, b = newest[tostring(prev.version)] or {}, newest[tostring(cur.version)] or {}
    local per, paired = {}, 0
    for k, ea in pairs(a) do
      local eb = b[k]
      if eb then
        paired = paired + 1
        local label = (ea.feedback and ea.feedback.label) or ea.primary or (ea.candidates[1] and ea.candidates[1].label)
        if label then
          local x = per[label] or { n = 0, clarify_rate = { 0, 0 }, abstain_rate = { 0, 0 } }
          per[label] = x
          x.n = x.n + 1
          if ea.outcome == "CLARIFY" then x.clarify_rate[1] = x.clarify_rate[1] + 1 end
          if eb.outcome == "CLARIFY" then x.clarify_rate[2] = x.clarify_rate[2] + 1 end
          if ea.outcome == "ABSTAIN" then x.abstain_rate[1] = x.abstain_rate[1] + 1 end
          if eb.outcome == "ABSTAIN" then x.abstain_rate[2] = x.abstain_rate[2] + 1 end
        end
      end
    end
    comparisons[#comparisons + 1] = { from_version = prev.version, to_version = cur.version, paired_requests = paired }
    for label, x in pairs(per) do
      for _, k in ipairs { "clarify_rate", "abstain_rate" } do
        local before, after = rate(x[k][1], x.n), rate(x[k][2], x.n)
        if after - before > M.REGRESSION then
          regressions[#regressions + 1] = { label = label, metric = k, from_version = prev.version, to_version = cur.version,
            before = before, after = after, requests = x.n }
        end
      end
    end
  end
  table.sort(regressions, function(a, b) return a.label .. a.metric < b.label .. b.metric end)
  return { versions = versions, regressions = regressions, comparisons = comparisons, episodes = #ds.episodes,
    strong = ds.strong, weak = ds.weak }
end

return M
