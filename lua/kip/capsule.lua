-- kip.capsule — reading KIP text the way operators feed it: splitting a
-- capsule file into its top-level statements (with their line numbers) and
-- telling whether a typed command is complete (balanced braces and
-- parentheses, outside strings and // comments). Used by `kip import`, the
-- REPL and `kip export`.
local M = {}

-- Scan text from position i: returns the new brace/paren depth and whether
-- the scan ended inside a string. Calls on_top(pos) for every identifier
-- start at depth 0 (the caller decides what a statement keyword is).
local function scan(text, depth, on_top)
  local i, n = 1, #text
  while i <= n do
    local j = text:find('[%a"/{}%(%)%[%]]', i)
    if not j then break end
    local c = text:sub(j, j)
    if c == '"' then
      local k = j + 1
      while true do
        local q = text:find('["\\]', k)
        if not q then return depth, true end
        if text:sub(q, q) == "\\" then k = q + 2 else k = q + 1 break end
      end
      i = k
    elseif c == "/" then
      if text:sub(j + 1, j + 1) == "/" then
        local e = text:find("\n", j, true)
        i = e and e + 1 or n + 1
      else
        i = j + 1
      end
    elseif c == "{" or c == "(" or c == "[" then
      depth, i = depth + 1, j + 1
    elseif c == "}" or c == ")" or c == "]" then
      depth, i = depth - 1, j + 1
    else -- an identifier (or the letters of a number like 1e5: harmless)
      local e = text:find("[^%w_]", j) or n + 1
      if depth == 0 and on_top then on_top(j, text:sub(j, e - 1)) end
      i = e
    end
  end
  return depth, false
end

local STATEMENTS = { UPSERT = true, FIND = true, UPDATE = true, MERGE = true, DELETE = true,
  DESCRIBE = true, SEARCH = true, EXPORT = true }

--- Split capsule text into statements: { {text=, line=, offset=}, ... }.
--- A statement starts at a top-level statement keyword; text before the
--- first one (comments) is dropped.
function M.split(text)
  local starts = {}
  scan(text, 0, function(pos, word)
    if STATEMENTS[word] then
      -- only at the start of a line-level token, not e.g. "WITH METADATA"
      starts[#starts + 1] = pos
    end
  end)
  local out = {}
  local line, at = 1, 1
  for k, pos in ipairs(starts) do
    local _, nl = text:sub(at, pos - 1):gsub("\n", "")
    line, at = line + nl, pos
    local stop = (starts[k + 1] or #text + 1) - 1
    out[#out + 1] = { text = text:sub(pos, stop), line = line, offset = pos }
  end
  return out
end

--- Is this typed text a complete command (balanced and not inside a string)?
function M.complete(text)
  if not text:match("%S") then return false end
  local depth, in_string = scan(text, 0)
  return depth <= 0 and not in_string
end

return M
