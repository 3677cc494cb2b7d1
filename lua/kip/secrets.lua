--- kip.secrets — what a secret or credential looks like in text (seeds
--- 000/001: secrets never enter the memory; seed 003 step 10: "PII rules
--- apply to all registry writes"). One detector for everything that must
--- keep secrets out: the default policy's write check (given to policy files
--- as kip.secret_in), the ARG registry's redaction before it records a
--- request, and anything else that stores text it did not write itself.
---
---   secrets.find("token sk-abc…")        --> "API key" | nil
---   secrets.redact("password: hunter2x") --> "[redacted: password]", {"password"}
---   secrets.scan(value)                  --> the kind of the first secret in a value (strings, nested tables)
local lpeg = require "lpeg"

local M = {}

local P, R, S, Cp, Cc = lpeg.P, lpeg.R, lpeg.S, lpeg.Cp, lpeg.Cc
local digit, alnum = R "09", R("az", "AZ", "09")
local b64 = alnum + S "+/=_-"

M.DETECTORS = {
  { "private key", P "-----BEGIN " * (1 - P "PRIVATE KEY-----" - P "-----") ^ 0 * P "PRIVATE KEY-----" },
  { "API key", (P "sk-" + P "sk_live_" + P "sk_test_" + P "rk_live_" + P "xoxb-" + P "xoxp-" + P "ghp_" + P "gho_"
      + P "github_pat_" + P "glpat-" + P "AKIA" + P "ASIA" + P "AIza") * (alnum + S "_-") ^ 16 },
  { "bearer token", (P "Bearer " + P "bearer ") * b64 ^ 20 },
  { "JSON web token", P "eyJ" * b64 ^ 10 * P "." * b64 ^ 10 * P "." * b64 ^ 10 },
  { "password", (P "password" + P "Password" + P "PASSWORD" + P "passwd" + P "pwd") * S " \t" ^ 0 * S ":=" * S " \t" ^ 0 * (1 - S " \t\n") ^ 4 },
  { "one-time code", (P "OTP" + P "otp" + P "one-time code" + P "verification code" + P "2FA code" + P "security code")
      * (1 - digit) ^ -12 * digit ^ 6 * -digit },
}

-- one pass over the text for all detectors: the first secret from the left
-- wins; captures: its start, its kind, the position after it
local any_detector
for _, d in ipairs(M.DETECTORS) do
  local p = d[2] * Cc(d[1])
  any_detector = any_detector and any_detector + p or p
end
local located = P { Cp() * any_detector * Cp() + 1 * lpeg.V(1) }

-- payment cards: 13-19 digits (spaces/dashes allowed) passing the Luhn check
local function luhn(s)
  local d = s:gsub("%D", "")
  if #d < 13 or #d > 19 then return false end
  local sum, alt = 0, false
  for i = #d, 1, -1 do
    local n = tonumber(d:sub(i, i))
    if alt then n = n * 2; if n > 9 then n = n - 9 end end
    sum, alt = sum + n, not alt
  end
  return sum % 10 == 0
end

-- the first secret at or after position init: start, kind, end (exclusive)
local function locate(s, init)
  local a, kind, b = lpeg.match(located, s, init)
  local card_a, card_b
  local from = init
  while true do
    local x, y = s:find("%d[%d %-]+%d", from)
    if not x or (a and x >= a) then break end
    if luhn(s:sub(x, y)) then card_a, card_b = x, y + 1 break end
    from = y + 1
  end
  if card_a then return card_a, "payment card number", card_b end
  return a, kind, b
end

-- what find said of the short strings seen lately: a write repeats most of
-- its strings (a description carries each value twice, as the parameter and
-- as the attribute it fills; ARG episodes repeat their labels, node names
-- and keys request after request), and looking one up costs a fraction of
-- reading it. Cleared when full, so it never holds more than CACHE_MAX
-- strings of at most CACHE_LEN bytes.
M.CACHE_MAX, M.CACHE_LEN = 4096, 256
local seen, n_seen = {}, 0

--- the kind of the first secret in string s, or nil
function M.find(s)
  if type(s) ~= "string" or #s < 6 then return nil end
  if #s > M.CACHE_LEN then
    local _, kind = locate(s, 1)
    return kind
  end
  local known = seen[s]
  if known ~= nil then return known or nil end
  local _, kind = locate(s, 1)
  if n_seen >= M.CACHE_MAX then seen, n_seen = {}, 0 end
  seen[s], n_seen = kind or false, n_seen + 1
  return kind
end

--- s with every secret replaced by "[redacted: KIND]", and the kinds found
--- (in order; empty when nothing was found)
function M.redact(s)
  local kinds = {}
  if not M.find(s) then return s, kinds end
  local out, at = {}, 1
  while at <= #s do
    local a, kind, b = locate(s, at)
    if not a then break end
    out[#out + 1] = s:sub(at, a - 1)
    out[#out + 1] = "[redacted: " .. kind .. "]"
    kinds[#kinds + 1] = kind
    at = b
  end
  if #kinds == 0 then return s, kinds end
  out[#out + 1] = s:sub(at)
  return table.concat(out), kinds
end

--- the kind of the first secret anywhere in a value (keys and values of
--- nested tables, up to 16 levels), or nil
function M.scan(v, depth)
  depth = depth or 0
  if depth > 16 then return nil end
  if type(v) == "string" then return M.find(v) end
  if type(v) == "table" then
    for k, x in pairs(v) do
      local hit = M.scan(k, depth + 1) or M.scan(x, depth + 1)
      if hit then return hit end
    end
  end
  return nil
end

--- a copy of value v with every string redacted (tables copied, up to 16
--- levels); the kinds found are appended to `kinds`
function M.redact_value(v, kinds, depth)
  depth = depth or 0
  if type(v) == "string" then
    local r, found = M.redact(v)
    for _, k in ipairs(found) do kinds[#kinds + 1] = k end
    return r
  end
  if type(v) ~= "table" or depth > 16 then return v end
  local out = {}
  for k, x in pairs(v) do out[k] = M.redact_value(x, kinds, depth + 1) end
  return setmetatable(out, getmetatable(v))
end

return M
