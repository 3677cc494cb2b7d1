--- kip.mind.context — typed runtime context assembly (seed 004 "Runtime
--- Wake-Up Order", "Runtime Wake-Up with Anchors", P43 retrieval contract,
--- P106 distill suggestions; docs/mind.md).
---
--- Sections in order dao_tian → dao_ren → shu → qi (→ evidence only when
--- asked); dao_tian sparse (1 item unless a limit is given; 0 disables it);
--- only promoted and canonical knowledge by default; knowledge anchored to
--- the current worktree, its repo, or global — same-tier items ordered
--- worktree → repo → global, then by relevance to the query; each item
--- with its role-separated evidence citations; distill_suggestions: fields
--- with at least 5 Evidence and no active knowledge (at most 3).
local core = require "kip.core"
local ops = require "kip.mind.ops"
local anchor = require "kip.mind.anchor"

local M = {}

M.TIER_ORDER = { "dao_tian", "dao_ren", "shu", "qi" }
M.ACTIVE = { promoted = true, canonical = true }
M.SUGGEST_MIN_EVIDENCE = 5
M.SUGGEST_MAX = 3

local function read(nx, ctx, cmd, params)
  local r = nx:execute(cmd, params, { ctx = ctx })
  if r.error then return nil, { code = r.error.code, message = r.error.message, hint = r.error.hint } end
  return r.result
end

--- assemble{query?, limit? (per section, default 5), dao_tian_limit? (default 1),
--- include_evidence?, include_inactive?, here? (anchors), ctx?}
function M.assemble(nx, o)
  o = o or {}
  local ctx = o.ctx or {}
  local here = o.here or anchor.current()
  local rank = {} -- knowledge name -> relevance position
  local q = type(o.query) == "string" and o.query:match("%S") and o.query or nil
  if q then
    local hits, err = read(nx, ctx, 'SEARCH CONCEPT :q WITH TYPE "Knowledge" MODE "hybrid" LIMIT 200', { q = q })
    if not hits then return nil, err end
    for i, h in ipairs(hits) do rank[h.name] = i end
  end
  local all, err = read(nx, ctx, 'FIND(?k) WHERE { ?k {type: "Knowledge"} } LIMIT 100000')
  if not all then return nil, err end
  local anchor_rank = { [here.worktree or ""] = 1, [here.repo or ""] = 2, [anchor.GLOBAL] = 3 }
  local by_tier = {}
  for _, k in ipairs(all) do
    local a = k.attributes or {}
    local ar = anchor_rank[a.anchor_id]
    local active = M.ACTIVE[a.status] or (o.include_inactive and true)
    if ar and active and (not q or rank[k.name]) then
      by_tier[a.tier] = by_tier[a.tier] or {}
      table.insert(by_tier[a.tier], { k = k, ar = ar, rel = rank[k.name] or 0 })
    end
  end
  local out = { sections = setmetatable({}, core.array_mt), anchors = here, query = q }
  for _, tier in ipairs(M.TIER_ORDER) do
    local list = by_tier[tier] or {}
    table.sort(list, function(x, y)
      if x.ar ~= y.ar then return x.ar < y.ar end
      if x.rel ~= y.rel then return x.rel < y.rel end
      return x.k.name < y.k.name
    end)
    local limit = tier == "dao_tian" and (o.dao_tian_limit or 1) or (o.limit or 5)
    local items = {}
    for i = 1, math.min(limit, #list) do
      local k = list[i].k
      local a = k.attributes
      local ev = ops.evidence(nx, k.name, ctx)
      items[#items + 1] = { knowledge = k.name, statement = a.statement, content = a.content, tier = a.tier, status = a.status,
        domain = a.domain, field = a.field, anchor_kind = a.anchor_kind, anchor_id = a.anchor_id,
        trigger_hints = a.trigger_hints, scope_constraints = a.scope_constraints, evidence = ev }
    end
    out.sections[#out.sections + 1] = { tier = tier, items = setmetatable(items, core.array_mt) }
  end
  if o.include_evidence then
    local evs = q and read(nx, ctx, 'SEARCH CONCEPT :q WITH TYPE "Evidence" MODE "hybrid" LIMIT :n', { q = q, n = o.limit or 5 })
      or read(nx, ctx, 'FIND(?e) WHERE { ?e {type: "Evidence"} } ORDER BY ?e.attributes.recorded_at DESC LIMIT :n', { n = o.limit or 5 })
    local items = {}
    for _, e in ipairs(evs or {}) do
      local a = e.attributes or {}
      items[#items + 1] = { evidence = e.name, content = a.content, provenance = a.provenance, source_ref = a.source_ref,
        field = a.field, anchor_id = a.anchor_id }
    end
    out.sections[#out.sections + 1] = { tier = "evidence", items = setmetatable(items, core.array_mt) }
  end
  out.distill_suggestions = M.suggestions(nx, ctx, all)
  return out
end

--- fields with enough evidence and no active knowledge (P106)
function M.suggestions(nx, ctx, knowledge)
  local fields = read(nx, ctx, 'FIND(?e.attributes.field, COUNT(?e)) WHERE { ?e {type: "Evidence"} } LIMIT 1000') or { {}, {} }
  local covered = {}
  for _, k in ipairs(knowledge or {}) do
    if M.ACTIVE[(k.attributes or {}).status] then covered[k.attributes.field or "general"] = true end
  end
  local out = {}
  for i, f in ipairs(fields[1] or {}) do
    local n = (fields[2] or {})[i] or 0
    if type(f) == "string" and n >= M.SUGGEST_MIN_EVIDENCE and not covered[f] then out[#out + 1] = { field = f, evidence = n } end
  end
  table.sort(out, function(a, b)
    if a.evidence ~= b.evidence then return a.evidence > b.evidence end
    return a.field < b.field
  end)
  while #out > M.SUGGEST_MAX do table.remove(out) end
  return setmetatable(out, core.array_mt)
end

return M
