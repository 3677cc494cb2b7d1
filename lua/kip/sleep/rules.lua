--- kip.sleep.rules — the shared rules of the sleep phases
--- (SystemInstructions.md "Safety Rules"; docs/sleep.md "Rules"):
--- protected entities, topic Domains, classification (tag and neighbour
--- rules), the safe-archive pattern and the date of a link.
local snapshot = require "kip.sleep.snapshot"

local M = {}

M.SYSTEM_DOMAINS = { Unsorted = true, Archived = true, System = true, CoreSchema = true }

--- a Domain other than Unsorted, Archived, System and CoreSchema
function M.is_topic_domain(e) return e and e.type == "Domain" and not M.SYSTEM_DOMAINS[e.name] end

--- never deleted or modified by a cycle: $self, $system, the definition
--- nodes, the system Domains and every concept in CoreSchema
function M.protected(s, e)
  if not e or not e.type then return false end
  if e.type == "$ConceptType" or e.type == "$PropositionType" then return true end
  if e.type == "Person" and (e.name == "$self" or e.name == "$system") then return true end
  if e.type == "Domain" and M.SYSTEM_DOMAINS[e.name] then return true end
  return s:in_domain(e.id, "CoreSchema")
end

--- the topic Domain names concept id belongs to (a set) and their count
local function topic_domains(s, id) return s:domains(id, M.is_topic_domain) end
M.topic_domains = topic_domains

local function lower(x) return type(x) == "string" and x:lower() or nil end

--- Tag rule: metadata.relevance_tags name exactly one topic Domain (by its
--- name or an alias, case-insensitively). Returns the Domain name or nil.
local function by_tags(s, e)
  local tags = e.metadata and e.metadata.relevance_tags
  if type(tags) == "string" then tags = { tags } end
  if type(tags) ~= "table" then return nil end
  local names = {}
  for _, d in ipairs(s:all_domains()) do
    if M.is_topic_domain(d) then
      names[d.name:lower()] = d.name
      local aliases = d.attributes and d.attributes.aliases
      if type(aliases) == "table" then
        for _, a in ipairs(aliases) do if lower(a) then names[a:lower()] = d.name end end
      end
    end
  end
  local found
  for _, t in ipairs(tags) do
    local d = lower(t) and names[t:lower()]
    if d then
      if found and d ~= found then return nil end -- conflicting tags decide nothing
      found = d
    end
  end
  return found
end

--- Neighbour rule: at least two live links (either direction, not
--- belongs_to_domain) to concepts with topic Domains, all of them the same
--- single Domain. Links to Domains, meta-types, $self and $system do not count.
local function by_neighbours(s, e)
  local domain, links = nil, 0
  local function consider(l, other_id)
    if l.predicate == "belongs_to_domain" or not snapshot.live(l) then return true end
    local o = s.by_id[other_id]
    if not o or not o.type or o.type == "Domain" or o.type == "$ConceptType" or o.type == "$PropositionType" then return true end
    if o.type == "Person" and (o.name == "$self" or o.name == "$system") then return true end
    local set, n = topic_domains(s, o.id)
    if n == 0 then return true end
    if n > 1 then return false end
    local d = next(set)
    if domain and d ~= domain then return false end
    domain, links = d, links + 1
    return true
  end
  for _, l in ipairs(s:links_from(e.id)) do if not consider(l, l.object) then return nil end end
  for _, l in ipairs(s:links_to(e.id)) do if not consider(l, l.subject) then return nil end end
  return links >= 2 and domain or nil
end

--- The Domain rule 2 decides for concept e (a topic Domain name, "System"
--- for a SleepTask), and which rule decided; nil when nothing decides.
function M.classify(s, e)
  if e.type == "SleepTask" then return "System", "a SleepTask belongs to System" end
  local d = by_tags(s, e)
  if d then return d, "tag rule" end
  d = by_neighbours(s, e)
  if d then return d, "neighbour rule" end
  return nil
end

--- the keys of t (nil: none), sorted: deterministic command texts
M.sorted_keys = snapshot.sorted_keys

