--- kip.arg.offline.score — stage C of the offline loop (seed 003 §3.3
--- "Scoring", "Weak-signal governance"): evidence-based priority with the
--- tiered gains Gain_info_confirmed / _uncertain / _lowconf, the silence-
--- bias penalty Penalty_silent (the share of the evidence that is not
--- verified), and replay: the evidence requests, and a sample of other
--- recorded requests on the same label, are run again through the online
--- loop on a staged copy of the ontology with the candidate applied —
--- improvements and regressions are counted, never written.
local apply = require "kip.arg.offline.apply"
local snapshot = require "kip.arg.snapshot"

local M = {}

M.W_CONFIRMED, M.W_UNCERTAIN, M.W_LOWCONF = 1.0, 0.3, 0.1
M.REGRESSION_SAMPLE = 50

local function has(list, x) for _, v in ipairs(list or {}) do if v == x then return true end end return false end

-- the staged model of one candidate (node vectors reused when the nodes are the same)
local function staged(base, cand)
  local content = apply.run(base.content, { cand })
  local m = snapshot.model(base.version, content)
  if base.node_vectors and #m.node_names == #base.node_names then m.node_vectors = base.node_vectors end
  return m
end

function M.run(nx, ds, base, candidates)
  local arg = require "kip.arg.loop"
  local by_id = {}
  for _, e in ipairs(ds.episodes) do by_id[e.id] = e end
  for _, c in ipairs(candidates) do
    local g = { confirmed = 0, uncertain = 0, lowconf = 0 }
    for _, id in ipairs(c.evidence) do
      local e = by_id[id]
      if e then g[e.tier] = g[e.tier] + 1 end
    end
    local total = g.confirmed + g.uncertain + g.lowconf
    c.scores = {
      gain_info_confirmed = g.confirmed, gain_info_uncertain = g.uncertain, gain_info_lowconf = g.lowconf,
      penalty_silent = total > 0 and math.floor((g.uncertain + g.lowconf) / total * 1000 + 0.5) / 1000 or 1,
    }
    c.scores.priority = math.floor((M.W_CONFIRMED * g.confirmed + M.W_UNCERTAIN * g.uncertain + M.W_LOWCONF * g.lowconf
      - c.scores.penalty_silent) * 1000 + 0.5) / 1000
    -- replay on a staged copy (ontology changes only)
    if c.type == "taxonomy" or c.type == "edge" or c.type == "merge" or c.type == "deprecate" then
      local m = staged(base, c)
      local improved, regressed, checked = 0, 0, 0
      local function rerun(e)
        if not e.prompt or not e.caller or e.redacted then return nil end
        -- as the caller it was recorded for (kip.arg.identity)
        local r = arg.run(nx, { prompt = e.prompt, context = e.context }, { model = m, record = false, replay = true,
          ctx = require("kip.arg.identity").ctx_of(e.caller) })
        return r
      end
      for _, id in ipairs(c.evidence) do
        local e = by_id[id]
        local r = e and rerun(e)
        if r then
          checked = checked + 1
          local want = e.feedback and e.feedback.label
          if want and r.weaver.primary_label == want and (r.outcome == "ANSWER" or r.outcome == "ACTION") then improved = improved + 1
          elseif not want and has(e.flags, "LOW_MARGIN") and not has(r.weaver.flags, "LOW_MARGIN") then improved = improved + 1 end
        end
      end
      -- other requests that landed where the change acts must not move
      local sample = 0
      for _, e in ipairs(ds.episodes) do
        if sample >= M.REGRESSION_SAMPLE then break end
        if not has(c.evidence, e.id) and e.primary and (e.primary == c.target or (c.after and c.after.label == e.primary)
          or (m.nodes[c.target] and has(m.nodes[c.target].labels, e.primary))) then
          local r = rerun(e)
          if r then
            sample = sample + 1
            local want = e.feedback and e.feedback.label or e.primary
            if r.outcome ~= e.outcome or r.weaver.primary_label ~= want then regressed = regressed + 1 end
          end
        end
      end
      c.scores.replay = { evidence_checked = checked, improved = improved, others_checked = sample, regressed = regressed }
    end
  end
  table.sort(candidates, function(a, b)
    if a.scores.priority ~= b.scores.priority then return a.scores.priority > b.scores.priority end
    return a.type .. a.key < b.type .. b.key
  end)
  return candidates
end

return M
