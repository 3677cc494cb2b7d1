--- kip.arg.steps.info — step 9 of seed 003: the Info path. External data
--- only through an approved connector module (kip.arg.connectors) with a
--- timeout; its results are ephemeral bundle units (ExternalContextBundle),
--- never graph writes. The FinalContextBundle merges internal then external
--- units with their provenance. C_info and InfoOutcomeStatus: never
--- INFO_CONFIRMED_SUCCESS without a verification signal (that comes later
--- through kip.arg.feedback); high confidence and a relevant bundle give
--- INFO_UNCERTAIN_SUCCESS, anything weaker INFO_LOW_CONFIDENCE.
local connectors = require "kip.arg.connectors"

local M = {}

function M.run(st)
  local b, w = st.bind, st.weaver
  local external = {}
  for _, x in ipairs(b.external or {}) do
    local src = st.snapshot.sources[x.source]
    local res = connectors.fetch(st.nx, src, st.request, st.limits.connector_timeout_ms)
    external[#external + 1] = { node = x.source, label = x.label, external = true, connector = src.connector,
      status = res.status, fetched_at = res.at, content = res.content, error = res.error }
    if res.status ~= "OK" and res.status ~= "NOT_CONFIGURED" then
      st.errors[#st.errors + 1] = { code = "ARG_CONNECTOR_" .. res.status, step = "info",
        message = ("connector %s: %s"):format(tostring(src.connector), tostring(res.error or res.status)),
        hint = "External data is missing from the bundle; answer from internal units or clarify." }
    end
  end
  st.external = external
  local bundle = {}
  for _, u in ipairs(st.internal or {}) do
    bundle[#bundle + 1] = { node = u.node, label = u.label, source = "internal", via = u.via, score = u.score }
  end
  for _, u in ipairs(external) do
    bundle[#bundle + 1] = { node = u.node, label = u.label, source = "external", connector = u.connector,
      status = u.status, fetched_at = u.fetched_at, content = u.content }
  end
  st.bundle = bundle
  -- C_info: routing confidence times how much of the bundle is relevant
  local relevant = 0
  for _, u in ipairs(st.internal or {}) do if (u.score or 0) > 0 then relevant = relevant + 1 end end
  local share = #bundle > 0 and math.min(1, relevant / math.max(1, math.min(#bundle, 2))) or 0
  local c = (w.confidence or 0) * 0.5 + share * 0.5
  st.info = { c_info = math.floor(c * 1000 + 0.5) / 1000, active_check = false, verification = nil,
    evidence = { confidence = w.confidence, relevant_units = relevant, units = #bundle } }
  st.info.info_outcome_status = c >= 0.5 and "INFO_UNCERTAIN_SUCCESS" or "INFO_LOW_CONFIDENCE"
end

return M
