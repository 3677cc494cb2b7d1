-- default.lua — the default governance policy of kipnexus, from the KIP agent
-- instructions (seeds 000/001):
--
--  * writes that carry secrets or credentials are refused (API keys and
--    tokens, private keys, passwords, one-time codes, payment card numbers);
--  * KML writes from agents should carry provenance (`source`, `author`):
--    a warning by default, a refusal with PROVENANCE = "refuse";
--  * facts marked `access_level: "private"` are visible only when they are, or
--    are about, the counterparty or `$self` — enforced by the core as an
--    eligibility scope, so they are silently omitted (no hint of existence);
--  * readonly callers never write: the core refuses KML on the readonly
--    interface (KIP_4004, "use execute_kip"); the protected core is left to
--    the core too, which answers KIP_3004.
--
-- Edit the settings below or copy this file into your own policy directory.
local PROVENANCE = "warn"   -- "warn" | "refuse" | "off"
local AGENT_CHANNELS = { mcp = true, http = true, agent = true } -- where provenance is expected

local P, R, S = lpeg.P, lpeg.R, lpeg.S
local digit, alnum = R "09", R("az", "AZ", "09")
local b64 = alnum + S "+/=_-"

-- anywhere(p): p somewhere in the subject
local function anywhere(p) return P { p + 1 * lpeg.V(1) } end

local detectors = {
  { "private key", P "-----BEGIN " * (1 - P "PRIVATE KEY-----" - P "-----") ^ 0 * P "PRIVATE KEY-----" },
  { "API key", (P "sk-" + P "sk_live_" + P "sk_test_" + P "rk_live_" + P "xoxb-" + P "xoxp-" + P "ghp_" + P "gho_"
      + P "github_pat_" + P "glpat-" + P "AKIA" + P "ASIA" + P "AIza") * (alnum + S "_-") ^ 16 },
  { "bearer token", (P "Bearer " + P "bearer ") * b64 ^ 20 },
  { "JSON web token", P "eyJ" * b64 ^ 10 * P "." * b64 ^ 10 * P "." * b64 ^ 10 },
  { "password", (P "password" + P "Password" + P "PASSWORD" + P "passwd" + P "pwd") * S " \t" ^ 0 * S ":=" * S " \t" ^ 0 * (1 - S " \t\n") ^ 4 },
  { "one-time code", (P "OTP" + P "otp" + P "one-time code" + P "verification code" + P "2FA code" + P "security code")
      * (1 - digit) ^ -12 * digit ^ 6 * -digit },
}

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

-- one pass over the string for all detectors: the first secret from the left
-- wins, its capture is the detector's name
local any_detector
for _, d in ipairs(detectors) do
  local p = d[2] * lpeg.Cc(d[1])
  any_detector = any_detector and any_detector + p or p
end
local compiled = anywhere(any_detector)

--- The kind of secret found in a string, or nil.
local function secret_in(s)
  if type(s) ~= "string" or #s < 6 then return nil end
  local hit = lpeg.match(compiled, s)
  if hit then return hit end
  -- cards: every digit run long enough, Luhn-checked
  for run in s:gmatch("%d[%d %-]+%d") do
    if luhn(run) then return "payment card number" end
  end
  return nil
end

local function scan(v, depth)
  if depth > 16 then return nil end
  if type(v) == "string" then return secret_in(v) end
  if type(v) == "table" then
    for k, x in pairs(v) do
      local hit = scan(k, depth + 1) or scan(x, depth + 1)
      if hit then return hit end
    end
  end
  return nil
end

return kip.policy {
  name = "default",
  priority = 10,
  -- exposed for tests and for other policies that want the detector
  secret_in = secret_in,

  pre_check = function(req, ctx)
    local d = { state = "ALLOW", reasons = {}, warnings = {}, constraints = {} }

    -- private facts: visible only when they are, or are about, the counterparty
    -- or $self; the operator (kip import / restore set ctx.operator, which no
    -- request or header can) sees everything
    if not ctx.operator then
      d.state = "RESTRICT"
      d.constraints.eligibility = '?e.metadata.access_level != "private"'
        .. ' || ?e.id == :self_id || ?e.subject == :self_id'
        .. ' || ?e.id == :counterparty_id || ?e.subject == :counterparty_id'
    end

    if not req.mutates then return d end
    -- readonly callers (execute_kip_readonly) are refused by the core itself,
    -- with the hint to use execute_kip

    -- secrets and credentials never enter the memory
    local hit = scan(req.writes, 0) or scan(req.parameters, 0)
    if hit then
      return { state = "BLOCK", reasons = { "the write contains a secret (" .. hit .. "); secrets and credentials are never stored" } }
    end

    -- the protected core: the core refuses those writes itself with KIP_3004
    -- (the protocol's code for them), so the policy lets them through to it

    -- provenance on agent writes
    if PROVENANCE ~= "off" and req.kind == "UPSERT" and (ctx.channel == nil or AGENT_CHANNELS[ctx.channel]) then
      local missing = {}
      for _, list in ipairs { req.writes.concepts or {}, req.writes.propositions or {} } do
        for _, w in ipairs(list) do
          local m = w.metadata or {}
          if m.source == nil or m.author == nil then
            missing[#missing + 1] = w.name or w.predicate or "?"
          end
        end
      end
      if #missing > 0 then
        local msg = ("%d written element(s) lack provenance metadata (source, author): %s"):format(#missing,
          table.concat(missing, ", ", 1, math.min(#missing, 5)))
        if PROVENANCE == "refuse" then return { state = "BLOCK", reasons = { msg } } end
        d.warnings[#d.warnings + 1] = msg
      end
    end
    return d
  end,
}
