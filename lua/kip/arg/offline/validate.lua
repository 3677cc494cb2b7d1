--- kip.arg.offline.validate — stage D of the offline loop (seed 003 §3.4
--- "Validation"): hard gates before publication. Each candidate is checked
--- for taxonomy coherence (its labels exist, are ACTIVE, have a cluster; a
--- keyword another label already owns is ambiguous), policy and access
--- boundaries (no edge between nodes different roles may see; keywords of
--- a label not every role of the profile sees need a person), structural integrity (no self-edge, bounded
--- fan-out) and memory continuity (nothing recorded episodes used is retired
--- without a redirect), then classified:
---   approved      valid, dominated by confirmed evidence, replay shows an
---                 improvement and no regression, of a type that may be
---                 auto-approved (taxonomy keyword, edge)
---   needs_review  valid, but weak-signal dominated (Penalty_silent above
---                 the threshold), or of a type that always needs a person
---                 (merge, deprecate, registry_dedup, anything from a hook)
---   deferred      valid, but too little evidence yet
---   rejected      a gate failed
--- with the reasons: the ValidationReport.
local lex = require "kip.arg.lexicon"
local profile = require "kip.arg.profile"

local M = {}

M.MAX_FANOUT = 8            -- movement edges out of one node
M.MAX_SILENT = 0.5          -- Penalty_silent above this: never auto-approved
M.MIN_EVIDENCE = 1          -- confirmed episodes before auto-approval
M.AUTO = { taxonomy = true, edge = true }

local function has(list, x) for _, v in ipairs(list or {}) do if v == x then return true end end return false end

local function label_ok(m, l, reasons)
  local x = m.labels[l]
  if not x then reasons[#reasons + 1] = "unknown label " .. tostring(l) return false end
  if x.lifecycle ~= "ACTIVE" then reasons[#reasons + 1] = l .. " is " .. x.lifecycle return false end
  if not x.cluster then reasons[#reasons + 1] = l .. " has no cluster" return false end
  return true
end

function M.check(m, c, ds)
  local reasons, review = {}, {}
  local a = c.after or {}
  local valid = true
  if c.type == "taxonomy" then
    valid = label_ok(m, a.label, reasons)
    local words = a.add_keywords or (a.add_keyword and { a.add_keyword }) or {}
    if #words == 0 then valid = false reasons[#reasons + 1] = "no keyword to add" end
    if valid then
      for _, word in ipairs(words) do
        local stem = lex.stem(tostring(word))
        for _, other in ipairs(m.label_names) do
          if other ~= a.label then
            for _, k in ipairs(m.labels[other].keywords) do
              local ks = lex.stems(k)
              if #ks == 1 and ks[1] == stem then review[#review + 1] = ("%q is already a keyword of %s"):format(word, other) end
            end
          end
        end
        if type(word) ~= "string" or #word < 3 or lex.STOP[word] or lex.GENERIC[word] then
          valid = false
          reasons[#reasons + 1] = ("%q names no topic"):format(tostring(word))
        end
      end
      local _, everyone = profile.roles_seeing(m.profile, { m.labels[a.label].audience })
      if valid and not everyone then
        review[#review + 1] = a.label .. " is for audience " .. tostring(m.labels[a.label].audience)
          .. ", which not every role sees: a person decides what routes to it"
      end
    end
  elseif c.type == "edge" then
    local x, y = m.nodes[a.from], m.nodes[a.to]
    if not x or not y then valid = false reasons[#reasons + 1] = "unknown node"
    elseif a.from == a.to then valid = false reasons[#reasons + 1] = "an edge to itself"
    else
      -- an edge between nodes different roles may see leads one role's
      -- traversal to the other's knowledge (traversal stays inside N_scope,
      -- but the ontology should not rely on that alone)
      local function seers(n)
        local auds = { n.audience }
        for _, l in ipairs(n.labels) do auds[#auds + 1] = m.labels[l] and m.labels[l].audience or "" end
        return table.concat((profile.roles_seeing(m.profile, auds)), ",")
      end
      if seers(x) ~= seers(y) then
        valid = false
        reasons[#reasons + 1] = "the edge would join nodes different roles may see (" .. tostring(x.audience) .. " -> "
          .. tostring(y.audience) .. ")"
      end
      if #x.out >= M.MAX_FANOUT then valid = false reasons[#reasons + 1] = a.from .. " has " .. #x.out .. " movement edges already" end
      for _, l in ipairs(x.labels) do if not label_ok(m, l, reasons) then valid = false end end
      for _, l in ipairs(y.labels) do if not label_ok(m, l, reasons) then valid = false end end
    end
  elseif c.type == "merge" then
    if not (m.nodes[a.keep] and m.nodes[a.retire]) then valid = false reasons[#reasons + 1] = "unknown node" end
    if not a.redirect then valid = false reasons[#reasons + 1] = "a merge must redirect the retired node" end
    review[#review + 1] = "merges need a person"
  elseif c.type == "deprecate" then
    valid = label_ok(m, a.label, reasons)
    -- memory continuity: episodes that used its nodes need somewhere to go
    local used = 0
    for _, e in ipairs(ds.episodes) do
      for _, n in ipairs(e.bundle) do if m.nodes[n] and has(m.nodes[n].labels, a.label) then used = used + 1 break end end
    end
    if used > 0 then
      local redirected = true
      for _, n in ipairs(m.labels[a.label] and m.labels[a.label].nodes or {}) do
        local r = false
        for _, e in ipairs(m.nodes[n].out) do if e.predicate == "redirects_to" then r = true end end
        if not r then redirected = false end
      end
      if not redirected then valid = false reasons[#reasons + 1] = used .. " episode(s) used its nodes and they have no redirect" end
    end
    review[#review + 1] = "deprecations need a person"
  elseif c.type == "registry_dedup" then
    review[#review + 1] = "registry merges need a person"
  else
    review[#review + 1] = "type " .. tostring(c.type) .. " is reviewed by a person"
  end
  if c.hook then review[#review + 1] = "proposed by a hook" end
  local s = c.scores or {}
  local outcome
  if not valid then outcome = "rejected"
  elseif (s.penalty_silent or 1) > M.MAX_SILENT then
    outcome = "needs_review"
    review[#review + 1] = ("weak-signal dominated (Penalty_silent %.2f > %.2f)"):format(s.penalty_silent or 1, M.MAX_SILENT)
  elseif #review > 0 or not M.AUTO[c.type] then outcome = "needs_review"
  elseif (s.gain_info_confirmed or 0) < M.MIN_EVIDENCE then outcome = "deferred"; reasons[#reasons + 1] = "not enough confirmed evidence yet"
  elseif s.replay and s.replay.regressed > 0 then
    outcome = "needs_review"
    review[#review + 1] = s.replay.regressed .. " other recorded request(s) would change route"
  elseif s.replay and s.replay.improved == 0 then
    outcome = "deferred"
    reasons[#reasons + 1] = "replay shows no improvement on its evidence"
  else outcome = "approved" end
  for _, r in ipairs(review) do reasons[#reasons + 1] = r end
  if outcome == "approved" then reasons[#reasons + 1] = "valid; confirmed evidence; replay improves and regresses nothing" end
  c.validation = { outcome = outcome, reasons = reasons }
  c.status = outcome
  return c
end

function M.run(m, candidates, ds)
  for _, c in ipairs(candidates) do M.check(m, c, ds) end
  return candidates
end

return M
