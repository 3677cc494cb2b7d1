--- kip.arg.offline — the ARG offline loop (seed 003 §3 A-E, §3.6-3.8, §4.2,
--- Annex 7.1/7.4; docs/arg.md "Offline loop"): the only place where the
--- ontology changes. A run collects what the online loop recorded (A),
--- proposes typed candidates (B), scores them with tiered gains, the
--- silence-bias penalty and replay on a staged copy (C), validates them (D)
--- and stages them as ArgCandidate records; publish (E) applies the approved
--- ones as version N+1 in one transaction; rollback publishes an older
--- version's content again. Nothing a run stages is visible online until
--- published (the online loop reads only the published Arg* types).
---
---   local offline = require "kip.arg.offline"
---   local report = offline.run(nx, { dry_run = false })   -- A-D, staged
---   offline.review(nx, "cand-…", "approve", "looks right")
---   offline.publish(nx)                                    -- E: version N+1
---   offline.rollback(nx, 1)                                -- version 1's content as N+2
local core = require "kip.core"
local snapshot = require "kip.arg.snapshot"
local collect = require "kip.arg.offline.collect"
local generate = require "kip.arg.offline.generate"
local score = require "kip.arg.offline.score"
local validate = require "kip.arg.offline.validate"
local publish = require "kip.arg.offline.publish"
local ids = require "kip.ids"
local state = require "kip.state"

local M = {}

-- a command as the publisher (capability arg.publish: staging, runs, reviews)
local function run_cmd(nx, ctx, text, params) return nx:query(text, params, publish.as(nx, ctx)) end

-- the time the last run collected up to (its ArgOfflineRun record)
local function last_until(nx, ctx)
  local rows = run_cmd(nx, ctx, 'FIND(?r.attributes.until) WHERE { ?r {type: "ArgOfflineRun"} } '
    .. 'ORDER BY ?r.attributes.until DESC LIMIT 1')
  local v = rows and rows[1]
  return type(v) == "string" and v or nil
end

