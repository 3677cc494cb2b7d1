--- kip.arg.registry — the episodic registry of the ARG online loop (seed 003
--- step 10 "MemoryWrite", "Info Canonicalization & Dedup", §4.1; docs/arg.md
--- "Episodic registry").
---
--- One ArgEpisode per request, written after the outcome is decided and
--- after the post-check, through the nexus's governed pipeline, in ONE KIP
--- command together with its Info Registry change — so the episode and the
--- unit it touched commit together or not at all. The episode holds the
--- request as received (secrets redacted: nothing a registry write stores
--- carries one, kip.secrets), the authenticated caller, the decision record
--- replay must reproduce and what the action did. Episodes are append-only
--- and only the loop adds them (core guards, kip.arg.guards: capability
--- arg.record); episodes and units are private facts (access_level
--- "private"): agents never read them through KIP; operators do (kip arg
--- log / replay).
---
--- Info Registry: ANSWER and ACTION outcomes produce an InfoUnit candidate
--- (InfoText = the normalized request, InfoType, AccessScope = tenant and
--- role, LabelSignature); hard filter by InfoKey, then bounded lexical Top-K
--- inside the key: STRONG_MATCH (similarity >= 0.8) merges into the unit,
--- GREY_ZONE (>= 0.5) asks the compare hook (SAME | DIFFERENT | UNSURE;
--- without a hook UNSURE: a new unit marked grey_zone_of for offline review),
--- NO_MATCH creates a unit. All of it is logged in the episode (§2.10).
local core = require "kip.core"
local lex = require "kip.arg.lexicon"
local ids = require "kip.ids"
local guards = require "kip.arg.guards"
local secrets = require "kip.secrets"

local M = {}

M.TOP_K = 10
M.STRONG = 0.8
M.GREY = 0.5
M.SOURCE = "kipnexus:arg_online"

local copy = require("kip.sandbox").copy

--- the decision record of a run: everything replay must reproduce, and
--- nothing that varies between runs (timings, ids, clocks)
function M.decision(r)
  local w, b = r.weaver or {}, r.bind or {}
  local bundle = {}
  for i, u in ipairs(r.bundle or {}) do bundle[i] = { node = u.node, label = u.label, source = u.source } end
  local action = r.action and { name = r.action.name, params = r.action.params } or nil -- the decision, not its execution
  return {
    outcome = r.outcome,
    decided_at = r.decided_at,
    policy = r.policy and { state = r.policy.state, reasons = r.policy.reasons, hook = r.policy.hook } or nil,
    candidates = r.candidates,
    weaver = { L_final = w.L_final, primary_label = w.primary_label, label_signature = w.label_signature,
      retrieval_type = w.retrieval_type, confidence = w.confidence, flags = w.flags, rival = w.rival,
      intents = w.intents, validator = w.validator, hook = w.hook },
    bind = { path = b.path, eligible_set = b.eligible_set, landing = b.landing, action = b.action },
    traversal = r.traversal and { targets = r.traversal.targets, stop_reason = r.traversal.stop_reason,
      fast_path = r.traversal.fast_path, path = r.traversal.path } or nil,
    bundle = bundle,
    action = action,
    info = r.info and { c_info = r.info.c_info, info_outcome_status = r.info.info_outcome_status } or nil,
  }
end

--- the canonical text of a decision (sorted keys: byte-stable)
function M.digest(decision) return core.json_encode(decision) end

local function stems_set(text)
  local out = {}
  for _, s in ipairs(lex.stems(text)) do out[s] = true end
  return out
end

local function similarity(a, b)
  local inter, union = 0, 0
  for k in pairs(a) do union = union + 1; if b[k] then inter = inter + 1 end end
  for k in pairs(b) do if not a[k] then union = union + 1 end end
  return union == 0 and 1 or inter / union
end

