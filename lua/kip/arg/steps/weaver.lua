--- kip.arg.steps.weaver — step 3 of seed 003, the Context Weaver: request
--- decomposition into intents, taxonomy-safe arbitration by a deterministic
--- validator, L_final / L_final_ids / PrimaryLabelID / LabelSignature /
--- RetrievalType, confidence from the score margin, and the standard flags
--- (Annex 7.2). It produces routing signals only; it reads nothing.
---
--- Lifecycle: only ACTIVE labels route. A DEPRECATED label that matches hands
--- its score to the labels its nodes redirect to (redirects_to); a DRAFT
--- label that matches best is reported (DRAFT_MATCH) and recommends ABSTAIN.
--- A best match the caller may not see (policy) recommends ABSTAIN with
--- POLICY_RESTRICTED: knowledge hidden from the caller, asked in good faith, is an
--- abstention, not a refusal.
local core = require "kip.core"
local candidates = require "kip.arg.steps.candidates"
local lex = require "kip.arg.lexicon"

local M = {}

M.VAGUE = 0.6          -- a lone content word below this specificity names no topic
-- scores are BM25 sums; the thresholds below are in units of the ontology's
-- largest IDF (a word of one document), so they do not depend on its size
M.MIN_SCORE = 0.35     -- below: nothing in the ontology matches (cold start / out of domain)
M.LOW_MARGIN = 0.12    -- relative margin under which two unrelated labels are "about equally plausible"...
M.WEAK = 1.4           -- ... when the best label's evidence is this weak
M.INTENT_MIN = 0.9     -- a clause routes on its own from this score
M.SPECIFIC_SHARE = 0.8 -- a child label within this share of its parent's score is the more specific route
M.HIDDEN_DOMINANCE = 1.25 -- a label the caller may not see "answers" when it beats every visible one by this factor

-- is label d below label a in the hierarchy (parent_label)?
local function descends(m, d, a)
  local x, depth = m.labels[d], 0
  while x and x.parent and depth < 64 do -- bounded: a published hierarchy is acyclic (kip.arg.ontology.check)
    if x.parent == a then return true end
    x = m.labels[x.parent]
    depth = depth + 1
  end
  return false
end

-- is b an ancestor or a descendant of a (one family: not competitors)?
local function family(m, a, b)
  return a == b or descends(m, a, b) or descends(m, b, a)
end
M.family = family

