--- Phase 2 — SleepTasks (SystemInstructions.md Phase 2; seed 001 "Handoff
--- Protocol"; docs/sleep.md rule 1). A task is processed when it is pending
--- (or in_progress: claimed by a cycle that did not finish it) and
--- assigned_to $system. Malformed tasks (unknown action, missing target
--- fields, a target that does not exist or is protected) end `failed` with
--- the reason in `result`; valid ones are claimed (`in_progress`), carried
--- out by the same rules as the other phases, and end `completed` in the
--- same transaction as their writes — or, when any write is refused,
--- `failed` with the refusal and nothing of them applied. Tasks that need
--- judgment (review, compile_to_skill, or no rule evidence) stay pending and
--- are reported — unless the `task` hook takes them. Entries of
--- $self.attributes.pending_for_sleep ("Type:name", or {target_type,
--- target_name, requested_action?, reason?}) become review tasks (once
--- each; $self itself is never modified). merge_domain merges a small
--- Domain into target_domain (default: its parent; phases/domains.lua).
--- After a task the snapshot is
--- refreshed for what it touched only, not read again whole.
local snapshot = require "kip.sleep.snapshot"
local rules = require "kip.sleep.rules"
local events = require "kip.sleep.phases.events"
local contradictions = require "kip.sleep.phases.contradictions"
local domains = require "kip.sleep.phases.domains"

local M = { name = "tasks", title = "SleepTasks" }

M.ACTIONS = { consolidate_to_semantic = true, compile_to_skill = true, archive = true, merge_duplicates = true,
  reclassify = true, review = true, resolve_contradiction = true, merge_domain = true }

local function finish(c, task, status, result)
  local sets = { "status: :st", "result: :r" }
  local params = { st = status, r = result, now = c.now }
  sets[#sets + 1] = (status == "completed" and "completed_at" or "failed_at") .. ": :now"
  rules.set_attributes(c, task, sets, params, "SleepTask " .. task.name .. " " .. status)
end

-- the concepts a task's writes touch: the task, the target and what it
-- merges into with their links; the target's neighbours (only their own
-- rows: the links between them and the target are re-read from its side)
local function touched(s, task, target)
  local keys, seen = {}, {}
  local function add(e, shallow)
    if e and e.type and not seen[e.id] then
      seen[e.id] = true
      keys[#keys + 1] = { e.type, e.name, shallow = shallow }
    end
  end
  add(task)
  add(target)
  local into = task.attributes.merge_into
  if type(into) == "string" then add(s:get(target.type, into)) end
  if task.attributes.requested_action == "merge_domain" and target.type == "Domain" then
    for _, k in ipairs(domains.touched(s, target, task.attributes.target_domain or domains.parent(s, target))) do
      add(s:get(k[1], k[2]), k.shallow)
    end
  end
  for _, l in ipairs(s:links_from(target.id)) do add(s.by_id[l.object], true) end
  for _, l in ipairs(s:links_to(target.id)) do add(s.by_id[l.subject], true) end
  return keys
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
      { t = target.type, a = target.name, b = into.name }, "task " .. task.name,
      { concepts = { { target.type, target.name }, { into.type, into.name } } })
    return "completed", "merged into " .. into.name
  elseif action == "merge_domain" then
    if target.type ~= "Domain" then return nil, "the target is not a Domain" end
    local into = type(a.target_domain) == "string" and a.target_domain or domains.parent(s, target)
    local ok, why = domains.merge(c, s, target, into, "task " .. task.name)
    if not ok then error(why, 0) end
    return "completed", "merged into " .. into
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

-- carry out a valid task in one transaction with its completion: claimed
-- first (in_progress), then its writes and `completed` commit together, or
-- it ends `failed` with the refusal and nothing applied
local function run_task(c, s, task, target)
  c:begin_batch()
  local nplanned = #c.planned
  local ok, status, result = pcall(carry_out, c, s, task, target)
  local batch = c.batch
  c.batch = nil
  if not ok then
    finish(c, task, "failed", "error: " .. tostring(status))
    return "failed"
  end
  if not status then -- needs judgment: nothing was sent, nothing is claimed
    for i = #c.planned, nplanned + 1, -1 do table.remove(c.planned, i) end
    return nil, result
  end
  -- claimed (a crash from here on leaves it in_progress: the next cycle takes it again)
  rules.set_attributes(c, task, { 'status: "in_progress"', "claimed_at: :now" }, { now = c.now }, "claim SleepTask " .. task.name)
  c.batch = batch
  finish(c, task, status, result)
  local keys = touched(s, task, target)
  local committed, err = c:commit_batch()
  if not committed then
    finish(c, task, "failed", ("refused, nothing applied: %s %s"):format(err.code or "", err.message or ""))
    c:flag(snapshot.label(task), "failed: " .. tostring(err.message), "SleepTask refused: failed, nothing applied")
    return "failed"
  end
  if not c.dry_run then s:refresh(c, keys) end
  return "completed"
end

-- $self's pending_for_sleep entries as review tasks (deterministic names:
-- an entry becomes one task, whatever happens to it later)
local function pending_for_sleep(c, s)
  local me = s:get("Person", "$self")
  local list = me and (me.attributes or {}).pending_for_sleep
  if type(list) ~= "table" then return 0 end
  local made = 0
  for _, item in ipairs(list) do
    local t, n, action, reason
    if type(item) == "string" then t, n = item:match("^([^:]+):(.+)$")
    elseif type(item) == "table" then t, n, action, reason = item.target_type, item.target_name, item.requested_action, item.reason end
    if type(t) ~= "string" or type(n) ~= "string" then
      c:flag("Person:$self", ("pending_for_sleep entry %s is neither \"Type:name\" nor {target_type, target_name}"):format(
        require("kip.core").json_encode(item)))
    else
      action = M.ACTIONS[action] and action or "review"
      local name = ("SleepTask:pending:%s:%s:%s"):format(action, t, n)
      if not s:get("SleepTask", name) then
        made = made + 1
        c:write([[UPSERT { CONCEPT ?t { {type: "SleepTask", name: :name}
  SET ATTRIBUTES { target_type: :tt, target_name: :tn, requested_action: :act, reason: :why, status: "pending", priority: 1 }
  SET PROPOSITIONS { ("assigned_to", {type: "Person", name: "$system"}) ("created_by", {type: "Person", name: "$self"})
    ("belongs_to_domain", {type: "Domain", name: "System"}) } } }
WITH METADATA { source: "pending_for_sleep", author: "$system", created_at: :now }]],
          { name = name, tt = t, tn = n, act = action, why = type(reason) == "string" and reason or "flagged by $self for sleep (pending_for_sleep)",
            now = c.now }, "pending_for_sleep " .. t .. ":" .. n)
      end
    end
  end
  if made > 0 and not c.dry_run then return made, true end
  return made
