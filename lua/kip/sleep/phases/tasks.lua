--- Phase 2 — SleepTasks (SystemInstructions.md Phase 2; docs/sleep.md rule
--- 1). A task is processed when it is pending and assigned_to $system.
--- Malformed tasks (unknown action, missing target fields, a target that
--- does not exist or is protected) end `failed` with the reason in
--- `result`; valid ones are carried out by the same rules as the other
--- phases and end `completed`; tasks that need judgment (review,
--- compile_to_skill, or no rule evidence) stay pending and are reported —
--- unless the `task` hook takes them. A malformed task never stops the cycle.
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"
local events = require "kip.sleep.phases.events"
local contradictions = require "kip.sleep.phases.contradictions"

local M = { name = "tasks", title = "SleepTasks" }

M.ACTIONS = { consolidate_to_semantic = true, compile_to_skill = true, archive = true, merge_duplicates = true,
  reclassify = true, review = true, resolve_contradiction = true }

local function finish(c, task, status, result)
  local sets = { "status: :st", "result: :r" }
  local params = { st = status, r = result, now = c.now }
  sets[#sets + 1] = (status == "completed" and "completed_at" or "failed_at") .. ": :now"
  rules.set_attributes(c, task, sets, params, "SleepTask " .. task.name .. " " .. status)
end

local function assigned_to_system(s, task)
  for _, l in ipairs(s:links_from(task.id, "assigned_to")) do
    local p = s.by_id[l.object]
    if p and p.type == "Person" and p.name == "$system" then return true end
  end
  return false
end

-- a merge_duplicates task whose merge already happened (a rerun after a
-- crash between the MERGE and the task's completion)
local function merged_already(s, a)
  local into = type(a.merge_into) == "string" and type(a.target_type) == "string" and s:get(a.target_type, a.merge_into)
  local from = into and (into.metadata or {})._merged_from
  if type(from) ~= "table" then return false end
  for _, x in ipairs(from) do if x == a.target_type .. ":" .. tostring(a.target_name) then return true end end
  return false
end

-- carry out a valid task: returns "completed", result | nil, why-pending
local function carry_out(c, s, task, target)
  local a = task.attributes
  local action = a.requested_action
  if action == "reclassify" then
    local d = a.target_domain
    local dom = type(d) == "string" and s:get("Domain", d)
    local how = "target_domain"
    if not dom then
      d, how = rules.classify(s, target)
      if not d then return nil, "no target_domain and no rule decides a Domain" end
    end
    rules.move_to_domain(c, s, target, d, "SleepReclassification", "task " .. task.name)
    return "completed", ("moved to %s (%s)"):format(d, how)
  elseif action == "archive" then
    rules.archive(c, s, target, "task " .. task.name)
    return "completed", "archived"
  elseif action == "merge_duplicates" then
    local into = type(a.merge_into) == "string" and s:get(target.type, a.merge_into)
    if not into then return nil, "merge_into does not name an existing " .. target.type end
    if rules.protected(s, into) then return nil, "merge_into is protected" end
    c:write("MERGE CONCEPT ?dup INTO ?keep WHERE { ?dup {type: :t, name: :a} ?keep {type: :t, name: :b} }",
      { t = target.type, a = target.name, b = into.name }, "task " .. task.name)
    return "completed", "merged into " .. into.name
  elseif action == "consolidate_to_semantic" then
    if target.type ~= "Event" then return nil, "the target is not an Event" end
    local anchors = events.anchors(s, target)
    if #anchors == 0 then return nil, "the Event has no semantic anchor" end
    events.consolidate(c, s, target, anchors, "task " .. task.name)
    return "completed", "consolidated to " .. #anchors .. " anchor(s)"
  elseif action == "resolve_contradiction" then
    local resolved, undecided = contradictions.resolve(c, s, { [target.id] = true })
    if resolved == 0 and undecided > 0 then return nil, "the conflict has no strictly newest link" end
    -- the result names the end state, so a rerun after a crash says the same
    return "completed", "no live conflict remains on the target: older values are superseded"
  end
  return nil, action .. " needs judgment"
end

function M.run(c)
  local s = snapshot.take(c)
  local n = { processed = 0, completed = 0, failed = 0, pending = 0 }
  local tasks = {}
  for _, e in ipairs(s.concepts) do
    if e.type == "SleepTask" and (e.attributes or {}).status == "pending" and assigned_to_system(s, e) then tasks[#tasks + 1] = e end
  end
  table.sort(tasks, function(x, y)
    local px, py = tonumber(x.attributes.priority) or 0, tonumber(y.attributes.priority) or 0
    if px ~= py then return px > py end
    return x.name < y.name
  end)
  for _, task in ipairs(tasks) do
    n.processed = n.processed + 1
    local a = task.attributes
    local target = type(a.target_type) == "string" and type(a.target_name) == "string" and s:get(a.target_type, a.target_name)
    local malformed
    if not target and a.requested_action == "merge_duplicates" and merged_already(s, a) then
      finish(c, task, "completed", "merged into " .. a.merge_into)
      n.completed = n.completed + 1
      goto next_task
    end
    if not M.ACTIONS[a.requested_action] then malformed = ("unknown requested_action %q"):format(tostring(a.requested_action))
    elseif type(a.target_type) ~= "string" or type(a.target_name) ~= "string" then malformed = "target_type or target_name is missing"
    elseif not target then malformed = ("the target %s:%s does not exist"):format(a.target_type, a.target_name)
    elseif rules.protected(s, target) then malformed = ("the target %s:%s is protected"):format(a.target_type, a.target_name) end
    if malformed then
      finish(c, task, "failed", malformed)
      n.failed = n.failed + 1
    else
      local ok, status, result = pcall(carry_out, c, s, task, target)
      if not ok then
        finish(c, task, "failed", "error: " .. tostring(status))
        n.failed = n.failed + 1
      elseif status then
        finish(c, task, status, result)
        n.completed = n.completed + 1
        s = snapshot.take(c) -- later tasks see this one's effects
      elseif c.hooks.task then
        local hok, herr = pcall(c.hooks.task, c, task, target, s)
        if not hok then c:flag(snapshot.label(task), "the task hook failed: " .. tostring(herr)) end
      else
        n.pending = n.pending + 1
        c:flag(snapshot.label(task), "left pending: " .. result)
      end
    end
    ::next_task::
  end
  return n
end

return M
