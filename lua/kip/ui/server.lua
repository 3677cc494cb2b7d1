--- kip.ui.server — `kip ui`'s own HTTP server (issue 41; docs/ui.md): one
--- thread, one request at a time, on 127.0.0.1 only (LuaSocket, Debian's
--- lua-socket). It serves the inspector's pages (kip.ui.assets) and its JSON
--- endpoints (kip.ui.api) to one viewer: the URL it prints carries a
--- one-time token; the first visit trades it for a session cookie
--- (HttpOnly, SameSite=Strict), and every endpoint needs that cookie. A
--- Host header other than the server's own address is refused (a page on
--- another site cannot reach it by rebinding a name to 127.0.0.1), and so is
--- a POST whose Origin is not the server's.
local core = require "kip.core"
local api = require "kip.ui.api"
local assets = require "kip.ui.assets"

local M = {}

M.MAX_BODY = 1024 * 1024
M.MAX_HEADERS = 100
M.COOKIE = "kip_ui"

--- n random bytes as hex (from the kernel)
function M.random_hex(n)
  local f = assert(io.open("/dev/urandom", "rb"))
  local b = f:read(n)
  f:close()
  return (b:gsub(".", function(c) return ("%02x"):format(c:byte()) end))
end

local function url_decode(s)
  return (s:gsub("+", " "):gsub("%%(%x%x)", function(h) return string.char(tonumber(h, 16)) end))
end

--- the path and the query of a request target: "/a?x=1&y=2" -> "/a", {x="1", y="2"}
function M.split_target(target)
  local path, qs = target:match("^([^?#]*)%??([^#]*)")
  local query = {}
  for pair in (qs or ""):gmatch("[^&]+") do
    local k, v = pair:match("^([^=]*)=?(.*)$")
    if k and k ~= "" then query[url_decode(k)] = url_decode(v) end
  end
  return url_decode(path or "/"), query
end

local REASONS = { [200] = "OK", [302] = "Found", [304] = "Not Modified", [400] = "Bad Request", [403] = "Forbidden",
  [404] = "Not Found", [405] = "Method Not Allowed", [413] = "Payload Too Large", [421] = "Misdirected Request",
  [500] = "Internal Server Error" }

