--- kip.arg.offline.generate — stage B of the offline loop (seed 003 §3.2
--- "Candidates"): typed change proposals, each anchored to the taxonomy,
--- with its before/after intent and the episodes that are its evidence,
--- under a per-batch budget. Deterministic generators:
---   taxonomy        keywords for a label from the requests that point at it
---                   (a correction by feedback: strong; a low-margin routing
---                   it led or a low-coverage answer: weak), each word carried
---                   by at least TAXONOMY_MIN of them and by fewer requests
---                   known to belong elsewhere
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
M.WORDS_PER_REQUEST = 4  -- a request's most specific words considered as keywords
M.TAXONOMY_MIN = 2       -- requests that must carry a word before it is proposed as a keyword
M.EDGE_MIN = 2           -- co-uses before an edge is proposed
M.MERGE_SIMILARITY = 0.8
M.DEPRECATE_MIN = 200    -- episodes before an unused label is proposed for deprecation

local function has(list, x) for _, v in ipairs(list or {}) do if v == x then return true end end return false end

-- the words of a request that say most about it and the label lacks, most
-- specific first (at most M.WORDS_PER_REQUEST)
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
      out[#out + 1] = { word = t.word, stem = t.stem, idf = m.idf[t.stem] or m.max_idf }
    end
  end
  table.sort(out, function(a, b) return a.idf > b.idf or (a.idf == b.idf and a.word < b.word) end)
  local words = {}
  for i = 1, math.min(M.WORDS_PER_REQUEST, #out) do words[i] = out[i] end
  return words
end

-- the stems of a request's routing text (a set)
local function stems_of(prompt)
  local set = {}
  for _, t in ipairs(lex.terms(require("kip.arg.analysis").routing_text(prompt))) do set[t.stem] = true end
  return set
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
  -- taxonomy: keywords for a label from the requests known to belong to it.
  -- A request points at a label by a correction (strong), or weakly by a
  -- low-margin clarification it led or an answer with low coverage; its
  -- most specific words the label lacks are the word candidates. A word is
  -- proposed only when at least TAXONOMY_MIN requests pointing at the label
  -- carry it (one request's idiosyncratic words are not evidence), and not
  -- when as many requests known to belong elsewhere (verified or corrected
  -- to another label) carry it. One candidate per label: its words, with
  -- the requests that carry them as evidence.
  local pointing, known = {}, {}
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
      pointing[#pointing + 1] = { episode = e, label = label, why = why }
    end
    local belongs = fb and (type(fb.label) == "string" and fb.label or (fb.verified and e.primary)) or nil
    if belongs and e.prompt and not e.redacted then known[#known + 1] = { label = belongs, stems = stems_of(e.prompt) } end
  end
  local support = {} -- label -> stem -> {forms = {word = count}, episodes = {ids}, why = {reason = true}}
  for _, p in ipairs(pointing) do
    support[p.label] = support[p.label] or {}
    for _, w in ipairs(distinctive(m, p.label, p.episode.prompt)) do
      local x = support[p.label][w.stem] or { forms = {}, episodes = {}, why = {} }
      support[p.label][w.stem] = x
      x.forms[w.word] = (x.forms[w.word] or 0) + 1
      if not has(x.episodes, p.episode.id) then
        x.episodes[#x.episodes + 1] = p.episode.id
        x.why[p.why] = true
      end
    end
  end
  local labels = {}
  for l in pairs(support) do labels[#labels + 1] = l end
  table.sort(labels)
  for _, label in ipairs(labels) do
    local words, evidence, whys = {}, {}, {}
    local stems = {}
    for stem in pairs(support[label]) do stems[#stems + 1] = stem end
    table.sort(stems)
    for _, stem in ipairs(stems) do
      local x = support[label][stem]
      local elsewhere = 0
      for _, k in ipairs(known) do if k.label ~= label and k.stems[stem] then elsewhere = elsewhere + 1 end end
      if #x.episodes >= M.TAXONOMY_MIN and elsewhere < #x.episodes then
        -- the word as people wrote it most often (then the first alphabetically)
        local word, best = nil, 0
        for form, n in pairs(x.forms) do
          if n > best or (n == best and form < word) then word, best = form, n end
        end
        words[#words + 1] = word
        for _, id in ipairs(x.episodes) do if not has(evidence, id) then evidence[#evidence + 1] = id end end
        for w in pairs(x.why) do whys[w] = true end
      end
    end
    if #words > 0 then
      table.sort(words)
      local reason = {}
      for w in pairs(whys) do reason[#reason + 1] = w end
      table.sort(reason)
      local c = add(bag, { type = "taxonomy", key = label .. "|" .. table.concat(words, "+"), target = label,
        reason = table.concat(reason, "; "), before = { label = label, keywords = m.labels[label].keywords },
        after = { label = label, add_keywords = words } })
      table.sort(evidence)
      c.evidence = evidence
    end
  end
  -- edges: nodes used together in answered bundles without a link
  local linked = {}
  for _, ed in ipairs(m.edges) do linked[ed[2] .. "|" .. ed[3]], linked[ed[3] .. "|" .. ed[2]] = true, true end
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
