-- kip.pipeline — the governed request pipeline of a Nexus:
--
--   parse → policy pre-check → execute → policy post-check → response
--
-- for every command of a request (each batch command is checked on its
-- own). The core parses each command and describes it (core.describe: kind,
-- reads, writes, parameters bound); policies decide; their composed decision
-- becomes the command's execution options — a RESTRICT scope the core
-- enforces (eligibility, forbidden types/predicates, budgets, write_allowed),
-- or a refusal (BLOCK → KIP_4004). Post-checks may redact the response or
-- replace it with a refusal. The whole request keeps the core's batch
-- semantics (one dry_run transaction, stop on the first KML error) because the
-- checks run as per-command hooks inside the core's request loop.
local core = require "kip.core"
local policy = require "kip.policy"
local state = require "kip.state"
local policy_log = require "kip.policy_log"

local M = {}

M.NO_ID = "C:0" -- the id of nobody: what an unknown identity is bound to in scopes
local NO_ID = M.NO_ID

local function decode(text) return core.json_decode(text) end

local function refusal(message, hint)
  return { code = 4004, message = message, hint = hint or "" }
end

local POLICY_FAILED = "A governance policy failed on this request and refused it (fail closed); "
  .. "the message names the policy and line. An operator can check it with `kip policy check FILE`."

-- ids of $self and of the counterparty, for scope parameters (cached per nexus)
local function identity_ids(nx, ctx)
  local out = {}
  if state.of(nx, "pipeline").self_id == nil then
    local r = decode(nx.handle:call_json('{"command":"FIND(?s.id) WHERE { ?s {type: \\"Person\\", name: \\"$self\\"} }"}'))
    state.of(nx, "pipeline").self_id = (r.result and r.result[1]) or false
  end
  out.self_id = state.of(nx, "pipeline").self_id or nil
  local cp = ctx.counterparty
  if type(cp) == "string" and cp ~= "" then
    if cp:match("^C:%d+$") then
      out.counterparty_id = cp
    else
      -- found ids are kept for 30 s (a merge or re-creation changes them)
      state.of(nx, "pipeline").person_ids = state.of(nx, "pipeline").person_ids or {}
      local hit, now = state.of(nx, "pipeline").person_ids[cp], os.time()
      local id = hit and now - hit.at < 30 and hit.id or nil
      if not id then
        local req = core.json_encode {
          command = 'FIND(?p.id) WHERE { ?p {type: "Person", name: :n} }', parameters = { n = cp } }
        local r = decode(nx.handle:call_json(req))
        id = r.result and r.result[1] or nil
        if id then state.of(nx, "pipeline").person_ids[cp] = { id = id, at = now } end
      end
      out.counterparty_id = id
    end
  end
  return out
end

--- The subsystems that own data in this nexus ({arg = true, ...}): the
--- owners of its guards (core/src/store_guard.c), re-read only when the
--- nexus changed (the core answers from its cache otherwise). Policies see
--- it as ctx.subsystems.
function M.subsystems(nx)
  local gen = nx.handle:guards_generation()
  if state.of(nx, "pipeline").guards_generation == gen then return state.of(nx, "pipeline").subsystems end
  local r = decode(nx.handle:guards(0))
  local out = {}
  for _, g in ipairs(r.result and r.result.guards or {}) do out[g.owner] = true end
  state.of(nx, "pipeline").guards_generation, state.of(nx, "pipeline").subsystems = gen, out
  return out
end

