--- kip.arg.ontology — the one write path of the ARG ontology (seed 003 §1
--- "any change to ontology structure MUST be produced and published by the
--- offline loop", §3.4 "Validation", §3.5 "Lifecycle", §3.6; docs/arg.md
--- "The ontology"). An ontology enters a nexus only as a published version:
--- `kip arg init --ontology FILE` (the first) and `kip arg publish --ontology
--- FILE` (an operator's revised file) load the file into a scratch nexus,
--- validate the whole ontology and publish the difference to the current
--- version in one transaction, through the same commit as the offline loop
--- (kip.arg.offline.publish), with the version bound to its content hash.
---
--- check(content) is the whole-ontology validation every publish and every
--- snapshot runs: the profile's shape, one cluster per label, an acyclic
--- hierarchy whose children share their parent's cluster, known lifecycles
--- and retrieval types, nodes with title, chunk, audience and a label,
--- actions bound to one label with roles of the profile and a params schema,
--- sources with a connector. stamps(content) is what governed reads enforce:
--- which roles may see each element (kip.arg.profile), written as metadata
--- the ARG policy's scope reads (docs/security.md "Governed reads").
local core = require "kip.core"
local profile = require "kip.arg.profile"

local M = {}

M.LIFECYCLES = { ACTIVE = true, DEPRECATED = true, DRAFT = true }
M.RETRIEVAL = { USER = true, DOMAIN = true, EXTERNAL = true }
M.MAX_DEPTH = 32   -- labels deeper than this are a modelling error (and bound every walk)
M.MAX_PROBLEMS = 20

local function str(v) return type(v) == "string" and v ~= "" end

--- problems (fatal) and warnings of content c (kip.arg.snapshot.content):
--- two lists of strings, problems capped at MAX_PROBLEMS
function M.check(c)
  local problems, warnings = {}, {}
  local function bad(fmt, ...)
    if #problems < M.MAX_PROBLEMS then problems[#problems + 1] = fmt:format(...) end
  end
  for _, p in ipairs(profile.check(c.profile)) do bad("%s", p) end
  local pm = #problems == 0 and profile.model(c.profile) or nil
  local E = c.elements
  local labels = E.ArgLabel or {}
  if next(labels) == nil then bad("the ontology has no ArgLabel") end
  local cluster, parent, outs = {}, {}, {}
  for _, l in ipairs(c.links) do
    local p, st, sn, ot, on = l[1], l[2], l[3], l[4], l[5]
    outs[st .. "\0" .. sn] = (outs[st .. "\0" .. sn] or 0) + (p == "has_label" and 1 or 0)
    if p == "in_cluster" then
      if st ~= "ArgLabel" or ot ~= "ArgCluster" then bad("in_cluster links a label to a cluster (%s %s)", st, sn)
      elseif cluster[sn] and cluster[sn] ~= on then bad("label %s is in two clusters (%s, %s)", sn, cluster[sn], on)
      else cluster[sn] = on end
    elseif p == "parent_label" then
      if st ~= "ArgLabel" or ot ~= "ArgLabel" then bad("parent_label links two labels (%s %s)", st, sn)
      elseif parent[sn] and parent[sn] ~= on then bad("label %s has two parents (%s, %s)", sn, parent[sn], on)
      else parent[sn] = on end
    elseif p == "incompatible_with" and (st ~= "ArgLabel" or ot ~= "ArgLabel") then
      bad("incompatible_with links two labels (%s %s)", st, sn)
    end
  end
  local names = {}
  for n in pairs(labels) do names[#names + 1] = n end
  table.sort(names)
  for _, n in ipairs(names) do
    local a = labels[n]
    if not cluster[n] then bad("label %s has no cluster (in_cluster)", n) end
    if not M.LIFECYCLES[a.lifecycle or "ACTIVE"] then bad("label %s: lifecycle %s is not ACTIVE, DEPRECATED or DRAFT", n, tostring(a.lifecycle)) end
    if not M.RETRIEVAL[a.retrieval_type or "DOMAIN"] then bad("label %s: retrieval_type %s is not USER, DOMAIN or EXTERNAL", n, tostring(a.retrieval_type)) end
    if not str(a.audience) then bad("label %s has no audience", n)
    elseif pm and not pm.seen_by[a.audience] then warnings[#warnings + 1] = ("label %s: no role of the profile sees audience %s"):format(n, a.audience) end
    -- the hierarchy: acyclic, bounded, children in their parent's cluster
    local seen, x, depth = { [n] = true }, n, 0
    while parent[x] do
      local up = parent[x]
      depth = depth + 1
      if seen[up] then bad("the label hierarchy has a cycle through %s", n) break end
      if depth > M.MAX_DEPTH then bad("label %s is deeper than %d levels", n, M.MAX_DEPTH) break end
      if not labels[up] then bad("label %s has an unknown parent %s", x, up) break end
      seen[up] = true
      x = up
    end
    if parent[n] and labels[parent[n]] and cluster[n] and cluster[parent[n]] and cluster[n] ~= cluster[parent[n]] then
      bad("label %s is in cluster %s but its parent %s is in %s", n, cluster[n], parent[n], cluster[parent[n]])
    end
  end
  for n, a in pairs(E.ArgNode or {}) do
    if not str(a.title) or not str(a.chunk) then bad("node %s needs a title and a chunk", n) end
    if not str(a.audience) then bad("node %s has no audience", n) end
    if (outs["ArgNode\0" .. n] or 0) == 0 then bad("node %s has no label (has_label)", n) end
  end
  for n, a in pairs(E.ArgAction or {}) do
    local k = outs["ArgAction\0" .. n] or 0
    if k ~= 1 then bad("action %s must be bound to exactly one label (it has %d)", n, k) end
    if not str(a.handler) then bad("action %s has no handler", n) end
    if type(a.required_roles) ~= "table" or #a.required_roles == 0 then bad("action %s lists no required_roles", n)
    elseif pm then
      for _, r in ipairs(a.required_roles) do
        if not pm.roles[r] then bad("action %s requires role %s, which the profile does not define", n, tostring(r)) end
      end
    end
    if type(a.params) ~= "table" then bad("action %s: params must be an object (name -> {type, description})", n)
    else
      for pn, spec in pairs(a.params) do
        if type(pn) ~= "string" or type(spec) ~= "table" or not str(spec.type) then
          bad("action %s: param %s needs {type, description}", n, tostring(pn))
        end
      end
    end
  end
  for n, a in pairs(E.ExternalSource or {}) do
    if not str(a.connector) then bad("external source %s has no connector", n) end
    if (outs["ExternalSource\0" .. n] or 0) == 0 then bad("external source %s has no label (has_label)", n) end
  end
  table.sort(problems)
  table.sort(warnings)
  return problems, warnings
end

--- the error of an invalid ontology
function M.invalid(problems, what)
  return { code = "ARG_ONTOLOGY_INVALID", step = what or "validate",
    message = ("the ontology is not valid (%d problem%s): %s"):format(#problems, #problems == 1 and "" or "s",
      table.concat(problems, "; ", 1, math.min(#problems, 5))),
    hint = "Fix the ontology file and publish it again (kip arg publish --ontology FILE.kip); nothing was changed." }
end

-- ------------------------------------------------------------ visibility
local STAMP_PREFIX = "arg_role_"
M.STAMP_PREFIX = STAMP_PREFIX

--- the visibility stamp of every element: {Type = {name = metadata}}.
--- arg_visible = "all" (every role of the profile sees it) or "roles", and
--- arg_role_<role> = true | false for each role of the profile (and null for
--- roles of `previous`, an earlier profile model, that are gone)
function M.stamps(c, pm, previous)
  local out = {}
  local label_auds = {}
  for n, a in pairs(c.elements.ArgLabel or {}) do label_auds[n] = a.audience end
  local labels_of = {}
  for _, l in ipairs(c.links) do
    if l[1] == "has_label" and l[4] == "ArgLabel" then
      local k = l[2] .. "\0" .. l[3]
      labels_of[k] = labels_of[k] or {}
      table.insert(labels_of[k], l[5])
    end
  end
  local function stamp(auds)
    local list = {}
    for _, a in ipairs(auds) do if a then list[#list + 1] = a end end
    local meta = {}
    local _, all = profile.roles_seeing(pm, list)
    meta.arg_visible = all and "all" or "roles"
    for _, r in ipairs(pm.role_names) do meta[STAMP_PREFIX .. r] = profile.visible(pm, r, list) end
    for _, r in ipairs(previous and previous.role_names or {}) do
      if not pm.roles[r] then meta[STAMP_PREFIX .. r] = core.null end
    end
    return meta
  end
  for t, names in pairs(c.elements) do
    out[t] = {}
    for n, a in pairs(names) do
      local auds = {}
      if t == "ArgLabel" or t == "ArgNode" then auds[#auds + 1] = a.audience or "" end
      for _, l in ipairs(labels_of[t .. "\0" .. n] or {}) do auds[#auds + 1] = label_auds[l] or "" end
      out[t][n] = stamp(auds)
    end
  end
  return out
end

return M
