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
--- caller's identity (actor, roles) goes in opts.ctx.
local ops = require "kip.mind.ops"

local M = {
  record = ops.record, distill = ops.distill, link = ops.link, gate = ops.gate, promote = ops.promote, demote = ops.demote,
  retire = ops.retire, publish_anchor = ops.publish_anchor, events = ops.events,
  context = function(nx, o) return require("kip.mind.context").assemble(nx, o) end,
  anchors = function(dir) return require("kip.mind.anchor").current(dir) end,
  gates = function(nx) return require("kip.mind.gates").current(nx) end,
}

--- the capsule directory of the mind schema
function M.capsule_dir()
  return require("kip").home() .. "/capsules/mind"
end

--- apply the schema capsule (idempotent); returns true or nil, message
function M.init(nx)
  local dir = M.capsule_dir()
  local f = io.open(dir .. "/MindModel.kip", "rb")
  if not f then return nil, "cannot read " .. dir .. "/MindModel.kip" end
  local text = f:read("a") or f:read("*a")
  f:close()
  local st = require("kip.transfer").apply(nx, text, {})
  if st.failed > 0 then return nil, ("the mind capsule failed (%d statement(s)); see the errors above"):format(st.failed) end
  return true
end

--- is the mind schema in this nexus?
function M.ready(nx)
  local r = nx:execute('FIND(COUNT(?t)) WHERE { ?t {type: "$ConceptType", name: "Knowledge"} }')
  local n = r.result
  return (type(n) == "table" and n[1] or n or 0) > 0
end

return M
