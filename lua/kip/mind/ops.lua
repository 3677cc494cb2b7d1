--- kip.mind.ops — the lifecycle operations of the mind model (seed 004 "Four
--- Core Operations", "Minimal Interface Surface", Phase-2 events; docs/mind.md):
--- record, distill, link, gate, promote, demote, retire, publish_anchor, events.
---
--- Every write is KIP through the nexus's governed pipeline with ctx.mind_op
--- set, the mark policies/mind.lua requires before it lets Knowledge change;
--- each operation is one KIP command, so the Knowledge change, its evidence
--- links and the KnowledgeEvent recording it commit together or not at all.
--- Evidence refs must name existing Evidence (never Knowledge, never unknown
--- ids); gates are deterministic (kip.mind.gates); the caller never scores
--- confidence; a reviewer is the caller's `reviewer` role, never a field.
--- Operations return a result table, or nil and {code, message, hint}.
local core = require "kip.core"
local anchor = require "kip.mind.anchor"
local gates = require "kip.mind.gates"

local M = {}

M.TIERS = { qi = true, shu = true, dao_ren = true, dao_tian = true }
M.DOMAINS = { project = true, agent = true, skill = true, global = true }
M.PROVENANCE = { runtime = true, research = true, human = true }
M.ROLE_LINKS = { supporting = "supports", verification = "verifies", teaching = "teaches", counterexample = "counterexample_of" }

local function err(code, message, hint) return nil, { code = code, message = message, hint = hint or "" } end

local stamp = require("kip.ids").stamp

local function slug(s) return (s:lower():gsub("[^%w]+", "-"):gsub("^%-+", ""):gsub("%-+$", "")):sub(1, 60) end

-- the caller's context for an operation: the nexus default, the caller's,
-- and the operation mark (which no request can carry)
local function ctx_for(nx, opts, op)
  local ctx = {}
  for k, v in pairs(nx.ctx or {}) do ctx[k] = v end
  for k, v in pairs(opts.ctx or {}) do ctx[k] = v end
  ctx.mind_op = op
  return ctx
end

local function run(nx, ctx, command, params)
  local r = nx:execute(command, params, { ctx = ctx })
  if r.error then return nil, { code = r.error.code, message = r.error.message, hint = r.error.hint } end
  return r.result
end

local function read(nx, ctx, command, params)
  local c = {}
  for k, v in pairs(ctx) do c[k] = v end
  c.mind_op = nil
  return run(nx, c, command, params)
end

--- the Knowledge item called name, or nil
function M.knowledge(nx, name, ctx)
  local r = read(nx, ctx or {}, 'FIND(?k) WHERE { ?k {type: "Knowledge", name: :n} }', { n = name })
  return r and r[1]
end

-- the Knowledge item an operation names, or nil, KIP_3002
local function existing(nx, name, ctx)
  local k = M.knowledge(nx, name, ctx)
  if not k then return err("KIP_3002", ("no Knowledge called %q"):format(tostring(name))) end
  return k
end

-- refs -> list of Evidence names; every ref must be an existing Evidence
local function evidence_refs(nx, ctx, refs, what)
  local out, seen = {}, {}
  if refs == nil then return out end
  if type(refs) == "string" then refs = { refs } end
  if type(refs) ~= "table" then return err("KIP_2003", what .. " must be a list of Evidence names") end
  for _, ref in ipairs(refs) do
    if type(ref) ~= "string" or ref == "" then return err("KIP_2003", what .. " must be a list of Evidence names") end
    local byid = ref:match("^C:%d+$")
    local rows = read(nx, ctx, byid and "FIND(?e) WHERE { ?e {id: :r} }" or "FIND(?e) WHERE { ?e {name: :r} }", { r = ref }) or {}
    local ev
    for _, e in ipairs(rows) do if e.type == "Evidence" then ev = e end end
    if not ev then
      if #rows > 0 then
        return err("KIP_2001", ("%s: %q is a %s, not Evidence"):format(what, ref, rows[1].type or "proposition"),
          "Promotion and demotion are justified by evidence: record it (kip mind record) and cite the Evidence.")
      end
      return err("KIP_3002", ("%s: no Evidence called %q"):format(what, ref), "Record the evidence first (kip mind record).")
    end
    if not seen[ev.name] then
      seen[ev.name] = true
      out[#out + 1] = ev.name
    end
  end
  return out
end

-- the evidence of Knowledge name by role: {supporting = {names}, ...}
function M.evidence(nx, name, ctx)
  local by_role = {}
  for role, pred in pairs(M.ROLE_LINKS) do
    local rows = read(nx, ctx or {}, 'FIND(?e.name, ?e.attributes.source_ref) WHERE { ?k {type: "Knowledge", name: :n} (?e, ' ..
      core.json_encode(pred) .. ', ?k) ?e {type: "Evidence"} } ORDER BY ?e.name', { n = name }) or { {}, {} }
    local list = {}
    for i, ev in ipairs(rows[1] or {}) do list[#list + 1] = { name = ev, source_ref = (rows[2] or {})[i] } end
    by_role[role] = setmetatable(list, core.array_mt)
  end
  return by_role
end

local function counts_of(ev, extra)
  local c = {}
  for role, list in pairs(ev) do
    local set = {}
    for _, e in ipairs(list) do set[e.name] = true end
    for _, n in ipairs(extra and extra[role] or {}) do set[n] = true end
    local k = 0
    for _ in pairs(set) do k = k + 1 end
    c[role] = k
  end
  return c
end

-- one UPSERT statement that links refs by role to Knowledge ?k (bound by name :kn)
local function link_statements(links, params)
  local parts = {}
  local i = 0
  local roles = {}
  for role in pairs(links) do roles[#roles + 1] = role end
  table.sort(roles)
  for _, role in ipairs(roles) do
    for _, n in ipairs(links[role]) do
      i = i + 1
      params["ev" .. i] = n
      parts[#parts + 1] = ('PROPOSITION ?l%d { ({type: "Evidence", name: :ev%d}, %s, {type: "Knowledge", name: :kn}) }')
        :format(i, i, core.json_encode(M.ROLE_LINKS[role]))
    end
  end
  if #parts == 0 then return nil end
  return "UPSERT { " .. table.concat(parts, " ") .. ' } WITH METADATA { source: "mind", author: :actor, created_at: :at }'
end

-- the KnowledgeEvent statement recording a change of Knowledge :kn
local function event_statement(params, ctx, event_type, from, to, reason, details)
  local at, suffix = stamp()
  params.ev_name = ("kev:%s:%s:%s"):format(params.kn, at, suffix)
  params.ev_type, params.ev_from, params.ev_to, params.ev_reason = event_type, from or core.null, to or core.null, reason
  params.ev_roles = setmetatable(ctx.roles or {}, core.array_mt)
  params.ev_details = details or {}
  params.at = at
  params.actor = ctx.actor or "$self"
  return [[UPSERT { CONCEPT ?event { {type: "KnowledgeEvent", name: :ev_name}
  SET ATTRIBUTES { event_type: :ev_type, knowledge: :kn, from_status: :ev_from, to_status: :ev_to, reason: :ev_reason,
    actor: :actor, roles: :ev_roles, details: :ev_details, at: :at }
  SET PROPOSITIONS { ("event_of", {type: "Knowledge", name: :kn}) ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } } }
WITH METADATA { source: "mind", author: :actor, created_at: :at }]]
end

local function need_string(v, what)
  if type(v) ~= "string" or v == "" then return err("KIP_2003", what .. " is required (a non-empty string)") end
  return v
end

local function need_enum(v, set, what)
  if not set[v] then
    local names = {}
    for k in pairs(set) do names[#names + 1] = k end
    table.sort(names)
    return err("KIP_2003", ("%s must be one of %s (got %s)"):format(what, table.concat(names, ", "), tostring(v)))
  end
  return v
end

-- the required text and enum fields of an operation: true, or nil, error
local function valid(text, text_name, enums)
  local ok, e = need_string(text, text_name)
  if not ok then return nil, e end
  for _, chk in ipairs(enums) do
    local good, x = need_enum(chk[1], chk[2], chk[3])
    if not good then return nil, x end
  end
  return true
end

--- record{content, domain, field, provenance, source_ref?, tags?, anchor?, name?, ctx?}
function M.record(nx, o)
  local ok, verr = valid(o.content, "content", { { o.domain, M.DOMAINS, "domain" }, { o.provenance, M.PROVENANCE, "provenance" } })
  if not ok then return nil, verr end
  local field = o.field or "general"
  local kind = o.anchor or (o.domain == "global" and "global" or o.provenance == "research" and "repo" or "worktree")
  local a, aerr = anchor.fields(kind, o.here)
  if not a then return err("KIP_2003", aerr) end
  local at, suffix = stamp()
  local name = o.name or ("ev:%s:%s"):format(at, suffix)
  local ctx = ctx_for(nx, o, "record")
  local e = { n = name, content = o.content, domain = o.domain, field = field, prov = o.provenance, src = o.source_ref or core.null,
    tags = setmetatable(o.tags or {}, core.array_mt), ak = a.anchor_kind, ai = a.anchor_id,
    ap = a.parent_anchor_id or core.null, at = at, actor = ctx.actor or "$self" }
  local _, rerr = run(nx, ctx, [[UPSERT { CONCEPT ?e { {type: "Evidence", name: :n}
  SET ATTRIBUTES { content: :content, domain: :domain, field: :field, provenance: :prov, source_ref: :src, tags: :tags,
    anchor_kind: :ak, anchor_id: :ai, parent_anchor_id: :ap, recorded_at: :at }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } } }
WITH METADATA { source: "mind.record", author: :actor, created_at: :at }]], e)
  if rerr then return nil, rerr end
  return { evidence = name, anchor_kind = a.anchor_kind, anchor_id = a.anchor_id }
end

--- distill{statement, tier, domain, field, supporting (Evidence refs), content?,
--- scope_constraints?, trigger_hints?, anchor?, name?, reason?, ctx?}: a candidate
function M.distill(nx, o)
  local ok, verr = valid(o.statement, "statement", { { o.tier, M.TIERS, "tier" }, { o.domain, M.DOMAINS, "domain" } })
  if not ok then return nil, verr end
  local ctx = ctx_for(nx, o, "distill")
  local refs, rerr = evidence_refs(nx, ctx, o.supporting, "supporting")
  if not refs then return nil, rerr end
  if #refs == 0 then
    return err("KIP_2002", "distill needs at least one supporting Evidence ref", "Knowledge is distilled from evidence: cite it.")
  end
  local name = o.name or ("kn:" .. slug(o.statement))
  if M.knowledge(nx, name, ctx) then
    return err("KIP_3003", ("Knowledge %q already exists"):format(name), "Choose another name, or promote/demote the existing one.")
  end
  local kind = o.anchor or (o.tier == "dao_tian" and "global" or "worktree")
  local a, aerr = anchor.fields(kind, o.here)
  if not a then return err("KIP_2003", aerr) end
  if a.anchor_kind == "global" and o.domain ~= "global" then
    return err("KIP_2002", "a global anchor holds only domain=global knowledge", "Use anchor repo or worktree for project memory.")
  end
  local params = { kn = name, st = o.statement, content = o.content or "", tier = o.tier, domain = o.domain,
    field = o.field or "general", sc = o.scope_constraints or core.null, th = o.trigger_hints or core.null,
    ak = a.anchor_kind, ai = a.anchor_id, ap = a.parent_anchor_id or core.null }
  local stmts = { event_statement(params, ctx, "created", nil, "candidate", o.reason or "distilled from evidence",
    { supporting = setmetatable(refs, core.array_mt) }) }
  table.insert(stmts, 1, [[UPSERT { CONCEPT ?k { {type: "Knowledge", name: :kn}
  SET ATTRIBUTES { statement: :st, content: :content, tier: :tier, status: "candidate", domain: :domain, field: :field,
    scope_constraints: :sc, trigger_hints: :th, anchor_kind: :ak, anchor_id: :ai, parent_anchor_id: :ap }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } } }
WITH METADATA { source: "mind.distill", author: :actor, created_at: :at }]])
  stmts[#stmts + 1] = link_statements({ supporting = refs }, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params)
  if werr then return nil, werr end
  return { knowledge = name, status = "candidate", tier = o.tier, anchor_kind = a.anchor_kind, anchor_id = a.anchor_id }
end

--- gate{name, ctx?}: the read-only readiness report
function M.gate(nx, o)
  local ctx = ctx_for(nx, o, nil)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local g = gates.current(nx)[k.attributes.tier]
  if not g then return err("KIP_2003", "no gate for tier " .. tostring(k.attributes.tier)) end
  local report = gates.evaluate(g, counts_of(M.evidence(nx, k.name, ctx), o.extra), ctx.roles)
  report.knowledge, report.tier, report.status = k.name, k.attributes.tier, k.attributes.status
  return report
end

local function set_status(params, to)
  params.to = to
  return 'UPSERT { CONCEPT ?k { {type: "Knowledge", name: :kn} SET ATTRIBUTES { status: :to } } }'
end

--- promote{name, verification?, teaching?, supporting? (Evidence refs), reason, ctx?}
function M.promote(nx, o)
  local ctx = ctx_for(nx, o, "promote")
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local from = k.attributes.status
  if from ~= "candidate" and from ~= "demoted" and from ~= "promoted" then
    return err("KIP_2002", ("%s is %s: only candidate, demoted or promoted knowledge can be promoted"):format(k.name, tostring(from)))
  end
  local new = {}
  for _, role in ipairs { "verification", "teaching", "supporting" } do
    local refs, rerr = evidence_refs(nx, ctx, o[role], role)
    if not refs then return nil, rerr end
    new[role] = refs
  end
  local g = gates.current(nx)[k.attributes.tier]
  local report = gates.evaluate(g, counts_of(M.evidence(nx, k.name, ctx), new), ctx.roles)
  if from == report.target then return err("KIP_2002", ("%s is already %s"):format(k.name, from)) end
  if not report.ready then
    local need = {}
    for role, n in pairs(report.missing) do need[#need + 1] = ("%d more %s"):format(n, role) end
    table.sort(need)
    if report.blocked_by_counterexamples then need[#need + 1] = "no counterexample (there is one)" end
    return err("KIP_2002", ("the %s gate is not met for %s: needs %s"):format(k.attributes.tier, k.name, table.concat(need, ", ")),
      "Record the missing evidence (kip mind record) and cite it; kip mind gate shows the report.")
  end
  if report.reviewer_required and not report.reviewer_present then
    return err("KIP_4004", ("%s -> %s needs a human reviewer: the caller's role must include reviewer"):format(k.name, report.target),
      "An operator runs it with --role reviewer (or an authenticated HTTP role header); a request field cannot claim it.")
  end
  local params = { kn = k.name }
  local stmts = { set_status(params, report.target) }
  stmts[#stmts + 1] = event_statement(params, ctx, "promoted", from, report.target, o.reason or "gate met",
    { added = new, counts = report.counts })
  stmts[#stmts + 1] = link_statements(new, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params)
  if werr then return nil, werr end
  return { knowledge = k.name, from = from, to = report.target, gate = report }
end

--- link{name, supporting?, verification?, teaching? (Evidence refs), reason?, ctx?}:
--- add evidence to a knowledge item without changing its status
function M.link(nx, o)
  local ctx = ctx_for(nx, o, "link")
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local new, any = {}, false
  for _, role in ipairs { "supporting", "verification", "teaching" } do
    local refs, rerr = evidence_refs(nx, ctx, o[role], role)
    if not refs then return nil, rerr end
    new[role] = refs
    any = any or #refs > 0
  end
  if not any then return err("KIP_2002", "link needs at least one Evidence ref (supporting, verification or teaching)") end
  local params = { kn = k.name }
  local stmts = { event_statement(params, ctx, "linked", k.attributes.status, k.attributes.status, o.reason or "evidence added",
    { added = new }) }
  stmts[#stmts + 1] = link_statements(new, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params)
  if werr then return nil, werr end
  return { knowledge = k.name, added = new }
end

--- demote{name, counterexamples (Evidence refs, required), reason, target? ("demoted" | "retired"), ctx?}
function M.demote(nx, o)
  local ctx = ctx_for(nx, o, "demote")
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local refs, rerr = evidence_refs(nx, ctx, o.counterexamples, "counterexamples")
  if not refs then return nil, rerr end
  if #refs == 0 then
    return err("KIP_2002", "demotion needs counterexample Evidence", "Record what contradicts it (kip mind record) and cite it.")
  end
  local to = o.target or "demoted"
  if to ~= "demoted" and to ~= "retired" then return err("KIP_2003", "target must be demoted or retired") end
  local from = k.attributes.status
  if from == to then return err("KIP_2002", ("%s is already %s"):format(k.name, from)) end
  local params = { kn = k.name }
  local stmts = { set_status(params, to),
    event_statement(params, ctx, "demoted", from, to, o.reason or "contradicted by evidence", { counterexamples = setmetatable(refs, core.array_mt) }) }
  stmts[#stmts + 1] = link_statements({ counterexample = refs }, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params)
  if werr then return nil, werr end
  return { knowledge = k.name, from = from, to = to }
end

--- retire{name, reason, ctx?}
function M.retire(nx, o)
  local ctx = ctx_for(nx, o, "retire")
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local from = k.attributes.status
  if from == "retired" then return err("KIP_2002", k.name .. " is already retired") end
  local reason = o.reason
  if type(reason) ~= "string" or reason == "" then return err("KIP_2003", "retire needs a reason") end
  local params = { kn = k.name }
  local _, werr = run(nx, ctx, set_status(params, "retired") .. "\n" .. event_statement(params, ctx, "retired", from, "retired", reason), params)
  if werr then return nil, werr end
  return { knowledge = k.name, from = from, to = "retired" }
end

--- publish_anchor{name, reason, ctx?}: worktree -> repo -> global, for active knowledge
function M.publish_anchor(nx, o)
  local ctx = ctx_for(nx, o, "publish_anchor")
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local a = k.attributes
  if a.status ~= "promoted" and a.status ~= "canonical" then
    return err("KIP_2002", ("%s is %s: only promoted or canonical knowledge is published outward"):format(k.name, tostring(a.status)))
  end
  local to = anchor.outward(a.anchor_kind)
  if not to then return err("KIP_2002", k.name .. " is already global") end
  local params = { kn = k.name, ak = to }
  if to == "repo" then
    if type(a.parent_anchor_id) ~= "string" then return err("KIP_2002", k.name .. " has no repo to publish to (no parent_anchor_id)") end
    params.ai = a.parent_anchor_id
  else
    if a.domain ~= "global" then
      return err("KIP_2002", "a global anchor holds only domain=global knowledge; " .. k.name .. " is domain=" .. tostring(a.domain))
    end
    params.ai = anchor.GLOBAL
  end
  local stmts = { [[UPSERT { CONCEPT ?k { {type: "Knowledge", name: :kn} SET ATTRIBUTES { anchor_kind: :ak, anchor_id: :ai, parent_anchor_id: null } } }]],
    event_statement(params, ctx, "published_anchor", a.status, a.status, o.reason or "published outward",
      { from_anchor = a.anchor_id, to_anchor = params.ai }) }
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params)
  if werr then return nil, werr end
  return { knowledge = k.name, from_anchor = a.anchor_id, to_anchor = params.ai }
end

--- events{name, ctx?}: the history of a Knowledge item, oldest first
function M.events(nx, o)
  local ctx = ctx_for(nx, o, nil)
  local rows, rerr = read(nx, ctx, 'FIND(?e) WHERE { ?e {type: "KnowledgeEvent"} FILTER(?e.attributes.knowledge == :n) } ORDER BY ?e.metadata._updated_at, ?e.name LIMIT 1000',
    { n = o.name })
  if not rows then return nil, rerr end
  local out = {}
  for _, e in ipairs(rows) do
    local a = e.attributes
    out[#out + 1] = { event = e.name, type = a.event_type, from = a.from_status, to = a.to_status, reason = a.reason,
      actor = a.actor, roles = a.roles, at = a.at, details = a.details }
  end
  return setmetatable(out, core.array_mt)
end

return M
