--- kip.arg.tenancy — tenancy as a data binding (seed 003 §0.1 "Access /
--- ORG scope: the tenant boundary enforced by policy", step 4
--- "AccessScope", step 8 "re-check action authorization"; docs/arg.md
--- "Tenancy"). Before retrieval, the people and tenants a request names are
--- resolved against the caller's own tenant and identity; before an action,
--- so is every parameter that names a tenant or a person. The ARG policy
--- (policies/arg.lua) decides on the result under the caller's authority
--- (self: only the caller's own account; tenant: members of the caller's
--- own tenant; staff: through the actions that list the role).
---
--- What names what comes from the ontology's profile: the tenant noun, the
--- action param that names a tenant, the params that name a person. A person
--- is resolved by what the nexus knows of it (a Person concept with an email
--- and a tenant attribute named like the profile's tenant key), else by the
--- form of its address: the same mail domain as the caller's own address
--- means the same tenant. Other identifiers (invoice numbers, key ids) are
--- resolved by the operator's `resolve` hook when there is one
--- (arg.configure{hooks = {resolve = fn(kind, value) -> {tenant=, user=}}}),
--- else reported unresolved — the action's handler sees the authenticated
--- caller and must check them.
---
--- Tenants named bare in any position ("a friend over at globex", "what
--- globex uses") are read from the tenant directory (M.directory): the
--- tenants of the authenticated callers the loop has served, recorded the
--- first time each is served (ArgTenant, private), and those the operator
--- lists (arg.configure{tenants = {...}}).
local core = require "kip.core"
local lex = require "kip.arg.lexicon"
local guards = require "kip.arg.guards"
local state = require "kip.state"

local M = {}

local function domain(e) return type(e) == "string" and e:match("@(.+)$") or nil end
local function lower(s) return type(s) == "string" and s:lower() or nil end

-- words before or after the tenant noun that describe it rather than name it
-- (and the pronouns a contraction with "is" reads like a possessive of:
-- "whatever's cheaper", "something's wrong", "there's")
local NOT_A_NAME = {}
for w in ([[our my your this that a an the whole entire same new their his her its each every which what whose any
  some one current main default old other another shared own personal free paid trial existing second first
  different separate everyone everybody anyone anybody someone somebody nobody noone
  whatever whichever whoever whenever wherever however something anything nothing everything here there where
  who when why how it]]):gmatch("%S+") do NOT_A_NAME[w] = true end

-- is word w (lower case) a word of the pinned ontology (or its stem)?
-- (a stem that is a stop word says nothing: "Ines" stems to "in")
local function known(m, w)
  local s = lex.stem(w)
  return m.vocab[w] or (m.stem_known[s] and not lex.STOP[s])
end

--- is word w (lower case) a name rather than a word of the domain?
local function a_name(w, m, pm)
  if not w or #w < 2 or NOT_A_NAME[w] or lex.STOP[w] or lex.GENERIC[w] then return false end
  if known(m, w) then return false end
  if pm.role_words[w] or w == pm.tenant.noun then return false end
  return true
end

-- a bare name as the subject of having or being on something: "<aux> <name>
-- <relation>" ("does globex have", "what umbrella pays")
local BARE_AUX, BARE_STATE = {}, {}
for w in ("is does did has was what much"):gmatch("%S+") do BARE_AUX[w] = true end
local BARE_BE = { is = true, was = true, has = true, ["isnt"] = true }
local BARE_ADVERB = {}
for w in ("still already also currently ever really actually even now always usually"):gmatch("%S+") do BARE_ADVERB[w] = true end
-- verbs whose particle "on" closes a clause without naming anyone's state
local PARTICLE_VERBS = {}
for w in ("turn turned turning switch switched put keep kept leave left set get have"):gmatch("%S+") do PARTICLE_VERBS[w] = true end
local COMMERCE = { paid = true, bought = true, purchased = true, spent = true, pays = true, owes = true, owe = true }
local OBJECT_ARTICLES = { a = true, an = true, the = true, some = true, any = true }
-- what makes a possessive the caller's own or a common noun's ("my rabbit's", "the team's")
local OWNER_WORDS = {}
for w in ("my our your his her their its the a an this that"):gmatch("%S+") do OWNER_WORDS[w] = true end
for w in ([[have has had on behind paying pay pays paid owe owes using subscribed renew renewing bought purchased
  spent ordered upgraded downgraded cancelled canceled renewed added switched asked requested received claimed
  filed]]):gmatch("%S+") do
  BARE_STATE[w] = true
end

--- how long a process trusts the directory it read before reading it again
--- (other processes record the tenants they serve), seconds
M.DIRECTORY_TTL = 30

local function read_directory(nx)
  local names = {}
  local rows = nx:query('FIND(?t.name) WHERE { ?t {type: "ArgTenant"} } LIMIT 1000000', nil, guards.as(nx, guards.RECORD))
  for _, row in ipairs(rows or {}) do
    local n = type(row) == "table" and row[1] or row
    if type(n) == "string" then names[n] = true end
  end
  return names
end

--- the tenant directory of nexus nx: {names = set of lower-case names,
--- phrases = the names of more than one word}: the tenants recorded as
--- served (ArgTenant), the operator's list (`configured`), and the caller's
--- own tenant, which is recorded the first time one of its callers is served
--- when `record` (the run keeps records and the nexus is writable). nx nil:
--- the operator's list and the caller's. Kept per Nexus object, not copied
--- per request.
function M.directory(nx, caller, configured, record)
  local own = lower(caller.tenant)
  local st = nx and state.of(nx, "arg") or {}
  local d = st.tenant_directory
  local function add(n)
    if d.names[n] then return false end
    d.names[n] = true
    if n:find("[^%w%-_]") then d.phrases[#d.phrases + 1] = n end
    return true
  end
  if not d or (nx and os.time() - d.read_at >= M.DIRECTORY_TTL) then
    -- (read again, what this process learnt stays: a loop that keeps no
    -- records, or serves a read-only nexus, would otherwise forget the
    -- tenants it served each time the directory is read — a decision that
    -- depended on the clock)
    local kept = d and d.learnt or {}
    d = { names = nx and read_directory(nx) or {}, read_at = os.time(), phrases = {}, learnt = kept }
    for n in pairs(d.names) do if n:find("[^%w%-_]") then d.phrases[#d.phrases + 1] = n end end
    table.sort(d.phrases)
    for _, n in ipairs(kept) do add(n) end
    st.tenant_directory = d
  end
  if configured ~= d.configured then
    d.configured = configured
    for _, n in ipairs(configured or {}) do if type(n) == "string" and n ~= "" then add(n:lower()) end end
  end
  if own and own ~= "" and add(own) then
    d.learnt[#d.learnt + 1] = own
    if nx and record and not nx:readonly() then M.record(nx, own) end
  end
  return d
end

--- record tenant `name` in the directory of nx (an ArgTenant, private to
--- the loop; again: nothing changes). true, or nil and an error
function M.record(nx, name)
  if type(name) ~= "string" or not name:find("%S") then
    return nil, { code = "ARG_REQUEST_INVALID", message = "a tenant name is a non-empty string",
      hint = "kip arg tenants add NAME..." }
  end
  name = name:lower()
  -- (a nexus initialised before the directory existed gets the type first)
  local ok, gerr = guards.ensure(nx)
  if not ok then return nil, gerr end
  local found = nx:query('FIND(?t.name) WHERE { ?t {type: "ArgTenant", name: :n} }', { n = name }, guards.as(nx, guards.RECORD))
  if found and #found > 0 then return true end
  local _, err = nx:query('UPSERT { CONCEPT ?t { {type: "ArgTenant", name: :n} SET ATTRIBUTES { first_served: :at } '
    .. 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "ArgRegistry"}) } } } '
    .. 'WITH METADATA { source: "kipnexus:arg_online", author: "$system", access_level: "private", arg_visible: "none" }',
    { n = name, at = os.date("!%Y-%m-%dT%H:%M:%SZ") }, guards.as(nx, guards.RECORD))
  if err then return nil, err end
  local st = state.of(nx, "arg")
  -- (read again with it, keeping what was learnt)
  if st.tenant_directory then st.tenant_directory.read_at = -math.huge end
  return true
