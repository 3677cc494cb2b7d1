--- kip.policy_log — the governance decisions worth an operator's look, kept
--- beside the nexus (docs/policies.md "Decision log"; shown by the
--- inspector, docs/ui.md): every refusal (BLOCK, a post-check that withheld
--- or rewrote a response), and every decision that gave reasons or warnings
--- or changed what the caller sees (ALLOW_WITH_REFOCUS, a response mode) —
--- not the routine scope of a read (RESTRICT without a reason), which would
--- be a line per request. One JSON line per decision in `<nexus>-policy.log`,
--- appended (several processes and nginx workers append to one file; a line
--- is one write), rotated to `<nexus>-policy.log.1` past MAX_BYTES. The
--- reasons are redacted (kip.secrets) and the command itself is not kept:
--- its kind, the caller and the decision are. Each process also counts every
--- decision by state since it started (M.counts).
local core = require "kip.core"
local state = require "kip.state"

local M = { MAX_BYTES = 1024 * 1024 }

--- where a nexus on a PostgreSQL server keeps this host's decision log:
--- $KIP_STATE_DIR, else $XDG_STATE_HOME/kipnexus, else ~/.local/state/kipnexus,
--- in a file named after the server, database and nexus (never the password)
local function server_log(nx, url)
  local s = state.of(nx, "policy_log")
  if s.server_path ~= nil then return s.server_path or nil end
  local dir = os.getenv("KIP_STATE_DIR")
  if not dir or dir == "" then
    local base = os.getenv("XDG_STATE_HOME")
    if not base or base == "" then base = (os.getenv("HOME") or "/tmp") .. "/.local/state" end
    dir = base .. "/kipnexus"
  end
  local name = url:gsub("^%a+://", ""):gsub("^[^@/]*@", ""):gsub("[^%w_.-]+", "_")
  s.server_path = not dir:find("'", 1, true) and os.execute("mkdir -p '" .. dir .. "'") and dir .. "/" .. name .. "-policy.log"
    or false
  return s.server_path or nil
end

--- the log file of nexus nx, or nil (an in-memory nexus, or kip.open{policy_log = false})
function M.path(nx)
  local p = nx.path
  if not p or p == "" or p == ":memory:" or p:match("^file:") or nx.policy_log == false then return nil end
  if p:match("^postgres") then return server_log(nx, p) end
  return p .. "-policy.log"
end

local function counts(nx)
  local s = state.of(nx, "policy_log")
  s.counts = s.counts or { since = os.date("!%Y-%m-%dT%H:%M:%SZ") }
  return s.counts
end

--- is decision dec worth a line?
function M.notable(dec)
  return dec.state ~= "ALLOW" and dec.state ~= "RESTRICT" or #(dec.reasons or {}) > 0 or #(dec.warnings or {}) > 0
    or (dec.response_mode or "normal") ~= "normal"
end

-- the caller as the log keeps it (identity, no capabilities)
local function caller_of(ctx)
  ctx = ctx or {}
  return { actor = ctx.actor, user = ctx.user, tenant = ctx.tenant, channel = ctx.channel,
    roles = type(ctx.roles) == "table" and #ctx.roles > 0 and setmetatable(ctx.roles, core.array_mt) or nil,
    operator = ctx.operator or nil }
end

local function redacted(list)
  if not list or #list == 0 then return nil end
  local secrets = require "kip.secrets"
  local out = setmetatable({}, core.array_mt)
  for i, r in ipairs(list) do out[i] = secrets.redact(tostring(r)) end
  return out
end

--- count decision dec (stage "pre" or "post") and log it when notable.
--- req: the command's description (its kind); ctx: the caller; policies:
--- the names of the policies whose own decision was not a plain ALLOW
function M.record(nx, stage, dec, req, ctx, policies)
  local c = counts(nx)
  c[dec.state] = (c[dec.state] or 0) + 1
  if stage == "pre" and not M.notable(dec) then return end
  local path = M.path(nx)
  if not path then return end
  local line = core.json_encode { at = os.date("!%Y-%m-%dT%H:%M:%SZ"), stage = stage, state = dec.state,
    kind = req and req.kind or nil, readonly = req and req.readonly or nil, reasons = redacted(dec.reasons),
    warnings = redacted(dec.warnings), response_mode = dec.response_mode ~= "normal" and dec.response_mode or nil,
    policies = policies and #policies > 0 and setmetatable(policies, core.array_mt) or nil, caller = caller_of(ctx) }
  local f = io.open(path, "a")
  if not f then return end -- a read-only directory: counted, not logged
  f:write(line, "\n")
  local size = f:seek("end")
  f:close()
  if size and size > M.MAX_BYTES then os.rename(path, path .. ".1") end
end

--- the newest n logged decisions (newest first), and this process's counts
function M.recent(nx, n)
  n = n or 100
  local out = {}
  local path = M.path(nx)
  if path and n > 0 then
    local lines = {}
    for _, p in ipairs { path .. ".1", path } do
      local f = io.open(p, "rb")
      if f then
        for l in f:lines() do lines[#lines + 1] = l end
        f:close()
      end
    end
    for i = #lines, math.max(1, #lines - n + 1), -1 do
      local e = core.json_decode(lines[i])
      if type(e) == "table" then out[#out + 1] = e end
    end
  end
  return setmetatable(out, core.array_mt), counts(nx)
end

return M
