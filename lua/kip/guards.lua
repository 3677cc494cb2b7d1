--- kip.guards — what subsystems own, on the host side of the core's guards
--- (core/src/store_guard.c; docs/security.md "Guards"; DESIGN.md §8
--- "invariants live below the policies").
---
--- A subsystem (ARG, the mind model, an operator's own) declares its
--- guards once (kip.arg.guards, kip.mind.guards): the core then refuses
--- every write of what it owns unless the call holds the subsystem's
--- capability. Other subsystems read the same declarations to leave alone
--- what is not theirs: a sleep cycle skips (and reports) what another
--- subsystem owns instead of failing on it (M.owned).
local core = require "kip.core"
local state = require "kip.state"

local M = {}

--- declare every guard of `list` ({type, name|nil, mode, capability, hint,
--- unindexed}) for `owner` (idempotent); true or nil, message. unindexed:
--- what the guard covers is kept out of the SEARCH indexes (records the
--- subsystem keeps for itself, docs/security.md "Guards")
function M.declare(nx, owner, list)
  for _, g in ipairs(list) do
    local ok, err = nx.handle:guard_declare { type = g[1], name = g[2], mode = g[3], capability = g[4], owner = owner,
      hint = g[5], unindexed = g[6] == true }
    if not ok then return nil, err end
  end
  return true
end

--- a subsystem's whole guard list: `declared`, then its schema's
--- definitions (each $ConceptType of `types`, each $PropositionType of
--- `predicates`) sealed under capability `cap`, with `hint`
function M.with_schema(declared, types, predicates, cap, hint)
  local list = {}
  for _, g in ipairs(declared) do list[#list + 1] = g end
  for _, t in ipairs(types) do list[#list + 1] = { "$ConceptType", t, "sealed", cap, hint } end
  for _, p in ipairs(predicates) do list[#list + 1] = { "$PropositionType", p, "sealed", cap, hint } end
  return list
end

local function read(nx)
  local r = core.json_decode(nx.handle:guards(0))
  return r.result and r.result.guards or {}
end

--- how many guards `owner` has declared in this nexus
function M.count(nx, owner)
  local n = 0
  for _, g in ipairs(read(nx)) do if g.owner == owner then n = n + 1 end end
  return n
end

--- is every guard of `list` declared in this nexus for `owner` as the list
--- has it (mode, capability, unindexed)? A nexus an older version set up
--- is declared again
function M.current(nx, owner, list)
  local have = {}
  for _, g in ipairs(read(nx)) do
    local name = (g.name ~= nil and g.name ~= core.null) and g.name or ""
    have[g.type .. "\0" .. name] = g
  end
  for _, w in ipairs(list) do
    local g = have[w[1] .. "\0" .. (w[2] or "")]
    local cap = g and g.capability ~= core.null and g.capability or nil
    if not g or g.owner ~= owner or g.mode ~= (w[3] or "sealed") or cap ~= w[4] or (g.unindexed == true) ~= (w[6] == true) then
      return false
    end
  end
  return true
end

--- what the subsystems own in this nexus, re-read only when the guards may
--- have changed: {types = {T = owner}, concepts = {["T\0name"] = owner}}
--- (a guard on a type covers every concept of it; on a name, that concept;
--- each covers the propositions whose subject it covers)
function M.owned(nx)
  local gen = nx.handle:guards_generation()
  if state.of(nx, "guards").owned and state.of(nx, "guards").owned_generation == gen then return state.of(nx, "guards").owned end
  local out = { types = {}, concepts = {} }
  for _, g in ipairs(read(nx)) do
    if g.name == nil or g.name == core.null then out.types[g.type] = g.owner
    else out.concepts[g.type .. "\0" .. g.name] = g.owner end
  end
  state.of(nx, "guards").owned, state.of(nx, "guards").owned_generation = out, gen
  return out
end

--- the owner of concept (type, name) in `owned` (M.owned), or nil
function M.owner_of(owned, t, name)
  if t == nil then return nil end
  return owned.types[t] or (name and owned.concepts[t .. "\0" .. name]) or nil
end

--- a KQL FILTER that keeps concept variable `var` (e.g. "?s") out of what
--- `owned` covers, or "" when nothing is owned (for bulk statements that do
--- not go through a snapshot)
function M.kql_not_owned(owned, var)
  local parts = {}
  local types = {}
  for t in pairs(owned.types) do types[#types + 1] = t end
  table.sort(types)
  for _, t in ipairs(types) do parts[#parts + 1] = ("%s.type != %s"):format(var, core.json_encode(t)) end
  local keys = {}
  for k in pairs(owned.concepts) do keys[#keys + 1] = k end
  table.sort(keys)
  for _, k in ipairs(keys) do
    local t, n = k:match("^(.-)%z(.*)$")
    if not owned.types[t] then
      parts[#parts + 1] = ("!(%s.type == %s && %s.name == %s)"):format(var, core.json_encode(t), var, core.json_encode(n))
    end
  end
  if #parts == 0 then return "" end
  return "FILTER(" .. table.concat(parts, " && ") .. ")"
end

--- call options holding capability `cap` over base options `opts`, with
--- the caller ctx (nexus default when nil) marked as the subsystem's own
--- operation (ctx.operator: it reads its own records unscoped)
function M.as(nx, cap, ctx, opts)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  local c = {}
  for k, v in pairs(ctx or nx.ctx or {}) do c[k] = v end
  c.operator = true
  o.ctx = c
  o.capabilities = { cap }
  return o
end

return M
