--- kip.arg.identity — who is asking, for the ARG online loop (seed 003
--- §0.1 "Access / ORG scope ... enforced by policy", §1.1 "structured
--- context"; DESIGN.md §8 "who is asking is what the host authenticated";
--- docs/security.md "The ARG trust boundary").
---
--- The caller's role, tenant and user come from the caller context the host
--- authenticated — ctx.roles / ctx.tenant / ctx.user, filled from the
--- trusted front's X-KIP-* headers (HTTP), the MCP server's configured
--- identity, the CLI's --role / --tenant / --user, or the ctx an embedding
--- host passes — never from the request body. The body may describe the
--- conversation (channel, product, environment, timestamp, history); a body
--- that names a role, tenant or user other than the authenticated one makes
--- an authority claim, which the ARG policy refuses (rule R1) and the
--- episode records.
local M = {}

local function lower(s) return type(s) == "string" and s:lower() or s end

--- the caller of a request: {role, roles, tenant, user, authority, staff,
--- audiences, actor, channel} and the claims the body makes beyond it
--- ({key, claimed, authenticated}), or nil and an error {code, message, hint}.
--- pm: the profile model (kip.arg.profile.model); ctx: the authenticated
--- caller context; body: the request's context object.
function M.resolve(pm, ctx, body)
  ctx, body = ctx or {}, body or {}
  local tkey, ukey = pm.tenant.context_key, pm.tenant.user_context_key
  local held = {}
  for _, r in ipairs(type(ctx.roles) == "table" and ctx.roles or {}) do
    if pm.roles[r] then held[#held + 1] = r end
  end
  table.sort(held)
  local roles = table.concat(pm.role_names, ", ")
  local claimed = body.role
  if #held == 0 then
    local given = type(ctx.roles) == "table" and #ctx.roles > 0 and table.concat(ctx.roles, ", ") or nil
    return nil, { code = "ARG_IDENTITY_UNKNOWN", step = "entry",
      message = given and ("the caller's roles (%s) are not roles of this ontology's profile (%s)"):format(given, roles)
        or ("the caller has no authenticated role; this ontology's roles are: %s"):format(roles),
      hint = "Authenticate the caller with one of the profile's roles: kip arg ask --role ROLE [--tenant T --user U], "
        .. "the X-KIP-Roles header from the trusted front (HTTP), kip mcp --role ROLE, or ctx.roles (Lua). "
        .. "`kip arg profile` lists them." }
  end
  local role = held[1]
  local claims = {}
  if #held > 1 then
    -- several of the profile's roles: the body may say which one it acts in,
    -- never add one
    local chosen
    for _, r in ipairs(held) do if r == claimed then chosen = r end end
    if not chosen then
      return nil, { code = "ARG_IDENTITY_AMBIGUOUS", step = "entry",
        message = ("the caller holds several roles of this ontology (%s) and the request does not say which it acts in"):format(
          table.concat(held, ", ")),
        hint = "Send context.role naming one of the caller's own roles, or authenticate the caller with one role." }
    end
    role = chosen
  elseif claimed ~= nil and claimed ~= role then
    claims[#claims + 1] = { key = "role", claimed = claimed, authenticated = role }
  end
  local tenant = ctx.tenant
  local user = ctx.user
  if body[tkey] ~= nil and lower(body[tkey]) ~= lower(tenant) then
    claims[#claims + 1] = { key = tkey, claimed = body[tkey], authenticated = tenant }
  end
  if body[ukey] ~= nil and lower(body[ukey]) ~= lower(user) then
    claims[#claims + 1] = { key = ukey, claimed = body[ukey], authenticated = user }
  end
  local r = pm.roles[role]
  local auds = {}
  for _, a in ipairs(r.audiences) do auds[#auds + 1] = a end
  table.sort(auds)
  return { role = role, roles = held, tenant = tenant, user = lower(user), authority = r.authority, staff = r.staff == true,
    audiences = auds, actor = ctx.actor, channel = ctx.channel }, claims
end

--- the request context the steps read: the body's conversation fields with
--- the identity keys set from the authenticated caller
function M.context(pm, caller, body)
  local out = {}
  for k, v in pairs(body or {}) do out[k] = v end
  out.role = caller.role
  out[pm.tenant.context_key] = caller.tenant
  out[pm.tenant.user_context_key] = caller.user
  return out
end

--- the authenticated caller context that reproduces `caller` (replay, eval)
function M.ctx_of(caller, base)
  local c = {}
  for k, v in pairs(base or {}) do c[k] = v end
  c.roles = { caller.role }
  c.tenant, c.user = caller.tenant, caller.user
  if caller.actor then c.actor = caller.actor end
  return c
end

return M
