--- kip.arg.snapshot — the pinned ontology version an ARG request reads
--- (seed 003 §1.1 "fixed snapshot", step 4 "eligible set", Annex 7.4
--- "version pinning"; docs/arg.md "Snapshot").
---
--- The ontology (clusters, labels, nodes, actions, external sources and the
--- links between them, and the access profile) is read in ONE batch request,
--- i.e. one read transaction, together with its version and content hash
--- (attributes of the Domain `ArgOntology`, written only by a publish). The
--- content is validated (kip.arg.ontology.check: an invalid ontology fails
--- the request with ARG_ONTOLOGY_INVALID, it never hangs it) and built into
--- an immutable model with the router's label index, cached per nexus,
--- version and content hash: requests under the same version share it, and
--- a request never sees two versions. The ontology is sealed (core guards,
--- kip.arg.guards): only a publish writes it, so a version names its content
--- — and a content that no longer matches its recorded hash is refused.
local core = require "kip.core"
local lex = require "kip.arg.lexicon"
local profile = require "kip.arg.profile"
local state = require "kip.state"

local M = {}

M.TYPES = { "ArgCluster", "ArgLabel", "ArgNode", "ArgAction", "ExternalSource" }
M.PREDICATES = { "in_cluster", "parent_label", "incompatible_with", "has_label", "next_step", "requires", "explains",
  "related_to", "redirects_to" }
M.MOVEMENT = { next_step = true, requires = true, explains = true, related_to = true, redirects_to = true }

local LIMIT = 100000

local VERSION_QUERY = 'FIND(?d.attributes.version, ?d.attributes.content_hash) WHERE { ?d {type: "Domain", name: "ArgOntology"} }'
local VERSION_REQUEST = core.json_encode { command = VERSION_QUERY }
local PROFILE_QUERY = 'FIND(?d.attributes.profile) WHERE { ?d {type: "Domain", name: "ArgOntology"} }'

local function decode(text) return core.json_decode(text) end

local function first(col)
  local v = type(col) == "table" and col[1] or nil
  if v == core.null then return nil end
  return v
end

--- the published ontology version (0 when the nexus has none yet) and the
--- content hash recorded with it: an internal read of the loop, like the
--- snapshot batch (no policy pass on the per-request hot path)
function M.version(nx)
  local r = decode(nx.handle:call_json(VERSION_REQUEST, { readonly = true }))
  local cols = r.result or {}
  local v, h = first(cols[1]), first(cols[2])
  return type(v) == "number" and v or 0, type(h) == "string" and h or nil
end

