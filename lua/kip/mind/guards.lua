--- kip.mind.guards — what the mind model owns, declared to the core as
--- guards (core/src/store_guard.c; docs/security.md "Guards"; seed 004
--- "Promotion Gate Philosophy", "Knowledge Lifecycle", P80 "lifecycle
--- authority remains human-gated", Phase 2 "knowledge_events should be
--- transactional ... append-only").
---
--- Knowledge, Evidence (the citation root, and the subject of every
--- evidence link: supports, verifies, teaches, counterexample_of) and the
--- schema's definitions are sealed: only the lifecycle operations
--- (kip.mind.ops), which hold the capability "mind.lifecycle" while they
--- run, write them. KnowledgeEvents are append-only: the operations add
--- them and nobody — no operation either — changes or deletes one. The core
--- enforces this on every write, over the CLI, MCP, HTTP and the Lua API,
--- with or without policies; only an operator's logged maintenance call
--- passes.
local shared = require "kip.guards"
local state = require "kip.state"

local M = {}

M.OWNER = "mind"
M.LIFECYCLE = "mind.lifecycle"

local HINT = "Knowledge and its evidence change only through the lifecycle operations: kip mind record | distill | link "
  .. "| unlink | promote | raise | demote | retire | restore | update | publish-anchor (the MCP tools mind_record, "
  .. "mind_distill for agents); docs/mind.md."
local EVENT_HINT = "KnowledgeEvents are the audit trail of the mind model: append-only, never changed or deleted."

M.DECLARED = {
  { "Knowledge", nil, "sealed", M.LIFECYCLE, HINT },
  { "Evidence", nil, "sealed", M.LIFECYCLE, HINT },
  { "KnowledgeEvent", nil, "append_only", M.LIFECYCLE, EVENT_HINT },
  { "MindShelf", nil, "sealed", M.LIFECYCLE, HINT },
  { "MindField", nil, "sealed", M.LIFECYCLE, HINT },
  { "Domain", "MindModel", "sealed", M.LIFECYCLE, HINT },
}
M.TYPES = { "Knowledge", "Evidence", "KnowledgeEvent", "MindShelf", "MindField" }
M.PREDICATES = { "supports", "verifies", "counterexample_of", "teaches", "event_of", "shelved_in" }

local function all() return shared.with_schema(M.DECLARED, M.TYPES, M.PREDICATES, M.LIFECYCLE, HINT) end

--- declare the guards (idempotent); true or nil, message
function M.declare(nx)
  local ok, err = shared.declare(nx, M.OWNER, all())
  if not ok then return nil, err end
  state.of(nx, "mind").guarded = true
  return true
end

--- declared in this nexus? (a nexus whose mind schema predates guards gets
--- them on its first operation); true or nil, message
function M.ensure(nx)
  if state.of(nx, "mind").guarded or nx:readonly() then return true end
  if shared.count(nx, M.OWNER) < #all() then return M.declare(nx) end
  state.of(nx, "mind").guarded = true
  return true
end

--- call options of a lifecycle operation: the capability, over `opts`
function M.as(nx, ctx, opts)
  return shared.as(nx, M.LIFECYCLE, ctx, opts)
end

return M
