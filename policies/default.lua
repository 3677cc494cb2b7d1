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

-- the secret detector is the engine's own (lua/kip/secrets.lua): the same
-- one scrubs the ARG registry
local secret_in, scan = kip.secret_in, kip.secret_scan

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
    local hit = scan(req.writes) or scan(req.parameters)
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
