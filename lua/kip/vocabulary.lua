--- kip.vocabulary — the words of KIP (RC11 §3–§5) as front ends offer them:
--- the statement keywords of this core (core.statements: the one table of
--- statement kinds, with any kind added at build time) and the words of
--- their clauses, and a nexus's own names (its concept types and
--- predicates). The REPL completes them (kip.repl); the inspector's console
--- highlights and completes them (kip.ui.api). Lua 5.4 and LuaJIT.
local core = require "kip.core"

local M = {}

M.KEYWORDS = {}
for _, s in ipairs(core.statements()) do M.KEYWORDS[#M.KEYWORDS + 1] = s.keyword end
for _, w in ipairs {
  "WHERE", "FILTER", "OPTIONAL", "NOT", "UNION", "ORDER BY", "ASC", "DESC", "LIMIT", "CURSOR",
  "COUNT", "DISTINCT", "SUM", "AVG", "MIN", "MAX", "CONCEPT", "PROPOSITION", "SET ATTRIBUTES",
  "SET PROPOSITIONS", "WITH METADATA", "EXPECT VERSION", "INTO", "ATTRIBUTES",
  "METADATA", "PROPOSITIONS", "DETACH", "FROM", "PRIMER", "DOMAINS", "CONCEPT TYPES",
  "PROPOSITION TYPES", "WITH TYPE", "MODE", "THRESHOLD", "IN", "IS_NULL", "IS_NOT_NULL",
  "CONTAINS", "STARTS_WITH", "ENDS_WITH", "REGEX", "ADD", "MUL", "CLAMP", "COALESCE",
} do M.KEYWORDS[#M.KEYWORDS + 1] = w end

--- the names of nx's concept types and of its predicates (two lists), as
--- the caller of opts (execute options: ctx, readonly) may see them
function M.schema_names(nx, opts)
  local lists = {}
  for i, what in ipairs { "CONCEPT TYPES", "PROPOSITION TYPES" } do
    local names, cursor = {}, nil
    repeat
      local r = nx:execute("DESCRIBE " .. what .. " LIMIT 500 CURSOR :c", { c = cursor or core.null }, opts)
      if r.error then break end
      for _, n in ipairs(r.result) do names[#names + 1] = n end
      cursor = r.next_cursor
    until not cursor
    lists[i] = names
  end
  return lists[1], lists[2]
end

return M
