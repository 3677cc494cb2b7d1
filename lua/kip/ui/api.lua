--- kip.ui.api — the inspector's JSON endpoints (issue 41; docs/ui.md),
--- independent of the transport: `kip ui`'s own server (kip.ui.server) and
--- the nginx location (kip.ui.nginx) both call M.handle. Every read goes
--- through the nexus's governed pipeline as the viewer (view.ctx: the
--- identity the host authenticated), so a page shows exactly what that
--- identity may read with KIP; the console runs read-only unless the host
--- turned writes on (view.writes). What is the operator's (the ARG
--- registry and offline loop, a sleep cycle's dry run, the policy decision
--- log, promotions) needs view.ctx.operator, which only the host sets.
local core = require "kip.core"
local graph = require "kip.ui.graph"

local M = {}

local function json(status, v) return status, "application/json", core.json_encode(v) end
local function fail(status, code, message, hint)
  return json(status, { error = { code = code, message = message, hint = hint or "" } })
end
local function kip_error(e, status) return json(status or 200, { error = e }) end

local function read_opts(view) return { readonly = true, ctx = view.ctx } end

-- a subsystem this nexus does not hold yet (its types are not defined): the
-- page says what to run instead of naming an undefined type
local function not_set_up(err) return err and err.code == "KIP_2001" and tostring(err.message):match("type '.-' is not defined") end
local ABSENT = {
  arg = { code = "ARG_BIND_NO_ONTOLOGY", message = "this nexus has no ARG ontology and no episodes yet",
    hint = "Publish an ontology with kip arg init --ontology FILE.kip (docs/arg.md); episodes appear as requests are asked." },
  mind = { code = "KIP_3002", message = "this nexus has no mind model yet", hint = "Run kip mind init once (docs/mind.md)." },
}

-- handler h, answered only to the operator (view.ctx.operator, set by the host)
local function operator_only(what, h)
  return function(nx, view, req)
    if not view.ctx.operator then
      return kip_error({ code = "KIP_3004", message = what .. " is the operator's view",
        hint = "Start the inspector as the operator (kip ui --operator) or use the operator's location (docs/ui.md)." })
    end
    return h(nx, view, req)
  end
end

-- a whole number, or nil (math.tointeger is not in LuaJIT, which runs this under nginx)
local function whole(v)
  local n = tonumber(v)
  if n and n == math.floor(n) then return n end
end

local function int(v, default, lo, hi)
  local n = math.floor(tonumber(v) or default)
  return math.max(lo, math.min(hi, n))
end

local H = {} -- "METHOD /path" -> function(nx, view, req) -> status, type, body

H["GET /api/info"] = function(nx, view)
  local ctx = {}
  for k, v in pairs(view.ctx) do if type(v) ~= "function" then ctx[k] = v end end
  return json(200, { version = core.version, nexus = nx.path and nx.path:match("[^/]+$") or "memory",
    identity = ctx, operator = view.ctx.operator == true, writes = view.writes == true,
    vendor = view.vendor or {} })
end

H["GET /api/describe"] = function(nx, view)
  local vocabulary = require "kip.vocabulary"
  local types, predicates = vocabulary.schema_names(nx, read_opts(view))
  return json(200, { keywords = vocabulary.KEYWORDS, concept_types = types, predicates = predicates })
end

H["GET /api/search"] = function(nx, view, req)
  local q = req.query
  if not q.q or q.q == "" then return fail(400, "KIP_1001", "search needs q", "GET /api/search?q=words[&mode=keyword|semantic|hybrid]") end
  local mode = q.mode
  if mode and not (mode == "keyword" or mode == "semantic" or mode == "hybrid") then
    return fail(400, "KIP_1001", "unknown mode " .. mode, "keyword, semantic or hybrid")
  end
  local what = q.what == "proposition" and "PROPOSITION" or "CONCEPT"
  local cmd = "SEARCH " .. what .. " :q" .. (q.type and q.type ~= "" and " WITH TYPE :t" or "")
    .. (mode and " MODE :m" or "") .. " LIMIT " .. int(q.limit, 20, 1, 100)
  local r = nx:execute(cmd, { q = q.q, t = q.type ~= "" and q.type or nil, m = mode }, read_opts(view))
  return json(200, r)
