--- kip.sleep — the $system sleep cycle (SystemInstructions.md "Sleep Cycle
--- Workflow"; docs/sleep.md): memory maintenance as a sequence of phases,
--- each a Lua module in kip/sleep/phases/ that reads the graph through KQL
--- and changes it through KIP issued by actor $system in the governed
--- pipeline.
---
---   local sleep = require "kip.sleep"
---   local report = sleep.run(nx, { now = "2026-11-20T00:00:00Z" })
---
--- opts: now (ISO-8601 UTC; default the clock), dry_run (list the intended
--- commands, change nothing), phases (names or phase tables, default
--- sleep.PHASES; an operator replaces or adds a phase by naming a file
--- path ending in .lua that returns {name=, title=, run=function(cycle) ->
--- counts}: an extension of kind "sleep_phase", see load_phase_file),
--- add_phases (phase files or tables inserted into the default phases at
--- their after=/before=), hooks
--- (judgment steps: classify, consolidate, duplicates, contradiction, domain, task;
--- without one a rule decides what it can and flags the rest), trigger,
--- progress(phase, title, counts, seconds) after each phase; policies
--- (names for a nexus opened without any: default {"default"}; false runs
--- ungoverned). The cycle's writes always pass the core's guards.
--- After the phases (not in a dry run, nor when an unchanged memory's
--- phases were skipped) the SEARCH index is merged (nexus:merge_index).
--- Returns the report: {now, phases = {{phase, title, counts, seconds}},
--- flagged, writes, errors, metrics_before, metrics_after, planned (dry run),
--- index_merge = {seconds [, error]}}.
local cycle = require "kip.sleep.cycle"
local delta = require "kip.sleep.delta"
local extension = require "kip.extension"

local M = {}

M.PHASES = { "assess", "tasks", "unsorted", "orphans", "events", "duplicates", "contradictions", "decay", "domains",
  "ttl", "finalize" }

-- An operator's phase (a file path ending in .lua, or a table) is an
-- extension of kind "sleep_phase" (kip.extension: sandboxed — no io, no
-- require —, budgeted, hot-reloaded) with the cycle's helper modules as
-- globals — sleep.snapshot, sleep.rules, sleep.cycle; it returns {name=,
-- title=, run=function(c) ... end} and, to be added to the default phases,
-- after = "<phase>" or before = "<phase>" (default: before finalize).
extension.kind("sleep_phase", {
  label = "sleep phase",
  globals = function()
    return { sleep = { snapshot = require "kip.sleep.snapshot", rules = require "kip.sleep.rules", cycle = require "kip.sleep.cycle" },
      kip = { null = require("kip.core").null } }
  end,
  check = function(phase)
    if type(phase) ~= "table" or type(phase.run) ~= "function" or type(phase.name) ~= "string" then
      return nil, "a sleep phase must return {name=, run=function(cycle) ... end}"
    end
    return phase
  end,
})

local function load_phase_file(spec)
  local ext, err = extension.from("sleep_phase", spec)
  if not ext then error("sleep: " .. err, 0) end
  return { name = ext.name, title = ext.title or ext.name, after = ext.after, before = ext.before, run = function(c)
    local ok, res = extension.call(ext, "run", M.PHASE_BUDGET, c)
    if not ok and tostring(res):match("failed: budget reached") then error(cycle.BUDGET, 0) end
    if not ok then error(res, 0) end
    return res
  end }
end

M.PHASE_BUDGET = extension.BUDGETS.sleep_phase

local function load_phase(p)
  if type(p) == "table" and p.__extension then return load_phase_file(p) end
  if type(p) == "table" then return p end
  if type(p) == "string" and p:match("%.lua$") then return load_phase_file(p) end
  local ok, mod = pcall(require, "kip.sleep.phases." .. p)
  if ok then return mod end
  error(("sleep: unknown phase %q (built in: %s; or a path to a phase file ending in .lua)"):format(tostring(p),
    table.concat(M.PHASES, ", ")), 0)
end

--- the default phases with `added` (phase files or tables naming after= or
--- before=, default before finalize) inserted where they say
function M.with_added(added)
  local names = {}
  for i, n in ipairs(M.PHASES) do names[i] = n end
  for _, spec in ipairs(added or {}) do
    local ph = load_phase(spec)
    local anchor, offset = ph.before or ph.after or "finalize", ph.after and 1 or 0
    local at
    for i, n in ipairs(names) do if (type(n) == "table" and n.name or n) == anchor then at = i end end
    if not at then error(("sleep: phase %s goes %s %q, which is not a phase"):format(ph.name, ph.after and "after" or "before", anchor), 0) end
    table.insert(names, at + offset, ph)
  end
  return names
end

-- the clock of an interrupted cycle to resume (its SleepCycle is still
-- "running"), so a rerun reuses the same cycle start (:cycle_start) and
-- nothing is applied twice
local function resume_clock(nx)
  local c = cycle.new(nx, {})
  local ok, rows = pcall(c.read, c, [[FIND(?r.attributes.now) WHERE { ?r {type: "SleepCycle"}
  FILTER(?r.attributes.status == "running") } ORDER BY ?r.attributes.now DESC LIMIT 1]])
  return ok and rows[1] or nil
end

-- did the cycle of record `rec` run every default phase (or skip them as
-- unchanged)? (records written before all_phases: from their phase list)
local function ran_every_phase(rec)
  if rec.all_phases ~= nil and rec.all_phases ~= require("kip.core").null then return rec.all_phases == true end
  local ran = {}
  for _, ph in ipairs(type(rec.phases) == "table" and rec.phases or {}) do
    if type(ph) == "table" then ran[ph.phase] = true end
  end
  for _, name in ipairs(M.PHASES) do
    if name ~= "finalize" and not ran[name] then return false end
  end
  return true
end

-- the newest cycle's record by name ("SleepCycle:<now>", through the name
-- index): its attributes, or nil
local function newest_record(c)
  local ok, rows = pcall(c.read, c, 'FIND(?r.attributes) WHERE { ?r {type: "SleepCycle"} } ORDER BY ?r.name DESC LIMIT 1')
  return ok and type(rows[1]) == "table" and rows[1] or nil
