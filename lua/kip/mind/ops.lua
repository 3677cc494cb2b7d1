--- kip.mind.ops — the lifecycle operations of the mind model (seed 004 "Four
--- Core Operations", "Minimal Interface Surface", Phase-2 events; docs/mind.md):
--- record, distill, link, unlink, gate, promote, raise (tier promotion),
--- demote, retire, restore, update, publish_anchor, events.
---
--- Every write is KIP through the nexus's governed pipeline holding the
--- capability "mind.lifecycle" (kip.mind.guards: the core refuses any other
--- write of Knowledge, Evidence and their links, and any change of a
--- KnowledgeEvent); each operation is one KIP command — with the updates of
--- the model's indexes (shelves, field cards) one atomic request — so the
--- Knowledge change, its evidence links, the KnowledgeEvent recording it and
--- the indexes commit together or not at all. Evidence refs must name existing Evidence (never
--- Knowledge, never unknown ids); one Evidence fills one role per Knowledge;
--- gates are deterministic (kip.mind.gates); the caller never scores
--- confidence. Who the caller is comes from the host (ctx: actor/user and
--- roles — CLI flags, HTTP headers of the trusted front, MCP server flags),
--- never from a field: provenance `human` and teaching evidence need a human
--- caller (a role of the gates' human_roles), every lifecycle change of
--- status, tier or anchor needs one (seed 004 P80: lifecycle authority is
--- human-gated), canonical needs `reviewer`; recorded_at is the clock's.
--- Operations return a result table, or nil and {code, message, hint}.
local core = require "kip.core"
local anchor = require "kip.mind.anchor"
local gates = require "kip.mind.gates"
local guards = require "kip.mind.guards"

local M = {}

M.TIERS = { qi = true, shu = true, dao_ren = true, dao_tian = true }
M.DOMAINS = { project = true, agent = true, skill = true, global = true }
M.PROVENANCE = { runtime = true, research = true, human = true }
M.ROLE_LINKS = { supporting = "supports", verification = "verifies", teaching = "teaches", counterexample = "counterexample_of" }

local function err(code, message, hint) return nil, { code = code, message = message, hint = hint or "" } end

local stamp = require("kip.ids").stamp
local state = require "kip.state"

local function slug(s) return (s:lower():gsub("[^%w]+", "-"):gsub("^%-+", ""):gsub("%-+$", "")):sub(1, 60) end

-- the caller's context for an operation: the nexus default, then the
-- caller's (from the host)
local function ctx_for(nx, opts)
  local ctx = {}
  for k, v in pairs(nx.ctx or {}) do ctx[k] = v end
  for k, v in pairs(opts.ctx or {}) do ctx[k] = v end
  return ctx
end

local function has_role(ctx, set)
  for _, r in ipairs(ctx.roles or {}) do if set[r] then return true end end
  return false
end

--- is the caller a human (a role of the gates' human_roles)?
function M.is_human(nx, ctx)
  return has_role(ctx, gates.human_roles(nx))
end

--- who the audit names: the authenticated actor and what kind of caller it is
function M.actor(nx, ctx)
  local kind = ctx.system and "$system" or M.is_human(nx, ctx) and "human" or "agent"
  return ctx.user or ctx.actor or (kind == "$system" and "$system" or "$self"), kind
end

-- a lifecycle change needs a human caller (P80)
local function need_human(nx, ctx, what)
  if M.is_human(nx, ctx) then return true end
  local roles = {}
  for r in pairs(gates.human_roles(nx)) do roles[#roles + 1] = r end
  table.sort(roles)
  return err("KIP_4004", ("%s needs a human caller: the caller's roles must include one of %s"):format(what, table.concat(roles, ", ")),
    "Lifecycle authority is human-gated (seed 004 P80): an operator runs it with --role " .. (roles[1] or "operator")
      .. " (or an authenticated HTTP role header); agents record evidence and distill candidates.")
end

--- The mind model's own indexes, kept by the operations in the transaction
--- of each change (so `kip mind context` never scans Knowledge or Evidence):
--- a MindShelf per (tier, status, anchor) that every Knowledge item is
--- `shelved_in` (read through the link index), and a MindField card per
--- field counting its Evidence (evidence_count) and its active Knowledge
--- (active_knowledge) for the distill suggestions.
M.ACTIVE = { promoted = true, canonical = true }

function M.shelf_name(tier, status, anchor_id)
  return ("%s|%s|%s"):format(tostring(tier), tostring(status), tostring(anchor_id))
end

local CARD = [[UPSERT { CONCEPT ?f { {type: "MindField", name: :field}
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } } }
WITH METADATA { source: "mind", author: "$system" }]]

-- the commands that add `by` to counter `key` of the card of `field`
local function count_commands(field, key, by)
  local p = { field = field or "general", by = by }
  return { { command = CARD, parameters = p },
    { command = ("UPDATE ?f SET ATTRIBUTES { %s: ADD(COALESCE(?f.attributes.%s, 0), :by) } WHERE { ?f {type: \"MindField\", name: :field} }")
      :format(key, key), parameters = p } }
end

-- the commands that keep the indexes of Knowledge :kn going from state
-- `old` (nil: new) to `new`: its shelf link moved, its field's count of
-- active knowledge adjusted
local function index_commands(kn, old, new)
  local shelf = { kn = kn, shelf = M.shelf_name(new.tier, new.status, new.anchor_id) }
  local out = {
    { command = 'DELETE PROPOSITIONS ?l WHERE { ?l ({type: "Knowledge", name: :kn}, "shelved_in", ?s) FILTER(?s.name != :shelf) }',
      parameters = shelf },
    { command = [[UPSERT { CONCEPT ?s { {type: "MindShelf", name: :shelf}
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } }
  PROPOSITION ?l { ({type: "Knowledge", name: :kn}, "shelved_in", ?s) } }
WITH METADATA { source: "mind", author: "$system" }]], parameters = shelf },
  }
  local was, is = old and M.ACTIVE[old.status] or false, M.ACTIVE[new.status] or false
  if was ~= is then
    for _, c in ipairs(count_commands(new.field, "active_knowledge", is and 1 or -1)) do out[#out + 1] = c end
  end
  return out
end

-- one atomic request of the operation's command and its index commands
local function atomic(nx, ctx, command, params, extra)
  local batch = { { command = command, parameters = params } }
  for _, c in ipairs(extra) do batch[#batch + 1] = c end
  local r = nx:call({ commands = batch }, guards.as(nx, ctx, { atomic = true }))
  for _, item in ipairs(not r.error and r.result or {}) do
    if type(item) == "table" and item.error then return item end
  end
  return r
end

-- a write of the operation: holding the lifecycle capability. `index`
-- (optional): the index commands that commit with it (one atomic request)
local function run(nx, ctx, command, params, index)
  local ok, gerr = guards.ensure(nx)
  if not ok then return err("KIP_4003", "cannot declare the mind model's guards: " .. tostring(gerr)) end
  if not index then return nx:query(command, params, guards.as(nx, ctx)) end
  local r = atomic(nx, ctx, command, params, index)
  if r.error then return nil, { code = r.error.code, message = r.error.message, hint = r.error.hint } end
  return r.result
end

-- the index commands of Knowledge k changing by `changes` (tier, status, anchor_id)
local function index_change(k, changes)
  local a = k.attributes or {}
  local new = { tier = a.tier, status = a.status, anchor_id = a.anchor_id, field = a.field }
  for f, v in pairs(changes or {}) do new[f] = v end
  return index_commands(k.name, a, new)
end

local function read(nx, ctx, command, params) return nx:query(command, params, { ctx = ctx }) end

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

-- refs -> list of Evidence names (and their attributes by name); every ref
-- must be an existing Evidence; teaching evidence must be a human's
local function evidence_refs(nx, ctx, refs, what)
  local out, seen, attrs = {}, {}, {}
  if refs == nil then return out, attrs end
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
    if what == "teaching" and (ev.attributes or {}).provenance ~= "human" then
      return err("KIP_2002", ("teaching: %q is %s evidence, not a human's teaching"):format(ev.name, tostring((ev.attributes or {}).provenance)),
        "Teaching evidence is what a human taught: recorded with provenance human by a human caller (kip mind record --role operator).")
    end
    if not seen[ev.name] then
      seen[ev.name] = true
      out[#out + 1] = ev.name
      attrs[ev.name] = ev.attributes or {}
      -- when it was written (ms; Evidence is sealed and never updated): the recording order
      attrs[ev.name]._written = (ev.metadata or {})._updated_at
    end
  end
  return out, attrs
end

-- the evidence of Knowledge name by role: {supporting = {{name, source_ref}}, ...}
-- (one indexed query over the four evidence links)
local PRED_ROLE = {}
for role, pred in pairs(M.ROLE_LINKS) do PRED_ROLE[pred] = role end
function M.evidence(nx, name, ctx)
  local rows = read(nx, ctx or {}, 'FIND(?e.name, ?e.attributes.source_ref, ?l.predicate) WHERE { ?k {type: "Knowledge", name: :n} ' ..
    '?l (?e, "supports" | "verifies" | "teaches" | "counterexample_of", ?k) ?e {type: "Evidence"} ' ..
    'FILTER(IS_NULL(?l.metadata.withdrawn) || ?l.metadata.withdrawn != true) } ORDER BY ?e.name LIMIT 10000',
    { n = name }) or { {}, {}, {} }
  local by_role = {}
  for role in pairs(M.ROLE_LINKS) do by_role[role] = setmetatable({}, core.array_mt) end
  for i, ev in ipairs(rows[1] or {}) do
    local list = by_role[PRED_ROLE[(rows[3] or {})[i]]]
    if list then list[#list + 1] = { name = ev, source_ref = (rows[2] or {})[i] } end
  end
  return by_role
end

-- the roles in the order an Evidence linked in several is counted in (one
-- Evidence fills one role: what limits a claim first, then what a human
-- taught, what was re-verified, what merely supports it)
M.ROLE_ORDER = { "counterexample", "teaching", "verification", "supporting" }

-- evidence counts by role, each Evidence counted once (M.ROLE_ORDER)
local function counts_of(ev, extra)
  local role_of = {}
  for _, role in ipairs(M.ROLE_ORDER) do
    for _, e in ipairs(ev[role] or {}) do role_of[e.name] = role_of[e.name] or role end
    for _, n in ipairs(extra and extra[role] or {}) do role_of[n] = role_of[n] or role end
  end
  local c = { supporting = 0, verification = 0, teaching = 0, counterexample = 0 }
  for _, role in pairs(role_of) do c[role] = c[role] + 1 end
  return c
end

-- every Evidence of `new` ({role = {names}}) may fill one role of Knowledge
-- k (ev: its evidence by role): nil, or the error
local function one_role_each(k, ev, new)
  local linked = {}
  for role, list in pairs(ev) do for _, e in ipairs(list) do linked[e.name] = role end end
  for _, role in ipairs(M.ROLE_ORDER) do
    for _, n in ipairs(new[role] or {}) do
      if linked[n] and linked[n] ~= role then
        return select(2, err("KIP_2002", ("%s is already %s evidence of %s: one Evidence fills one role"):format(n, linked[n], k),
          "Cite distinct evidence for each role: what was re-verified is a new observation (kip mind record)."))
      end
      linked[n] = role
    end
  end
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
  return "UPSERT { " .. table.concat(parts, " ") .. ' } WITH METADATA { source: "mind", author: :actor, created_at: :at, withdrawn: false }'
end

-- the KnowledgeEvent statement recording a change of Knowledge :kn, with
-- the authenticated actor, the kind of caller and its roles
local function event_statement(nx, params, ctx, event_type, from, to, reason, details)
  local at, suffix = stamp()
  params.ev_name = ("kev:%s:%s:%s"):format(params.kn, at, suffix)
  params.ev_type, params.ev_from, params.ev_to, params.ev_reason = event_type, from or core.null, to or core.null, reason
  params.ev_roles = setmetatable(ctx.roles or {}, core.array_mt)
  params.ev_details = details or {}
  params.at = at
  params.actor, params.actor_kind = M.actor(nx, ctx)
  return [[UPSERT { CONCEPT ?event { {type: "KnowledgeEvent", name: :ev_name}
  SET ATTRIBUTES { event_type: :ev_type, knowledge: :kn, from_status: :ev_from, to_status: :ev_to, reason: :ev_reason,
    actor: :actor, actor_kind: :actor_kind, roles: :ev_roles, details: :ev_details, at: :at }
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

-- the fields an operation accepts (besides ctx and here): a caller's other
-- fields — Evidence carrying tier or status, a back-dated recorded_at, a
-- self-declared reviewer — are refused, never silently dropped
local FIELDS = {
  record = { "content", "domain", "field", "provenance", "source_ref", "tags", "anchor", "name" },
  distill = { "statement", "tier", "domain", "field", "supporting", "evidence", "content", "scope_constraints", "trigger_hints",
    "anchor", "name", "reason" },
}
local function only_fields(o, op)
  local allowed = { ctx = true, here = true }
  for _, f in ipairs(FIELDS[op]) do allowed[f] = true end
  local bad = {}
  for k in pairs(o) do if not allowed[k] then bad[#bad + 1] = tostring(k) end end
  if #bad == 0 then return true end
  table.sort(bad)
  return err("KIP_2003", ("%s does not take %s"):format(op, table.concat(bad, ", ")),
    ("%s takes %s. Status, tier, provenance checks, time and reviewers are the system's, never a caller's field."):format(op,
      table.concat(FIELDS[op], ", ")))
end

--- record{content, domain, field, provenance, source_ref?, tags?, anchor?, name?, ctx?}:
--- Evidence is immutable; `human` provenance needs a human caller; the
--- time and the recorder are the host's
function M.record(nx, o)
  local okf, ferr = only_fields(o, "record")
  if not okf then return nil, ferr end
  local ok, verr = valid(o.content, "content", { { o.domain, M.DOMAINS, "domain" }, { o.provenance, M.PROVENANCE, "provenance" } })
  if not ok then return nil, verr end
  local ctx = ctx_for(nx, o)
  if o.provenance == "human" then
    local h, herr = need_human(nx, ctx, "evidence with provenance human")
    if not h then return nil, herr end
  end
  local field = o.field or "general"
  local kind = o.anchor or (o.domain == "global" and "global" or o.provenance == "research" and "repo" or "worktree")
  local a, aerr = anchor.fields(kind, o.here)
  if not a then return err("KIP_2003", aerr) end
  if a.anchor_kind == "global" and o.domain ~= "global" then
    return err("KIP_2002", "a global anchor holds only domain=global evidence", "Use anchor repo or worktree for project evidence.")
  end
  local at, suffix = stamp()
  local name = o.name or ("ev:%s:%s"):format(at, suffix)
  if o.name then
    local rows = read(nx, ctx, 'FIND(?e.name) WHERE { ?e {type: "Evidence", name: :n} }', { n = name }) or {}
    if #rows > 0 then
      return err("KIP_3003", ("Evidence %q already exists"):format(name), "Evidence is never rewritten: record a new observation.")
    end
  end
  local actor, actor_kind = M.actor(nx, ctx)
  local e = { n = name, content = o.content, domain = o.domain, field = field, prov = o.provenance, src = o.source_ref or core.null,
    tags = setmetatable(o.tags or {}, core.array_mt), ak = a.anchor_kind, ai = a.anchor_id,
    ap = a.parent_anchor_id or core.null, at = at, actor = actor, kind = actor_kind }
  local _, rerr = run(nx, ctx, [[UPSERT { CONCEPT ?e { {type: "Evidence", name: :n}
  SET ATTRIBUTES { content: :content, domain: :domain, field: :field, provenance: :prov, source_ref: :src, tags: :tags,
    anchor_kind: :ak, anchor_id: :ai, parent_anchor_id: :ap, recorded_at: :at, recorded_by: :actor, recorder_kind: :kind }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } } }
WITH METADATA { source: "mind.record", author: :actor, created_at: :at }]], e,
    count_commands(field, "evidence_count", 1))
  if rerr then return nil, rerr end
  return { evidence = name, anchor_kind = a.anchor_kind, anchor_id = a.anchor_id, recorded_at = at, recorded_by = actor }
end

--- distill{statement, tier, domain, field, supporting (Evidence refs), content?,
--- scope_constraints?, trigger_hints?, anchor?, name?, reason?, ctx?}: a candidate
function M.distill(nx, o)
  local okf, ferr = only_fields(o, "distill")
  if not okf then return nil, ferr end
  local ok, verr = valid(o.statement, "statement", { { o.tier, M.TIERS, "tier" }, { o.domain, M.DOMAINS, "domain" } })
  if not ok then return nil, verr end
  local ctx = ctx_for(nx, o)
  local refs, rerr = evidence_refs(nx, ctx, o.supporting or o.evidence, "supporting")
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
  local stmts = { event_statement(nx, params, ctx, "created", nil, "candidate", o.reason or "distilled from evidence",
    { supporting = setmetatable(refs, core.array_mt) }) }
  table.insert(stmts, 1, [[UPSERT { CONCEPT ?k { {type: "Knowledge", name: :kn}
  SET ATTRIBUTES { statement: :st, content: :content, tier: :tier, status: "candidate", domain: :domain, field: :field,
    scope_constraints: :sc, trigger_hints: :th, anchor_kind: :ak, anchor_id: :ai, parent_anchor_id: :ap }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } } }
WITH METADATA { source: "mind.distill", author: :actor, created_at: :at }]])
  stmts[#stmts + 1] = link_statements({ supporting = refs }, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params,
    index_commands(name, nil, { tier = o.tier, status = "candidate", anchor_id = a.anchor_id, field = params.field }))
  if werr then return nil, werr end
  return { knowledge = name, status = "candidate", tier = o.tier, anchor_kind = a.anchor_kind, anchor_id = a.anchor_id }
end

--- gate{name, ctx?}: the read-only readiness report of its status gate
function M.gate(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local g = gates.current(nx)[k.attributes.tier]
  if not g then return err("KIP_2003", "no gate for tier " .. tostring(k.attributes.tier)) end
  local report = gates.evaluate(g, counts_of(M.evidence(nx, k.name, ctx), o.extra), ctx.roles)
  report.knowledge, report.tier, report.status = k.name, k.attributes.tier, k.attributes.status
  local up = gates.raise_gate(nx, k.attributes.tier)
  if up then report.raise = { to_tier = up.to_tier, gate = up } end
  return report
end

local function set_status(params, to)
  params.to = to
  return 'UPSERT { CONCEPT ?k { {type: "Knowledge", name: :kn} SET ATTRIBUTES { status: :to } } }'
end

-- the new evidence an operation cites, by role: {role = {names}}, or nil, error
local function cited(nx, ctx, o, roles)
  local new = {}
  for _, role in ipairs(roles) do
    local refs, rerr = evidence_refs(nx, ctx, o[role], role)
    if not refs then return nil, rerr end
    new[role] = refs
  end
  return new
end

local function not_met(what, k, report)
  local need = {}
  for role, n in pairs(report.missing) do need[#need + 1] = ("%d more %s"):format(n, role) end
  table.sort(need)
  if report.blocked_by_counterexamples then need[#need + 1] = "no counterexample (there is one: kip mind unlink --role ... with new verification)" end
  return err("KIP_2002", ("the %s gate is not met for %s: needs %s"):format(what, k.name, table.concat(need, ", ")),
    "Record the missing evidence (kip mind record) and cite it; each Evidence counts in one role; kip mind gate shows the report.")
end

-- the evidence an operation cites (verification, teaching, supporting: one
-- role each) and gate g's report over it with the item's own; what, to:
-- the gate's name and the status or tier it leads to, for the messages;
-- from: the item's status when reaching `to` again is an error.
-- Returns new, report, or nil and the error
local function through_gate(nx, ctx, o, k, g, what, to, from)
  local new, cerr = cited(nx, ctx, o, { "verification", "teaching", "supporting" })
  if not new then return nil, cerr end
  local ev = M.evidence(nx, k.name, ctx)
  local rerr = one_role_each(k.name, ev, new)
  if rerr then return nil, rerr end
  local report = gates.evaluate(g, counts_of(ev, new), ctx.roles)
  if from == to then return err("KIP_2002", ("%s is already %s"):format(k.name, from)) end
  if not report.ready then return not_met(what, k, report) end
  if report.reviewer_required and not report.reviewer_present then
    return err("KIP_4004", ("%s -> %s needs a human reviewer: the caller's role must include reviewer"):format(k.name, to),
      "An operator runs it with --role reviewer (or an authenticated HTTP role header); a request field cannot claim it.")
  end
  return new, report
end

--- promote{name, verification?, teaching?, supporting? (Evidence refs), reason, ctx?}:
--- the status gate of its tier; a human caller
function M.promote(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local from = k.attributes.status
  if from ~= "candidate" and from ~= "demoted" and from ~= "promoted" then
    return err("KIP_2002", ("%s is %s: only candidate, demoted or promoted knowledge can be promoted"):format(k.name, tostring(from)),
      from == "retired" and "Retired knowledge comes back only through kip mind restore." or nil)
  end
  local h, herr = need_human(nx, ctx, "promotion")
  if not h then return nil, herr end
  local g = gates.current(nx)[k.attributes.tier]
  local new, report = through_gate(nx, ctx, o, k, g, k.attributes.tier, g.target, from)
  if not new then return nil, report end
  local params = { kn = k.name }
  local stmts = { set_status(params, report.target) }
  stmts[#stmts + 1] = event_statement(nx, params, ctx, "promoted", from, report.target, o.reason or "gate met",
    { added = new, counts = report.counts })
  stmts[#stmts + 1] = link_statements(new, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params, index_change(k, { status = report.target }))
  if werr then return nil, werr end
  return { knowledge = k.name, from = from, to = report.target, gate = report }
end

--- raise{name, verification?, teaching?, supporting?, reason, ctx?}: tier
--- promotion, one step (qi -> shu -> dao_ren -> dao_tian), through the raise
--- gate of the tier above (its own thresholds); active knowledge only; the
--- item starts the new tier as a candidate and earns its status there
function M.raise(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local a = k.attributes
  local g = gates.raise_gate(nx, a.tier)
  if not g then return err("KIP_2002", ("%s is %s: there is no tier above it"):format(k.name, tostring(a.tier))) end
  if a.status ~= "promoted" and a.status ~= "canonical" then
    return err("KIP_2002", ("%s is %s: only promoted or canonical knowledge is raised to a higher tier"):format(k.name, tostring(a.status)),
      "Promote it in its own tier first (kip mind promote).")
  end
  local h, herr = need_human(nx, ctx, "tier promotion")
  if not h then return nil, herr end
  local new, report = through_gate(nx, ctx, o, k, g, a.tier .. " -> " .. g.to_tier, g.to_tier)
  if not new then return nil, report end
  if g.to_tier == "dao_tian" and a.domain ~= "global" then
    return err("KIP_2002", ("dao_tian is cross-domain law: %s is domain=%s"):format(k.name, tostring(a.domain)),
      "Only domain=global knowledge is raised to dao_tian.")
  end
  local params = { kn = k.name, tier = g.to_tier }
  local stmts = { 'UPSERT { CONCEPT ?k { {type: "Knowledge", name: :kn} SET ATTRIBUTES { tier: :tier, status: "candidate" } } }' }
  stmts[#stmts + 1] = event_statement(nx, params, ctx, "promoted", a.status, "candidate", o.reason or "raise gate met",
    { added = new, counts = report.counts, from_tier = a.tier, to_tier = g.to_tier })
  stmts[#stmts + 1] = link_statements(new, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params, index_change(k, { tier = g.to_tier, status = "candidate" }))
  if werr then return nil, werr end
  return { knowledge = k.name, from_tier = a.tier, to_tier = g.to_tier, from = a.status, to = "candidate", gate = report }
end

--- link{name, supporting?, verification?, teaching? (Evidence refs), reason?, ctx?}:
--- add evidence to a knowledge item without changing its status
function M.link(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  if k.attributes.status == "retired" then return err("KIP_2002", k.name .. " is retired: restore it first (kip mind restore)") end
  local new, cerr = cited(nx, ctx, o, { "supporting", "verification", "teaching" })
  if not new then return nil, cerr end
  local any = #new.supporting + #new.verification + #new.teaching > 0
  if not any then return err("KIP_2002", "link needs at least one Evidence ref (supporting, verification or teaching)") end
  local rerr = one_role_each(k.name, M.evidence(nx, k.name, ctx), new)
  if rerr then return nil, rerr end
  local params = { kn = k.name }
  local stmts = { event_statement(nx, params, ctx, "linked", k.attributes.status, k.attributes.status, o.reason or "evidence added",
    { added = new }) }
  stmts[#stmts + 1] = link_statements(new, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params)
  if werr then return nil, werr end
  return { knowledge = k.name, added = new }
end

--- unlink{name, evidence (an Evidence ref), role, reason, verification? (refs), ctx?}:
--- withdraw one evidence link (a human caller). A counterexample is
--- resolved only by new verification: Evidence recorded after it, cited
--- here and linked in the same transaction
function M.unlink(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local pred = M.ROLE_LINKS[o.role or ""]
  if not pred then return err("KIP_2003", "role must be one of counterexample, supporting, teaching, verification") end
  if type(o.reason) ~= "string" or o.reason == "" then return err("KIP_2003", "unlink needs a reason") end
  local h, herr = need_human(nx, ctx, "unlinking evidence")
  if not h then return nil, herr end
  local refs, attrs = evidence_refs(nx, ctx, o.evidence, "evidence")
  if not refs then return nil, attrs end
  if #refs ~= 1 then return err("KIP_2003", "unlink takes one Evidence ref") end
  local ev = M.evidence(nx, k.name, ctx)
  local present = false
  for _, e in ipairs(ev[o.role]) do if e.name == refs[1] then present = true end end
  if not present then return err("KIP_3002", ("%s is not %s evidence of %s"):format(refs[1], o.role, k.name)) end
  local new = { verification = {} }
  if o.role == "counterexample" then
    local vrefs, vattrs = evidence_refs(nx, ctx, o.verification, "verification")
    if not vrefs then return nil, vattrs end
    local since = attrs[refs[1]]._written or "~"
    for _, n in ipairs(vrefs) do
      if (vattrs[n]._written or "") > since then new.verification[#new.verification + 1] = n end
    end
    if #new.verification == 0 then
      return err("KIP_2002", ("resolving the counterexample %s needs new verification: Evidence recorded after it (%s)"):format(refs[1],
        tostring(attrs[refs[1]].recorded_at)),
        "Re-verify the claim, record the observation (kip mind record) and cite it with --verification.")
    end
    local rerr = one_role_each(k.name, ev, new)
    if rerr then return nil, rerr end
  end
  -- the link stays as history, withdrawn (what the gates count is the live links)
  local params = { kn = k.name, ev = refs[1] }
  local stmts = { event_statement(nx, params, ctx, "unlinked", k.attributes.status, k.attributes.status, o.reason,
    { evidence = refs[1], role = o.role, added = new }) }
  stmts[#stmts + 1] = ('UPSERT { PROPOSITION ?w { ({type: "Evidence", name: :ev}, %s, {type: "Knowledge", name: :kn}) } } ' ..
    'WITH METADATA { withdrawn: true, withdrawn_at: :at, withdrawn_by: :actor }'):format(core.json_encode(pred))
  stmts[#stmts + 1] = link_statements(new, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params)
  if werr then return nil, werr end
  return { knowledge = k.name, unlinked = refs[1], role = o.role, added = new }
end

--- demote{name, counterexamples (Evidence refs, required), reason, target? ("demoted" | "retired"), ctx?}
function M.demote(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local from = k.attributes.status
  if from == "retired" then
    return err("KIP_2002", k.name .. " is retired: nothing leaves retired but an explicit restore", "kip mind restore NAME --reason R")
  end
  local h, herr = need_human(nx, ctx, "demotion")
  if not h then return nil, herr end
  local refs, rerr = evidence_refs(nx, ctx, o.counterexamples, "counterexamples")
  if not refs then return nil, rerr end
  if #refs == 0 then
    return err("KIP_2002", "demotion needs counterexample Evidence", "Record what contradicts it (kip mind record) and cite it.")
  end
  local to = o.target or "demoted"
  if to ~= "demoted" and to ~= "retired" then return err("KIP_2003", "target must be demoted or retired") end
  if from == to then return err("KIP_2002", ("%s is already %s"):format(k.name, from)) end
  local oerr = one_role_each(k.name, M.evidence(nx, k.name, ctx), { counterexample = refs })
  if oerr then return nil, oerr end
  local params = { kn = k.name }
  local stmts = { set_status(params, to),
    event_statement(nx, params, ctx, "demoted", from, to, o.reason or "contradicted by evidence", { counterexamples = setmetatable(refs, core.array_mt) }) }
  stmts[#stmts + 1] = link_statements({ counterexample = refs }, params)
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params, index_change(k, { status = to }))
  if werr then return nil, werr end
  return { knowledge = k.name, from = from, to = to }
end

local function need_reason(reason, op)
  if type(reason) ~= "string" or reason == "" then return err("KIP_2003", op .. " needs a reason") end
  return true
end

--- retire{name, reason, ctx?}
function M.retire(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local from = k.attributes.status
  if from == "retired" then return err("KIP_2002", k.name .. " is already retired") end
  local ok, rerr = need_reason(o.reason, "retire")
  if not ok then return nil, rerr end
  local h, herr = need_human(nx, ctx, "retirement")
  if not h then return nil, herr end
  local params = { kn = k.name }
  local _, werr = run(nx, ctx, set_status(params, "retired") .. "\n" .. event_statement(nx, params, ctx, "retired", from, "retired", o.reason), params,
    index_change(k, { status = "retired" }))
  if werr then return nil, werr end
  return { knowledge = k.name, from = from, to = "retired" }
end

--- restore{name, reason, ctx?}: the one way out of retired — back to
--- candidate, to earn its status again through the gate
function M.restore(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  if k.attributes.status ~= "retired" then return err("KIP_2002", ("%s is %s: only retired knowledge is restored"):format(k.name, tostring(k.attributes.status))) end
  local ok, rerr = need_reason(o.reason, "restore")
  if not ok then return nil, rerr end
  local h, herr = need_human(nx, ctx, "restoring retired knowledge")
  if not h then return nil, herr end
  local params = { kn = k.name }
  local _, werr = run(nx, ctx, set_status(params, "candidate") .. "\n" ..
    event_statement(nx, params, ctx, "updated", "retired", "candidate", o.reason, { restored = true }), params,
    index_change(k, { status = "candidate" }))
  if werr then return nil, werr end
  return { knowledge = k.name, from = "retired", to = "candidate" }
end

M.EDITABLE = { statement = true, content = true, scope_constraints = true, trigger_hints = true }

--- update{name, statement?, content?, scope_constraints?, trigger_hints?, reason, ctx?}:
--- edit the text of a knowledge item. A candidate's by anyone; trusted
--- (promoted, canonical) knowledge by a human only, and a new statement
--- sends it back to candidate (what was gated is the statement)
function M.update(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local a = k.attributes
  if a.status == "retired" then return err("KIP_2002", k.name .. " is retired: restore it first (kip mind restore)") end
  local ok, rerr = need_reason(o.reason, "update")
  if not ok then return nil, rerr end
  local set, changed = {}, {}
  local params = { kn = k.name }
  for f in pairs(M.EDITABLE) do
    if o[f] ~= nil then
      if f == "statement" and (type(o[f]) ~= "string" or o[f] == "") then return err("KIP_2003", "statement must be a non-empty string") end
      params["u_" .. f] = o[f]
      set[#set + 1] = ("%s: :u_%s"):format(f, f)
      changed[#changed + 1] = f
    end
  end
  if #set == 0 then return err("KIP_2003", "update needs one of statement, content, scope_constraints, trigger_hints") end
  table.sort(set)
  table.sort(changed)
  local trusted = a.status == "promoted" or a.status == "canonical"
  if trusted then
    local h, herr = need_human(nx, ctx, ("updating %s knowledge"):format(a.status))
    if not h then return nil, herr end
  end
  local to = a.status
  if trusted and o.statement ~= nil and o.statement ~= a.statement then
    to = "candidate"
    set[#set + 1] = 'status: "candidate"'
  end
  local stmts = { ('UPSERT { CONCEPT ?k { {type: "Knowledge", name: :kn} SET ATTRIBUTES { %s } } }'):format(table.concat(set, ", ")),
    event_statement(nx, params, ctx, "updated", a.status, to, o.reason, { fields = setmetatable(changed, core.array_mt) }) }
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params, index_change(k, { status = to }))
  if werr then return nil, werr end
  return { knowledge = k.name, from = a.status, to = to, fields = changed }
end

--- publish_anchor{name, reason, ctx?}: worktree -> repo -> global, for active knowledge
function M.publish_anchor(nx, o)
  local ctx = ctx_for(nx, o)
  local k, kerr = existing(nx, o.name, ctx)
  if not k then return nil, kerr end
  local a = k.attributes
  if a.status ~= "promoted" and a.status ~= "canonical" then
    return err("KIP_2002", ("%s is %s: only promoted or canonical knowledge is published outward"):format(k.name, tostring(a.status)))
  end
  local to = anchor.outward(a.anchor_kind)
  if not to then return err("KIP_2002", k.name .. " is already global") end
  local h, herr = need_human(nx, ctx, "anchor publication")
  if not h then return nil, herr end
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
    event_statement(nx, params, ctx, "published_anchor", a.status, a.status, o.reason or "published outward",
      { from_anchor = a.anchor_id, to_anchor = params.ai }) }
  local _, werr = run(nx, ctx, table.concat(stmts, "\n"), params, index_change(k, { anchor_id = params.ai }))
  if werr then return nil, werr end
  return { knowledge = k.name, from_anchor = a.anchor_id, to_anchor = params.ai }
end

--- events{name, ctx?}: the history of a Knowledge item, oldest first
function M.events(nx, o)
  local ctx = ctx_for(nx, o)
  local rows, rerr = read(nx, ctx, 'FIND(?e) WHERE { (?e, "event_of", {type: "Knowledge", name: :n}) ?e {type: "KnowledgeEvent"} } ' ..
    'ORDER BY ?e.attributes.at, ?e.name LIMIT 1000', { n = o.name })
  if not rows then return nil, rerr end
  local out = {}
  for _, e in ipairs(rows) do
    local a = e.attributes
    out[#out + 1] = { event = e.name, type = a.event_type, from = a.from_status, to = a.to_status, reason = a.reason,
      actor = a.actor, actor_kind = a.actor_kind, roles = a.roles, at = a.at, details = a.details }
  end
  return setmetatable(out, core.array_mt)
end

--- does this nexus have the mind model's indexes (the MindShelf type)?
function M.indexed(nx, ctx)
  if state.of(nx, "mind").indexed then return true end
  local r = read(nx, ctx or {}, 'FIND(COUNT(?t)) WHERE { ?t {type: "$ConceptType", name: "MindShelf"} }')
  local n = type(r) == "table" and r[1] or r or 0
  state.of(nx, "mind").indexed = n > 0 or nil
  return n > 0
end

-- every row of a paged read (rows of the FIND's columns): `command`
-- selects a name first, ordered by it, and binds :after (the last name of
-- the previous page) and :n
local function all_rows(nx, ctx, command, page)
  local out, after_name = {}, ""
  while true do
    local cols = read(nx, ctx, command, { after = after_name, n = page })
    if cols and type(cols[1]) ~= "table" then cols = { cols } end -- one column: a flat list
    local names = cols and cols[1] or {}
    if #names == 0 then break end
    for i, name in ipairs(names) do
      local row = { name }
      for c = 2, #cols do row[c] = cols[c][i] end
      out[#out + 1] = row
    end
    after_name = names[#names]
    if #names < page then break end
  end
  return out
end

--- reindex{ctx?}: rebuild the shelves and field cards from the items
--- themselves (kip mind init, after an import, or on a nexus made before
--- the indexes existed); returns {shelved=, fields=} or nil, error
function M.reindex(nx, o)
  o = o or {}
  local ctx = ctx_for(nx, o)
  local ok, gerr = guards.ensure(nx)
  if not ok then return err("KIP_4003", "cannot declare the mind model's guards: " .. tostring(gerr)) end
  local knowledge = all_rows(nx, ctx, 'FIND(?k.name, ?k.attributes.tier, ?k.attributes.status, ?k.attributes.anchor_id, ' ..
    '?k.attributes.field) WHERE { ?k {type: "Knowledge"} FILTER(?k.name > :after) } ORDER BY ?k.name LIMIT :n', 2000)
  local shelved = {}
  for _, r in ipairs(all_rows(nx, ctx, 'FIND(?k.name, ?s.name) WHERE { ?k {type: "Knowledge"} (?k, "shelved_in", ?s) ' ..
    'FILTER(?k.name > :after) } ORDER BY ?k.name LIMIT :n', 2000)) do
    shelved[r[1]] = shelved[r[1]] and true or r[2] -- two shelves: wrong either way
  end
  local batch, moved = {}, 0
  local function flush()
    if #batch == 0 then return true end
    local r = nx:call({ commands = batch }, guards.as(nx, ctx, { atomic = true }))
    batch = {}
    if r.error or r.rolled_back then return err("KIP_4003", "reindexing the mind model failed: " .. tostring((r.error or {}).message or "rolled back")) end
    return true
  end
  local cards = {}
  local function card(f)
    f = f == core.null and "general" or f or "general"
    cards[f] = cards[f] or { evidence_count = 0, active_knowledge = 0 }
    return cards[f]
  end
  for _, r in ipairs(knowledge) do
    local shelf_state = { tier = r[2], status = r[3], anchor_id = r[4], field = r[5] }
    if M.ACTIVE[shelf_state.status] then card(shelf_state.field).active_knowledge = card(shelf_state.field).active_knowledge + 1 end
    if shelved[r[1]] ~= M.shelf_name(shelf_state.tier, shelf_state.status, shelf_state.anchor_id) then
      moved = moved + 1
      local cmds = index_commands(r[1], shelf_state, shelf_state) -- same activity: no count change
      if shelved[r[1]] == true then -- on two shelves: drop both first
        table.insert(cmds, 1, { command = 'DELETE PROPOSITIONS ?l WHERE { ?l ({type: "Knowledge", name: :kn}, "shelved_in", ?s) }',
          parameters = { kn = r[1] } })
      end
      for _, c in ipairs(cmds) do batch[#batch + 1] = c end
      if #batch >= 200 then
        local fok, ferr = flush()
        if not fok then return nil, ferr end
      end
    end
  end
  local ev = read(nx, ctx, 'FIND(?e.attributes.field, COUNT(?e)) WHERE { ?e {type: "Evidence"} } LIMIT 100000') or { {}, {} }
  for i, f in ipairs(ev[1] or {}) do card(f).evidence_count = (ev[2] or {})[i] or 0 end
  for _, f in ipairs(all_rows(nx, ctx, 'FIND(?f.name) WHERE { ?f {type: "MindField"} FILTER(?f.name > :after) } ORDER BY ?f.name LIMIT :n', 2000)) do
    card(f[1])
  end
  local n = 0
  for f, c in pairs(cards) do
    n = n + 1
    batch[#batch + 1] = { command = [[UPSERT { CONCEPT ?f { {type: "MindField", name: :field}
  SET ATTRIBUTES { evidence_count: :e, active_knowledge: :a }
  SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "MindModel"}) } } }
WITH METADATA { source: "mind", author: "$system" }]], parameters = { field = f, e = c.evidence_count, a = c.active_knowledge } }
    if #batch >= 200 then
      local fok, ferr = flush()
      if not fok then return nil, ferr end
    end
  end
  local fok, ferr = flush()
  if not fok then return nil, ferr end
  return { knowledge = #knowledge, shelved = moved, fields = n }
end

return M
