-- kip.repl — the interactive KIP shell (`kip repl`, or `kip` on a terminal).
--
-- Line editing and persistent history (readline via kip.host), commands
-- that span lines until braces and parentheses balance, tab completion of
-- keywords, concept types and predicates from the live schema, FIND results
-- as aligned tables, other results as pretty JSON, errors with a caret under
-- the offending column. Without a terminal it reads commands from stdin and
-- prints their results (a script runner).
local core = require "kip.core"
local jsontext = require "kip.text"
local capsule = require "kip.capsule"

local M = {}

-- what Tab completes: KIP's words (kip.vocabulary) and the schema's names
local vocabulary = require "kip.vocabulary"
local KEYWORDS = vocabulary.KEYWORDS

M.HELP = [[
A one-line command runs when you press Enter. A command over several lines
runs at a blank line or a line ending in ";". A line the parser can already
tell is wrong runs at once, so you see the error where it is (a "...>"
prompt means the command is incomplete; a blank line then shows what is
missing and drops it). quit, exit and help alone on a line do what :quit and
:help do. Tab completes keywords, types and predicates. Reading from a pipe,
the shell exits 1 when a command failed.
  :help                 this text
  :params {json}        parameters for :name placeholders (:params alone shows them, :params {} clears)
  :readonly on|off      use execute_kip_readonly (KML is refused)
  :json                 toggle raw JSON responses
  :explain KQL          the SQL and query plan of a FIND
  :dry on|off           dry_run: validate and roll back
  :quit                 leave (also Ctrl-D)
]]

local function display_width(s)
  local n = 0
  for _ in s:gmatch("[^\128-\191]") do n = n + 1 end
  return n
end

local function cell(v)
  if v == nil or v == core.null then return "null" end
  if type(v) == "table" then
    if v.id and (v.name or v.predicate) then
      return v.name and (v.type .. ":" .. v.name) or ("(" .. v.subject .. ", " .. v.predicate .. ", " .. v.object .. ")")
    end
    return core.json_encode(v)
  end
  return tostring(v)
end