end

--- the tenants recorded in nx's directory, sorted
function M.recorded(nx)
  local list = {}
  for n in pairs(read_directory(nx)) do list[#list + 1] = n end
  table.sort(list)
  return list
end

-- the tenants the text names by the profile's noun: {value, own} or
-- {value = "*", others = true} for "other/every/all <noun>s"; a tenant of
-- the directory (a set, or nil) named anywhere
local function tenant_mentions(text, m, pm, caller, directory)
  local out, seen = {}, {}
  local t = " " .. text:lower() .. " "
  local noun = pm.tenant.noun:lower()
  local function add(name)
    if seen[name] then return end
    seen[name] = true
    out[#out + 1] = { value = name, own = caller.tenant ~= nil and name == lower(caller.tenant) }
  end
  for _, p in ipairs { "the (%w[%w%-]*) " .. noun .. "%f[%W]", "(%w[%w%-]*)'s " .. noun .. "%f[%W]" } do
    for name in t:gmatch(p) do
      if a_name(name, m, pm) or (caller.tenant and name == lower(caller.tenant)) then add(name) end
    end
  end
  -- "<noun> X": only an X written like an identifier (a capital, a digit,
  -- a hyphen: "<noun> Initech", "<noun> acme-7"), not the next word
  for name in (" " .. text .. " "):gmatch("%f[%w][" .. noun:sub(1, 1):upper() .. noun:sub(1, 1) .. "]" .. noun:sub(2)
    .. "s?%s+([%w][%w%-_]*)") do
    local l = name:lower()
    if (name:find("^%u") or name:find("[%d%-_]")) and (a_name(l, m, pm) or (caller.tenant and l == lower(caller.tenant))) then
      add(l)
    end
  end
  -- a tenant named bare, written as an identifier is (lower case): the owner
  -- of something ("initech's subscription"), the subject of having or being
  -- on something ("does globex have", "what plan is acme on", "is umbrella
  -- behind"); in any case, where a role of the profile is held ("the admin
  -- over at acme")
  local function bare(name) return a_name(name, m, pm) and not lex.OTHER_PEOPLE[name] end
  -- (letters only: "wh4t's" is a word disguised, not a name)
  -- (not after a possessive or an article: "my rabbit's history" is the caller's own)
  for before, name, thing in (" " .. text):gmatch("(%S*)%s+(%l[%l%-]*)'s (%l+)") do
    if not lex.STOP[thing] and not OWNER_WORDS[before:lower()] and bare(name) then add(name) end
  end
  local words = {}
  for w in text:gmatch("[%w%-]+") do words[#words + 1] = w end
  local role_parts = {}
  for role in pairs(pm.roles) do for part in role:gmatch("[^_]+") do role_parts[part] = true end end
  for i = 2, #words - 1 do
    local w = words[i]
    -- (an adverb between: "does umbrella STILL owe you money?")
    local k = i + 1
    while words[k + 1] and BARE_ADVERB[words[k]:lower()] do k = k + 1 end
    if w:find("^%l[%l%-]*$") and BARE_AUX[words[i - 1]:lower()] and BARE_STATE[words[k]:lower()] and bare(w) then add(w) end
  end
  for i = 1, #words - 2 do -- ("which plan globex is paying for")
    local w = words[i]
    if w:find("^%l[%l%-]*$") and BARE_BE[words[i + 1]:lower()] and BARE_STATE[words[i + 2]:lower()] and bare(w) then add(w) end
  end
  -- ("the one initech has", "a plan globex pays": the subject of having or
  -- paying closing the clause; "I heard initech got a discount": of commerce)
  for i = 1, #words - 1 do
    local w, v = words[i], words[i + 1]:lower()
    local closes = words[i + 2] == nil
      or text:find("%f[%w]" .. w:gsub("%-", "%%-") .. "%s+" .. words[i + 1]:gsub("%-", "%%-") .. "%s*[,%.%?!;:]")
    local commerce = COMMERCE[v] or (v == "got" and words[i + 2] and OBJECT_ARTICLES[words[i + 2]:lower()]
      and words[i + 3] and known(m, words[i + 3]:lower()))
    -- (not a particle of the verb before: "turn dark mode on", "switch the digest on")
    local particle = false
    if v == "on" then
      for k = math.max(1, i - 3), i - 1 do if PARTICLE_VERBS[words[k]:lower()] then particle = true end end
    end
    if w:find("^%l[%l%-]*$") and ((BARE_STATE[v] and closes and not particle) or commerce) and bare(w) then add(w) end
  end
  for i = 3, #words do -- ("the admin at acme", "the admins over at acme")
    local before = words[i - 2]:lower() == "over" and words[i - 3] or words[i - 2]
    local role = before:lower():gsub("s$", "")
    if words[i - 1]:lower() == "at" and role_parts[role] and bare(words[i]:lower()) then add(words[i]:lower()) end
  end
  -- a tenant of the directory, named anywhere ("a friend over at globex"),
  -- unless its name is a word of the domain
  if directory then
    local own = lower(caller.tenant)
    local function named(name)
      if (a_name(name, m, pm) or name == own) and not seen[name] then
        add(name)
        out[#out].how = "directory"
      end
    end
    for w in t:gmatch("[%w][%w%-_]*") do if directory.names[w] then named(w) end end
    for _, name in ipairs(directory.phrases) do
      if t:find("%f[%w%-]" .. name:gsub("%p", "%%%0") .. "%f[^%w%-]") then named(name) end
    end
  end
  -- "every <noun>", "other <noun>s", "all <role word>s' …": others in general
  local kinds = { noun }
  for w, role in pairs(pm.role_words) do
    if not (pm.roles[role] or {}).staff and not w:find(" ") then kinds[#kinds + 1] = w end
  end
  table.sort(kinds, function(a, b) return #a > #b or (#a == #b and a < b) end)
  for _, k in ipairs(kinds) do
    for _, q in ipairs { "every", "all", "other", "another", "each", "list of", "all the", "all of the", "names of the" } do
      if t:find("%f[%w]" .. q .. " " .. k .. "s?%f[%W]") then
        if not seen["*"] then
          seen["*"] = true
          out[#out + 1] = { value = "*", others = true, phrase = q .. " " .. k }
        end
      end
    end
  end
  return out
end

-- Person concepts of the nexus the text names ("Maria Lopez"): name ->
-- {email, tenant}; one read, only when the text has capitalised name pairs
local function known_persons(nx, text, pm)
  local names, seen = {}, {}
  for a, b in text:gmatch("(%u%l+)%s+(%u[%l%-']+)") do
    local n = a .. " " .. b
    if not seen[n] then seen[n] = true; names[#names + 1] = n end
  end
  if #names == 0 or not nx then return {} end
  local req = core.json_encode { command = 'FIND(?p.name, ?p.attributes) WHERE { ?p {type: "Person"} FILTER(IN(?p.name, :n)) } LIMIT 50',
    parameters = { n = setmetatable(names, core.array_mt) } }
  local r = core.json_decode(nx.handle:call_json(req, { readonly = true }))
  local out = {}
  local cols = r.result or {}
  for i, name in ipairs(cols[1] or {}) do
    local a = (cols[2] or {})[i]
    a = type(a) == "table" and a or {}
    out[name] = { email = lower(type(a.email) == "string" and a.email or nil),
      tenant = type(a[pm.tenant.context_key]) == "string" and a[pm.tenant.context_key] or nil }
  end
  return out
end

--- how a person named by address `email` (known: what the nexus knows of
--- it) stands to the caller: {kind, value, self, same_tenant, how}
function M.person(caller, email, record)
  email = lower(email)
  local self = caller.user ~= nil and email ~= nil and email == caller.user
  local tenant = record and record.tenant
  local same, how
  if self then same, how = true, "the caller"
  elseif tenant then same, how = caller.tenant ~= nil and lower(tenant) == lower(caller.tenant), "known to the nexus"
  else same, how = caller.user ~= nil and domain(email) ~= nil and domain(email) == domain(caller.user), "mail domain" end
  return { kind = "person", value = email, self = self, same_tenant = same, tenant = tenant, how = how }
end

-- verbs after a sentence's first word that make it a person's name
local SUBJECT_VERBS = {}
for w in ("asked told said says wants wanted needs needed forgot lost left gave sent shared mentioned promised"):gmatch("%S+") do
  SUBJECT_VERBS[w] = true
end

-- what a person does, as a name's next word shows it (past forms; their
-- -ing forms from the base forms)
local DEEDS, BASE_DEEDS, NAME_AUX, NAME_ADVERBS = {}, {}, {}, {}
for w in ([[sent opened searched posted joined uploaded left wrote read viewed downloaded deleted shared logged
  signed messaged emailed texted typed said replied changed edited created visited received liked reacted
  commented called met asked told logging chatting]]):gmatch("%S+") do DEEDS[w] = true end
for w in ([[send open search post join upload leave write read view download delete share log sign message email
  text type say reply change edit create visit receive like react comment call meet use go come]]):gmatch("%S+") do
  BASE_DEEDS[w] = true
  DEEDS[(w:gsub("e$", "")) .. "ing"] = true
end
for w in ("has had have is was did does"):gmatch("%S+") do NAME_AUX[w] = true end
-- where a person is, after "is" ("is marta online right now?")
local BEING = {}
for w in ("online offline available away active typing working"):gmatch("%S+") do BEING[w] = true end
local GIVING = {}
for w in ("write writing send sending give giving buy buying get getting bring bringing wish wishing"):gmatch("%S+") do
  GIVING[w] = true
end
local HOLD_VERBS, THIRD_POSSESSIVE = { has = true, had = true, have = true, keeps = true, uses = true }, { her = true, his = true, their = true }
for w in ("usually still last just ever already recently actually often always also"):gmatch("%S+") do NAME_ADVERBS[w] = true end

-- capitalised words that read as names of people ("Sam", "Maria Lopez"):
-- not the first word of a sentence, not a word of the ontology or the
-- product, not a tenant the request names
local function person_names(text, m, pm, tenants)
  local skip = {}
  for _, w in ipairs(pm.product_words) do skip[w] = true end
  for _, t in ipairs(tenants) do skip[t.value] = true end
  local out, seen = {}, {}
  for pos, w in text:gmatch("()(%u%l+)") do
    local before = text:sub(1, pos - 1)
    local l = w:lower()
    local initial = before:match("^%s*$") or before:match("[%.%?!:;]%s*$") or before:match("[\"'(]%s*$")
      or before:match("\n%s*$")
    -- (a sentence's first word is a name when a person's verb follows it: "Hannah asked me …")
    if initial and SUBJECT_VERBS[(text:match("^%s+(%a+)", pos + #w) or ""):lower()] then initial = false end
    if not initial and not skip[l] and not known(m, l) and not lex.STOP[l]
      and not seen[w] then
      seen[w] = true
      out[#out + 1] = w
    end
  end
  -- a name written without its capital, or in a text all in capitals ("what
  -- has dana been searching for?", "WHEN DID KOFI LOG OFF?"): a word the
  -- ontology and the language lists do not know, in the place of a person
  -- doing something — before a deed ("the messages hiro sent", "hannah
  -- asked me"), before an auxiliary and a deed or "been" ("dana has sent",
  -- "jonas has been posting"), between an auxiliary and a verb ("did kofi
  -- log off", "is priya still using")
  local words = {}
  for w in text:gmatch("[%a']+") do words[#words + 1] = w end
  -- (the word at i, past the adverbs: a deed, or with base = true a verb's base form or "been" too)
  local function deed(i, base)
    while words[i] and NAME_ADVERBS[words[i]:lower()] do i = i + 1 end
    local v = words[i] and words[i]:lower()
    return v and (DEEDS[v] or SUBJECT_VERBS[v] or base and (BASE_DEEDS[v] or v == "been" or BEING[v]))
  end
  -- (a word of three letters or more not named yet that no list knows: a_name stems it, so it is asked last)
  local function unknown(w)
    local l = w:lower()
    return #l >= 3 and not seen[w] and not skip[l] and not lex.OTHER_PEOPLE[l] and not lex.CALENDAR[l] and a_name(l, m, pm)
  end
  -- (in a text without capitals, or all in capitals, a possessive of such a word too: "SAM'S INVOICES")
  local caseless = not text:find("%u") or not text:find("%l")
  for i, w in ipairs(words) do
    local owner = caseless and w:match("^(%a+)'[sS]$")
    if owner and unknown(owner) then
      seen[owner] = true
      out[#out + 1] = owner
    end
    local l = w:lower()
    local unmarked = w == l or w == w:upper()
    if unmarked and not l:find("'") then
      local nxt, prev = words[i + 1] and words[i + 1]:lower(), words[i - 1] and words[i - 1]:lower()
      local after_aux = nxt and NAME_AUX[nxt] and words[i + 2]
        and (words[i + 2]:lower() == "been" or DEEDS[words[i + 2]:lower()])
      local between_aux = prev and NAME_AUX[prev] and deed(i + 1, true)
      -- (holding something on a profile of theirs: "the number aisha has on her profile", "does wei have in his")
      local w2, w3, w4 = (words[i + 2] or ""):lower(), (words[i + 3] or ""):lower(), (words[i + 4] or ""):lower()
      local holds = nxt and HOLD_VERBS[nxt] and (w2 == "on" or w2 == "in") and (THIRD_POSSESSIVE[w3] or THIRD_POSSESSIVE[w4])
      -- (given something: "writing priya a thank-you card", "send dana a note")
      local given = prev and GIVING[prev] and (nxt == "a" or nxt == "an")
      if (deed(i + 1) or after_aux or between_aux or holds or given) and unknown(w) then
        seen[w] = true
        out[#out + 1] = w
      end
    end
  end
  return out
end

--- the people and tenants the request names, resolved: {persons = {...},
--- tenants = {...}, names = {...}}; persons are {kind = "person", value,
--- self, same_tenant, how}, tenants {value, own} or {value = "*", others};
--- names are capitalised words read as people's names nothing resolved;
--- directory: the tenant directory (M.directory), or nil
function M.entities(nx, m, pm, caller, analysis, directory)
  local out = { persons = {}, tenants = tenant_mentions(analysis.prompt, m, pm, caller, directory) }
  out.names = person_names(analysis.text, m, pm, out.tenants)
  local persons_known = known_persons(nx, analysis.prompt, pm)
  local by_email = {}
  for _, k in pairs(persons_known) do if k.email then by_email[k.email] = k end end
  for _, e in ipairs(analysis.emails) do out.persons[#out.persons + 1] = M.person(caller, e, by_email[e]) end
  for name, k in pairs(persons_known) do
    local p = M.person(caller, k.email, k)
    p.value, p.name = name, name
    if not k.email and not k.tenant then p.same_tenant = false end
    out.persons[#out.persons + 1] = p
  end
  table.sort(out.persons, function(a, b) return tostring(a.value) < tostring(b.value) end)
  return out
end

--- the word after the tenant noun when it reads as a name ("for <noun>
--- umbrella"): what a tenant parameter takes when nothing stricter named one
function M.loose_tenant(text, m, pm)
  local noun = pm.tenant.noun:lower()
  for name in (" " .. text:lower() .. " "):gmatch("%f[%w]" .. noun .. "s?%s+([%w][%w%-_]*)") do
    if a_name(name, m, pm) then return name end
  end
  return nil
end

-- what an order's object may be without naming anyone
local OBJECT_PRONOUNS = {}
for w in ("me us him her them it this that these those everyone everybody everything all both"):gmatch("%S+") do
  OBJECT_PRONOUNS[w] = true
end
-- words of time, which "for", "of" and "at" also lead to ("a credit for october")
local TIME_WORDS = {}
for w in ([[january february march april may june july august september october november december jan feb mar apr
  jun jul aug sep sept oct nov dec monday tuesday wednesday thursday friday saturday sunday today tomorrow yesterday
  tonight now once good real sure ever]]):gmatch("%S+") do TIME_WORDS[w] = true end

-- the name an order's clause gives its target bare: right after the verb,
-- or after one of `prepositions` (or one of `pronouns` there: "delete her
-- account", "reset the password for him")
local function order_target(an, m, pm, prepositions, pronouns)
  for _, c in ipairs(an.clauses or {}) do
    if c.act and c.verb then
      local words = lex.words(c.text:lower())
      local at
      for i, w in ipairs(words) do if w == c.verb:lower() then at = i break end end
      if not at then return nil end
      local function named(w)
        if w and pronouns and pronouns[w] then return true end
        return w and not OBJECT_PRONOUNS[w] and not TIME_WORDS[w] and a_name(w, m, pm) and not w:find("%d")
      end
      if named(words[at + 1]) then return words[at + 1] end
      for i = at + 1, #words - 1 do
        if prepositions[words[i]] and named(words[i + 1]) then return words[i + 1] end
      end
      return nil
    end
  end
  return nil
end

--- the bare names a thing is said to be of, for, from or at, in any clause
--- ("pull up the invoices for umbrella", "the files of jo"): {thing = the
--- word before, before = the word before it, prep =, name =} for each name — not a word of the ontology,
--- a time, a pronoun or a number, nor the caller's own tenant or user
local OF_WHOM = { ["for"] = true, of = true, from = true, at = true }
function M.named_after(an, m, pm, caller)
  local out = setmetatable({}, core.array_mt)
  local own = { [lower(caller and caller.tenant or "")] = true, [lower((caller and caller.user or ""):match("^[^@]*"))] = true }
  for _, c in ipairs(an.clauses or {}) do
    local words = lex.words(c.text:lower())
    for i = 2, #words - 1 do
      local w = words[i + 1]
      if OF_WHOM[words[i]] and not own[w] and not OBJECT_PRONOUNS[w] and not TIME_WORDS[w] and not w:find("%d")
        and a_name(w, m, pm) then
        out[#out + 1] = { thing = words[i - 1], before = words[i - 2] or "", prep = words[i], name = w }
      end
    end
  end
  return out
end

--- the tenant an order names bare as what it acts on ("upgrade umbrella to
--- the Business plan", "cancel the subscription of umbrella", "request a
--- credit for umbrella"): a name right after the order's verb, or after
--- "for", "of" or "at" in its clause; nil when there is none ("upgrade us",
--- "upgrade the plan", "a credit for october"). The action's tenant
--- parameter then takes it, never the caller's own tenant in its place.
function M.order_object_tenant(an, m, pm)
  return order_target(an, m, pm, { ["for"] = true, of = true, at = true })
end

--- the person an order names bare as whom it acts on ("export personal data
--- for mia", "delete the account of jo", "unlock priya"): a name right after
--- the order's verb, or after "for", "of" or "to" in the order's clause —
--- or a third person's pronoun there ("delete her account", "reset the
--- password for him"); nil when there is none ("export my data", "send it
--- to me", "delete my account, their app is awful"). A person parameter
--- then never takes the caller's own address in its place.
local THIRD_PERSON = { his = true, her = true, hers = true, him = true, them = true, their = true, theirs = true }
function M.order_object_person(an, m, pm)
  return order_target(an, m, pm, { ["for"] = true, of = true, to = true }, THIRD_PERSON)
end

--- does the request name someone or some tenant other than the caller?
function M.names_others(ent)
  for _, p in ipairs(ent.persons) do if not p.self then return true end end
  for _, t in ipairs(ent.tenants) do if not t.own then return true end end
  return false
end

--- the tenancy of an action's parameters: {param -> binding} for params
--- that name a tenant (the profile's tenant param) or a person (its user
--- params; `own_only`: the set of params the action takes only as the
--- caller's own, marked callers_own), and for other identifiers the resolve
--- hook answers for
function M.bind_params(pm, caller, params, hook, own_only)
  local out = {}
  local user_params = {}
  for _, p in ipairs(pm.tenant.user_params or {}) do user_params[p] = true end
  local names = {}
  for k in pairs(params or {}) do names[#names + 1] = k end
  table.sort(names)
  for _, k in ipairs(names) do
    local v = params[k]
    if k == pm.tenant.param and v ~= nil then
      out[k] = { kind = "tenant", value = v, own = caller.tenant ~= nil and lower(tostring(v)) == lower(caller.tenant) }
    elseif user_params[k] and type(v) == "string" then
      out[k] = M.person(caller, v)
      -- (a parameter the action takes only as the caller's own: "must be the caller's own")
      out[k].callers_own = own_only ~= nil and own_only[k] or nil
    elseif hook and type(v) == "string" then
      local ok, r = pcall(hook, k, v)
      if ok and type(r) == "table" and (r.tenant or r.user) then
        local self = r.user ~= nil and caller.user ~= nil and lower(r.user) == caller.user
        out[k] = { kind = "resolved", value = v, tenant = r.tenant, user = r.user, self = self,
          own = self or (r.tenant ~= nil and caller.tenant ~= nil and lower(r.tenant) == lower(caller.tenant)) }
      end
    end
  end
  return out
end

return M