-- the ACTIVE labels a deprecated label's content redirects to
local function redirect_targets(m, label)
  local out, seen = {}, {}
  for _, n in ipairs(m.labels[label].nodes) do
    for _, e in ipairs(m.nodes[n].out) do
      if e.predicate == "redirects_to" then
        for _, l in ipairs(m.nodes[e.to].labels) do
          if not seen[l] and m.labels[l] and m.labels[l].lifecycle == "ACTIVE" then
            seen[l] = true
            out[#out + 1] = { label = l, via = n, to = e.to }
          end
        end
      end
    end
  end
  return out
end
M.redirect_targets = redirect_targets

--- resolve a scored list to routable labels: {label, score, visible, from}
--- where from names the deprecated label a redirect came through;
--- node_scores: the node scores of the same text as the list (a clause's
--- own when routing a clause), else the whole request's
local function routable(st, list, node_scores)
  local m = st.snapshot
  local best, order, drafts = {}, {}, {}
  local function put(l, score, from)
    local e = best[l]
    if not e then
      e = { label = l, score = score, from = from, visible = st.policy.visible_label(l) }
      best[l] = e
      order[#order + 1] = e
    elseif score > e.score then
      e.score, e.from = score, from
    end
  end
  for _, c in ipairs(list) do
    local lab = m.labels[c.label]
    if lab.lifecycle == "ACTIVE" then put(c.label, c.score)
    elseif lab.lifecycle == "DEPRECATED" then
      -- the replacement that answers: the redirect target the request matches best
      local ns = node_scores or st.node_scores or {}
      for _, r in ipairs(redirect_targets(m, c.label)) do put(r.label, c.score + (ns[r.to] or 0), c.label) end
    else
      drafts[#drafts + 1] = c
    end
  end
  table.sort(order, function(a, b) return a.score > b.score or (a.score == b.score and a.label < b.label) end)
  return order, drafts
end

-- the best competitor of top outside its family, and the relative margin
local function margin(m, list, top)
  for i = 1, #list do
    local c = list[i]
    if c ~= top and not family(m, top.label, c.label) then
      return c, (top.score - c.score) / top.score
    end
  end
  return nil, 1
end

--- the taxonomy validator: a label set is safe when every label exists, is
--- ACTIVE, has a cluster, and no two are incompatible. Returns ok, reasons.
function M.validate(m, labels)
  local reasons = {}
  for _, l in ipairs(labels) do
    local x = m.labels[l]
    if not x then reasons[#reasons + 1] = "unknown label " .. l
    elseif x.lifecycle ~= "ACTIVE" then reasons[#reasons + 1] = l .. " is " .. x.lifecycle
    elseif not x.cluster or not m.clusters[x.cluster] then reasons[#reasons + 1] = l .. " has no cluster" end
  end
  for i = 1, #labels do
    for j = i + 1, #labels do
      local x = m.labels[labels[i]]
      if x and x.incompatible[labels[j]] then
        reasons[#reasons + 1] = labels[i] .. " is incompatible with " .. labels[j]
      end
    end
  end
  return #reasons == 0, reasons
end

local function has_flag(w, f)
  for _, x in ipairs(w.flags) do if x == f then return true end end
  return false
end

local function add_flag(w, f)
  if not has_flag(w, f) then w.flags[#w.flags + 1] = f end
end

-- stop routing: no confident route, these flags say why and what to do
local function recommend(w, ...)
  for i = 1, select("#", ...) do add_flag(w, (select(i, ...))) end
  w.confidence = 0
end

-- does word t name one family: a label, and possibly labels below it, and
-- nothing else ("invoices": billing.invoices and its child; "link" names
-- two siblings, not their parent: no one family)
function M.names_one_family(m, t)
  local named = t and m.naming[t.stem]
  if not named then return false end
  local root
  for l in pairs(named) do
    local r, depth = l, 0
    while m.labels[r] and m.labels[r].parent and depth < 64 do r = m.labels[r].parent; depth = depth + 1 end
    if root and r ~= root then return false end
    root = r
  end
  return root ~= nil and named[root] == true
end

M.HISTORY_TURNS = 2      -- the last turns of context.history a vague request may lean on
M.HISTORY_BYTES = 2000

--- the stems of the last turns of context.history (strings or {content=}
--- / {text=} tables; user turns only when a role is given)
function M.history_stems(ctx)
  local h = type(ctx) == "table" and ctx.history
  if type(h) ~= "table" then return {} end
  local texts = {}
  for i = #h, 1, -1 do
    local t = h[i]
    local text = type(t) == "string" and t or (type(t) == "table" and (t.role == nil or t.role == "user")
      and (t.content or t.text)) or nil
    if type(text) == "string" then texts[#texts + 1] = text:sub(1, M.HISTORY_BYTES) end
    if #texts >= M.HISTORY_TURNS then break end
  end
  local out = {}
  for _, text in ipairs(texts) do for _, x in ipairs(require("kip.arg.lexicon").stems(text)) do out[#out + 1] = x end end
  return out
end

M.HOOK_CANDIDATES = 5

--- the route hook (arg.configure{hooks = {route = fn}}): fn{prompt, context,
--- candidates = {{label, description, score}...}} returns one of the
--- candidates' labels or nil. Its answer is logged in weaver.hook and
--- replayed from the episode, never asked again.
function M.ask_hook(st, visible)
  local replayed = st.opts.replay_hook
  local hook = st.hooks.route
  if not hook and replayed == nil then return nil end
  local m = st.snapshot
  local cands, by = {}, {}
  for i = 1, math.min(#visible, M.HOOK_CANDIDATES) do
    local c = visible[i]
    cands[i] = { label = c.label, description = m.labels[c.label].description, score = math.floor(c.score * 1000 + 0.5) / 1000 }
    by[c.label] = c
  end
  local answer, err
  if replayed ~= nil then answer = replayed or nil
  else
    local started = core.monotonic_ms()
    local ok, v = pcall(hook, { prompt = st.request.prompt, context = st.request.context, candidates = cands })
    st.timings.route_hook = core.monotonic_ms() - started -- wall time: the wait for the operator's service
    if ok then answer = v else err = tostring(v):match("^[^\n]*") end
  end
  local accepted = type(answer) == "string" and by[answer] ~= nil
  st.weaver.hook = { asked = true, answer = type(answer) == "string" and answer or false, accepted = accepted, error = err }
  if err then
    st.errors[#st.errors + 1] = { code = "ARG_HOOK_FAILED", step = "weaver", message = err,
      hint = "The route hook failed; the request is clarified instead." }
  end
  return accepted and by[answer] or nil
end

-- out of domain (calibrated on tests/arg/sets/dev.jsonl, docs/arg.md):
-- coverage under OOD_COVERAGE with a best score under OOD_SCORE units; or
-- a foreign product named as the object, with coverage under FOREIGN_COVERAGE
M.OOD_COVERAGE, M.OOD_SCORE, M.FOREIGN_COVERAGE = 0.35, 1.3, 0.75
M.OOD_CANDIDATES = 5 -- coverage is the best of the first candidates' (the route may still be wrong)

--- the share of the request's content words that label l's vocabulary (its
--- text, its nodes', its actions') holds; nil when the request has none
function M.coverage(m, a, l)
  local v, n, hit = m.label_vocab[l] or {}, 0, 0
  for _, t in ipairs(a.content) do
    n = n + 1
    if v[t.stem] then hit = hit + 1 end
  end
  return n > 0 and hit / n or nil
end

-- an order routed to a label that runs nothing for the caller looks at the
-- first ACTION_FIT_CANDIDATES labels within ACTION_FIT_SHARE of the best
-- for one whose action it names (kip.arg.steps.bind.action_fit)
M.ACTION_FIT_CANDIDATES, M.ACTION_FIT_SHARE = 5, 0.5

local function known_word(m, w) return m.vocab[w] or m.stem_known[lex.stem(w)] end
local function content_word(w) return not lex.STOP[w] and not lex.GENERIC[w] and not w:find("^%d+$") and #w > 1 end

-- before a place and its owner: "from my iPhone", "in our Outlook" — the
-- product is where the thing asked about lives
local WHERE = { ["in"] = true, ["on"] = true, ["from"] = true, ["into"] = true, ["inside"] = true }
local OWNED = { my = true, our = true, your = true, the = true }
local PARTICLES = { out = true, off = true, up = true, down = true, back = true, away = true, over = true,
  around = true, through = true }

--- a product the ontology does not know, named as the thing the request is
--- about. A name is a run of capitalised words inside a sentence (or one
--- camel-case word) that is not the product, a tenant the request names, a
--- day or a month; it is unknown when one of its words is not the
--- ontology's ("Gmail"), or when its words are but never together
--- ("Microsoft Teams", "Google Drive" — not "Google Calendar"). Where it
--- stands makes it the thing asked about: qualifying the next word ("my
--- Gmail password", "a Zoom call"), after in/on/from and a possessive
--- ("contacts from my iPhone"), or closing a task after in/on/from ("how do
--- I clear the cache in Chrome?": where the task is done — `closing`).
--- "Integrate with Jira" relates it to this product instead. Returns the
--- name and whether it closes a task, or nil.
function M.foreign_object(m, prompt, entities, task)
  -- (every unknown capitalised word is also a candidate person's name,
  -- entities.names: the position tells them apart — a person owns things,
  -- "Sam's invoices", and is not where a thing lives nor its kind)
  local persons = {} -- tenants the request names are not products
  for _, t in ipairs((entities or {}).tenants or {}) do
    if type(t.value) == "string" then persons[t.value:lower()] = true end
    for x in tostring(t.phrase or ""):gmatch("%w+") do persons[x:lower()] = true end
  end
  for _, t in ipairs(m.product_words or {}) do persons[t:lower()] = true end -- nor the product itself
  local tokens, words = lex.tokens(prompt), {}
  for i, x in ipairs(tokens) do words[i] = x.w end
  local product = {}
  for _, t in ipairs(m.product_words or {}) do product[t:lower()] = true end
  local names_product = false
  for _, w in ipairs(words) do if product[w:lower()] then names_product = true end end
  local function capital(k)
    local x = tokens[k]
    -- (not an acronym: SCIM, SAML, CSV name techniques more often than products)
    return x ~= nil and ((not x.first and x.w:find("^%u%l")) or x.w:find("^%l+%u")) and not x.w:find("[%d']")
  end
  local i = 1
  while i <= #words do
    if not capital(i) then i = i + 1 else
      local k = i
      while capital(k + 1) and not tokens[k + 1].first do k = k + 1 end
      local unknown, ordinary = false, true
      for x = i, k do
        local low = words[x]:lower()
        if persons[low] or lex.CALENDAR[low] or lex.STOP[low] then ordinary = false end
        if not known_word(m, low) then unknown = true end
      end
      for x = i, k - 1 do
        if not m.phrases[words[x]:lower() .. " " .. words[x + 1]:lower()] then unknown = true end
      end
      if ordinary and unknown then
        local name = table.concat(words, " ", i, k)
        local nxt, prev, prev2 = words[k + 1], words[i - 1], words[i - 2]
        -- (not a particle after a person: "kick Sam OUT of …")
        local modifies = nxt and not lex.STOP[nxt:lower()] and not PARTICLES[nxt:lower()] and nxt:find("^%l")
        -- ("from my iPhone", "in our Outlook"; not "in Europe": a place is not a product)
        local located = prev and prev2 and WHERE[prev2:lower()] and OWNED[prev:lower()]
        local closing = task and prev and WHERE[prev:lower()] and (tokens[k + 1] == nil or tokens[k + 1].first)
        -- the thing a task's verb acts on, owned by the caller ("how do I reset
        -- MY iPhone to factory settings?"): the task is done to that product
        -- (not when the request names this product: "connect my Gmail to Acme", Acme the product)
        local acted_on = task and prev and prev2 and OWNED[prev:lower()] and prev:lower() ~= "the"
          and not WHERE[prev2:lower()] and not lex.STOP[prev2:lower()] and prev2:find("^%l") and not names_product
        if modifies or located then return name, false end
        if closing or acted_on then return name, true end
      end
      i = k + 1
    end
  end
  return nil
end

-- what ends the object of an order: a preposition or a relative word
local OBJECT_ENDS = {}
for w in ([[in on at to for from with into about of by as than that which who whom whose where when while
  because if so and or but]]):gmatch("%S+") do OBJECT_ENDS[w] = true end

local OBJECT_PRONOUNS = { us = true, me = true, him = true, her = true, them = true, it = true, you = true }

M.ORDER_OBJECT_KNOWN = 0.5

--- the object of an order the ontology does not know: the content words
--- after the verb of the first clause that orders something, up to a
--- preposition or a relative word ("convert 50 EUROS to …", "fix THE
--- GRAMMAR in …", "draft a POLITE EMAIL DECLINING a meeting"), when fewer
--- than ORDER_OBJECT_KNOWN of them are words of the ontology. Returns the
--- object's words or nil. Not for an order that carries an identifier (an
--- address, a link, a reference like INV-2025-…): that names something of
--- the product's.
function M.unknown_order_object(m, a, prompt)
  if #a.emails > 0 or #a.urls > 0 or prompt:find("%w%-%d") then return nil end
  for _, c in ipairs(a.clauses) do
    if c.act and c.verb then
      local words, i = lex.words(c.text), nil
      for k, w in ipairs(words) do if w == c.verb then i = k break end end
      if not i then return nil end
      local object, known, started = {}, 0, false
      for k = i + 1, #words do
        local w = words[k]
        if OBJECT_ENDS[w] and started then break end
        if content_word(w) and not OBJECT_PRONOUNS[w] then
          started = true
          object[#object + 1] = w
          if known_word(m, w) then known = known + 1 end
        end
      end
      if #object == 0 then return nil end
      return known / #object < M.ORDER_OBJECT_KNOWN and object or nil
    end
  end
  return nil
end

-- the words of a calculation (general English, not the ontology's)
local ARITHMETIC = {}
for w in ([[plus minus times divided multiplied by over percent squared cubed root sum product half double
  add subtract multiply divide equals]]):gmatch("%S+") do ARITHMETIC[w] = true end

-- what opens the thing a question asks about: "what is the …", "how many …"
local FOCUS_OPENERS = { { "what" }, { "whats" }, { "which" }, { "how", "many" }, { "how", "much" } }
local FOCUS_SKIP = { is = true, are = true, was = true, were = true, the = true, a = true, an = true }

--- a question about something the ontology does not know, in words it does
--- not use: the thing asked about — the words right after the opener
--- ("how many CALORIES are …", "what RHYMES with …"), up to the first
--- stopword — and every other word of the question are unknown to it.
--- Returns the thing's words or nil: a question that names anything of the
--- product ("what PERKS come with the Business plan?") is in its domain,
--- answered or abstained on, never refocused
function M.unknown_question_focus(m, text)
  local words = lex.words(text)
  local numbers, other = {}, false
  for _, w in ipairs(words) do
    if w:find("^%d+$") then numbers[#numbers + 1] = w
    elseif content_word(w) and not ARITHMETIC[w] then
      if known_word(m, w) then return nil end
      other = true
    end
  end
  -- a calculation: numbers and the words of arithmetic only ("what's 15% of 240?")
  if #numbers >= 2 and not other then return numbers end
  for _, op in ipairs(FOCUS_OPENERS) do
    local ok = #words > #op
    for k, w in ipairs(op) do if words[k] ~= w then ok = false end end
    if ok then
      local k = #op + 1
      while words[k] and FOCUS_SKIP[words[k]] do k = k + 1 end
      local focus = {}
      while words[k] and not lex.STOP[words[k]] do
        if content_word(words[k]) then focus[#focus + 1] = words[k] end
        k = k + 1
      end
      return #focus > 0 and focus or nil
    end
  end
  return nil
end

function M.run(st)
  local m, a = st.snapshot, st.analysis
  local w = { flags = {}, intents = {}, L_final = {}, L_final_ids = {} }
  st.weaver = w
  -- a vague follow-up ("and the annual one?") routes with the short history
  -- of the conversation (context.history: the last turns, newest last)
  local hist = M.history_stems(st.request.context)
  local vague = #a.content <= 1 and a.specificity < M.VAGUE and #a.emails == 0 and #a.urls == 0
    and not M.names_one_family(m, a.content[1])
  if vague and #hist > 0 then
    local stems = {}
    for _, x in ipairs(a.stems) do stems[#stems + 1] = x end
    for _, x in ipairs(hist) do stems[#stems + 1] = x end
    st.scores.raw, st.node_scores = candidates.score(m, stems, st.semantic, a.act)
    add_flag(w, "HISTORY_CONTEXT")
    vague = false
  end
  local all, drafts = routable(st, st.scores.raw)
  local visible = {}
  for _, c in ipairs(all) do if c.visible then visible[#visible + 1] = c end end
  local top_any, top = all[1], visible[1]
  local top_draft = drafts[1]
  w.top_score = top_any and top_any.score or 0

  -- nothing routable matches: out of domain or too vague (cold start)
  local unit = m.max_idf
  -- another domain's request: its words are not what the best label is
  -- about (coverage), and it is weak evidence, or it acts on another
  -- product named as the thing asked about (docs/arg.md "Out of domain")
  local cov
  for i = 1, math.min(#all, M.OOD_CANDIDATES) do
    local c = M.coverage(m, a, all[i].label)
    if c and (not cov or c > cov) then cov = c end
  end
  if top_draft and (not top_any or top_draft.score > top_any.score) then cov = nil end -- a topic not yet published
  w.coverage = cov and math.floor(cov * 1000 + 0.5) / 1000 or nil
  local about_product = a.capability or a.operation or a.own_tenant
  if cov and cov < M.OOD_COVERAGE and top_any.score < M.OOD_SCORE * unit and not about_product then
    return recommend(w, "OUT_OF_DOMAIN_COVERAGE", "OUT_OF_DOMAIN")
  end
  -- (a task closed by where it is done is another product's whatever its
  -- words: "how do I create a channel in Microsoft Teams?")
  local foreign, closing
  if cov and (a.task or a.act) then foreign, closing = M.foreign_object(m, st.request.prompt, st.entities, a.task) end
  if foreign and (closing or cov < M.FOREIGN_COVERAGE) then
    w.foreign = foreign
    return recommend(w, "OUT_OF_DOMAIN_PRODUCT", "OUT_OF_DOMAIN")
  end
  -- an order to do something to a thing the ontology does not know
  -- ("convert 50 euros to dollars", "write a haiku"), not one of its operations
  local object = cov and cov < M.FOREIGN_COVERAGE and not about_product
    and (a.act and M.unknown_order_object(m, a, st.request.prompt)
      or not a.act and M.unknown_question_focus(m, st.request.prompt))
  if object then
    w.foreign = table.concat(object, " ")
    return recommend(w, "OUT_OF_DOMAIN_TASK", "OUT_OF_DOMAIN")
  end
  if (not top_any or top_any.score < M.MIN_SCORE * unit) and not (top_draft and top_draft.score >= M.MIN_SCORE * unit) then
    return recommend(w, "COLD_START", (#a.content > 0 and #a.known == 0) and "OUT_OF_DOMAIN" or "CLARIFY_RECOMMENDED")
  end
  -- too vague to route: at most one word that names anything, and that one
  -- common across the ontology and naming labels of several families
  -- ("account", "link"; "invoices" names one family and is a topic)
  if vague then return recommend(w, "VAGUE", "CLARIFY_RECOMMENDED") end
  -- a DRAFT label is the best match: the topic is not published yet
  if top_draft and (not top_any or top_draft.score > top_any.score) then
    w.draft_label = top_draft.label
    return recommend(w, "DRAFT_MATCH", "ABSTAIN_RECOMMENDED")
  end
  -- the best match is hidden from the caller (for a request to act, only
  -- when the hidden label has an action: information is not run), or
  -- nothing visible matches at all
  local hidden_counts = top_any and not top_any.visible
    and (not a.act or #m.labels[top_any.label].actions > 0)
  if hidden_counts and (not top or top.score * M.HIDDEN_DOMINANCE < top_any.score) then
    w.hidden_label = top_any.label
    return recommend(w, "POLICY_RESTRICTED", "ABSTAIN_RECOMMENDED")
  end
  if not top then return recommend(w, "POLICY_RESTRICTED", "ABSTAIN_RECOMMENDED") end

  -- intents: clauses that route on their own
  local intents = {}
  if #a.clauses > 1 then
    for i, c in ipairs(a.clauses) do
      if (c.act or c.question) and c.content > 0 then -- "Possible?" asks nothing of its own
        local list = routable(st, candidates.score(m, c.stems, nil, c.act))
        local best
        for _, x in ipairs(list) do if x.visible then best = x break end end
        if best and best.score >= M.INTENT_MIN * unit then
          intents[#intents + 1] = { clause = i, text = c.text, label = best.label, score = math.floor(best.score * 1000 + 0.5) / 1000, act = c.act,
            from = best.from }
        end
      end
    end
  end
  w.intents = intents

  -- the primary label: the whole request's best; when the request has
  -- several intents on unrelated labels, the action intent's, else the
  -- first-stated intent's
  local primary, primary_from = top.label, top.from
  -- within one family the more specific label wins when it is nearly as strong
  for i = 2, math.min(#visible, 4) do
    local c = visible[i]
    if c.score >= M.SPECIFIC_SHARE * top.score and descends(m, c.label, primary) then
      primary, primary_from = c.label, c.from
    end
  end
  -- an order routed to a label that runs nothing for the caller: a close
  -- candidate whose action the request names in full (every parameter
  -- filled, one at least from its own words: "reset 2FA for tom@…, ticket
  -- VT-20931") is what the order means
  if a.act and #intents <= 1 and #require("kip.arg.params").runnable(m, m.labels[primary].actions, st.caller.role) == 0 then
    -- (else one whose action it names in part: what it lacks is asked for)
    for _, partial in ipairs { false, true } do
      for i = 1, math.min(#visible, M.ACTION_FIT_CANDIDATES) do
        local c = visible[i]
        if c.label ~= primary and c.score >= M.ACTION_FIT_SHARE * top.score and require("kip.arg.steps.bind").action_fit(st, c.label, partial) then
          primary, primary_from = c.label, c.from
          add_flag(w, partial and "ACTION_FIT_PARTIAL" or "ACTION_FIT")
          break
        end
      end
      if has_flag(w, "ACTION_FIT") or has_flag(w, "ACTION_FIT_PARTIAL") then break end
    end
  end
  -- the labels close to the best (what named_in_full weighs an order against)
  w.close = {}
  for i = 1, math.min(#visible, M.ACTION_FIT_CANDIDATES) do
    if visible[i].score >= M.ACTION_FIT_SHARE * top.score then w.close[#w.close + 1] = visible[i].label end
  end
  local multi = false
  for i = 2, #intents do
    if not family(m, intents[1].label, intents[i].label) then multi = true end
  end
  if multi then
    local act_intent
    for _, it in ipairs(intents) do if it.act then act_intent = it break end end
    local it = act_intent or intents[1]
    primary, primary_from = it.label, it.from
  end
  -- L_final: the primary label and the intents outside its family
  local function label_set(prim)
    local out, seen = { prim }, { [prim] = true }
    for _, it in ipairs(intents) do
      if not seen[it.label] and not family(m, prim, it.label) then
        seen[it.label] = true
        out[#out + 1] = it.label
      end
    end
    return out
  end
  local set = label_set(primary)
  local ok, reasons = M.validate(m, set)
  w.validator = { ok = ok, reasons = reasons, checked = set }
  if not ok then
    w.conflict = set
    return recommend(w, "CONFLICT", "CLARIFY_RECOMMENDED")
  end

  -- confidence from the margin to the best unrelated competitor
  local p = top
  for _, c in ipairs(visible) do if c.label == primary then p = c break end end
  local rival, mg = margin(m, visible, p)
  w.rival = rival and rival.label or nil
  w.margin = mg
  w.confidence = math.max(0, math.min(1, mg))
  if not multi and mg < M.LOW_MARGIN and p.score < M.WEAK * unit then
    -- judgment enters only through the operator's route hook, bounded to the
    -- candidates; without one (or when it declines) the request is clarified
    local choice = M.ask_hook(st, visible)
    if choice then
      -- the hook's label drives the route: L_final, signature and bundle
      -- come from it, through the same validator
      primary, primary_from = choice.label, choice.from
      add_flag(w, "HOOK_ROUTED")
      set = label_set(primary)
      ok, reasons = M.validate(m, set)
      w.validator = { ok = ok, reasons = reasons, checked = set }
      if not ok then
        w.conflict = set
        st.weaver.hook.rejected = reasons
        return recommend(w, "CONFLICT", "CLARIFY_RECOMMENDED")
      end
      for _, c in ipairs(visible) do if c.label == primary then p = c break end end
      rival, mg = margin(m, visible, p)
      w.rival, w.margin = rival and rival.label or nil, mg
      w.confidence = math.max(0, math.min(1, mg))
    else
      add_flag(w, "LOW_MARGIN")
      add_flag(w, "CLARIFY_RECOMMENDED")
    end
  end
  if primary_from then add_flag(w, "REDIRECTED"); w.redirected_from = primary_from end

  table.sort(set)
  w.primary = primary
  w.L_final = set
  w.L_final_ids = {}
  for i, l in ipairs(set) do w.L_final_ids[i] = m.labels[l].id end
  w.label_signature = table.concat(set, "|")
  w.retrieval_type = m.labels[primary].retrieval_type
  w.label_path = {}
  local x = m.labels[primary]
  local path = {}
  while x and #path < 64 do table.insert(path, 1, x.name); x = x.parent and m.labels[x.parent] end
  w.label_path = (m.labels[primary].cluster or "") .. " > " .. table.concat(path, " > ")
  -- an order that offers alternatives or takes itself back ("cancel us, or
  -- maybe just downgrade?", "downgrade us, actually no, cancel"): the route
  -- stands, but which operation is meant is for the caller to say
  if a.act and a.hedge then
    w.hedge = a.hedge
    add_flag(w, "HEDGED")
    add_flag(w, "CLARIFY_RECOMMENDED")
  end
end

return M
