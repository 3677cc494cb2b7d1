--- kip.mind.subsystem — what the mind model (seed 004; docs/mind.md) adds
--- to the front ends, registered in kip.subsystems: `kip mind …`, the
--- mind_* MCP tools (when the nexus has the mind schema) and the gates'
--- policy (policies/mind_gates.lua) in every governed nexus.
local M = { name = "mind" }

M.commands = "kip.mind.cli"
M.mcp = "kip.mind.mcp"

M.policies = { "mind_gates" }

return M