end

H["GET /api/element"] = function(nx, view, req)
  local e, err = graph.element(nx, req.query.id, read_opts(view))
  if not e then return kip_error(err) end
  return json(200, { result = e })
end

H["GET /api/neighbourhood"] = function(nx, view, req)
  local q = req.query
  local r, err = graph.neighbourhood(nx, q.id, { hops = q.hops, predicate = q.predicate ~= "" and q.predicate or nil,
    type = q.type ~= "" and q.type or nil, per_node = q.per_node, max_nodes = q.max_nodes }, read_opts(view))
  if not r then return kip_error(err) end
  return json(200, { result = r })
end

-- the console: one KIP request as the viewer
H["POST /api/kip"] = function(nx, view, req)
  local body = req.json
  if type(body) ~= "table" or type(body.command) ~= "string" then
    return fail(400, "KIP_1001", "send {\"command\": \"...\", \"parameters\": {...}}")
  end
  local request = { command = body.command, parameters = body.parameters }
  if body.dry_run then request.dry_run = true end
  local readonly = not view.writes
  local text = nx:call_json(core.json_encode(request), { readonly = readonly, ctx = view.ctx })
  return 200, "application/json", require("kip.text").cap_response(text, view.max_response or 1024 * 1024)
end

H["POST /api/explain"] = function(nx, _, req)
  local body = req.json
  if type(body) ~= "table" or type(body.command) ~= "string" then return fail(400, "KIP_1001", "send {\"command\": \"FIND ...\"}") end
  local r, err = nx:explain(body.command, body.parameters)
  if not r then return kip_error(err) end
  return json(200, { result = r })
end

-- ------------------------------------------------------------------ ARG
local function registry() return require("kip.arg.registry") end

H["GET /api/arg/episodes"] = operator_only("The ARG registry", function(nx, view, req)
  local q = req.query
  local rows, lerr = registry().list(nx, { outcome = q.outcome ~= "" and q.outcome or nil,
    label = q.label ~= "" and q.label or nil, since = q.since ~= "" and q.since or nil,
    limit = int(q.limit, 50, 1, 500) }, view.ctx)
  if not rows then return kip_error(not_set_up(lerr) and ABSENT.arg or lerr) end
  local out = {}
  for _, e in ipairs(rows) do
    local a = e.attributes or {}
    local d = type(a.decision) == "table" and a.decision or {}
    out[#out + 1] = { id = e.name, at = a.recorded_at, outcome = a.outcome, label = a.primary_label,
      version = a.ontology_version, kind = a.kind, prompt = type(a.request) == "table" and a.request.prompt or nil,
      caller = a.caller, flags = type(d.weaver) == "table" and d.weaver.flags or nil }
  end
  return json(200, { result = setmetatable(out, core.array_mt) })
end)

H["GET /api/arg/episode"] = operator_only("The ARG registry", function(nx, view, req)
  local e, gerr = registry().get(nx, req.query.id, view.ctx)
  if not e then return kip_error(gerr) end
  return json(200, { result = e })
end)

H["POST /api/arg/replay"] = operator_only("Replay", function(nx, view, req)
  local id = type(req.json) == "table" and req.json.id
  local r, rerr = require("kip.arg").replay(nx, id, { ctx = view.ctx })
  if not r then return kip_error(rerr) end
  return json(200, { result = r })
end)

-- the offline loop: staged candidates, published versions, metrics
H["GET /api/arg/offline"] = operator_only("The ARG offline loop", function(nx, view)
  local offline = require "kip.arg.offline"
  local cands, cerr = offline.candidates(nx, {}, { ctx = view.ctx })
  if not_set_up(cerr) then return kip_error(ABSENT.arg) end
  local versions, verr = offline.versions(nx, { ctx = view.ctx })
  local metrics, merr = offline.metrics(nx, { ctx = view.ctx })
  return json(200, { result = { candidates = cands or { error = cerr }, versions = versions or { error = verr },
    metrics = metrics or { error = merr } } })
end)

