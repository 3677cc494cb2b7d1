--- kip.sleep.snapshot — what a sleep phase knows about the graph: every
--- concept and proposition read through KQL (per type, per predicate, with
--- cursors), indexed by id, by {type, name}, by endpoint and by Domain.
--- Phases take a fresh snapshot when they start, so each sees the effects
--- of the phases before it (SystemInstructions.md Phase 1 "Assessment").
local cycle = require "kip.sleep.cycle"

local M = {}
local Snap = {}
Snap.__index = Snap

local function key(t, n) return t .. "\0" .. n end

--- the graph as the cycle sees it now: taken again only when the cycle
--- wrote something since the last snapshot (or another process may have:
--- each phase starts from a fresh one when writes happened)
function M.take(c)
  if c.snap and c.snap_writes == c.writes then return c.snap end
  local s = M.read(c)
  c.snap, c.snap_writes = s, c.writes
  return s
end

function M.read(c)
  local s = setmetatable({ by_id = {}, by_key = {}, out = {}, into = {}, concepts = {}, links = {},
    types = {}, predicates = {} }, Snap)
  for _, t in ipairs(c:read_all('FIND(?t) WHERE { ?t {type: "$ConceptType"} } LIMIT 1000')) do
    s.types[#s.types + 1] = t.name
  end
  for _, p in ipairs(c:read_all('FIND(?p) WHERE { ?p {type: "$PropositionType"} } LIMIT 1000')) do
    s.predicates[p.name] = p
  end
  for _, t in ipairs(s.types) do
    for _, e in ipairs(c:read_all("FIND(?n) WHERE { ?n {type: :t} } LIMIT 1000", { t = t })) do
      s.concepts[#s.concepts + 1] = e
      s.by_id[e.id] = e
      s.by_key[key(e.type, e.name)] = e
    end
  end
  local preds = {}
  for p in pairs(s.predicates) do preds[#preds + 1] = p end
  table.sort(preds) -- a deterministic order: the same run gives the same decision log
  for _, p in ipairs(preds) do
    local rows = c:read_all("FIND(?l) WHERE { ?l (?s, " .. cycle.lit(p) .. ", ?o) } LIMIT 1000")
    for _, l in ipairs(rows) do
      s.links[#s.links + 1] = l
      s.by_id[l.id] = l
      s.out[l.subject] = s.out[l.subject] or {}
      table.insert(s.out[l.subject], l)
      s.into[l.object] = s.into[l.object] or {}
      table.insert(s.into[l.object], l)
    end
  end
  return s
end

function Snap:get(t, n) return self.by_key[key(t, n)] end

--- outgoing links of element id, of predicate p (all when nil)
function Snap:links_from(id, p)
  local r = {}
  for _, l in ipairs(self.out[id] or {}) do
    if not p or l.predicate == p then r[#r + 1] = l end
  end
  return r
end

function Snap:links_to(id, p)
  local r = {}
  for _, l in ipairs(self.into[id] or {}) do
    if not p or l.predicate == p then r[#r + 1] = l end
  end
  return r
end

--- names of the Domains concept id belongs to (a set) and their count;
--- accept(domain) narrows which ones count (default: every Domain)
function Snap:domains(id, accept)
  local set, n = {}, 0
  for _, l in ipairs(self:links_from(id, "belongs_to_domain")) do
    local d = self.by_id[l.object]
    if d and d.type == "Domain" and (not accept or accept(d)) and not set[d.name] then
      set[d.name] = true
      n = n + 1
    end
  end
  return set, n
end

--- a link is live unless superseded
function M.live(l) return not (l.metadata and l.metadata.superseded == true) end

--- "Type:name" for reports
function M.label(e)
  if e.type then return e.type .. ":" .. e.name end
  return e.id
end

--- "Subject -predicate-> Object" for reports
function Snap:link_label(l)
  local a, b = self.by_id[l.subject], self.by_id[l.object]
  return ("%s -%s-> %s"):format(a and M.label(a) or l.subject, l.predicate, b and M.label(b) or l.object)
end

M.key = key
return M
