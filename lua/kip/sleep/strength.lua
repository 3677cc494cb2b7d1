--- kip.sleep.strength — memory strength, the mnemonic accessibility of a
--- link (RC11 metadata.memory_strength, SystemInstructions.md Phase 7;
--- seed 001 "decay of old, unverified facts"; docs/sleep.md "Memory
--- strength"): the model in one place — how fast a link fades, what counts
--- as verified, how use brings it back, and how the current strength is
--- computed without writing every link each cycle.
---
--- Decay: each sleep cycle (a decay *epoch*) multiplies the strength of a
--- live link that was not reinforced within the window by its class's
--- factor (a missing strength counts as 0.7) and stops at the floor:
---   s(n) = s(0) × f^n, n = epochs since the stored strength's stamp,
---   half-life = ln 0.5 / ln f cycles.
--- Classes: an assertion (prefers, learned) whose object was confirmed
--- repeatedly (evidence_count ≥ 3) is verified and fades slowly; an
--- assertion with less evidence is unverified and fades fast; any other
--- link fades at the generic rate; provenance and participation links
--- (derived_from, involves, the mind model's citations, …) never fade.
--- `confidence` is never touched: time does not make a fact less true.
---
--- Stored and current: the first decay epoch of a nexus writes every link
--- (RC11's bulk UPDATE, stamped strength_decay_applied_at). After it a
--- cycle only records its epoch (its SleepCycle record): the stored
--- memory_strength is the strength as of its stamp, and the current one is
--- computed from the epochs since (M.current) — for the report, for
--- reinforcement, for a host that ranks by it — so a cycle writes no link.
---
--- Reinforcement: a link that is used — returned to an agent (the MCP
--- server reports every link in its responses) or confirmed (a host calls
--- reinforce) — gets its current strength plus `boost` (capped at 1), a new
--- stamp and observed_at = now, which exempts it from decay for the window.
--- A link is reinforced at most once per `MIN_INTERVAL_HOURS`, so an agent
--- that reads the same facts all day does not pump them to 1.
local state = require "kip.state"
local M = {}

M.BOOST = 0.2
M.MIN_INTERVAL_HOURS = 24
M.MAX_PER_CALL = 200 -- links reinforced per response (the first ones)
M.MAX_EPOCHS = 1000  -- epochs kept: 0.98^1000 is far below any floor

--- the class and factor of a link with predicate p whose object has
--- evidence_count n, under the cycle parameters `params`
--- (kip.sleep.cycle.DEFAULTS): "verified" | "unverified" | "generic" |
--- "kept" (never decays) and the factor (nil when kept)
function M.class(params, p, n)
  if p == "belongs_to_domain" or params.provenance_predicates[p] then return "kept" end
  if params.assertion_predicates[p] then
    if type(n) == "number" and n >= params.decay_slow_min_evidence then return "verified", params.decay_assertion_slow end
    return "unverified", params.decay_assertion_fast
  end
  return "generic", params.decay_generic
end

--- the half-life in cycles of factor f
function M.half_life(f) return math.log(0.5) / math.log(f) end

local function iso(t) return os.date("!%Y-%m-%dT%H:%M:%SZ", t) end

--- the decay epochs recorded in a nexus: the clocks of its completed cycles
--- whose decay phase ran, oldest first (the newest MAX_EPOCHS).
--- `read(kql)` runs a read and returns its result (it may raise)
function M.epochs(read)
  local ok, rows = pcall(read, [[FIND(?r.attributes.now, ?r.attributes.phases) WHERE { ?r {type: "SleepCycle"}
  FILTER(?r.attributes.status == "completed") } LIMIT 100000]])
  local out = {}
  if not ok or type(rows) ~= "table" then return out end
  for i, now in ipairs(rows[1] or {}) do
    local phases = (rows[2] or {})[i]
    for _, ph in ipairs(type(phases) == "table" and phases or {}) do
      local counts = type(ph) == "table" and type(ph.counts) == "table" and ph.counts or {}
      if type(ph) == "table" and ph.phase == "decay" and type(now) == "string" and not (counts.failed or counts.budget_reached) then
        out[#out + 1] = now
        break
      end
    end
  end
  table.sort(out)
  while #out > M.MAX_EPOCHS do table.remove(out, 1) end
  return out
end

--- the current strength of link l (its metadata and predicate) whose object
--- has evidence_count n, after `epochs` (sorted ISO clocks): the stored
--- strength decayed once per epoch after its stamp and after its
--- reinforcement window, stopping at the floor; nil when the link has no
--- strength and never decayed
function M.current(params, l, n, epochs)
  local md = l.metadata or {}
  local s = type(md.memory_strength) == "number" and md.memory_strength or nil
  if md.superseded == true then return s end
  local _, f = M.class(params, l.predicate, n)
  if not f then return s end
  local stamp = type(md.strength_decay_applied_at) == "string" and md.strength_decay_applied_at or nil
  local seen = type(md.observed_at) == "string" and require("kip.sleep.cycle").parse_time(md.observed_at)
  local window_end = seen and iso(seen + params.reinforcement_window_days * 86400) or nil
  local k = 0
  for i = #epochs, 1, -1 do
    local e = epochs[i]
    if (stamp and e <= stamp) or (window_end and e <= window_end) then break end
    k = k + 1
  end
  if k == 0 then return s end
  local v = s or params.decay_default_strength
  for _ = 1, k do
    if v <= params.decay_floor then break end
    v = v * f
  end
  return v
end

--- the epochs a cycle's strengths are computed with: those recorded
--- before it, and its own once its decay phase recorded it (cached)
function M.of_cycle(c)
  if not c.decay_epochs then
    c.decay_epochs = M.epochs(function(q) return c:read(q) end)
    for i = #c.decay_epochs, 1, -1 do -- a rerun at this clock: the epoch is the cycle's own
      if c.decay_epochs[i] >= c.now then table.remove(c.decay_epochs, i) end
    end
  end
  if not c.decay_epoch_now then return c.decay_epochs end
  local with = {}
  for i, e in ipairs(c.decay_epochs) do with[i] = e end
  with[#with + 1] = c.now
  return with
end

-- the epochs of a nexus for reinforcement, re-read at most once a minute
local function epochs_of(nx, ctx)
  local now = os.time()
  if not state.of(nx, "sleep").decay_epochs or now - state.of(nx, "sleep").decay_epochs_at > 60 then
    state.of(nx, "sleep").decay_epochs = M.epochs(function(q)
      local r = nx:execute(q, nil, { ctx = ctx })
      if r.error then error(r.error.message, 0) end
      return r.result
    end)
    state.of(nx, "sleep").decay_epochs_at = now
  end
  return state.of(nx, "sleep").decay_epochs
end

local READ = 'FIND(?l, ?o.attributes.evidence_count) WHERE { ?l (id: :id) ?l (?s, ?p, ?o) }'
local REINFORCE = [[UPDATE ?l SET METADATA { memory_strength: :s, observed_at: :now, strength_decay_applied_at: :now }
WHERE { ?l (id: :id) FILTER(IS_NULL(?l.metadata.observed_at) || ?l.metadata.observed_at < :recent) }]]

--- reinforce{ids (link ids), now? (unix seconds), boost?, ctx?}: links used
--- or confirmed regain strength: s ← min(1, current + boost), rounded to
--- 3 decimals, stamped now, observed_at ← now — unless reinforced within
--- the interval. Two requests (the links, then one statement per link); a
--- link another subsystem owns is refused by the core and skipped. Returns
--- the number of links reinforced.
function M.reinforce(nx, o)
  if nx:readonly() or #(o.ids or {}) == 0 then return 0 end
  local now = o.now or os.time()
  local ctx = o.ctx or { actor = "$system", channel = "sleep", system = true }
  local params = require("kip.sleep.cycle").DEFAULTS
  local recent = iso(now - M.MIN_INTERVAL_HOURS * 3600)
  local reads = {}
  for i = 1, math.min(#o.ids, M.MAX_PER_CALL) do reads[i] = { command = READ, parameters = { id = o.ids[i] } } end
  local r = nx:call({ commands = reads }, { ctx = ctx })
  local epochs = epochs_of(nx, ctx)
  local writes = {}
  for i, item in ipairs(not r.error and r.result or {}) do
    local cols = type(item) == "table" and item.result
    local l, n = cols and cols[1] and cols[1][1], cols and cols[2] and cols[2][1]
    local seen = type(l) == "table" and (l.metadata or {}).observed_at
    if type(l) == "table" and not (type(seen) == "string" and seen >= recent) then
      local s = M.current(params, l, type(n) == "number" and n or nil, epochs) or params.decay_default_strength
      writes[#writes + 1] = { command = REINFORCE, parameters = { id = reads[i].parameters.id, now = iso(now), recent = recent,
        s = math.floor(math.min(1, s + (o.boost or M.BOOST)) * 1000 + 0.5) / 1000 } }
    end
  end
  if #writes == 0 then return 0 end
  r = nx:call({ commands = writes }, { ctx = ctx })
  local count = 0
  for _, item in ipairs(not r.error and r.result or {}) do
    if type(item) == "table" and type(item.result) == "table" then count = count + (item.result.updated or 0) end
  end
  return count
end

--- the link ids in a response (JSON text), in order, without repeats
function M.links_in(text)
  local ids, seen = {}, {}
  for id in text:gmatch('{"id":"(P:[^"]*)","subject":') do
    if not seen[id] then
      seen[id] = true
      ids[#ids + 1] = id
    end
  end
  return ids
end

--- a response was returned to an agent: reinforce the links it carries
function M.used(nx, text, o)
  if type(text) ~= "string" or not text:find('"subject":', 1, true) then return 0 end
  o = o or {}
  o.ids = M.links_in(text)
  return M.reinforce(nx, o)
end

return M
