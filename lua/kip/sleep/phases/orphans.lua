--- Phase 4 — orphans (SystemInstructions.md Phase 4; docs/sleep.md rule 2):
--- a concept with no belongs_to_domain link gets the Domain the tag or
--- neighbour rule decides (A), or Unsorted when nothing decides (B).
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"

local M = { name = "orphans", title = "Orphans" }

function M.run(c)
  local s = snapshot.take(c)
  local n = { orphans = 0, classified = 0, unsorted = 0 }
  for _, e in ipairs(s.concepts) do
    if e.type ~= "Domain" and s:count_from(e.id, "belongs_to_domain") == 0 and not rules.protected(s, e) then
      n.orphans = n.orphans + 1
      local d, how = rules.classify(s, e)
      if d then
        n.classified = n.classified + 1
      else
        d, how = "Unsorted", "nothing decides"
        n.unsorted = n.unsorted + 1
      end
      rules.add_link(c, e, "belongs_to_domain", { type = "Domain", name = d }, "OrphanResolution",
        ("orphan %s -> %s (%s)"):format(snapshot.label(e), d, how))
    end
  end
  return n
end

return M