local function list(v)
  if type(v) ~= "table" then return {} end
  local out = {}
  for _, x in ipairs(v) do if type(x) == "string" then out[#out + 1] = x end end
  return out
end

-- the index documents: fields name (weight 3), heading (2), body (1) as
-- stem lists; the same weights as the core's SEARCH ranking (kip_rank)
local function field(texts)
  local out = {}
  for _, t in ipairs(texts) do
    for _, s in ipairs(lex.stems(t)) do out[#out + 1] = s end
  end
  return out
end

local function phrase_list(strings)
  local out = {}
  for _, s in ipairs(strings) do
    local st = lex.stems(s)
    if #st > 0 then out[#out + 1] = st end
  end
  return out
end

local function build_index(m)
  local docs = {}
  local function add(kind, name, label, fields, phrases)
    local d = { kind = kind, name = name, label = label, tf = {}, len = 0, phrases = phrases or {} }
    for f, w in pairs { name = 3, heading = 2, body = 1 } do
      for _, s in ipairs(fields[f] or {}) do
        d.tf[s] = (d.tf[s] or 0) + w
        d.len = d.len + w
      end
    end
    docs[#docs + 1] = d
  end
  -- the labels each stem names (in its id, keywords or aliases)
  m.naming = {}
  for _, name in ipairs(m.label_names) do
    local l = m.labels[name]
    local texts = { (name:gsub("[._#]", " ")) }
    for _, k in ipairs(l.keywords) do texts[#texts + 1] = k end
    for _, k in ipairs(l.aliases) do texts[#texts + 1] = k end
    for _, s in ipairs(field(texts)) do
      m.naming[s] = m.naming[s] or {}
      m.naming[s][name] = true
    end
  end
  for _, name in ipairs(m.label_names) do
    local l = m.labels[name]
    local idwords = name:gsub("[._#]", " ")
    add("label", name, name, { name = field { idwords }, heading = field(l.keywords), body = field { l.description } },
      phrase_list(l.keywords))
    for _, a in ipairs(l.aliases) do l.phrases[#l.phrases + 1] = lex.stems(a) end
    for _, k in ipairs(l.keywords) do l.phrases[#l.phrases + 1] = lex.stems(k) end
  end
  for _, name in ipairs(m.node_names) do
    local n = m.nodes[name]
    add("node", name, n.labels[1], { heading = field { n.title }, body = field { n.chunk } })
  end
  for _, name in ipairs(m.action_names) do
    local a = m.actions[name]
    -- its params too: their names and the values an enumeration allows
    -- ("target_plan": "free | team | business") say what the action acts on
    local params = {}
    for pname, spec in pairs(a.params or {}) do
      params[#params + 1] = (pname:gsub("_", " "))
      local desc = type(spec) == "table" and type(spec.description) == "string" and spec.description or ""
      if desc:find("|", 1, true) then params[#params + 1] = (desc:gsub("|", " ")) end
    end
    table.sort(params)
    add("action", name, a.label, { name = field { (name:gsub("_", " ")) }, heading = field(params), body = field { a.description } })
  end
  -- each label's vocabulary: the stems of its own text, its nodes' and its
  -- actions' (what the weaver's coverage measures a request against)
  m.label_vocab = {}
  for _, d in ipairs(docs) do
    local labels = d.kind == "node" and m.nodes[d.name].labels or { d.label }
    for _, l in ipairs(labels) do
      if l then
        local v = m.label_vocab[l] or {}
        m.label_vocab[l] = v
        for st_ in pairs(d.tf) do v[st_] = true end
      end
    end
  end
  -- postings: stem -> the documents that hold it (a request touches only those)
  local df, total, postings = {}, 0, {}
  for i, d in ipairs(docs) do
    total = total + d.len
    for s in pairs(d.tf) do
      df[s] = (df[s] or 0) + 1
      postings[s] = postings[s] or {}
      table.insert(postings[s], i)
    end
  end
  m.docs, m.df, m.avglen, m.postings = docs, df, total / math.max(1, #docs), postings
  m.idf = {}
  for s, n in pairs(df) do m.idf[s] = math.log(1 + (#docs - n + 0.5) / (n + 0.5)) end
  m.max_idf = math.log(1 + (#docs - 0.5) / 1.5) -- a stem in one document
  -- the vocabulary (surface words, with counts) for typo correction and the
  -- domain test; the word -> stem map comes from the same texts
  local vocab, initial, phrases = {}, {}, {}
  local function words(t)
    -- (not the words of example addresses: "shop" of shop.example.app is
    -- a name the text makes up, not a word of the domain)
    t = t:gsub("[%w%._%%+%-]+@[%w%.%-]+%.%a+", " "):gsub("%f[%w][%w%-]+%.[%w%-]+%.[%w%-%.]*%a", " ")
    local text_words = lex.words(t)
    for k = 2, #text_words do phrases[text_words[k - 1] .. " " .. text_words[k]] = true end -- the pairs names are made of
    for _, w in ipairs(text_words) do
      if not lex.STOP[w] then
        if not vocab[w] then
          initial[w:sub(1, 1)] = initial[w:sub(1, 1)] or {}
          table.insert(initial[w:sub(1, 1)], w)
        end
        vocab[w] = (vocab[w] or 0) + 1
      end
    end
  end
  for _, name in ipairs(m.label_names) do
    local l = m.labels[name]
    words((name:gsub("[._#]", " ")))
    for _, k in ipairs(l.keywords) do words(k) end
    for _, k in ipairs(l.aliases) do words(k) end
    words(l.description)
  end
  for _, name in ipairs(m.node_names) do words(m.nodes[name].title); words(m.nodes[name].chunk) end
  for _, name in ipairs(m.action_names) do words((name:gsub("_", " "))); words(m.actions[name].description) end
  for _, name in ipairs(m.cluster_names) do words(name); words(m.clusters[name].description or "") end
  for _, w in ipairs(m.product_words) do words(w) end
  for _, ws in pairs(initial) do table.sort(ws) end
  m.vocab, m.vocab_initial, m.phrases = vocab, initial, phrases
  -- the verbs of the action space (the words of action names, which name
  -- operations: "issue_refund", "revoke_api_key"), for splitting "X and Y"
  m.action_verbs = {}
  for _, name in ipairs(m.action_names) do
    local verb = name:match("^(%a+)")
    if verb then m.action_verbs[verb] = true end
  end
  m.stem_known = {}
  for w in pairs(vocab) do m.stem_known[lex.stem(w)] = true end
end

local djb2 = require("kip.text").hash
M.hash = djb2

--- The canonical content of an ontology version from the batch results
--- (M.read): {elements = {Type = {name = attributes}}, links = {{p, s_type,
--- s_name, o_type, o_name}...} sorted, profile = the access profile},
--- ids = {Type = {name = id}}.
--- Elements and links whose lifecycle is REMOVED are not part of it (that is
--- how a publish or a rollback takes something out without deleting it).
function M.content(results)
  local c = { elements = {}, links = {}, ids = {}, removed = {}, profile = results.profile }
  local by_id = {}
  for i, t in ipairs(M.TYPES) do
    c.elements[t], c.ids[t], c.removed[t] = {}, {}, {}
    for _, e in ipairs(results[i] or {}) do
      local a = {}
      for k, v in pairs(e.attributes or {}) do if v ~= core.null then a[k] = v end end -- null = absent
      by_id[e.id] = { t, e.name }
      if a.lifecycle ~= "REMOVED" then
        c.elements[t][e.name] = a
        c.ids[t][e.name] = e.id
      else
        c.removed[t][e.name] = true
      end
    end
  end
  for i, p in ipairs(M.PREDICATES) do
    for _, l in ipairs(results[#M.TYPES + i] or {}) do
      local s, o = by_id[l.subject], by_id[l.object]
      local a = l.attributes or {}
      if s and o and a.lifecycle ~= "REMOVED" and c.elements[s[1]][s[2]] and c.elements[o[1]][o[2]] then
        c.links[#c.links + 1] = { p, s[1], s[2], o[1], o[2] }
      end
    end
  end
  M.sort_links(c.links)
  return c
end

function M.sort_links(links)
  table.sort(links, function(x, y)
    for k = 1, 5 do if x[k] ~= y[k] then return x[k] < y[k] end end
    return false
  end)
end

-- a deep copy with no remembered key order: encodes with sorted keys
local function canonical(x)
  if type(x) ~= "table" then return x end
  local out = {}
  for k, v in pairs(x) do out[k] = canonical(v) end
  if getmetatable(x) == core.array_mt or (#x > 0 and next(x, #x) == nil) then setmetatable(out, core.array_mt) end
  return out
end

--- the content hash of a version (what a rollback restores and replay
--- checks): its elements, links and access profile
function M.content_hash(c)
  return djb2(core.json_encode(canonical { elements = c.elements, links = c.links, profile = c.profile }))
end

--- the model of content c under version `version`
function M.model(version, c)
  local pm = profile.model(c.profile)
  local m = { version = version, clusters = {}, labels = {}, nodes = {}, actions = {}, sources = {},
    cluster_names = {}, label_names = {}, node_names = {}, action_names = {}, source_names = {}, edges = {},
    profile = pm, product_words = pm.product_words, content = c }
  local kinds = { ArgCluster = "clusters", ArgLabel = "labels", ArgNode = "nodes", ArgAction = "actions",
    ExternalSource = "sources" }
  local names = { ArgCluster = "cluster_names", ArgLabel = "label_names", ArgNode = "node_names",
    ArgAction = "action_names", ExternalSource = "source_names" }
  for _, t in ipairs(M.TYPES) do
    for name, a in pairs(c.elements[t] or {}) do
      local id = c.ids and c.ids[t] and c.ids[t][name]
      local x = { id = id, name = name, type = t }
      if t == "ArgCluster" then
        x.description = a.description
      elseif t == "ArgLabel" then
        x.keywords, x.aliases = list(a.keywords), list(a.aliases)
        x.description = type(a.description) == "string" and a.description or ""
        x.retrieval_type = a.retrieval_type or "DOMAIN"
        x.lifecycle = a.lifecycle or "ACTIVE"
        x.audience = a.audience
        x.nodes, x.actions, x.sources, x.children, x.incompatible, x.phrases = {}, {}, {}, {}, {}, {}
      elseif t == "ArgNode" then
        x.title = type(a.title) == "string" and a.title or name
        x.chunk = type(a.chunk) == "string" and a.chunk or ""
        x.audience = a.audience
        x.lifecycle = a.lifecycle or "ACTIVE"
        x.labels, x.out, x.into = {}, {}, {}
      elseif t == "ArgAction" then
        x.handler = a.handler
        x.required_roles = list(a.required_roles)
        x.params = type(a.params) == "table" and a.params or {}
        x.description = type(a.description) == "string" and a.description or ""
        x.min_confidence = type(a.min_confidence) == "number" and a.min_confidence or nil
        x.labels = {}
      else
        x.connector, x.description, x.labels = a.connector, a.description, {}
      end
      m[kinds[t]][name] = x
      table.insert(m[names[t]], name)
    end
  end
  for _, k in pairs(names) do table.sort(m[k]) end
  local function get(t, n) return m[kinds[t]][n] end
  for _, l in ipairs(c.links) do
    local p, s, o = l[1], get(l[2], l[3]), get(l[4], l[5])
    if s and o then
      if p == "in_cluster" and s.type == "ArgLabel" then s.cluster = o.name
      elseif p == "parent_label" and s.type == "ArgLabel" and o.type == "ArgLabel" then
        s.parent = o.name
        table.insert(o.children, s.name)
      elseif p == "incompatible_with" and s.type == "ArgLabel" and o.type == "ArgLabel" then
        s.incompatible[o.name], o.incompatible[s.name] = true, true
      elseif p == "has_label" and o.type == "ArgLabel" then
        table.insert(s.labels, o.name)
        if s.type == "ArgNode" then table.insert(o.nodes, s.name)
        elseif s.type == "ArgAction" then table.insert(o.actions, s.name)
        elseif s.type == "ExternalSource" then table.insert(o.sources, s.name) end
      elseif M.MOVEMENT[p] and s.type == "ArgNode" and o.type == "ArgNode" then
        table.insert(s.out, { predicate = p, to = o.name })
        table.insert(o.into, { predicate = p, from = s.name })
        m.edges[#m.edges + 1] = { p, s.name, o.name }
      end
    end
  end
  for _, name in ipairs(m.action_names) do
    local a = m.actions[name]
    table.sort(a.labels)
    a.label = a.labels[1]
  end
  for _, name in ipairs(m.label_names) do
    local l = m.labels[name]
    table.sort(l.nodes); table.sort(l.actions); table.sort(l.sources); table.sort(l.children)
  end
  for _, name in ipairs(m.node_names) do table.sort(m.nodes[name].labels) end
  build_index(m)
  m.content_hash = M.content_hash(c)
  return m
end

--- the batch request that reads version, hash, profile and ontology in one transaction
local function batch()
  local cmds = { { command = VERSION_QUERY }, { command = PROFILE_QUERY } }
  for _, t in ipairs(M.TYPES) do
    cmds[#cmds + 1] = { command = "FIND(?e) WHERE { ?e {type: :t} } LIMIT " .. LIMIT, parameters = { t = t } }
  end
  for _, p in ipairs(M.PREDICATES) do
    cmds[#cmds + 1] = { command = "FIND(?l) WHERE { ?l (?s, :p, ?o) } LIMIT " .. LIMIT, parameters = { p = p } }
  end
  return core.json_encode { commands = cmds }
end

--- read the ontology of a nexus in one read transaction: results for
--- M.content (results[i] per type, then per predicate; .version,
--- .recorded_hash, .profile), or nil and an error {code, message, hint}
function M.read(nx)
  local resp = decode(nx.handle:call_json(batch(), { readonly = true }))
  if resp.error then return nil, { code = resp.error.code, message = resp.error.message, hint = resp.error.hint } end
  local results = {}
  for i, r in ipairs(resp.result or {}) do
    if r.error and r.error.code == "KIP_2001" then -- the ARG types are not defined here
      return nil, { code = "ARG_BIND_NO_ONTOLOGY", message = "this nexus has no ARG schema (" .. tostring(r.error.message) .. ")",
        hint = "Run `kip arg init --ontology FILE.kip` (docs/arg.md)." }
    end
    if r.error then return nil, { code = r.error.code, message = r.error.message, hint = r.error.hint } end
    if i == 1 then
      local cols = r.result or {}
      results.version = type(first(cols[1])) == "number" and first(cols[1]) or 0
      results.recorded_hash = type(first(cols[2])) == "string" and first(cols[2]) or nil
    elseif i == 2 then
      local p = first(r.result)
      results.profile = type(p) == "table" and p or nil
    else
      results[i - 2] = r.result or {}
    end
  end
  return results
end

--- The pinned snapshot for this request: the cached model of the current
--- version, or a fresh read. Returns the model, or nil and an error
--- {code, message, hint}. opts.version pins an older version (replay): it
--- is served only if it is the current one or has the same content
--- (ontology history is the offline loop's: kip arg rollback).
function M.get(nx, opts)
  opts = opts or {}
  if opts.model then return opts.model end -- a staged model (offline replay of a candidate)
  local current, recorded = M.version(nx)
  local key = tostring(current) .. ":" .. tostring(recorded)
  state.of(nx, "arg").snapshots = state.of(nx, "arg").snapshots or {}
  local m = state.of(nx, "arg").snapshots[key]
  if not m then
    local results, err = M.read(nx)
    if not results then return nil, err end
    if #(results[2] or {}) == 0 then
      return nil, { code = "ARG_BIND_NO_ONTOLOGY", message = "this nexus has no ARG ontology (no ArgLabel)",
        hint = "Run `kip arg init --ontology FILE.kip` (docs/arg.md)." }
    end
    local c = M.content(results)
    local problems = require("kip.arg.ontology").check(c)
    if #problems > 0 then
      local e = require("kip.arg.ontology").invalid(problems, "snapshot")
      e.hint = "Publish a valid ontology (kip arg publish --ontology FILE.kip) or roll back (kip arg rollback N)."
      return nil, e
    end
    local hash = M.content_hash(c)
    if results.recorded_hash and results.recorded_hash ~= hash then
      return nil, { code = "ARG_ONTOLOGY_INVALID", step = "snapshot",
        message = ("the ontology's content (%s) is not the content published as version %s (%s): it was changed outside a publish")
          :format(hash, tostring(results.version), results.recorded_hash),
        hint = "Publish the intended ontology (kip arg publish --ontology FILE.kip) or roll back (kip arg rollback N); "
          .. "the guards' log (kip guards --log) shows maintenance writes." }
    end
    m = M.model(results.version, c)
    state.of(nx, "arg").snapshots = { [tostring(results.version) .. ":" .. tostring(results.recorded_hash)] = m } -- one version held
  end
  if opts.version and opts.version ~= m.version and not (opts.content_hash and opts.content_hash == m.content_hash) then
    return nil, { code = "ARG_BIND_VERSION", message = ("ontology version %s is not the current one (%s)"):format(
      tostring(opts.version), tostring(m.version)),
      hint = "Replay needs the version the episode was recorded under, or one with the same content (kip arg rollback)." }
  end
  return m
end

return M
