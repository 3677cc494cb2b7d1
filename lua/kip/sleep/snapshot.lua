--- kip.sleep.snapshot — what a sleep phase knows about the graph: every
--- concept and proposition read through KQL (per type, per predicate, with
--- cursors), indexed by id, by {type, name}, by endpoint and by Domain.
--- Phases take a fresh snapshot when they start, so each sees the effects
--- of the phases before it (SystemInstructions.md Phase 1 "Assessment").
---
--- What another subsystem owns (its guards, kip.guards: the ARG ontology
--- and registry, the mind model's knowledge and evidence) is not in the
--- snapshot: neither those concepts nor the links whose subject they are.
--- No phase sees, changes or reports them; s.owned counts them by owner.
local cycle = require "kip.sleep.cycle"
local guards = require "kip.guards"

local M = {}
local Snap = {}
Snap.__index = Snap

local function key(t, n) return t .. "\0" .. n end

local function drop_from(list, pred)
  if not list then return end
  for i = #list, 1, -1 do if pred(list[i]) then table.remove(list, i) end end
end

-- a link belongs in the snapshot when its subject does (a concept read, or a
-- proposition); else another subsystem owns it
local function kept(s, l) return s.by_id[l.subject] ~= nil or tostring(l.subject):match("^P:") ~= nil end

local function index_link(s, l)
  if s.by_id[l.id] then return end
  s.links[#s.links + 1] = l
  s.by_id[l.id] = l
  s.out[l.subject] = s.out[l.subject] or {}
  table.insert(s.out[l.subject], l)
  s.into[l.object] = s.into[l.object] or {}
  table.insert(s.into[l.object], l)
end

--- the graph as the cycle sees it now: taken again only when the cycle
--- wrote something since the last snapshot (or another process may have:
--- each phase starts from a fresh one when writes happened)
-- rows per page of the whole-graph read. Cursors continue by offset, and
-- under a policy's scope every page evaluates the scope again on the rows
-- before it, so the read costs about n²/(2·PAGE) scope checks: pages of
-- 1 000 made a governed read of 600 000 elements take 221 s; 20 000, 30 s
M.PAGE = 20000

function M.take(c)
  if c.snap and c.snap_writes == c.writes then return c.snap end
  local s = M.read(c)
  c.snap, c.snap_writes = s, c.writes
  return s
end

function M.read(c)
  local s = setmetatable({ by_id = {}, by_key = {}, out = {}, into = {}, concepts = {}, links = {},
    types = {}, predicates = {}, owned = { concepts = {}, links = 0 } }, Snap)
  local owned = guards.owned(c.nx)
  for _, t in ipairs(c:read_all('FIND(?t) WHERE { ?t {type: "$ConceptType"} } LIMIT 1000')) do
    s.types[#s.types + 1] = t.name
  end
  for _, p in ipairs(c:read_all('FIND(?p) WHERE { ?p {type: "$PropositionType"} } LIMIT 1000')) do
    s.predicates[p.name] = p
  end
  local function skip(owner, n) s.owned.concepts[owner] = (s.owned.concepts[owner] or 0) + n end
  for _, t in ipairs(s.types) do
    if owned.types[t] then
      local n = c:read("FIND(COUNT(?n)) WHERE { ?n {type: :t} }", { t = t })
      skip(owned.types[t], type(n) == "table" and n[1] or n or 0)
    else
      for _, e in ipairs(c:read_all("FIND(?n) WHERE { ?n {type: :t} } LIMIT " .. M.PAGE, { t = t })) do
        local owner = guards.owner_of(owned, e.type, e.name)
        if owner then skip(owner, 1)
        else
          s.concepts[#s.concepts + 1] = e
          s.by_id[e.id] = e
          s.by_key[key(e.type, e.name)] = e
        end
      end
    end
  end
  local preds = {}
  for p in pairs(s.predicates) do preds[#preds + 1] = p end
  table.sort(preds) -- a deterministic order: the same run gives the same decision log
  for _, p in ipairs(preds) do
    local rows = c:read_all("FIND(?l) WHERE { ?l (?s, " .. cycle.lit(p) .. ", ?o) } LIMIT " .. M.PAGE)
    for _, l in ipairs(rows) do
      -- a link whose subject concept is not in the snapshot is owned
      if not kept(s, l) then
        s.owned.links = s.owned.links + 1
        goto next_link
      end
      index_link(s, l)
      ::next_link::
    end
  end
  return s
end

function Snap:get(t, n) return self.by_key[key(t, n)] end

--- Read concepts `keys` ({{type, name}...}) and their links again after a
--- write that touched them, instead of the whole graph: what was deleted
--- or merged away leaves the snapshot, what changed is replaced. The flat
--- lists (concepts, links) keep the old entries marked `stale`; the
--- indexes (get, by_id, links_from, links_to, domains) are exact. A key
--- with shallow = true re-reads only the concept (a neighbour whose own
--- links did not change except those to a deep key): a task next to a
--- Domain of 10 000 members does not read its 10 000 links.
function Snap:refresh(c, keys)
  local ids = {}
  local deep = {}
  for _, k in ipairs(keys) do
    local old = self.by_key[key(k[1], k[2])]
    if old and k.shallow then
      -- only the concept itself changed: its links stay (those to a deep
      -- key are re-read from that side)
      local rows = c:read("FIND(?n) WHERE { ?n {id: :id} }", { id = old.id })
      local e = rows and rows[1]
      if e then
        for f, v in pairs(e) do old[f] = v end
      else
        ids[old.id] = true
        old.stale = true
        self.by_key[key(k[1], k[2])], self.by_id[old.id] = nil, nil
      end
    elseif old then
      ids[old.id] = true
      old.stale = true
      self.by_key[key(k[1], k[2])], self.by_id[old.id] = nil, nil
    end
    if not k.shallow or not old then deep[#deep + 1] = k end
  end
  for id in pairs(ids) do
    for _, l in ipairs(self.out[id] or {}) do
      l.stale, self.by_id[l.id] = true, nil
      drop_from(self.into[l.object], function(x) return x.id == l.id end)
    end
    for _, l in ipairs(self.into[id] or {}) do
      l.stale, self.by_id[l.id] = true, nil
      drop_from(self.out[l.subject], function(x) return x.id == l.id end)
    end
    self.out[id], self.into[id] = nil, nil
  end
  for _, k in ipairs(deep) do
    local rows = c:read("FIND(?n) WHERE { ?n {type: :t, name: :n} }", { t = k[1], n = k[2] })
    local e = rows and rows[1]
    if e then
      self.concepts[#self.concepts + 1] = e
      self.by_id[e.id], self.by_key[key(e.type, e.name)] = e, e
      for _, q in ipairs { "FIND(?l) WHERE { ?l ({type: :t, name: :n}, ?p, ?o) } LIMIT 1000",
                           "FIND(?l) WHERE { ?l (?s, ?p, {type: :t, name: :n}) } LIMIT 1000" } do
        for _, l in ipairs(c:read_all(q, { t = k[1], n = k[2] })) do
          if kept(self, l) then index_link(self, l) end
        end
      end
    end
  end
end

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
