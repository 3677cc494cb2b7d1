--- kip.arg.analysis — what the text of a request says, before any routing
--- (seed 003 step 2 input; docs/arg.md "Reading a request"): its words with
--- typos corrected against the pinned ontology's vocabulary, its intents
--- (clauses), whether it asks the assistant to do something now or asks
--- about something, and the identifiers it carries (emails, ids, links).
---
--- Deterministic: a function of the prompt, the context and the snapshot.
local lex = require "kip.arg.lexicon"

local M = {}

-- words that open a question (information request)
local QUESTION = {}
for w in ([[how what whats why when where which who whom whose is are was were do does did can could should would
  will am has have any anything anyone]]):gmatch("%S+") do QUESTION[w] = true end

-- openers that turn what follows into a request to act ("can you ...")
local ASK_TO_ACT = { { "can", "you" }, { "could", "you" }, { "can", "u" }, { "would", "you" }, { "will", "you" },
  { "i", "want", "you", "to" }, { "i", "need", "you", "to" }, { "id", "like", "you", "to" }, { "go", "ahead", "and" } }

-- leading words skipped before the verb of an imperative
local LEAD = { please = true, pls = true, kindly = true, now = true, just = true, ok = true, okay = true, hi = true,
  hey = true, hello = true, also = true, ["and"] = true, so = true, ["then"] = true, first = true, but = true }

-- "we want to X", "I need to X": a wish stated as the caller's intent
local WISH = { { "want", "to" }, { "wants", "to" }, { "need", "to" }, { "needs", "to" }, { "like", "to" },
  { "would", "like", "to" }, { "trying", "to" }, { "have", "to" } }

