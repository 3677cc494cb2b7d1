--- kip.cli.options — the one command-line option parser of `kip` and of
--- every subsystem's commands (docs/extending.md "CLI commands"), with the
--- conventions of common CLIs:
---
---   --name VALUE, --name=VALUE   an option with a value (the value may start with -)
---   --flag, -q                   a flag
---   --                           the end of options: everything after is positional
---   -                            positional (stdin, by convention)
---   "--force it through"         positional: text with spaces is never an option name
---   -12, -0.5                    positional (numbers)
---
--- An option table is a list of entries and groups (a group is a list of
--- entries, e.g. M.GOVERNANCE):
---   { "--limit", "-l", key = "limit", value = "N", multi = true, check = "int", into = t }
--- key: where the value goes (default the long name without dashes, - as _);
--- value: the option takes a value (its name in help and errors); multi: a
--- list of every value; check: "int" | "number" | function(v) -> value | nil,
--- message; into: the table it is stored in (default the result).
local M = {}

local function key_of(e)
  if e.key then return e.key end
  for _, n in ipairs(e) do
    if n:sub(1, 2) == "--" then return (n:sub(3):gsub("%-", "_")) end
  end
  return (e[1]:gsub("^%-+", ""):gsub("%-", "_"))
end

-- name -> entry over entries and nested groups (an earlier one wins a name
-- both use: a command's own --channel before the governance options')
local function index(defs, out)
  out = out or {}
  for _, e in ipairs(defs) do
    if type(e) == "table" then
      if type(e[1]) == "table" then index(e, out)
      elseif type(e[1]) == "string" then
        for _, n in ipairs(e) do if not out[n] then out[n] = e end end -- the first table naming it wins
      end
    end
  end
  return out
end
M.index = index

local CHECKS = {
  int = function(v) -- (LuaJIT has no math.tointeger)
    local n = tonumber(v)
    if not n or n ~= math.floor(n) or n ~= n or math.abs(n) == math.huge then return nil, "a whole number" end
    return math.floor(n)
  end,
  number = function(v)
    local n = tonumber(v)
    if not n then return nil, "a number" end
    return n
  end,
}

--- is token an option name (as opposed to positional text)?
function M.is_option(token)
  if token:sub(1, 1) ~= "-" or token == "-" or token == "--" then return false end
  if tonumber(token) then return false end -- a negative number
  if token:find("%s") then return false end -- text that happens to start with -
  return true
end

--- Parse argv (a list) against defs. opts: stop_at_positional (the first
--- positional and everything after it are left positional: a script's own
--- arguments), from (first index, default 1), command (named in errors).
--- Returns values, positional (a list); or nil, message naming the
--- culprit. values.help is true when -h/--help was given.
function M.parse(argv, defs, opts)
  opts = opts or {}
  local by_name = index(defs)
  local values, positional = {}, {}
  local i, n = opts.from or 1, #argv
  local where = opts.command and (opts.command .. ": ") or ""
  while i <= n do
    local a = argv[i]
    if a == "--" then
      for j = i + 1, n do positional[#positional + 1] = argv[j] end
      break
    end
    if not M.is_option(a) then
      if opts.stop_at_positional then
        for j = i, n do positional[#positional + 1] = argv[j] end
        break
      end
      positional[#positional + 1] = a
      i = i + 1
    else
      local name, inline = a:match("^(%-%-[^=]+)=(.*)$")
      name = name or a
      local e = by_name[name]
      if not e and (name == "-h" or name == "--help") then
        values.help = true
        i = i + 1
      elseif not e then
        return nil, ("%sunknown option %s (see kip %s--help; text that starts with - goes after --)"):format(
          where, name, opts.command and (opts.command .. " ") or "")
      else
        local v = true
        if e.value then
          if inline then v = inline
          else
            v = argv[i + 1]
            if v == nil then return nil, ("%s%s needs %s"):format(where, name, e.value) end
            i = i + 1
          end
          local check = type(e.check) == "string" and CHECKS[e.check] or e.check
          if check then
            local c, why = check(v)
            if c == nil then return nil, ("%s%s needs %s, not %s"):format(where, name, why or "a valid value", v) end
            v = c
          end
        elseif inline then
          return nil, ("%s%s takes no value"):format(where, name)
        end
        local t, k = e.into or values, key_of(e)
        if e.apply then
          local ok, why = e.apply(v, name)
          if ok == false then return nil, where .. why end
        elseif e.multi then
          t[k] = t[k] or {}
          t[k][#t[k] + 1] = v
        else
          t[k] = v
        end
        i = i + 1
      end
    end
  end
  return values, positional
end

return M
