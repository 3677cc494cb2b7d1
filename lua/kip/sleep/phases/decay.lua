--- Phase 7 — memory-strength decay (SystemInstructions.md Phase 7;
--- docs/sleep.md rule 6). One bulk UPDATE per predicate shard, repeated
--- until a pass updates fewer than its LIMIT: new strength = old × factor
--- (a missing strength counts as 0.7), stamped strength_decay_applied_at =
--- the cycle start, which makes reruns and crash-retries decay nothing
--- twice. Skipped: belongs_to_domain, superseded links, links at the floor,
--- links observed within the reinforcement window, provenance and
--- participation links. Assertion predicates
--- decay slowly (0.98) when their object has evidence_count ≥ 3, fast (0.90)
--- otherwise; every other predicate by 0.95. confidence is never touched.
local cycle = require "kip.sleep.cycle"
local snapshot = require "kip.sleep.snapshot"

local M = { name = "decay", title = "Memory-strength decay" }

local BATCH = 500

local function shard(c, predicate, factor, object_filter)
  local cmd = ([[UPDATE ?l SET METADATA {
  memory_strength: CLAMP(MUL(COALESCE(?l.metadata.memory_strength, :default), :factor), 0.0, 1.0),
  strength_decay_applied_at: :start
} WHERE {
  ?l (?s, %s, ?o)
  FILTER(IS_NULL(?l.metadata.superseded) || ?l.metadata.superseded != true)
  FILTER(IS_NULL(?l.metadata.memory_strength) || ?l.metadata.memory_strength > :floor)
  FILTER(IS_NULL(?l.metadata.strength_decay_applied_at) || ?l.metadata.strength_decay_applied_at < :start)
  FILTER(IS_NULL(?l.metadata.observed_at) || ?l.metadata.observed_at < :window)
  %s
} LIMIT %d]]):format(cycle.lit(predicate), object_filter or "", BATCH)
  local params = { default = c.params.decay_default_strength, factor = factor, start = c.now,
    floor = c.params.decay_floor, window = c.reinforcement_cutoff, min = c.params.decay_slow_min_evidence }
  if not object_filter or not object_filter:find(":min", 1, true) then params.min = nil end
  local total = 0
  repeat
    local r = c:write(cmd, params, ("decay %s by %s"):format(predicate, factor))
    local updated = (r.result or {}).updated or 0
    total = total + updated
  until c.dry_run or r.error or updated < BATCH
  return total
end

--- whether link l passes the shard's filters (the same ones, read from the
--- snapshot): a shard with no such link is not written to, so a rerun with
--- the same clock sends no command at all. The UPDATE stays the authority.
local function due(c, l)
  local m = l.metadata or {}
  return snapshot.live(l)
    and (tonumber(m.memory_strength) == nil or tonumber(m.memory_strength) > c.params.decay_floor)
    and (m.strength_decay_applied_at == nil or tostring(m.strength_decay_applied_at) < c.now)
    and (m.observed_at == nil or tostring(m.observed_at) < c.reinforcement_cutoff)
end

local function evidence(s, l)
  local o = s.by_id[l.object]
  local n = o and o.attributes and o.attributes.evidence_count
  return type(n) == "number" and n or nil
end

function M.run(c)
  local s = snapshot.take(c)
  local n = { links = 0 }
  local due_slow, due_fast, due_any = {}, {}, {}
  for _, l in ipairs(s.links) do
    if due(c, l) then
      local ev = evidence(s, l)
      due_any[l.predicate] = true
      if ev and ev >= c.params.decay_slow_min_evidence then due_slow[l.predicate] = true
      else due_fast[l.predicate] = true end
    end
  end
  local preds = {}
  for p in pairs(s.predicates) do preds[#preds + 1] = p end
  table.sort(preds)
  for _, p in ipairs(preds) do
    if p ~= "belongs_to_domain" and not c.params.provenance_predicates[p] and due_any[p] then
      if c.params.assertion_predicates[p] then
        if due_slow[p] then
          n.links = n.links + shard(c, p, c.params.decay_assertion_slow, "FILTER(?o.attributes.evidence_count >= :min)")
        end
        if due_fast[p] then
          n.links = n.links + shard(c, p, c.params.decay_assertion_fast,
            "FILTER(IS_NULL(?o.attributes.evidence_count) || ?o.attributes.evidence_count < :min)")
        end
      else
        n.links = n.links + shard(c, p, c.params.decay_generic)
      end
    end
  end
  return n
end

return M
