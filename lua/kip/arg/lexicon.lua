--- kip.arg.lexicon — the text analysis the ARG router shares (seed 003 step 2
--- "cheap candidate proposal (lexical-first)"; docs/arg.md "Routing"):
--- words, the English stopwords the core's SEARCH drops, the Porter stemmer
--- (M. F. Porter, 1980 — the same algorithm as FTS5's `porter` tokenizer, so
--- "invoices" and "invoice" meet), generic request words that name no topic,
--- and bounded typo correction against a vocabulary.
---
--- Everything here is a pure function of its input: the router's decisions
--- depend only on the request and the pinned ontology version (replay).
local M = {}

local STOP = {}
for w in ([[a about above after again against all am an and any are as at be because been before being below
  between both but by can could did do does doing during each few for from further had has have having he
  her here hers herself him himself his how i if in into is it its itself just me might more most must my myself
  no nor not now of on once only or other our ours ourselves over own same shall she should so some such
  than that the their theirs them themselves then there these they this those through to too under until very
  was we were what when where which while who whom why will with would you your yours yourself yourselves
  im ive id dont doesnt didnt cant wont isnt arent wasnt u ur pls please also yes ok okay hi hello hey thanks
  whats thats theres heres hows wheres whos whens whys lets youre theyre weve youve theyve itll youll shes hes
  hasnt havent hadnt wouldnt couldnt shouldnt werent]]):gmatch("%S+") do
  STOP[w] = true
end
M.STOP = STOP

-- words that carry no topic of their own: request verbs and fillers. A
-- request made only of these (and stopwords) names nothing to route on.
local GENERIC = {}
for w in ([[help get got getting make made do done go going work working works worked thing things stuff something
  anything everything someone anyone somebody way want wanted need needed like know tell let see look looking
  check try tried trying use using used say said says ask asked asking question questions problem problems issue
  issues right now today yesterday tomorrow still anymore again sure really actually maybe just lot lots much many
  good bad new old one two first last next time day days week weeks month months year years thank happen happens
  happened happening able possible way ways come came give keep put take took find found rid wrong broken broke
  error errors fail fails failed failing weird strange kind kinds type types sort sorts]]):gmatch("%S+") do
  GENERIC[w] = true
end
M.GENERIC = GENERIC

-- day and month names: capitalised, never a product nor a specific thing asked about
local CALENDAR = {}
for w in ([[monday tuesday wednesday thursday friday saturday sunday january february march april may june july
  august september october november december]]):gmatch("%S+") do CALENDAR[w] = true end
M.CALENDAR = CALENDAR

