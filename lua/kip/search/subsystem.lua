--- kip.search.subsystem — what SEARCH (RC11 §5.2; docs/search.md) adds to
--- the front ends, registered in kip.subsystems: `kip search eval`.
local M = { name = "search" }

M.commands = "kip.search.cli"

return M
