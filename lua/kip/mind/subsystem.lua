--- kip.mind.subsystem — what the mind model (seed 004; docs/mind.md) adds
--- to the front ends, registered in kip.subsystems: `kip mind …`, the
--- mind_* MCP tools (when the nexus has the mind schema) and the gates'
--- policy (policies/mind_gates.lua) in every governed nexus.
local M = { name = "mind" }

M.commands = require "kip.mind.cli"

M.mcp = {
  ready = function(nx) return require("kip.mind").ready(nx) end,
  list = function(readonly) return require("kip.mind.mcp").list(readonly) end,
  call = function(nx, name, args, ctx, readonly) return require("kip.mind.mcp").call(nx, name, args, ctx, readonly) end,
}

M.policies = { "mind_gates" }

return M