end

-- the newest completed cycle's record when it still describes the memory:
-- nothing was written since (the nexus's write generation is the one the
-- cycle recorded after its own writes), no pending Event has turned stale
-- (the cutoff has not passed next_stale_at) and nothing has expired (the
-- clock has not passed next_expiry_at), and it left no work for the next
-- cycle (a budget or the TTL cap reached), and it ran every phase (or was
-- such a skip itself). Returns the record's attributes.
local function unchanged_since(c, rec)
  local gen = c.nx.handle and c.nx.handle.write_generation and c.nx.handle:write_generation()
  if not gen or gen < 0 then return nil end
  if rec == nil then rec = newest_record(c) end
  local m = type(rec) == "table" and rec.status == "completed" and rec.metrics_after
  if type(m) ~= "table" or rec.generation_after ~= gen or rec.now > c.now or rec.work_left == true
    or not ran_every_phase(rec) then -- a cycle of chosen phases left the others undone
    return nil
  end
  if type(m.next_stale_at) == "string" and c.cutoff > m.next_stale_at then return nil end
  if type(m.next_expiry_at) == "string" and c.now > m.next_expiry_at then return nil end
  return rec
end

local function recorded_metrics(c, rec)
  rec = unchanged_since(c, rec)
  return rec and rec.metrics_after
end