--- Call options (with per-command hooks) that run `set`'s policies for one
--- request of nexus `nx`; ctx is the caller identity, opts the base options.
function M.call_options(nx, set, ctx, opts)
  local o = {}
  for k, v in pairs(opts or {}) do o[k] = v end
  ctx = ctx or {}
  -- resolved before the request starts (the hooks run inside the core's request loop)
  local ids = identity_ids(nx, ctx)
  local subsystems = M.subsystems(nx)
  local decided = {}

  o.before = function(index, command, params_json, description)
    local missing = set:missing()
    if missing then return nil, refusal("governance policy unavailable: " .. missing, "Fix the policy file; requests are refused until it loads.") end
    -- the description (from the core's own parse of the command) is decoded
    -- afresh for each command and shared by the policies of that command:
    -- nothing they do to it reaches the host
    if not description then return {} end -- it does not parse: the core reports the error itself
    local req = decode(description)
    req.command = command
    req.readonly = o.readonly and true or false
    local c = policy.copy(ctx)
    c.self_id, c.counterparty_id = ids.self_id, ids.counterparty_id
    c.subsystems = policy.copy(subsystems)
    -- the instruction budget grows with the request: a legitimate large write
    -- (a 1 500-block UPSERT) must not trip a policy that looks at every value
    local list = set:list()
    local dec, each, failures = policy.decide(list, req, c,
      { budget = policy.DEFAULT_BUDGET + 20 * (#command + #(params_json or "")) })
    -- the decision log names the policies that did more than allow (only when it keeps a line)
    local names
    if failures[1] or policy_log.notable(dec) then
      names = {}
      for i, d in ipairs(each) do if d.state ~= "ALLOW" or #(d.reasons or {}) > 0 then names[#names + 1] = list[i].name end end
    end
    policy_log.record(nx, "pre", failures[1] and { state = "BLOCK", reasons = { failures[1] } } or dec, req, c, names)
    if failures[1] then return nil, refusal(failures[1], POLICY_FAILED) end
    decided[index] = { decision = dec, req = req, ctx = c }
    if dec.state == "BLOCK" then
      local why = #dec.reasons > 0 and table.concat(dec.reasons, "; ") or "refused by the governance policy"
      return nil, refusal(why, "The request conflicts with the memory's governance policy; rephrase or ask an operator.")
    end
    local k = dec.constraints
    local params = {}
    for key, v in pairs(c) do if type(v) ~= "table" then params[key] = v end end
    -- placeholders the default scope uses; an unknown identity is bound to an
    -- id no element has (ids start at 1), so it matches nothing (the core
    -- refuses a scope placeholder bound to null)
    params.self_id = c.self_id or NO_ID
    params.counterparty_id = c.counterparty_id or NO_ID
    for key, v in pairs(k.params or {}) do params[key] = v end
    -- a host's own narrowing (call option eligibility, e.g. kip mind
    -- context's anchors) holds together with the policies' scope: both
    -- filters, the policies' placeholders winning a name both use
    local eligibility = k.eligibility
    if o.eligibility then
      eligibility = eligibility and ("(%s) && (%s)"):format(eligibility, o.eligibility) or o.eligibility
      for key, v in pairs(o.eligibility_params and decode(o.eligibility_params) or {}) do
        if params[key] == nil then params[key] = v end
      end
    end
    local out = {
      eligibility = eligibility,
      eligibility_params = eligibility and core.json_encode(params) or nil,
      forbidden_types = k.forbidden_types,
      forbidden_predicates = k.forbidden_predicates,
      write_protected = k.write_protected,
      append_only = k.append_only,
      write_denied = k.write_allowed == false or nil,
    }
    local b = k.budgets or {}
    for _, key in ipairs { "max_rows", "max_hops", "deadline_ms" } do
      local base = o[key]
      if b[key] then out[key] = (base and base > 0) and math.min(base, b[key]) or b[key] end
    end
    return out
  end

  o.after = function(index, response_json)
    local entry = decided[index]
    if not entry then return nil end
    local dec = entry.decision
    local posts = {}
    for _, p in ipairs(set:list()) do if p.post_check then posts[#posts + 1] = p end end
    local visible = dec.state == "ALLOW_WITH_REFOCUS" or dec.response_mode ~= "normal"
    if #posts == 0 and #dec.warnings == 0 and not visible then return nil end
    local resp = decode(response_json)
    if #dec.warnings > 0 then
      resp.warnings = resp.warnings or {}
      for _, w in ipairs(dec.warnings) do resp.warnings[#resp.warnings + 1] = w end
    end
    if visible then -- RESTRICT scopes stay silent: the caller learns nothing about what they hide
      resp.policy = { state = dec.state, response_mode = dec.response_mode, reasons = dec.reasons }
    end
    for _, p in ipairs(posts) do
      local ok, r = policy.call(p, "post_check", nil, entry.req, resp, entry.ctx)
      if not ok then
        policy_log.record(nx, "post", { state = "BLOCK", reasons = { r } }, entry.req, entry.ctx, { p.name })
        return core.json_encode { error = { code = "KIP_4004", name = "PermissionDenied", message = r,
          hint = "The governance policy failed; the response was withheld (fail closed)." } }
      end
      if type(r) == "table" then
        if r.state == "BLOCK" then
          local why = r.reasons and #r.reasons > 0 and table.concat(r.reasons, "; ") or "withheld by the governance policy"
          policy_log.record(nx, "post", { state = "BLOCK", reasons = { why } }, entry.req, entry.ctx, { p.name })
          resp = { error = { code = "KIP_4004", name = "PermissionDenied", message = why,
            hint = "The response conflicts with the memory's governance policy." } }
          break
        elseif r.result ~= nil or r.error ~= nil then
          policy_log.record(nx, "post", { state = "REWRITTEN", reasons = r.reasons or { "the response was rewritten" } },
            entry.req, entry.ctx, { p.name })
          resp = r
        end
      end
    end
    return core.json_encode(resp)
  end
  return o
end

return M