-- one response; head_only: a HEAD request's (the length of the body it would get, no body)
local function send(c, status, ctype, body, extra, head_only)
  local head = { ("HTTP/1.1 %d %s"):format(status, REASONS[status] or "Status"),
    "Content-Type: " .. (ctype or "text/plain; charset=utf-8"), "Content-Length: " .. #(body or ""),
    "Cache-Control: no-store", "X-Content-Type-Options: nosniff", "Referrer-Policy: no-referrer",
    "Content-Security-Policy: default-src 'self'; style-src 'self' 'unsafe-inline'; img-src 'self' data: blob:",
    "Connection: close" }
  for _, h in ipairs(extra or {}) do head[#head + 1] = h end
  c:send(table.concat(head, "\r\n") .. "\r\n\r\n" .. (head_only and "" or body or ""))
end

-- read one request from connection c: {method, target, headers, body} or
-- nil, status, message
local function read_request(c)
  local line, err = c:receive("*l")
  if not line then return nil, nil, err end
  local method, target = line:match("^(%u+) (%S+) HTTP/1%.[01]$")
  if not method then return nil, 400, "not an HTTP/1.x request line" end
  local headers, n = {}, 0
  while true do
    local h = c:receive("*l")
    if not h then return nil, 400, "the headers end early" end
    if h == "" then break end
    n = n + 1
    if n > M.MAX_HEADERS or #h > 8192 then return nil, 400, "too many or too long headers" end
    local k, v = h:match("^([^:]+):%s*(.-)%s*$")
    if k then headers[k:lower()] = v end
  end
  local body
  local len = tonumber(headers["content-length"] or "0")
  if not len or len < 0 then return nil, 400, "bad Content-Length" end
  if len > M.MAX_BODY then return nil, 413, ("the body is %d bytes; the limit is %d"):format(len, M.MAX_BODY) end
  if len > 0 then
    body = c:receive(len)
    if not body then return nil, 400, "the body ends early" end
  end
  return { method = method, target = target, headers = headers, body = body }
end

local function cookie(headers, name)
  for k, v in (headers.cookie or ""):gmatch("([^=;%s]+)=([^;]*)") do if k == name then return v end end
end

--- A server for nexus nx. opts: host (only 127.0.0.1 or localhost), port
--- (0: any free port), view (kip.ui.api's: ctx, writes, operator),
--- log(fmt, ...). Returns the server or nil, error.
function M.new(nx, opts)
  local socket = require "socket"
  local host = opts.host or "127.0.0.1"
  if host ~= "127.0.0.1" and host ~= "localhost" then
    return nil, "the inspector listens on 127.0.0.1 only; publish it through nginx behind your own authentication (docs/ui.md)"
  end
  local srv, err = socket.bind("127.0.0.1", opts.port or 0)
  if not srv then
    return nil, ("cannot listen on 127.0.0.1:%s: %s"):format(tostring(opts.port), tostring(err))
  end
  local _, port = srv:getsockname()
  local s = { nx = nx, srv = srv, port = tonumber(port), token = M.random_hex(16), sessions = {},
    view = opts.view or { ctx = {} }, log = opts.log or function() end }
  s.view.vendor = assets.vendor_status()
  s.hosts = { ["127.0.0.1:" .. s.port] = true, ["localhost:" .. s.port] = true }
  s.url = ("http://127.0.0.1:%d/?token=%s"):format(s.port, s.token)
  return setmetatable(s, { __index = M })
end

--- answer one request (already read) on connection c
function M:answer(c, req)
  local h = req.headers
  if not self.hosts[h.host or ""] then
    return send(c, 421, nil, "this server answers to 127.0.0.1:" .. self.port .. " only\n")
  end
  local path, query = M.split_target(req.target)
  -- the one-time token becomes a session
  if query.token then
    if query.token ~= self.token then
      return send(c, 403, "text/html; charset=utf-8", assets.message_page("This link has been used or is not valid.",
        "Start the inspector again (kip ui) and open the link it prints."))
    end
    self.token = M.random_hex(16) -- used once
    local sid = M.random_hex(24)
    self.sessions[sid] = true
    return send(c, 302, nil, "", { "Location: /", ("Set-Cookie: %s=%s; HttpOnly; SameSite=Strict; Path=/"):format(M.COOKIE, sid) })
  end
  local session = self.sessions[cookie(h, M.COOKIE) or ""]
  if path:sub(1, 5) == "/api/" then
    if not session then
      return send(c, 403, "application/json", core.json_encode { error = { code = "KIP_3004",
        message = "no inspector session", hint = "Open the link kip ui printed (it carries a one-time token)." } })
    end
    if req.method == "POST" and h.origin and not self.hosts[(h.origin:gsub("^https?://", ""))] then
      return send(c, 403, "application/json", core.json_encode { error = { code = "KIP_3004",
        message = "a request from another origin (" .. h.origin .. ")" } })
    end
    local status, ctype, body = api.handle(self.nx, { method = req.method, path = path, query = query, body = req.body },
      self.view)
    self.log("%s %s %d%s", req.method, path, status, status >= 500 and (" " .. body) or "")
    return send(c, status, ctype, body)
  end
  if req.method ~= "GET" and req.method ~= "HEAD" then return send(c, 405, nil, "GET only\n", { "Allow: GET" }) end
  if path == "/" and not session then
    return send(c, 403, "text/html; charset=utf-8", assets.message_page("No inspector session.",
      "Open the link kip ui printed: it carries a one-time token."))
  end
  local status, ctype, body = assets.get(path)
  return send(c, status, ctype, body, nil, req.method == "HEAD")
end

--- serve until stop() returns true (checked between requests, at least
--- every half second)
function M:serve(stop)
  self.srv:settimeout(0.5)
  while not (stop and stop()) do
    local c = self.srv:accept()
    if c then
      c:settimeout(10)
      local req, status, msg = read_request(c)
      if req then
        local ok, err = pcall(self.answer, self, c, req)
        if not ok then
          self.log("error: %s", tostring(err))
          pcall(send, c, 500, nil, "internal error\n")
        end
      elseif status then
        pcall(send, c, status, nil, tostring(msg) .. "\n")
      end
      c:close()
    end
  end
  self.srv:close()
end

return M
