--- Phase 10 — finalization (SystemInstructions.md Phase 10; docs/sleep.md
--- rule 10): the metrics after the cycle, a `SleepCycle` record in the
--- System Domain (parameters, per-phase results, the flagged items grouped
--- by kind, the first 500 of them — the rest in SleepCycleFlags pages of
--- 1 000 — the changes it made (phase, why, the values written and what was
--- there where the phase knows it: the first 500, then SleepCycleChanges
--- pages up to M.CHANGES_KEPT, the rest counted), metrics before and after, the
--- write count), and $system's
--- last_sleep_cycle and
--- maintenance_log (the whole array rewritten under EXPECT VERSION, retried
--- on a version conflict; the newest 50 entries kept).
local core = require "kip.core"
local snapshot = require "kip.sleep.snapshot"
local assess = require "kip.sleep.phases.assess"

local M = { name = "finalize", title = "Finalization" }

M.LOG_ENTRIES = 50

-- define concept type `name` (in CoreSchema) when the nexus does not have it yet
local function define_type(c, name, description, hint)
  local n = c:read('FIND(COUNT(?t)) WHERE { ?t {type: "$ConceptType", name: :n} }', { n = name })
  if (type(n) == "table" and n[1] or n or 0) > 0 then return end
  c:write([[UPSERT { CONCEPT ?t { {type: "$ConceptType", name: :n} SET ATTRIBUTES { description: :d, display_hint: :h }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "CoreSchema"}) } } }
WITH METADATA { source: "SleepCycle", author: "$system" }]], { n = name, d = description, h = hint }, "define " .. name)
end

--- define the SleepCycle type when the nexus does not have it yet
function M.ensure_type(c)
  define_type(c, "SleepCycle", "The report of one $system sleep (maintenance) cycle: its clock, trigger, status (running until "
    .. "it finishes; a rerun resumes it with the same clock), per-phase results, flagged items and health metrics before and "
    .. "after. Written by the cycle itself.", "🌙")
end

-- the pages of a cycle's record: flagged items and changes made
local PAGES = {
  flagged = { type = "SleepCycleFlags", what = "flagged", hint = "🗒", description = "One page of the items a $system sleep "
    .. "cycle flagged beyond those in its SleepCycle record (cycle, page, first, flagged). Short-term: reclaimed by the TTL phase." },
  changes = { type = "SleepCycleChanges", what = "changes", hint = "🗒", description = "One page of the changes a $system sleep "
    .. "cycle made beyond those in its SleepCycle record (cycle, page, first, changes: phase, why and the values written). "
    .. "Short-term: reclaimed by the TTL phase." },
}

--- and SleepCycleFlags (a page of a cycle's flagged items)
function M.ensure_pages_type(c, kind)
  local k = PAGES[kind or "flagged"]
  define_type(c, k.type, k.description, k.hint)
end

M.CHANGE_VALUE_BYTES = 400 -- the values of one change kept in the record (longer ones are cut)
M.CHANGES_KEPT = 10500      -- changes kept (the record's and 10 pages); past it they are counted only

-- a value as JSON text, cut at CHANGE_VALUE_BYTES
local function brief(v)
  if v == nil then return nil end
  local text = core.json_encode(v)
  if #text > M.CHANGE_VALUE_BYTES then text = text:sub(1, M.CHANGE_VALUE_BYTES) .. "…" end
  return text
end

-- the changes the cycle's phases made (its own record's writes left out):
-- {phase, why, values, before} — the values written and, where the phase
-- said (attributes it set, Domains it moved from), what was there — as JSON text
local function changes_of(c)
  local out, n = {}, 0
  for _, d in ipairs(c.decisions or {}) do
    if d.phase and d.phase ~= "finalize" then -- (the record's own first write has no phase)
      n = n + 1
      if n <= M.CHANGES_KEPT then
        out[n] = { phase = d.phase, why = d.why, values = brief(d.parameters), before = brief(d.before) }
      end
    end
  end
  return out, n
end

--- the cycle's record, marked running until finalization completes it
--- (the actor is $system; started_by names who started it: the caller the
--- host authenticated — an operator's account and roles — or "$system" for
--- a scheduled cycle)
function M.mark_running(c)
  local caller = c.caller or {}
  c:write([[UPSERT { CONCEPT ?r { {type: "SleepCycle", name: :name}
  SET ATTRIBUTES { now: :now, status: "running", trigger: :trigger, actor: "$system", started_by: :by, started_by_roles: :roles }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) } } }
WITH METADATA { source: "SleepCycle", author: "$system" }]], { name = "SleepCycle:" .. c.now, now = c.now, trigger = c.trigger or "manual",
    by = caller.actor or "$system", roles = setmetatable(caller.roles or {}, require("kip.core").array_mt) }, "start")
