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
M.ACTIVE_STATUSES = { "canonical", "promoted" }
M.STATUSES = { "canonical", "promoted", "candidate", "demoted", "retired" }
M.SUGGEST_MIN_EVIDENCE = 5
M.SUGGEST_MAX = 3
M.MAX_HITS = 200 -- the SEARCH hits a query's context ranks at most

local function read(nx, ctx, cmd, params) return nx:query(cmd, params, { ctx = ctx }) end

local SHELF = 'FIND(?k) WHERE { (?k, "shelved_in", {type: "MindShelf", name: :s}) } LIMIT :n'

-- up to n items of the shelves of (tier, anchor) in `statuses`, by name
local function from_shelves(nx, ctx, tier, anchor_id, statuses, n)
  local out = {}
  for _, st in ipairs(statuses) do
    local rows, err = read(nx, ctx, SHELF, { s = ops.shelf_name(tier, st, anchor_id), n = n })
    if not rows then return nil, err end
    for _, k in ipairs(rows) do out[#out + 1] = k end
  end
  table.sort(out, function(x, y) return x.name < y.name end)
  return out
end

--- assemble{query?, limit? (per section, default 5), dao_tian_limit? (default 1),
--- include_evidence?, include_inactive?, here? (anchors), ctx?}
---
--- Without a query each section reads the shelves of its tier for the
--- anchors here, nearest first, taking at most `limit` items per shelf
--- (the earliest shelved; shown by name): its cost depends on the limit,
--- not on how much knowledge the nexus holds. With a query the candidates
--- are the best SEARCH hits among the knowledge of these anchors and
--- statuses (a scope the core applies before ranking; four times what the
--- sections hold, at most 200), ordered anchor first, then relevance.
function M.assemble(nx, o)
  o = o or {}
  local ctx = o.ctx or {}
  local here = o.here or anchor.current()
  if not ops.indexed(nx, ctx) then
    return nil, { code = "KIP_3002", message = "this nexus's mind model has no shelves (it predates them)",
      hint = "Run kip mind init once (idempotent): it builds the indexes kip mind context reads." }
  end
  local statuses = o.include_inactive and M.STATUSES or M.ACTIVE_STATUSES
  local anchors = {}
  for _, a in ipairs { here.worktree, here.repo, anchor.GLOBAL } do
    if a and not anchors[a] then anchors[#anchors + 1] = a anchors[a] = #anchors end
  end
  local q = type(o.query) == "string" and o.query:match("%S") and o.query or nil
  local by_tier = {}
  local need = (o.dao_tian_limit or 1) + 3 * (o.limit or 5)
  if q then
    -- the SEARCH ranks only knowledge of the anchors here in the statuses
    -- asked for (a scope the core applies before ranking)
    local scope = { eligibility = "IN(?e.attributes.anchor_id, :mind_anchors) && IN(?e.attributes.status, :mind_statuses)",
      eligibility_params = core.json_encode { mind_anchors = setmetatable({ anchors[1], anchors[2], anchors[3] }, core.array_mt),
        mind_statuses = setmetatable(statuses, core.array_mt) }, ctx = ctx }
    local r = nx:execute('SEARCH CONCEPT :q WITH TYPE "Knowledge" MODE "hybrid" LIMIT :n', { q = q, n = math.min(M.MAX_HITS, 4 * need) }, scope)
    if r.error then return nil, { code = r.error.code, message = r.error.message, hint = r.error.hint } end
    for i, k in ipairs(r.result or {}) do
      local a = k.attributes or {}
      by_tier[a.tier] = by_tier[a.tier] or {}
      table.insert(by_tier[a.tier], { k = k, ar = anchors[a.anchor_id], rel = i })
    end
    for _, list in pairs(by_tier) do
      table.sort(list, function(x, y)
        if x.ar ~= y.ar then return x.ar < y.ar end
        return x.rel < y.rel
      end)
    end
  end
  local out = { sections = setmetatable({}, core.array_mt), anchors = here, query = q }
  for _, tier in ipairs(M.TIER_ORDER) do
    local limit = tier == "dao_tian" and (o.dao_tian_limit or 1) or (o.limit or 5)
    local chosen = {}
    if q then
      for i = 1, math.min(limit, #(by_tier[tier] or {})) do chosen[i] = by_tier[tier][i].k end
    else
      for _, a in ipairs(anchors) do
        if #chosen >= limit then break end
        local list, err = from_shelves(nx, ctx, tier, a, statuses, limit - #chosen)
        if not list then return nil, err end
        for i = 1, math.min(#list, limit - #chosen) do chosen[#chosen + 1] = list[i] end
      end
    end
    local items = {}
    for _, k in ipairs(chosen) do
      local a = k.attributes
      items[#items + 1] = { knowledge = k.name, statement = a.statement, content = a.content, tier = a.tier, status = a.status,
        domain = a.domain, field = a.field, anchor_kind = a.anchor_kind, anchor_id = a.anchor_id,
        trigger_hints = a.trigger_hints, scope_constraints = a.scope_constraints, evidence = ops.evidence(nx, k.name, ctx) }
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
  out.distill_suggestions = M.suggestions(nx, ctx)
  return out
end

--- fields with enough evidence and no active knowledge (P106), from the
--- field cards the operations keep
function M.suggestions(nx, ctx)
  local rows = read(nx, ctx, [[FIND(?f.name, ?f.attributes.evidence_count) WHERE { ?f {type: "MindField"}
  FILTER(?f.attributes.evidence_count >= :min)
  FILTER(IS_NULL(?f.attributes.active_knowledge) || ?f.attributes.active_knowledge <= 0) }
ORDER BY ?f.attributes.evidence_count DESC, ?f.name LIMIT :max]], { min = M.SUGGEST_MIN_EVIDENCE, max = M.SUGGEST_MAX }) or { {}, {} }
  local out = {}
  for i, f in ipairs(rows[1] or {}) do out[#out + 1] = { field = f, evidence = (rows[2] or {})[i] } end
  return setmetatable(out, core.array_mt)
end

return M
