--- kip.arg.profile — the access model an ARG ontology carries as data: the
--- `profile` attribute of the Domain ArgOntology (seed 003 §0.1 "access
--- scope vs domain scope", §0.1 "context typologies"; ../shared/arg/README.md
--- "The access profile"; docs/arg.md "The access profile"). Roles, the
--- audiences each may see, who is staff and with which authority, the tenant
--- noun and the keys and params that name tenants and people, the product's
--- own words, the channels and the refocus reply all come from here — the
--- engine holds no role, audience or product name of its own.
---
---   profile = {
---     product = { name = "…", terms = { "…" } },
---     tenant  = { noun = "…", context_key = "…", param = "…", user_context_key = "…", user_params = { "…" } },
---     roles   = { ROLE = { audiences = { "…" }, staff = false, authority = "self" | "tenant" | "staff" } },
---     channels = { "…" },            -- optional
---     refocus_message = "…",
---   }
---
--- check(p) validates the shape (kip arg init / publish refuse an ontology
--- whose profile fails it); model(p) adds what the loop asks of it.
local M = {}

M.AUTHORITIES = { self = true, tenant = true, staff = true }

local function is_list_of_strings(v, allow_empty)
  if type(v) ~= "table" then return false end
  local n = 0
  for k, x in pairs(v) do
    if type(k) ~= "number" or type(x) ~= "string" or x == "" then return false end
    n = n + 1
  end
  return allow_empty or n > 0
end

--- the problems of profile p (an empty list when it is valid)
function M.check(p)
  local problems = {}
  local function bad(fmt, ...) problems[#problems + 1] = fmt:format(...) end
  if type(p) ~= "table" then
    bad("the ArgOntology domain has no profile attribute (an object: product, tenant, roles, refocus_message)")
    return problems
  end
  if type(p.product) ~= "table" or type(p.product.name) ~= "string" or p.product.name == "" then
    bad("profile.product.name must be a non-empty string")
  elseif p.product.terms ~= nil and not is_list_of_strings(p.product.terms, true) then
    bad("profile.product.terms must be a list of strings")
  end
  local t = p.tenant
  if type(t) ~= "table" then
    bad("profile.tenant must be an object (noun, context_key, param, user_context_key, user_params)")
  else
    for _, k in ipairs { "noun", "context_key", "user_context_key" } do
      if type(t[k]) ~= "string" or not t[k]:match("^[%a_][%w_]*$") then bad("profile.tenant.%s must be a word", k) end
    end
    if t.param ~= nil and (type(t.param) ~= "string" or t.param == "") then bad("profile.tenant.param must be a string") end
    if t.user_params ~= nil and not is_list_of_strings(t.user_params, true) then
      bad("profile.tenant.user_params must be a list of parameter names")
    end
  end
  if type(p.roles) ~= "table" or next(p.roles) == nil then
    bad("profile.roles must name at least one role")
  else
    for name, r in pairs(p.roles) do
      if type(name) ~= "string" or not name:match("^[%a_][%w_]*$") then
        bad("profile role %q is not a word (letters, digits and _)", tostring(name))
      elseif type(r) ~= "table" then
        bad("profile.roles.%s must be an object", name)
      else
        if not is_list_of_strings(r.audiences) then bad("profile.roles.%s.audiences must list the audiences it may see", name) end
        if not M.AUTHORITIES[r.authority] then bad("profile.roles.%s.authority must be self, tenant or staff", name) end
        if r.staff ~= nil and type(r.staff) ~= "boolean" then bad("profile.roles.%s.staff must be true or false", name) end
      end
    end
  end
  if p.channels ~= nil and not is_list_of_strings(p.channels, true) then bad("profile.channels must be a list of strings") end
  if type(p.refocus_message) ~= "string" or p.refocus_message == "" then bad("profile.refocus_message must be a string") end
  table.sort(problems)
  return problems
end

--- the profile as the loop uses it: p plus role_names (sorted), audiences
--- (every audience any role may see, sorted), sees[role][audience],
--- seen_by[audience] = {roles}, product_words (lower case), role_words
--- (phrase -> role: "billing admin", "billing", "admin" when one role has it)
function M.model(p)
  local m = { raw = p, product = p.product, tenant = p.tenant, roles = p.roles, channels = p.channels or {},
    refocus_message = p.refocus_message, role_names = {}, audiences = {}, sees = {}, seen_by = {} }
  local auds = {}
  for name, r in pairs(p.roles) do
    m.role_names[#m.role_names + 1] = name
    m.sees[name] = {}
    for _, a in ipairs(r.audiences) do
      m.sees[name][a] = true
      auds[a] = true
      m.seen_by[a] = m.seen_by[a] or {}
      table.insert(m.seen_by[a], name)
    end
  end
  table.sort(m.role_names)
  for a in pairs(auds) do m.audiences[#m.audiences + 1] = a end
  table.sort(m.audiences)
  for _, list in pairs(m.seen_by) do table.sort(list) end
  m.product_words = {}
  for w in (p.product.name or ""):lower():gmatch("%w+") do m.product_words[#m.product_words + 1] = w end
  for _, t in ipairs(p.product.terms or {}) do
    for w in t:lower():gmatch("%w+") do m.product_words[#m.product_words + 1] = w end
  end
  -- the words a role is called by: its name as words, and each of those words
  -- when no other role uses it ("ward_nurse" -> "ward nurse", "ward", "nurse")
  local count = {}
  for _, name in ipairs(m.role_names) do
    for w in name:gmatch("[^_]+") do count[w] = (count[w] or 0) + 1 end
  end
  m.role_words = {}
  for _, name in ipairs(m.role_names) do
    m.role_words[(name:gsub("_", " "))] = name
    for w in name:gmatch("[^_]+") do if count[w] == 1 and #w > 2 then m.role_words[w] = name end end
  end
  return m
end

--- may `role` see something whose audiences are all in `list`?
function M.visible(pm, role, list)
  local sees = pm.sees[role]
  if not sees then return false end
  for _, a in ipairs(list) do if not sees[a] then return false end end
  return true
end

--- the roles that may see something with these audiences (sorted); all =
--- true when every role of the profile may
function M.roles_seeing(pm, list)
  local out = {}
  for _, r in ipairs(pm.role_names) do if M.visible(pm, r, list) then out[#out + 1] = r end end
  return out, #out == #pm.role_names
end

return M
