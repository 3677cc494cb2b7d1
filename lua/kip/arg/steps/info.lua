--- kip.arg.steps.info — step 9 of seed 003: the Info path. External data
--- only through an approved connector module (kip.arg.connectors) with a
--- timeout; its results are ephemeral bundle units (ExternalContextBundle),
--- never graph writes. The FinalContextBundle merges internal then external
--- units with their provenance. C_info and InfoOutcomeStatus: never
--- INFO_CONFIRMED_SUCCESS without a verification signal (that comes later
--- through kip.arg.feedback); high confidence and a relevant bundle give
--- INFO_UNCERTAIN_SUCCESS, anything weaker INFO_LOW_CONFIDENCE.
---
--- Active Check (bounded, inside the bundle): when routing was uncertain
--- (confidence under ACTIVE_CHECK_BELOW, a low margin decided by the hook, a
--- redirect) or the bundle is external only, the request's content words are
--- looked up in the bundle's own text and its label's keywords (IDF-weighted
--- coverage). Low coverage means the bundle probably does not say what was
--- asked: INFO_LOW_CONFIDENCE and the flag LOW_COVERAGE (the offline loop's
--- weak signal). It reads nothing beyond the bundle.
---
--- Answerability: before an ANSWER, the specific things asked about that the
--- ontology has no word for (M.key_terms: "integrate with Jira", "discounts
--- for startups") must occur in a bundle unit's text; otherwise the request
--- abstains (no_knowledge) instead of answering from the nearest node.
local connectors = require "kip.arg.connectors"
local lex = require "kip.arg.lexicon"

local M = {}

M.ACTIVE_CHECK_BELOW = 0.3 -- routing confidence under which the Active Check runs
M.MIN_COVERAGE = 0.25      -- IDF-weighted share of the request's content words the bundle must hold

local function has(list, x) for _, v in ipairs(list or {}) do if v == x then return true end end return false end

-- the share of the request's content (by IDF) that the bundle's text holds
-- the stems the bundle speaks with: its internal units' titles and chunks,
-- the primary label's keywords and aliases, and (with_external) the text
-- external sources returned
local function bundle_stems(st, with_external)
  local m, text = st.snapshot, {}
  local function add(s) for _, x in ipairs(lex.stems(s)) do text[x] = true end end
  for _, u in ipairs(st.internal or {}) do
    local n = m.nodes[u.node]
    if n then add(n.title .. " " .. n.chunk) end
  end
  if with_external then
    for _, u in ipairs(st.external or {}) do if type(u.content) == "string" then add(u.content) end end
  end
  local l = m.labels[st.weaver.primary]
  for _, k in ipairs(l and l.keywords or {}) do add(k) end
  for _, k in ipairs(l and l.aliases or {}) do add(k) end
  return text
end

local function coverage(st)
  local m, a = st.snapshot, st.analysis
  local text = bundle_stems(st, false)
  local total, hit = 0, 0
  for _, t in ipairs(a.content) do
    local w = m.idf[t.stem] or m.max_idf
    total = total + w
    if text[t.stem] then hit = hit + w end
  end
  return total > 0 and hit / total or 1
end

-- words that put a qualifier after them: "discounts FOR startups", "integrate
-- WITH Jira", "available IN Japanese"
local QUALIFIES = {}
for x in ("for with in on to into from about via using"):gmatch("%S+") do QUALIFIES[x] = true end
-- ... nor the verb an infinitive's "to" leads to ("be able TO explain", "how TO
-- export", "want TO know")
local INFINITIVE_AFTER = {}
for x in ("able how want wants wanted need needs needed like going trying try tried have has had used ought"):gmatch("%S+") do
  INFINITIVE_AFTER[x] = true
end
-- ... but not a word that opens a clause of its own ("logging in since this morning")
local OPENS_CLAUSE = {}
for x in ("since until while during before after because although unless whether than then once"):gmatch("%S+") do
  OPENS_CLAUSE[x] = true
end

--- the specific things the request asks about that the ontology has no word
--- for: proper names inside a sentence ("Jira", "Linux") and the word a
--- preposition qualifies the ask with ("for startups"; not a gerund, "after
--- mistyping"); their stems
function M.key_terms(st)
  local m, out, seen = st.snapshot, {}, {}
  local prompt = require("kip.arg.analysis").routing_text(st.request.prompt)
  local words = lex.tokens(prompt)
  for i, x in ipairs(words) do
    local low = x.w:lower():gsub("'.*$", "")
    local s = lex.stem(low)
    local unknown = #low > 2 and not low:find("%d") and not m.vocab[low] and not m.stem_known[s] and not lex.STOP[low]
      and not lex.GENERIC[low] and not lex.CALENDAR[low] and not OPENS_CLAUSE[low] and x.sigil ~= "#" and x.sigil ~= "@"
    if unknown and not seen[s] then
      local proper = not x.first and x.w:find("^%u%l")
      local prev = words[i - 1] and words[i - 1].w:lower()
      local infinitive = prev == "to" and words[i - 2] and INFINITIVE_AFTER[words[i - 2].w:lower()]
      local qualified = prev and QUALIFIES[prev] and not low:find("ing$") and not infinitive
      if proper or qualified then
        seen[s] = true
        out[#out + 1] = { word = low, stem = s }
      end
    end
  end
  return out
end

--- answerability (seed 003 step 9, the Info Active Check): the key terms of
--- the ask that no bundle unit's text (nor the primary label's keywords and
--- aliases) holds; an ANSWER needs none missing, else ABSTAIN (no_knowledge)
function M.answerable(st)
  local keys = M.key_terms(st)
  if #keys == 0 then return { covered = true, key_terms = {} } end
  local text = bundle_stems(st, true)
  local missing, all = {}, {}
  for _, k in ipairs(keys) do
    all[#all + 1] = k.word
    if not text[k.stem] then missing[#missing + 1] = k.word end
  end
  return { covered = #missing == 0, key_terms = all, missing = missing }
end

function M.run(st)
  local b, w = st.bind, st.weaver
  local external = {}
  for _, x in ipairs(b.external or {}) do
    local src = st.snapshot.sources[x.source]
    local res = connectors.fetch(st.nx, src, st.request, st.limits.connector_timeout_ms)
    external[#external + 1] = { node = x.source, label = x.label, external = true, connector = src.connector,
      status = res.status, fetched_at = res.at, content = res.content, error = res.error }
    if res.status ~= "OK" and res.status ~= "NOT_CONFIGURED" then
      st.errors[#st.errors + 1] = { code = "ARG_CONNECTOR_" .. res.status, step = "info",
        message = ("connector %s: %s"):format(tostring(src.connector), tostring(res.error or res.status)),
        hint = "External data is missing from the bundle; answer from internal units or clarify." }
    end
  end
  st.external = external
  local bundle = {}
  for _, u in ipairs(st.internal or {}) do
    bundle[#bundle + 1] = { node = u.node, label = u.label, source = "internal", via = u.via, score = u.score }
  end
  for _, u in ipairs(external) do
    bundle[#bundle + 1] = { node = u.node, label = u.label, source = "external", connector = u.connector,
      status = u.status, fetched_at = u.fetched_at, content = u.content }
  end
  st.bundle = bundle
  -- C_info: routing confidence times how much of the bundle is relevant
  local relevant = 0
  for _, u in ipairs(st.internal or {}) do if (u.score or 0) > 0 then relevant = relevant + 1 end end
  local share = #bundle > 0 and math.min(1, relevant / math.max(1, math.min(#bundle, 2))) or 0
  local c = (w.confidence or 0) * 0.5 + share * 0.5
  local check = (w.confidence or 0) < M.ACTIVE_CHECK_BELOW or has(w.flags, "HOOK_ROUTED") or has(w.flags, "REDIRECTED")
    or (#external > 0 and #(st.internal or {}) == 0)
  local cov
  if check and #bundle > 0 then
    cov = math.floor(coverage(st) * 1000 + 0.5) / 1000
    if cov < M.MIN_COVERAGE then
      c = math.min(c, 0.25)
      st.flags = st.flags or {}
      st.flags[#st.flags + 1] = "LOW_COVERAGE"
    end
  end
  st.info = { c_info = math.floor(c * 1000 + 0.5) / 1000, active_check = check and #bundle > 0, verification = nil,
    evidence = { confidence = w.confidence, relevant_units = relevant, units = #bundle, coverage = cov } }
  st.info.info_outcome_status = c >= 0.5 and "INFO_UNCERTAIN_SUCCESS" or "INFO_LOW_CONFIDENCE"
  -- an answer only when the bundle speaks of what was asked
  if b.path ~= "ACTION" and #bundle > 0 then
    st.coverage = M.answerable(st)
    if not st.coverage.covered then
      st.info.info_outcome_status = "INFO_LOW_CONFIDENCE"
      st.flags = st.flags or {}
      st.flags[#st.flags + 1] = "NO_KNOWLEDGE"
    end
  end
end

return M