-- what opens the object of an order ("mail ME a link", "claim OUR credit")
local OBJECT_OPENERS = {}
-- (not "my": "forgot my password", "lost my phone" describe the caller's situation)
for w in ("me us our the this that these those it them him her his their all every a an"):gmatch("%S+") do
  OBJECT_OPENERS[w] = true
end
-- words that open a clause before such a word without being a verb
local NOT_VERBS = {}
for w in ([[i we you he she they it this that there here these those my our your his her their its the a an and or
  but so if when while because since not no yes thanks thank also just only even still already about for from in
  on at to of with by as than then now today tonight tomorrow yesterday all every each some any both either neither
  same other another such what who which
  got forgot lost broke left had did saw made took came went found kept paid bought told gave thought felt heard
  knew sent]]):gmatch("%S+") do -- and the irregular past tenses of a problem told ("got the same error")
  NOT_VERBS[w] = true
end

-- verbs of seeing and knowing: what follows them is information to give, not an operation to run
local INQUIRY = {}
for w in ("see know view look read find understand learn hear watch show tell check review pull display list paste print reveal recite dictate explain describe clarify teach outline define help"):gmatch("%S+") do
  INQUIRY[w] = true
end

local function starts_with(words, i, seq)
  for k, w in ipairs(seq) do if words[i + k - 1] ~= w then return false end end
  return true
end

--- split text into clauses: sentences, and "X and also Y" / "X, but first Y" /
--- "X - and Y" joins; each clause keeps its own text
function M.clauses(text, verbs)
  local out = {}
  local s = " " .. text .. " "
  if verbs then
    -- "X and cancel Y", "we need a new plan, change it": an order of its own
    s = s:gsub("%s+and%s+(%a+)", function(v)
      if verbs[v:lower()] then return "\n" .. v end
    end)
    s = s:gsub(",%s+(%a+)", function(v)
      if verbs[v:lower()] or lex.VERBS[v:lower()] then return "\n" .. v end
    end)
    -- (after a polite lead: "the email never came, please send me a new one")
    s = s:gsub(",%s+(%a+)%s+(%a+)", function(p, v)
      if LEAD[p:lower()] and (verbs[v:lower()] or lex.VERBS[v:lower()]) then return "\n" .. p .. " " .. v end
    end)
  end
  s = s:gsub("%?", "?\n"):gsub("[%.!;:]%s", "\n"):gsub("%s+%-+%s+", "\n")
  s = s:gsub(",?%s+and%s+also,?%s+", "\n"):gsub(",?%s+and%s+then,?%s+", "\n"):gsub(",?%s+[Aa]lso,?%s+", "\n")
  s = s:gsub(",?%s+but%s+also%s+", "\n"):gsub(",%s+but%s+", "\n"):gsub(",%s+and%s+", "\n")
  for part in s:gmatch("[^\n]+") do
    local p = part:gsub("^%s+", ""):gsub("%s+$", "")
    if p:find("%w") then out[#out + 1] = p end
  end
  return out
end

-- "I need a new reset link EMAILED to me", "we want the invoice RESENT":
-- a thing the caller wants, then what is to be done to it
local WANTS = { need = true, want = true, ["needs"] = true, ["wants"] = true }
local PARTICIPLES = { sent = true, resent = true, reset = true, redone = true, undone = true, shown = true }
local DELIVERED_TO = { to = true, over = true, again = true, asap = true, now = true, today = true, please = true,
  back = true, ["right"] = true }

--- the participle of a wish for a thing to be done ("emailed"), or nil:
--- want/need, an object opened by an article or a possessive, and within
--- six words a participle closing the clause or followed by to/over/again
function M.wished_delivery(words, i)
  local subject = words[i]
  if subject == "id" or subject == "wed" then -- "I'd like", "we'd like"
    i = i + 1
    if words[i] ~= "like" then return nil end
  elseif subject == "i" or subject == "we" then
    i = i + 1
    if words[i] == "would" then i = i + 1 end
    if not WANTS[words[i]] and words[i] ~= "like" then return nil end
    if words[i] == "like" and words[i - 1] ~= "would" then return nil end
  else
    return nil
  end
  local opener = words[i + 1]
  if not (OBJECT_OPENERS[opener] or opener == "my") or opener == "me" or opener == "us" then return nil end
  for k = i + 2, math.min(#words, i + 7) do
    local w = words[k]
    if (PARTICIPLES[w] or (w:find("ed$") and #w > 4)) and (k == #words or DELIVERED_TO[words[k + 1]]) then return w end
  end
  return nil
end

-- is this clause a request to act now? returns the verb word or nil
local function imperative(clause, verbs, before_ident)
  local words = lex.words(clause)
  local i = 1
  while words[i] and LEAD[words[i]] do i = i + 1 end
  for _, seq in ipairs(ASK_TO_ACT) do
    if starts_with(words, i, seq) then
      i = i + #seq
      while words[i] and LEAD[words[i]] do i = i + 1 end
      -- ("would you be able to explain …", "could you possibly send …": the verb after them)
      if starts_with(words, i, { "be", "able", "to" }) then i = i + 3 end
      if words[i] == "possibly" then i = i + 1 end
      return words[i], true
    end
  end
  local w = words[i]
  if w == "we" or w == "i" then
    for _, seq in ipairs(WISH) do
      if starts_with(words, i + 1, seq) then return words[i + 1 + #seq], true end
    end
  end
  local delivered = M.wished_delivery(words, i)
  if delivered then return delivered, true end
  if not w or QUESTION[w] then return nil end
  -- an order opens with a verb ("forgot my password", "getting errors",
  -- "subscription invoice?" do not)
  if lex.VERBS[w] or verbs[w] then return w, false end
  -- or with any word whose object is an identifier written out ("undelete
  -- https://…", "unarchive INV-…", "unlock ana@…"; the routing text has
  -- the addresses and links taken out: before_ident is read from the prompt)
  if before_ident and before_ident[w] and not NOT_VERBS[w] then return w, false end
  -- or with any word whose object follows it at once ("mail me a link",
  -- "claim our credit", "try the charge again"): a word right before me, us,
  -- our, the … is read as a verb by its form, not from a list
  if OBJECT_OPENERS[words[i + 1]] and not NOT_VERBS[w] and not w:find("^%d") and not w:find("ing$")
    and not w:find("ed$") then
    return w, false
  end
  return nil
end

-- what offers an alternative or takes back what was said
local HEDGES = { "%f[%w]or maybe%f[%W]", "%f[%w]or just%f[%W]", "%f[%w]or should%f[%W]", "%f[%w]or would%f[%W]",
  "%f[%w]or rather%f[%W]", "%f[%w]or perhaps%f[%W]", "%f[%w]actually,? no%f[%W]", "%f[%w]no wait%f[%W]",
  "%f[%w]on second thought", "%f[%w]not sure if%f[%W]", "%f[%w]not sure whether%f[%W]", "%f[%w]i can'?t decide",
  "%f[%w]either%f[%W].-%f[%w]or%f[%W]", "%f[%w]scratch that%f[%W]",
  -- "or actually maybe just …", "or perhaps rather …": a word between
  "%f[%w]or%s+%a+%s+maybe%f[%W]", "%f[%w]or%s+%a+%s+perhaps%f[%W]", "%f[%w]or%s+actually%f[%W]" }

--- the words that make an order hesitate between alternatives, or nil
function M.hedge(prompt)
  local t = " " .. prompt:lower():gsub("[’‘]", "'") .. " "
  for _, h in ipairs(HEDGES) do
    local a, b = t:find(h)
    if a then return t:sub(a, b) end
  end
  return nil
end

-- openings of a question about what this product has or supports, and of
-- a question about how to do a task
local CAPABILITY = { "do you have ", "do you support ", "do you offer ", "do you integrate ", "is there ", "are there ",
  "can i use ", "can we use ", "does it support ", "does it work with ", "is it possible to use " }
local TASK = { "how do i ", "how do we ", "how can i ", "how can we ", "how to ", "how would i ", "how should i ",
  "help me ",
  -- "what's the easiest way to …", "what is the right way to …"
  "what'?s the %a* ?way to ", "whats the %a* ?way to ", "what is the %a* ?way to " }

local function opens_with(prompt, list)
  local t = prompt:lower():gsub("[’‘]", "'"):gsub("^%W+", "")
  for _, f in ipairs(list) do
    if t:find("^" .. f) then return true end
  end
  return false
end

--- the request's form: "capability" — it asks what this product has or
--- supports ("do you have a browser extension?", "is there a Linux app?"),
--- in domain whatever it names (yes, no, or the ontology does not say:
--- ABSTAIN, never a refocus); "task" — it asks how to do something ("how
--- do I reset my Gmail password?"); nil otherwise
function M.form(prompt)
  if opens_with(prompt, CAPABILITY) then return "capability" end
  if opens_with(prompt, TASK) then return "task" end
  return nil
end

--- the text routed on: the request without addresses and links (their
--- words name people and hosts, not topics)
function M.routing_text(prompt)
  return (prompt:gsub("https?://%S+", " "):gsub("[%w%._%%+%-]+@[%w%.%-]+%.%a+", " "))
end

-- the words that close a letter ("Best,\nJo", "Thanks! — Ana", "Kind regards, Lee Park")
local CLOSINGS = { "best", "best regards", "kind regards", "warm regards", "regards", "cheers", "thanks", "thank you",
  "many thanks", "thanks again", "sincerely", "yours", "yours truly", "all the best", "talk soon", "br", "thx", "ty" }

-- a letter's salutation ("Hi team,\n", "Hello support:"): whom it greets is the assistant
local SALUTATIONS = { "hi", "hello", "hey", "dear", "greetings", "good morning", "good afternoon", "good evening" }

--- the request as a letter's body: without the salutation that opens it
--- on a line of its own or as a greeting and one word ("Hi team,\n\n…",
--- "Hello support, …": whom it greets is the assistant, not a topic nor a
--- person), and without the sign-off that closes it, a closing and the
--- writer's name (one to three words) at its very end, on the closing's
--- line or the next ("…\n\nBest,\nJo", "… Thanks, Ana"): the writer is the
--- authenticated caller, never someone the request names (docs/arg.md
--- "Tenancy"). Nothing else is taken away. Policies read the request as
--- written (steps/policy.lua).
function M.letter_body(written)
  -- (emoji and pictographs are no words: "🙏 delete her account 🙂" opens with "delete")
  local prompt = written:gsub("[\240-\244][\128-\191][\128-\191][\128-\191]", " "):gsub("\226[\152-\157][\128-\191]", " ")
    :gsub("^%s+", ""):gsub("%s+$", ""):gsub("[ \t]+", " ")
  if not prompt:find("%S") then return written end
  local lower = prompt:lower()
  for _, s in ipairs(SALUTATIONS) do
    local rest = lower:match("^%s*" .. s .. "%f[%W][%a ,]*[,!:%.]?[ \t]*\n()") or lower:match("^%s*" .. s .. "%s+%a+%s*[,!:]()")
    if rest and prompt:sub(rest):find("%S") then
      prompt = prompt:sub(rest):gsub("^%s+", "")
      break
    end
  end
  return M.without_signoff(prompt)
end

--- the request without the sign-off that closes it as a letter (M.letter_body)
function M.without_signoff(prompt)
  local function name_words(who)
    local n = 0
    for _ in who:gmatch("%a+") do n = n + 1 end
    return n
  end
  -- (a sign-off is in the last few words: most requests have none, and are not searched)
  local tail = prompt:sub(-80):lower()
  local dashed = tail:find("--", 1, true) or tail:find("\226\128\148", 1, true)
  local closed = false
  for _, c in ipairs(CLOSINGS) do if tail:find(c, 1, true) then closed = true break end end
  if not (dashed or closed) then return prompt end
  -- ("… -- Jo", "… — Ana Lima")
  for _, dash in ipairs(dashed and { "%-%-+", "\226\128\148" } or {}) do
    local pre, who = prompt:match("^(.-%S)%s*" .. dash .. "%s*([%a%.' ]+)%s*$")
    if pre and name_words(who) >= 1 and name_words(who) <= 3 then return pre end
  end
  local lower = prompt:lower()
  for _, c in ipairs(CLOSINGS) do
    -- the closing opens its own line or follows a sentence's or a clause's end
    local at, who = lower:match("^.-%S[%.!%?,]?%s*\n%s*()" .. c .. "%s*[,!%.]?%s*([%a%.' ]*)%s*$")
    if not at then at, who = lower:match("^.-%S[%.!%?,]%s*()" .. c .. "%s*[,!%.]?%s*([%a%.' ]*)%s*$") end
    if at and name_words(who) <= 3 then return (prompt:sub(1, at - 1):gsub("[%s,]+$", "")) end
  end
  return prompt
end

--- the analysis of a request (prompt and context) against snapshot m
function M.analyse(prompt, context, m)
  local a = { prompt = prompt, context = context or {}, snapshot = m }
  -- identifiers
  a.emails = {}
  for e in prompt:gmatch("[%w%._%%+%-]+@[%w%.%-]+%.%a+") do a.emails[#a.emails + 1] = e:lower() end
  a.urls = {}
  for u in prompt:gmatch("https?://[%w%._~:/%?#%[%]@!%$&'%(%)%*%+,;=%%-]+") do a.urls[#a.urls + 1] = u end
  local text = M.routing_text(prompt)
  a.text = text
  -- words, with typos corrected against the ontology vocabulary (a word
  -- whose stem the ontology knows is not a typo)
  local terms, corrections = {}, {}
  -- (the words the ontology knows as they were written, and the stop
  -- words: the policies' spelling reader leaves them alone, policies/arg.lua)
  a.known_as_written = {}
  for _, t in ipairs(lex.terms(text)) do
    if t.stop or m.vocab[t.word] or m.stem_known[t.stem] then a.known_as_written[#a.known_as_written + 1] = t.word end
    -- an adverb of a word the ontology knows is that word ("slowly": slow, "easily": easy)
    if not t.stop and not m.vocab[t.word] and not m.stem_known[t.stem] and #t.word > 5 and t.word:find("ly$") then
      for _, base in ipairs { t.word:sub(1, -3), t.word:sub(1, -4) .. "y" } do
        if m.vocab[base] or m.stem_known[lex.stem(base)] then
          t.word, t.stem = base, lex.stem(base)
          break
        end
      end
    end
    if not t.stop and not m.vocab[t.word] and not m.stem_known[t.stem] and not t.word:find("%d") then
      local fix = lex.correct(t.word, m.vocab, m.vocab_initial)
      if fix then
        corrections[#corrections + 1] = { from = t.word, to = fix }
        t.word, t.stem = fix, lex.stem(fix)
      end
    end
    terms[#terms + 1] = t
  end
  a.terms, a.corrections = terms, corrections
  a.stems = {}
  for _, t in ipairs(terms) do if not t.stop then a.stems[#a.stems + 1] = t.stem end end
  -- content: words that are neither stopwords nor generic request words
  a.content, a.known, a.unknown = {}, {}, {}
  a.specificity = 0 -- how much the content words say: their IDF in the ontology, 1 = a word of one document
  for _, t in ipairs(terms) do
    if not t.stop and not t.generic and #t.word > 1 then
      a.content[#a.content + 1] = t
      a.specificity = a.specificity + (m.idf[t.stem] or 0) / m.max_idf
      if m.stem_known[t.stem] or m.vocab[t.word] then a.known[#a.known + 1] = t.word
      elseif not t.word:find("^%d+$") then a.unknown[#a.unknown + 1] = t.word end
    end
  end
  -- intents: clauses, each with its mood
  a.clauses = {}
  -- the words right before an identifier (a link, an address, a reference like INV-…)
  local before_ident = {}
  for w, rest in (" " .. prompt:lower()):gmatch("%f[%w](%a+)%s+(%S+)") do
    if rest:find("^https?://") or rest:find("^[%w._%%+%-]+@[%w.%-]+%.%a+") or rest:find("^%a+%-%d") then
      before_ident[w] = true
    end
  end
  for _, c in ipairs(M.clauses(text, m.action_verbs)) do
    local verb, asked = imperative(c, m.action_verbs, before_ident)
    local question = c:find("%?%s*$") ~= nil
    local first = lex.words(c)[1]
    if first and QUESTION[first] then question = true end
    local content = 0
    for _, t in ipairs(lex.terms(c)) do if not t.stop and not t.generic then content = content + 1 end end
    -- "I want to see …", "let me view …": an order to show is a request for information
    if verb and INQUIRY[verb] then verb = nil end
    a.clauses[#a.clauses + 1] = { text = c, stems = lex.stems(c), content = content, verb = verb, act = verb ~= nil and (asked or not question),
      question = question }
  end
  a.act = false
  for _, c in ipairs(a.clauses) do if c.act then a.act = true break end end
  a.hedge = M.hedge(prompt)
  local form = M.form(prompt)
  a.capability, a.task = form == "capability", form == "task"
  -- an order whose verb is one of the ontology's operations ("deactivate the
  -- guy from marketing"), or a request about the caller's own tenant ("our
  -- <tenant noun>"), is about this product whatever else it names
  a.operation = nil
  for _, c in ipairs(a.clauses) do
    if c.act and c.verb and m.action_verbs[c.verb] then a.operation = c.verb break end
  end
  local noun = m.profile and m.profile.tenant and m.profile.tenant.noun
  local low = " " .. text:lower() .. " "
  a.own_tenant = noun ~= nil and (low:find("%f[%a]our " .. noun:lower() .. "%f[%A]") or low:find("%f[%a]my " .. noun:lower() .. "%f[%A]")) ~= nil
  -- "cancel us, or maybe just downgrade?": the question mark is the hesitation's, the order stands
  if a.hedge then
    for _, c in ipairs(a.clauses) do if c.verb then c.act, a.act = true, true end end
  end
  local words = lex.words(text)
  -- someone else named by what they are to the caller ("my colleague's
  -- account", "the new intern"): a person parameter is then not the caller
  a.other_person = nil
  for i, w in ipairs(words) do
    if lex.OTHER_PEOPLE[w] or (w == "someone" and words[i + 1] == "else") then a.other_person = w break end
  end
  a.first_person = false
  for _, w in ipairs(words) do
    if w == "i" or w == "my" or w == "me" or w == "mine" or w == "im" or w == "ive" or w == "myself" then
      a.first_person = true
    end
  end
  return a
end

return M
