-- kip.http — the KIP function-calling endpoints inside nginx/OpenResty
-- (LuaJIT build of kip.core). scripts/nginx/kip.conf wires it up:
--
--   init_worker_by_lua_block { require("kip.http").init_worker{ db = "/var/lib/kip/memory.db" } }
--   location = /kip/execute          { content_by_lua_block { require("kip.http").execute() } }
--   location = /kip/execute_readonly { content_by_lua_block { require("kip.http").execute_readonly() } }
--   location = /kip/health           { content_by_lua_block { require("kip.http").health() } }
--
-- Request and response bodies are exactly the KIP envelope (RC11 §6). One
-- Nexus per worker; several workers write to the same file safely (SQLite
-- WAL, writers wait on the busy timeout). Caller identity comes from the
-- headers X-KIP-Actor, X-KIP-Counterparty, X-KIP-Roles (comma-separated),
-- X-KIP-Tenant, X-KIP-User and X-KIP-Channel (default "http"), which the
-- trusted front sets (docs/security.md), and goes into the policies' ctx. Transport
-- problems get an HTTP status and a KIP-shaped error body: bad JSON 400, a
-- method other than POST 405, a body over the cap 413; KIP errors are part
-- of a 200 response, like in every other KIP interface. A response larger
-- than max_response (default 1 MiB) becomes a KIP_4002 error with paging advice.
local kip = require "kip"
local core = kip.core

local M = { max_body = 1024 * 1024, max_response = 1024 * 1024 }
local nx -- this worker's Nexus
local open_error

--- Open this worker's Nexus. opts: db (required), policies (default
--- {"default"}; {} for none), policy_dirs, max_body (bytes, default 1 MiB),
--- max_response (bytes, default 1 MiB), call (default call options).
function M.init_worker(opts)
  assert(type(opts) == "table" and opts.db, "kip.http.init_worker{db = ...} needs a database path")
  M.max_body = opts.max_body or M.max_body
  M.max_response = opts.max_response or M.max_response
  local policies = opts.policies or { "default" }
  local err
  nx, err = kip.open { path = opts.db, policies = #policies > 0 and policies or nil,
    policy_dirs = opts.policy_dirs, call = opts.call,
    on_policy_error = function(msg) ngx.log(ngx.ERR, "kip policy: ", msg) end }
  if not nx then
    open_error = err
    ngx.log(ngx.ERR, "kip: cannot open ", opts.db, ": ", err)
  end
end

local function reply(status, body)
  ngx.status = status
  ngx.header["Content-Type"] = "application/json"
  ngx.header["Cache-Control"] = "no-store"
  ngx.print(body)
  return ngx.exit(status)
end

local function kip_error(status, code, name, message, hint)
  return reply(status, core.json_encode { error = { code = code, name = name, message = message, hint = hint or "" } })
end

--- the caller identity the trusted front's X-KIP-* headers name (also the
--- inspector's viewer under nginx: kip.ui.nginx)
function M.caller()
  local h = ngx.req.get_headers()
  local roles
  if h["x-kip-roles"] then
    roles = {}
    for r in tostring(h["x-kip-roles"]):gmatch("[^,%s]+") do roles[#roles + 1] = r end
  end
  return { actor = h["x-kip-actor"], counterparty = h["x-kip-counterparty"], roles = roles,
    tenant = h["x-kip-tenant"], user = h["x-kip-user"], channel = h["x-kip-channel"] or "http" }
end

local function read_body()
  ngx.req.read_body()
  local body = ngx.req.get_body_data()
  if not body then
    local file = ngx.req.get_body_file() -- spooled to disk: larger than the buffer
    if file then
      local f = io.open(file, "rb")
      if f then body = f:read("*a") f:close() end
    end
  end
  return body
end

-- the checked body of a POST: returns the text and its decoded value, or
-- nil and the reply already sent
local function posted_body(hint)
  if ngx.req.get_method() ~= "POST" then
    ngx.header["Allow"] = "POST"
    return nil, kip_error(405, "KIP_1001", "InvalidSyntax", "use POST with a JSON request body", hint)
  end
  if not nx then
    return nil, kip_error(503, "KIP_4003", "InternalError", "the memory is not available: " .. tostring(open_error))
  end
  local length = tonumber(ngx.var.content_length or "")
  if length and length > M.max_body then
    return nil, kip_error(413, "KIP_4002", "ResourceExhausted",
      ("request body is %d bytes; the limit is %d"):format(length, M.max_body), "Split the batch into several requests.")
  end
  local body = read_body()
  if not body or body == "" then
    return nil, kip_error(400, "KIP_1001", "InvalidSyntax", "empty request body", hint)
  end
  if #body > M.max_body then
    return nil, kip_error(413, "KIP_4002", "ResourceExhausted",
      ("request body is %d bytes; the limit is %d"):format(#body, M.max_body), "Split the batch into several requests.")
  end
  -- decoded as leniently as the core decodes it (BOM, 64-bit overflow, lone
  -- surrogates); too deep or not JSON at all is a 400
  local decoded, err = core.json_decode_request(body)
  if decoded == nil then
    return nil, kip_error(400, "KIP_1001", "InvalidSyntax", "request body is not JSON: " .. tostring(err), hint)
  end
  return body, decoded
end

local function handle(readonly)
  local body = posted_body("Send {\"command\": \"...\"} as application/json.")
  if not body then return end
  return reply(200, kip.cap_response(nx:call_json(body, { readonly = readonly, ctx = M.caller() }), M.max_response))
end

function M.execute() return handle(false) end
function M.execute_readonly() return handle(true) end

--- POST to a subsystem's route (kip.subsystems: e.g. /kip/arg for the ARG
--- loop, docs/arg.md): the JSON body and the caller identity (the same
--- headers as /kip/execute) go to the route's handler.
---   location = /kip/arg { content_by_lua_block { require("kip.http").route("arg") } }
function M.route(name)
  local handler = require("kip.subsystems").http_routes()[name]
  if not handler then return kip_error(404, "KIP_1001", "InvalidSyntax", "no route " .. tostring(name)) end
  local body, req = posted_body('Send a JSON object; the caller is the X-KIP-Roles/Tenant/User identity.')
  if not body then return end
  local status, resp = handler(nx, M.caller(), req)
  return reply(status, kip.cap_response(core.json_encode(resp), M.max_response))
end

-- require("kip.http").arg() and the like: the subsystems' routes by name
setmetatable(M, { __index = function(_, name)
  if require("kip.subsystems").http_routes()[name] then return function() return M.route(name) end end
end })

--- this worker's Nexus, or nil and why it could not be opened
function M.nexus() return nx, open_error end

function M.health()
  if ngx.req.get_method() ~= "GET" and ngx.req.get_method() ~= "HEAD" then
    ngx.header["Allow"] = "GET"
    return kip_error(405, "KIP_1001", "InvalidSyntax", "use GET")
  end
  if not nx then return reply(503, core.json_encode { status = "unavailable", error = tostring(open_error) }) end
  local r = core.json_decode(nx.handle:call_json('{"command":"DESCRIBE DOMAINS"}', { readonly = true }))
  local ok = r and r.result ~= nil
  return reply(ok and 200 or 503, core.json_encode {
    status = ok and "ok" or "error", version = kip.version, protocol = "KIP v1.0-RC11", worker = ngx.worker.pid() })
end

return M
