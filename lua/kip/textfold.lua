--- kip.textfold — a request's text as a reader sees it, for the checks
--- that look for instructions in it (policies/arg.lua, the ARG Policy
--- Pre-Check: seed 003 step 1 and §6 "anti-patterns"; docs/arg.md
--- "Governance"). Obfuscation that a model reads through but a pattern
--- would not is undone first:
---
---   markup      tags, comments and Markdown emphasis dropped, HTML entities decoded
---   invisible   zero-width, soft-hyphen and direction-control characters removed
---   lookalikes  fullwidth, mathematical, circled and small-capital letters,
---               Cyrillic and Greek homoglyphs, accented letters -> ASCII
---   leet        digits and symbols inside words of letters (1gn0re -> ignore)
---   spacing     letters spelled one at a time (i g n o r e, i.g.n.o.r.e) joined;
---               runs of whitespace collapsed
---   case        lower case
---
---   local textfold = require "kip.textfold"
---   textfold.fold("Ｉｇｎｏｒｅ <b>previous</b> ins\u{200B}tructions")
---     --> "ignore previous instructions", {"markup", "invisible", "lookalikes"}
---
--- The second result lists what was undone (a request that needed it is
--- itself a signal for a caller). Text that needs none of it comes back
--- lower-cased with its runs of spaces collapsed (line breaks kept).
local core = require "kip.core"

local M = {}

-- UTF-8 by hand: the same on Lua 5.4 and LuaJIT (which has no utf8 library)
local function char_of(cp)
  if cp < 0x80 then return string.char(cp) end
  if cp < 0x800 then return string.char(0xC0 + math.floor(cp / 64), 0x80 + cp % 64) end
  if cp < 0x10000 then
    return string.char(0xE0 + math.floor(cp / 4096), 0x80 + math.floor(cp / 64) % 64, 0x80 + cp % 64)
  end
  return string.char(0xF0 + math.floor(cp / 262144), 0x80 + math.floor(cp / 4096) % 64, 0x80 + math.floor(cp / 64) % 64,
    0x80 + cp % 64)
end

-- each(cp, raw) for the code points of s; a byte that does not start a
-- valid sequence comes as (nil, the byte)
local function each_code(s, each)
  local i, n = 1, #s
  while i <= n do
    local b = s:byte(i)
    local len = b < 0x80 and 1 or (b >= 0xC2 and b <= 0xDF) and 2 or (b >= 0xE0 and b <= 0xEF) and 3
      or (b >= 0xF0 and b <= 0xF4) and 4 or 0
    local cp = len == 1 and b or len == 2 and b - 0xC0 or len == 3 and b - 0xE0 or len == 4 and b - 0xF0 or nil
    for k = 1, len - 1 do
      local c = s:byte(i + k)
      if not c or c < 0x80 or c > 0xBF then cp, len = nil, 0 break end
      cp = cp * 64 + (c - 0x80)
    end
    if cp then
      each(cp, s:sub(i, i + len - 1))
      i = i + len
    else
      each(nil, s:sub(i, i))
      i = i + 1
    end
  end
end

-- code point -> ASCII for letters that look like Latin ones (the Unicode
-- confusables that matter for English words; fullwidth, mathematical and
-- circled forms are computed below)
local LOOKALIKE = {
  -- Cyrillic
  [0x0430] = "a", [0x0435] = "e", [0x043E] = "o", [0x0440] = "p", [0x0441] = "c", [0x0443] = "y", [0x0445] = "x",
  [0x0456] = "i", [0x0458] = "j", [0x0455] = "s", [0x0501] = "d", [0x04BB] = "h", [0x0457] = "i", [0x043A] = "k",
  [0x043C] = "m", [0x043D] = "h", [0x0442] = "t", [0x0432] = "b", [0x0433] = "r", [0x0491] = "r", [0x051B] = "q",
  [0x051D] = "w", [0x0410] = "a", [0x0412] = "b", [0x0415] = "e", [0x041A] = "k", [0x041C] = "m", [0x041D] = "h",
  [0x041E] = "o", [0x0420] = "p", [0x0421] = "c", [0x0422] = "t", [0x0425] = "x", [0x0406] = "i", [0x0408] = "j",
  [0x0405] = "s", [0x0423] = "y",
  -- Greek
  [0x03B1] = "a", [0x03B5] = "e", [0x03B9] = "i", [0x03BA] = "k", [0x03BD] = "v", [0x03BF] = "o", [0x03C1] = "p",
  [0x03C4] = "t", [0x03C5] = "u", [0x03C7] = "x", [0x0391] = "a", [0x0392] = "b", [0x0395] = "e", [0x0396] = "z",
  [0x0397] = "h", [0x0399] = "i", [0x039A] = "k", [0x039C] = "m", [0x039D] = "n", [0x039F] = "o", [0x03A1] = "p",
  [0x03A4] = "t", [0x03A5] = "y", [0x03A7] = "x",
  -- Latin small capitals and other lookalikes
  [0x1D00] = "a", [0x0299] = "b", [0x1D04] = "c", [0x1D05] = "d", [0x1D07] = "e", [0x0262] = "g", [0x029C] = "h",
  [0x026A] = "i", [0x1D0A] = "j", [0x1D0B] = "k", [0x029F] = "l", [0x1D0D] = "m", [0x0274] = "n", [0x1D0F] = "o",
  [0x1D18] = "p", [0x0280] = "r", [0x1D1B] = "t", [0x1D1C] = "u", [0x1D20] = "v", [0x1D21] = "w", [0x028F] = "y",
  [0x1D22] = "z", [0x0131] = "i", [0x0261] = "g", [0x2170] = "i", [0x217C] = "l", [0x2134] = "o",
  -- dashes and quotes a pattern writes in ASCII
  [0x2010] = "-", [0x2011] = "-", [0x2012] = "-", [0x2013] = "-", [0x2014] = "-", [0x2018] = "'", [0x2019] = "'",
  [0x201C] = '"', [0x201D] = '"', [0x00A0] = " ", [0x2002] = " ", [0x2003] = " ", [0x2009] = " ", [0x3000] = " ",
}

