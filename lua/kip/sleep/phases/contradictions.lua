--- Contradictions — state evolution for single-valued facts
--- (SystemInstructions.md "Core Principles" 3; docs/sleep.md rule 5). The
--- functional predicates are the $PropositionTypes with is_functional:
--- true. A conflict is a subject with two or more live links of one
--- functional predicate. If one is strictly newest (valid_from, else
--- observed_at, else created_at), every older one is marked superseded with
--- a pointer to it and it records what it supersedes; nothing is deleted.
--- Ties or missing dates decide nothing: reported (or the `contradiction`
--- hook decides).
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"

local M = { name = "contradictions", title = "Contradictions (functional predicates)" }

-- the endpoints of link l as a KIP reference with parameters prefixed p
local function endpoint(s, id, p, params)
  local e = s.by_id[id]
  params[p .. "t"], params[p .. "n"] = e.type, e.name
  return ("{type: :%st, name: :%sn}"):format(p, p)
end

-- one UPSERT statement that merges metadata keys into existing link l
local function meta_upsert(s, l, i, meta, params)
  local subj, obj = endpoint(s, l.subject, "s" .. i, params), endpoint(s, l.object, "o" .. i, params)
  return ("UPSERT { PROPOSITION ?l%d { (%s, %s, %s) } } WITH METADATA { %s }"):format(i, subj,
    require("kip.sleep.cycle").lit(l.predicate), obj, meta)
end

--- resolve the conflicts of the given subjects (all when nil); returns
--- resolved, undecided counts
function M.resolve(c, s, subjects)
  local resolved, undecided = 0, 0
  local preds = {}
  for name, p in pairs(s.predicates) do
    if p.attributes and p.attributes.is_functional == true then preds[#preds + 1] = name end
  end
  table.sort(preds)
  for _, p in ipairs(preds) do
    local by_subject, order = {}, {}
    local candidates = s.links
    if subjects then -- the given subjects' links only (from the index: exact after a refresh)
      candidates = {}
      local ids = {}
      for id in pairs(subjects) do ids[#ids + 1] = id end
      table.sort(ids)
      for _, id in ipairs(ids) do for _, l in ipairs(s:links_from(id, p)) do candidates[#candidates + 1] = l end end
    end
    for _, l in ipairs(candidates) do
      if l.predicate == p and snapshot.live(l) and not l.stale and (not subjects or subjects[l.subject]) then
        if not by_subject[l.subject] then
          by_subject[l.subject] = {}
          order[#order + 1] = l.subject
        end
        table.insert(by_subject[l.subject], l)
      end
    end
    for _, sid in ipairs(order) do
      local group = by_subject[sid]
      if #group >= 2 then
        local subject = s.by_id[sid]
        local label = (subject and snapshot.label(subject) or sid) .. " " .. p .. " x" .. #group
        local newest, tie, dated = nil, false, true
        for _, l in ipairs(group) do
          local d = rules.link_date(l)
          if type(d) ~= "string" then dated = false
          elseif not newest or d > rules.link_date(newest) then newest, tie = l, false
          elseif d == rules.link_date(newest) then tie = true end
        end
        if subject and rules.protected(s, subject) then
          undecided = undecided + 1
          c:flag(label, "conflict on a protected subject: left as it is")
        elseif not dated or tie or not newest then
          if c.hooks.contradiction then
            local ok, err = pcall(c.hooks.contradiction, c, group, s)
            if not ok then c:flag(label, "the contradiction hook failed: " .. tostring(err), "the contradiction hook failed") end
          else
            undecided = undecided + 1
            c:flag(label, not dated and "conflict with an undated link: needs judgment" or "conflict between equally dated links: needs judgment")
          end
        else
          -- one command: the older links superseded and the newest pointing
          -- back, in one transaction (a crash never leaves half a resolution);
          -- the newest keeps what it superseded before
          local older, parts, params = {}, {}, { now = c.now, by = newest.id }
          for i, l in ipairs(group) do
            if l ~= newest then
              older[#older + 1] = l.id
              parts[#parts + 1] = meta_upsert(s, l, i, "superseded: true, superseded_at: :now, superseded_by: :by", params)
            end
          end
          local prev = (newest.metadata or {}).supersedes
          if type(prev) == "string" then older[#older + 1] = prev
          elseif type(prev) == "table" then for _, id in ipairs(prev) do older[#older + 1] = id end end
          table.sort(older)
          local uniq = {}
          for _, id in ipairs(older) do if uniq[#uniq] ~= id then uniq[#uniq + 1] = id end end
          params.old = #uniq == 1 and uniq[1] or setmetatable(uniq, require("kip.core").array_mt)
          parts[#parts + 1] = meta_upsert(s, newest, 0, "supersedes: :old", params)
          c:write(table.concat(parts, "\n"), params, "supersede " .. label)
          resolved = resolved + 1
        end
      end
    end
  end
  return resolved, undecided
end

function M.run(c)
  local s = snapshot.take(c)
  -- (a partial snapshot: the focus concepts' links, the only ones read whole)
  local resolved, undecided = M.resolve(c, s, s.partial and s.focus or nil)
  return { resolved = resolved, undecided = undecided }
end

return M
