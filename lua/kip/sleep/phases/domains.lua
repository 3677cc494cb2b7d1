--- Phase 8 — Domain health (SystemInstructions.md Phase 8; seed 001
--- "Domain health: Domains with 0–2 members → merge into parent or
--- Unsorted"; docs/sleep.md rule 9): member counts per Domain. A topic
--- Domain with 0–2 members may be a placeholder for growth — that is a
--- judgment, so rules alone keep it and report it (naming its parent, the
--- Domain its `parent_domain` attribute names, else Unsorted). A `domain`
--- hook decides (return the Domain to merge into, or nil to keep it); a
--- SleepTask `merge_domain` is an explicit request and is carried out
--- (phases/tasks.lua). A merge moves every member to the parent, records
--- where each came from (moved_from_domain on its new link) and archives
--- the emptied Domain with merged_into — in one transaction.
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"

local M = { name = "domains", title = "Domain health" }

--- where small Domain d merges by default: its parent_domain when that is
--- an existing topic Domain, else Unsorted
function M.parent(s, d)
  local p = d.attributes and d.attributes.parent_domain
  local pd = type(p) == "string" and p ~= d.name and s:get("Domain", p)
  return (pd and rules.is_topic_domain(pd)) and p or "Unsorted"
end

--- the commands of merging Domain d into Domain `into` (see above); nil,
--- why when it cannot be merged
function M.merge(c, s, d, into, why)
  if not rules.is_topic_domain(d) then return nil, d.name .. " is a system Domain" end
  local target = type(into) == "string" and into ~= d.name and s:get("Domain", into)
  if not target or (not rules.is_topic_domain(target) and into ~= "Unsorted") then
    return nil, ("%s is not a topic Domain or Unsorted"):format(tostring(into))
  end
  for _, l in ipairs(s:links_to(d.id, "belongs_to_domain")) do
    local e = s.by_id[l.subject]
    if e then
      if not s:domains(e.id)[into] then
        rules.add_link(c, e, "belongs_to_domain", target, "SleepDomainMerge", why, { moved_from_domain = d.name })
      end
      c:write([[DELETE PROPOSITIONS ?l WHERE { ?l ({type: :t, name: :n}, "belongs_to_domain", {type: "Domain", name: :d}) }]],
        { t = e.type, n = e.name, d = d.name }, why, rules.domain_links(s, e, d.name))
    end
  end
  rules.archive(c, s, d, why, { merged_into = into })
  return true
end

--- the concepts a merge of d into `into` changes (for the snapshot's
--- refresh): d and its members with their links, the two Domains' rows
function M.touched(s, d, into)
  local keys = { { "Domain", d.name }, { "Domain", into, shallow = true }, { "Domain", "Archived", shallow = true } }
  for _, l in ipairs(s:links_to(d.id, "belongs_to_domain")) do
    local e = s.by_id[l.subject]
    if e then keys[#keys + 1] = { e.type, e.name } end
  end
  return keys
end

--- merge d into `into` as one atomic batch; true or nil, why
function M.merge_now(c, s, d, into, why)
  local keys = M.touched(s, d, into)
  c:begin_batch()
  local ok, err = M.merge(c, s, d, into, why)
  if not ok then
    c.batch = nil
    return nil, err
  end
  local committed, cerr = c:commit_batch()
  if not committed then return nil, ("refused, nothing applied: %s"):format(tostring(cerr.message)) end
  if not c.dry_run then s:refresh(c, keys) end
  return true
end

function M.run(c)
  local s = snapshot.take(c)
  local n = { domains = 0, small = 0, large = 0, merged = 0 }
  local small = {}
  for _, d in ipairs(s:all_domains()) do
    n.domains = n.domains + 1
    local members = s:member_count(c, d)
    if rules.is_topic_domain(d) and (d.attributes or {}).status ~= "archived" and members <= c.params.small_domain_max then
      small[#small + 1] = { d = d, members = members }
    elseif rules.is_topic_domain(d) and members > 100 then
      n.large = n.large + 1
      c:flag(snapshot.label(d), ("topic Domain with %d members: consider splitting it"):format(members))
    end
  end
  for _, it in ipairs(small) do
    local d, parent = it.d, M.parent(s, it.d)
    n.small = n.small + 1
    if c.hooks.domain then
      local ok, into = pcall(c.hooks.domain, c, d, parent, s)
      if not ok then
        c:flag(snapshot.label(d), "the domain hook failed: " .. tostring(into), "the domain hook failed")
      elseif into ~= nil then
        local merged, why = M.merge_now(c, s, d, into, ("merge small Domain %s into %s (domain hook)"):format(d.name, tostring(into)))
        if merged then n.merged = n.merged + 1 else c:flag(snapshot.label(d), "the domain hook's merge failed: " .. why, "the domain hook's merge failed") end
      end
    else
      c:flag(snapshot.label(d), ("topic Domain with %d member(s): keep it if it is a placeholder for growth, else merge it into %s "
        .. "(a merge_domain SleepTask or a domain hook decides)"):format(it.members, parent),
        "small topic Domain (0-2 members): kept, whether it is a placeholder for growth is a judgment")
    end
  end
  return n
end

return M
