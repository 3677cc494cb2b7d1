-- kip.capsule — reading KIP text the way operators feed it: splitting a
-- capsule file into its top-level statements (with their line numbers) and
-- telling whether a typed command is complete (balanced braces and
-- parentheses, outside strings and // comments). Used by `kip import` /
-- `kip restore` (kip.transfer) and the REPL.
local M = {}

local core = require "kip.core"

--- The statements of capsule text: starts (1-based offsets of the top-level
--- statement keywords, outside strings, brackets and // comments) and lines
--- (the line of each). Statement k is text:sub(starts[k], (starts[k + 1] or
--- #text + 1) - 1); text before the first one (comments) belongs to none.
--- One C pass (core.scan_statements), so a large capsule is not copied.
function M.statements(text)
  local starts, lines = core.scan_statements(text)
  return starts, lines
end

--- Is this typed text a complete command (balanced and not inside a string)?
function M.complete(text)
  if not text:match("%S") then return false end
  local _, _, depth, in_string = core.scan_statements(text)
  return depth <= 0 and not in_string
end

return M