end

M.PAGE = 1000 -- flagged items per SleepCycleFlags page

-- the items of `list` beyond the record's own, in pages of M.PAGE
-- (SleepCycleFlags "<cycle>:flags:<k>" for kind "flagged", SleepCycleChanges
-- "<cycle>:changes:<k>" for "changes"; short-term: the TTL phase reclaims
-- them after archive_ttl_days)
local function write_pages(c, name, list, kind)
  local k, n = PAGES[kind], 0
  if #list > c.params.report_flags then M.ensure_pages_type(c, kind) end
  for first = c.params.report_flags + 1, #list, M.PAGE do
    n = n + 1
    local page = setmetatable({}, core.array_mt)
    for i = first, math.min(#list, first + M.PAGE - 1) do page[#page + 1] = list[i] end
    c:write(([[UPSERT { CONCEPT ?p { {type: "%s", name: :name}
  SET ATTRIBUTES { cycle: :cycle, page: :page, first: :first, %s: :items }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) } } }
WITH METADATA { source: "SleepCycle", author: "$system", memory_tier: "short-term", expires_at: :expires%s }]]):format(k.type, k.what,
      c.mentions_private and ', access_level: "private"' or ""),
      { name = ("%s:%s:%d"):format(name, kind == "flagged" and "flags" or kind, n), cycle = name, page = n, first = first, items = page,
        expires = require("kip.sleep.cycle").iso(c.now_s + c.params.archive_ttl_days * 86400) }, "report page")
  end
  return n
end

