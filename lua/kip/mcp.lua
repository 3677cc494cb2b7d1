-- kip.mcp — a Model Context Protocol server over stdio (JSON-RPC 2.0, one
-- JSON object per line). Exposes the KIP function-calling tools
-- execute_kip / execute_kip_readonly (the input schemas published with KIP
-- RC11, lua/kip/mcp/*.json), the KIP syntax card and the live
-- `DESCRIBE PRIMER` as resources, and a grounding prompt. Every call runs
-- through the Nexus, so the governance pipeline applies with ctx.channel =
-- "mcp". stdout carries only protocol frames; logs go to stderr.
local core = require "kip.core"

local M = {}

M.PROTOCOL_VERSIONS = { "2025-11-25", "2025-06-18", "2024-11-05" }

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

local function tool(home, file, title)
  local def = assert(core.json_decode(assert(read_file(home .. "/lua/kip/mcp/" .. file),
    "missing " .. file)))
  return { name = def.name, title = title, description = def.description, inputSchema = def.parameters }
end

-- JSON-RPC error codes
local PARSE, INVALID, NO_METHOD, BAD_PARAMS, INTERNAL = -32700, -32600, -32601, -32602, -32603

--- A server over an open Nexus. opts: readonly (only execute_kip_readonly),
--- home (kipnexus home for the data files), ctx (caller identity), log.
function M.server(nx, opts)
  opts = opts or {}
  local home = opts.home or require("kip").home()
  local s = {
    nx = nx, readonly = opts.readonly, initialized = false,
    log = opts.log or function(msg) io.stderr:write("kip mcp: ", msg, "\n") end,
    ctx = opts.ctx or {},
  }
  s.tools = { tool(home, "execute_kip_readonly.json", "Query the memory (read-only KIP)") }
  if not opts.readonly then table.insert(s.tools, 1, tool(home, "execute_kip.json", "Read and write the memory (KIP)")) end
  s.syntax = read_file(home .. "/lua/kip/mcp/KIPSyntax.md") or "KIP syntax card not installed."
  return setmetatable(s, { __index = M })
end

local function result(id, r) return { jsonrpc = "2.0", id = id, result = r } end
local function failure(id, code, message, data)
  return { jsonrpc = "2.0", id = id == nil and core.null or id, error = { code = code, message = message, data = data } }
end

local empty = setmetatable({}, { __index = function() return nil end })

function M:call_tool(id, params)
  local name, args = params.name, params.arguments
  if args == nil then args = {} end
  if type(name) ~= "string" then return failure(id, BAD_PARAMS, "tools/call needs params.name") end
  local readonly
  if name == "execute_kip_readonly" then readonly = true
  elseif name == "execute_kip" and not self.readonly then readonly = false
  else return failure(id, BAD_PARAMS, "unknown tool '" .. name .. "'", { tools = { self.tools[1].name, self.tools[2] and self.tools[2].name } }) end
  if type(args) ~= "table" or getmetatable(args) == core.array_mt then
    return failure(id, BAD_PARAMS, "tools/call arguments must be an object")
  end
  -- the arguments are the KIP request envelope; the core validates it
  local text = self.nx:call_json(core.json_encode(args), { readonly = readonly, ctx = self.ctx })
  local resp = core.json_decode(text) or empty
  return result(id, {
    content = { { type = "text", text = text } },
    structuredContent = resp,
    isError = resp.error ~= nil,
  })
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

local function negotiate(requested)
  for _, v in ipairs(M.PROTOCOL_VERSIONS) do if v == requested then return v end end
  return M.PROTOCOL_VERSIONS[1]
end

--- Handle one decoded message; returns the response table or nil (notifications).
function M:handle(msg)
  if type(msg) ~= "table" or msg.jsonrpc ~= "2.0" or type(msg.method) ~= "string" then
    if type(msg) == "table" and msg.method == nil and (msg.result ~= nil or msg.error ~= nil) then return nil end -- a client response
    return failure(type(msg) == "table" and msg.id or nil, INVALID, "invalid JSON-RPC 2.0 request")
  end
  local id, method = msg.id, msg.method
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

--- Serve until stdin closes. input/output default to io.stdin/io.stdout.
function M:serve(input, output)
  input, output = input or io.stdin, output or io.stdout
  for line in input:lines() do
    if line:match("%S") then
      local resp
      local msg, err = core.json_decode(line)
      if msg == nil and err then
        resp = failure(nil, PARSE, "parse error: " .. err)
      else
        local ok, r = xpcall(self.handle, debug.traceback, self, msg)
        if ok then resp = r
        else
          self.log(r)
          resp = failure(type(msg) == "table" and msg.id or nil, INTERNAL, "internal error: " .. tostring(r):match("^[^\n]*"))
        end
      end
      if resp then
        output:write(core.json_encode(resp), "\n")
        output:flush()
      end
    end
  end
end

return M
