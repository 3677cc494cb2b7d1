--- Phase 1 — assessment (SystemInstructions.md Phase 1 and "Health Metrics
--- & Targets"): read-only health metrics of the nexus, taken before and
--- after the cycle (the finalization phase records both), with the times
--- at which the clock alone will change them (next_stale_at: the first
--- pending Event to turn stale; next_expiry_at: the first expires_at to
--- pass) — what lets an unchanged memory's next cycle skip its phases.
local guards = require "kip.guards"
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"
local strength = require "kip.sleep.strength"

local M = { name = "assess", title = "Assessment" }

--- the health metrics of snapshot s at cycle c
function M.metrics(c, s)
  if s.partial then return M.partial_metrics(c, s) end
  local m = { orphans = 0, unsorted = 0, stale_events = 0, pending_sleep_tasks = 0, superseded_propositions = 0,
    live_functional_conflicts = 0, expired_nodes = 0, expired_links = 0, weak_links = 0, domain_sizes = {} }
  local total, strength_n = 0, 0
  local epochs = strength.of_cycle(c)
  for _, e in ipairs(s.concepts) do
    local a, md = e.attributes or {}, e.metadata or {}
    if e.type ~= "Domain" and s:count_from(e.id, "belongs_to_domain") == 0 and not rules.protected(s, e) then m.orphans = m.orphans + 1 end
    if e.type == "Event" and type(a.start_time) == "string" and
      (a.consolidation_status == nil or a.consolidation_status == "pending") and s:count_from(e.id, "consolidated_to") == 0 then
      if a.start_time < c.cutoff then
        m.stale_events = m.stale_events + 1
      elseif not m.next_stale_at or a.start_time < m.next_stale_at then
        m.next_stale_at = a.start_time -- the first pending Event to become stale as time passes
      end
    end
    if e.type == "SleepTask" and a.status == "pending" then m.pending_sleep_tasks = m.pending_sleep_tasks + 1 end
    if type(md.expires_at) == "string" then
      if md.expires_at < c.now then m.expired_nodes = m.expired_nodes + 1
      elseif not m.next_expiry_at or md.expires_at < m.next_expiry_at then m.next_expiry_at = md.expires_at end
    end
    if e.type == "Domain" then m.domain_sizes[e.name] = #s:links_to(e.id, "belongs_to_domain") end
  end
  local inbox = s:get("Domain", "Unsorted")
  m.unsorted = inbox and #s:links_to(inbox.id, "belongs_to_domain") or 0
  local functional = {}
  for name, p in pairs(s.predicates) do if p.attributes and p.attributes.is_functional == true then functional[name] = true end end
  local seen = {}
  for _, l in ipairs(s.links) do
    local md = l.metadata or {}
    if md.superseded == true then m.superseded_propositions = m.superseded_propositions + 1 end
    -- the current strength (after the decay epochs), not the stored one: a
    -- link without one has it once an epoch decayed it (stored or not yet)
    local o = s.by_id[l.object]
    local n = o and o.attributes and o.attributes.evidence_count
    local now = strength.current(c.params, l, n, epochs)
    if now then
      total, strength_n = total + now, strength_n + 1
      if md.superseded ~= true and now < c.params.weak_strength and strength.class(c.params, l.predicate, n) ~= "kept" then
        m.weak_links = m.weak_links + 1
      end
    end
    if type(md.expires_at) == "string" then
      if md.expires_at < c.now then m.expired_links = m.expired_links + 1
      elseif not m.next_expiry_at or md.expires_at < m.next_expiry_at then m.next_expiry_at = md.expires_at end
    end
    if functional[l.predicate] and snapshot.live(l) then
      local k = l.subject .. " " .. l.predicate
      seen[k] = (seen[k] or 0) + 1
      if seen[k] == 2 then m.live_functional_conflicts = m.live_functional_conflicts + 1 end
    end
  end
  m.average_memory_strength = strength_n > 0 and total / strength_n or nil
  m.links_with_strength = strength_n
  return m
end

--- The four metrics the threshold trigger decides by (M.needed), counted by
--- the store with aggregate KQL instead of read into a snapshot — what
--- `kip sleep --check` and --if-needed use when the memory changed since
--- the last cycle (0.5 s instead of 15 s at 600 000 elements). The same
--- definitions as M.metrics: not what another subsystem owns; an orphan
--- is a concept other than a Domain, a definition, $self or $system with
--- no belongs_to_domain link.
--- until_needed: stop at the first metric that crosses its threshold
--- (cheapest first: Unsorted and pending SleepTasks are index lookups,
--- orphans a probe per concept); the metrics not counted are absent and
--- the second result is true when it stopped early
function M.counts(c, until_needed, without_orphans)
  local owned = guards.owned(c.nx)
  local not_owned = guards.kql_not_owned(owned, "?n")
  -- query q (its %s: not_owned) counted
  local function count(q, params)
    local r = c:read(q:format(not_owned), params)
    return tonumber(type(r) == "table" and r[1] or r) or 0
  end
  local m = {}
  local function done() return until_needed and (M.needed(m)) end
  m.unsorted = count([[FIND(COUNT(?l)) WHERE { ?l (?n, "belongs_to_domain", {type: "Domain", name: "Unsorted"}) %s }]])
  if done() then return m, true end
  m.pending_sleep_tasks = owned.types.SleepTask and 0 or count([[FIND(COUNT(?n)) WHERE { ?n {type: "SleepTask"}
    FILTER(?n.attributes.status == "pending") %s }]])
  if done() then return m, true end
  m.stale_events = owned.types.Event and 0 or count([[FIND(COUNT(?n)) WHERE { ?n {type: "Event"}
    FILTER(?n.attributes.start_time < :cutoff)
    FILTER(IS_NULL(?n.attributes.consolidation_status) || ?n.attributes.consolidation_status == "pending")
    NOT { (?n, "consolidated_to", ?x) } %s }]], { cutoff = c.cutoff })
  if done() or without_orphans then return m, done() end
  m.orphans = 0
  for _, t in ipairs(c:read('FIND(?t.name) WHERE { ?t {type: "$ConceptType"} } LIMIT 100000')) do
    if t ~= "Domain" and t:byte(1) ~= 36 and not owned.types[t] then
      m.orphans = m.orphans + count([[FIND(COUNT(?n)) WHERE { ?n {type: :t} NOT { (?n, "belongs_to_domain", ?d) } %s
        FILTER(?n.type != "Person" || (?n.name != "$self" && ?n.name != "$system")) }]], { t = t })
      if done() then return m, true end
    end
  end
  return m
end

-- the metrics an incremental cycle carries from the full cycle before it:
-- statistics over every link, which it does not read
M.CARRIED = { "superseded_propositions", "live_functional_conflicts", "expired_nodes", "expired_links", "weak_links",
  "average_memory_strength", "links_with_strength", "memory_strength_as_of" }

--- The metrics of an incremental cycle (partial snapshot s, c.delta the
--- plan): Unsorted, pending SleepTasks, stale Events and the Domain sizes
--- counted by the store; orphans among the focus (the last cycle left the
--- rest placed), plus those it reported; the next stale and expiry times
--- kept exact; the link statistics carried from the last record (listed in
--- `carried`, `carried_as_of` the full cycle they were measured in).
function M.partial_metrics(c, s)
  local base = c.delta and type(c.delta.base.metrics_after) == "table" and c.delta.base.metrics_after or {}
  local m = M.counts(c, false, true)
  m.orphans = tonumber(base.orphans) or 0
  m.domain_sizes = {}
  for _, e in ipairs(s.concepts) do
    if not e.stale and s:count_from(e.id, "belongs_to_domain") == 0 and not rules.protected(s, e) then m.orphans = m.orphans + 1 end
    local md = e.metadata or {}
    if type(md.expires_at) == "string" and md.expires_at >= c.now and (not m.next_expiry_at or md.expires_at < m.next_expiry_at) then
      m.next_expiry_at = md.expires_at
    end
  end
  for _, l in ipairs(s.links) do -- (the focus's links: a new one may expire before anything the last cycle knew)
    local x = not l.stale and (l.metadata or {}).expires_at
    if type(x) == "string" and x >= c.now and (not m.next_expiry_at or x < m.next_expiry_at) then m.next_expiry_at = x end
  end
  for _, d in ipairs(s:all_domains()) do m.domain_sizes[d.name] = s:member_count(c, d) end
  local owned = guards.owned(c.nx)
  if not owned.types.Event then
    local first = c:read(([[FIND(?n.attributes.start_time) WHERE { ?n {type: "Event"}
      FILTER(?n.attributes.start_time >= :cutoff)
      FILTER(IS_NULL(?n.attributes.consolidation_status) || ?n.attributes.consolidation_status == "pending")
      NOT { (?n, "consolidated_to", ?x) } %s } ORDER BY ?n.attributes.start_time ASC LIMIT 1]]):format(
        guards.kql_not_owned(owned, "?n")), { cutoff = c.cutoff })
    m.next_stale_at = type(first) == "table" and first[1] or nil
  end
  -- the next expiry: the last cycle's while it is still ahead (it can only
  -- be earlier now for what the focus holds, taken above); else the next
  -- one after this cycle's clock, looked up
  local nx_at = base.next_expiry_at
  if type(nx_at) == "string" and nx_at >= c.now then
    if not m.next_expiry_at or nx_at < m.next_expiry_at then m.next_expiry_at = nx_at end
  elseif type(nx_at) == "string" then
    m.next_expiry_at = M.next_expiry(c, s, m.next_expiry_at)
  end
  for _, k in ipairs(M.CARRIED) do m[k] = base[k] end
  local carried = {}
  for i, k in ipairs(M.CARRIED) do carried[i] = k end
  m.carried = setmetatable(carried, require("kip.core").array_mt)
  m.carried_as_of = c.delta and c.delta.full_cycle_at or nil
  return m
end

--- the first expires_at at or after the cycle's clock over every concept
--- type and predicate (a scan: only when the last known one has passed),
--- or `known` when it is earlier
function M.next_expiry(c, s, known)
  local best = known
  local function consider(v) if type(v) == "string" and (not best or v < best) then best = v end end
  for _, k in ipairs(snapshot.each_kind(s)) do
    local r = c:read("FIND(?x.metadata.expires_at) WHERE { " .. k[1] ..
      " FILTER(?x.metadata.expires_at >= :now) } ORDER BY ?x.metadata.expires_at ASC LIMIT 1", { t = k[2].t, now = c.now })
    consider(type(r) == "table" and r[1])
  end
  return best
end

--- does the nexus need a cycle (the guide's threshold trigger)?
--- metrics not counted (absent) cross nothing; `partial`: the orphans
--- counted so far are a lower bound ("at least")
function M.needed(m, partial)
  local why = {}
  if (m.unsorted or 0) > 20 then why[#why + 1] = ("Unsorted %d > 20"):format(m.unsorted) end
  if (m.orphans or 0) > 10 then why[#why + 1] = ("orphans %s%d > 10"):format(partial and "at least " or "", m.orphans) end
  if (m.stale_events or 0) > 30 then why[#why + 1] = ("stale Events %d > 30"):format(m.stale_events) end
  if (m.pending_sleep_tasks or 0) >= 10 then why[#why + 1] = ("pending SleepTasks %d >= 10"):format(m.pending_sleep_tasks) end
  return #why > 0, why
end

function M.run(c)
  c.metrics_before = M.metrics(c, snapshot.take(c))
  return { orphans = c.metrics_before.orphans, unsorted = c.metrics_before.unsorted,
    stale_events = c.metrics_before.stale_events, pending_sleep_tasks = c.metrics_before.pending_sleep_tasks }
end

return M
