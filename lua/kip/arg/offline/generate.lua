--- kip.arg.offline.generate — stage B of the offline loop (seed 003 §3.2
--- "Candidates"): typed change proposals, each anchored to the taxonomy,
--- with its before/after intent and the episodes that are its evidence,
--- under a per-batch budget. Deterministic generators:
---   taxonomy        keywords for the label a request belonged to: from a
---                   correction by feedback (strong), or from a low-margin
---                   routing to the label that led (weak)
---   edge            related_to between nodes used together in answered
---                   bundles without a link (strong when verified)
---   merge           near-duplicate nodes of one label (redirects_to)
---   deprecate       ACTIVE labels nothing landed on over many requests
---   registry_dedup  InfoUnits left in the grey zone (the compare said UNSURE)
--- plus an operator hook (hooks.propose) whose proposals go through the
--- same scoring and validation. split and new_node come only from a hook.
local lex = require "kip.arg.lexicon"

local M = {}

M.BUDGET = 50            -- candidates per batch
M.WORDS = 2              -- keywords proposed per request
M.EDGE_MIN = 2           -- co-uses before an edge is proposed
M.MERGE_SIMILARITY = 0.8
M.DEPRECATE_MIN = 200    -- episodes before an unused label is proposed for deprecation

local function has(list, x) for _, v in ipairs(list or {}) do if v == x then return true end end return false end

