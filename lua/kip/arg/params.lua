--- kip.arg.params — filling an action's parameters from the request and its
--- context (seed 003 step 4 "action binding", step 8; docs/arg.md
--- "Actions"). Driven by each parameter's declared type and description in
--- the ontology, never by the action's name:
---   * an enumeration in the description ("free | team | business") takes the
---     value whose words occur in the request;
---   * a literal the description quotes ("The literal word DELETE", "'all'")
---     must occur as written;
---   * an identifier shape the description shows ("INV-...", "key_...",
---     "VT- ticket", "YYYY-MM") is taken from the request; a month with its
---     year ("March 2025") fills YYYY-MM, and a parameter of dates takes a
---     range, a month with its year or a year the request names;
---   * email, link (URL) and tenant parameters by their form; a person
---     parameter (the profile's tenant.user_params) may take the caller's own
---     address and the tenant parameter (tenant.param) the caller's own
---     tenant — from the authenticated caller, and never when the request
---     names another person or tenant (kip.arg.tenancy), nor refers to
---     someone by what they are to the caller ("my colleague's account");
---   * a number parameter takes an amount written in the request;
---   * a free-text parameter (summary, reason without a closed list) takes
---     the part of the request that says what happened.
--- Returns values and the list of missing parameter names (sorted).
local lex = require "kip.arg.lexicon"

local M = {}

local function enum_values(desc)
  local body = desc:match(":%s*([%w_%s|%-]+)%.?$") or desc:match("^([%w_%s|%-]+)%.?$")
  if not body or not body:find("|") then return nil end
  local out = {}
  for v in body:gmatch("[^|]+") do
    v = v:gsub("^%s+", ""):gsub("%s+$", "")
    if v ~= "" then out[#out + 1] = v end
  end
  return #out > 1 and out or nil
end

local function has_stems(stems, value)
  local want = lex.stems((value:gsub("_", " ")))
  if #want == 0 then return false end
  local set = {}
  for _, s in ipairs(stems) do set[s] = true end
  for _, w in ipairs(want) do if set[w] then return true end end
  return false
end

local function escape(s) return (s:gsub("[%^%$%(%)%%%.%[%]%*%+%-%?]", "%%%0")) end

-- an identifier prefix the description shows: "INV-...", "(key_...)", "VT- ticket"
local function id_prefix(desc)
  return desc:match("%(([%u%l]+[%-_])%.%.%.%)") or desc:match("([%u][%u]+%-)%s") or desc:match("([%u][%u]+%-)%.%.%.")
end

local function literal(desc)
  return desc:match("literal word (%u+)") or desc:match("'(%w+)'")
end

-- the text of the request after its first clause's verb phrase: what happened
local function free_text(prompt, values, desc, named)
  local t = prompt
  for _, v in pairs(values) do if type(v) == "string" then t = t:gsub(escape(v), " ") end end
  local rest = t:match("[:%-;,]%s*(.+)$") or t:match("%f[%w]because%s+(.+)$") or t:match("%f[%w]for me%s*(.+)$")
  if rest and #lex.stems(rest) >= 2 then return (rest:gsub("^%s+", ""):gsub("%s+$", "")) end
  -- a parameter that is the account of what happened ("What happened, …",
  -- "Case summary") is the order's object when nothing sets it apart and
  -- the request names the action ("REPORT a phishing email pretending to
  -- be us that I got this morning"; not any order's words)
  local d = (desc or ""):lower()
  if named and (d:find("what happened") or d:find("summary")) then
    local object = t:match("^%W*%a+%s+(.+)$")
    if object and #lex.stems(object) >= 4 then return (object:gsub("%s+$", "")) end
  end
  return nil
end

local MONTHS = { "january", "february", "march", "april", "may", "june", "july", "august", "september", "october",
  "november", "december" }

--- the month a request names with its year ("March 2025", "2025-03"), as
--- YYYY-MM; nil without a year (which March is ambiguous)
function M.month(prompt)
  local t = prompt:lower()
  for i, m in ipairs(MONTHS) do
    local y = t:match("%f[%a]" .. m .. "%f[%A],?%s+(%d%d%d%d)%f[%D]") or t:match("%f[%a]" .. m:sub(1, 3) .. "%.?%s+(%d%d%d%d)%f[%D]")
    if y then return ("%s-%02d"):format(y, i) end
  end
  return nil
end

--- the dates a request names, as written: a range of ISO dates, a month
--- with its year, or a whole year ("for 2024", "covering 2024"); nil when
--- it names none
function M.dates(prompt)
  local a, b = prompt:match("(%d%d%d%d%-%d%d%-?%d?%d?)%s+%a*%s*(%d%d%d%d%-%d%d%-?%d?%d?)")
  if a and b then return a .. ".." .. b end
  local ym = prompt:match("%f[%d](%d%d%d%d%-%d%d%-?%d?%d?)%f[%D]") or M.month(prompt)
  if ym then return ym end
  local y = prompt:lower():match("%f[%a]%a+%s+(%d%d%d%d)%f[%D]")
  if y and tonumber(y) >= 1990 and tonumber(y) <= 2100 then return y end
  return nil
end

--- the actions among `names` (a label's actions) that role may run (snapshot m)
function M.runnable(m, names, role)
  local out = {}
  for _, n in ipairs(names or {}) do
    local act = m.actions[n]
    for _, r in ipairs(act.required_roles) do if r == role then out[#out + 1] = act break end end
  end
  return out
end

--- how many of the filled values came from the request's own words rather
--- than from the caller's context (its tenant, its own address)
function M.from_request(values, caller)
  local n = 0
  for _, v in pairs(values or {}) do
    if v ~= caller.tenant and v ~= caller.user then n = n + 1 end
  end
  return n
end

-- what parameter `name` (its spec) is, by its declared description and
-- type, in the order fill reads them: "enum", "literal", "prefix" (with
-- the list, literal or prefix as second value), "month", "email", "url",
-- "tenant", "number", or "text" (free text: whatever part of the request
-- says it)
local function kind(name, spec, tenancy, user_params)
  local desc = type(spec) == "table" and type(spec.description) == "string" and spec.description or ""
  local ptype = type(spec) == "table" and spec.type or "string"
  local enum = enum_values(desc)
  if enum then return "enum", enum, desc end
  local lit = literal(desc)
  if lit then return "literal", lit, desc end
  local prefix = id_prefix(desc)
  if prefix then return "prefix", prefix, desc end
  if desc:find("YYYY%-MM") then return "month", nil, desc end
  if user_params[name] or name:find("email") or desc:lower():find("^email") then return "email", nil, desc end
  if name:find("url") or desc:lower():find("^link") then return "url", nil, desc end
  if tenancy.param and name == tenancy.param then return "tenant", nil, desc end
  if ptype == "number" then return "number", nil, desc end
  return "text", nil, desc
end

local function user_param_set(tenancy)
  local set = {}
  for _, p in ipairs(tenancy.user_params or {}) do set[p] = true end
  return set
end

--- is parameter `name` of action a free text (a summary, a name: whatever
--- part of the request says it), rather than a value of a shape (an
--- enumeration, a literal, an identifier, a month, an address, a link, the
--- tenant, a number)? What fills free text is no sign the request names
--- the action.
function M.free_text(a, name, pm)
  local tenancy = pm and pm.tenant or {}
  return kind(name, (a.params or {})[name], tenancy, user_param_set(tenancy)) == "text"
end

--- how many of the words of an action's name (`name`) a request whose
--- stems are `stems` uses ("report" of report_security_incident)
function M.name_words(name, stems)
  local have, n = {}, 0
  for _, x in ipairs(stems or {}) do have[x] = true end
  for _, x in ipairs(lex.stems(((name or ""):gsub("_", " ")))) do if have[x] then n = n + 1 end end
  return n
end

--- is a parameter described as the caller's own ("Email of the caller's own
--- account", "must be the caller's own")? Such a parameter never takes
--- anyone else's value, whoever the caller has authority over.
function M.callers_own(desc)
  desc = type(desc) == "string" and desc or ""
  return (desc:find("caller's own") or desc:find("requesting account") or desc:find("must be the caller")) ~= nil
end

--- fill the params of action a from analysis an (prompt, emails, urls);
--- pm: the profile model, caller: the authenticated caller, ent: the
--- entities the request names (kip.arg.tenancy.entities)
function M.fill(a, an, pm, caller, ent)
  local values, missing = {}, {}
  local prompt = an.prompt
  caller, ent = caller or {}, ent or { persons = {}, tenants = {} }
  local tenancy = pm and pm.tenant or {}
  local user_params = user_param_set(tenancy)
  local other_person, other_tenant = false, nil
  for _, p in ipairs(ent.persons or {}) do if not p.self then other_person = true end end
  for _, t in ipairs(ent.tenants or {}) do if not t.own then other_tenant = other_tenant or t.value end end
  local stems = an.stems
  local names = {}
  for k in pairs(a.params or {}) do names[#names + 1] = k end
  table.sort(names)
  local emails_used = 0
  for _, name in ipairs(names) do
    local k, arg, desc = kind(name, a.params[name], tenancy, user_params)
    local v
    if k == "enum" then
      for _, e in ipairs(arg) do if has_stems(stems, e) then v = e break end end
    elseif k == "literal" then
      local lit = arg
      if prompt:find("%f[%w]" .. escape(lit) .. "%f[%W]") then v = lit
      elseif lit == "all" and has_stems(stems, "all") then v = "all" end
      if not v and lit == "all" and (" " .. prompt:lower() .. " "):find("%Wall%W") then v = "all" end
      -- "Start and end dates, or 'all'": the dates the request names
      if not v and desc:lower():find("date") then v = M.dates(prompt) end
    elseif k == "prefix" then
      v = prompt:match("%f[%w]" .. escape(arg) .. "[%w%-_]+")
      -- (written in other case, "inv-2025-004812": the prefix as the description writes it)
      local rest = not v and prompt:lower():match("%f[%w]" .. escape(arg:lower()) .. "([%w%-_]+)")
      if rest then v = arg .. (arg:find("%u") and rest:upper() or rest) end
    elseif k == "month" then
      v = prompt:match("%f[%d](%d%d%d%d%-%d%d)%f[%D]") or M.month(prompt)
    elseif k == "email" then
      emails_used = emails_used + 1
      v = an.emails[emails_used]
      local own = M.callers_own(desc)
      -- (only a parameter the profile declares a person parameter, or one
      -- described as the caller's own, takes the caller's address: another
      -- email parameter, the member or new owner an action acts on, names
      -- someone the request must name)
      if not v and caller.user and (user_params[name] or own) and (own or an.first_person) and not other_person
        and not an.other_person
        and not (an.snapshot and require("kip.arg.tenancy").order_object_person(an, an.snapshot, pm)) then
        v = caller.user
      end
    elseif k == "url" then
      v = an.urls[1]
    elseif k == "tenant" then
      for _, t in ipairs(ent.tenants or {}) do if t.value ~= "*" and not v then v = t.value end end
      if not v and an.snapshot then
        local tenancy_of = require("kip.arg.tenancy")
        v = tenancy_of.loose_tenant(prompt, an.snapshot, pm) or tenancy_of.order_object_tenant(an, an.snapshot, pm)
      end
      if not v and not other_tenant then v = caller.tenant end
    elseif k == "number" then
      local num = prompt:match("[%$€£]%s*([%d][%d,]*%.?%d*)") or prompt:match("([%d][%d,]*%.?%d*)%s*[A-Z][A-Z][A-Z]%f[%W]")
        or prompt:match("of%s+([%d][%d,]*%.?%d*)")
      if num then v = tonumber((num:gsub(",", ""))) end
    else
      v = free_text(prompt, values, desc, M.name_words(a.name, an.stems) > 0)
    end
    if v == nil or v == "" then missing[#missing + 1] = name else values[name] = v end
  end
  return values, missing
end

return M
