--- kip.sleep.cycle — the context every sleep phase works through
--- (SystemInstructions.md "Sleep Cycle Workflow"; docs/sleep.md).
---
--- Reads and writes are KIP requests through the nexus's governed pipeline
--- as actor `$system` (policies see every one; nothing goes behind the
--- core's back). Phases decide from what they read and send a write only
--- when something must change, so a second run sends none. In a dry run
--- writes are recorded, not sent. Every decision the
--- cycle takes is logged (`decisions`) so a run can be replayed and audited.
local core = require "kip.core"

local Cycle = {}
Cycle.__index = Cycle

local M = {}

local function iso(t) return os.date("!%Y-%m-%dT%H:%M:%SZ", t) end

--- seconds since the epoch of an ISO-8601 UTC timestamp (date, minutes,
--- seconds, fractions and a trailing Z or offset are accepted), or nil
function M.parse_time(s)
  if type(s) ~= "string" then return nil end
  local y, mo, d, rest = s:match("^(%d%d%d%d)%-(%d%d)%-(%d%d)(.*)$")
  if not y then return nil end
  local h, mi, sec = rest:match("^[T ](%d%d):(%d%d):?(%d?%d?)")
  h, mi, sec = tonumber(h) or 0, tonumber(mi) or 0, tonumber(sec) or 0
  local off = 0
  local sign, oh, om = rest:match("([%+%-])(%d%d):?(%d%d)$")
  if sign then off = (tonumber(oh) * 3600 + tonumber(om) * 60) * (sign == "+" and 1 or -1) end
  -- days from civil (Howard Hinnant), independent of the local time zone
  y, mo, d = tonumber(y), tonumber(mo), tonumber(d)
  if mo < 1 or mo > 12 or d < 1 or d > 31 then return nil end
  local yy = mo <= 2 and y - 1 or y
  local era = math.floor((yy >= 0 and yy or yy - 399) / 400)
  local yoe = yy - era * 400
  local doy = math.floor((153 * (mo + (mo > 2 and -3 or 9)) + 2) / 5) + d - 1
  local doe = yoe * 365 + math.floor(yoe / 4) - math.floor(yoe / 100) + doy
  local days = era * 146097 + doe - 719468
  return days * 86400 + h * 3600 + mi * 60 + sec - off
end

M.iso = iso

--- A new cycle on nexus `nx`. opts: now (ISO string; default the clock),
--- dry_run, hooks, params (overrides of M.DEFAULTS), log(fmt, ...) for
--- progress lines.
function M.new(nx, opts)
  opts = opts or {}
  local now = opts.now or iso(os.time())
  local now_s = M.parse_time(now)
  if not now_s then error(("--now: %q is not an ISO-8601 UTC time (e.g. 2026-11-20T00:00:00Z)"):format(tostring(now)), 0) end
  local params = {}
  for k, v in pairs(M.DEFAULTS) do params[k] = v end
  for k, v in pairs(opts.params or {}) do params[k] = v end
  local c = setmetatable({
    nx = nx, now = iso(now_s), now_s = now_s, dry_run = opts.dry_run, hooks = M.hooks(opts.hooks),
    params = params, log = opts.log or function() end,
    writes = 0, planned = {}, flags = {}, decisions = {}, errors = {}, caller = opts.caller,
  }, Cycle)
  c.cutoff = iso(now_s - params.stale_event_days * 86400)
  c.reinforcement_cutoff = iso(now_s - params.reinforcement_window_days * 86400)
  return c
end

M.DEFAULTS = {
  stale_event_days = 7,
  landmark_salience_min = 90,
  trivial_salience_max = 20,
  archive_ttl_days = 30,
  ttl_hard_cap = 500,
  decay_floor = 0.05,
  decay_default_strength = 0.7,
  decay_generic = 0.95,
  decay_assertion_slow = 0.98,
  decay_assertion_fast = 0.90,
  decay_slow_min_evidence = 3,
  -- links per decay UPDATE (the most a request matches): each pass re-reads
  -- its shard from the start, so a shard of n links costs about
  -- n²/(2·batch) row reads (171 134 links at 600 000 elements: 9.5 s in
  -- passes of 10 000, 6.4 s in passes of 100 000)
  decay_batch = 100000,
  reinforcement_window_days = 14,
  weak_strength = 0.2,   -- a fading link below it is a weak memory (reported)
  assertion_predicates = { prefers = true, learned = true },
  -- (and the mind model's evidence links: citations, not memories to fade)
  provenance_predicates = { derived_from = true, consolidated_to = true, involves = true, mentions = true,
    supersedes = true, assigned_to = true, supports = true, verifies = true, teaches = true,
    counterexample_of = true, event_of = true },
  small_domain_max = 2,
  phase_seconds = 300,   -- budget per phase (wall time); the rest waits for the next cycle
  phase_writes = 20000,  -- budget per phase (write commands)
  report_flags = 500,    -- flagged items kept in the SleepCycle record (all are counted)
  -- incremental cycles (kip.sleep.delta): at most this many changed
  -- elements (else a full cycle), this many other concepts swept per
  -- cycle, and a full cycle at least this often
  delta_max_changes = 50000,
  -- (a changed element costs an incremental cycle about 60 times its share
  -- of a whole read: after 1 761 changes both cycles cost the same at about
  -- 110 000 elements, scripts/bench/sleep)
  delta_cost_ratio = 60,
  sweep_concepts = 500,
  full_every_days = 7,
}

--- the judgment hooks of opts (a table of functions or a file returning
--- one): extensions of kind "hook", each call under the hook budget
function M.hooks(spec)
  local hooks, err = require("kip.extension").hooks(spec, "sleep hooks")
  if not hooks then error("sleep: " .. err, 0) end
  return hooks
end

--- raised inside a phase when its budget is spent (sleep.run reports it)
M.BUDGET = setmetatable({}, { __tostring = function() return "budget reached" end })

-- operator: maintenance sees the whole memory — private facts are the
-- memory's too (the default policy hides them from other callers, not from
-- the memory's own upkeep: a private orphan is filed, a private expired
-- note reclaimed); a report that may name one is private itself
-- (finalize: mentions_private)
local CTX = { actor = "$system", channel = "sleep", system = true, operator = true }
-- reads: a phase never encodes what it read again, so objects need not
-- remember their key order (a fifth of the cost of decoding a read)
local READ = { ctx = CTX, unordered = true }

--- Run a read; returns the result (raises on a KIP error).
function Cycle:read(command, params)
  local r = self.nx:execute(command, params, READ)
  if r.error then error(("sleep: %s: %s"):format(r.error.code, r.error.message), 0) end
  return r.result, r
end

--- Run reads ({command, parameters} each, at most 256) as one request;
--- returns the per-command responses (raises when the request fails).
function Cycle:read_batch(reads)
  if #reads == 0 then return {} end
  local r = self.nx:call({ commands = reads }, READ)
  if r.error then error(("sleep: %s: %s"):format(r.error.code, r.error.message), 0) end
  return r.result or {}
end

--- Every row of a FIND, following cursors.
function Cycle:read_all(command, params)
  local rows, cursor = {}, nil
  repeat
    local cmd = cursor and (command .. " CURSOR " .. core.json_encode(cursor)) or command
    local res, r = self:read(cmd, params)
    for _, row in ipairs(res) do rows[#rows + 1] = row end
    cursor = r.next_cursor
  until not cursor
  return rows
end

--- The cursor of sweep `name` — a phase's bounded pass over the whole
--- graph, continued cycle after cycle — as the newest completed cycle left
--- it (its record's `sweeps`); nil: start from the beginning.
function Cycle:sweep(name)
  if self.sweeps == nil then
    self.sweeps = {}
    local ok, rows = pcall(self.read, self, [[FIND(?r.attributes.sweeps) WHERE { ?r {type: "SleepCycle"}
  FILTER(?r.attributes.status == "completed") } ORDER BY ?r.name DESC LIMIT 1]])
    local prev = ok and rows[1]
    if type(prev) == "table" then for k, v in pairs(prev) do self.sweeps[k] = v end end
  end
  return self.sweeps[name]
end

--- where sweep `name` stands now (nil: it went round; the next starts over)
function Cycle:set_sweep(name, cursor)
  self:sweep(name)
  self.sweeps[name] = cursor
end

--- the phase's budget: raises M.BUDGET once it is spent
function Cycle:check_budget()
  -- finalization writes the cycle's own record: never cut short
  local grouped = self.group and #self.group.items or 0
  if self.phase_started and self.phase ~= "finalize" and (os.time() - self.phase_started > self.params.phase_seconds or
      self.writes + grouped - (self.phase_writes0 or 0) >= self.params.phase_writes) then
    self:end_group() -- what was decided before the budget ran out is sent
    error(M.BUDGET, 0)
  end
end

-- What a write changed, for the snapshot's catch-up (kip.sleep.snapshot):
-- `touch` = {links = {id…}, concepts = {{type, name [, shallow = true]}…}}
-- names the links and concepts a command may change or remove (shallow:
-- only the concept's own row). An UPSERT says what it wrote in its
-- response (the ids it lists: note_upserted). A DELETE or MERGE sent
-- without `touch` (an operator's phase, a hook) makes the next phase read
-- the whole graph again; any other write without it, read what changed
-- since the last read (by _updated_at).
local function touched(self)
  self.touched = self.touched or { links = {}, concepts = {}, ids = {}, upserted = {}, n = 0 }
  return self.touched
end

local function note_touch(self, command, touch)
  if touch then
    local t = touched(self)
    for _, id in ipairs(touch.links or {}) do t.links[id], t.n = true, t.n + 1 end
    for _, k in ipairs(touch.concepts or {}) do t.concepts[#t.concepts + 1], t.n = k, t.n + 1 end
  elseif command:find("DELETE", 1, true) or command:find("MERGE", 1, true) then
    self.reread = true
  elseif not command:match("^%s*UPSERT") then
    self.undeclared = true
  end
end

-- the concepts and links an UPSERT's response lists: read again with their
-- outgoing links (SET PROPOSITIONS adds links the response does not list)
local function note_upserted(self, result)
  if type(result) ~= "table" or not (result.upsert_concept_nodes or result.upsert_proposition_links) then return end
  local t = touched(self)
  for _, id in ipairs(result.upsert_concept_nodes or {}) do t.ids[id], t.n = true, t.n + 1 end
  for _, id in ipairs(result.upsert_proposition_links or {}) do t.upserted[id], t.n = true, t.n + 1 end
end

--- Send a write (or record it in a dry run, or add it to the open batch).
--- `touch` names what the write may change or remove (see note_touch), and
--- touch.before what it was (kept in the cycle's record beside the values
--- written: finalize).
--- Returns the response; a KIP error is returned, not raised, so one bad
--- item never stops a phase.
function Cycle:write(command, params, why, touch)
  self:check_budget()
  if not self.dry_run then note_touch(self, command, touch) end
  self.decisions[#self.decisions + 1] = { phase = self.phase, why = why, command = command, parameters = params,
    before = touch and touch.before }
  if self.dry_run then
    self.planned[#self.planned + 1] = { phase = self.phase, why = why, command = command, parameters = params }
    return { result = {} }
  end
  if self.batch then
    self.batch[#self.batch + 1] = { command = command, parameters = params or {} }
    return { result = {} }
  end
  if self.group then
    local g = self.group
    g.items[#g.items + 1] = { command = command, parameters = params or {} }
    g.whys[#g.items] = why
    if #g.items >= g.size then self:flush_group() end
    return { result = {} }
  end
  return self:send(command, params, why)
end

-- one write request; a refusal is recorded and flagged, not raised
function Cycle:send(command, params, why)
  local r = self.nx:execute(command, params, { ctx = CTX })
  if r.error then
    self.errors[#self.errors + 1] = { phase = self.phase, why = why, error = r.error }
    self:flag(why or command, "write failed: " .. r.error.code .. " " .. r.error.message, "write failed: " .. r.error.code)
    return r
  end
  -- a bulk UPDATE that matched nothing changed nothing: not a write
  if not (type(r.result) == "table" and r.result.updated == 0) then self.writes = self.writes + 1 end
  self.own_tx = (self.own_tx or 0) + 1
  self.own_total = (self.own_total or 0) + 1 -- (the cycle's write requests: finalize's generation_after)
  note_upserted(self, r.result)
  return r
end

--- Group the writes that follow, until end_group, into transactions of
--- up to `size` commands (default 200): the same writes with one commit
--- per group instead of one per write. Each group is atomic; a group that
--- is refused is sent again one write at a time, so one bad item is
--- recorded and flagged as it would have been alone, and the rest apply.
--- A phase uses it for many independent writes (the stale Events' archives).
function Cycle:begin_group(size)
  self:end_group()
  if not self.dry_run then self.group = { size = math.min(size or 200, 256), items = {}, whys = {} } end
end

-- commands sent as one transaction: true, or nil and the first refusal
-- ({code, message}; nothing of a refused request is applied)
local function send_atomic(self, commands)
  local r = self.nx:call({ commands = commands }, { ctx = CTX, atomic = true, unordered = true })
  if r.error then return nil, r.error end
  for _, item in ipairs(r.result or {}) do
    if type(item) == "table" and item.error then return nil, item.error end
  end
  if r.rolled_back then return nil, { code = "KIP_4003", message = "the batch was rolled back" } end
  self.writes = self.writes + #commands
  self.own_tx = (self.own_tx or 0) + 1
  self.own_total = (self.own_total or 0) + 1 -- (the cycle's write requests: finalize's generation_after)
  for _, item in ipairs(r.result or {}) do note_upserted(self, item.result) end
  return true
end

function Cycle:flush_group()
  local g = self.group
  if not g or #g.items == 0 then return end
  local items, whys = g.items, g.whys
  g.items, g.whys = {}, {}
  if send_atomic(self, items) then return end
  for i, item in ipairs(items) do self:send(item.command, item.parameters, whys[i]) end
end

--- Send what the group holds and stop grouping.
function Cycle:end_group()
  if self.group then self:flush_group() end
  self.group = nil
end

--- Collect the writes that follow until commit_batch: they are sent as one
--- atomic request (every one commits, or none does)
function Cycle:begin_batch() self.batch = {} end

--- Send the batch as one transaction: true, or nil and the first refusal
--- ({code, message}); nothing of a refused batch is applied
function Cycle:commit_batch()
  local batch = self.batch
  self.batch = nil
  if self.dry_run or not batch or #batch == 0 then return true end
  return send_atomic(self, batch)
end

--- Report an element that needs attention (or that a rule could not
--- decide). `kind` groups like flags in the report (default: the reason
--- with its numbers as N).
function Cycle:flag(name, reason, kind)
  self.flags[#self.flags + 1] = { phase = self.phase, name = name, reason = reason,
    kind = kind or (tostring(reason):gsub("%d+%.?%d*", "N")) }
end

--- The flags grouped by (phase, kind), largest first: {phase, kind, count,
--- examples (the first `examples` names), reason (the first one's)}
function M.group_flags(flags, examples)
  local groups, order = {}, {}
  for _, f in ipairs(flags) do
    local key = (f.phase or "") .. "\0" .. (f.kind or f.reason)
    local g = groups[key]
    if not g then
      g = { phase = f.phase, kind = f.kind or f.reason, reason = f.reason, count = 0, examples = setmetatable({}, core.array_mt) }
      groups[key] = g
      order[#order + 1] = g
    end
    g.count = g.count + 1
    if #g.examples < (examples or 3) then g.examples[#g.examples + 1] = f.name end
  end
  table.sort(order, function(a, b)
    if a.count ~= b.count then return a.count > b.count end
    if (a.phase or "") ~= (b.phase or "") then return (a.phase or "") < (b.phase or "") end
    return a.kind < b.kind
  end)
  return setmetatable(order, core.array_mt)
end

--- A KIP string literal (for positions that take no parameters: predicates)
function M.lit(s) return core.json_encode(s) end

return M