function M.run(nx, opts)
  opts = opts or {}
  -- a cycle is always governed: on a nexus opened without policies (the Lua
  -- API's default, a timer's host) it runs under the default set, unless
  -- the host says policies = false
  if not nx.policies and opts.policies ~= false then
    local governed = setmetatable({ policies = require("kip.nexus").policy_set(opts.policies or { "default" }), __proxy_of = nx },
      { __index = nx })
    return M.run(governed, setmetatable({ policies = false }, { __index = opts }))
  end
  local finalize = require "kip.sleep.phases.finalize"
  if not opts.dry_run then
    local c0 = cycle.new(nx, opts)
    finalize.ensure_type(c0)
    if not opts.now then
      local now = resume_clock(nx)
      if now then
        opts = setmetatable({ now = now, resumed = true }, { __index = opts })
      end
    end
  end
  local c = cycle.new(nx, opts)
  c.resumed = opts.resumed
  c.trigger = opts.trigger
  c.all_phases = not opts.phases
  c.incremental_always = opts.incremental
  -- an unchanged memory with nothing due: the phases would find what the
  -- last cycle found and write nothing, so only the decay epoch is
  -- recorded (the default phases, no hooks: a hook may judge anew);
  -- decided before this cycle's own record is written
  -- phases added by the host, else those of the operator's extension folders (sleep_phases/)
  local added = opts.add_phases
  if added == nil and not opts.phases then
    added = require("kip.subsystems").extensions("sleep_phase")
    if #added == 0 then added = nil end
  end
  local names = opts.phases or (added and M.with_added(added)) or M.PHASES
  -- the change log's mark: this cycle takes what was logged before it
  -- (forgotten when the cycle completes; kip.sleep.delta)
  local h = nx.handle
  local gen = not c.dry_run and h and h.changes and h.write_generation and h:write_generation()
  c.changes_before = gen and gen >= 0 and gen or nil
  -- a memory changed since a complete cycle: its phases work from what
  -- changed (kip.sleep.delta) unless opts.full or the plan says otherwise
  if not opts.phases and not added and not next(c.hooks) and not c.dry_run then
    local rec = newest_record(c)
    c.unchanged = not opts.full and unchanged_since(c, rec) or nil
    if c.unchanged then names = { "decay", "finalize" }
    elseif opts.full then c.full_why = "asked for (--full)"
    else c.delta, c.full_why = delta.plan(c, rec) end
  end
  if not c.dry_run then
    finalize.mark_running(c)
    c.writes = 0 -- the cycle's own record is its report, not a maintenance write
  end
  if c.delta then
    c.snap, c.own_tx, c.snap_writes = delta.focus(c, c.delta), 0, c.writes
  end
  c.results = {}
  local phases = {}
  for _, p in ipairs(names) do phases[#phases + 1] = load_phase(p) end
  for _, ph in ipairs(phases) do
    c.phase = ph.name
    c.phase_started, c.phase_writes0 = os.time(), c.writes
    local t0 = os.clock()
    local ok, counts = pcall(ph.run, c)
    c:end_group() -- a phase's grouped writes are sent however it ended
    local secs = os.clock() - t0
    c.phase_started = nil
    if not ok and counts == cycle.BUDGET then
      c:flag(ph.name, ("phase budget reached (%d s or %d writes): the next cycle continues"):format(
        c.params.phase_seconds, c.params.phase_writes))
      counts = { budget_reached = true }
      c.work_left = true
    elseif not ok then
      c.errors[#c.errors + 1] = { phase = ph.name, error = { message = tostring(counts) } }
      c:flag(ph.name, "phase failed: " .. tostring(counts))
      counts = { failed = true }
    end
    local res = { phase = ph.name, title = ph.title or ph.name, counts = counts, seconds = secs }
    if ph.name ~= "finalize" then c.results[#c.results + 1] = res end
    if opts.progress then opts.progress(ph.name, res.title, counts, secs) end
  end
  -- the SEARCH index merged into one segment, so the writes until the next
  -- cycle do not pay for merges pending in a large index (kip_merge_index);
  -- not after an unchanged memory's cycle: the last one merged it, and a
  -- merge costs what the index holds (1 s at 600 000 elements)
  -- what is not indexed yet (another tool's writes) and the vectors the
  -- in-transaction embedder has not made yet (a killed load's elements,
  -- queued when the next open indexed them): caught up (kip_sync_index)
  if not c.dry_run and nx.handle and nx.handle.sync_index then
    local ok, err = nx.handle:sync_index(50000)
    if not ok then
      c.errors[#c.errors + 1] = { phase = "index", why = "index catch-up", error = { code = "KIP_4003", message = tostring(err) } }
    end
  end
  local merged
  if not c.dry_run and not c.unchanged and not c.delta and nx.handle and nx.handle.merge_index then
    local t0 = os.clock()
    local ok, err = nx.handle:merge_index()
    merged = { seconds = os.clock() - t0, error = not ok and err or nil }
    if opts.progress then opts.progress("index", "Search index merge", ok and {} or { failed = true }, merged.seconds) end
  end
  if not c.dry_run and c.changes_before then -- what this cycle took from the change log
    local ok, err = nx.handle:forget_changes(c.changes_before)
    if not ok then c.errors[#c.errors + 1] = { phase = "index", why = "change log", error = { message = tostring(err) } } end
  end
  local report = c.report or { now = c.now, phases = c.results, flagged = c.flags, writes = c.writes,
    metrics_before = c.metrics_before, metrics_after = c.metrics_after }
  report.index_merge = merged
  report.errors = c.errors
  report.planned = c.dry_run and c.planned or nil
  report.decisions = c.decisions
  return report
end

--- the health metrics now, and whether the threshold trigger fires: from
--- the newest cycle's record when nothing changed since (milliseconds);
--- from that record and the change log when the memory changed since a
--- complete cycle (delta.check_counts: proportional to what changed); else
--- the trigger's four metrics counted by the store (assess.counts).
--- opts.until_needed: only until one crosses its threshold — what
--- `kip sleep --if-needed` asks; opts.measure: every metric, measured over
--- the graph. The fourth result says which ("recorded", "logged",
--- "counted" or "measured").
function M.check(nx, opts)
  opts = opts or {}
  local assess = require "kip.sleep.phases.assess"
  local c = cycle.new(nx, opts)
  local rec = newest_record(c)
  local m, how, early = recorded_metrics(c, rec), "recorded", false
  if not m and opts.measure then m, how = assess.metrics(c, require("kip.sleep.snapshot").take(c)), "measured"
  elseif not m then m, early = delta.check_counts(c, rec, opts.until_needed); how = "logged" end
  if not m then
    m, early = assess.counts(c, opts.until_needed)
    how = "counted"
  end
  local needed, why = assess.needed(m, early)
  return needed, why, m, how
end

return M