-- the first report_flags items of list (an array)
local function head(c, list)
  local out = setmetatable({}, core.array_mt)
  for i = 1, math.min(#list, c.params.report_flags) do out[i] = list[i] end
  return out
end

function M.run(c)
  if c.unchanged then -- nothing changed since that cycle: its metrics and flags stand
    local m = {}
    for k, v in pairs(c.unchanged.metrics_after) do m[k] = v end
    -- the strengths were measured then; this cycle's epoch is on top of them
    if type(m.memory_strength_as_of) ~= "string" then m.memory_strength_as_of = c.unchanged.now end
    c.metrics_before, c.metrics_after = m, m
    local since = c.unchanged.unchanged_since
    c.unchanged_since = type(since) == "string" and since or c.unchanged.now
  else
    c.metrics_after = assess.metrics(c, snapshot.take(c))
  end
  local flagged = {}
  for _, f in ipairs(c.flags) do flagged[#flagged + 1] = { phase = f.phase, name = f.name, reason = f.reason, kind = f.kind } end
  -- the record keeps the first report_flags items and every group; the
  -- rest is in its pages
  local kept = #flagged > c.params.report_flags and head(c, flagged) or flagged
  local report = {
    now = c.now, trigger = c.trigger or "manual", phases = c.results, flagged = flagged,
    flag_groups = c.unchanged and c.unchanged.flag_groups or require("kip.sleep.cycle").group_flags(flagged, 3),
    unchanged_since = c.unchanged_since, incremental = c.incremental, full_why = not c.unchanged and not c.delta and c.full_why or nil,
    writes = c.writes, errors = #c.errors, metrics_before = c.metrics_before, metrics_after = c.metrics_after,
  }
  c.report = report
  if c.dry_run then return { flagged = #flagged } end
  local name = "SleepCycle:" .. c.now
  local changes, nchanges = changes_of(c)
  -- a record whose flags or changes name a private fact (an unchanged cycle
  -- repeats the flags of the one before) is private itself, with its
  -- pages: the operator reads it, other callers do not see it
  c.mentions_private = c.unchanged and c.unchanged.mentions_private == true or false
  for _, f in ipairs(c.unchanged and {} or flagged) do
    if c.mentions_private then break end
    c.mentions_private = snapshot.names_private(c.snap, f.name .. " " .. f.reason)
  end
  for _, ch in ipairs(c.unchanged and {} or changes) do
    if c.mentions_private then break end
    c.mentions_private = snapshot.names_private(c.snap, (ch.why or "") .. " " .. (ch.values or "") .. " " .. (ch.before or ""))
  end
  local pages = write_pages(c, name, flagged, "flagged")
  local change_pages = write_pages(c, name, changes, "changes")
  -- the write generation the nexus will have when this cycle is done: a
  -- check (kip sleep --if-needed) that finds it unchanged reuses these
  -- metrics instead of reading the graph
  local generation = c.nx.handle and c.nx.handle.write_generation and c.nx.handle:write_generation()
  if generation and generation < 0 then generation = nil end
  -- only when the cycle's own writes are all that moved it since the cycle
  -- started: another writer's write while the phases ran may have come
  -- after the phase that would have judged it (the change log keeps it
  -- for the next cycle, which must not skip as unchanged)
  if generation and c.changes_before and generation ~= c.changes_before + (c.own_total or 0) then generation = nil end
  c:sweep("") -- the sweep cursors: carried over from the last record where no phase moved them
  c:write([[UPSERT { CONCEPT ?r { {type: "SleepCycle", name: :name}
  SET ATTRIBUTES { now: :now, status: "completed", resumed: :resumed, trigger: :trigger, phases: :phases,
    flagged: :flagged, flagged_count: :nflagged, flag_groups: :groups, flag_pages: :pages, generation_after: :generation_after, unchanged_since: :unchanged_since, work_left: :work_left,
    all_phases: :all_phases, sweeps: :sweeps, changes_before: :changes_before, mentions_private: :mentions_private, elements_seen: :elements_seen, rules_fingerprint: :rules, full_cycle_at: :full_cycle_at, incremental: :incremental, changes: :changes, changes_count: :nchanges, change_pages: :change_pages,
    writes: :writes, errors: :errors,
    metrics_before: :before, metrics_after: :after }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) } } }
WITH METADATA { source: "SleepCycle", author: "$system"]] .. (c.mentions_private and ', access_level: "private"' or "") .. " }",
    { name = name, now = c.now, resumed = c.resumed == true, trigger = report.trigger, phases = report.phases, flagged = kept,
      writes = c.writes, errors = #c.errors, before = c.metrics_before or {}, after = c.metrics_after,
      nflagged = #flagged, groups = report.flag_groups, pages = pages, unchanged_since = c.unchanged_since or core.null,
      work_left = c.work_left == true, all_phases = c.all_phases == true,
      sweeps = c.sweeps, changes = head(c, changes),
      changes_before = c.changes_before or core.null, mentions_private = c.mentions_private,
      -- the memory's size as the last whole read saw it (kip.sleep.delta weighs changes against it)
      elements_seen = (c.snap and not c.snap.partial and #c.snap.concepts + #c.snap.links)
        or tonumber((c.delta and c.delta.base or c.unchanged or {}).elements_seen) or core.null,
      rules = require("kip.sleep.delta").rules_fingerprint(c), incremental = c.incremental or core.null,
      -- the last full cycle (an incremental or unchanged one carries it)
      full_cycle_at = (c.delta and c.delta.full_cycle_at) or (c.unchanged and require("kip.sleep.delta").full_at(c.unchanged)) or c.now, nchanges = nchanges, change_pages = change_pages,
      -- after this record and the maintenance_log entry: two more write transactions
      generation_after = generation and generation + 2 or core.null }, "report")
  local entry = { timestamp = c.now, trigger = report.trigger, actions_taken = {}, items_processed = c.writes,
    issues_found = #flagged, report = name }
  for _, ph in ipairs(c.results or {}) do entry.actions_taken[#entry.actions_taken + 1] = ph.phase end
  for _ = 1, 5 do -- read, append, write back under EXPECT VERSION; retry on a conflict
    local rows = c:read('FIND(?s.attributes.maintenance_log, ?s.metadata._version) WHERE { ?s {type: "Person", name: "$system"} }')
    local log, version = rows[1] and rows[1][1], rows[2] and rows[2][1]
    local list = {}
    if type(log) == "table" then for _, e in ipairs(log) do list[#list + 1] = e end end
    list[#list + 1] = entry
    while #list > M.LOG_ENTRIES do table.remove(list, 1) end
    setmetatable(list, core.array_mt)
    local r = c:write([[UPSERT { CONCEPT ?s { {type: "Person", name: "$system"} EXPECT VERSION :v
  SET ATTRIBUTES { last_sleep_cycle: :now, maintenance_log: :log } } }]], { v = version, now = c.now, log = list }, "maintenance_log")
    if not (r.error and r.error.code == "KIP_3005") then break end
  end
  return { flagged = #flagged }
end

return M
