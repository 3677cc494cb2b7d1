--- kip.arg.steps.bind — step 4 of seed 003, landing point: the bound
--- eligible set N_scope = policy scope ∩ attachments of L_final (visible
--- nodes of the ACTIVE labels routed to), the landing points inside it
--- (the primary label's nodes ranked by their step-2 score), the external
--- source to bind when RetrievalType = EXTERNAL, and the action-vs-info
--- decision: the action path only when the request asks to act now and
--- an action is bound to the primary label; one action among several is
--- chosen by the parameters the request fills (AMBIGUOUS otherwise), and it
--- runs only above the routing-confidence floor (limits.action_confidence;
--- LOW_CONFIDENCE otherwise) unless the request names the operation in
--- full (M.named_in_full); an order whose verb or object is not the bound
--- action's (M.other_operation, M.foreign_object) is asked about (MISMATCH)
--- — else Info or Clarify (never an invented
--- action). The caller is the authenticated one (st.caller). The BindResult.
local params = require "kip.arg.params"
local lex = require "kip.arg.lexicon"

local M = {}

function M.run(st)
  local m, w, pol = st.snapshot, st.weaver, st.policy
  local b = { eligible = {}, landing = {}, path = "NONE", external = {} }
  st.bind = b
  if not w.primary then return end
  -- N_scope: visible nodes of the routed labels (and of the labels their
  -- deprecated sources redirect to, which are in L_final already)
  local seen = {}
  for _, l in ipairs(w.L_final) do
    for _, n in ipairs(m.labels[l].nodes) do
      -- a deprecated node (merged away) never answers: its redirect target does
      if not seen[n] and pol.visible_node(n) and m.nodes[n].lifecycle ~= "DEPRECATED" then
        seen[n] = true
        b.eligible[#b.eligible + 1] = n
      end
    end
    if m.labels[l].retrieval_type == "EXTERNAL" then
      for _, s in ipairs(m.labels[l].sources) do
        if pol.visible_source(s) then b.external[#b.external + 1] = { source = s, label = l } end
      end
    end
  end
  b.eligible_id = #b.eligible .. ":" .. table.concat(w.L_final, "|")
  -- landing points: eligible nodes of the primary label, best step-2 score first
  local score = st.node_scores or {}
  local land = {}
  for _, n in ipairs(m.labels[w.primary].nodes) do if seen[n] then land[#land + 1] = n end end
  table.sort(land, function(x, y)
    local sx, sy = score[x] or 0, score[y] or 0
    return sx > sy or (sx == sy and x < y)
  end)
  b.landing = land
  -- action or info
  local a = st.analysis
  local asked
  for _, it in ipairs(w.intents) do if it.act and it.label == w.primary then asked = true end end
  if #w.intents <= 1 and a.act then asked = true end
  if asked then
    b.path = "ACTION"
    b.action = M.choose_action(st, m.labels[w.primary].actions)
    -- a confident route only: below the floor the caller confirms first
    local act = b.action.name and m.actions[b.action.name]
    local floor = math.max(st.limits.action_confidence or 0, act and tonumber(act.min_confidence) or 0)
    local other = act and M.other_operation(st, act)
    local thing = act and not other and M.foreign_object(st, act, w.primary)
    if other and (b.action.status == "BOUND" or b.action.status == "INCOMPLETE") then
      -- "refund INV-…" routed to the invoices label must not resend the invoice
      b.action.status = "MISMATCH"
      b.action.reason = ("the request asks to %s, which is %s's operation, not %s's"):format(other.verb, other.action, act.name)
    elseif thing and (b.action.status == "BOUND" or b.action.status == "INCOMPLETE") then
      -- "generate a login token" routed to the password-reset label must not send a reset link
      b.action.status = "MISMATCH"
      b.action.reason = ("the request asks for a %s, which %s does not act on"):format(thing, act.name)
    elseif b.action.status == "BOUND" and (w.confidence or 0) < floor and not M.named_in_full(st, b.action) then
      b.action.status = "LOW_CONFIDENCE"
      b.action.reason = ("routing confidence %.3f is under the action's floor %.3f"):format(w.confidence or 0, floor)
    end
    -- the same operands fill an action of a close label, and the request
    -- names the bound one no more than that one ("run the payment for
    -- INV-… once more": resend the invoice or retry the charge?): ask
    local rival = b.action.status == "BOUND" and M.rival_action(st, act, b.action.params)
    if rival then
      b.action.status = "AMBIGUOUS"
      b.action.candidates = { act.name, rival }
      b.action.reason = ("the request fills %s as well as %s and names neither more"):format(rival, act.name)
    end
  else
    b.path = (#b.external > 0 and #land == 0) and "EXTERNAL" or "INFO"
  end
end

--- the operation an order's verb names when it is another action's and not
--- act's own: {verb, action}, or nil. A verb is act's own when it occurs in
--- a word of act's name or description ("send" in "resend", "retry" in
--- "Retries the charge"); it is another action's when it is a word of that
--- action's name ("refund" of issue_refund).
function M.other_operation(st, act)
  local m = st.snapshot
  local own = " " .. table.concat(lex.stems(((act.name .. " " .. (act.description or "")):gsub("_", " "))), " ") .. " "
  for _, c in ipairs(st.analysis.clauses or {}) do
    local v = c.act and c.verb and lex.stem(c.verb)
    if v and #v > 2 and not own:find(v, 1, true) then
      for _, name in ipairs(m.action_names) do
        if name ~= act.name then
          for _, x in ipairs(lex.stems((name:gsub("_", " ")))) do
            if x == v then return { verb = c.verb, action = name } end
          end
        end
      end
    end
  end
  return nil
end

-- what opens an order's object without being it ("mail ME A link"), and
-- the particles of a phrasal verb ("give BACK 25 USD", "log me OUT")
local OPENERS = {}
for w in ("me us our the this that these those it them him her his their my your a an all every some any back out up off down over away again through"):gmatch("%S+") do
  OPENERS[w] = true
end

--- the thing an order asks for that act does not act on, or nil: the
--- object of the request's first order — the run of words right after its verb and what
--- opens it, up to a word of no content (a stop word, an identifier, a
--- number) — names words the ontology knows and none of them is a word of
--- act's name, description or parameters', nor of its label's own name,
--- keywords, aliases and nodes ("generate a login token" bound to the
--- reset link's action). An object the ontology has no word of (a tenant's or a
--- person's name, an identifier) says nothing.
function M.foreign_object(st, act, label)
  local m = st.snapshot
  local own = {}
  local texts = { (act.name:gsub("_", " ")), act.description or "", (label:match("[^.]+$"):gsub("_", " ")) }
  for name, p in pairs(act.params or {}) do
    texts[#texts + 1] = name:gsub("_", " ")
    texts[#texts + 1] = type(p) == "table" and p.description or ""
  end
  local l = m.labels[label] or {}
  for _, k in ipairs(l.keywords or {}) do texts[#texts + 1] = k end
  for _, k in ipairs(l.aliases or {}) do texts[#texts + 1] = k end
  for _, n in ipairs(l.nodes or {}) do
    local node = (m.nodes or {})[n] or {}
    texts[#texts + 1] = (node.title or "") .. " " .. (node.chunk or "")
  end
  for _, t in ipairs(texts) do for _, x in ipairs(lex.stems(t)) do own[x] = true end end
  for _, c in ipairs(st.analysis.clauses or {}) do
    if c.act and c.verb then
      -- (up to a mark: the routing text has identifiers taken out, so
      -- "deactivate ria2@…, duplicate account" reads "deactivate , duplicate …")
      local _, at = c.text:lower():find("%f[%w]" .. c.verb:gsub("%p", "%%%0") .. "%f[%W]")
      local words = lex.words(at and c.text:sub(at + 1):match("^[^,;:.!?()]*") or "")
      local i = 1
      while words[i] and OPENERS[words[i]] do i = i + 1 end
      local known, shared = {}, false
      while words[i] and not lex.STOP[words[i]] and not words[i]:find("%d") do
        if (m.vocab or {})[words[i]] then
          known[#known + 1] = words[i]
          if own[lex.stem(words[i])] then shared = true end
        end
        i = i + 1
      end
      if #known > 0 and not shared then return table.concat(known, " ") end
      -- (the first order only: "deactivate ria2@…, duplicate account of mine" reads a second "order")
      return nil
    end
  end
  return nil
end

--- does the request name the bound action's operation in full, so that a
--- close rival does not make the route uncertain? Every parameter filled,
--- at least one of them from the request's own words (not from the
--- caller's context), and no other label close to the route has an action
--- the request's own words fill: an order can only mean a label that can
--- carry it out ("send INV-… again" names an invoice, not the address a
--- password-reset label would send to).
function M.named_in_full(st, action)
  if #(action.missing or {}) > 0 or params.from_request(action.params, st.caller) == 0 then return false end
  for _, l in ipairs(st.weaver.close or {}) do
    if l ~= st.weaver.primary and M.action_fit(st, l) then return false end
  end
  return true
end

-- how many of the words of an action's name the request uses
local function names_words(st, name) return params.name_words(name, st.analysis.stems) end

-- parameters of act the request's own words fill with a value of a shape
-- (not free text, not the caller's context)
local function shaped_from_request(st, act, values)
  local n = 0
  for name, v in pairs(values) do
    if v ~= st.caller.tenant and v ~= st.caller.user and not params.free_text(act, name, st.snapshot.profile) then
      n = n + 1
    end
  end
  return n
end

--- the action of label l the request names in full: every parameter filled
--- (with `partial`: some, by a word of the action's name or a value of a
--- shape — "give me a credit of 20 on BILL-…" fills only a free-text
--- parameter of booking a visit, and names nothing of it), at least one of
--- them from the request's own words (not the caller's context), and the
--- order's verb not another action's; its name, or nil
function M.action_fit(st, l, partial)
  for _, act in ipairs(params.runnable(st.snapshot, st.snapshot.labels[l].actions, st.caller.role)) do
    local values, missing = params.fill(act, st.analysis, st.snapshot.profile, st.caller, st.entities)
    local named = #missing == 0
      or partial and (names_words(st, act.name) > 0 or shaped_from_request(st, act, values) > 0)
    -- (not when the order's verb is another action's: "refund INV-…" is no resend)
    if named and params.from_request(values, st.caller) > 0 and not M.other_operation(st, act) then
      return act.name
    end
  end
  return nil
end

--- an action of another label close to the route that the request's own
--- words fill as well as act — as many of its parameters from them as
--- act's — and that the request names at least as much as act: its name,
--- or nil
function M.rival_action(st, act, values)
  local mine, operands = names_words(st, act.name), params.from_request(values, st.caller)
  for _, l in ipairs(st.weaver.close or {}) do
    if l ~= st.weaver.primary then
      local other = M.action_fit(st, l)
      if other and other ~= act.name and names_words(st, other) >= mine then
        local theirs = params.fill(st.snapshot.actions[other], st.analysis, st.snapshot.profile, st.caller, st.entities)
        if params.from_request(theirs, st.caller) >= operands then return other end
      end
    end
  end
  return nil
end

--- the action to bind among those of the primary label (seed 003 step 4:
--- "bound deterministically"; CLARIFY "when the action binding is
--- ambiguous"): the one the caller may run whose parameters the request
--- fills; several that fit equally -> AMBIGUOUS
function M.choose_action(st, names)
  local m, a, role = st.snapshot, st.analysis, st.caller.role
  if #names == 0 then return { status = "NO_ACTION", reason = "no action is bound to " .. st.weaver.primary } end
  local allowed = params.runnable(m, names, role)
  if #allowed == 0 then
    local act = m.actions[names[1]]
    local roles = {}
    for _, n in ipairs(names) do for _, r in ipairs(m.actions[n].required_roles) do roles[#roles + 1] = r end end
    -- (its parameters still read from the request: the post-check refuses
    -- an order on another tenant or person before it abstains for the role,
    -- R1 before R6 — "downgrade <another tenant> to the free plan")
    local values = #names == 1 and params.fill(act, a, st.snapshot.profile, st.caller, st.entities) or nil
    return { name = #names == 1 and act.name or nil, params = values, status = "UNAUTHORIZED",
      reason = ("role %s is not among %s"):format(tostring(role), table.concat(roles, ", ")) }
  end
  local fits = {}
  for _, act in ipairs(allowed) do
    local values, missing = params.fill(act, a, st.snapshot.profile, st.caller, st.entities)
    -- how much of the request names this action (its name's words)
    fits[#fits + 1] = { act = act, values = values, missing = missing, named = names_words(st, act.name) }
  end
  table.sort(fits, function(x, y)
    if #x.missing ~= #y.missing then return #x.missing < #y.missing end
    if x.named ~= y.named then return x.named > y.named end
    return x.act.name < y.act.name
  end)
  local best, second = fits[1], fits[2]
  if second and #second.missing == #best.missing and second.named == best.named then
    local list = {}
    for _, f in ipairs(fits) do if #f.missing == #best.missing and f.named == best.named then list[#list + 1] = f.act.name end end
    return { status = "AMBIGUOUS", candidates = list,
      reason = "several actions fit the request equally: " .. table.concat(list, ", ") }
  end
  return { name = best.act.name, params = best.values, missing = best.missing,
    status = #best.missing == 0 and "BOUND" or "INCOMPLETE" }
end

return M
