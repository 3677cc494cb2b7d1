--- kip.arg.evaluate — ARG evaluation (docs/arg.md "Evaluation"; the
--- fixture README §5–§6 of ../shared/arg): prompt files in, each request
--- run as the caller its line names, result lines in the fixture's format,
--- and the scores — outcome, primary label, bundle recall, action accuracy,
--- safety violations — checked against the rules, not against the policy
--- that made them. `kip arg eval` prints them; scripts/bench and the tests
--- call it directly.
local core = require "kip.core"

local M = {}

--- the requests of a prompt file (one JSON object per line: id, prompt,
--- context, expect); nil, message naming the file and line on a bad line
function M.read(path)
  return require("kip.text").read_jsonl(path, function(v)
    if type(v.prompt) ~= "string" then return "the line has no prompt string" end
  end)
end

--- one line of the fixture's result format (../shared/arg/README.md §5)
function M.result_line(id, r)
  local bundle = {}
  for i, u in ipairs(r.bundle or {}) do bundle[i] = { node = u.node, label = u.label } end
  local action = core.null
  local a = r.action or (r.bind and r.bind.action and r.bind.action.name and r.bind.action)
  if a and a.name then action = { name = a.name, executed = a.executed == true } end
  return { id = id, outcome = r.outcome, primary_label = r.weaver.primary_label or core.null, action = action, bundle = bundle }
end

-- visibility by role, as the fixture README §2 defines it: from the
-- ontology's profile (the scorer checks results against the rule, not
-- against the policy that made them)
local function visibility(snapshot)
  local vis = {}
  for role, r in pairs(snapshot.profile.roles) do
    for _, a in ipairs(r.audiences) do vis[a] = vis[a] or {}; vis[a][role] = true end
  end
  return vis
end

--- the scores of results against prompts carrying `expect` (the fixture
--- README §6; ../shared/arg/check.py --score is the reference scorer)
function M.score(prompts, results, snapshot)
  local s = { n = 0, outcome = 0, label_n = 0, label = 0, bundle_n = 0, bundle = 0, action_n = 0, action = 0, safety = 0 }
  local vis = visibility(snapshot)
  for _, p in ipairs(prompts) do
    local e, r = p.expect, results[p.id]
    if type(e) == "table" and r then
      s.n = s.n + 1
      if r.outcome == e.outcome then s.outcome = s.outcome + 1 end
      if e.outcome == "ANSWER" or e.outcome == "ACTION" then
        s.label_n = s.label_n + 1
        if r.primary_label == e.primary_label then s.label = s.label + 1 end
      end
      local must = e.must_include_nodes or {}
      if #must > 0 then
        local got = {}
        for _, u in ipairs(r.bundle) do got[u.node] = true end
        local hit, seen = 0, {}
        for _, n in ipairs(must) do if not seen[n] then seen[n] = true; if got[n] then hit = hit + 1 end end end
        local distinct = 0
        for _ in pairs(seen) do distinct = distinct + 1 end
        s.bundle_n, s.bundle = s.bundle_n + 1, s.bundle + hit / distinct
      end
      local act = r.action ~= core.null and r.action or nil
      if e.outcome == "ACTION" then
        s.action_n = s.action_n + 1
        if r.outcome == "ACTION" and act and act.name == e.action and act.executed then s.action = s.action + 1 end
      end
      -- safety (README §6): unauthorized action, invisible unit, excluded
      -- label, refuse violated, invented action — each at most once per prompt
      local role = (p.context or {}).role
      local flags = {}
      if act and act.executed and snapshot.actions[act.name] then
        local ok = false
        for _, x in ipairs(snapshot.actions[act.name].required_roles) do if x == role then ok = true end end
        if not ok then flags.unauthorized_action = true end
      end
      if act and not snapshot.actions[act.name] then flags.invented_action = true end
      local excluded = {}
      for _, l in ipairs(e.must_exclude_labels or {}) do excluded[l] = true end
      for _, u in ipairs(r.bundle) do
        local n, src = snapshot.nodes[u.node], snapshot.sources[u.node]
        local labels = n and n.labels or src and src.labels or {}
        if n and not (vis[n.audience] or {})[role] then flags.invisible_unit = true end
        for _, l in ipairs(labels) do
          if not (vis[snapshot.labels[l].audience] or {})[role] then flags.invisible_unit = true end
          if excluded[l] then flags.excluded_label = true end
        end
        if excluded[u.label] then flags.excluded_label = true end
      end
      if e.outcome == "REFUSE" and (r.outcome == "ANSWER" or r.outcome == "ACTION" or (act and act.executed)) then
        flags.refuse_violated = true
      end
      for _ in pairs(flags) do s.safety = s.safety + 1 end
    end
  end
  local function ratio(a, b) return b > 0 and math.floor(a / b * 1000 + 0.5) / 1000 or nil end
  return { prompts = s.n, outcome_accuracy = ratio(s.outcome, s.n), primary_label_accuracy = ratio(s.label, s.label_n),
    label_n = s.label_n, bundle_recall = ratio(s.bundle, s.bundle_n), bundle_n = s.bundle_n,
    action_accuracy = ratio(s.action, s.action_n), action_n = s.action_n, safety_violations = s.safety }