--- Writes that leave the concept's own metadata (its provenance) alone:
--- a new link carries its own metadata; attributes change by UPDATE.
function M.add_link(c, from, predicate, to, source, why, extra_meta)
  local meta = { 'source: :src', 'author: "$system"', 'created_at: :now' }
  local params = { st = from.type, sn = from.name, ot = to.type, on = to.name, src = source, now = c.now }
  for _, k in ipairs(M.sorted_keys(extra_meta)) do
    meta[#meta + 1] = k .. ": :m_" .. k
    params["m_" .. k] = extra_meta[k]
  end
  return c:write("UPSERT { PROPOSITION ?l { ({type: :st, name: :sn}, " .. require("kip.sleep.cycle").lit(predicate) ..
    ", {type: :ot, name: :on}) } } WITH METADATA { " .. table.concat(meta, ", ") .. " }", params, why)
end

--- UPDATE concept e: sets is a list of "key: expression" (parameters in params)
function M.set_attributes(c, e, sets, params, why)
  params.t, params.n = e.type, e.name
  -- what the attributes were (the cycle's record keeps it beside what it wrote)
  local before = {}
  for _, set in ipairs(sets) do
    local k = set:match("^%s*([%w_]+)%s*:")
    if k then
      local v = type(e.attributes) == "table" and e.attributes[k]
      if v == nil then v = require("kip.core").null end
      before[k] = v
    end
  end
  return c:write("UPDATE ?x SET ATTRIBUTES { " .. table.concat(sets, ", ") .. " } WHERE { ?x {type: :t, name: :n} }",
    params, why, { concepts = { { e.type, e.name, shallow = true } }, before = before })
end

--- the ids of concept e's belongs_to_domain links to the Domain named
--- `domain` (what a DELETE of them removes: Cycle:write's touch)
function M.domain_links(s, e, domain)
  local ids = {}
  for _, l in ipairs(s:links_from(e.id, "belongs_to_domain")) do
    local d = s.by_id[l.object]
    if d and d.type == "Domain" and d.name == domain then ids[#ids + 1] = l.id end
  end
  return { links = ids }
end

--- Commands that make Domain `domain` the only Domain of concept e
function M.move_to_domain(c, s, e, domain, source, why)
  local has = s:domains(e.id)
  if not has[domain] then M.add_link(c, e, "belongs_to_domain", { type = "Domain", name = domain }, source, why) end
  for _, name in ipairs(M.sorted_keys(has)) do
    if name ~= domain then
      local touch = M.domain_links(s, e, name)
      touch.before = { domains = setmetatable(M.sorted_keys(has), require("kip.core").array_mt) }
      c:write([[DELETE PROPOSITIONS ?l WHERE { ?l ({type: :t, name: :n}, "belongs_to_domain", {type: "Domain", name: :d}) }]],
        { t = e.type, n = e.name, d = name }, why, touch)
    end
  end
end

--- The safe-archive pattern: status archived (with when and by whom) and
--- the Archived Domain as its only Domain. Never deletes.
function M.archive(c, s, e, why, extra)
  local a = e.attributes or {}
  local sets, params = {}, { t = e.type, n = e.name }
  if a.status ~= "archived" then
    sets = { 'status: "archived"', "archived_at: :now", 'archived_by: "$system"' }
    params.now = c.now
  end
  for _, k in ipairs(M.sorted_keys(extra)) do
    if a[k] ~= extra[k] then
      sets[#sets + 1] = k .. ": :x_" .. k
      params["x_" .. k] = extra[k]
    end
  end
  -- the Domain first, the status last: the status is what takes the item out
  -- of its phase's selection, so a crash in between is finished by a rerun
  M.move_to_domain(c, s, e, "Archived", "SleepArchive", why)
  if #sets > 0 then M.set_attributes(c, e, sets, params, why) end
end

--- the date of a link: valid_from, else observed_at, else created_at
function M.link_date(l)
  local m = l.metadata or {}
  return m.valid_from or m.observed_at or m.created_at
end

return M
