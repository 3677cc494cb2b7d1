--- kip.sleep.strength — memory strength, the mnemonic accessibility of a
--- link (RC11 metadata.memory_strength, SystemInstructions.md Phase 7;
--- seed 001 "decay of old, unverified facts"; docs/sleep.md "Memory
--- strength"): the model in one place — how fast a link fades, what counts
--- as verified, and how use brings it back.
---
--- Decay: each sleep cycle multiplies the strength of a live link that was
--- not reinforced within the window by its class's factor (a missing
--- strength counts as 0.7) and stops at the floor:
---   s(n) = s(0) × f^n, n = cycles since the last reinforcement,
---   half-life = ln 0.5 / ln f cycles.
--- Classes: an assertion (prefers, learned) whose object was confirmed
--- repeatedly (evidence_count ≥ 3) is verified and fades slowly; an
--- assertion with less evidence is unverified and fades fast; any other
--- link fades at the generic rate; provenance and participation links
--- (derived_from, involves, the mind model's citations, …) never fade.
--- `confidence` is never touched: time does not make a fact less true.
---
--- Reinforcement: a link that is used — returned to an agent (the MCP
--- server reports every link in its responses) or confirmed (a host or a
--- phase calls reinforce) — gains `boost` (capped at 1) and is stamped
--- observed_at = now, which exempts it from decay for the window. A link
--- is reinforced at most once per `min_interval_hours`, so an agent that
--- reads the same facts all day does not pump them to 1.
local M = {}

M.BOOST = 0.2
M.MIN_INTERVAL_HOURS = 24
M.MAX_PER_CALL = 200 -- links reinforced per response (the first ones)

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

local READ = 'FIND(?l.metadata.memory_strength, ?l.metadata.observed_at) WHERE { ?l (id: :id) }'
local REINFORCE = [[UPDATE ?l SET METADATA { memory_strength: :s, observed_at: :now }
WHERE { ?l (id: :id) FILTER(IS_NULL(?l.metadata.observed_at) || ?l.metadata.observed_at < :recent) }]]

--- reinforce{ids (link ids), now? (unix seconds), boost?, ctx?}: links used
--- or confirmed regain strength: s ← min(1, s + boost), rounded to 3
--- decimals, observed_at ← now, unless reinforced within the interval.
--- Two requests (the strengths, then one statement per link); a link
--- another subsystem owns is refused by the core and skipped. Returns the
--- number of links reinforced.
function M.reinforce(nx, o)
  if nx:readonly() or #(o.ids or {}) == 0 then return 0 end
  local now = o.now or os.time()
  local ctx = o.ctx or { actor = "$system", channel = "sleep", system = true }
  local default = require("kip.sleep.cycle").DEFAULTS.decay_default_strength
  local recent = iso(now - M.MIN_INTERVAL_HOURS * 3600)
  local reads = {}
  for i = 1, math.min(#o.ids, M.MAX_PER_CALL) do reads[i] = { command = READ, parameters = { id = o.ids[i] } } end
  local r = nx:call({ commands = reads }, { ctx = ctx })
  local writes = {}
  for i, item in ipairs(not r.error and r.result or {}) do
    local cols = type(item) == "table" and item.result
    local s, seen = cols and cols[1] and cols[1][1], cols and cols[2] and cols[2][1]
    if cols and cols[1] and #cols[1] > 0 and not (type(seen) == "string" and seen >= recent) then
      s = type(s) == "number" and s or default
      writes[#writes + 1] = { command = REINFORCE, parameters = { id = reads[i].parameters.id, now = iso(now), recent = recent,
        s = math.floor(math.min(1, s + (o.boost or M.BOOST)) * 1000 + 0.5) / 1000 } }
    end
  end
  if #writes == 0 then return 0 end
  r = nx:call({ commands = writes }, { ctx = ctx })
  local n = 0
  for _, item in ipairs(not r.error and r.result or {}) do
    if type(item) == "table" and type(item.result) == "table" then n = n + (item.result.updated or 0) end
  end
  return n
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

--- is link l (of snapshot s) a weak memory: a fading link whose strength
--- is below params.weak_strength?
function M.weak(params, s, l)
  local md = l.metadata or {}
  if md.superseded == true or type(md.memory_strength) ~= "number" or md.memory_strength >= params.weak_strength then return false end
  local o = s.by_id[l.object]
  return M.class(params, l.predicate, o and o.attributes and o.attributes.evidence_count) ~= "kept"
end

return M
