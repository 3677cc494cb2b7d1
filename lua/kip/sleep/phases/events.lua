--- Phase 5 — stale Event consolidation (SystemInstructions.md Phase 5;
--- docs/sleep.md rule 3). An Event is stale when it started before the
--- cutoff (now − 7 days), its consolidation_status is null or pending and it
--- has no consolidated_to link. Anchored Events (a Preference or Insight is
--- derived_from it, or it mentions one) are consolidated to their anchors;
--- trivial ones (salience ≤ 20, no anchor) are archived and kept;
--- landmarks (salience ≥ 90) are never archived; the rest need judgment:
--- the `consolidate` hook may take them, otherwise they are reported.
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"
local cycle = require "kip.sleep.cycle"

local M = { name = "events", title = "Stale Event consolidation" }

local ANCHOR_TYPES = { Preference = true, Insight = true }

--- the semantic anchors of Event ev: concepts derived_from it or that it mentions
function M.anchors(s, ev)
  local out, seen = {}, {}
  local function add(id)
    local a = s.by_id[id]
    if a and ANCHOR_TYPES[a.type] and not seen[id] then
      seen[id] = true
      out[#out + 1] = a
    end
  end
  for _, l in ipairs(s:links_to(ev.id, "derived_from")) do if snapshot.live(l) then add(l.subject) end end
  for _, l in ipairs(s:links_from(ev.id, "mentions")) do if snapshot.live(l) then add(l.object) end end
  table.sort(out, function(a, b) return a.name < b.name end)
  return out
end

--- consolidate Event ev to its anchors (consolidated_to each, derived_from back where missing)
function M.consolidate(c, s, ev, anchors, why)
  -- one command, one transaction: a crash leaves the Event either untouched
  -- or consolidated, never linked but still pending
  local at = ev.attributes or {}
  local parts, params = {}, { e = ev.name, now = c.now }
  if at.consolidation_status ~= "completed" then
    parts[#parts + 1] = [[UPSERT { CONCEPT ?e { {type: "Event", name: :e}
  SET ATTRIBUTES { consolidation_status: "completed", consolidated_at: :now } } }]]
  end
  for i, a in ipairs(anchors) do
    local linked, back = false, false
    for _, l in ipairs(s:links_from(ev.id, "consolidated_to")) do if l.object == a.id then linked = true end end
    for _, l in ipairs(s:links_from(a.id, "derived_from")) do if l.object == ev.id then back = true end end
    params["t" .. i], params["n" .. i] = a.type, a.name
    local props = {}
    if not linked then props[#props + 1] = ('PROPOSITION ?c%d { ({type: "Event", name: :e}, "consolidated_to", {type: :t%d, name: :n%d}) }'):format(i, i, i) end
    if not back then props[#props + 1] = ('PROPOSITION ?d%d { ({type: :t%d, name: :n%d}, "derived_from", {type: "Event", name: :e}) }'):format(i, i, i) end
    if #props > 0 then
      parts[#parts + 1] = "UPSERT { " .. table.concat(props, " ") ..
        ' } WITH METADATA { source: "SleepConsolidation", author: "$system", created_at: :now }'
    end
  end
  if #parts > 0 then c:write(table.concat(parts, "\n"), params, why) end
end

local function stale(c, s, ev)
  local a = ev.attributes or {}
  if type(a.start_time) ~= "string" or a.start_time >= c.cutoff then return false end
  if a.consolidation_status ~= nil and a.consolidation_status ~= "pending" then return false end
  return s:count_from(ev.id, "consolidated_to") == 0
end

function M.run(c)
  local s = snapshot.take(c)
  if s.partial then
    -- an incremental cycle: the anchors of the stale Events join the focus
    -- (consolidating reads their own derived_from links)
    local ids = {}
    for _, ev in ipairs(s.concepts) do
      if ev.type == "Event" and not ev.stale and stale(c, s, ev) then
        for _, a in ipairs(M.anchors(s, ev)) do if not s.focus[a.id] then ids[#ids + 1] = a.id end end
      end
    end
    s:add_focus(c, ids)
  end
  local n = { stale = 0, consolidated = 0, archived = 0, landmarks = 0, left = 0 }
  -- each Event's writes are independent of the others': committed in groups
  c:begin_group()
  for _, ev in ipairs(s.concepts) do
    if ev.type == "Event" and stale(c, s, ev) and not rules.protected(s, ev) then
      n.stale = n.stale + 1
      local label = snapshot.label(ev)
      local anchors = M.anchors(s, ev)
      local salience = tonumber((ev.attributes or {}).salience_score)
      if #anchors > 0 then
        M.consolidate(c, s, ev, anchors, "consolidate " .. label)
        n.consolidated = n.consolidated + 1
      elseif salience and salience >= c.params.landmark_salience_min then
        n.landmarks = n.landmarks + 1
        c:flag(label, "landmark Event (salience " .. salience .. "): kept, never archived")
      elseif salience and salience <= c.params.trivial_salience_max then
        local expires = ev.metadata and ev.metadata.expires_at
        if type(expires) == "string" and expires < c.now then
          c:write("UPDATE ?e SET METADATA { expires_at: :x } WHERE { ?e {type: \"Event\", name: :e} }",
            { e = ev.name, x = cycle.iso(c.now_s + c.params.archive_ttl_days * 86400) }, "archive " .. label,
            { concepts = { { "Event", ev.name, shallow = true } } })
        end
        rules.archive(c, s, ev, "archive trivial " .. label, { consolidation_status = "archived" })
        n.archived = n.archived + 1
      elseif c.hooks.consolidate then
        c:end_group() -- a hook's writes are its own, with their responses
        local ok, err = pcall(c.hooks.consolidate, c, ev, s)
        c:begin_group()
        if not ok then c:flag(label, "the consolidate hook failed: " .. tostring(err), "the consolidate hook failed") end
      else
        n.left = n.left + 1
        c:flag(label, "stale Event without a semantic anchor: needs judgment (no consolidate hook)")
      end
    end
  end
  c:end_group()
  return n
end

return M
