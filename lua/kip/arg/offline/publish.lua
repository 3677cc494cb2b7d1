--- kip.arg.offline.publish — stage E of the offline loop (seed 003 §3.5
--- "Lifecycle", §3.6, Annex 7.4 "transactional boundaries", "version
--- pinning"), and the commit of every publish: approved candidates, a
--- rollback, or an operator's ontology file (kip.arg.ontology). A publish is
--- one PublishDelta applied in ONE KIP command — one transaction — together
--- with the new version number and its content hash (compare-and-set on the
--- ArgOntology domain: two publishers cannot both win), the access profile,
--- the visibility stamps governed reads enforce, the ArgVersion record (full
--- content, content hash, delta, validation reports, rollback instructions)
--- and the candidates' status. The new content is validated as a whole
--- first (kip.arg.ontology.check); an invalid one publishes nothing.
--- Nothing is deleted: labels and nodes move ACTIVE -> DEPRECATED ->
--- REMOVED and links are REMOVED by their lifecycle attribute, so every
--- episode stays interpretable. The writes hold the capability arg.publish
--- (kip.arg.guards): nothing else can write the ontology.
local core = require "kip.core"
local snapshot = require "kip.arg.snapshot"
local apply = require "kip.arg.offline.apply"
local guards = require "kip.arg.guards"
local state = require "kip.state"

local M = {}

M.SOURCE = "kipnexus:arg_publish"
M.MAX_BYTES = 256 * 1024 * 1024

local function q(s) return core.json_encode(s) end

--- the publisher's view (it reads its own private records as the operator)
M.ctx = guards.operator_ctx

--- run a command as the publisher (capability arg.publish)
function M.as(nx, ctx) return guards.as(nx, guards.PUBLISH, ctx, { max_command_bytes = M.MAX_BYTES }) end
function M.execute(nx, ctx, text, params) return nx:execute(text, params, M.as(nx, ctx)) end

local function domain(nx, ctx)
  local r = M.execute(nx, ctx, 'FIND(?d) WHERE { ?d {type: "Domain", name: "ArgOntology"} }')
  local d = r.result and r.result[1]
  if not d then return nil end
  return { version = tonumber((d.attributes or {}).version) or 0, cas = (d.metadata or {})._version }
end

--- the content of published version n (ArgVersion record), or nil, error
function M.version_record(nx, n, ctx)
  local r = M.execute(nx, ctx, 'FIND(?v) WHERE { ?v {type: "ArgVersion", name: :n} }', { n = "v" .. tostring(n) })
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
  local r = M.execute(nx, ctx, 'FIND(?v.name, ?v.attributes.version, ?v.attributes.published_at, ?v.attributes.summary, '
    .. '?v.attributes.content_hash, ?v.attributes.rollback_of) WHERE { ?v {type: "ArgVersion"} } '
    .. 'ORDER BY ?v.attributes.version DESC LIMIT 10000')
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

-- the UPSERT of a delta: element patches with their visibility stamps,
-- link lifecycles, then the extra blocks (version, record, candidates)
local function command(changes, stamps, extra)
  local blocks, params, n = {}, {}, 0
  local function p(v)
    n = n + 1
    params["p" .. n] = v
    return ":p" .. n
  end
  local patched = {}
  for _, e in ipairs(changes.elements) do
    patched[e[1] .. "\0" .. e[2]] = e[3]
  end
  local types = {}
  for t in pairs(stamps) do types[#types + 1] = t end
  table.sort(types)
  for _, t in ipairs(types) do
    local names = {}
    for name in pairs(stamps[t]) do names[#names + 1] = name end
    table.sort(names)
    for _, name in ipairs(names) do
      local patch = patched[t .. "\0" .. name]
      patched[t .. "\0" .. name] = nil
      blocks[#blocks + 1] = ("CONCEPT ?e%d { {type: %s, name: %s}%s } WITH METADATA %s"):format(#blocks, p(t), p(name),
        patch and (" SET ATTRIBUTES " .. p(patch)) or "", p(stamps[t][name]))
    end
  end
  for _, e in ipairs(changes.elements) do -- patches of elements outside the new content (REMOVED)
    if patched[e[1] .. "\0" .. e[2]] then
      blocks[#blocks + 1] = ("CONCEPT ?e%d { {type: %s, name: %s} SET ATTRIBUTES %s }"):format(#blocks, p(e[1]), p(e[2]), p(e[3]))
    end
  end
  for _, l in ipairs(changes.links) do
    blocks[#blocks + 1] = ("PROPOSITION ?l%d { ({type: %s, name: %s}, %s, {type: %s, name: %s}) SET ATTRIBUTES { lifecycle: %s } }")
      :format(#blocks, p(l[2]), p(l[3]), q(l[1]), p(l[4]), p(l[5]), p(l[6]))
  end
  for _, b in ipairs(extra) do blocks[#blocks + 1] = b(p) end
  return "UPSERT {\n  " .. table.concat(blocks, "\n  ") .. "\n} WITH METADATA { source: \"" .. M.SOURCE
    .. "\", author: \"$system\", confidence: 1.0 }", params
end

-- the content of the nexus as it stands (no validation: the base of a
-- publish may be empty or, after maintenance, invalid)
local function current(nx)
  local results, err = snapshot.read(nx)
  if not results then return nil, err end
  return snapshot.content(results), results
end

--- publish `content` as the next version: validated as a whole, the changes
--- from the current content in one transaction. meta: summary, validation,
--- rollback_of, candidates (their status becomes published), dry_run.
--- Returns {version, previous, content_hash, elements, links} or nil, error.
function M.commit(nx, ctx, content, meta)
  meta = meta or {}
  local ontology = require "kip.arg.ontology"
  local problems, warnings = ontology.check(content)
  if #problems > 0 then return nil, ontology.invalid(problems, "publish") end
  local base, results = current(nx)
  if not base then return nil, results end
  local changes = apply.diff(base, content)
  local d = domain(nx, ctx)
  if not d then
    return nil, { code = "ARG_PUBLISH_NO_ONTOLOGY", message = "this nexus has no ArgOntology domain", hint = "Run `kip arg init`." }
  end
  local hash = snapshot.content_hash(content)
  local profile = require "kip.arg.profile"
  local pm = profile.model(content.profile)
  local previous = #profile.check(base.profile) == 0 and profile.model(base.profile) or nil
  local stamps = ontology.stamps(content, pm, previous)
  local version = d.version + 1
  if meta.dry_run then
    return { dry_run = true, version = version, previous = d.version, delta = changes, content_hash = hash, warnings = warnings }
  end
  local record = {
    version = version, published_at = os.date("!%Y-%m-%dT%H:%M:%SZ"),
    content = { elements = content.elements, links = content.links, profile = content.profile }, content_hash = hash,
    delta = { elements = changes.elements, links = changes.links }, summary = meta.summary,
    validation = meta.validation, warnings = warnings, rollback_of = meta.rollback_of, previous = d.version,
    rollback = d.version > 0 and ("kip arg rollback %d   (publishes version %d's content again as version %d)"):format(d.version,
      d.version, version + 1) or "none: the first version",
  }
  local extra = {
    function(p)
      return ('CONCEPT ?dom { {type: "Domain", name: "ArgOntology"} EXPECT VERSION %s SET ATTRIBUTES { version: %s, '
        .. 'content_hash: %s, profile: %s } }'):format(p(d.cas), p(version), p(hash), p(content.profile))
    end,
    function(p)
      return ('CONCEPT ?ver { {type: "ArgVersion", name: %s} SET ATTRIBUTES %s '
        .. 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } } '
        .. 'WITH METADATA { access_level: "private", arg_visible: "none" }'):format(p("v" .. version), p(record))
    end,
  }
  for _, c in ipairs(meta.candidates or {}) do
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
  local text, params = command(changes, stamps, extra)
  -- registry_dedup touches an InfoUnit, the online loop's record
  local o = guards.as(nx, guards.PUBLISH, ctx, { max_command_bytes = M.MAX_BYTES })
  o.capabilities[#o.capabilities + 1] = guards.RECORD
  local r = nx:execute(text, params, o)
  if r.error then
    local code = r.error.code == "KIP_3005" and "ARG_PUBLISH_CONFLICT" or "ARG_PUBLISH_FAILED"
    return nil, { code = code, message = r.error.message, step = "publish",
      hint = code == "ARG_PUBLISH_CONFLICT" and "Another publish won; run the offline loop again on the new version."
        or "Nothing was published (one transaction)." }
  end
  state.of(nx, "arg").snapshots = nil
  return { version = version, previous = d.version, content_hash = hash, elements = #changes.elements, links = #changes.links,
    warnings = warnings }
end

--- publish the approved candidates (records from kip.arg.offline.candidates)
function M.publish(nx, approved, opts)
  opts = opts or {}
  local ctx = M.ctx(nx, opts.ctx)
  state.of(nx, "arg").snapshots = nil
  local m, err = snapshot.get(nx)
  if not m then return nil, err end
  if #approved == 0 then
    return nil, { code = "ARG_PUBLISH_NOTHING", message = "no approved candidate to publish", step = "publish",
      hint = "Run `kip arg offline run`, then review candidates with `kip arg review ID approve`." }
  end
  local content = apply.run(m.content, approved)
  local reports, kinds = {}, {}
  for _, c in ipairs(approved) do
    reports[#reports + 1] = { candidate = c.name, type = c.type, key = c.key, validation = c.validation }
    kinds[c.type] = (kinds[c.type] or 0) + 1
  end
  local parts = {}
  for k, v in pairs(kinds) do parts[#parts + 1] = v .. " " .. k end
  table.sort(parts)
  return M.commit(nx, ctx, content, { summary = table.concat(parts, ", "), validation = reports, candidates = approved,
    dry_run = opts.dry_run })
end

--- publish version n's content again as a new version
function M.rollback(nx, n, opts)
  opts = opts or {}
  local ctx = M.ctx(nx, opts.ctx)
  local rec, err = M.version_record(nx, n, ctx)
  if not rec then return nil, err end
  state.of(nx, "arg").snapshots = nil
  local m, serr = snapshot.get(nx)
  if not m then return nil, serr end
  if m.content_hash == rec.content_hash then
    return nil, { code = "ARG_PUBLISH_NOTHING", step = "rollback",
      message = ("version %d's content is the current content (version %s): nothing to roll back"):format(n, tostring(m.version)),
      hint = "`kip arg versions` lists the versions and their content hashes." }
  end
  local target = { elements = rec.content.elements, links = rec.content.links,
    profile = rec.content.profile or m.content.profile }
  return M.commit(nx, ctx, target, { summary = "rollback to version " .. tostring(n), rollback_of = n, dry_run = opts.dry_run })
end

--- publish the ontology in file `path` as the next version (an operator's
--- revised ontology; kip arg publish --ontology FILE); opts.first: refuse
--- when the nexus has a version already (kip arg init)
function M.file(nx, path, opts)
  opts = opts or {}
  local ctx = M.ctx(nx, opts.ctx)
  local content, err = M.load_file(path)
  if not content then return nil, err end
  local version, recorded = snapshot.version(nx)
  if version > 0 and recorded == snapshot.content_hash(content) then
    return { version = version, unchanged = true, content_hash = recorded }
  end
  if opts.first and version > 0 then
    return nil, { code = "ARG_PUBLISH_FAILED", step = "init",
      message = ("this nexus has ontology version %d already, with other content"):format(version),
      hint = "Publish a revised ontology as a new version: kip arg publish --ontology " .. path }
  end
  return M.commit(nx, ctx, content, { summary = (opts.first and "imported from " or "published from ") .. path,
    dry_run = opts.dry_run })
end

-- ------------------------------------------------------------ from a file
--- the content of an ontology file: loaded into a scratch nexus (in
--- memory) with the ARG schema, read back as a version would be. Returns
--- the content or nil, error.
function M.load_file(path)
  local kip = require "kip.nexus"
  local text, rerr = require("kip.sandbox").read_file(path)
  if not text then
    return nil, { code = "ARG_ONTOLOGY_INVALID", step = "load", message = "cannot read " .. path .. ": " .. tostring(rerr),
      hint = "Check the path of the ontology file; nothing was changed." }
  end
  local scratch, oerr = kip.open { path = ":memory:", embedder = false }
  if not scratch then return nil, { code = "ARG_PUBLISH_FAILED", step = "load", message = tostring(oerr), hint = "" } end
  local transfer = require "kip.transfer"
  local failures = {}
  local function apply_capsule(p, body)
    local stats = transfer.apply(scratch, body, { ctx = { operator = true }, max_command_bytes = 256 * 1024 * 1024,
      on_error = function(line, e)
        if #failures < 5 then failures[#failures + 1] = ("%s:%d: %s %s"):format(p, line, tostring(e.code), tostring(e.message)) end
      end })
    return stats.failed == 0
  end
  local schema = kip.home() .. "/capsules/arg/ArgSchema.kip"
  local ok = apply_capsule(schema, assert(require("kip.sandbox").read_file(schema))) and apply_capsule(path, text)
  local content, err
  if ok then
    local results
    results, err = snapshot.read(scratch)
    if results then content = snapshot.content(results) end
  else
    err = { code = "ARG_ONTOLOGY_INVALID", step = "load",
      message = ("%s does not load: %s"):format(path, table.concat(failures, "; ")),
      hint = "Fix the statements named; nothing was changed." }
  end
  scratch:close()
  if not content then return nil, err end
  return content
end

return M
