--- Phase 10 — finalization (SystemInstructions.md Phase 10; docs/sleep.md
--- rule 10): the metrics after the cycle, a `SleepCycle` record in the
--- System Domain (parameters, per-phase results, flagged items, metrics
--- before and after, the write count), and $system's last_sleep_cycle and
--- maintenance_log (the whole array rewritten under EXPECT VERSION, retried
--- on a version conflict; the newest 50 entries kept).
local core = require "kip.core"
local snapshot = require "kip.sleep.snapshot"
local assess = require "kip.sleep.phases.assess"

local M = { name = "finalize", title = "Finalization" }

M.LOG_ENTRIES = 50

--- define the SleepCycle type when the nexus does not have it yet
function M.ensure_type(c)
  local n = c:read('FIND(COUNT(?t)) WHERE { ?t {type: "$ConceptType", name: "SleepCycle"} }')
  if (type(n) == "table" and n[1] or n or 0) > 0 then return end
  c:write([[UPSERT { CONCEPT ?t { {type: "$ConceptType", name: "SleepCycle"}
  SET ATTRIBUTES { description: "The report of one $system sleep (maintenance) cycle: its clock, trigger, status (running until it finishes; a rerun resumes it with the same clock), per-phase results, flagged items and health metrics before and after. Written by the cycle itself.",
    display_hint: "🌙" }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "CoreSchema"}) } } }
WITH METADATA { source: "SleepCycle", author: "$system" }]], {}, "define SleepCycle")
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

function M.run(c)
  local s = snapshot.take(c)
  c.metrics_after = assess.metrics(c, s)
  local flagged = {}
  for _, f in ipairs(c.flags) do flagged[#flagged + 1] = { phase = f.phase, name = f.name, reason = f.reason } end
  -- the record keeps the first report_flags items (every one is counted)
  local kept = flagged
  if #flagged > c.params.report_flags then
    kept = {}
    for i = 1, c.params.report_flags do kept[i] = flagged[i] end
  end
  local report = {
    now = c.now, trigger = c.trigger or "manual", phases = c.results, flagged = flagged,
    writes = c.writes, errors = #c.errors, metrics_before = c.metrics_before, metrics_after = c.metrics_after,
  }
  c.report = report
  if c.dry_run then return { flagged = #flagged } end
  local name = "SleepCycle:" .. c.now
  c:write([[UPSERT { CONCEPT ?r { {type: "SleepCycle", name: :name}
  SET ATTRIBUTES { now: :now, status: "completed", resumed: :resumed, trigger: :trigger, phases: :phases,
    flagged: :flagged, flagged_count: :nflagged, writes: :writes, errors: :errors, metrics_before: :before,
    metrics_after: :after }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) } } }
WITH METADATA { source: "SleepCycle", author: "$system" }]],
    { name = name, now = c.now, resumed = c.resumed == true, trigger = report.trigger, phases = report.phases, flagged = kept,
      writes = c.writes, errors = #c.errors, before = c.metrics_before or {}, after = c.metrics_after,
      nflagged = #flagged }, "report")
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
