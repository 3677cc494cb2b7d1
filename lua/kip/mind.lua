--- kip.mind — the mind model (seed 004; docs/mind.md): evidence and
--- governed knowledge (dao_tian / dao_ren / shu / qi) inside the KIP graph,
--- deterministic promotion gates, anchors, typed context assembly.
---
---   local mind = require "kip.mind"
---   mind.init(nx)                                   -- apply capsules/mind (once)
---   local ev = mind.record(nx, { content = "…", domain = "project", field = "debugging", provenance = "runtime" })
---   local k = mind.distill(nx, { statement = "…", tier = "shu", domain = "project", field = "debugging",
---                                supporting = { ev.evidence } })
---   mind.gate(nx, { name = k.knowledge })           -- read-only report
---   mind.promote(nx, { name = k.knowledge, verification = { … }, reason = "…" })
---   mind.context(nx, { query = "…" })               -- dao_tian → dao_ren → shu → qi
---
--- Operations return a result, or nil and {code, message, hint}; the
--- caller's identity (actor or user, roles) goes in opts.ctx, from the host.
--- What the mind model owns is guarded in the core (kip.mind.guards): no
--- other write reaches Knowledge, Evidence, their links or the events, over
--- any interface, with or without policies.
local ops = require "kip.mind.ops"
local guards = require "kip.mind.guards"

local M = {
  record = ops.record, distill = ops.distill, link = ops.link, unlink = ops.unlink, gate = ops.gate, promote = ops.promote,
  raise = ops.raise, demote = ops.demote, retire = ops.retire, restore = ops.restore, update = ops.update,
  publish_anchor = ops.publish_anchor, events = ops.events,
  context = function(nx, o) return require("kip.mind.context").assemble(nx, o) end,
  anchors = function(dir) return require("kip.mind.anchor").current(dir) end,
  gates = function(nx) return require("kip.mind.gates").current(nx) end,
}

--- the capsule directory of the mind schema
function M.capsule_dir()
  return require("kip.nexus").home() .. "/capsules/mind"
end

local function apply(nx, text, ctx, opts)
  local o = guards.as(nx, ctx)
  o.on_error = opts and opts.on_error
  return require("kip.transfer").apply(nx, text, o)
end

--- apply the schema capsule and declare the guards (idempotent); returns
--- true or nil, message
function M.init(nx)
  local dir = M.capsule_dir()
  local f = io.open(dir .. "/MindModel.kip", "rb")
  if not f then return nil, "cannot read " .. dir .. "/MindModel.kip" end
  local text = f:read("a") or f:read("*a")
  f:close()
  local ok, gerr = guards.declare(nx)
  if not ok then return nil, gerr end
  local st = apply(nx, text, nx.ctx)
  if st.failed > 0 then return nil, ("the mind capsule failed (%d statement(s)); see the errors above"):format(st.failed) end
  local _, rerr = ops.reindex(nx, { ctx = nx.ctx })
  if rerr then return nil, rerr.message end
  return true
end

--- import{text, ctx, on_error?}: bring the mind model's knowledge, evidence
--- and events from a capsule (kip export --domain MindModel) as they were —
--- a human caller only, each statement through the policies' content
--- checks; returns the transfer stats or nil, {code, message, hint}
function M.import(nx, o)
  local ctx = {}
  for k, v in pairs(nx.ctx or {}) do ctx[k] = v end
  for k, v in pairs(o.ctx or {}) do ctx[k] = v end
  if not ops.is_human(nx, ctx) then
    return nil, { code = "KIP_4004", message = "importing knowledge needs a human caller (a role of the gates' human_roles)",
      hint = "An operator runs kip mind import FILE --role operator." }
  end
  local ok, gerr = guards.ensure(nx)
  if not ok then return nil, { code = "KIP_4003", message = tostring(gerr) } end
  local st = apply(nx, o.text, ctx, o)
  local _, rerr = ops.reindex(nx, { ctx = ctx })
  if rerr then return nil, rerr end
  return st
end

--- is the mind schema in this nexus?
function M.ready(nx)
  local r = nx:execute('FIND(COUNT(?t)) WHERE { ?t {type: "$ConceptType", name: "Knowledge"} }')
  local n = r.result
  return (type(n) == "table" and n[1] or n or 0) > 0
end

return M
