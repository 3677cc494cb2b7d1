--- Phase 9 — TTL reclamation, the only hard delete (SystemInstructions.md
--- Phase 9; docs/sleep.md rule 7). A node whose expires_at has passed is
--- deleted (DETACH) only if it is a consolidated Event that is no concept's
--- sole derived_from evidence, a terminal SleepTask or Commitment, or a
--- node whose own memory_tier is "short-term". An expired Event still
--- pending, or sole evidence, is kept with its expires_at extended; any
--- other expired node is kept, reported, and given a `review` SleepTask
--- (protected ones are only reported). An expired live link is deleted
--- unless an endpoint is an Event these rules keep (not consolidated, or
--- sole evidence — whether or not its own TTL has passed, so the next cycle
--- decides the same); an expired superseded link is
--- history and is kept. At most ttl_hard_cap deletions per cycle.
local cycle = require "kip.sleep.cycle"
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"

local M = { name = "ttl", title = "TTL reclamation" }

local TERMINAL = {
  SleepTask = { completed = true, failed = true },
  Commitment = { fulfilled = true, cancelled = true, expired = true },
}

local function expired(c, e)
  local x = e.metadata and e.metadata.expires_at
  return type(x) == "string" and x < c.now
end

local function sole_evidence(s, ev)
  for _, l in ipairs(s:links_to(ev.id, "derived_from")) do
    local live = 0
    for _, d in ipairs(s:links_from(l.subject, "derived_from")) do if snapshot.live(d) then live = live + 1 end end
    if live == 1 and snapshot.live(l) then return true end
  end
  return false
end

-- an Event the TTL rules keep: not consolidated yet, or sole evidence
local function kept_event(s, e)
  if not e or e.type ~= "Event" then return false end
  local st = (e.attributes or {}).consolidation_status
  return not (st == "completed" or st == "archived") or sole_evidence(s, e)
end

local function slug(s) return (s:lower():gsub("[^%w]+", "-"):gsub("^%-+", ""):gsub("%-+$", "")) end

local function review_task(c, s, e, reason)
  local name = ("SleepTask:%s:review:%s"):format(c.now:sub(1, 10), slug(e.type .. "-" .. e.name))
  if s:get("SleepTask", name) then return end
  -- one review waiting per item: an earlier cycle's (another day's name) still pending stands
  local waiting = c:read([[FIND(COUNT(?t)) WHERE { ?t {type: "SleepTask"} FILTER(?t.attributes.requested_action == "review"
    && ?t.attributes.target_type == :tt && ?t.attributes.target_name == :tn
    && (?t.attributes.status == "pending" || ?t.attributes.status == "in_progress")) }]], { tt = e.type, tn = e.name })
  if (tonumber(type(waiting) == "table" and waiting[1] or waiting) or 0) > 0 then return end
  c:write([[UPSERT {
  CONCEPT ?t { {type: "SleepTask", name: :name}
    SET ATTRIBUTES { target_type: :tt, target_name: :tn, requested_action: "review", reason: :reason, status: "pending", priority: 1 }
    SET PROPOSITIONS { ("assigned_to", {type: "Person", name: "$system"}) ("belongs_to_domain", {type: "Domain", name: "System"}) } }
} WITH METADATA { source: "SleepCycle", author: "$system", created_at: :now }]],
    { name = name, tt = e.type, tn = e.name, reason = reason, now = c.now }, "review task for " .. snapshot.label(e))
end

-- an incremental cycle: the Events the TTL rules judge here (expired in
-- the focus, or at an end of an expired link of the focus) join the focus
-- with the concepts derived_from them (sole evidence reads their links)
local function partial_focus(c, s)
  local events = {}
  local function event(id)
    local e = s.by_id[id]
    if e and e.type == "Event" and not s.focus[id] then events[#events + 1] = id end
  end
  for _, e in ipairs(s.concepts) do if expired(c, e) then event(e.id) end end
  for _, l in ipairs(s.links) do
    if not l.stale and expired(c, l) and (s.focus[l.subject] or s.focus[l.object]) then event(l.subject) event(l.object) end
  end
  s:add_focus(c, events)
  local derived = {}
  for _, e in ipairs(s.concepts) do
    if e.type == "Event" and not e.stale then
      for _, l in ipairs(s:links_to(e.id, "derived_from")) do if not s.focus[l.subject] then derived[#derived + 1] = l.subject end end
    end
  end
  s:add_focus(c, derived)
end

function M.run(c)
  local s = snapshot.take(c)
  if s.partial then partial_focus(c, s) end
  local n = { deleted_nodes = 0, deleted_links = 0, kept = 0, extended = 0 }
  local budget = c.params.ttl_hard_cap
  local gone = {}
  for _, e in ipairs(s.concepts) do
    if expired(c, e) then
      local label = snapshot.label(e)
      local a, m = e.attributes or {}, e.metadata or {}
      local deletable, reason = false, nil
      if rules.protected(s, e) then
        reason = "protected: its TTL is ignored"
      elseif e.type == "Event" then
        if (a.consolidation_status == "completed" or a.consolidation_status == "archived") and not sole_evidence(s, e) then
          deletable = true
        else
          n.extended = n.extended + 1
          c:write("UPDATE ?e SET METADATA { expires_at: :x } WHERE { ?e {type: \"Event\", name: :n} }",
            { n = e.name, x = cycle.iso(c.now_s + c.params.archive_ttl_days * 86400) }, "extend TTL of " .. label,
            { concepts = { { "Event", e.name, shallow = true } } })
          local done = a.consolidation_status == "completed" or a.consolidation_status == "archived"
          c:flag(label, done and "expired Event kept: sole evidence of a concept; expires_at extended"
            or "expired Event kept: not consolidated yet; expires_at extended")
        end
      elseif TERMINAL[e.type] and TERMINAL[e.type][a.status] then
        deletable = true
      elseif m.memory_tier == "short-term" then
        deletable = true
      else
        reason = "expired " .. e.type .. " is not TTL-deletable (possibly a statement-level TTL default): kept for review"
        review_task(c, s, e, reason)
      end
      if deletable then
        if budget <= 0 then
          c.work_left = true -- the next cycle continues
          c:flag(label, "TTL-deletable but the per-cycle hard cap is reached: next cycle")
        else
          c:write("DELETE CONCEPT ?x DETACH WHERE { ?x {type: :t, name: :n} }", { t = e.type, n = e.name }, "TTL delete " .. label,
            { concepts = { { e.type, e.name } } })
          gone[e.id] = true
          budget = budget - 1
          n.deleted_nodes = n.deleted_nodes + 1
        end
      elseif reason then
        n.kept = n.kept + 1
        c:flag(label, reason)
      end
    end
  end
  for _, l in ipairs(s.links) do
    if expired(c, l) and not gone[l.subject] and not gone[l.object]
      and (not s.partial or s.focus[l.subject] or s.focus[l.object]) then
      local label = s:link_label(l)
      if not snapshot.live(l) then
        c:flag(label, "expired superseded link: history, kept")
      elseif kept_event(s, s.by_id[l.subject]) or kept_event(s, s.by_id[l.object]) then
        c:flag(label, "expired link of a kept Event: kept")
      elseif budget <= 0 then
        c.work_left = true -- the next cycle continues
          c:flag(label, "TTL-deletable but the per-cycle hard cap is reached: next cycle")
      else
        c:write("DELETE PROPOSITIONS ?l WHERE { ?l (id: :id) }", { id = l.id }, "TTL delete link " .. label, { links = { l.id } })
        budget = budget - 1
        n.deleted_links = n.deleted_links + 1
      end
    end
  end
  return n
end

return M
