--- kip.arg.offline.apply — what a candidate changes in an ontology's
--- content (kip.arg.snapshot.content): used to stage a candidate for replay
--- (stage C) and to build the PublishDelta (stage E). Pure: the input
--- content is never modified; the result is a new content and the list of
--- element attribute changes and link changes it took.
local snapshot = require "kip.arg.snapshot"

local M = {}

local copy = require("kip.sandbox").copy

local function has(list, x) for _, v in ipairs(list or {}) do if v == x then return true end end return false end

--- apply candidates (in order) to content c; returns the new content and
--- changes = {elements = {{type, name, attributes}}, links = {{p, st, sn, ot, on, lifecycle}}}
function M.run(c, candidates)
  local out = { elements = copy(c.elements), links = copy(c.links), ids = c.ids, removed = c.removed, profile = c.profile }
  local changes = { elements = {}, links = {} }
  local function set(t, name, patch)
    local a = out.elements[t][name]
    if not a then return end
    for k, v in pairs(patch) do a[k] = v end
    changes.elements[#changes.elements + 1] = { t, name, patch }
  end
  local function link(p, st, sn, ot, on, lifecycle)
    local found
    for i, l in ipairs(out.links) do
      if l[1] == p and l[2] == st and l[3] == sn and l[4] == ot and l[5] == on then found = i end
    end
    if lifecycle == "REMOVED" and found then table.remove(out.links, found)
    elseif lifecycle == "ACTIVE" and not found then out.links[#out.links + 1] = { p, st, sn, ot, on } end
    changes.links[#changes.links + 1] = { p, st, sn, ot, on, lifecycle }
  end
  for _, cand in ipairs(candidates) do
    local a = cand.after or {}
    local add_kw = a.add_keywords or (a.add_keyword and { a.add_keyword })
    if cand.type == "taxonomy" and add_kw then
      local l = out.elements.ArgLabel[a.label]
      if l then
        local kw = {}
        for _, k in ipairs(type(l.keywords) == "table" and l.keywords or {}) do kw[#kw + 1] = k end
        for _, w in ipairs(add_kw) do if type(w) == "string" and not has(kw, w) then kw[#kw + 1] = w end end
        set("ArgLabel", a.label, { keywords = setmetatable(kw, require("kip.core").array_mt) })
      end
    elseif cand.type == "edge" and a.add_edge then
      link(a.add_edge, "ArgNode", a.from, "ArgNode", a.to, "ACTIVE")
    elseif cand.type == "merge" and a.retire then
      set("ArgNode", a.retire, { lifecycle = "DEPRECATED" })
      link("redirects_to", "ArgNode", a.retire, "ArgNode", a.keep, "ACTIVE")
    elseif cand.type == "deprecate" and a.label then
      set("ArgLabel", a.label, { lifecycle = "DEPRECATED" })
    end
  end
  snapshot.sort_links(out.links)
  return out, changes
end

--- the changes that turn content `from` into content `to` (a rollback)
function M.diff(from, to)
  local changes = { elements = {}, links = {} }
  for t, names in pairs(to.elements) do
    for name, a in pairs(names) do
      local b = from.elements[t] and from.elements[t][name]
      local patch = {}
      for k, v in pairs(a) do
        if not b or require("kip.core").json_encode(b[k]) ~= require("kip.core").json_encode(v) then patch[k] = v end
      end
      if b then -- keys the target does not have are cleared (null is absent in content)
        for k in pairs(b) do if a[k] == nil then patch[k] = require("kip.core").null end end
      end
      -- an element the nexus holds as REMOVED comes back with the target's lifecycle
      if not b and from.removed and from.removed[t] and from.removed[t][name] then
        patch.lifecycle = a.lifecycle or require("kip.core").null
      end
      if next(patch) then changes.elements[#changes.elements + 1] = { t, name, patch } end
    end
  end
  for t, names in pairs(from.elements) do
    for name in pairs(names) do
      if not (to.elements[t] and to.elements[t][name]) then
        changes.elements[#changes.elements + 1] = { t, name, { lifecycle = "REMOVED" } }
      end
    end
  end
  local function keyset(links)
    local s = {}
    for _, l in ipairs(links) do s[table.concat(l, "\0", 1, 5)] = l end
    return s
  end
  local fk, tk = keyset(from.links), keyset(to.links)
  for k, l in pairs(tk) do if not fk[k] then changes.links[#changes.links + 1] = { l[1], l[2], l[3], l[4], l[5], "ACTIVE" } end end
  for k, l in pairs(fk) do if not tk[k] then changes.links[#changes.links + 1] = { l[1], l[2], l[3], l[4], l[5], "REMOVED" } end end
  table.sort(changes.elements, function(x, y) return x[1] .. x[2] < y[1] .. y[2] end)
  table.sort(changes.links, function(x, y) return table.concat(x, "\0") < table.concat(y, "\0") end)
  return changes
end

return M
