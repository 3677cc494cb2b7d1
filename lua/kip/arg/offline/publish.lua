--- kip.arg.offline.publish — stage E of the offline loop (seed 003 §3.5
--- "Lifecycle", §3.6, Annex 7.4 "transactional boundaries", "version
--- pinning"): approved candidates become one PublishDelta applied in ONE
--- KIP command — one transaction — together with the new version number
--- (compare-and-set on the ArgOntology domain: two publishers cannot both
--- win), the ArgVersion record (full content, content hash, delta,
--- validation reports, rollback instructions) and the candidates' status.
--- Nothing is deleted: labels and nodes move ACTIVE -> DEPRECATED ->
--- REMOVED and links are REMOVED by their lifecycle attribute, so every
--- episode stays interpretable. The label index and validator rules are
--- rebuilt from the published content by the next request (the snapshot
--- is per version). rollback(N) publishes version N's content again as a
--- new version.
local core = require "kip.core"
local snapshot = require "kip.arg.snapshot"
local apply = require "kip.arg.offline.apply"

local M = {}

M.SOURCE = "kipnexus:arg_publish"
M.MAX_BYTES = 256 * 1024 * 1024

local function q(s) return core.json_encode(s) end

-- the publisher's identity for the writes
function M.ctx(nx, ctx)
  local c = require("kip.sandbox").copy(ctx or nx.ctx or {})
  c.operator, c.roles = true, { "arg_publisher" }
  return c
end

local function domain(nx, ctx)
  local r = nx:execute('FIND(?d) WHERE { ?d {type: "Domain", name: "ArgOntology"} }', nil, { ctx = ctx })
  local d = r.result and r.result[1]
  if not d then return nil end
  return { version = tonumber((d.attributes or {}).version) or 0, cas = (d.metadata or {})._version }
end

--- the content of published version n (ArgVersion record), or nil, error
function M.version_record(nx, n, ctx)
  local r = nx:execute('FIND(?v) WHERE { ?v {type: "ArgVersion", name: :n} }', { n = "v" .. tostring(n) }, { ctx = M.ctx(nx, ctx) })
  if r.error then return nil, r.error end
  local v = r.result and r.result[1]
  if not v then
    return nil, { code = "ARG_PUBLISH_NO_VERSION", message = "no published version " .. tostring(n),
      hint = "List versions with `kip arg versions`." }
  end
  return v.attributes
end

--- published versions, newest first
function M.versions(nx, ctx)
  local r = nx:execute('FIND(?v.name, ?v.attributes.version, ?v.attributes.published_at, ?v.attributes.summary, '
    .. '?v.attributes.content_hash, ?v.attributes.rollback_of) WHERE { ?v {type: "ArgVersion"} } '
    .. 'ORDER BY ?v.attributes.version DESC LIMIT 10000', nil, { ctx = M.ctx(nx, ctx) })
  if r.error then return nil, r.error end
  -- one list per projected value (KIP FIND with several variables)
  local cols, out = r.result or {}, {}
  local function v(k, i) local x = cols[k] and cols[k][i]; if x == core.null then return nil end return x end
  for i = 1, #(cols[1] or {}) do
    out[i] = { name = v(1, i), version = v(2, i), published_at = v(3, i), summary = v(4, i), content_hash = v(5, i),
      rollback_of = v(6, i) }
  end
  return out
end

-- the UPSERT of a delta: element patches, link lifecycles, the version, its record
local function command(changes, extra)
  local blocks, params, n = {}, {}, 0
  local function p(v)
    n = n + 1
    params["p" .. n] = v
    return ":p" .. n
  end
  for _, e in ipairs(changes.elements) do
    blocks[#blocks + 1] = ("CONCEPT ?e%d { {type: %s, name: %s} SET ATTRIBUTES %s }"):format(#blocks, p(e[1]), p(e[2]), p(e[3]))
  end
  for _, l in ipairs(changes.links) do
    blocks[#blocks + 1] = ("PROPOSITION ?l%d { ({type: %s, name: %s}, %s, {type: %s, name: %s}) SET ATTRIBUTES { lifecycle: %s } }")
      :format(#blocks, p(l[2]), p(l[3]), q(l[1]), p(l[4]), p(l[5]), p(l[6]))
  end
  for _, b in ipairs(extra) do blocks[#blocks + 1] = b(p) end
  return "UPSERT {\n  " .. table.concat(blocks, "\n  ") .. "\n} WITH METADATA { source: \"" .. M.SOURCE
    .. "\", author: \"$system\", confidence: 1.0 }", params
end

-- publish `changes` turning the current content into `content` as the next version
local function commit(nx, ctx, changes, content, meta, candidates)
  local d = domain(nx, ctx)
  if not d then
    return nil, { code = "ARG_PUBLISH_NO_ONTOLOGY", message = "this nexus has no ArgOntology domain", hint = "Run `kip arg init`." }
  end
  local version = d.version + 1
  local record = {
    version = version, published_at = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    content = { elements = content.elements, links = content.links }, content_hash = snapshot.content_hash(content),
    delta = { elements = changes.elements, links = changes.links }, summary = meta.summary,
    validation = meta.validation, rollback_of = meta.rollback_of, previous = d.version,
    rollback = ("kip arg rollback %d   (publishes version %d's content again as version %d)"):format(d.version, d.version, version + 1),
  }
  local extra = {
    function(p)
      return ('CONCEPT ?dom { {type: "Domain", name: "ArgOntology"} EXPECT VERSION %s SET ATTRIBUTES { version: %s } }')
        :format(p(d.cas), p(version))
    end,
    function(p)
      return ('CONCEPT ?ver { {type: "ArgVersion", name: %s} SET ATTRIBUTES %s '
        .. 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } }'):format(p("v" .. version), p(record))
    end,
  }
  for _, c in ipairs(candidates or {}) do
    local a = c.after or {}
    if c.type == "registry_dedup" and type(a.unit) == "string" and type(a.merged_into) == "string" then
      -- the registry side of a dedup: the grey-zone unit points at the one it duplicates
      extra[#extra + 1] = function(p)
        return ("CONCEPT ?u%s { {type: \"InfoUnit\", name: %s} SET ATTRIBUTES { merged_into: %s } }")
          :format(c.name:gsub("%W", ""), p(a.unit), p(a.merged_into))
      end
    end
    extra[#extra + 1] = function(p)
      return ("CONCEPT ?c%s { {type: \"ArgCandidate\", name: %s} SET ATTRIBUTES { status: \"published\", published_in: %s } }")
        :format(c.name:gsub("%W", ""), p(c.name), p(version))
    end
  end
  local text, params = command(changes, extra)
  local r = nx:execute(text, params, { ctx = ctx, max_command_bytes = M.MAX_BYTES })
  if r.error then
    local code = r.error.code == "KIP_3005" and "ARG_PUBLISH_CONFLICT" or "ARG_PUBLISH_FAILED"
    return nil, { code = code, message = r.error.message, step = "publish",
      hint = code == "ARG_PUBLISH_CONFLICT" and "Another publish won; run the offline loop again on the new version."
        or "Nothing was published (one transaction)." }
  end
  nx._arg_snapshots = nil
  return { version = version, previous = d.version, content_hash = record.content_hash,
    elements = #changes.elements, links = #changes.links }
end

--- record the current content as version `version`'s ArgVersion (the
--- first publish: kip arg init --ontology)
function M.record_current(nx, ctx, summary)
  ctx = M.ctx(nx, ctx)
  nx._arg_snapshots = nil
  local m, err = snapshot.get(nx)
  if not m then return nil, err end
  local record = { version = m.version, published_at = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    content = { elements = m.content.elements, links = m.content.links }, content_hash = m.content_hash, summary = summary,
    rollback = "none: the first version" }
  local r = nx:execute('UPSERT { CONCEPT ?v { {type: "ArgVersion", name: :n} SET ATTRIBUTES :a '
    .. 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } } } '
    .. 'WITH METADATA { source: "' .. M.SOURCE .. '", author: "$system" }', { n = "v" .. m.version, a = record },
    { ctx = ctx, max_command_bytes = M.MAX_BYTES })
  if r.error then return nil, r.error end
  return true
end

--- publish the approved candidates (records from kip.arg.offline.candidates)
function M.publish(nx, approved, opts)
  opts = opts or {}
  local ctx = M.ctx(nx, opts.ctx)
  nx._arg_snapshots = nil
  local m, err = snapshot.get(nx)
  if not m then return nil, err end
  if #approved == 0 then
    return nil, { code = "ARG_PUBLISH_NOTHING", message = "no approved candidate to publish", step = "publish",
      hint = "Run `kip arg offline run`, then review candidates with `kip arg review ID approve`." }
  end
  local content, changes = apply.run(m.content, approved)
  local reports, kinds = {}, {}
  for _, c in ipairs(approved) do
    reports[#reports + 1] = { candidate = c.name, type = c.type, key = c.key, validation = c.validation }
    kinds[c.type] = (kinds[c.type] or 0) + 1
  end
  local parts = {}
  for k, v in pairs(kinds) do parts[#parts + 1] = v .. " " .. k end
  table.sort(parts)
  if opts.dry_run then
    return { dry_run = true, version = m.version + 1, delta = changes, content_hash = snapshot.content_hash(content) }
  end
  return commit(nx, ctx, changes, content, { summary = table.concat(parts, ", "), validation = reports }, approved)
end

--- publish version n's content again as a new version
function M.rollback(nx, n, opts)
  opts = opts or {}
  local ctx = M.ctx(nx, opts.ctx)
  local rec, err = M.version_record(nx, n, ctx)
  if not rec then return nil, err end
  nx._arg_snapshots = nil
  local m, serr = snapshot.get(nx)
  if not m then return nil, serr end
  local target = { elements = rec.content.elements, links = rec.content.links }
  local changes = apply.diff(m.content, target)
  if opts.dry_run then return { dry_run = true, delta = changes } end
  return commit(nx, ctx, changes, target, { summary = "rollback to version " .. tostring(n), rollback_of = n })
end

return M