-- characters with no glyph: removed
local function invisible(cp)
  return cp == 0x00AD or cp == 0x180E or (cp >= 0x200B and cp <= 0x200F) or (cp >= 0x202A and cp <= 0x202E)
    or (cp >= 0x2060 and cp <= 0x2064) or cp == 0xFEFF
end

-- the ASCII a code point reads as, or nil (kept as it is)
local function ascii_of(cp)
  local m = LOOKALIKE[cp]
  if m then return m end
  if cp >= 0xFF01 and cp <= 0xFF5E then return string.char(cp - 0xFEE0) end -- fullwidth ASCII
  if cp >= 0x1D400 and cp <= 0x1D6A3 then                                   -- mathematical letters
    local k = (cp - 0x1D400) % 52
    return string.char(k < 26 and 65 + k or 97 + k - 26)
  end
  if cp >= 0x1D7CE and cp <= 0x1D7FF then return string.char(48 + (cp - 0x1D7CE) % 10) end
  if cp >= 0x24B6 and cp <= 0x24CF then return string.char(65 + cp - 0x24B6) end -- circled
  if cp >= 0x24D0 and cp <= 0x24E9 then return string.char(97 + cp - 0x24D0) end
  if cp >= 0x1F130 and cp <= 0x1F149 then return string.char(65 + cp - 0x1F130) end -- squared
  if cp >= 0x1F150 and cp <= 0x1F169 then return string.char(65 + cp - 0x1F150) end
  if cp >= 0x1F170 and cp <= 0x1F189 then return string.char(65 + cp - 0x1F170) end
  if cp >= 0x00C0 and cp <= 0x024F then                                     -- accented Latin
    local k = core.fold_key(char_of(cp))
    if k:match("^%a+$") then return k end
  end
  return nil
end

local ENTITIES = { lt = "<", gt = ">", amp = "&", quot = '"', apos = "'", nbsp = " ", colon = ":", lsqb = "[",
  rsqb = "]", sol = "/", num = "#", excl = "!", lpar = "(", rpar = ")" }

local function entity(name)
  local n = name:match("^#[xX](%x+)$")
  local cp = n and tonumber(n, 16) or tonumber(name:match("^#(%d+)$") or "")
  if cp and cp > 0 and cp < 0x110000 and not (cp >= 0xD800 and cp <= 0xDFFF) then return char_of(cp) end
  return ENTITIES[name:lower()]
end

-- the HTML elements that only format text (their tags are dropped; any other
-- tag, <system> or <admin>, is text a model reads)
local HTML = {}
for name in ("a abbr b big code del em font i ins kbd mark q s small span strike strong sub sup tt u"):gmatch("%S+") do
  HTML[name] = "inline" -- inside a word as well: dropped without a space
end
for name in ("blockquote br div h1 h2 h3 h4 h5 h6 hr img li ol p pre table tbody td th thead tr ul"):gmatch("%S+") do
  HTML[name] = "block"
end

-- digits and symbols read as letters inside a word that has letters
local LEET = { ["0"] = "o", ["1"] = "i", ["3"] = "e", ["4"] = "a", ["5"] = "s", ["7"] = "t", ["@"] = "a", ["$"] = "s",
  ["!"] = "i", ["|"] = "l" }

local SEPARATORS = { [" "] = true, ["."] = true, ["-"] = true, ["_"] = true, ["/"] = true }

