--- kip.ui.subsystem — what the inspector (issue 41; docs/ui.md) adds to the
--- front ends, registered in kip.subsystems: `kip ui`.
local M = { name = "ui" }

M.commands = "kip.ui.cli"

return M
