--- Phase 7 — memory-strength decay (SystemInstructions.md Phase 7;
--- docs/sleep.md rule 6 and "Memory strength"; kip.sleep.strength).
---
--- The first decay epoch of a nexus (no completed cycle has decayed it
--- yet) applies RC11's bulk UPDATE per predicate shard, repeated until a
--- pass updates fewer than its LIMIT: new strength = old × factor (a
--- missing strength counts as 0.7), stamped strength_decay_applied_at =
--- the cycle start, which makes reruns and crash-retries decay nothing
--- twice (a shard counts what is due first and sends nothing when that is
--- none). Skipped: belongs_to_domain, superseded links, links at the floor,
--- links observed within the reinforcement window, provenance and
--- participation links, links whose subject another subsystem owns.
--- Assertion predicates decay slowly (0.98) when their object has
--- evidence_count ≥ 3, fast (0.90) otherwise; every other predicate by
--- 0.95. confidence is never touched.
---
--- Every later epoch writes no link: the cycle's record is the epoch, and
--- the current strength of a link is computed from the epochs after its
--- stamp (kip.sleep.strength.current) — the same numbers the bulk UPDATE
--- would have stored, without a write per link.
local cycle = require "kip.sleep.cycle"
local guards = require "kip.guards"
local strength = require "kip.sleep.strength"
local snapshot = require "kip.sleep.snapshot"

local M = { name = "decay", title = "Memory-strength decay" }

local function shard(c, predicate, factor, object_filter)
  local where = ([[WHERE {
  ?l (?s, %s, ?o)
  FILTER(IS_NULL(?l.metadata.superseded) || ?l.metadata.superseded != true)
  FILTER(IS_NULL(?l.metadata.memory_strength) || ?l.metadata.memory_strength > :floor)
  FILTER(IS_NULL(?l.metadata.strength_decay_applied_at) || ?l.metadata.strength_decay_applied_at < :start)
  FILTER(IS_NULL(?l.metadata.observed_at) || ?l.metadata.observed_at < :window)
  %s
  %s
}]]):format(cycle.lit(predicate), object_filter or "", guards.kql_not_owned(guards.owned(c.nx), "?s"))
  local params = { start = c.now, floor = c.params.decay_floor, window = c.reinforcement_cutoff,
    min = object_filter and object_filter:find(":min", 1, true) and c.params.decay_slow_min_evidence or nil }
  -- nothing due (a rerun with the same clock): no command is sent at all
  local due = c:read("FIND(COUNT(?l)) " .. where, params)
  if (type(due) == "table" and due[1] or due or 0) == 0 then return 0 end
  local cmd = ([[UPDATE ?l SET METADATA {
  memory_strength: CLAMP(MUL(COALESCE(?l.metadata.memory_strength, :default), :factor), 0.0, 1.0),
  strength_decay_applied_at: :start
} %s LIMIT %d]]):format(where, c.params.decay_batch)
  local wparams = { default = c.params.decay_default_strength, factor = factor }
  for k, v in pairs(params) do wparams[k] = v end
  local total = 0
  repeat
    local r = c:write(cmd, wparams, ("decay %s by %s"):format(predicate, factor))
    local updated = (r.result or {}).updated or 0
    total = total + updated
  until c.dry_run or r.error or updated < c.params.decay_batch
  return total
end

function M.run(c)
  c.decay_epoch_now = true -- this cycle is an epoch: strength.of_cycle counts it
  local epochs = strength.of_cycle(c)
  if #epochs > 1 then return { links = 0, epoch = #epochs } end
  -- the nexus's first epoch: RC11's bulk UPDATE, shard by shard (a shard
  -- with nothing due sends nothing)
  -- caught up first, so its own writes need not be read again after it
  if c.snap then snapshot.take(c) end
  local fresh = c.snap ~= nil
  local preds = c:read('FIND(?p.name) WHERE { ?p {type: "$PropositionType"} } LIMIT 100000')
  table.sort(preds)
  local n = { links = 0 }
  for _, p in ipairs(preds) do
    if strength.class(c.params, p) ~= "kept" then
      if c.params.assertion_predicates[p] then
        n.links = n.links + shard(c, p, c.params.decay_assertion_slow, "FILTER(?o.attributes.evidence_count >= :min)")
        n.links = n.links + shard(c, p, c.params.decay_assertion_fast,
          "FILTER(IS_NULL(?o.attributes.evidence_count) || ?o.attributes.evidence_count < :min)")
      else
        n.links = n.links + shard(c, p, c.params.decay_generic)
      end
    end
  end
  -- these writes only stored this epoch's strengths, which strength.current
  -- computes from a snapshot taken before them all the same: it stays valid
  -- (the phases after decay do not read it again for them)
  if fresh then snapshot.keep_current(c) end
  return n
end

return M
