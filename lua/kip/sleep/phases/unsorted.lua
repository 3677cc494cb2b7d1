--- Phase 3 — the Unsorted inbox (SystemInstructions.md Phase 3; docs/sleep.md
--- rule 2). Each item in Unsorted that the tag or neighbour rule assigns to
--- one topic Domain moves there (its Unsorted link is removed); the rest stay
--- and are reported — or go to the `classify` hook.
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"

local M = { name = "unsorted", title = "Unsorted inbox" }

function M.run(c)
  local s = snapshot.take(c)
  local inbox = s:get("Domain", "Unsorted")
  local n = { items = 0, moved = 0, left = 0 }
  if not inbox then return n end
  local items = {}
  for _, l in ipairs(s:links_to(inbox.id, "belongs_to_domain")) do
    local e = s.by_id[l.subject]
    -- (a partial snapshot judges its focus only: the others' neighbourhoods are not read whole)
    if e and e.type and not rules.protected(s, e) and (not s.partial or s.focus[e.id]) then items[#items + 1] = e end
  end
  table.sort(items, function(a, b) return snapshot.label(a) < snapshot.label(b) end)
  for _, e in ipairs(items) do
    n.items = n.items + 1
    local d, how = rules.classify(s, e)
    if not d and c.hooks.classify then
      local ok, res = pcall(c.hooks.classify, c, e, s)
      if ok and type(res) == "string" and (s:get("Domain", res) or res == "System") then d, how = res, "classify hook"
      elseif not ok then c:flag(snapshot.label(e), "the classify hook failed: " .. tostring(res), "the classify hook failed") end
    end
    if d then
      local has = s:domains(e.id)
      if not has[d] then rules.add_link(c, e, "belongs_to_domain", { type = "Domain", name = d }, "SleepReclassification", "reclassify " .. snapshot.label(e) .. " (" .. how .. ")") end
      c:write([[DELETE PROPOSITIONS ?l WHERE { ?l ({type: :t, name: :n}, "belongs_to_domain", {type: "Domain", name: "Unsorted"}) }]],
        { t = e.type, n = e.name }, "leave Unsorted " .. snapshot.label(e), rules.domain_links(s, e, "Unsorted"))
      n.moved = n.moved + 1
    else
      n.left = n.left + 1
      c:flag(snapshot.label(e), "in Unsorted: no rule decides its Domain")
    end
  end
  return n
end

return M