local function truncate(s, w)
  if display_width(s) <= w then return s end
  local out, n = {}, 0
  for ch in s:gmatch("[%z\1-\127\194-\244][\128-\191]*") do
    if n >= w - 1 then break end
    out[#out + 1] = ch
    n = n + 1
  end
  return table.concat(out) .. "…"
end

--- Render a FIND result (columnar) as an aligned table, cells truncated to
--- fit `width` columns. headers: the FIND expressions' texts.
function M.table(result, headers, width)
  local cols
  if #headers <= 1 then cols = { type(result) == "table" and result or { result } }
  else cols = result end
  local nrows = 0
  for c = 1, #cols do
    if type(cols[c]) ~= "table" then cols[c] = { cols[c] } end
    nrows = math.max(nrows, #cols[c])
  end
  local maxw = math.max(8, (width - 3 * #cols) // math.max(#cols, 1))
  local cells, widths = {}, {}
  for c = 1, #cols do
    widths[c] = math.min(display_width(headers[c] or ("col" .. c)), maxw)
    cells[c] = {}
    for r = 1, nrows do
      local s = truncate(cell(cols[c][r]):gsub("\n", " "), maxw)
      cells[c][r] = s
      widths[c] = math.max(widths[c], display_width(s))
    end
  end
  local function row(values)
    local parts = {}
    for c = 1, #cols do
      local s = values[c]
      parts[c] = s .. string.rep(" ", widths[c] - display_width(s))
    end
    return table.concat(parts, " │ ")
  end
  local out = {}
  local hdr = {}
  for c = 1, #cols do hdr[c] = truncate(headers[c] or ("col" .. c), widths[c]) end
  out[#out + 1] = row(hdr)
  local rule = {}
  for c = 1, #cols do rule[c] = string.rep("─", widths[c]) end
  out[#out + 1] = table.concat(rule, "─┼─")
  for r = 1, nrows do
    local vals = {}
    for c = 1, #cols do vals[c] = cells[c][r] end
    out[#out + 1] = row(vals)
  end
  out[#out + 1] = ("(%d row%s)"):format(nrows, nrows == 1 and "" or "s")
  return table.concat(out, "\n")
end

-- the FIND expressions of a command, as written (for table headers)
local function find_headers(command)
  local inner = command:match("^%s*FIND%s*(%b())")
  if not inner then return nil end
  inner = inner:sub(2, -2)
  local heads, depth, start = {}, 0, 1
  for i = 1, #inner do
    local ch = inner:sub(i, i)
    if ch == "(" then depth = depth + 1 elseif ch == ")" then depth = depth - 1
    elseif ch == "," and depth == 0 then
      heads[#heads + 1] = inner:sub(start, i - 1):match("^%s*(.-)%s*$")
      start = i + 1
    end
  end
  heads[#heads + 1] = inner:sub(start):match("^%s*(.-)%s*$")
  return heads
end

--- An error with a caret under the offending column of the command.
function M.format_error(e, command)
  local out = {}
  local where = e.line and (" (line %d, column %d)"):format(e.line, e.column) or ""
  out[#out + 1] = ("%s %s%s: %s"):format(e.code or "?", e.name or "", where, e.message or "")
  if e.line and e.column and command then
    local n = 0
    for l in (command .. "\n"):gmatch("([^\n]*)\n") do
      n = n + 1
      if n == e.line then
        out[#out + 1] = "  " .. l
        out[#out + 1] = "  " .. string.rep(" ", math.max(e.column - 1, 0)) .. "^"
        break
      end
    end
  end
  if e.hint and e.hint ~= "" then out[#out + 1] = "  hint: " .. e.hint end
  return table.concat(out, "\n")
end

local Repl = {}
Repl.__index = Repl

function M.new(nx, opts)
  opts = opts or {}
  local ok, host = pcall(require, "kip.host")
  local self = setmetatable({
    nx = nx, host = ok and host or nil, params = {}, readonly = opts.readonly or false, json = false,
    dry = false, out = opts.out or io.stdout, history = opts.history, failures = 0,
  }, Repl)
  self.tty = opts.tty
  if self.tty == nil then self.tty = self.host and self.host.isatty(0) and self.host.isatty(1) end
  return self
end

-- names of concept types and predicates for completion
function Repl:schema_names()
  local types, predicates = vocabulary.schema_names(self.nx)
  for _, n in ipairs(predicates) do types[#types + 1] = n end
  return types
end

function Repl:completer()
  local schema = self:schema_names()
  return function(text)
    local out = {}
    local up = text:upper()
    for _, k in ipairs(KEYWORDS) do if k:sub(1, #text) == up then out[#out + 1] = k end end
    for _, n in ipairs(schema) do if n:sub(1, #text) == text then out[#out + 1] = n end end
    for _, c in ipairs { ":help", ":params", ":readonly", ":json", ":explain", ":dry", ":quit" } do
      if c:sub(1, #text) == text then out[#out + 1] = c end
    end
    return out
  end
end

function Repl:print(s) self.out:write(s, "\n") end

function Repl:run_command(text)
  local req = { command = text }
  if next(self.params) then req.parameters = self.params end
  if self.dry then req.dry_run = true end
  local raw = self.nx:call_json(core.json_encode(req), { readonly = self.readonly })
  local resp = core.json_decode(raw)
  if resp.error then self.failures = self.failures + 1 end
  if self.json then return self:print(raw) end
  if resp.error then return self:print(M.format_error(resp.error, text)) end
  local heads = find_headers(text)
  if heads and resp.result ~= nil and not (type(resp.result) == "table" and resp.result.dry_run) then
    local cols = self.host and self.host.columns() or 100
    if #heads == 1 and type(resp.result) ~= "table" or (#heads > 1 and type(resp.result[1]) ~= "table") then
      self:print(core.json_encode(resp.result, true)) -- scalar aggregates
    else
      self:print(M.table(resp.result, heads, cols))
    end
  else
    local r = jsontext.result_text(raw)
    self:print(r and jsontext.pretty(r) or core.json_encode(resp.result, true))
  end
  if resp.next_cursor then self:print("next_cursor: " .. resp.next_cursor) end
  for _, w in ipairs(resp.warnings or {}) do self:print("warning: " .. w) end
end

function Repl:meta(line)
  local cmd, arg = line:match("^:(%a+)%s*(.-)%s*$")
  if cmd == "help" then self:print(M.HELP)
  elseif cmd == "quit" or cmd == "q" or cmd == "exit" then return "quit"
  elseif cmd == "json" then self.json = not self.json; self:print("json " .. (self.json and "on" or "off"))
  elseif cmd == "readonly" or cmd == "dry" then
    local v = arg == "on" or (arg == "" and not self[cmd == "dry" and "dry" or "readonly"])
    if arg ~= "" and arg ~= "on" and arg ~= "off" then self:print(":" .. cmd .. " on|off") return end
    self[cmd == "dry" and "dry" or "readonly"] = v
    self:print(cmd .. " " .. (v and "on" or "off"))
  elseif cmd == "params" then
    if arg == "" then self:print(core.json_encode(self.params, true)) return end
    local p, err = core.json_decode(arg)
    if type(p) ~= "table" then self:print("params must be a JSON object: " .. tostring(err)) return end
    self.params = p
    self:print("params set")
  elseif cmd == "explain" then
    local r, err = self.nx:explain(arg, next(self.params) and self.params or nil)
    if not r then self:print(M.format_error(err, arg)) return end
    self:print(r.sql .. "\n\nparameters: " .. core.json_encode(r.parameters) .. "\n\nplan:")
    for _, p in ipairs(r.plan) do self:print("  " .. p.detail) end
  else
    self:print("unknown command :" .. tostring(cmd) .. " (try :help)")
  end
end

function Repl:read_line(prompt)
  if self.tty then return self.host.readline(prompt) end
  return io.read("l")
end

-- a one-line command runs at once when it is complete: balanced, and either
-- a DESCRIBE/SEARCH or its block ({...}) has closed
local function one_liner_complete(text)
  if not capsule.complete(text) then return false end
  local kw = text:match("^%s*(%u+)")
  return kw == "DESCRIBE" or kw == "SEARCH" or text:find("}", 1, true) ~= nil
end

-- the parser's verdict on text typed so far: nil when it parses (or fails
-- for something other than its syntax, e.g. a parameter not set yet), else
-- the syntax error and whether the text merely stops too early (more lines
-- may follow)
local function verdict(text, params)
  local _, err = M.parse(text, params)
  if not err or err.code ~= "KIP_1001" then return nil end
  return err, tostring(err.message):find("found end of input", 1, true) ~= nil
end

function M.parse(text, params)
  local r = core.json_decode(core.parse(text, params and next(params) and core.json_encode(params) or nil))
  return r.result, r.error
end

-- words people type to leave or ask for help
local BARE = { quit = ":quit", exit = ":quit", ["\\q"] = ":quit", help = ":help", ["?"] = ":help" }

function Repl:loop()
  if self.tty then
    self:print(("kip %s — KIP shell on %s. :help for help, Ctrl-D to leave."):format(core.version, self.nx.path))
    if self.history then self.host.read_history(self.history) end
    self.host.set_completer(self:completer())
  end
  local buf = {}
  local function flush()
    local text = table.concat(buf, "\n"):gsub(";%s*$", "")
    buf = {}
    if not text:match("%S") then return end
    if self.tty then self.host.add_history((text:gsub("\n", " "))) end
    self:run_command(text)
  end
  while true do
    local line = self:read_line(#buf == 0 and "kip> " or "...> ")
    if line == nil then break end
    local bare = #buf == 0 and BARE[line:match("^%s*(.-)%s*$"):lower()]
    if bare then line = bare end
    if line:match("^%s*:") then
      if #buf > 0 then flush() end
      if self.tty then self.host.add_history(line) end
      if self:meta(line:match("^%s*(.-)%s*$")) == "quit" then break end
    elseif not line:match("%S") then
      -- a blank line ends a multi-line command; one the parser says is
      -- incomplete is dropped, with what is missing shown
      if #buf > 0 then
        local text = table.concat(buf, "\n")
        local err, incomplete = verdict(text, self.params)
        if err and incomplete and self.tty then
          self:print(M.format_error(err, text))
          self:print("(not run: the command is incomplete)")
          buf = {}
        else
          flush() -- scripts see the error
        end
      end
    else
      buf[#buf + 1] = line
      local text = table.concat(buf, "\n")
      local err, incomplete = verdict(text, self.params)
      if (err and not incomplete) -- wrong already: show the error now, do not swallow the next lines
        or (#buf == 1 and one_liner_complete(text)) or (line:match(";%s*$") and capsule.complete(text)) then
        flush()
      end
    end
  end
  if #buf > 0 then flush() end
  if self.tty then
    self:print("")
    if self.history then self.host.write_history(self.history, 1000) end
    self.host.set_completer(nil)
  end
  return self.failures
end

return M
