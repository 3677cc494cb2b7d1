-- busted specs for the $system sleep cycle (docs/sleep.md): each phase on a
-- small graph, the hook and no-hook paths, failing hooks, dry runs,
-- idempotency, and governance (the cycle's writes pass the policies).
local kip = require "kip"
local sleep = require "kip.sleep"

local H = dofile((debug.getinfo(1, "S").source:sub(2):match("^(.*)/") or ".") .. "/helpers.lua")

local NOW = "2026-11-20T00:00:00Z"

local SCHEMA = [[
UPSERT {
  CONCEPT ?n { {type: "$ConceptType", name: "Note"} }
  CONCEPT ?pl { {type: "$ConceptType", name: "Place"} }
  CONCEPT ?li { {type: "$PropositionType", name: "lives_in"} SET ATTRIBUTES { is_functional: true } }
  CONCEPT ?kn { {type: "$PropositionType", name: "knows"} }
  CONCEPT ?f { {type: "Domain", name: "Finance"} SET ATTRIBUTES { description: "money", aliases: ["money", "budget"] } }
  CONCEPT ?h { {type: "Domain", name: "Health"} SET ATTRIBUTES { description: "health" } }
} WITH METADATA { source: "spec", author: "spec" }]]

local function run(nx, opts)
  opts = opts or {}
  opts.now = opts.now or NOW
  return sleep.run(nx, opts)
end

local function domains(nx, t, n)
  local r = nx:execute('FIND(?d.name) WHERE { ?x {type: :t, name: :n} (?x, "belongs_to_domain", ?d) } ORDER BY ?d.name',
    { t = t, n = n })
  return r.result or {}
end

local function attr(nx, t, n, k)
  local r = nx:execute("FIND(?x.attributes) WHERE { ?x {type: :t, name: :n} }", { t = t, n = n })
  return r.result[1] and r.result[1][k]
end

local function flagged(report, pattern)
  for _, f in ipairs(report.flagged or {}) do
    if (f.name .. " " .. f.reason):find(pattern) then return f end
  end
end

local function write(nx, cmd, params)
  local r = nx:execute(cmd, params)
  assert(not r.error, r.error and r.error.message)
  return r
end

-- UPSERT clauses of n Notes "<prefix> 1".."<prefix> n", in Unsorted when
-- `inbox`, else in no Domain
local function notes(prefix, n, inbox)
  local parts = {}
  for i = 1, n do
    parts[i] = ('CONCEPT ?%s%d { {type: "Note", name: "%s %d"} %s }'):format(prefix:sub(1, 1), i, prefix, i, inbox
      and 'SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) }' or "")
  end
  return table.concat(parts, "\n")
end

describe("sleep cycle", function()
  local nx = H.fresh_nexus(before_each, after_each, { embedder = false })
  before_each(function() write(nx(), SCHEMA) end)

  describe("SleepTasks", function()
    local function task(name, attrs, assigned)
      local sets = {}
      for k, v in pairs(attrs) do sets[#sets + 1] = k .. ": " .. require("kip.core").json_encode(v) end
      write(nx(), ([[UPSERT { CONCEPT ?t { {type: "SleepTask", name: :n} SET ATTRIBUTES { %s }
        SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) %s } } }
        WITH METADATA { source: "spec", author: "$self" }]]):format(table.concat(sets, ", "),
        assigned == false and "" or '("assigned_to", {type: "Person", name: "$system"})'), { n = name })
    end

    it("fails malformed tasks with a reason and carries out valid ones", function()
      write(nx(), [[UPSERT { CONCEPT ?x { {type: "Note", name: "Invoice"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } } }
        WITH METADATA { source: "spec", author: "spec" }]])
      task("t-bad-action", { target_type = "Note", target_name = "Invoice", requested_action = "defragment", status = "pending", reason = "x" })
      task("t-missing", { target_type = "Note", target_name = "Nope", requested_action = "archive", status = "pending", reason = "x" })
      task("t-protected", { target_type = "Person", target_name = "$system", requested_action = "archive", status = "pending", reason = "x" })
      task("t-move", { target_type = "Note", target_name = "Invoice", requested_action = "reclassify", target_domain = "Finance",
        status = "pending", reason = "x" })
      task("t-review", { target_type = "Note", target_name = "Invoice", requested_action = "review", status = "pending", reason = "x" })
      task("t-other", { target_type = "Note", target_name = "Invoice", requested_action = "archive", status = "pending", reason = "x" }, false)
      local report = run(nx(), { phases = { "tasks" } })
      assert.equal("failed", attr(nx(), "SleepTask", "t-bad-action", "status"))
      assert.matches("defragment", attr(nx(), "SleepTask", "t-bad-action", "result"))
      assert.equal("failed", attr(nx(), "SleepTask", "t-missing", "status"))
      assert.equal("failed", attr(nx(), "SleepTask", "t-protected", "status"))
      assert.matches("protected", attr(nx(), "SleepTask", "t-protected", "result"))
      assert.equal("completed", attr(nx(), "SleepTask", "t-move", "status"))
      assert.same({ "Finance" }, domains(nx(), "Note", "Invoice"))
      assert.equal("pending", attr(nx(), "SleepTask", "t-review", "status"))
      assert.truthy(flagged(report, "t%-review"))
      assert.equal("pending", attr(nx(), "SleepTask", "t-other", "status")) -- not for $system: left alone
    end)

    it("completes a task only when all its writes commit together; a refused one fails with nothing applied", function()
      write(nx(), [[UPSERT { CONCEPT ?x { {type: "Note", name: "Invoice"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Finance"}) } } }
        WITH METADATA { source: "spec", author: "spec" }]])
      task("t-archive", { target_type = "Note", target_name = "Invoice", requested_action = "archive", status = "pending", reason = "x" })
      -- a policy refuses the task's last write (the status), after its first (the Archived link) would have run
      local dir = os.tmpname()
      os.remove(dir)
      os.execute("mkdir -p " .. dir)
      local f = assert(io.open(dir .. "/no_archive.lua", "w"))
      f:write([[return kip.policy { name = "no_archive", pre_check = function(req)
        if (req.command or ""):find('status: "archived"', 1, true) then return { state = "BLOCK", reasons = { "no archiving today" } } end
      end }]])
      f:close()
      local governed = assert(kip.open { path = nx().path, policies = { "default", "no_archive" }, policy_dirs = { dir }, embedder = false })
      local report = run(governed, { phases = { "tasks" } })
      governed:close()
      os.execute("rm -rf " .. dir)
      assert.equal("failed", attr(nx(), "SleepTask", "t-archive", "status"))
      assert.matches("no archiving today", attr(nx(), "SleepTask", "t-archive", "result"))
      assert.same({ "Finance" }, domains(nx(), "Note", "Invoice")) -- the Archived link was not applied either
      assert.equal(1, report.phases[1].counts.failed)
    end)

    it("runs seed 001's handoff template verbatim, and reclaims a task a crashed cycle left in_progress", function()
      write(nx(), [[UPSERT { CONCEPT ?x { {type: "Event", name: "ConversationEvent:2025-01-15:user123"} } }
        WITH METADATA { source: "spec", author: "spec" }]])
      write(nx(), [[UPSERT {
CONCEPT ?task {
{type: "SleepTask", name: :task_name} // e.g., "sleep:2025-01-15:consolidate:event123"
SET ATTRIBUTES {
target_type: "Event",
target_name: "ConversationEvent:2025-01-15:user123",
requested_action: "consolidate_to_semantic",
reason: "Multiple preferences mentioned, needs careful extraction",
status: "pending",
priority: 1
}
SET PROPOSITIONS {
("assigned_to", {type: "Person", name: "$system"}),
("created_by", {type: "Person", name: "$self"})
}
}
}
WITH METADATA { source: "WakingMaintenance", author: "$self", confidence: 1.0 }]], { task_name = "sleep:2025-01-15:consolidate:event123" })
      task("t-claimed", { target_type = "Event", target_name = "ConversationEvent:2025-01-15:user123", requested_action = "archive",
        status = "in_progress", reason = "a crashed cycle claimed it" })
      run(nx(), { phases = { "tasks" } })
      assert.equal("completed", attr(nx(), "SleepTask", "t-claimed", "status"))
    end)

    it("turns $self's pending_for_sleep entries into review tasks once, without touching $self", function()
      write(nx(), [[UPSERT { CONCEPT ?x { {type: "Note", name: "Blue folder"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } } }
        WITH METADATA { source: "spec", author: "spec" }]])
      write(nx(), [[UPDATE ?s SET ATTRIBUTES { pending_for_sleep: ["Note:Blue folder", {target_type: "Note", target_name: "Blue folder",
        requested_action: "reclassify", reason: "probably Finance"}, 42] } WHERE { ?s {type: "Person", name: "$self"} }]])
      local v0 = nx():execute('FIND(?s.metadata._version) WHERE { ?s {type: "Person", name: "$self"} }').result[1]
      local report = run(nx(), { phases = { "tasks" } })
      assert.equal(2, report.phases[1].counts.from_pending_for_sleep)
      assert.equal("pending", attr(nx(), "SleepTask", "SleepTask:pending:review:Note:Blue folder", "status"))
      assert.truthy(flagged(report, "pending_for_sleep entry 42"))
      assert.equal(v0, nx():execute('FIND(?s.metadata._version) WHERE { ?s {type: "Person", name: "$self"} }').result[1])
      report = run(nx(), { phases = { "tasks" } })
      assert.is_nil(report.phases[1].counts.from_pending_for_sleep) -- once
    end)

    it("hands tasks that need judgment to the task hook; a failing hook is reported, the cycle goes on", function()
      write(nx(), [[UPSERT { CONCEPT ?x { {type: "Note", name: "N"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Finance"}) } } }
        WITH METADATA { source: "spec", author: "spec" }]])
      task("t-review", { target_type = "Note", target_name = "N", requested_action = "review", status = "pending", reason = "x" })
      local seen
      run(nx(), { phases = { "tasks" }, hooks = { task = function(c, t) seen = t.name end } })
      assert.equal("t-review", seen)
      local report = run(nx(), { phases = { "tasks", "orphans" }, hooks = { task = function() error("model down") end } })
      assert.truthy(flagged(report, "model down"))
      assert.equal(2, #report.phases)
    end)
  end)

  describe("classification", function()
    it("moves Unsorted items by the tag and neighbour rules and reports the rest", function()
      write(nx(), [[
UPSERT { CONCEPT ?a { {type: "Note", name: "Tagged"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } } }
WITH METADATA { source: "spec", author: "spec", relevance_tags: ["Budget"] }
UPSERT { CONCEPT ?b { {type: "Note", name: "Conflicting"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } } }
WITH METADATA { source: "spec", author: "spec", relevance_tags: ["money", "health"] }
UPSERT {
  CONCEPT ?p1 { {type: "Person", name: "Ann"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?p2 { {type: "Person", name: "Bo"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?c { {type: "Note", name: "Neighbourly"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) ("knows", ?p1) ("knows", ?p2) } }
} WITH METADATA { source: "spec", author: "spec" }]])
      local report = run(nx(), { phases = { "unsorted" } })
      assert.same({ "Finance" }, domains(nx(), "Note", "Tagged"))
      assert.same({ "Health" }, domains(nx(), "Note", "Neighbourly"))
      assert.same({ "Unsorted" }, domains(nx(), "Note", "Conflicting"))
      assert.truthy(flagged(report, "Conflicting"))
    end)

    it("asks the classify hook about what no rule decides", function()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Vague"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } } }
        WITH METADATA { source: "spec", author: "spec" }]])
      run(nx(), { phases = { "unsorted" }, hooks = { classify = function(c, e) return "Health" end } })
      assert.same({ "Health" }, domains(nx(), "Note", "Vague"))
    end)

    it("gives orphans their decided Domain or Unsorted", function()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Lost"} } } WITH METADATA { source: "spec", author: "spec" }
UPSERT { CONCEPT ?b { {type: "Note", name: "Lost money"} } } WITH METADATA { source: "spec", author: "spec", relevance_tags: ["finance"] }]])
      run(nx(), { phases = { "orphans" } })
      assert.same({ "Unsorted" }, domains(nx(), "Note", "Lost"))
      assert.same({ "Finance" }, domains(nx(), "Note", "Lost money"))
    end)
  end)

  describe("stale Events", function()
    local function event(name, attrs)
      local sets = { 'start_time: "2026-10-01T10:00:00Z"', 'consolidation_status: "pending"' }
      for k, v in pairs(attrs or {}) do sets[#sets + 1] = k .. ": " .. require("kip.core").json_encode(v) end
      write(nx(), ([[UPSERT { CONCEPT ?e { {type: "Event", name: :n} SET ATTRIBUTES { %s }
        SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } } WITH METADATA { source: "spec", author: "spec" }]])
        :format(table.concat(sets, ", ")), { n = name })
    end

    it("consolidates anchored Events, archives trivial ones, keeps landmarks and reports the rest", function()
      event("anchored")
      write(nx(), [[UPSERT { CONCEPT ?p { {type: "Preference", name: "Tea"} SET ATTRIBUTES { description: "likes tea" }
        SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) ("derived_from", {type: "Event", name: "anchored"}) } } }
        WITH METADATA { source: "spec", author: "spec" }]])
      event("trivial", { salience_score = 5 })
      event("landmark", { salience_score = 95 })
      event("ordinary", { salience_score = 50 })
      local report = run(nx(), { phases = { "events" } })
      assert.equal("completed", attr(nx(), "Event", "anchored", "consolidation_status"))
      local r = nx():execute('FIND(?p.name) WHERE { (?e, "consolidated_to", ?p) ?e {type: "Event", name: "anchored"} }')
      assert.same({ "Tea" }, r.result)
      assert.equal("archived", attr(nx(), "Event", "trivial", "consolidation_status"))
      assert.same({ "Archived" }, domains(nx(), "Event", "trivial"))
      assert.equal("pending", attr(nx(), "Event", "landmark", "consolidation_status"))
      assert.truthy(flagged(report, "landmark"))
      assert.truthy(flagged(report, "ordinary.*judgment"))
    end)

    it("lets the consolidate hook take what rules cannot decide", function()
      event("ordinary", { salience_score = 50 })
      local got
      run(nx(), { phases = { "events" }, hooks = { consolidate = function(c, ev) got = ev.name end } })
      assert.equal("ordinary", got)
    end)
  end)

  describe("duplicates and contradictions", function()
    it("merges normalised-name twins that agree, keeps conflicting ones", function()
      write(nx(), [[UPSERT {
  CONCEPT ?a { {type: "Place", name: "Malmö Central"} SET ATTRIBUTES { city: "Malmö" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?b { {type: "Place", name: "malmo central"} SET ATTRIBUTES { city: "malmo" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?c { {type: "Person", name: "Sam Reed"} SET ATTRIBUTES { email: "a@x" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?d { {type: "Person", name: "sam reed"} SET ATTRIBUTES { email: "b@x" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
} WITH METADATA { source: "spec", author: "spec" }]])
      local report = run(nx(), { phases = { "duplicates" } })
      local r = nx():execute('FIND(?p.name, ?p.metadata._merged_from) WHERE { ?p {type: "Place"} }')
      assert.equal(1, #r.result[1])
      assert.equal(1, #r.result[2][1])
      assert.equal(2, #nx():execute('FIND(?p.name) WHERE { ?p {type: "Person", name: :n} }', { n = "Sam Reed" }).result
        + #nx():execute('FIND(?p.name) WHERE { ?p {type: "Person", name: :n} }', { n = "sam reed" }).result)
      assert.truthy(flagged(report, "conflicting attribute email"))
    end)

    it("probes for semantic near-duplicates as a sweep: a bounded number per cycle, continued by the next", function()
      local duplicates = require "kip.sleep.phases.duplicates"
      local path = H.tmpdb()
      local v = kip.open { path = path } -- with the local embedder
      write(v, SCHEMA)
      write(v, [[UPSERT {
  CONCEPT ?a { {type: "Note", name: "coffee with milk"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?b { {type: "Note", name: "milk with coffee"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?c { {type: "Note", name: "mountain bike repair"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?d { {type: "Note", name: "repair mountain bike"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
} WITH METADATA { source: "spec", author: "spec" }]])
      assert.is_true(v:reindex_vectors {})
      local probes = duplicates.SEMANTIC_PROBES
      duplicates.SEMANTIC_PROBES = 2
      local found, cursors = {}, {}
      local ok, err = pcall(function()
        for day = 1, 9 do
          local report = run(v, { now = ("2026-11-%02dT00:00:00Z"):format(day), phases = { "duplicates", "finalize" } })
          assert.truthy(flagged(report, "per%-cycle budget"))
          for _, f in ipairs(report.flagged) do
            if f.reason:find("possible duplicate of", 1, true) then found[f.name:match("Note:(.*)") .. " / " .. f.reason:match("Note:([^%(]*) %(")] = true end
          end
          local rec = v:execute('FIND(?r.attributes.sweeps) WHERE { ?r {type: "SleepCycle", name: :n} }',
            { n = ("SleepCycle:2026-11-%02dT00:00:00Z"):format(day) }).result[1]
          cursors[#cursors + 1] = rec.semantic_duplicates
        end
      end)
      duplicates.SEMANTIC_PROBES = probes
      v:close()
      H.cleanup(path)
      assert(ok, err)
      assert.is_string(cursors[1])
      assert.are_not.equal(cursors[1], cursors[2]) -- the next cycle went on where the last stopped
      local pairs_found = {}
      for k in pairs(found) do
        local a, b = k:match("^(.-) / (.-)$")
        pairs_found[a < b and (a .. " / " .. b) or (b .. " / " .. a)] = true
      end
      assert.truthy(pairs_found["coffee with milk / milk with coffee"])
      assert.truthy(pairs_found["mountain bike repair / repair mountain bike"])
    end)

    it("supersedes the older of two live single-valued facts, reports ties", function()
      write(nx(), [[UPSERT {
  CONCEPT ?x { {type: "Place", name: "Oslo"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?y { {type: "Place", name: "Bergen"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?p { {type: "Person", name: "Kim"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?q { {type: "Person", name: "Lu"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
} WITH METADATA { source: "spec", author: "spec" }
UPSERT { PROPOSITION ?a { ({type: "Person", name: "Kim"}, "lives_in", {type: "Place", name: "Oslo"}) } } WITH METADATA { source: "s", author: "s", valid_from: "2020-01-01" }
UPSERT { PROPOSITION ?b { ({type: "Person", name: "Kim"}, "lives_in", {type: "Place", name: "Bergen"}) } } WITH METADATA { source: "s", author: "s", valid_from: "2024-01-01" }
UPSERT { PROPOSITION ?c { ({type: "Person", name: "Lu"}, "lives_in", {type: "Place", name: "Oslo"}) } } WITH METADATA { source: "s", author: "s", valid_from: "2024-01-01" }
UPSERT { PROPOSITION ?d { ({type: "Person", name: "Lu"}, "lives_in", {type: "Place", name: "Bergen"}) } } WITH METADATA { source: "s", author: "s", valid_from: "2024-01-01" }]])
      local report = run(nx(), { phases = { "contradictions" } })
      local r = nx():execute('FIND(?o.name, ?l.metadata.superseded, ?l.metadata.supersedes) WHERE { ?l ({type: "Person", name: "Kim"}, "lives_in", ?o) } ORDER BY ?o.name')
      assert.same({ "Bergen", "Oslo" }, r.result[1])
      assert.equal(true, r.result[2][2])
      assert.is_string(r.result[3][1])
      assert.truthy(flagged(report, "Lu.*equally dated"))
    end)
  end)

  describe("decay and TTL", function()
    -- Ann knows Bo, a link of `strength` last observed long ago (confidence 0.9)
    local function ann_knows_bo(strength)
      write(nx(), [[UPSERT { CONCEPT ?x { {type: "Person", name: "Ann"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
        CONCEPT ?y { {type: "Person", name: "Bo"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } }
        WITH METADATA { source: "spec", author: "spec" }
UPSERT { PROPOSITION ?k { ({type: "Person", name: "Ann"}, "knows", {type: "Person", name: "Bo"}) } }
  WITH METADATA { source: "s", author: "s", confidence: 0.9, memory_strength: :s, observed_at: "2026-01-01T00:00:00Z" }]], { s = strength })
    end

    it("decays memory_strength once per cycle, never confidence", function()
      ann_knows_bo(0.8)
      local q = 'FIND(?l.metadata.memory_strength, ?l.metadata.confidence) WHERE { ?l ({type: "Person", name: "Ann"}, "knows", ?o) }'
      run(nx(), { phases = { "decay" } })
      local r = nx():execute(q)
      assert.is_true(math.abs(r.result[1][1] - 0.76) < 1e-9)
      assert.equal(0.9, r.result[2][1])
      run(nx(), { phases = { "decay" } }) -- same clock: nothing twice
      assert.is_true(math.abs(nx():execute(q).result[1][1] - 0.76) < 1e-9)
    end)

    it("decays later epochs without writing a link: the current strength is computed from the epochs", function()
      local strength = require "kip.sleep.strength"
      ann_knows_bo(0.8)
      local q = 'FIND(?l) WHERE { ?l ({type: "Person", name: "Ann"}, "knows", ?o) }'
      run(nx()) -- the first epoch writes (RC11's bulk UPDATE)
      local l = nx():execute(q).result[1]
      assert.is_true(math.abs(l.metadata.memory_strength - 0.76) < 1e-9)
      local gen = nx().handle:write_generation()
      local report = run(nx(), { now = "2026-11-21T00:00:00Z", phases = { "decay", "finalize" } })
      assert.same({ links = 0, epoch = 2 }, report.phases[1].counts)
      assert.equal(gen + 3, nx().handle:write_generation()) -- the cycle's record (started, completed) and the log: no link
      l = nx():execute(q).result[1]
      assert.equal(0.76, l.metadata.memory_strength) -- stored: as of its stamp
      local P = require("kip.sleep.cycle").DEFAULTS
      local epochs = strength.epochs(function(k) return nx():execute(k).result end)
      assert.same({ NOW, "2026-11-21T00:00:00Z" }, epochs)
      assert.is_true(math.abs(strength.current(P, l, nil, epochs) - 0.722) < 1e-9)
      -- the report measures the current strengths
      report = run(nx(), { now = "2026-11-22T00:00:00Z", phases = { "decay", "finalize" } })
      assert.is_true(math.abs(report.metrics_after.average_memory_strength - 0.76 * 0.95 * 0.95) < 1e-9)
      -- reinforcement starts from the current strength and restamps it
      local now = require("kip.sleep.cycle").parse_time("2026-11-22T12:00:00Z")
      assert.equal(1, strength.reinforce(nx(), { ids = { l.id }, now = now }))
      l = nx():execute(q).result[1]
      assert.same({ 0.886, "2026-11-22T12:00:00Z" }, { l.metadata.memory_strength, l.metadata.strength_decay_applied_at })
      assert.equal(0.9, l.metadata.confidence)
    end)

    it("brings used links back: reinforcement on use, at most once a day, then exempt from decay", function()
      local strength = require "kip.sleep.strength"
      ann_knows_bo(0.3)
      local q = 'FIND(?l.metadata.memory_strength, ?l.metadata.observed_at, ?l.metadata.confidence) WHERE { ?l ({type: "Person", name: "Ann"}, "knows", ?o) }'
      -- an agent's read that returned the link (what the MCP server reports)
      local used = nx():call_json('{"command": "FIND(?l) WHERE { ?l ({type: \\"Person\\", name: \\"Ann\\"}, \\"knows\\", ?o) }"}')
      local now = require("kip.sleep.cycle").parse_time("2026-11-19T12:00:00Z")
      assert.equal(1, strength.used(nx(), used, { now = now }))
      local r = nx():execute(q).result
      assert.is_true(math.abs(r[1][1] - 0.5) < 1e-9)
      assert.equal("2026-11-19T12:00:00Z", r[2][1])
      assert.equal(0.9, r[3][1]) -- confidence is epistemic: use does not change it
      assert.equal(0, strength.used(nx(), used, { now = now + 3600 })) -- once a day
      -- reinforced within the window: the cycle does not decay it
      run(nx(), { phases = { "decay" } })
      assert.is_true(math.abs(nx():execute(q).result[1][1] - 0.5) < 1e-9)
      -- classes and half-lives (docs/sleep.md "Memory strength")
      local P = require("kip.sleep.cycle").DEFAULTS
      assert.same({ "unverified", 0.90 }, { strength.class(P, "prefers", 1) })
      assert.same({ "verified", 0.98 }, { strength.class(P, "prefers", 3) })
      assert.same({ "generic", 0.95 }, { strength.class(P, "knows") })
      assert.equal("kept", strength.class(P, "derived_from"))
      assert.equal(6.6, math.floor(strength.half_life(0.90) * 10 + 0.5) / 10)
      assert.equal(34.3, math.floor(strength.half_life(0.98) * 10 + 0.5) / 10)
    end)

    it("deletes only whitelisted expired nodes and asks for review of the others", function()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Scratch"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } }
        WITH METADATA { source: "s", author: "s", expires_at: "2026-01-01T00:00:00Z", memory_tier: "short-term" }
UPSERT { CONCEPT ?b { {type: "Person", name: "Courier"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } }
        WITH METADATA { source: "s", author: "s", expires_at: "2026-01-01T00:00:00Z" }]])
      local report = run(nx(), { phases = { "ttl" } })
      assert.same({}, nx():execute('FIND(?x) WHERE { ?x {type: "Note", name: "Scratch"} }').result)
      assert.equal(1, #nx():execute('FIND(?x) WHERE { ?x {type: "Person", name: "Courier"} }').result)
      assert.truthy(flagged(report, "Courier"))
      local t = nx():execute('FIND(?t.attributes.requested_action) WHERE { ?t {type: "SleepTask"} FILTER(?t.attributes.target_name == "Courier") }')
      assert.same({ "review" }, t.result)
    end)
  end)

  describe("assessment and Domain health", function()
    it("measures the guide's health metrics and reports small Domains", function()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Lost"} } } WITH METADATA { source: "spec", author: "spec" }
UPSERT { CONCEPT ?b { {type: "Note", name: "Inbox"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } } }
  WITH METADATA { source: "spec", author: "spec" }]])
      local needed, why, m = sleep.check(nx(), { now = NOW })
      assert.equal(1, m.orphans)
      assert.equal(1, m.unsorted)
      assert.is_false(needed)
      assert.same({}, why)
      local report = run(nx(), { phases = { "assess", "domains" } })
      assert.equal(1, report.phases[1].counts.orphans)
      assert.truthy(flagged(report, "Domain:Finance.*0 member"))
      assert.truthy(flagged(report, "Domain:Health.*0 member"))
    end)

    it("decides --if-needed from the last cycle's record when nothing changed since", function()
      write(nx(), [[UPSERT { CONCEPT ?e { {type: "Event", name: "chat"} SET ATTRIBUTES { event_class: "Conversation",
        start_time: "2026-11-18T10:00:00Z", consolidation_status: "pending" }
        SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } } WITH METADATA { source: "spec", author: "spec" }]])
      local _, _, m, how = sleep.check(nx(), { now = NOW })
      assert.equal("counted", how)
      run(nx())
      _, _, m, how = sleep.check(nx(), { now = NOW })
      assert.equal("recorded", how)
      assert.equal("2026-11-18T10:00:00Z", m.next_stale_at)
      -- time passes: the pending Event turns stale, so the record no longer
      -- holds; the record and the change log decide
      _, _, m, how = sleep.check(nx(), { now = "2026-11-26T00:00:00Z" })
      assert.same({ "logged", 1 }, { how, m.stale_events })
      -- a write since the cycle: the new concept is an orphan
      write(nx(), [[UPSERT { CONCEPT ?n { {type: "Note", name: "new"} } } WITH METADATA { source: "spec", author: "spec" }]])
      _, _, m, how = sleep.check(nx(), { now = NOW })
      assert.same({ "logged", 1 }, { how, m.orphans })
      -- --full: no change log behind a cycle (or too many changes): the store counts
      run(nx(), { full = true })
      write(nx(), [[UPSERT { CONCEPT ?n { {type: "Note", name: "newer"} } } WITH METADATA { source: "spec", author: "spec" }]])
      _, _, m, how = sleep.check(nx(), { now = NOW, params = { delta_max_changes = 0 } })
      assert.same({ "counted", 1 }, { how, m.orphans })
    end)

    it("--if-needed counts only until a threshold is crossed, cheapest metric first", function()
      write(nx(), "UPSERT {\n" .. notes("inbox", 25, true) .. "\n" .. notes("lost", 12) ..
        '\n} WITH METADATA { source: "spec", author: "spec" }')
      local needed, why, m, how = sleep.check(nx(), { now = NOW, until_needed = true })
      assert.is_true(needed)
      assert.same({ "Unsorted 25 > 20" }, why)
      assert.same({ "counted", 25 }, { how, m.unsorted })
      assert.is_nil(m.orphans) -- not counted: the answer was known
      needed, why, m = sleep.check(nx(), { now = NOW })
      assert.is_true(needed)
      assert.same({ "Unsorted 25 > 20", "orphans 12 > 10" }, why)
      assert.equal(12, m.orphans)
    end)

    it("counts the trigger's metrics in the store as the graph measures them, without what others own", function()
      local assess = require "kip.sleep.phases.assess"
      local cycle = require "kip.sleep.cycle"
      write(nx(), [[UPSERT {
  CONCEPT ?a { {type: "Note", name: "Lost"} }
  CONCEPT ?b { {type: "Note", name: "Inbox"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } }
  CONCEPT ?e { {type: "Event", name: "old"} SET ATTRIBUTES { start_time: "2026-10-01T10:00:00Z" } }
  CONCEPT ?f { {type: "Event", name: "done"} SET ATTRIBUTES { start_time: "2026-10-01T10:00:00Z", consolidation_status: "completed" }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?g { {type: "Event", name: "linked"} SET ATTRIBUTES { start_time: "2026-10-01T10:00:00Z", consolidation_status: "pending" }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) ("consolidated_to", {type: "Note", name: "Lost"}) } }
  CONCEPT ?h { {type: "Event", name: "recent"} SET ATTRIBUTES { start_time: "2026-11-19T10:00:00Z" } }
  CONCEPT ?t { {type: "SleepTask", name: "t1"} SET ATTRIBUTES { status: "pending" } }
  CONCEPT ?u { {type: "SleepTask", name: "t2"} SET ATTRIBUTES { status: "completed" } }
  CONCEPT ?k { {type: "$ConceptType", name: "Ledger"} }
  CONCEPT ?l { {type: "Ledger", name: "owned elsewhere"} }
  CONCEPT ?m { {type: "Note", name: "one owned note"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } }
} WITH METADATA { source: "spec", author: "spec" }]])
      -- what a subsystem owns (a type, one concept) is neither counted nor measured
      assert(require("kip.guards").declare(nx(), "ledger", { { "Ledger", nil, "sealed", "ledger" },
        { "Note", "one owned note", "sealed", "ledger" } }))
      local c = cycle.new(nx(), { now = NOW })
      local counted, measured = assess.counts(c), assess.metrics(c, require("kip.sleep.snapshot").take(c))
      for _, k in ipairs { "orphans", "unsorted", "stale_events", "pending_sleep_tasks" } do
        assert.equal(measured[k], counted[k], k)
      end
      assert.same({ 5, 1, 1, 1 }, { counted.orphans, counted.unsorted, counted.stale_events, counted.pending_sleep_tasks })
    end)

    it("skips the phases of an unchanged memory with nothing due, and runs them again when something changed or fell due", function()
      write(nx(), [[UPSERT { CONCEPT ?n { {type: "Note", name: "Inbox item"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } }
        CONCEPT ?e { {type: "Event", name: "chat"} SET ATTRIBUTES { event_class: "Conversation", start_time: "2026-11-18T10:00:00Z",
          consolidation_status: "pending" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } }
        WITH METADATA { source: "spec", author: "spec" }]])
      local first = run(nx())
      assert.is_nil(first.unchanged_since)
      local second = run(nx(), { now = "2026-11-21T00:00:00Z" })
      assert.equal(NOW, second.unchanged_since)
      local names = {}
      for _, p in ipairs(second.phases) do names[#names + 1] = p.phase end
      assert.same({ "decay" }, names) -- the epoch, recorded
      local kinds = {}
      for _, g in ipairs(second.flag_groups) do kinds[g.kind] = g.count end
      assert.equal(1, kinds["in Unsorted: no rule decides its Domain"]) -- what still stands
      -- the Event turns stale on the 25th: due, so the phases run
      local third = run(nx(), { now = "2026-11-26T00:00:00Z" })
      assert.is_nil(third.unchanged_since)
      assert.equal(1, third.metrics_before.stale_events)
      -- a write since: the phases run
      run(nx(), { now = "2026-11-27T00:00:00Z" })
      write(nx(), [[UPSERT { CONCEPT ?n { {type: "Note", name: "new"} } } WITH METADATA { source: "spec", author: "spec" }]])
      assert.is_nil(run(nx(), { now = "2026-11-28T00:00:00Z" }).unchanged_since)
      -- a cycle of chosen phases leaves the others undone: the next one runs them
      run(nx(), { now = "2026-11-29T00:00:00Z", phases = { "assess", "finalize" } })
      assert.is_nil(run(nx(), { now = "2026-11-29T12:00:00Z" }).unchanged_since)
      -- a hook judges anew: never skipped
      assert.is_nil(run(nx(), { now = "2026-11-30T00:00:00Z", hooks = { classify = function() end } }).unchanged_since)
    end)

    it("groups flags of one kind and keeps every item: the record, its pages, the groups", function()
      write(nx(), "UPSERT { " .. notes("scrap", 30, true) .. ' } WITH METADATA { source: "spec", author: "spec" }')
      -- (a write budget of 1: finalization, which writes the record and its pages, is never cut short)
      local report = run(nx(), { phases = { "unsorted", "finalize" }, params = { report_flags = 10, phase_writes = 1 } })
      local g = report.flag_groups[1]
      assert.same({ "unsorted", "in Unsorted: no rule decides its Domain", 30 }, { g.phase, g.kind, g.count })
      assert.equal(3, #g.examples)
      local rec = nx():execute('FIND(?r.attributes) WHERE { ?r {type: "SleepCycle"} }').result[1]
      assert.same({ 10, 30, 1 }, { #rec.flagged, rec.flagged_count, rec.flag_pages })
      assert.equal(30, rec.flag_groups[1].count)
      local page = nx():execute('FIND(?p.attributes, ?p.metadata.memory_tier) WHERE { ?p {type: "SleepCycleFlags"} }').result
      assert.same({ 11, 20, "short-term" }, { page[1][1].first, #page[1][1].flagged, page[2][1] })
    end)

    it("records the changes it made: phase, why and the values written, the rest in pages", function()
      write(nx(), "UPSERT { " .. notes("kept", 30, true) .. ' } WITH METADATA { source: "spec", author: "spec" }')
      local touch = { name = "touch", run = function(c)
        for i = 1, 30 do
          c:write('UPSERT { CONCEPT ?n { {type: "Note", name: :n} SET ATTRIBUTES { checked: true } } } '
            .. 'WITH METADATA { source: "spec", author: "$system" }', { n = "kept " .. i }, "check kept " .. i)
        end
        return { touched = 30 }
      end }
      run(nx(), { phases = { touch, "finalize" }, params = { report_flags = 10 } })
      local rec = nx():execute('FIND(?r.attributes) WHERE { ?r {type: "SleepCycle"} }').result[1]
      assert.same({ 10, 30, 1 }, { #rec.changes, rec.changes_count, rec.change_pages })
      assert.same({ "touch", "check kept 1", '{"n":"kept 1"}' }, { rec.changes[1].phase, rec.changes[1].why, rec.changes[1].values })
      local page = nx():execute('FIND(?p.attributes, ?p.metadata.memory_tier) WHERE { ?p {type: "SleepCycleChanges"} }').result
      assert.same({ 11, 20, "short-term", "check kept 30" }, { page[1][1].first, #page[1][1].changes, page[2][1], page[1][1].changes[20].why })
    end)

    it("keeps what an attribute was beside what it wrote", function()
      write(nx(), [[UPSERT { CONCEPT ?n { {type: "Note", name: "n1"} SET ATTRIBUTES { status: "open" } } }
        WITH METADATA { source: "spec", author: "spec" }]])
      local rules = require "kip.sleep.rules"
      local close = { name = "close", run = function(c)
        rules.set_attributes(c, { type = "Note", name = "n1", attributes = { status = "open" } }, { 'status: "closed"', "closed_by: :by" },
          { by = "spec" }, "close n1")
        return {}
      end }
      run(nx(), { phases = { close, "finalize" } })
      local rec = nx():execute('FIND(?r.attributes) WHERE { ?r {type: "SleepCycle"} }').result[1]
      assert.same({ "close n1", '{"closed_by":null,"status":"open"}' }, { rec.changes[1].why, rec.changes[1].before })
      assert.equal("closed", attr(nx(), "Note", "n1", "status"))
    end)

    local SMALL = [[UPSERT { CONCEPT ?d { {type: "Domain", name: "Running"} SET ATTRIBUTES { description: "runs", parent_domain: "Health" } }
  CONCEPT ?n { {type: "Note", name: "5k plan"} SET PROPOSITIONS { ("belongs_to_domain", ?d) } } } WITH METADATA { source: "spec", author: "spec" }]]
    local function merged(n)
      assert.same({ "Health" }, domains(n, "Note", "5k plan"))
      local r = n:execute('FIND(?l.metadata.moved_from_domain) WHERE { ?l ({type: "Note", name: "5k plan"}, "belongs_to_domain", ?d) }')
      assert.same({ "Running" }, r.result)
      assert.equal("archived", attr(n, "Domain", "Running", "status"))
      assert.equal("Health", attr(n, "Domain", "Running", "merged_into"))
      assert.same({ "Archived" }, domains(n, "Domain", "Running"))
    end

    it("keeps a small Domain without judgment, naming its parent; a domain hook merges it with provenance", function()
      write(nx(), SMALL)
      local report = run(nx(), { phases = { "domains" } })
      assert.truthy(flagged(report, "Domain:Running.*1 member.*merge it into Health"))
      assert.same({ "Running" }, domains(nx(), "Note", "5k plan"))
      local asked
      report = run(nx(), { phases = { "domains" }, hooks = { domain = function(_, d, parent)
        if d.name == "Running" then asked = parent return parent end
      end } })
      assert.equal("Health", asked)
      assert.equal(1, report.phases[1].counts.merged)
      merged(nx())
      -- archived: not a small Domain any more, nothing more to do
      report = run(nx(), { phases = { "domains" }, hooks = { domain = function() error("not asked again") end } })
      assert.equal(0, report.writes)
      assert.is_nil(flagged(report, "Running"))
    end)

    it("merges a small Domain on an explicit merge_domain SleepTask, in one transaction", function()
      write(nx(), SMALL)
      write(nx(), [[UPSERT { CONCEPT ?t { {type: "SleepTask", name: "merge running"} SET ATTRIBUTES { target_type: "Domain",
        target_name: "Running", requested_action: "merge_domain", status: "pending", reason: "too small" }
        SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) ("assigned_to", {type: "Person", name: "$system"}) } } }
        WITH METADATA { source: "spec", author: "$self" }]])
      run(nx(), { phases = { "tasks" } })
      assert.equal("completed", attr(nx(), "SleepTask", "merge running", "status"))
      merged(nx())
    end)
  end)

  describe("the whole cycle", function()
    it("commits grouped writes together; a refused group is sent again write by write", function()
      local cycle = require "kip.sleep.cycle"
      local c = cycle.new(nx(), { now = NOW })
      c.phase = "spec"
      local function note(n) return ([[UPSERT { CONCEPT ?n { {type: "Note", name: "%s"} } } WITH METADATA { source: "s", author: "s" }]]):format(n) end
      local gen0 = nx().handle:write_generation()
      c:begin_group(10)
      for i = 1, 4 do c:write(note("g" .. i), nil, "note g" .. i) end
      c:end_group()
      assert.equal(4, c.writes)
      assert.equal(gen0 + 1, nx().handle:write_generation(), "one transaction for the group")
      c:begin_group(10)
      c:write(note("h1"), nil, "note h1")
      c:write("UPSERT { CONCEPT ?n { {type: } } }", nil, "broken")
      c:write(note("h2"), nil, "note h2")
      c:end_group()
      assert.equal(6, c.writes)
      assert.equal(1, #c.errors)
      assert.equal("broken", c.errors[1].why)
      assert.equal(2, #nx():execute('FIND(?n.name) WHERE { ?n {type: "Note"} FILTER(STARTS_WITH(?n.name, "h")) }').result)
    end)

    it("reads the graph once and catches up after each phase's writes: the same snapshot as a fresh read", function()
      local snapshot = require "kip.sleep.snapshot"
      local core = require "kip.core"
      -- a defect of every kind each phase repairs: Unsorted and orphan items,
      -- stale Events (anchored, trivial, landmark), twins, a contradiction,
      -- an expired short-term note and an expired link, a SleepTask
      write(nx(), [[UPSERT {
  CONCEPT ?a { {type: "Person", name: "Kim"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?b { {type: "Person", name: "kim "} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) ("knows", ?a) } }
  CONCEPT ?o { {type: "Place", name: "Oslo"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?g { {type: "Place", name: "Bergen"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?u { {type: "Note", name: "inbox"} SET ATTRIBUTES { body: "money" } SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } }
  CONCEPT ?t { {type: "Note", name: "tagged"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Unsorted"}) } }
  CONCEPT ?n { {type: "Note", name: "lost"} }
  CONCEPT ?x { {type: "Note", name: "short"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?e1 { {type: "Event", name: "trivial"} SET ATTRIBUTES { start_time: "2026-10-01T10:00:00Z", consolidation_status: "pending", salience_score: 5 }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) ("involves", ?a) } }
  CONCEPT ?e2 { {type: "Event", name: "anchored"} SET ATTRIBUTES { start_time: "2026-10-01T10:00:00Z", consolidation_status: "pending", salience_score: 50 }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?e3 { {type: "Event", name: "landmark"} SET ATTRIBUTES { start_time: "2026-10-01T10:00:00Z", consolidation_status: "pending", salience_score: 95 }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } }
  CONCEPT ?pr { {type: "Preference", name: "Tea"} SET ATTRIBUTES { description: "likes tea" }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) ("derived_from", ?e2) } }
  CONCEPT ?st { {type: "SleepTask", name: "archive lost"} SET ATTRIBUTES { target_type: "Note", target_name: "tagged", requested_action: "archive", status: "pending", reason: "x" }
    SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "System"}) ("assigned_to", {type: "Person", name: "$system"}) } }
} WITH METADATA { source: "spec", author: "spec" }
UPSERT { PROPOSITION ?l1 { ({type: "Person", name: "Kim"}, "lives_in", {type: "Place", name: "Oslo"}) } } WITH METADATA { source: "s", author: "s", valid_from: "2020-01-01" }
UPSERT { PROPOSITION ?l2 { ({type: "Person", name: "Kim"}, "lives_in", {type: "Place", name: "Bergen"}) } } WITH METADATA { source: "s", author: "s", valid_from: "2024-01-01" }
UPSERT { PROPOSITION ?k { ({type: "Place", name: "Oslo"}, "knows", {type: "Place", name: "Bergen"}) } } WITH METADATA { source: "s", author: "s", expires_at: "2026-01-01T00:00:00Z" }
UPSERT { CONCEPT ?x { {type: "Note", name: "short"} } } WITH METADATA { source: "s", author: "s", expires_at: "2026-01-01T00:00:00Z", memory_tier: "short-term" }]])
      -- every element as it reads, without the decay epoch's stamps (decay
      -- keeps the snapshot on purpose: strengths are computed either way)
      local function plain(x)
        local copy = {}
        for k, v in pairs(x) do if k ~= "stale" then copy[k] = v end end
        if copy.metadata then
          local md = {}
          for k, v in pairs(copy.metadata) do
            if k ~= "memory_strength" and k ~= "strength_decay_applied_at" and k ~= "_updated_at" and k ~= "_version" then md[k] = v end
          end
          copy.metadata = md
        end
        return core.json_encode(copy)
      end
      local function picture(s)
        local p = {}
        for _, list in ipairs { s.concepts, s.links } do
          for _, x in ipairs(list) do
            assert.is_nil(x.stale)
            p[x.id] = plain(x)
          end
        end
        for id, x in pairs(s.by_id) do assert.equal(p[id], plain(x)) end
        local ends = {}
        for id in pairs(s.by_id) do
          local out, into = {}, {}
          for _, l in ipairs(s:links_from(id)) do out[#out + 1] = l.id end
          for _, l in ipairs(s:links_to(id)) do into[#into + 1] = l.id end
          table.sort(out)
          table.sort(into)
          ends[id] = table.concat(out, ",") .. "|" .. table.concat(into, ",")
        end
        return p, ends
      end
      local reads, read = 0, snapshot.read
      snapshot.read = function(...) reads = reads + 1 return read(...) end
      local checked = {}
      local snap
      local check = { name = "check", run = function(c)
        local caught_up = snapshot.take(c)
        snap = caught_up
        local a, ae = picture(caught_up)
        local b, be = picture(read(c))
        assert.same(b, a)
        assert.same(be, ae)
        checked[#checked + 1] = c.results[#c.results].phase
        return {}
      end }
      -- another writer between two phases: not the cycle's own writes, so
      -- the catch-up reads what changed by _updated_at
      local elsewhere = { name = "elsewhere", run = function(c)
        write(nx(), [[UPDATE ?x SET ATTRIBUTES { note: "edited elsewhere" } WHERE { ?x {type: "Place", name: "Oslo"} }]])
        write(nx(), [[UPSERT { CONCEPT ?n { {type: "Note", name: "written elsewhere"}
          SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } } WITH METADATA { source: "s", author: "s" }]])
        c.writes = c.writes + 1 -- (so that the next phase catches up at all)
        return {}
      end }
      local phases = {}
      for _, name in ipairs(sleep.PHASES) do
        phases[#phases + 1] = name
        if name ~= "finalize" then phases[#phases + 1] = check end
        if name == "orphans" then phases[#phases + 1] = elsewhere; phases[#phases + 1] = check end
      end
      local ok, report = pcall(run, nx(), { phases = phases })
      snapshot.read = read
      assert(ok, report)
      assert.same({}, report.errors) -- a check that failed is a phase that failed
      assert.equal(1, reads, "one whole-graph read per cycle")
      -- the built-in phases say what they wrote: no catch-up scans by _updated_at
      assert.equal(1, snap.catch_ups.scanned, "only after the other writer")
      assert.is_true(snap.catch_ups.declared >= 5)
      assert.equal(#sleep.PHASES, #checked)
      -- and the cycle did repair: the twin merged, the note deleted, the task done
      assert.same({}, nx():execute('FIND(?n.name) WHERE { ?n {type: "Note", name: "short"} }').result)
      assert.equal("completed", attr(nx(), "SleepTask", "archive lost", "status"))
      assert.equal(1, #nx():execute('FIND(?p.name) WHERE { ?p {type: "Person"} FILTER(?p.name != "$self" && ?p.name != "$system") }').result)
    end)

    it("reports, logs to $system, writes nothing but its report the second time, and a dry run changes nothing", function()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Lost"} } } WITH METADATA { source: "spec", author: "spec" }]])
      -- a link old enough to decay: the first run decays it, the second has nothing to decay
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Lost"} } CONCEPT ?b { {type: "Note", name: "Found"} }
        PROPOSITION { (?a, "knows", ?b) } WITH METADATA { observed_at: "2020-01-01T00:00:00Z" } } WITH METADATA { source: "spec", author: "spec" }]])
      local dry = run(nx(), { dry_run = true })
      assert.is_true(#dry.planned > 0)
      assert.is_nil(dry.index_merge)
      assert.same({}, domains(nx(), "Note", "Lost"))
      local first = run(nx())
      assert.is_true(first.writes > 0)
      -- the SEARCH index is merged after the phases, and still finds what it held
      assert.is_nil(first.index_merge.error)
      assert.equal("Lost", nx():execute('SEARCH CONCEPT "Lost" LIMIT 1').result[1].name)
      assert.same({ "Unsorted" }, domains(nx(), "Note", "Lost"))
      local decayed = 0
      for _, p in ipairs(first.phases) do if p.phase == "decay" then decayed = p.counts.links end end
      assert.is_true(decayed >= 1, "the first run decays the link")
      local second = run(nx())
      assert.equal(0, second.writes, "a rerun with the same clock changes nothing")
      -- the second run writes only its report: start marker, record, log
      for _, d in ipairs(second.decisions) do
        assert.truthy(d.why == "start" or d.why == "report" or d.why == "maintenance_log", d.why)
      end
      local log = nx():execute('FIND(?s.attributes.maintenance_log) WHERE { ?s {type: "Person", name: "$system"} }').result[1]
      assert.equal(2, #log)
      local rec = nx():execute('FIND(?r.attributes.status) WHERE { ?r {type: "SleepCycle", name: :n} }', { n = "SleepCycle:" .. NOW })
      assert.same({ "completed" }, rec.result)
    end)

    it("sends every write through the policies as $system", function()
      local dir = os.tmpname()
      os.remove(dir)
      os.execute("mkdir -p " .. dir)
      local f = assert(io.open(dir .. "/no_deletes.lua", "w"))
      f:write([[return kip.policy { name = "no_deletes", pre_check = function(req, ctx)
        if ctx.actor == "$system" and req.kind == "DELETE" then return { state = "BLOCK", reasons = { "no deletes tonight" } } end
        return { state = "ALLOW" } end }]])
      f:close()
      local path = H.tmpdb()
      local g = assert(kip.open { path = path, policies = { "no_deletes" }, policy_dirs = { dir }, embedder = false })
      write(g, SCHEMA)
      write(g, [[UPSERT { CONCEPT ?a { {type: "Note", name: "Scratch"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } }
        WITH METADATA { source: "s", author: "s", expires_at: "2026-01-01T00:00:00Z", memory_tier: "short-term" }]])
      local report = run(g)
      assert.equal(1, #g:execute('FIND(?x) WHERE { ?x {type: "Note", name: "Scratch"} }').result)
      assert.truthy(flagged(report, "KIP_4004"))
      g:close()
      H.cleanup(path)
      os.execute("rm -rf " .. dir)
    end)

    it("lets one holder at a time take the scheduling lease", function()
      local timer = require "kip.sleep.timer"
      local path = H.tmpdb()
      local a = assert(kip.open { path = path, embedder = false })
      local b = assert(kip.open { path = path, embedder = false })
      local ha = assert(timer.acquire(a, "A"))
      local hb, why = timer.acquire(b, "B")
      assert.is_nil(hb)
      assert.matches("lease", why)
      assert.is_true(timer.release(a, ha))
      assert.equal("B", timer.acquire(b, "B"))
      assert.is_false(timer.release(a, "A")) -- only the holder releases
      assert.is_true(timer.release(b, "B"))
      -- a second worker's tick in the same period does not run another cycle
      local hc, too_soon = timer.acquire(a, "C", nil, 3600)
      assert.is_nil(hc)
      -- B's lease was taken moments ago: 0 s, or 1 s when the clock ticked over since
      local since = tonumber(too_soon:match("^the last cycle started (%d+) s ago, less than every = 3600 s"))
      assert.truthy(since and since <= 1, too_soon)
      local _, skipped = timer.run_once(b, { now = NOW, every = 3600 })
      assert.matches("less than every", skipped)
      local report = timer.run_once(a, { now = NOW })
      assert.equal(NOW, report.now)
      -- without `now`, a cycle's clock is the second its lease recorded
      -- (`every` counts from there: two cycles never log the same second)
      -- (a clock that ticks over at every reading: the lease's second and a later one differ)
      local real_time, t = os.time, os.time()
      os.time = function(x) if x then return real_time(x) end t = t + 1 return t end
      local ok_run, own = pcall(timer.run_once, b, {})
      os.time = real_time
      assert(ok_run and own, own)
      local lock = b:execute('FIND(?l.attributes.started_s) WHERE { ?l {type: "SleepCycle", name: :n} }', { n = timer.LOCK })
      assert.equal(require("kip.sleep.cycle").iso(lock.result[1]), own.now)
      local _, not_needed = timer.run_once(a, { now = NOW, if_needed = true })
      assert.matches("not needed", not_needed)
      a:close()
      b:close()
      H.cleanup(path)
    end)

    it("cannot be made to touch protected structures, even by a hook", function()
      write(nx(), [[UPSERT { CONCEPT ?e { {type: "Event", name: "e1"} SET ATTRIBUTES { start_time: "2026-10-01T00:00:00Z", salience_score: 50 }
        SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Health"}) } } } WITH METADATA { source: "s", author: "s" }]])
      local report = run(nx(), { phases = { "events" }, hooks = { consolidate = function(c)
        c:write('DELETE CONCEPT ?x DETACH WHERE { ?x {type: "Person", name: "$self"} }', {}, "evil")
        c:write('UPDATE ?d SET ATTRIBUTES { description: "mine" } WHERE { ?d {type: "Domain", name: "CoreSchema"} }', {}, "evil")
      end } })
      assert.equal(1, #nx():execute('FIND(?x) WHERE { ?x {type: "Person", name: "$self"} }').result)
      assert.equal(2, #report.errors)
      for _, e in ipairs(report.errors) do assert.equal("KIP_3004", e.error.code) end
    end)

    it("runs an operator's phase file in the sandbox, and survives a broken or runaway one", function()
      local dir = os.tmpname()
      os.remove(dir)
      os.execute("mkdir -p " .. dir)
      local function file(name, text)
        local f = assert(io.open(dir .. "/" .. name, "w"))
        f:write(text)
        f:close()
        return dir .. "/" .. name
      end
      local good = file("notes.lua", [[return { name = "notes", title = "Count notes", run = function(c)
        local s = sleep.snapshot.take(c)
        local n = 0
        for _, e in ipairs(s.concepts) do if e.type == "Note" then n = n + 1 end end
        c:flag("notes", n .. " notes")
        return { notes = n }
      end }]])
      local bad = file("bad.lua", [[return { name = "bad", run = function(c) return io.open("/etc/passwd") end }]])
      local loop = file("loop.lua", [[return { name = "loop", run = function(c) while true do c:flag("x", "y") end end }]])
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "N1"} } } WITH METADATA { source: "spec", author: "spec" }]])
      sleep.PHASE_BUDGET = 1000000
      local report = run(nx(), { phases = { good, bad, loop, "orphans" } })
      sleep.PHASE_BUDGET = 2000000000
      assert.equal(1, report.phases[1].counts.notes)
      assert.truthy(report.phases[2].counts.failed)
      assert.truthy(flagged(report, "bad.lua.*io") or flagged(report, "phase failed"))
      assert.truthy(report.phases[3].counts.failed)
      assert.truthy(flagged(report, "instruction budget"))
      assert.equal("orphans", report.phases[4].phase)
      os.execute("rm -rf " .. dir)
    end)

    it("refuses a malformed clock", function()
      assert.has_error(function() run(nx(), { now = "yesterday" }) end)
    end)
  end)

  describe("private facts", function()
    it("are maintained like the rest, and a report that may name them is private", function()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Secret diary"} } }
        WITH METADATA { source: "spec", author: "spec", access_level: "private", relevance_tags: ["money"] }]])
      run(nx())
      -- the operator sees the private note filed, and the report
      local op = { ctx = { operator = true } }
      local d = nx():execute('FIND(?d.name) WHERE { ?n {type: "Note", name: "Secret diary"} (?n, "belongs_to_domain", ?d) }', nil, op)
      assert.same({ "Finance" }, d.result)
      assert.equal(1, #nx():execute('FIND(?r.name) WHERE { ?r {type: "SleepCycle"} }', nil, op).result)
      -- another caller, through the default policy, sees neither
      local governed = kip.open { path = nx().path, embedder = false, policies = { "default" } }
      local seen = governed:execute('FIND(?r.name) WHERE { ?r {type: "SleepCycle"} }', nil, { ctx = { actor = "agent" } })
      governed:close()
      assert.same({}, seen.result)
    end)

    it("leaves a report that names none of them readable", function()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Secret diary"} SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Finance"}) } } }
        WITH METADATA { source: "spec", author: "spec", access_level: "private" }
UPSERT { CONCEPT ?b { {type: "Note", name: "Shopping list"} } } WITH METADATA { source: "spec", author: "spec" }]])
      local report = run(nx())
      assert.is_falsy(report.mentions_private)
      local governed = kip.open { path = nx().path, embedder = false, policies = { "default" } }
      local seen = governed:execute('FIND(?r.name) WHERE { ?r {type: "SleepCycle"} }', nil, { ctx = { actor = "agent" } })
      governed:close()
      assert.same({ "SleepCycle:" .. NOW }, seen.result)
    end)
  end)

  describe("incremental cycles (the change log)", function()
    local function settled()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Budget sheet"}
        SET PROPOSITIONS { ("belongs_to_domain", {type: "Domain", name: "Finance"}) } } } WITH METADATA { source: "spec", author: "spec" }]])
      run(nx())
      run(nx(), { now = "2026-11-20T06:00:00Z" })
    end

    it("judges what changed since a complete cycle, and says so", function()
      settled()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "Tax letter"} } } WITH METADATA { source: "spec", author: "spec",
        relevance_tags: ["money"] }]])
      local report = run(nx(), { now = "2026-11-21T00:00:00Z", incremental = true })
      assert.is_table(report.incremental, report.full_why)
      assert.same({ "Finance" }, domains(nx(), "Note", "Tax letter"))
      -- and --full reads everything, saying why
      report = run(nx(), { now = "2026-11-22T00:00:00Z", full = true })
      assert.is_nil(report.incremental)
      assert.matches("%-%-full", report.full_why)
    end)

    it("runs a full cycle when a Domain changed (the rules read Domains)", function()
      settled()
      write(nx(), [[UPDATE ?d SET ATTRIBUTES { aliases: ["money", "budget", "tax"] } WHERE { ?d {type: "Domain", name: "Finance"} }]])
      local report = run(nx(), { now = "2026-11-21T00:00:00Z", incremental = true })
      assert.is_nil(report.incremental)
      assert.matches("Domain", report.full_why)
    end)

    it("reads everything when much of a memory changed (it costs less)", function()
      settled()
      write(nx(), "UPSERT {\n" .. notes("lost", 12) .. '\n} WITH METADATA { source: "spec", author: "spec" }')
      local report = run(nx(), { now = "2026-11-21T00:00:00Z" })
      assert.is_nil(report.incremental)
      assert.matches("reading them all costs less", report.full_why)
    end)

    it("loses nothing written while a cycle runs: the next one judges it", function()
      settled()
      write(nx(), [[UPSERT { CONCEPT ?a { {type: "Note", name: "First"} } } WITH METADATA { source: "spec", author: "spec" }]])
      -- another connection writes while the cycle is between its phases
      local other, wrote = assert(kip.open { path = nx().path, embedder = false }), false
      run(nx(), { now = "2026-11-21T00:00:00Z", incremental = true, progress = function(phase)
        if phase == "orphans" and not wrote then
          wrote = true
          local r = other:execute([[UPSERT { CONCEPT ?a { {type: "Note", name: "Meanwhile"} } } WITH METADATA { source: "spec", author: "spec" }]])
          assert(not r.error, r.error and r.error.message)
        end
      end })
      other:close()
      assert.same({ "Unsorted" }, domains(nx(), "Note", "First"))
      assert.same({}, domains(nx(), "Note", "Meanwhile")) -- written after the orphans phase looked
      local log = require("kip.core").json_decode(nx().handle:changes(0))
      local meanwhile = nx():execute('FIND(?n.id) WHERE { ?n {type: "Note", name: "Meanwhile"} }').result[1]
      local kept = false
      for _, id in ipairs(log.ids) do kept = kept or id == meanwhile end
      assert.is_true(kept, "the concurrent write stays in the change log")
      local report = run(nx(), { now = "2026-11-22T00:00:00Z", incremental = true })
      assert.is_table(report.incremental, tostring(report.full_why))
      assert.same({ "Unsorted" }, domains(nx(), "Note", "Meanwhile"))
    end)

    it("keeps the next expiry exact: a link written since expires before anything the last cycle knew", function()
      settled()
      write(nx(), [[UPSERT { PROPOSITION ?l { ({type: "Note", name: "Budget sheet"}, "knows", {type: "Domain", name: "Health"}) } }
        WITH METADATA { source: "spec", author: "spec", expires_at: "2026-11-21T12:00:00Z" }]])
      local report = run(nx(), { now = "2026-11-21T00:00:00Z", incremental = true })
      assert.is_table(report.incremental, tostring(report.full_why))
      assert.equal("2026-11-21T12:00:00Z", report.metrics_after.next_expiry_at)
      -- nothing written since, but the expiry has passed: not skipped as unchanged
      report = run(nx(), { now = "2026-11-22T00:00:00Z", incremental = true })
      assert.is_nil(report.unchanged_since)
      assert.same({}, nx():execute('FIND(?l) WHERE { ?l ({type: "Note", name: "Budget sheet"}, "knows", ?o) }').result)
    end)

    it("decides --check from the record and the change log", function()
      settled()
      write(nx(), "UPSERT {\n" .. notes("lost", 12) .. '\n} WITH METADATA { source: "spec", author: "spec" }')
      local needed, why, m, how = sleep.check(nx(), { now = "2026-11-21T00:00:00Z" })
      assert.same({ "logged", 12, true }, { how, m.orphans, needed })
      assert.same({ "orphans 12 > 10" }, why)
    end)
  end)
end)