-- InfoUnits the compare left in the grey zone
local function grey_units(nx, ctx)
  local rows = run_cmd(nx, ctx, 'FIND(?u) WHERE { ?u {type: "InfoUnit"} FILTER(IS_NOT_NULL(?u.attributes.grey_zone_of)) } LIMIT 1000')
  local out = {}
  for _, u in ipairs(rows or {}) do
    local g = (u.attributes or {}).grey_zone_of
    if type(g) == "string" then out[#out + 1] = { name = u.name, grey_zone_of = g } end
  end
  return out
end

--- stages A-D. opts: since (ISO; default: where the last run stopped; "all"),
--- dry_run (nothing written), hooks (propose), progress(stage, detail).
function M.run(nx, opts)
  opts = opts or {}
  local ctx = publish.ctx(nx, opts.ctx)
  local function progress(stage, detail) if opts.progress then opts.progress(stage, detail) end end
  state.of(nx, "arg").snapshots = nil
  local m, err = snapshot.get(nx)
  if not m then return nil, err end
  local since = opts.since
  if since == "all" then since = nil elseif since == nil then since = last_until(nx, ctx) end
  progress("A collect", since and ("since " .. since) or "all episodes")
  local ds, cerr = collect.run(nx, ctx, since)
  if not ds then return nil, cerr end
  ds.grey_units = grey_units(nx, ctx)
  progress("B candidates", #ds.episodes .. " episodes (" .. ds.strong .. " with feedback)")
  local cfg = state.of(nx, "arg").cfg or {}
  local cands, proposed = generate.run(ds, m, cfg.hooks)
  progress("C scoring", #cands .. " candidates (of " .. proposed .. " proposed)")
  -- node vectors for staged models come from the base model (same nodes)
  require("kip.arg.semantic").scores(nx, m, "warm")
  score.run(nx, ds, m, cands)
  progress("D validation", #cands .. " candidates")
  validate.run(m, cands, ds)
  local at, suffix = ids.stamp()
  local batch = "b" .. at:gsub("[-:]", ""):lower() .. suffix
  -- a candidate's id comes from its content and the version it is for: the
  -- same change proposed again has the same id. One a person reviewed, or
  -- that was published, keeps its record (reported as kept, not staged again)
  local existing = {}
  for _, c in ipairs(M.candidates(nx, nil, { ctx = ctx }) or {}) do existing[c.name] = c end
  local counts, staged, kept = {}, {}, {}
  for _, c in ipairs(cands) do
    c.name = ("cand-v%s-%s-%s"):format(tostring(m.version), c.type, snapshot.hash(c.type .. "|" .. c.key))
    c.batch, c.base_version, c.created_at = batch, m.version, at
    local old = existing[c.name]
    if old and (old.review or old.status == "published") then
      kept[#kept + 1] = { name = c.name, status = old.status }
    else
      staged[#staged + 1] = c
      counts[c.status] = (counts[c.status] or 0) + 1
    end
  end
  cands = staged
  local report = { batch = batch, base_version = m.version, since = since, ["until"] = ds["until"], episodes = #ds.episodes,
    strong = ds.strong, weak = ds.weak, proposed = proposed, candidates = cands, counts = counts, dry_run = opts.dry_run or nil,
    kept = kept }
  if opts.dry_run then return report end
  -- stage: the candidates and the run record, one command
  local blocks, params = {}, {}
  for i, c in ipairs(cands) do
    params["n" .. i] = c.name
    params["a" .. i] = { type = c.type, key = c.key, target = c.target, reason = c.reason, before = c.before, after = c.after,
      evidence = setmetatable(c.evidence, core.array_mt), scores = c.scores, validation = c.validation, status = c.status,
      batch = batch, base_version = m.version, created_at = at, hook = c.hook }
    blocks[#blocks + 1] = ("CONCEPT ?c%d { {type: \"ArgCandidate\", name: :n%d} SET ATTRIBUTES :a%d "
      .. "SET PROPOSITIONS { (\"belongs_to_domain\", {type: \"Domain\", name: \"ArgRegistry\"}) } }"):format(i, i, i)
  end
  params.run, params.runa = "run-" .. batch, { batch = batch, since = since, ["until"] = ds["until"] or at,
    episodes = #ds.episodes, strong = ds.strong, weak = ds.weak, proposed = proposed, counts = counts,
    stages = { "A", "B", "C", "D" }, base_version = m.version, at = at }
  blocks[#blocks + 1] = 'CONCEPT ?run { {type: "ArgOfflineRun", name: :run} SET ATTRIBUTES :runa '
    .. 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } }'
  local ok, werr = run_cmd(nx, ctx, "UPSERT {\n" .. table.concat(blocks, "\n") .. "\n} WITH METADATA { source: \"kipnexus:arg_offline\", "
    .. "author: \"$system\", access_level: \"private\", arg_visible: \"none\" }", params)
  if not ok then return nil, werr end
  return report
end

--- staged candidates: filter {status, batch}
function M.candidates(nx, filter, opts)
  filter = filter or {}
  local ctx = publish.ctx(nx, (opts or {}).ctx)
  local where, params = { '?c {type: "ArgCandidate"}' }, {}
  if filter.status then where[#where + 1] = "FILTER(?c.attributes.status == :s)"; params.s = filter.status end
  if filter.batch then where[#where + 1] = "FILTER(?c.attributes.batch == :b)"; params.b = filter.batch end
  local rows, err = run_cmd(nx, ctx, "FIND(?c) WHERE { " .. table.concat(where, " ") .. " } ORDER BY ?c.name LIMIT 10000", params)
  if not rows then return nil, err end
  local out = {}
  for _, r in ipairs(rows) do
    local a = r.attributes or {}
    a.name = r.name
    out[#out + 1] = a
  end
  return out
end

--- a person's decision on a candidate: approve | reject, with a reason
function M.review(nx, name, decision, reason, opts)
  local ctx = publish.ctx(nx, (opts or {}).ctx)
  if decision ~= "approve" and decision ~= "reject" then
    return nil, { code = "ARG_REQUEST_INVALID", message = "review decision must be approve or reject", hint = "kip arg review ID approve|reject --reason TEXT" }
  end
  if type(reason) ~= "string" or reason == "" then
    return nil, { code = "ARG_REQUEST_INVALID", message = "a review needs a reason", hint = "--reason TEXT" }
  end
  local rows = run_cmd(nx, ctx, 'FIND(?c) WHERE { ?c {type: "ArgCandidate", name: :n} }', { n = name })
  local c = rows and rows[1]
  if not c then return nil, { code = "ARG_CANDIDATE_NOT_FOUND", message = "no candidate " .. tostring(name), hint = "kip arg candidates" } end
  local a = c.attributes or {}
  if a.status == "published" then return nil, { code = "ARG_REQUEST_INVALID", message = name .. " is already published", hint = "" } end
  if decision == "approve" and a.status == "rejected" then
    return nil, { code = "ARG_PUBLISH_REJECTED", message = name .. " failed validation: " .. table.concat((a.validation or {}).reasons or {}, "; "),
      hint = "A rejected candidate cannot be approved; propose a corrected change." }
  end
  local status = decision == "approve" and "approved" or "rejected"
  local review = { decision = decision, reason = reason, by = ctx.actor, at = os.date("!%Y-%m-%dT%H:%M:%SZ") }
  local ok, err = run_cmd(nx, ctx, 'UPSERT { CONCEPT ?c { {type: "ArgCandidate", name: :n} SET ATTRIBUTES { status: :s, review: :r } } } '
    .. 'WITH METADATA { source: "kipnexus:arg_review", author: "$system" }', { n = name, s = status, r = review })
  if not ok then return nil, err end
  return { candidate = name, status = status }
end

--- stage E: publish every approved candidate made for the current version
function M.publish(nx, opts)
  opts = opts or {}
  local list, err = M.candidates(nx, { status = "approved" }, opts)
  if not list then return nil, err end
  state.of(nx, "arg").snapshots = nil
  local m, serr = snapshot.get(nx)
  if not m then return nil, serr end
  local fresh, stale = {}, {}
  for _, c in ipairs(list) do
    if c.base_version == m.version then fresh[#fresh + 1] = c else stale[#stale + 1] = c.name end
  end
  local r, perr = publish.publish(nx, fresh, opts)
  if not r then return nil, perr end
  r.published = #fresh
  r.stale = stale -- approved for an older version: run the loop again
  return r
end

function M.rollback(nx, n, opts) return publish.rollback(nx, n, opts) end
function M.versions(nx, opts) return publish.versions(nx, (opts or {}).ctx) end

--- derived metrics over every recorded episode
function M.metrics(nx, opts)
  local ctx = publish.ctx(nx, (opts or {}).ctx)
  local m, err = snapshot.get(nx)
  if not m then return nil, err end
  local ds, cerr = collect.run(nx, ctx, nil)
  if not ds then return nil, cerr end
  return require("kip.arg.offline.metrics").run(ds, m)
end

return M
