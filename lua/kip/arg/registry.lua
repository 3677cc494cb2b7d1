--- kip.arg.registry — the episodic registry of the ARG online loop (seed 003
--- step 10 "MemoryWrite", "Info Canonicalization & Dedup", §4.1; docs/arg.md
--- "Episodic registry").
---
--- One ArgEpisode per request, written after the outcome is decided and
--- through the nexus's governed pipeline (the post-check and memory guards
--- of the policies apply; policies/arg.lua makes episodes append-only), in
--- ONE KIP command together with its Info Registry change — so the episode
--- and the unit it touched commit together or not at all. The episode holds
--- the request as received and the decision record replay must reproduce.
--- Episodes and units are private facts (access_level "private"): agents
--- never read them through KIP; operators do (kip arg log / replay).
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
    policy = r.policy and { state = r.policy.state, reasons = r.policy.reasons } or nil,
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

-- InfoUnit candidate of a result (ANSWER and ACTION only)
local function info_unit(st, r)
  if r.outcome ~= "ANSWER" and r.outcome ~= "ACTION" then return nil end
  local c = st.request.context or {}
  local scope = ("tenant:%s/role:%s"):format(c.workspace or "staff", c.role or "unknown")
  local info_type = r.outcome == "ACTION" and "ACTION" or (r.weaver.retrieval_type or "DOMAIN")
  local words = {}
  for _, s in ipairs(lex.stems(st.analysis.text)) do words[#words + 1] = s end
  local prov = {}
  for _, u in ipairs(r.bundle or {}) do prov[#prov + 1] = (u.source == "external" and "connector:" or "node:") .. u.node end
  if r.action then prov[#prov + 1] = "action:" .. r.action.name end
  local key = table.concat({ info_type, scope, r.weaver.label_signature or "" }, "|")
  return { info_key = key, info_type = info_type, access_scope = scope, label_signature = r.weaver.label_signature,
    info_text = table.concat(words, " "), provenance = prov, c_info = r.info and r.info.c_info or 0,
    info_outcome_status = r.info and r.info.info_outcome_status or "INFO_LOW_CONFIDENCE" }
end

local function run(nx, ctx, cmd, params)
  local resp = nx:execute(cmd, params, { ctx = ctx })
  if resp.error then return nil, resp.error end
  return resp.result
end

-- two-phase match inside the key; returns the match log and the unit write
local function match(st, ctx, unit)
  local nx = st.nx
  local rows, err = run(nx, ctx, 'FIND(?u) WHERE { ?u {type: "InfoUnit"} FILTER(?u.attributes.info_key == :k) } '
    .. "ORDER BY ?u.name LIMIT " .. M.TOP_K, { k = unit.info_key })
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
  local at, suffix = ids.stamp()
  local ts = (st.request.context or {}).timestamp
  local r = require("kip.arg").result(st)
  -- the registry writes its own private records: as the operator (no scope
  -- hides them; the policies' content checks and guards still apply)
  local ctx = copy(st.ctx)
  ctx.operator = true
  local unit = info_unit(st, r)
  local log, unit_name, unit_attrs
  if unit then
    log = match(st, ctx, unit)
    if log.existing then
      local a = log.existing.attributes or {}
      unit_name = log.existing.name
      unit_attrs = { observations = (tonumber(a.observations) or 1) + 1, last_episode = st.episode_id,
        c_info = math.max(tonumber(a.c_info) or 0, unit.c_info) }
    else
      unit_name = "iu-" .. require("kip.arg.snapshot").hash(unit.info_key) .. "-" .. suffix
      unit_attrs = copy(unit)
      unit_attrs.observations, unit_attrs.first_episode, unit_attrs.last_episode = 1, st.episode_id, st.episode_id
      unit_attrs.grey_zone_of = log.grey_zone_of
    end
    log.existing = nil
    log.unit = unit_name
  end
  local decision = M.decision(r)
  local episode = {
    request = { prompt = st.request.prompt, context = st.request.context },
    decision = decision,
    outcome = r.outcome,
    primary_label = r.weaver.primary_label,
    label_signature = r.weaver.label_signature,
    flags = r.flags,
    ontology_version = r.ontology_version,
    retention_class = (r.outcome == "REFUSE" and "security") or (r.outcome == "ACTION" and "audit") or "standard",
    recorded_at = at,
    request_timestamp = ts,
    info = r.info,
    info_registry = log,
    errors = st.errors,
    actor = ctx.actor,
  }
  setmetatable(episode.errors, core.array_mt)
  if log then setmetatable(log.candidates, core.array_mt); setmetatable(log.method, core.array_mt) end
  local cmd = { "UPSERT {",
    '  CONCEPT ?e { {type: "ArgEpisode", name: :ep} SET ATTRIBUTES :attrs',
    '    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } }' }
  local params = { ep = st.episode_id, attrs = episode }
  if unit_name then
    cmd[#cmd + 1] = '  CONCEPT ?u { {type: "InfoUnit", name: :iu} SET ATTRIBUTES :uattrs'
    cmd[#cmd + 1] = '    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } }'
    params.iu, params.uattrs = unit_name, unit_attrs
  end
  cmd[#cmd + 1] = '} WITH METADATA { source: "' .. M.SOURCE .. '", author: "$system", access_level: "private" }'
  local text = table.concat(cmd, "\n")
  local resp = nx:execute(text, params, { ctx = ctx })
  if resp.error then
    -- a memory guard refused it (e.g. the prompt carries a secret): keep the
    -- record without the request text; replay is then not possible
    episode.request = { redacted = true, reason = resp.error.message, context = st.request.context }
    episode.errors = copy(st.errors)
    table.insert(episode.errors, { code = "ARG_WRITE_REDACTED", step = "memory", message = resp.error.message,
      hint = "The request text was not stored; this episode cannot be replayed." })
    resp = nx:execute(text, params, { ctx = ctx })
    if resp.error then
      st.episode_id = nil
      st.errors[#st.errors + 1] = { code = "ARG_WRITE_REJECTED", step = "memory", message = resp.error.message,
        hint = resp.error.hint or "The episode was not recorded." }
      return
    end
  end
  st.info_registry = log
end

--- the episode called id (operator read), or nil, error
function M.get(nx, id, ctx)
  local c = copy(ctx or nx.ctx)
  c.operator = true
  local rows, err = run(nx, c, 'FIND(?e) WHERE { ?e {type: "ArgEpisode", name: :id} }', { id = id })
  if not rows then return nil, err end
  if not rows[1] then
    return nil, { code = "ARG_EPISODE_NOT_FOUND", message = "no episode " .. tostring(id), hint = "List episodes with `kip arg log`." }
  end
  return rows[1]
end

--- episodes, newest first; filter: outcome, label, since (ISO time), limit
function M.list(nx, filter, ctx)
  filter = filter or {}
  local c = copy(ctx or nx.ctx)
  c.operator = true
  local where, params = { '?e {type: "ArgEpisode"}' }, {}
  if filter.outcome then where[#where + 1] = "FILTER(?e.attributes.outcome == :o)"; params.o = filter.outcome end
  if filter.label then where[#where + 1] = "FILTER(?e.attributes.primary_label == :l)"; params.l = filter.label end
  if filter.since then where[#where + 1] = "FILTER(?e.attributes.recorded_at >= :s)"; params.s = filter.since end
  local limit = math.floor(tonumber(filter.limit) or 50)
  return run(nx, c, "FIND(?e) WHERE { " .. table.concat(where, " ") .. " } ORDER BY ?e.attributes.recorded_at DESC, ?e.name DESC LIMIT "
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
  local ctx = copy(opts.ctx or nx.ctx)
  ctx.operator = true
  local resp = nx:execute('UPSERT { CONCEPT ?f { {type: "ArgEpisode", name: :n} SET ATTRIBUTES :a '
    .. 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } } } '
    .. 'WITH METADATA { source: "' .. M.SOURCE .. '", author: "$system", access_level: "private" }',
    { n = "fb-" .. id .. "-" .. suffix, a = { kind = "feedback", feedback_of = id, verified = fb.verified, note = fb.note,
      label = type(fb.label) == "string" and fb.label or nil,
      info_outcome_status = status, recorded_at = at, outcome = "FEEDBACK", ontology_version = (ep.attributes or {}).ontology_version,
      retention_class = "audit", request = {}, decision = {} } }, { ctx = ctx })
  if resp.error then return nil, resp.error end
  return { episode = id, info_outcome_status = status }
end

--- apply the ARG schema capsule and, when opts.ontology names a file, import
--- it as the publisher and raise the ontology version (one publish)
function M.init(nx, opts)
  opts = opts or {}
  local transfer = require "kip.transfer"
  local ctx = require("kip.arg.offline.publish").ctx(nx)
  local function apply(path)
    local text, rerr = require("kip.sandbox").read_file(path)
    if not text then return nil, "cannot read " .. path .. ": " .. tostring(rerr) end
    local stats = transfer.apply(nx, text, { ctx = ctx, on_error = function(line, e)
      io.stderr:write(("%s:%d: %s %s\n"):format(path, line, tostring(e.code), tostring(e.message)))
    end })
    if stats.failed > 0 then return nil, ("%s: %d statement(s) failed"):format(path, stats.failed) end
    return stats
  end
  local ok, err = apply(require("kip").home() .. "/capsules/arg/ArgSchema.kip")
  if not ok then return nil, err end
  local version = require("kip.arg.snapshot").version(nx)
  if opts.ontology then
    ok, err = apply(opts.ontology)
    if not ok then return nil, err end
    version = version + 1
    local resp = nx:execute('UPSERT { CONCEPT ?d { {type: "Domain", name: "ArgOntology"} SET ATTRIBUTES { version: :v } } } '
      .. 'WITH METADATA { source: "kipnexus:arg_publish", author: "$system" }', { v = version }, { ctx = ctx })
    if resp.error then return nil, resp.error.message end
    nx._arg_snapshots = nil
    -- the version's content, for rollback and replay (kip.arg.offline)
    local rec, rerr = require("kip.arg.offline.publish").record_current(nx, ctx, "imported from " .. opts.ontology)
    if not rec then return nil, type(rerr) == "table" and rerr.message or tostring(rerr) end
  end
  return { version = version }
end

return M
