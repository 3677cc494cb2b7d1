--- kip.arg.offline.collect — stage A of the offline loop (seed 003 §3.1
--- "Collection"; docs/arg.md "Offline loop"): the episodes recorded since
--- the last run (their routing, flags, bundles, outcomes, action results),
--- the feedback recorded for them, normalized into a dataset with
--- provenance. Strong signals (a verification or a correction by feedback)
--- and weak ones (everything else: silence is not success) stay apart.
local registry = require "kip.arg.registry"

local M = {}

M.LIMIT = 100000 -- episodes per run

local function tier(e)
  if e.feedback then return "confirmed" end
  if e.info_status == "INFO_UNCERTAIN_SUCCESS" then return "uncertain" end
  return "lowconf"
end
M.tier = tier

--- the dataset of episodes recorded after `since` (ISO time, or nil: all)
function M.run(nx, ctx, since)
  local rows, err = registry.list(nx, { since = since, limit = M.LIMIT }, ctx)
  if not rows then return nil, err end
  local feedback, list = {}, {}
  for _, e in ipairs(rows) do
    local a = e.attributes or {}
    if a.kind == "feedback" then
      -- the newest feedback of an episode counts (rows come newest first)
      if not feedback[a.feedback_of] then feedback[a.feedback_of] = { verified = a.verified, label = a.label, note = a.note, id = e.name } end
    else
      list[#list + 1] = e
    end
  end
  local ds = { episodes = {}, since = since, strong = 0, weak = 0 }
  local newest = since
  for i = #list, 1, -1 do -- oldest first: a deterministic order
    local e = list[i]
    local a = e.attributes or {}
    local d = type(a.decision) == "table" and a.decision or {}
    local w = type(d.weaver) == "table" and d.weaver or {}
    local bundle = {}
    for _, u in ipairs(type(d.bundle) == "table" and d.bundle or {}) do bundle[#bundle + 1] = u.node end
    local item = {
      id = e.name, version = a.ontology_version, outcome = a.outcome, primary = w.primary_label,
      flags = type(a.flags) == "table" and a.flags or {}, rival = w.rival,
      candidates = type(d.candidates) == "table" and d.candidates.filtered or {},
      bundle = bundle, prompt = type(a.request) == "table" and a.request.prompt or nil,
      context = type(a.request) == "table" and a.request.context or nil,
      caller = type(a.caller) == "table" and a.caller.role and a.caller or nil,
      redacted = type(a.request) == "table" and a.request.redacted or nil,
      info_status = type(a.info) == "table" and a.info.info_outcome_status or nil,
      action = type(d.action) == "table" and d.action.name or nil, recorded_at = a.recorded_at,
      feedback = feedback[e.name],
    }
    item.tier = tier(item)
    item.strong = item.feedback ~= nil
    if item.strong then ds.strong = ds.strong + 1 else ds.weak = ds.weak + 1 end
    ds.episodes[#ds.episodes + 1] = item
    if a.recorded_at and (not newest or a.recorded_at > newest) then newest = a.recorded_at end
  end
  ds["until"] = newest
  return ds
end

return M