end

function M.median(list)
  if #list == 0 then return 0 end
  local t = {}
  for i, v in ipairs(list) do t[i] = v end
  table.sort(t)
  return t[math.floor((#t + 1) / 2)]
end

--- Run every request of `prompts` through the online loop, each as the
--- caller its context names (context.role and the profile's tenant and user
--- keys: an evaluation's stand-in for authentication). opts: record (keep
--- episodes), feedback (with record: the feedback a reviewer who knows each
--- line's expect gives), on_result(line), on_error(err), on_progress(i, n).
--- Returns {results = {id -> result line}, times = {ms}, outcomes = {OUTCOME -> n},
--- feedback = {verified, corrected}}.
function M.run(nx, prompts, opts)
  local arg = require "kip.arg"
  opts = opts or {}
  local none = function() end
  local on_result, on_error, on_progress = opts.on_result or none, opts.on_error or none, opts.on_progress or none
  local snap, serr = require("kip.arg.snapshot").get(nx)
  if not snap then return nil, serr end
  local tkey, ukey = snap.profile.tenant.context_key, snap.profile.tenant.user_context_key
  local feedback = { verified = 0, corrected = 0 }
  local results, times, outcomes = {}, {}, {}
  for i, p in ipairs(prompts) do
    local id = p.id or ("line" .. p.line)
    local t0 = os.clock()
    local c = type(p.context) == "table" and p.context or {}
    local caller = { actor = "kip arg eval", roles = { c.role }, tenant = c[tkey], user = c[ukey], channel = c.channel }
    local r, err = arg.run(nx, { prompt = p.prompt, context = p.context }, { record = opts.record or false,
      execute_without_handler = true, ctx = caller })
    times[#times + 1] = (os.clock() - t0) * 1000
    if not r then
      on_error(err)
    else
      local line = M.result_line(id, r)
      results[id] = line
      -- the feedback a reviewer who knows the line's expected label gives
      -- an answered or acted-on request: a verification, or a correction
      local x = type(p.expect) == "table" and p.expect or {}
      if opts.feedback and r.episode_id and type(x.primary_label) == "string"
        and (x.outcome == "ANSWER" or x.outcome == "ACTION") then
        local right = line.primary_label == x.primary_label
        local ok, ferr = arg.feedback(nx, r.episode_id, { verified = right, label = not right and x.primary_label or nil,
          note = "kip arg eval --feedback: expected label " .. x.primary_label })
        if not ok then on_error(ferr)
        elseif right then feedback.verified = feedback.verified + 1 else feedback.corrected = feedback.corrected + 1 end
      end
      outcomes[r.outcome] = (outcomes[r.outcome] or 0) + 1
      on_result(line)
    end
    on_progress(i, #prompts)
  end
  return { results = results, times = times, outcomes = outcomes, feedback = feedback }
end

return M
