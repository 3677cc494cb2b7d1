--- kip.arg.steps.candidates — step 2 of seed 003, initial classification:
--- cheap lexical-first candidate labels for the request, raw and
--- policy-filtered (docs/arg.md "Routing").
---
--- A label is scored from its own text (id words, keywords and aliases,
--- description) and from the text of what hangs on it (node titles and
--- chunks, action names and descriptions), with BM25F over the pinned
--- snapshot (name 3 / heading 2 / body 1, the core SEARCH weights), plus a
--- bonus for each multi-word keyword or alias that occurs as a phrase. When
--- the nexus has an embedder, node texts also get a local semantic score
--- (ranking only, never a candidate outside the snapshot). This is not
--- retrieval: nothing is read from the graph here.
local M = {}

local K1, B = 1.2, 0.75
M.PHRASE_BONUS = 2.5
M.SECOND_NODE = 0.3
M.ACTION_WEIGHT = 0.8
M.SEMANTIC_WEIGHT = 0.75 -- in units of the largest IDF, like the weaver's thresholds
M.ACT_WEIGHT = 0.5

local function bm25(m, d, qset)
  local s = 0
  for q, wq in pairs(qset) do
    local tf = d.tf[q]
    if tf then s = s + wq * m.idf[q] * tf * (K1 + 1) / (tf + K1 * (1 - B + B * d.len / m.avglen)) end
  end
  return s
end

-- does the stem sequence p occur in stems?
local function has_phrase(stems, p)
  for i = 1, #stems - #p + 1 do
    local ok = true
    for k = 1, #p do if stems[i + k - 1] ~= p[k] then ok = false break end end
    if ok then return true end
  end
  return false
end

--- score every label for a list of stems; returns a sorted list of
--- {label=, score=, own=, node=, nodes={{name,score}...}, phrases=n}, and
--- the score of every node that matched (name -> score)
function M.score(m, stems, semantic, act)
  local qset = {}
  for _, s in ipairs(stems) do qset[s] = 1 end
  local per, node_scores = {}, {}
  local function entry(l)
    local e = per[l]
    if not e then e = { label = l, own = 0, nodes = {}, action = 0, phrases = 0 }; per[l] = e end
    return e
  end
  -- the documents holding a query stem, in document order (deterministic)
  local hit, order = {}, {} -- hit[i]: true when a query stem is in document i, false when only the semantic score found it
  for q in pairs(qset) do
    for _, i in ipairs(m.postings[q] or {}) do
      if not hit[i] then hit[i] = true; order[#order + 1] = i end
    end
  end
  if semantic then
    for i, d in ipairs(m.docs) do if d.kind == "node" and semantic[d.name] and hit[i] == nil then hit[i] = false; order[#order + 1] = i end end
  end
  table.sort(order)
  for _, i in ipairs(order) do
    local d = m.docs[i]
    local s = hit[i] and bm25(m, d, qset) or 0
    if semantic and d.kind == "node" and semantic[d.name] then s = s + M.SEMANTIC_WEIGHT * m.max_idf * semantic[d.name] end
    if s > 0 then
      if d.kind == "label" then entry(d.label).own = s
      elseif d.kind == "node" then
        node_scores[d.name] = s
        for _, l in ipairs(m.nodes[d.name].labels) do table.insert(entry(l).nodes, { d.name, s }) end
      elseif d.kind == "action" and d.label then entry(d.label).action = math.max(entry(d.label).action, s) end
    end
  end
  for _, name in ipairs(m.label_names) do
    if per[name] then -- a label with a phrase in the request has a document hit
      for _, p in ipairs(m.labels[name].phrases) do
        if #p > 1 and has_phrase(stems, p) then entry(name).phrases = entry(name).phrases + 1 end
      end
    end
  end
  local out = {}
  for _, e in pairs(per) do
    table.sort(e.nodes, function(a, b) return a[2] > b[2] or (a[2] == b[2] and a[1] < b[1]) end)
    local n1 = e.nodes[1] and e.nodes[1][2] or 0
    local n2 = e.nodes[2] and e.nodes[2][2] or 0
    e.node = n1 + M.SECOND_NODE * n2
    e.score = math.max(e.own, e.node, M.ACTION_WEIGHT * e.action) + 0.25 * math.min(e.own, e.node)
      + M.PHRASE_BONUS * e.phrases
    -- a request to act: the action it names is evidence for its label
    if act then e.score = e.score + M.ACT_WEIGHT * e.action end
    if e.score > 0 then out[#out + 1] = e end
  end
  table.sort(out, function(a, b) return a.score > b.score or (a.score == b.score and a.label < b.label) end)
  return out, node_scores
end

local function round(x) return math.floor(x * 1000 + 0.5) / 1000 end

--- step 2: st.candidates = { raw = {...}, filtered = {...} } (each a list of
--- {label, score}), the scored lists kept in st.scores for the weaver
function M.run(st)
  local m, a = st.snapshot, st.analysis
  st.semantic = require("kip.arg.semantic").scores(st.nx, m, a.text)
  local raw, node_scores = M.score(m, a.stems, st.semantic, a.act)
  st.node_scores = node_scores
  local allowed = st.policy.visible_label
  local filtered = {}
  for _, e in ipairs(raw) do if allowed(e.label) then filtered[#filtered + 1] = e end end
  st.scores = { raw = raw, filtered = filtered }
  local function brief(list)
    local out = {}
    for i = 1, math.min(#list, st.limits.candidates) do out[i] = { label = list[i].label, score = round(list[i].score) } end
    return out
  end
  st.candidates = { raw = brief(raw), filtered = brief(filtered), corrections = a.corrections }
end

return M