-- the words of a request that say most about it and the label lacks
local function distinctive(m, label, prompt)
  local l = m.labels[label]
  local own = {}
  for _, k in ipairs(l.keywords) do for _, s in ipairs(lex.stems(k)) do own[s] = true end end
  for _, k in ipairs(l.aliases) do for _, s in ipairs(lex.stems(k)) do own[s] = true end end
  for _, s in ipairs(lex.stems((label:gsub("[._]", " ")))) do own[s] = true end
  local seen, out = {}, {}
  for _, t in ipairs(lex.terms(require("kip.arg.analysis").routing_text(prompt))) do
    if not t.stop and not t.generic and #t.word >= 3 and not t.word:find("%d") and not own[t.stem] and not seen[t.stem] then
      seen[t.stem] = true
      out[#out + 1] = { word = t.word, idf = m.idf[t.stem] or m.max_idf }
    end
  end
  table.sort(out, function(a, b) return a.idf > b.idf or (a.idf == b.idf and a.word < b.word) end)
  local words = {}
  for i = 1, math.min(M.WORDS, #out) do words[i] = out[i].word end
  return words
end

local function add(bag, c, episode)
  local key = c.type .. "|" .. c.key
  local x = bag[key]
  if not x then
    x = c
    x.evidence = {}
    bag[key] = x
    bag[#bag + 1] = x
  end
  if episode and not has(x.evidence, episode) then x.evidence[#x.evidence + 1] = episode end
  return x
end

function M.run(ds, m, hooks)
  local bag = {}
  -- taxonomy: keywords from corrections (strong) and low margins (weak)
  for _, e in ipairs(ds.episodes) do
    local fb = e.feedback
    local label, why
    if fb and type(fb.label) == "string" and m.labels[fb.label] and m.labels[fb.label].lifecycle == "ACTIVE"
      and (e.primary ~= fb.label or e.outcome == "CLARIFY") then
      label, why = fb.label, "corrected by feedback"
    elseif not fb and e.outcome == "CLARIFY" and has(e.flags, "LOW_MARGIN") and e.candidates[1]
      and m.labels[e.candidates[1].label] then
      label, why = e.candidates[1].label, "low-margin routing led by this label"
    elseif not fb and e.outcome == "ANSWER" and has(e.flags, "LOW_COVERAGE") and e.primary and m.labels[e.primary] then
      label, why = e.primary, "answered with low coverage (Active Check)"
    end
    -- a redacted request held a secret: its words never become keywords
    if label and e.prompt and not e.redacted then
      local words = distinctive(m, label, e.prompt)
      if #words > 0 then
        add(bag, { type = "taxonomy", key = label .. "|" .. table.concat(words, "+"), target = label, reason = why,
          before = { label = label, keywords = m.labels[label].keywords },
          after = { label = label, add_keywords = words } }, e.id)
      end
    end
  end
  -- edges: nodes used together in answered bundles without a link
  local linked = {}
  for _, ed in ipairs(m.edges) do linked[ed[2] .. "|" .. ed[3]], linked[ed[3] .. "|" .. ed[2]] = true, true end
  local pairs_seen = {}
  for _, e in ipairs(ds.episodes) do
    if e.outcome == "ANSWER" and (not e.feedback or e.feedback.verified) then
      local nodes = {}
      for _, n in ipairs(e.bundle) do if m.nodes[n] then nodes[#nodes + 1] = n end end
      for i = 1, math.min(#nodes, 3) do
        for j = i + 1, math.min(#nodes, 3) do
          local a, b = nodes[i], nodes[j]
          if a > b then a, b = b, a end
          if not linked[a .. "|" .. b] and m.nodes[a].labels[1] ~= m.nodes[b].labels[1] then
            local k = a .. "|" .. b
            pairs_seen[k] = (pairs_seen[k] or 0) + 1
            add(bag, { type = "edge", key = k, target = a, reason = "used together in answered bundles",
              before = { from = a, to = b, edge = false }, after = { from = a, to = b, add_edge = "related_to" } }, e.id)
          end
        end
      end
    end
  end
  -- an edge needs repeated co-use
  for i = #bag, 1, -1 do
    local c = bag[i]
    if c.type == "edge" and #c.evidence < M.EDGE_MIN then
      bag[c.type .. "|" .. c.key] = nil
      table.remove(bag, i)
    end
  end
  -- merge: near-duplicate nodes of one label
  for _, l in ipairs(m.label_names) do
    local nodes = m.labels[l].nodes
    for i = 1, #nodes do
      for j = i + 1, #nodes do
        local a, b = m.nodes[nodes[i]], m.nodes[nodes[j]]
        local sa, sb, inter, union = {}, {}, 0, 0
        for _, s in ipairs(lex.stems(a.title .. " " .. a.chunk)) do sa[s] = true end
        for _, s in ipairs(lex.stems(b.title .. " " .. b.chunk)) do sb[s] = true end
        for s in pairs(sa) do union = union + 1; if sb[s] then inter = inter + 1 end end
        for s in pairs(sb) do if not sa[s] then union = union + 1 end end
        if union > 0 and inter / union >= M.MERGE_SIMILARITY then
          add(bag, { type = "merge", key = a.name .. "|" .. b.name, target = b.name, reason = "near-duplicate nodes",
            before = { keep = a.name, retire = b.name }, after = { keep = a.name, retire = b.name, redirect = true } })
        end
      end
    end
  end
  -- deprecate: labels nothing landed on
  if #ds.episodes >= M.DEPRECATE_MIN then
    local used = {}
    for _, e in ipairs(ds.episodes) do
      if e.primary then used[e.primary] = true end
      for _, n in ipairs(e.bundle) do for _, l in ipairs(m.nodes[n] and m.nodes[n].labels or {}) do used[l] = true end end
    end
    for _, l in ipairs(m.label_names) do
      if m.labels[l].lifecycle == "ACTIVE" and not used[l] then
        add(bag, { type = "deprecate", key = l, target = l, reason = ("no request landed on it in %d episodes"):format(#ds.episodes),
          before = { label = l, lifecycle = "ACTIVE" }, after = { label = l, lifecycle = "DEPRECATED" } })
      end
    end
  end
  -- registry dedup: units the compare could not decide
  for _, u in ipairs(ds.grey_units or {}) do
    add(bag, { type = "registry_dedup", key = u.name, target = u.name, reason = "grey-zone match left UNSURE",
      before = { unit = u.name, grey_zone_of = u.grey_zone_of }, after = { unit = u.name, merged_into = u.grey_zone_of } })
  end
  -- an operator's proposals
  if hooks and hooks.propose then
    local ok, extra = pcall(hooks.propose, ds, m)
    if ok and type(extra) == "table" then
      for _, c in ipairs(extra) do
        if type(c) == "table" and type(c.type) == "string" and type(c.key) == "string" then
          local x = add(bag, { type = c.type, key = c.key, target = c.target, reason = c.reason or "proposed by hook",
            before = c.before, after = c.after, hook = true })
          for _, ev in ipairs(c.evidence or {}) do if not has(x.evidence, ev) then x.evidence[#x.evidence + 1] = ev end end
        end
      end
    end
  end
  -- the budget: most evidence first, then by type and key (deterministic)
  local list = {}
  for _, c in ipairs(bag) do list[#list + 1] = c end
  local order = { taxonomy = 1, edge = 2, merge = 3, deprecate = 4, registry_dedup = 5 }
  table.sort(list, function(a, b)
    if #a.evidence ~= #b.evidence then return #a.evidence > #b.evidence end
    local oa, ob = order[a.type] or 9, order[b.type] or 9
    if oa ~= ob then return oa < ob end
    return a.key < b.key
  end)
  local out = {}
  for i = 1, math.min(#list, M.BUDGET) do out[i] = list[i] end
  return out, #list
end

return M