end

function M.run(c)
  local s = snapshot.take(c)
  local n = { processed = 0, completed = 0, failed = 0, pending = 0 }
  -- an incremental cycle runs only while the SleepTasks left pending and
  -- their targets are unchanged (kip.sleep.delta): their outcome stands
  if s.partial then return n end
  local made, wrote = pending_for_sleep(c, s)
  if made > 0 then n.from_pending_for_sleep = made end
  if wrote then s = snapshot.take(c) end
  local tasks = {}
  for _, e in ipairs(s.concepts) do
    local st = (e.attributes or {}).status
    if e.type == "SleepTask" and (st == "pending" or st == "in_progress") and assigned_to_system(s, e) then tasks[#tasks + 1] = e end
  end
  table.sort(tasks, function(x, y)
    local px, py = tonumber(x.attributes.priority) or 0, tonumber(y.attributes.priority) or 0
    if px ~= py then return px > py end
    return x.name < y.name
  end)
  for _, task in ipairs(tasks) do
    task = s:get(task.type, task.name) or task -- as refreshed by the tasks before it
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
      local status, why = run_task(c, s, task, target)
      if status then
        n[status] = n[status] + 1
      elseif c.hooks.task then
        local hok, herr = pcall(c.hooks.task, c, task, target, s)
        if not hok then c:flag(snapshot.label(task), "the task hook failed: " .. tostring(herr), "the task hook failed") end
      else
        n.pending = n.pending + 1
        c:flag(snapshot.label(task), "left pending: " .. why, "SleepTask left pending: needs judgment")
      end
    end
    ::next_task::
  end
  return n
end

return M
