-- arg.lua — the Policy Manager rules of the ARG online loop (seed 003 step 1
-- "Policy Pre-Check", §1 "the online loop MUST remain read-only with
-- respect to the active ontology", §4.1 "append-only"; docs/arg.md
-- "Governance"). Part of every governed nexus, like the mind policies.
--
-- For an ARG request (req.kind == "ARG": req.prompt, req.context, req.domain)
-- it decides, before any routing:
--   BLOCK               the request tries to override instructions or claims
--                       another role; asks for credentials or secrets; asks
--                       to bypass or silence a security control; asks for
--                       data of, or to act on, another person or workspace
--                       without authority over it;
--   ALLOW_WITH_REFOCUS  the request names nothing of the domain (req.domain:
--                       content words, none known to the pinned ontology);
--   RESTRICT            always otherwise: constraints.forbidden_audiences
--                       hides what the caller's role may not see.
-- For KML it keeps the ontology read-only: Arg* types and their predicates
-- are write-protected unless the caller holds the `arg_publisher` role (the
-- offline loop's, set by the host for `kip arg init` / publish) or is the
-- operator (kip import / restore); episodes, published versions and offline
-- runs are append-only for everyone; offline candidates are the publisher's.
local ONTOLOGY = { "ArgCluster", "ArgLabel", "ArgNode", "ArgAction", "ExternalSource", "in_cluster", "parent_label",
  "incompatible_with", "has_label", "next_step", "requires", "explains", "related_to", "redirects_to" }
local APPEND_ONLY = { "ArgEpisode", "ArgVersion", "ArgOfflineRun" }
local OFFLINE = { "ArgCandidate" } -- the offline loop's staging: the publisher's alone

-- a request most of whose content words the ontology has never used is
-- about something else (general knowledge, other products, small talk)
local OFF_DOMAIN_SHARE = 0.6

local STAFF = { support_agent = true, billing_admin = true, security_officer = true }
local AUDIENCES = {
  public = { customer = true, workspace_admin = true, support_agent = true, billing_admin = true, security_officer = true },
  internal = { support_agent = true, billing_admin = true, security_officer = true },
  restricted = { security_officer = true },
}
local ROLE_WORDS = {
  ["support agent"] = "support_agent", ["support staff"] = "support_agent", ["agent"] = "support_agent",
  ["admin"] = "workspace_admin", ["administrator"] = "workspace_admin", ["workspace admin"] = "workspace_admin",
  ["owner"] = "workspace_admin", ["billing admin"] = "billing_admin", ["finance"] = "billing_admin",
  ["security officer"] = "security_officer", ["staff"] = "support_agent", ["employee"] = "support_agent",
}

local function has_role(ctx, role)
  for _, r in ipairs(ctx.roles or {}) do if r == role then return true end end
  return false
end

local function any(text, patterns)
  for _, p in ipairs(patterns) do
    local hit = text:match(p)
    if hit then return hit end
  end
  return nil
end

-- prompt injection: instructions to drop the rules, fake system or policy
-- text, requests for the hidden configuration
local INJECTION = {
  "ignore %a* ?%a* ?previous instructions", "ignore %a* ?%a* ?prior instructions", "ignore %a* ?above",
  "disregard %a* ?%a* ?instructions", "forget %a* ?%a* ?instructions", "disregard %a* ?%a* ?rules",
  "system prompt", "hidden configuration", "hidden instructions", "your instructions", "developer mode",
  "^%s*system%s*[:%-]", "\n%s*system%s*[:%-]", "system notice", "system message", "%[system%]", "<system>",
  "end of user message", "end of conversation", "new policy%s*:", "policy update%s*:", "admin override",
  "has been elevated", "have been elevated", "been granted %a+ access", "been promoted to",
}

-- credentials and secrets the caller asks to obtain
local SECRET = { "passwords?", "passcodes?", "pin codes?", "one%-time codes?", "login codes?", "verification codes?",
  "2fa codes?", "otp", "secret values?", "secret keys?", "api key values?", "private keys?", "session tokens?",
  "access tokens?", "tokens?", "card numbers?", "cvv", "cvc", "security codes?" }
local REVEAL = { "show", "print", "tell", "give", "send", "reveal", "share", "display", "read out", "list", "guess",
  "dump", "export", "paste", "what'?s", "what is", "what are" }

-- bypassing or silencing a security control
local BYPASS = { "get around", "bypass", "circumvent", "work around", "workaround for", "sneak past", "evade",
  "quietly", "secretly", "without %a* ?notif", "without %a+ knowing", "without telling", "log in as %a+",
  "sign in as %a+", "impersonat", "disable %a* ?audit log", "turn off %a* ?audit log", "delete %a* ?audit log",
  "hide %a* ?from %a* ?audit", "switch off %a* ?audit log" }

-- another person's things
local OTHERS = "(coworker|co%-worker|colleague|manager|boss|teammate|employee|someone else|another user|another member|other users|other people|everyone else|my team's|ex%-employee)"
local THEIR_THINGS = { "account", "password", "messages?", "dms?", "direct messages", "files?", "emails?", "inbox",
  "invoices?", "sign%-?ins?", "logins?", "activity", "data", "phone number", "address", "contact" }

local function secret_request(t)
  for _, s in ipairs(SECRET) do
    for _, v in ipairs(REVEAL) do
      -- the verb, then within a few words the secret itself (not "password reset")
      local p = v .. "[^%.%?!]-%f[%w]" .. s .. "%f[%W]"
      local a, b = t:find(p)
      if a and not t:sub(b + 1, b + 12):find("^%s*reset") and not t:sub(b + 1, b + 12):find("^%s*manager")
        and (b - a) < 60 then
        return s
      end
    end
  end
  return nil
end

local function others_things(t)
  if not t:find(OTHERS) then return nil end
  for _, th in ipairs(THEIR_THINGS) do
    local a = t:find(OTHERS .. "'?s?%s+[%w%s'%-]-%f[%w]" .. th .. "%f[%W]")
    if a then return th end
    if t:find(th .. "%f[%W][^%.%?!]-of %a* ?" .. OTHERS) then return th end
  end
  if t:find("log in as") or t:find("sign in as") then return "their account" end
  return nil
end

-- a claimed role different from the context's
local function role_claim(t, role)
  for phrase, r in pairs(ROLE_WORDS) do
    if (t:find("i'?m %a* ?an? " .. phrase .. "%f[%W]") or t:find("i am %a* ?an? " .. phrase .. "%f[%W]")
      or t:find("as an? " .. phrase .. ",") or t:find("elevated to " .. phrase)) and r ~= role then
      return phrase
    end
  end
  return nil
end

local function domain_of(email) return email and email:match("@(.+)$") end

-- a workspace named in the request that is not the caller's own
local function other_workspace(t, own)
  for _, p in ipairs { "the (%w[%w%-]*) workspace", "(%w[%w%-]*)'s workspace" } do
    for name in t:gmatch(p) do
      if name ~= own and name ~= "our" and name ~= "my" and name ~= "your" and name ~= "this" and name ~= "a"
        and name ~= "the" and name ~= "whole" and name ~= "entire" and name ~= "same" and name ~= "new"
        and name ~= "their" and name ~= "his" and name ~= "her" then
        return name
      end
    end
  end
  if t:find("every workspace") or t:find("all workspaces") or t:find("other workspaces") or t:find("other customers")
    or t:find("every customer") or t:find("all customers") or t:find("other companies") then
    return "other workspaces"
  end
  return nil
end

local function guard(req, ctx)
  local t = (" " .. (req.prompt or "") .. " "):lower()
  local c = req.context or {}
  local role = c.role or "customer"
  local hit = any(t, INJECTION)
  if hit then return "prompt injection: the request tries to change the assistant's instructions (" .. hit .. ")" end
  hit = role_claim(t, role)
  if hit then return "the request claims a role (" .. hit .. ") other than the caller's (" .. role .. ")" end
  hit = secret_request(t)
  if hit then return "the request asks for a credential or secret (" .. hit .. ")" end
  hit = any(t, BYPASS)
  if hit then return "the request asks to bypass or silence a security control (" .. hit .. ")" end
  if not STAFF[role] then
    hit = others_things(t)
    if hit then return "the request asks for another person's " .. hit .. " without authority over it" end
    hit = other_workspace(t, c.workspace)
    if hit then return "the request asks about a workspace other than the caller's own (" .. hit .. ")" end
    local own = domain_of(c.user)
    for _, e in ipairs(req.emails or {}) do
      if role == "customer" and e ~= (c.user or ""):lower() then
        return "a customer has no authority over another person's account (" .. e .. ")"
      end
      if role == "workspace_admin" and own and domain_of(e) ~= own then
        return "the address " .. e .. " is not a member of the caller's workspace"
      end
    end
  end
  return nil
end

return kip.policy {
  name = "arg",
  priority = 15,
  guard = guard,

  pre_check = function(req, ctx)
    if req.kind == "ARG" then
      local why = guard(req, ctx)
      if why then return { state = "BLOCK", reasons = { why } } end
      local role = (req.context or {}).role or "customer"
      local hidden = {}
      for _, aud in ipairs { "public", "internal", "restricted" } do
        if not AUDIENCES[aud][role] then hidden[#hidden + 1] = aud end
      end
      local d = req.domain or {}
      local unknown = #(d.unknown or {})
      if (d.content or 0) > 0 and ((d.known or 0) == 0 or unknown / d.content >= OFF_DOMAIN_SHARE) then
        return { state = "ALLOW_WITH_REFOCUS", reasons = { "the request is outside the assistant's domain" },
          constraints = { forbidden_audiences = hidden } }
      end
      return { state = "RESTRICT", constraints = { forbidden_audiences = hidden } }
    end
    if not req.mutates then return nil end
    if ctx.operator or has_role(ctx, "arg_publisher") then
      return { state = "RESTRICT", constraints = { append_only = APPEND_ONLY } }
    end
    local protected = {}
    for _, t in ipairs(ONTOLOGY) do protected[#protected + 1] = t end
    for _, t in ipairs(OFFLINE) do protected[#protected + 1] = t end
    return { state = "RESTRICT", constraints = { write_protected = protected, append_only = APPEND_ONLY } }
  end,
}
