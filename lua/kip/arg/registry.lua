local M = {}
function M.record(st) end
return M
