--- kip.ui.nginx — the inspector (issue 41; docs/ui.md) inside nginx/OpenResty,
--- behind the operator's own authentication: the same pages and endpoints as
--- `kip ui`, over the worker's Nexus (kip.http), the viewer being the caller
--- the trusted front names in the X-KIP-* headers (kip.http.caller). Whether
--- the viewer is the operator, and whether the console may write, is this
--- location's configuration, never a header:
---
---   location /kip/ui/ { content_by_lua_block { require("kip.ui.nginx").serve { prefix = "/kip/ui" } } }
---   location /kip/ops/ui/ { # behind stronger authentication
---     content_by_lua_block { require("kip.ui.nginx").serve { prefix = "/kip/ops/ui", operator = true } } }
local core = require "kip.core"
local api = require "kip.ui.api"
local assets = require "kip.ui.assets"

local M = {}

local function reply(status, ctype, body)
  ngx.status = status
  ngx.header["Content-Type"] = ctype or "text/plain; charset=utf-8"
  ngx.header["Cache-Control"] = "no-store"
  ngx.header["X-Content-Type-Options"] = "nosniff"
  ngx.header["Content-Security-Policy"] = "default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:"
  ngx.print(body or "")
  return ngx.exit(status)
end

--- answer the request under opts.prefix (default "/kip/ui"). opts: operator,
--- writes, max_response (bytes, default 1 MiB)
function M.serve(opts)
  opts = opts or {}
  local http = require "kip.http"
  local prefix = (opts.prefix or "/kip/ui"):gsub("/$", "")
  local uri = ngx.var.uri
  if uri == prefix then return ngx.redirect(prefix .. "/", 302) end
  local path = uri:sub(#prefix + 1)
  local method = ngx.req.get_method()
  if path:sub(1, 5) == "/api/" then
    local nx, err = http.nexus()
    if not nx then
      return reply(503, "application/json", core.json_encode { error = { code = "KIP_4003",
        message = "the memory is not available: " .. tostring(err) } })
    end
    local ctx = http.caller()
    ctx.channel = ctx.channel == "http" and "ui" or ctx.channel
    ctx.operator = opts.operator == true or nil
    local body
    if method == "POST" then
      ngx.req.read_body()
      body = ngx.req.get_body_data()
    end
    local query = {}
    for k, v in pairs(ngx.req.get_uri_args()) do query[k] = type(v) == "table" and v[1] or v end
    local status, ctype, out = api.handle(nx, { method = method, path = path, query = query, body = body },
      { ctx = ctx, writes = opts.writes == true, max_response = opts.max_response, vendor = assets.vendor_status() })
    if status >= 500 then ngx.log(ngx.ERR, "kip ui: ", method, " ", path, ": ", out) end
    return reply(status, ctype, out)
  end
  if method ~= "GET" and method ~= "HEAD" then return reply(405, nil, "GET only\n") end
  return reply(assets.get(path))
end

return M
