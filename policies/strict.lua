-- strict.lua — an example of a restrictive policy: budgets, a type allow-list
-- and read-only callers by role. Use it next to the default policy:
--
--   kip exec --policy default --policy strict 'FIND(...) ...'
--
-- RESTRICT constraints are hard gates the core enforces: concepts of a type
-- outside ALLOWED_TYPES are invisible (an eligibility filter), links with a
-- hidden predicate too (forbidden_predicates, also refused on write), every query
-- gets at most MAX_ROWS rows, MAX_HOPS hops and DEADLINE_MS of wall time,
-- and callers without the "writer" role cannot change the memory.
local ALLOWED_TYPES = {
  Person = true, Event = true, Preference = true, Insight = true, Commitment = true,
  Domain = true, ["$ConceptType"] = true, ["$PropositionType"] = true,
}
local HIDDEN_PREDICATES = { "consolidated_to" }
local MAX_ROWS, MAX_HOPS, DEADLINE_MS = 500, 3, 2000

local function has_role(ctx, role)
  for _, r in ipairs(ctx.roles or {}) do if r == role then return true end end
  return false
end

-- the allow-list as an eligibility filter over every element ?e: links have
-- no type and pass; concepts must be of an allowed type
local names = {}
for t in pairs(ALLOWED_TYPES) do names[#names + 1] = json.encode(t) end
table.sort(names)
local ELIGIBLE = "IS_NULL(?e.type) || IN(?e.type, [" .. table.concat(names, ", ") .. "])"

return kip.policy {
  name = "strict",
  priority = 50,

  pre_check = function(req, ctx)
    local outside = 0
    for _, t in ipairs(req.reads.types) do
      if not ALLOWED_TYPES[t] then outside = outside + 1 end
    end
    local d = {
      state = "RESTRICT",
      constraints = {
        eligibility = ELIGIBLE,
        forbidden_predicates = HIDDEN_PREDICATES,
        budgets = { max_rows = MAX_ROWS, max_hops = MAX_HOPS, deadline_ms = DEADLINE_MS },
        write_allowed = has_role(ctx, "writer"),
      },
      reasons = {},
    }
    -- a read that only asks about types outside the allow-list is refused outright
    if not req.mutates and #req.reads.types > 0 and outside == #req.reads.types then
      return { state = "BLOCK", reasons = { "the strict policy allows only " .. "Person, Event, Preference, Insight, Commitment" } }
    end
    return d
  end,

  -- redact contact details from every returned element
  post_check = function(req, resp, ctx)
    local function redact(v, depth)
      if type(v) ~= "table" or depth > 8 then return end
      if type(v.attributes) == "table" then
        v.attributes.email, v.attributes.phone = nil, nil
      end
      for _, x in pairs(v) do redact(x, depth + 1) end
    end
    if not has_role(ctx, "admin") then redact(resp.result, 0) end
    return nil -- keep the (modified) response
  end,
}
