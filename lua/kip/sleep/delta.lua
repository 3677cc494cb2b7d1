--- kip.sleep.delta — the incremental cycle (seed 001 "maintenance while
--- sleeping"; docs/sleep.md "Incremental cycles"): after a complete cycle,
--- the next one works from what changed since (the core's change log,
--- kip_changes_json) instead of reading the whole graph.
---
--- The focus of an incremental cycle is every concept the change log names
--- (written, or the endpoint of a link written or deleted), the neighbours
--- of a concept whose Domain changed (their neighbour rule reads it), the
--- Events that turned stale and the elements that expired since the last
--- cycle, and a bounded sweep of the rest (`sweep_concepts` a cycle, in
--- type and name order, carried from record to record), so everything is
--- visited over time. The phases judge the focus only, from a partial
--- snapshot that holds each focus concept's neighbourhood whole
--- (kip.sleep.snapshot.partial).
---
--- A full cycle runs instead when the rules themselves may have changed (a
--- Domain, a definition or $self's pending_for_sleep: M.rules_fingerprint),
--- when a SleepTask left pending or its target changed, when
--- more than `delta_max_changes` elements changed, when the last cycle
--- was partial work (a budget, an error, chosen phases), and at least every
--- `full_every_days` — the net under whatever the change log cannot see (a
--- plain sqlite3 shell's inserts, names the word index cannot find).
local cycle = require "kip.sleep.cycle"
local snapshot = require "kip.sleep.snapshot"

local M = {}

-- a full cycle's time: the newest record's own, or the full cycle it carried
local function full_at(rec)
  if type(rec.full_cycle_at) == "string" then return rec.full_cycle_at end
  return rec.now
end
M.full_at = full_at

--- A fingerprint of what the rules read besides the elements they judge:
--- every Domain (names, aliases, parent_domain, status…), the concept types
--- and predicate definitions (is_functional…) and $self's pending_for_sleep
--- — two 32-bit hashes of their canonical JSON. The change log cannot tell
--- a Domain written from one whose member left, so the rules' inputs are
--- compared whole instead.
function M.rules_fingerprint(c)
  local parts = {}
  for _, q in ipairs { 'FIND(?n.name, ?n.attributes) WHERE { ?n {type: "Domain"} } ORDER BY ?n.name ASC LIMIT 100000',
    'FIND(?n.name, ?n.attributes) WHERE { ?n {type: "$ConceptType"} } ORDER BY ?n.name ASC LIMIT 100000',
    'FIND(?n.name, ?n.attributes) WHERE { ?n {type: "$PropositionType"} } ORDER BY ?n.name ASC LIMIT 100000',
    'FIND(?n.attributes.pending_for_sleep) WHERE { ?n {type: "Person", name: "$self"} }' } do
    parts[#parts + 1] = require("kip.core").json_encode(c:read_all(q))
  end
  local text = table.concat(parts, "\n")
  local h1, h2 = 5381, 0
  for i = 1, #text do
    local b = text:byte(i)
    h1, h2 = (h1 * 33 + b) % 4294967296, (h2 * 65599 + b) % 4294967296
  end
  return ("%08x%08x"):format(h1, h2)
end

-- why record `rec` is not a complete cycle the change log continues from
-- (nil: it is — it completed every phase, took the log and left no work)
local function not_continued(rec)
  if type(rec) ~= "table" or rec.status ~= "completed" then return "no completed cycle yet" end
  if type(rec.changes_before) ~= "number" then return "the last cycle kept no change log mark" end
  if rec.work_left == true then return "the last cycle left work" end
  if rec.all_phases ~= true then return "the last cycle ran chosen phases" end
  return nil
end

--- Can cycle c work from what changed since record `rec` (the newest
--- completed cycle's attributes)? Returns the plan {generation, ids, rows,
--- base} or nil and why a full cycle runs.
function M.plan(c, rec)
  local why = not_continued(rec)
  if why then return nil, why end
  if (tonumber(rec.errors) or 0) > 0 then return nil, "the last cycle had errors" end
  if type(rec.now) ~= "string" or rec.now > c.now then return nil, "the last cycle is later than this one's clock" end
  local full = cycle.parse_time(full_at(rec))
  if not full or c.now_s - full >= c.params.full_every_days * 86400 then
    return nil, ("no full cycle in %s days"):format(c.params.full_every_days)
  end
  local ch = snapshot.changes(c, 0, -1, c.params.delta_max_changes)
  if not ch then return nil, "the nexus keeps no change log" end
  if ch.truncated then return nil, ("more than %d elements changed"):format(c.params.delta_max_changes) end
  if rec.rules_fingerprint ~= M.rules_fingerprint(c) then
    return nil, "a Domain, a definition or $self's pending_for_sleep changed (the rules read them)"
  end
  -- judging a changed element reads its neighbourhood a few requests at a
  -- time, about delta_cost_ratio times what a whole read costs it: past
  -- that share of the memory, reading everything costs less
  local seen = tonumber(rec.elements_seen)
  if not c.incremental_always and seen and #ch.ids * c.params.delta_cost_ratio > seen then
    return nil, ("%d of about %d elements changed: reading them all costs less"):format(#ch.ids, seen)
  end
  local rows = snapshot.read_rows(c, ch.ids)
  local touched = {} -- concept ids and keys the changes reach
  for _, r in ipairs(rows) do
    if r.subject then touched[r.subject], touched[r.object] = true, true
    else touched[r.id], touched[r.type .. "\0" .. r.name] = true, true end
  end
  -- SleepTasks left pending (they need judgment) stand while neither they
  -- nor their targets change; a changed one is carried out by a full cycle
  local tasks = c:read([[FIND(?n.id, ?n.attributes.target_type, ?n.attributes.target_name) WHERE { ?n {type: "SleepTask"}
    FILTER(?n.attributes.status == "pending" || ?n.attributes.status == "in_progress") } LIMIT 10000]])
  local ids, tt, tn = tasks[1] or {}, tasks[2] or {}, tasks[3] or {}
  local targets = {}
  for i, id in ipairs(ids) do
    local t, n = tt[i], tn[i]
    if touched[id] then return nil, "a pending SleepTask changed" end
    if type(t) == "string" and type(n) == "string" then
      if touched[t .. "\0" .. n] then return nil, "a pending SleepTask's target changed" end
      targets[#targets + 1] = { command = "FIND(?x.id) WHERE { ?x {type: :t, name: :n} }", parameters = { t = t, n = n } }
    end
  end
  local moved = false -- (a target reached by a changed link)
  snapshot.read_each(c, targets, function(_, got) if got and got[1] and touched[got[1]] then moved = true end end)
  if moved then return nil, "a pending SleepTask's target changed" end
  return { generation = ch.generation, ids = ch.ids, domain_changed = ch.domain_changed, rows = rows, base = rec,
    full_cycle_at = full_at(rec) }
end

--- The four trigger metrics from the change log since record `rec` (what
--- `kip sleep --check` and --if-needed decide by when the memory changed
--- since a complete cycle): Unsorted, pending SleepTasks and stale Events
--- counted by the store (index lookups and a pass over the Events), orphans
--- as the last cycle left them plus the changed concepts (and endpoints of
--- deleted links) that have no Domain now — work proportional to what
--- changed. nil when the log cannot say (no complete cycle, too many
--- changes); the second result is true when it stopped at the first
--- threshold crossed (until_needed).
function M.check_counts(c, rec, until_needed)
  if not_continued(rec) or type(rec.metrics_after) ~= "table" then return nil end
  local ch = snapshot.changes(c, 0, -1, c.params.delta_max_changes)
  if not ch or ch.truncated then return nil end
  local assess = require "kip.sleep.phases.assess"
  local m, early = assess.counts(c, until_needed, true)
  if early then return m, true end
  local guards = require "kip.guards"
  local owned = guards.owned(c.nx)
  local ids = {}
  for _, id in ipairs(ch.ids) do if not id:match("^P:") then ids[#ids + 1] = id end end
  -- the changed concepts' rows and Domain links, a dozen to a request
  local rows, placed = snapshot.read_neighbourhoods(c, ids, false), {}
  for _, r in ipairs(rows) do if r.subject then placed[r.subject] = true end end
  local orphans = tonumber(rec.metrics_after.orphans) or 0
  for _, r in ipairs(rows) do
    local t, n = r.type, r.name
    if t and not placed[r.id] and t ~= "Domain" and t:byte(1) ~= 36 and not (t == "Person" and (n == "$self" or n == "$system"))
      and not guards.owner_of(owned, t, n) then orphans = orphans + 1 end
  end
  m.orphans = orphans
  return m
end

-- the concepts whose expires_at passed in [from, to): concepts, and links' endpoints
local function expired_since(c, s, from, to)
  local ids = {}
  for _, k in ipairs(snapshot.each_kind(s)) do
    local params = { a = from, b = to, t = k[2].t }
    for _, x in ipairs(c:read_all("FIND(?x) WHERE { " .. k[1] ..
      " FILTER(?x.metadata.expires_at >= :a && ?x.metadata.expires_at < :b) } LIMIT " .. snapshot.PAGE, params)) do
      if x.subject then ids[#ids + 1], ids[#ids + 2] = x.subject, x.object else ids[#ids + 1] = x.id end
    end
  end
  return ids
end

-- the next `n` concepts of the sweep (type, then name order), from where
-- the last cycle's sweep stopped; the cursor moves (nil: it went round)
local function sweep(c, s, n)
  local at = c:sweep("incremental")
  local from_type = type(at) == "table" and at.type or nil
  local after = type(at) == "table" and at.name or nil
  local types = {}
  for _, t in ipairs(s.types) do
    if t ~= "Domain" and t:byte(1) ~= 36 and not s.owned_set.types[t] and (not from_type or t >= from_type) then types[#types + 1] = t end
  end
  table.sort(types)
  local ids, cursor = {}, nil
  for _, t in ipairs(types) do
    if #ids >= n then break end
    local got, names = snapshot.names_page(c, t, t == from_type and after or nil, n - #ids)
    for i, id in ipairs(got) do
      ids[#ids + 1] = id
      cursor = { type = t, name = names[i] }
    end
  end
  if #ids < n then cursor = nil end -- every type read to its end: the next sweep starts over
  c:set_sweep("incremental", cursor)
  return ids
end

--- The partial snapshot of plan p for cycle c (set as the cycle's
--- snapshot); records what it holds in c.incremental.
function M.focus(c, p)
  local s = snapshot.partial(c)
  local ids, domain_changed = {}, {}
  p.written = {} -- the concepts whose own rows were written (duplicates probes them semantically)
  for _, r in ipairs(p.rows) do
    if not r.subject then p.written[r.id] = true end
    if r.type == "Person" and r.name == "$system" then -- the last cycle's own bookkeeping (maintenance_log)
    elseif r.subject then
      ids[#ids + 1], ids[#ids + 2] = r.subject, r.object
      if r.predicate == "belongs_to_domain" then domain_changed[#domain_changed + 1] = r.subject end
    else
      ids[#ids + 1] = r.id
    end
  end
  -- the subjects of deleted belongs_to_domain links (the log marks them)
  for _, id in ipairs(p.domain_changed or {}) do domain_changed[#domain_changed + 1] = id end
  s:add_focus(c, ids)
  local more = {}
  -- the neighbours of a concept whose Domain changed: their neighbour rule reads it
  for _, id in ipairs(domain_changed) do
    for _, l in ipairs(s:links_from(id)) do if l.predicate ~= "belongs_to_domain" then more[#more + 1] = l.object end end
    for _, l in ipairs(s:links_to(id)) do more[#more + 1] = l.subject end
  end
  -- what the clock changed since the last cycle: Events turned stale, expiries passed
  local base = p.base
  local base_s = cycle.parse_time(base.now)
  local stale_from = cycle.iso(base_s - c.params.stale_event_days * 86400)
  local stale = 0
  if c.cutoff > stale_from then
    for _, id in ipairs(c:read_all([[FIND(?n.id) WHERE { ?n {type: "Event"}
      FILTER(?n.attributes.start_time >= :a && ?n.attributes.start_time < :b) } LIMIT ]] .. snapshot.PAGE,
      { a = stale_from, b = c.cutoff })) do
      more[#more + 1] = id
      stale = stale + 1
    end
  end
  local m = type(base.metrics_after) == "table" and base.metrics_after or {}
  local expired = 0
  if type(m.next_expiry_at) == "string" and c.now > m.next_expiry_at then
    for _, id in ipairs(expired_since(c, s, base.now, c.now)) do
      more[#more + 1] = id
      expired = expired + 1
    end
  end
  local swept = sweep(c, s, c.params.sweep_concepts)
  for _, id in ipairs(swept) do more[#more + 1] = id end
  s:add_focus(c, more)
  local focus = 0
  for _ in pairs(s.focus) do focus = focus + 1 end
  c.incremental = { changed = #p.ids, focus = focus, swept = #swept, turned_stale = stale, expired = expired,
    since = base.now, full_cycle_at = p.full_cycle_at }
  return s
end

return M
