--- kip.operator — the commands and MCP tools an operator adds from an
--- extension folder (kip.subsystems; docs/extending.md "CLI commands" and
--- "MCP tools"): extension kinds "command" and "mcp_tool", their adapters to
--- the CLI and the MCP server, and the view of the nexus their sandboxed
--- code gets — KIP through the governed pipeline as the caller the front
--- end authenticated, read-only unless the extension declares writes.
local core = require "kip.core"
local sandbox = require "kip.sandbox"
local extension = require "kip.extension"

local M = {}

-- an option table from operator code: names, key, value, multi and a named
-- check only (no host-side functions)
local function plain_options(list)
  if list == nil then return {} end
  if type(list) ~= "table" then return nil, "options must be a list of {\"--name\", value = …}" end
  local out = {}
  for i, e in ipairs(list) do
    if type(e) ~= "table" or type(e[1]) ~= "string" or not e[1]:match("^%-") then
      return nil, ("options[%d] must be {\"--name\", …}"):format(i)
    end
    if e.check ~= nil and e.check ~= "int" and e.check ~= "number" then
      return nil, ("options[%d]: check is \"int\" or \"number\""):format(i)
    end
    local c = { key = type(e.key) == "string" and e.key or nil, value = type(e.value) == "string" and e.value or nil,
      multi = e.multi == true or nil, check = e.check }
    for _, n in ipairs(e) do
      if type(n) ~= "string" then return nil, ("options[%d]: option names are strings"):format(i) end
      c[#c + 1] = n
    end
    out[i] = c
  end
  return out
end

extension.kind("command", {
  label = "command",
  check = function(c)
    if type(c) ~= "table" or type(c.run) ~= "function" then
      return nil, "a command must return {summary = \"…\", run = function(cmd) … end}"
    end
    local opts, err = plain_options(c.options)
    if not opts then return nil, err end
    c.options = opts
    return c
  end,
})

extension.kind("mcp_tool", {
  label = "MCP tool",
  check = function(t)
    if type(t) ~= "table" or type(t.call) ~= "function" or type(t.description) ~= "string" then
      return nil, "an MCP tool must return {description = \"…\", call = function(args, nexus) … end}"
    end
    if t.inputSchema ~= nil and type(t.inputSchema) ~= "table" then return nil, "inputSchema must be a JSON schema object" end
    return t
  end,
})

--- The nexus as sandboxed code sees it: execute(command, parameters) ->
--- the KIP response (a table), as caller ctx, read-only unless writes.
function M.view(nx, ctx, writes)
  return {
    readonly = not writes,
    execute = function(command, parameters)
      if type(command) ~= "string" then error("execute needs a KIP command string", 2) end
      local req = { command = command, parameters = parameters }
      return core.json_decode(nx:call_json(core.json_encode(req), { readonly = not writes, ctx = ctx }))
    end,
  }
end

--- `kip NAME` from a command extension: its options (plus the global and
--- governance ones) parsed by kip.cli.options, then run(cmd) sandboxed with
--- cmd = {args, options, nexus, print, stderr}; its return value is the
--- exit status (default 0).
function M.command(ext)
  return {
    usage = ext.usage or ext.name, summary = (ext.summary or "") .. " (" .. ext.path .. ")",
    help = ext.help or ("usage: kip %s\n\n%s\n"):format(ext.usage or ext.name, ext.summary or ""),
    run = function(cli, args)
      extension.refresh(ext)
      local o, positional = cli:parse(args, ext.options, { governance = ext.governance ~= false })
      o.help = nil
      local nx = cli:open_nexus(true)
      local out = {}
      local cmd = {
        args = positional, options = o, nexus = M.view(nx, cli.gov.ctx, ext.writes == true),
        print = function(...)
          local parts = {}
          for i = 1, select("#", ...) do parts[i] = tostring((select(i, ...))) end
          out[#out + 1] = table.concat(parts, "\t")
        end,
        stderr = function(msg) io.stderr:write(tostring(msg), "\n") end,
      }
      local ok, res = extension.call(ext, "run", nil, cmd)
      nx:close()
      for _, line in ipairs(out) do io.write(line, "\n") end
      if not ok then cli:stderr("kip %s: %s", ext.name, res) return 1 end
      return math.type(res) == "integer" and res or 0
    end,
  }
end

--- An MCP tool provider for the operator's tool extensions: a tool that
--- does not declare writes is offered on read-only servers too, and its
--- calls run read-only.
function M.mcp_provider(tools)
  local by = {}
  for _, t in ipairs(tools) do by[t.name] = t end
  return {
    list = function(readonly)
      local out = {}
      for _, t in ipairs(tools) do
        if not (readonly and t.writes) then
          out[#out + 1] = { name = t.name, title = t.title or t.name, description = t.description,
            inputSchema = t.inputSchema or { type = "object", properties = {} },
            annotations = { readOnlyHint = not t.writes, destructiveHint = t.writes == true, idempotentHint = not t.writes,
              openWorldHint = false } }
        end
      end
      return out
    end,
    call = function(nx, name, args, ctx, readonly)
      local t = by[name]
      if not t or (readonly and t.writes) then return nil end
      local ok, res = extension.call(t, "call", nil, sandbox.copy(args), M.view(nx, ctx, t.writes == true and not readonly))
      if not ok then
        return core.json_encode { error = { code = "KIP_4003", name = "InternalError", message = res,
          hint = "The operator's MCP tool failed; see " .. tostring(t.path) } }, true
      end
      if type(res) == "string" then return res, false end
      return core.json_encode { result = res == nil and core.null or res }, false
    end,
  }
end

return M
