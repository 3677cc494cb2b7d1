--- kip.sleep.subsystem — what the $system sleep cycle (SystemInstructions.md
--- "Sleep Cycle Workflow"; docs/sleep.md) adds to the front ends,
--- registered in kip.subsystems: `kip sleep`, and after every MCP response
--- the reinforcement of the links it returned (docs/sleep.md "Memory
--- strength").
local M = { name = "sleep" }

M.commands = "kip.sleep.cli"

M.mcp = {
  -- links returned to the agent were used: each regains memory strength
  after = function(nx, response_text) require("kip.sleep.strength").used(nx, response_text) end,
}

return M
