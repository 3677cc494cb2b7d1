--- kip.arg.replay — replay and audit of the ARG online loop (seed 003 §6.1
--- "Observability: sufficient logs to replay decisions", Annex 7.4 "version
--- pinning"; docs/arg.md "Replay"). A recorded episode is run again from
--- its stored request, as its recorded caller, against the ontology version
--- it was recorded under, without recording and without acting (what the
--- action did is taken from the episode), and every decision is compared
--- with the stored one
--- (kip.arg.registry.decision): the result lists each differing path, so
--- "reproduced" means bit for bit the same decisions.
local arg = require "kip.arg.loop"
local registry = require "kip.arg.registry"
local core = require "kip.core"

local M = {}

-- the differing paths of two decoded JSON values (empty arrays and empty
-- objects are the same value once stored)
local function diff(a, b, path, out)
  if type(a) == "table" and type(b) == "table" then
    local keys = {}
    for k in pairs(a) do keys[k] = true end
    for k in pairs(b) do keys[k] = true end
    local list = {}
    for k in pairs(keys) do list[#list + 1] = k end
    table.sort(list, function(x, y) return tostring(x) < tostring(y) end)
    for _, k in ipairs(list) do diff(a[k], b[k], path .. "/" .. tostring(k), out) end
  elseif a ~= b and not (a == nil and b == core.null) and not (b == nil and a == core.null) then
    local ea = type(a) == "table" and next(a) == nil
    local eb = type(b) == "table" and next(b) == nil
    if not ((ea and b == nil) or (eb and a == nil)) then
      out[#out + 1] = { path = path, recorded = a, replayed = b }
    end
  end
  return out
end

--- replay episode id; returns {episode, reproduced, differences, outcome}
--- or nil, error
function M.episode(nx, id, opts)
  opts = opts or {}
  local ep, err = registry.get(nx, id, opts.ctx)
  if not ep then return nil, err end
  local a = ep.attributes or {}
  if a.kind == "feedback" then
    return nil, { code = "ARG_REPLAY_UNSUPPORTED", message = id .. " is a feedback record, not a request", hint = "Replay the episode it names." }
  end
  if type(a.request) ~= "table" or a.request.redacted or type(a.request.prompt) ~= "string" then
    return nil, { code = "ARG_REPLAY_UNSUPPORTED", message = "episode " .. id .. " has no stored request (redacted)",
      hint = "Episodes whose request a memory guard refused to store cannot be replayed." }
  end
  -- the request runs again as the caller it was recorded for
  local ctx = type(a.caller) == "table" and a.caller.role and require("kip.arg.identity").ctx_of(a.caller)
    or (a.actor and { actor = a.actor }) or nil
  -- a route hook's answer is replayed as recorded (judgment is not re-asked)
  local hook = type(a.decision) == "table" and type(a.decision.weaver) == "table" and a.decision.weaver.hook or nil
  local guard = type(a.decision) == "table" and type(a.decision.policy) == "table" and a.decision.policy.hook or nil
  -- the recorded version, or a later one with the same content (a rollback)
  local rec = require("kip.arg.offline.publish").version_record(nx, a.ontology_version, opts.ctx)
  local r, rerr = arg.run(nx, { prompt = a.request.prompt, context = a.request.context }, { version = a.ontology_version,
    content_hash = rec and rec.content_hash or nil,
    record = false, episode_id = id, ctx = ctx or opts.ctx, replay = true,
    replay_hook = type(hook) == "table" and hook.answer or nil,
    replay_guard = type(guard) == "table" and guard.answer or nil,
    replay_directory = type(a.directory_tenants) == "table" and a.directory_tenants or {},
    replay_action_status = type(a.action) == "table" and a.action.status or nil })
  if not r then return nil, rerr end
  -- the recorded decision went through JSON: compare like with like
  local replayed = core.json_decode(registry.digest(registry.decision(r)))
  local recorded = core.json_decode(core.json_encode(a.decision or {}))
  local d = diff(recorded, replayed, "", {})
  return { episode = id, ontology_version = a.ontology_version, outcome = r.outcome, recorded_outcome = a.outcome,
    reproduced = #d == 0, differences = d }
end

return M