-- the people around a caller, named by what they are to them (general
-- English, no ontology's roles): "my colleague", "our intern"
local OTHER_PEOPLE = {}
for w in ([[colleague colleagues coworker coworkers teammate teammates manager boss employee employees intern
  interns contractor contractors assistant secretary partner husband wife friend neighbour neighbor]]):gmatch("%S+") do
  OTHER_PEOPLE[w] = true
end
M.OTHER_PEOPLE = OTHER_PEOPLE

--- the words of text with what surrounds them: {w (quotation marks
--- stripped), first (it opens a sentence or a quotation), sigil (the
--- character before it: "#" of a channel, "@" of a handle)}
function M.tokens(text)
  local out = {}
  for pos, w in text:gmatch("()([%w']+)") do
    local lead = w:match("^'+")
    local before = text:sub(1, pos - 1)
    w = w:gsub("^'+", ""):gsub("'+$", "")
    if w ~= "" then
      local first = before:match("^%s*$") ~= nil or before:match("[%.%?!:;\"\n]%s*$") ~= nil or lead ~= nil
        or before:match("[“‘(]%s*$") ~= nil
      out[#out + 1] = { w = w, first = first, sigil = before:sub(-1) }
    end
  end
  return out
end

-- verbs that open an instruction ("cancel our plan", "make her the owner"):
-- common English operation verbs; the ontology adds the verbs of its action
-- names (snapshot.action_verbs). A clause that opens with any other word is
-- not read as an order ("subscription invoice?" names things, asks nothing).
local VERBS = {}
for w in ([[add allow apply approve archive assign authorize block book bring buy call cancel change charge check
  clear close confirm connect convert copy correct create deactivate decline delete deny disable disconnect
  downgrade download drop edit email enable end enroll escalate export extend file find fix forward freeze get give
  grant help hide import increase invite issue kick kill let lift limit link list lock log look make mark merge
  migrate move mute notify open order pause pay pin post print process provide pull purge push put raise reactivate
  read rebuild recover redo refund register reinstate reject release reload remove rename renew reopen repair
  replace report request rerun resend reset resolve restart restore resume retry return revert revoke roll rotate
  run schedule send set share show sign start stop submit suspend switch sync take tell terminate transfer turn
  unarchive unblock undo unfreeze uninstall unlink unlock unmute unpin unsubscribe update upgrade upload verify
  void waive wipe]]):gmatch("%S+") do
  VERBS[w] = true
end
M.VERBS = VERBS

--- lower-cased words of text (letters, digits, and the bytes of non-ASCII
--- characters; apostrophes inside a word are dropped: "don't" -> "dont")
function M.words(text)
  local out = {}
  local s = text:lower():gsub("(%w)'(%w)", "%1%2"):gsub("(%w)\226\128\153(%w)", "%1%2")
  for w in s:gmatch("[%w\128-\255]+") do out[#out + 1] = w end
  return out
end

-- Porter stemmer ------------------------------------------------------------

local function cons(w, i)
  local c = w:sub(i, i)
  if c == "a" or c == "e" or c == "i" or c == "o" or c == "u" then return false end
  if c == "y" then return i == 1 or not cons(w, i - 1) end
  return true
end

-- m() of the stem w[1..j]: the number of VC sequences
local function measure(w, j)
  local n, i = 0, 1
  while i <= j and cons(w, i) do i = i + 1 end
  while i <= j do
    while i <= j and not cons(w, i) do i = i + 1 end
    if i > j then break end
    n = n + 1
    while i <= j and cons(w, i) do i = i + 1 end
  end
  return n
end

local function has_vowel(w, j)
  for i = 1, j do if not cons(w, i) then return true end end
  return false
end

local function double_cons(w, j)
  return j >= 2 and w:sub(j, j) == w:sub(j - 1, j - 1) and cons(w, j)
end

-- cvc at the end of w[1..j], the last c not w, x or y
local function cvc(w, j)
  if j < 3 or not cons(w, j) or cons(w, j - 1) or not cons(w, j - 2) then return false end
  local c = w:sub(j, j)
  return c ~= "w" and c ~= "x" and c ~= "y"
end

local function ends(w, s) return #w >= #s and w:sub(-#s) == s end

-- replace suffix s by r when the stem before it has measure > m
local function swap(w, s, r, m)
  if ends(w, s) then
    local stem = #w - #s
    if measure(w, stem) > m then return w:sub(1, stem) .. r, true end
    return w, true
  end
  return w, false
end

local STEP2 = { { "ational", "ate" }, { "tional", "tion" }, { "enci", "ence" }, { "anci", "ance" }, { "izer", "ize" },
  { "bli", "ble" }, { "alli", "al" }, { "entli", "ent" }, { "eli", "e" }, { "ousli", "ous" }, { "ization", "ize" },
  { "ation", "ate" }, { "ator", "ate" }, { "alism", "al" }, { "iveness", "ive" }, { "fulness", "ful" },
  { "ousness", "ous" }, { "aliti", "al" }, { "iviti", "ive" }, { "biliti", "ble" }, { "logi", "log" } }
local STEP3 = { { "icate", "ic" }, { "ative", "" }, { "alize", "al" }, { "iciti", "ic" }, { "ical", "ic" }, { "ful", "" },
  { "ness", "" } }
local STEP4 = { "al", "ance", "ence", "er", "ic", "able", "ible", "ant", "ement", "ment", "ent", "ion", "ou", "ism",
  "ate", "iti", "ous", "ive", "ize" }

local stem_cache = setmetatable({}, { __mode = "k" })

--- the Porter stem of a lower-case word (words of 1-2 letters and words
--- with digits are returned as they are)
function M.stem(w)
  if #w <= 2 or w:find("[%d\128-\255]") then return w end
  local hit = stem_cache[w]
  if hit then return hit end
  local orig = w
  -- step 1a
  if ends(w, "sses") then w = w:sub(1, -3)
  elseif ends(w, "ies") then w = w:sub(1, -3)
  elseif ends(w, "ss") then -- keep
  elseif ends(w, "s") then w = w:sub(1, -2) end
  -- step 1b
  local again = false
  if ends(w, "eed") then
    if measure(w, #w - 3) > 0 then w = w:sub(1, -2) end
  elseif ends(w, "ed") and has_vowel(w, #w - 2) then
    w, again = w:sub(1, -3), true
  elseif ends(w, "ing") and has_vowel(w, #w - 3) then
    w, again = w:sub(1, -4), true
  end
  if again then
    if ends(w, "at") or ends(w, "bl") or ends(w, "iz") then w = w .. "e"
    elseif double_cons(w, #w) and not w:find("[lsz]$") then w = w:sub(1, -2)
    elseif measure(w, #w) == 1 and cvc(w, #w) then w = w .. "e" end
  end
  -- step 1c
  if ends(w, "y") and has_vowel(w, #w - 1) then w = w:sub(1, -2) .. "i" end
  -- step 2, 3
  for _, p in ipairs(STEP2) do
    local hitp
    w, hitp = swap(w, p[1], p[2], 0)
    if hitp then break end
  end
  for _, p in ipairs(STEP3) do
    local hitp
    w, hitp = swap(w, p[1], p[2], 0)
    if hitp then break end
  end
  -- step 4
  for _, s in ipairs(STEP4) do
    if ends(w, s) then
      local stem = #w - #s
      if measure(w, stem) > 1 and (s ~= "ion" or w:sub(stem, stem):find("[st]")) then w = w:sub(1, stem) end
      break
    end
  end
  -- step 5
  if ends(w, "e") then
    local m = measure(w, #w - 1)
    if m > 1 or (m == 1 and not cvc(w, #w - 1)) then w = w:sub(1, -2) end
  end
  if ends(w, "ll") and measure(w, #w) > 1 then w = w:sub(1, -2) end
  stem_cache[orig] = w
  return w
end

--- the terms of text: { {word=, stem=, stop=, generic=}... } in order
function M.terms(text)
  local out = {}
  for _, w in ipairs(M.words(text)) do
    out[#out + 1] = { word = w, stem = M.stem(w), stop = STOP[w] or false, generic = GENERIC[w] or false }
  end
  return out
end

--- stems of the content words of text (no stopwords), as a list
function M.stems(text)
  local out = {}
  for _, w in ipairs(M.words(text)) do
    if not STOP[w] then out[#out + 1] = M.stem(w) end
  end
  return out
end

-- Damerau-Levenshtein distance, stopping early past limit
local function distance(a, b, limit)
  local la, lb = #a, #b
  if math.abs(la - lb) > limit then return limit + 1 end
  local prev2, prev = {}, {}
  for j = 0, lb do prev[j] = j end
  for i = 1, la do
    local cur = { [0] = i }
    local best = i
    local ai = a:byte(i)
    for j = 1, lb do
      local cost = (ai == b:byte(j)) and 0 or 1
      local v = math.min(prev[j] + 1, cur[j - 1] + 1, prev[j - 1] + cost)
      if i > 1 and j > 1 and ai == b:byte(j - 1) and a:byte(i - 1) == b:byte(j) then
        v = math.min(v, prev2[j - 2] + 1)
      end
      cur[j] = v
      if v < best then best = v end
    end
    if best > limit then return limit + 1 end
    prev2, prev = prev, cur
  end
  return prev[lb]
end
M.distance = distance

-- is a at most one edit from b (a letter missing, added, changed, or two
-- next to each other swapped — the distance above, at limit 1), a ~= b?
-- Without a table: after their common prefix, the rest must be equal once
-- the one edit is undone.
local function within_one(a, b)
  local la, lb = #a, #b
  if la < lb then a, b, la, lb = b, a, lb, la end
  if la - lb > 1 then return false end
  local i = 1
  while i <= lb and a:byte(i) == b:byte(i) do i = i + 1 end
  if la ~= lb then return a:sub(i + 1) == b:sub(i) end -- a letter added
  if i > la then return false end -- equal
  if a:sub(i + 1) == b:sub(i + 1) then return true end -- a letter changed
  -- two letters swapped
  return i < la and a:byte(i) == b:byte(i + 1) and a:byte(i + 1) == b:byte(i) and a:sub(i + 2) == b:sub(i + 2)
end
M.within_one = within_one

--- the vocabulary word a misspelt word most likely means, or nil: words of
--- 5+ letters within one edit (two for 8+ letters; at most max_edits when
--- given), same first letter; ties go to the more frequent word, then the
--- alphabetically first (deterministic)
-- the answers given so far, per vocabulary (and edit limit): requests repeat
-- their words, and a word of 8+ letters costs a distance table per
-- vocabulary word of its initial. Emptied when one holds M.MEMO_MAX words.
M.MEMO_MAX = 5000
local MEMO = setmetatable({}, { __mode = "k" })

function M.correct(word, vocab, by_initial, max_edits)
  if #word < 5 or vocab[word] then return nil end
  local limit = math.min(#word >= 8 and 2 or 1, max_edits or 2)
  local memos = MEMO[vocab]
  if not memos or memos.by_initial ~= by_initial then
    memos = { by_initial = by_initial }
    MEMO[vocab] = memos
  end
  local memo = memos[limit]
  if not memo or memo.n >= M.MEMO_MAX then
    memo = { n = 0, fix = {} }
    memos[limit] = memo
  end
  local known = memo.fix[word]
  if known ~= nil then return known or nil end
  local best, best_d, best_n
  for _, cand in ipairs(by_initial[word:sub(1, 1)] or {}) do
    if math.abs(#cand - #word) <= limit then
      -- (one edit at most: the same answer as the table, from the common prefix and suffix)
      local d = limit == 1 and (within_one(word, cand) and 1 or 2) or distance(word, cand, limit)
      if d <= limit then
        local n = vocab[cand]
        if not best or d < best_d or (d == best_d and (n > best_n or (n == best_n and cand < best))) then
          best, best_d, best_n = cand, d, n
        end
      end
    end
  end
  memo.fix[word], memo.n = best or false, memo.n + 1
  return best
end

return M
