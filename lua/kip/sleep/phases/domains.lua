--- Phase 8 — Domain health (SystemInstructions.md Phase 8; docs/sleep.md
--- rule 9): member counts per Domain; topic Domains with 0–2 members are
--- reported. Nothing is deleted or archived here.
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"

local M = { name = "domains", title = "Domain health" }

function M.run(c)
  local s = snapshot.take(c)
  local n = { domains = 0, small = 0, large = 0 }
  for _, d in ipairs(s.concepts) do
    if d.type == "Domain" then
      n.domains = n.domains + 1
      local members = #s:links_to(d.id, "belongs_to_domain")
      if rules.is_topic_domain(d) and members <= c.params.small_domain_max then
        n.small = n.small + 1
        c:flag(snapshot.label(d), ("topic Domain with %d member(s): keep it if it is a placeholder for growth, else merge it"):format(members))
      elseif rules.is_topic_domain(d) and members > 100 then
        n.large = n.large + 1
        c:flag(snapshot.label(d), ("topic Domain with %d members: consider splitting it"):format(members))
      end
    end
  end
  return n
end

return M
