--- kip.arg.guards — what the ARG subsystem owns, declared to the core as
--- guards (core/src/store_guard.c; docs/security.md "Guards"; seed 003 §1
--- "the online loop MUST remain read-only with respect to the active
--- ontology", §4.1 "append-only", Annex 7.4 "transactional boundaries").
---
--- The ontology (clusters, labels, nodes, actions, external sources, the
--- ArgOntology domain that carries version and profile, the schema's type
--- definitions) is sealed: only a validated publish, holding the capability
--- "arg.publish", writes it (kip arg init / publish / rollback, the offline
--- loop). Episodes are append-only and only the online loop, holding
--- "arg.record", adds them; the Info Registry and action runs are the loop's;
--- versions and offline runs are append-only records of the publisher. The
--- core enforces this on every write — over the CLI, MCP, HTTP and the Lua
--- API, with or without policies; only an operator's maintenance call
--- (logged) passes. The capabilities are granted by this module's callers
--- through call options, never by a header, a role or a request body.
local M = {}

M.OWNER = "arg"
M.PUBLISH = "arg.publish" -- writes the ontology and the publisher's records
M.RECORD = "arg.record"   -- writes episodes, the Info Registry and action runs

local PUBLISH_HINT = "The ARG ontology changes only through a validated publish: `kip arg publish --ontology FILE.kip`, "
  .. "the offline loop (`kip arg offline run`, `kip arg publish`) or `kip arg rollback N` (docs/arg.md)."
local RECORD_HINT = "ARG episodes are written by the online loop only and never changed (docs/arg.md \"Episodic registry\")."

-- {type, name, mode, capability, hint, unindexed}: the loop's records
-- (episodes, the Info Registry, action runs) are kept out of the SEARCH
-- indexes — agents never read them, and every SEARCH would read past them
M.DECLARED = {
  { "ArgCluster", nil, "sealed", M.PUBLISH, PUBLISH_HINT },
  { "ArgLabel", nil, "sealed", M.PUBLISH, PUBLISH_HINT },
  { "ArgNode", nil, "sealed", M.PUBLISH, PUBLISH_HINT },
  { "ArgAction", nil, "sealed", M.PUBLISH, PUBLISH_HINT },
  { "ExternalSource", nil, "sealed", M.PUBLISH, PUBLISH_HINT },
  { "Domain", "ArgOntology", "sealed", M.PUBLISH, PUBLISH_HINT },
  { "Domain", "ArgRegistry", "sealed", M.PUBLISH, PUBLISH_HINT },
  { "ArgCandidate", nil, "sealed", M.PUBLISH, PUBLISH_HINT },
  { "ArgVersion", nil, "append_only", M.PUBLISH, PUBLISH_HINT },
  { "ArgOfflineRun", nil, "append_only", M.PUBLISH, PUBLISH_HINT },
  { "ArgEpisode", nil, "append_only", M.RECORD, RECORD_HINT, true },
  { "InfoUnit", nil, "sealed", M.RECORD, RECORD_HINT, true },
  { "ArgActionRun", nil, "sealed", M.RECORD, RECORD_HINT, true },
  { "ArgTenant", nil, "sealed", M.RECORD,
    "The tenant directory is written by the online loop and `kip arg tenants add NAME` (docs/arg.md \"Tenancy\")." },
}
-- the schema's own definitions (capsules/arg/ArgSchema.kip)
M.TYPES = { "ArgCluster", "ArgLabel", "ArgNode", "ArgAction", "ExternalSource", "ArgEpisode", "InfoUnit", "ArgVersion",
  "ArgCandidate", "ArgOfflineRun", "ArgActionRun", "ArgTenant" }
M.PREDICATES = { "in_cluster", "parent_label", "incompatible_with", "has_label", "redirects_to" }

local shared = require "kip.guards"
local state = require "kip.state"

-- every guard of the subsystem: DECLARED, then its schema's definitions
local function all() return shared.with_schema(M.DECLARED, M.TYPES, M.PREDICATES, M.PUBLISH, PUBLISH_HINT) end

--- declare every guard of the subsystem (idempotent); true or nil, message
function M.declare(nx)
  local ok, err = shared.declare(nx, M.OWNER, all())
  if not ok then return nil, err end
  state.of(nx, "arg").guarded = true
  return true
end

--- are the subsystem's guards declared in this nexus? (checked once per
--- Nexus object; declared by kip arg init, and by the loop on first use of a
--- nexus initialized before guards existed)
function M.ensure(nx)
  if state.of(nx, "arg").guarded then return true end
  local core = require "kip.core"
  if nx:readonly() then return true end
  if not shared.current(nx, M.OWNER, all()) then
    local ok, err = M.declare(nx)
    if not ok then return nil, err end
  end
  -- a nexus initialized by an older schema capsule gets the current one
  local t = core.json_decode(nx.handle:call_json(core.json_encode { command =
    'FIND(COUNT(?t)) WHERE { ?t {type: "$ConceptType", name: "ArgTenant"} }' }))
  local n = t.result and (type(t.result) == "table" and t.result[1] or t.result) or 0
  if n == 0 then
    local ok, err = M.apply_schema(nx)
    if not ok then return nil, err end
  end
  state.of(nx, "arg").guarded = true
  return true
end

--- call options holding capability `cap` (and the operator's view: the
--- subsystem reads its own private records), over base options `opts`
M.as = shared.as

--- the caller's context as the operator who maintains the ontology
--- (a copy of ctx, else the nexus's, with operator = true)
function M.operator_ctx(nx, ctx)
  local c = require("kip.sandbox").copy(ctx or nx.ctx or {})
  c.operator = true
  return c
end

--- apply the ARG schema capsule (capsules/arg/ArgSchema.kip) as the
--- publisher; applying it again changes nothing. true or nil, error
function M.apply_schema(nx, ctx)
  local path = require("kip.nexus").home() .. "/capsules/arg/ArgSchema.kip"
  local text, rerr = require("kip.sandbox").read_file(path)
  if not text then return nil, { code = "ARG_PUBLISH_FAILED", step = "init", message = "cannot read " .. path .. ": " .. tostring(rerr), hint = "" } end
  local failures = {}
  local stats = require("kip.transfer").apply(nx, text, { ctx = M.operator_ctx(nx, ctx),
    capabilities = { M.PUBLISH }, on_error = function(line, e)
      failures[#failures + 1] = ("%s:%d: %s %s"):format(path, line, tostring(e.code), tostring(e.message))
    end })
  if stats.failed > 0 then
    return nil, { code = "ARG_PUBLISH_FAILED", step = "init", message = table.concat(failures, "; "),
      hint = "The ARG schema capsule did not apply; check the nexus (kip guards --log shows maintenance writes)." }
  end
  return true
end

return M