H["GET /api/arg/version"] = operator_only("The ARG versions", function(nx, view, req)
  local publish = require "kip.arg.offline.publish"
  local n = whole(req.query.version)
  local rec, rerr = publish.version_record(nx, n, publish.ctx(nx, view.ctx))
  if not rec then return kip_error(rerr or { code = "KIP_3002", message = "no version " .. tostring(req.query.version) }) end
  local prev = n and n > 1 and publish.version_record(nx, n - 1, publish.ctx(nx, view.ctx)) or nil
  local diff = prev and require("kip.arg.offline.apply").diff(prev.content, rec.content) or nil
  local meta = {}
  for k, v in pairs(rec) do if k ~= "content" then meta[k] = v end end
  return json(200, { result = { version = meta, previous = prev and prev.version or nil, diff = diff } })
end)

-- a person's review of a staged candidate (approve | reject, with a reason)
H["POST /api/arg/review"] = operator_only("A review", function(nx, view, req)
  local b = type(req.json) == "table" and req.json or {}
  local r, rerr = require("kip.arg.offline").review(nx, b.candidate, b.decision, b.reason, { ctx = view.ctx })
  if not r then return kip_error(rerr) end
  return json(200, { result = r })
end)

-- publish and rollback: the operator's, audited in the version record (its
-- actor is the viewer) and in the inspector's log
H["POST /api/arg/publish"] = operator_only("Publishing", function(nx, view, req)
  local r, perr = require("kip.arg.offline").publish(nx, { dry_run = type(req.json) == "table" and req.json.dry_run == true,
    ctx = view.ctx })
  if not r then return kip_error(perr) end
  return json(200, { result = r })
end)

H["POST /api/arg/rollback"] = operator_only("A rollback", function(nx, view, req)
  local n = type(req.json) == "table" and whole(req.json.version)
  if not n then return kip_error({ code = "KIP_1001", message = "a rollback needs {\"version\": N}" }) end
  local r, rerr = require("kip.arg.offline").rollback(nx, n, { dry_run = req.json.dry_run == true, ctx = view.ctx })
  if not r then return kip_error(rerr) end
  return json(200, { result = r })
end)

-- ---------------------------------------------------------------- sleep
H["GET /api/sleep/cycles"] = function(nx, view, req)
  local rows, err = nx:query('FIND(?r.name, ?r.attributes.now, ?r.attributes.status, ?r.attributes.trigger, ' ..
    '?r.attributes.writes, ?r.attributes.flagged_count, ?r.attributes.errors, ?r.attributes.metrics_after) ' ..
    'WHERE { ?r {type: "SleepCycle"} } ORDER BY ?r.name DESC LIMIT ' .. int(req.query.limit, 50, 1, 500), nil, read_opts(view))
  if not rows and not_set_up(err) then rows = {} end -- no cycle has run on this nexus
  if not rows then return kip_error(err) end
  local out = {}
  for i, name in ipairs(rows[1] or {}) do
    -- the memory's size after the cycle: its Domains' members
    local size
    local m = rows[8][i]
    if type(m) == "table" and type(m.domain_sizes) == "table" then
      size = 0
      for _, n in pairs(m.domain_sizes) do size = size + (tonumber(n) or 0) end
    end
    out[i] = { name = name, now = rows[2][i], status = rows[3][i], trigger = rows[4][i], writes = rows[5][i],
      flagged = rows[6][i], errors = rows[7][i], size = size }
  end
  -- SleepTasks waiting for a cycle, and those that failed
  local tasks = nx:query('FIND(?t) WHERE { ?t {type: "SleepTask"} FILTER(?t.attributes.status == "pending" || ' ..
    '?t.attributes.status == "failed" || ?t.attributes.status == "in_progress") } ORDER BY ?t.name LIMIT 200', nil, read_opts(view))
  return json(200, { result = setmetatable(out, core.array_mt), tasks = setmetatable(tasks or {}, core.array_mt) })
end