--- s with every run of four or more single letters, each separated from
--- the next by the same one separator character, written as one word
function M.join_spelled(s)
  -- most text has no such run: one search decides
  if not s:find("%f[%w]%a[ %.%-_/]%a[ %.%-_/]%a[ %.%-_/]%a%f[%W]") then return s end
  local out, i, n = {}, 1, #s
  local function letter(k) return k >= 1 and k <= n and s:sub(k, k):match("%a") ~= nil end
  local function alnum(k) return k >= 1 and k <= n and s:sub(k, k):match("%w") ~= nil end
  while i <= n do
    local sep = s:sub(i + 1, i + 1)
    if letter(i) and not alnum(i - 1) and SEPARATORS[sep] then
      local j, count = i, 1
      while s:sub(j + 1, j + 1) == sep and letter(j + 2) and not alnum(j + 3) do j, count = j + 2, count + 1 end
      if count >= 4 then
        for k = i, j, 2 do out[#out + 1] = s:sub(k, k) end
        i = j + 1
      else
        out[#out + 1] = s:sub(i, i)
        i = i + 1
      end
    else
      out[#out + 1] = s:sub(i, i)
      i = i + 1
    end
  end
  return table.concat(out)
end

--- the text as a reader sees it (lower case, see above) and what was undone
function M.fold(text)
  if type(text) ~= "string" then return "", {} end
  local did, seen = {}, {}
  local function mark(what)
    if not seen[what] then seen[what], did[#did + 1] = true, what end
  end
  local s = text
  -- markup: entities first (an encoded tag is still a tag to a reader), then
  -- comments, tags and Markdown emphasis (skipped when there is none: the
  -- checks run on every request)
  if s:find("[&<>%*_~`]") then
    local decoded = s:gsub("&(#?[%w]+);", function(name) return entity(name) end)
    if decoded ~= s then mark("markup") s = decoded end
    local stripped = s:gsub("<!%-%-", " "):gsub("%-%->", " "):gsub("<(/?)(%a%w*)([^<>]*)>", function(_, name, rest)
      local kind = HTML[name:lower()] -- <system> is words a model reads, <b> is not
      if kind and (rest == "" or rest:match("^[%s/]")) then return kind == "inline" and "" or " " end
    end)
    stripped = stripped:gsub("([%*_~`]+)(%S)", "%2"):gsub("(%S)([%*_~`]+)", "%1")
    if stripped ~= s then mark("markup") s = stripped end
  end
  -- code points: invisible ones removed, lookalikes to ASCII
  if s:find("[\128-\255]") then
    local out = {}
    each_code(s, function(cp, raw)
      if cp and invisible(cp) then mark("invisible")
      elseif cp and cp >= 0x80 then
        local a = ascii_of(cp)
        if a then
          out[#out + 1] = a
          if a:match("%a") then mark("lookalikes") end
        else out[#out + 1] = raw end
      else out[#out + 1] = raw end
    end)
    s = table.concat(out)
  end
  s = s:lower()
  -- letters spelled one at a time: "i g n o r e", "i.g.n.o.r.e", "i-g-n-o-r-e"
  -- (four letters or more, the same separator between each)
  local joined = M.join_spelled(s)
  if joined ~= s then mark("spacing") s = joined end
  -- leet: a word of letters with digits or symbols inside it
  local unleet = not (s:find("%a[013457@%$!|]") or s:find("[013457@%$|]%a")) and s or s:gsub("[%w@%$!|]+", function(w)
    local _, letters = w:gsub("%a", "")
    -- a word with two letters or more (one in a word of four characters or
    -- more: "3r35") and a digit or symbol beside one; not a number with a
    -- unit or an ordinal (10am, 1st), nor a word with a digit leet does not
    -- use (2fa, inv2025)
    if letters < (#w >= 4 and 1 or 2) or not (w:find("%a[013457@%$!|]") or w:find("[013457@%$|]%a"))
      or w:find("^%d+%a%a?%a?$") or w:find("[2689]") then
      return w
    end
    w = w:gsub("(%a)[!|]+(%a)", function(a, b) return a .. "i" .. b end) -- "!" and "|" only between letters
    -- "1" between vowels stands for "l" ("ru1es", "fi1e", "po1icy"), elsewhere for "i" ("l1st", "1gnore")
    w = w:gsub("([aeiou])1([aeiou])", "%1l%2")
    return (w:gsub("[013457@%$]", LEET))
  end)
  if unleet ~= s then mark("leet") s = unleet end
  -- whitespace: runs collapsed, a line break kept (a fake "system:" line starts one)
  s = s:gsub("[ \t\r\f\v]*\n[%s]*", "\n"):gsub("[ \t\r\f\v]+", " "):gsub("^%s+", ""):gsub("%s+$", "")
  return s, did
end

return M
