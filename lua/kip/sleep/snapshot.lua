--- kip.sleep.snapshot — what a sleep phase knows about the graph: every
--- concept and proposition read through KQL (per type, per predicate, with
--- cursors), indexed by id, by {type, name}, by endpoint and by Domain.
--- A cycle reads the graph once; before each phase that follows writes it
--- catches up (Snap:catch_up): what the cycle said it deleted is read again,
--- and every element written since the last read (its _updated_at) replaces
--- its old row — so each phase sees the effects of the phases before it
--- (SystemInstructions.md Phase 1 "Assessment") at the cost of what changed.
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

--- the keys of t (nil: none), sorted: a deterministic order, so the same
--- run gives the same decision log and command texts
local function sorted(t)
  local keys = {}
  for k in pairs(t or {}) do keys[#keys + 1] = k end
  table.sort(keys)
  return keys
end
M.sorted_keys = sorted

-- list without the entries pred selects, in one pass (order kept)
local function drop_from(list, pred)
  if not list then return end
  local j = 0
  for i = 1, #list do
    local x = list[i]
    list[i] = nil
    if not pred(x) then
      j = j + 1
      list[j] = x
    end
  end
end

-- a link belongs in the snapshot when its subject does (a concept read, or a
-- proposition); else another subsystem owns it
local function kept(s, l) return s.by_id[l.subject] ~= nil or tostring(l.subject):match("^P:") ~= nil end

-- a private fact read (access_level "private"): remembered, so that a
-- report that names it is private too (finalize, M.names_private)
local function note_private(s, r)
  if r.metadata and r.metadata.access_level == "private" then
    s.private = s.private or {}
    s.private[r.id] = r
  end
end

local function index_link(s, l)
  if s.by_id[l.id] then return end
  note_private(s, l)
  s.links[#s.links + 1] = l
  s.by_id[l.id] = l
  s.out[l.subject] = s.out[l.subject] or {}
  table.insert(s.out[l.subject], l)
  s.into[l.object] = s.into[l.object] or {}
  table.insert(s.into[l.object], l)
end

-- (unlisted: known by id and key, not in `concepts` — a partial
-- snapshot's fringe and Domains, which no phase judges)
local function index_concept(s, e, unlisted)
  note_private(s, e)
  if not unlisted then s.concepts[#s.concepts + 1] = e end
  s.by_id[e.id], s.by_key[key(e.type, e.name)] = e, e
end

-- link l leaves the snapshot: marked stale, out of by_id; the endpoint
-- lists it was in are compacted once per catch-up (Snap:compact), not per
-- link (a Domain's list of 50 000 members)
local function drop_link(s, l)
  if l.stale then return end
  l.stale, s.by_id[l.id] = true, nil
  s.dirty[#s.dirty + 1], s.dropped = l, true
end

local function drop_concept(s, e)
  if e.stale then return end
  e.stale = true
  s.by_key[key(e.type, e.name)], s.by_id[e.id] = nil, nil
  s.dropped = true
  for _, l in ipairs(s.out[e.id] or {}) do drop_link(s, l) end
  for _, l in ipairs(s.into[e.id] or {}) do drop_link(s, l) end
end

-- the endpoint lists without what left the snapshot; with `flat`, also the
-- flat lists (concepts, links: once per catch-up, not per refresh — until
-- then they keep the old entries marked `stale`)
function Snap:compact(flat)
  local lists = {}
  for _, x in ipairs(self.dirty) do
    if x.subject then lists[self.out[x.subject] or {}], lists[self.into[x.object] or {}] = true, true end
  end
  for list in pairs(lists) do drop_from(list, function(x) return x.stale end) end
  self.dirty = {}
  if flat and self.dropped then
    for _, name in ipairs { "concepts", "links" } do
      local kept_ = {}
      for _, x in ipairs(self[name]) do if not x.stale then kept_[#kept_ + 1] = x end end
      self[name] = kept_
    end
    self.dropped = nil
  end
end

-- a changed row r of an element in the snapshot (or new to it)
local function apply(s, r)
  note_private(s, r)
  local old = s.by_id[r.id]
  if r.subject then
    if old and old.subject == r.subject and old.object == r.object then
      for f in pairs(old) do old[f] = nil end
      for f, v in pairs(r) do old[f] = v end
    else
      if old then drop_link(s, old) end
      if kept(s, r) then index_link(s, r) end
    end
  elseif old then
    for f in pairs(old) do old[f] = nil end
    for f, v in pairs(r) do old[f] = v end
  elseif not guards.owner_of(s.owned_set, r.type, r.name) then
    local domain = s.partial and r.type == "Domain" -- (a partial snapshot's Domains are rows, not focus)
    index_concept(s, r, domain)
    if domain then s.domain_list[#s.domain_list + 1] = r end
  end
end

-- an ISO time a few seconds before now: what a catch-up reads from (a write
-- stamps its time when it starts, so one that committed while the last
-- read ran is still after it)
local function since_now() return os.date("!%Y-%m-%dT%H:%M:%S.000Z", os.time() - 2) end

-- the nexus's write generation (-1: unknown)
local function generation(c)
  local h = c.nx.handle
  return h and h.write_generation and h:write_generation() or -1
end

-- rows per page of the whole-graph read: the most a request returns
-- (KIP_DEFAULT_MAX_ROWS). Cursors continue by offset, and under a policy's
-- scope every page evaluates the scope again on the rows before it, so the
-- read costs about n²/(2·PAGE) scope checks: a governed read of 600 000
-- elements took 221 s in pages of 1 000, 21 s in pages of 20 000 and 12 s
-- in pages of 100 000 (10 s ungoverned)
M.PAGE = 100000

-- reads in batches of this many commands (the request limit is 256)
local BATCH = 200
-- beyond this many elements named by the cycle's writes (at least
-- TOUCHED_MIN, else a 1/TOUCHED_RATIO of the snapshot), reading what changed
-- by _updated_at costs less than reading them one by one (at 600 000
-- elements: 160 µs an element, 1.2 s the scan)
M.TOUCHED_MIN, M.TOUCHED_RATIO = 1000, 150

--- the graph as the cycle sees it now: read once per cycle, and caught up
--- (Snap:catch_up) when the cycle wrote since; read whole again only after
--- a DELETE or MERGE that did not say what it removed (c.reread)

function M.take(c)
  if c.snap and c.snap_writes == c.writes and not c.reread then return c.snap end
  if c.snap and (c.snap.partial or not c.reread) then -- (a partial snapshot catches up from the change log, deletions included)
    c.snap:catch_up(c)
  else
    c.snap, c.own_tx = M.read(c), 0
  end
  c.snap_writes, c.reread, c.touched, c.undeclared = c.writes, nil, nil, nil
  return c.snap
end

--- the cycle's own writes since the snapshot change nothing a phase reads
--- from it (the decay epoch's stamps: kip.sleep.strength computes the same
--- strengths either way): the next catch-up starts after them
function M.keep_current(c)
  if c.snap and c.snap_writes ~= c.writes and not c.reread and not (c.touched and c.touched.n > 0) then
    c.snap_writes, c.snap.since, c.snap.gen, c.own_tx, c.undeclared = c.writes, since_now(), generation(c), 0, nil
  end
end

-- the concept type names (s.types) and predicate definitions by name
-- (s.predicates) as they are now
function Snap:read_schema(c)
  self.types = c:read_all('FIND(?t.name) WHERE { ?t {type: "$ConceptType"} } LIMIT 1000')
  for _, p in ipairs(c:read_all('FIND(?p) WHERE { ?p {type: "$PropositionType"} } LIMIT 1000')) do
    self.predicates[p.name] = p
  end
end

-- an empty snapshot with the schema read
local function new_snapshot(c)
  local s = setmetatable({ by_id = {}, by_key = {}, out = {}, into = {}, concepts = {}, links = {}, dirty = {},
    types = {}, predicates = {}, owned = { concepts = {}, links = 0 }, since = since_now(), gen = generation(c),
    catch_ups = { declared = 0, scanned = 0 } }, Snap)
  s.owned_set = guards.owned(c.nx)
  s:read_schema(c)
  return s
end

function M.read(c)
  local s = new_snapshot(c)
  local owned = s.owned_set
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
          index_concept(s, e)
        end
      end
    end
  end
  for _, p in ipairs(sorted(s.predicates)) do
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
--- or merged away leaves the snapshot, what changed is replaced (until the
--- next catch-up the flat lists `concepts` and `links` keep the old entries,
--- marked `stale`). A key with shallow = true re-reads only the concept (a neighbour whose own
--- links did not change except those to a deep key): a task next to a
--- Domain of 10 000 members does not read its 10 000 links.
function Snap:refresh(c, keys)
  if self.partial then return self:refresh_partial(c, keys) end
  local deep = {}
  for _, k in ipairs(keys) do
    local old = self.by_key[key(k[1], k[2])]
    if old and k.shallow then
      -- only the concept itself changed: its links stay (those to a deep
      -- key are re-read from that side)
      local rows = c:read("FIND(?n) WHERE { ?n {id: :id} }", { id = old.id })
      if rows and rows[1] then apply(self, rows[1]) else drop_concept(self, old) end
    else
      if old then drop_concept(self, old) end
      deep[#deep + 1] = k
    end
  end
  for _, k in ipairs(deep) do
    local rows = c:read("FIND(?n) WHERE { ?n {type: :t, name: :n} }", { t = k[1], n = k[2] })
    local e = rows and rows[1]
    if e then
      apply(self, e)
      for _, q in ipairs { "FIND(?l) WHERE { ?l ({type: :t, name: :n}, ?p, ?o) } LIMIT 1000",
                           "FIND(?l) WHERE { ?l (?s, ?p, {type: :t, name: :n}) } LIMIT 1000" } do
        for _, l in ipairs(c:read_all(q, { t = k[1], n = k[2] })) do apply(self, l) end
      end
    end
  end
  self:compact()
end

-- reads `reads` ({command, parameters}…) in requests of BATCH commands;
-- each(i, rows or nil when the read failed)
local function read_each(c, reads, each)
  for i = 1, #reads, BATCH do
    local part = {}
    for j = i, math.min(i + BATCH - 1, #reads) do part[#part + 1] = reads[j] end
    for j, item in ipairs(c:read_batch(part)) do
      each(i + j - 1, not item.error and type(item.result) == "table" and item.result or nil)
    end
  end
end


-- the links the cycle named (c.touched.links) as they are now: changed,
-- or gone
function Snap:reread_links(c, ids)
  local reads = {}
  for i, id in ipairs(ids) do reads[i] = { command = "FIND(?l) WHERE { ?l (id: :id) }", parameters = { id = id } } end
  read_each(c, reads, function(i, rows)
    if rows and type(rows[1]) == "table" then apply(self, rows[1])
    elseif rows then
      local old = self.by_id[ids[i]]
      if old then drop_link(self, old) end
    end
  end)
end

-- the concepts an UPSERT listed, with their outgoing links (new or changed)
function Snap:reread_upserted(c, ids)
  local reads = {}
  for _, id in ipairs(ids) do
    reads[#reads + 1] = { command = "FIND(?n) WHERE { ?n {id: :id} }", parameters = { id = id } }
    reads[#reads + 1] = { command = "FIND(?l) WHERE { ?l ({id: :id}, ?p, ?o) } LIMIT " .. M.PAGE, parameters = { id = id } }
  end
  read_each(c, reads, function(_, rows)
    for _, r in ipairs(rows or {}) do apply(self, r) end
  end)
end

--- Catch up with the cycle's writes. When every write since the last read
--- said what it changed (c.touched: the ids an UPSERT listed, the links and
--- concepts a command named) and no other writer wrote meanwhile (the
--- nexus's write generation moved by the cycle's own transactions only),
--- only those are read again. Otherwise what the cycle said it deleted is
--- read again, then every concept and link written since the last read
--- (per type and per predicate, by _updated_at) replaces its row or joins
--- the snapshot; deletions by another process are then not seen until the
--- next cycle.
function Snap:catch_up(c)
  if self.partial then return self:catch_up_partial(c) end
  local since, gen = since_now(), generation(c)
  local touched = c.touched or { links = {}, concepts = {}, ids = {}, upserted = {}, n = 0 }
  local declared = not c.undeclared and self.gen >= 0 and gen == self.gen + (c.own_tx or 0)
    and touched.n <= math.max(M.TOUCHED_MIN, (#self.concepts + #self.links) / M.TOUCHED_RATIO)
  -- what may be gone: the links and concepts named by a DELETE or MERGE
  -- (a scan by _updated_at does not see what was deleted)
  self:reread_links(c, sorted(touched.links))
  local deep = {}
  for _, k in ipairs(touched.concepts) do if declared or not k.shallow then deep[#deep + 1] = k end end
  if #deep > 0 then self:refresh(c, deep) end
  if declared then
    self:reread_links(c, sorted(touched.upserted))
    self:reread_upserted(c, sorted(touched.ids))
  else
    self:scan_changed(c)
  end
  local how = declared and "declared" or "scanned"
  self.catch_ups[how] = self.catch_ups[how] + 1
  self.since, self.gen, c.own_tx = since, gen, 0
  self:compact(true)
end

-- every concept and link written since the last read (by _updated_at)
function Snap:scan_changed(c)
  self:read_schema(c)
  for _, t in ipairs(self.types) do
    if not self.owned_set.types[t] then
      for _, e in ipairs(c:read_all("FIND(?n) WHERE { ?n {type: :t} FILTER(?n.metadata._updated_at >= :since) } LIMIT "
          .. M.PAGE, { t = t, since = self.since })) do
        apply(self, e)
      end
    end
  end
  for _, p in ipairs(sorted(self.predicates)) do
    for _, l in ipairs(c:read_all("FIND(?l) WHERE { ?l (?s, " .. cycle.lit(p) ..
        ", ?o) FILTER(?l.metadata._updated_at >= :since) } LIMIT " .. M.PAGE, { since = self.since })) do
      apply(self, l)
    end
  end
end

-- ------------------------------------------------------------------
-- Partial snapshots (the incremental cycle, kip.sleep.delta)

--- A partial snapshot: every Domain (rows only) and, as concepts are
--- added to the focus (Snap:add_focus), each with every link of its own and
--- the concepts at the other end of those links with their Domain links
--- (the fringe: what the rules read about a neighbour). `concepts` lists
--- the focus only — the concepts whose neighbourhood the snapshot holds
--- whole, the only ones a phase judges; `links` the links read.
function M.partial(c)
  local s = new_snapshot(c)
  s.partial, s.focus, s.domain_list, s.fringe_read, s.member_counts = true, {}, {}, {}, {}
  for _, d in ipairs(c:read_all('FIND(?n) WHERE { ?n {type: "Domain"} } LIMIT ' .. M.PAGE)) do
    if not guards.owner_of(s.owned_set, d.type, d.name) then
      index_concept(s, d, true)
      s.domain_list[#s.domain_list + 1] = d
    end
  end
  return s
end

-- is element row r one the snapshot may hold (not another subsystem's)?
local function ours(s, r) return r.subject or not guards.owner_of(s.owned_set, r.type, r.name) end

-- the rows that `clauses(id)` — KQL patterns binding ?x, with %s for the
-- id's parameter — match for each of `ids`, as UNIONs of BRANCHES
-- patterns to a command (one governed request instead of one per pattern;
-- SQLite's parser nests a compound query, and past ~15 branches its stack
-- overflows); a command that fills a page (a hub) is read again page by page
local BRANCHES = 12
local function read_union(c, ids, per_id, clauses)
  local reads = {}
  local group = math.floor(BRANCHES / per_id)
  for i = 1, #ids, group do
    local parts, params = {}, {}
    for j = i, math.min(i + group - 1, #ids) do
      local v = "i" .. (j - i + 1)
      params[v] = ids[j]
      for _, clause in ipairs(clauses(ids[j])) do
        clause = clause:gsub("%%s", v)
        parts[#parts + 1] = #parts == 0 and clause or ("UNION { " .. clause .. " }")
      end
    end
    reads[#reads + 1] = { command = "FIND(?x) WHERE { " .. table.concat(parts, " ") .. " } LIMIT " .. M.PAGE, parameters = params }
  end
  local rows, whole = {}, {}
  read_each(c, reads, function(i, got)
    if got and #got >= M.PAGE then whole[#whole + 1] = reads[i]
    else for _, r in ipairs(got or {}) do rows[#rows + 1] = r end end
  end)
  for _, read in ipairs(whole) do
    for _, r in ipairs(c:read_all(read.command, read.parameters)) do rows[#rows + 1] = r end
  end
  return rows
end

local DEEP = { "?x {id: :%s}", "?x ({id: :%s}, ?p, ?o)", "?x (?s, ?p, {id: :%s})" }
local SHALLOW = { "?x {id: :%s}", '?x ({id: :%s}, "belongs_to_domain", ?o)' }

-- the rows of concepts `ids` and of their links: every link (deep) or
-- their belongs_to_domain links
local function read_neighbourhoods(c, ids, deep)
  local list = deep and DEEP or SHALLOW
  return read_union(c, ids, #list, function() return list end)
end

local CONCEPT, LINK = { "?x {id: :%s}" }, { "?x (id: :%s)" }

--- the rows of elements `ids` (concepts and links; deleted ones are absent)
function M.read_rows(c, ids)
  return read_union(c, ids, 1, function(id) return tostring(id):match("^P:") and LINK or CONCEPT end)
end

-- concept ids to the fringe: each row and its belongs_to_domain links
function Snap:add_fringe(c, ids)
  local want = {}
  for _, id in ipairs(ids) do
    if not self.fringe_read[id] and not self.focus[id] and not tostring(id):match("^P:") then
      self.fringe_read[id] = true
      want[#want + 1] = id
    end
  end
  local rows = read_neighbourhoods(c, want, false)
  for _, r in ipairs(rows) do
    if not r.subject and not self.by_id[r.id] and ours(self, r) then index_concept(self, r, true) end
  end
  for _, r in ipairs(rows) do if r.subject and kept(self, r) then index_link(self, r) end end
end

--- concept ids to the focus (read again when they are in it already: what
--- the cycle wrote): each row with every link, and the fringe they reach.
--- Domains are never in the focus (their members are counted:
--- Snap:member_count); the ids of deleted concepts leave the snapshot.
function Snap:add_focus(c, ids)
  local want, seen = {}, {}
  for _, id in ipairs(ids) do
    local old = self.by_id[id]
    if not tostring(id):match("^P:") and not (old and old.type == "Domain") and not seen[id] then
      seen[id] = true
      want[#want + 1] = id
    end
  end
  if #want == 0 then return end
  self.member_counts = {}
  -- what was known of them goes: their rows and links are read whole
  for _, id in ipairs(want) do
    local old = self.by_id[id]
    if old then drop_concept(self, old) end
    self.focus[id], self.fringe_read[id] = true, true
  end
  self:compact(true)
  local rows, others = read_neighbourhoods(c, want, true), {}
  for _, r in ipairs(rows) do
    if not r.subject then
      if ours(self, r) and not self.by_id[r.id] then index_concept(self, r) elseif not ours(self, r) then self.focus[r.id] = nil end
    end
  end
  for _, id in ipairs(want) do if not self.by_id[id] then self.focus[id] = nil end end -- gone (or another's)
  for _, r in ipairs(rows) do
    if r.subject then
      for _, e in ipairs { r.subject, r.object } do if not self.by_id[e] then others[#others + 1] = e end end
    end
  end
  self:add_fringe(c, others)
  for _, r in ipairs(rows) do if r.subject and kept(self, r) then index_link(self, r) end end
end

-- Snap:refresh of a partial snapshot: the concepts named join the focus
-- (read whole again), Domains are read again as rows
function Snap:refresh_partial(c, keys)
  local ids = {}
  for _, k in ipairs(keys) do
    local rows = c:read("FIND(?n) WHERE { ?n {type: :t, name: :n} }", { t = k[1], n = k[2] })
    local e, old = rows and rows[1], self.by_key[key(k[1], k[2])]
    if k[1] == "Domain" then
      if e then apply(self, e) elseif old then drop_concept(self, old) end
    elseif e then ids[#ids + 1] = e.id
    elseif old then drop_concept(self, old) end
  end
  self:compact(true)
  self:add_focus(c, ids)
end

--- the Domains (a partial snapshot lists none in `concepts`)
function Snap:all_domains()
  local out = {}
  if self.partial then
    for _, d in ipairs(self.domain_list) do if not d.stale then out[#out + 1] = d end end
    return out
  end
  for _, e in ipairs(self.concepts) do if e.type == "Domain" and not e.stale then out[#out + 1] = e end end
  return out
end

--- how many concepts belong to Domain d (counted by the store in a partial
--- snapshot, which holds only some of the members)
function Snap:member_count(c, d)
  if not self.partial then return #self:links_to(d.id, "belongs_to_domain") end
  local n = self.member_counts[d.id]
  if n == nil then
    local r = c:read(('FIND(COUNT(?l)) WHERE { ?l (?n, "belongs_to_domain", {id: :id}) %s }'):format(
      guards.kql_not_owned(self.owned_set, "?n")), { id = d.id })
    n = tonumber(type(r) == "table" and r[1] or r) or 0
    self.member_counts[d.id] = n
  end
  return n
end

-- a partial snapshot's catch-up: what the change log lists since it was
-- read (the cycle's writes and any other writer's) is read again — focus
-- and fringe alike join the focus, Domains are read again as rows
function Snap:catch_up_partial(c)
  local gen = generation(c)
  local ch = M.changes(c, self.gen, -1, math.huge)
  local ids, unknown, domains = {}, {}, {}
  for _, id in ipairs(ch and ch.ids or {}) do
    local e = self.by_id[id]
    if tostring(id):match("^P:") and e then ids[#ids + 1], ids[#ids + 2] = e.subject, e.object
    elseif tostring(id):match("^P:") then unknown[#unknown + 1] = id
    elseif e and e.type == "Domain" then domains[#domains + 1] = id
    else ids[#ids + 1] = id end
  end
  for _, l in ipairs(M.read_rows(c, unknown)) do ids[#ids + 1], ids[#ids + 2] = l.subject, l.object end
  for _, r in ipairs(M.read_rows(c, domains)) do apply(self, r) end
  self:add_focus(c, ids)
  self.member_counts = {}
  self.gen, self.since, c.own_tx = gen, since_now(), 0
  self.catch_ups.declared = self.catch_ups.declared + 1
end

--- the ids and names of up to n concepts of type t, in name order after
--- the name `after` (nil: from the first): a keyset page of the name index
function M.names_page(c, t, after, n)
  local cols = c:read("FIND(?n.id, ?n.name) WHERE { ?n {type: :t} " .. (after and "FILTER(?n.name > :after) " or "")
    .. "} ORDER BY ?n.name ASC LIMIT " .. math.floor(n), { t = t, after = after })
  return cols[1] or {}, cols[2] or {}
end

--- a KQL pattern binding ?x for every concept type and predicate snapshot
--- s may hold (not another subsystem's types), with its parameters:
--- {pattern, params} pairs, for a query over every element
function M.each_kind(s)
  local out = {}
  for _, t in ipairs(s.types) do
    if not s.owned_set.types[t] then out[#out + 1] = { "?x {type: :t}", { t = t } } end
  end
  for _, p in ipairs(sorted(s.predicates)) do out[#out + 1] = { "?x (?s, " .. cycle.lit(p) .. ", ?o)", {} } end
  return out
end

--- the change log (kip_changes_json) as a table {ids, generation,
--- truncated}, or nil when the nexus keeps none (another host's nexus)
function M.changes(c, after, before, max)
  local h = c.nx.handle
  if not (h and h.changes) then return nil end
  local text, err = h:changes(after or 0, before or -1, max == math.huge and 2 ^ 40 or max)
  if not text then error("sleep: reading the change log: " .. tostring(err), 0) end
  return require("kip.core").json_decode(text)
end

--- outgoing links of element id, of predicate p (all when nil)
function Snap:links_from(id, p)
  local r = {}
  for _, l in ipairs(self.out[id] or {}) do
    if not l.stale and (not p or l.predicate == p) then r[#r + 1] = l end
  end
  return r
end

function Snap:links_to(id, p)
  local r = {}
  for _, l in ipairs(self.into[id] or {}) do
    if not l.stale and (not p or l.predicate == p) then r[#r + 1] = l end
  end
  return r
end

--- how many links of predicate p leave element id (without
--- building the list: what a phase asks of every concept)
function Snap:count_from(id, p)
  local n = 0
  for _, l in ipairs(self.out[id] or {}) do
    if not l.stale and l.predicate == p then n = n + 1 end
  end
  return n
end

--- does concept id belong to the Domain named `name`?
function Snap:in_domain(id, name)
  for _, l in ipairs(self.out[id] or {}) do
    if not l.stale and l.predicate == "belongs_to_domain" then
      local d = self.by_id[l.object]
      if d and d.type == "Domain" and d.name == name then return true end
    end
  end
  return false
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

--- does `text` (a flag, a change's reason or values) name one of the
--- private facts snapshot s read? (a concept by its name, a link by its
--- label or id)
function M.names_private(s, text)
  if not (s and s.private) or type(text) ~= "string" then return false end
  for _, r in pairs(s.private) do
    if r.subject then
      if text:find(r.id, 1, true) or text:find(s:link_label(r), 1, true) then return true end
    elseif type(r.name) == "string" and text:find(r.name, 1, true) then
      return true
    end
  end
  return false
end

M.key = key
M.read_each = read_each
M.read_neighbourhoods = read_neighbourhoods
return M
