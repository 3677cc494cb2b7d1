-- kip.mcp — a Model Context Protocol server over stdio (JSON-RPC 2.0, one
-- JSON object per line). Exposes the KIP function-calling tools
-- execute_kip / execute_kip_readonly (the input schemas published with KIP
-- RC11, lua/kip/mcp/*.json), the KIP syntax card and the live
-- `DESCRIBE PRIMER` as resources, and a grounding prompt. Every call runs
-- through the Nexus, so the governance pipeline applies with ctx.channel =
-- "mcp". stdout carries only protocol frames; logs go to stderr.
--
-- Robust against what real clients and hostile input send: every line that
-- carries an id gets an answer with that id (decoded leniently, or the id
-- recovered from a line that is not JSON), nothing a client sends takes the
-- server down, responses are capped in size (KIP_4002 with paging advice),
-- the tool schemas are flat objects, frames are byte-stable, and a request
-- stops when the client cancels it or goes away (notifications/cancelled,
-- broken stdout: polled while it runs through kip.host when available).
local core = require "kip.core"

local M = {}

M.PROTOCOL_VERSIONS = { "2025-11-25", "2025-06-18", "2025-03-26", "2024-11-05" } -- newest first
M.MAX_RESPONSE_BYTES = 256 * 1024 -- one tool result, sized for a model's context

M.INSTRUCTIONS = [[
This server is your persistent memory: a KIP (Knowledge Interaction Protocol) Cognitive Nexus, a knowledge graph of concept nodes and proposition links.
Start a session with execute_kip_readonly {"command": "DESCRIBE PRIMER"} to learn who you are and which domains, types and predicates exist; read the resource kip://syntax for the language.
Read with FIND / SEARCH / DESCRIBE / EXPORT via execute_kip_readonly. Write with UPSERT / UPDATE / MERGE / DELETE via execute_kip, always with provenance: WITH METADATA { source: "...", author: "...", confidence: 0.0-1.0 }.
Define a new concept type ($ConceptType) or predicate ($PropositionType) before using it. Pass values through "parameters" (:name placeholders) instead of splicing them into strings. Never store secrets or credentials.
Errors come back as {"error": {"code", "message", "hint"}}: read the hint, fix the command and retry.]]

local function read_file(path)
  local f = io.open(path, "rb")
  if not f then return nil end
  local s = f:read("a") or f:read("*a")
  f:close()
  return s
end

-- A flat object schema: several hosts reject tools whose input schema has
-- oneOf/anyOf/allOf at the top level; "exactly one of command/commands" is
-- enforced by the core (and said in the descriptions).
local function flat(schema)
  local out = {}
  for k, v in pairs(schema) do
    if k ~= "oneOf" and k ~= "anyOf" and k ~= "allOf" then out[k] = v end
  end
  return out
end

local function tool(home, file, title, card, annotations)
  local def = assert(core.json_decode(assert(read_file(home .. "/lua/kip/mcp/" .. file),
    "missing " .. file)))
  local description = def.description .. " Give exactly one of `command` or `commands`."
  if card then description = description .. "\n\n" .. card end
  return { name = def.name, title = title, description = description, inputSchema = flat(def.parameters),
    annotations = annotations }
end

-- JSON-RPC error codes
local PARSE, INVALID, NO_METHOD, BAD_PARAMS, INTERNAL = -32700, -32600, -32601, -32602, -32603

--- A server over an open Nexus. opts: readonly (only execute_kip_readonly),
--- home (kipnexus home for the data files), ctx (caller identity), log.
function M.server(nx, opts)
  opts = opts or {}
  local home = opts.home or require("kip").home()
  local s = {
    nx = nx, readonly = opts.readonly, initialized = false, reinforce = not opts.readonly and opts.reinforce ~= false,
    log = opts.log or function(msg) io.stderr:write("kip mcp: ", msg, "\n") end,
    ctx = opts.ctx or {}, max_response = opts.max_response_bytes or M.MAX_RESPONSE_BYTES,
    host = opts.host, queue = {},
  }
  local card = read_file(home .. "/lua/kip/mcp/card.md")
  s.tools = { tool(home, "execute_kip_readonly.json", "Query the memory (read-only KIP)", card,
    { readOnlyHint = true, destructiveHint = false, idempotentHint = true, openWorldHint = false }) }
  if not opts.readonly then
    table.insert(s.tools, 1, tool(home, "execute_kip.json", "Read and write the memory (KIP)", card,
      { readOnlyHint = false, destructiveHint = true, idempotentHint = false, openWorldHint = false }))
  end
  s.syntax = read_file(home .. "/lua/kip/mcp/KIPSyntax.md") or "KIP syntax card not installed."
  -- the subsystems' tools (offered when the nexus has their schema) and
  -- the operator's (kip.subsystems): each tool name -> its provider
  s.providers, s.after = {}, {}
  for _, p in ipairs(require("kip.subsystems").mcp_providers()) do
    if p.list and (not p.ready or p.ready(nx)) then
      for _, t in ipairs(p.list(opts.readonly)) do
        s.tools[#s.tools + 1] = t
        s.providers[t.name] = p
      end
    end
    if p.after then s.after[#s.after + 1] = p.after end
  end
  return setmetatable(s, { __index = M })
end

local function result(id, r) return { jsonrpc = "2.0", id = id, result = r } end
local function failure(id, code, message, data)
  return { jsonrpc = "2.0", id = id == nil and core.null or id, error = { code = code, message = message, data = data } }
end

-- While a request runs: has the client cancelled it, or gone away? Lines
-- that arrive meanwhile are queued for the serve loop.
function M:interrupt_check(id)
  local host = self.host
  if not host then return nil end
  return function()
    if host.output_broken() then self.gone = true return true end
    while host.line_waiting() == "line" do
      local line = host.read_line()
      local msg = core.json_decode_request(line)
      if type(msg) == "table" and msg.method == "notifications/cancelled" and type(msg.params) == "table"
          and msg.params.requestId == id then
        self.cancelled = id
        return true
      end
      self.queue[#self.queue + 1] = line
    end
    return false
  end
end

function M:call_tool(id, params)
  local name, args = params.name, params.arguments
  if args == nil or args == core.null then args = {} end
  if type(name) ~= "string" then return failure(id, BAD_PARAMS, "tools/call needs params.name") end
  local readonly
  if name == "execute_kip_readonly" then readonly = true
  elseif name == "execute_kip" and not self.readonly then readonly = false
  elseif self.providers[name] and type(args) == "table" and getmetatable(args) ~= core.array_mt then
    local text, is_error = self.providers[name].call(self.nx, name, args, self.ctx, self.readonly)
    if text then return result(id, { content = { { type = "text", text = text } }, isError = is_error }) end
    local names = {}
    for i, t in ipairs(self.tools) do names[i] = t.name end
    return failure(id, BAD_PARAMS, "unknown tool '" .. name .. "'", { tools = names })
  else
    local names = {}
    for i, t in ipairs(self.tools) do names[i] = t.name end
    return failure(id, BAD_PARAMS, "unknown tool '" .. name .. "'", { tools = names })
  end
  if type(args) ~= "table" or getmetatable(args) == core.array_mt then
    return failure(id, BAD_PARAMS, "tools/call arguments must be an object")
  end
  -- the arguments are the KIP request envelope; the core validates it
  local text = self.nx:call_json(core.json_encode(args), { readonly = readonly, ctx = self.ctx,
    interrupted = self:interrupt_check(id) })
  if self.cancelled == id then -- a cancelled request is not answered
    self.cancelled = nil
    return nil
  end
  -- what the subsystems do with a result the agent received (the sleep
  -- cycle's reinforcement of the links it returned: at most once a day
  -- each, never on a read-only server or with --no-reinforce)
  if self.reinforce and text:sub(1, 10) == '{"result":' then
    for _, after in ipairs(self.after) do after(self.nx, text) end
  end
  text = require("kip.text").cap_response(text, self.max_response)
  -- the KIP response once, as text (the tools publish no outputSchema, so no
  -- structuredContent copy); isError when it is a KIP error
  local is_error = text:sub(1, 9) == '{"error":'
  return result(id, { content = { { type = "text", text = text } }, isError = is_error })
end

function M:resources()
  return {
    resources = {
      { uri = "kip://syntax", name = "KIP syntax card", mimeType = "text/markdown",
        description = "The Knowledge Interaction Protocol (RC11): KQL, KML, META, errors — read before writing commands." },
      { uri = "kip://primer", name = "DESCRIBE PRIMER", mimeType = "application/json",
        description = "Who this memory belongs to and what it contains: identity, domains, key types and predicates (live)." },
    },
  }
end

function M:read_resource(id, params)
  local uri = params.uri
  if type(uri) ~= "string" then return failure(id, BAD_PARAMS, "resources/read needs params.uri (kip://syntax or kip://primer)") end
  if uri == "kip://syntax" then
    return result(id, { contents = { { uri = uri, mimeType = "text/markdown", text = self.syntax } } })
  elseif uri == "kip://primer" then
    local text = self.nx:call_json('{"command":"DESCRIBE PRIMER"}', { readonly = true, ctx = self.ctx })
    return result(id, { contents = { { uri = uri, mimeType = "application/json", text = text } } })
  end
  return failure(id, BAD_PARAMS, "unknown resource '" .. tostring(uri) .. "'")
end

function M:prompts()
  return { prompts = { { name = "kip_grounding", title = "Ground yourself in your memory",
    description = "Loads the memory primer and the KIP syntax card so the model can query and update its memory." } } }
end

function M:get_prompt(id, params)
  if params.name ~= "kip_grounding" then return failure(id, BAD_PARAMS, "unknown prompt '" .. tostring(params.name) .. "'") end
  local primer = self.nx:call_json('{"command":"DESCRIBE PRIMER"}', { readonly = true, ctx = self.ctx })
  local text = M.INSTRUCTIONS .. "\n\n## Your memory (DESCRIBE PRIMER)\n" .. primer .. "\n\n## KIP syntax\n" .. self.syntax
  return result(id, { description = "Memory primer and KIP syntax",
    messages = { { role = "user", content = { type = "text", text = text } } } })
end

-- the newest version we support that is not newer than the client's (dates
-- compare as strings); the newest one when the client's is older than all
local function negotiate(requested)
  if type(requested) == "string" then
    for _, v in ipairs(M.PROTOCOL_VERSIONS) do if v <= requested then return v end end
  end
  return M.PROTOCOL_VERSIONS[1]
end

local function valid_id(id)
  local t = type(id)
  return t == "string" or (t == "number" and id == math.floor(id) and id > -2^53 and id < 2^53)
end

--- Handle one decoded message; returns the response table or nil (notifications).
function M:handle(msg)
  if type(msg) ~= "table" or msg.jsonrpc ~= "2.0" or type(msg.method) ~= "string" then
    if type(msg) == "table" and msg.method == nil and (msg.result ~= nil or msg.error ~= nil) then return nil end -- a client response
    return failure(type(msg) == "table" and valid_id(msg.id) and msg.id or nil, INVALID, "invalid JSON-RPC 2.0 request")
  end
  local id, method = msg.id, msg.method
  if id ~= nil and not valid_id(id) then
    return failure(nil, INVALID, "invalid request: id must be a string or an integer")
  end
  local params = msg.params
  if params == nil or params == core.null then params = {} end
  if type(params) ~= "table" then return id ~= nil and failure(id, BAD_PARAMS, "params must be an object") or nil end
  if id == nil then -- notifications: never answered
    if method == "notifications/initialized" then self.initialized = true end
    return nil
  end
  if method == "initialize" then
    self.client = params.clientInfo
    return result(id, {
      protocolVersion = negotiate(params.protocolVersion),
      capabilities = { tools = { listChanged = false }, resources = { listChanged = false, subscribe = false },
        prompts = { listChanged = false } },
      serverInfo = { name = "kipnexus", title = "kipnexus memory (KIP)", version = core.version },
      instructions = M.INSTRUCTIONS,
    })
  elseif method == "ping" then
    return result(id, {})
  elseif method == "tools/list" then
    return result(id, { tools = self.tools })
  elseif method == "tools/call" then
    return self:call_tool(id, params)
  elseif method == "resources/list" then
    return result(id, self:resources())
  elseif method == "resources/read" then
    return self:read_resource(id, params)
  elseif method == "resources/templates/list" then
    return result(id, { resourceTemplates = setmetatable({}, core.array_mt) })
  elseif method == "prompts/list" then
    return result(id, self:prompts())
  elseif method == "prompts/get" then
    return self:get_prompt(id, params)
  end
  return failure(id, NO_METHOD, "method '" .. method .. "' not found")
end

--- Answer one line of input: the response table, or nil.
function M:answer(line)
  local msg, err, rid = core.json_decode_request(line)
  if msg == nil then
    if rid ~= nil and not valid_id(rid) then rid = nil end
    return failure(rid, PARSE, "parse error: " .. tostring(err))
  end
  local ok, r = xpcall(self.handle, debug.traceback, self, msg)
  if ok then return r end
  self.log(r)
  local id = type(msg) == "table" and valid_id(msg.id) and msg.id or nil
  return failure(id, INTERNAL, "internal error: " .. tostring(r):match("^[^\n]*"))
end

--- Serve until stdin closes (or stdout breaks). input/output default to
--- stdin/stdout; with kip.host (the kip executable) stdin is read through
--- it, so cancellations can be seen while a request runs.
function M:serve(input, output)
  output = output or io.stdout
  local next_line
  if input == nil and self.host then
    next_line = self.host.read_line
  else
    local it = (input or io.stdin):lines()
    next_line = function() return it() end
  end
  while not self.gone do
    local line = table.remove(self.queue, 1) or next_line()
    if line == nil then break end
    if line:match("%S") then
      local resp = self:answer(line)
      if resp and not self.gone then
        local ok = output:write(core.json_encode(resp), "\n")
        if not ok or not output:flush() then break end -- the client is gone
      end
    end
  end
end

--- Start-up failed: tell the client (the answer to its first request) and return.
function M.refuse_startup(reason, input, output)
  input, output = input or io.stdin, output or io.stdout
  for line in input:lines() do
    local msg, _, rid = core.json_decode_request(line)
    local id = type(msg) == "table" and msg.id or rid
    if id ~= nil and valid_id(id) then
      output:write(core.json_encode(failure(id, INTERNAL, "kip mcp could not start: " .. reason)), "\n")
      output:flush()
      return
    end
  end
end

return M