H["GET /api/sleep/cycle"] = function(nx, view, req)
  local rows, err = nx:query('FIND(?r) WHERE { ?r {type: "SleepCycle", name: :n} }', { n = req.query.name }, read_opts(view))
  if not rows then return kip_error(err) end
  if not rows[1] then return kip_error({ code = "KIP_3002", message = "no sleep cycle " .. tostring(req.query.name) }) end
  -- the first pages of what the record could not hold (the types exist once a cycle needed them)
  local function pages(t, what)
    local r = nx:query(('FIND(?p.attributes.%s) WHERE { ?p {type: "%s"} FILTER(?p.attributes.cycle == :n) } ' ..
      'ORDER BY ?p.attributes.page LIMIT %d'):format(what, t, int(req.query.pages, 3, 0, 100)), { n = req.query.name }, read_opts(view))
    local out = setmetatable({}, core.array_mt)
    for _, page in ipairs(r or {}) do for _, item in ipairs(page) do out[#out + 1] = item end end
    return out
  end
  return json(200, { result = rows[1], flagged_pages = pages("SleepCycleFlags", "flagged"),
    change_pages = pages("SleepCycleChanges", "changes") })
end

H["POST /api/sleep/dry-run"] = operator_only("A sleep cycle", function(nx, view)
  local report = require("kip.sleep").run(nx, { dry_run = true, caller = view.ctx })
  local planned = {}
  for i, p in ipairs(report.planned or {}) do
    if i > 500 then break end
    planned[i] = p
  end
  return json(200, { result = { phases = report.phases, flagged = #(report.flagged or {}), planned = setmetatable(planned, core.array_mt),
    planned_count = #(report.planned or {}) } })
end)

-- ----------------------------------------------------------------- mind
H["GET /api/mind/items"] = function(nx, view, req)
  local q = req.query
  local where = { '?k {type: "Knowledge"}' }
  local params = {}
  if q.tier and q.tier ~= "" then where[#where + 1] = "FILTER(?k.attributes.tier == :tier)" params.tier = q.tier end
  if q.status and q.status ~= "" then where[#where + 1] = "FILTER(?k.attributes.status == :status)" params.status = q.status end
  local rows, err = nx:query('FIND(?k.name, ?k.attributes.tier, ?k.attributes.status, ?k.attributes.statement) WHERE { ' ..
    table.concat(where, " ") .. ' } ORDER BY ?k.name LIMIT ' .. int(q.limit, 200, 1, 1000), params, read_opts(view))
  if not rows then return kip_error(not_set_up(err) and ABSENT.mind or err) end
  local out = {}
  for i, name in ipairs(rows[1] or {}) do
    out[i] = { name = name, tier = rows[2][i], status = rows[3][i], statement = rows[4][i] }
  end
  return json(200, { result = setmetatable(out, core.array_mt) })
end

H["GET /api/mind/item"] = function(nx, view, req)
  local ops = require "kip.mind.ops"
  local name = req.query.name
  local k = ops.knowledge(nx, name, view.ctx)
  if not k then return kip_error({ code = "KIP_3002", message = "no knowledge item " .. tostring(name) .. " (or not visible to you)" }) end
  local gate, gerr = ops.gate(nx, { name = name, ctx = view.ctx })
  local events = ops.events(nx, { name = name, ctx = view.ctx })
  return json(200, { result = { item = k, evidence = ops.evidence(nx, name, view.ctx), gate = gate or { error = gerr },
    events = events } })
end

-- promotion through the item's gate, citing evidence per role (kip mind
-- promote): the operator's inspector, and the mind model's own rule on top
-- (a human role of the gates' policy, e.g. reviewer: kip ui --operator --role reviewer)
H["POST /api/mind/promote"] = operator_only("A promotion", function(nx, view, req)
  local b = type(req.json) == "table" and req.json or {}
  local function list(v)
    if type(v) == "string" then v = { v } end
    local out = {}
    for _, x in ipairs(type(v) == "table" and v or {}) do if type(x) == "string" and x ~= "" then out[#out + 1] = x end end
    return #out > 0 and out or nil
  end
  local r, perr = require("kip.mind.ops").promote(nx, { name = b.name, verification = list(b.verification),
    teaching = list(b.teaching), supporting = list(b.supporting), reason = b.reason, ctx = view.ctx })
  if not r then return kip_error(perr) end
  return json(200, { result = r })
end)

-- the context an agent would get for a task (kip mind context)
H["GET /api/mind/context"] = function(nx, view, req)
  local q = req.query
  local r, err = require("kip.mind.context").assemble(nx, { query = q.q ~= "" and q.q or nil, ctx = view.ctx,
    limit = int(q.limit, 5, 1, 50), include_evidence = q.evidence == "1" })
  if not r then return kip_error(err) end
  return json(200, { result = r })
end

-- gate pass rates: per tier, how many items' gates are met now (at most
-- `limit` items, each a gate evaluation)
H["GET /api/mind/gates"] = function(nx, view, req)
  local ops = require "kip.mind.ops"
  local rows, err = nx:query('FIND(?k.name, ?k.attributes.tier) WHERE { ?k {type: "Knowledge"} ' ..
    'FILTER(?k.attributes.status == "candidate" || ?k.attributes.status == "promoted") } ORDER BY ?k.name LIMIT ' ..
    int(req.query.limit, 200, 1, 1000), nil, read_opts(view))
  if not rows then return kip_error(not_set_up(err) and ABSENT.mind or err) end
  local tiers = {}
  for i, name in ipairs(rows[1] or {}) do
    local tier = rows[2][i]
    local t = tiers[tier] or { tier = tier, items = 0, ready = 0 }
    tiers[tier] = t
    t.items = t.items + 1
    local g = ops.gate(nx, { name = name, ctx = view.ctx })
    if g and g.ready then t.ready = t.ready + 1 end
  end
  local out = {}
  for _, t in pairs(tiers) do out[#out + 1] = t end
  table.sort(out, function(a, b) return tostring(a.tier) < tostring(b.tier) end)
  return json(200, { result = setmetatable(out, core.array_mt) })
end

-- ------------------------------------------------------------- policies
H["GET /api/policies"] = function(nx, view)
  local out = {}
  local set = nx.policies
  for _, p in ipairs(set and set:list() or {}) do
    -- its version: the one it declares, else a hash of the text loaded (a hot reload changes it)
    local version = p.version or (type(p.source) == "string" and ("text " .. require("kip.text").hash(p.source))) or nil
    out[#out + 1] = { name = p.name, version = version, priority = p.priority, description = p.description,
      path = p.path, hooks = { pre_check = p.pre_check ~= nil, post_check = p.post_check ~= nil } }
  end
  local errors = {}
  for name, e in pairs(set and set.errors or {}) do errors[#errors + 1] = { name = name, error = e } end
  -- what the policies refused, warned about or changed (kip.policy_log), as
  -- the operator sees it: the log names callers, so other viewers see counts only
  local decisions, counts = require("kip.policy_log").recent(nx, view.ctx.operator and 200 or 0)
  return json(200, { result = { governed = set ~= nil, policies = setmetatable(out, core.array_mt),
    reload_errors = setmetatable(errors, core.array_mt), checked_at = set and set.checked ~= -math.huge and set.checked or nil,
    reload_interval = set and set.interval or nil, decisions = decisions, counts = counts,
    decisions_visible = view.ctx.operator == true } })
end

--- handle one request. req: {method, path (under the inspector's root),
--- query = {name = value}, body (text)}; view: {ctx (the authenticated
--- viewer), writes, vendor}. Returns status, content type, body.
function M.handle(nx, req, view)
  local h = H[req.method .. " " .. req.path]
  if not h then
    local known = false
    for k in pairs(H) do if k:match("^%u+ (.*)$") == req.path then known = true end end
    if known then return fail(405, "KIP_1001", req.method .. " is not allowed on " .. req.path) end
    return fail(404, "KIP_1001", "no endpoint " .. req.path, "The inspector's endpoints are listed in docs/ui.md.")
  end
  if req.method == "POST" then
    local decoded = req.body and req.body ~= "" and core.json_decode_request(req.body)
    if decoded == nil or decoded == false then return fail(400, "KIP_1001", "the request body is not JSON") end
    req.json = decoded
  end
  local ok, status, ctype, body = pcall(h, nx, view, req)
  if not ok then
    return fail(500, "KIP_4003", "the inspector failed: " .. tostring(status), "This is a bug; the server log has the request.")
  end
  return status, ctype, body
end

M.ENDPOINTS = H
return M