-- InfoUnit candidate of a result (ANSWER and ACTION only); text is the
-- request's routing text with secrets redacted
local function info_unit(st, r, text)
  if r.outcome ~= "ANSWER" and r.outcome ~= "ACTION" then return nil end
  local c = st.caller or {}
  local scope = ("tenant:%s/role:%s"):format(c.tenant or "*", c.role or "unknown")
  local info_type = r.outcome == "ACTION" and "ACTION" or (r.weaver.retrieval_type or "DOMAIN")
  local words = {}
  for _, s in ipairs(lex.stems(text)) do words[#words + 1] = s end
  local prov = {}
  for _, u in ipairs(r.bundle or {}) do prov[#prov + 1] = (u.source == "external" and "connector:" or "node:") .. u.node end
  if r.action then prov[#prov + 1] = "action:" .. r.action.name end
  local key = table.concat({ info_type, scope, r.weaver.label_signature or "" }, "|")
  return { info_key = key, info_type = info_type, access_scope = scope, label_signature = r.weaver.label_signature,
    info_text = table.concat(words, " "), provenance = prov, c_info = r.info and r.info.c_info or 0,
    info_outcome_status = r.info and r.info.info_outcome_status or "INFO_LOW_CONFIDENCE" }
end

-- a command as the online loop (capability arg.record, the operator's view
-- of its own private records)
local function run(nx, ctx, cmd, params) return nx:query(cmd, params, guards.as(nx, guards.RECORD, ctx)) end

-- the first part of the names of the units of a key: "iu-<hash of the
-- key>-" (then a unique suffix); hexadecimal, so "iu-<hash>." is the first
-- name after them all
function M.unit_prefix(key) return "iu-" .. require("kip.arg.snapshot").hash(key) .. "-" end

-- two-phase match inside the key; returns the match log and the unit write.
-- The key's units are read by the range of their names, which the index of
-- names reads directly (a filter on info_key alone reads every unit of the
-- registry: 14 ms a request at 20 000 units); info_key is compared too,
-- for two keys of one hash.
local function match(st, ctx, unit)
  local nx = st.nx
  local prefix = M.unit_prefix(unit.info_key)
  local rows, err = run(nx, ctx, 'FIND(?u) WHERE { ?u {type: "InfoUnit"} '
    .. "FILTER(?u.name >= :from && ?u.name < :to && ?u.attributes.info_key == :k) } ORDER BY ?u.name LIMIT " .. M.TOP_K,
    { from = prefix, to = prefix:sub(1, -2) .. ".", k = unit.info_key })
  local log = { info_key = unit.info_key, method = { "info_key", "jaccard_stems" }, candidates = {}, decision = "NO_MATCH" }
  if not rows then log.error = err and err.message; return log end
  local mine = stems_set(unit.info_text)
  local best, best_s
  for _, u in ipairs(rows) do
    local s = similarity(mine, stems_set(tostring((u.attributes or {}).info_text or "")))
    log.candidates[#log.candidates + 1] = { unit = u.name, similarity = math.floor(s * 1000 + 0.5) / 1000 }
    if not best or s > best_s then best, best_s = u, s end
  end
  if best and best_s >= M.STRONG then
    log.decision, log.unit = "STRONG_MATCH", best.name
  elseif best and best_s >= M.GREY then
    log.decision = "GREY_ZONE"
    local cmp = "UNSURE"
    if st.hooks.compare then
      local ok, v = pcall(st.hooks.compare, unit, best)
      if ok and (v == "SAME" or v == "DIFFERENT" or v == "UNSURE") then cmp = v
      elseif not ok then log.compare_error = tostring(v):match("^[^\n]*") end
    end
    log.compare = cmp
    if cmp == "SAME" then log.unit = best.name else log.grey_zone_of = best.name end
  end
  log.existing = best and log.unit == best.name and best or nil
  log.count = #rows
  return log
end

--- a fresh episode id (known before the steps run: it is the idempotency
--- key of the request's action)
function M.new_id()
  local at, suffix = ids.stamp()
  return "ep-" .. at:gsub("[-:]", ""):lower() .. "-" .. suffix
end

--- step 10: write the episode (and its Info Registry change) for state st
function M.record(st)
  local nx = st.nx
  local at = ids.stamp()
  local ts = (st.request.body or {}).timestamp
  local r = require("kip.arg.result").build(st)
  local ctx = st.ctx
  -- no secret in any registry write (seed 003 step 10: PII rules apply to
  -- every registry write): the unit's text comes from the redacted request,
  -- and the whole episode is redacted before it is written
  local kinds = {}
  local prompt = secrets.redact_value(st.request.prompt, kinds)
  local text = #kinds > 0 and require("kip.arg.analysis").routing_text(prompt) or st.analysis.text
  local unit = info_unit(st, r, text)
  local log, unit_name, unit_attrs
  if unit then
    log = match(st, ctx, unit)
    if log.existing then
      local a = log.existing.attributes or {}
      unit_name = log.existing.name
      unit_attrs = { observations = (tonumber(a.observations) or 1) + 1, last_episode = st.episode_id,
        c_info = math.max(tonumber(a.c_info) or 0, unit.c_info) }
    else
      local _, suffix = ids.stamp()
      unit_name = M.unit_prefix(unit.info_key) .. suffix
      unit_attrs = copy(unit)
      unit_attrs.observations, unit_attrs.first_episode, unit_attrs.last_episode = 1, st.episode_id, st.episode_id
      unit_attrs.grey_zone_of = log.grey_zone_of
    end
    log.existing = nil
    log.unit = unit_name
  end
  local caller = st.caller or {}
  local episode = {
    request = { prompt = st.request.written or st.request.prompt, context = st.request.body or {} },
    caller = { role = caller.role, tenant = caller.tenant, user = caller.user, actor = caller.actor, channel = caller.channel },
    claims = st.claims,
    decision = M.decision(r),
    outcome = r.outcome,
    primary_label = r.weaver.primary_label,
    label_signature = r.weaver.label_signature,
    flags = r.flags,
    ontology_version = r.ontology_version,
    retention_class = (r.outcome == "REFUSE" and "security") or ((r.outcome == "ACTION" or r.action) and "audit") or "standard",
    recorded_at = at,
    request_timestamp = ts,
    info = r.info,
    info_registry = log,
    action = r.action,
    post_check = st.post_check,
    errors = copy(st.errors),
    actor = caller.actor,
    -- the tenants the request was found to name through the tenant directory (replay reads them)
    directory_tenants = M.directory_tenants(st),
  }
  setmetatable(episode.errors, core.array_mt) -- empty lists stay arrays (the copy below keeps metatables)
  if log then setmetatable(log.candidates, core.array_mt); setmetatable(log.method, core.array_mt) end
  kinds = {}
  episode = secrets.redact_value(episode, kinds)
  if #kinds > 0 then
    local seen, list = {}, {}
    for _, k in ipairs(kinds) do if not seen[k] then seen[k] = true; list[#list + 1] = k end end
    local e = { code = "ARG_WRITE_REDACTED", step = "memory",
      message = ("the request carried %s; the episode stores it redacted"):format(table.concat(list, ", ")),
      hint = "Secrets are never stored; this episode cannot be replayed." }
    episode.request.redacted = true
    episode.errors[#episode.errors + 1] = e
    st.errors[#st.errors + 1] = e
  end
  local cmd = { "UPSERT {",
    '  CONCEPT ?e { {type: "ArgEpisode", name: :ep} SET ATTRIBUTES :attrs',
    '    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } }' }
  local params = { ep = st.episode_id, attrs = episode }
  if unit_name then
    cmd[#cmd + 1] = '  CONCEPT ?u { {type: "InfoUnit", name: :iu} SET ATTRIBUTES :uattrs'
    cmd[#cmd + 1] = '    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } }'
    params.iu, params.uattrs = unit_name, unit_attrs
  end
  cmd[#cmd + 1] = '} WITH METADATA { source: "' .. M.SOURCE .. '", author: "$system", access_level: "private", arg_visible: "none" }'
  local _, err = run(nx, ctx, table.concat(cmd, "\n"), params)
  if err then
    st.episode_id = nil
    st.errors[#st.errors + 1] = { code = "ARG_WRITE_REJECTED", step = "memory", message = err.message,
      hint = err.hint or "The episode was not recorded." }
    return
  end
  st.info_registry = log
end

--- the tenants a run found named through the tenant directory (a list)
function M.directory_tenants(st)
  local out = setmetatable({}, core.array_mt)
  for _, t in ipairs((st.entities or {}).tenants or {}) do
    if t.how == "directory" then out[#out + 1] = t.value end
  end
  return out
end

-- ------------------------------------------------------------ action runs
--- the durable record of an action run under idempotency key `key`
--- (ArgActionRun), or nil
function M.action_run(nx, ctx, key)
  local rows = run(nx, ctx, 'FIND(?r) WHERE { ?r {type: "ArgActionRun", name: :k} }', { k = key })
  local row = rows and rows[1]
  if not row then return nil end
  local a = row.attributes or {}
  a._version = (row.metadata or {})._version
  return a
end

--- claim key `key` before running an action: true when this request holds
--- it, false when another request did first. expect: the version of the
--- record being taken over (a failed or stale run), 0 for a new one
function M.claim_action(nx, ctx, key, attrs, expect)
  local _, err = run(nx, ctx, 'UPSERT { CONCEPT ?r { {type: "ArgActionRun", name: :k} EXPECT VERSION :v SET ATTRIBUTES :a '
    .. 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } } } '
    .. 'WITH METADATA { source: "' .. M.SOURCE .. '", author: "$system", access_level: "private", arg_visible: "none" }',
    { k = key, a = attrs, v = expect or 0 })
  if err and err.code == "KIP_3005" then return false end
  if err then return nil, err end
  return true
end

--- what the run of `key` came to (status, output, timings)
function M.finish_action(nx, ctx, key, attrs)
  local _, err = run(nx, ctx, 'UPSERT { CONCEPT ?r { {type: "ArgActionRun", name: :k} SET ATTRIBUTES :a } } '
    .. 'WITH METADATA { source: "' .. M.SOURCE .. '", author: "$system" }', { k = key, a = secrets.redact_value(attrs, {}) })
  return err == nil, err
end

--- the episode called id (operator read), or nil, error
function M.get(nx, id, ctx)
  local rows, err = run(nx, ctx, 'FIND(?e) WHERE { ?e {type: "ArgEpisode", name: :id} }', { id = id })
  if not rows then return nil, err end
  if not rows[1] then
    return nil, { code = "ARG_EPISODE_NOT_FOUND", message = "no episode " .. tostring(id), hint = "List episodes with `kip arg log`." }
  end
  return rows[1]
end

--- episodes, newest first; filter: outcome, label, since (ISO time), limit
function M.list(nx, filter, ctx)
  filter = filter or {}
  local where, params = { '?e {type: "ArgEpisode"}' }, {}
  if filter.outcome then where[#where + 1] = "FILTER(?e.attributes.outcome == :o)"; params.o = filter.outcome end
  if filter.label then where[#where + 1] = "FILTER(?e.attributes.primary_label == :l)"; params.l = filter.label end
  if filter.since then where[#where + 1] = "FILTER(?e.attributes.recorded_at >= :s)"; params.s = filter.since end
  if filter.requests then where[#where + 1] = 'FILTER(IS_NULL(?e.attributes.kind) || ?e.attributes.kind != "feedback")' end
  local limit = math.floor(tonumber(filter.limit) or 50)
  -- newest first: episodes are never changed, so their commit time (to the
  -- millisecond) is when they were recorded; recorded_at has whole seconds
  return run(nx, ctx, "FIND(?e) WHERE { " .. table.concat(where, " ") .. " } ORDER BY ?e.metadata._updated_at DESC, ?e.name DESC LIMIT "
    .. limit, params)
end

--- record a verification signal for an episode (step 9: the only path to
--- INFO_CONFIRMED_SUCCESS): a new ArgEpisode of kind feedback that points
--- at the episode — the original stays as it was (append-only).
--- fb = {verified = true|false, note = "...", label = "the right LabelID"}
--- (a label is a correction: the offline loop's strongest signal)
function M.feedback(nx, id, fb, opts)
  opts = opts or {}
  local ep, err = M.get(nx, id, opts.ctx)
  if not ep then return nil, err end
  if type(fb) ~= "table" or type(fb.verified) ~= "boolean" then
    return nil, { code = "ARG_REQUEST_INVALID", message = "feedback needs verified = true or false",
      hint = "kip arg feedback EPISODE --verified | --failed [--note TEXT]" }
  end
  local at, suffix = ids.stamp()
  local status = fb.verified and "INFO_CONFIRMED_SUCCESS" or "INFO_LOW_CONFIDENCE"
  local _, err2 = run(nx, opts.ctx, 'UPSERT { CONCEPT ?f { {type: "ArgEpisode", name: :n} SET ATTRIBUTES :a '
    .. 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } } } '
    .. 'WITH METADATA { source: "' .. M.SOURCE .. '", author: "$system", access_level: "private", arg_visible: "none" }',
    { n = "fb-" .. id .. "-" .. suffix, a = { kind = "feedback", feedback_of = id, verified = fb.verified,
      note = secrets.redact_value(fb.note, {}), label = type(fb.label) == "string" and fb.label or nil,
      info_outcome_status = status, recorded_at = at, outcome = "FEEDBACK", ontology_version = (ep.attributes or {}).ontology_version,
      retention_class = "audit", request = {}, decision = {}, actor = (opts.ctx or nx.ctx or {}).actor } })
  if err2 then return nil, err2 end
  return { episode = id, info_outcome_status = status }
end

--- declare the subsystem's guards, apply the ARG schema capsule (as the
--- publisher) and, when opts.ontology names a file, publish it as the
--- first version (validated as a whole; kip.arg.offline.publish.file).
--- Running it again with the same file changes nothing.
function M.init(nx, opts)
  opts = opts or {}
  local ok, gerr = guards.declare(nx)
  if not ok then return nil, { code = "ARG_PUBLISH_FAILED", step = "init", message = "declaring the guards: " .. tostring(gerr), hint = "" } end
  local publish = require "kip.arg.offline.publish"
  if opts.ontology then -- the file must be readable before anything is applied
    local f = io.open(opts.ontology, "rb")
    if not f then
      return nil, { code = "ARG_ONTOLOGY_INVALID", step = "init", message = "cannot read the ontology file " .. opts.ontology,
        hint = "Check the path; nothing was applied." }
    end
    f:close()
  end
  local sok, serr = guards.apply_schema(nx, opts.ctx)
  if not sok then return nil, serr end
  local version = require("kip.arg.snapshot").version(nx)
  if opts.ontology then
    local r, err = publish.file(nx, opts.ontology, { first = true, ctx = opts.ctx })
    if not r then return nil, err end
    return { version = r.version, unchanged = r.unchanged, content_hash = r.content_hash, warnings = r.warnings }
  end
  return { version = version }
end

return M
