--- Phase 6 — duplicates (SystemInstructions.md Phase 6; docs/sleep.md rule
--- 4). Concepts of one type whose names share the duplicate key (NFKD,
--- marks dropped, case-folded, punctuation as spaces: core.fold_key) are a
--- group; a group whose attributes agree on every shared key (strings by the
--- same key, aliases ignored) is merged into one survivor with MERGE CONCEPT
--- (links repointed, aliases and _merged_from kept by the engine). A group
--- with conflicting attributes is kept and reported. Near-duplicates with
--- different keys — found by semantic SEARCH when the nexus has vectors —
--- are only reported: similarity is not identity (the `duplicates` hook may
--- merge them). Protected concepts are never merged.
local core = require "kip.core"
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"

local M = { name = "duplicates", title = "Duplicates" }

M.SEMANTIC_THRESHOLD = 0.92
M.SEMANTIC_PROBES = 500 -- per cycle: semantic checks cost a SEARCH each
M.SEMANTIC_SECONDS = 5  -- and at most this long per cycle

local function same(a, b)
  if type(a) == "string" and type(b) == "string" then return core.fold_key(a) == core.fold_key(b) end
  return core.json_encode(a) == core.json_encode(b)
end

local function agree(group)
  for i = 1, #group do
    for j = i + 1, #group do
      local a, b = group[i].attributes or {}, group[j].attributes or {}
      local keys = {}
      for k in pairs(a) do keys[#keys + 1] = k end
      table.sort(keys) -- the same conflict is named every run
      for _, k in ipairs(keys) do
        if k ~= "aliases" and b[k] ~= nil and not same(a[k], b[k]) then return false, k end
      end
    end
  end
  return true
end

-- the survivor: the most connected, then the oldest, then the first by name
local function survivor(s, group)
  table.sort(group, function(x, y)
    local lx, ly = #s:links_from(x.id) + #s:links_to(x.id), #s:links_from(y.id) + #s:links_to(y.id)
    if lx ~= ly then return lx > ly end
    local cx, cy = (x.metadata or {}).created_at or "", (y.metadata or {}).created_at or ""
    if cx ~= cy then return cx < cy end
    return x.name < y.name
  end)
  return group[1]
end

-- one probe: a semantic SEARCH for e's name among its type; the pairs it
-- finds are reported (or handed to the duplicates hook)
local function probe(c, s, e, seen)
  local ok, hits = pcall(c.read, c, 'SEARCH CONCEPT :q WITH TYPE :t MODE "semantic" THRESHOLD :th LIMIT 3',
    { q = e.name, t = e.type, th = M.SEMANTIC_THRESHOLD })
  for _, h in ipairs(ok and hits or {}) do
    local pair = e.id < h.id and (e.id .. h.id) or (h.id .. e.id)
    -- (a pair of the same key is a group: merged or reported above)
    if h.id ~= e.id and core.fold_key(h.name) ~= core.fold_key(e.name) and not seen[pair] then
      seen[pair] = true
      if c.hooks.duplicates then
        local hok, herr = pcall(c.hooks.duplicates, c, e, s.by_id[h.id] or h, s)
        if not hok then c:flag(snapshot.label(e), "the duplicates hook failed: " .. tostring(herr), "the duplicates hook failed") end
      else
        c:flag(snapshot.label(e), ("possible duplicate of %s (similarity %.2f): not merged, similarity is not identity")
          :format(snapshot.label(h), h.metadata._score), "possible semantic duplicate: not merged, similarity is not identity")
      end
    end
  end
end

-- Semantic probes are a bounded sweep: at most SEMANTIC_PROBES probes and
-- SEMANTIC_SECONDS per cycle, continuing after the concept the last cycle
-- probed last (the sweep cursor in its record), so every concept is
-- probed over a number of cycles. Only when the nexus's vectors are built
-- (kip reindex --vectors): while most elements still wait for theirs, a
-- probe compares against a few and finds nothing worth its cost.
local function semantic_pairs(c, s)
  local st = c.nx:vector_status()
  if not st or st.model == "" or not st.embedder_matches or (st.vectors or 0) == 0
    or (st.pending or 0) > st.vectors then return end
  local list = {}
  -- (an incremental cycle: the concepts written since the last cycle, not their neighbours or its sweep)
  local written = s.partial and c.delta and c.delta.written or nil
  for _, e in ipairs(s.concepts) do
    if not e.stale and e.type ~= "Domain" and e.type:sub(1, 1) ~= "$" and not rules.protected(s, e)
      and (not written or written[e.id]) then list[#list + 1] = e end
  end
  if s.partial then -- an incremental cycle probes what was written, within the same budget; the sweep is the full cycles'
    local seen, t0 = {}, os.clock()
    for k, e in ipairs(list) do
      if k > M.SEMANTIC_PROBES or os.clock() - t0 > M.SEMANTIC_SECONDS then break end
      probe(c, s, e, seen)
    end
    return
  end
  local start, after = 1, c:sweep("semantic_duplicates")
  for i, e in ipairs(list) do if e.id == after then start = i + 1 break end end
  local seen, t0 = {}, os.clock()
  for k = 0, #list - 1 do
    if k >= M.SEMANTIC_PROBES or os.clock() - t0 > M.SEMANTIC_SECONDS then
      c:flag("duplicates", ("semantic duplicate probes: %d of %d concepts this cycle (the per-cycle budget); the next cycle continues"):format(k, #list),
        "semantic duplicate probes stopped at the per-cycle budget: the next cycle continues")
      return
    end
    local e = list[(start - 1 + k) % #list + 1]
    probe(c, s, e, seen)
    c:set_sweep("semantic_duplicates", e.id)
  end
  c:set_sweep("semantic_duplicates", nil) -- every concept probed: the next sweep starts over
end

-- concepts of type t: {id, name} pairs, in pages by name
local function names_of(c, t)
  local out, after = {}, nil
  repeat
    local ids, names = snapshot.names_page(c, t, after, 50000)
    for i, id in ipairs(ids) do out[#out + 1] = { id, names[i] } end
    after = names[#names]
  until #ids < 50000
  return out
end

-- a SEARCH costs about as much as reading this many names of a type
M.SEARCH_NAMES = 1000

-- a partial snapshot (an incremental cycle): the concepts that share a
-- focus concept's duplicate key join the focus. Per type, whichever costs
-- less: the names of the type read and folded, or each focus concept's
-- name searched among its type through the word index (a name the index
-- cannot find — stopwords only — then waits for the next full cycle)
local function partial_candidates(c, s)
  local by_type, types = {}, {}
  for _, e in ipairs(s.concepts) do
    if e.type:byte(1) ~= 36 and e.type ~= "Domain" and not e.stale then
      if not by_type[e.type] then by_type[e.type], types[#types + 1] = {}, e.type end
      table.insert(by_type[e.type], e)
    end
  end
  table.sort(types)
  local ids, seen = {}, {}
  local function candidate(e, id, name)
    if id ~= e.id and not s.focus[id] and not seen[id] and core.fold_key(name) == core.fold_key(e.name) then
      seen[id] = true
      ids[#ids + 1] = id
    end
  end
  local reads, want = {}, {}
  for _, t in ipairs(types) do
    local list = by_type[t]
    local n = c:read("FIND(COUNT(?n)) WHERE { ?n {type: :t} }", { t = t })
    if #list * M.SEARCH_NAMES >= (tonumber(type(n) == "table" and n[1] or n) or 0) then
      local keys = {}
      for _, e in ipairs(list) do keys[core.fold_key(e.name)] = true end
      local by_key = {}
      for _, r in ipairs(names_of(c, t)) do
        local k = core.fold_key(r[2])
        if keys[k] then by_key[k] = by_key[k] or {}; table.insert(by_key[k], r) end
      end
      for _, e in ipairs(list) do
        for _, r in ipairs(by_key[core.fold_key(e.name)] or {}) do candidate(e, r[1], r[2]) end
      end
    else
      for _, e in ipairs(list) do
        reads[#reads + 1] = { command = 'SEARCH CONCEPT :q WITH TYPE :t MODE "keyword" LIMIT 50', parameters = { q = e.name, t = t } }
        want[#reads] = e
      end
    end
  end
  snapshot.read_each(c, reads, function(i, hits)
    for _, h in ipairs(hits or {}) do if h.type == want[i].type then candidate(want[i], h.id, h.name) end end
  end)
  table.sort(ids)
  s:add_focus(c, ids)
end

function M.run(c)
  local s = snapshot.take(c)
  if s.partial then partial_candidates(c, s) end
  -- groups of two or more by key, in the order of their first member (a
  -- table only for a key seen twice: most keys are seen once)
  local first, at, groups, order = {}, {}, {}, {}
  for i, e in ipairs(s.concepts) do
    if e.type:byte(1) ~= 36 then -- not a $ type
      local k = e.type .. "\0" .. core.fold_key(e.name)
      local f = first[k]
      if not f then
        first[k], at[k] = e, i
      elseif groups[k] then
        table.insert(groups[k], e)
      else
        groups[k] = { f, e }
        order[#order + 1] = k
      end
    end
  end
  table.sort(order, function(a, b) return at[a] < at[b] end)
  local n = { groups = 0, merged = 0, conflicting = 0 }
  for _, k in ipairs(order) do
    local g = groups[k]
    if #g > 1 then
      n.groups = n.groups + 1
      local names = {}
      local guarded = false
      for _, e in ipairs(g) do
        names[#names + 1] = snapshot.label(e)
        guarded = guarded or rules.protected(s, e)
      end
      table.sort(names)
      local ok, key = agree(g)
      if guarded then
        c:flag(table.concat(names, " | "), "duplicate group with a protected member: not merged")
      elseif not ok then
        n.conflicting = n.conflicting + 1
        c:flag(table.concat(names, " | "), "duplicate names but conflicting attribute " .. key .. ": kept",
          "duplicate names with a conflicting attribute: kept")
      else
        local keep = survivor(s, g)
        for i = 2, #g do
          c:write("MERGE CONCEPT ?dup INTO ?keep WHERE { ?dup {type: :t, name: :a} ?keep {type: :t, name: :b} }",
            { t = keep.type, a = g[i].name, b = keep.name }, ("merge %s into %s"):format(snapshot.label(g[i]), snapshot.label(keep)),
            { concepts = { { g[i].type, g[i].name }, { keep.type, keep.name } } })
          n.merged = n.merged + 1
        end
      end
    end
  end
  semantic_pairs(c, s)
  return n
end

return M
