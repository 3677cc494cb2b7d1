-- kip.text — JSON text for people and for capped channels, without a
-- decode/encode round trip: re-indenting that keeps the engine's key order
-- and number spelling, the raw "result" of a response, and the response cap
-- of the servers (MCP, HTTP), and JSON-lines files (evaluation sets). Used
-- by the CLI, the REPL and the servers.
local core = require "kip.core"

local M = {}

--- Re-indent JSON text for people, keeping the engine's key order and number
--- spelling exactly (no decode/encode round trip).
function M.pretty(text, indent)
  indent = indent or "  "
  local out, depth, i, n = {}, 0, 1, #text
  local function nl() out[#out + 1] = "\n" .. indent:rep(depth) end
  while i <= n do
    local c = text:sub(i, i)
    if c == '"' then
      local j = i + 1
      while true do
        local q = text:find('["\\]', j)
        if not q then j = n break end
        if text:sub(q, q) == "\\" then j = q + 2 else j = q break end
      end
      out[#out + 1] = text:sub(i, j)
      i = j + 1
    elseif c == "{" or c == "[" then
      local close = c == "{" and "}" or "]"
      if text:sub(i + 1, i + 1) == close then
        out[#out + 1] = c .. close
        i = i + 2
      else
        out[#out + 1] = c
        depth = depth + 1
        nl()
        i = i + 1
      end
    elseif c == "}" or c == "]" then
      depth = depth - 1
      nl()
      out[#out + 1] = c
      i = i + 1
    elseif c == "," then
      out[#out + 1] = ","
      nl()
      i = i + 1
    elseif c == ":" then
      out[#out + 1] = ": "
      i = i + 1
    elseif c:match("%s") then
      i = i + 1
    else
      local j = text:find('[,:%]}%s]', i) or n + 1
      out[#out + 1] = text:sub(i, j - 1)
      i = j
    end
  end
  return table.concat(out)
end

--- The raw JSON text of the "result" member of a response text (as the
--- engine wrote it), or nil.
function M.result_text(resp)
  local start = resp:match('^{"result":()')
  if not start then return nil end
  local depth, i, n = 0, start, #resp
  while i <= n do
    local c = resp:sub(i, i)
    if c == '"' then
      repeat
        local q = resp:find('["\\]', i + 1)
        if not q then return nil end
        i = resp:sub(q, q) == "\\" and q + 1 or q
      until resp:sub(q, q) == '"'
    elseif c == "{" or c == "[" then depth = depth + 1
    elseif c == "}" or c == "]" then
      if depth == 0 then return resp:sub(start, i - 1) end
      depth = depth - 1
    elseif c == "," and depth == 0 then return resp:sub(start, i - 1)
    end
    i = i + 1
  end
  return nil
end

--- A response text over `max` bytes becomes a KIP_4002 error that says how
--- to ask for less (servers cap what one call returns: MCP, HTTP).
--- a short, stable hash of a text (djb2, 8 hex digits): names derived from
--- content (ARG versions and units, a policy's loaded text), not security
function M.hash(text)
  local h = 5381
  for i = 1, #text do h = (h * 33 + text:byte(i)) % 4294967296 end
  return ("%08x"):format(h)
end

function M.cap_response(text, max)
  if not max or #text <= max then return text end
  return core.json_encode { error = { code = "KIP_4002", name = "ResourceExhausted",
    message = ("the response is %d bytes; one call may return at most %d"):format(#text, max),
    hint = "Ask for less: add LIMIT n and page with CURSOR (next_cursor), project fields (?x.name) instead of whole elements, or split the batch." } }
end

--- The objects of a JSON-lines file (blank lines skipped), each with its
--- line number in .line; check(object) -> nil | "what is wrong" refuses a
--- line. Returns the list, or nil and a message naming the file and line.
function M.read_jsonl(path, check)
  local f, err = io.open(path, "rb")
  if not f then return nil, ("cannot read %s: %s"):format(path, tostring(err)) end
  local out, n = {}, 0
  for line in f:lines() do
    n = n + 1
    if line:find("%S") then
      local ok, v = pcall(core.json_decode, line)
      local bad = (not ok or type(v) ~= "table") and "not a JSON object" or (check and check(v))
      if bad then
        f:close()
        return nil, ("%s:%d: %s"):format(path, n, bad)
      end
      v.line = n
      out[#out + 1] = v
    end
  end
  f:close()
  return out
end

return M
